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
use serde::{Deserialize, Serialize};

pub use dir::{
    json_differences, Checkpoint, CsvLog, Export, RunDir, CHECKPOINTS, CONFIG, DAMAGED, EVAL,
    KEEP_CHECKPOINTS, LOG, PLOTS, STATE, STATE_FORMAT,
};

use crate::checkpoint::ModelError;
use crate::dqn::{DqnConfig, DqnError};
use crate::qmlp::{Defects, QMlpConfig, QMlpInit, QMlpLearner, QMlpOpponent, QMlpOptimizer};
use crate::value::policy_iteration::ValueSelfPlayConfig;
use crate::value::supervised::SupervisedConfig;

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
    /// Training failed.
    #[error(transparent)]
    Dqn(#[from] DqnError),
    /// An evaluation game failed.
    #[error("evaluation: {0}")]
    Eval(#[from] search::driver::DriverError),
}

/// What `config.json` holds: the algorithm, the game and the schedule, and the algorithm's own
/// settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// `dqn`, `dqn-self-play`, `dqn-competitive` or `q-mlp`.
    pub algo: String,
    /// The game id (`othello8`, `gomoku9`, ...), written on the model cards.
    pub game: String,
    /// Training games in all.
    pub episodes: usize,
    /// Evaluate every this many episodes: after the first round that reaches each multiple
    /// (rounds play [`RunConfig::round_games`] games; see [`RunConfig::event_episodes`]).
    pub eval_every: usize,
    /// Games per evaluation and opponent, colours alternating.
    pub eval_games: usize,
    /// Checkpoint every this many episodes, after the first round that reaches each multiple.
    pub checkpoint_every: usize,
    /// The training opponent's spec (dqn).
    pub opponent: String,
    /// DQN settings (`dqn`, `dqn-competitive`).
    #[serde(default)]
    pub dqn: Option<DqnConfig>,
    /// Q-learning MLP settings (`q-mlp`).
    #[serde(default)]
    pub q_mlp: Option<QMlpSettings>,
    /// Supervised value-network settings (`cnn-supervised`, `mlp-supervised`; one episode is
    /// one epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<SupervisedConfig>,
    /// Self-play policy iteration settings (`cnn-selfplay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_self_play: Option<ValueSelfPlayConfig>,
    /// The evaluation opponents' specs (empty: `random` and `greedy`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eval_opponents: Vec<String>,
}

/// The Q-learning MLP's settings in `config.json`. The design's settings (`learner`,
/// `opponent`, `init`, `optimizer`, `defects`) came later: a `config.json` without them loads
/// with their defaults, the corrected trainer it was written by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QMlpSettings {
    /// Games per epoch (one gradient step per game with Adam, one per epoch with SGD).
    pub games_per_epoch: usize,
    /// Discount.
    pub gamma: f32,
    /// Learning rate of the optimizer.
    pub learning_rate: f64,
    /// Seed of the network and the games.
    pub seed: u64,
    /// Which colour the learner takes (default: alternating).
    #[serde(default)]
    pub learner: QMlpLearner,
    /// The training opponent (default: uniformly random; not the run's `opponent`, which
    /// q-mlp does not use).
    #[serde(default)]
    pub opponent: QMlpOpponent,
    /// How the networks are initialised (default: burn's).
    #[serde(default)]
    pub init: QMlpInit,
    /// The optimizer and when it steps (default: Adam after each game).
    #[serde(default)]
    pub optimizer: QMlpOptimizer,
    /// The design's code defects switched on (default: none).
    #[serde(default)]
    pub defects: Defects,
}

impl Default for QMlpSettings {
    /// The corrected trainer's settings ([`QMlpConfig::default`]).
    fn default() -> Self {
        let c = QMlpConfig::default();
        QMlpSettings {
            games_per_epoch: c.games_per_epoch,
            gamma: c.gamma,
            learning_rate: c.learning_rate,
            seed: c.seed,
            learner: c.learner,
            opponent: c.opponent,
            init: c.init,
            optimizer: c.optimizer,
            defects: c.defects,
        }
    }
}

