//! `stonelab train`: training runs with a progress bar, written to `runs/NAME/` (settings in
//! `config.json`, per-episode `log.csv`, evaluations in `eval.csv`, plots, checkpoints that
//! `--resume` continues from).

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use learn::algos::{self, Algorithm, Games, Runner, Settings, Source};
use learn::qmlp::{QMlpInit, QMlpLearner, QMlpOpponent, QMlpOptimizer};
use learn::run::QMlpSettings;
use learn::{
    Behaviour, DqnConfig, Encoding, EndReward, LearnFrom, Opponent, Progress, QNetArch,
    QTableConfig, Rewards, RunConfig, RunDir, RunError,
};

use catalog::{othello4_values, CatalogGame};

use crate::games::{with_game, CliGame, GameId};
use crate::plots::{line_chart, Series};

/// The algorithms of `stonelab train`, from the registry ([`learn::algos`]), with their
/// summaries as the help of each value.
fn algorithm_parser() -> impl clap::builder::TypedValueParser<Value = &'static Algorithm> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        algos::ALGORITHMS
            .iter()
            .map(|a| PossibleValue::new(a.name).help(a.summary)),
    )
    .try_map(|name: String| algos::find(&name).ok_or_else(|| format!("unknown algorithm {name:?}")))
}

/// Refuses options given on the command line (`given`: their clap ids) that `algo` does not
/// read, naming each with the algorithms that do, instead of ignoring them.
///
/// # Errors
/// The first such option.
pub fn check_options(algo: &Algorithm, given: &[String]) -> Result<()> {
    let command = TrainArgs::augment_args(clap::Command::new("train"));
    for id in given {
        // Ids no algorithm reads are not options (clap's own group of the struct).
        let names = algos::readers(id);
        if names.is_empty() || algo.reads(id) {
            continue;
        }
        let flag = long_flag(&command, id).unwrap_or_else(|| id.replace('_', "-"));
        bail!(
            "--{flag} is not a setting of `train {}`: it applies to {}",
            algo.name,
            names.join(", ")
        );
    }
    Ok(())
}

/// The long flag (without `--`) of the argument `id` of `command`; `None` for an id that is not
/// an argument (clap also reports the struct's own group).
fn long_flag(command: &clap::Command, id: &str) -> Option<String> {
    command
        .get_arguments()
        .find(|a| a.get_id().as_str() == id)
        .and_then(clap::Arg::get_long)
        .map(ToString::to_string)
}

/// The options a resumed neural run takes from the command line; its config.json gives the
/// rest.
const RESUME_OPTIONS: &[&str] = &[
    "algo", "out", "resume", "episodes", "quiet", "threads", "game",
];

