//! Self-play policy iteration of the paper (`cnn-selfplay`): the current network θ, searched by
//! minimax, plays θ⁻ from a record position; every position of the game is labelled with the
//! final result for its side to move, and θ takes 10 full-batch Adam epochs on that game. One
//! game is one episode.
//!
//! Where the paper is silent, its literal reading (`paper`, the defaults) is: the labelled
//! positions are the game's decision points (forced passes left out, as in the supervised
//! data); θ⁻ is θ as it was one episode before; the learner's colour alternates (Black in even
//! episodes, from 0); each game starts from a seeded random record position of moves 10–20
//! that is not an evaluation position ([`super::positions::self_play_starts`]); one Adam
//! optimiser runs through the whole run; a draw is labelled 0.5. The other readings
//! ([`READINGS`]) change one of these each — θ⁻ frozen or gated, Adam carried on or reset, the
//! steps, the rate, the starts, the depth, the turn plane — and each checkpoint's [`Probe`]
//! measures the network on held-out states.

use std::path::{Path, PathBuf};

use arena::{ColourWdl, VersusSettings};
use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use game::{Color, Game};
use othello::dataset::{Part, Record, Split, Symmetries};
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

use super::agent::{ValueEvaluator, ValueMinimax};
use super::net::{
    card_arch, Orientation, TurnPlane, ValueArch, ValueInput, ValueModel, ValueNet, CNN_ALGO,
};
use super::positions::self_play_starts;
use super::supervised::{
    adam, counter, evaluate_value_net, load_training, save_training, ValueData,
};
use crate::checkpoint::{load_weights, read_model, weights_bytes, Card, ModelError};
use crate::config::is_default;
use crate::encode::PaperPlanes;
use crate::run::{AgentFactory, Cell, EpisodeRow, Export, RunError, Trainer};
use search::{Agent, Budget};

/// The model file each checkpoint folder of a self-play run holds (with its card).
pub const CHECKPOINT_MODEL: &str = "value.safetensors";
/// The probe each checkpoint folder of a self-play run holds ([`Probe`], JSON).
pub const PROBE_FILE: &str = "probe.json";

/// Who θ plays (θ⁻): the paper says "the previous network", which reads several ways.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SelfPlayOpponent {
    /// θ as it was one episode before (the network that just played).
    #[default]
    Previous,
    /// The supervised network θ started from, throughout the run.
    Frozen,
    /// The best network so far: every `every` episodes θ plays it `games` games from record
    /// starts (colours alternating) and replaces it when it scores at least `threshold`
    /// (a win 1, a draw ½).
    Gated {
        /// Episodes between two gates.
        every: usize,
        /// Games per gate.
        games: usize,
        /// The share of the points θ needs to become the best.
        threshold: f64,
    },
}

/// What Adam's moments start from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdamState {
    /// A fresh optimiser at the first game, kept through the run.
    #[default]
    Run,
    /// The supervised run's optimiser, carried on (its checkpoint beside the model `from`).
    Carried,
    /// A fresh optimiser for every game.
    PerGame,
}

/// Where each self-play game starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SelfPlayStart {
    /// A seeded random record position of moves 10–20 (not an evaluation position).
    #[default]
    Record,
    /// The initial position, then `random_plies` seeded uniformly random moves.
    Initial {
        /// Random moves before the players take over.
        random_plies: usize,
    },
}

