//! `stonelab data wthor`: the command line's side of [`learn::value::wthor`] (the WTHOR games
//! as labelled value-learning positions, raw and merged over the symmetries, split by frequency
//! and by game, with a summary): its progress bar and the summary on the terminal.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Subcommand};
use learn::value::wthor::{self, Progress};
use othello::dataset::DEFAULT_SEED;

/// Arguments of `stonelab data`.
#[derive(Args, Debug)]
pub struct DataArgs {
    #[command(subcommand)]
    source: DataSource,
}

#[derive(Subcommand, Debug)]
enum DataSource {
    /// Every WTHOR decision point labelled with the game's result for the side to move (value
    /// targets), raw and merged over the 8 symmetries, split 80/20 by frequency and by game.
    Wthor(WthorArgs),
}

/// Arguments of `stonelab data wthor`.
#[derive(Args, Debug)]
pub struct WthorArgs {
    /// Folder of the `WTH_*.wtb` files.
    #[arg(long, default_value = "data/othello/wthor")]
    wthor: PathBuf,
    /// Output folder (created; one that holds something needs --force).
    #[arg(long)]
    out: PathBuf,
    /// Replace an earlier dataset in --out (a folder holding anything a dataset does not write
    /// is refused).
    #[arg(long)]
    force: bool,
    /// No progress bar and no summary on the terminal.
    #[arg(long)]
    quiet: bool,
    /// Seed of the game split's hash.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
}

pub fn run(args: &DataArgs) -> Result<()> {
    match &args.source {
        DataSource::Wthor(args) => build(args),
    }
}

fn build(args: &WthorArgs) -> Result<()> {
    let mut bar = None;
    let summary = wthor::build(
        &args.wthor,
        &args.out,
        args.force,
        args.seed,
        &mut |p| match p {
            Progress::Started { total } => {
                bar = Some(crate::progress::bar(args.quiet, total, "files"));
            }
            Progress::Doing(what) => {
                if let Some(bar) = &bar {
                    bar.set_message(what.to_string());
                }
            }
            Progress::Step => {
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
            }
            Progress::Warning(line) if !args.quiet => match &bar {
                Some(bar) => bar.suspend(|| eprintln!("{line}")),
                None => eprintln!("{line}"),
            },
            Progress::Warning(_) => {}
        },
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if !args.quiet {
        out!("{}", wthor::markdown(&summary));
        outln!("\nwritten to {}", args.out.display());
    }
    Ok(())
}

/// The `WTH_*.wtb` files of `dir`, sorted by name.
pub fn wthor_files(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(wthor::wthor_files(dir)?)
}
