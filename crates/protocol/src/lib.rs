//! Engine protocols for stonelab: the NBoard protocol (version 2, and 1) for 8x8 Othello, from
//! both ends.
//!
//! - **Engine side**: [`NboardEngine`] serves a GUI such as NBoard over any `BufRead`/`Write`
//!   pair with any [`search::Agent`] (the `stonelab nboard` command runs it on stdin/stdout).
//! - **Driver side**: [`NboardEngineAgent`] is an [`Agent`](search::Agent) that runs an external
//!   NBoard engine (Edax, NTest, or stonelab itself) as a subprocess, with a deadline on every
//!   answer, so the arena can play it like any built-in agent.
//! - [`Command`] and [`Reply`] are the protocol's lines as values, shared by both sides.
//!
//! Games travel as GGF records ([`othello::GgfGame`]). Moves are written in lower case (`d3`),
//! a pass as `PA`; both cases and `pass` are read.
//!
//! ```
//! use protocol::NboardEngine;
//! use search::RandomAgent;
//!
//! let mut engine = NboardEngine::new(Box::new(RandomAgent::new(7)));
//! let input = "nboard 2\nset depth 1\nmove f5\nping 1\nmove z9\nquit\n";
//! let mut output = Vec::new();
//! engine.run(input.as_bytes(), &mut output)?;
//! let output = String::from_utf8(output)?;
//! assert_eq!(
//!     output.lines().collect::<Vec<_>>(),
//!     ["set myname stonelab", "pong 1", "status error: move: \"z9\": \"z9\" is not a square: expected a file a-h and a rank 1-8, like d3"],
//! );
//! assert_eq!(engine.game().moves().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod command;
mod driver;
mod engine;
mod lines;
mod process;

pub use command::{Command, CommandError, Reply};
pub use driver::{
    split_command_line, CommandLineError, NboardEngineAgent, NboardEngineConfig, DEFAULT_DEPTH,
    DEFAULT_TIMEOUT, SPEC_KEYS,
};
pub use engine::{score_to_discs, Flow, NboardEngine};
pub use lines::MAX_LINE;