/// The settings of a self-play run (`config.json`'s `value_self_play`). The fields after
/// `seed` were added with the readings sweep: each is written only when it is set (not its
/// default), and a run written before them reads their defaults, which are what such a run did
/// (the orientation aside: see the field).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueSelfPlayConfig {
    /// The supervised model θ starts from (a `cnn-value` model file).
    pub from: PathBuf,
    /// Its sha256 (checked when the run resumes: the run must continue from the same model).
    pub from_sha256: String,
    /// The dataset folder (`stonelab data wthor`): the self-play starts come from its merged
    /// frequency-split training states, the probe's states from its test states.
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
    /// The named reading these settings came from ([`READINGS`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// The image of a position the networks read, for play and learning alike, recorded when
    /// the run starts. `None` (a config written before the field): the supervised model's,
    /// which is what the runs begun since canonical inference read (earlier runs read
    /// positions as played, and their configs cannot say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<Orientation>,
    /// The side-to-move plane: kept (the paper) or zeroed for play and learning.
    #[serde(default, skip_serializing_if = "is_default")]
    pub turn: TurnPlane,
    /// Who θ plays.
    #[serde(default, skip_serializing_if = "is_default")]
    pub opponent: SelfPlayOpponent,
    /// What Adam's moments start from.
    #[serde(default, skip_serializing_if = "is_default")]
    pub adam: AdamState,
    /// Where each game starts.
    #[serde(default, skip_serializing_if = "is_default")]
    pub start: SelfPlayStart,
    /// Held-out states each checkpoint's probe measures (`probe.json`: loss, colour
    /// asymmetry, turn-plane sensitivity; 0: no probe).
    #[serde(default, skip_serializing_if = "is_default")]
    pub probe_states: usize,
}

/// The probe's default number of held-out states.
pub const PROBE_STATES: usize = 20_000;

