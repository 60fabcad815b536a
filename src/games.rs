//! Game ids: the one way every command names a game.

use clap::ValueEnum;

/// A game the command line knows. Later issues add the Gomoku family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum GameId {
    /// Othello on the 4x4 board.
    Othello4,
    /// Othello on the 6x6 board.
    Othello6,
    /// Othello on the standard 8x8 board.
    #[default]
    Othello8,
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = match self {
            GameId::Othello4 => "othello4",
            GameId::Othello6 => "othello6",
            GameId::Othello8 => "othello8",
        };
        f.write_str(id)
    }
}
