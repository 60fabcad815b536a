//! Each game's agents: the generic search agents over the game's evaluation, its own engines,
//! learned agents (`dqn:model=`, `q-mlp:model=`, refused for a model of another game) and
//! external engines over the protocols, with the defaults front ends start from.

use std::sync::{Arc, OnceLock};

use arena::Opening;
use game::Game;
use gomoku::{Gomoku, Variant};
use gomoku_engine::{EngineConfig, GomokuEngine, OmokAb, OmokAbConfig, WindowEvaluator};
use othello::{Othello, Othello4, Othello6, Othello8};
use othello_engine::{DiscDifference, Heuristic, SolverAgent};
use search::{
    AlphaBetaConfig, DpAgent, KeyKind, Registry, ValueIterationConfig, ValueIterationError,
    ValueTable,
};

use crate::{with_game, GameId};

/// What the catalog knows of a game type beyond its rules: its agents and defaults. Adding a
/// game means implementing this (and adding its id to [`GameId`] and [`with_game!`]).
pub trait CatalogGame: Game + Send + Sync + 'static {
    /// Every agent this game offers, external engines included.
    fn own_registry() -> Registry<Self>;

    /// [`own_registry`](Self::own_registry), knowing which other games offer the agents this
    /// one lacks (a spec naming `othello` on 6x6 is told it plays othello8, not called unknown).
    fn registry() -> Registry<Self> {
        let mut registry = Self::own_registry();
        for (name, games) in agents_elsewhere() {
            registry.note_elsewhere(name, games);
        }
        registry
    }

    /// The opponent a new game in the app starts with.
    const DEFAULT_OPPONENT: &'static str;

    /// The agent behind hints and analysis in the app.
    const HINT_AGENT: &'static str;

    /// Openings for matches when the user names none: `None` falls back to the arena's
    /// built-in list or uniformly random openings.
    fn default_openings(_count: usize, _seed: u64) -> Option<(Vec<Opening<Self>>, String)> {
        None
    }
}

/// The most random openings [`match_openings`] draws.
pub const MAX_RANDOM_OPENINGS: usize = 1000;

/// A list of openings, where it comes from in words, and its text where it has one.
pub type OpeningList<G> = (Vec<Opening<G>>, String, Option<&'static str>);

/// The openings of a match that names no file or set: the arena's built-in balanced list where
/// the game has one (with its text), else the game's own default openings, else `count`
/// seeded uniformly random ones of `random_plies` plies (the game's default length unless
/// given; given, they are used whatever the game has). With the list's source in words.
///
/// # Errors
/// A message when the bundled list does not parse or no random opening leaves a game.
pub fn match_openings<G: CatalogGame>(
    random_plies: Option<usize>,
    count: usize,
    seed: u64,
) -> Result<OpeningList<G>, String> {
    let count = count.clamp(1, MAX_RANDOM_OPENINGS);
    if random_plies.is_none() {
        if let Some(list) = arena::builtin_openings::<G>().map_err(|e| e.to_string())? {
            let text = arena::builtin_text::<G>();
            return Ok((list, "built-in balanced list".into(), text));
        }
        if let Some((list, source)) = G::default_openings(count, seed) {
            return Ok((list, source, None));
        }
    }
    let plies = random_plies.unwrap_or_else(arena::default_random_plies::<G>);
    let list = arena::random_openings::<G>(plies, count, seed);
    if list.is_empty() {
        return Err(format!(
            "no random opening of {plies} plies leaves a game to play"
        ));
    }
    Ok((list, format!("random, {plies} plies"), None))
}

/// Every agent name some game offers, with the games that offer it ("othello4, othello6"),
/// from each game's own registry; worked out once per process.
fn agents_elsewhere() -> &'static [(&'static str, String)] {
    static FOUND: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mut by_name: std::collections::BTreeMap<&'static str, Vec<&'static str>> =
            std::collections::BTreeMap::new();
        for id in GameId::ALL {
            for name in with_game!(id, H => H::own_registry().names()) {
                by_name.entry(name).or_default().push(id.name());
            }
        }
        by_name
            .into_iter()
            .map(|(name, games)| (name, games.join(", ")))
            .collect()
    })
}