/// The options given to a resumed neural run (`given`: clap ids) that it does not apply, as
/// flags: the run's config.json rules them. Empty for other algorithms, which check their own.
#[must_use]
pub fn ignored_on_resume(algo: &Algorithm, given: &[String]) -> Vec<String> {
    if algo.runner != Runner::Run {
        return Vec::new();
    }
    let command = TrainArgs::augment_args(clap::Command::new("train"));
    given
        .iter()
        .filter(|id| !RESUME_OPTIONS.contains(&id.as_str()))
        .filter_map(|id| long_flag(&command, id))
        .map(|flag| format!("--{flag}"))
        .collect()
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

/// The warning for a resumed neural run given options it does not apply: those options, and
/// the settings where config.json differs from the run this command line would start (its
/// options and the defaults). `None` when there is no such setting (the same command again
/// with `--resume`).
fn resume_warning(args: &TrainArgs, game: GameId, stored: &RunConfig) -> Option<String> {
    let ignored = ignored_on_resume(args.algo, &args.given);
    if ignored.is_empty() {
        return None;
    }
    let general = format!(
        "{} not applied: a resumed run keeps its config.json settings (only --episodes, \
         --threads and --quiet change)",
        ignored.join(", ")
    );
    // The run this command line would start, set beside the stored one. Settings that follow
    // the number of episodes (a schedule not given, say) are not compared: a resume may have
    // raised the total since the run began.
    let at = |episodes: usize| {
        let mut with = args.clone();
        with.episodes = Some(episodes);
        preset_or_flag_config(&with, game)
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
    learn::run::json_differences("", &fresh, &other, &[], &mut derived);
    let derived: Vec<&str> = derived.iter().map(|(path, _, _)| path.as_str()).collect();
    let mut found = Vec::new();
    learn::run::json_differences("", &fresh, &stored, &derived, &mut found);
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

/// Q-network kinds on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    /// Full-resolution residual network (`--blocks` x `--channels`).
    Resnet,
    /// The reference design: 7x7 stride-2 stem, max-pool, 3x64 + 4x128 blocks, pooling.
    SeedResnet,
}

/// Options of `stonelab train`.
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// The algorithm.
    #[arg(value_parser = algorithm_parser())]
    pub algo: &'static Algorithm,
    /// A named preset: a student design's exact set-up (seed000-greedy, seed000-uct:
    /// dqn-self-play; seed000-competitive: dqn-competitive; seed001: q-mlp). Only --episodes,
    /// --seed, --defect and the run's schedule (--eval-every, --eval-games,
    /// --checkpoint-every) may change it.
    #[arg(long, conflicts_with_all = [
        "opponent", "arch", "blocks", "channels", "behaviour", "rewards", "batch_size", "replay",
        "warmup", "train_every", "parallel", "gamma", "lr", "target_sync", "epsilon_start",
        "epsilon_end", "epsilon_decay", "uct_c", "no_augment", "encoding", "end_reward",
        "steps_per_episode", "learn_from", "always_black", "opponent_mix", "normal_init",
        "sgd_per_epoch", "eval_opponents",
    ])]
    pub preset: Option<String>,
    /// seed001: switch on one of the design's code defects (repeatable): greedy-lowest (the
    /// greedy move takes the lowest value), frozen-state (every update uses the first
    /// position), additive-target (the target adds γ·max over all outputs to the current Q).
    #[arg(long, value_enum, requires = "preset")]
    pub defect: Vec<DefectArg>,
    /// The game (default othello4 for q-table, othello8 otherwise; the neural agents train on
    /// every game, e.g. gomoku9 for a quick Gomoku run).
    #[arg(long)]
    pub game: Option<GameId>,
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
    /// The clap ids of the options given on the command line (not defaults), set by `main`:
    /// a resume warns about those it does not apply.
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
    #[arg(long)]
    pub sgd_per_epoch: bool,
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
    pub mobility: learn::Mobility,
    /// cnn/mlp-supervised: merged (over the 8 symmetries) or raw states.
    #[arg(long, default_value = "merged")]
    pub symmetries: learn::value::DataSymmetries,
    /// cnn/mlp-supervised: the paper's frequency split or the split by game.
    #[arg(long, default_value = "frequency")]
    pub split: learn::value::DataSplit,
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
    /// Minimax depth of the value-network agents (cnn-selfplay's players, default 3; the
    /// supervised runs' evaluation games, default 1); patterns: of the self-play games
    /// (default 4); probcut: the deepest search fitted (default 10).
    #[arg(long)]
    pub depth: Option<u32>,
    /// cnn-selfplay: full-batch Adam epochs on each game's positions.
    #[arg(long, default_value_t = 10)]
    pub epochs_per_game: usize,
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
    #[arg(long, default_value_t = crate::patterns_cmd::DEFAULT_CORRECTION_EPOCHS, value_parser = clap::value_parser!(u32).range(1..=100))]
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
}

/// Whose moves a competitive learner stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LearnFromArg {
    /// Only the moves it chose.
    OwnMoves,
    /// Every move of the game.
    EveryMove,
}

/// The Q-learning MLP design's code defects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DefectArg {
    /// The "greedy" move takes the lowest Q-value.
    GreedyLowest,
    /// Every update uses the game's first position as its state.
    FrozenState,
    /// The target adds γ·max Q(next) over all outputs to the current Q.
    AdditiveTarget,
}

/// The defect switches of `--defect` values.
pub fn defects(list: &[DefectArg]) -> learn::qmlp::Defects {
    let mut d = learn::qmlp::Defects::default();
    for x in list {
        match x {
            DefectArg::GreedyLowest => d.greedy_lowest = true,
            DefectArg::FrozenState => d.frozen_state = true,
            DefectArg::AdditiveTarget => d.additive_target = true,
        }
    }
    d
}

/// Reward options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RewardsArg {
    /// Disc changes / 100 after every move, ±1 at the end.
    Scaled,
    /// ±1 at the end only.
    Terminal,
    /// Disc changes after every move, ±100 at the end (unscaled).
    Seed,
}

pub fn run(args: &TrainArgs) -> Result<()> {
    if let Some(t) = args.threads.filter(|t| !(1..=1024).contains(t)) {
        bail!("--threads {t}: 1 to 1024");
    }
    if args.eval_every == Some(0) || args.checkpoint_every == Some(0) {
        bail!("--eval-every and --checkpoint-every must be at least 1");
    }
    if !(2..=100_000).contains(&args.eval_games) {
        bail!(
            "--eval-games {}: from 2 (colours are swapped) to 100000",
            args.eval_games
        );
    }
    let threads = args.threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building the thread pool")?;
    let algo = args.algo;
    pool.install(|| match algo.runner {
        Runner::QTable => q_table(args),
        Runner::Run => match algo.games {
            Games::Any => {
                // A resumed run's game is its config's unless --game names one.
                let game = args
                    .game
                    .or_else(|| resumed_game(args))
                    .unwrap_or(GameId::Othello8);
                with_game!(game, G => neural::<G>(args, game))
            }
            Games::Only(only) => {
                let game = args.game.unwrap_or(GameId::Othello8);
                if game.to_string() != only || game != GameId::Othello8 {
                    bail!(
                        "{} learns from the WTHOR records of 8x8 Othello: --game othello8 only, \
                         not {game}",
                        algo.name
                    );
                }
                neural::<othello::Othello8>(args, game)
            }
        },
        Runner::Patterns => crate::patterns_cmd::train(args),
        Runner::ProbCut => crate::patterns_cmd::probcut(args),
    })
}

