//! The options of `stonelab train` as a library type ([`TrainOptions`], a clap argument
//! group) and what turns them into a run's settings: the preset or the flags into a
//! [`RunConfig`], the pattern pipeline's [`PatternConfig`], and the checks that refuse an option
//! the chosen algorithm does not read.

use std::path::{Path, PathBuf};

use clap::Args as _;
use othello_engine::train::{PatternConfig, DEFAULT_EXACT_REST};

use crate::algos::{self, Algorithm, Settings};
use crate::config::{AlgoSettings, RunConfig};
use crate::qmlp::{QMlpInit, QMlpLearner, QMlpOpponent, QMlpOptimizer, QMlpSettings};
use crate::{
    Behaviour, DqnConfig, Encoding, EndReward, LearnFrom, QLoss, QNetArch, Rewards, Transitions,
    UctVisits,
};

/// An option the command cannot take, in the command line's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OptionError(pub String);

/// `Err(OptionError)` with a formatted message.
macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err(OptionError(format!($($arg)*)))
    };
}

/// Q-network kinds on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ArchArg {
    /// Full-resolution residual network (`--blocks` x `--channels`).
    Resnet,
    /// The reference design: 7x7 stride-2 stem, max-pool, 3x64 + 4x128 blocks, pooling.
    SeedResnet,
}

