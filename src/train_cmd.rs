//! `stonelab train`: training runs with a progress bar, written to `runs/NAME/` (settings in
//! `config.json`, per-episode `log.csv`, evaluations in `eval.csv`, plots, checkpoints that
//! `--resume` continues from).

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use game::Color;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use learn::checkpoint::{weights_bytes, write_atomic, write_model, Card};
use learn::{
    evaluate, evaluate_agent, Behaviour, CompetitiveTrainer, DqnConfig, DqnLearner, DqnTrainer,
    QMlpAgent, QMlpConfig, QMlpTrainer, QNetArch, QTable, QTableConfig, Record, Rewards,
};
use othello::{Othello, Othello4};
use search::{Agent, Registry};
use serde_json::json;

use crate::agents::{othello4_values, othello_registry};
use crate::games::GameId;
use crate::plots::{line_chart, Series};

/// The training algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// Tabular Q-learning by ε-greedy self-play (othello4), measured against the exact
    /// value-iteration solution.
    QTable,
    /// The reference Q-learning MLP (64-128-128-64-64 tanh), epochs of 10 games against random.
    QMlp,
    /// DQN with a residual Q-network, trained against an opponent (random by default).
    Dqn,
    /// A black DQN and a white DQN trained against each other.
    DqnCompetitive,
}

impl Algo {
    fn name(self) -> &'static str {
        match self {
            Algo::QTable => "q-table",
            Algo::QMlp => "q-mlp",
            Algo::Dqn => "dqn",
            Algo::DqnCompetitive => "dqn-competitive",
        }
    }
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
    #[arg(value_enum)]
    pub algo: Algo,
    /// The game (default othello4 for q-table, othello8 otherwise; neural agents: othello4/6/8).
    #[arg(long)]
    pub game: Option<GameId>,
    /// Training games (default: q-table 2,000,000; q-mlp 3,000; dqn and dqn-competitive 4,000).
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
    /// q-table: evaluations (against the exact solution) over the run.
    #[arg(long, default_value_t = 20)]
    pub evals: usize,
    /// Evaluate against random and greedy every this many episodes (default: episodes / 20).
    #[arg(long)]
    pub eval_every: Option<usize>,
    /// Games per evaluation and opponent, colours swapped.
    #[arg(long, default_value_t = 200)]
    pub eval_games: usize,
    /// Checkpoint every this many episodes (default: episodes / 10).
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
    /// dqn: mini-batch size.
    #[arg(long, default_value_t = 64)]
    pub batch_size: usize,
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
}

/// Reward options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RewardsArg {
    /// Disc changes / 100 after every move, ±1 at the end.
    Scaled,
    /// ±1 at the end only.
    Terminal,
}

pub fn run(args: &TrainArgs) -> Result<()> {
    let threads = args.threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building the thread pool")?;
    pool.install(|| match args.algo {
        Algo::QTable => q_table(args),
        Algo::QMlp | Algo::Dqn | Algo::DqnCompetitive => {
            let game = args.game.unwrap_or(GameId::Othello8);
            match game {
                GameId::Othello4 => neural::<4>(args, game),
                GameId::Othello6 => neural::<6>(args, game),
                GameId::Othello8 => neural::<8>(args, game),
                other => bail!(
                    "{} trains on Othello (othello4, othello6, othello8); {other} is not supported yet",
                    args.algo.name()
                ),
            }
        }
    })
}

fn progress_bar(args: &TrainArgs, total: usize, done: usize) -> ProgressBar {
    if args.quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {pos}/{len} episodes, ETA {eta_precise} {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(done as u64);
    bar.reset_eta();
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}

/// Refuses to overwrite a run by accident; `--force` clears the old one.
fn prepare_fresh(args: &TrainArgs) -> Result<()> {
    if args.out.join("config.json").exists() {
        if !args.force {
            bail!(
                "{} already holds a run: add --resume to continue it, --force to start over, or \
                 choose another --out",
                args.out.display()
            );
        }
        for name in ["log.csv", "eval.csv"] {
            let _ = fs::remove_file(args.out.join(name));
        }
        let _ = fs::remove_dir_all(args.out.join("checkpoints"));
        let _ = fs::remove_dir_all(args.out.join("plots"));
    }
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))
}

