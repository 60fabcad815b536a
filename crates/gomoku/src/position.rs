//! [`Gomoku<V>`]: a [`Board`] whose size and rule are fixed by a [`Variant`], implementing
//! [`game::Game`].

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::str::FromStr;

use game::{Color, Game, IllegalReason, Outcome, Symmetry};

use crate::board::Board;
use crate::notation::BoardStringError;
use crate::point::{ParsePointError, Point, MAX_SIZE, MIN_SIZE};
use crate::rule::Rule;

/// A board size and rule fixed at compile time, with the id commands use.
pub trait Variant:
    Copy + Clone + fmt::Debug + Default + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// The game id (`gomoku15`, `omok`, ...).
    const ID: &'static str;
    /// The board side, 5..=25.
    const SIZE: usize;
    /// The rule set.
    const RULE: Rule;
}

/// The presets: freestyle, standard (exact five) and renju on 15x15, 19x19 and 20x20.
pub mod presets {
    use super::{Rule, Variant};

    macro_rules! preset {
        ($(#[$doc:meta])* $name:ident, $id:literal, $size:literal, $rule:expr) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name;
            impl Variant for $name {
                const ID: &'static str = $id;
                const SIZE: usize = $size;
                const RULE: Rule = $rule;
            }
        };
    }

    preset!(
        /// Freestyle Gomoku on 15x15 (`gomoku15`).
        Freestyle15, "gomoku15", 15, Rule::Freestyle
    );
    preset!(
        /// Freestyle on 19x19 (`omok`), the game of the reference Omok AI.
        Freestyle19, "omok", 19, Rule::Freestyle
    );
    preset!(
        /// Freestyle on 20x20 (`gomoku20`), the Gomocup freestyle board.
        Freestyle20, "gomoku20", 20, Rule::Freestyle
    );
    preset!(
        /// Exactly five wins, 15x15 (`standard15`).
        Standard15, "standard15", 15, Rule::Standard
    );
    preset!(
        /// Exactly five wins, 19x19 (`standard19`).
        Standard19, "standard19", 19, Rule::Standard
    );
    preset!(
        /// Exactly five wins, 20x20 (`standard20`).
        Standard20, "standard20", 20, Rule::Standard
    );
    preset!(
        /// Renju on 15x15 (`renju15`).
        Renju15, "renju15", 15, Rule::Renju
    );
    preset!(
        /// Renju on 19x19 (`renju19`).
        Renju19, "renju19", 19, Rule::Renju
    );
    preset!(
        /// Renju on 20x20 (`renju20`).
        Renju20, "renju20", 20, Rule::Renju
    );
    preset!(
        /// Freestyle on 7x7 (`gomoku7`): small enough for exhaustive tests and quick demos.
        Freestyle7, "gomoku7", 7, Rule::Freestyle
    );
    preset!(
        /// Freestyle on 9x9 (`gomoku9`): small enough to train learning agents in minutes.
        Freestyle9, "gomoku9", 9, Rule::Freestyle
    );
}

/// Freestyle Gomoku, 7x7 (tests).
pub type Gomoku7 = Gomoku<presets::Freestyle7>;
/// Freestyle Gomoku, 9x9.
pub type Gomoku9 = Gomoku<presets::Freestyle9>;

/// Freestyle Gomoku, 15x15.
pub type Gomoku15 = Gomoku<presets::Freestyle15>;
/// Omok: freestyle, 19x19.
pub type Omok = Gomoku<presets::Freestyle19>;
/// Freestyle, 20x20.
pub type Gomoku20 = Gomoku<presets::Freestyle20>;
/// Exactly five, 15x15.
pub type Standard15 = Gomoku<presets::Standard15>;
/// Renju, 15x15.
pub type Renju15 = Gomoku<presets::Renju15>;

/// How many recent moves a position remembers (for agents that look near them).
pub const RECENT: usize = 4;

/// A Gomoku position of variant `V`. Equality and hashing look at the stones and the side to
/// move only; the remembered recent moves are history, not position.
#[derive(Clone)]
pub struct Gomoku<V: Variant> {
    board: Board,
    recent: [Option<Point>; RECENT],
    _variant: PhantomData<V>,
}

impl<V: Variant> Gomoku<V> {
    /// The empty board, black to move.
    #[must_use]
    pub fn new() -> Self {
        const { assert!(V::SIZE >= MIN_SIZE && V::SIZE <= MAX_SIZE) };
        match Board::new(V::SIZE, V::RULE) {
            Ok(board) => Self::from_board_unchecked(board),
            Err(_) => unreachable!("the size is checked at compile time"),
        }
    }

    fn from_board_unchecked(board: Board) -> Self {
        Gomoku {
            board,
            recent: [None; RECENT],
            _variant: PhantomData,
        }
    }

    /// Wraps a board of this variant's size and rule; `None` when they differ.
    #[must_use]
    pub fn from_board(board: Board) -> Option<Self> {
        (board.size() == V::SIZE && board.rule() == V::RULE)
            .then(|| Self::from_board_unchecked(board))
    }

