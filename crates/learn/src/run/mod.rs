//! Training runs as library code: the run folder ([`RunDir`]), the [`Trainer`] trait every
//! algorithm implements for any game, and [`train`], the loop that plays rounds, logs them,
//! evaluates through the arena against injected opponents, and checkpoints. Progress goes to a
//! callback; the application draws bars and plots from it.

mod dir;

use std::path::PathBuf;
use std::time::Instant;

use arena::{ColourWdl, VersusSettings};
use game::Game;
use search::Agent;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use dir::{
    json_differences, Checkpoint, CsvLog, Export, RunDir, CHECKPOINTS, CONFIG, DAMAGED, EVAL,
    KEEP_CHECKPOINTS, LOG, PLOTS, STATE, STATE_FORMAT,
};

use crate::checkpoint::ModelError;

/// The header of `eval.csv`.
pub const EVAL_HEADER: &str = "episode,learner,opponent,games,win_rate,score,black_won,\
                               black_drawn,black_lost,white_won,white_drawn,white_lost";

/// The seed of the evaluation against the `k`-th opponent: the same at every evaluation, so
/// the curves compare like with like.
#[must_use]
pub fn eval_seed(k: usize) -> u64 {
    7_919 + k as u64
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A new run was aimed at a folder that holds one.
    #[error("{0} already holds a run")]
    Exists(PathBuf),
    /// A new run was aimed at a folder that holds other files.
    #[error("{0} is not empty and holds no run: choose another folder")]
    NotEmpty(PathBuf),
    /// `--force` was asked to replace a folder holding something no run writes.
    #[error("{path} holds {entry:?}, which no run writes: refusing to replace it; choose another folder")]
    Foreign {
        /// The folder.
        path: PathBuf,
        /// The first entry a run does not write (relative to the folder).
        entry: String,
    },
    /// A run to resume is not there.
    #[error("{0} holds no run (no config.json)")]
    NoRun(PathBuf),
    /// The run to resume is of another algorithm or game.
    #[error("{path} is a {algo} run on {game}, not {want_algo} on {want_game}")]
    Mismatch {
        /// The run folder.
        path: PathBuf,
        /// Its algorithm.
        algo: String,
        /// Its game.
        game: String,
        /// The algorithm asked for.
        want_algo: String,
        /// The game asked for.
        want_game: String,
    },
    /// `config.json` is malformed or does not fit.
    #[error("{path}: {why}")]
    BadConfig {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A checkpoint folder is incomplete or corrupt.
    #[error("checkpoint {path}: {why}")]
    BadCheckpoint {
        /// The folder.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A file of a checkpoint is missing or does not match the checkpoint's manifest (or
    /// `state.json`, which holds the manifest, is damaged or was edited).
    #[error("checkpoint {checkpoint}: {file} is damaged ({why})")]
    Damaged {
        /// The checkpoint folder.
        checkpoint: PathBuf,
        /// The file, relative to the folder.
        file: String,
        /// What is wrong with it.
        why: String,
    },
    /// A run has checkpoint folders but none of them is usable.
    #[error(
        "{path}: no usable checkpoint to resume from ({}); nothing was changed: restore a \
         checkpoint, or start the run over",
        .reasons.join("; ")
    )]
    NoUsableCheckpoint {
        /// The checkpoints folder.
        path: PathBuf,
        /// Why each checkpoint was refused, newest first.
        reasons: Vec<String>,
    },
    /// Bad settings.
    #[error("{0}")]
    Settings(String),
    /// Model or state files.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A trainer's own step failed.
    #[error(transparent)]
    Trainer(Box<dyn std::error::Error + Send + Sync>),
    /// A chart of the run could not be read or drawn.
    #[error("drawing the plots: {0}")]
    Plot(String),
    /// An evaluation game failed.
    #[error("evaluation: {0}")]
    Eval(#[from] search::driver::DriverError),
}

/// The largest learning rate a run takes (larger ones only turn the weights to NaN).
pub const MAX_LEARNING_RATE: f64 = 10.0;

/// What the framework reads of a run's settings: its algorithm and game, its length and its
/// schedule of evaluations and checkpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The algorithm's name.
    pub algo: String,
    /// The game id.
    pub game: String,
    /// Training games in all.
    pub episodes: usize,
    /// Evaluate every this many episodes (after the first round that reaches each multiple).
    pub eval_every: usize,
    /// Games per evaluation and opponent, colours alternating.
    pub eval_games: usize,
    /// Checkpoint every this many episodes (after the first round that reaches each multiple).
    pub checkpoint_every: usize,
}

