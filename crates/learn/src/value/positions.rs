//! The positions the paper's protocol plays from: evaluation positions (moves 10–20 of the
//! records, seen at least 10 times, record win rate within 0.05 of 50%) and the self-play
//! starts (the other record positions of moves 10–20, so training never starts from a
//! position the evaluation plays).

use othello::dataset::Record;
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// Discs on the board after move 10 (4 + 10) and after move 20.
pub const DISCS: std::ops::RangeInclusive<u32> = 14..=24;
/// The fewest occurrences of an evaluation position.
pub const MIN_COUNT: u32 = 10;
/// The largest |V − 0.5| of an evaluation position.
pub const MAX_IMBALANCE: f64 = 0.05;

fn discs(r: &Record) -> u32 {
    (r.key.black | r.key.white).count_ones()
}

/// Whether a state is an evaluation position of the protocol.
#[must_use]
pub fn is_balanced(r: &Record) -> bool {
    DISCS.contains(&discs(r))
        && r.count >= MIN_COUNT
        && (r.value() - 0.5).abs() <= MAX_IMBALANCE + 1e-12
}

/// Up to `count` distinct evaluation positions from `records`, a seeded random sample (all of
/// them when there are fewer), in a fixed order; finished or pass-forced positions left out.
#[must_use]
pub fn evaluation_positions(records: &[Record], count: usize, seed: u64) -> Vec<Othello8> {
    let mut pool: Vec<&Record> = records.iter().filter(|r| is_balanced(r)).collect();
    pool.sort_by_key(|r| (r.key.black, r.key.white, r.key.side == game::Color::White));
    pool.dedup_by_key(|r| (r.key.black, r.key.white, r.key.side == game::Color::White));
    pool.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    pool.into_iter()
        .filter_map(|r| r.key.position().ok())
        .filter(|p| p.moves() != 0)
        .take(count)
        .collect()
}

/// The self-play starts: record positions of moves 10–20 that are not evaluation positions
/// (and have a move to play), each once, in a fixed order. A state balanced in any record of
/// `records` is never a start, even when `records` repeat it.
#[must_use]
pub fn self_play_starts(records: &[Record]) -> Vec<Othello8> {
    let key = |r: &Record| (r.key.black, r.key.white, r.key.side == game::Color::White);
    let balanced: std::collections::HashSet<_> =
        records.iter().filter(|r| is_balanced(r)).map(key).collect();
    let mut starts: Vec<&Record> = records
        .iter()
        .filter(|r| DISCS.contains(&discs(r)) && !balanced.contains(&key(r)))
        .collect();
    starts.sort_by_key(|r| key(r));
    starts.dedup_by_key(|r| key(r));
    starts
        .into_iter()
        .filter_map(|r| r.key.position().ok())
        .filter(|p| p.moves() != 0)
        .collect()
}
