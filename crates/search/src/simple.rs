//! The two baseline agents: uniformly random, and greedy (best by a one-ply evaluation).

use std::sync::Arc;

use game::Game;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::{terminal_score, Agent, AgentError, Budget, Decision, Evaluator};

/// Plays a uniformly random legal move.
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random agent with its own seeded generator.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        RandomAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Err(AgentError::GameOver);
        }
        Ok(Decision::just(moves[self.rng.random_range(0..moves.len())]))
    }
}

/// Plays the move whose resulting position its evaluator likes best (a proven win first), ties
/// broken by its seeded generator. With the disc-difference evaluator on Othello this is "flip
/// the most discs".
pub struct GreedyAgent<G: Game> {
    eval: Arc<dyn Evaluator<G>>,
    rng: ChaCha8Rng,
}

impl<G: Game> GreedyAgent<G> {
    /// A greedy agent over `eval`.
    #[must_use]
    pub fn new(eval: Arc<dyn Evaluator<G>>, seed: u64) -> Self {
        GreedyAgent {
            eval,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Agent<G> for GreedyAgent<G> {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Err(AgentError::GameOver);
        }
        let scored: Vec<(i32, G::Move)> = moves
            .iter()
            .map(|&mv| {
                let child = pos.play_unchecked(mv);
                (
                    -terminal_score(&child).unwrap_or_else(|| self.eval.evaluate(&child)),
                    mv,
                )
            })
            .collect();
        let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
        let top: Vec<G::Move> = scored.iter().filter(|s| s.0 == best).map(|s| s.1).collect();
        let mv = top[self.rng.random_range(0..top.len())];
        Ok(Decision {
            mv,
            score: Some(best),
            pv: vec![mv],
            depth: Some(1),
            nodes: moves.len() as u64,
            scale: self.eval.scale(),
        })
    }
}
