//! The commands' one progress bar: a bar with an ETA on a terminal, and a plain line every few
//! seconds when standard error is not a terminal (a pipe, a log file), so long work always
//! shows that it is moving.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello_engine::train::pipeline::{Chart, Report, Steps};

/// How often a plain progress line is written when standard error is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The environment variable that sets another period for the plain lines, in seconds (0.1 to
/// 3600; for logs that want more or fewer lines).
pub const EVERY_ENV: &str = "STONELAB_PROGRESS_SECONDS";

/// [`PLAIN_EVERY`], or the period [`EVERY_ENV`] sets.
fn plain_every() -> Duration {
    std::env::var(EVERY_ENV)
        .ok()
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|s| (0.1..=3600.0).contains(s))
        .map_or(PLAIN_EVERY, Duration::from_secs_f64)
}

/// A bar of `total` steps counted in `unit` ("games", "episodes"); hidden when `quiet`. On a
/// terminal it is drawn with its ETA; elsewhere a line `unit: done/total (p%), elapsed, ETA`
/// goes to standard error every [`PLAIN_EVERY`] ([`EVERY_ENV`] sets another period) until the bar finishes or is dropped.
pub fn bar(quiet: bool, total: u64, unit: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    if !std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        plain_lines(&bar, unit.to_string(), plain_every());
        return bar;
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let template = format!(
        "{{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {unit}, ETA {{eta_precise}} {{msg}}"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}

/// A spinner for work whose size is unknown (one exact solve): on a terminal the elapsed time
/// and its message; elsewhere a plain line every [`PLAIN_EVERY`] (or [`EVERY_ENV`]'s).
pub fn spinner(quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    if !std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        plain_lines(&bar, what.to_string(), plain_every());
        return bar;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template(&format!("{{spinner}} {what} {{elapsed}} {{msg}}"))
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Writes `bar`'s state as a plain line every `every` from a thread that ends with the bar.
fn plain_lines(bar: &ProgressBar, unit: String, every: Duration) {
    let weak = bar.downgrade();
    let spawned = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
            let step = Duration::from_millis(100);
            let mut waited = Duration::ZERO;
            let mut rate = lab::rate::Rate::default();
            loop {
                std::thread::sleep(step);
                waited += step;
                let Some(bar) = weak.upgrade() else { return };
                if bar.is_finished() {
                    return;
                }
                rate.observe(bar.position());
                if waited >= every {
                    waited = Duration::ZERO;
                    eprintln!("{}", plain_line(&bar, &unit, &rate));
                }
            }
        });
    // Without the thread the work goes on, only without its lines.
    drop(spawned);
}

/// `episodes: 40/100 (40%), 12 s elapsed, ETA 18 s — message` (the ETA at `rate`).
fn plain_line(bar: &ProgressBar, unit: &str, rate: &lab::rate::Rate) -> String {
    let elapsed = bar.elapsed().as_secs();
    let message = Some(bar.message()).filter(|m| !m.is_empty());
    let tail = message.map_or(String::new(), |m| format!(" - {m}"));
    match bar.length() {
        Some(total) if total > 0 => {
            let done = bar.position().min(total);
            format!(
                "{unit}: {done}/{total} ({:.0}%), {elapsed} s elapsed, ETA {}{tail}",
                100.0 * done as f64 / total as f64,
                rate.eta(done, total)
            )
        }
        _ => format!("{unit}: {elapsed} s elapsed{tail}"),
    }
}

/// The binary's [`Report`]: progress bars and news on standard error (hidden when `quiet`;
/// warnings always shown), charts drawn with [`lab::plots`].
pub struct Terminal {
    /// No progress bars and no news (warnings are still shown).
    pub quiet: bool,
}

struct Bar(ProgressBar);

impl Steps for Bar {
    fn set_position(&self, done: u64) {
        self.0.set_position(done);
    }
    fn reset_eta(&self) {
        self.0.reset_eta();
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn set_message(&self, message: String) {
        self.0.set_message(message);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Report for Terminal {
    fn steps(&self, total: u64, unit: &str) -> std::sync::Arc<dyn Steps> {
        std::sync::Arc::new(Bar(bar(self.quiet, total, unit)))
    }
    fn note(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }
    fn warn(&self, line: &str) {
        eprintln!("{line}");
    }
    fn chart(&self, path: &Path, chart: &Chart) -> Result<(), String> {
        let lines: Vec<lab::plots::Series> = chart
            .lines
            .iter()
            .map(|(name, points)| lab::plots::Series {
                name: name.clone(),
                points: points.clone(),
            })
            .collect();
        lab::plots::line_chart(
            path,
            &chart.title,
            &chart.x_label,
            &chart.y_label,
            &lines,
            chart.range,
        )
        .map_err(|e| format!("{e:#}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain line says how far, how long and how long to go; its thread ends with the bar.
    #[test]
    fn plain_lines_say_the_state_and_end_with_the_bar() {
        let bar = ProgressBar::with_draw_target(Some(40), ProgressDrawTarget::hidden());
        bar.set_position(10);
        bar.set_message("loss 0.5");
        let line = plain_line(&bar, "episodes", &lab::rate::Rate::default());
        assert!(
            line.starts_with("episodes: 10/40 (25%), ")
                && line.contains(" s elapsed, ETA unknown")
                && line.ends_with(" - loss 0.5"),
            "{line}"
        );
        let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        assert!(plain_line(&spinner, "solving", &lab::rate::Rate::default())
            .starts_with("solving: 0 s elapsed"));
        plain_lines(&bar, "episodes".into(), Duration::from_millis(50));
        let weak = bar.downgrade();
        drop(bar);
        std::thread::sleep(Duration::from_millis(300));
        assert!(weak.upgrade().is_none(), "the thread holds no bar");
    }
}
