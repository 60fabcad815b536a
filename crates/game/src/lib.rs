//! Core abstractions shared by every stonelab game: the [`Game`] trait, [`Color`], [`Outcome`],
//! the eight [`Symmetry`] transforms of square boards, and a [`conformance`] suite every game runs.
//!
//! A game position is an immutable value: [`Game::play`] checks a move and returns the next
//! position (or an [`IllegalMove`] error, leaving the original untouched), while
//! [`Game::play_unchecked`] is the fast path for search code that already knows the move is legal.
//!
//! ```
//! use game::{Color, Outcome};
//!
//! let outcome = Outcome::from_black_margin(-8);
//! assert_eq!(outcome.winner(), Some(Color::White));
//! assert_eq!(outcome.score_for(Color::White), 8);
//! assert_eq!(outcome.score_for(Color::Black) + outcome.score_for(Color::White), 0);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod color;
pub mod conformance;
mod game;
pub mod hash;
mod outcome;
mod symmetry;

pub use color::{Color, ParseColorError};
pub use game::{Game, IllegalMove, IllegalReason};
pub use outcome::{GameResult, Outcome};
pub use symmetry::{canonical_image, Symmetry};

/// Leaves of the game tree `depth` plies below `pos`, through the [`Game`] trait alone (the slow,
/// generic twin of each game's fast perft). Every legal move counts, a pass included; a finished
/// game reached before full depth counts as one leaf.
#[must_use]
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return 1;
    }
    moves
        .iter()
        .map(|&mv| perft(&pos.play_unchecked(mv), depth - 1))
        .sum()
}