/// The algorithms [`crate::build::build_trainer`] knows.
pub const ALGOS: [&str; 7] = [
    "dqn",
    "dqn-self-play",
    "dqn-competitive",
    "q-mlp",
    "cnn-supervised",
    "mlp-supervised",
    "cnn-selfplay",
];

/// The algorithms that train on 8x8 Othello only (the WTHOR value dataset).
pub const OTHELLO8_ALGOS: [&str; 3] = ["cnn-supervised", "mlp-supervised", "cnn-selfplay"];

/// The largest learning rate a run takes (larger ones only turn the weights to NaN).
pub const MAX_LEARNING_RATE: f64 = 10.0;

impl RunConfig {
    /// Games in one training round (the games played at once; q-mlp: an epoch). Evaluations
    /// and checkpoints happen between rounds.
    #[must_use]
    pub fn round_games(&self) -> usize {
        match (&self.dqn, &self.q_mlp) {
            (_, Some(q)) if self.algo == "q-mlp" => q.games_per_epoch.max(1),
            (Some(d), _) => d.parallel.max(1),
            _ => 1,
        }
    }

    /// The episodes after which something scheduled `every` episodes happens, from a run at
    /// episode `from`: the end of the first round that reaches each multiple of `every`, and
    /// the last episode. Equal to the multiples themselves when `every` is a multiple of
    /// [`Self::round_games`].
    #[must_use]
    pub fn event_episodes(&self, every: usize, from: usize) -> Vec<usize> {
        let (round, every) = (self.round_games(), every.max(1));
        let mut at = Vec::new();
        let mut now = from;
        while now < self.episodes {
            let before = now;
            now = (now + round).min(self.episodes);
            if now / every > before / every || now == self.episodes {
                at.push(now);
            }
        }
        at
    }
    /// Checks that the schedule and the algorithm's settings are usable.
    ///
    /// # Errors
    /// [`RunError::Settings`] naming the problem.
    pub fn validate(&self) -> Result<(), RunError> {
        if !ALGOS.contains(&self.algo.as_str()) {
            return Err(RunError::Settings(format!(
                "unknown algorithm {:?} (known: {})",
                self.algo,
                ALGOS.join(", ")
            )));
        }
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
        if OTHELLO8_ALGOS.contains(&self.algo.as_str()) && self.game != "othello8" {
            return Err(RunError::Settings(format!(
                "{} trains on othello8 only, not {}",
                self.algo, self.game
            )));
        }
        match self.algo.as_str() {
            "cnn-supervised" | "mlp-supervised" => {
                let v = self.value.as_ref().ok_or_else(|| {
                    RunError::Settings(format!("a {} run needs value settings", self.algo))
                })?;
                let want = if self.algo == "cnn-supervised" {
                    crate::value::CNN_ALGO
                } else {
                    crate::value::MLP_ALGO
                };
                if v.arch.algo() != want {
                    return Err(RunError::Settings(format!(
                        "{} trains a {want} network, not {}",
                        self.algo,
                        v.arch.label()
                    )));
                }
                return v.validate().map_err(RunError::Settings);
            }
            "cnn-selfplay" => {
                return self
                    .value_self_play
                    .as_ref()
                    .ok_or_else(|| {
                        RunError::Settings(
                            "a cnn-selfplay run needs value_self_play settings".into(),
                        )
                    })?
                    .validate()
                    .map_err(RunError::Settings);
            }
            _ => {}
        }
        match (self.algo.as_str(), &self.dqn, &self.q_mlp) {
            ("q-mlp", _, Some(q)) => {
                if q.games_per_epoch == 0 {
                    return Err(RunError::Settings(
                        "games_per_epoch must be at least 1".into(),
                    ));
                }
                if !(q.learning_rate > 0.0 && q.learning_rate <= MAX_LEARNING_RATE) {
                    return Err(RunError::Settings(format!(
                        "learning rate must be above 0 and at most {MAX_LEARNING_RATE}, not {}",
                        q.learning_rate
                    )));
                }
                if !(0.0..=1.0).contains(&q.gamma) {
                    return Err(RunError::Settings(format!(
                        "gamma must be within [0, 1], not {}",
                        q.gamma
                    )));
                }
                if let QMlpOpponent::Mixed { random } = q.opponent {
                    if !(0.0..=1.0).contains(&random) {
                        return Err(RunError::Settings(format!(
                            "the opponent's random share must be in [0, 1], not {random}"
                        )));
                    }
                }
                Ok(())
            }
            ("q-mlp", _, None) => Err(RunError::Settings(
                "a q-mlp run needs q_mlp settings".into(),
            )),
            (_, Some(d), _) => d.validate().map_err(RunError::Settings),
            (algo, None, _) => Err(RunError::Settings(format!(
                "a {algo} run needs dqn settings"
            ))),
        }
    }