fn progress_bar(quiet: bool, total: usize, done: usize) -> ProgressBar {
    let bar = crate::progress::bar(quiet, total as u64, "episodes");
    bar.set_position(done as u64);
    bar.reset_eta();
    bar
}

fn q_table(args: &TrainArgs) -> Result<()> {
    let game = args.game.unwrap_or(GameId::Othello4);
    if game != GameId::Othello4 {
        bail!("q-table tabulates every position: only othello4 is small enough ({game} is not)");
    }
    if args.resume {
        bail!(
            "q-table runs take seconds and keep no checkpoints, so they cannot be resumed: run \
             the command again with --force (it replaces the run in --out)"
        );
    }
    let episodes = args.episodes.unwrap_or(2_000_000);
    if episodes == 0 {
        bail!("--episodes must be at least 1");
    }
    if args.evals == 0 {
        bail!("--evals 0: at least one evaluation");
    }
    // At most one evaluation per episode (so a short run with the default 20 evaluates each).
    let evals = args.evals.min(episodes);
    let dir = RunDir::create(&args.out, args.force).map_err(|e| match e {
        RunError::Exists(path) => anyhow!(
            "{} already holds a run: add --force to start it over (q-table runs cannot be \
             resumed), or choose another --out",
            path.display()
        ),
        e => cli_error(e),
    })?;
    let config = QTableConfig {
        episodes,
        seed: args.seed,
        ..QTableConfig::default()
    };
    let exact = othello4_values().map_err(|e| anyhow!("value iteration: {e}"))?;
    let bar = progress_bar(args.quiet, episodes, 0);
    let summary = learn::qtable_run::train_q_table(&dir, &config, evals, &exact, &mut |p, last| {
        if p.episode % 1000 == 0 {
            bar.set_position(p.episode as u64);
            bar.set_message(format!(
                "ε {:.3}, optimal {:.1}%, {} positions",
                p.epsilon,
                100.0 * last,
                p.states
            ));
        }
    })
    .map_err(cli_error)
    .context("training the q-table")?;
    bar.finish_and_clear();
    files::create_dir_all(&args.out.join("plots"))?;
    line_chart(
        &args.out.join("plots/optimal.png"),
        "q-table on othello4: greedy move optimal",
        "episodes",
        "fraction of positions",
        &[Series {
            name: "optimal fraction".into(),
            points: summary.curve,
        }],
        Some((0.0, 1.0)),
    )?;
    outln!(
        "q-table on othello4: {episodes} episodes, {} positions learned; greedy move optimal in \
         {:.1}% of the positions where the choice matters (start {:.1}%); logs in {}",
        summary.states,
        100.0 * summary.last,
        100.0 * summary.first,
        args.out.display()
    );
    Ok(())
}

/// The run's settings as saved in `config.json`.
fn dqn_config(args: &TrainArgs, episodes: usize) -> DqnConfig {
    DqnConfig {
        arch: match args.arch {
            ArchArg::Resnet => QNetArch::Resnet {
                blocks: args.blocks,
                channels: args.channels,
            },
            ArchArg::SeedResnet => QNetArch::SeedResnet,
        },
        behaviour: args.behaviour,
        rewards: match args.rewards {
            RewardsArg::Scaled => Rewards::Scaled,
            RewardsArg::Terminal => Rewards::Terminal,
            RewardsArg::Seed => Rewards::Seed,
        },
        parallel: args.parallel,
        batch_size: args.batch_size.unwrap_or(64),
        replay_capacity: args.replay,
        warmup: args.warmup,
        train_every: args.train_every,
        gamma: args.gamma,
        learning_rate: args.lr.unwrap_or(5e-4),
        target_sync: args.target_sync,
        epsilon_start: args.epsilon_start,
        epsilon_end: args.epsilon_end,
        epsilon_decay: args.epsilon_decay.unwrap_or(episodes * 3 / 10),
        uct_c: args.uct_c,
        augment: !args.no_augment,
        seed: args.seed,
        encoding: args.encoding,
        end_reward: args.end_reward,
        steps_per_episode: args.steps_per_episode,
        learn_from: match args.learn_from {
            LearnFromArg::OwnMoves => LearnFrom::OwnMoves,
            LearnFromArg::EveryMove => LearnFrom::EveryMove,
        },
    }
}

