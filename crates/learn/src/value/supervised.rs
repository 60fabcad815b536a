//! Supervised training of a value network on the WTHOR value dataset (`stonelab data wthor`):
//! the paper's frequency-weighted squared error J = Σ_s N(s)/M · (V(s) − v(s))², Adam, one
//! epoch per round, train and test loss per epoch.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arena::{ColourWdl, VersusSettings};
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use game::Game;
use othello::dataset::{DatasetReader, Part, Record, Split, Symmetries};
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::agent::{ValueEvaluator, ValueMinimax};
use super::net::{card_arch, Orientation, ValueArch, ValueInput, ValueNet};
use crate::checkpoint::{weights_bytes, write_atomic, Card, ModelError};
use crate::run::{AgentFactory, Cell, EpisodeRow, Export, RunError, StepProgress, Trainer};

/// Which symmetry form of the dataset to train on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataSymmetries {
    /// States merged over the 8 board symmetries (the default).
    #[default]
    Merged,
    /// States as played.
    Raw,
}

/// Which train/test split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataSplit {
    /// The paper's: the most frequent 80% of the states train, the rarest 20% test.
    #[default]
    Frequency,
    /// By game (80/20, seeded): the test states come from games never trained on.
    Game,
}

impl std::str::FromStr for DataSymmetries {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "merged" => Ok(Self::Merged),
            "raw" => Ok(Self::Raw),
            _ => Err(format!("unknown symmetries {s:?}: use merged or raw")),
        }
    }
}

impl std::str::FromStr for DataSplit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "frequency" => Ok(Self::Frequency),
            "game" => Ok(Self::Game),
            _ => Err(format!("unknown split {s:?}: use frequency or game")),
        }
    }
}

/// The settings of a supervised value run (`config.json`'s `value`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SupervisedConfig {
    /// The network's shape.
    pub arch: ValueArch,
    /// What it sees.
    pub input: ValueInput,
    /// The folder `stonelab data wthor` wrote.
    pub data: PathBuf,
    /// Raw or merged states.
    pub symmetries: DataSymmetries,
    /// Frequency or game split.
    pub split: DataSplit,
    /// Positions per gradient step (the paper: 1024).
    pub batch: usize,
    /// Adam's learning rate (the paper: 0.001).
    pub learning_rate: f64,
    /// Adam's β1 (the paper: 0.9).
    pub beta1: f32,
    /// Adam's β2 (the paper: 0.99).
    pub beta2: f32,
    /// Seed of the initial weights, the subsets and each epoch's order.
    pub seed: u64,
    /// Train on a seeded random subset of this many training states (quick runs).
    #[serde(default)]
    pub max_train: Option<usize>,
    /// Measure the test loss on a seeded random subset of this many test states.
    #[serde(default)]
    pub max_test: Option<usize>,
    /// Depth of the minimax agent of the in-run evaluations.
    pub eval_depth: u32,
}

