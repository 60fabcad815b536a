//! `stonelab train patterns` and `train probcut`: the command line's side of
//! [`othello_engine::train::pipeline`]: the run settings from the command line
//! ([`pattern_config`]), its progress bars, news lines and PNG charts.

use std::path::Path;

use anyhow::{bail, Result};

use crate::games::GameId;
use crate::train_cmd::TrainArgs;
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

/// Runs (or resumes) a pattern training run (see [`pipeline::train_patterns`]).
pub fn train(args: &TrainArgs) -> Result<()> {
    let run = pipeline::PatternRun {
        out: &args.out,
        config: pattern_config(args)?,
        resume: args.resume,
        force: args.force,
        version: env!("CARGO_PKG_VERSION"),
    };
    Ok(pipeline::train_patterns(
        &run,
        &Terminal { quiet: args.quiet },
    )?)
}

/// Fits the Multi-ProbCut regressions (see [`pipeline::fit_probcut_run`]).
pub fn probcut(args: &TrainArgs) -> Result<()> {
    let run = pipeline::ProbCutRun {
        out: &args.out,
        wthor: &args.wthor,
        weights: args.from.as_deref(),
        positions: match args.positions.unwrap_or(1000) {
            n @ 1..=100_000 => n,
            n => bail!("--positions {n}: from 1 to 100000 record positions"),
        },
        max_depth: match args.depth.unwrap_or(10) {
            d @ 3..=20 => d,
            d => bail!("--depth {d}: the deepest search fitted, from 3 to 20 plies"),
        },
        seed: args.seed,
        force: args.force,
    };
    Ok(pipeline::fit_probcut_run(
        &run,
        &Terminal { quiet: args.quiet },
    )?)
}

/// The `config.json` a `train patterns` command line asks for (its options checked).
pub(crate) fn pattern_config(args: &TrainArgs) -> Result<PatternConfig> {
    if let Some(game) = args.game.filter(|g| *g != GameId::Othello8) {
        bail!("patterns evaluates 8x8 Othello: --game othello8 only, not {game}");
    }
    if !(args.lambda.is_finite() && args.lambda >= 0.0) {
        bail!("--lambda {}: a penalty of 0 or more", args.lambda);
    }
    if !(args.search_probcut.is_finite() && args.search_probcut >= 0.0) {
        bail!(
            "--search-probcut {}: standard deviations, 0 or more (0: full width)",
            args.search_probcut
        );
    }
    if !(0.0..=1.0).contains(&args.deviations) {
        bail!("--deviations {}: a fraction from 0 to 1", args.deviations);
    }
    if let Some(d) = args.depth.filter(|d| !(1..=12).contains(d)) {
        bail!("--depth {d}: the self-play games' search, from 1 to 12 plies");
    }
    if args.deviations > 0.0 && args.search_depth == 0 {
        bail!(
            "--deviations {} needs --search-depth 1 or more: the search labels those positions",
            args.deviations
        );
    }
    if !(0.0..=1.0).contains(&args.exact_fraction) {
        bail!(
            "--exact-fraction {}: a fraction from 0 to 1",
            args.exact_fraction
        );
    }
    let exact_rest = match args.exact_rest {
        Some(rest) if args.exact_fraction >= 1.0 => bail!(
            "--exact-rest {rest} applies only with --exact-fraction below 1 (every game is \
             solved up to --exact-empties {})",
            args.exact_empties
        ),
        Some(rest) if rest > args.exact_empties => bail!(
            "--exact-rest {rest} is above --exact-empties {}: the other games are solved less \
             far, not further",
            args.exact_empties
        ),
        Some(rest) => rest,
        // `PatternConfig::exact_zone` caps it at --exact-empties; unused when every game is
        // solved through the zone, and what a `config.json` from before the option reads as.
        None => DEFAULT_EXACT_REST,
    };
    Ok(PatternConfig {
        wthor: args.wthor.clone(),
        max_games: args.max_games,
        exact_empties: args.exact_empties,
        stage_width: args.stage_width,
        scale: 64,
        lambda: args.lambda,
        lambda_globals: 1.0,
        iterations: args.iterations,
        seed: args.seed,
        blend: args.blend.min(60),
        self_play_games: args.self_play_games,
        self_play_depth: args.depth.unwrap_or(4),
        search_depth: args.search_depth,
        self_play_exact: args.self_play_exact,
        search_probcut: args.search_probcut,
        deviations: args.deviations,
        theoretical_exact: args.theoretical_exact,
        self_play_search: args.self_play_search,
        edge_mobility: args.edge_mobility,
        exact_fraction: args.exact_fraction,
        exact_rest,
        correction: args.correction as usize,
        correction_epochs: args.correction_epochs,
        correction_frontier: args.correction_frontier,
        correction_as_played: args.correction_as_played,
    })
}