impl Schedule {
    /// Checks that the schedule is usable.
    ///
    /// # Errors
    /// [`RunError::Settings`] naming the problem.
    pub fn validate(&self) -> Result<(), RunError> {
        if self.episodes == 0 {
            return Err(RunError::Settings("episodes must be at least 1".into()));
        }
        if self.eval_every == 0 || self.checkpoint_every == 0 {
            return Err(RunError::Settings(
                "eval_every and checkpoint_every must be at least 1".into(),
            ));
        }
        if !(2..=100_000).contains(&self.eval_games) {
            return Err(RunError::Settings(format!(
                "eval_games must be from 2 to 100000 (colours are swapped), not {}",
                self.eval_games
            )));
        }
        Ok(())
    }
}

/// The settings a run's `config.json` holds, as the framework sees them: the registry's
/// [`RunConfig`](crate::config::RunConfig) implements it, so the framework names no algorithm.
pub trait RunSpec: Serialize + DeserializeOwned {
    /// Its schedule.
    fn schedule(&self) -> Schedule;
    /// Sets a new total of episodes (a resume's).
    fn set_episodes(&mut self, episodes: usize);
    /// Checks the schedule and the algorithm's settings.
    ///
    /// # Errors
    /// [`RunError::Settings`] naming the problem.
    fn validate(&self) -> Result<(), RunError>;
}

/// A run opened by [`resume`] to continue it.
#[derive(Debug)]
pub struct Resumed<C> {
    /// The run folder.
    pub dir: RunDir,
    /// Its settings (with the new total of episodes when one was asked for).
    pub config: C,
    /// The checkpoint to continue from (`None`: the run starts over).
    pub from: Option<Checkpoint>,
    /// What the user should be told: each newer checkpoint passed over as damaged or
    /// incomplete (and where it was set aside), or a checkpoint resumed from unverified
    /// because it was written before checksums.
    pub warnings: Vec<String>,
}

/// Opens the `algo` run on `game` in `root` to continue it: its settings (with `episodes` as
/// the new total when given), and its newest usable checkpoint, its log checked complete up
/// to it. [`train`] cuts the logs back to that checkpoint (or removes them when there is none:
/// the run starts over) when it starts, so a resume that fails before (a model that does not
/// load) leaves them as they were.
///
/// A checkpoint is usable when its files all match its manifest ([`RunDir::checkpoint`]).
/// Newer checkpoint folders that are damaged or incomplete are passed over, each with a
/// warning, and renamed `damaged-ep-N`, so the run continues exactly as it would have from
/// the older checkpoint.
///
/// # Errors
/// [`RunError::NoRun`], [`RunError::Mismatch`], [`RunError::BadConfig`],
/// [`RunError::NoUsableCheckpoint`] (checkpoints there, none usable), or [`RunError::Io`];
/// nothing is changed then (but for an [`RunError::Io`] while renaming a damaged folder: the
/// next resume passes over that folder again).
pub fn resume<C: RunSpec>(
    root: &std::path::Path,
    algo: &str,
    game: &str,
    episodes: Option<usize>,
) -> Result<Resumed<C>, RunError> {
    let dir = RunDir::open(root)?;
    let mut config: C = dir.read_config()?;
    let stored = config.schedule();
    if stored.algo != algo || stored.game != game {
        return Err(RunError::Mismatch {
            path: root.to_path_buf(),
            algo: stored.algo,
            game: stored.game,
            want_algo: algo.into(),
            want_game: game.into(),
        });
    }
    if let Some(episodes) = episodes {
        config.set_episodes(episodes);
    }
    config.validate().map_err(|e| RunError::BadConfig {
        path: dir.file(CONFIG),
        why: e.to_string(),
    })?;
    let (checkpoint, passed_over) = dir.usable_checkpoint()?;
    if let (Some(asked), Some(cp)) = (episodes, &checkpoint) {
        if asked < cp.episode {
            // Nothing is rewound: the run stays as it is.
            return Err(RunError::Settings(format!(
                "{}: the run has already played {} episodes (its newest checkpoint), more than \
                 the {asked} asked for: ask for more, or leave the episode count out",
                root.display(),
                cp.episode
            )));
        }
    }
    if let Some(cp) = &checkpoint {
        dir.check_config_of::<C>(cp)?;
        dir.check_log(cp.episode)?;
        dir.check_eval_log(cp)?;
    }
    let mut warnings = Vec::new();
    let older = checkpoint.as_ref().map_or_else(String::new, |cp| {
        format!(
            "resuming from the older checkpoint {} (episode {})",
            cp.path.display(),
            cp.episode
        )
    });
    for e in passed_over {
        let folder = match &e {
            RunError::Damaged { checkpoint, .. } => checkpoint.clone(),
            RunError::BadCheckpoint { path, .. } => path.clone(),
            _ => continue,
        };
        let aside = RunDir::set_aside(&folder)?;
        warnings.push(format!(
            "{e}: passed over, {older}; the damaged folder is kept as {}",
            aside.display()
        ));
    }
    if let Some(cp) = checkpoint.as_ref().filter(|cp| !cp.verified) {
        warnings.push(format!(
            "checkpoint {}: unverified (written before checksums, its files cannot be \
             checked): resuming from it as it is",
            cp.path.display()
        ));
    }
    Ok(Resumed {
        dir,
        config,
        from: checkpoint,
        warnings,
    })
}

