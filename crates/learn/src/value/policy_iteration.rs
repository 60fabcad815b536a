//! Self-play policy iteration of the paper (`cnn-selfplay`): the current network θ, searched by
//! minimax, plays the previous one θ⁻ from a record position; every position of the game is
//! labelled with the final result for its side to move, and θ takes 10 full-batch Adam epochs
//! on that game. One game is one episode.
//!
//! Where the paper is silent (each a choice written on the card): the labelled positions are
//! the game's decision points (forced passes left out, as in the supervised data); θ⁻ is θ as it was one
//! episode before (the network that just played is kept as the next opponent, then θ learns);
//! the learner's colour alternates (Black in even episodes, from 0); each game starts from a
//! seeded random record position of moves 10–20 that is not an evaluation position
//! ([`super::positions::self_play_starts`]), since minimax self-play from one position would
//! repeat one game; one Adam optimiser runs through the whole run; a draw is labelled 0.5.

use std::path::{Path, PathBuf};

use arena::{ColourWdl, VersusSettings};
use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use game::{Color, Game};
use othello::dataset::{DatasetReader, Part, Split, Symmetries};
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

use super::agent::{ValueEvaluator, ValueMinimax};
use super::net::{card_arch, Orientation, ValueArch, ValueInput, ValueModel, ValueNet, CNN_ALGO};
use super::positions::self_play_starts;
use super::supervised::{adam, counter, evaluate_value_net, load_training, save_training};
use crate::checkpoint::{load_weights, read_model, weights_bytes, Card, ModelError};
use crate::run::{AgentFactory, Cell, EpisodeRow, Export, RunError, Trainer};
use search::{Agent, Budget};

/// The model file each checkpoint folder of a self-play run holds (with its card).
pub const CHECKPOINT_MODEL: &str = "value.safetensors";

/// The settings of a self-play run (`config.json`'s `value_self_play`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueSelfPlayConfig {
    /// The supervised model θ starts from (a `cnn-value` model file).
    pub from: PathBuf,
    /// Its sha256 (checked when the run resumes: the run must continue from the same model).
    pub from_sha256: String,
    /// The dataset folder (`stonelab data wthor`): the self-play starts come from its merged
    /// frequency-split training states.
    pub data: PathBuf,
    /// Minimax depth of both players.
    pub depth: u32,
    /// Full-batch epochs on each game's positions (the paper: 10).
    pub epochs_per_game: usize,
    /// Adam's learning rate (the paper: 0.001).
    pub learning_rate: f64,
    /// Adam's β1.
    pub beta1: f32,
    /// Adam's β2.
    pub beta2: f32,
    /// Seed of the starts.
    pub seed: u64,
}