/// The options of `stonelab train` (all but the algorithm and the game): what a command line
/// or a Python call gives; [`TrainOptions::run_config`] and the other methods turn them into a
/// run's settings, refusing those the algorithm does not read.
#[derive(clap::Args, Debug, Clone)]
pub struct TrainOptions {
    /// A named preset: a student design's exact set-up (seed000-greedy, seed000-uct:
    /// dqn-self-play; seed000-competitive: dqn-competitive; seed001: q-mlp). Only --episodes,
    /// --seed, --defect and the run's schedule (--eval-every, --eval-games,
    /// --checkpoint-every) may change it.
    #[arg(long, conflicts_with_all = [
        "opponent", "arch", "blocks", "channels", "behaviour", "rewards", "batch_size", "replay",
        "warmup", "train_every", "parallel", "gamma", "lr", "target_sync", "epsilon_start",
        "epsilon_end", "epsilon_decay", "uct_c", "no_augment", "encoding", "end_reward",
        "steps_per_episode", "learn_from", "transitions", "q_loss", "uct_visits",
        "always_black", "opponent_mix", "normal_init",
        "sgd_per_epoch", "sgd_per_transition", "eval_opponents",
    ])]
    pub preset: Option<String>,
    /// seed001: switch on one of the design's code defects (repeatable): greedy-lowest (the
    /// greedy move takes the lowest value), frozen-state (every update uses the first
    /// position), additive-target (the target adds γ·max over all outputs to the current Q),
    /// tanh-derivative (each tanh layer's derivative is 1 − tanh(y)² of its output y).
    #[arg(long, value_enum, requires = "preset")]
    pub defect: Vec<DefectArg>,
    /// Training games (default: q-table 2,000,000; q-mlp 3,000; the dqn trainers 4,000; a
    /// preset: its design's).
    /// With --resume: the new total.
    #[arg(long)]
    pub episodes: Option<usize>,
    /// The run's folder (created; an existing run is refused unless --force or --resume).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the network, the exploration and the opponents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Continue the run in --out from its last checkpoint (its config.json rules; --episodes
    /// may raise the total).
    #[arg(long)]
    pub resume: bool,
    /// Overwrite an existing run folder.
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// The clap ids of the options given on the command line (not defaults; see
    /// [`given_ids`]): options an algorithm does not read are refused, and a resume warns
    /// about those it does not apply.
    #[arg(skip)]
    pub given: Vec<String>,
    /// q-table: evaluations (against the exact solution) over the run, at most one per
    /// episode.
    #[arg(long, default_value_t = 20)]
    pub evals: usize,
    /// Evaluate against random and greedy every this many episodes (default: episodes / 20).
    /// Evaluations happen between rounds (dqn: --parallel games; q-mlp: 10), after the first
    /// round that reaches each multiple: with 16 games a round, 50 means episodes 64, 112, 160,
    /// 208, … (the run says so when it starts). Choose a multiple of the round for exact steps.
    #[arg(long)]
    pub eval_every: Option<usize>,
    /// Games per evaluation and opponent, colours swapped.
    #[arg(long, default_value_t = 200)]
    pub eval_games: usize,
    /// Checkpoint every this many episodes (default: episodes / 10); like --eval-every, after
    /// the first round that reaches each multiple.
    #[arg(long)]
    pub checkpoint_every: Option<usize>,
    /// Worker threads for the network (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// dqn: the opponent's spec (any agent of the game, e.g. greedy or alphabeta:depth=1).
    #[arg(long, default_value = "random")]
    pub opponent: String,
    /// dqn: the Q-network.
    #[arg(long, value_enum, default_value_t = ArchArg::Resnet)]
    pub arch: ArchArg,
    /// dqn resnet: residual blocks.
    #[arg(long, default_value_t = 3)]
    pub blocks: usize,
    /// dqn resnet: channels per block.
    #[arg(long, default_value_t = 32)]
    pub channels: usize,
    /// dqn: behaviour policy (greedy, epsilon, uct).
    #[arg(long, default_value = "epsilon")]
    pub behaviour: Behaviour,
    /// dqn: rewards (scaled: disc changes/100 and ±1 at the end; terminal: ±1 only).
    #[arg(long, value_enum, default_value_t = RewardsArg::Scaled)]
    pub rewards: RewardsArg,
    /// Mini-batch size (default: dqn 64; cnn/mlp-supervised 1024, the paper's).
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// dqn: replay buffer capacity (transitions).
    #[arg(long, default_value_t = 100_000)]
    pub replay: usize,
    /// dqn: transitions collected before learning starts.
    #[arg(long, default_value_t = 2_000)]
    pub warmup: usize,
    /// dqn: new transitions per gradient step.
    #[arg(long, default_value_t = 8)]
    pub train_every: usize,
    /// dqn: games played at once.
    #[arg(long, default_value_t = 16)]
    pub parallel: usize,
    /// Discount.
    #[arg(long, default_value_t = 0.99)]
    pub gamma: f32,
    /// Adam learning rate (default: dqn 5e-4, q-mlp 1e-3).
    #[arg(long)]
    pub lr: Option<f64>,
    /// dqn: episodes between target-network syncs.
    #[arg(long, default_value_t = 30)]
    pub target_sync: usize,
    /// dqn: ε at the start.
    #[arg(long, default_value_t = 1.0)]
    pub epsilon_start: f64,
    /// dqn: ε at the end of the decay.
    #[arg(long, default_value_t = 0.05)]
    pub epsilon_end: f64,
    /// dqn: episodes of linear ε decay (default: 30% of the episodes).
    #[arg(long)]
    pub epsilon_decay: Option<usize>,
    /// dqn uct: exploration constant.
    #[arg(long, default_value_t = 0.3)]
    pub uct_c: f32,
    /// dqn: no symmetry augmentation of the sampled transitions.
    #[arg(long)]
    pub no_augment: bool,
    /// dqn: the input planes (stones: mover, opponent, Black to move; seed: the board as
    /// 0/1/2 and the turn as 1/2).
    #[arg(long, default_value = "stones")]
    pub encoding: Encoding,
    /// dqn: whether the result is added to the last move's reward or replaces it.
    #[arg(long, default_value = "add")]
    pub end_reward: EndReward,
    /// dqn: gradient steps after each game instead of one every --train-every transitions
    /// (0: by transitions).
    #[arg(long, default_value_t = 0)]
    pub steps_per_episode: usize,
    /// dqn-competitive: whose moves each network stores (own-moves, every-move).
    #[arg(long, value_enum, default_value_t = LearnFromArg::OwnMoves)]
    pub learn_from: LearnFromArg,
    /// dqn: a stored transition's next state: next-decision (the mover's own next decision,
    /// the reply folded into the reward) or after-move (the board right after the move, the
    /// seed000 design's).
    #[arg(long, default_value = "next-decision")]
    pub transitions: Transitions,
    /// dqn: the training loss: chosen (the chosen action's squared TD error) or row-mean (that
    /// error over every output of the row, the seed000 design's Keras mse).
    #[arg(long, default_value = "chosen")]
    pub q_loss: QLoss,
    /// dqn uct: when the visit counts grow: on-choice (when a move is played) or on-replay
    /// (for each replayed transition in a training step, the seed000 design's).
    #[arg(long, default_value = "on-choice")]
    pub uct_visits: UctVisits,
    /// q-mlp: the learner always plays Black (default: colours alternate).
    #[arg(long)]
    pub always_black: bool,
    /// q-mlp: train against a player that moves at random with this probability and otherwise
    /// as a fixed untrained network of the learner's shape (default: always random).
    #[arg(long)]
    pub opponent_mix: Option<f64>,
    /// q-mlp: draw every weight and bias from N(0, 1) (default: burn's initialisation).
    #[arg(long)]
    pub normal_init: bool,
    /// q-mlp: plain SGD once per epoch instead of Adam after each game.
    #[arg(long, conflicts_with = "sgd_per_transition")]
    pub sgd_per_epoch: bool,
    /// q-mlp: plain SGD after each epoch, one step per transition (the design's) instead of
    /// Adam after each game.
    #[arg(long)]
    pub sgd_per_transition: bool,
    /// Evaluation opponent (repeatable; default: random and greedy), any agent spec of the
    /// game, e.g. alphabeta:depth=2 or mlp-minimax:model=runs/mlp/checkpoints/last.safetensors.
    #[arg(long = "eval-opponent")]
    pub eval_opponents: Vec<String>,
    /// cnn/mlp-supervised, cnn-selfplay: the value dataset folder (`stonelab data wthor --out
    /// DIR`).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// cnn/mlp-supervised: the network, e.g. cnn:16.16,k3,64 (filters of each 3x3
    /// convolution, kernel, dense units) or mlp:256.128 (default: cnn:16.16,k3,64 and
    /// mlp:256.128).
    #[arg(long)]
    pub net: Option<String>,
    /// cnn-supervised: how the 8 mobility planes are read (at-most: plane k marks the moves
    /// leaving at most k-1 replies; exactly: exactly k-1, the last 7 or more).
    #[arg(long, default_value = "at-most")]
    pub mobility: crate::Mobility,
    /// cnn/mlp-supervised: merged (over the 8 symmetries) or raw states.
    #[arg(long, default_value = "merged")]
    pub symmetries: crate::value::DataSymmetries,
    /// cnn/mlp-supervised: the paper's frequency split or the split by game.
    #[arg(long, default_value = "frequency")]
    pub split: crate::value::DataSplit,
    /// cnn/mlp-supervised: train on a seeded random subset of this many states.
    #[arg(long)]
    pub max_train: Option<usize>,
    /// cnn/mlp-supervised: measure the test loss on a seeded random subset of this many
    /// states.
    #[arg(long)]
    pub max_test: Option<usize>,
    /// cnn-selfplay: the supervised run (its checkpoints/last.safetensors) or model file to
    /// start from; probcut: the pattern weights searched with (default: the bundled ones).
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// Minimax depth of the value-network agents (cnn-selfplay's players, default the
    /// reading's: 3 for the paper's; the
    /// supervised runs' evaluation games, default 1); patterns: of the self-play games
    /// (default 4); probcut: the deepest search fitted (default 10).
    #[arg(long)]
    pub depth: Option<u32>,
    /// cnn-selfplay: full-batch Adam epochs on each game's positions (default 10, or the
    /// reading's).
    #[arg(long, default_value_t = 10)]
    pub epochs_per_game: usize,
    /// cnn-selfplay: a named reading of the paper's self-play (default paper; frozen, gated,
    /// adam-carried, adam-reset, steps-1, lr-1e-4, lr-1e-5, initial, depth-2, depth-4,
    /// turn-zeroed; an unknown name lists them); --depth, --lr and
    /// --epochs-per-game given beside it override it.
    #[arg(long)]
    pub reading: Option<String>,
    /// patterns: the WTHOR folder (`WTH_*.wtb`).
    #[arg(long, default_value = "data/othello/wthor")]
    pub wthor: PathBuf,
    /// patterns: only the first this many games (0: all), for quick runs.
    #[arg(long, default_value_t = 0)]
    pub max_games: usize,
    /// patterns: record positions with at most this many empty squares get the exact solver's
    /// score (the others their game's perfect-play result, then a search's score).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=24))]
    pub exact_empties: u32,
    /// patterns: only this seeded fraction of the record games is solved exactly up to
    /// --exact-empties; the others are solved up to --exact-rest, and their positions above
    /// that, up to --exact-empties, are left out, so every record label within --exact-empties
    /// stays exact (1: every game).
    #[arg(long, default_value_t = 1.0)]
    pub exact_fraction: f64,
    /// patterns: with --exact-fraction below 1, the other record games are solved exactly up
    /// to this many empty squares [default: 16].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=24))]
    pub exact_rest: Option<u32>,
    /// patterns: record positions above --exact-empties are relabelled by a search this many
    /// plies deep with the first fit (0: they keep their game's perfect-play result).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=12))]
    pub search_depth: u32,
    /// patterns: the relabelling searches prune with the bundled Multi-ProbCut table at this
    /// many standard deviations (0: full width, about three times slower at 6 plies).
    #[arg(long, default_value_t = 1.5)]
    pub search_probcut: f64,
    /// patterns: self-play games are solved exactly from this many empties (their positions
    /// there too).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=24))]
    pub self_play_exact: u32,
    /// patterns: the record position at 24 empties keeps its game's theoretical score (the
    /// WTHOR files' perfect-play result from 24 empties) as an exact label instead of a search's.
    #[arg(long)]
    pub theoretical_exact: bool,
    /// patterns: self-play positions above the self-play games' exact zone are relabelled by
    /// the records' search (--search-depth) instead of keeping their game's result.
    #[arg(long)]
    pub self_play_search: bool,
    /// patterns: fit pattern set 2, the shapes plus tables of both sides' legal moves along
    /// the edges (33,168 more weights a stage; see docs/othello-engine.md).
    #[arg(long)]
    pub edge_mobility: bool,
    /// patterns: after the final fit, fit a correction network of this many hidden units to
    /// what the pattern weights leave over (the `othello` engine adds it at the midgame's
    /// leaves; 0: none; the bundled network has 64).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=512))]
    pub correction: u32,
    /// patterns: passes of the correction network's fit over the training positions.
    #[arg(long, default_value_t = othello_engine::train::DEFAULT_CORRECTION_EPOCHS, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub correction_epochs: u32,
    /// patterns: the correction network also reads each side's frontier discs (those next to
    /// an empty square): six input planes instead of four.
    #[arg(long)]
    pub correction_frontier: bool,
    /// patterns: the correction network reads positions as given, not each position's
    /// canonical image (the least of its 8 symmetries): its values then differ between the
    /// images of a position (how networks were fitted before; for comparison only).
    #[arg(long)]
    pub correction_as_played: bool,
    /// patterns: empty squares per stage of weights.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=61))]
    pub stage_width: u8,
    /// patterns: the ridge penalty of each pattern weight (a weight seen k times keeps about
    /// k/(k+λ) of its least-squares value).
    #[arg(long, default_value_t = 4.0)]
    pub lambda: f64,
    /// patterns: most conjugate-gradient iterations per stage.
    #[arg(long, default_value_t = 300)]
    pub iterations: usize,
    /// probcut: record positions searched.
    #[arg(long)]
    pub positions: Option<usize>,
    /// patterns: each stage also fits the positions within this many empties of its own
    /// (smoother stages, five times the data each at the default).
    #[arg(long, default_value_t = 4)]
    pub blend: u32,
    /// patterns: self-play games (the first fit's engine, both sides) added before the final
    /// fit; 0 fits the records only.
    #[arg(long, default_value_t = 2000)]
    pub self_play_games: usize,
    /// patterns: this fraction of the record positions also gives the position after a random
    /// legal move, labelled by the --search-depth search (positions a search meets that the
    /// records rarely show); 0 for none.
    #[arg(long, default_value_t = 0.0)]
    pub deviations: f64,
    /// alphazero: simulations of a full self-play search (default 32).
    #[arg(long)]
    pub sims: Option<u32>,
    /// alphazero: the Gumbel root's considered actions; 0 searches PUCT roots with Dirichlet
    /// noise (default 16).
    #[arg(long)]
    pub gumbel: Option<usize>,
    /// alphazero: self-play games per iteration (one episode of the run; default 64).
    #[arg(long)]
    pub iteration_games: Option<usize>,
    /// alphazero: games played at once, their leaves in one network batch (default 32).
    #[arg(long)]
    pub concurrent: Option<usize>,
    /// alphazero: the share of moves searched in full and trained on (playout-cap
    /// randomisation; 1: every move; default 0.25).
    #[arg(long)]
    pub full_share: Option<f32>,
    /// alphazero: simulations of the cheap searches (default 8).
    #[arg(long)]
    pub fast_sims: Option<u32>,
    /// alphazero: positions the replay window keeps (default 50,000; othello4 20,000).
    #[arg(long)]
    pub window: Option<usize>,
    /// alphazero (Othello): the exact solver at leaves with at most this many empties
    /// (default 8; 0: off).
    #[arg(long)]
    pub solver_empties: Option<u32>,
    /// alphazero: no auxiliary final-margin head.
    #[arg(long)]
    pub no_margin_head: bool,
    /// alphazero: gate games against the best network each iteration (0: none, the default).
    #[arg(long)]
    pub gate_games: Option<usize>,
    /// alphazero: simulations of the evaluation games (default 64).
    #[arg(long)]
    pub eval_sims: Option<u32>,
    /// alphazero: each self-play game opens with 0 to this many random moves, not trained on
    /// (default: othello4 8, else 0).
    #[arg(long)]
    pub random_opening: Option<u32>,
    /// alphazero: how often each new sample is drawn for training on average (default 4).
    #[arg(long)]
    pub sample_reuse: Option<f32>,
    /// alphazero: plies at the start of each game drawn in proportion to the visits (PUCT
    /// roots; default 8).
    #[arg(long)]
    pub temperature_plies: Option<u32>,
    /// alphazero: the value target's weight on the full search's root value, 0..=1 (default
    /// 0: the game's result alone).
    #[arg(long)]
    pub q_weight: Option<f32>,
    /// alphazero: from iteration EPISODE on, train at learning rate LR (repeatable, ascending;
    /// e.g. `--lr-drop 100:5e-4 --lr-drop 150:1e-4`).
    #[arg(long, value_name = "EPISODE:LR")]
    pub lr_drop: Vec<String>,
}