impl SupervisedConfig {
    /// The paper's optimiser and batch over the default network of `arch` (`input` to match).
    #[must_use]
    pub fn paper(arch: ValueArch, input: ValueInput, data: PathBuf) -> Self {
        SupervisedConfig {
            arch,
            input,
            data,
            symmetries: DataSymmetries::Merged,
            split: DataSplit::Frequency,
            batch: 1024,
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.99,
            seed: 1,
            max_train: None,
            max_test: None,
            eval_depth: 1,
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the bad setting.
    pub fn validate(&self) -> Result<(), String> {
        self.arch.check()?;
        if self.batch == 0 || self.batch > 65_536 {
            return Err(format!("batch {} (1..=65536)", self.batch));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate < 1.0) {
            return Err(format!("learning rate {} (0..1)", self.learning_rate));
        }
        for (name, b) in [("beta1", self.beta1), ("beta2", self.beta2)] {
            if !(0.0..1.0).contains(&b) {
                return Err(format!("{name} {b} ([0, 1))"));
            }
        }
        if matches!(self.max_train, Some(0)) || matches!(self.max_test, Some(0)) {
            return Err("--max-train and --max-test must be at least 1".into());
        }
        if self.eval_depth == 0 || self.eval_depth > 8 {
            return Err(format!("eval depth {} (1..=8)", self.eval_depth));
        }
        Ok(())
    }

    /// The image of a position the trained network reads: the canonical one when it trains on
    /// merged states (the only images it sees), as played on raw ones.
    #[must_use]
    pub fn orientation(&self) -> Orientation {
        match self.symmetries {
            DataSymmetries::Merged => Orientation::Canonical,
            DataSymmetries::Raw => Orientation::AsPlayed,
        }
    }

    /// The dataset file of `part`.
    #[must_use]
    pub fn file(&self, part: Part) -> PathBuf {
        let sym = match self.symmetries {
            DataSymmetries::Merged => "merged",
            DataSymmetries::Raw => "raw",
        };
        let split = match self.split {
            DataSplit::Frequency => "frequency",
            DataSplit::Game => "game",
        };
        let part = match part {
            Part::Train => "train",
            Part::Test => "test",
        };
        self.data.join(format!("{sym}-{split}-{part}.bin"))
    }
}

/// Labelled states in memory.
#[derive(Clone, Debug, Default)]
pub struct ValueData {
    /// The states.
    pub records: Vec<Record>,
    /// `M`: the sum of their counts.
    pub total: u64,
}

/// The dataset file at `path`, opened and checked to hold `symmetries` states of `split`.
fn open_part(
    path: &Path,
    symmetries: Symmetries,
    split: Split,
) -> Result<DatasetReader<std::fs::File>, String> {
    let reader = DatasetReader::open(path).map_err(|e| e.kind.to_string())?;
    let header = *reader.header();
    if header.symmetries != symmetries || header.split != split {
        return Err(format!(
            "holds {}, not {}",
            describe_part(header.symmetries, header.split),
            describe_part(symmetries, split)
        ));
    }
    Ok(reader)
}

/// A dataset file's contents in words: "the merged states of the frequency split's test part".
fn describe_part(symmetries: Symmetries, split: Split) -> String {
    let states = match symmetries {
        Symmetries::Raw => "the raw states",
        Symmetries::Merged => "the merged states",
    };
    let part = |p: Part| match p {
        Part::Train => "training",
        Part::Test => "test",
    };
    match split {
        Split::All => format!("{states} of every game"),
        Split::Frequency(p) => format!("{states} of the frequency split's {} part", part(p)),
        Split::Game(p) => format!("{states} of the game split's {} part", part(p)),
    }
}

impl SupervisedConfig {
    /// Checks, before anything is written, that both dataset files hold the parts these
    /// settings read and that their first records read: what a run would otherwise find only
    /// after making its folder.
    ///
    /// # Errors
    /// A message naming the file and the problem.
    pub fn check_data(&self) -> Result<(), String> {
        let symmetries = match self.symmetries {
            DataSymmetries::Merged => Symmetries::Merged,
            DataSymmetries::Raw => Symmetries::Raw,
        };
        for part in [Part::Train, Part::Test] {
            let split = match self.split {
                DataSplit::Frequency => Split::Frequency(part),
                DataSplit::Game => Split::Game(part),
            };
            let path = self.file(part);
            let bad = |why: String| {
                format!(
                    "{}: {why} (make the dataset with `stonelab data wthor --out DIR`)",
                    path.display()
                )
            };
            let mut reader = open_part(&path, symmetries, split).map_err(bad)?;
            let mut first = Vec::new();
            reader
                .next_chunk(&mut first)
                .map_err(|e| bad(e.kind.to_string()))?;
        }
        Ok(())
    }
}

impl ValueData {
    /// Loads `path`, checking it holds `symmetries` states of `split`, and keeps a seeded random
    /// subset of `limit` states when asked.
    ///
    /// # Errors
    /// [`RunError::Settings`] naming the file and the problem.
    pub fn load(
        path: &Path,
        symmetries: Symmetries,
        split: Split,
        limit: Option<usize>,
        seed: u64,
    ) -> Result<ValueData, RunError> {
        let bad = |why: String| {
            RunError::Settings(format!(
                "{}: {why} (make the dataset with `stonelab data wthor --out DIR`)",
                path.display()
            ))
        };
        let reader = open_part(path, symmetries, split).map_err(bad)?;
        let mut records = reader.read_all().map_err(|e| bad(e.kind.to_string()))?;
        if let Some(k) = limit {
            if k < records.len() {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                records.shuffle(&mut rng);
                records.truncate(k);
            }
        }
        if records.is_empty() {
            return Err(bad("no states".into()));
        }
        if let Some(r) = records
            .iter()
            .find(|r| r.count == 0 || r.key.position().is_err())
        {
            return Err(bad(format!("a state that is no position: {:?}", r.key)));
        }
        let total = records.iter().map(|r| u64::from(r.count)).sum();
        Ok(ValueData { records, total })
    }

    /// The paper's loss of `predict` over these states: Σ N·(V − v)² / M, and the plain mean
    /// squared error over the states.
    pub fn losses(&self, mut predict: impl FnMut(&[Othello8]) -> Vec<f32>) -> (f64, f64) {
        let (mut weighted, mut plain) = (0.0, 0.0);
        for chunk in self.records.chunks(4096) {
            // Records whose boards overlap (refused by `load`) are left out of both sums.
            let (kept, positions): (Vec<&Record>, Vec<Othello8>) = chunk
                .iter()
                .filter_map(|r| r.key.position().ok().map(|p| (r, p)))
                .unzip();
            let v = predict(&positions);
            for (r, v) in kept.into_iter().zip(v) {
                let se = (r.value() - f64::from(v)).powi(2);
                weighted += f64::from(r.count) * se;
                plain += se;
            }
        }
        (
            weighted / self.total.max(1) as f64,
            plain / self.records.len().max(1) as f64,
        )
    }
}

/// The seed of the random subsets: the run's seed, so a resumed run trains on the same states.
fn subset_seed(seed: u64, part: Part) -> u64 {
    seed ^ match part {
        Part::Train => 0x7472_6169_6e00_0000,
        Part::Test => 0x7465_7374_0000_0000,
    }
}

/// Trains a value network on labelled states, one epoch per round (one episode of the run is
/// one epoch).
pub struct SupervisedTrainer {
    algo: &'static str,
    config: SupervisedConfig,
    net: ValueNet,
    optim: ModuleOptimizer,
    device: Device,
    train: ValueData,
    test: ValueData,
    epoch: usize,
    steps: u64,
    progress: Option<StepProgress>,
}

/// Adam with these betas (the value trainers' optimiser).
pub(crate) fn adam(beta1: f32, beta2: f32) -> ModuleOptimizer {
    AdamConfig::new()
        .with_beta_1(beta1)
        .with_beta_2(beta2)
        .init()
}

impl SupervisedTrainer {
    /// A fresh network and optimiser over the dataset the settings name (`algo`:
    /// `cnn-supervised` or `mlp-supervised`, written on the cards' settings).
    ///
    /// # Errors
    /// [`RunError::Settings`] for bad settings or dataset files.
    pub fn new(algo: &'static str, config: SupervisedConfig) -> Result<Self, RunError> {
        config.validate().map_err(RunError::Settings)?;
        let symmetries = match config.symmetries {
            DataSymmetries::Merged => Symmetries::Merged,
            DataSymmetries::Raw => Symmetries::Raw,
        };
        let split = |part| match config.split {
            DataSplit::Frequency => Split::Frequency(part),
            DataSplit::Game => Split::Game(part),
        };
        let train = ValueData::load(
            &config.file(Part::Train),
            symmetries,
            split(Part::Train),
            config.max_train,
            subset_seed(config.seed, Part::Train),
        )?;
        let test = ValueData::load(
            &config.file(Part::Test),
            symmetries,
            split(Part::Test),
            config.max_test,
            subset_seed(config.seed, Part::Test),
        )?;
        let device = Device::default().autodiff();
        Ok(SupervisedTrainer {
            algo,
            net: ValueNet::new(&config.arch, config.input.planes(), 8, config.seed, &device),
            optim: adam(config.beta1, config.beta2),
            config,
            device,
            train,
            test,
            epoch: 0,
            steps: 0,
            progress: None,
        })
    }

    /// The training and test states.
    #[must_use]
    pub fn data(&self) -> (&ValueData, &ValueData) {
        (&self.train, &self.test)
    }

    /// An inference copy of the network.
    #[must_use]
    pub fn inference_net(&self) -> ValueNet {
        self.net.valid()
    }

    /// The paper's loss and the plain mean squared error of the network now on the test states.
    #[must_use]
    pub fn test_losses(&self) -> (f64, f64) {
        let eval = ValueEvaluator::new(
            self.inference_net(),
            self.config.input,
            self.config.orientation(),
        );
        self.test.losses(|p| eval.probabilities(p))
    }

    /// One epoch over the training states in a seeded order: returns the paper's loss over the
    /// epoch (each batch's squared errors weighted by N before its step).
    pub fn epoch(&mut self) -> f64 {
        let n = self.train.records.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(
            self.config.seed ^ (self.epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        order.shuffle(&mut rng);
        let mean_count = self.train.total as f64 / n.max(1) as f64;
        let planes = self.config.input.planes();
        let batches = n.div_ceil(self.config.batch);
        let mut weighted = 0.0;
        for (b, chunk) in order.chunks(self.config.batch).enumerate() {
            let rows = chunk.len();
            let mut x = Vec::with_capacity(rows * planes * 64);
            let mut y = Vec::with_capacity(rows);
            let mut w = Vec::with_capacity(rows);
            for &i in chunk {
                let r = &self.train.records[i as usize];
                if let Ok(pos) = r.key.position() {
                    self.config.input.encode(&pos, &mut x);
                    y.push(r.value() as f32);
                    w.push((f64::from(r.count) / mean_count) as f32);
                }
            }
            let rows = y.len();
            if rows == 0 {
                continue;
            }
            let input =
                Tensor::<4>::from_data(TensorData::new(x, [rows, planes, 8, 8]), &self.device);
            let target = Tensor::<1>::from_data(TensorData::new(y, [rows]), &self.device);
            let weight = Tensor::<1>::from_data(TensorData::new(w, [rows]), &self.device);
            // (1/B) Σ (N/N̄)(V − v)²: an unbiased estimate of J over the training states.
            let loss = ((self.net.forward(input) - target).powi_scalar(2) * weight).mean();
            let value = f64::from(loss.clone().into_scalar::<f32>());
            weighted += value * rows as f64 * mean_count;
            let grads = GradientsParams::from_grads(loss.backward(), &self.net);
            let net = std::mem::replace(
                &mut self.net,
                ValueNet::new(&self.config.arch, planes, 8, 0, &Device::default()),
            );
            self.net = self.optim.step(self.config.learning_rate, net, grads);
            self.steps += 1;
            if let Some(progress) = self.progress.as_mut() {
                progress(b + 1, batches);
            }
        }
        self.epoch += 1;
        weighted / self.train.total.max(1) as f64
    }

    /// The model file's card.
    fn card(&self, last_eval: &serde_json::Value) -> Card {
        let mut config = serde_json::to_value(&self.config).unwrap_or_default();
        config["trainer"] = serde_json::json!(self.algo);
        config["train_states"] = serde_json::json!(self.train.records.len());
        config["train_count"] = serde_json::json!(self.train.total);
        Card {
            format: String::new(),
            algo: self.config.arch.algo().into(),
            game: Othello8::ID.into(),
            board_size: 8,
            arch: Some(card_arch(
                &self.config.arch,
                self.config.input,
                self.config.orientation(),
            )),
            config,
            episodes: self.epoch,
            train_steps: self.steps,
            weights: String::new(),
            sha256: String::new(),
            bytes: 0,
            last_eval: last_eval.clone(),
        }
    }
}

/// Writes a network in training with its Adam state and counters into `dir`.
pub(crate) fn save_training<M: Module>(
    dir: &Path,
    net: &M,
    optim: &ModuleOptimizer,
    counters: &serde_json::Value,
) -> Result<(), ModelError> {
    write_atomic(
        &dir.join("online.bpk"),
        &crate::checkpoint::state_bytes(net)?,
    )?;
    let optim = optim
        .into_bytes()
        .map_err(|e| ModelError::Weights(format!("optimizer: {e:?}")))?;
    write_atomic(&dir.join("optim.bpk"), &optim)?;
    write_atomic(&dir.join("learner.json"), counters.to_string().as_bytes())
}

/// Reads what [`save_training`] wrote into `net` and `optim`; returns the counters.
pub(crate) fn load_training<M: Module>(
    dir: &Path,
    net: &mut M,
    optim: &mut ModuleOptimizer,
    fresh_optim: impl FnOnce() -> ModuleOptimizer + std::panic::UnwindSafe,
) -> Result<serde_json::Value, ModelError> {
    use burn::store::{BurnpackStore, ModuleSnapshot};
    let read = |name: &str| -> Result<Vec<u8>, ModelError> {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|source| ModelError::Io { path, source })
    };
    let state = |name: &str, why: String| ModelError::State {
        path: dir.join(name),
        why,
    };
    let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(read(
        "online.bpk",
    )?)));
    let applied = net
        .load_from(&mut store)
        .map_err(|e| state("online.bpk", e.to_string()))?;
    if !applied.errors.is_empty() || !applied.missing.is_empty() {
        return Err(state("online.bpk", "does not fit the network".into()));
    }
    let bytes = read("optim.bpk")?;
    *optim = std::panic::catch_unwind(move || {
        fresh_optim()
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| format!("{e:?}"))
    })
    .map_err(|_| state("optim.bpk", "corrupt (it could not be decoded)".into()))?
    .map_err(|e| state("optim.bpk", e))?;
    serde_json::from_slice(&read("learner.json")?).map_err(|e| state("learner.json", e.to_string()))
}

