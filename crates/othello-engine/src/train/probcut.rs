//! The Multi-ProbCut fit: shallow-deep search pairs and their per-depth, per-stage regressions.

use othello::Othello8;
use rayon::prelude::*;

/// One Multi-ProbCut observation: at `depth` plies from a position with `empties` empties,
/// the shallow search's score and the deep one's (evaluation units).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbCutPair {
    /// The deep search's depth.
    pub depth: u32,
    /// Empty squares.
    pub empties: u32,
    /// Score of the shallow search ([`crate::midgame::shallow_depth`]).
    pub shallow: i32,
    /// Score of the deep search.
    pub deep: i32,
}

/// Searches each position full-width to `max_depth` on all cores and returns the
/// (shallow, deep) pairs of every depth from 3. `done` is called after each position.
#[must_use]
pub fn probcut_pairs(
    eval: &std::sync::Arc<crate::pattern::PatternEval>,
    correction: Option<&std::sync::Arc<crate::correction::CorrectionNet>>,
    positions: &[Othello8],
    max_depth: u32,
    done: &(dyn Fn() + Sync),
) -> Vec<ProbCutPair> {
    use crate::midgame::{shallow_depth, Midgame, PROBCUT_MIN_DEPTH};
    let parts: Vec<Vec<ProbCutPair>> = positions
        .par_iter()
        .map(|pos| {
            let mut search = Midgame::new(eval.clone(), 18).with_correction(correction.cloned());
            let scores = search.iteration_scores(pos, max_depth);
            let empties = pos.empty().count_ones();
            let mut out = Vec::new();
            for depth in PROBCUT_MIN_DEPTH..=scores.len() as u32 {
                // Only searches that stop short of the end: exact ones need no prediction.
                if depth >= empties {
                    break;
                }
                let s = shallow_depth(depth);
                let shallow = if s == 0 {
                    search.evaluate(pos)
                } else {
                    scores[s as usize - 1]
                };
                out.push(ProbCutPair {
                    depth,
                    empties,
                    shallow,
                    deep: scores[depth as usize - 1],
                });
            }
            done();
            out
        })
        .collect();
    parts.concat()
}

/// Least-squares `deep ≈ a · shallow + b` per depth and per 10 empties, with the residuals'
/// standard deviation; groups with fewer than 30 pairs are left out.
#[must_use]
pub fn fit_probcut(pairs: &[ProbCutPair]) -> crate::midgame::ProbCut {
    use std::collections::BTreeMap;
    let mut groups: BTreeMap<(u32, u32), Vec<(f64, f64)>> = BTreeMap::new();
    for p in pairs {
        groups
            .entry((p.depth, p.empties / 10))
            .or_default()
            .push((f64::from(p.shallow), f64::from(p.deep)));
    }
    let mut rows = Vec::new();
    for ((depth, bucket), xy) in groups {
        if xy.len() < 30 {
            continue;
        }
        let n = xy.len() as f64;
        let mx = xy.iter().map(|p| p.0).sum::<f64>() / n;
        let my = xy.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = xy.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = xy.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let a = if sxx > 0.0 { sxy / sxx } else { 1.0 };
        let b = my - a * mx;
        let var = xy.iter().map(|p| (p.1 - a * p.0 - b).powi(2)).sum::<f64>() / (n - 2.0).max(1.0);
        rows.push((
            depth,
            bucket,
            crate::midgame::ProbCutParams {
                a: a as f32,
                b: b as f32,
                sigma: var.sqrt() as f32,
                samples: xy.len() as u32,
            },
        ));
    }
    crate::midgame::ProbCut { rows }
}