/// Whose moves a competitive learner stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LearnFromArg {
    /// Only the moves it chose.
    OwnMoves,
    /// Every move of the game.
    EveryMove,
}

/// The Q-learning MLP design's code defects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DefectArg {
    /// The "greedy" move takes the lowest Q-value.
    GreedyLowest,
    /// Every update uses the game's first position as its state.
    FrozenState,
    /// The target adds γ·max Q(next) over all outputs to the current Q.
    AdditiveTarget,
    /// Each tanh layer's derivative is 1 − tanh(y)² of its output y instead of 1 − y².
    TanhDerivative,
}

/// The defect switches of `--defect` values.
pub fn defects(list: &[DefectArg]) -> crate::qmlp::Defects {
    let mut d = crate::qmlp::Defects::default();
    for x in list {
        match x {
            DefectArg::GreedyLowest => d.greedy_lowest = true,
            DefectArg::FrozenState => d.frozen_state = true,
            DefectArg::AdditiveTarget => d.additive_target = true,
            DefectArg::TanhDerivative => d.tanh_derivative = true,
        }
    }
    d
}

/// Reward options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RewardsArg {
    /// Disc changes / 100 after every move, ±1 at the end.
    Scaled,
    /// ±1 at the end only.
    Terminal,
    /// Disc changes after every move, ±100 at the end (unscaled).
    Seed,
}

