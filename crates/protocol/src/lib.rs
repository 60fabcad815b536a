//! Engine protocols for stonelab, each from both ends: the NBoard protocol (version 2, and 1)
//! for 8x8 Othello, and the Gomocup (Piskvork "brain") protocol for Gomoku.
//!
//! - **NBoard, engine side**: [`NboardEngine`] serves a GUI such as NBoard over any
//!   `BufRead`/`Write` pair with any [`search::Agent`] (the `stonelab nboard` command runs it on
//!   stdin/stdout).
//! - **NBoard, driver side**: [`NboardEngineAgent`] is an [`Agent`](search::Agent) that runs an
//!   external NBoard engine (Edax, NTest, or stonelab itself) as a subprocess, with a deadline on
//!   every answer, so the arena can play it like any built-in agent.
//! - [`Command`] and [`Reply`] are the NBoard protocol's lines as values, shared by both sides.
//! - **Gomocup, engine side**: [`GomocupEngine`] answers a Gomocup manager (Piskvork, liskvork)
//!   for boards from 5x5 to 25x25 under freestyle, standard or renju rules, asking a
//!   [`GomocupBrain`] for its moves; [`AgentBrain`] makes any agent over a [`gomoku::Gomoku`]
//!   preset a brain, and a [`BrainFactory`] picks the brain for each size and rule.
//! - **Gomocup, driver side**: [`GomocupEngineAgent`] runs any external Gomocup brain
//!   (`pbrain-*`) as a subprocess, as an agent (spec `gomocup-engine:cmd=...`).
//!
//! NBoard games travel as GGF records ([`othello::GgfGame`]). Moves are written in lower case
//! (`d3`), a pass as `PA`; both cases and `pass` are read. Gomocup points are `x,y` from the
//! top-left corner ([`xy_to_point`], [`point_to_xy`]).
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
#![forbid(unsafe_code)]

mod command;
mod driver;
mod engine;
mod gomocup;
mod lines;
mod process;

pub use command::{Command, CommandError, Reply};
pub use driver::{
    split_command_line, CommandLineError, NboardEngineAgent, NboardEngineConfig, DEFAULT_DEPTH,
    DEFAULT_TIMEOUT, SPEC_KEYS,
};
pub use engine::{score_to_discs, Flow, NboardEngine};
pub use gomocup::{
    point_to_xy, xy_to_point, AgentBrain, BrainFactory, GomocupBrain, GomocupEngine,
    GomocupEngineAgent, GomocupEngineConfig, GomocupTime, DEFAULT_GRACE, DEFAULT_TURN_TIME,
    GOMOCUP_SPEC_KEYS, MIN_THINK, MOVES_TO_GO,
};
pub use lines::{LineReader, MAX_LINE};
