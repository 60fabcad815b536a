//! Learning agents: tabular Q-learning by ε-greedy self-play ([`qtable`]), measured against an
//! exact value table, and the Q-learning MLP ([`qmlp`]) on burn's Flex CPU backend. DQN next.
#![deny(missing_docs)]

pub mod qmlp;
pub mod qtable;

pub use qmlp::{QMlpConfig, QMlpNet, QMlpTrainer};
pub use qtable::{QTable, QTableConfig, QTableProgress};
