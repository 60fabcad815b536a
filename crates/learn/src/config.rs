//! A training run's settings as `config.json` holds them: the schedule the run framework reads
//! and the algorithm's own typed settings ([`AlgoSettings`], one variant per kind of trainer).
//! The framework ([`crate::run`]) sees only the schedule, through [`RunSpec`].

use serde::{Deserialize, Serialize};

use crate::algos::{self, Settings};
use crate::dqn::DqnConfig;
use crate::qmlp::{QMlpConfig, QMlpOpponent, QMlpSettings};
use crate::run::{Resumed, RunError, RunSpec, Schedule, MAX_LEARNING_RATE};
use crate::value::iteration::ValueIterationConfig;
use crate::value::policy_iteration::ValueSelfPlayConfig;
use crate::value::supervised::SupervisedConfig;

/// What `config.json` holds: the algorithm, the game and the schedule, and the algorithm's own
/// settings.
///
/// On disk the settings keep the sections they always had (`dqn`, `q_mlp`, `value`,
/// `value_self_play`; the first two written as `null` when unused), so every `config.json`
/// written before loads, resumes and is written back byte for byte.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Wire", into = "Wire")]
pub struct RunConfig {
    /// The algorithm's registry name ([`crate::algos`]).
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
    /// The algorithm's settings.
    pub settings: AlgoSettings,
    /// The evaluation opponents' specs (empty: `random` and `greedy`).
    pub eval_opponents: Vec<String>,
}

/// An algorithm's own settings, by the kind of trainer ([`algos::Settings`]).
#[derive(Clone, Debug, PartialEq)]
pub enum AlgoSettings {
    /// The Q-learning MLP's (`q-mlp`).
    QMlp(QMlpSettings),
    /// The DQN trainers' (`dqn`, `dqn-self-play`, `dqn-competitive`).
    Dqn(DqnConfig),
    /// The supervised value networks' (`cnn-supervised`, `mlp-supervised`; one episode is one
    /// epoch).
    Supervised(SupervisedConfig),
    /// Self-play policy iteration's (`cnn-selfplay`).
    ValueSelfPlay(ValueSelfPlayConfig),
    /// The stronger-than-paper self-play's (`cnn-iteration`).
    ValueIteration(ValueIterationConfig),
    /// AlphaZero's (`alphazero`).
    AlphaZero(crate::alphazero::AlphaZeroConfig),
}

impl AlgoSettings {
    /// The name of the `config.json` section that holds them.
    #[must_use]
    pub fn section(&self) -> &'static str {
        match self {
            AlgoSettings::QMlp(_) => "q_mlp",
            AlgoSettings::Dqn(_) => "dqn",
            AlgoSettings::Supervised(_) => "value",
            AlgoSettings::ValueSelfPlay(_) => "value_self_play",
            AlgoSettings::ValueIteration(_) => "value_iteration",
            AlgoSettings::AlphaZero(_) => "alphazero",
        }
    }

    /// Whether these are the settings an algorithm of kind `kind` takes: the section it reads.
    #[must_use]
    pub fn fits(&self, kind: Settings) -> bool {
        section_of(kind) == self.section()
    }
}

/// `config.json` as written: one optional section per kind of settings.
#[derive(Serialize, Deserialize)]
struct Wire {
    algo: String,
    game: String,
    episodes: usize,
    eval_every: usize,
    eval_games: usize,
    checkpoint_every: usize,
    opponent: String,
    #[serde(default)]
    dqn: Option<DqnConfig>,
    #[serde(default)]
    q_mlp: Option<QMlpSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<SupervisedConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value_self_play: Option<ValueSelfPlayConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value_iteration: Option<ValueIterationConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    alphazero: Option<crate::alphazero::AlphaZeroConfig>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    eval_opponents: Vec<String>,
}

/// The section name an algorithm kind reads, for messages.
/// Whether `value` is its type's default (a setting left at it is not written, so a
/// `config.json` from before the setting is written back as it was).
pub(crate) fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

fn section_of(kind: Settings) -> &'static str {
    match kind {
        Settings::QMlp => "q_mlp",
        Settings::Dqn => "dqn",
        Settings::Supervised { .. } => "value",
        Settings::ValueSelfPlay => "value_self_play",
        Settings::ValueIteration => "value_iteration",
        Settings::AlphaZero => "alphazero",
        Settings::QTable | Settings::Patterns | Settings::ProbCut => "",
    }
}