fn q_table(args: &TrainArgs) -> Result<()> {
    let game = args.game.unwrap_or(GameId::Othello4);
    if game != GameId::Othello4 {
        bail!("q-table tabulates every position: only othello4 is small enough ({game} is not)");
    }
    if args.resume {
        bail!("q-table runs take seconds and have no checkpoints: run again without --resume");
    }
    let episodes = args.episodes.unwrap_or(2_000_000);
    if episodes == 0 {
        bail!("--episodes must be at least 1");
    }
    prepare_fresh(args)?;
    let config = QTableConfig {
        episodes,
        seed: args.seed,
        ..QTableConfig::default()
    };
    write_atomic(
        &args.out.join("config.json"),
        serde_json::to_string_pretty(&json!({
            "algo": "q-table",
            "game": game.to_string(),
            "episodes": config.episodes,
            "seed": config.seed,
            "epsilon": [config.epsilon.0, config.epsilon.1],
            "alpha": [config.alpha.0, config.alpha.1],
            "gamma": config.gamma,
        }))?
        .as_bytes(),
    )?;
    let exact = othello4_values().map_err(|e| anyhow!("value iteration: {e}"))?;
    let mut log = BufWriter::new(File::create(args.out.join("log.csv"))?);
    writeln!(log, "episode,epsilon,alpha,states,td_error")?;
    let mut eval = BufWriter::new(File::create(args.out.join("eval.csv"))?);
    writeln!(eval, "episode,optimal_fraction")?;
    let mut table = QTable::new(Othello4::base3_key);
    let first = table.optimal_fraction(exact.positions(), |p| exact.best_moves(p));
    writeln!(eval, "0,{first:.5}")?;
    let mut curve = vec![(0.0, first)];
    let log_every = (episodes / 1000).max(1);
    let eval_every = (episodes / args.evals.max(1)).max(1);
    let bar = progress_bar(args, episodes, 0);
    let mut last_fraction = first;
    let mut io_error: Option<std::io::Error> = None;
    table.train(&config, |t, p| {
        if p.episode % log_every == 0 {
            if let Err(e) = writeln!(
                log,
                "{},{:.4},{:.5},{},{:.5}",
                p.episode, p.epsilon, p.alpha, p.states, p.td_error
            ) {
                io_error.get_or_insert(e);
            }
        }
        if p.episode % eval_every == 0 || p.episode == episodes {
            last_fraction = t.optimal_fraction(exact.positions(), |pos| exact.best_moves(pos));
            curve.push((p.episode as f64, last_fraction));
            if let Err(e) =
                writeln!(eval, "{},{last_fraction:.5}", p.episode).and_then(|()| eval.flush())
            {
                io_error.get_or_insert(e);
            }
        }
        if p.episode % 1000 == 0 {
            bar.set_position(p.episode as u64);
            bar.set_message(format!(
                "ε {:.3}, optimal {:.1}%, {} positions",
                p.epsilon,
                100.0 * last_fraction,
                p.states
            ));
        }
    });
    bar.finish_and_clear();
    if let Some(e) = io_error {
        return Err(e).context("writing the run's logs");
    }
    log.flush()?;
    eval.flush()?;
    fs::create_dir_all(args.out.join("plots"))?;
    line_chart(
        &args.out.join("plots/optimal.png"),
        "q-table on othello4: greedy move optimal",
        "episodes",
        "fraction of positions",
        &[Series {
            name: "optimal fraction".into(),
            points: curve,
        }],
        Some((0.0, 1.0)),
    )?;
    println!(
        "q-table on othello4: {episodes} episodes, {} positions learned; greedy move optimal in \
         {:.1}% of the positions where the choice matters (start {:.1}%); logs in {}",
        table.len(),
        100.0 * last_fraction,
        100.0 * first,
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
        },
        parallel: args.parallel,
        batch_size: args.batch_size,
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
    }
}

/// What `config.json` holds for the neural algorithms.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
struct RunConfig {
    algo: String,
    game: String,
    episodes: usize,
    eval_every: usize,
    eval_games: usize,
    checkpoint_every: usize,
    opponent: String,
    #[serde(default)]
    dqn: Option<DqnConfig>,
    #[serde(default)]
    q_mlp: Option<QMlpSettings>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
struct QMlpSettings {
    games_per_epoch: usize,
    gamma: f32,
    learning_rate: f64,
    seed: u64,
}

/// The latest complete checkpoint folder (`checkpoints/ep-NNNNNNNN`) and its episode.
fn latest_checkpoint(out: &Path) -> Option<(usize, PathBuf)> {
    let dir = out.join("checkpoints");
    let entries = fs::read_dir(&dir).ok()?;
    entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_string_lossy().into_owned();
            let episode: usize = name.strip_prefix("ep-")?.parse().ok()?;
            e.path()
                .join("state.json")
                .exists()
                .then(|| (episode, e.path()))
        })
        .max_by_key(|(episode, _)| *episode)
}

