//! Points of a Gomoku board (`a1` bottom-left, `h8` the centre of 15x15) and their notation.

use std::fmt;
use std::str::FromStr;

/// The smallest board side.
pub const MIN_SIZE: usize = 5;
/// The largest board side.
pub const MAX_SIZE: usize = 25;

/// A point of the board: `row` 0 is rank 1 (the bottom line in diagrams), `col` 0 is file `a`.
/// Files run `a`..`y` (no letter is skipped), ranks `1`..`25`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    row: u8,
    col: u8,
}

impl Point {
    /// The point at `row` and `col`, or `None` when either is `>= MAX_SIZE`.
    #[must_use]
    pub const fn new(row: usize, col: usize) -> Option<Point> {
        if row < MAX_SIZE && col < MAX_SIZE {
            Some(Point {
                row: row as u8,
                col: col as u8,
            })
        } else {
            None
        }
    }

    /// Rank index, 0 for rank 1.
    #[must_use]
    pub const fn row(self) -> usize {
        self.row as usize
    }

    /// File index, 0 for file `a`.
    #[must_use]
    pub const fn col(self) -> usize {
        self.col as usize
    }

    /// Whether the point lies on a `size x size` board.
    #[must_use]
    pub const fn on_board(self, size: usize) -> bool {
        self.row() < size && self.col() < size
    }

    /// The cell index `row * size + col` on a board of this size.
    #[must_use]
    pub const fn index(self, size: usize) -> usize {
        self.row() * size + self.col()
    }

    /// The point with cell index `index` on a `size x size` board, or `None` off it.
    #[must_use]
    pub const fn from_index(index: usize, size: usize) -> Option<Point> {
        if size == 0 || size > MAX_SIZE || index >= size * size {
            None
        } else {
            Point::new(index / size, index % size)
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.col), self.row + 1)
    }
}

/// A string that names no point (`h8`, `A1` and `y25` do).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a point: {reason}")]
pub struct ParsePointError {
    /// The text given.
    pub input: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Point {
    /// The point `s` names on a board of side `size` (clamped to [`MAX_SIZE`]): a file letter
    /// and a rank, whose limits the errors give for that board (`a to o`, `1 to 15` on 15x15).
    ///
    /// # Errors
    /// [`ParsePointError`] saying what is wrong.
    pub fn parse_on(s: &str, size: usize) -> Result<Self, ParsePointError> {
        let size = size.clamp(1, MAX_SIZE);
        let last = char::from(b'a' + (size - 1) as u8);
        let err = |reason: String| ParsePointError {
            input: s.chars().take(40).collect(),
            reason,
        };
        let rank_error = || err(format!("the rank must be a number from 1 to {size}"));
        let t = s.trim();
        let mut chars = t.chars();
        let file = chars
            .next()
            .ok_or_else(|| err("expected a file letter and a rank, like h8".into()))?
            .to_ascii_lowercase();
        if !file.is_ascii_lowercase() || (file as u8 - b'a') as usize >= size {
            return Err(err(format!("the file must be a letter from a to {last}")));
        }
        let rank = chars.as_str();
        if rank.is_empty() || rank.len() > 2 || !rank.bytes().all(|b| b.is_ascii_digit()) {
            return Err(rank_error());
        }
        let rank: usize = rank.parse().map_err(|_| rank_error())?;
        if rank == 0 || rank > size {
            return Err(rank_error());
        }
        Point::new(rank - 1, (file as u8 - b'a') as usize)
            .ok_or_else(|| err("the point is off every board".into()))
    }
}

/// A point on the largest board ([`MAX_SIZE`]); [`Point::parse_on`] names one board's limits.
impl FromStr for Point {
    type Err = ParsePointError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Point::parse_on(s, MAX_SIZE)
    }
}