/// Refuses dqn options given that the chosen settings leave unread: the resnet's size with
/// `--arch seed-resnet` (a fixed network), ε with a behaviour that is not `epsilon`, the UCT
/// constant with one that is not `uct`, `--train-every` when `--steps-per-episode` paces
/// learning.
fn check_dqn_options(args: &TrainArgs) -> Result<()> {
    let command = TrainArgs::augment_args(clap::Command::new("train"));
    let given = |ids: &[&str]| -> Vec<String> {
        ids.iter()
            .filter(|id| args.given.iter().any(|g| g == *id))
            .filter_map(|id| long_flag(&command, id))
            .map(|flag| format!("--{flag}"))
            .collect()
    };
    let refuse = |flags: Vec<String>, why: &str| -> Result<()> {
        if flags.is_empty() {
            return Ok(());
        }
        bail!("{}: {why}", flags.join(", "));
    };
    if matches!(args.arch, ArchArg::SeedResnet) {
        refuse(
            given(&["blocks", "channels"]),
            "not read with --arch seed-resnet, the design's fixed network",
        )?;
    }
    if args.behaviour != Behaviour::Epsilon {
        refuse(
            given(&["epsilon_start", "epsilon_end", "epsilon_decay"]),
            "not read with this --behaviour: ε belongs to --behaviour epsilon",
        )?;
    }
    if args.behaviour != Behaviour::Uct {
        refuse(
            given(&["uct_c"]),
            "not read with this --behaviour: the constant belongs to --behaviour uct",
        )?;
    }
    if args.steps_per_episode > 0 {
        refuse(
            given(&["train_every"]),
            "not read when --steps-per-episode sets the gradient steps",
        )?;
    }
    Ok(())
}

/// Refuses a q-mlp total of episodes (a new run's, or a resume's `--episodes`) that does not
/// fill whole epochs: the trainer plays epochs of `games_per_epoch` games and would go past it.
fn check_whole_epochs(run: &RunConfig) -> Result<()> {
    let q_mlp = algos::find(&run.algo).is_some_and(|a| a.settings == Settings::QMlp);
    if let (true, Some(q)) = (q_mlp, &run.q_mlp) {
        let per = q.games_per_epoch.max(1);
        if !run.episodes.is_multiple_of(per) {
            bail!(
                "--episodes {}: q-mlp trains in epochs of {per} games, so the episodes must be \
                 a multiple of {per}",
                run.episodes
            );
        }
    }
    Ok(())
}

/// The run's settings from the arguments (a fresh run): the preset's, or the flags'.
fn run_config(args: &TrainArgs, game: GameId) -> Result<RunConfig> {
    let run = preset_or_flag_config(args, game)?;
    check_whole_epochs(&run)?;
    Ok(run)
}

/// [`run_config`] before its checks.
fn preset_or_flag_config(args: &TrainArgs, game: GameId) -> Result<RunConfig> {
    let Some(name) = &args.preset else {
        return flag_config(args, game);
    };
    let mut run = learn::presets::preset(
        name,
        &learn::presets::PresetOptions {
            seed: args.seed,
            episodes: args.episodes,
            defects: defects(&args.defect),
        },
    )
    .map_err(|e| anyhow!("--preset: {e}"))?;
    if run.algo != args.algo.name {
        bail!(
            "--preset {name} is a {} run: stonelab train {} --preset {name} ...",
            run.algo,
            run.algo
        );
    }
    if run.game != game.to_string() {
        bail!("--preset {name} trains on {}, not {game}", run.game);
    }
    if let Some(every) = args.eval_every {
        run.eval_every = every;
    }
    run.eval_games = args.eval_games;
    if let Some(every) = args.checkpoint_every {
        run.checkpoint_every = every;
    }
    Ok(run)
}

/// The run's settings from the algorithm flags.
fn flag_config(args: &TrainArgs, game: GameId) -> Result<RunConfig> {
    let algo = args.algo;
    let episodes = args.episodes.unwrap_or(algo.defaults.episodes);
    if matches!(
        algo.settings,
        Settings::Supervised { .. } | Settings::ValueSelfPlay
    ) {
        return value_config(args, game, episodes);
    }
    check_dqn_options(args)?;
    Ok(RunConfig {
        algo: algo.name.into(),
        game: game.to_string(),
        episodes,
        eval_every: args
            .eval_every
            .unwrap_or(algo.defaults.eval_every.period(episodes)),
        eval_games: args.eval_games,
        checkpoint_every: args
            .checkpoint_every
            .unwrap_or(algo.defaults.checkpoint_every.period(episodes)),
        opponent: args.opponent.clone(),
        dqn: (algo.settings == Settings::Dqn).then(|| dqn_config(args, episodes)),
        value: None,
        value_self_play: None,
        q_mlp: (algo.settings == Settings::QMlp).then(|| QMlpSettings {
            games_per_epoch: 10,
            gamma: args.gamma,
            learning_rate: args.lr.unwrap_or(1e-3),
            seed: args.seed,
            learner: if args.always_black {
                QMlpLearner::Black
            } else {
                QMlpLearner::Alternate
            },
            opponent: args.opponent_mix.map_or(QMlpOpponent::Random, |random| {
                QMlpOpponent::Mixed { random }
            }),
            init: if args.normal_init {
                QMlpInit::Normal
            } else {
                QMlpInit::Default
            },
            optimizer: if args.sgd_per_epoch {
                QMlpOptimizer::SgdPerEpoch
            } else {
                QMlpOptimizer::Adam
            },
            defects: Default::default(),
        }),
        eval_opponents: args.eval_opponents.clone(),
    })
}

