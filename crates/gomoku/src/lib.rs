//! Gomoku/Omok rules on square boards from 5x5 to 25x25: freestyle, exact five (standard) and
//! renju (with recursive forbidden-point detection), board strings, diagrams and PSQ records.
//!
//! [`Board`] takes its size and rule at run time (for protocols such as Gomocup); [`Gomoku<V>`]
//! fixes both through a [`Variant`] and implements [`game::Game`]. Presets: [`Gomoku15`]
//! (`gomoku15`), [`Omok`] (`omok`, freestyle 19x19), [`Standard15`], [`Renju15`] and more in
//! [`presets`].
//!
//! ```
//! use game::{Color, Game};
//! use gomoku::{Gomoku15, Point};
//!
//! let mut pos = Gomoku15::start();
//! for mv in ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4"] {
//!     pos = pos.play(mv.parse::<Point>()?)?;
//! }
//! assert!(pos.outcome().is_none());
//! let won = pos.play("h12".parse()?)?;
//! assert_eq!(won.outcome().and_then(|o| o.winner()), Some(Color::Black));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod board;
mod notation;
mod point;
mod position;
pub mod psq;
mod rule;
mod validity;

pub use board::{Board, BoardError, DIRECTIONS};
pub use notation::BoardStringError;
pub use point::{ParsePointError, Point, MAX_SIZE, MIN_SIZE};
pub use position::{
    presets, Gomoku, Gomoku15, Gomoku20, Gomoku7, Gomoku9, MoveError, Omok, Renju15, Standard15,
    Variant, RECENT,
};
pub use psq::{PsqError, PsqGame};
pub use rule::{Foul, ParseRuleError, Rule};
pub use validity::PositionError;