impl TryFrom<Wire> for RunConfig {
    type Error = String;

    fn try_from(w: Wire) -> Result<Self, String> {
        let algo = framework_algorithm(&w.algo)?;
        let missing = || {
            format!(
                "a {} run needs {} settings",
                w.algo,
                section_of(algo.settings)
            )
        };
        let settings = match algo.settings {
            Settings::QMlp => AlgoSettings::QMlp(w.q_mlp.ok_or_else(missing)?),
            Settings::Dqn => AlgoSettings::Dqn(w.dqn.ok_or_else(missing)?),
            Settings::Supervised { .. } => AlgoSettings::Supervised(w.value.ok_or_else(missing)?),
            Settings::ValueSelfPlay => {
                AlgoSettings::ValueSelfPlay(w.value_self_play.ok_or_else(missing)?)
            }
            Settings::ValueIteration => {
                AlgoSettings::ValueIteration(w.value_iteration.ok_or_else(missing)?)
            }
            Settings::AlphaZero => AlgoSettings::AlphaZero(w.alphazero.ok_or_else(missing)?),
            Settings::QTable | Settings::Patterns | Settings::ProbCut => return Err(missing()),
        };
        Ok(RunConfig {
            algo: w.algo,
            game: w.game,
            episodes: w.episodes,
            eval_every: w.eval_every,
            eval_games: w.eval_games,
            checkpoint_every: w.checkpoint_every,
            opponent: w.opponent,
            settings,
            eval_opponents: w.eval_opponents,
        })
    }
}

impl From<RunConfig> for Wire {
    fn from(c: RunConfig) -> Self {
        let mut w = Wire {
            algo: c.algo,
            game: c.game,
            episodes: c.episodes,
            eval_every: c.eval_every,
            eval_games: c.eval_games,
            checkpoint_every: c.checkpoint_every,
            opponent: c.opponent,
            dqn: None,
            q_mlp: None,
            value: None,
            value_self_play: None,
            value_iteration: None,
            alphazero: None,
            eval_opponents: c.eval_opponents,
        };
        match c.settings {
            AlgoSettings::QMlp(s) => w.q_mlp = Some(s),
            AlgoSettings::Dqn(s) => w.dqn = Some(s),
            AlgoSettings::Supervised(s) => w.value = Some(s),
            AlgoSettings::ValueSelfPlay(s) => w.value_self_play = Some(s),
            AlgoSettings::ValueIteration(s) => w.value_iteration = Some(s),
            AlgoSettings::AlphaZero(s) => w.alphazero = Some(s),
        }
        w
    }
}