/// The registry of `G` without agents that start external programs: what a web page may use
/// (it must never be able to run a command on the serving machine).
#[must_use]
pub fn local_registry<G: CatalogGame>() -> Registry<G> {
    let mut registry = G::registry();
    registry.remove("nboard-engine");
    registry.remove("gomocup-engine");
    registry
}

/// The agents that play a trained model, which belongs to one game.
pub(crate) const LEARNED: [&str; 3] = ["dqn", "q-mlp", "az"];

/// The app's opponent: alpha-beta for a second a move, exact whenever the endgame solves within
/// three quarters of that (so it never gives away an endgame it could have solved).
const OTHELLO_OPPONENT: &str = "solver:time=1s";

/// The hint searches as deep as its time allows, then solves exactly from 18 empties (from up to
/// 24 when that finishes within three quarters of its time).
const OTHELLO_HINT: &str = "solver:depth=64,time=2s";

/// The app's 8x8 opponent: the `othello` engine (level 10, its book) with a second a move, exact
/// whenever the endgame solves within three quarters of that.
const OTHELLO8_OPPONENT: &str = "othello:time=1s";

/// The 8x8 hint: the `othello` engine as deep as two seconds allow, exact within reach.
const OTHELLO8_HINT: &str = "othello:time=2s,book=off";

impl CatalogGame for Othello4 {
    fn own_registry() -> Registry<Self> {
        let mut registry = othello_registry::<4>();
        // Value iteration enumerates every reachable position: 4x4 only.
        registry.register(
            "dp",
            "perfect play from value iteration over every reachable 4x4 position, the exact \
             solver for positions the game never reaches (othello4 only); scores are proven \
             margins",
            &[],
            Box::new(|spec, _| match othello4_values() {
                Ok(table) => Ok(Box::new(PerfectOthello4::new(table))),
                Err(e) => Err(search::SpecError::BadValue {
                    agent: spec.name.clone(),
                    key: "(table)".into(),
                    value: String::new(),
                    why: e.to_string(),
                }),
            }),
        );
        registry
    }
    const DEFAULT_OPPONENT: &'static str = "dp";
    const HINT_AGENT: &'static str = "dp";
}

impl CatalogGame for Othello6 {
    fn own_registry() -> Registry<Self> {
        othello_registry::<6>()
    }
    const DEFAULT_OPPONENT: &'static str = OTHELLO_OPPONENT;
    const HINT_AGENT: &'static str = OTHELLO_HINT;
}

impl CatalogGame for Othello8 {
    fn own_registry() -> Registry<Self> {
        let mut registry = othello_registry::<8>();
        // External NBoard engines play 8x8 only.
        registry.register(
            "nboard-engine",
            "an external engine over the NBoard protocol (8x8 only), e.g. nboard-engine:cmd=edax -q",
            &protocol::SPEC_KEYS,
            Box::new(|spec, _| Ok(Box::new(protocol::NboardEngineAgent::from_spec(spec)?))),
        );
        registry.mark("nboard-engine", &[("cmd", KeyKind::Program)]);
        registry
    }
    const DEFAULT_OPPONENT: &'static str = OTHELLO8_OPPONENT;
    const HINT_AGENT: &'static str = OTHELLO8_HINT;
}

impl<V: Variant + Send + Sync + 'static> CatalogGame for Gomoku<V> {
    fn own_registry() -> Registry<Self> {
        gomoku_registry::<V>()
    }
    const DEFAULT_OPPONENT: &'static str = "gomoku:time=1s";
    const HINT_AGENT: &'static str = "gomoku:time=2s";

    fn default_openings(count: usize, seed: u64) -> Option<(Vec<Opening<Self>>, String)> {
        let lines = gomoku_engine::openings::random_openings::<V>(count, seed);
        let list: Vec<Opening<Self>> = lines
            .iter()
            .filter_map(|moves| Opening::from_moves(moves).ok())
            .collect();
        (!list.is_empty()).then(|| (list, "random, 2-4 stones near the centre".to_string()))
    }
}

