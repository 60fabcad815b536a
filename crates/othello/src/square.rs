//! Squares (`a1`..`h8`) and moves (a square or a pass), with their notation.

use std::fmt;
use std::str::FromStr;

/// A square of the 8x8 layout: bit index `8 * row + col`, `a1` = 0, `h1` = 7, `h8` = 63.
/// Smaller boards use the squares with `row` and `col` below their size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at `row` (0 = rank 1) and `col` (0 = file a), or `None` off the 8x8 layout.
    #[must_use]
    pub const fn new(row: usize, col: usize) -> Option<Square> {
        if row < 8 && col < 8 {
            Some(Square((row * 8 + col) as u8))
        } else {
            None
        }
    }

    /// The square with this bit index, or `None` for 64 and above.
    #[must_use]
    pub const fn from_index(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The bit index `8 * row + col`.
    #[must_use]
    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    /// The single-bit mask of this square.
    #[must_use]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// Rank index, 0 for rank 1.
    #[must_use]
    pub const fn row(self) -> usize {
        (self.0 / 8) as usize
    }

    /// File index, 0 for file a.
    #[must_use]
    pub const fn col(self) -> usize {
        (self.0 % 8) as usize
    }

    /// Whether the square lies on an `n x n` board.
    #[must_use]
    pub const fn on_board(self, n: usize) -> bool {
        self.row() < n && self.col() < n
    }

    /// Iterates the squares of a bitboard, lowest bit first.
    pub fn iter_bits(mut bits: u64) -> impl Iterator<Item = Square> {
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let sq = Square(bits.trailing_zeros() as u8);
                bits &= bits - 1;
                Some(sq)
            }
        })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col() as u8) as char, self.row() + 1)
    }
}

/// Error for text that is not Othello notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not a square `a1`..`h8` (or `pass`, where a move was expected).
    #[error("{0:?} is not a square: expected a file a-h and a rank 1-8, like d3")]
    BadSquare(String),
    /// A square that exists in the 8x8 layout but not on this smaller board.
    #[error("{square} is not on the {size}x{size} board")]
    OffBoard {
        /// The square.
        square: Square,
        /// The board's side length.
        size: usize,
    },
    /// A transcript whose length is odd or that contains a character that is not a square.
    #[error("transcript: bad square {text:?} at character {offset}")]
    BadTranscript {
        /// The offending two characters (or the leftover one).
        text: String,
        /// Its byte offset in the transcript.
        offset: usize,
    },
}

impl FromStr for Square {
    type Err = NotationError;

    /// Parses `a1`..`h8` in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bytes = s.trim().as_bytes();
        let bad = || NotationError::BadSquare(s.to_string());
        if bytes.len() != 2 {
            return Err(bad());
        }
        let file = bytes[0].to_ascii_lowercase();
        let rank = bytes[1];
        if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
            return Err(bad());
        }
        Square::new((rank - b'1') as usize, (file - b'a') as usize).ok_or_else(bad)
    }
}

/// An Othello move: a disc placed on a square, or a pass (legal only when no disc can be placed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// Place a disc.
    Place(Square),
    /// Pass the turn.
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place(sq) => sq.fmt(f),
            Move::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for Move {
    type Err = NotationError;

    /// Parses a square in any case, or `pass` (also `ps`, `pa`, `--`, any case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if ["pass", "ps", "pa", "--"]
            .iter()
            .any(|p| t.eq_ignore_ascii_case(p))
        {
            return Ok(Move::Pass);
        }
        t.parse()
            .map(Move::Place)
            .map_err(|_| NotationError::BadSquare(s.to_string()))
    }
}

impl From<Square> for Move {
    fn from(sq: Square) -> Self {
        Move::Place(sq)
    }
}

/// Parses a transcript such as `f5d6c3d3c4` (any case; white space, commas and semicolons
/// between moves are allowed) into its squares. Passes are implicit, as in WTHOR; see [`crate::replay`].
///
/// # Errors
/// [`NotationError::BadTranscript`] at the first pair of characters that is not a square.
pub fn parse_transcript(text: &str) -> Result<Vec<Square>, NotationError> {
    let compact: Vec<(usize, char)> = text
        .char_indices()
        .filter(|(_, c)| !c.is_whitespace() && *c != ',' && *c != ';')
        .collect();
    compact
        .chunks(2)
        .map(|pair| {
            let piece: String = pair.iter().map(|&(_, c)| c).collect();
            piece
                .parse::<Square>()
                .map_err(|_| NotationError::BadTranscript {
                    text: piece.clone(),
                    offset: pair[0].0,
                })
        })
        .collect()
}

/// Writes squares as a lower-case transcript (`f5d6c3`).
#[must_use]
pub fn format_transcript(squares: &[Square]) -> String {
    squares.iter().map(Square::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_in_any_case() {
        for i in 0..64 {
            let sq = Square::from_index(i).unwrap();
            let text = sq.to_string();
            assert_eq!(text.parse::<Square>(), Ok(sq));
            assert_eq!(text.to_uppercase().parse::<Square>(), Ok(sq));
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h8".parse::<Square>().unwrap().index(), 63);
        assert_eq!("d3".parse::<Square>().unwrap().index(), 19);
        for bad in ["", "a", "a0", "i1", "a9", "1a", "a10", "é1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn transcripts() {
        let squares = parse_transcript("F5d6C3 d3c4").unwrap();
        assert_eq!(format_transcript(&squares), "f5d6c3d3c4");
        assert!(matches!(
            parse_transcript("f5d"),
            Err(NotationError::BadTranscript { offset: 2, .. })
        ));
        assert!(parse_transcript("f5z9").is_err());
        assert_eq!(parse_transcript(""), Ok(vec![]));
        assert_eq!(parse_transcript("f5,d6; c3"), parse_transcript("f5d6c3"));
    }

    #[test]
    fn moves_parse_pass() {
        assert_eq!("PASS".parse::<Move>(), Ok(Move::Pass));
        assert_eq!("e6".parse::<Move>().unwrap().to_string(), "e6");
        assert!("pas".parse::<Move>().is_err());
    }
}
