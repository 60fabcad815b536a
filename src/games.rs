//! Game ids (the one way every command names a game), the `with_game!` dispatch from an id to
//! its type, and [`CliGame`]: what the commands need of a game beyond [`game::Game`].

use arena::Opening;
use clap::ValueEnum;
use game::Game;
use search::Registry;

/// A game the command line knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum GameId {
    /// Othello on the 4x4 board.
    Othello4,
    /// Othello on the 6x6 board.
    Othello6,
    /// Othello on the standard 8x8 board.
    #[default]
    Othello8,
    /// Gomoku, freestyle (five or more wins), 15x15.
    Gomoku15,
    /// Omok: freestyle Gomoku on 19x19.
    Omok,
    /// Gomoku where exactly five wins (an overline does not), 15x15.
    Standard15,
    /// Renju (black may not make double threes, double fours or overlines), 15x15.
    Renju15,
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = match self {
            GameId::Othello4 => "othello4",
            GameId::Othello6 => "othello6",
            GameId::Othello8 => "othello8",
            GameId::Gomoku15 => "gomoku15",
            GameId::Omok => "omok",
            GameId::Standard15 => "standard15",
            GameId::Renju15 => "renju15",
        };
        f.write_str(id)
    }
}

/// Runs `$body` with `$G` the game type of the id `$id`.
macro_rules! with_game {
    ($id:expr, $G:ident => $body:expr) => {
        match $id {
            $crate::games::GameId::Othello4 => {
                type $G = othello::Othello4;
                $body
            }
            $crate::games::GameId::Othello6 => {
                type $G = othello::Othello6;
                $body
            }
            $crate::games::GameId::Othello8 => {
                type $G = othello::Othello8;
                $body
            }
            $crate::games::GameId::Gomoku15 => {
                type $G = gomoku::Gomoku15;
                $body
            }
            $crate::games::GameId::Omok => {
                type $G = gomoku::Omok;
                $body
            }
            $crate::games::GameId::Standard15 => {
                type $G = gomoku::Standard15;
                $body
            }
            $crate::games::GameId::Renju15 => {
                type $G = gomoku::Renju15;
                $body
            }
        }
    };
}
pub(crate) use with_game;

/// What the commands need of a game: its agents, its openings, and how to show it.
pub trait CliGame: Game {
    /// Every agent this game offers.
    fn registry() -> Registry<Self>;

    /// Openings for the arena when the user names none: `None` falls back to the arena's
    /// built-in list or uniformly random openings.
    fn default_openings(_count: usize, _seed: u64) -> Option<(Vec<Opening<Self>>, String)> {
        None
    }

    /// The board for a terminal, with coordinates; `last` is marked; `color` uses ANSI styles.
    fn render(&self, last: Option<Self::Move>, color: bool) -> String;

    /// A status line under the board (stone counts).
    fn status_line(&self) -> String;

    /// The final result in words.
    fn result_text(&self) -> String;

    /// The moves of a game as one string.
    fn transcript(moves: &[Self::Move]) -> String {
        moves
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether to list every legal move in the prompt (few moves) or only say how many.
    fn list_moves_in_prompt() -> bool {
        true
    }

    /// An example move for help texts.
    fn example_move() -> &'static str;
}
