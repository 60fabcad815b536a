//! Othello-only speed for stonelab: the hand-built heuristic [`Heuristic`] evaluation that
//! alpha-beta uses on Othello by default, [`stable_discs`], and the exact endgame [`Solver`].
#![deny(missing_docs)]

mod agent;
pub mod bench;
mod eval;
pub mod obf;
mod solver;
mod stability;

pub use agent::SolverAgent;
pub use eval::{DiscDifference, Heuristic, HeuristicWeights};
pub use solver::{Kernel, Solution, SolveLimit, Solver, MAX_TABLE_BITS};
pub use stability::{stable_discs, stable_discs_naive};
