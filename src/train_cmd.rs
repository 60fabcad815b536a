//! `stonelab train`: training runs with a progress bar, written to `runs/NAME/` (the
//! settings in `config.json`, per-episode logs in `log.csv`, evaluations in `eval.csv`).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use learn::{QTable, QTableConfig};
use othello::Othello4;
use serde_json::json;

use crate::agents::othello4_values;
use crate::games::GameId;

/// The training algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// Tabular Q-learning by ε-greedy self-play (othello4), measured against the exact
    /// value-iteration solution.
    QTable,
}

/// Options of `stonelab train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The algorithm.
    #[arg(value_enum)]
    pub algo: Algo,
    /// The game.
    #[arg(long, default_value_t = GameId::Othello4)]
    pub game: GameId,
    /// Self-play games.
    #[arg(long, default_value_t = 2_000_000)]
    pub episodes: usize,
    /// The run's folder (created; an existing run is refused unless --force).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the exploration.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Evaluations (against the exact solution) over the run.
    #[arg(long, default_value_t = 20)]
    pub evals: usize,
    /// Overwrite an existing run folder.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Writes `text` to `path` atomically (a temporary file in the same folder, then a rename).
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

pub fn run(args: &TrainArgs) -> Result<()> {
    match args.algo {
        Algo::QTable => q_table(args),
    }
}

fn q_table(args: &TrainArgs) -> Result<()> {
    if args.game != GameId::Othello4 {
        bail!(
            "q-table tabulates every position: only othello4 is small enough ({} is not)",
            args.game
        );
    }
    if args.episodes == 0 {
        bail!("--episodes must be at least 1");
    }
    if args.out.join("config.json").exists() && !args.force {
        bail!(
            "{} already holds a run: choose another --out or add --force",
            args.out.display()
        );
    }
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let config = QTableConfig {
        episodes: args.episodes,
        seed: args.seed,
        ..QTableConfig::default()
    };
    write_atomic(
        &args.out.join("config.json"),
        &serde_json::to_string_pretty(&json!({
            "algo": "q-table",
            "game": args.game.to_string(),
            "episodes": config.episodes,
            "seed": config.seed,
            "epsilon": [config.epsilon.0, config.epsilon.1],
            "alpha": [config.alpha.0, config.alpha.1],
            "gamma": config.gamma,
        }))?,
    )?;
    let exact = othello4_values().map_err(|e| anyhow::anyhow!("value iteration: {e}"))?;
    let mut log = BufWriter::new(File::create(args.out.join("log.csv"))?);
    writeln!(log, "episode,epsilon,alpha,states,td_error")?;
    let mut eval = BufWriter::new(File::create(args.out.join("eval.csv"))?);
    writeln!(eval, "episode,optimal_fraction")?;
    let mut table = QTable::new(Othello4::base3_key);
    let first = table.optimal_fraction(exact.positions(), |p| exact.best_moves(p));
    writeln!(eval, "0,{first:.5}")?;
    let log_every = (args.episodes / 1000).max(1);
    let eval_every = (args.episodes / args.evals.max(1)).max(1);
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let bar =
            ProgressBar::with_draw_target(Some(args.episodes as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} episodes, ETA {eta_precise} {msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    };
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
        if p.episode % eval_every == 0 || p.episode == args.episodes {
            last_fraction = t.optimal_fraction(exact.positions(), |pos| exact.best_moves(pos));
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
    println!(
        "q-table on othello4: {} episodes, {} positions learned; greedy move optimal in {:.1}% of \
         the positions where the choice matters (start {:.1}%); logs in {}",
        args.episodes,
        table.len(),
        100.0 * last_fraction,
        100.0 * first,
        args.out.display()
    );
    Ok(())
}