/// The ids of the options `matches` took from the command line (not defaults).
#[must_use]
pub fn given_ids(matches: &clap::ArgMatches) -> Vec<String> {
    matches
        .ids()
        .filter(|id| {
            matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
        })
        .map(|id| id.as_str().to_string())
        .collect()
}

/// The long flag (without `--`) of the option `id`; `None` for an id that is not an option
/// (clap also reports the struct's own group).
#[must_use]
pub fn long_flag(id: &str) -> Option<String> {
    // Built once: the checks ask for many flags.
    static COMMAND: std::sync::OnceLock<clap::Command> = std::sync::OnceLock::new();
    COMMAND
        .get_or_init(|| TrainOptions::augment_args(clap::Command::new("train")))
        .get_arguments()
        .find(|a| a.get_id().as_str() == id)
        .and_then(clap::Arg::get_long)
        .map(ToString::to_string)
}

/// The options a resumed run of the framework takes from the command line; its config.json
/// gives the rest.
const RESUME_OPTIONS: &[&str] = &[
    "algo", "out", "resume", "episodes", "quiet", "threads", "game",
];

/// Refuses options given (`given`: their clap ids) that `algo` does not read, naming each
/// with the algorithms that do, instead of ignoring them.
///
/// # Errors
/// The first such option.
pub fn check_options(algo: &Algorithm, given: &[String]) -> Result<(), OptionError> {
    for id in given {
        // Ids no algorithm reads are not options (clap's own group of the struct).
        let names = algos::readers(id);
        if names.is_empty() || algo.reads(id) {
            continue;
        }
        let flag = long_flag(id).unwrap_or_else(|| id.replace('_', "-"));
        refuse!(
            "--{flag} is not a setting of `train {}`: it applies to {}",
            algo.name,
            names.join(", ")
        );
    }
    Ok(())
}

/// The options given to a resumed run of the framework (`given`: clap ids) that it does not
/// apply, as flags: the run's config.json rules them. Empty for other algorithms, which check
/// their own.
#[must_use]
pub fn ignored_on_resume(algo: &Algorithm, given: &[String]) -> Vec<String> {
    if !algo.is_run() {
        return Vec::new();
    }
    given
        .iter()
        .filter(|id| !RESUME_OPTIONS.contains(&id.as_str()))
        .filter_map(|id| long_flag(id))
        .map(|flag| format!("--{flag}"))
        .collect()
}

impl TrainOptions {
    /// The options as given on no command line: every default.
    #[must_use]
    pub fn defaults() -> TrainOptions {
        let command = TrainOptions::augment_args(clap::Command::new("train").no_binary_name(true));
        let parsed = command
            .try_get_matches_from(["--out", "."])
            .and_then(|m| <TrainOptions as clap::FromArgMatches>::from_arg_matches(&m));
        let mut options = parsed.unwrap_or_else(|e| unreachable!("the defaults parse: {e}"));
        options.out = PathBuf::new();
        options
    }

    /// Whether the option `id` was given.
    fn given(&self, id: &str) -> bool {
        self.given.iter().any(|g| g == id)
    }

    /// The settings of a new `algo` run on `game`: the preset's, or the flags'.
    ///
    /// # Errors
    /// An option the run cannot take, a preset of another algorithm or game, or settings out
    /// of range.
    pub fn run_config(&self, algo: &Algorithm, game: &str) -> Result<RunConfig, OptionError> {
        let run = self.preset_or_flag_config(algo, game)?;
        run.check_whole_epochs()
            .map_err(|e| OptionError(e.to_string()))?;
        Ok(run)
    }

    /// The warning for a resumed run given options it does not apply: those options, and the
    /// settings where `stored` (its config.json) differs from the run these options would
    /// start (the defaults for those not given). `None` when there is no such setting (the
    /// same command again with `--resume`).
    #[must_use]
    pub fn resume_warning(
        &self,
        algo: &Algorithm,
        game: &str,
        stored: &RunConfig,
    ) -> Option<String> {
        let ignored = ignored_on_resume(algo, &self.given);
        if ignored.is_empty() {
            return None;
        }
        let general = format!(
            "{} not applied: a resumed run keeps its config.json settings (only --episodes, \
             --threads and --quiet change)",
            ignored.join(", ")
        );
        // The run these options would start, set beside the stored one. Settings that follow
        // the number of episodes (a schedule not given, say) are not compared: a resume may
        // have raised the total since the run began.
        let at = |episodes: usize| {
            let mut with = self.clone();
            with.episodes = Some(episodes);
            with.preset_or_flag_config(algo, game)
                .ok()
                .and_then(|run| serde_json::to_value(run).ok())
        };
        let (Some(fresh), Some(other), Ok(stored)) = (
            at(stored.episodes),
            at(stored.episodes.saturating_mul(3).saturating_add(7)),
            serde_json::to_value(stored),
        ) else {
            return Some(general);
        };
        let mut derived = Vec::new();
        crate::run::json_differences("", &fresh, &other, &[], &mut derived);
        let derived: Vec<&str> = derived.iter().map(|(path, _, _)| path.as_str()).collect();
        let mut found = Vec::new();
        crate::run::json_differences("", &fresh, &stored, &derived, &mut found);
        let differences: Vec<String> = found
            .iter()
            .map(|(path, fresh, stored)| {
                format!("{path}: {stored} (a new run with this command line: {fresh})")
            })
            .collect();
        if differences.is_empty() {
            return None;
        }
        let shown = differences.len().min(6);
        let more = if differences.len() > shown {
            format!(" and {} more", differences.len() - shown)
        } else {
            String::new()
        };
        Some(format!(
            "{general}; config.json keeps {}{more}",
            differences[..shown].join(", ")
        ))
    }

