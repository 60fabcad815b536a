//! The two sides of a game.

use std::fmt;
use std::str::FromStr;

/// A side. Black always moves first in every stonelab game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The first player.
    Black,
    /// The second player.
    White,
}

impl Color {
    /// Both colours, black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other side.
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for black, 1 for white (for indexing per-colour arrays).
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lower-case English name, `"black"` or `"white"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The character used in board strings: `'X'` for black, `'O'` for white.
    #[must_use]
    pub const fn symbol(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for a string that names no colour.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown colour {0:?}: expected black/white, b/w or X/O")]
pub struct ParseColorError(pub String);

impl FromStr for Color {
    type Err = ParseColorError;

    /// Accepts `black`/`white`, `b`/`w` and the board-string symbols `X`/`O` (any case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" | "b" | "x" => Ok(Color::Black),
            "white" | "w" | "o" => Ok(Color::White),
            _ => Err(ParseColorError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opponent_is_an_involution() {
        for c in Color::ALL {
            assert_ne!(c, c.opponent());
            assert_eq!(c, c.opponent().opponent());
        }
    }

    #[test]
    fn parses_names_and_symbols() {
        for c in Color::ALL {
            assert_eq!(c.name().parse::<Color>(), Ok(c));
            assert_eq!(c.symbol().to_string().parse::<Color>(), Ok(c));
        }
        assert!("red".parse::<Color>().is_err());
    }
}
