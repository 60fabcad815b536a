//! Positions from outside checked against the rules: the stone counts that black-first play
//! gives, and winning lines only as the last move can have made them.

use game::Color;

use crate::board::{Board, DIRECTIONS};
use crate::point::Point;
use crate::rule::Rule;

/// A board no game under its rule reaches. (Two winning sides at once is refused when the board
/// is built: [`BoardError::BothWon`](crate::BoardError::BothWon).)
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The stone counts do not fit the side to move.
    #[error(
        "impossible position: {black} black and {white} white stones with {to_move} to move; \
         black moves first, so black has as many stones as white when black is to move and one \
         more when white is to move"
    )]
    Counts {
        /// Black stones.
        black: u32,
        /// White stones.
        white: u32,
        /// The side to move.
        to_move: Color,
    },
    /// The side to move has already won.
    #[error(
        "impossible position: {winner} has five in a row but is to move; a five ends the game, \
         so it belongs to the side that moved last"
    )]
    WinnerToMove {
        /// The side with the winning line.
        winner: Color,
    },
    /// Winning lines that no single move made.
    #[error(
        "impossible position: {winner} has fives in a row that no single last move made; a game \
         ends at its first five"
    )]
    SeparateWins {
        /// The side with the winning lines.
        winner: Color,
    },
    /// A black overline under renju, where black may not make one (except in the move that
    /// makes five).
    #[error(
        "impossible position: black has six or more in a row through {point}, an overline renju \
         forbids black"
    )]
    RenjuOverline {
        /// A stone of the overline.
        point: Point,
    },
}

impl Board {
    /// Checks that a game under this board's rule can reach this position: black has as many
    /// stones as white (black to move) or one more (white to move); a winning line belongs to
    /// the side that moved last, and one of its stones, taken back, leaves a board where
    /// nothing has won yet (a game ends at its first five; one move may make several); under
    /// renju black has no overline but one made by that last move. (Renju's other forbidden
    /// shapes, double threes and fours, are not looked for.)
    ///
    /// # Errors
    /// A [`PositionError`] saying which rule the position breaks.
    pub fn validate(&self) -> Result<(), PositionError> {
        let (black, white) = self.counts();
        let to_move = self.side_to_move();
        let balanced = match to_move {
            Color::Black => black == white,
            Color::White => black == white + 1,
        };
        if !balanced {
            return Err(PositionError::Counts {
                black,
                white,
                to_move,
            });
        }
        let Some(winner) = self.winner() else {
            return match self.renju_overline() {
                Some(point) => Err(PositionError::RenjuOverline { point }),
                None => Ok(()),
            };
        };
        if winner == to_move {
            return Err(PositionError::WinnerToMove { winner });
        }
        // The last move: a stone on a winning line whose removal leaves no win.
        let mut overline = None;
        for p in self.points() {
            let on_winning_line = self.stone(p) == Some(winner)
                && DIRECTIONS
                    .iter()
                    .any(|&d| self.rule().wins(winner, self.run_through(p, d, winner)));
            if !on_winning_line {
                continue;
            }
            let Some(before) = self.without(p, winner) else {
                continue;
            };
            if before.winner().is_some() {
                continue;
            }
            match before.renju_overline() {
                None => return Ok(()),
                Some(point) => overline = Some(point),
            }
        }
        Err(match overline {
            Some(point) => PositionError::RenjuOverline { point },
            None => PositionError::SeparateWins { winner },
        })
    }

    /// The board before `p` was played by `mover` (`p` empty, `mover` to move).
    fn without(&self, p: Point, mover: Color) -> Option<Board> {
        let stones = self
            .points()
            .filter(|&q| q != p)
            .filter_map(|q| self.stone(q).map(|c| (q, c)));
        Board::with_stones(self.size(), self.rule(), stones, mover).ok()
    }

    /// A black stone in six or more in a row, under renju.
    fn renju_overline(&self) -> Option<Point> {
        if self.rule() != Rule::Renju {
            return None;
        }
        self.points().find(|&p| {
            self.stone(p) == Some(Color::Black)
                && DIRECTIONS
                    .iter()
                    .any(|&d| self.run_through(p, d, Color::Black) >= 6)
        })
    }
}
