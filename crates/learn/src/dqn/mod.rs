//! DQN over the Gym-style environment: a [`QNet`] learner with a replay buffer, a target
//! network, Adam on the mean squared TD error, and greedy / ε-greedy / UCT behaviour; games are
//! played several at a time so the network sees batches.

pub mod agent;
pub mod games;
pub mod learner;
pub mod self_play;
pub mod trainer;

pub use agent::DqnAgent;
pub use games::{end_rewards, evaluate, play_games, GameEnd, Seat};
pub use learner::DqnLearner;
pub use self_play::{SelfPlayStats, SelfPlayTrainer};
pub use trainer::{round_rng, DqnTrainer, EpisodeStats};

use burn::tensor::{Device, Tensor, TensorData};
use game::Game;
use search::{AgentError, Decision};
use serde::{Deserialize, Serialize};

use crate::encode::Encoding;
use crate::resnet::{QNet, QNetArch};

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

/// What the end of the game does to the reward of the move that ends it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReward {
    /// The result (±100, or ±1 scaled) is added to the last move's disc reward.
    #[default]
    Add,
    /// The result replaces the last move's reward (the reference design): the game-ending move
    /// earns each side only its result, ±100 (±1 scaled; 0 for a draw).
    Replace,
}

impl std::str::FromStr for EndReward {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "add" => Ok(EndReward::Add),
            "replace" => Ok(EndReward::Replace),
            _ => Err(format!("unknown end reward {s:?}: use add or replace")),
        }
    }
}

/// Whose moves a learner stores in its replay buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LearnFrom {
    /// Only the moves it chose.
    #[default]
    OwnMoves,
    /// Every move of the game, whoever chose it (the reference design's competitive regime:
    /// both networks insert every transition).
    EveryMove,
}

/// What a stored transition's next state is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transitions {
    /// The mover's own next decision: the opponent's reply is folded into the reward, and the
    /// result reaches both sides' last transitions (stonelab's).
    #[default]
    NextDecision,
    /// The board right after the move, with the opponent to move, and the mover's own reward
    /// for that move (the reference design: it inserts board before, action, reward, board
    /// after). The target maximises the network's values of that board over the legal points
    /// of the side to move there, as they are (the opponent's values, not negated); the result
    /// reaches only the side that made the last move.
    AfterMove,
}

impl std::str::FromStr for Transitions {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "next-decision" => Ok(Transitions::NextDecision),
            "after-move" => Ok(Transitions::AfterMove),
            _ => Err(format!(
                "unknown transitions {s:?}: use next-decision or after-move"
            )),
        }
    }
}

/// The training loss over a mini-batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QLoss {
    /// The squared TD error of the chosen action, averaged over the batch (stonelab's).
    #[default]
    Chosen,
    /// The mean over the batch and over every output of a target row that differs from the
    /// network's values only at the chosen action (the reference design's Keras `mse` on a
    /// full target row): the chosen action's squared error divided by the number of points.
    RowMean,
}

impl std::str::FromStr for QLoss {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "chosen" => Ok(QLoss::Chosen),
            "row-mean" => Ok(QLoss::RowMean),
            _ => Err(format!("unknown loss {s:?}: use chosen or row-mean")),
        }
    }
}

/// When the `uct` behaviour's visit counts grow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UctVisits {
    /// When a move is chosen: N(s) and N(s, a) of the position and the move played
    /// (stonelab's).
    #[default]
    OnChoice,
    /// In each training step, for every replayed transition: N(s) and N(s, a) of its state and
    /// action (the reference design's `train()`).
    OnReplay,
}

