//! The stonelab browser app: an axum server with a JSON API (plus server-sent events) over any
//! game of the [`AppGames`], and the embedded HTML/JS/CSS user interface (no build step, works
//! offline). The API is described in `API.md`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod games;
mod memory;
mod server;
mod session;
pub mod view;

pub use error::ApiError;
pub use games::{AppGames, GameKind, Model};
pub use memory::{MemoryBudget, Reservation};
pub use server::{bind, router, serve, ServerConfig, DEFAULT_MEMORY_BUDGET};
pub use session::{GameSession, Session, Think};
pub use view::WebGame;
