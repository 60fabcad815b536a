//! The Q-learning MLP (`q-mlp`) of the reference design: a 64-128-128-64-64 tanh network over
//! the board seen by the mover (+1 own, −1 opponent, 0 empty), trained against `random` in
//! epochs of 10 games with ε = (e^(−0.017·epoch) + 0.11) / 1.1. After each game the agent's moves
//! get targets: the discounted best value of its next decision (γ = 0.99), or for its last move
//! the final disc share 2·own/total − 1.
//!
//! [`QMlpConfig`]'s defaults are that corrected trainer (colours alternating, burn's default
//! initialisation, one Adam step per game, no defects). The design itself (the `seed001`
//! preset, [`crate::presets`]) is the same trainer with other settings: the learner always
//! Black ([`QMlpLearner::Black`]), N(0, 1) weights and biases ([`QMlpInit::Normal`]), after
//! each epoch one plain SGD step per transition ([`QMlpOptimizer::SgdPerTransition`]), a
//! 60%-random fixed untrained network as the opponent ([`QMlpOpponent::Mixed`]), and its four
//! code defects as switches ([`Defects`]), off by default. The pieces a switch changes are
//! tested on their own: [`choose`] (the greedy point), [`opponent_move`], [`q_targets`] and
//! the per-transition step, against burn's.

use burn::module::Module;
use search::{Agent, AgentError, Budget, Decision};

