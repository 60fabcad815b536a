//! The Q-learning MLP (`q-mlp`) of the reference design: a 64-128-128-64-64 tanh network over
//! the board seen by the mover (+1 own, −1 opponent, 0 empty), trained against `random` in
//! epochs of 10 games with ε = (e^(−0.017·epoch) + 0.11) / 1.1. After each game the agent's moves
//! get targets: the discounted best value of its next decision (γ = 0.99), or for its last move
//! the final disc share 2·own/total − 1.

use burn::module::Module;
use search::{Agent, AgentError, Budget, Decision};

use crate::checkpoint::{write_atomic, ModelError};
use crate::encode::{legal_points, Encoder, SignedBoard};
use burn::nn::{Linear, LinearConfig};
use burn::optim::ModuleOptimizer;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor, TensorData};
use game::Color;
use game::Game;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The network: board in, one value per point out.
#[derive(Module, Debug)]
pub struct QMlpNet {
    input: Linear,
    hidden1: Linear,
    hidden2: Linear,
    output: Linear,
}

impl QMlpNet {
    /// A freshly initialised network for a board of `points` points (64-128-128-64-64 on
    /// 8x8); its weights depend only on `seed`.
    #[must_use]
    pub fn new(points: usize, seed: u64, device: &Device) -> Self {
        crate::init::seeded(device, seed, || QMlpNet {
            input: LinearConfig::new(points, 128).init(device),
            hidden1: LinearConfig::new(128, 128).init(device),
            hidden2: LinearConfig::new(128, 64).init(device),
            output: LinearConfig::new(64, points).init(device),
        })
    }

    /// Loads a Q-learning MLP model file for `game` (board side `board_size`).
    ///
    /// # Errors
    /// [`ModelError`] for bad files or a model of another game.
    pub fn load(
        path: &std::path::Path,
        game: &str,
        board_size: usize,
    ) -> Result<(QMlpNet, crate::checkpoint::Card), ModelError> {
        crate::checkpoint::load_module(path, "q-mlp", game, board_size, &[], |_| {
            Ok(QMlpNet::new(board_size * board_size, 0, &Device::default()))
        })
    }

    /// Action values in (−1, 1) for a batch of boards `[batch, points]`.
    #[must_use]
    pub fn forward(&self, boards: Tensor<2>) -> Tensor<2> {
        let x = self.input.forward(boards).tanh();
        let x = self.hidden1.forward(x).tanh();
        let x = self.hidden2.forward(x).tanh();
        self.output.forward(x).tanh()
    }
}

/// Settings of Q-MLP training.
#[derive(Clone, Debug, PartialEq)]
pub struct QMlpConfig {
    /// Epochs of `games_per_epoch` games against `random`.
    pub epochs: usize,
    /// Games per epoch.
    pub games_per_epoch: usize,
    /// Discount of the next decision's value.
    pub gamma: f32,
    /// Adam learning rate.
    pub learning_rate: f64,
    /// Seed of the network, the exploration and the opponent.
    pub seed: u64,
}

impl Default for QMlpConfig {
    fn default() -> Self {
        QMlpConfig {
            epochs: 300,
            games_per_epoch: 10,
            gamma: 0.99,
            learning_rate: 1e-3,
            seed: 1,
        }
    }
}

/// The exploration rate of the reference design at `epoch`.
#[must_use]
pub fn epsilon(epoch: usize) -> f64 {
    ((-0.017 * epoch as f64).exp() + 0.11) / 1.1
}

/// One epoch's results (the training games, with exploration).
#[derive(Clone, Debug, PartialEq)]
pub struct EpochStats {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Exploration rate used.
    pub epsilon: f64,
    /// Games won, drawn and lost against `random`.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Losses.
    pub losses: usize,
    /// Mean training loss over the epoch's games.
    pub loss: f64,
    /// Each game: the agent's colour, result (+1, 0, −1) and loss.
    pub games: Vec<(Color, i32, f64)>,
}

/// The board of `pos` as the network sees it ([`SignedBoard`]: +1 own, −1 opponent, 0 empty,
/// from the side to move's point of view).
fn encode<G: Game>(pos: &G) -> Vec<f32> {
    let mut out = Vec::with_capacity(G::BOARD_SIZE * G::BOARD_SIZE);
    SignedBoard.encode(pos, &mut out);
    out
}

