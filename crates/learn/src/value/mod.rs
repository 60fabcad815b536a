//! The Othello paper's value learning (J. IKEEE 23(4), 2019): value networks ([`net`]), their
//! supervised training on the WTHOR value dataset ([`supervised`]), self-play policy iteration
//! ([`policy_iteration`]), a stronger-than-paper self-play ([`iteration`]) and minimax over them
//! with batched leaf evaluation ([`agent`]).

pub mod net;

pub use net::{
    Orientation, TurnPlane, ValueArch, ValueInput, ValueModel, ValueNet, CNN_ALGO, MLP_ALGO,
};
pub mod agent;
pub mod iteration;
pub mod policy_iteration;
pub mod positions;
pub mod supervised;
pub mod wthor;

pub use agent::{score_of, ValueEvaluator, ValueMinimax, DEFAULT_DEPTH};
pub use iteration::{ValueIterationConfig, ValueIterationTrainer};
pub use policy_iteration::{ValueSelfPlayConfig, ValueSelfPlayTrainer};
pub use supervised::{DataSplit, DataSymmetries, SupervisedConfig, SupervisedTrainer, ValueData};