/// Every agent for Othello on the `N x N` board: the generic ones over the hand-built
/// heuristic (greedy over the disc difference, so it flips the most discs).
fn othello_registry<const N: usize>() -> Registry<Othello<N>> {
    let mut registry = Registry::generic(
        Arc::new(Heuristic::<N>::default()),
        Arc::new(DiscDifference),
    );
    registry.register(
        "solver",
        "perfect play by the exact endgame solver from `empties` empty squares, and with a time \
         limit from `reach` empties whenever the solve finishes in time; alpha-beta before",
        &[
            (
                "empties",
                "always solve exactly from this many empties (default 18; 4x4: all)",
            ),
            (
                "reach",
                "with a time limit, try an exact solve from this many empties under 3/4 of the \
                 time, alpha-beta for the rest when it does not finish (default 24; 4x4: all)",
            ),
            (
                "depth",
                "alpha-beta depth before that (default 6; with a time and no depth: as deep as \
                 the time allows)",
            ),
            ("time", "time per move, e.g. 1s"),
        ],
        Box::new(|spec, _| {
            let empties = spec
                .get::<u32>("empties")?
                .unwrap_or_else(SolverAgent::<N>::default_exact_empties);
            if empties > 30 {
                return Err(search::SpecError::BadValue {
                    agent: spec.name.clone(),
                    key: "empties".into(),
                    value: empties.to_string(),
                    why: "at most 30: exact solves beyond that take far too long for a game".into(),
                });
            }
            let reach = spec
                .get::<u32>("reach")?
                .unwrap_or_else(SolverAgent::<N>::default_reach);
            let time = spec.duration("time")?;
            let depth = match spec.positive("depth")? {
                Some(d) => Some(d.min(64) as u32),
                // A clock alone: as deep as it allows, like `alphabeta:time=...`.
                None if time.is_some() => None,
                None => Some(6),
            };
            let midgame = AlphaBetaConfig {
                depth,
                time,
                ..AlphaBetaConfig::default()
            };
            Ok(Box::new(
                SolverAgent::<N>::new(empties, midgame).with_reach(reach),
            ))
        }),
    );
    if N == 8 {
        register_engine::<N>(&mut registry);
    }
    register_learned(&mut registry, format!("othello{N}"));
    registry
}

