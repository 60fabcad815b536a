//! The DQN learner: Q-network, target network, Adam, replay buffer, visit counts and its
//! saved training state.

use std::collections::HashMap;

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use game::{Game, Symmetry};
use rand::RngExt;

use crate::checkpoint::{load_weights_renamed, weights_bytes, write_atomic, ModelError};
use crate::encode::mover_cells;
use crate::replay::{ReplayBuffer, Transition};
use crate::resnet::{QNet, QNetArch};

use super::*;

/// A network being trained, with its target network, optimizer, replay buffer and visit
/// counts.
pub struct DqnLearner<G: Game> {
    /// The settings.
    pub config: DqnConfig,
    pub(crate) net: QNet,
    pub(crate) target: QNet,
    pub(crate) infer: Option<QNet>,
    pub(crate) optim: ModuleOptimizer,
    pub(crate) replay: ReplayBuffer,
    pub(crate) visits: HashMap<u64, u32>,
    pub(crate) device: Device,
    pub(crate) train_device: Device,
    pub(crate) fresh: usize,
    /// Gradient steps taken.
    pub grad_steps: u64,
    pub(crate) loss_sum: f64,
    pub(crate) loss_count: usize,
    pub(crate) perms: Vec<Vec<u16>>,
    /// Positions that went through [`q_batch`](Self::q_batch).
    pub(crate) evaluated: u64,
    pub(crate) _game: std::marker::PhantomData<G>,
}

/// The point permutation of each symmetry of `G`'s board (`perm[s][i]` = image of point `i`).
pub(crate) fn symmetry_perms<G: Game>() -> Vec<Vec<u16>> {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    Symmetry::ALL
        .iter()
        .map(|&sym| {
            (0..points)
                .map(|i| {
                    G::action_move(i)
                        .map(|mv| G::action_index(G::transform_move(mv, sym)))
                        .filter(|&j| j < points)
                        .unwrap_or(i) as u16
                })
                .collect()
        })
        .collect()
}

impl<G: Game> DqnLearner<G> {
    /// A fresh network (seeded by `config.seed`).
    ///
    /// # Errors
    /// [`DqnError::Config`] for invalid settings.
    pub fn new(config: DqnConfig) -> Result<Self, DqnError> {
        config.validate().map_err(DqnError::Config)?;
        // With the board known, the whole network is counted, as a load of its model will.
        config
            .arch
            .check(config.encoding.planes(), G::BOARD_SIZE)
            .map_err(DqnError::Config)?;
        let train_device = Device::default().autodiff();
        let net = QNet::with_encoding(
            config.arch,
            config.encoding,
            G::BOARD_SIZE,
            config.seed,
            &train_device,
        );
        Ok(Self::from_parts(config, net, None, train_device))
    }

    pub(crate) fn from_parts(
        config: DqnConfig,
        net: QNet,
        target: Option<QNet>,
        train_device: Device,
    ) -> Self {
        let target = target.unwrap_or_else(|| net.valid());
        DqnLearner {
            replay: ReplayBuffer::new(config.replay_capacity),
            config,
            target,
            infer: None,
            optim: AdamConfig::new().init(),
            net,
            visits: HashMap::new(),
            device: Device::default(),
            train_device,
            fresh: 0,
            grad_steps: 0,
            loss_sum: 0.0,
            loss_count: 0,
            perms: symmetry_perms::<G>(),
            evaluated: 0,
            _game: std::marker::PhantomData,
        }
    }

    /// An inference copy of the current network.
    #[must_use]
    pub fn inference_net(&self) -> QNet {
        self.net.valid()
    }

    pub(crate) fn infer(&mut self) -> &QNet {
        self.infer.get_or_insert_with(|| self.net.valid())
    }

    /// Positions evaluated by [`q_batch`](Self::q_batch) so far.
    #[must_use]
    pub fn positions_evaluated(&self) -> u64 {
        self.evaluated
    }

