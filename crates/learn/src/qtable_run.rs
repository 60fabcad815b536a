//! Tabular Q-learning runs (4x4 Othello): the run folder's `config.json`, `log.csv` and
//! `eval.csv` (the share of positions where the greedy move is optimal, against the exact value
//! table), in seconds and without checkpoints.

use othello::Othello4;
use search::ValueTable;

use crate::checkpoint::write_atomic;
use crate::qtable::{QTable, QTableConfig, QTableProgress};
use crate::run::{CsvLog, RunDir, RunError, CONFIG, EVAL, LOG};

/// What a finished q-table run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct QTableSummary {
    /// Positions in the table.
    pub states: usize,
    /// The optimal share before any training.
    pub first: f64,
    /// The optimal share at the end.
    pub last: f64,
    /// (episode, optimal share) at every evaluation, the start included.
    pub curve: Vec<(f64, f64)>,
}

/// Trains a Q-table on 4x4 Othello into the fresh run folder `dir`: `config.json`, one
/// `log.csv` row every thousandth of the run, and `evals` evaluations (plus the start) of the
/// greedy move against `exact`, the solved value table, in `eval.csv`. `progress` sees every
/// episode with the latest optimal share.
///
/// # Errors
/// [`RunError::Io`] when a file cannot be written; [`RunError::Settings`] for zero episodes.
pub fn train_q_table(
    dir: &RunDir,
    config: &QTableConfig,
    evals: usize,
    exact: &ValueTable<Othello4, u128>,
    progress: &mut dyn FnMut(&QTableProgress, f64),
) -> Result<QTableSummary, RunError> {
    let episodes = config.episodes;
    if episodes == 0 {
        return Err(RunError::Settings("--episodes must be at least 1".into()));
    }
    let settings = serde_json::json!({
        "algo": "q-table",
        "game": "othello4",
        "episodes": episodes,
        "seed": config.seed,
        "epsilon": [config.epsilon.0, config.epsilon.1],
        "alpha": [config.alpha.0, config.alpha.1],
        "gamma": config.gamma,
    });
    let text = serde_json::to_string_pretty(&settings).unwrap_or_default();
    write_atomic(&dir.file(CONFIG), text.as_bytes())?;
    let mut log = CsvLog::open(&dir.file(LOG), "episode,epsilon,alpha,states,td_error")?;
    let mut eval = CsvLog::open(&dir.file(EVAL), "episode,optimal_fraction")?;
    let mut table = QTable::new(Othello4::base3_key);
    let first = table.optimal_fraction(exact.positions(), |p| exact.best_moves(p));
    eval.row(&format!("0,{first:.5}"))?;
    eval.flush()?;
    let mut curve = vec![(0.0, first)];
    let log_every = (episodes / 1000).max(1);
    let eval_every = (episodes / evals.max(1)).max(1);
    let mut last = first;
    let mut failed: Option<RunError> = None;
    table.train(config, |t, p| {
        if failed.is_some() {
            return;
        }
        let mut step = || -> Result<(), RunError> {
            if p.episode % log_every == 0 {
                log.row(&format!(
                    "{},{:.4},{:.5},{},{:.5}",
                    p.episode, p.epsilon, p.alpha, p.states, p.td_error
                ))?;
            }
            if p.episode % eval_every == 0 || p.episode == episodes {
                last = t.optimal_fraction(exact.positions(), |pos| exact.best_moves(pos));
                curve.push((p.episode as f64, last));
                eval.row(&format!("{},{last:.5}", p.episode))?;
                eval.flush()?;
            }
            Ok(())
        };
        match step() {
            Ok(()) => progress(p, last),
            Err(e) => failed = Some(e),
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    log.flush()?;
    eval.flush()?;
    Ok(QTableSummary {
        states: table.len(),
        first,
        last,
        curve,
    })
}
