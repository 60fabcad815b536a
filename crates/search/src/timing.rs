//! How long an agent with a clock (`time=` in its spec) really thinks: seeded positions of
//! random play, one search each, each time measured against the limit.

use std::time::{Duration, Instant};

use game::Game;
use rand::{RngExt, SeedableRng};

use crate::{AgentError, Budget, Registry, Spec};

/// One timed search.
#[derive(Clone, Debug, PartialEq)]
pub struct Timed {
    /// Plies of random play before the position.
    pub plies: usize,
    /// The move chosen, as text.
    pub mv: String,
    /// How long the search took.
    pub took: Duration,
}

/// Why the timing could not be done.
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    /// The spec gives no time per move, or does not build.
    #[error("{0}")]
    Spec(String),
    /// A search failed.
    #[error("position {number}: {source}")]
    Search {
        /// The position's number (its seed).
        number: u64,
        /// Why.
        source: AgentError,
    },
}

/// The time per move `spec` asks for.
///
/// # Errors
/// [`TimingError::Spec`] when it gives none (or zero) or does not parse.
pub fn time_limit(spec: &str) -> Result<Duration, TimingError> {
    let parsed: Spec = spec
        .parse()
        .map_err(|e| TimingError::Spec(format!("{e}")))?;
    parsed
        .duration("time")
        .map_err(|e| TimingError::Spec(format!("{e}")))?
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            TimingError::Spec(format!(
                "--agent {spec:?}: give it a time per move (time=200ms), the limit measured \
                 against"
            ))
        })
}

/// Times `count` searches of `spec`'s agent (built by `registry`, seeded by the position's
/// number) on positions after 16 to 35 plies of random play seeded by their number, skipping
/// finished positions and those with fewer than two moves; `on_row` sees each.
///
/// # Errors
/// [`TimingError::Spec`] for a spec that does not build, [`TimingError::Search`] for a
/// failed search.
pub fn thinking_times<G: Game>(
    registry: &Registry<G>,
    spec: &str,
    count: usize,
    on_row: &mut dyn FnMut(&Timed),
) -> Result<Vec<Timed>, TimingError> {
    registry
        .validate(spec)
        .map_err(|e| TimingError::Spec(format!("--agent: {e}")))?;
    let mut rows = Vec::with_capacity(count);
    let mut number = 0u64;
    while rows.len() < count {
        number += 1;
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(number);
        let plies = 16 + rng.random_range(0..20);
        let mut pos = G::start();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if pos.is_over() || moves.is_empty() {
                break;
            }
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if pos.is_over() || pos.legal_moves().len() < 2 {
            continue;
        }
        let mut agent = registry
            .build(spec, number)
            .map_err(|e| TimingError::Spec(format!("--agent: {e}")))?;
        let started = Instant::now();
        let decision = agent
            .select(&pos, &Budget::default())
            .map_err(|source| TimingError::Search { number, source })?;
        let row = Timed {
            plies,
            mv: decision.mv.to_string(),
            took: started.elapsed(),
        };
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// How long an agent thought over a set of searches, against its limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThinkSummary {
    /// The mean think.
    pub mean: Duration,
    /// The median think.
    pub median: Duration,
    /// The longest think.
    pub longest: Duration,
    /// Thinks over the limit.
    pub over: usize,
}

impl ThinkSummary {
    /// The summary of `rows` against `limit` (`None` for no rows).
    #[must_use]
    pub fn of(rows: &[Timed], limit: Duration) -> Option<ThinkSummary> {
        let mut sorted: Vec<Duration> = rows.iter().map(|r| r.took).collect();
        sorted.sort();
        let n = u32::try_from(sorted.len()).ok().filter(|&n| n > 0)?;
        Some(ThinkSummary {
            mean: sorted.iter().sum::<Duration>() / n,
            median: sorted[sorted.len() / 2],
            longest: *sorted.last()?,
            over: sorted.iter().filter(|&&t| t > limit).count(),
        })
    }
}