/// Keeps the header and the rows of episodes up to `episode` (the rest came after the
/// checkpoint we resume from, or were cut by a kill), rewriting the file atomically.
fn truncate_csv(path: &Path, episode: usize) -> Result<()> {
    let Ok(text) = fs::read_to_string(path) else {
        return Ok(());
    };
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Ok(());
    };
    let fields = header.split(',').count();
    let mut out = String::from(header);
    out.push('\n');
    for line in lines {
        let keep = line.split(',').count() == fields
            && line
                .split(',')
                .next()
                .and_then(|f| f.parse::<usize>().ok())
                .is_some_and(|e| e <= episode);
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    write_atomic(path, out.as_bytes())?;
    Ok(())
}

/// Appends to a CSV, writing the header when the file is new.
fn open_csv(path: &Path, header: &str) -> Result<BufWriter<File>> {
    let fresh = !path.exists() || fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true);
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let mut w = BufWriter::new(file);
    if fresh {
        writeln!(w, "{header}")?;
        w.flush()?;
    }
    Ok(w)
}

/// Makes `folder` appear complete or not at all: the files are written into a temporary
/// folder that is renamed into place.
fn atomic_dir(folder: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let name = folder
        .file_name()
        .map_or_else(|| "dir".into(), |n| n.to_string_lossy().into_owned());
    let tmp = folder.with_file_name(format!(".{name}.tmp"));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    write(&tmp)?;
    if folder.exists() {
        fs::remove_dir_all(folder)?;
    }
    fs::rename(&tmp, folder).with_context(|| format!("renaming to {}", folder.display()))?;
    Ok(())
}

/// Keeps the two newest checkpoint folders.
fn prune_checkpoints(out: &Path) {
    let Ok(entries) = fs::read_dir(out.join("checkpoints")) else {
        return;
    };
    let mut found: Vec<(usize, PathBuf)> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_string_lossy().into_owned();
            Some((name.strip_prefix("ep-")?.parse().ok()?, e.path()))
        })
        .collect();
    found.sort();
    let excess = found.len().saturating_sub(2);
    for (_, path) in found.into_iter().take(excess) {
        let _ = fs::remove_dir_all(path);
    }
}

fn record_json(r: &Record) -> serde_json::Value {
    json!({
        "games": r.games(),
        "win_rate": r.win_rate(),
        "score": r.score(),
        "as_black": {"won": r.black[0], "drawn": r.black[1], "lost": r.black[2]},
        "as_white": {"won": r.white[0], "drawn": r.white[1], "lost": r.white[2]},
    })
}

fn record_row(r: &Record) -> String {
    format!(
        "{},{:.4},{:.4},{},{},{},{},{},{}",
        r.games(),
        r.win_rate(),
        r.score(),
        r.black[0],
        r.black[1],
        r.black[2],
        r.white[0],
        r.white[1],
        r.white[2]
    )
}

/// Charts of the run, redrawn from its CSV files.
fn draw_plots(out: &Path, competitive: bool) -> Result<()> {
    let plots = out.join("plots");
    fs::create_dir_all(&plots)?;
    let read = |name: &str| -> Vec<Vec<String>> {
        fs::read_to_string(out.join(name))
            .unwrap_or_default()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    let num = |row: &[String], i: usize| row.get(i).and_then(|v| v.parse::<f64>().ok());
    let log = read("log.csv");
    // Loss: mean over windows of 50 episodes.
    let loss_columns: Vec<(usize, &str)> = if competitive {
        vec![(5, "black DQN"), (6, "white DQN")]
    } else {
        vec![(5, "loss")]
    };
    let mut loss_series = Vec::new();
    for (col, name) in loss_columns {
        let mut points = Vec::new();
        for chunk in log.chunks(50) {
            let values: Vec<f64> = chunk.iter().filter_map(|r| num(r, col)).collect();
            if let (Some(last), false) = (chunk.last().and_then(|r| num(r, 0)), values.is_empty()) {
                points.push((last, values.iter().sum::<f64>() / values.len() as f64));
            }
        }
        loss_series.push(Series {
            name: name.into(),
            points,
        });
    }
    line_chart(
        &plots.join("loss.png"),
        "training loss (mean squared TD error, 50-episode means)",
        "episode",
        "loss",
        &loss_series,
        None,
    )?;
    let eval = read("eval.csv");
    let mut win_series: Vec<Series> = Vec::new();
    for row in &eval {
        let (Some(episode), Some(rate)) = (num(row, 0), num(row, 4)) else {
            continue;
        };
        let name = format!(
            "{} vs {}",
            row.get(1).map_or("", String::as_str),
            row.get(2).map_or("", String::as_str)
        );
        match win_series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((episode, rate)),
            None => win_series.push(Series {
                name,
                points: vec![(episode, rate)],
            }),
        }
    }
    line_chart(
        &plots.join("winrate.png"),
        "greedy win rate in evaluation games (colours swapped)",
        "episode",
        "win rate",
        &win_series,
        Some((0.0, 1.0)),
    )?;
    Ok(())
}