/// Called with `(step, steps)` as a long round goes ([`Trainer::set_step_progress`]).
pub type StepProgress = Box<dyn FnMut(usize, usize)>;

/// Makes a fresh player of the game from a seed (an opponent).
pub type AgentFactory<'a, G> = dyn Fn(u64) -> Box<dyn Agent<G>> + 'a;

/// An evaluation opponent: its name in `eval.csv` and a maker of fresh ones by seed.
pub struct Opponent<'a, G: Game> {
    /// Its name (usually its spec).
    pub name: String,
    /// Builds one for each game.
    pub make: Box<AgentFactory<'a, G>>,
}

/// One value of a `log.csv` row, typed: written as a CSV field by [`train`].
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A whole number.
    Int(i64),
    /// A real number, written with `decimals` decimals.
    Real {
        /// The value.
        value: f64,
        /// Decimals written.
        decimals: u8,
    },
    /// A word (no commas).
    Text(String),
    /// No value (an empty field): a loss before learning starts, say.
    Empty,
}

impl Cell {
    /// A count or episode number.
    #[must_use]
    pub fn count<N: TryInto<i64>>(n: N) -> Cell {
        Cell::Int(n.try_into().unwrap_or(i64::MAX))
    }

    /// `value` with `decimals` decimals.
    #[must_use]
    pub fn real(value: f64, decimals: u8) -> Cell {
        Cell::Real { value, decimals }
    }

    /// `value` with `decimals` decimals, or an empty field.
    #[must_use]
    pub fn maybe(value: Option<f64>, decimals: u8) -> Cell {
        value.map_or(Cell::Empty, |v| Cell::real(v, decimals))
    }

    /// A word.
    #[must_use]
    pub fn text(word: impl Into<String>) -> Cell {
        Cell::Text(word.into())
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Int(n) => write!(f, "{n}"),
            Cell::Real { value, decimals } => write!(f, "{value:.*}", usize::from(*decimals)),
            // A comma would split the column.
            Cell::Text(word) => f.write_str(&word.replace(',', ";")),
            Cell::Empty => Ok(()),
        }
    }
}

/// One training episode's row of `log.csv` (without the trailing `seconds` column, which
/// [`train`] adds) and what a progress display shows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeRow {
    /// Its values, one per column of the trainer's [`Trainer::log_header`], starting with the
    /// episode number.
    pub values: Vec<Cell>,
    /// Whether the learner (the black one, in competitive training) won.
    pub won: bool,
    /// The learner's loss, when it learned.
    pub loss: Option<f64>,
}