    /// [`Self::run_config`] before its checks.
    fn preset_or_flag_config(
        &self,
        algo: &Algorithm,
        game: &str,
    ) -> Result<RunConfig, OptionError> {
        let Some(name) = &self.preset else {
            return self.flag_config(algo, game);
        };
        let mut run = crate::presets::preset(
            name,
            &crate::presets::PresetOptions {
                seed: self.seed,
                episodes: self.episodes,
                defects: defects(&self.defect),
            },
        )
        .map_err(|e| OptionError(format!("--preset: {e}")))?;
        if run.algo != algo.name {
            refuse!(
                "--preset {name} is a {} run: stonelab train {} --preset {name} ...",
                run.algo,
                run.algo
            );
        }
        if run.game != game {
            refuse!("--preset {name} trains on {}, not {game}", run.game);
        }
        if let Some(every) = self.eval_every {
            run.eval_every = every;
        }
        run.eval_games = self.eval_games;
        if let Some(every) = self.checkpoint_every {
            run.checkpoint_every = every;
        }
        Ok(run)
    }

    /// The run's settings from the algorithm flags.
    fn flag_config(&self, algo: &Algorithm, game: &str) -> Result<RunConfig, OptionError> {
        let episodes = self.episodes.unwrap_or(algo.defaults.episodes);
        let settings = match algo.settings {
            Settings::Dqn => {
                self.check_dqn_options()?;
                AlgoSettings::Dqn(self.dqn_config(episodes))
            }
            Settings::QMlp => {
                self.check_dqn_options()?;
                AlgoSettings::QMlp(self.q_mlp_settings())
            }
            Settings::Supervised { net } => AlgoSettings::Supervised(self.supervised(algo, net)?),
            Settings::ValueSelfPlay => AlgoSettings::ValueSelfPlay(self.value_self_play()?),
            Settings::ValueIteration => AlgoSettings::ValueIteration(self.value_iteration()?),
            Settings::AlphaZero => AlgoSettings::AlphaZero(self.alphazero(game)?),
            Settings::QTable | Settings::Patterns | Settings::ProbCut => {
                refuse!(
                    "{} does not run in a run folder of the framework",
                    algo.name
                )
            }
        };
        Ok(RunConfig {
            algo: algo.name.into(),
            game: game.to_string(),
            episodes,
            eval_every: self
                .eval_every
                .unwrap_or(algo.defaults.eval_every.period(episodes)),
            eval_games: self.eval_games,
            checkpoint_every: self
                .checkpoint_every
                .unwrap_or(algo.defaults.checkpoint_every.period(episodes)),
            opponent: self.opponent.clone(),
            settings,
            eval_opponents: self.eval_opponents.clone(),
        })
    }

    /// The DQN settings.
    fn dqn_config(&self, episodes: usize) -> DqnConfig {
        DqnConfig {
            arch: match self.arch {
                ArchArg::Resnet => QNetArch::Resnet {
                    blocks: self.blocks,
                    channels: self.channels,
                },
                ArchArg::SeedResnet => QNetArch::SeedResnet,
            },
            behaviour: self.behaviour,
            rewards: match self.rewards {
                RewardsArg::Scaled => Rewards::Scaled,
                RewardsArg::Terminal => Rewards::Terminal,
                RewardsArg::Seed => Rewards::Seed,
            },
            parallel: self.parallel,
            batch_size: self.batch_size.unwrap_or(64),
            replay_capacity: self.replay,
            warmup: self.warmup,
            train_every: self.train_every,
            gamma: self.gamma,
            learning_rate: self.lr.unwrap_or(5e-4),
            target_sync: self.target_sync,
            epsilon_start: self.epsilon_start,
            epsilon_end: self.epsilon_end,
            epsilon_decay: self.epsilon_decay.unwrap_or(episodes * 3 / 10),
            uct_c: self.uct_c,
            augment: !self.no_augment,
            seed: self.seed,
            encoding: self.encoding,
            end_reward: self.end_reward,
            steps_per_episode: self.steps_per_episode,
            learn_from: match self.learn_from {
                LearnFromArg::OwnMoves => LearnFrom::OwnMoves,
                LearnFromArg::EveryMove => LearnFrom::EveryMove,
            },
            transitions: self.transitions,
            q_loss: self.q_loss,
            uct_visits: self.uct_visits,
        }
    }

    /// The Q-learning MLP's settings.
    fn q_mlp_settings(&self) -> QMlpSettings {
        QMlpSettings {
            games_per_epoch: 10,
            gamma: self.gamma,
            learning_rate: self.lr.unwrap_or(1e-3),
            seed: self.seed,
            learner: if self.always_black {
                QMlpLearner::Black
            } else {
                QMlpLearner::Alternate
            },
            opponent: self.opponent_mix.map_or(QMlpOpponent::Random, |random| {
                QMlpOpponent::Mixed { random }
            }),
            init: if self.normal_init {
                QMlpInit::Normal
            } else {
                QMlpInit::Default
            },
            optimizer: if self.sgd_per_epoch {
                QMlpOptimizer::SgdPerEpoch
            } else if self.sgd_per_transition {
                QMlpOptimizer::SgdPerTransition
            } else {
                QMlpOptimizer::Adam
            },
            defects: crate::qmlp::Defects::default(),
        }
    }