/// A counter of `learner.json`.
pub(crate) fn counter(
    dir: &Path,
    counters: &serde_json::Value,
    name: &str,
) -> Result<u64, ModelError> {
    counters[name].as_u64().ok_or_else(|| ModelError::State {
        path: dir.join("learner.json"),
        why: format!("no {name}"),
    })
}

/// Evaluation of a value network: minimax at `depth` against `opponent`, from the arena's
/// balanced 8-ply openings (each twice, colours swapped), since two deterministic searchers
/// from the start position would repeat one game per colour.
pub(crate) fn evaluate_value_net(
    name: &str,
    net: ValueNet,
    (input, orientation): (ValueInput, Orientation),
    depth: u32,
    opponent: &AgentFactory<'_, Othello8>,
    settings: &VersusSettings,
) -> Result<ColourWdl, RunError> {
    let eval = Arc::new(ValueEvaluator::new(net, input, orientation));
    let starts: Vec<Othello8> = arena::builtin_openings::<Othello8>()
        .ok()
        .flatten()
        .unwrap_or_default()
        .iter()
        .map(|o| *o.position())
        .collect();
    Ok(arena::versus_from(
        &mut |_| {
            search::driver::Seat::Agent(Box::new(ValueMinimax::<Othello8>::new(
                name.into(),
                eval.clone(),
                depth,
            )))
        },
        &mut search::driver::NoBatched,
        opponent,
        settings,
        &starts,
    )?)
}

