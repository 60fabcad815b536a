//! The agent [`Registry`]: spec string in, boxed agent out; the same for CLI, arena and web.

use std::collections::BTreeMap;
use std::sync::Arc;

use game::Game;

use crate::{
    Agent, AlphaBeta, AlphaBetaConfig, Evaluator, GreedyAgent, Mcts, MctsConfig, RandomAgent,
    Rollout, Spec, SpecError,
};

/// Builds an agent from its parsed spec and a seed.
pub type AgentBuilder<G> =
    Box<dyn Fn(&Spec, u64) -> Result<Box<dyn Agent<G>>, SpecError> + Send + Sync>;

struct Entry<G: Game> {
    about: &'static str,
    keys: Vec<(&'static str, &'static str)>,
    /// The keys whose value names something outside the process (the rest are settings).
    reaches: BTreeMap<&'static str, KeyKind>,
    build: AgentBuilder<G>,
}

/// What the value of an agent's key names. Most keys are settings; a few name a file the agent
/// reads or a program it starts, which a front end serving other people must never let a
/// request choose (see [`Registry::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A setting (a number, a word, a duration): nothing outside the process.
    Setting,
    /// A path the agent reads. `words` are the values that name no file (`on`, `off`).
    File {
        /// Values that are words, not paths.
        words: &'static [&'static str],
    },
    /// A program (and its arguments) the agent starts.
    Program,
    /// A trained model's weights file: a server maps the names of the models it offers to
    /// their files, and reads no other.
    Model,
}

impl KeyKind {
    /// Whether `value` of a key of this kind names a file or a program.
    #[must_use]
    pub fn names_outside(self, value: &str) -> bool {
        match self {
            KeyKind::Setting => false,
            KeyKind::File { words } => !words.contains(&value.trim()),
            KeyKind::Program | KeyKind::Model => true,
        }
    }
}

/// An agent's name, what it is, and its keys with their meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentInfo {
    /// The name in spec strings.
    pub name: &'static str,
    /// One line on what it is.
    pub about: &'static str,
    /// Its keys (`seed` included) with their meaning.
    pub keys: Vec<(&'static str, &'static str)>,
    /// The keys that name a file, a program or a model (see [`KeyKind`]); the others are
    /// settings.
    pub reaches: Vec<(&'static str, KeyKind)>,
}

impl AgentInfo {
    /// What `key`'s value names ([`KeyKind::Setting`] for a key that names nothing outside).
    #[must_use]
    pub fn kind(&self, key: &str) -> KeyKind {
        self.reaches
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(KeyKind::Setting, |(_, kind)| *kind)
    }
}

/// The agents known for one game, by name.
pub struct Registry<G: Game> {
    entries: BTreeMap<&'static str, Entry<G>>,
    /// Agents this game lacks that other games offer, with those games (for the error).
    elsewhere: BTreeMap<String, String>,
}

impl<G: Game> Default for Registry<G> {
    fn default() -> Self {
        Registry {
            entries: BTreeMap::new(),
            elsewhere: BTreeMap::new(),
        }
    }
}

const SEED_KEY: (&str, &str) = ("seed", "overrides the seed the caller gives");