    /// The same position remembering `moves` (oldest first) as the moves that led to it; only
    /// the last [`RECENT`] are kept, and points off the board are ignored.
    #[must_use]
    pub fn with_recent(mut self, moves: &[Point]) -> Self {
        self.recent = [None; RECENT];
        let on_board = moves.iter().rev().filter(|p| p.on_board(V::SIZE));
        for (slot, &p) in self.recent.iter_mut().zip(on_board) {
            *slot = Some(p);
        }
        self
    }

    /// The board.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The last moves played to reach this position, newest first (empty for a position
    /// built from a board string).
    pub fn recent_moves(&self) -> impl Iterator<Item = Point> + '_ {
        self.recent.iter().map_while(|p| *p)
    }

    /// The last move played, if known.
    #[must_use]
    pub fn last_move(&self) -> Option<Point> {
        self.recent[0]
    }

    /// A text diagram with the last move marked.
    #[must_use]
    pub fn diagram(&self) -> String {
        self.board.diagram(self.last_move())
    }
}

impl<V: Variant> Default for Gomoku<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Variant> PartialEq for Gomoku<V> {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
    }
}

impl<V: Variant> Eq for Gomoku<V> {}

impl<V: Variant> Hash for Gomoku<V> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.board.hash(state);
    }
}

impl<V: Variant> fmt::Debug for Gomoku<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", V::ID, self.board.board_string())
    }
}

impl<V: Variant> fmt::Display for Gomoku<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::notation::write_board_string(&self.board, f)
    }
}

/// A board string from outside, [validated](Board::validate) against the variant's rule.
impl<V: Variant> FromStr for Gomoku<V> {
    type Err = BoardStringError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Board::parse_board_string(s, V::SIZE, V::RULE).map(Self::from_board_unchecked)
    }
}

/// A move string that names no point of this board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not a point at all.
    #[error(transparent)]
    Parse(#[from] ParsePointError),
    /// A point beyond this board's edge.
    #[error("{point} is off the {size}x{size} board")]
    OffBoard {
        /// The point.
        point: Point,
        /// The board side.
        size: usize,
    },
}

impl<V: Variant> Game for Gomoku<V> {
    type Move = Point;
    type MoveParseError = MoveError;

    const ID: &'static str = V::ID;
    const NUM_ACTIONS: usize = V::SIZE * V::SIZE;
    const BOARD_SIZE: usize = V::SIZE;

    fn start() -> Self {
        Self::new()
    }

    fn stone_at(&self, index: usize) -> Option<Color> {
        Point::from_index(index, V::SIZE).and_then(|p| self.board().stone(p))
    }

    fn counts(&self) -> (u32, u32) {
        self.board().counts()
    }

    fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    fn legal_moves(&self) -> Vec<Point> {
        self.board.legal_moves()
    }

    fn check(&self, mv: Point) -> Result<(), IllegalReason> {
        self.board.check(mv)
    }

    fn play_unchecked(&self, mv: Point) -> Self {
        let mut next = self.clone();
        if next.board.is_empty(mv) && !next.board.is_over() {
            next.board.play_unchecked(mv);
            next.recent.copy_within(0..RECENT - 1, 1);
            next.recent[0] = Some(mv);
        }
        next
    }

    fn outcome(&self) -> Option<Outcome> {
        self.board.outcome()
    }

    fn hash_key(&self) -> u64 {
        self.board.hash_key()
    }

    fn parse_move(s: &str) -> Result<Point, MoveError> {
        // The limits said are this board's (a-o, 1-15 on 15x15).
        let point = Point::parse_on(s, V::SIZE)?;
        if point.on_board(V::SIZE) {
            Ok(point)
        } else {
            Err(MoveError::OffBoard {
                point,
                size: V::SIZE,
            })
        }
    }

    fn action_index(mv: Point) -> usize {
        mv.index(V::SIZE)
    }

    fn action_move(index: usize) -> Option<Point> {
        Point::from_index(index, V::SIZE)
    }

    fn transform(&self, sym: Symmetry) -> Self {
        let stones = self.board.points().filter_map(|p| {
            self.board
                .stone(p)
                .map(|c| (Self::transform_move(p, sym), c))
        });
        let board = Board::with_stones(V::SIZE, V::RULE, stones, self.side_to_move());
        match board {
            Ok(board) => Gomoku {
                board,
                recent: self.recent.map(|p| p.map(|p| Self::transform_move(p, sym))),
                _variant: PhantomData,
            },
            // A symmetry maps the board onto itself, so this cannot fail.
            Err(_) => self.clone(),
        }
    }

    fn transform_move(mv: Point, sym: Symmetry) -> Point {
        if !mv.on_board(V::SIZE) {
            return mv;
        }
        let (r, c) = sym.apply(mv.row(), mv.col(), V::SIZE);
        Point::new(r, c).unwrap_or(mv)
    }
}
