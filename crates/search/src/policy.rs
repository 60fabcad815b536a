//! [`PolicyValue`]: move priors over the action space plus a value, for a batch of positions
//! (OpenSpiel's `Evaluate` + `Prior` in one call) — how PUCT search and self-play meet a
//! network without this crate knowing any NN library.

use game::Game;

/// What a policy-value evaluator says of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorsValue {
    /// One prior per action `0..NUM_ACTIONS`: zero on illegal actions, summing to 1 over the
    /// legal ones.
    pub priors: Vec<f32>,
    /// The expected result for the side to move, in `[-1, 1]` (1: a win).
    pub value: f32,
}

/// Priors and values for batches of positions (a network runs one forward pass per call).
pub trait PolicyValue<G: Game>: Send + Sync {
    /// One [`PriorsValue`] per position, in order. Finished positions get their result as the
    /// value and no priors to speak of (all zero).
    fn policy_value(&self, positions: &[G]) -> Vec<PriorsValue>;
}

/// The network-free baseline: uniform priors over the legal moves, and the value of a finished
/// game (0 for one still going).
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformPolicy;

impl<G: Game> PolicyValue<G> for UniformPolicy {
    fn policy_value(&self, positions: &[G]) -> Vec<PriorsValue> {
        positions
            .iter()
            .map(|pos| {
                let mut priors = vec![0.0; G::NUM_ACTIONS];
                let moves = pos.legal_moves();
                for &mv in &moves {
                    if let Some(p) = priors.get_mut(G::action_index(mv)) {
                        *p = 1.0 / moves.len() as f32;
                    }
                }
                let value = pos
                    .outcome()
                    .map_or(0.0, |o| o.score_for(pos.side_to_move()).signum() as f32);
                PriorsValue { priors, value }
            })
            .collect()
    }
}

/// Priors from raw scores (logits) over the action space: a softmax over the legal actions
/// only, zero elsewhere. Non-finite logits count as the lowest.
#[must_use]
pub fn masked_softmax(logits: &[f32], legal: &[usize]) -> Vec<f32> {
    let mut priors = vec![0.0f32; logits.len()];
    let finite = |a: usize| logits.get(a).copied().filter(|v| v.is_finite());
    let max = legal
        .iter()
        .filter_map(|&a| finite(a))
        .fold(f32::NEG_INFINITY, f32::max);
    if legal.is_empty() {
        return priors;
    }
    let mut sum = 0.0;
    for &a in legal {
        let e = finite(a).map_or(0.0, |v| (v - max).exp());
        if let Some(p) = priors.get_mut(a) {
            *p = e;
            sum += e;
        }
    }
    for &a in legal {
        if let Some(p) = priors.get_mut(a) {
            *p = if sum > 0.0 {
                *p / sum
            } else {
                1.0 / legal.len() as f32
            };
        }
    }
    priors
}

#[cfg(test)]
mod tests {
    use super::masked_softmax;

    #[test]
    fn softmax_over_legal_actions_only() {
        let p = masked_softmax(&[1.0, 5.0, 1.0, f32::NAN], &[0, 2, 3]);
        assert_eq!(p[1], 0.0);
        assert!((p[0] - p[2]).abs() < 1e-6);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(p[3] < p[0]);
        assert_eq!(masked_softmax(&[1.0, 2.0], &[]), vec![0.0, 0.0]);
    }
}
