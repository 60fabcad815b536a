//! Learning agents: tabular Q-learning by ε-greedy self-play ([`qtable`]), measured against an
//! exact value table; the Q-learning MLP ([`qmlp`]); and DQN with residual Q-networks
//! ([`resnet`], [`replay`], [`dqn`]) on burn's Flex CPU backend.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod dqn;
pub mod init;
pub mod qmlp;
pub mod qtable;
pub mod replay;
pub mod resnet;
pub mod speed;

pub use dqn::{
    evaluate, evaluate_agent, play_games, Behaviour, CompetitiveStats, CompetitiveTrainer,
    DqnAgent, DqnConfig, DqnError, DqnLearner, DqnTrainer, EpisodeStats, Record, Rewards, Seat,
};
pub use qmlp::{QMlpAgent, QMlpConfig, QMlpNet, QMlpTrainer};
pub use qtable::{QTable, QTableConfig, QTableProgress};
pub use replay::{ReplayBuffer, ReplayError, Transition};
pub use resnet::{QNet, QNetArch, PLANES};
