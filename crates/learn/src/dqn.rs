//! DQN over the Gym-style environment: a [`QNet`] learner with a replay buffer, a target
//! network, Adam on the mean squared TD error, and greedy / ε-greedy / UCT behaviour; games are
//! played several at a time so the network sees batches.

use std::collections::HashMap;

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use env::RewardScheme;
use game::{Color, Game, Symmetry};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::{Agent, AgentError, Budget, Decision};
use serde::{Deserialize, Serialize};

use crate::checkpoint::{load_weights, weights_bytes, write_atomic, ModelError};
use crate::replay::{ReplayBuffer, Transition};
use crate::resnet::{QNet, QNetArch, PLANES};

/// How the learner picks its moves while training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Behaviour {
    /// Always the best valid action by the network.
    Greedy,
    /// A random valid action with probability ε (decaying linearly), else greedy.
    Epsilon,
    /// Q(s,a) + c·sqrt(ln N(s) / N(s,a)) over visit counts kept in a hash table; unvisited
    /// actions first.
    Uct,
}

impl std::str::FromStr for Behaviour {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "greedy" => Ok(Behaviour::Greedy),
            "epsilon" => Ok(Behaviour::Epsilon),
            "uct" => Ok(Behaviour::Uct),
            _ => Err(format!(
                "unknown behaviour {s:?}: use greedy, epsilon or uct"
            )),
        }
    }
}

/// Which rewards the learner sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rewards {
    /// The environment's `seed` rewards divided by 100: disc gain minus the opponent's change
    /// after every move, ±1 at the end.
    Scaled,
    /// Only the result: ±1, 0 for a draw.
    Terminal,
}

/// Settings of DQN training (written to `config.json` and every checkpoint card).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DqnConfig {
    /// The Q-network.
    pub arch: QNetArch,
    /// Behaviour policy while training.
    pub behaviour: Behaviour,
    /// Rewards.
    pub rewards: Rewards,
    /// Games played at once (their positions go through the network together).
    pub parallel: usize,
    /// Mini-batch size.
    pub batch_size: usize,
    /// Replay buffer capacity in transitions.
    pub replay_capacity: usize,
    /// Transitions collected before the first gradient step.
    pub warmup: usize,
    /// New transitions per gradient step.
    pub train_every: usize,
    /// Discount.
    pub gamma: f32,
    /// Adam learning rate.
    pub learning_rate: f64,
    /// Copy the network to the target network every this many episodes.
    pub target_sync: usize,
    /// ε at the first episode (`epsilon` behaviour).
    pub epsilon_start: f64,
    /// ε after `epsilon_decay` episodes.
    pub epsilon_end: f64,
    /// Episodes over which ε falls linearly.
    pub epsilon_decay: usize,
    /// Exploration constant of the `uct` behaviour.
    pub uct_c: f32,
    /// Train on a random one of the board's 8 symmetries of each sampled transition.
    pub augment: bool,
    /// Seed of the network, the games and the sampling.
    pub seed: u64,
}

impl Default for DqnConfig {
    fn default() -> Self {
        DqnConfig {
            arch: QNetArch::DEFAULT,
            behaviour: Behaviour::Epsilon,
            rewards: Rewards::Scaled,
            parallel: 16,
            batch_size: 64,
            replay_capacity: 100_000,
            warmup: 2_000,
            train_every: 4,
            gamma: 0.99,
            learning_rate: 5e-4,
            target_sync: 30,
            epsilon_start: 1.0,
            epsilon_end: 0.05,
            epsilon_decay: 2_000,
            uct_c: 0.3,
            augment: true,
            seed: 1,
        }
    }
}

