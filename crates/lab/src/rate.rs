//! The time a long piece of work has left, estimated from the rate measured while it runs
//! (the plain progress lines' ETA).

use std::time::{Duration, Instant};

/// Units done since the first position above zero was seen, and when: a resumed run's bar
/// starts at its checkpoint, and a fresh run's first unit includes its set-up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rate {
    since: Option<(u64, Instant)>,
}

impl Rate {
    /// Notes the position now (the first one above zero starts the clock).
    pub fn observe(&mut self, position: u64) {
        if self.since.is_none() && position > 0 {
            self.since = Some((position, Instant::now()));
        }
    }

    /// The time left at `position` of `total`, in words ([`eta_text`]).
    #[must_use]
    pub fn eta(&self, position: u64, total: u64) -> String {
        let rate = self
            .since
            .map(|(at, t)| (position.saturating_sub(at), t.elapsed()));
        eta_text(rate, total.saturating_sub(position))
    }
}

/// The time left for `left` units at `rate` (units done in a time), in words: "unknown"
/// before a unit has been done at a measured rate, rather than a made-up figure (indicatif's
/// own estimate is zero or 2^64 s when units are minutes apart).
#[must_use]
pub fn eta_text(rate: Option<(u64, Duration)>, left: u64) -> String {
    match rate {
        _ if left == 0 => "0 s".into(),
        Some((done, took)) if done > 0 => {
            format!("{:.0} s", took.as_secs_f64() / done as f64 * left as f64)
        }
        _ => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_comes_from_the_measured_rate_or_is_unknown() {
        assert_eq!(eta_text(None, 30), "unknown");
        assert_eq!(eta_text(Some((0, Duration::from_secs(600))), 30), "unknown");
        assert_eq!(eta_text(Some((2, Duration::from_secs(60))), 30), "900 s");
        assert_eq!(eta_text(None, 0), "0 s");
        let mut rate = Rate::default();
        rate.observe(0);
        assert_eq!(rate.eta(0, 10), "unknown", "nothing done yet");
        rate.observe(4);
        assert_eq!(
            rate.eta(4, 10),
            "unknown",
            "no unit done since the clock started"
        );
        assert_eq!(rate.eta(10, 10), "0 s");
    }
}
