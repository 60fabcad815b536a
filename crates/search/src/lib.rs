//! Game-generic agents: the [`Agent`] trait every player implements, spec strings
//! (`alphabeta:depth=6`) and the [`Registry`] that builds agents from them, and the classical
//! agents — [`RandomAgent`], [`GreedyAgent`], [`AlphaBeta`] and [`Mcts`] — that work on any
//! [`game::Game`] given an [`Evaluator`]; the network-facing interfaces — batched
//! [`Evaluator::evaluate_batch`], [`PolicyValue`] — and the multi-game [`driver`] that gathers
//! positions from many games into one batch per step.
//!
//! ```
//! use game::Game;
//! use othello::Othello6;
//! use search::{Budget, Registry, ZeroEvaluator};
//! use std::sync::Arc;
//!
//! let registry = Registry::<Othello6>::generic(Arc::new(ZeroEvaluator), Arc::new(ZeroEvaluator));
//! let mut agent = registry.build("alphabeta:depth=3", 1)?;
//! let decision = agent.select(&Othello6::new(), &Budget::default())?;
//! assert!(Othello6::new().is_legal(decision.mv));
//! assert!(registry.build("alphabeta:dpth=3", 1).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod agent;
mod alphabeta;
pub mod analysis;
mod checksum;
mod dp;
pub mod driver;
mod eval;
mod mcts;
mod policy;
pub mod puct;
mod registry;
mod score;
pub mod selfplay;
mod simple;
mod spec;
pub mod timing;

pub use agent::{Agent, AgentError, Budget, Decision};
pub use alphabeta::{AlphaBeta, AlphaBetaConfig};
pub use checksum::NodeChecksum;
pub use dp::{
    DpAgent, Sweep, ValueIterationConfig, ValueIterationError, ValueIterationReport, ValueTable,
};
pub use eval::{terminal_score, Evaluator, FnEvaluator, ZeroEvaluator, WIN};
pub use mcts::{Mcts, MctsConfig, Rollout, DEFAULT_TREE_BYTES};
pub use policy::{masked_softmax, PolicyValue, PriorsValue, UniformPolicy};
pub use puct::{
    search_together, step_together, ExactLeaf, GumbelRoot, Puct, PuctAgent, PuctConfig,
    PuctPlayers, RootNoise, SearchResult,
};
pub use registry::{AgentBuilder, AgentInfo, KeyKind, Registry};
pub use score::{Score, ScoreScale, MATE_WINDOW};
pub use simple::{GreedyAgent, RandomAgent};
pub use spec::{parse_duration, Spec, SpecError};