impl DqnConfig {
    /// ε after `episode` episodes.
    #[must_use]
    pub fn epsilon(&self, episode: usize) -> f64 {
        if self.epsilon_decay == 0 {
            return self.epsilon_end;
        }
        let f = (episode as f64 / self.epsilon_decay as f64).min(1.0);
        self.epsilon_start + (self.epsilon_end - self.epsilon_start) * f
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the first bad setting.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, &str); 9] = [
            (self.parallel >= 1, "parallel must be at least 1"),
            (self.batch_size >= 1, "batch size must be at least 1"),
            (
                self.replay_capacity >= 1,
                "replay capacity must be at least 1",
            ),
            (self.train_every >= 1, "train-every must be at least 1"),
            (
                (0.0..=1.0).contains(&self.gamma),
                "gamma must be within [0, 1]",
            ),
            (
                self.learning_rate > 0.0 && self.learning_rate.is_finite(),
                "learning rate must be positive",
            ),
            (self.target_sync >= 1, "target sync must be at least 1"),
            (
                (0.0..=1.0).contains(&self.epsilon_start)
                    && (0.0..=1.0).contains(&self.epsilon_end),
                "epsilon must be within [0, 1]",
            ),
            (
                self.uct_c >= 0.0 && self.uct_c.is_finite(),
                "uct c must be non-negative",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, why)) => Err((*why).into()),
            None => match self.arch {
                QNetArch::Resnet { blocks, channels }
                    if blocks > 64 || channels == 0 || channels > 1024 =>
                {
                    Err("resnet needs 0..=64 blocks and 1..=1024 channels".into())
                }
                _ => Ok(()),
            },
        }
    }
}

/// Errors of DQN training and evaluation.
#[derive(Debug, thiserror::Error)]
pub enum DqnError {
    /// A fixed opponent failed.
    #[error("opponent failed: {0}")]
    Opponent(String),
    /// The environment refused a step (a bug: learners only play valid actions).
    #[error("environment: {0}")]
    Env(String),
    /// Bad settings.
    #[error("bad DQN settings: {0}")]
    Config(String),
}

/// The mover-relative board of a position.
pub fn encode_position<G: Game>(pos: &G) -> Vec<i8> {
    let me = pos.side_to_move();
    (0..G::BOARD_SIZE * G::BOARD_SIZE)
        .map(|i| match pos.stone_at(i) {
            Some(c) if c == me => 1,
            Some(_) => -1,
            None => 0,
        })
        .collect()
}

/// Input planes for a batch of (board, black to move) pairs: `[batch, PLANES, n, n]`.
fn planes(boards: &[(&[i8], bool)], n: usize, device: &Device) -> Tensor<4> {
    let points = n * n;
    let mut data = vec![0.0f32; boards.len() * PLANES * points];
    for (b, (cells, black)) in boards.iter().enumerate() {
        let base = b * PLANES * points;
        for (i, &c) in cells.iter().enumerate().take(points) {
            if c > 0 {
                data[base + i] = 1.0;
            } else if c < 0 {
                data[base + points + i] = 1.0;
            }
        }
        if *black {
            data[base + 2 * points..base + 3 * points].fill(1.0);
        }
    }
    Tensor::<4>::from_data(TensorData::new(data, [boards.len(), PLANES, n, n]), device)
}

/// Action values of a batch of boards under `net` (an inference copy): one row of `n·n` per
/// board.
pub fn q_values(net: &QNet, boards: &[(&[i8], bool)], n: usize, device: &Device) -> Vec<f32> {
    if boards.is_empty() {
        return Vec::new();
    }
    net.forward(planes(boards, n, device))
        .into_data()
        .try_to_vec::<f32>()
        .unwrap_or_default()
}

/// The best of `valid` by `q` (the lowest index among ties).
pub(crate) fn best(q: &[f32], valid: &[usize]) -> Option<usize> {
    valid.iter().copied().max_by(|&a, &b| {
        q.get(a)
            .unwrap_or(&f32::NEG_INFINITY)
            .total_cmp(q.get(b).unwrap_or(&f32::NEG_INFINITY))
            .then(b.cmp(&a))
    })
}

/// A network being trained, with its target network, optimizer, replay buffer and visit
/// counts.
pub struct DqnLearner<G: Game> {
    /// The settings.
    pub config: DqnConfig,
    net: QNet,
    target: QNet,
    infer: Option<QNet>,
    optim: ModuleOptimizer,
    replay: ReplayBuffer,
    visits: HashMap<u64, u32>,
    device: Device,
    train_device: Device,
    fresh: usize,
    /// Gradient steps taken.
    pub grad_steps: u64,
    loss_sum: f64,
    loss_count: usize,
    perms: Vec<Vec<u16>>,
    /// Positions that went through [`q_batch`](Self::q_batch).
    evaluated: u64,
    _game: std::marker::PhantomData<G>,
}