/// Trains a [`QMlpNet`] against a uniformly random opponent.
pub struct QMlpTrainer<G: Game> {
    /// The network being trained.
    pub net: QMlpNet,
    optim: ModuleOptimizer,
    config: QMlpConfig,
    device: Device,
    rng: ChaCha8Rng,
    epoch: usize,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> QMlpTrainer<G> {
    /// A new network and optimizer.
    #[must_use]
    pub fn new(config: QMlpConfig) -> Self {
        let device = Device::default().autodiff();
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        QMlpTrainer {
            net: QMlpNet::new(points, config.seed, &device),
            optim: AdamConfig::new().init(),
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            device,
            epoch: 0,
            _game: std::marker::PhantomData,
        }
    }

    fn q_values(&self, boards: &[Vec<f32>]) -> Vec<f32> {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let flat: Vec<f32> = boards.iter().flatten().copied().collect();
        let input =
            Tensor::<2>::from_data(TensorData::new(flat, [boards.len(), points]), &self.device);
        self.net
            .forward(input)
            .detach()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap_or_default()
    }

    /// The best legal point by the network (the first among ties).
    pub fn greedy(&self, pos: &G) -> Option<usize> {
        let legal = legal_points(pos);
        let q = self.q_values(&[encode(pos)]);
        legal.into_iter().max_by(|&a, &b| {
            q.get(a)
                .unwrap_or(&0.0)
                .total_cmp(q.get(b).unwrap_or(&0.0))
                .then(b.cmp(&a))
        })
    }

    /// Plays one game against random (the agent takes `me`) and learns from it; returns the
    /// agent's result (+1, 0, −1) and the loss.
    fn game(&mut self, me: Color, epsilon: f64) -> (i32, f64) {
        let mut pos = G::start();
        // The agent's decisions: board, chosen point, legal points.
        let mut states: Vec<(Vec<f32>, usize, Vec<usize>)> = Vec::new();
        while !pos.is_over() {
            if let Some(pass) = pos.forced_pass() {
                pos = pos.play_unchecked(pass);
                continue;
            }
            let legal = legal_points(&pos);
            let action = if pos.side_to_move() == me {
                let a = if self.rng.random::<f64>() < epsilon {
                    legal[self.rng.random_range(0..legal.len())]
                } else {
                    self.greedy(&pos).unwrap_or(legal[0])
                };
                states.push((encode(&pos), a, legal));
                a
            } else {
                legal[self.rng.random_range(0..legal.len())]
            };
            let Some(mv) = G::action_move(action) else {
                break;
            };
            pos = pos.play_unchecked(mv);
        }
        let (black, white) = pos.counts();
        let (own, other) = if me == Color::Black {
            (black, white)
        } else {
            (white, black)
        };
        let share = if own + other == 0 {
            0.0
        } else {
            2.0 * own as f32 / (own + other) as f32 - 1.0
        };
        let result = pos.outcome().map_or(0, |o| o.score_for(me).signum());
        if states.is_empty() {
            return (result, 0.0);
        }
        // Targets: the next decision's best value, discounted; the final share at the end.
        let boards: Vec<Vec<f32>> = states.iter().map(|s| s.0.clone()).collect();
        let q_now = self.q_values(&boards);
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let mut target = q_now.clone();
        for t in 0..states.len() {
            let value = if t + 1 == states.len() {
                share
            } else {
                let next = &states[t + 1];
                let row = &q_now[(t + 1) * points..(t + 2) * points];
                self.config.gamma
                    * next
                        .2
                        .iter()
                        .map(|&a| row[a])
                        .fold(f32::NEG_INFINITY, f32::max)
            };
            target[t * points + states[t].1] = value;
        }
        let flat: Vec<f32> = boards.iter().flatten().copied().collect();
        let input =
            Tensor::<2>::from_data(TensorData::new(flat, [states.len(), points]), &self.device);
        let target = Tensor::<2>::from_data(
            TensorData::new(target, [states.len(), points]),
            &self.device,
        );
        let loss = (self.net.forward(input) - target).powi_scalar(2).mean();
        let loss_value = f64::from(loss.clone().into_scalar::<f32>());
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let net = std::mem::replace(&mut self.net, QMlpNet::new(points, 0, &self.device));
        self.net = self.optim.step(self.config.learning_rate, net, grads);
        (result, loss_value)
    }

    /// Epochs played.
    #[must_use]
    pub fn epochs_done(&self) -> usize {
        self.epoch
    }

    /// Plays and learns one epoch (colours alternate game by game). The epoch's generator is
    /// derived from the seed and the epoch number, so a resumed run plays what an
    /// uninterrupted one would.
    pub fn epoch(&mut self) -> EpochStats {
        let eps = epsilon(self.epoch);
        self.rng = ChaCha8Rng::seed_from_u64(
            self.config.seed ^ (self.epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        self.epoch += 1;
        let mut stats = EpochStats {
            epoch: self.epoch,
            epsilon: eps,
            wins: 0,
            draws: 0,
            losses: 0,
            loss: 0.0,
            games: Vec::new(),
        };
        for g in 0..self.config.games_per_epoch {
            let me = if g % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let (result, loss) = self.game(me, eps);
            stats.games.push((me, result, loss));
            match result {
                1 => stats.wins += 1,
                0 => stats.draws += 1,
                _ => stats.losses += 1,
            }
            stats.loss += loss / self.config.games_per_epoch as f64;
        }
        stats
    }
}

impl<G: Game> QMlpTrainer<G> {
    /// The settings.
    #[must_use]
    pub fn config(&self) -> &QMlpConfig {
        &self.config
    }

    /// An inference copy of the network.
    #[must_use]
    pub fn inference_net(&self) -> QMlpNet {
        self.net.valid()
    }

    /// Greedy games against uniformly random opponents (built from `seed`), colours
    /// alternating, through the arena's evaluation match: the results per colour.
    ///
    /// # Errors
    /// [`search::driver::DriverError`] if a game fails (it does not: both sides play legal
    /// moves).
    pub fn evaluate(
        &self,
        games: usize,
        seed: u64,
    ) -> Result<arena::ColourWdl, search::driver::DriverError> {
        let net = self.inference_net();
        arena::versus(
            &mut |_| {
                search::driver::Seat::Agent(Box::new(QMlpAgent::<G>::new(
                    net.clone(),
                    "q-mlp".into(),
                )))
            },
            &mut search::driver::NoBatched,
            &|s| Box::new(search::RandomAgent::new(s)),
            &arena::VersusSettings::new(games, seed),
        )
    }

    /// Writes the network (with its parameter ids), the Adam state and the epoch count into
    /// `dir`, which must exist.
    ///
    /// # Errors
    /// [`ModelError`] when a file cannot be written.
    pub fn save_state(&self, dir: &std::path::Path) -> Result<(), ModelError> {
        write_atomic(
            &dir.join("online.bpk"),
            &crate::checkpoint::state_bytes(&self.net)?,
        )?;
        let optim = self
            .optim
            .into_bytes()
            .map_err(|e| ModelError::Weights(format!("optimizer: {e:?}")))?;
        write_atomic(&dir.join("optim.bpk"), &optim)?;
        write_atomic(
            &dir.join("learner.json"),
            format!("{{\"epoch\": {}}}\n", self.epoch).as_bytes(),
        )
    }

    /// A trainer continued from [`save_state`](Self::save_state) files.
    ///
    /// # Errors
    /// [`ModelError`] for missing or corrupt files.
    pub fn load_state(config: QMlpConfig, dir: &std::path::Path) -> Result<Self, ModelError> {
        use burn::store::{BurnpackStore, ModuleSnapshot};
        let read = |name: &str| -> Result<Vec<u8>, ModelError> {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| ModelError::Io { path, source })
        };
        let mut trainer = Self::new(config);
        let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(read(
            "online.bpk",
        )?)));
        let applied = trainer
            .net
            .load_from(&mut store)
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        if !applied.errors.is_empty() || !applied.missing.is_empty() {
            return Err(ModelError::Weights(
                "online.bpk does not fit the network".into(),
            ));
        }
        let state = |name: &str, why: String| ModelError::State {
            path: dir.join(name),
            why,
        };
        let optim_bytes = read("optim.bpk")?;
        trainer.optim = std::panic::catch_unwind(|| {
            AdamConfig::new()
                .init()
                .from_bytes(burn::tensor::Bytes::from_bytes_vec(optim_bytes))
                .map_err(|e| format!("{e:?}"))
        })
        .map_err(|_| state("optim.bpk", "corrupt (it could not be decoded)".into()))?
        .map_err(|e| state("optim.bpk", e))?;
        let counters: serde_json::Value = serde_json::from_slice(&read("learner.json")?)
            .map_err(|e| state("learner.json", e.to_string()))?;
        trainer.epoch = counters["epoch"]
            .as_u64()
            .and_then(|e| usize::try_from(e).ok())
            .ok_or_else(|| state("learner.json", "no epoch".into()))?;
        Ok(trainer)
    }
}

/// A trained Q-learning MLP as a player: the legal point with the highest value.
pub struct QMlpAgent<G: Game> {
    net: QMlpNet,
    name: String,
    device: Device,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> QMlpAgent<G> {
    /// An agent over an inference network.
    #[must_use]
    pub fn new(net: QMlpNet, name: String) -> Self {
        QMlpAgent {
            net,
            name,
            device: Device::default(),
            _game: std::marker::PhantomData,
        }
    }
}

impl<G: Game> Agent<G> for QMlpAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        crate::dqn::greedy_decision(pos, || {
            let points = G::BOARD_SIZE * G::BOARD_SIZE;
            let input =
                Tensor::<2>::from_data(TensorData::new(encode(pos), [1, points]), &self.device);
            self.net
                .forward(input)
                .into_data()
                .try_to_vec::<f32>()
                .unwrap_or_default()
        })
    }
}