/// The settings of the value-network trainers.
fn value_config(args: &TrainArgs, game: GameId, episodes: usize) -> Result<RunConfig> {
    let data = args.data.clone().with_context(|| {
        format!(
            "{} needs --data DIR: the value dataset made by `stonelab data wthor --out DIR`",
            args.algo.name
        )
    })?;
    let mut run = RunConfig {
        algo: args.algo.name.into(),
        game: game.to_string(),
        episodes,
        eval_every: args
            .eval_every
            .unwrap_or(args.algo.defaults.eval_every.period(episodes)),
        eval_games: args.eval_games,
        checkpoint_every: args
            .checkpoint_every
            .unwrap_or(args.algo.defaults.checkpoint_every.period(episodes)),
        opponent: args.opponent.clone(),
        dqn: None,
        q_mlp: None,
        value: None,
        value_self_play: None,
        eval_opponents: args.eval_opponents.clone(),
    };
    let Settings::Supervised { net: default_net } = args.algo.settings else {
        if args.net.is_some() || args.max_train.is_some() || args.max_test.is_some() {
            bail!(
                "cnn-selfplay takes its network from --from: --net, --max-train and --max-test \
                 are settings of the supervised trainers"
            );
        }
        let from = args.from.clone().context(
            "cnn-selfplay needs --from: the cnn-supervised run folder (or its model file)",
        )?;
        let model = if from.is_dir() {
            from.join(learn::run::CHECKPOINTS).join("last.safetensors")
        } else {
            from
        };
        let loaded = learn::value::ValueModel::load(&model, learn::value::CNN_ALGO, "othello8", 8)
            .map_err(|e| anyhow!("--from {}: {e}", model.display()))?;
        check_dataset(&data.join("merged-frequency-train.bin"))?;
        let mut settings = learn::value::ValueSelfPlayConfig::paper(
            std::path::absolute(&model).unwrap_or(model),
            loaded.card.sha256,
            std::path::absolute(&data).unwrap_or(data),
        );
        settings.depth = args.depth.unwrap_or(settings.depth);
        settings.epochs_per_game = args.epochs_per_game;
        settings.learning_rate = args.lr.unwrap_or(settings.learning_rate);
        settings.seed = args.seed;
        run.value_self_play = Some(settings);
        return Ok(run);
    };
    if args.from.is_some() {
        bail!("--from is a setting of cnn-selfplay (the supervised run it starts from)");
    }
    let net = args.net.clone().unwrap_or_else(|| default_net.into());
    let arch: learn::value::ValueArch = net.parse().map_err(|e| anyhow!("--net: {e}"))?;
    if matches!(arch, learn::value::ValueArch::Mlp { .. })
        && args.given.iter().any(|g| g == "mobility")
    {
        bail!("--mobility reads a CNN's mobility planes: the MLP `{net}` takes the stones only");
    }
    let input = match arch {
        learn::value::ValueArch::Cnn { .. } => learn::value::ValueInput::PaperPlanes {
            mobility: args.mobility,
        },
        learn::value::ValueArch::Mlp { .. } => learn::value::ValueInput::StoneOnly,
    };
    let mut settings = learn::value::SupervisedConfig::paper(
        arch,
        input,
        std::path::absolute(&data).unwrap_or(data),
    );
    settings.symmetries = args.symmetries;
    settings.split = args.split;
    settings.batch = args.batch_size.unwrap_or(settings.batch);
    settings.learning_rate = args.lr.unwrap_or(settings.learning_rate);
    settings.seed = args.seed;
    settings.max_train = args.max_train;
    settings.max_test = args.max_test;
    settings.eval_depth = args.depth.unwrap_or(settings.eval_depth);
    settings.check_data().map_err(|e| anyhow!("{e}"))?;
    run.value = Some(settings);
    Ok(run)
}

/// Refuses a dataset file that is missing or not a dataset, before a run folder is made.
fn check_dataset(path: &Path) -> Result<()> {
    othello::dataset::DatasetReader::open(path)
        .map(|_| ())
        .map_err(|e| anyhow!("{e} (make the dataset with `stonelab data wthor --out DIR`)"))
}

/// What this invocation played, in words: "80 episodes in 8 s", or after a resume "40
/// episodes (41 to 80) in 4 s; the run has 80".
fn played_text(summary: &learn::run::Summary) -> String {
    let played = summary.episodes.saturating_sub(summary.started_at);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if summary.started_at == 0 {
        format!(
            "{played} episode{} in {:.0} s",
            plural(played),
            summary.seconds
        )
    } else {
        format!(
            "{played} episode{} ({} to {}) in {:.0} s; the run has {}",
            plural(played),
            summary.started_at + 1,
            summary.episodes,
            summary.seconds,
            summary.episodes
        )
    }
}