    /// Refuses dqn options given that the chosen settings leave unread: the resnet's size
    /// with `--arch seed-resnet` (a fixed network), ε with a behaviour that is not `epsilon`,
    /// the UCT constant with one that is not `uct`, `--train-every` when
    /// `--steps-per-episode` paces learning.
    fn check_dqn_options(&self) -> Result<(), OptionError> {
        let refuse = |ids: &[&str], why: &str| -> Result<(), OptionError> {
            let flags: Vec<String> = ids
                .iter()
                .filter(|id| self.given(id))
                .filter_map(|id| long_flag(id))
                .map(|flag| format!("--{flag}"))
                .collect();
            if flags.is_empty() {
                return Ok(());
            }
            refuse!("{}: {why}", flags.join(", "));
        };
        if matches!(self.arch, ArchArg::SeedResnet) {
            refuse(
                &["blocks", "channels"],
                "not read with --arch seed-resnet, the design's fixed network",
            )?;
        }
        if self.behaviour != Behaviour::Epsilon {
            refuse(
                &["epsilon_start", "epsilon_end", "epsilon_decay"],
                "not read with this --behaviour: ε belongs to --behaviour epsilon",
            )?;
        }
        if self.behaviour != Behaviour::Uct {
            refuse(
                &["uct_c", "uct_visits"],
                "not read with this --behaviour: the constant and the visit counting belong to \
                 --behaviour uct",
            )?;
        }
        if self.steps_per_episode > 0 {
            refuse(
                &["train_every"],
                "not read when --steps-per-episode sets the gradient steps",
            )?;
        }
        Ok(())
    }

    /// The value dataset folder a value-network trainer reads.
    fn data(&self, algo: &str) -> Result<PathBuf, OptionError> {
        self.data.clone().ok_or_else(|| {
            OptionError(format!(
                "{algo} needs --data DIR: the value dataset made by `stonelab data wthor --out \
                 DIR`"
            ))
        })
    }

    /// The supervised value networks' settings (`net`: the default network).
    fn supervised(
        &self,
        algo: &Algorithm,
        net: &str,
    ) -> Result<crate::value::SupervisedConfig, OptionError> {
        let data = self.data(algo.name)?;
        if self.from.is_some() {
            refuse!("--from is a setting of cnn-selfplay (the supervised run it starts from)");
        }
        let net = self.net.clone().unwrap_or_else(|| net.into());
        let arch: crate::value::ValueArch = net
            .parse()
            .map_err(|e| OptionError(format!("--net: {e}")))?;
        let mlp = matches!(arch, crate::value::ValueArch::Mlp { .. });
        if mlp && self.given("mobility") {
            refuse!(
                "--mobility reads a CNN's mobility planes: the MLP `{net}` takes the stones only"
            );
        }
        let input = if mlp {
            crate::value::ValueInput::StoneOnly
        } else {
            crate::value::ValueInput::PaperPlanes {
                mobility: self.mobility,
                turn: crate::value::net::TurnPlane::Kept,
            }
        };
        let mut settings = crate::value::SupervisedConfig::paper(
            arch,
            input,
            std::path::absolute(&data).unwrap_or(data),
        );
        settings.symmetries = self.symmetries;
        settings.split = self.split;
        settings.batch = self.batch_size.unwrap_or(settings.batch);
        settings.learning_rate = self.lr.unwrap_or(settings.learning_rate);
        settings.seed = self.seed;
        settings.max_train = self.max_train;
        settings.max_test = self.max_test;
        settings.eval_depth = self.depth.unwrap_or(settings.eval_depth);
        settings
            .check_data()
            .map_err(|e| OptionError(e.to_string()))?;
        Ok(settings)
    }

    /// Self-play policy iteration's settings: the model `--from` names (a run folder's last
    /// model, or a model file), loaded to check it and to record its checksum.
    fn value_self_play(&self) -> Result<crate::value::ValueSelfPlayConfig, OptionError> {
        let data = self.data("cnn-selfplay")?;
        if self.net.is_some() || self.max_train.is_some() || self.max_test.is_some() {
            refuse!(
                "cnn-selfplay takes its network from --from: --net, --max-train and --max-test \
                 are settings of the supervised trainers"
            );
        }
        let (model, loaded) = self.base_model("cnn-selfplay")?;
        check_dataset(&data.join("merged-frequency-train.bin"))?;
        let mut settings = crate::value::ValueSelfPlayConfig::paper(
            std::path::absolute(&model).unwrap_or(model),
            loaded.card.sha256,
            loaded.orientation,
            std::path::absolute(&data).unwrap_or(data),
        );
        settings
            .apply_reading(self.reading.as_deref().unwrap_or("paper"))
            .map_err(|e| OptionError(format!("--reading: {e}")))?;
        settings.depth = self.depth.unwrap_or(settings.depth);
        if self.given("epochs_per_game") {
            settings.epochs_per_game = self.epochs_per_game;
        }
        settings.learning_rate = self.lr.unwrap_or(settings.learning_rate);
        settings.seed = self.seed;
        settings
            .validate()
            .map_err(|e| OptionError(format!("cnn-selfplay: {e}")))?;
        Ok(settings)
    }

    /// The supervised model `--from` names for `algo` (a run folder's last model, or a model
    /// file), loaded to check it.
    fn base_model(&self, algo: &str) -> Result<(PathBuf, crate::value::ValueModel), OptionError> {
        let from = self.from.clone().ok_or_else(|| {
            OptionError(format!(
                "{algo} needs --from: the cnn-supervised run folder (or its model file)"
            ))
        })?;
        let model = if from.is_dir() {
            from.join(crate::run::CHECKPOINTS).join("last.safetensors")
        } else {
            from
        };
        let loaded = crate::value::ValueModel::load(&model, crate::value::CNN_ALGO, "othello8", 8)
            .map_err(|e| OptionError(format!("--from {}: {e}", model.display())))?;
        Ok((model, loaded))
    }

    /// The stronger-than-paper self-play's settings: the preset from the model `--from` names,
    /// `--depth`, `--lr` and `--seed` as given.
    fn value_iteration(&self) -> Result<crate::value::ValueIterationConfig, OptionError> {
        let data = self.data("cnn-iteration")?;
        let (model, loaded) = self.base_model("cnn-iteration")?;
        check_dataset(&data.join("merged-frequency-test.bin"))?;
        let mut settings = crate::value::ValueIterationConfig::preset(
            std::path::absolute(&model).unwrap_or(model),
            loaded.card.sha256,
            loaded.orientation,
            std::path::absolute(&data).unwrap_or(data),
        );
        settings.depth = self.depth.unwrap_or(settings.depth);
        settings.learning_rate = self.lr.unwrap_or(settings.learning_rate);
        settings.seed = self.seed;
        settings
            .validate()
            .map_err(|e| OptionError(format!("cnn-iteration: {e}")))?;
        Ok(settings)
    }

