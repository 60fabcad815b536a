//! Matches between agents: round robins and SPRT matches from balanced openings, on worker
//! threads, with Elo ratings by maximum likelihood and their confidence intervals; and
//! evaluation matches of one (possibly batched, network) player against fresh opponents on the
//! multi-game driver ([`versus`]), which the trainers use.
//!
//! The arena is generic over [`game::Game`] and gets its agents from a factory — any
//! `Fn(&str /* spec */, u64 /* seed */) -> Result<Box<dyn search::Agent<G>>, SpecError>`,
//! normally [`search::Registry::build`]. Every game builds fresh agents with seeds derived from
//! the base seed, so a run is reproducible and does not depend on the number of threads. An
//! agent that errs, plays an illegal move or panics forfeits that game; the run goes on.
//!
//! The library does no IO: it reports progress through a callback and returns a
//! serialisable [`Report`].
//!
//! ```
//! use std::sync::Arc;
//! use arena::{random_openings, round_robin, Settings};
//! use othello::Othello4;
//! use search::{Registry, ZeroEvaluator};
//!
//! let registry = Registry::<Othello4>::generic(Arc::new(ZeroEvaluator), Arc::new(ZeroEvaluator));
//! let factory = |spec: &str, seed: u64| registry.build(spec, seed);
//! let openings = random_openings::<Othello4>(2, 4, 1);
//! let specs = vec!["random".to_string(), "alphabeta:depth=2".to_string()];
//! let report = round_robin(&specs, &factory, &openings, &Settings::new(8, 1), |_| {})?;
//! assert_eq!(report.games.len(), 8);
//! let pair = &report.pairs[0];
//! assert_eq!(pair.total().games(), 8);
//! assert!(report.agents.iter().all(|a| a.elo.is_some()));
//! # Ok::<(), arena::ArenaError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod duel;
pub mod elo;
mod error;
mod opening;
mod report;
mod run;
mod sprt;
mod versus;

pub use duel::{default_max_plies, play_game, Ending, Played, Side};
pub use elo::{Anchor, EloOptions, PairScore, Ratings};
pub use error::{ArenaError, EloError, OpeningError, OpeningFileError, SprtError};
pub use opening::{
    builtin_openings, builtin_text, canonical_form, default_random_plies, join_moves, parse_moves,
    parse_openings, random_openings, recorded_scores, xot_openings, Balance, Opening,
    OTHELLO6_OPENINGS, OTHELLO8_OPENINGS, OTHELLO8_XOT,
};
pub use report::{wilson, GameRecord, GameRow, PairStats, Report, Standing, Wdl};
pub use run::{
    default_threads, derive_seed, names as report_names, pair_game_seeds, round_robin, sprt_match,
    Progress, Settings, MAX_THREADS,
};
pub use sprt::{Sprt, SprtDecision, SprtStatus};
pub use versus::{versus, versus_from, versus_openings, ColourWdl, Forfeited, VersusSettings};
