//! `stonelab train patterns` and `train probcut`: the command line's side of
//! [`othello_engine::train::pipeline`], reporting through [`crate::progress::Terminal`].

use anyhow::{bail, Result};

use crate::games::GameId;
use crate::train_cmd::TrainArgs;
use othello_engine::train::pipeline;

/// Runs (or resumes) a pattern training run (see [`pipeline::train_patterns`]).
pub fn train(args: &TrainArgs) -> Result<()> {
    if let Some(game) = args.game.filter(|g| *g != GameId::Othello8) {
        bail!("patterns evaluates 8x8 Othello: --game othello8 only, not {game}");
    }
    let o = &args.options;
    let run = pipeline::PatternRun {
        out: &o.out,
        config: o.pattern_config()?,
        resume: o.resume,
        force: o.force,
        version: env!("CARGO_PKG_VERSION"),
    };
    Ok(pipeline::train_patterns(
        &run,
        &crate::progress::Terminal { quiet: o.quiet },
    )?)
}

/// Fits the Multi-ProbCut regressions (see [`pipeline::fit_probcut_run`]).
pub fn probcut(args: &TrainArgs) -> Result<()> {
    let o = &args.options;
    let (positions, max_depth) = o.probcut_sizes()?;
    let run = pipeline::ProbCutRun {
        out: &o.out,
        wthor: &o.wthor,
        weights: o.from.as_deref(),
        positions,
        max_depth,
        seed: o.seed,
        force: o.force,
    };
    Ok(pipeline::fit_probcut_run(
        &run,
        &crate::progress::Terminal { quiet: o.quiet },
    )?)
}