/// `othello` (8x8): stonelab's engine — the learned pattern evaluation searched by PVS with
/// Multi-ProbCut, the exact solver in the endgame; levels 1-20.
fn register_engine<const N: usize>(registry: &mut Registry<Othello<N>>) {
    use othello_engine::level::{Level, DEFAULT_LEVEL, MAX_LEVEL};
    registry.register(
        "othello",
        "stonelab's Othello engine (8x8): a learned pattern evaluation searched by PVS with \
         Multi-ProbCut, perfect play from `empties` empty squares; `level` 1-20 sets all three",
        &[
            ("level", "1 (instant) to 20 (deepest); default 10"),
            ("depth", "midgame search depth (default: the level's)"),
            (
                "empties",
                "solve exactly from this many empties (default: the level's, 18 at level 10)",
            ),
            (
                "selectivity",
                "Multi-ProbCut cut at this many standard deviations, or `off` for full-width \
                 search (default: the level's; with `depth`, that of the level searching that \
                 depth, so full width to 5 plies)",
            ),
            (
                "time",
                "time per move, e.g. 1s (searches as deep as it allows)",
            ),
            (
                "game_time",
                "a clock for the whole game, e.g. 5m: each move gets its share of what is left \
                 (with `time`, that caps each move too)",
            ),
            (
                "threads",
                "search threads (default 1): the exact solver splits its work (young brothers \
                 wait), and so does the midgame",
            ),
            (
                "book",
                "`on` or `off`: play from the opening book, at random among moves within half a \
                 disc of the best (default: on from level 3)",
            ),
            (
                "weights",
                "a pattern weight file (the patterns.bin of stonelab train patterns) for the \
                 midgame instead of the bundled one; the bundled Multi-ProbCut table and book \
                 stay (book=off plays the weights alone)",
            ),
            (
                "correction",
                "`on`, `off` or a file: the correction network added to the evaluation at the \
                 midgame's leaves (default: on, the bundled network, with the bundled weights; \
                 off with `weights`, which takes the correction.bin fitted for them)",
            ),
        ],
        Box::new(|spec, seed| {
            let bad = |key: &str, value: String, why: &str| search::SpecError::BadValue {
                agent: spec.name.clone(),
                key: key.into(),
                value,
                why: why.into(),
            };
            let n = spec.get::<u32>("level")?.unwrap_or(DEFAULT_LEVEL);
            let level = Level::of(n)
                .ok_or_else(|| bad("level", n.to_string(), &format!("1 to {MAX_LEVEL}")))?;
            let empties = spec.get::<u32>("empties")?.unwrap_or(level.exact_empties);
            if empties > 30 {
                return Err(bad(
                    "empties",
                    empties.to_string(),
                    "at most 30: exact solves beyond that take far too long for a game",
                ));
            }
            let time = spec.duration("time")?;
            let given_depth = spec.positive("depth")?;
            if let Some(d) = given_depth.filter(|&d| d > 30) {
                return Err(bad(
                    "depth",
                    d.to_string(),
                    "at most 30: deeper midgame searches take far too long for a game (time= \
                     gives a clock instead)",
                ));
            }
            let given_depth = given_depth.map(|d| d as u32);
            let depth = match given_depth {
                Some(d) => d,
                None if time.is_some() => 60,
                None => level.depth,
            };
            let selectivity = match spec.get::<String>("selectivity")?.as_deref() {
                // A depth budget searches as the level of that depth does: full width to 5 plies.
                None => given_depth.map_or(level.probcut, |d| Level::for_depth(d).probcut),
                Some("off") => None,
                Some(text) => match text.parse::<f64>() {
                    Ok(t) if t.is_finite() && t > 0.0 && t <= 10.0 => Some(t),
                    _ => {
                        return Err(bad(
                            "selectivity",
                            text.into(),
                            "a number of standard deviations in (0, 10], or `off`",
                        ))
                    }
                },
            };
            let eval = match spec.get::<String>("weights")? {
                None => othello_engine::pattern::bundled(),
                Some(path) => othello_engine::pattern::load(std::path::Path::new(&path))
                    .map_err(|e| bad("weights", path.clone(), &e.to_string()))?,
            };
            let correction = match (
                spec.get::<String>("correction")?.as_deref(),
                spec.get::<String>("weights")?,
            ) {
                (Some("off"), _) | (None, Some(_)) => None,
                (None | Some("on"), None) => Some(othello_engine::correction::bundled()),
                (Some("on"), Some(_)) => {
                    return Err(bad(
                        "correction",
                        "on".into(),
                        "the bundled network fits the bundled weights only: with `weights`, \
                         name the correction.bin fitted for them, or `off`",
                    ))
                }
                (Some(path), weights) => {
                    let net = othello_engine::correction::load(std::path::Path::new(path))
                        .map_err(|e| bad("correction", path.into(), &e.to_string()))?;
                    let fits = match &weights {
                        None => net.check_fits(othello_engine::pattern::BUNDLED_BYTES),
                        Some(file) => {
                            let bytes =
                                othello_engine::pattern::read_file(std::path::Path::new(file))
                                    .map_err(|e| bad("weights", file.clone(), &e.to_string()))?;
                            net.check_fits(&bytes)
                        }
                    };
                    fits.map_err(|e| bad("correction", path.into(), &e.to_string()))?;
                    Some(net)
                }
            };
            let mut midgame = othello_engine::midgame::MidgameAgent::new(eval, depth, time)
                .with_correction(correction);
            if let Some(t) = selectivity {
                midgame = midgame.with_probcut(othello_engine::midgame::bundled_probcut(), t);
            }
            let threads = match spec.positive("threads")? {
                Some(t) if t > 64 => return Err(bad("threads", t.to_string(), "1 to 64")),
                Some(t) => t as usize,
                None => 1,
            };
            midgame = midgame.with_threads(threads);
            let book = match spec.get::<String>("book")?.as_deref() {
                None => level.level >= 3,
                Some("on") => true,
                Some("off") => false,
                Some(other) => return Err(bad("book", other.into(), "`on` or `off`")),
            };
            let mut agent: Box<dyn search::Agent<Othello8>> = Box::new(
                SolverAgent::<8>::with_midgame(empties, time, Box::new(midgame))
                    .with_solver_threads(threads)
                    .with_bounded_handover(
                        othello_engine::level::HANDOVER_EXTRA,
                        othello_engine::level::HANDOVER_NODES,
                    )
                    .named("othello"),
            );
            if book {
                agent = Box::new(othello_engine::book::BookAgent::new(
                    othello_engine::book::bundled(),
                    agent,
                    32,
                    seed,
                ));
            }
            if let Some(game_time) = spec.duration("game_time")? {
                if game_time.is_zero() {
                    return Err(bad("game_time", "0".into(), "a positive duration, e.g. 5m"));
                }
                agent = Box::new(othello_engine::clock::GameClock::new(agent, game_time));
            }
            // `N` is 8 here (registered for 8x8 only): the boxed agent has this registry's type.
            let any: Box<dyn std::any::Any> = Box::new(agent);
            any.downcast::<Box<dyn search::Agent<Othello<N>>>>()
                .map(|b| *b)
                .map_err(|_| bad("board", N.to_string(), "the othello engine plays 8x8 only"))
        }),
    );
    registry.mark(
        "othello",
        &[
            ("weights", KeyKind::File { words: &[] }),
            (
                "correction",
                KeyKind::File {
                    words: &["on", "off"],
                },
            ),
        ],
    );
}

