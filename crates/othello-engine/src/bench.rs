//! The deterministic FFO endgame benchmark behind `stonelab bench endgame`: each position of the
//! bundled suite solved from a cleared table, checked against its listed scores, with a
//! [`NodeChecksum`] of the node counts that tests pin.

use std::ops::RangeInclusive;
use std::time::Duration;

use othello::Move;
use search::NodeChecksum;

use crate::obf::ffo_suite;
use crate::Solver;

/// One solved position.
#[derive(Clone, Debug, PartialEq)]
pub struct EndgameRow {
    /// FFO number (1-59).
    pub number: usize,
    /// Empty squares.
    pub empties: u32,
    /// The exact score found for the side to move.
    pub score: i32,
    /// The best move found.
    pub best: Option<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Whether the score is the suite's best and the move is one of its best moves.
    pub correct: bool,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct EndgameReport {
    /// Every position, in order.
    pub rows: Vec<EndgameRow>,
    /// Nodes of every position.
    pub nodes: u64,
    /// Time of every position.
    pub elapsed: Duration,
    /// FNV-1a over the node counts in order.
    pub checksum: NodeChecksum,
}

impl EndgameReport {
    /// Positions solved wrongly.
    #[must_use]
    pub fn wrong(&self) -> usize {
        self.rows.iter().filter(|r| !r.correct).count()
    }
}

/// Solves FFO positions `range` (numbers within 1..=59; others are skipped) one by one with a
/// solver of `2^table_bits` entries cleared before each, calling `on_row` after each.
pub fn endgame(
    range: RangeInclusive<usize>,
    table_bits: u32,
    mut on_row: impl FnMut(&EndgameRow),
) -> EndgameReport {
    let suite = ffo_suite();
    let mut solver = Solver::<8>::new(table_bits);
    let mut report = EndgameReport {
        rows: Vec::new(),
        nodes: 0,
        elapsed: Duration::ZERO,
        checksum: NodeChecksum::new(),
    };
    for number in range {
        let Some(problem) = number.checked_sub(1).and_then(|i| suite.get(i)) else {
            continue;
        };
        solver.clear();
        let s = solver.solve(&problem.pos);
        let expected = problem.best_score();
        let best_ok = s.best.is_some_and(|mv| {
            problem
                .scores
                .iter()
                .any(|&(m, sc)| m == mv && Some(sc) == expected)
        });
        let row = EndgameRow {
            number,
            empties: problem.pos.empty().count_ones(),
            score: s.score,
            best: s.best,
            nodes: s.nodes,
            elapsed: s.elapsed,
            correct: expected == Some(s.score) && best_ok,
        };
        on_row(&row);
        report.nodes += row.nodes;
        report.elapsed += row.elapsed;
        report.checksum.nodes(row.nodes);
        report.rows.push(row);
    }
    report
}
