//! What the environment needs of a game beyond [`game::Game`]: the stone on each point, the
//! stone counts, and the forced pass.

use game::{Color, Game};
use gomoku::{Gomoku, Point, Variant};
use othello::{Move, Othello, Square};

/// A game the environment can run.
pub trait EnvGame: Game {
    /// The stone on the point with this action index (row-major from `a1`), if any.
    fn stone_at(&self, index: usize) -> Option<Color>;
    /// Discs (Othello) or stones (Gomoku) of each colour: (black, white).
    fn counts(&self) -> (u32, u32);
    /// The pass the side to move must play, when it has no other move.
    fn forced_pass(&self) -> Option<Self::Move>;
}

impl<const N: usize> EnvGame for Othello<N> {
    fn stone_at(&self, index: usize) -> Option<Color> {
        if index >= N * N {
            return None;
        }
        let sq = Square::new(index / N, index % N)?;
        if self.discs(Color::Black) & sq.bit() != 0 {
            Some(Color::Black)
        } else if self.discs(Color::White) & sq.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    fn counts(&self) -> (u32, u32) {
        (self.count(Color::Black), self.count(Color::White))
    }

    fn forced_pass(&self) -> Option<Move> {
        self.must_pass().then_some(Move::Pass)
    }
}

impl<V: Variant> EnvGame for Gomoku<V> {
    fn stone_at(&self, index: usize) -> Option<Color> {
        Point::from_index(index, V::SIZE).and_then(|p| self.board().stone(p))
    }

    fn counts(&self) -> (u32, u32) {
        self.board().counts()
    }

    fn forced_pass(&self) -> Option<Point> {
        None
    }
}