/// The file a spec's `model=` names (a path or a bundled model's name); `example` shows one in
/// the message when the key is missing.
fn model_path(spec: &search::Spec, example: &str) -> Result<std::path::PathBuf, search::SpecError> {
    spec.get::<String>("model")?
        .map(|value| crate::bundled::BundledModels::model_file(&value))
        .ok_or_else(|| search::SpecError::BadValue {
            agent: spec.name.clone(),
            key: "model".into(),
            value: String::new(),
            why: format!("required: the .safetensors file of a trained model, e.g. {example}"),
        })
}

/// `dqn:model=PATH` and `q-mlp:model=PATH`: trained networks (a `.safetensors` file beside its
/// `.json` card, checked by sha256), greedy over their action values. The card must name the
/// game `game` (its id) and its board size: a model of another game is refused.
fn register_learned<G: Game + 'static>(registry: &mut Registry<G>, game: String) {
    fn bad(
        spec: &search::Spec,
        path: &std::path::Path,
        e: impl std::fmt::Display,
    ) -> search::SpecError {
        search::SpecError::BadValue {
            agent: spec.name.clone(),
            key: "model".into(),
            value: path.display().to_string(),
            why: e.to_string(),
        }
    }
    /// A model of the agent `name`'s kind, for the messages.
    fn model_example(name: &str) -> &'static str {
        match name {
            learn::value::CNN_ALGO => "models/othello8-cnn.safetensors",
            learn::value::MLP_ALGO => "models/othello8-mlp.safetensors",
            "q-mlp" => "RUN/checkpoints/last.safetensors of a q-mlp run",
            _ => "models/othello8-dqn.safetensors",
        }
    }
    const MODEL: &[(&str, &str)] = &[(
        "model",
        "the weights (.safetensors, with its .json card beside it) or a bundled model's name, e.g. othello8-dqn",
    )];
    const CNN_MODEL: (&str, &str) = (
        "model",
        "the weights (.safetensors, with its .json card beside it) or a bundled model's name, e.g. othello8-cnn",
    );
    const MLP_MODEL: (&str, &str) = (
        "model",
        "the weights (.safetensors, with its .json card beside it) or a bundled model's name, e.g. othello8-mlp",
    );
    registry.register(
        "dqn",
        "a trained DQN (stonelab train dqn): the move with the highest learned value",
        MODEL,
        Box::new({
            let game = game.clone();
            move |spec, _| {
                let path = model_path(spec, model_example(&spec.name))?;
                let (net, card) = learn::QNet::load(&path, &game, G::BOARD_SIZE)
                    .map_err(|e| bad(spec, &path, e))?;
                // `load` has already checked the card's encoding.
                let encoding = learn::QNet::card_encoding(&card).unwrap_or_default();
                Ok(Box::new(learn::DqnAgent::<G>::with_encoding(
                    net,
                    encoding,
                    spec.to_string(),
                )))
            }
        }),
    );
    for (name, algo, what) in [
        (
            learn::value::CNN_ALGO,
            learn::value::CNN_ALGO,
            "a CNN value network (stonelab train cnn-supervised / cnn-selfplay) searched by \
             alpha-beta to a fixed depth, the leaves evaluated in batches",
        ),
        (
            learn::value::MLP_ALGO,
            learn::value::MLP_ALGO,
            "an MLP value network over the stones (stonelab train mlp-supervised) searched by \
             alpha-beta to a fixed depth, the leaves evaluated in batches",
        ),
    ] {
        let game = game.clone();
        registry.register(
            name,
            what,
            &[
                if algo == learn::value::CNN_ALGO {
                    CNN_MODEL
                } else {
                    MLP_MODEL
                },
                ("depth", "plies searched (default 3)"),
                (
                    "batch",
                    "true (default): leaves go to the network in batches; false: one at a time \
                     (same moves, for measuring)",
                ),
            ],
            Box::new(move |spec, _| {
                let path = model_path(spec, model_example(&spec.name))?;
                let depth = spec
                    .positive("depth")?
                    .map_or(learn::value::DEFAULT_DEPTH, |d| d as u32);
                if depth > 12 {
                    return Err(search::SpecError::BadValue {
                        agent: spec.name.clone(),
                        key: "depth".into(),
                        value: depth.to_string(),
                        why: "at most 12".into(),
                    });
                }
                let batched = spec.get::<bool>("batch")?.unwrap_or(true);
                let model = learn::value::ValueModel::load(&path, algo, &game, G::BOARD_SIZE)
                    .map_err(|e| bad(spec, &path, e))?;
                let eval = model.evaluator().batched(batched);
                Ok(Box::new(learn::value::ValueMinimax::<G>::new(
                    spec.to_string(),
                    std::sync::Arc::new(eval),
                    depth,
                )))
            }),
        );
    }
    registry.register(
        "q-mlp",
        "a trained Q-learning MLP (stonelab train q-mlp): the move with the highest learned value",
        &[(
            "model",
            "the weights (.safetensors, with its .json card beside it), e.g. \
             RUN/checkpoints/last.safetensors of a q-mlp run",
        )],
        Box::new(move |spec, _| {
            let path = model_path(spec, model_example(&spec.name))?;
            let (net, _) = learn::QMlpNet::load(&path, &game, G::BOARD_SIZE)
                .map_err(|e| bad(spec, &path, e))?;
            Ok(Box::new(learn::QMlpAgent::<G>::new(net, spec.to_string())))
        }),
    );
    register_az(registry);
    for name in [
        "dqn",
        "q-mlp",
        learn::alphazero::AZ_ALGO,
        learn::value::CNN_ALGO,
        learn::value::MLP_ALGO,
    ] {
        registry.mark(name, &[("model", KeyKind::Model)]);
    }
}

