//! A stronger-than-paper self-play for the paper's value network (`cnn-iteration`, an
//! algorithm of its own, not a reading of the paper): each iteration the best network so far
//! plays hundreds of games against itself from balanced XOT openings (with random moves early
//! on), every decision is labelled with a mix of the game's result and the search's value
//! (TD-leaf style), the positions go into a replay buffer, θ takes minibatch Adam steps on it,
//! and θ replaces the best network only when it beats it in a gate.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arena::{ColourWdl, VersusSettings};
use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use game::{Color, Game, Symmetry};
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::agent::{ValueEvaluator, ValueMinimax};
use super::net::{card_arch, Orientation, ValueArch, ValueInput, ValueNet, CNN_ALGO};
use super::policy_iteration::{load_base, load_net_state, probe_net, write_probe, Probe};
use super::supervised::{
    adam, counter, evaluate_value_net, load_training, save_training, ValueData,
};
use crate::checkpoint::{load_weights, weights_bytes, Card, ModelError};
use crate::run::{AgentFactory, Cell, EpisodeRow, Export, RunError, Trainer};
use othello::dataset::{Part, Split, Symmetries};
use search::{Agent, Budget, WIN};

/// The settings of a `cnn-iteration` run (`config.json`'s `value_iteration`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueIterationConfig {
    /// The supervised model θ starts from (a `cnn-minimax` model file).
    pub from: PathBuf,
    /// Its sha256 (checked when the run resumes).
    pub from_sha256: String,
    /// The image of a position the networks read (the supervised model's).
    pub orientation: Orientation,
    /// The dataset folder whose merged frequency-split test states the probe reads.
    pub data: PathBuf,
    /// Self-play games per iteration.
    pub games: usize,
    /// Minimax depth of the self-play and gate games.
    pub depth: u32,
    /// The chance of a uniformly random move at each of the first `explore_plies` plies after
    /// the opening (the position before it still counts, with the same λ·z + (1 − λ)·v target:
    /// v is the search's value there, whichever move was then played).
    pub epsilon: f64,
    /// Plies after the opening that may be random.
    pub explore_plies: usize,
    /// The result's weight in a target: λ·z + (1 − λ)·v, v the search's value of the position.
    pub lambda: f64,
    /// Positions the replay buffer keeps (the oldest go first).
    pub buffer: usize,
    /// Positions per minibatch.
    pub batch: usize,
    /// Adam steps per iteration.
    pub steps: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Adam's β1.
    pub beta1: f32,
    /// Adam's β2.
    pub beta2: f32,
    /// Each sampled position shown as one of its 8 images at random (a network that reads
    /// canonical images sees one image whatever the draw: it is symmetric by construction).
    pub augment: bool,
    /// Gate games per iteration (an even number: pairs from XOT openings, colours swapped).
    pub gate_games: usize,
    /// The share of the gate's points θ needs to replace the best network.
    pub gate_threshold: f64,
    /// Held-out states each checkpoint's probe measures (0: no probe).
    pub probe_states: usize,
    /// Seed of the openings, the exploration and the minibatches.
    pub seed: u64,
}

impl ValueIterationConfig {
    /// The preset from model `from` (its sha256, read in `orientation`), probing with states
    /// of `data`: 256 games an iteration at depth 2, random moves at 10% of the first 10 plies,
    /// targets ½ result + ½ search value, a buffer of 100,000 positions, 64 Adam steps of 512
    /// at lr 0.0001, a gate of 64 games at 55%.
    #[must_use]
    pub fn preset(
        from: PathBuf,
        from_sha256: String,
        orientation: Orientation,
        data: PathBuf,
    ) -> Self {
        ValueIterationConfig {
            from,
            from_sha256,
            orientation,
            data,
            games: 256,
            depth: 2,
            epsilon: 0.1,
            explore_plies: 10,
            lambda: 0.5,
            buffer: 100_000,
            batch: 512,
            steps: 64,
            learning_rate: 1e-4,
            beta1: 0.9,
            beta2: 0.99,
            augment: true,
            gate_games: 64,
            gate_threshold: 0.55,
            probe_states: super::policy_iteration::PROBE_STATES,
            seed: 1,
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the bad setting.
    pub fn validate(&self) -> Result<(), String> {
        let within = |name: &str, v: usize, lo: usize, hi: usize| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} {v} ({lo}..={hi})"))
            }
        };
        within("games", self.games, 1, 100_000)?;
        within("depth", self.depth as usize, 1, 8)?;
        within("explore plies", self.explore_plies, 0, 60)?;
        within("buffer", self.buffer, 1, 10_000_000)?;
        within("batch", self.batch, 1, 65_536)?;
        within("steps", self.steps, 0, 1_000_000)?;
        within("gate games", self.gate_games, 2, 10_000)?;
        if self.gate_games % 2 == 1 {
            return Err(format!(
                "gate games {} (even: each opening is played twice, colours swapped)",
                self.gate_games
            ));
        }
        within("probe states", self.probe_states, 0, 1_000_000)?;
        for (name, v) in [
            ("epsilon", self.epsilon),
            ("lambda", self.lambda),
            ("gate threshold", self.gate_threshold),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{name} {v} (0..=1)"));
            }
        }
        if !(self.learning_rate > 0.0 && self.learning_rate < 1.0) {
            return Err(format!("learning rate {} (0..1)", self.learning_rate));
        }
        for (name, b) in [("beta1", self.beta1), ("beta2", self.beta2)] {
            if !(0.0..1.0).contains(&b) {
                return Err(format!("{name} {b} ([0, 1))"));
            }
        }
        Ok(())
    }
}