/// A training algorithm on game `G`: plays rounds and learns, saves and loads its whole state,
/// evaluates its greedy players, and exports its models with cards.
pub trait Trainer<G: Game> {
    /// Its name in `config.json`, `state.json` and on the cards.
    fn algo(&self) -> &'static str;
    /// The columns of `log.csv`, without the final `seconds`.
    fn log_header(&self) -> &'static str;
    /// Episodes (training games) played.
    fn episode(&self) -> usize;
    /// The exploration rate now (for display).
    fn epsilon(&self) -> f64;
    /// Plays and learns one round of at most `limit` games; `opponent` makes the training
    /// opponents of algorithms that have one.
    ///
    /// # Errors
    /// [`RunError`] when a game or a learning step fails.
    fn round(
        &mut self,
        limit: usize,
        opponent: &AgentFactory<'_, G>,
    ) -> Result<Vec<EpisodeRow>, RunError>;
    /// Greedy evaluation games of each of its players against `opponent` (through
    /// [`arena::versus`]): (player label, results) per player.
    ///
    /// # Errors
    /// [`RunError::Eval`] when a game fails.
    fn evaluate(
        &mut self,
        opponent: &AgentFactory<'_, G>,
        settings: &VersusSettings,
    ) -> Result<Vec<(String, ColourWdl)>, RunError>;
    /// Writes everything needed to continue into the existing folder `dir`.
    ///
    /// # Errors
    /// [`RunError`] when a file cannot be written.
    fn save_state(&self, dir: &std::path::Path) -> Result<(), RunError>;
    /// Continues from [`save_state`](Self::save_state) files written at `episode`.
    ///
    /// # Errors
    /// [`RunError`] for missing or corrupt files.
    fn load_state(&mut self, dir: &std::path::Path, episode: usize) -> Result<(), RunError>;
    /// Asks for a call after each gradient step of a long round (`(step, steps in the round)`),
    /// for a progress display; trainers whose rounds are short ignore it.
    fn set_step_progress(&mut self, _progress: Option<StepProgress>) {}
    /// The models to publish now, with cards for game `game` (its id) and `last_eval`.
    ///
    /// # Errors
    /// [`RunError::Model`] when weights cannot be serialised.
    fn models(&self, game: &str, last_eval: &serde_json::Value) -> Result<Vec<Export>, RunError>;
}

/// What [`train`] reports as it goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// The loop starts at `episode` of `total` (more than 0 when resumed).
    Started {
        /// Episodes already played.
        episode: usize,
        /// The run's total.
        total: usize,
    },
    /// A round was played and logged.
    Round {
        /// Episodes played now.
        episode: usize,
        /// Its games.
        rows: &'a [EpisodeRow],
        /// The exploration rate for the next round.
        epsilon: f64,
    },
    /// An evaluation starts.
    Evaluating {
        /// At this episode.
        episode: usize,
        /// Games per opponent.
        games: usize,
    },
    /// An evaluation was written to `eval.csv`.
    Evaluated {
        /// At this episode.
        episode: usize,
        /// (player, opponent, results) for each pair.
        results: &'a [(String, String, ColourWdl)],
    },
    /// A checkpoint was written.
    Checkpointed(&'a Checkpoint),
}

/// What a finished [`train`] call did.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Episodes played when it started.
    pub started_at: usize,
    /// Episodes played now.
    pub episodes: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The last evaluation: (player, opponent, results).
    pub last_eval: Vec<(String, String, ColourWdl)>,
}

/// The last evaluation as written on model cards: `"{player} vs {opponent}"` → games, rates
/// and per-colour counts, plus the episode.
#[must_use]
pub fn eval_json(episode: usize, results: &[(String, String, ColourWdl)]) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (who, opp, r) in results {
        map.insert(
            format!("{who} vs {opp}"),
            serde_json::json!({
                "games": r.games(),
                "win_rate": r.win_rate(),
                "score": r.score(),
                "as_black": {"won": r.as_black.wins, "drawn": r.as_black.draws, "lost": r.as_black.losses},
                "as_white": {"won": r.as_white.wins, "drawn": r.as_white.draws, "lost": r.as_white.losses},
            }),
        );
    }
    let mut value = serde_json::Value::Object(map);
    value["episode"] = serde_json::json!(episode);
    value
}

fn eval_row(episode: usize, who: &str, opp: &str, r: &ColourWdl) -> String {
    // A spec's own commas (`alphabeta:depth=2,time=1s`) would split its column.
    let opp = opp.replace(',', ";");
    format!(
        "{episode},{who},{opp},{},{:.4},{:.4},{},{},{},{},{},{}",
        r.games(),
        r.win_rate(),
        r.score(),
        r.as_black.wins,
        r.as_black.draws,
        r.as_black.losses,
        r.as_white.wins,
        r.as_white.draws,
        r.as_white.losses
    )
}