/// The most simulations an `az` move may ask for.
const AZ_MAX_SIMS: u64 = 100_000;

/// `az:model=PATH`: an AlphaZero network (`stonelab train alphazero`) searched by PUCT or a
/// Gumbel root, with the exact solver at Othello leaves near the end.
fn register_az<G: Game + 'static>(registry: &mut Registry<G>) {
    registry.register(
        learn::alphazero::AZ_ALGO,
        "an AlphaZero network (stonelab train alphazero) searched by PUCT over its policy and \
         value, proven results propagated (MCTS-solver)",
        &[
            (
                "model",
                "the weights (.safetensors, with its .json card beside it) or a bundled model's \
                 name, e.g. othello6-az",
            ),
            ("sims", "simulations per move (default 400; at most 100000)"),
            (
                "time",
                "time per move, e.g. 500ms (sims, when given, caps it)",
            ),
            (
                "gumbel",
                "considered actions of a Gumbel root with sequential halving (0, the default: \
                 PUCT at the root)",
            ),
            (
                "solver",
                "Othello: exact results at leaves with at most this many empties (default 10; 0: \
                 off)",
            ),
        ],
        Box::new(move |spec, seed| {
            let bad = |key: &str, value: String, why: String| search::SpecError::BadValue {
                agent: spec.name.clone(),
                key: key.into(),
                value,
                why,
            };
            let path = model_path(spec, "models/othello6-az.safetensors")?;
            let sims = spec.positive("sims")?;
            if let Some(n) = sims.filter(|&n| n > AZ_MAX_SIMS) {
                return Err(bad("sims", n.to_string(), format!("at most {AZ_MAX_SIMS}")));
            }
            let time = spec.duration("time")?;
            let gumbel = spec.get::<usize>("gumbel")?.unwrap_or(0);
            if gumbel > 512 {
                return Err(bad("gumbel", gumbel.to_string(), "at most 512".into()));
            }
            let empties = spec.get::<u32>("solver")?.unwrap_or(10);
            if empties > 20 {
                return Err(bad(
                    "solver",
                    empties.to_string(),
                    "at most 20 empties".into(),
                ));
            }
            let (net, _, _) = learn::alphazero::PvNet::load::<G>(&path)
                .map_err(|e| bad("model", path.display().to_string(), e.to_string()))?;
            let config = search::PuctConfig {
                sims: sims
                    .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
                    .or(if time.is_some() { None } else { Some(400) }),
                time,
                gumbel: (gumbel > 0).then(|| search::GumbelRoot {
                    considered: gumbel,
                    ..search::GumbelRoot::default()
                }),
                ..search::PuctConfig::default()
            };
            let eval = Arc::new(learn::alphazero::PvEvaluator::<G>::new(&net));
            let mut agent = search::PuctAgent::new(spec.to_string(), eval, config, seed);
            if let Some(exact) = learn::alphazero::exact::exact_leaf::<G>(empties) {
                agent = agent.with_exact(exact);
            }
            Ok(Box::new(agent))
        }),
    );
}