    /// Action values for a batch of boards under the current network.
    pub fn q_batch(&mut self, boards: &[(&[i8], bool)]) -> Vec<f32> {
        self.evaluated += boards.len() as u64;
        let device = self.device.clone();
        let encoding = self.config.encoding;
        let net = self.infer();
        q_values(net, boards, encoding, G::BOARD_SIZE, &device)
    }

    /// The stored form of a step's positions (mover cells, Black to move) and their action
    /// values, one row of `n·n` per position, in one batch.
    pub(crate) fn q_positions(
        &mut self,
        positions: &[(usize, &G)],
    ) -> (Vec<(Vec<i8>, bool)>, Vec<f32>) {
        let cells: Vec<(Vec<i8>, bool)> = positions
            .iter()
            .map(|(_, pos)| (mover_cells(*pos), pos.side_to_move() == game::Color::Black))
            .collect();
        let boards: Vec<(&[i8], bool)> = cells.iter().map(|(c, b)| (c.as_slice(), *b)).collect();
        let q = self.q_batch(&boards);
        (cells, q)
    }

    /// Transitions in the replay buffer.
    #[must_use]
    pub fn replay_len(&self) -> usize {
        self.replay.len()
    }

    /// The replay buffer.
    #[must_use]
    pub fn replay(&self) -> &ReplayBuffer {
        &self.replay
    }

    /// Mean loss of the gradient steps since the last call (None when there were none).
    pub fn take_loss(&mut self) -> Option<f64> {
        let out = (self.loss_count > 0).then(|| self.loss_sum / self.loss_count as f64);
        self.loss_sum = 0.0;
        self.loss_count = 0;
        out
    }

    /// Copies the network into the target network.
    pub fn sync_target(&mut self) {
        self.target = self.net.valid();
    }

    /// The visit-count key of a board: FNV-1a over its cells and the side to move (stable
    /// across Rust releases, unlike std's hasher, because the keys are saved in checkpoints).
    pub(crate) fn state_key(cells: &[i8], black: bool) -> u64 {
        let mut h = search::NodeChecksum::new();
        h.bytes(&cells.iter().map(|&c| c as u8).collect::<Vec<u8>>());
        h.bytes(&[u8::from(black)]);
        h.value()
    }

    /// The visit-count key of (board, action): the board's key mixed with the action
    /// (splitmix64's finaliser).
    pub(crate) fn pair_key(state: u64, action: usize) -> u64 {
        game::hash::mix64(state ^ (action as u64 + 1).wrapping_mul(game::hash::GOLDEN))
    }

    /// The UCT visit counts N(s) and N(s, `action`) of the stored board `cells` (mover's view)
    /// with `black` to move.
    #[must_use]
    pub fn visit_counts(&self, cells: &[i8], black: bool, action: usize) -> (u32, u32) {
        let s = Self::state_key(cells, black);
        let count = |k: u64| self.visits.get(&k).copied().unwrap_or(0);
        (count(s), count(Self::pair_key(s, action)))
    }

    /// Picks an action by the behaviour policy (`explore` false: greedy).
    pub(crate) fn choose<R: RngExt>(
        &mut self,
        q: &[f32],
        (cells, black): (&[i8], bool),
        valid: &[usize],
        epsilon: f64,
        explore: bool,
        rng: &mut R,
    ) -> usize {
        let greedy = best(q, valid).unwrap_or(0);
        if !explore || valid.is_empty() {
            return greedy;
        }
        match self.config.behaviour {
            Behaviour::Greedy => greedy,
            Behaviour::Epsilon => {
                if rng.random::<f64>() < epsilon {
                    valid[rng.random_range(0..valid.len())]
                } else {
                    greedy
                }
            }
            Behaviour::Uct => {
                let s = Self::state_key(cells, black);
                let n_s = *self.visits.get(&s).unwrap_or(&0);
                let ln = (f64::from(n_s.max(1))).ln() as f32;
                let c = self.config.uct_c;
                let mut pick = greedy;
                let mut pick_value = f32::NEG_INFINITY;
                for &a in valid {
                    let n_sa = *self.visits.get(&Self::pair_key(s, a)).unwrap_or(&0);
                    let value = if n_sa == 0 {
                        f32::INFINITY
                    } else {
                        q.get(a).copied().unwrap_or(0.0) + c * (ln / n_sa as f32).sqrt()
                    };
                    if value > pick_value {
                        pick_value = value;
                        pick = a;
                    }
                }
                if self.config.uct_visits == UctVisits::OnChoice {
                    *self.visits.entry(s).or_insert(0) += 1;
                    *self.visits.entry(Self::pair_key(s, pick)).or_insert(0) += 1;
                }
                pick
            }
        }
    }