/// Trains `trainer` in `dir` up to `config.episodes`: rounds against `opponent`, one `log.csv`
/// row per episode, evaluations against each of `evals` (at the start of a fresh run, every
/// `eval_every` episodes and at the end), checkpoints every `checkpoint_every` episodes and at
/// the end. A run resumed from a checkpoint plays exactly what the uninterrupted run would
/// have from there.
///
/// # Errors
/// [`RunError`] when a round, an evaluation or a write fails; what was checkpointed stays.
pub fn train<G: Game, C: RunSpec>(
    dir: &RunDir,
    config: &C,
    trainer: &mut dyn Trainer<G>,
    opponent: &AgentFactory<'_, G>,
    evals: &[Opponent<'_, G>],
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, RunError> {
    config.validate()?;
    let config = &config.schedule();
    let columns = trainer.log_header().split(',').count();
    let started_at = trainer.episode();
    // Rows after the episode training resumes from (or any, for a run starting over) came
    // from the run that was stopped: they go now, not before the trainer was built.
    let header = format!("{},seconds", trainer.log_header());
    dir.check_log_header(&header)?;
    dir.rewind_to(started_at)?;
    let clock = if started_at == 0 {
        0.0
    } else {
        dir.last_log_seconds()
    };
    let started = Instant::now();
    let mut summary = Summary {
        started_at,
        episodes: started_at,
        seconds: 0.0,
        last_eval: Vec::new(),
    };
    if started_at >= config.episodes {
        return Ok(summary);
    }
    let mut log = dir.log(&header)?;
    let mut eval = dir.eval_log()?;
    progress(Progress::Started {
        episode: started_at,
        total: config.episodes,
    });
    let mut last_eval = serde_json::Value::Null;
    let mut evaluate = |trainer: &mut dyn Trainer<G>,
                        episode: usize,
                        progress: &mut dyn FnMut(Progress<'_>)|
     -> Result<Vec<(String, String, ColourWdl)>, RunError> {
        progress(Progress::Evaluating {
            episode,
            games: config.eval_games,
        });
        let mut results = Vec::new();
        for (k, opp) in evals.iter().enumerate() {
            let settings = VersusSettings::new(config.eval_games, eval_seed(k));
            for (who, r) in trainer.evaluate(opp.make.as_ref(), &settings)? {
                eval.row(&eval_row(episode, &who, &opp.name, &r))?;
                results.push((who, opp.name.clone(), r));
            }
        }
        eval.flush()?;
        progress(Progress::Evaluated {
            episode,
            results: &results,
        });
        Ok(results)
    };
    if started_at == 0 {
        summary.last_eval = evaluate(trainer, 0, progress)?;
        last_eval = eval_json(0, &summary.last_eval);
    }
    while trainer.episode() < config.episodes {
        let before = trainer.episode();
        let rows = trainer.round(config.episodes - before, opponent)?;
        let seconds = clock + started.elapsed().as_secs_f64();
        for row in &rows {
            if row.values.len() != columns {
                return Err(RunError::Settings(format!(
                    "{}: a log row of {} values for the {columns} columns of its header",
                    trainer.algo(),
                    row.values.len()
                )));
            }
            let fields: Vec<String> = row.values.iter().map(ToString::to_string).collect();
            log.row(&format!("{},{seconds:.1}", fields.join(",")))?;
        }
        log.flush()?;
        let now = trainer.episode();
        progress(Progress::Round {
            episode: now,
            rows: &rows,
            epsilon: trainer.epsilon(),
        });
        let crossed = |every: usize| now / every > before / every || now == config.episodes;
        if crossed(config.eval_every) {
            summary.last_eval = evaluate(trainer, now, progress)?;
            last_eval = eval_json(now, &summary.last_eval);
        }
        if crossed(config.checkpoint_every) {
            let exports = trainer.models(&config.game, &last_eval)?;
            let cp =
                dir.save_checkpoint(now, trainer.algo(), &|tmp| trainer.save_state(tmp), exports)?;
            progress(Progress::Checkpointed(&cp));
        }
        if now == before {
            return Err(RunError::Settings(format!(
                "{} played no game in a round",
                trainer.algo()
            )));
        }
    }
    summary.episodes = trainer.episode();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An evaluation row has the header's columns whatever its opponent's spec holds: the
    /// commas of `alphabeta:depth=2,time=1s` would otherwise split it (and the resume's count
    /// of evaluation rows and the win-rate plot would misread it).
    #[test]
    fn an_opponent_spec_with_commas_keeps_to_its_column() {
        let row = eval_row(8, "dqn", "alphabeta:depth=2,time=1s", &ColourWdl::default());
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields.len(), EVAL_HEADER.split(',').count(), "{row}");
        assert_eq!(fields[2], "alphabeta:depth=2;time=1s");
    }
}
