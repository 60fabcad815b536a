//! The deterministic engine benchmark behind `stonelab bench gomoku`: six fixed middle-game
//! positions (freestyle 15x15 and 19x19, renju, exact five) searched to a fixed depth, with a
//! [`NodeChecksum`] over the node counts and chosen moves that tests pin.

use std::time::{Duration, Instant};

use gomoku::{Board, Point, Rule};
use search::{Budget, NodeChecksum};

use crate::{EngineConfig, GomokuEngine};

/// The positions: rule, board side, moves from the empty board (taken from engine games on
/// random openings, before either side had a forced win).
pub const POSITIONS: [(Rule, usize, &str); 6] = [
    (Rule::Freestyle, 15, "j8 e9 k7 i9 k9 i7 k8 k6 j7 j6"),
    (Rule::Freestyle, 15, "j8 e9 k7 f8 g7 e8 i9 h10 l6 m5 h8 j10"),
    (Rule::Freestyle, 19, "l13 h13 m13 n13 l12 l10"),
    (
        Rule::Freestyle,
        19,
        "l13 h13 e10 g13 f13 g14 g12 e14 e15 h14",
    ),
    (Rule::Renju, 15, "j10 j6 g5 j7 j5 f5 g7 g6 h7 i6 h6 h5"),
    (Rule::Standard, 15, "e8 k9 j9 j8 g6 l10 i7 m11 n12 f7"),
];

/// One searched position.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// The rule.
    pub rule: Rule,
    /// Board side.
    pub size: usize,
    /// Stones on the board.
    pub stones: usize,
    /// The move chosen.
    pub mv: Point,
    /// Its score.
    pub score: Option<i32>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Every position, in order.
    pub rows: Vec<BenchRow>,
    /// FNV-1a over each position's node count and move text.
    pub checksum: NodeChecksum,
}

/// Why the benchmark could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    /// The depth is outside 1..=20.
    #[error("the depth must be between 1 and 20, not {0}")]
    Depth(u32),
    /// A position could not be set up (a bug in the table above).
    #[error("benchmark position {0}: {1}")]
    Position(usize, String),
}

/// Searches every position to `depth` with a fresh engine (no clock), calling `on_row` after
/// each.
///
/// # Errors
/// [`BenchError`] for a bad depth.
pub fn run(depth: u32, mut on_row: impl FnMut(&BenchRow)) -> Result<BenchReport, BenchError> {
    if !(1..=20).contains(&depth) {
        return Err(BenchError::Depth(depth));
    }
    let mut report = BenchReport {
        rows: Vec::new(),
        checksum: NodeChecksum::new(),
    };
    for (k, (rule, size, moves)) in POSITIONS.iter().enumerate() {
        let bad = |e: String| BenchError::Position(k + 1, e);
        let mut board = Board::new(*size, *rule).map_err(|e| bad(e.to_string()))?;
        for text in moves.split_whitespace() {
            let p: Point = text
                .parse()
                .map_err(|e: gomoku::ParsePointError| bad(e.to_string()))?;
            board.play(p).map_err(|e| bad(e.to_string()))?;
        }
        let mut engine = GomokuEngine::new(EngineConfig {
            time: None,
            ..EngineConfig::default()
        });
        let started = Instant::now();
        let d = engine
            .think(&board, &Budget::depth(depth))
            .ok_or_else(|| bad("already over".into()))?;
        let row = BenchRow {
            rule: *rule,
            size: *size,
            stones: board.stone_count(),
            mv: d.mv,
            score: d.score,
            nodes: d.nodes,
            elapsed: started.elapsed(),
        };
        report.checksum.nodes(row.nodes);
        report.checksum.bytes(row.mv.to_string().as_bytes());
        on_row(&row);
        report.rows.push(row);
    }
    Ok(report)
}
