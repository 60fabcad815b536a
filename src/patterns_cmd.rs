//! `stonelab train patterns` and `train probcut`: the command line's side of
//! [`othello_engine::train::pipeline`]: its progress bars, news lines and PNG charts.

use std::path::Path;

use anyhow::{bail, Result};

use crate::games::GameId;
use crate::train_cmd::TrainArgs;
use indicatif::ProgressBar;
use othello_engine::train::pipeline::{self, Chart, Report, Steps};

/// The binary's [`Report`]: progress bars and news on standard error (hidden when `quiet`;
/// warnings always shown), charts drawn with [`crate::plots`].
struct Terminal {
    quiet: bool,
}

struct Bar(ProgressBar);

impl Steps for Bar {
    fn set_position(&self, done: u64) {
        self.0.set_position(done);
    }
    fn reset_eta(&self) {
        self.0.reset_eta();
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn set_message(&self, message: String) {
        self.0.set_message(message);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Report for Terminal {
    fn steps(&self, total: u64, unit: &str) -> std::sync::Arc<dyn Steps> {
        std::sync::Arc::new(Bar(crate::progress::bar(self.quiet, total, unit)))
    }
    fn note(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }
    fn warn(&self, line: &str) {
        eprintln!("{line}");
    }
    fn chart(&self, path: &Path, chart: &Chart) -> Result<(), String> {
        let lines: Vec<crate::plots::Series> = chart
            .lines
            .iter()
            .map(|(name, points)| crate::plots::Series {
                name: name.clone(),
                points: points.clone(),
            })
            .collect();
        crate::plots::line_chart(
            path,
            &chart.title,
            &chart.x_label,
            &chart.y_label,
            &lines,
            chart.range,
        )
        .map_err(|e| format!("{e:#}"))
    }
}

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
        &Terminal { quiet: o.quiet },
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
        &Terminal { quiet: o.quiet },
    )?)
}