impl std::str::FromStr for UctVisits {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "on-choice" => Ok(UctVisits::OnChoice),
            "on-replay" => Ok(UctVisits::OnReplay),
            _ => Err(format!(
                "unknown UCT visit counting {s:?}: use on-choice or on-replay"
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
    /// The environment's `seed` rewards as they are: disc gain minus the opponent's change
    /// after every move, ±100 at the end (the reference design before its authors divided by
    /// 100).
    Seed,
}

impl Rewards {
    /// The environment's reward scheme behind these rewards.
    #[must_use]
    pub fn scheme(self) -> env::RewardScheme {
        match self {
            Rewards::Scaled => env::RewardScheme::Scaled,
            Rewards::Terminal => env::RewardScheme::Terminal,
            Rewards::Seed => env::RewardScheme::Seed,
        }
    }
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
    /// The input planes.
    #[serde(default)]
    pub encoding: Encoding,
    /// Whether the result is added to the last move's reward or replaces it.
    #[serde(default)]
    pub end_reward: EndReward,
    /// Gradient steps after each finished game, instead of one every `train_every`
    /// transitions (0: by transitions).
    #[serde(default)]
    pub steps_per_episode: usize,
    /// Whose moves the learner stores (with two learners in a game).
    #[serde(default)]
    pub learn_from: LearnFrom,
    /// What a transition's next state is (not written when it is the default, so earlier
    /// `config.json` files are written back as they were).
    #[serde(default, skip_serializing_if = "crate::config::is_default")]
    pub transitions: Transitions,
    /// The training loss (not written when it is the default).
    #[serde(default, skip_serializing_if = "crate::config::is_default")]
    pub q_loss: QLoss,
    /// When the `uct` behaviour's visit counts grow (not written when it is the default).
    #[serde(default, skip_serializing_if = "crate::config::is_default")]
    pub uct_visits: UctVisits,
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
            encoding: Encoding::Stones,
            end_reward: EndReward::Add,
            steps_per_episode: 0,
            learn_from: LearnFrom::OwnMoves,
            transitions: Transitions::NextDecision,
            q_loss: QLoss::Chosen,
            uct_visits: UctVisits::OnChoice,
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
        // Each names its command-line flag (config.json's key is its name in snake case, but
        // `learning_rate` for --lr and `replay_capacity` for --replay) and the value found.
        let checks: [(bool, String); 10] = [
            (
                (1..=4096).contains(&self.parallel),
                format!(
                    "--parallel {}: games played at once must be from 1 to 4096",
                    self.parallel
                ),
            ),
            (
                (1..=65_536).contains(&self.batch_size),
                format!("--batch-size {}: must be from 1 to 65536", self.batch_size),
            ),
            (
                (1..=10_000_000).contains(&self.replay_capacity),
                format!(
                    "--replay {}: the replay buffer holds from 1 to 10000000 transitions",
                    self.replay_capacity
                ),
            ),
            (
                self.train_every >= 1,
                format!("--train-every {}: must be at least 1", self.train_every),
            ),
            (
                (0.0..=1.0).contains(&self.gamma),
                format!("--gamma {}: the discount must be within [0, 1]", self.gamma),
            ),
            (
                self.learning_rate > 0.0 && self.learning_rate <= crate::run::MAX_LEARNING_RATE,
                format!(
                    "--lr {}: the learning rate must be above 0 and at most 10",
                    self.learning_rate
                ),
            ),
            (
                self.target_sync >= 1,
                format!("--target-sync {}: must be at least 1", self.target_sync),
            ),
            (
                (0.0..=1.0).contains(&self.epsilon_start),
                format!(
                    "--epsilon-start {}: ε must be within [0, 1]",
                    self.epsilon_start
                ),
            ),
            (
                (0.0..=1.0).contains(&self.epsilon_end),
                format!(
                    "--epsilon-end {}: ε must be within [0, 1]",
                    self.epsilon_end
                ),
            ),
            (
                self.uct_c >= 0.0 && self.uct_c.is_finite(),
                format!("--uct-c {}: must be a finite number, 0 or more", self.uct_c),
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, why)) => Err(why.clone()),
            // The board is not known here: the size check leaves out the board-sized dense
            // layer (a few hundred thousand weights at most), which the model's load counts.
            None => self.arch.check(self.encoding.planes(), 0),
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

impl From<DqnError> for crate::run::RunError {
    fn from(e: DqnError) -> Self {
        crate::run::RunError::Trainer(Box::new(e))
    }
}

/// Input planes for a batch of stored (mover cells, Black to move) pairs:
/// `[batch, planes, n, n]`, as `encoding` encodes them.
pub(crate) fn planes(
    boards: &[(&[i8], bool)],
    encoding: Encoding,
    n: usize,
    device: &Device,
) -> Tensor<4> {
    let points = n * n;
    let per = encoding.planes();
    let mut data = Vec::with_capacity(boards.len() * per * points);
    for (cells, black) in boards {
        encoding.encode_cells(cells, *black, points, &mut data);
    }
    Tensor::<4>::from_data(TensorData::new(data, [boards.len(), per, n, n]), device)
}

/// Action values of a batch of boards under `net` (an inference copy reading `encoding`'s
/// planes): one row of `n·n` per board.
pub fn q_values(
    net: &QNet,
    boards: &[(&[i8], bool)],
    encoding: Encoding,
    n: usize,
    device: &Device,
) -> Vec<f32> {
    if boards.is_empty() {
        return Vec::new();
    }
    net.forward(planes(boards, encoding, n, device))
        .into_data()
        .try_to_vec::<f32>()
        .unwrap_or_default()
}

/// A network agent's move in `pos`: a forced pass as is, else the legal point with the highest
/// of `values()` (one value per point, asked only when there is a choice; the lowest index among
/// ties), scored as an expected result ×100 (both networks estimate the result in [−1, 1]).
///
/// # Errors
/// [`AgentError::GameOver`] on a finished game; [`AgentError::Failed`] if the best point is no
/// move.
pub(crate) fn greedy_decision<G: Game>(
    pos: &G,
    values: impl FnOnce() -> Vec<f32>,
) -> Result<Decision<G::Move>, AgentError> {
    if pos.is_over() {
        return Err(AgentError::GameOver);
    }
    if let Some(pass) = pos.forced_pass() {
        return Ok(Decision::just(pass));
    }
    let q = values();
    let a = best(&q, &crate::encode::legal_points(pos)).ok_or(AgentError::GameOver)?;
    let mv = G::action_move(a).ok_or_else(|| AgentError::Failed("no move".into()))?;
    Ok(Decision {
        score: q.get(a).map(|v| (v * 100.0).round() as i32),
        scale: search::ScoreScale::Expectation,
        pv: vec![mv],
        ..Decision::just(mv)
    })
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
