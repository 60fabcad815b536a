//! XOT-style match openings: random lines of a few moves from the start, kept when the engine's
//! search scores them close to even, so that matches start from varied but fair positions.

use std::collections::HashSet;
use std::sync::Arc;

use game::{Color, Game};
use othello::{Move, Othello8};
use rayon::prelude::*;

use crate::midgame::{Midgame, ProbCut};
use crate::pattern::PatternEval;
use game::hash::SplitMix;

/// What [`generate`] looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XotPlan {
    /// Openings wanted.
    pub count: usize,
    /// Moves per opening (XOT's are 8).
    pub plies: usize,
    /// Depth of the search that scores a line.
    pub depth: u32,
    /// Keep lines scored within this many 1/64 discs of even.
    pub margin: i32,
    /// The random lines come from a generator seeded with this.
    pub seed: u64,
}

/// One kept line and its score (Black's view, 1/64 discs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XotOpening {
    /// The moves from the start.
    pub moves: Vec<Move>,
    /// The search's score of the position after them, Black's view.
    pub score: i32,
}

/// Lines tried per parallel batch.
const BATCH: usize = 64;
/// A line whose 4-ply score is this many 1/64 discs beyond the margin is not searched deeper.
const PREFILTER_SLACK: i32 = 4 * 64;

/// A random line of `plies` uniformly random moves that never has to pass, or `None`.
fn random_line(rng: &mut SplitMix, plies: usize) -> Option<(Vec<Move>, Othello8)> {
    let mut pos = Othello8::new();
    let mut moves = Vec::with_capacity(plies);
    for _ in 0..plies {
        if pos.moves() == 0 {
            return None;
        }
        let legal = pos.legal_moves();
        let mv = legal[rng.below(legal.len())];
        pos = pos.play_unchecked(mv);
        moves.push(mv);
    }
    (pos.moves() != 0).then_some((moves, pos))
}

/// Draws random lines (distinct positions up to symmetry), scores each by a `plan.depth`
/// search (lines far from even after a 4-ply search are dropped first) and keeps those within
/// `plan.margin` of even, in the order drawn, until `plan.count` are kept or `max_tries` lines
/// were drawn. The result depends only on the plan, not on the number of threads. `done` gets
/// the number of openings kept so far after each batch.
#[must_use]
pub fn generate(
    eval: &Arc<PatternEval>,
    probcut: Option<(Arc<ProbCut>, f64)>,
    plan: XotPlan,
    max_tries: usize,
    done: &(dyn Fn(usize) + Sync),
) -> Vec<XotOpening> {
    let mut rng = SplitMix(plan.seed ^ 0x0000_0000_0578_07e1);
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let mut tries = 0;
    while kept.len() < plan.count && tries < max_tries {
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH && tries < max_tries {
            tries += 1;
            if let Some((moves, pos)) = random_line(&mut rng, plan.plies) {
                if seen.insert(crate::book::canonical(pos.player(), pos.opponent()).0) {
                    batch.push((moves, pos));
                }
            }
        }
        let scored: Vec<Option<XotOpening>> = batch
            .into_par_iter()
            .map(|(moves, pos)| {
                let mut search = Midgame::new(eval.clone(), 16).with_probcut(probcut.clone());
                let black = |s: i32| {
                    if pos.side_to_move() == Color::Black {
                        s
                    } else {
                        -s
                    }
                };
                let quick = search.search(&pos, 4.min(plan.depth), None, None).score;
                if quick.abs() > plan.margin + PREFILTER_SLACK {
                    return None;
                }
                let deep = if plan.depth <= 4 {
                    quick
                } else {
                    search.search(&pos, plan.depth, None, None).score
                };
                let score = black(deep);
                (score.abs() <= plan.margin).then_some(XotOpening { moves, score })
            })
            .collect();
        kept.extend(scored.into_iter().flatten());
        kept.truncate(plan.count);
        done(kept.len());
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_legal_distinct_and_near_even() {
        let plan = XotPlan {
            count: 6,
            plies: 8,
            depth: 4,
            margin: 64,
            seed: 3,
        };
        let eval = crate::pattern::bundled();
        let list = generate(&eval, None, plan, 10_000, &|_| {});
        assert_eq!(list.len(), 6);
        let mut keys = HashSet::new();
        for o in &list {
            assert_eq!(o.moves.len(), 8);
            assert!(o.score.abs() <= 64, "{}", o.score);
            let mut pos = Othello8::new();
            for &mv in &o.moves {
                pos = pos.play(mv).expect("legal");
            }
            // The score is the search's, re-derived from the position.
            let mut search = Midgame::new(eval.clone(), 16);
            let s = search.search(&pos, 4, None, None).score;
            let black = if pos.side_to_move() == Color::Black {
                s
            } else {
                -s
            };
            assert_eq!(black, o.score);
            assert!(keys.insert(crate::book::canonical(pos.player(), pos.opponent()).0));
        }
        // Same plan, same openings.
        assert_eq!(generate(&eval, None, plan, 10_000, &|_| {}), list);
    }
}
