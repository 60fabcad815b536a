//! AlphaZero-style training for every game: self-play with PUCT or a Gumbel root over a
//! policy-value network ([`net`]), many games in one network batch ([`search::selfplay`]), a
//! replay window of the full searches' targets, and minibatch AdamW on policy, value and margin.

pub mod exact;
pub mod exactness;
pub mod net;
mod trainer;

pub use net::{encode, PvArch, PvEvaluator, PvNet, AZ_ALGO, AZ_PLANES};
pub use trainer::{AlphaZeroConfig, AlphaZeroTrainer};