use crate::checkpoint::{write_atomic, ModelError};
use crate::encode::{legal_points, Encoder, SignedBoard};
use burn::nn::{Initializer, Linear, LinearConfig};
use burn::optim::ModuleOptimizer;
use burn::optim::{AdamConfig, GradientsParams, SgdConfig};
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
    /// 8x8) with burn's default initialisation ([`QMlpInit::Default`]); its weights depend
    /// only on `seed`.
    #[must_use]
    pub fn new(points: usize, seed: u64, device: &Device) -> Self {
        Self::with_init(points, seed, QMlpInit::Default, device)
    }

    /// A freshly initialised network as [`new`](Self::new), its weights and biases drawn as
    /// `init` says. The parameters are drawn under [`crate::init::seeded`] (in field order,
    /// with no other seeded build in between), so they depend only on `seed` and `init`.
    #[must_use]
    pub fn with_init(points: usize, seed: u64, init: QMlpInit, device: &Device) -> Self {
        let layer = |inputs: usize, outputs: usize| {
            let config = LinearConfig::new(inputs, outputs);
            match init {
                QMlpInit::Default => config,
                QMlpInit::Normal => config.with_initializer(Initializer::Normal {
                    mean: 0.0,
                    std: 1.0,
                }),
            }
            .init(device)
        };
        crate::init::seeded(device, seed, || QMlpNet {
            input: layer(points, 128),
            hidden1: layer(128, 128),
            hidden2: layer(128, 64),
            output: layer(64, points),
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
        crate::checkpoint::load_module(path, "q-mlp", game, board_size, &[], |_, _| {
            Ok(QMlpNet::new(board_size * board_size, 0, &Device::default()))
        })
    }

    /// Action values in (−1, 1) for a batch of boards `[batch, points]`.
    #[must_use]
    pub fn forward(&self, boards: Tensor<2>) -> Tensor<2> {
        self.forward_train(boards, false)
    }

    /// [`forward`](Self::forward) for a training step: the same values, and with
    /// `tanh_defect` ([`Defects::tanh_derivative`]) every tanh layer's gradient is
    /// 1 − tanh(y)² of its output y instead of 1 − y².
    fn forward_train(&self, boards: Tensor<2>, tanh_defect: bool) -> Tensor<2> {
        let act = |z: Tensor<2>| {
            let y = z.clone().tanh();
            if tanh_defect {
                // The value y, the gradient g = 1 − tanh(y)² with respect to z.
                let g = y
                    .clone()
                    .detach()
                    .tanh()
                    .powi_scalar(2)
                    .neg()
                    .add_scalar(1.0);
                y.detach() + (z.clone() - z.detach()) * g
            } else {
                y
            }
        };
        let x = act(self.input.forward(boards));
        let x = act(self.hidden1.forward(x));
        let x = act(self.hidden2.forward(x));
        act(self.output.forward(x))
    }

    /// The four layers as plain arrays, input first.
    fn dense_layers(&self) -> [Dense; 4] {
        [&self.input, &self.hidden1, &self.hidden2, &self.output].map(Dense::of)
    }

    /// The network with its layers' values replaced by `layers` (the same parameter ids).
    fn with_dense_layers(self, layers: &[Dense; 4]) -> Self {
        QMlpNet {
            input: layers[0].write(self.input),
            hidden1: layers[1].write(self.hidden1),
            hidden2: layers[2].write(self.hidden2),
            output: layers[3].write(self.output),
        }
    }
}

/// One dense layer's values, `o = i·w + b` with `w` row-major `[inputs, outputs]` (burn's
/// layout), for the design's per-transition SGD ([`QMlpOptimizer::SgdPerTransition`]).
#[derive(Clone, Debug)]
struct Dense {
    w: Vec<f32>,
    b: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Dense {
    fn of(layer: &Linear) -> Self {
        let weight = layer.weight.val();
        let [inputs, outputs] = weight.dims();
        let floats = |t: Tensor<1>| t.into_data().try_to_vec::<f32>().unwrap_or_default();
        Dense {
            w: floats(weight.reshape([inputs * outputs])),
            b: layer
                .bias
                .as_ref()
                .map_or_else(|| vec![0.0; outputs], |b| floats(b.val())),
            inputs,
            outputs,
        }
    }

    /// `layer` with these values (its parameter ids and gradient requirement kept).
    fn write(&self, layer: Linear) -> Linear {
        fn fresh<const D: usize>(old: &Tensor<D>, data: TensorData) -> Tensor<D> {
            let new = Tensor::<D>::from_data(data, &old.device());
            if old.is_require_grad() {
                new.require_grad()
            } else {
                new
            }
        }
        let shape = [self.inputs, self.outputs];
        Linear {
            weight: layer
                .weight
                .map(|t| fresh(&t, TensorData::new(self.w.clone(), shape))),
            bias: layer
                .bias
                .map(|b| b.map(|t| fresh(&t, TensorData::new(self.b.clone(), [self.outputs])))),
        }
    }
}

/// One plain SGD step on one transition, in place, as the design's `backProp` takes it: the
/// delta rule of a hand-written back-propagation, the gradient of ½·Σ over the outputs of
/// (output − target)², each tanh layer's derivative 1 − y² of its output y (with `tanh_defect`,
/// [`Defects::tanh_derivative`], 1 − tanh(y)²). Returns that loss before the step.
fn sgd_transition(
    layers: &mut [Dense; 4],
    input: &[f32],
    target: &[f32],
    lr: f32,
    tanh_defect: bool,
) -> f64 {
    // Forward: every layer's output, the input first.
    let mut acts: Vec<Vec<f32>> = vec![input.to_vec()];
    for l in layers.iter() {
        let x = acts.last().map_or(&[][..], Vec::as_slice);
        let mut z = l.b.clone();
        for (i, &xi) in x.iter().enumerate().take(l.inputs) {
            if xi != 0.0 {
                let row = &l.w[i * l.outputs..(i + 1) * l.outputs];
                for (zj, &wij) in z.iter_mut().zip(row) {
                    *zj += xi * wij;
                }
            }
        }
        acts.push(z.into_iter().map(f32::tanh).collect());
    }
    let out = acts.last().map_or(&[][..], Vec::as_slice);
    let mut grad: Vec<f32> = out.iter().zip(target).map(|(&y, &t)| y - t).collect();
    let loss = grad.iter().map(|&e| 0.5 * f64::from(e).powi(2)).sum();
    // Backward, from the output layer: δ = ∂L/∂y ⊙ f'(y), then the step.
    for (k, l) in layers.iter_mut().enumerate().rev() {
        let y = &acts[k + 1];
        let delta: Vec<f32> = grad
            .iter()
            .zip(y)
            .map(|(&g, &y)| {
                let slope = if tanh_defect {
                    1.0 - y.tanh().powi(2)
                } else {
                    1.0 - y * y
                };
                g * slope
            })
            .collect();
        let x = &acts[k];
        // ∂L/∂x with the weights before the step.
        grad = (0..l.inputs)
            .map(|i| {
                l.w[i * l.outputs..(i + 1) * l.outputs]
                    .iter()
                    .zip(&delta)
                    .map(|(&w, &d)| w * d)
                    .sum()
            })
            .collect();
        for (i, &xi) in x.iter().enumerate().take(l.inputs) {
            if xi != 0.0 {
                let row = &mut l.w[i * l.outputs..(i + 1) * l.outputs];
                for (w, &d) in row.iter_mut().zip(&delta) {
                    *w -= lr * xi * d;
                }
            }
        }
        for (b, &d) in l.b.iter_mut().zip(&delta) {
            *b -= lr * d;
        }
    }
    loss
}

/// The four defects of the reference design's code, each a switch (all off by default), so a
/// run can measure which one stopped learning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Defects {
    /// The "greedy" move takes the lowest Q-value (the design sorts and pops the wrong end):
    /// the learner's greedy moves in training and the fixed opponent network's moves
    /// ([`QMlpOpponent::Mixed`]), both through [`choose`]. Evaluation and the exported agent
    /// ([`QMlpAgent`]) still play the highest value: they measure what the network learned.
    pub greedy_lowest: bool,
    /// Every update uses the game's first position as its state (the state is never advanced):
    /// the input of each of a game's updates is the board of the learner's first decision (the
    /// start position when it plays Black, as in `seed001`), while the moves, the targets
    /// and the play itself are those of the game as played. The target rows are, as in the
    /// design, the network's values of the real board of each decision but for the move's
    /// entry ([`q_targets`]), so every entry of a row has an error, not only the move's.
    pub frozen_state: bool,
    /// The target adds γ·max Q(next) over all outputs to the current Q instead of replacing it:
    /// Q(real board, a) + γ·max over all the points of the next decision's values, legal or not
    /// ([`q_targets`]); the last move's target is still the final disc share.
    pub additive_target: bool,
    /// The derivative of every tanh layer is taken as 1 − tanh(y)² of the layer's output y
    /// (the design's `dactivation` applies tanh's derivative to the value already activated)
    /// instead of 1 − y²: the values the network computes are unchanged, its training
    /// gradients are not. Not written when off, so earlier `config.json` files are written back
    /// as they were.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tanh_derivative: bool,
}

/// Which colour the learner takes in its training games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QMlpLearner {
    /// Black in the epoch's even games (0, 2, ...), White in the odd ones (ours, the default).
    #[default]
    Alternate,
    /// Always Black, moving first (the design, `seed001`).
    Black,
}