    /// The AlphaZero settings: the game's defaults ([`crate::alphazero::AlphaZeroConfig::for_game`])
    /// with the flags given.
    fn alphazero(&self, game: &str) -> Result<crate::alphazero::AlphaZeroConfig, OptionError> {
        let mut c = crate::alphazero::AlphaZeroConfig::for_game(game, self.seed);
        let given = |id: &str| self.given.iter().any(|g| g == id);
        if given("blocks") {
            c.arch.blocks = self.blocks;
        }
        if given("channels") {
            c.arch.channels = self.channels;
        }
        c.arch.margin_head &= !self.no_margin_head;
        c.sims = self.sims.unwrap_or(c.sims);
        c.gumbel = self.gumbel.unwrap_or(c.gumbel);
        c.games = self.iteration_games.unwrap_or(c.games);
        c.concurrent = self.concurrent.unwrap_or(c.concurrent);
        c.full_share = self.full_share.unwrap_or(c.full_share);
        c.fast_sims = self.fast_sims.unwrap_or(c.fast_sims);
        c.window = self.window.unwrap_or(c.window);
        c.solver_empties = self.solver_empties.unwrap_or(c.solver_empties);
        c.gate_games = self.gate_games.unwrap_or(c.gate_games);
        c.eval_sims = self.eval_sims.unwrap_or(c.eval_sims);
        c.sample_reuse = self.sample_reuse.unwrap_or(c.sample_reuse);
        c.random_opening = self.random_opening.unwrap_or(c.random_opening);
        c.temperature_plies = self.temperature_plies.unwrap_or(c.temperature_plies);
        c.q_weight = self.q_weight.unwrap_or(c.q_weight);
        if !self.lr_drop.is_empty() {
            c.lr_drops = self
                .lr_drop
                .iter()
                .map(|d| {
                    let (at, lr) = d.split_once(':').ok_or(())?;
                    Ok((
                        at.trim().parse().map_err(|_| ())?,
                        lr.trim().parse().map_err(|_| ())?,
                    ))
                })
                .collect::<Result<_, ()>>()
                .map_err(|()| {
                    OptionError(format!(
                        "--lr-drop {}: EPISODE:LR, e.g. 100:5e-4",
                        self.lr_drop.join(" ")
                    ))
                })?;
        }
        c.batch = self.batch_size.unwrap_or(c.batch);
        c.learning_rate = self.lr.unwrap_or(c.learning_rate);
        if !game.starts_with("othello") && given("solver_empties") && c.solver_empties > 0 {
            refuse!("--solver-empties: the exact solver is for Othello, not {game}");
        }
        c.validate()
            .map_err(|e| OptionError(format!("alphazero: {e}")))?;
        Ok(c)
    }

    /// The `config.json` of the pattern pipeline these options ask for (checked).
    ///
    /// # Errors
    /// An option out of range, or two that do not go together.
    pub fn pattern_config(&self) -> Result<PatternConfig, OptionError> {
        if !(self.lambda.is_finite() && self.lambda >= 0.0) {
            refuse!("--lambda {}: a penalty of 0 or more", self.lambda);
        }
        if !(self.search_probcut.is_finite() && self.search_probcut >= 0.0) {
            refuse!(
                "--search-probcut {}: standard deviations, 0 or more (0: full width)",
                self.search_probcut
            );
        }
        if !(0.0..=1.0).contains(&self.deviations) {
            refuse!("--deviations {}: a fraction from 0 to 1", self.deviations);
        }
        if let Some(d) = self.depth.filter(|d| !(1..=12).contains(d)) {
            refuse!("--depth {d}: the self-play games' search, from 1 to 12 plies");
        }
        if self.deviations > 0.0 && self.search_depth == 0 {
            refuse!(
                "--deviations {} needs --search-depth 1 or more: the search labels those \
                 positions",
                self.deviations
            );
        }
        if !(0.0..=1.0).contains(&self.exact_fraction) {
            refuse!(
                "--exact-fraction {}: a fraction from 0 to 1",
                self.exact_fraction
            );
        }
        let exact_rest = match self.exact_rest {
            Some(rest) if self.exact_fraction >= 1.0 => refuse!(
                "--exact-rest {rest} applies only with --exact-fraction below 1 (every game is \
                 solved up to --exact-empties {})",
                self.exact_empties
            ),
            Some(rest) if rest > self.exact_empties => refuse!(
                "--exact-rest {rest} is above --exact-empties {}: the other games are solved \
                 less far, not further",
                self.exact_empties
            ),
            Some(rest) => rest,
            // `PatternConfig::exact_zone` caps it at --exact-empties; unused when every game
            // is solved through the zone, and what a `config.json` from before the option
            // reads as.
            None => DEFAULT_EXACT_REST,
        };
        Ok(PatternConfig {
            wthor: self.wthor.clone(),
            max_games: self.max_games,
            exact_empties: self.exact_empties,
            stage_width: self.stage_width,
            scale: 64,
            lambda: self.lambda,
            lambda_globals: 1.0,
            iterations: self.iterations,
            seed: self.seed,
            blend: self.blend.min(60),
            self_play_games: self.self_play_games,
            self_play_depth: self.depth.unwrap_or(4),
            search_depth: self.search_depth,
            self_play_exact: self.self_play_exact,
            search_probcut: self.search_probcut,
            deviations: self.deviations,
            theoretical_exact: self.theoretical_exact,
            self_play_search: self.self_play_search,
            edge_mobility: self.edge_mobility,
            exact_fraction: self.exact_fraction,
            exact_rest,
            correction: self.correction as usize,
            correction_epochs: self.correction_epochs,
            correction_frontier: self.correction_frontier,
            correction_as_played: self.correction_as_played,
        })
    }

    /// The ProbCut fit's record positions and deepest search (checked).
    ///
    /// # Errors
    /// A value out of range.
    pub fn probcut_sizes(&self) -> Result<(usize, u32), OptionError> {
        let positions = match self.positions.unwrap_or(1000) {
            n @ 1..=100_000 => n,
            n => refuse!("--positions {n}: from 1 to 100000 record positions"),
        };
        let depth = match self.depth.unwrap_or(10) {
            d @ 3..=20 => d,
            d => refuse!("--depth {d}: the deepest search fitted, from 3 to 20 plies"),
        };
        Ok((positions, depth))
    }

