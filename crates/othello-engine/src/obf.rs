//! `.obf` endgame problems (a board string, then each legal move with its exact score) and the
//! bundled FFO suite #1-#59, public positions from the French Othello Federation's magazine.

use othello::{Move, NotationError, Othello8, PositionError};

/// One problem: the position and, when the file lists them, the exact score of each move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The position.
    pub pos: Othello8,
    /// Listed moves with their exact scores for the side to move (may be empty).
    pub scores: Vec<(Move, i32)>,
}

impl Problem {
    /// The best listed score, if any.
    #[must_use]
    pub fn best_score(&self) -> Option<i32> {
        self.scores.iter().map(|s| s.1).max()
    }
}

/// Error for a line that is not an `.obf` problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObfError {
    /// The board string is malformed.
    #[error("line {line}: {source}")]
    Board {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        source: PositionError,
    },
    /// A move score entry such as `A2:+38` is malformed.
    #[error("line {line}: bad move score {text:?}: expected like A2:+38 (a disc difference from -64 to +64)")]
    Score {
        /// 1-based line number.
        line: usize,
        /// The entry.
        text: String,
    },
    /// A listed move is not legal in the position.
    #[error("line {line}: listed move {mv} is not legal here")]
    Illegal {
        /// 1-based line number.
        line: usize,
        /// The move.
        mv: Move,
    },
    /// A move is listed twice.
    #[error("line {line}: move {mv} is listed twice")]
    Twice {
        /// 1-based line number.
        line: usize,
        /// The move.
        mv: Move,
    },
}

/// Parses `.obf` text: one problem per non-empty line (`%` or `#` start comments). Every board
/// is checked against the rules ([`Othello8::validate`]).
///
/// # Errors
/// The first malformed line.
pub fn parse_obf(text: &str) -> Result<Vec<Problem>, ObfError> {
    use game::Game;
    let mut out = Vec::new();
    // A byte-order mark some editors write is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') || trimmed.starts_with('#') {
            continue;
        }
        let mut parts = trimmed.split(';');
        let board = parts.next().unwrap_or_default();
        let pos: Othello8 = board
            .parse()
            .map_err(|source| ObfError::Board { line, source })?;
        let mut scores = Vec::new();
        for entry in parts.map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || ObfError::Score {
                line,
                text: entry.to_string(),
            };
            let (mv, score) = entry.split_once(':').ok_or_else(bad)?;
            let mv: Move = mv.trim().parse().map_err(|_: NotationError| bad())?;
            let score: i32 = score
                .trim()
                .parse()
                .ok()
                .filter(|s: &i32| (-64..=64).contains(s))
                .ok_or_else(bad)?;
            if !pos.is_legal(mv) {
                return Err(ObfError::Illegal { line, mv });
            }
            if scores.iter().any(|&(m, _)| m == mv) {
                return Err(ObfError::Twice { line, mv });
            }
            scores.push((mv, score));
        }
        out.push(Problem { pos, scores });
    }
    Ok(out)
}

/// The FFO endgame suite #1-#59 (index 0 is #1), bundled with the binary.
#[must_use]
pub fn ffo_suite() -> Vec<Problem> {
    [
        include_str!("../../../data/othello/ffo/fforum-1-19.obf"),
        include_str!("../../../data/othello/ffo/fforum-20-39.obf"),
        include_str!("../../../data/othello/ffo/fforum-40-59.obf"),
    ]
    .iter()
    .flat_map(|text| parse_obf(text).unwrap_or_default())
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_suite_has_all_59() {
        let suite = ffo_suite();
        assert_eq!(suite.len(), 59);
        assert_eq!(suite[39].best_score(), Some(38));
    }

    /// A problem no game reaches (an empty centre square) is refused, not solved.
    #[test]
    fn impossible_positions_are_refused() {
        let err = parse_obf(&format!("% empty\n{} X; A1:+0;", "-".repeat(64))).unwrap_err();
        assert!(matches!(
            err,
            ObfError::Board {
                line: 2,
                source: PositionError::EmptyCentre { .. }
            }
        ));
        assert!(err
            .to_string()
            .starts_with("line 2: impossible position: centre square d4 is empty"));
    }

    #[test]
    fn scores_are_disc_differences_given_once() {
        let start = othello::Othello8::new().to_string();
        for bad in ["D3:+999", "D3:-65", "D3:+65"] {
            assert!(
                matches!(
                    parse_obf(&format!("{start}; {bad};")),
                    Err(ObfError::Score { line: 1, .. })
                ),
                "{bad}"
            );
        }
        let twice = parse_obf(&format!("{start}; D3:+2; C4:+2; D3:-4;")).unwrap_err();
        assert_eq!(twice.to_string(), "line 1: move d3 is listed twice");
        let ok = parse_obf(&format!("\u{feff}{start}; D3:+64; C4:-64;")).expect("a BOM");
        assert_eq!(ok[0].best_score(), Some(64));
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_obf("\n--X X;").unwrap_err();
        assert!(matches!(err, ObfError::Board { line: 2, .. }));
        let start = othello::Othello8::new().to_string();
        assert!(matches!(
            parse_obf(&format!("{start}; D3:x;")),
            Err(ObfError::Score { line: 1, .. })
        ));
        assert!(matches!(
            parse_obf(&format!("{start}; A1:+2;")),
            Err(ObfError::Illegal { .. })
        ));
        assert_eq!(
            parse_obf(&format!("{start}; d3:+0; C4:-0;")).unwrap()[0]
                .scores
                .len(),
            2
        );
    }
}