impl<G: Game> Registry<G> {
    /// The game-generic agents: `random`, `greedy` (one ply by `greedy_eval`), `alphabeta` and
    /// `mcts` (both using `eval`).
    #[must_use]
    pub fn generic(eval: Arc<dyn Evaluator<G>>, greedy_eval: Arc<dyn Evaluator<G>>) -> Self {
        let mut r = Registry::default();
        r.register(
            "random",
            "a uniformly random legal move",
            &[],
            Box::new(|_, seed| Ok(Box::new(RandomAgent::new(seed)))),
        );
        r.register(
            "greedy",
            "the best move one ply ahead (Othello: most discs flipped), ties at random",
            &[],
            Box::new(move |_, seed| Ok(Box::new(GreedyAgent::new(Arc::clone(&greedy_eval), seed)))),
        );
        let ab_eval = Arc::clone(&eval);
        r.register(
            "alphabeta",
            "negamax alpha-beta, iterative deepening, transposition table",
            &[
                (
                    "depth",
                    "plies, 1 to 128 (default 4 when nothing else is set)",
                ),
                ("time", "time per move, e.g. 500ms"),
                ("nodes", "nodes per move"),
                (
                    "tt",
                    "log2 of the transposition-table entries, 4 to 24 (default 18)",
                ),
            ],
            Box::new(move |spec, _| {
                let config = AlphaBetaConfig {
                    depth: spec.in_range("depth", 1, 128)?.map(|d| d as u32),
                    time: spec.duration("time")?,
                    nodes: spec.positive("nodes")?,
                    tt_bits: spec.in_range("tt", 4, 24)?.map_or(18, |b| b as u32),
                    ..AlphaBetaConfig::default()
                };
                Ok(Box::new(AlphaBeta::new(Arc::clone(&ab_eval), config)))
            }),
        );
        r.register(
            "mcts",
            "UCT Monte Carlo tree search",
            &[
                ("playouts", "playouts per move (default 1000)"),
                ("time", "time per move, e.g. 1s"),
                ("c", "exploration constant (default 1.4)"),
                ("rollout", "random (default) or greedy (by the evaluator)"),
                (
                    "epsilon",
                    "chance of a random move in greedy rollouts (default 0.1)",
                ),
                (
                    "reuse",
                    "keep the tree between moves: true (default) or false",
                ),
                (
                    "tree_mb",
                    "most memory the tree may take, MiB (default 64; playouts go on when full)",
                ),
            ],
            Box::new(move |spec, seed| {
                let c = spec.get::<f64>("c")?.unwrap_or(1.4);
                if !(c.is_finite() && c >= 0.0) {
                    return Err(SpecError::BadValue {
                        agent: spec.name.clone(),
                        key: "c".into(),
                        value: c.to_string(),
                        why: "expected a number of at least 0".into(),
                    });
                }
                let epsilon = spec.get::<f64>("epsilon")?.unwrap_or(0.1);
                if !(0.0..=1.0).contains(&epsilon) {
                    return Err(SpecError::BadValue {
                        agent: spec.name.clone(),
                        key: "epsilon".into(),
                        value: epsilon.to_string(),
                        why: "expected a probability from 0 to 1".into(),
                    });
                }
                let rollout = match spec.text("rollout").unwrap_or("random") {
                    "random" => Rollout::Random,
                    "greedy" => Rollout::Greedy { epsilon },
                    other => {
                        return Err(SpecError::BadValue {
                            agent: spec.name.clone(),
                            key: "rollout".into(),
                            value: other.into(),
                            why: "expected random or greedy".into(),
                        })
                    }
                };
                let config = MctsConfig {
                    playouts: spec.positive("playouts")?,
                    time: spec.duration("time")?,
                    c,
                    rollout,
                    reuse: spec.get::<bool>("reuse")?.unwrap_or(true),
                    max_tree_bytes: spec
                        .positive("tree_mb")?
                        .map_or(crate::mcts::DEFAULT_TREE_BYTES, |mb| {
                            usize::try_from(mb.min(1 << 20)).unwrap_or(1 << 20) << 20
                        }),
                };
                Ok(Box::new(Mcts::new(Arc::clone(&eval), config, seed)))
            }),
        );
        r
    }

    /// Adds (or replaces) an agent. `keys` are its parameters with their meaning; every agent
    /// also takes `seed`.
    pub fn register(
        &mut self,
        name: &'static str,
        about: &'static str,
        keys: &[(&'static str, &'static str)],
        build: AgentBuilder<G>,
    ) {
        let mut keys = keys.to_vec();
        keys.push(SEED_KEY);
        self.entries.insert(
            name,
            Entry {
                about,
                keys,
                reaches: BTreeMap::new(),
                build,
            },
        );
    }

