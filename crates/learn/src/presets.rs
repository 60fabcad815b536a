//! Named presets: the exact training set-ups of the student designs (`seed000-*`: the Othello
//! DQN's three regimes; `seed001`: the Othello Q-learning MLP), as [`RunConfig`]s of the
//! general trainers.

use crate::config::{AlgoSettings, RunConfig};
use crate::dqn::{
    Behaviour, DqnConfig, EndReward, LearnFrom, QLoss, Rewards, Transitions, UctVisits,
};
use crate::encode::Encoding;
use crate::qmlp::Defects;
use crate::resnet::QNetArch;
use crate::run::RunError;

/// Every preset with what it reproduces.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "seed000-greedy",
        "Othello DQN, regime 1: one seed-resnet network in greedy self-play, 499 episodes",
    ),
    (
        "seed000-uct",
        "Othello DQN, regime 2: one seed-resnet network in UCT self-play, 399 episodes",
    ),
    (
        "seed000-competitive",
        "Othello DQN, regime 3: a black and a white network, both learning every transition, \
         9,999 episodes",
    ),
    (
        "seed001",
        "Othello Q-learning MLP: 2,000 epochs of 10 games against a 60%-random untrained net",
    ),
];

/// What a user may change in a preset without leaving the design.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PresetOptions {
    /// Seed of the network and the games.
    pub seed: u64,
    /// Episodes (training games) instead of the design's.
    pub episodes: Option<usize>,
    /// The Q-learning MLP's code defects to switch on (`seed001` only).
    pub defects: Defects,
}