/// How the networks' weights and biases are drawn (the learner's, and the fixed opponent
/// network's of [`QMlpOpponent::Mixed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QMlpInit {
    /// burn's default for a dense layer (Kaiming uniform, weights and biases), ours.
    #[default]
    Default,
    /// Every weight and bias from N(0, 1) (the design, `seed001`).
    Normal,
}

/// The optimizer of the learner's network, and when it steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QMlpOptimizer {
    /// One Adam step after each game on that game's mean squared error (ours, the default).
    #[default]
    Adam,
    /// Plain SGD (no momentum, no weight decay), one step after each epoch on the **sum** of
    /// its games' losses, each the mean squared error of one game as with Adam: the same step
    /// as accumulating each game's gradient and stepping once at the end of the epoch (the
    /// reading of `seed001` before 2026-12-04; per transition about 1/1000 of the design's
    /// step). The network does not change within an epoch, so every move and every target of
    /// the epoch is by the network of its start.
    SgdPerEpoch,
    /// Plain SGD after each epoch, one step per learner transition of the epoch in the order
    /// played (the design, `seed001`: its `updateWeights` calls `backProp` once per
    /// transition), each on ½·Σ over the outputs of that transition's squared error (the delta
    /// rule of a hand-written back-propagation). The targets are made when each game ends, by
    /// the network of the epoch's start, which plays the whole epoch.
    SgdPerTransition,
}

/// Who the learner plays in its training games.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum QMlpOpponent {
    /// A uniformly random legal move (ours, the default).
    #[default]
    Random,
    /// A uniformly random legal move with probability `random`, otherwise the best legal point
    /// of a fixed network of the learner's shape, initialised as the learner is
    /// ([`QMlpConfig::init`]) from a seed derived from the run's ([`opponent_seed`]) and never
    /// trained (the design, `seed001`: `random` 0.6). The network's point is chosen by
    /// [`choose`], as the learner's greedy move is, so [`Defects::greedy_lowest`] turns it into
    /// the lowest point for this network too (in the design both players' choices are one
    /// function).
    Mixed {
        /// The probability of a random move, in [0, 1].
        random: f64,
    },
}

/// The Q-learning MLP's settings in `config.json`. The design's settings (`learner`,
/// `opponent`, `init`, `optimizer`, `defects`) came later: a `config.json` without them loads
/// with their defaults, the corrected trainer it was written by.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QMlpSettings {
    /// Games per epoch (one gradient step per game with Adam, one per epoch with SGD).
    pub games_per_epoch: usize,
    /// Discount.
    pub gamma: f32,
    /// Learning rate of the optimizer.
    pub learning_rate: f64,
    /// Seed of the network and the games.
    pub seed: u64,
    /// Which colour the learner takes (default: alternating).
    #[serde(default)]
    pub learner: QMlpLearner,
    /// The training opponent (default: uniformly random; not the run's `opponent`, which
    /// q-mlp does not use).
    #[serde(default)]
    pub opponent: QMlpOpponent,
    /// How the networks are initialised (default: burn's).
    #[serde(default)]
    pub init: QMlpInit,
    /// The optimizer and when it steps (default: Adam after each game).
    #[serde(default)]
    pub optimizer: QMlpOptimizer,
    /// The design's code defects switched on (default: none).
    #[serde(default)]
    pub defects: Defects,
}