/// `dp` on 4x4: value iteration's move where the position is reachable from the start, the
/// exact solver's elsewhere (a position set by a board string); the score is the exact margin
/// after the move either way (the solver is instant on 4x4), so it prints as a proven result.
struct PerfectOthello4 {
    dp: DpAgent<Othello4, u128>,
    solver: othello_engine::Solver<4>,
}

impl PerfectOthello4 {
    fn new(table: Arc<ValueTable<Othello4, u128>>) -> Self {
        PerfectOthello4 {
            dp: DpAgent::new(table),
            // 4x4 has at most 12 empties: a small table is plenty.
            solver: othello_engine::Solver::new(12),
        }
    }
}

impl search::Agent<Othello4> for PerfectOthello4 {
    fn name(&self) -> String {
        "dp".into()
    }

    fn select(
        &mut self,
        pos: &Othello4,
        budget: &search::Budget,
    ) -> Result<search::Decision<othello::Move>, search::AgentError> {
        if pos.is_over() {
            return Err(search::AgentError::GameOver);
        }
        let (mv, margin) = match self.dp.select(pos, budget) {
            Ok(decision) => {
                let after = pos.play(decision.mv).map_err(|e| {
                    search::AgentError::Failed(format!("value iteration chose {e}"))
                })?;
                (decision.mv, -self.solver.solve(&after).score)
            }
            // Not reachable from the start: the solver plays it.
            Err(search::AgentError::Failed(_)) => {
                let solution = self.solver.solve(pos);
                let mv = solution.best.ok_or(search::AgentError::GameOver)?;
                (mv, solution.score)
            }
            Err(e) => return Err(e),
        };
        Ok(search::Decision {
            mv,
            score: Some(othello_engine::proven(margin)),
            pv: vec![mv],
            depth: None,
            nodes: 0,
            scale: search::ScoreScale::Centi,
        })
    }
}