    /// Stores a transition and takes the gradient steps that are due (none when the learner
    /// trains by episodes: see [`episode_end`](Self::episode_end)).
    pub(crate) fn push<R: RngExt>(&mut self, t: Transition, rng: &mut R) {
        self.replay.push(t);
        if self.config.steps_per_episode > 0 {
            return;
        }
        self.fresh += 1;
        while self.fresh >= self.config.train_every {
            self.fresh -= self.config.train_every;
            if self.replay.len() >= self.config.warmup.max(1) {
                let loss = self.train_step(rng);
                self.loss_sum += loss;
                self.loss_count += 1;
            }
        }
    }

    /// At the end of a game it played: the `steps_per_episode` gradient steps of a learner
    /// that trains by episodes (once the buffer holds `warmup` transitions).
    pub(crate) fn episode_end<R: RngExt>(&mut self, rng: &mut R) {
        for _ in 0..self.config.steps_per_episode {
            if self.replay.len() >= self.config.warmup.max(1) {
                let loss = self.train_step(rng);
                self.loss_sum += loss;
                self.loss_count += 1;
            }
        }
    }

    /// One gradient step on a sampled mini-batch; returns its loss.
    pub fn train_step<R: RngExt>(&mut self, rng: &mut R) -> f64 {
        let n = G::BOARD_SIZE;
        let points = n * n;
        let batch = self.replay.sample(rng, self.config.batch_size);
        if batch.is_empty() {
            return 0.0;
        }
        if self.config.behaviour == Behaviour::Uct && self.config.uct_visits == UctVisits::OnReplay
        {
            // The fields apart: the batch borrows the buffer.
            let visits = &mut self.visits;
            for t in &batch {
                let key = Self::state_key(&t.state, t.black);
                *visits.entry(key).or_insert(0) += 1;
                *visits
                    .entry(Self::pair_key(key, t.action as usize))
                    .or_insert(0) += 1;
            }
        }
        // Each sample under a random symmetry (or as is).
        let mut states: Vec<(Vec<i8>, bool)> = Vec::with_capacity(batch.len());
        let mut nexts: Vec<(Vec<i8>, bool)> = Vec::with_capacity(batch.len());
        let mut actions = Vec::with_capacity(batch.len());
        let mut valids: Vec<Vec<usize>> = Vec::with_capacity(batch.len());
        for t in &batch {
            let perm = if self.config.augment {
                &self.perms[rng.random_range(0..self.perms.len())]
            } else {
                &self.perms[0]
            };
            let map = |cells: &[i8]| -> Vec<i8> {
                let mut out = vec![0i8; points];
                for (i, &c) in cells.iter().enumerate().take(points) {
                    out[perm[i] as usize] = c;
                }
                out
            };
            states.push((map(&t.state), t.black));
            actions.push(perm.get(t.action as usize).map_or(0, |&a| a as usize));
            if t.done {
                nexts.push((vec![0; points], t.next_black));
                valids.push(Vec::new());
            } else {
                nexts.push((map(&t.next), t.next_black));
                valids.push(
                    t.next_valid
                        .iter()
                        .filter_map(|&a| perm.get(a as usize).map(|&p| p as usize))
                        .collect(),
                );
            }
        }
        // Targets from the target network: r + γ·max over the valid next actions.
        let next_refs: Vec<(&[i8], bool)> = nexts.iter().map(|(c, b)| (c.as_slice(), *b)).collect();
        let next_q = q_values(
            &self.target,
            &next_refs,
            self.config.encoding,
            n,
            &self.device,
        );
        let mut targets = Vec::with_capacity(batch.len());
        for (k, t) in batch.iter().enumerate() {
            let row = next_q.get(k * points..(k + 1) * points).unwrap_or(&[]);
            let future = if t.done || valids[k].is_empty() {
                0.0
            } else {
                valids[k]
                    .iter()
                    .filter_map(|&a| row.get(a).copied())
                    .fold(f32::NEG_INFINITY, f32::max)
            };
            let future = if future.is_finite() { future } else { 0.0 };
            targets.push(t.reward + self.config.gamma * future);
        }
        let mut onehot = vec![0.0f32; batch.len() * points];
        for (k, &a) in actions.iter().enumerate() {
            if a < points {
                onehot[k * points + a] = 1.0;
            }
        }
        let state_refs: Vec<(&[i8], bool)> =
            states.iter().map(|(c, b)| (c.as_slice(), *b)).collect();
        let input = planes(&state_refs, self.config.encoding, n, &self.train_device);
        let onehot = Tensor::<2>::from_data(
            TensorData::new(onehot, [batch.len(), points]),
            &self.train_device,
        );
        let target =
            Tensor::<1>::from_data(TensorData::new(targets, [batch.len()]), &self.train_device);
        let predicted: Tensor<1> = (self.net.forward(input) * onehot).sum_dim(1).flatten(0, 1);
        let squared = (predicted - target).powi_scalar(2).mean();
        let loss = match self.config.q_loss {
            QLoss::Chosen => squared,
            // The other outputs of the row have no error: the mean over all of them.
            QLoss::RowMean => squared.div_scalar(points as f32),
        };
        let loss_value = f64::from(loss.clone().into_scalar::<f32>());
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let net = std::mem::replace(
            &mut self.net,
            QNet::new(
                QNetArch::Resnet {
                    blocks: 0,
                    channels: 1,
                },
                1,
                0,
                &self.train_device,
            ),
        );
        self.net = self.optim.step(self.config.learning_rate, net, grads);
        self.infer = None;
        self.grad_steps += 1;
        loss_value
    }
}