/// The registry entry of `name`, when the run framework runs it.
pub(crate) fn framework_algorithm(name: &str) -> Result<&'static algos::Algorithm, String> {
    algos::find(name).filter(|a| a.is_run()).ok_or_else(|| {
        format!(
            "unknown algorithm {name:?} (known: {})",
            algos::ALGORITHMS
                .iter()
                .filter(|a| a.is_run())
                .map(|a| a.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

impl RunConfig {
    /// The DQN settings, when the run has them.
    #[must_use]
    pub fn dqn(&self) -> Option<&DqnConfig> {
        match &self.settings {
            AlgoSettings::Dqn(d) => Some(d),
            _ => None,
        }
    }

    /// The DQN settings to change, when the run has them.
    pub fn dqn_mut(&mut self) -> Option<&mut DqnConfig> {
        match &mut self.settings {
            AlgoSettings::Dqn(d) => Some(d),
            _ => None,
        }
    }

    /// The Q-learning MLP settings, when the run has them.
    #[must_use]
    pub fn q_mlp(&self) -> Option<&QMlpSettings> {
        match &self.settings {
            AlgoSettings::QMlp(q) => Some(q),
            _ => None,
        }
    }

    /// The Q-learning MLP settings to change, when the run has them.
    pub fn q_mlp_mut(&mut self) -> Option<&mut QMlpSettings> {
        match &mut self.settings {
            AlgoSettings::QMlp(q) => Some(q),
            _ => None,
        }
    }

    /// The supervised value-network settings, when the run has them.
    #[must_use]
    pub fn value(&self) -> Option<&SupervisedConfig> {
        match &self.settings {
            AlgoSettings::Supervised(v) => Some(v),
            _ => None,
        }
    }

    /// The supervised value-network settings to change, when the run has them.
    pub fn value_mut(&mut self) -> Option<&mut SupervisedConfig> {
        match &mut self.settings {
            AlgoSettings::Supervised(v) => Some(v),
            _ => None,
        }
    }

    /// The self-play policy iteration settings, when the run has them.
    #[must_use]
    pub fn value_self_play(&self) -> Option<&ValueSelfPlayConfig> {
        match &self.settings {
            AlgoSettings::ValueSelfPlay(v) => Some(v),
            _ => None,
        }
    }

    /// The self-play policy iteration settings to change, when the run has them.
    pub fn value_self_play_mut(&mut self) -> Option<&mut ValueSelfPlayConfig> {
        match &mut self.settings {
            AlgoSettings::ValueSelfPlay(v) => Some(v),
            _ => None,
        }
    }

    /// Games in one training round (the games played at once; q-mlp: an epoch). Evaluations
    /// and checkpoints happen between rounds.
    #[must_use]
    pub fn round_games(&self) -> usize {
        match &self.settings {
            AlgoSettings::QMlp(q) => q.games_per_epoch.max(1),
            AlgoSettings::Dqn(d) => d.parallel.max(1),
            AlgoSettings::Supervised(_)
            | AlgoSettings::ValueSelfPlay(_)
            | AlgoSettings::ValueIteration(_)
            | AlgoSettings::AlphaZero(_) => 1,
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

    /// When `every` is not a multiple of the training round, the episodes (from `start`) at
    /// which `what` will really happen, in plain words.
    #[must_use]
    pub fn rounding_note(&self, what: &str, every: usize, start: usize) -> Option<String> {
        let round = self.round_games();
        if every.is_multiple_of(round) {
            return None;
        }
        let at = self.event_episodes(every, start);
        let mut shown: Vec<String> = at.iter().take(5).map(ToString::to_string).collect();
        if at.len() > 5 {
            shown.push("…".into());
            if let Some(last) = at.last() {
                shown.push(last.to_string());
            }
        }
        let asked = if every == 1 {
            "every episode".to_string()
        } else {
            format!("every {every} episodes")
        };
        let when = match at.len() {
            0 => "none before the end of the run".to_string(),
            1 => format!("one, at episode {}", shown.join(", ")),
            _ => format!("at episodes {}", shown.join(", ")),
        };
        Some(format!(
            "note: {what} were asked for {asked}, but training plays rounds of {round} games and \
             stops only between rounds, so this run makes them {when}"
        ))
    }

    /// Checks that the schedule and the algorithm's settings are usable.
    ///
    /// # Errors
    /// [`RunError::Settings`] naming the problem.
    pub fn validate(&self) -> Result<(), RunError> {
        let algo = framework_algorithm(&self.algo).map_err(RunError::Settings)?;
        self.schedule().validate()?;
        if let algos::Games::Only(game) = algo.games {
            if self.game != game {
                return Err(RunError::Settings(format!(
                    "{} trains on {game} only, not {}",
                    self.algo, self.game
                )));
            }
        }
        if !self.settings.fits(algo.settings) {
            return Err(RunError::Settings(format!(
                "a {} run needs {} settings, not {}",
                self.algo,
                section_of(algo.settings),
                self.settings.section()
            )));
        }
        match &self.settings {
            AlgoSettings::Supervised(v) => {
                let want = if self.algo == algos::CNN_SUPERVISED.name {
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
                v.validate().map_err(RunError::Settings)
            }
            AlgoSettings::ValueSelfPlay(v) => v.validate().map_err(RunError::Settings),
            AlgoSettings::ValueIteration(v) => v.validate().map_err(RunError::Settings),
            AlgoSettings::AlphaZero(a) => a.validate().map_err(RunError::Settings),
            AlgoSettings::Dqn(d) => d.validate().map_err(RunError::Settings),
            AlgoSettings::QMlp(q) => check_q_mlp(q),
        }
    }

    /// The settings of the Q-learning MLP trainer: `q_mlp`, with as many epochs as it takes
    /// to play `episodes` games.
    ///
    /// # Errors
    /// [`RunError::Settings`] when there are no `q_mlp` settings.
    pub fn q_mlp_config(&self) -> Result<QMlpConfig, RunError> {
        let s = self
            .q_mlp()
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

    /// Refuses a q-mlp total of episodes that does not fill whole epochs: the trainer plays
    /// epochs of `games_per_epoch` games and would go past it.
    ///
    /// # Errors
    /// [`RunError::Settings`] in the command line's words.
    pub fn check_whole_epochs(&self) -> Result<(), RunError> {
        if let Some(q) = self.q_mlp() {
            let per = q.games_per_epoch.max(1);
            if !self.episodes.is_multiple_of(per) {
                return Err(RunError::Settings(format!(
                    "--episodes {}: q-mlp trains in epochs of {per} games, so the episodes must \
                     be a multiple of {per}",
                    self.episodes
                )));
            }
        }
        Ok(())
    }
}

/// The Q-learning MLP's settings' ranges.
fn check_q_mlp(q: &QMlpSettings) -> Result<(), RunError> {
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

impl RunSpec for RunConfig {
    fn schedule(&self) -> Schedule {
        Schedule {
            algo: self.algo.clone(),
            game: self.game.clone(),
            episodes: self.episodes,
            eval_every: self.eval_every,
            eval_games: self.eval_games,
            checkpoint_every: self.checkpoint_every,
        }
    }

    fn set_episodes(&mut self, episodes: usize) {
        self.episodes = episodes;
    }

    fn validate(&self) -> Result<(), RunError> {
        RunConfig::validate(self)
    }
}

/// Opens the `algo` run on `game` in `root` to continue it ([`crate::run::resume`] for a
/// [`RunConfig`]).
///
/// # Errors
/// As [`crate::run::resume`].
pub fn resume(
    root: &std::path::Path,
    algo: &str,
    game: &str,
    episodes: Option<usize>,
) -> Result<Resumed<RunConfig>, RunError> {
    crate::run::resume(root, algo, game, episodes)
}

/// A run's training opponent and its evaluation opponents, made from `registry`'s agent specs
/// (`random` and `greedy` when the run names no evaluation opponent).
pub struct RunOpponents<'r, G: game::Game> {
    /// Makes the training opponent by seed.
    pub training: Box<crate::run::AgentFactory<'r, G>>,
    /// The evaluation opponents.
    pub evals: Vec<crate::run::Opponent<'r, G>>,
}

impl RunConfig {
    /// Its opponents from `registry`; each spec is built once here, so a bad spec or model
    /// file is refused before anything on disk changes (a fresh run's folder, a resumed run's
    /// log).
    ///
    /// # Errors
    /// [`RunError::Settings`] naming the spec that does not build and why.
    pub fn opponents<'r, G: game::Game>(
        &self,
        registry: &'r search::Registry<G>,
    ) -> Result<RunOpponents<'r, G>, RunError> {
        type Maker<'r, G> = Box<crate::run::AgentFactory<'r, G>>;
        let maker = |spec: &str, training: bool| -> Result<Maker<'r, G>, RunError> {
            registry.build(spec, 0).map_err(|e| {
                RunError::Settings(if training {
                    format!("opponent {spec:?}: {e}")
                } else {
                    format!("evaluation opponent {spec}: {e}")
                })
            })?;
            let spec = spec.to_string();
            // Built once above, so a later build of the same spec only differs by its seed.
            Ok(Box::new(move |seed| {
                registry
                    .build(&spec, seed)
                    .unwrap_or_else(|_| Box::new(search::RandomAgent::new(seed)))
            }))
        };
        let training = maker(&self.opponent, true)?;
        let names: Vec<String> = if self.eval_opponents.is_empty() {
            vec!["random".into(), "greedy".into()]
        } else {
            self.eval_opponents.clone()
        };
        let mut evals = Vec::new();
        for name in names {
            let make = maker(&name, false)?;
            evals.push(crate::run::Opponent { name, make });
        }
        Ok(RunOpponents { training, evals })
    }
}