/// An evaluation opponent: its name and a maker of fresh ones by seed.
type Opponent<'r, const N: usize> = (
    &'static str,
    Box<dyn Fn(u64) -> Box<dyn Agent<Othello<N>>> + 'r>,
);

/// Evaluation opponents: `random` and `greedy` of the game's registry.
fn opponents<const N: usize>(registry: &Registry<Othello<N>>) -> Result<Vec<Opponent<'_, N>>> {
    let mut out: Vec<Opponent<'_, N>> = Vec::new();
    for name in ["random", "greedy"] {
        registry
            .validate(name)
            .map_err(|e| anyhow!("evaluation opponent {name}: {e}"))?;
        out.push((
            name,
            Box::new(move |seed| {
                registry
                    .build(name, seed)
                    .unwrap_or_else(|_| Box::new(search::RandomAgent::new(seed)))
            }),
        ));
    }
    Ok(out)
}

/// Everything common to the neural runs: folders, resume, logs, evaluation and checkpoints;
/// `A` is the algorithm-specific part.
trait Learner<const N: usize> {
    /// The CSV header of log.csv.
    const LOG_HEADER: &'static str;
    /// Episodes played.
    fn episode(&self) -> usize;
    /// Plays and learns up to `limit` games; returns log rows (starting with the episode) and
    /// per-game (won, loss) for the progress bar.
    fn round(&mut self, limit: usize, started: Instant)
        -> Result<Vec<(String, bool, Option<f64>)>>;
    /// ε now.
    fn epsilon(&self) -> f64;
    /// Evaluates: (learner label, opponent, record).
    fn evaluate(
        &mut self,
        opponents: &[Opponent<'_, N>],
        games: usize,
    ) -> Result<Vec<(String, &'static str, Record)>>;
    /// Writes the training state into `dir`.
    fn save_state(&self, dir: &Path) -> Result<()>;
    /// The public models: (file name, weights, card without sha).
    fn models(
        &self,
        run: &RunConfig,
        last_eval: &serde_json::Value,
    ) -> Result<Vec<(String, Vec<u8>, Card)>>;
}

struct DqnRun<'r, const N: usize> {
    trainer: DqnTrainer<Othello<N>>,
    registry: &'r Registry<Othello<N>>,
    opponent: String,
}

impl<const N: usize> Learner<N> for DqnRun<'_, N> {
    const LOG_HEADER: &'static str =
        "episode,color,result,reward,epsilon,loss,replay,grad_steps,seconds";
    fn episode(&self) -> usize {
        self.trainer.episode
    }
    fn epsilon(&self) -> f64 {
        self.trainer.learner.config.epsilon(self.trainer.episode)
    }
    fn round(
        &mut self,
        limit: usize,
        started: Instant,
    ) -> Result<Vec<(String, bool, Option<f64>)>> {
        let registry = self.registry;
        let spec = self.opponent.clone();
        let opponent = move |seed: u64| {
            registry
                .build(&spec, seed)
                .unwrap_or_else(|_| Box::new(search::RandomAgent::new(seed)))
        };
        let stats = self.trainer.round(&opponent, limit)?;
        let replay = self.trainer.learner.replay_len();
        let steps = self.trainer.learner.grad_steps;
        let secs = started.elapsed().as_secs_f64();
        Ok(stats
            .into_iter()
            .map(|s| {
                (
                    format!(
                        "{},{},{},{:.4},{:.4},{},{replay},{steps},{secs:.1}",
                        s.episode,
                        color_name(s.color),
                        s.result,
                        s.reward,
                        s.epsilon,
                        s.loss.map_or(String::new(), |l| format!("{l:.6}"))
                    ),
                    s.result > 0,
                    s.loss,
                )
            })
            .collect())
    }
    fn evaluate(
        &mut self,
        opponents: &[Opponent<'_, N>],
        games: usize,
    ) -> Result<Vec<(String, &'static str, Record)>> {
        let mut out = Vec::new();
        for (k, (name, make)) in opponents.iter().enumerate() {
            let r = evaluate(
                &mut self.trainer.learner,
                make.as_ref(),
                games,
                7_919 + k as u64,
            )?;
            out.push(("dqn".to_string(), *name, r));
        }
        Ok(out)
    }
    fn save_state(&self, dir: &Path) -> Result<()> {
        Ok(self.trainer.learner.save_state(dir)?)
    }
    fn models(
        &self,
        run: &RunConfig,
        last_eval: &serde_json::Value,
    ) -> Result<Vec<(String, Vec<u8>, Card)>> {
        let l = &self.trainer.learner;
        Ok(vec![(
            "last.safetensors".into(),
            weights_bytes(&l.inference_net())?,
            dqn_card(
                run,
                &l.config,
                self.trainer.episode,
                l.grad_steps,
                last_eval.clone(),
            ),
        )])
    }
}

fn color_name(c: Color) -> &'static str {
    if c == Color::Black {
        "black"
    } else {
        "white"
    }
}