/// When `every` is not a multiple of the training round, the episodes at which `what` will
/// really happen, in plain words.
fn rounding_note(run: &RunConfig, what: &str, every: usize, start: usize) -> Option<String> {
    let round = run.round_games();
    if every.is_multiple_of(round) {
        return None;
    }
    let at = run.event_episodes(every, start);
    let mut shown: Vec<String> = at.iter().take(5).map(ToString::to_string).collect();
    if at.len() > 5 {
        shown.push("…".into());
        if let Some(last) = at.last() {
            shown.push(last.to_string());
        }
    }
    let asked = if every == 1 {
        "every episode".to_string()
    } else {
        format!("every {every} episodes")
    };
    let when = match at.len() {
        0 => "none before the end of the run".to_string(),
        1 => format!("one, at episode {}", shown.join(", ")),
        _ => format!("at episodes {}", shown.join(", ")),
    };
    Some(format!(
        "note: {what} were asked for {asked}, but training plays rounds of {round} games and \
         stops only between rounds, so this run makes them {when}"
    ))
}

/// Library errors in the command line's words.
fn cli_error(e: RunError) -> anyhow::Error {
    match e {
        RunError::Exists(path) => anyhow!(
            "{} already holds a run: add --resume to continue it, --force to start over, or \
             choose another --out",
            path.display()
        ),
        RunError::NotEmpty(path) => anyhow!(
            "--out {} is not empty and holds no run: choose another --out (or add --force when \
             it holds only what a run stopped before writing config.json left there)",
            path.display()
        ),
        e @ RunError::Foreign { .. } => anyhow!("--out: {e}"),
        e @ RunError::NoRun(_) => {
            anyhow!("--resume: {e}; a run stopped before writing it starts over with --force")
        }
        e @ RunError::Mismatch { .. } => anyhow!("--resume: {e}"),
        e @ RunError::NoUsableCheckpoint { .. } => {
            anyhow!("--resume: {e} (--force starts it over)")
        }
        e => anyhow!(e),
    }
}

/// The game of the run `--resume` names in `--out`, when its config.json reads.
fn resumed_game(args: &TrainArgs) -> Option<GameId> {
    if !args.resume {
        return None;
    }
    let config: learn::RunConfig = RunDir::open(&args.out).ok()?.read_config().ok()?;
    config.game.parse().ok()
}

/// Builds the run's opponent and evaluation opponents once, so that a bad spec or model file
/// is refused before anything on disk changes (a fresh run's folder, a resumed run's log).
fn check_agents<G: CliGame + CatalogGame>(
    registry: &search::Registry<G>,
    run: &learn::RunConfig,
) -> Result<()> {
    registry
        .build(&run.opponent, 0)
        .map_err(|e| anyhow!("opponent {:?}: {e}", run.opponent))?;
    for name in &run.eval_opponents {
        registry
            .build(name, 0)
            .map_err(|e| anyhow!("evaluation opponent {name}: {e}"))?;
    }
    Ok(())
}

fn neural<G: CliGame + CatalogGame>(args: &TrainArgs, game: GameId) -> Result<()> {
    let registry = G::registry();
    let (dir, run, from) = if args.resume {
        // The run's agents are checked before the resume touches its files.
        if let Ok(config) =
            RunDir::open(&args.out).and_then(|d| d.read_config::<learn::RunConfig>())
        {
            check_agents(&registry, &config)?;
        }
        let learn::Resumed {
            dir,
            config: run,
            from,
            warnings,
        } = learn::resume(&args.out, args.algo.name, &game.to_string(), args.episodes)
            .map_err(cli_error)?;
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        if let Some(warning) = resume_warning(args, game, &run) {
            eprintln!("warning: {warning}");
        }
        if from.is_none() {
            eprintln!(
                "no checkpoint in {} yet: starting the run over",
                args.out.display()
            );
        }
        // A new total is the run's from now on: a later plain --resume goes on to it.
        if args.episodes.is_some() {
            check_whole_epochs(&run)?;
            dir.write_config(&run)?;
        }
        (dir, run, from)
    } else {
        if args.episodes == Some(0) {
            bail!("--episodes must be at least 1");
        }
        let run = run_config(args, game)?;
        run.validate().map_err(|e| anyhow!("{e}"))?;
        registry
            .validate(&args.opponent)
            .map_err(|e| anyhow!("--opponent: {e}"))?;
        check_agents(&registry, &run)?;
        let dir = RunDir::create(&args.out, args.force).map_err(cli_error)?;
        dir.write_config(&run)?;
        (dir, run, None)
    };
    let Some(summary) = execute::<G>(&dir, &run, from.as_ref(), args.quiet)? else {
        return Ok(());
    };
    let checkpoints = dir.file(learn::run::CHECKPOINTS);
    let shown: Vec<String> = args
        .algo
        .models
        .iter()
        .map(|(file, colour)| {
            let path = checkpoints.join(file).display().to_string();
            if colour.is_empty() {
                path
            } else {
                format!("{path} ({colour})")
            }
        })
        .collect();
    let models = match shown.as_slice() {
        [one] => format!("model {one}"),
        many => format!("models {}", many.join(" and ")),
    };
    outln!(
        "{} on {}: {}; last evaluation: {}; {models}",
        run.algo,
        run.game,
        played_text(&summary),
        eval_line(&summary.last_eval),
    );
    Ok(())
}