/// The run settings of preset `name`.
///
/// # Errors
/// [`RunError::Settings`] for an unknown preset, or defects asked of a preset that has none.
pub fn preset(name: &str, opts: &PresetOptions) -> Result<RunConfig, RunError> {
    if name != "seed001" && opts.defects != Defects::default() {
        return Err(RunError::Settings(format!(
            "defect switches belong to seed001, not {name}"
        )));
    }
    match name {
        "seed000-greedy" => Ok(seed000(Regime::Greedy, opts)),
        "seed000-uct" => Ok(seed000(Regime::Uct, opts)),
        "seed000-competitive" => Ok(seed000(Regime::Competitive, opts)),
        "seed001" => Ok(seed001(opts)),
        _ => Err(RunError::Settings(format!(
            "unknown preset {name:?}; the presets: {}",
            PRESETS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The three training regimes of the reference DQN design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    /// Regime 1: one network, greedy self-play, 499 episodes.
    Greedy,
    /// Regime 2: one network, UCT self-play, 399 episodes.
    Uct,
    /// Regime 3: a black and a white network, 9,999 episodes.
    Competitive,
}

impl Regime {
    /// The episodes the authors trained for.
    #[must_use]
    pub fn design_episodes(self) -> usize {
        match self {
            Regime::Greedy => 499,
            Regime::Uct => 399,
            Regime::Competitive => 9_999,
        }
    }
}

/// The DQN settings of a `seed000` regime. From the design: the `seed-resnet` network, the
/// two-plane input (board 0/1/2, turn 1/2), one game at a time, one gradient step per episode,
/// the result (±100) replacing the last move's reward, no symmetry augmentation; transitions
/// as the design inserts them (board before the move, action, the mover's own reward, the
/// board right after the move: [`Transitions::AfterMove`]); the loss as its Keras `mse` on a
/// full target row ([`QLoss::RowMean`]); the target network copied every 30 episodes
/// (regimes 1–2) or after every episode (regime 3); the UCT behaviour in regimes 2 and 3
/// ("DQN + UCT Policy" for both networks in regime 3), its visit counts grown in training for
/// the replayed transitions ([`UctVisits::OnReplay`]); regime 3's networks both store every
/// transition and learn from rewards divided by 100 (the authors' fix), regimes 1–2 from the
/// raw rewards. The design does not state the mini-batch size, the buffer size, the discount,
/// the learning rate or the UCT constant: stonelab's defaults stand in for them (batch 64,
/// 100,000 transitions, γ 0.99, Adam 5e-4, c 0.3), and the first step waits until the buffer
/// holds one batch.
#[must_use]
pub fn seed000_dqn(regime: Regime, seed: u64, episodes: usize) -> DqnConfig {
    let base = DqnConfig::default();
    DqnConfig {
        arch: QNetArch::SeedResnet,
        behaviour: match regime {
            Regime::Greedy => Behaviour::Greedy,
            Regime::Uct | Regime::Competitive => Behaviour::Uct,
        },
        rewards: if regime == Regime::Competitive {
            Rewards::Scaled
        } else {
            Rewards::Seed
        },
        parallel: 1,
        warmup: base.batch_size,
        train_every: 1,
        target_sync: if regime == Regime::Competitive { 1 } else { 30 },
        // Read by no regime (none explores by ε); kept as the run's default.
        epsilon_decay: episodes * 3 / 10,
        augment: false,
        seed,
        encoding: Encoding::Seed,
        end_reward: EndReward::Replace,
        steps_per_episode: 1,
        learn_from: if regime == Regime::Competitive {
            LearnFrom::EveryMove
        } else {
            LearnFrom::OwnMoves
        },
        transitions: Transitions::AfterMove,
        q_loss: QLoss::RowMean,
        uct_visits: UctVisits::OnReplay,
        ..base
    }
}

/// A `seed000` regime as a run: `dqn-self-play` (regimes 1–2) or `dqn-competitive`
/// (regime 3) on 8x8 Othello, a checkpoint every 100 episodes as the design saves, an
/// evaluation against random and greedy every fifth of the run (50 games).
fn seed000(regime: Regime, opts: &PresetOptions) -> RunConfig {
    let episodes = opts.episodes.unwrap_or(regime.design_episodes()).max(1);
    RunConfig {
        algo: if regime == Regime::Competitive {
            "dqn-competitive"
        } else {
            "dqn-self-play"
        }
        .into(),
        game: "othello8".into(),
        episodes,
        eval_every: (episodes / 5).max(1),
        eval_games: 50,
        checkpoint_every: 100,
        opponent: "random".into(),
        settings: AlgoSettings::Dqn(seed000_dqn(regime, opts.seed, episodes)),
        eval_opponents: Vec::new(),
    }
}

/// `seed001`: the Q-learning MLP as designed, on 8x8 Othello: 2,000 epochs of 10 games
/// (20,000 episodes, or `opts.episodes`), the learner always Black, every weight and bias from
/// N(0, 1), plain SGD at 0.03 after each epoch, one step per transition of the epoch as the
/// design's `updateWeights` calls `backProp` (`QMlpOptimizer::SgdPerTransition`), against an
/// opponent that plays a random legal move 60% of the time and otherwise the best point of a
/// fixed untrained network of the same shape (N(0, 1) too, seeded from the run's
/// seed); ε-greedy as the corrected trainer (`qmlp::epsilon`) and its targets (γ 0.99, the
/// value the design passes), with the design's code defects switched on as `opts.defects` says.
/// An evaluation (200 games) and a checkpoint every 2,000 episodes.
fn seed001(opts: &PresetOptions) -> RunConfig {
    use crate::qmlp::{QMlpInit, QMlpLearner, QMlpOpponent, QMlpOptimizer};
    RunConfig {
        algo: "q-mlp".into(),
        game: "othello8".into(),
        episodes: opts.episodes.unwrap_or(20_000).max(1),
        eval_every: 2_000,
        eval_games: 200,
        checkpoint_every: 2_000,
        // Not used by q-mlp, which trains against `q_mlp.opponent` (the run's `opponent` is
        // the DQN trainers' training opponent).
        opponent: "random".into(),
        eval_opponents: Vec::new(),
        settings: AlgoSettings::QMlp(crate::qmlp::QMlpSettings {
            games_per_epoch: 10,
            gamma: 0.99,
            learning_rate: 0.03,
            seed: opts.seed,
            learner: QMlpLearner::Black,
            opponent: QMlpOpponent::Mixed { random: 0.6 },
            init: QMlpInit::Normal,
            optimizer: QMlpOptimizer::SgdPerTransition,
            defects: opts.defects,
        }),
    }
}