fn dqn_card(
    run: &RunConfig,
    config: &DqnConfig,
    episodes: usize,
    steps: u64,
    last_eval: serde_json::Value,
) -> Card {
    Card {
        format: String::new(),
        algo: "dqn".into(),
        game: run.game.clone(),
        board_size: board_size(&run.game),
        arch: Some(config.arch),
        config: serde_json::to_value(config).unwrap_or_default(),
        episodes,
        train_steps: steps,
        weights: String::new(),
        sha256: String::new(),
        bytes: 0,
        last_eval,
    }
}

fn board_size(game: &str) -> usize {
    match game {
        "othello4" => 4,
        "othello6" => 6,
        _ => 8,
    }
}

struct CompetitiveRun<const N: usize> {
    trainer: CompetitiveTrainer<Othello<N>>,
}

impl<const N: usize> Learner<N> for CompetitiveRun<N> {
    const LOG_HEADER: &'static str =
        "episode,winner,black_reward,white_reward,epsilon,black_loss,white_loss,seconds";
    fn episode(&self) -> usize {
        self.trainer.episode
    }
    fn epsilon(&self) -> f64 {
        self.trainer.black.config.epsilon(self.trainer.episode)
    }
    fn round(
        &mut self,
        limit: usize,
        started: Instant,
    ) -> Result<Vec<(String, bool, Option<f64>)>> {
        let stats = self.trainer.round(limit)?;
        let secs = started.elapsed().as_secs_f64();
        let f = |l: Option<f64>| l.map_or(String::new(), |l| format!("{l:.6}"));
        Ok(stats
            .into_iter()
            .map(|s| {
                (
                    format!(
                        "{},{},{:.4},{:.4},{:.4},{},{},{secs:.1}",
                        s.episode,
                        s.winner.map_or("draw", color_name),
                        s.rewards[0],
                        s.rewards[1],
                        s.epsilon,
                        f(s.loss[0]),
                        f(s.loss[1])
                    ),
                    s.winner == Some(Color::Black),
                    s.loss[0],
                )
            })
            .collect())
    }
    fn evaluate(
        &mut self,
        opponents: &[Opponent<'_, N>],
        games: usize,
    ) -> Result<Vec<(String, &'static str, Record)>> {
        let mut out = Vec::new();
        for (k, (name, make)) in opponents.iter().enumerate() {
            let seed = 7_919 + k as u64;
            let r = evaluate(&mut self.trainer.black, make.as_ref(), games, seed)?;
            out.push(("black-dqn".to_string(), *name, r));
            let r = evaluate(&mut self.trainer.white, make.as_ref(), games, seed)?;
            out.push(("white-dqn".to_string(), *name, r));
        }
        Ok(out)
    }
    fn save_state(&self, dir: &Path) -> Result<()> {
        for (name, learner) in [
            ("black", &self.trainer.black),
            ("white", &self.trainer.white),
        ] {
            let sub = dir.join(name);
            fs::create_dir_all(&sub)?;
            learner.save_state(&sub)?;
        }
        Ok(())
    }
    fn models(
        &self,
        run: &RunConfig,
        last_eval: &serde_json::Value,
    ) -> Result<Vec<(String, Vec<u8>, Card)>> {
        let mut out = Vec::new();
        for (name, l) in [
            ("black", &self.trainer.black),
            ("white", &self.trainer.white),
        ] {
            out.push((
                format!("{name}-last.safetensors"),
                weights_bytes(&l.inference_net())?,
                dqn_card(
                    run,
                    &l.config,
                    self.trainer.episode,
                    l.grad_steps,
                    last_eval.clone(),
                ),
            ));
        }
        Ok(out)
    }
}

struct QMlpRun<const N: usize> {
    trainer: QMlpTrainer<Othello<N>>,
}

impl<const N: usize> Learner<N> for QMlpRun<N> {
    const LOG_HEADER: &'static str = "episode,epoch,color,result,epsilon,loss,epoch_wins,seconds";
    fn episode(&self) -> usize {
        self.trainer.epochs_done() * self.trainer.config().games_per_epoch
    }
    fn epsilon(&self) -> f64 {
        learn::qmlp::epsilon(self.trainer.epochs_done())
    }
    fn round(
        &mut self,
        _limit: usize,
        started: Instant,
    ) -> Result<Vec<(String, bool, Option<f64>)>> {
        let before = self.episode();
        let s = self.trainer.epoch();
        let secs = started.elapsed().as_secs_f64();
        Ok(s.games
            .iter()
            .enumerate()
            .map(|(k, &(color, result, loss))| {
                (
                    format!(
                        "{},{},{},{result},{:.4},{loss:.6},{},{secs:.1}",
                        before + k + 1,
                        s.epoch,
                        color_name(color),
                        s.epsilon,
                        s.wins
                    ),
                    result > 0,
                    Some(loss),
                )
            })
            .collect())
    }
    fn evaluate(
        &mut self,
        opponents: &[Opponent<'_, N>],
        games: usize,
    ) -> Result<Vec<(String, &'static str, Record)>> {
        let mut agent = QMlpAgent::<Othello<N>>::new(self.trainer.inference_net(), "q-mlp".into());
        let mut out = Vec::new();
        for (k, (name, make)) in opponents.iter().enumerate() {
            let r = evaluate_agent(&mut agent, make.as_ref(), games, 7_919 + k as u64)?;
            out.push(("q-mlp".to_string(), *name, r));
        }
        Ok(out)
    }
    fn save_state(&self, dir: &Path) -> Result<()> {
        Ok(self.trainer.save_state(dir)?)
    }
    fn models(
        &self,
        run: &RunConfig,
        last_eval: &serde_json::Value,
    ) -> Result<Vec<(String, Vec<u8>, Card)>> {
        let card = Card {
            format: String::new(),
            algo: "q-mlp".into(),
            game: run.game.clone(),
            board_size: N,
            arch: None,
            config: serde_json::to_value(&run.q_mlp).unwrap_or_default(),
            episodes: self.episode(),
            train_steps: (self.episode()) as u64,
            weights: String::new(),
            sha256: String::new(),
            bytes: 0,
            last_eval: last_eval.clone(),
        };
        Ok(vec![(
            "last.safetensors".into(),
            weights_bytes(&self.trainer.inference_net())?,
            card,
        )])
    }
}

fn neural<const N: usize>(args: &TrainArgs, game: GameId) -> Result<()> {
    let registry = othello_registry::<N>();
    let (run, resume_from) = if args.resume {
        let text = fs::read_to_string(args.out.join("config.json")).with_context(|| {
            format!(
                "--resume: {} holds no run (no config.json)",
                args.out.display()
            )
        })?;
        let mut run: RunConfig = serde_json::from_str(&text).with_context(|| {
            format!("--resume: {}/config.json is malformed", args.out.display())
        })?;
        if run.algo != args.algo.name() || run.game != game.to_string() {
            bail!(
                "--resume: {} is a {} run on {}, not {} on {game}",
                args.out.display(),
                run.algo,
                run.game,
                args.algo.name()
            );
        }
        if let Some(episodes) = args.episodes {
            run.episodes = episodes;
        }
        let from = latest_checkpoint(&args.out);
        (run, from)
    } else {
        let episodes = args.episodes.unwrap_or(match args.algo {
            Algo::QMlp => 3_000,
            Algo::Dqn => 4_000,
            _ => 4_000,
        });
        if episodes == 0 {
            bail!("--episodes must be at least 1");
        }
        let dqn = dqn_config(args, episodes);
        dqn.validate().map_err(|e| anyhow!("{e}"))?;
        registry
            .validate(&args.opponent)
            .map_err(|e| anyhow!("--opponent: {e}"))?;
        prepare_fresh(args)?;
        let run = RunConfig {
            algo: args.algo.name().into(),
            game: game.to_string(),
            episodes,
            eval_every: args.eval_every.unwrap_or((episodes / 20).max(1)).max(1),
            eval_games: args.eval_games.max(2),
            checkpoint_every: args
                .checkpoint_every
                .unwrap_or((episodes / 10).max(1))
                .max(1),
            opponent: args.opponent.clone(),
            dqn: (args.algo != Algo::QMlp).then_some(dqn),
            q_mlp: (args.algo == Algo::QMlp).then(|| QMlpSettings {
                games_per_epoch: 10,
                gamma: args.gamma,
                learning_rate: args.lr.unwrap_or(1e-3),
                seed: args.seed,
            }),
        };
        write_atomic(
            &args.out.join("config.json"),
            serde_json::to_string_pretty(&run)?.as_bytes(),
        )?;
        (run, None)
    };
    if let Some((episode, _)) = &resume_from {
        truncate_csv(&args.out.join("log.csv"), *episode)?;
        truncate_csv(&args.out.join("eval.csv"), *episode)?;
    } else if args.resume {
        eprintln!(
            "no checkpoint in {} yet: starting the run over",
            args.out.display()
        );
        for name in ["log.csv", "eval.csv"] {
            let _ = fs::remove_file(args.out.join(name));
        }
    }
    let dir = resume_from.as_ref().map(|(_, d)| d.as_path());
    match args.algo {
        Algo::Dqn => {
            let config = run
                .dqn
                .clone()
                .ok_or_else(|| anyhow!("config.json has no dqn settings"))?;
            let trainer = match dir {
                Some(d) => DqnTrainer {
                    learner: DqnLearner::load_state(config, d)?,
                    episode: checkpoint_episode(d)?,
                },
                None => DqnTrainer::new(config)?,
            };
            let learner = DqnRun {
                trainer,
                registry: &registry,
                opponent: run.opponent.clone(),
            };
            drive::<N, _>(args, &run, learner, &registry)
        }
        Algo::DqnCompetitive => {
            let config = run
                .dqn
                .clone()
                .ok_or_else(|| anyhow!("config.json has no dqn settings"))?;
            let trainer = match dir {
                Some(d) => {
                    let white = DqnConfig {
                        seed: config.seed.wrapping_add(1),
                        ..config.clone()
                    };
                    CompetitiveTrainer {
                        black: DqnLearner::load_state(config, &d.join("black"))?,
                        white: DqnLearner::load_state(white, &d.join("white"))?,
                        episode: checkpoint_episode(d)?,
                    }
                }
                None => CompetitiveTrainer::new(config)?,
            };
            drive::<N, _>(args, &run, CompetitiveRun { trainer }, &registry)
        }
        _ => {
            let s = run
                .q_mlp
                .clone()
                .ok_or_else(|| anyhow!("config.json has no q_mlp settings"))?;
            let config = QMlpConfig {
                epochs: run.episodes.div_ceil(s.games_per_epoch.max(1)),
                games_per_epoch: s.games_per_epoch.max(1),
                gamma: s.gamma,
                learning_rate: s.learning_rate,
                seed: s.seed,
            };
            let trainer = match dir {
                Some(d) => QMlpTrainer::load_state(config, d)?,
                None => QMlpTrainer::new(config),
            };
            drive::<N, _>(args, &run, QMlpRun { trainer }, &registry)
        }
    }
}

fn checkpoint_episode(dir: &Path) -> Result<usize> {
    let text = fs::read_to_string(dir.join("state.json"))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}/state.json is malformed", dir.display()))?;
    v["episode"]
        .as_u64()
        .and_then(|e| usize::try_from(e).ok())
        .ok_or_else(|| anyhow!("{}/state.json has no episode", dir.display()))
}

fn drive<const N: usize, L: Learner<N>>(
    args: &TrainArgs,
    run: &RunConfig,
    mut learner: L,
    registry: &Registry<Othello<N>>,
) -> Result<()> {
    let out = &args.out;
    let competitive = run.algo == "dqn-competitive";
    let opponents = opponents::<N>(registry)?;
    let mut log = open_csv(&out.join("log.csv"), L::LOG_HEADER)?;
    let mut eval = open_csv(
        &out.join("eval.csv"),
        "episode,learner,opponent,games,win_rate,score,black_won,black_drawn,black_lost,\
         white_won,white_drawn,white_lost",
    )?;
    fs::create_dir_all(out.join("checkpoints"))?;
    let start_episode = learner.episode();
    if start_episode >= run.episodes {
        println!(
            "{} already has {start_episode} of {} episodes: nothing to do (raise --episodes to go on)",
            out.display(),
            run.episodes
        );
        return Ok(());
    }
    if start_episode > 0 {
        eprintln!("resuming {} at episode {start_episode}", out.display());
    }
    let bar = progress_bar(args, run.episodes, start_episode);
    let started = Instant::now();
    let mut recent: std::collections::VecDeque<bool> = std::collections::VecDeque::new();
    let mut last_loss: Option<f64> = None;
    let mut last_eval = serde_json::Value::Null;
    let mut last_eval_line = String::new();
    let do_eval = |learner: &mut L,
                   episode: usize,
                   eval: &mut BufWriter<File>|
     -> Result<(serde_json::Value, String)> {
        let results = learner.evaluate(&opponents, run.eval_games)?;
        let mut summary = serde_json::Map::new();
        let mut line = Vec::new();
        for (who, opp, r) in &results {
            writeln!(eval, "{episode},{who},{opp},{}", record_row(r))?;
            summary.insert(format!("{who} vs {opp}"), record_json(r));
            line.push(format!("{who} vs {opp} {:.1}%", 100.0 * r.win_rate()));
        }
        eval.flush()?;
        let mut value = serde_json::Value::Object(summary);
        value["episode"] = json!(episode);
        Ok((value, line.join(", ")))
    };
    if start_episode == 0 {
        let (v, line) = do_eval(&mut learner, 0, &mut eval)?;
        last_eval = v;
        last_eval_line = line;
        draw_plots(out, competitive)?;
    }
    while learner.episode() < run.episodes {
        let before = learner.episode();
        let rows = learner.round(run.episodes - before, started)?;
        for (row, won, loss) in &rows {
            writeln!(log, "{row}")?;
            recent.push_back(*won);
            if recent.len() > 100 {
                recent.pop_front();
            }
            if loss.is_some() {
                last_loss = *loss;
            }
        }
        log.flush()?;
        let now = learner.episode();
        let crossed = |every: usize| now / every > before / every || now == run.episodes;
        if crossed(run.eval_every) {
            bar.set_message(format!("evaluating ({} games each)", run.eval_games));
            let (v, line) = do_eval(&mut learner, now, &mut eval)?;
            last_eval = v;
            last_eval_line = line;
            draw_plots(out, competitive)?;
        }
        if crossed(run.checkpoint_every) {
            checkpoint(out, run, &learner, now, &last_eval)?;
        }
        let rate = recent.iter().filter(|&&w| w).count() as f64 / recent.len().max(1) as f64;
        bar.set_position(now as u64);
        bar.set_message(format!(
            "loss {} ε {:.3} {} {:.0}% (last {}) | {}",
            last_loss.map_or("-".into(), |l| format!("{l:.4}")),
            learner.epsilon(),
            if competitive { "black wins" } else { "wins" },
            100.0 * rate,
            recent.len(),
            last_eval_line
        ));
    }
    bar.finish_and_clear();
    log.flush()?;
    println!(
        "{} on {}: {} episodes in {:.0} s; last evaluation: {}; model {}",
        run.algo,
        run.game,
        learner.episode(),
        started.elapsed().as_secs_f64(),
        last_eval_line,
        out.join("checkpoints")
            .join(if competitive {
                "black-last.safetensors"
            } else {
                "last.safetensors"
            })
            .display()
    );
    Ok(())
}

fn checkpoint<const N: usize, L: Learner<N>>(
    out: &Path,
    run: &RunConfig,
    learner: &L,
    episode: usize,
    last_eval: &serde_json::Value,
) -> Result<()> {
    let dir = out.join("checkpoints").join(format!("ep-{episode:08}"));
    atomic_dir(&dir, |tmp| {
        learner.save_state(tmp)?;
        write_atomic(
            &tmp.join("state.json"),
            serde_json::to_string_pretty(&json!({"episode": episode, "algo": run.algo}))?
                .as_bytes(),
        )?;
        Ok(())
    })?;
    for (name, weights, card) in learner.models(run, last_eval)? {
        write_model(&out.join("checkpoints").join(name), &weights, card)?;
    }
    prune_checkpoints(out);
    Ok(())
}