/// One labelled position of the buffer: the position and its target for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    pos: Othello8,
    target: f32,
}

/// What one iteration's self-play gave.
struct Played {
    samples: Vec<Sample>,
    /// Black wins, draws, White wins.
    results: [usize; 3],
}

/// The search's value of a position for its side to move, as a win probability: a proven
/// result is 1 or 0, else the evaluator's `(2p − 1)·10,000` read back.
fn search_value(score: Option<i32>) -> f32 {
    match score {
        Some(s) if s >= WIN => 1.0,
        Some(s) if s <= -WIN => 0.0,
        Some(s) => (f64::from(s) / 20_000.0 + 0.5).clamp(0.0, 1.0) as f32,
        None => 0.5,
    }
}

/// The stronger-than-paper self-play trainer.
pub struct ValueIterationTrainer {
    config: ValueIterationConfig,
    arch: ValueArch,
    input: ValueInput,
    base: Card,
    net: ValueNet,
    /// The best network so far: it plays the self-play games.
    best: ValueNet,
    optim: ModuleOptimizer,
    device: Device,
    openings: Vec<Othello8>,
    buffer: VecDeque<Sample>,
    probe: Option<ValueData>,
    iteration: usize,
    steps: u64,
    promotions: u64,
}

/// The file of a checkpoint that holds the replay buffer.
const BUFFER_FILE: &str = "buffer.bin";
/// The file of a checkpoint that holds the best network.
const BEST_FILE: &str = "best.bpk";

impl ValueIterationTrainer {
    /// θ and the best network from the model the settings name.
    ///
    /// # Errors
    /// [`RunError`] for bad settings, a model that is not a CNN value model of 8x8 Othello or
    /// has another sha256, or probe states that cannot be read.
    pub fn new(config: ValueIterationConfig) -> Result<Self, RunError> {
        config.validate().map_err(RunError::Settings)?;
        let (model, mut net, bytes) = load_base(&config.from, &config.from_sha256)?;
        let device = Device::default().autodiff();
        load_weights(&mut net, bytes)?;
        let positions = |list: Result<Option<Vec<arena::Opening<Othello8>>>, _>| -> Vec<Othello8> {
            list.ok()
                .flatten()
                .unwrap_or_default()
                .iter()
                .map(|o| *o.position())
                .collect()
        };
        let openings = positions(arena::xot_openings::<Othello8>());
        if openings.is_empty() {
            return Err(RunError::Settings(
                "the bundled 8x8 Othello XOT openings are missing".into(),
            ));
        }
        let probe = match config.probe_states {
            0 => None,
            k => Some(ValueData::load(
                &config.data.join("merged-frequency-test.bin"),
                Symmetries::Merged,
                Split::Frequency(Part::Test),
                Some(k),
                config.seed ^ 0x7072_6f62_6500_0000,
            )?),
        };
        Ok(ValueIterationTrainer {
            arch: model.arch,
            input: model.input,
            base: model.card,
            best: model.net,
            net,
            optim: adam(config.beta1, config.beta2),
            config,
            device,
            openings,
            buffer: VecDeque::new(),
            probe,
            iteration: 0,
            steps: 0,
            promotions: 0,
        })
    }

