//! `stonelab reproduce NAME`: reruns one documented experiment of a student design or the
//! paper end to end ([`lab::reproduce`]) and writes its report folder.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `stonelab reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// The experiment (see --list).
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// List the experiments with what each reruns and how long it takes.
    #[arg(long, conflicts_with = "name")]
    pub list: bool,
    /// The authors' full lengths (episodes, games) instead of the default sizes, which finish
    /// in at most 30 minutes each on a 2-core machine.
    #[arg(long)]
    pub full: bool,
    /// The report folder (default `reports/NAME`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace a report folder that already exists.
    #[arg(long)]
    pub force: bool,
    /// Games per pair in the evaluations (colours swapped).
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Scale of the experiment's own sizes: episodes, training games and match games are
    /// multiplied by this (small values make quick smoke runs, whose numbers mean little).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Seed of everything random in the experiment.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// paper-table1/2: evaluation positions (the paper: 1,000; fewer for quicker runs).
    #[arg(long)]
    pub positions: Option<usize>,
    /// paper-table1/2: the supervised CNN model (default: the bundled
    /// models/othello8-cnn.safetensors).
    #[arg(long)]
    pub cnn: Option<PathBuf>,
    /// paper-table1/2: the MLP model (default: the bundled models/othello8-mlp.safetensors).
    #[arg(long)]
    pub mlp: Option<PathBuf>,
    /// paper-table2: a cnn-selfplay run folder to evaluate (default: train one, which needs
    /// --data).
    #[arg(long)]
    pub selfplay: Option<PathBuf>,
    /// paper-table1/2: the value dataset folder (`stonelab data wthor --out DIR`): the
    /// evaluation positions and the self-play starts (default for the positions: the WTHOR
    /// records of data/othello/wthor).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// paper-table1/2: the minimax depth of every value-network agent [default: 3].
    #[arg(long)]
    pub depth: Option<u32>,
    /// paper-table2: the self-play's named reading (an unknown name lists them) [default: paper].
    #[arg(long)]
    pub reading: Option<String>,
    /// az-othello6: a trained 6x6 model to check (matches and solver checks; no training).
    #[arg(long)]
    pub model: Option<PathBuf>,
}

/// Runs `stonelab reproduce`.
///
/// # Errors
/// An unknown experiment, an existing report folder without `--force`, or a failed experiment.
pub fn run(args: &ReproduceArgs) -> Result<()> {
    if args.list {
        outln!("experiments (stonelab reproduce NAME; --full for the authors' lengths):\n");
        for e in lab::EXPERIMENTS {
            outln!("  {:<26} {} — {} ({})", e.name, e.design, e.about, e.takes);
        }
        return Ok(());
    }
    let Some(name) = args.name.as_deref() else {
        bail!("name an experiment (stonelab reproduce --list shows them)");
    };
    let how = lab::Invocation {
        full: args.full,
        games: args.games,
        scale: args.scale,
        seed: args.seed,
        paper: lab::PaperArgs {
            positions: args.positions,
            cnn: args.cnn.clone(),
            mlp: args.mlp.clone(),
            selfplay: args.selfplay.clone(),
            data: args.data.clone(),
            depth: args.depth,
            reading: args.reading.clone(),
            model: args.model.clone(),
        },
    };
    let ui = crate::progress::Terminal { quiet: args.quiet };
    let (path, took) = lab::reproduce(name, &how, args.out.as_deref(), args.force, &ui)?;
    let seconds = took.as_secs_f64();
    outln!("{name}: report in {} ({seconds:.0} s)", path.display());
    Ok(())
}
