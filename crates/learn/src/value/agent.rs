//! Minimax over a value network (`cnn-minimax`, `mlp-minimax`): alpha-beta to a fixed depth
//! whose leaves go to the network in batches through [`search::Evaluator::evaluate_batch`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use burn::tensor::Device;
use game::Game;
use search::{
    Agent, AgentError, AlphaBeta, AlphaBetaConfig, Budget, Decision, Evaluator, ScoreScale,
};

use super::net::{Orientation, ValueInput, ValueNet};

/// A value network's win probability `p` as a search score: `(2p − 1)·10,000` for the side to
/// move ([`ScoreScale::FineExpectation`]).
#[must_use]
pub fn score_of(p: f32) -> i32 {
    let p = if p.is_finite() {
        p.clamp(0.0, 1.0)
    } else {
        0.5
    };
    ((2.0 * f64::from(p) - 1.0) * 10_000.0).round() as i32
}

/// A value network as a search evaluator: one forward pass per batch. Counts the positions it
/// evaluated and the forward passes (for the leaf-speed report).
pub struct ValueEvaluator {
    net: ValueNet,
    input: ValueInput,
    orientation: Orientation,
    device: Device,
    /// Whether it asks alpha-beta for batches (`false` measures batch-1 evaluation).
    batched: bool,
    positions: AtomicU64,
    passes: AtomicU64,
}

impl ValueEvaluator {
    /// An evaluator over an inference network reading `input` of the image `orientation`
    /// names (the one the network was trained on).
    #[must_use]
    pub fn new(net: ValueNet, input: ValueInput, orientation: Orientation) -> Self {
        ValueEvaluator {
            net,
            input,
            orientation,
            device: Device::default(),
            batched: true,
            positions: AtomicU64::new(0),
            passes: AtomicU64::new(0),
        }
    }

    /// The same evaluator, asking for batches or not (alpha-beta then hands leaves over one
    /// at a time; the search and its result are the same).
    #[must_use]
    pub fn batched(mut self, batched: bool) -> Self {
        self.batched = batched;
        self
    }

    /// Positions evaluated and forward passes run so far.
    #[must_use]
    pub fn counts(&self) -> (u64, u64) {
        (
            self.positions.load(Ordering::Relaxed),
            self.passes.load(Ordering::Relaxed),
        )
    }

    /// The win probabilities of `positions` for their sides to move, in one forward pass (each
    /// position seen as the network's orientation says: a network trained on merged states
    /// gives the 8 images of a position one value).
    pub fn probabilities<G: Game>(&self, positions: &[G]) -> Vec<f32> {
        if positions.is_empty() {
            return Vec::new();
        }
        let n = G::BOARD_SIZE;
        let planes = self.input.planes();
        let mut x = Vec::with_capacity(positions.len() * planes * n * n);
        for pos in positions {
            self.orientation.encode(self.input, pos, &mut x);
        }
        self.positions
            .fetch_add(positions.len() as u64, Ordering::Relaxed);
        self.passes.fetch_add(1, Ordering::Relaxed);
        let mut p = self.net.predict(x, planes, n, &self.device);
        p.resize(positions.len(), 0.5);
        p
    }
}

impl<G: Game> Evaluator<G> for ValueEvaluator {
    fn evaluate(&self, pos: &G) -> i32 {
        self.probabilities(std::slice::from_ref(pos))
            .first()
            .map_or(0, |&p| score_of(p))
    }

    fn evaluate_batch(&self, positions: &[G]) -> Vec<i32> {
        if !self.batched {
            return positions.iter().map(|p| self.evaluate(p)).collect();
        }
        self.probabilities(positions)
            .into_iter()
            .map(score_of)
            .collect()
    }

    fn prefers_batches(&self) -> bool {
        self.batched
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale::FineExpectation
    }
}

/// Alpha-beta to a fixed depth over a value network, under its own name.
pub struct ValueMinimax<G: Game> {
    name: String,
    search: AlphaBeta<G>,
}

/// The default search depth of the value-network agents (the paper's is unstated).
pub const DEFAULT_DEPTH: u32 = 3;

impl<G: Game> ValueMinimax<G> {
    /// An agent named `name` searching `depth` plies with `eval` at the leaves.
    #[must_use]
    pub fn new(name: String, eval: Arc<ValueEvaluator>, depth: u32) -> Self {
        let eval: Arc<dyn Evaluator<G>> = eval;
        ValueMinimax {
            name,
            search: AlphaBeta::new(
                eval,
                AlphaBetaConfig {
                    depth: Some(depth.max(1)),
                    tt_bits: 16,
                    ..AlphaBetaConfig::default()
                },
            ),
        }
    }
}

impl<G: Game> Agent<G> for ValueMinimax<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.search.new_game();
    }

    fn observe(&mut self, mv: G::Move, pos: &G) {
        self.search.observe(mv, pos);
    }

    fn table_bytes(&self) -> usize {
        self.search.table_bytes()
    }

    fn select(&mut self, pos: &G, budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        self.search.select(pos, budget)
    }
}