    /// The network θ now, for inference.
    #[must_use]
    pub fn inference_net(&self) -> ValueNet {
        self.net.valid()
    }

    /// The seeded generator of `stream` (a purpose) and `index` in this iteration.
    fn rng(&self, stream: u64, index: usize) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(
            self.config.seed
                ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
                ^ ((self.iteration * 100_003 + index) as u64 + 1)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15),
        )
    }

    fn agent(&self, net: ValueNet) -> ValueMinimax<Othello8> {
        ValueMinimax::new(
            "cnn-minimax".into(),
            Arc::new(ValueEvaluator::new(
                net,
                self.input,
                self.config.orientation,
            )),
            self.config.depth,
        )
    }

    /// One self-play game of the best network from XOT opening `g`'s draw, its decisions
    /// labelled, and its result for Black (1, 0, −1).
    fn self_play_game(&self, g: usize) -> Result<(Vec<Sample>, i32), RunError> {
        let mut rng = self.rng(1, g);
        let mut pos = self.openings[rng.random_range(0..self.openings.len())];
        let mut agent = self.agent(self.best.clone());
        agent.new_game();
        let budget = Budget::default();
        let mut decisions: Vec<(Othello8, f32)> = Vec::new();
        let mut ply = 0;
        while pos.outcome().is_none() {
            if pos.must_pass() {
                pos = pos.play_unchecked(pos.legal_moves()[0]);
                continue;
            }
            let d = agent
                .select(&pos, &budget)
                .map_err(|e| RunError::Settings(format!("self-play move: {e}")))?;
            decisions.push((pos, search_value(d.score)));
            let moves = pos.legal_moves();
            let mv = if ply < self.config.explore_plies && rng.random_bool(self.config.epsilon) {
                moves[rng.random_range(0..moves.len())]
            } else {
                d.mv
            };
            pos = pos.play(mv).map_err(|e| {
                RunError::Settings(format!("self-play played an illegal move: {e}"))
            })?;
            ply += 1;
        }
        let outcome = pos
            .outcome()
            .ok_or_else(|| RunError::Settings("a self-play game did not end".into()))?;
        let lambda = self.config.lambda as f32;
        let samples = decisions
            .into_iter()
            .map(|(p, v)| {
                let z = match outcome.score_for(p.side_to_move()).signum() {
                    1 => 1.0,
                    -1 => 0.0,
                    _ => 0.5,
                };
                Sample {
                    pos: p,
                    target: lambda * z + (1.0 - lambda) * v,
                }
            })
            .collect();
        Ok((samples, outcome.score_for(Color::Black).signum()))
    }

    /// The iteration's self-play games, in parallel, in game order.
    fn self_play(&self) -> Result<Played, RunError> {
        let games: Vec<Result<(Vec<Sample>, i32), RunError>> = (0..self.config.games)
            .into_par_iter()
            .map(|g| self.self_play_game(g))
            .collect();
        let mut played = Played {
            samples: Vec::new(),
            results: [0; 3],
        };
        for game in games {
            let (samples, black) = game?;
            played.samples.extend(samples);
            played.results[match black {
                1 => 0,
                0 => 1,
                _ => 2,
            }] += 1;
        }
        Ok(played)
    }

    /// `steps` minibatch Adam steps on the buffer; the mean minibatch loss.
    fn train(&mut self) -> f64 {
        if self.buffer.is_empty() || self.config.steps == 0 {
            return 0.0;
        }
        let mut rng = self.rng(2, 0);
        let planes = self.input.planes();
        let mut total = 0.0;
        for _ in 0..self.config.steps {
            let rows = self.config.batch.min(self.buffer.len());
            let mut x = Vec::with_capacity(rows * planes * 64);
            let mut y = Vec::with_capacity(rows);
            for _ in 0..rows {
                let s = self.buffer[rng.random_range(0..self.buffer.len())];
                let pos = if self.config.augment {
                    s.pos
                        .transform(Symmetry::ALL[rng.random_range(0..Symmetry::ALL.len())])
                } else {
                    s.pos
                };
                self.config.orientation.encode(self.input, &pos, &mut x);
                y.push(s.target);
            }
            let input =
                Tensor::<4>::from_data(TensorData::new(x, [rows, planes, 8, 8]), &self.device);
            let target = Tensor::<1>::from_data(TensorData::new(y, [rows]), &self.device);
            let loss = (self.net.forward(input) - target).powi_scalar(2).mean();
            total += f64::from(loss.clone().into_scalar::<f32>());
            let grads = GradientsParams::from_grads(loss.backward(), &self.net);
            let net = std::mem::replace(
                &mut self.net,
                ValueNet::new(&self.arch, planes, 8, 0, &Device::default()),
            );
            self.net = self.optim.step(self.config.learning_rate, net, grads);
            self.steps += 1;
        }
        total / self.config.steps as f64
    }

    /// The gate: θ plays the best network from XOT openings (each drawn opening twice,
    /// colours swapped), the lines the self-play starts from rather than the arena's balanced
    /// list (the two lists share a few positions); θ's share of the points, and whether it
    /// replaced the best.
    fn gate(&mut self) -> Result<(f64, bool), RunError> {
        let pairs = self.config.gate_games / 2;
        let theta = self.inference_net();
        let results: Vec<Result<f64, RunError>> = (0..pairs * 2)
            .into_par_iter()
            .map(|k| {
                let mut rng = self.rng(3, k / 2);
                let start = self.openings[rng.random_range(0..self.openings.len())];
                let learner = if k % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                let mut me = self.agent(theta.clone());
                let mut them = self.agent(self.best.clone());
                let budget = Budget::default();
                let mut pos = start;
                while pos.outcome().is_none() {
                    let mover = if pos.side_to_move() == learner {
                        &mut me
                    } else {
                        &mut them
                    };
                    let d = mover
                        .select(&pos, &budget)
                        .map_err(|e| RunError::Settings(format!("gate move: {e}")))?;
                    pos = pos.play(d.mv).map_err(|e| {
                        RunError::Settings(format!("gate played an illegal move: {e}"))
                    })?;
                }
                let outcome = pos
                    .outcome()
                    .ok_or_else(|| RunError::Settings("a gate game did not end".into()))?;
                Ok(match outcome.score_for(learner).signum() {
                    1 => 1.0,
                    0 => 0.5,
                    _ => 0.0,
                })
            })
            .collect();
        let mut points = 0.0;
        for r in results {
            points += r?;
        }
        let share = points / (pairs * 2) as f64;
        let passed = share >= self.config.gate_threshold;
        if passed {
            self.best = theta;
            self.promotions += 1;
        }
        Ok((share, passed))
    }

    fn card(&self, last_eval: &serde_json::Value) -> Card {
        let mut config = serde_json::to_value(&self.config).unwrap_or_default();
        config["trainer"] = serde_json::json!("cnn-iteration");
        config["base_episodes"] = serde_json::json!(self.base.episodes);
        Card {
            format: String::new(),
            algo: CNN_ALGO.into(),
            game: Othello8::ID.into(),
            board_size: 8,
            arch: Some(card_arch(&self.arch, self.input, self.config.orientation)),
            config,
            episodes: self.iteration,
            train_steps: self.base.train_steps + self.steps,
            weights: String::new(),
            sha256: String::new(),
            bytes: 0,
            last_eval: last_eval.clone(),
        }
    }

    /// The probe of the best network now (`None` without probe states).
    #[must_use]
    pub fn probe(&self) -> Option<Probe> {
        let data = self.probe.as_ref()?;
        Some(probe_net(
            &self.best,
            (self.input, self.config.orientation),
            data,
            self.iteration,
        ))
    }
}