/// Trains the run in `dir` (fresh, or from the checkpoint `from`) to its end with a progress
/// bar (unless `quiet`), evaluating against the registry's random and greedy players and
/// redrawing the plots at every evaluation. `None` when the run had nothing left to do.
///
/// # Errors
/// A failed round, evaluation, write or plot.
pub fn execute<G: CliGame + CatalogGame>(
    dir: &RunDir,
    run: &RunConfig,
    from: Option<&learn::Checkpoint>,
    quiet: bool,
) -> Result<Option<learn::run::Summary>> {
    let registry = G::registry();
    let algo = algos::find(&run.algo)
        .with_context(|| format!("{}: unknown algorithm {:?}", learn::run::CONFIG, run.algo))?;
    let kept;
    let dir = if algo.keeps_checkpoints {
        kept = dir.clone().keeping(usize::MAX);
        &kept
    } else {
        dir
    };
    let mut trainer = learn::build_trainer::<G>(run, from)?;
    let start = trainer.episode();
    if start >= run.episodes {
        outln!(
            "{} already has {start} of {} episodes: nothing to do (raise --episodes to go on)",
            dir.root().display(),
            run.episodes
        );
        return Ok(None);
    }
    if start > 0 {
        eprintln!("resuming {} at episode {start}", dir.root().display());
    }
    for (what, every) in [
        ("evaluations", run.eval_every),
        ("checkpoints", run.checkpoint_every),
    ] {
        if let Some(note) = rounding_note(run, what, every, start) {
            eprintln!("{note}");
        }
    }
    let spec = run.opponent.clone();
    let opponent = |seed: u64| {
        registry
            .build(&spec, seed)
            .unwrap_or_else(|_| Box::new(search::RandomAgent::new(seed)))
    };
    let mut evals: Vec<Opponent<'_, G>> = Vec::new();
    let names: Vec<String> = if run.eval_opponents.is_empty() {
        vec!["random".into(), "greedy".into()]
    } else {
        run.eval_opponents.clone()
    };
    for name in names {
        // Built once here, so a bad spec or model file is refused before training starts.
        registry
            .build(&name, 0)
            .map_err(|e| anyhow!("evaluation opponent {name}: {e}"))?;
        let registry = &registry;
        let spec = name.clone();
        evals.push(Opponent {
            name,
            make: Box::new(move |seed| {
                registry
                    .build(&spec, seed)
                    .unwrap_or_else(|_| Box::new(search::RandomAgent::new(seed)))
            }),
        });
    }
    let bar = progress_bar(quiet, run.episodes, start);
    if run.value.is_some() {
        let steps = bar.clone();
        trainer.set_step_progress(Some(Box::new(move |step, steps_in_epoch| {
            if step % 20 == 0 || step == steps_in_epoch {
                steps.set_message(format!("epoch: batch {step}/{steps_in_epoch}"));
            }
        })));
    }
    let mut recent: VecDeque<bool> = VecDeque::new();
    let mut last_loss: Option<f64> = None;
    let mut last_eval_line = String::new();
    let mut plot_error: Option<anyhow::Error> = None;
    let summary = learn::train(
        dir,
        run,
        trainer.as_mut(),
        &opponent,
        &evals,
        &mut |p| match p {
            Progress::Round {
                episode,
                rows,
                epsilon,
            } => {
                for row in rows {
                    recent.push_back(row.won);
                    if recent.len() > 100 {
                        recent.pop_front();
                    }
                    if row.loss.is_some() {
                        last_loss = row.loss;
                    }
                }
                let rate =
                    recent.iter().filter(|&&w| w).count() as f64 / recent.len().max(1) as f64;
                bar.set_position(episode as u64);
                bar.set_message(format!(
                    "loss {} ε {epsilon:.3} {} {:.0}% (last {}) | {last_eval_line}",
                    last_loss.map_or("-".into(), |l| format!("{l:.4}")),
                    algo.won,
                    100.0 * rate,
                    recent.len(),
                ));
            }
            Progress::Evaluating { games, .. } => {
                bar.set_message(format!("evaluating ({games} games each)"));
            }
            Progress::Evaluated { results, .. } => {
                last_eval_line = eval_line(results);
                if let Err(e) = draw_plots(dir.root(), algo) {
                    plot_error.get_or_insert(e);
                }
            }
            Progress::Started { .. } | Progress::Checkpointed(_) => {}
        },
    )?;
    bar.finish_and_clear();
    if run.value.is_some() {
        // The loss curve is per epoch: draw it once more with the last epoch.
        if let Err(e) = draw_plots(dir.root(), algo) {
            plot_error.get_or_insert(e);
        }
    }
    if let Some(e) = plot_error {
        return Err(e.context("drawing the plots"));
    }
    Ok(Some(summary))
}