impl Default for QMlpSettings {
    /// The corrected trainer's settings ([`QMlpConfig::default`]).
    fn default() -> Self {
        let c = QMlpConfig::default();
        QMlpSettings {
            games_per_epoch: c.games_per_epoch,
            gamma: c.gamma,
            learning_rate: c.learning_rate,
            seed: c.seed,
            learner: c.learner,
            opponent: c.opponent,
            init: c.init,
            optimizer: c.optimizer,
            defects: c.defects,
        }
    }
}

/// Settings of Q-MLP training. The defaults are the corrected trainer; the `seed001` preset
/// ([`crate::presets`]) sets the design's learner, opponent, initialisation and optimizer.
#[derive(Clone, Debug, PartialEq)]
pub struct QMlpConfig {
    /// Epochs of `games_per_epoch` games against the training opponent.
    pub epochs: usize,
    /// Games per epoch.
    pub games_per_epoch: usize,
    /// Discount of the next decision's value.
    pub gamma: f32,
    /// Learning rate of the optimizer (`optimizer`: Adam 1e-3 by default; the design's SGD
    /// 0.03).
    pub learning_rate: f64,
    /// Seed of the network, the exploration and the opponent.
    pub seed: u64,
    /// Which colour the learner takes.
    pub learner: QMlpLearner,
    /// The training opponent.
    pub opponent: QMlpOpponent,
    /// How the networks are initialised.
    pub init: QMlpInit,
    /// The optimizer and when it steps.
    pub optimizer: QMlpOptimizer,
    /// The design's code defects switched on (none by default).
    pub defects: Defects,
}

impl Default for QMlpConfig {
    fn default() -> Self {
        QMlpConfig {
            epochs: 300,
            games_per_epoch: 10,
            gamma: 0.99,
            learning_rate: 1e-3,
            seed: 1,
            learner: QMlpLearner::Alternate,
            opponent: QMlpOpponent::Random,
            init: QMlpInit::Default,
            optimizer: QMlpOptimizer::Adam,
            defects: Defects::default(),
        }
    }
}

/// The seed of the fixed opponent network of [`QMlpOpponent::Mixed`] in a run seeded `seed`:
/// not `seed` itself, which would make it a copy of the learner's starting network.
#[must_use]
pub fn opponent_seed(seed: u64) -> u64 {
    seed ^ 0x6F70_706F_6E65_6E74 // "opponent"
}

/// The point a network picks among `legal` by its values `q` (one per point): the highest value,
/// the lowest point among ties; with `lowest` ([`Defects::greedy_lowest`]: the design sorts the
/// values and pops the wrong end) the lowest value, again the lowest point among ties. A point
/// outside `q` counts as 0. `None` when `legal` is empty.
#[must_use]
pub fn choose(q: &[f32], legal: &[usize], lowest: bool) -> Option<usize> {
    let value = |a: usize| q.get(a).copied().unwrap_or(0.0);
    let points = legal.iter().copied();
    if lowest {
        points.min_by(|&a, &b| value(a).total_cmp(&value(b)).then(a.cmp(&b)))
    } else {
        points.max_by(|&a, &b| value(a).total_cmp(&value(b)).then(b.cmp(&a)))
    }
}

/// The training opponent's move among `legal` (not empty), drawn from `rng`, and whether it was
/// drawn at random. [`QMlpOpponent::Random`]: one uniform draw. [`QMlpOpponent::Mixed`]: a
/// uniform number in [0, 1); below `random`, a uniform legal point, otherwise `net()` (the fixed
/// network's choice; its first legal point if it has none, or one that is not legal).
/// `None` when `legal` is empty (nothing is drawn then).
pub fn opponent_move<R: rand::Rng + ?Sized>(
    opponent: QMlpOpponent,
    rng: &mut R,
    legal: &[usize],
    net: impl FnOnce() -> Option<usize>,
) -> Option<(usize, bool)> {
    let first = *legal.first()?;
    let uniform = |rng: &mut R| legal.get(rng.random_range(0..legal.len())).copied();
    match opponent {
        QMlpOpponent::Random => uniform(rng).map(|a| (a, true)),
        QMlpOpponent::Mixed { random } => {
            if rng.random::<f64>() < random {
                uniform(rng).map(|a| (a, true))
            } else {
                let a = net().filter(|a| legal.contains(a)).unwrap_or(first);
                Some((a, false))
            }
        }
    }
}

