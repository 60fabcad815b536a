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

/// The FFO positions a `FIRST-LAST` range (or one number) names, checked to be within 1..=59.
///
/// # Errors
/// A message naming what is wrong with the range.
pub fn ffo_range(text: &str) -> Result<RangeInclusive<usize>, String> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) else {
        return Err(format!(
            "bad range {text:?}: expected FIRST-LAST such as 20-39"
        ));
    };
    if a < 1 || b > 59 {
        return Err(format!(
            "bad range {text:?}: FFO positions are numbered 1 to 59"
        ));
    }
    if a > b {
        return Err(format!(
            "bad range {text:?}: the first position comes after the last"
        ));
    }
    Ok(a..=b)
}

/// Solves FFO positions `range` (numbers within 1..=59; others are skipped) one by one with a
/// solver of `2^table_bits` entries on `threads` threads, cleared before each, calling `on_row`
/// after each.
pub fn endgame(
    range: RangeInclusive<usize>,
    table_bits: u32,
    threads: usize,
    mut on_row: impl FnMut(&EndgameRow),
) -> EndgameReport {
    let suite = ffo_suite();
    let mut solver = Solver::<8>::new(table_bits)
        .with_evaluation(crate::pattern::bundled())
        .with_threads(threads);
    solver.allocate();
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

/// One searched midgame position.
#[derive(Clone, Debug, PartialEq)]
pub struct MidgameRow {
    /// Position number (1-based).
    pub number: usize,
    /// Empty squares.
    pub empties: u32,
    /// The score found, in the evaluation's units.
    pub score: i32,
    /// The best move found.
    pub best: Option<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// A whole midgame run.
#[derive(Clone, Debug, PartialEq)]
pub struct MidgameReport {
    /// Every position, in order.
    pub rows: Vec<MidgameRow>,
    /// Nodes of every position.
    pub nodes: u64,
    /// Time of every position.
    pub elapsed: Duration,
    /// FNV-1a over the node counts in order.
    pub checksum: NodeChecksum,
}

/// The fixed midgame positions of the benchmark: from the start, moves drawn by a SplitMix64
/// sequence (seeded by the position's number) until 20 to 39 discs are on the board.
#[must_use]
pub fn midgame_positions(count: usize) -> Vec<othello::Othello8> {
    use game::Game;
    let mut out = Vec::with_capacity(count);
    let mut number = 0u64;
    while out.len() < count {
        number += 1;
        let mut rng = game::hash::SplitMix(number.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut next = || rng.next_u64();
        let discs = 20 + next() % 20;
        let mut pos = othello::Othello8::new();
        while !pos.is_over() && u64::from(64 - pos.empty().count_ones()) < discs {
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
        }
        if !pos.is_over() && pos.moves() != 0 {
            out.push(pos);
        }
    }
    out
}

/// Searches the first `count` [`midgame_positions`] to `depth` plies with the bundled pattern
/// evaluation (and, with `correction`, the bundled correction network at the leaves, as the
/// `othello` engine plays) on `threads` threads (node counts are deterministic on one), each from a cleared
/// table, calling `on_row` after each.
pub fn midgame(
    count: usize,
    depth: u32,
    threads: usize,
    correction: bool,
    mut on_row: impl FnMut(&MidgameRow),
) -> MidgameReport {
    let mut search = crate::midgame::Midgame::new(crate::pattern::bundled(), 20)
        .with_correction(correction.then(crate::correction::bundled));
    let mut report = MidgameReport {
        rows: Vec::new(),
        nodes: 0,
        elapsed: Duration::ZERO,
        checksum: NodeChecksum::new(),
    };
    for (i, pos) in midgame_positions(count).iter().enumerate() {
        search.clear();
        let start = std::time::Instant::now();
        let r = search.search_threads(pos, depth, None, None, threads);
        let row = MidgameRow {
            number: i + 1,
            empties: pos.empty().count_ones(),
            score: r.score,
            best: r.best,
            nodes: r.nodes,
            elapsed: start.elapsed(),
        };
        on_row(&row);
        report.nodes += row.nodes;
        report.elapsed += row.elapsed;
        report.checksum.nodes(row.nodes);
        report.rows.push(row);
    }
    report
}