impl ValueSelfPlayConfig {
    /// The paper's settings from model `from` (its sha256 `from_sha256`) with starts from
    /// `data`.
    #[must_use]
    pub fn paper(from: PathBuf, from_sha256: String, data: PathBuf) -> Self {
        ValueSelfPlayConfig {
            from,
            from_sha256,
            data,
            depth: super::agent::DEFAULT_DEPTH,
            epochs_per_game: 10,
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.99,
            seed: 1,
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the bad setting.
    pub fn validate(&self) -> Result<(), String> {
        if self.depth == 0 || self.depth > 8 {
            return Err(format!("depth {} (1..=8)", self.depth));
        }
        if self.epochs_per_game == 0 || self.epochs_per_game > 1000 {
            return Err(format!(
                "epochs per game {} (1..=1000)",
                self.epochs_per_game
            ));
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

/// Policy iteration by self-play from a supervised value network.
pub struct ValueSelfPlayTrainer {
    config: ValueSelfPlayConfig,
    arch: ValueArch,
    input: ValueInput,
    /// The image the supervised network read, kept for play and learning alike.
    orientation: Orientation,
    base: Card,
    net: ValueNet,
    previous: ValueNet,
    optim: ModuleOptimizer,
    device: Device,
    starts: Vec<Othello8>,
    episode: usize,
    steps: u64,
}

/// One self-play game: its positions with their labels, the learner's result and the plies.
struct Game1 {
    positions: Vec<Othello8>,
    labels: Vec<f32>,
    learner_result: i32,
    plies: usize,
}

impl ValueSelfPlayTrainer {
    /// θ and θ⁻ from the model the settings name, and the starts from the dataset.
    ///
    /// # Errors
    /// [`RunError`] for bad settings, a model that is not a CNN value model of 8x8 Othello or
    /// has another sha256 than the settings say, or dataset files that cannot be read.
    pub fn new(config: ValueSelfPlayConfig) -> Result<Self, RunError> {
        config.validate().map_err(RunError::Settings)?;
        let model = ValueModel::load(&config.from, CNN_ALGO, Othello8::ID, 8)?;
        if model.card.sha256 != config.from_sha256 {
            return Err(RunError::Settings(format!(
                "{}: sha256 {} is not the {} this run started from",
                config.from.display(),
                model.card.sha256,
                config.from_sha256
            )));
        }
        let device = Device::default().autodiff();
        let mut net = ValueNet::new(&model.arch, model.input.planes(), 8, 0, &device);
        let (_, bytes) = read_model(&config.from)?;
        load_weights(&mut net, bytes)?;
        let path = config.data.join("merged-frequency-train.bin");
        let bad = |why: String| {
            RunError::Settings(format!(
                "{}: {why} (make the dataset with `stonelab data wthor --out DIR`)",
                path.display()
            ))
        };
        let reader = DatasetReader::open(&path).map_err(|e| bad(e.kind.to_string()))?;
        if reader.header().symmetries != Symmetries::Merged
            || reader.header().split != Split::Frequency(Part::Train)
        {
            return Err(bad("not the merged frequency-split training states".into()));
        }
        let records = reader.read_all().map_err(|e| bad(e.kind.to_string()))?;
        let starts = self_play_starts(&records);
        if starts.is_empty() {
            return Err(bad(
                "no record positions of moves 10-20 to start from".into()
            ));
        }
        Ok(ValueSelfPlayTrainer {
            arch: model.arch,
            input: model.input,
            orientation: model.orientation,
            base: model.card,
            previous: model.net,
            net,
            optim: adam(config.beta1, config.beta2),
            config,
            device,
            starts,
            episode: 0,
            steps: 0,
        })
    }

    /// The network now, for inference.
    #[must_use]
    pub fn inference_net(&self) -> ValueNet {
        self.net.valid()
    }

    /// The start of episode `episode` (0-based).
    #[must_use]
    pub fn start(&self, episode: usize) -> Othello8 {
        let mut rng = ChaCha8Rng::seed_from_u64(
            self.config.seed ^ (episode as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        self.starts[rng.random_range(0..self.starts.len())]
    }

    /// Plays θ (colour `learner`) against θ⁻ from `start`.
    fn play(&self, start: Othello8, learner: Color) -> Result<Game1, RunError> {
        let agent = |net: ValueNet| {
            ValueMinimax::<Othello8>::new(
                "cnn-minimax".into(),
                Arc::new(ValueEvaluator::new(net, self.input, self.orientation)),
                self.config.depth,
            )
        };
        let mut me = agent(self.inference_net());
        let mut them = agent(self.previous.clone());
        let mut pos = start;
        let mut positions = Vec::new();
        let budget = Budget::default();
        let mut plies = 0;
        while pos.outcome().is_none() {
            // Decision points only, as in the supervised data: a forced pass is no decision.
            if !pos.must_pass() {
                positions.push(pos);
            }
            let mover = if pos.side_to_move() == learner {
                &mut me
            } else {
                &mut them
            };
            let decision = mover
                .select(&pos, &budget)
                .map_err(|e| RunError::Settings(format!("self-play move: {e}")))?;
            pos = pos.play(decision.mv).map_err(|e| {
                RunError::Settings(format!("self-play played an illegal move: {e}"))
            })?;
            plies += 1;
        }
        let Some(outcome) = pos.outcome() else {
            return Err(RunError::Settings("a self-play game did not end".into()));
        };
        let labels = positions
            .iter()
            .map(|p| match outcome.score_for(p.side_to_move()).signum() {
                1 => 1.0,
                -1 => 0.0,
                _ => 0.5,
            })
            .collect();
        Ok(Game1 {
            positions,
            labels,
            learner_result: outcome.score_for(learner).signum(),
            plies,
        })
    }

    /// `epochs_per_game` full-batch Adam steps on one game's positions; the last loss.
    fn learn(&mut self, game: &Game1) -> f64 {
        let rows = game.positions.len();
        let planes = self.input.planes();
        let mut x = Vec::with_capacity(rows * planes * 64);
        for p in &game.positions {
            self.orientation.encode(self.input, p, &mut x);
        }
        let mut loss_value = 0.0;
        for _ in 0..self.config.epochs_per_game {
            let input = Tensor::<4>::from_data(
                TensorData::new(x.clone(), [rows, planes, 8, 8]),
                &self.device,
            );
            let target =
                Tensor::<1>::from_data(TensorData::new(game.labels.clone(), [rows]), &self.device);
            let loss = (self.net.forward(input) - target).powi_scalar(2).mean();
            loss_value = f64::from(loss.clone().into_scalar::<f32>());
            let grads = GradientsParams::from_grads(loss.backward(), &self.net);
            let net = std::mem::replace(
                &mut self.net,
                ValueNet::new(&self.arch, planes, 8, 0, &Device::default()),
            );
            self.net = self.optim.step(self.config.learning_rate, net, grads);
            self.steps += 1;
        }
        loss_value
    }

    fn card(&self, last_eval: &serde_json::Value) -> Card {
        let mut config = serde_json::to_value(&self.config).unwrap_or_default();
        config["trainer"] = serde_json::json!("cnn-selfplay");
        config["base_episodes"] = serde_json::json!(self.base.episodes);
        Card {
            format: String::new(),
            algo: CNN_ALGO.into(),
            game: Othello8::ID.into(),
            board_size: 8,
            arch: Some(card_arch(&self.arch, self.input, self.orientation)),
            config,
            episodes: self.episode,
            train_steps: self.base.train_steps + self.steps,
            weights: String::new(),
            sha256: String::new(),
            bytes: 0,
            last_eval: last_eval.clone(),
        }
    }
}

impl Trainer<Othello8> for ValueSelfPlayTrainer {
    fn algo(&self) -> &'static str {
        "cnn-selfplay"
    }

    fn log_header(&self) -> &'static str {
        crate::algos::CNN_SELFPLAY.log
    }

    fn episode(&self) -> usize {
        self.episode
    }

    fn epsilon(&self) -> f64 {
        0.0
    }

    fn round(
        &mut self,
        _limit: usize,
        _opponent: &AgentFactory<'_, Othello8>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let start = self.start(self.episode);
        let learner = if self.episode.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        let game = self.play(start, learner)?;
        // θ⁻ becomes the network that just played; then θ learns from the game.
        self.previous = self.inference_net();
        let loss = self.learn(&game);
        self.episode += 1;
        let colour = if learner == Color::Black {
            "black"
        } else {
            "white"
        };
        Ok(vec![EpisodeRow {
            values: vec![
                Cell::count(self.episode),
                Cell::text(start.board_string().replace(' ', "")),
                Cell::text(colour),
                Cell::Int(i64::from(game.learner_result)),
                Cell::count(game.plies),
                Cell::count(game.positions.len()),
                Cell::real(loss, 6),
                Cell::count(self.steps),
            ],
            won: game.learner_result > 0,
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
            self.inference_net(),
            (self.input, self.orientation),
            self.config.depth,
            opponent,
            settings,
        )?;
        Ok(vec![(
            format!("cnn-minimax:depth={}", self.config.depth),
            r,
        )])
    }

    fn save_state(&self, dir: &Path) -> Result<(), RunError> {
        save_training(
            dir,
            &self.net,
            &self.optim,
            &serde_json::json!({"episode": self.episode, "steps": self.steps}),
        )?;
        crate::checkpoint::write_atomic(
            &dir.join("previous.bpk"),
            &crate::checkpoint::state_bytes(&self.previous)?,
        )?;
        // The network at this episode as a model file of its own (the checkpoint's
        // `value.safetensors`), so every checkpoint can be played (the paper's Table 2).
        crate::checkpoint::write_model(
            &dir.join(CHECKPOINT_MODEL),
            &weights_bytes(&self.inference_net())?,
            self.card(&serde_json::Value::Null),
        )?;
        Ok(())
    }

    fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
        use burn::store::{BurnpackStore, ModuleSnapshot};
        let (beta1, beta2) = (self.config.beta1, self.config.beta2);
        let counters = load_training(dir, &mut self.net, &mut self.optim, move || {
            adam(beta1, beta2)
        })?;
        self.steps = counter(dir, &counters, "steps")?;
        let at = counter(dir, &counters, "episode")?;
        let state = |why: String| {
            RunError::Model(ModelError::State {
                path: dir.join("previous.bpk"),
                why,
            })
        };
        if at as usize != episode {
            return Err(RunError::Model(ModelError::State {
                path: dir.join("learner.json"),
                why: format!("holds episode {at}, not {episode}"),
            }));
        }
        let bytes = std::fs::read(dir.join("previous.bpk")).map_err(|source| {
            RunError::Model(ModelError::Io {
                path: dir.join("previous.bpk"),
                source,
            })
        })?;
        let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(bytes)));
        let applied = self
            .previous
            .load_from(&mut store)
            .map_err(|e| state(e.to_string()))?;
        if !applied.errors.is_empty() || !applied.missing.is_empty() {
            return Err(state("does not fit the network".into()));
        }
        self.episode = episode;
        Ok(())
    }

    fn models(&self, _game: &str, last_eval: &serde_json::Value) -> Result<Vec<Export>, RunError> {
        Ok(vec![Export {
            file: "last.safetensors".into(),
            weights: weights_bytes(&self.inference_net())?,
            card: self.card(last_eval),
        }])
    }
}