/// The buffer as bytes: per sample Black's and White's discs (little-endian u64 each), the
/// side to move (0 Black, 1 White) and the target (f32).
fn buffer_bytes(buffer: &VecDeque<Sample>) -> Vec<u8> {
    let mut out = Vec::with_capacity(buffer.len() * 21);
    for s in buffer {
        let (black, white) = (s.pos.discs(Color::Black), s.pos.discs(Color::White));
        out.extend_from_slice(&black.to_le_bytes());
        out.extend_from_slice(&white.to_le_bytes());
        out.push(u8::from(s.pos.side_to_move() == Color::White));
        out.extend_from_slice(&s.target.to_le_bytes());
    }
    out
}

/// The buffer back from [`buffer_bytes`].
fn buffer_from(bytes: &[u8], path: &Path) -> Result<VecDeque<Sample>, RunError> {
    let bad = |why: &str| {
        RunError::Model(ModelError::State {
            path: path.to_path_buf(),
            why: why.into(),
        })
    };
    if !bytes.len().is_multiple_of(21) {
        return Err(bad("not a whole number of samples"));
    }
    bytes
        .chunks_exact(21)
        .map(|c| {
            let u =
                |r: std::ops::Range<usize>| u64::from_le_bytes(c[r].try_into().unwrap_or([0; 8]));
            let side = match c[16] {
                0 => Color::Black,
                1 => Color::White,
                _ => return Err(bad("a side that is neither colour")),
            };
            let target = f32::from_le_bytes([c[17], c[18], c[19], c[20]]);
            let pos = Othello8::from_bitboards(u(0..8), u(8..16), side)
                .map_err(|_| bad("a sample that is no position"))?;
            if !(0.0..=1.0).contains(&target) {
                return Err(bad("a target outside 0..=1"));
            }
            Ok(Sample { pos, target })
        })
        .collect()
}

