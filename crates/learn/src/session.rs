//! One training run to its end as a library call: the trainer its registry entry builds, its
//! opponents from an agent registry, its progress and charts through a [`Report`] (what
//! `stonelab train` and the `reproduce` experiments run, and what a Python binding can).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use game::Game;
use othello_engine::train::pipeline::{Chart, Report};

use crate::algos::{self, Algorithm};
use crate::config::RunConfig;
use crate::run::{Checkpoint, Progress, RunDir, RunError, Summary, CONFIG, PLOTS};

/// How [`execute`] ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Finished {
    /// The run had already played `start` episodes, all it asks for: nothing was done.
    AlreadyDone {
        /// Episodes it had played.
        start: usize,
    },
    /// It trained to its end.
    Trained(Summary),
}

/// Trains the run in `dir` (fresh, or from the checkpoint `from`) to its end: evaluations
/// against the run's opponents made by `registry`, progress (one step per episode, the loss,
/// ε, the recent win rate and the last evaluation as its message) and the registry entry's
/// charts (redrawn at each evaluation) through `report`, and its notes (a resume, an
/// evaluation or checkpoint period that the rounds round) as warnings.
///
/// # Errors
/// [`RunError`] when the trainer cannot be built, a round, an evaluation or a write fails, or
/// a chart cannot be drawn ([`RunError::Plot`], after the run).
pub fn execute<G: Game>(
    dir: &RunDir,
    run: &RunConfig,
    from: Option<&Checkpoint>,
    registry: &search::Registry<G>,
    report: &dyn Report,
) -> Result<Finished, RunError> {
    let algo = algos::find(&run.algo)
        .ok_or_else(|| RunError::Settings(format!("{CONFIG}: unknown algorithm {:?}", run.algo)))?;
    let kept;
    let dir = if algo.keeps_checkpoints {
        kept = dir.clone().keeping(usize::MAX);
        &kept
    } else {
        dir
    };
    let mut trainer = crate::build::build_trainer::<G>(run, from)?;
    let start = trainer.episode();
    if start >= run.episodes {
        return Ok(Finished::AlreadyDone { start });
    }
    if start > 0 {
        report.warn(&format!(
            "resuming {} at episode {start}",
            dir.root().display()
        ));
    }
    for (what, every) in [
        ("evaluations", run.eval_every),
        ("checkpoints", run.checkpoint_every),
    ] {
        if let Some(note) = run.rounding_note(what, every, start) {
            report.warn(&note);
        }
    }
    let opponents = run.opponents(registry)?;
    let bar = report.steps(run.episodes as u64, "episodes");
    bar.set_position(start as u64);
    bar.reset_eta();
    // Trainers whose rounds are short ignore it; the supervised ones report their batches.
    let steps = Arc::clone(&bar);
    trainer.set_step_progress(Some(Box::new(move |step, steps_in_epoch| {
        if step % 20 == 0 || step == steps_in_epoch {
            steps.set_message(format!("epoch: batch {step}/{steps_in_epoch}"));
        }
    })));
    let mut recent: VecDeque<bool> = VecDeque::new();
    let mut last_loss: Option<f64> = None;
    let mut last_eval_line = String::new();
    let mut chart_error: Option<RunError> = None;
    let summary = crate::run::train(
        dir,
        run,
        trainer.as_mut(),
        opponents.training.as_ref(),
        &opponents.evals,
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
                if let Err(e) = draw_charts(dir.root(), algo, report) {
                    chart_error.get_or_insert(e);
                }
            }
            Progress::Started { .. } | Progress::Checkpointed(_) => {}
        },
    )?;
    // The last round always ends with an evaluation, which drew the charts from the complete
    // logs.
    bar.finish();
    match chart_error {
        Some(e) => Err(e),
        None => Ok(Finished::Trained(summary)),
    }
}

/// "dqn vs random 55.0%, dqn vs greedy 20.5%": an evaluation's win rates.
#[must_use]
pub fn eval_line(results: &[(String, String, arena::ColourWdl)]) -> String {
    results
        .iter()
        .map(|(who, opp, r)| format!("{who} vs {opp} {:.1}%", 100.0 * r.win_rate()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Draws `algo`'s charts ([`algos::Chart`]) of the run in `root` into its `plots/` folder
/// through `report`, reading the run's CSV files by column name.
///
/// # Errors
/// [`RunError::Plot`] for a folder that cannot be made, a column a file lacks or a chart that
/// cannot be drawn.
pub fn draw_charts(root: &Path, algo: &Algorithm, report: &dyn Report) -> Result<(), RunError> {
    let plots = root.join(PLOTS);
    files::create_dir_all(&plots).map_err(|e| RunError::Plot(e.to_string()))?;
    for chart in algo.charts {
        let lines = chart
            .series(root)
            .map_err(RunError::Plot)?
            .into_iter()
            .map(|s| (s.name, s.points))
            .collect();
        report
            .chart(
                &plots.join(chart.file),
                &Chart {
                    title: chart.title.into(),
                    x_label: chart.x_label.into(),
                    y_label: chart.y_label.into(),
                    lines,
                    range: chart.range,
                },
            )
            .map_err(RunError::Plot)?;
    }
    Ok(())
}