impl ValueSelfPlayConfig {
    /// The paper's settings from model `from` (its sha256 `from_sha256`, read in `orientation`)
    /// with starts from `data`.
    #[must_use]
    pub fn paper(
        from: PathBuf,
        from_sha256: String,
        orientation: Orientation,
        data: PathBuf,
    ) -> Self {
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
            reading: None,
            orientation: Some(orientation),
            turn: TurnPlane::Kept,
            opponent: SelfPlayOpponent::Previous,
            adam: AdamState::Run,
            start: SelfPlayStart::Record,
            probe_states: PROBE_STATES,
        }
    }

    /// Applies the named reading `name` ([`READINGS`]) and records its name.
    ///
    /// # Errors
    /// A message listing the readings when `name` is none of them.
    pub fn apply_reading(&mut self, name: &str) -> Result<(), String> {
        let reading = READINGS.iter().find(|r| r.name == name).ok_or_else(|| {
            format!(
                "no reading `{name}`: one of {}",
                READINGS
                    .iter()
                    .map(|r| r.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        (reading.apply)(self);
        self.reading = Some(reading.name.into());
        Ok(())
    }

    /// The reading these settings are, for reports: its name; `NAME, changed` when a setting
    /// it fixes was changed after it was applied; `custom` when none was named.
    #[must_use]
    pub fn reading_label(&self) -> String {
        let Some(name) = &self.reading else {
            return "custom".into();
        };
        let mut named = ValueSelfPlayConfig::paper(
            self.from.clone(),
            self.from_sha256.clone(),
            Orientation::AsPlayed,
            self.data.clone(),
        );
        if named.apply_reading(name).is_err() {
            return format!("{name} (unknown)");
        }
        named.orientation = self.orientation;
        named.seed = self.seed;
        named.probe_states = self.probe_states;
        if named == *self {
            name.clone()
        } else {
            format!("{name}, changed")
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
        if let SelfPlayOpponent::Gated {
            every,
            games,
            threshold,
        } = self.opponent
        {
            if every == 0 || games == 0 || games > 1000 {
                return Err(format!(
                    "opponent gated: every {every} episodes (1 or more), {games} games (1..=1000)"
                ));
            }
            if !(threshold > 0.0 && threshold <= 1.0) {
                return Err(format!("opponent gated: threshold {threshold} ((0, 1])"));
            }
        }
        if let SelfPlayStart::Initial { random_plies } = self.start {
            if random_plies > 40 {
                return Err(format!(
                    "start initial: {random_plies} random plies (0..=40)"
                ));
            }
        }
        if self.probe_states > 1_000_000 {
            return Err(format!("probe states {} (0..=1000000)", self.probe_states));
        }
        Ok(())
    }
}

/// A named reading of the paper's self-play: what it changes from the paper's literal
/// settings ([`ValueSelfPlayConfig::paper`]).
pub struct Reading {
    /// The name (`--reading NAME`).
    pub name: &'static str,
    /// What it changes, in one line.
    pub about: &'static str,
    apply: fn(&mut ValueSelfPlayConfig),
}

/// The readings the sweep runs: one ambiguity of the paper each, the rest as the paper says.
pub const READINGS: &[Reading] = &[
    Reading {
        name: "paper",
        about: "the literal reading: θ⁻ the previous network, one Adam through the run, 10 \
                full-batch steps per game at lr 0.001, record starts, depth 3, turn plane kept",
        apply: |_| {},
    },
    Reading {
        name: "frozen",
        about: "θ⁻ is the supervised network throughout",
        apply: |c| c.opponent = SelfPlayOpponent::Frozen,
    },
    Reading {
        name: "gated",
        about: "θ⁻ is the best network so far: every 10 episodes θ plays it 20 games and \
                replaces it at 55% or more",
        apply: |c| {
            c.opponent = SelfPlayOpponent::Gated {
                every: 10,
                games: 20,
                threshold: 0.55,
            }
        },
    },
    Reading {
        name: "adam-carried",
        about: "Adam's moments carried on from the supervised run",
        apply: |c| c.adam = AdamState::Carried,
    },
    Reading {
        name: "adam-reset",
        about: "a fresh Adam for every game",
        apply: |c| c.adam = AdamState::PerGame,
    },
    Reading {
        name: "steps-1",
        about: "one full-batch step per game, not 10",
        apply: |c| c.epochs_per_game = 1,
    },
    Reading {
        name: "lr-1e-4",
        about: "learning rate 0.0001",
        apply: |c| c.learning_rate = 1e-4,
    },
    Reading {
        name: "lr-1e-5",
        about: "learning rate 0.00001",
        apply: |c| c.learning_rate = 1e-5,
    },
    Reading {
        name: "initial",
        about: "each game from the initial position after 6 seeded random moves",
        apply: |c| c.start = SelfPlayStart::Initial { random_plies: 6 },
    },
    Reading {
        name: "depth-2",
        about: "both players search 2 plies",
        apply: |c| c.depth = 2,
    },
    Reading {
        name: "depth-4",
        about: "both players search 4 plies",
        apply: |c| c.depth = 4,
    },
    Reading {
        name: "turn-zeroed",
        about: "the side-to-move plane zeroed in play and learning",
        apply: |c| c.turn = TurnPlane::Zeroed,
    },
];

/// Policy iteration by self-play from a supervised value network.
pub struct ValueSelfPlayTrainer {
    config: ValueSelfPlayConfig,
    arch: ValueArch,
    /// The supervised network's input, with the turn plane as the settings say.
    input: ValueInput,
    /// The image the networks read (the settings' `orientation`, else the supervised model's).
    orientation: Orientation,
    base: Card,
    net: ValueNet,
    /// θ⁻: the previous network, the supervised one, or the best so far.
    opponent: ValueNet,
    optim: ModuleOptimizer,
    device: Device,
    starts: Vec<Othello8>,
    probe: Option<ValueData>,
    episode: usize,
    steps: u64,
    /// Gates θ passed (the best network replaced).
    promotions: u64,
}

/// One self-play game: its positions with their labels, the learner's result and the plies.
struct Game1 {
    positions: Vec<Othello8>,
    labels: Vec<f32>,
    learner_result: i32,
    plies: usize,
}

/// The losses of one game's learning: before the first step and after the last.
struct Learned {
    before: f64,
    after: f64,
}

/// What the probe measures of a network on held-out states (`probe.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The episode of the network.
    pub episode: usize,
    /// Held-out states measured.
    pub states: usize,
    /// The paper's loss Σ N·(V − v)² / M over them.
    pub loss: f64,
    /// Their plain mean squared error.
    pub mse: f64,
    /// Mean output on White-to-move states minus mean output on Black-to-move states.
    pub colour_gap: f64,
    /// The same difference of the labels (what an unbiased network would show).
    pub label_colour_gap: f64,
    /// Mean |V(x) − V(x with the turn plane inverted)|; `None` when the input has no turn plane.
    pub turn_flip: Option<f64>,
}

impl ValueSelfPlayTrainer {
    /// θ and θ⁻ from the model the settings name, and the starts from the dataset.
    ///
    /// # Errors
    /// [`RunError`] for bad settings, a model that is not a CNN value model of 8x8 Othello or
    /// has another sha256 than the settings say, dataset files that cannot be read, or (Adam
    /// carried) no supervised checkpoint beside the model.
    pub fn new(config: ValueSelfPlayConfig) -> Result<Self, RunError> {
        Self::build(config, false)
    }

    /// The trainer a resumed run loads its checkpoint into: as [`Self::new`], except that with
    /// Adam carried the supervised run's checkpoint is not read (the moments come from the
    /// run's own checkpoint), so a resume does not need it.
    ///
    /// # Errors
    /// As [`Self::new`], but for the supervised checkpoint.
    pub fn for_resume(config: ValueSelfPlayConfig) -> Result<Self, RunError> {
        Self::build(config, true)
    }

    fn build(config: ValueSelfPlayConfig, resuming: bool) -> Result<Self, RunError> {
        config.validate().map_err(RunError::Settings)?;
        let (model, mut net, bytes) = load_base(&config.from, &config.from_sha256)?;
        let device = Device::default().autodiff();
        let mut optim = adam(config.beta1, config.beta2);
        if config.adam == AdamState::Carried && !resuming {
            carry_adam(&config, &model.card, &bytes, &mut net, &mut optim)?;
        } else {
            load_weights(&mut net, bytes)?;
        }
        let starts = read_states(&config.data, Part::Train, None)?;
        let starts = self_play_starts(&starts.records);
        if starts.is_empty() {
            return Err(RunError::Settings(format!(
                "{}: no record positions of moves 10-20 to start from",
                config.data.join("merged-frequency-train.bin").display()
            )));
        }
        let probe = match config.probe_states {
            0 => None,
            k => Some(read_states(
                &config.data,
                Part::Test,
                Some((k, config.seed)),
            )?),
        };
        Ok(ValueSelfPlayTrainer {
            arch: model.arch,
            input: model.input.with_turn(config.turn),
            orientation: config.orientation.unwrap_or(model.orientation),
            base: model.card,
            opponent: model.net,
            net,
            optim,
            config,
            device,
            starts,
            probe,
            episode: 0,
            steps: 0,
            promotions: 0,
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
        match self.config.start {
            SelfPlayStart::Record => self.starts[rng.random_range(0..self.starts.len())],
            SelfPlayStart::Initial { random_plies } => random_opening(random_plies, &mut rng),
        }
    }

    /// The start of game `game` of the gate after episode `episode`: a record start of a
    /// stream of its own.
    fn gate_start(&self, episode: usize, game: usize) -> Othello8 {
        let mut rng = ChaCha8Rng::seed_from_u64(
            self.config.seed
                ^ 0x6761_7465_0000_0000
                ^ ((episode * 1009 + game) as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        self.starts[rng.random_range(0..self.starts.len())]
    }

    /// Minimax over `net` at the run's depth, reading what the run's networks read.
    fn agent(&self, net: ValueNet) -> ValueMinimax<Othello8> {
        ValueMinimax::<Othello8>::new(
            "cnn-minimax".into(),
            Arc::new(ValueEvaluator::new(net, self.input, self.orientation)),
            self.config.depth,
        )
    }

    /// Plays θ (colour `learner`) against `opponent` from `start`.
    fn play(&self, opponent: ValueNet, start: Othello8, learner: Color) -> Result<Game1, RunError> {
        let mut me = self.agent(self.inference_net());
        let mut them = self.agent(opponent);
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

    /// The gate after episode `episode`: θ plays the best network; θ replaces it when it
    /// scores the threshold. Whether it did.
    fn gate(&mut self, games: usize, threshold: f64) -> Result<bool, RunError> {
        let mut points = 0.0;
        for g in 0..games {
            let learner = if g % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let start = self.gate_start(self.episode, g);
            let game = self.play(self.opponent.clone(), start, learner)?;
            points += match game.learner_result {
                1 => 1.0,
                0 => 0.5,
                _ => 0.0,
            };
        }
        let passed = points >= threshold * games as f64;
        if passed {
            self.opponent = self.inference_net();
            self.promotions += 1;
        }
        Ok(passed)
    }

    /// The squared error of the network now on encoded positions `x` against `labels`.
    fn loss_now(&self, x: &[f32], labels: &[f32]) -> f64 {
        let planes = self.input.planes();
        let p = self
            .inference_net()
            .predict(x.to_vec(), planes, 8, &Device::default());
        let n = labels.len().max(1) as f64;
        p.iter()
            .zip(labels)
            .map(|(v, y)| f64::from(v - y).powi(2))
            .sum::<f64>()
            / n
    }

    /// `epochs_per_game` full-batch Adam steps on one game's positions.
    fn learn(&mut self, game: &Game1) -> Learned {
        let rows = game.positions.len();
        let planes = self.input.planes();
        let mut x = Vec::with_capacity(rows * planes * 64);
        for p in &game.positions {
            self.orientation.encode(self.input, p, &mut x);
        }
        if self.config.adam == AdamState::PerGame {
            self.optim = adam(self.config.beta1, self.config.beta2);
        }
        let before = self.loss_now(&x, &game.labels);
        for _ in 0..self.config.epochs_per_game {
            let input = Tensor::<4>::from_data(
                TensorData::new(x.clone(), [rows, planes, 8, 8]),
                &self.device,
            );
            let target =
                Tensor::<1>::from_data(TensorData::new(game.labels.clone(), [rows]), &self.device);
            let loss = (self.net.forward(input) - target).powi_scalar(2).mean();
            let grads = GradientsParams::from_grads(loss.backward(), &self.net);
            let net = std::mem::replace(
                &mut self.net,
                ValueNet::new(&self.arch, planes, 8, 0, &Device::default()),
            );
            self.net = self.optim.step(self.config.learning_rate, net, grads);
            self.steps += 1;
        }
        Learned {
            before,
            after: self.loss_now(&x, &game.labels),
        }
    }

    /// The probe of the network now on the held-out states (`None` without probe states).
    #[must_use]
    pub fn probe(&self) -> Option<Probe> {
        let data = self.probe.as_ref()?;
        Some(probe_net(
            &self.inference_net(),
            (self.input, self.orientation),
            data,
            self.episode,
        ))
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

/// The probe of network `net` (reading `input` in `orientation`) at episode `episode`, on the
/// held-out states `data`.
#[must_use]
pub fn probe_net(
    net: &ValueNet,
    (input, orientation): (ValueInput, Orientation),
    data: &ValueData,
    episode: usize,
) -> Probe {
    let eval = ValueEvaluator::new(net.clone(), input, orientation);
    let (loss, mse) = data.losses(|p| eval.probabilities(p));
    let planes = input.planes();
    let turn = match input {
        ValueInput::PaperPlanes {
            turn: TurnPlane::Kept,
            ..
        } => Some(PaperPlanes::TURN_PLANE * 64),
        _ => None,
    };
    // Sums over (White to move, Black to move): outputs, labels, states.
    let mut sums = [[0.0f64; 3]; 2];
    let mut flip = 0.0;
    for chunk in data.records.chunks(4096) {
        let (kept, positions): (Vec<&Record>, Vec<Othello8>) = chunk
            .iter()
            .filter_map(|r| r.key.position().ok().map(|p| (r, p)))
            .unzip();
        let v = eval.probabilities(&positions);
        for ((r, p), v) in kept.iter().zip(&positions).zip(&v) {
            let side = usize::from(p.side_to_move() == Color::Black);
            sums[side][0] += f64::from(*v);
            sums[side][1] += r.value();
            sums[side][2] += 1.0;
        }
        if let Some(at) = turn {
            let mut x = Vec::with_capacity(positions.len() * planes * 64);
            for p in &positions {
                orientation.encode(input, p, &mut x);
            }
            for row in x.chunks_mut(planes * 64) {
                for f in &mut row[at..at + 64] {
                    *f = 1.0 - *f;
                }
            }
            let flipped = net.predict(x, planes, 8, &Device::default());
            flip += v
                .iter()
                .zip(&flipped)
                .map(|(a, b)| f64::from((a - b).abs()))
                .sum::<f64>();
        }
    }
    let mean = |side: usize, k: usize| sums[side][k] / sums[side][2].max(1.0);
    Probe {
        episode,
        states: data.records.len(),
        loss,
        mse,
        colour_gap: mean(0, 0) - mean(1, 0),
        label_colour_gap: mean(0, 1) - mean(1, 1),
        turn_flip: turn.map(|_| flip / (sums[0][2] + sums[1][2]).max(1.0)),
    }
}

impl ValueSelfPlayConfig {
    /// The probe (episode 0) of the supervised network the run starts from, read as the run
    /// reads it (its turn plane and orientation), on the held-out states its probes measure;
    /// `None` for a run without probes.
    ///
    /// # Errors
    /// A model that is not a CNN value model of 8x8 Othello or not the one the run started
    /// from (its sha256), or dataset files that cannot be read.
    pub fn probe_start(&self) -> Result<Option<Probe>, RunError> {
        if self.probe_states == 0 {
            return Ok(None);
        }
        let (m, _, _) = load_base(&self.from, &self.from_sha256)?;
        let held_out = read_states(&self.data, Part::Test, Some((self.probe_states, self.seed)))?;
        let read = (
            m.input.with_turn(self.turn),
            self.orientation.unwrap_or(m.orientation),
        );
        Ok(Some(probe_net(&m.net, read, &held_out, 0)))
    }
}

/// The supervised model a self-play run starts from, checked to have the sha256 it started
/// from, with a fresh trainable network of its shape (on the autodiff device) and its weights'
/// bytes (not yet loaded into it).
pub(crate) fn load_base(
    from: &Path,
    sha256: &str,
) -> Result<(ValueModel, ValueNet, Vec<u8>), RunError> {
    let model = ValueModel::load(from, CNN_ALGO, Othello8::ID, 8)?;
    if model.card.sha256 != sha256 {
        return Err(RunError::Settings(format!(
            "{}: sha256 {} is not the {sha256} this run started from",
            from.display(),
            model.card.sha256,
        )));
    }
    let net = ValueNet::new(
        &model.arch,
        model.input.planes(),
        8,
        0,
        &Device::default().autodiff(),
    );
    let (_, bytes) = read_model(from)?;
    Ok((model, net, bytes))
}

/// Writes `probe` as `PROBE_FILE` in checkpoint folder `dir` (nothing without one).
pub(crate) fn write_probe(dir: &Path, probe: Option<Probe>) -> Result<(), RunError> {
    let Some(probe) = probe else { return Ok(()) };
    let text = serde_json::to_string_pretty(&probe)
        .map_err(|e| RunError::Settings(format!("probe: {e}")))?;
    crate::checkpoint::write_atomic(&dir.join(PROBE_FILE), text.as_bytes())?;
    Ok(())
}

/// Loads a network's state file `path` (written by `checkpoint::state_bytes`) into `net`.
pub(crate) fn load_net_state<M: Module>(net: &mut M, path: &Path) -> Result<(), RunError> {
    use burn::store::{BurnpackStore, ModuleSnapshot};
    let state = |why: String| {
        RunError::Model(ModelError::State {
            path: path.to_path_buf(),
            why,
        })
    };
    let bytes = std::fs::read(path).map_err(|source| {
        RunError::Model(ModelError::Io {
            path: path.to_path_buf(),
            source,
        })
    })?;
    let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(bytes)));
    let applied = net
        .load_from(&mut store)
        .map_err(|e| state(e.to_string()))?;
    if !applied.errors.is_empty() || !applied.missing.is_empty() {
        return Err(state("does not fit the network".into()));
    }
    Ok(())
}

/// The initial position after `plies` uniformly random moves (a pass when one must pass;
/// fewer when the game ends first).
fn random_opening(plies: usize, rng: &mut ChaCha8Rng) -> Othello8 {
    let mut pos = Othello8::start();
    for _ in 0..plies {
        if pos.outcome().is_some() {
            break;
        }
        let moves = pos.legal_moves();
        let Some(&mv) = moves.get(rng.random_range(0..moves.len().max(1))) else {
            break;
        };
        pos = pos.play_unchecked(mv);
    }
    pos
}

/// The merged frequency-split states of `part` in `data`, all or a seeded subset
/// `(states, seed)`.
fn read_states(
    data: &Path,
    part: Part,
    subset: Option<(usize, u64)>,
) -> Result<ValueData, RunError> {
    let name = match part {
        Part::Train => "merged-frequency-train.bin",
        Part::Test => "merged-frequency-test.bin",
    };
    ValueData::load(
        &data.join(name),
        Symmetries::Merged,
        Split::Frequency(part),
        subset.map(|(k, _)| k),
        subset.map_or(0, |(_, seed)| seed ^ 0x7072_6f62_6500_0000),
    )
}

/// Adam carried on: the supervised run's network and optimiser state from its checkpoint of
/// the model's epoch (`checkpoints/ep-N/` beside `checkpoints/last.safetensors`), checked to
/// hold the model's own weights.
fn carry_adam(
    config: &ValueSelfPlayConfig,
    card: &Card,
    weights: &[u8],
    net: &mut ValueNet,
    optim: &mut ModuleOptimizer,
) -> Result<(), RunError> {
    let dir = config
        .from
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("ep-{:08}", card.episodes));
    if !dir.join("optim.bpk").is_file() {
        return Err(RunError::Settings(format!(
            "adam carried: no optimiser state at {} (carrying Adam needs the model of a \
             cnn-supervised run's checkpoints, with its checkpoint of epoch {} kept)",
            dir.join("optim.bpk").display(),
            card.episodes
        )));
    }
    let (beta1, beta2) = (config.beta1, config.beta2);
    load_training(&dir, net, optim, move || adam(beta1, beta2))?;
    if weights_bytes(&net.valid())? != weights {
        return Err(RunError::Settings(format!(
            "adam carried: {} does not hold the weights of {}",
            dir.display(),
            config.from.display()
        )));
    }
    Ok(())
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
        let game = self.play(self.opponent.clone(), start, learner)?;
        // The previous reading: θ⁻ becomes the network that just played; then θ learns.
        if self.config.opponent == SelfPlayOpponent::Previous {
            self.opponent = self.inference_net();
        }
        let learned = self.learn(&game);
        self.episode += 1;
        if let SelfPlayOpponent::Gated {
            every,
            games,
            threshold,
        } = self.config.opponent
        {
            if self.episode.is_multiple_of(every) {
                self.gate(games, threshold)?;
            }
        }
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
                Cell::real(learned.before, 6),
                Cell::real(learned.after, 6),
                Cell::count(self.steps),
                Cell::count(self.promotions),
            ],
            won: game.learner_result > 0,
            loss: Some(learned.after),
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
            &serde_json::json!({
                "episode": self.episode,
                "steps": self.steps,
                "promotions": self.promotions,
            }),
        )?;
        crate::checkpoint::write_atomic(
            &dir.join("previous.bpk"),
            &crate::checkpoint::state_bytes(&self.opponent)?,
        )?;
        // The network at this episode as a model file of its own (the checkpoint's
        // `value.safetensors`), so every checkpoint can be played (the paper's Table 2).
        crate::checkpoint::write_model(
            &dir.join(CHECKPOINT_MODEL),
            &weights_bytes(&self.inference_net())?,
            self.card(&serde_json::Value::Null),
        )?;
        write_probe(dir, self.probe())
    }

    fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
        let (beta1, beta2) = (self.config.beta1, self.config.beta2);
        let counters = load_training(dir, &mut self.net, &mut self.optim, move || {
            adam(beta1, beta2)
        })?;
        self.steps = counter(dir, &counters, "steps")?;
        // A run checkpointed before gating existed promoted nothing.
        self.promotions = counters["promotions"].as_u64().unwrap_or(0);
        let at = counter(dir, &counters, "episode")?;
        if at as usize != episode {
            return Err(RunError::Model(ModelError::State {
                path: dir.join("learner.json"),
                why: format!("holds episode {at}, not {episode}"),
            }));
        }
        load_net_state(&mut self.opponent, &dir.join("previous.bpk"))?;
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