/// Files of a learner's training state, inside one checkpoint folder.
mod state_files {
    pub const NET: &str = "online.bpk";
    pub const TARGET: &str = "target.safetensors";
    pub const OPTIM: &str = "optim.bpk";
    pub const REPLAY: &str = "replay.bin";
    pub const VISITS: &str = "visits.bin";
    pub const COUNTERS: &str = "learner.json";
}

impl<G: Game> DqnLearner<G> {
    /// Writes everything needed to continue training (network with its parameter ids, target
    /// network, Adam state, replay buffer, UCT visit counts) into the folder `dir`, which
    /// must exist. The caller makes the folder appear atomically.
    ///
    /// # Errors
    /// [`ModelError`] when a file cannot be written.
    pub fn save_state(&self, dir: &std::path::Path) -> Result<(), ModelError> {
        write_atomic(
            &dir.join(state_files::NET),
            &crate::checkpoint::state_bytes(&self.net)?,
        )?;
        write_atomic(
            &dir.join(state_files::TARGET),
            &weights_bytes(&self.target)?,
        )?;
        let optim = self
            .optim
            .into_bytes()
            .map_err(|e| ModelError::Weights(format!("optimizer: {e:?}")))?;
        write_atomic(&dir.join(state_files::OPTIM), &optim)?;
        write_atomic(&dir.join(state_files::REPLAY), &self.replay.to_bytes())?;
        let mut visits: Vec<(u64, u32)> = self.visits.iter().map(|(&k, &v)| (k, v)).collect();
        visits.sort_unstable();
        let mut bytes = Vec::with_capacity(8 + visits.len() * 12);
        bytes.extend_from_slice(&(visits.len() as u64).to_le_bytes());
        for (k, v) in visits {
            bytes.extend_from_slice(&k.to_le_bytes());
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        write_atomic(&dir.join(state_files::VISITS), &bytes)?;
        let counters = format!(
            "{{\"grad_steps\": {}, \"fresh\": {}}}\n",
            self.grad_steps, self.fresh
        );
        write_atomic(&dir.join(state_files::COUNTERS), counters.as_bytes())?;
        Ok(())
    }

    /// A learner continued from [`save_state`](Self::save_state) files, with `config` (the
    /// run's settings).
    ///
    /// # Errors
    /// [`ModelError`] for missing or corrupt files.
    pub fn load_state(config: DqnConfig, dir: &std::path::Path) -> Result<Self, ModelError> {
        use burn::store::{BurnpackStore, ModuleSnapshot};
        config.validate().map_err(|why| ModelError::Card {
            path: dir.to_path_buf(),
            why,
        })?;
        let read = |name: &str| -> Result<Vec<u8>, ModelError> {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| ModelError::Io { path, source })
        };
        let train_device = Device::default().autodiff();
        let mut net = QNet::with_encoding(
            config.arch,
            config.encoding,
            G::BOARD_SIZE,
            config.seed,
            &train_device,
        );
        // Checkpoints written before the trunk/head split name the tensors the old way.
        let legacy = burn::store::KeyRemapper::from_patterns(crate::resnet::LEGACY_KEYS.to_vec())
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(read(
            state_files::NET,
        )?)))
        .remap(legacy);
        let applied = net
            .load_from(&mut store)
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        if !applied.errors.is_empty() || !applied.missing.is_empty() {
            return Err(ModelError::Weights(format!(
                "{}: {} errors, {} missing tensors",
                state_files::NET,
                applied.errors.len(),
                applied.missing.len()
            )));
        }
        let mut target = QNet::with_encoding(
            config.arch,
            config.encoding,
            G::BOARD_SIZE,
            config.seed,
            &Device::default(),
        );
        load_weights_renamed(
            &mut target,
            read(state_files::TARGET)?,
            &crate::resnet::LEGACY_KEYS,
        )?;
        let state = |name: &str, why: String| ModelError::State {
            path: dir.join(name),
            why,
        };
        let optim_bytes = read(state_files::OPTIM)?;
        let optim = std::panic::catch_unwind(|| {
            AdamConfig::new()
                .init()
                .from_bytes(burn::tensor::Bytes::from_bytes_vec(optim_bytes))
                .map_err(|e| format!("{e:?}"))
        })
        .map_err(|_| {
            state(
                state_files::OPTIM,
                "corrupt (it could not be decoded)".into(),
            )
        })?
        .map_err(|e| state(state_files::OPTIM, e))?;
        let replay = ReplayBuffer::from_bytes(&read(state_files::REPLAY)?)
            .map_err(|e| state(state_files::REPLAY, e.to_string()))?;
        let visit_bytes = read(state_files::VISITS)?;
        let mut visits = HashMap::new();
        let count = visit_bytes
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or_else(|| state(state_files::VISITS, "empty".into()))?;
        if visit_bytes.len() as u64 != 8 + count.saturating_mul(12) {
            return Err(state(state_files::VISITS, "the wrong length".into()));
        }
        for chunk in visit_bytes[8..].chunks_exact(12) {
            let mut k = [0u8; 8];
            k.copy_from_slice(&chunk[..8]);
            let mut v = [0u8; 4];
            v.copy_from_slice(&chunk[8..]);
            visits.insert(u64::from_le_bytes(k), u32::from_le_bytes(v));
        }
        let counters: serde_json::Value = serde_json::from_slice(&read(state_files::COUNTERS)?)
            .map_err(|e| state(state_files::COUNTERS, e.to_string()))?;
        let (Some(grad_steps), Some(fresh)) =
            (counters["grad_steps"].as_u64(), counters["fresh"].as_u64())
        else {
            return Err(state(state_files::COUNTERS, "missing counters".into()));
        };
        let mut learner = Self::from_parts(config, net, Some(target.valid()), train_device);
        learner.fresh = usize::try_from(fresh).unwrap_or(0);
        learner.optim = optim;
        learner.replay = replay;
        learner.visits = visits;
        learner.grad_steps = grad_steps;
        Ok(learner)
    }
}
