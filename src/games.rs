//! [`CliGame`]: what the terminal commands need of a game beyond [`catalog::CatalogGame`].
//! Game ids and the dispatch from an id to its type come from the catalog.

pub use catalog::{with_game, GameId};
use game::Game;

/// What the terminal needs of a game beyond its rules and its catalog entry (agents, openings:
/// [`catalog::CatalogGame`]): how to show it.
pub trait CliGame: Game {
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

/// The `--game` parser of the commands that play Othello only (`perft`, `solve`): its help and
/// errors list othello4, othello6 and othello8 alone.
pub fn othello_game() -> impl clap::builder::TypedValueParser<Value = GameId> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["othello4", "othello6", "othello8"]).map(
        |s: String| <GameId as clap::ValueEnum>::from_str(&s, false).unwrap_or(GameId::Othello8),
    )
}
