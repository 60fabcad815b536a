//! Bitboard Othello (Reversi) for 4x4, 6x6 and 8x8 boards: rules, notation, perft and records
//! (transcripts, WTHOR databases and [GGF](GgfGame) games).
//!
//! [`Othello<N>`] implements [`game::Game`]; [`Othello8`] is the standard game. Boards are two
//! bitboards relative to the side to move; passes are explicit moves; the final score gives
//! empty squares to the winner.
//!
//! ```
//! use game::Game;
//! use othello::{perft, replay_transcript, Move, Othello8};
//!
//! let start = Othello8::new();
//! assert_eq!(start.legal_moves().len(), 4);
//! let pos = start.play("f5".parse::<Move>()?)?;
//! assert_eq!(pos.to_string(), "---------------------------OX------XXX-------------------------- O");
//! assert_eq!(perft(&start, 5), 1396);
//! let game = replay_transcript::<8>("f5d6c5f4e3f6g5e6e7")?;
//! assert_eq!(game.last().outcome().map(|o| o.score_for(game::Color::Black)), Some(64));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod bitboard;
pub mod dataset;
pub mod ggf;
mod perft;
mod position;
mod record;
mod square;
pub mod wthor;

pub use ggf::{GgfError, GgfGame, GgfMove, GgfMoveError};
pub use perft::{perft, perft_parallel, perft_portable};
pub use position::{Othello, Othello4, Othello6, Othello8, PositionError};
pub use record::{replay, replay_transcript, transcript, Replay, ReplayError};
pub use square::{format_transcript, parse_transcript, Move, NotationError, Square};
