//! Scores with units: what the number in a [`Decision`](crate::Decision) means, so every front
//! end (NBoard, Gomocup `MESSAGE`, the web app, the CLI) prints it correctly.

use std::fmt;

use crate::WIN;

/// Scores in `(WIN - MATE_WINDOW, WIN)` are forced wins `WIN - plies` (and their negatives
/// forced losses), as mate-distance engines report them; heuristics stay below.
pub const MATE_WINDOW: i32 = 1_000;

/// How to read a decision's raw score (an `i32` from the mover's point of view, where
/// `|score| >= WIN` is a proven result whose margin is `|score| - WIN`, and a score within
/// [`MATE_WINDOW`] below `WIN` is a proven result found at a distance, as engines that count
/// plies to the win report it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScoreScale {
    /// Hundredths of the game's unit: 100 per disc in Othello (the hand-built heuristic, the
    /// disc difference, external NBoard engines).
    #[default]
    Centi,
    /// The agent's own units (e.g. the Gomoku engine's pattern scores): larger is better for the
    /// mover, nothing more.
    Engine,
    /// An expected result ×100: +100 a sure win, −100 a sure loss, 0 even (learned values,
    /// value iteration).
    Expectation,
    /// An expected result ×10,000 (value networks searched by minimax: their values need the
    /// finer grain, or near-equal leaves tie).
    FineExpectation,
}

/// What a decision's score says, in its unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// A proven result for the mover: a win (`margin > 0`), a loss (`< 0`) or a draw (`0`), the
    /// margin in the game's unit (discs; Gomoku: 1). The margin is exact when the search reached
    /// every end (a solver), else a bound; the result itself is proven either way.
    Proven {
        /// The margin, signed from the mover's point of view.
        margin: i32,
    },
    /// A forced result found at a distance by an engine that counts plies (the Gomoku
    /// engines): the mover wins (`plies > 0`) or loses (`plies < 0`) in `|plies|` plies.
    Mate {
        /// Plies to the end, signed from the mover's point of view.
        plies: i32,
    },
    /// A heuristic value in the game's unit (Othello: discs), mover's point of view.
    Units(f64),
    /// A heuristic value in the agent's own units, mover's point of view.
    Engine(i32),
    /// An expected result in [−1, 1] (+1: a sure win), mover's point of view.
    Expectation(f64),
}

impl Score {
    /// The score a raw value of scale `scale` stands for.
    #[must_use]
    pub fn from_raw(raw: i32, scale: ScoreScale) -> Score {
        if raw.unsigned_abs() >= WIN.unsigned_abs() {
            let margin = raw.unsigned_abs() - WIN.unsigned_abs();
            let margin = i32::try_from(margin).unwrap_or(i32::MAX);
            return Score::Proven {
                margin: if raw > 0 { margin } else { -margin },
            };
        }
        if raw.abs() > WIN - MATE_WINDOW {
            return Score::Mate {
                plies: raw.signum() * (WIN - raw.abs()),
            };
        }
        match scale {
            ScoreScale::Centi => Score::Units(f64::from(raw) / 100.0),
            ScoreScale::Engine => Score::Engine(raw),
            ScoreScale::Expectation => {
                Score::Expectation((f64::from(raw) / 100.0).clamp(-1.0, 1.0))
            }
            ScoreScale::FineExpectation => {
                Score::Expectation((f64::from(raw) / 10_000.0).clamp(-1.0, 1.0))
            }
        }
    }

    /// The score in the game's unit (discs), where it has one: proven margins and unit values;
    /// `None` for engine units and expectations, which no disc count stands for.
    #[must_use]
    pub fn units(self) -> Option<f64> {
        match self {
            Score::Proven { margin } => Some(f64::from(margin)),
            Score::Units(v) => Some(v),
            Score::Mate { .. } | Score::Engine(_) | Score::Expectation(_) => None,
        }
    }

    /// Whether the result is proven (a margin or a forced result at a distance).
    #[must_use]
    pub fn is_proven(self) -> bool {
        matches!(self, Score::Proven { .. } | Score::Mate { .. })
    }

    /// +1 for a proven win, −1 for a proven loss, 0 for a proven draw; `None` when not proven.
    #[must_use]
    pub fn proven_sign(self) -> Option<i32> {
        match self {
            Score::Proven { margin } => Some(margin.signum()),
            Score::Mate { plies } => Some(plies.signum()),
            _ => None,
        }
    }

    /// The score as JSON-friendly parts: a kind (`proven`, `units`, `engine`, `expectation`)
    /// and its number.
    #[must_use]
    pub fn parts(self) -> (&'static str, f64) {
        match self {
            Score::Proven { margin } => ("proven", f64::from(margin)),
            Score::Mate { plies } => ("mate", f64::from(plies)),
            Score::Units(v) => ("units", v),
            Score::Engine(v) => ("engine", f64::from(v)),
            Score::Expectation(v) => ("expectation", v),
        }
    }
}

