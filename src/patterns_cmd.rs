//! `stonelab train patterns` and `train probcut`: the command line's side of
//! [`othello_engine::train::pipeline`] — its progress bars, news lines and PNG charts.

use std::path::Path;

use anyhow::Result;
use indicatif::ProgressBar;
use othello_engine::train::pipeline::{self, Chart, Report, Steps};

pub use othello_engine::train::{PatternConfig, DEFAULT_CORRECTION_EPOCHS, DEFAULT_EXACT_REST};

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
    fn steps(&self, total: u64, unit: &str) -> Box<dyn Steps + '_> {
        Box::new(Bar(crate::progress::bar(self.quiet, total, unit)))
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
            None,
        )
        .map_err(|e| format!("{e:#}"))
    }
}

/// What `stonelab train patterns` needs from the command line.
pub struct PatternArgs<'a> {
    pub out: &'a Path,
    pub config: PatternConfig,
    pub resume: bool,
    pub force: bool,
    pub quiet: bool,
}

/// Runs (or resumes) a pattern training run.
pub fn train(args: &PatternArgs<'_>) -> Result<()> {
    let run = pipeline::PatternRun {
        out: args.out,
        config: args.config.clone(),
        resume: args.resume,
        force: args.force,
        version: env!("CARGO_PKG_VERSION"),
    };
    Ok(pipeline::train_patterns(
        &run,
        &Terminal { quiet: args.quiet },
    )?)
}

/// What `stonelab train probcut` needs from the command line.
pub struct ProbCutArgs<'a> {
    pub out: &'a Path,
    pub wthor: &'a Path,
    pub weights: Option<&'a Path>,
    pub positions: usize,
    pub max_depth: u32,
    pub seed: u64,
    pub force: bool,
    pub quiet: bool,
}

/// Fits the Multi-ProbCut regressions (see [`pipeline::fit_probcut_run`]).
pub fn probcut(args: &ProbCutArgs<'_>) -> Result<()> {
    let run = pipeline::ProbCutRun {
        out: args.out,
        wthor: args.wthor,
        weights: args.weights,
        positions: args.positions,
        max_depth: args.max_depth,
        seed: args.seed,
        force: args.force,
    };
    Ok(pipeline::fit_probcut_run(
        &run,
        &Terminal { quiet: args.quiet },
    )?)
}