impl Trainer<Othello8> for SupervisedTrainer {
    fn algo(&self) -> &'static str {
        self.algo
    }

    fn log_header(&self) -> &'static str {
        crate::algos::CNN_SUPERVISED.log
    }

    fn episode(&self) -> usize {
        self.epoch
    }

    fn epsilon(&self) -> f64 {
        0.0
    }

    fn set_step_progress(&mut self, progress: Option<StepProgress>) {
        self.progress = progress;
    }

    fn round(
        &mut self,
        _limit: usize,
        _opponent: &AgentFactory<'_, Othello8>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let train = self.epoch();
        let (test, mse) = self.test_losses();
        Ok(vec![EpisodeRow {
            values: vec![
                Cell::count(self.epoch),
                Cell::real(train, 6),
                Cell::real(test, 6),
                Cell::real(mse, 6),
                Cell::count(self.steps),
            ],
            won: false,
            loss: Some(train),
        }])
    }

    fn evaluate(
        &mut self,
        opponent: &AgentFactory<'_, Othello8>,
        settings: &VersusSettings,
    ) -> Result<Vec<(String, ColourWdl)>, RunError> {
        let name = self.config.arch.algo();
        let r = evaluate_value_net(
            name,
            self.inference_net(),
            (self.config.input, self.config.orientation()),
            self.config.eval_depth,
            opponent,
            settings,
        )?;
        Ok(vec![(
            format!("{name}:depth={}", self.config.eval_depth),
            r,
        )])
    }

    fn save_state(&self, dir: &Path) -> Result<(), RunError> {
        Ok(save_training(
            dir,
            &self.net,
            &self.optim,
            &serde_json::json!({"epoch": self.epoch, "steps": self.steps}),
        )?)
    }

    fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
        let (beta1, beta2) = (self.config.beta1, self.config.beta2);
        let counters = load_training(dir, &mut self.net, &mut self.optim, move || {
            adam(beta1, beta2)
        })?;
        self.steps = counter(dir, &counters, "steps")?;
        let epoch = counter(dir, &counters, "epoch")?;
        if epoch as usize != episode {
            return Err(RunError::Model(ModelError::State {
                path: dir.join("learner.json"),
                why: format!("holds epoch {epoch}, not {episode}"),
            }));
        }
        self.epoch = episode;
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
