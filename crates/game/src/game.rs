//! The [`Game`] trait: one position of a two-player, perfect-information board game.

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::str::FromStr;

use crate::{Color, Outcome, Symmetry};

/// Why a move was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IllegalReason {
    /// The game is already over.
    GameOver,
    /// The square is not on this board.
    OffBoard,
    /// The square already holds a stone.
    Occupied,
    /// The move captures nothing (Othello: it would flip no disc).
    NoCapture,
    /// A pass was asked for while the side to move has a legal move.
    PassNotForced,
    /// The side to move has no legal move and must pass.
    MustPass,
    /// The rule variant forbids this move for this side (for example a renju foul).
    Forbidden,
}

impl Display for IllegalReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IllegalReason::GameOver => "the game is over",
            IllegalReason::OffBoard => "the square is not on this board",
            IllegalReason::Occupied => "the square is occupied",
            IllegalReason::NoCapture => "it would flip no disc",
            IllegalReason::PassNotForced => "a pass is only allowed when no other move is",
            IllegalReason::MustPass => "the side to move has no legal move and must pass",
            IllegalReason::Forbidden => "the rules forbid this move for this side",
        })
    }
}

/// A refused move: what was asked and why it is not legal. The position it was asked of is
/// unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMove<M: Display + Debug> {
    /// The move that was refused.
    pub mv: M,
    /// Why.
    pub reason: IllegalReason,
}

/// A position of a two-player, perfect-information game on a square board.
///
/// Positions are values: playing a move returns a new one. Implementations promise (and the
/// [`conformance`](crate::conformance) suite checks) that:
/// - [`legal_moves`](Game::legal_moves) is empty exactly when [`outcome`](Game::outcome) is `Some`;
/// - [`play`](Game::play) succeeds exactly for the moves in `legal_moves`;
/// - every move maps to a distinct index below [`NUM_ACTIONS`](Game::NUM_ACTIONS) and back;
/// - `Display` and `FromStr` round-trip a position exactly;
/// - the eight board symmetries commute with playing, legal moves and outcomes.
pub trait Game:
    Clone + PartialEq + Eq + Hash + Debug + Display + FromStr + Send + Sync + 'static
{
    /// A move, including a pass where the game has one.
    type Move: Copy + PartialEq + Eq + Hash + Debug + Display + Send + Sync + 'static;
    /// Error for a move string that does not name a move of this game.
    type MoveParseError: std::error::Error + Send + Sync + 'static;

    /// The id every command uses for this game (`othello8`, `gomoku15`, ...).
    const ID: &'static str;
    /// The size of the fixed action space (board squares, plus one for a pass where there is one).
    const NUM_ACTIONS: usize;
    /// The side length of the square board.
    const BOARD_SIZE: usize;

    /// The standard starting position.
    fn start() -> Self;

    /// The side whose turn it is.
    fn side_to_move(&self) -> Color;

    /// Every legal move, in a fixed order (by action index). Empty exactly when the game is over.
    fn legal_moves(&self) -> Vec<Self::Move>;

    /// Whether `mv` is legal here; `Err` says why not.
    ///
    /// # Errors
    /// The reason the move is illegal.
    fn check(&self, mv: Self::Move) -> Result<(), IllegalReason>;

    /// Whether `mv` is legal here.
    fn is_legal(&self, mv: Self::Move) -> bool {
        self.check(mv).is_ok()
    }

    /// Plays a checked move and returns the new position; `self` is never changed.
    ///
    /// # Errors
    /// [`IllegalMove`] with the move and the reason, when `mv` is not legal here.
    fn play(&self, mv: Self::Move) -> Result<Self, IllegalMove<Self::Move>> {
        match self.check(mv) {
            Ok(()) => Ok(self.play_unchecked(mv)),
            Err(reason) => Err(IllegalMove { mv, reason }),
        }
    }

    /// Plays a move known to be legal, without checking. For search code in hot loops.
    ///
    /// The result for an illegal move is unspecified (a position that may break the rules), but
    /// it never panics or invokes undefined behaviour.
    #[must_use]
    fn play_unchecked(&self, mv: Self::Move) -> Self;

    /// How the game ended, or `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// A 64-bit key of the whole position (stones and side to move), for transposition tables.
    /// Equal positions have equal keys.
    fn hash_key(&self) -> u64;

    /// Parses a move in this game's notation (for example `d3` or `pass`), checking that it is
    /// on this board (not that it is legal here).
    ///
    /// # Errors
    /// When `s` names no move of this game.
    fn parse_move(s: &str) -> Result<Self::Move, Self::MoveParseError>;

    /// The index of a move in `0..NUM_ACTIONS`. Every move on this board has a distinct index.
    fn action_index(mv: Self::Move) -> usize;

    /// The move with this index, or `None` when `index >= NUM_ACTIONS`.
    fn action_move(index: usize) -> Option<Self::Move>;

    /// The position seen through a board symmetry (stones moved, side to move kept).
    #[must_use]
    fn transform(&self, sym: Symmetry) -> Self;

    /// A move seen through a board symmetry (a pass stays a pass).
    fn transform_move(mv: Self::Move, sym: Symmetry) -> Self::Move;

    /// The canonical image of the position ([`crate::canonical_image`]): the same
    /// position for a position and each of its eight images. A game may override it with a fast twin.
    #[must_use]
    fn canonical(&self) -> Self {
        crate::symmetry::canonical_image(self)
    }

    /// The stone on the point with action index `index` (row-major from `a1`: index
    /// `row * BOARD_SIZE + col`), if any; `None` off the board.
    fn stone_at(&self, index: usize) -> Option<Color>;

    /// Discs (Othello) or stones (Gomoku) on the board: (black, white).
    fn counts(&self) -> (u32, u32);

    /// The pass move, in games that have one.
    fn pass() -> Option<Self::Move> {
        None
    }

    /// Whether `mv` is the pass.
    fn is_pass(mv: Self::Move) -> bool {
        Self::pass() == Some(mv)
    }

    /// The pass the side to move must play: `Some` exactly when the pass is its only legal move.
    fn forced_pass(&self) -> Option<Self::Move> {
        let pass = Self::pass()?;
        let moves = self.legal_moves();
        (moves.len() == 1 && moves[0] == pass).then_some(pass)
    }
}