    /// The settings of the Q-learning MLP trainer: `q_mlp`, with as many epochs as it takes
    /// to play `episodes` games.
    ///
    /// # Errors
    /// [`RunError::Settings`] when there are no `q_mlp` settings.
    pub fn q_mlp_config(&self) -> Result<QMlpConfig, RunError> {
        let s = self
            .q_mlp
            .as_ref()
            .ok_or_else(|| RunError::Settings("config.json has no q_mlp settings".into()))?;
        let per = s.games_per_epoch.max(1);
        Ok(QMlpConfig {
            epochs: self.episodes.div_ceil(per),
            games_per_epoch: per,
            gamma: s.gamma,
            learning_rate: s.learning_rate,
            seed: s.seed,
            learner: s.learner,
            opponent: s.opponent,
            init: s.init,
            optimizer: s.optimizer,
            defects: s.defects,
        })
    }

    pub(crate) fn dqn_config(&self) -> Result<DqnConfig, RunError> {
        self.dqn
            .clone()
            .ok_or_else(|| RunError::Settings("config.json has no dqn settings".into()))
    }
}

/// A run opened by [`resume`] to continue it.
#[derive(Debug)]
pub struct Resumed {
    /// The run folder.
    pub dir: RunDir,
    /// Its settings (with the new total of episodes when one was asked for).
    pub config: RunConfig,
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
pub fn resume(
    root: &std::path::Path,
    algo: &str,
    game: &str,
    episodes: Option<usize>,
) -> Result<Resumed, RunError> {
    let dir = RunDir::open(root)?;
    let mut config: RunConfig = dir.read_config()?;
    if config.algo != algo || config.game != game {
        return Err(RunError::Mismatch {
            path: root.to_path_buf(),
            algo: config.algo,
            game: config.game,
            want_algo: algo.into(),
            want_game: game.into(),
        });
    }
    if let Some(episodes) = episodes {
        config.episodes = episodes;
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
        dir.check_config_of(cp)?;
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

/// One training episode's row of `log.csv` (without the trailing `seconds` column, which
/// [`train`] adds) and what a progress display shows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeRow {
    /// The CSV fields, starting with the episode number.
    pub fields: String,
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
pub fn train<G: Game>(
    dir: &RunDir,
    config: &RunConfig,
    trainer: &mut dyn Trainer<G>,
    opponent: &AgentFactory<'_, G>,
    evals: &[Opponent<'_, G>],
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, RunError> {
    config.validate()?;
    let started_at = trainer.episode();
    // Rows after the episode training resumes from (or any, for a run starting over) came
    // from the run that was stopped: they go now, not before the trainer was built.
    dir.rewind_to(started_at)?;
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
    let mut log = dir.log(&format!("{},seconds", trainer.log_header()))?;
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
        let seconds = started.elapsed().as_secs_f64();
        for row in &rows {
            log.row(&format!("{},{seconds:.1}", row.fields))?;
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