/// One decision of the learner in a game: the point it chose and the legal points it chose
/// from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LearnerMove {
    /// The point played.
    pub action: usize,
    /// The legal points of the position.
    pub legal: Vec<usize>,
}

/// The regression targets of one game's learner decisions, `[moves.len(), points]` row-major.
///
/// `q_real` holds the network's values of the real board of each decision. A target row is
/// its `q_real` row (so, when the update's input is that board, only the chosen point has an
/// error; under [`Defects::frozen_state`] the input is another board and every entry has one)
/// with the chosen point's entry replaced by:
/// - at the last decision, `share` (the final disc share, 2·own/total − 1);
/// - otherwise γ·max over the next decision's legal points of its `q_real` row;
/// - with `additive` ([`Defects::additive_target`]), instead `q_real[t][action]` + γ·max over
///   all the points of the next decision's `q_real` row (legal or not); the last decision's
///   target is still `share`.
///
/// Rows missing from `q_real` (a slice too short) count as 0.
#[must_use]
pub fn q_targets(
    q_real: &[f32],
    moves: &[LearnerMove],
    points: usize,
    share: f32,
    gamma: f32,
    additive: bool,
) -> Vec<f32> {
    let mut target = q_real.to_vec();
    target.resize(moves.len() * points, 0.0);
    for (t, step) in moves.iter().enumerate() {
        let value = match moves.get(t + 1) {
            None => share,
            Some(next) => {
                let row = q_real
                    .get((t + 1) * points..(t + 2) * points)
                    .unwrap_or(&[]);
                let at = |a: usize| row.get(a).copied().unwrap_or(0.0);
                if additive {
                    let best = (0..points).map(at).fold(f32::NEG_INFINITY, f32::max);
                    q_real.get(t * points + step.action).copied().unwrap_or(0.0) + gamma * best
                } else {
                    gamma
                        * next
                            .legal
                            .iter()
                            .map(|&a| at(a))
                            .fold(f32::NEG_INFINITY, f32::max)
                }
            }
        };
        if let Some(entry) = target.get_mut(t * points + step.action) {
            *entry = value;
        }
    }
    target
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
    /// Games won against the training opponent.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Losses.
    pub losses: usize,
    /// Mean training loss over the epoch's games (each game's mean squared error; before the
    /// epoch's SGD steps, with [`QMlpOptimizer::SgdPerEpoch`] and
    /// [`QMlpOptimizer::SgdPerTransition`]).
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

/// The network's values for a batch of boards, flat `[boards.len(), points]`.
fn q_rows(net: &QMlpNet, boards: &[Vec<f32>], points: usize, device: &Device) -> Vec<f32> {
    let flat: Vec<f32> = boards.iter().flatten().copied().collect();
    let input = Tensor::<2>::from_data(TensorData::new(flat, [boards.len(), points]), device);
    net.forward(input)
        .detach()
        .into_data()
        .try_to_vec::<f32>()
        .unwrap_or_default()
}

/// A fresh optimizer of kind `kind`.
fn optimizer(kind: QMlpOptimizer) -> ModuleOptimizer {
    match kind {
        QMlpOptimizer::Adam => AdamConfig::new().init(),
        QMlpOptimizer::SgdPerEpoch | QMlpOptimizer::SgdPerTransition => SgdConfig::new().init(),
    }
}

/// One game's regression batch: the input boards and targets, flat `[rows, points]`.
struct Batch {
    inputs: Vec<f32>,
    targets: Vec<f32>,
    rows: usize,
}

/// Trains a [`QMlpNet`] against its training opponent ([`QMlpOpponent`]: uniformly random by
/// default).
pub struct QMlpTrainer<G: Game> {
    /// The network being trained.
    pub net: QMlpNet,
    /// The fixed opponent network of [`QMlpOpponent::Mixed`] (never trained; rebuilt from the
    /// seed, so it is not saved).
    opponent_net: Option<QMlpNet>,
    optim: ModuleOptimizer,
    config: QMlpConfig,
    device: Device,
    /// The device of the opponent network (no autodiff).
    plain: Device,
    rng: ChaCha8Rng,
    epoch: usize,
    /// Optimizer steps taken (saved with the state).
    steps: u64,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> QMlpTrainer<G> {
    /// A new network and optimizer (and, for [`QMlpOpponent::Mixed`], the fixed opponent
    /// network, seeded by [`opponent_seed`]).
    #[must_use]
    pub fn new(config: QMlpConfig) -> Self {
        let device = Device::default().autodiff();
        let plain = Device::default();
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let opponent_net = match config.opponent {
            QMlpOpponent::Random => None,
            QMlpOpponent::Mixed { .. } => Some(QMlpNet::with_init(
                points,
                opponent_seed(config.seed),
                config.init,
                &plain,
            )),
        };
        QMlpTrainer {
            net: QMlpNet::with_init(points, config.seed, config.init, &device),
            opponent_net,
            optim: optimizer(config.optimizer),
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            device,
            plain,
            epoch: 0,
            steps: 0,
            _game: std::marker::PhantomData,
        }
    }

    /// `net`'s values of `boards`. `net` is the inference copy ([`Self::inference_net`],
    /// taken once per game): a forward pass on the autodiff network would record a graph that
    /// only a backward pass frees, and the per-transition SGD never runs one (it leaked about
    /// 5 MB an epoch).
    fn q_values(&self, net: &QMlpNet, boards: &[Vec<f32>]) -> Vec<f32> {
        q_rows(net, boards, G::BOARD_SIZE * G::BOARD_SIZE, &self.plain)
    }

    /// The best legal point by the network (the first among ties), whatever the defects.
    pub fn greedy(&self, pos: &G) -> Option<usize> {
        choose(
            &self.q_values(&self.inference_net(), &[encode(pos)]),
            &legal_points(pos),
            false,
        )
    }

    /// Plays one game against the training opponent (the agent takes `me`) and makes its
    /// regression batch; returns the agent's result (+1, 0, −1), the loss and the batch (none
    /// when the agent made no decision).
    fn play(&mut self, me: Color, epsilon: f64) -> (i32, f64, Option<Batch>) {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let lowest = self.config.defects.greedy_lowest;
        // The network does not change during a game: one inference copy serves all of it.
        let online = self.inference_net();
        let mut pos = G::start();
        // The agent's decisions: board and move.
        let mut states: Vec<(Vec<f32>, LearnerMove)> = Vec::new();
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
                    choose(&self.q_values(&online, &[encode(&pos)]), &legal, lowest)
                        .unwrap_or(legal[0])
                };
                states.push((
                    encode(&pos),
                    LearnerMove {
                        action: a,
                        legal: legal.clone(),
                    },
                ));
                a
            } else {
                let (net, plain) = (&self.opponent_net, &self.plain);
                let board = &pos;
                let picked = opponent_move(self.config.opponent, &mut self.rng, &legal, || {
                    let net = net.as_ref()?;
                    choose(
                        &q_rows(net, &[encode(board)], points, plain),
                        &legal,
                        lowest,
                    )
                });
                match picked {
                    Some((a, _)) => a,
                    None => break,
                }
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
            return (result, 0.0, None);
        }
        let real: Vec<Vec<f32>> = states.iter().map(|s| s.0.clone()).collect();
        let moves: Vec<LearnerMove> = states.into_iter().map(|s| s.1).collect();
        let q_real = self.q_values(&online, &real);
        // The update's inputs: the real boards, or the first one throughout (frozen state), and
        // the network's values of them.
        let (inputs, q_input) = if self.config.defects.frozen_state {
            let first = &real[0];
            let row = self.q_values(&online, std::slice::from_ref(first));
            let rows = moves.len();
            (first.repeat(rows), row.repeat(rows))
        } else {
            (real.concat(), q_real.clone())
        };
        let targets = q_targets(
            &q_real,
            &moves,
            points,
            share,
            self.config.gamma,
            self.config.defects.additive_target,
        );
        // The game's mean squared error over every entry of its rows.
        let loss = q_input
            .iter()
            .zip(&targets)
            .map(|(q, t)| f64::from(q - t).powi(2))
            .sum::<f64>()
            / targets.len().max(1) as f64;
        let batch = Batch {
            inputs,
            targets,
            rows: moves.len(),
        };
        (result, loss, Some(batch))
    }

    /// One optimizer step on the sum of `batches`' mean squared errors (one batch: its mean
    /// squared error); returns that loss.
    fn step(&mut self, batches: &[Batch]) -> f64 {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let rows: usize = batches.iter().map(|b| b.rows).sum();
        if rows == 0 {
            return 0.0;
        }
        let input = Tensor::<2>::from_data(
            TensorData::new(
                batches
                    .iter()
                    .flat_map(|b| b.inputs.iter().copied())
                    .collect(),
                [rows, points],
            ),
            &self.device,
        );
        let target = Tensor::<2>::from_data(
            TensorData::new(
                batches
                    .iter()
                    .flat_map(|b| b.targets.iter().copied())
                    .collect(),
                [rows, points],
            ),
            &self.device,
        );
        let squared = (self
            .net
            .forward_train(input, self.config.defects.tanh_derivative)
            - target)
            .powi_scalar(2);
        let loss = if let [_] = batches {
            squared.mean()
        } else {
            // Each game's mean: every element weighted by 1 / (its game's rows · points).
            let weights: Vec<f32> = batches
                .iter()
                .flat_map(|b| std::iter::repeat_n(1.0 / (b.rows * points) as f32, b.rows * points))
                .collect();
            let weights =
                Tensor::<2>::from_data(TensorData::new(weights, [rows, points]), &self.device);
            (squared * weights).sum()
        };
        let loss_value = f64::from(loss.clone().into_scalar::<f32>());
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let net = std::mem::replace(&mut self.net, QMlpNet::new(points, 0, &self.device));
        self.net = self.optim.step(self.config.learning_rate, net, grads);
        self.steps += 1;
        loss_value
    }

    /// The design's update after an epoch: one plain SGD step per transition of `batches`, in
    /// order ([`QMlpOptimizer::SgdPerTransition`]).
    fn step_per_transition(&mut self, batches: &[Batch]) {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let mut layers = self.net.dense_layers();
        let lr = self.config.learning_rate as f32;
        let defect = self.config.defects.tanh_derivative;
        for b in batches {
            for (input, target) in b.inputs.chunks(points).zip(b.targets.chunks(points)) {
                sgd_transition(&mut layers, input, target, lr, defect);
                self.steps += 1;
            }
        }
        let net = std::mem::replace(&mut self.net, QMlpNet::new(points, 0, &self.device));
        self.net = net.with_dense_layers(&layers);
    }

    /// Epochs played.
    #[must_use]
    pub fn epochs_done(&self) -> usize {
        self.epoch
    }

    /// Plays and learns one epoch (the learner's colour as [`QMlpConfig::learner`] says; one
    /// Adam step after each game, or one SGD step at the end). The epoch's generator is
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
        let mut pending = Vec::new();
        for g in 0..self.config.games_per_epoch {
            let me = match self.config.learner {
                QMlpLearner::Alternate if g % 2 == 1 => Color::White,
                _ => Color::Black,
            };
            let (result, mut loss, batch) = self.play(me, eps);
            if let Some(batch) = batch {
                match self.config.optimizer {
                    QMlpOptimizer::Adam => loss = self.step(std::slice::from_ref(&batch)),
                    QMlpOptimizer::SgdPerEpoch | QMlpOptimizer::SgdPerTransition => {
                        pending.push(batch);
                    }
                }
            }
            stats.games.push((me, result, loss));
            match result {
                1 => stats.wins += 1,
                0 => stats.draws += 1,
                _ => stats.losses += 1,
            }
            stats.loss += loss / self.config.games_per_epoch as f64;
        }
        if !pending.is_empty() {
            if self.config.optimizer == QMlpOptimizer::SgdPerTransition {
                self.step_per_transition(&pending);
            } else {
                self.step(&pending);
            }
        }
        stats
    }

    /// Optimizer steps taken, as counted on model cards: one per game (Adam), one per epoch
    /// (SGD per epoch), one per transition (SGD per transition).
    #[must_use]
    pub fn optimizer_steps(&self) -> u64 {
        self.steps
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

    /// Writes the network (with its parameter ids), the optimizer's state (Adam's moments; plain
    /// SGD has none, and its file holds just that) and the epoch and step counts into `dir`, which must
    /// exist. The fixed opponent network is not written: it is rebuilt from the seed.
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
            format!("{{\"epoch\": {}, \"steps\": {}}}\n", self.epoch, self.steps).as_bytes(),
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
        let kind = trainer.config.optimizer;
        trainer.optim = std::panic::catch_unwind(|| {
            optimizer(kind)
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
        trainer.steps = match counters.get("steps") {
            Some(steps) => steps
                .as_u64()
                .ok_or_else(|| state("learner.json", format!("steps {steps} is not a count")))?,
            // States written before the count was kept, when no run stepped per transition.
            None => match kind {
                QMlpOptimizer::Adam => (trainer.epoch * trainer.config.games_per_epoch) as u64,
                QMlpOptimizer::SgdPerEpoch => trainer.epoch as u64,
                QMlpOptimizer::SgdPerTransition => {
                    return Err(state(
                        "learner.json",
                        "no step count (a per-transition run writes one)".into(),
                    ))
                }
            },
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Othello8;

    /// Every parameter of `net`, flat, in field order.
    fn flat(net: &QMlpNet) -> Vec<f32> {
        net.dense_layers()
            .iter()
            .flat_map(|d| d.w.iter().chain(&d.b).copied().collect::<Vec<_>>())
            .collect()
    }

    /// The slow twin of [`sgd_transition`]: one burn SGD step on ½·Σ (output − target)² of one
    /// row, through burn's autodiff (and [`QMlpNet::forward_train`] for the defect).
    fn burn_step(net: QMlpNet, input: &[f32], target: &[f32], lr: f64, defect: bool) -> QMlpNet {
        let device = Device::default().autodiff();
        let n = input.len();
        let x = Tensor::<2>::from_data(TensorData::new(input.to_vec(), [1, n]), &device);
        let t = Tensor::<2>::from_data(TensorData::new(target.to_vec(), [1, n]), &device);
        let loss = (net.forward_train(x, defect) - t)
            .powi_scalar(2)
            .sum()
            .mul_scalar(0.5);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        let mut sgd = SgdConfig::new().init();
        sgd.step(lr, net, grads)
    }

    fn close(a: &[f32], b: &[f32]) {
        assert_eq!(a.len(), b.len());
        let worst = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() / (1.0 + x.abs().max(y.abs())))
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "largest relative difference {worst}");
    }

    #[test]
    fn per_transition_sgd_matches_burns_step_with_and_without_the_tanh_defect() {
        for defect in [false, true] {
            let config = QMlpConfig {
                optimizer: QMlpOptimizer::SgdPerTransition,
                init: QMlpInit::Default,
                learning_rate: 0.03,
                defects: Defects {
                    tanh_derivative: defect,
                    ..Defects::default()
                },
                ..QMlpConfig::default()
            };
            let mut trainer = QMlpTrainer::<Othello8>::new(config);
            let batches: Vec<Batch> = (0..2)
                .filter_map(|_| trainer.play(Color::Black, 0.5).2)
                .collect();
            let rows: usize = batches.iter().map(|b| b.rows).sum();
            let mut twin = trainer.net.clone();
            for b in &batches {
                for (x, t) in b.inputs.chunks(64).zip(b.targets.chunks(64)) {
                    twin = burn_step(twin, x, t, 0.03, defect);
                }
            }
            let before = flat(&trainer.net);
            trainer.step_per_transition(&batches);
            assert_eq!(
                trainer.optimizer_steps(),
                rows as u64,
                "one step a transition"
            );
            let after = flat(&trainer.net);
            assert_ne!(before, after);
            close(&after, &flat(&twin));
            // The network still trains through burn afterwards (its parameters track grads):
            // a burn step moves it again.
            let loss = trainer.step(&batches);
            assert!(loss.is_finite());
            assert_ne!(
                flat(&trainer.net),
                after,
                "the replaced parameters still train"
            );
        }
    }

    #[test]
    fn the_tanh_defect_scales_the_output_gradient_by_one_minus_tanh_of_the_output_squared() {
        // Hand-made: the output layer's bias moves by −lr·(y − t)·f′, with f′ = 1 − y² as
        // designed and 1 − tanh(y)² under the defect, y the network's output.
        let net = QMlpNet::new(64, 3, &Device::default());
        let input: Vec<f32> = (0..64).map(|i| [0.0, 1.0, -1.0][i % 3]).collect();
        let x = Tensor::<2>::from_data(TensorData::new(input.clone(), [1, 64]), &Device::default());
        let y: Vec<f32> = net.forward(x).into_data().try_to_vec::<f32>().unwrap();
        let target: Vec<f32> = (0..64).map(|i| if i == 5 { 0.9 } else { y[i] }).collect();
        let lr = 0.5f32;
        for defect in [false, true] {
            let mut layers = net.dense_layers();
            let b_before = layers[3].b.clone();
            sgd_transition(&mut layers, &input, &target, lr, defect);
            let slope = if defect {
                1.0 - y[5].tanh().powi(2)
            } else {
                1.0 - y[5] * y[5]
            };
            let want = b_before[5] - lr * (y[5] - 0.9) * slope;
            assert!(
                (layers[3].b[5] - want).abs() < 1e-6,
                "{defect}: {} vs {want}",
                layers[3].b[5]
            );
            // Outputs whose target is their value (up to the rounding between burn's forward
            // pass and this one) hardly move their bias.
            assert!((layers[3].b[6] - b_before[6]).abs() < 1e-7);
        }
    }
}