    /// The run's checks shared by every algorithm of the framework: threads, schedule and
    /// evaluation games.
    ///
    /// # Errors
    /// The first value out of range.
    pub fn check_common(&self) -> Result<(), OptionError> {
        if let Some(t) = self.threads.filter(|t| !(1..=1024).contains(t)) {
            refuse!("--threads {t}: 1 to 1024");
        }
        if self.eval_every == Some(0) || self.checkpoint_every == Some(0) {
            refuse!("--eval-every and --checkpoint-every must be at least 1");
        }
        if !(2..=100_000).contains(&self.eval_games) {
            refuse!(
                "--eval-games {}: from 2 (colours are swapped) to 100000",
                self.eval_games
            );
        }
        Ok(())
    }
}

/// Refuses a dataset file that is missing or not a dataset, before a run folder is made.
fn check_dataset(path: &Path) -> Result<(), OptionError> {
    othello::dataset::DatasetReader::open(path)
        .map(|_| ())
        .map_err(|e| {
            OptionError(format!(
                "{e} (make the dataset with `stonelab data wthor --out DIR`)"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Options parsed from `argv` as a command line gives them, with their given ids.
    fn parsed(argv: &[&str]) -> TrainOptions {
        let matches = TrainOptions::augment_args(clap::Command::new("train"))
            .try_get_matches_from(std::iter::once("train").chain(argv.iter().copied()))
            .expect("the command line parses");
        let mut options =
            <TrainOptions as clap::FromArgMatches>::from_arg_matches(&matches).expect("options");
        options.given = given_ids(&matches);
        options
    }

    #[test]
    fn the_defaults_are_a_command_line_without_options() {
        let d = TrainOptions::defaults();
        assert_eq!(d.out, PathBuf::new());
        assert!(d.given.is_empty());
        assert_eq!(
            (d.seed, d.eval_games, d.blocks, d.channels),
            (1, 200, 3, 32)
        );
        let run = d
            .run_config(&algos::DQN, "othello8")
            .expect("the defaults make a run");
        assert_eq!(run.episodes, algos::DQN.defaults.episodes);
    }

    #[test]
    fn a_resume_warns_only_about_settings_that_differ() {
        let (algo, game) = (&algos::DQN, "othello4");
        let first = parsed(&[
            "--out",
            "r",
            "--lr",
            "0.01",
            "--episodes",
            "100",
            "--seed",
            "3",
        ]);
        let stored = first.run_config(algo, game).expect("a valid run");
        // The same command again, with a new total: nothing to warn about.
        let again = parsed(&[
            "--out",
            "r",
            "--lr",
            "0.01",
            "--episodes",
            "300",
            "--seed",
            "3",
            "--resume",
        ]);
        assert_eq!(again.resume_warning(algo, game, &stored), None);
        let plain = parsed(&["--out", "r", "--resume"]);
        assert_eq!(plain.resume_warning(algo, game, &stored), None);
        // Another learning rate and seed are named with the values the run keeps.
        let other = parsed(&["--out", "r", "--lr", "0.02", "--seed", "3", "--resume"]);
        let warning = other
            .resume_warning(algo, game, &stored)
            .expect("--lr differs");
        assert!(warning.starts_with("--lr, --seed not applied"), "{warning}");
        assert!(
            warning.contains("0.01 (a new run with this command line: 0.02)"),
            "{warning}"
        );
        assert!(!warning.contains("seed:"), "{warning}");
        // A schedule given differently is named; one left to its default is not compared.
        let schedule = parsed(&["--out", "r", "--eval-every", "7", "--resume"]);
        let warning = schedule
            .resume_warning(algo, game, &stored)
            .expect("--eval-every differs");
        assert!(
            warning.contains("eval_every: 5 (a new run with this command line: 7)"),
            "{warning}"
        );
    }

    #[test]
    fn a_resume_names_the_options_it_does_not_apply() {
        let given: Vec<String> = [
            "TrainOptions",
            "out",
            "resume",
            "episodes",
            "lr",
            "eval_opponents",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            ignored_on_resume(&algos::DQN, &given),
            ["--lr", "--eval-opponent"]
        );
        assert!(ignored_on_resume(&algos::PATTERNS, &given).is_empty());
    }

    #[test]
    fn an_option_of_another_algorithm_is_refused_by_its_flag() {
        let err = check_options(&algos::PATTERNS, &["out".into(), "lr".into()])
            .expect_err("--lr is not read by patterns");
        let message = err.to_string();
        assert!(
            message.contains("--lr is not a setting of `train patterns`"),
            "{message}"
        );
        assert!(message.contains("dqn"), "{message}");
        assert!(check_options(&algos::DQN, &["eval_opponents".into()]).is_ok());
        let err = check_options(&algos::Q_TABLE, &["eval_opponents".into()])
            .expect_err("q-table has no evaluation opponents");
        assert!(err.to_string().contains("--eval-opponent "), "{err}");
        for algo in [
            &algos::PATTERNS,
            &algos::PROBCUT,
            &algos::Q_TABLE,
            &algos::DQN,
        ] {
            check_options(algo, &["out".into(), "seed".into(), "quiet".into()])
                .expect("common options");
        }
    }

    /// Options the chosen DQN settings leave unread are refused, naming their flags.
    #[test]
    fn dqn_options_the_settings_do_not_read_are_refused() {
        let o = parsed(&["--out", "r", "--arch", "seed-resnet", "--blocks", "2"]);
        let e = o
            .run_config(&algos::DQN, "othello8")
            .expect_err("blocks unread");
        assert!(
            e.0.starts_with("--blocks: not read with --arch seed-resnet"),
            "{e}"
        );
        let o = parsed(&["--out", "r", "--behaviour", "greedy", "--uct-c", "1"]);
        let e = o
            .run_config(&algos::DQN, "othello8")
            .expect_err("uct-c unread");
        assert!(e.0.starts_with("--uct-c: not read"), "{e}");
        let o = parsed(&["--out", "r", "--episodes", "15"]);
        let e = o
            .run_config(&algos::Q_MLP, "othello8")
            .expect_err("not whole epochs");
        assert!(e.0.contains("a multiple of 10"), "{e}");
    }
}