/// The point permutation of each symmetry of `G`'s board (`perm[s][i]` = image of point `i`).
fn symmetry_perms<G: Game>() -> Vec<Vec<u16>> {
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
        let train_device = Device::default().autodiff();
        let net = QNet::new(config.arch, G::BOARD_SIZE, config.seed, &train_device);
        Ok(Self::from_parts(config, net, None, train_device))
    }

    fn from_parts(
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

    fn infer(&mut self) -> &QNet {
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
        let net = self.infer();
        q_values(net, boards, G::BOARD_SIZE, &device)
    }

    /// Transitions in the replay buffer.
    #[must_use]
    pub fn replay_len(&self) -> usize {
        self.replay.len()
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
    fn state_key(cells: &[i8], black: bool) -> u64 {
        let mut h = search::NodeChecksum::new();
        h.bytes(&cells.iter().map(|&c| c as u8).collect::<Vec<u8>>());
        h.bytes(&[u8::from(black)]);
        h.value()
    }

    /// The visit-count key of (board, action): the board's key mixed with the action
    /// (splitmix64's finaliser).
    fn pair_key(state: u64, action: usize) -> u64 {
        let mut z = state ^ (action as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Picks an action by the behaviour policy (`explore` false: greedy).
    fn choose<R: RngExt>(
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
                *self.visits.entry(s).or_insert(0) += 1;
                *self.visits.entry(Self::pair_key(s, pick)).or_insert(0) += 1;
                pick
            }
        }
    }

    /// Stores a transition and takes the gradient steps that are due.
    fn push<R: RngExt>(&mut self, t: Transition, rng: &mut R) {
        self.replay.push(t);
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

    /// One gradient step on a sampled mini-batch; returns its loss.
    pub fn train_step<R: RngExt>(&mut self, rng: &mut R) -> f64 {
        let n = G::BOARD_SIZE;
        let points = n * n;
        let batch = self.replay.sample(rng, self.config.batch_size);
        if batch.is_empty() {
            return 0.0;
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
        let next_q = q_values(&self.target, &next_refs, n, &self.device);
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
        let input = planes(&state_refs, n, &self.train_device);
        let onehot = Tensor::<2>::from_data(
            TensorData::new(onehot, [batch.len(), points]),
            &self.train_device,
        );
        let target =
            Tensor::<1>::from_data(TensorData::new(targets, [batch.len()]), &self.train_device);
        let predicted: Tensor<1> = (self.net.forward(input) * onehot).sum_dim(1).flatten(0, 1);
        let loss = (predicted - target).powi_scalar(2).mean();
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

/// Who plays a colour in a game of a round: a fixed agent, or learner `n`
/// ([`Seat::Batched`]`(n)`).
pub use search::driver::Seat;

/// How a finished game went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameEnd {
    /// Final disc or stone counts (black, white).
    pub counts: (u32, u32),
    /// The winner (None for a draw or a cut game).
    pub winner: Option<Color>,
    /// Total reward each colour received.
    pub rewards: [f32; 2],
}

struct Pending {
    state: Vec<i8>,
    black: bool,
    action: usize,
    reward: f32,
}

/// The learners of a round as the driver's batched players: each step, every position a
/// learner must move in goes through its network in one batch; transitions (with the rewards
/// of the moves in between) go to its replay buffer as the games go on.
struct LearnerSeats<'a, 'l, G: Game, R: RngExt> {
    learners: &'a mut [&'l mut DqnLearner<G>],
    /// Which learner sits at each colour of each game.
    seats: Vec<[Option<usize>; 2]>,
    pending: Vec<[Option<Pending>; 2]>,
    rewards: Vec<[f32; 2]>,
    scheme: RewardScheme,
    epsilon: f64,
    explore: bool,
    learn: bool,
    rng: &'a mut R,
}

impl<G: Game, R: RngExt> search::driver::BatchedPlayers<G> for LearnerSeats<'_, '_, G, R> {
    fn choose(
        &mut self,
        player: usize,
        requests: &[(usize, &G)],
    ) -> Result<Vec<G::Move>, AgentError> {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let learner = self
            .learners
            .get_mut(player)
            .ok_or_else(|| AgentError::Failed(format!("no learner {player}")))?;
        let inputs: Vec<(Vec<i8>, bool, Vec<usize>)> = requests
            .iter()
            .map(|(_, pos)| {
                let valid: Vec<usize> = pos
                    .legal_moves()
                    .into_iter()
                    .map(G::action_index)
                    .filter(|&a| a < points)
                    .collect();
                (
                    encode_position(*pos),
                    pos.side_to_move() == Color::Black,
                    valid,
                )
            })
            .collect();
        let boards: Vec<(&[i8], bool)> =
            inputs.iter().map(|(c, b, _)| (c.as_slice(), *b)).collect();
        let q = learner.q_batch(&boards);
        let mut moves = Vec::with_capacity(requests.len());
        for (j, ((k, _), (cells, black, valid))) in requests.iter().zip(inputs).enumerate() {
            let row = q.get(j * points..(j + 1) * points).unwrap_or(&[]);
            let a = learner.choose(
                row,
                (&cells, black),
                &valid,
                self.epsilon,
                self.explore,
                self.rng,
            );
            moves.push(G::action_move(a).ok_or_else(|| AgentError::Failed(format!("action {a}")))?);
            let mover = if black { Color::Black } else { Color::White };
            if self.learn {
                let pending = &mut self.pending[*k][mover.index()];
                if let Some(p) = pending.take() {
                    learner.push(
                        Transition {
                            state: p.state,
                            black: p.black,
                            action: p.action as u16,
                            reward: p.reward,
                            next: cells.clone(),
                            next_black: black,
                            next_valid: valid.iter().map(|&v| v as u16).collect(),
                            done: false,
                        },
                        self.rng,
                    );
                }
                *pending = Some(Pending {
                    state: cells,
                    black,
                    action: a,
                    reward: 0.0,
                });
            }
        }
        Ok(moves)
    }

    fn played(&mut self, game: usize, before: &G, mv: G::Move, after: &G) {
        let r = env::move_rewards(before, mv, after, self.scheme);
        for ((total, pending), r) in self.rewards[game]
            .iter_mut()
            .zip(self.pending[game].iter_mut())
            .zip(r)
        {
            *total += r;
            if let Some(p) = pending.as_mut() {
                p.reward += r;
            }
        }
    }

    fn finished(&mut self, game: usize, _end: &G) {
        if !self.learn {
            return;
        }
        for c in 0..2 {
            let Some(p) = self.pending[game][c].take() else {
                continue;
            };
            if let Some(learner) = self.seats[game][c].and_then(|l| self.learners.get_mut(l)) {
                learner.push(
                    Transition {
                        state: p.state,
                        black: p.black,
                        action: p.action as u16,
                        reward: p.reward,
                        next: Vec::new(),
                        next_black: false,
                        next_valid: Vec::new(),
                        done: true,
                    },
                    self.rng,
                );
            }
        }
    }
}

/// Plays one game per entry of `seats` at the same time on the multi-game driver; learners act
/// by their behaviour (`explore`) or greedily, and learn from their moves when `learn` is set.
///
/// # Errors
/// [`DqnError`] when a fixed agent fails.
pub fn play_games<G: Game, R: RngExt>(
    learners: &mut [&mut DqnLearner<G>],
    seats: Vec<[Seat<G>; 2]>,
    epsilon: f64,
    explore: bool,
    learn: bool,
    rng: &mut R,
) -> Result<Vec<GameEnd>, DqnError> {
    let scheme = match learners.first().map(|l| l.config.rewards) {
        Some(Rewards::Terminal) => RewardScheme::Terminal,
        _ => RewardScheme::Scaled,
    };
    let learner_at = |seat: &Seat<G>| match seat {
        Seat::Batched(l) => Some(*l),
        Seat::Agent(_) => None,
    };
    let n = seats.len();
    let mut players = LearnerSeats {
        seats: seats
            .iter()
            .map(|[b, w]| [learner_at(b), learner_at(w)])
            .collect(),
        learners,
        pending: (0..n).map(|_| [None, None]).collect(),
        rewards: vec![[0.0; 2]; n],
        scheme,
        epsilon,
        explore,
        learn,
        rng,
    };
    let tables = seats
        .into_iter()
        .map(|seats| search::driver::Table {
            start: G::start(),
            seats,
        })
        .collect();
    let played = search::driver::play(
        tables,
        &mut players,
        &search::driver::DriverConfig::default(),
    )
    .map_err(|e| match e {
        search::driver::DriverError::Agent { error, .. } => DqnError::Opponent(error.to_string()),
        other => DqnError::Env(other.to_string()),
    })?;
    Ok(played
        .into_iter()
        .zip(players.rewards)
        .map(|(p, rewards)| GameEnd {
            counts: p.end.counts(),
            winner: p.end.outcome().and_then(|o| o.winner()),
            rewards,
        })
        .collect())
}

/// Wins, draws and losses of a learner against one opponent, by the learner's colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Games as black: won, drawn, lost.
    pub black: [u32; 3],
    /// Games as white: won, drawn, lost.
    pub white: [u32; 3],
}

impl Record {
    /// Adds a game in which the learner played `me`.
    pub fn add(&mut self, me: Color, winner: Option<Color>) {
        let row = if me == Color::Black {
            &mut self.black
        } else {
            &mut self.white
        };
        match winner {
            Some(w) if w == me => row[0] += 1,
            None => row[1] += 1,
            Some(_) => row[2] += 1,
        }
    }

    /// Games played.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.black.iter().chain(&self.white).sum()
    }

    /// Win rate (wins / games; draws count as nothing).
    #[must_use]
    pub fn win_rate(&self) -> f64 {
        f64::from(self.black[0] + self.white[0]) / f64::from(self.games().max(1))
    }

    /// Score rate (wins + half the draws) / games.
    #[must_use]
    pub fn score(&self) -> f64 {
        (f64::from(self.black[0] + self.white[0]) + 0.5 * f64::from(self.black[1] + self.white[1]))
            / f64::from(self.games().max(1))
    }
}

/// Greedy games of learner 0 of `learners` against fresh opponents from `opponent(seed)`,
/// colours alternating, `parallel` at a time.
///
/// # Errors
/// [`DqnError`] when an opponent fails.
pub fn evaluate<G: Game>(
    learner: &mut DqnLearner<G>,
    opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    games: usize,
    seed: u64,
) -> Result<Record, DqnError> {
    let mut record = Record::default();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let parallel = 50;
    let mut done = 0;
    while done < games {
        let n = parallel.min(games - done);
        let mut seats = Vec::with_capacity(n);
        let mut colours = Vec::with_capacity(n);
        for g in done..done + n {
            let me = if g % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let opp = Seat::Agent(opponent(
                seed.wrapping_mul(1_000_003).wrapping_add(g as u64),
            ));
            seats.push(if me == Color::Black {
                [Seat::Batched(0), opp]
            } else {
                [opp, Seat::Batched(0)]
            });
            colours.push(me);
        }
        let ends = play_games(&mut [learner], seats, 0.0, false, false, &mut rng)?;
        for (me, end) in colours.into_iter().zip(ends) {
            record.add(me, end.winner);
        }
        done += n;
    }
    Ok(record)
}

/// A trained Q-network as a player: the valid point with the highest value.
pub struct DqnAgent<G: Game> {
    net: QNet,
    name: String,
    device: Device,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> DqnAgent<G> {
    /// An agent over an inference network.
    #[must_use]
    pub fn new(net: QNet, name: String) -> Self {
        DqnAgent {
            net,
            name,
            device: Device::default(),
            _game: std::marker::PhantomData,
        }
    }

    /// The network's values for `pos` (one per point, from the mover's side).
    #[must_use]
    pub fn values(&self, pos: &G) -> Vec<f32> {
        let cells = encode_position(pos);
        q_values(
            &self.net,
            &[(&cells, pos.side_to_move() == Color::Black)],
            G::BOARD_SIZE,
            &self.device,
        )
    }
}

impl<G: Game> Agent<G> for DqnAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        if let Some(pass) = pos.forced_pass() {
            return Ok(Decision::just(pass));
        }
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let moves = pos.legal_moves();
        let valid: Vec<usize> = moves
            .iter()
            .map(|&m| G::action_index(m))
            .filter(|&a| a < points)
            .collect();
        let q = self.values(pos);
        let a = best(&q, &valid).ok_or(AgentError::GameOver)?;
        let mv = G::action_move(a).ok_or_else(|| AgentError::Failed("no move".into()))?;
        let mut d = Decision::just(mv);
        // Value in hundredths (the scaled reward is discs/100 and ±1 for the result).
        d.score = q.get(a).map(|v| (v * 100.0).round() as i32);
        d.pv = vec![mv];
        Ok(d)
    }
}

