//! Othello-only speed for stonelab: the hand-built heuristic [`Heuristic`] evaluation that
//! alpha-beta uses on Othello by default, [`stable_discs`], and the exact endgame [`Solver`].
#![deny(missing_docs)]

mod agent;
pub mod bench;
pub mod book;
pub mod clock;
pub mod correction;
mod eval;
pub mod level;
pub mod midgame;
pub mod obf;
pub mod pattern;
mod solver;
mod stability;
mod table;
pub mod train;
pub mod xot;

pub use agent::{proven, SolverAgent};
pub use eval::{DiscDifference, Heuristic, HeuristicWeights};
pub use solver::{Kernel, Solution, SolveLimit, Solver, MAX_TABLE_BITS};
pub use stability::{stable_discs, stable_discs_naive};
