//! Training the pattern evaluation: positions from game records labelled with final disc
//! differences (exact solves near the end), and a ridge least-squares fit per game stage.
//!
//! Labels, from the side to move's view: a position with at most `exact_empties` empty squares
//! gets its exact score from the solver (solved from the end of its game backwards, each solve
//! starting from the score of the one after it); every other position gets its game's
//! perfect-play result (WTHOR's theoretical score, exact from 24 empties on, or a self-play
//! game's solved end), which [`search_labels`] can replace by a deep search's score. An
//! [`ExactZone`] may solve only a seeded fraction of the games that far and cut the others'
//! positions in between. Each stage is fitted alone by preconditioned conjugate gradients on
//! `Σ (y − x·w)² + λ Σ w²` over its own positions; the held-out positions (a seeded tenth of the
//! games) measure it.

mod config;
pub mod correction_fit;
mod fit;
mod labels;
pub mod pipeline;
mod probcut;

pub use config::{PatternConfig, DEFAULT_CORRECTION_EPOCHS, DEFAULT_EXACT_REST};
pub use fit::*;
pub use labels::*;
pub use probcut::*;
