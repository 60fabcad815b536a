//! Tabular Q-learning for boards small enough to tabulate (4x4 Othello): ε-greedy self-play,
//! one table of action values from the side to move's point of view (negamax form), a decaying
//! learning rate, and a measure of how often the greedy move is optimal.

use std::collections::HashMap;
use std::hash::Hash;

use game::Game;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::{Agent, AgentError, Budget, Decision};

/// Settings of a training run.
#[derive(Clone, Debug, PartialEq)]
pub struct QTableConfig {
    /// Self-play games.
    pub episodes: usize,
    /// Exploration at the first and last episode (linear in between).
    pub epsilon: (f64, f64),
    /// Learning rate at the first and last episode (geometric in between).
    pub alpha: (f64, f64),
    /// Discount per ply (1: the result counts fully however far away).
    pub gamma: f64,
    /// Seed of the exploration.
    pub seed: u64,
}

impl Default for QTableConfig {
    fn default() -> Self {
        QTableConfig {
            episodes: 2_000_000,
            epsilon: (1.0, 0.05),
            alpha: (0.5, 0.02),
            gamma: 1.0,
            seed: 1,
        }
    }
}

impl QTableConfig {
    /// Exploration rate at `episode`.
    #[must_use]
    pub fn epsilon_at(&self, episode: usize) -> f64 {
        let t = episode as f64 / self.episodes.max(1) as f64;
        self.epsilon.0 + (self.epsilon.1 - self.epsilon.0) * t.min(1.0)
    }

    /// Learning rate at `episode`.
    #[must_use]
    pub fn alpha_at(&self, episode: usize) -> f64 {
        let t = (episode as f64 / self.episodes.max(1) as f64).min(1.0);
        let (a0, a1) = self.alpha;
        if a0 > 0.0 && a1 > 0.0 {
            a0 * (a1 / a0).powf(t)
        } else {
            a0 + (a1 - a0) * t
        }
    }
}

/// Where training stands, for progress bars and logs.
#[derive(Clone, Debug, PartialEq)]
pub struct QTableProgress {
    /// Episodes played.
    pub episode: usize,
    /// Current exploration rate.
    pub epsilon: f64,
    /// Current learning rate.
    pub alpha: f64,
    /// Positions in the table.
    pub states: usize,
    /// Mean absolute TD error over the last episode.
    pub td_error: f64,
}

/// Action values per position, from the side to move's point of view: +1 a win, −1 a loss.
pub struct QTable<G: Game, K> {
    key: fn(&G) -> K,
    values: HashMap<K, Vec<f32>>,
    visits: HashMap<K, Vec<u32>>,
}

impl<G: Game, K: Hash + Eq + Clone> QTable<G, K> {
    /// An empty table keyed by `key` (for example `Othello4::base3_key`).
    #[must_use]
    pub fn new(key: fn(&G) -> K) -> Self {
        QTable {
            key,
            values: HashMap::new(),
            visits: HashMap::new(),
        }
    }

    /// Positions stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether nothing is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of playing `mv` in `pos` (0 when never updated).
    #[must_use]
    pub fn q(&self, pos: &G, mv: G::Move) -> f32 {
        self.values
            .get(&(self.key)(pos))
            .and_then(|row| row.get(G::action_index(mv)).copied())
            .unwrap_or(0.0)
    }

    /// The legal move of highest value (the first in action order among ties), `None` when the
    /// game is over.
    #[must_use]
    pub fn greedy(&self, pos: &G) -> Option<G::Move> {
        let row = self.values.get(&(self.key)(pos));
        let mut best: Option<(f32, G::Move)> = None;
        for mv in pos.legal_moves() {
            let q = row
                .and_then(|r| r.get(G::action_index(mv)).copied())
                .unwrap_or(0.0);
            if best.is_none_or(|(b, _)| q > b) {
                best = Some((q, mv));
            }
        }
        best.map(|(_, mv)| mv)
    }