/// One finished training game.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeStats {
    /// Episode number, from 1.
    pub episode: usize,
    /// The learner's colour.
    pub color: Color,
    /// The learner's result: +1, 0, −1.
    pub result: i32,
    /// The learner's total reward.
    pub reward: f32,
    /// ε used.
    pub epsilon: f64,
    /// Mean loss of the gradient steps of this episode's round (None before learning starts).
    pub loss: Option<f64>,
}

/// DQN training of one learner against a fixed opponent (colours alternating).
pub struct DqnTrainer<G: Game> {
    /// The learner.
    pub learner: DqnLearner<G>,
    /// Episodes played.
    pub episode: usize,
}

/// The generator of the round starting at `episode`: derived from the seed, so a resumed run
/// draws what the uninterrupted run would have.
#[must_use]
pub fn round_rng(seed: u64, episode: usize) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ (episode as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

impl<G: Game> DqnTrainer<G> {
    /// A fresh learner.
    ///
    /// # Errors
    /// [`DqnError::Config`] for invalid settings.
    pub fn new(config: DqnConfig) -> Result<Self, DqnError> {
        Ok(DqnTrainer {
            learner: DqnLearner::new(config)?,
            episode: 0,
        })
    }

    /// Plays and learns one round of up to `config.parallel` games (at most `limit`) against
    /// fresh opponents from `opponent(seed)`.
    ///
    /// # Errors
    /// [`DqnError`] when an opponent fails.
    pub fn round(
        &mut self,
        opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
        limit: usize,
    ) -> Result<Vec<EpisodeStats>, DqnError> {
        let config = self.learner.config.clone();
        let n = config.parallel.min(limit).max(1);
        let mut rng = round_rng(config.seed, self.episode);
        let epsilon = config.epsilon(self.episode);
        let mut seats = Vec::with_capacity(n);
        let mut colours = Vec::with_capacity(n);
        for g in 0..n {
            let episode = self.episode + g;
            let me = if episode.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            };
            let opp = Seat::Agent(opponent(config.seed ^ (episode as u64 + 1) << 20));
            seats.push(if me == Color::Black {
                [Seat::Batched(0), opp]
            } else {
                [opp, Seat::Batched(0)]
            });
            colours.push(me);
        }
        let ends = play_games(
            &mut [&mut self.learner],
            seats,
            epsilon,
            true,
            true,
            &mut rng,
        )?;
        let loss = self.learner.take_loss();
        let mut out = Vec::with_capacity(n);
        for (me, end) in colours.into_iter().zip(ends) {
            self.episode += 1;
            if self.episode.is_multiple_of(config.target_sync) {
                self.learner.sync_target();
            }
            out.push(EpisodeStats {
                episode: self.episode,
                color: me,
                result: match end.winner {
                    Some(w) if w == me => 1,
                    None => 0,
                    Some(_) => -1,
                },
                reward: end.rewards[me.index()],
                epsilon,
                loss,
            });
        }
        Ok(out)
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
        use burn::store::{BurnpackStore, ModuleSnapshot};
        let mut store = BurnpackStore::from_bytes(None);
        self.net
            .save_into(&mut store)
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        let net = store
            .get_bytes()
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        write_atomic(&dir.join(state_files::NET), &net)?;
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
        let mut net = QNet::new(config.arch, G::BOARD_SIZE, config.seed, &train_device);
        let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(read(
            state_files::NET,
        )?)));
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
        let mut target = QNet::new(config.arch, G::BOARD_SIZE, config.seed, &Device::default());
        load_weights(&mut target, read(state_files::TARGET)?)?;
        let optim_bytes = read(state_files::OPTIM)?;
        let optim = std::panic::catch_unwind(|| {
            AdamConfig::new()
                .init()
                .from_bytes(burn::tensor::Bytes::from_bytes_vec(optim_bytes))
                .map_err(|e| format!("{e:?}"))
        })
        .map_err(|_| ModelError::Weights("optimizer state is corrupt".into()))?
        .map_err(|e| ModelError::Weights(format!("optimizer: {e}")))?;
        let replay = ReplayBuffer::from_bytes(&read(state_files::REPLAY)?)
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        let visit_bytes = read(state_files::VISITS)?;
        let mut visits = HashMap::new();
        let count = visit_bytes
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or_else(|| ModelError::Weights("visits file is empty".into()))?;
        if visit_bytes.len() as u64 != 8 + count.saturating_mul(12) {
            return Err(ModelError::Weights(
                "visits file has the wrong length".into(),
            ));
        }
        for chunk in visit_bytes[8..].chunks_exact(12) {
            let mut k = [0u8; 8];
            k.copy_from_slice(&chunk[..8]);
            let mut v = [0u8; 4];
            v.copy_from_slice(&chunk[8..]);
            visits.insert(u64::from_le_bytes(k), u32::from_le_bytes(v));
        }
        let counters: serde_json::Value = serde_json::from_slice(&read(state_files::COUNTERS)?)
            .map_err(|e| ModelError::Weights(format!("{}: {e}", state_files::COUNTERS)))?;
        let (Some(grad_steps), Some(fresh)) =
            (counters["grad_steps"].as_u64(), counters["fresh"].as_u64())
        else {
            return Err(ModelError::Weights(format!(
                "{}: missing counters",
                state_files::COUNTERS
            )));
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

/// One finished game of competitive training.
#[derive(Clone, Debug, PartialEq)]
pub struct CompetitiveStats {
    /// Episode number, from 1.
    pub episode: usize,
    /// The winner (None for a draw).
    pub winner: Option<Color>,
    /// Total reward of (black, white).
    pub rewards: [f32; 2],
    /// ε used.
    pub epsilon: f64,
    /// Mean loss of each learner's gradient steps in this round.
    pub loss: [Option<f64>; 2],
}

/// Competitive training: a black DQN and a white DQN learn by playing each other.
pub struct CompetitiveTrainer<G: Game> {
    /// The learner that always plays black.
    pub black: DqnLearner<G>,
    /// The learner that always plays white.
    pub white: DqnLearner<G>,
    /// Episodes played.
    pub episode: usize,
}

impl<G: Game> CompetitiveTrainer<G> {
    /// Two fresh learners (the white one seeded `seed + 1`).
    ///
    /// # Errors
    /// [`DqnError::Config`] for invalid settings.
    pub fn new(config: DqnConfig) -> Result<Self, DqnError> {
        let white = DqnConfig {
            seed: config.seed.wrapping_add(1),
            ..config.clone()
        };
        Ok(CompetitiveTrainer {
            black: DqnLearner::new(config)?,
            white: DqnLearner::new(white)?,
            episode: 0,
        })
    }

    /// Plays and learns one round of up to `parallel` games (at most `limit`).
    ///
    /// # Errors
    /// [`DqnError`] if the environment fails.
    pub fn round(&mut self, limit: usize) -> Result<Vec<CompetitiveStats>, DqnError> {
        let config = self.black.config.clone();
        let n = config.parallel.min(limit).max(1);
        let mut rng = round_rng(config.seed, self.episode);
        let epsilon = config.epsilon(self.episode);
        let seats = (0..n)
            .map(|_| [Seat::Batched(0), Seat::Batched(1)])
            .collect();
        let ends = play_games(
            &mut [&mut self.black, &mut self.white],
            seats,
            epsilon,
            true,
            true,
            &mut rng,
        )?;
        let loss = [self.black.take_loss(), self.white.take_loss()];
        let mut out = Vec::with_capacity(n);
        for end in ends {
            self.episode += 1;
            if self.episode.is_multiple_of(config.target_sync) {
                self.black.sync_target();
                self.white.sync_target();
            }
            out.push(CompetitiveStats {
                episode: self.episode,
                winner: end.winner,
                rewards: end.rewards,
                epsilon,
                loss,
            });
        }
        Ok(out)
    }
}

/// Games of `agent` against fresh opponents from `opponent(seed)`, one at a time, colours
/// alternating (for agents that are not DQN learners, such as the Q-learning MLP).
///
/// # Errors
/// [`DqnError::Opponent`] when either side fails.
pub fn evaluate_agent<G: Game>(
    agent: &mut dyn Agent<G>,
    opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    games: usize,
    seed: u64,
) -> Result<Record, DqnError> {
    let mut record = Record::default();
    for g in 0..games {
        let me = if g % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let mut other = opponent(seed.wrapping_mul(1_000_003).wrapping_add(g as u64));
        agent.new_game();
        other.new_game();
        let mut pos = G::start();
        while !pos.is_over() {
            let d = if pos.side_to_move() == me {
                agent.select(&pos, &Budget::default())
            } else {
                other.select(&pos, &Budget::default())
            }
            .map_err(|e| DqnError::Opponent(e.to_string()))?;
            let next = pos
                .play(d.mv)
                .map_err(|e| DqnError::Opponent(format!("illegal move: {e}")))?;
            agent.observe(d.mv, &next);
            other.observe(d.mv, &next);
            pos = next;
        }
        record.add(me, pos.outcome().and_then(|o| o.winner()));
    }
    Ok(record)
}