/// "dqn vs random 55.0%, dqn vs greedy 20.5%".
fn eval_line(results: &[(String, String, arena::ColourWdl)]) -> String {
    results
        .iter()
        .map(|(who, opp, r)| format!("{who} vs {opp} {:.1}%", 100.0 * r.win_rate()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Draws `algo`'s charts ([`learn::algos::Chart`]) from the run's CSV files in `out`, reading
/// each column by its header name: a chart whose column the file lacks is an error.
fn draw_plots(out: &Path, algo: &Algorithm) -> Result<()> {
    let plots = out.join("plots");
    files::create_dir_all(&plots)?;
    for chart in algo.charts {
        let name = match chart.source {
            Source::Log => learn::run::LOG,
            Source::Eval => learn::run::EVAL,
        };
        let text = fs::read_to_string(out.join(name)).unwrap_or_default();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let column = |c: &str| {
            header
                .iter()
                .position(|h| *h == c)
                .with_context(|| format!("{}: no column {c:?} for plots/{}", name, chart.file))
        };
        let num = |row: &[&str], i: usize| row.get(i).and_then(|v| v.parse::<f64>().ok());
        let x = column(chart.x)?;
        let mut series: Vec<Series> = Vec::new();
        for line in chart.lines {
            let y = column(line.column)?;
            match chart.source {
                Source::Log => {
                    let mut points = Vec::new();
                    for chunk in rows.chunks(chart.window.max(1)) {
                        let values: Vec<f64> = chunk.iter().filter_map(|r| num(r, y)).collect();
                        if let (Some(at), false) =
                            (chunk.last().and_then(|r| num(r, x)), values.is_empty())
                        {
                            points.push((at, values.iter().sum::<f64>() / values.len() as f64));
                        }
                    }
                    series.push(Series {
                        name: line.label.into(),
                        points,
                    });
                }
                Source::Eval => {
                    // One line per (learner, opponent) pair.
                    let (learner, opponent) = (column("learner")?, column("opponent")?);
                    for row in &rows {
                        let (Some(at), Some(value)) = (num(row, x), num(row, y)) else {
                            continue;
                        };
                        let field = |i: usize| row.get(i).copied().unwrap_or("");
                        let name = format!("{} vs {}", field(learner), field(opponent));
                        match series.iter_mut().find(|s| s.name == name) {
                            Some(s) => s.points.push((at, value)),
                            None => series.push(Series {
                                name,
                                points: vec![(at, value)],
                            }),
                        }
                    }
                }
            }
        }
        line_chart(
            &plots.join(chart.file),
            chart.title,
            chart.x_label,
            chart.y_label,
            &series,
            chart.range,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    /// Every option of `train` says which algorithms read it, so a new one cannot be silently
    /// ignored by the others.
    #[test]
    fn every_option_names_the_algorithms_that_read_it() {
        let command = TrainArgs::augment_args(clap::Command::new("train"));
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            assert!(
                !algos::readers(id).is_empty(),
                "{id} is read by no algorithm of the registry (learn::algos)"
            );
        }
    }

    /// `train ARGV...` as `main` parses it, with its given options.
    fn parsed(argv: &[&str]) -> TrainArgs {
        let matches = TrainArgs::augment_args(clap::Command::new("train"))
            .try_get_matches_from(std::iter::once("train").chain(argv.iter().copied()))
            .expect("the command line parses");
        let mut args = TrainArgs::from_arg_matches(&matches).expect("train options");
        args.given = given_ids(&matches);
        args
    }

    #[test]
    fn a_resume_warns_only_about_settings_that_differ() {
        let game = GameId::Othello4;
        let first = parsed(&[
            "dqn",
            "--out",
            "r",
            "--lr",
            "0.01",
            "--episodes",
            "100",
            "--seed",
            "3",
        ]);
        let stored = run_config(&first, game).expect("a valid run");
        // The same command again, with a new total: nothing to warn about.
        let again = parsed(&[
            "dqn",
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
        assert_eq!(resume_warning(&again, game, &stored), None);
        let plain = parsed(&["dqn", "--out", "r", "--resume"]);
        assert_eq!(resume_warning(&plain, game, &stored), None);
        // Another learning rate and seed are named with the values the run keeps.
        let other = parsed(&[
            "dqn", "--out", "r", "--lr", "0.02", "--seed", "3", "--resume",
        ]);
        let warning = resume_warning(&other, game, &stored).expect("--lr differs");
        assert!(warning.starts_with("--lr, --seed not applied"), "{warning}");
        assert!(
            warning.contains("0.01 (a new run with this command line: 0.02)"),
            "{warning}"
        );
        assert!(!warning.contains("seed:"), "{warning}");
        // A schedule given differently is named; one left to its default is not compared.
        let schedule = parsed(&["dqn", "--out", "r", "--eval-every", "7", "--resume"]);
        let warning = resume_warning(&schedule, game, &stored).expect("--eval-every differs");
        assert!(
            warning.contains("eval_every: 5 (a new run with this command line: 7)"),
            "{warning}"
        );
    }

    #[test]
    fn a_resume_names_the_options_it_does_not_apply() {
        let given: Vec<String> = [
            "TrainArgs",
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
        let err = check_options(&algos::DQN, &["eval_opponents".into()]);
        assert!(err.is_ok());
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
}
