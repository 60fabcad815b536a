//! Learning agents. Today: tabular Q-learning by ε-greedy self-play ([`qtable`]), measured
//! against an exact value table. The neural agents (encoders, Q-MLP, DQN on burn) come next.
#![deny(missing_docs)]

pub mod qtable;

pub use qtable::{QTable, QTableConfig, QTableProgress};