/// The same score from the other side's point of view.
impl std::ops::Neg for Score {
    type Output = Score;

    fn neg(self) -> Score {
        match self {
            Score::Proven { margin } => Score::Proven { margin: -margin },
            Score::Mate { plies } => Score::Mate { plies: -plies },
            Score::Units(v) => Score::Units(-v),
            Score::Engine(v) => Score::Engine(-v),
            Score::Expectation(v) => Score::Expectation(-v),
        }
    }
}

/// For people: `win by 6`, `loss by 2`, `draw`, `+1.50`, `+350 (engine)`, `expects +0.42`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Proven { margin } if margin > 0 => write!(f, "win by {margin}"),
            Score::Proven { margin } if margin < 0 => write!(f, "loss by {}", -margin),
            Score::Proven { .. } => f.write_str("draw"),
            // In the winner's own moves: a win in 1 ply is the mover's next move.
            Score::Mate { plies } if plies > 0 => write!(f, "win in {}", (plies + 1) / 2),
            Score::Mate { plies } => write!(f, "loss in {}", (-plies / 2).max(1)),
            Score::Units(v) => write!(f, "{v:+.2}"),
            Score::Engine(v) => write!(f, "{v:+} (engine)"),
            Score::Expectation(v) => write!(f, "expects {v:+.2}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_scores_read_by_their_scale() {
        assert_eq!(Score::from_raw(150, ScoreScale::Centi), Score::Units(1.5));
        assert_eq!(Score::from_raw(-250, ScoreScale::Centi).units(), Some(-2.5));
        assert_eq!(Score::from_raw(350, ScoreScale::Engine), Score::Engine(350));
        assert_eq!(Score::from_raw(350, ScoreScale::Engine).units(), None);
        assert_eq!(
            Score::from_raw(42, ScoreScale::Expectation),
            Score::Expectation(0.42)
        );
        assert_eq!(
            Score::from_raw(-4_200, ScoreScale::FineExpectation),
            Score::Expectation(-0.42)
        );
        for scale in [
            ScoreScale::Centi,
            ScoreScale::Engine,
            ScoreScale::Expectation,
            ScoreScale::FineExpectation,
        ] {
            assert_eq!(Score::from_raw(WIN + 6, scale), Score::Proven { margin: 6 });
            assert_eq!(
                Score::from_raw(-WIN - 64, scale),
                Score::Proven { margin: -64 }
            );
            assert_eq!(Score::from_raw(WIN, scale), Score::Proven { margin: 0 });
        }
        assert_eq!(
            Score::from_raw(WIN + 6, ScoreScale::Engine).units(),
            Some(6.0)
        );
        // Mate distances: a forced win in 7 plies, a forced loss in 4.
        assert_eq!(
            Score::from_raw(WIN - 7, ScoreScale::Engine),
            Score::Mate { plies: 7 }
        );
        assert_eq!(
            Score::from_raw(4 - WIN, ScoreScale::Engine),
            Score::Mate { plies: -4 }
        );
        assert!(Score::Mate { plies: 7 }.is_proven());
        assert_eq!(Score::Mate { plies: -4 }.proven_sign(), Some(-1));
        assert_eq!(Score::Mate { plies: 7 }.units(), None);
        assert_eq!(
            Score::from_raw(WIN - MATE_WINDOW, ScoreScale::Engine),
            Score::Engine(WIN - MATE_WINDOW)
        );
    }

    #[test]
    fn scores_print_with_their_unit() {
        assert_eq!(Score::Proven { margin: 6 }.to_string(), "win by 6");
        assert_eq!(Score::Proven { margin: -2 }.to_string(), "loss by 2");
        assert_eq!(Score::Proven { margin: 0 }.to_string(), "draw");
        assert_eq!(Score::Units(1.5).to_string(), "+1.50");
        assert_eq!(Score::Engine(-350).to_string(), "-350 (engine)");
        assert_eq!(Score::Expectation(0.42).to_string(), "expects +0.42");
        assert_eq!((-Score::Proven { margin: 6 }).to_string(), "loss by 6");
        assert_eq!((-Score::Units(1.5)).to_string(), "-1.50");
        // Forced results at a distance, in the winner's moves (never a meaningless margin).
        assert_eq!(Score::Mate { plies: 1 }.to_string(), "win in 1");
        assert_eq!(Score::Mate { plies: 7 }.to_string(), "win in 4");
        assert_eq!(Score::Mate { plies: -2 }.to_string(), "loss in 1");
        assert_eq!(Score::Mate { plies: -6 }.to_string(), "loss in 3");
        assert_eq!((-Score::Mate { plies: 3 }).to_string(), "loss in 1");
        assert_eq!(Score::Mate { plies: 7 }.parts(), ("mate", 7.0));
    }
}
