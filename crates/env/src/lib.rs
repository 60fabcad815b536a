//! A Gym-style environment over any stonelab game: `reset(seed)` and `step(action)` with
//! observations, rewards (three schemes), termination, truncation and an `info` record of the
//! valid actions, whose turn it is, the stone counts and any passes the environment played.
//!
//! Two modes: two-player (each call to [`Env::step`] is a move of the side to move) and
//! single-agent against a fixed opponent [`search::Agent`] (the opponent's moves happen inside
//! `step`). Forced passes are never asked of an agent: the environment plays them and reports
//! them in [`Info::passes`].
//!
//! ```
//! use env::{Env, EnvConfig};
//! use othello::Othello8;
//!
//! let mut env = Env::<Othello8>::new(EnvConfig::default());
//! let (obs, info) = env.reset(7);
//! assert_eq!(obs.cells.len(), 64);
//! assert_eq!(info.valid_actions.len(), 4);
//! let step = env.step(info.valid_actions[0])?;
//! assert_eq!(step.reward, 3.0); // one disc placed, one flipped: +2 for the mover, -1 for the other side
//! # Ok::<(), env::EnvError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod environment;

pub use environment::{
    move_rewards, Env, EnvConfig, EnvError, Info, InvalidAction, Observation, RewardScheme, Step,
};