    /// The best value of `pos` for its side to move (the result when the game is over, from
    /// that side's point of view).
    fn state_value(&self, pos: &G) -> f32 {
        if let Some(outcome) = pos.outcome() {
            return outcome.score_for(pos.side_to_move()).signum() as f32;
        }
        let row = self.values.get(&(self.key)(pos));
        pos.legal_moves()
            .into_iter()
            .map(|mv| {
                row.and_then(|r| r.get(G::action_index(mv)).copied())
                    .unwrap_or(0.0)
            })
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// Trains by ε-greedy self-play from the start, calling `on_episode` after each game.
    ///
    /// After each game its moves are updated from the last to the first, so the result reaches
    /// the opening in one game: each move's value moves toward the result when the game ended
    /// there, else toward the negated best value of the next position (the opponent's point of
    /// view; a pass is a move, so sides alternate every ply). The step size is the larger of
    /// the schedule's learning rate and `1 / visits` of that move, so rare moves learn fast.
    pub fn train(
        &mut self,
        config: &QTableConfig,
        mut on_episode: impl FnMut(&Self, &QTableProgress),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let mut trajectory: Vec<(G, G::Move)> = Vec::new();
        for episode in 0..config.episodes {
            let epsilon = config.epsilon_at(episode);
            let alpha = config.alpha_at(episode) as f32;
            let gamma = config.gamma as f32;
            let mut pos = G::start();
            trajectory.clear();
            while !pos.is_over() {
                let legal = pos.legal_moves();
                let mv = if rng.random::<f64>() < epsilon {
                    legal[rng.random_range(0..legal.len())]
                } else {
                    self.greedy(&pos).unwrap_or(legal[0])
                };
                let next = pos.play_unchecked(mv);
                trajectory.push((pos, mv));
                pos = next;
            }
            let (mut error_sum, mut moves) = (0.0f64, 0usize);
            for k in (0..trajectory.len()).rev() {
                let (state, mv) = trajectory[k].clone();
                let next = state.play_unchecked(mv);
                let target = if next.is_over() {
                    next.outcome()
                        .map_or(0.0, |o| o.score_for(state.side_to_move()).signum() as f32)
                } else {
                    -gamma * self.state_value(&next)
                };
                let key = (self.key)(&state);
                let a = G::action_index(mv);
                let visits = self
                    .visits
                    .entry(key.clone())
                    .or_insert_with(|| vec![0; G::NUM_ACTIONS]);
                let n = visits.get_mut(a).map_or(1, |v| {
                    *v = v.saturating_add(1);
                    *v
                });
                let step = alpha.max(1.0 / n as f32);
                let row = self
                    .values
                    .entry(key)
                    .or_insert_with(|| vec![0.0; G::NUM_ACTIONS]);
                if let Some(q) = row.get_mut(a) {
                    let error = target - *q;
                    *q += step * error;
                    error_sum += f64::from(error.abs());
                    moves += 1;
                }
            }
            on_episode(
                self,
                &QTableProgress {
                    episode: episode + 1,
                    epsilon,
                    alpha: f64::from(alpha),
                    states: self.values.len(),
                    td_error: error_sum / moves.max(1) as f64,
                },
            );
        }
    }

    /// Over the positions of `positions` where the choice matters (some legal move is optimal
    /// and some is not, by `best`: the optimal moves of an exact solution), the fraction where
    /// the greedy move is optimal. Positions where every move is equally good (or the only one)
    /// say nothing about learning and are left out.
    pub fn optimal_fraction(&self, positions: &[G], best: impl Fn(&G) -> Vec<G::Move>) -> f64 {
        let (mut total, mut good) = (0usize, 0usize);
        for pos in positions {
            let legal = pos.legal_moves().len();
            let optimal = best(pos);
            if optimal.is_empty() || optimal.len() >= legal {
                continue;
            }
            total += 1;
            if self.greedy(pos).is_some_and(|mv| optimal.contains(&mv)) {
                good += 1;
            }
        }
        good as f64 / total.max(1) as f64
    }
}

/// Plays the greedy move of a trained table (`q-table` agent); positions the table never saw
/// get the first legal move.
pub struct QTableAgent<G: Game, K> {
    table: std::sync::Arc<QTable<G, K>>,
}

impl<G: Game, K> QTableAgent<G, K> {
    /// The agent of a trained table.
    #[must_use]
    pub fn new(table: std::sync::Arc<QTable<G, K>>) -> Self {
        QTableAgent { table }
    }
}

impl<G: Game, K: Hash + Eq + Clone + Send + Sync> Agent<G> for QTableAgent<G, K> {
    fn name(&self) -> String {
        "q-table".into()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        let mv = self.table.greedy(pos).ok_or(AgentError::GameOver)?;
        Ok(Decision {
            score: Some((self.table.q(pos, mv) * 100.0).round() as i32),
            // Q is the expected result (±1 for a sure win or loss).
            scale: search::ScoreScale::Expectation,
            ..Decision::just(mv)
        })
    }
}
