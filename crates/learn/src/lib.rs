//! Learning agents and training runs: encoders ([`encode`]), networks as trunks and heads
//! ([`resnet`], [`qmlp`]), tabular Q-learning ([`qtable`]), DQN ([`dqn`], [`competitive`],
//! [`replay`]) on burn's Flex CPU backend, model files ([`checkpoint`]) and training runs as a
//! library ([`run`]: run folders, the [`Trainer`] trait, the training loop).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod algos;
pub mod alphazero;
pub mod build;
pub mod checkpoint;
pub mod competitive;
pub mod config;
pub mod dqn;
pub mod encode;
pub mod init;
pub mod options;
pub mod presets;
pub mod qmlp;
pub mod qtable;
pub mod qtable_run;
pub mod replay;
pub mod resnet;
pub mod run;
pub mod session;
pub mod speed;
mod trainers;
pub mod value;

pub use build::build_trainer;
pub use competitive::{CompetitiveStats, CompetitiveTrainer};
pub use config::{resume, AlgoSettings, RunConfig};
pub use dqn::{
    evaluate, play_games, Behaviour, DqnAgent, DqnConfig, DqnError, DqnLearner, DqnTrainer,
    EndReward, EpisodeStats, LearnFrom, QLoss, Rewards, Seat, SelfPlayTrainer, Transitions,
    UctVisits,
};
pub use encode::{
    legal_mask, Encoder, Encoding, Mobility, PaperPlanes, SeedPlanes, SignedBoard, StoneOnly,
    StonePlanes,
};
pub use qmlp::{QMlpAgent, QMlpConfig, QMlpNet, QMlpTrainer};
pub use qtable::{QTable, QTableConfig, QTableProgress};
pub use replay::{ReplayBuffer, ReplayError, Transition};
pub use resnet::{QNet, QNetArch, PLANES};
pub use run::{train, Checkpoint, Opponent, Progress, Resumed, RunDir, RunError, Trainer};
