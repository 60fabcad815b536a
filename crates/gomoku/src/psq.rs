//! PSQ records, the game files of the Piskvork Gomoku manager: a header line
//! `Piskvorky 20x20, 11:11, 0`, then one line `x,y,time` per move (`x` the column from the
//! left, `y` the row from the top, both from 1; time in milliseconds), then free lines (engine
//! names, a result) that readers skip.

use std::fmt::Write as _;

use crate::point::{Point, MAX_SIZE, MIN_SIZE};

/// A game read from, or to be written as, a PSQ record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PsqGame {
    /// The board side (PSQ allows rectangles; stonelab reads square boards only).
    pub size: usize,
    /// The moves, black first.
    pub moves: Vec<Point>,
    /// The time of each move in milliseconds, where recorded (same length as `moves`).
    pub times_ms: Vec<u64>,
}

/// A PSQ record that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PsqError {
    /// The first line is not a Piskvorky header.
    #[error("line 1: expected a header like `Piskvorky 15x15, 11:11, 0`")]
    Header,
    /// A board that is not square or not 5..=25.
    #[error("line 1: board {width}x{height} is not supported (square, 5 to 25)")]
    Size {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// A move line that cannot be read.
    #[error("line {line}: {reason}")]
    Move {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

impl PsqGame {
    /// Reads a PSQ record. Move lines end at the first line that does not start with a digit
    /// (such as `-1` or an engine name). Whether the moves are legal is for the caller to check
    /// by replaying them under its rule.
    ///
    /// # Errors
    /// A bad header, an unsupported size, or a move line that is malformed, off the board or
    /// repeats an occupied point.
    pub fn parse(text: &str) -> Result<PsqGame, PsqError> {
        let mut lines = text.lines();
        let header = lines.next().ok_or(PsqError::Header)?.trim();
        let rest = header
            .strip_prefix("Piskvorky")
            .ok_or(PsqError::Header)?
            .trim_start();
        let dims = rest.split(',').next().ok_or(PsqError::Header)?.trim();
        let (w, h) = dims.split_once(['x', 'X']).ok_or(PsqError::Header)?;
        let width: usize = w.trim().parse().map_err(|_| PsqError::Header)?;
        let height: usize = h.trim().parse().map_err(|_| PsqError::Header)?;
        if width != height || !(MIN_SIZE..=MAX_SIZE).contains(&width) {
            return Err(PsqError::Size { width, height });
        }
        let size = width;
        let mut game = PsqGame {
            size,
            moves: Vec::new(),
            times_ms: Vec::new(),
        };
        let mut seen = vec![false; size * size];
        for (k, line) in lines.enumerate() {
            let number = k + 2;
            let line = line.trim();
            if !line.starts_with(|c: char| c.is_ascii_digit()) {
                break;
            }
            let err = |reason: String| PsqError::Move {
                line: number,
                reason,
            };
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if !(2..=3).contains(&fields.len()) {
                return Err(err(format!("expected `x,y,time`, found `{line}`")));
            }
            let num = |s: &str, what: &str| -> Result<u64, PsqError> {
                s.parse::<u64>()
                    .map_err(|_| err(format!("{what} `{s}` is not a number")))
            };
            let x = num(fields[0], "x")?;
            let y = num(fields[1], "y")?;
            let time = match fields.get(2) {
                Some(t) => num(t, "time")?,
                None => 0,
            };
            if x == 0 || y == 0 || x > size as u64 || y > size as u64 {
                return Err(err(format!(
                    "({x},{y}) is off the {size}x{size} board (coordinates run from 1 to {size})"
                )));
            }
            let p = Point::new(size - y as usize, x as usize - 1)
                .ok_or_else(|| err("point off the board".into()))?;
            let index = p.index(size);
            if seen[index] {
                return Err(err(format!("{p} is played twice")));
            }
            seen[index] = true;
            game.moves.push(p);
            game.times_ms.push(time);
        }
        Ok(game)
    }

    /// The record as PSQ text (header, moves, and a closing `-1` line).
    #[must_use]
    pub fn to_psq(&self) -> String {
        let n = self.size;
        let mut out = format!("Piskvorky {n}x{n}, 11:11, 0\n");
        for (k, p) in self.moves.iter().enumerate() {
            let time = self.times_ms.get(k).copied().unwrap_or(0);
            let _ = writeln!(out, "{},{},{}", p.col() + 1, n - p.row(), time);
        }
        out.push_str("-1\n");
        out
    }
}