impl Trainer<Othello8> for ValueIterationTrainer {
    fn algo(&self) -> &'static str {
        "cnn-iteration"
    }

    fn log_header(&self) -> &'static str {
        crate::algos::CNN_ITERATION.log
    }

    fn episode(&self) -> usize {
        self.iteration
    }

    fn epsilon(&self) -> f64 {
        self.config.epsilon
    }

    fn round(
        &mut self,
        _limit: usize,
        _opponent: &AgentFactory<'_, Othello8>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let played = self.self_play()?;
        let added = played.samples.len();
        self.buffer.extend(played.samples);
        while self.buffer.len() > self.config.buffer {
            self.buffer.pop_front();
        }
        let loss = self.train();
        let (share, passed) = self.gate()?;
        self.iteration += 1;
        let [b, d, w] = played.results;
        Ok(vec![EpisodeRow {
            values: vec![
                Cell::count(self.iteration),
                Cell::count(b),
                Cell::count(d),
                Cell::count(w),
                Cell::count(added),
                Cell::count(self.buffer.len()),
                Cell::real(loss, 6),
                Cell::count(self.steps),
                Cell::real(share, 4),
                Cell::count(usize::from(passed)),
                Cell::count(self.promotions),
            ],
            won: passed,
            loss: Some(loss),
        }])
    }

    fn evaluate(
        &mut self,
        opponent: &AgentFactory<'_, Othello8>,
        settings: &VersusSettings,
    ) -> Result<Vec<(String, ColourWdl)>, RunError> {
        let r = evaluate_value_net(
            "cnn-minimax",
            self.best.clone(),
            (self.input, self.config.orientation),
            super::agent::DEFAULT_DEPTH,
            opponent,
            settings,
        )?;
        Ok(vec![(
            format!("cnn-minimax:depth={}", super::agent::DEFAULT_DEPTH),
            r,
        )])
    }

    fn save_state(&self, dir: &Path) -> Result<(), RunError> {
        save_training(
            dir,
            &self.net,
            &self.optim,
            &serde_json::json!({
                "episode": self.iteration,
                "steps": self.steps,
                "promotions": self.promotions,
            }),
        )?;
        crate::checkpoint::write_atomic(
            &dir.join(BEST_FILE),
            &crate::checkpoint::state_bytes(&self.best)?,
        )?;
        crate::checkpoint::write_atomic(&dir.join(BUFFER_FILE), &buffer_bytes(&self.buffer))?;
        write_probe(dir, self.probe())
    }

    fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
        let (beta1, beta2) = (self.config.beta1, self.config.beta2);
        let counters = load_training(dir, &mut self.net, &mut self.optim, move || {
            adam(beta1, beta2)
        })?;
        self.steps = counter(dir, &counters, "steps")?;
        self.promotions = counter(dir, &counters, "promotions")?;
        let at = counter(dir, &counters, "episode")?;
        if at as usize != episode {
            return Err(RunError::Model(ModelError::State {
                path: dir.join("learner.json"),
                why: format!("holds iteration {at}, not {episode}"),
            }));
        }
        let mut best = self.best.clone().no_grad();
        load_net_state(&mut best, &dir.join(BEST_FILE))?;
        self.best = best;
        let path = dir.join(BUFFER_FILE);
        let bytes = std::fs::read(&path).map_err(|source| {
            RunError::Model(ModelError::Io {
                path: path.clone(),
                source,
            })
        })?;
        self.buffer = buffer_from(&bytes, &path)?;
        self.iteration = episode;
        Ok(())
    }

    fn models(&self, _game: &str, last_eval: &serde_json::Value) -> Result<Vec<Export>, RunError> {
        Ok(vec![Export {
            file: "last.safetensors".into(),
            weights: weights_bytes(&self.best)?,
            card: self.card(last_eval),
        }])
    }
}
