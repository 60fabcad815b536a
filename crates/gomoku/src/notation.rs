//! Board strings (`X`/`O`/`-` per point from `a1` row by row, then the side to move) and text
//! diagrams.

use std::fmt;

use game::Color;

use crate::board::{Board, BoardError};
use crate::point::Point;
use crate::rule::Rule;
use crate::validity::PositionError;

/// A board string that does not describe a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardStringError {
    /// Wrong number of points.
    #[error("a {size}x{size} board string needs {expected} points (X, O or -), found {found}")]
    Length {
        /// The board side.
        size: usize,
        /// `size * size`.
        expected: usize,
        /// Points found.
        found: usize,
    },
    /// A character that is no point.
    #[error("unexpected character `{0}` in a board string (points are X, O or -)")]
    Char(char),
    /// The side to move is missing or not `X`/`O`.
    #[error("the board string must end with the side to move, X (black) or O (white)")]
    Side,
    /// The stones cannot be on one board (both sides won, two stones on a point).
    #[error(transparent)]
    Board(#[from] BoardError),
    /// The board is one no game reaches (stone counts, winning lines).
    #[error(transparent)]
    Impossible(#[from] PositionError),
}

pub(crate) fn write_board_string(board: &Board, f: &mut impl fmt::Write) -> fmt::Result {
    for p in board.points() {
        f.write_char(match board.stone(p) {
            Some(Color::Black) => 'X',
            Some(Color::White) => 'O',
            None => '-',
        })?;
    }
    f.write_char(' ')?;
    f.write_char(match board.side_to_move() {
        Color::Black => 'X',
        Color::White => 'O',
    })
}

impl Board {
    /// The board string: one character per point (`X` black, `O` white, `-` empty) from `a1`
    /// along rank 1, then rank 2 and so on, a space, and the side to move (`X` or `O`).
    #[must_use]
    pub fn board_string(&self) -> String {
        let mut s = String::with_capacity(self.size() * self.size() + 2);
        let _ = write_board_string(self, &mut s);
        s
    }

    /// Reads a board string for a `size x size` board under `rule`, whatever the stone counts
    /// (puzzles, tests). Whitespace between points is ignored; `x`, `o`, `*` (black) and `.`
    /// (empty) are accepted too. Text from outside goes through
    /// [`Board::parse_board_string`] or [`Gomoku`](crate::Gomoku)'s [`FromStr`](std::str::FromStr),
    /// which also [validate](Board::validate) the position.
    ///
    /// # Errors
    /// A [`BoardStringError`] saying what is wrong.
    pub fn from_board_string(s: &str, size: usize, rule: Rule) -> Result<Board, BoardStringError> {
        let trimmed = s.trim();
        let (cells, side) = trimmed
            .rsplit_once(char::is_whitespace)
            .ok_or(BoardStringError::Side)?;
        let to_move = match side {
            "X" | "x" | "*" => Color::Black,
            "O" | "o" => Color::White,
            _ => return Err(BoardStringError::Side),
        };
        let mut stones = Vec::new();
        let mut count = 0;
        for ch in cells.chars().filter(|c| !c.is_whitespace()) {
            let color = match ch {
                'X' | 'x' | '*' => Some(Color::Black),
                'O' | 'o' => Some(Color::White),
                '-' | '.' => None,
                other => return Err(BoardStringError::Char(other)),
            };
            if let (Some(color), Some(p)) = (color, Point::from_index(count, size)) {
                stones.push((p, color));
            }
            count += 1;
        }
        if count != size * size {
            return Err(BoardStringError::Length {
                size,
                expected: size * size,
                found: count,
            });
        }
        Ok(Board::with_stones(size, rule, stones, to_move)?)
    }

    /// A board string from outside: read by [`from_board_string`](Self::from_board_string),
    /// then [validated](Self::validate) against the rules.
    ///
    /// # Errors
    /// A [`BoardStringError`] saying what is wrong, [`BoardStringError::Impossible`] for a
    /// position no game reaches.
    pub fn parse_board_string(s: &str, size: usize, rule: Rule) -> Result<Board, BoardStringError> {
        let board = Board::from_board_string(s, size, rule)?;
        board.validate()?;
        Ok(board)
    }

    /// A text diagram: rank `size` at the top, files and ranks on every edge, `X` black, `O`
    /// white, `.` empty, and the stone on `last` (if any) in parentheses.
    #[must_use]
    pub fn diagram(&self, last: Option<Point>) -> String {
        let n = self.size();
        let files: String = (0..n)
            .map(|c| format!(" {}", char::from(b'a' + c as u8)))
            .collect();
        let mut out = format!("   {files}\n");
        for row in (0..n).rev() {
            out.push_str(&format!("{:>2} ", row + 1));
            for col in 0..n {
                let p = Point::new(row, col);
                let left_of_last = last.is_some_and(|l| l.row() == row && l.col() == col);
                let right_of_last =
                    col > 0 && last.is_some_and(|l| l.row() == row && l.col() + 1 == col);
                out.push(if left_of_last {
                    '('
                } else if right_of_last {
                    ')'
                } else {
                    ' '
                });
                out.push(match p.and_then(|p| self.stone(p)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
            }
            let last_at_end = last.is_some_and(|l| l.row() == row && l.col() + 1 == n);
            out.push(if last_at_end { ')' } else { ' ' });
            out.push_str(&format!("{:<2}\n", row + 1));
        }
        out.push_str(&format!("   {files}\n"));
        out
    }
}