    /// Marks keys of agent `name` whose value names a file, a program or a model (every such
    /// key must be marked: servers refuse them through [`AgentInfo::kind`]); whether the agent
    /// has every one of them (a key it lacks is not marked).
    pub fn mark(&mut self, name: &str, marks: &[(&'static str, KeyKind)]) -> bool {
        let Some(entry) = self.entries.get_mut(name) else {
            return false;
        };
        let mut all = true;
        for &(key, kind) in marks {
            if entry.keys.iter().any(|(k, _)| *k == key) {
                entry.reaches.insert(key, kind);
            } else {
                all = false;
            }
        }
        all
    }

    /// What `key` of agent `name` names, or `None` when the agent or the key is unknown.
    #[must_use]
    pub fn key_kind(&self, name: &str, key: &str) -> Option<KeyKind> {
        let entry = self.entries.get(name)?;
        entry
            .keys
            .iter()
            .any(|(k, _)| *k == key)
            .then(|| entry.reaches.get(key).copied().unwrap_or(KeyKind::Setting))
    }

    /// Notes that `name`, not an agent of this game, is one of `games` (said in words), so
    /// that a spec naming it here says so instead of calling it unknown.
    pub fn note_elsewhere(&mut self, name: &str, games: &str) {
        if !self.entries.contains_key(name) {
            self.elsewhere.insert(name.to_string(), games.to_string());
        }
    }

    /// Removes an agent (for example external engines from a public server), and any note that
    /// another game offers it; whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        self.elsewhere.remove(name);
        self.entries.remove(name).is_some()
    }

    /// The registered names, sorted.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.keys().copied().collect()
    }

    /// Every agent, sorted by name.
    #[must_use]
    pub fn describe(&self) -> Vec<AgentInfo> {
        self.entries
            .iter()
            .map(|(name, e)| AgentInfo {
                name,
                about: e.about,
                keys: e.keys.clone(),
                reaches: e.reaches.iter().map(|(k, kind)| (*k, *kind)).collect(),
            })
            .collect()
    }

    /// One line per agent: name, what it is and its keys.
    #[must_use]
    pub fn help(&self) -> String {
        self.entries
            .iter()
            .map(|(name, e)| {
                let keys: Vec<&str> = e.keys.iter().map(|(k, _)| *k).collect();
                format!("{name}: {} (keys: {})", e.about, keys.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Parses `spec` and builds the agent, seeded with `seed` unless the spec sets `seed=`.
    ///
    /// # Errors
    /// A [`SpecError`] naming the valid agents or keys.
    pub fn build(&self, spec: &str, seed: u64) -> Result<Box<dyn Agent<G>>, SpecError> {
        let spec: Spec = spec.parse()?;
        self.build_spec(&spec, seed)
    }

    /// Builds the agent of an already parsed spec.
    ///
    /// # Errors
    /// A [`SpecError`] naming the valid agents or keys.
    pub fn build_spec(&self, spec: &Spec, seed: u64) -> Result<Box<dyn Agent<G>>, SpecError> {
        let entry = self.checked(spec)?;
        let seed = spec.get::<u64>("seed")?.unwrap_or(seed);
        (entry.build)(spec, seed)
    }

    /// The entry a spec names, its keys checked.
    fn checked(&self, spec: &Spec) -> Result<&Entry<G>, SpecError> {
        let entry = self.entries.get(spec.name.as_str()).ok_or_else(|| {
            match self.elsewhere.get(spec.name.as_str()) {
                Some(games) => SpecError::OtherGames {
                    name: spec.name.clone(),
                    why: format!("does not play {} (it plays {games})", G::ID),
                    valid: self.names().join(", "),
                },
                None => SpecError::UnknownAgent {
                    name: spec.name.clone(),
                    valid: self.names().join(", "),
                },
            }
        })?;
        spec.check_keys(&entry.keys)?;
        Ok(entry)
    }

    /// Checks a spec's syntax, agent name and keys without building the agent (nothing is
    /// loaded or started: for checks made before the game is known).
    ///
    /// # Errors
    /// A [`SpecError`] naming the valid agents or keys.
    pub fn check_names(&self, spec: &str) -> Result<(), SpecError> {
        let spec: Spec = spec.parse()?;
        self.checked(&spec)?;
        spec.get::<u64>("seed")?;
        Ok(())
    }

    /// Checks a spec without keeping the agent.
    ///
    /// # Errors
    /// As [`build`](Self::build).
    pub fn validate(&self, spec: &str) -> Result<(), SpecError> {
        self.build(spec, 0).map(|_| ())
    }
}