/// The solved value table of 4x4 Othello, computed once per process (well under a second).
///
/// # Errors
/// When value iteration fails (it does not on 4x4: far below the state limit, and it converges).
pub fn othello4_values() -> Result<Arc<ValueTable<Othello4, u128>>, ValueIterationError> {
    type Table = Arc<ValueTable<Othello4, u128>>;
    static TABLE: OnceLock<Result<Table, ValueIterationError>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            ValueTable::solve(Othello4::base3_key, &ValueIterationConfig::default())
                .map(|(table, _)| Arc::new(table))
        })
        .clone()
}

/// Every agent for Gomoku variant `V`: the generic ones over a window-count evaluation, the
/// reference `omok-ab` student AI, and (on every variant) external Gomocup brains.
fn gomoku_registry<V: Variant>() -> Registry<Gomoku<V>> {
    let mut registry = Registry::generic(Arc::new(WindowEvaluator), Arc::new(WindowEvaluator));
    registry.register(
        "omok-ab",
        "the reference student Omok AI: depth-2 alpha-beta over 5-point windows through the last move",
        gomoku_engine::omok_ab::KEYS,
        Box::new(|spec, seed| {
            let config = OmokAbConfig::from_spec(spec)?;
            Ok(Box::new(OmokAb::new(config, seed)))
        }),
    );
    registry.register(
        "gomoku",
        "the strong engine: VCF/VCT threat search, then pattern-ordered PVS with a table",
        gomoku_engine::engine::KEYS,
        Box::new(|spec, _| {
            let config = EngineConfig::from_spec(spec)?;
            Ok(Box::new(
                GomokuEngine::new(config).with_name(&spec.to_string()),
            ))
        }),
    );
    registry.register(
        "gomocup-engine",
        "an external Gomoku brain over the Gomocup protocol, e.g. gomocup-engine:cmd=pbrain-x,turn_ms=1000",
        &protocol::GOMOCUP_SPEC_KEYS,
        Box::new(|spec, _| Ok(Box::new(protocol::GomocupEngineAgent::<V>::from_spec(spec)?))),
    );
    registry.mark("gomocup-engine", &[("cmd", KeyKind::Program)]);
    register_learned(&mut registry, V::ID.to_string());
    registry
}

/// The agent list of a game, one line each, for `stonelab agents`.
#[must_use]
pub fn help(game: GameId) -> String {
    let list = with_game!(game, G => G::registry().help());
    format!(
        "Agents for {game} (spec: name or name:key=value,...; every agent takes seed=N):\n{list}"
    )
}
