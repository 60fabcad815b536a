//! Gomoku-only agents: [`OmokAb`], a reproduction of a well-known student alpha-beta Omok AI to
//! measure against, and the strong threat-search engine.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench;
pub mod engine;
pub mod omok_ab;
pub mod omok_study;
pub mod openings;
pub mod patterns;
mod state;
mod vcf;
mod window_eval;

pub use engine::{find_vcf, EngineConfig, GomokuEngine, DEFAULT_TIME};
pub use omok_ab::{OmokAb, OmokAbConfig};
pub use omok_study::{classify_move, MoveKind};
pub use window_eval::WindowEvaluator;
