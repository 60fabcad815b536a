//! One game in the app: the position history, who plays each side, and the JSON views of it.
//! [`Session`] is the object-safe face the server keeps per game id. A game holds no agent: each
//! search builds its agent on the worker, reserves its tables from the server's
//! [`MemoryBudget`], and drops both when it ends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use game::Color;
use search::analysis::multi_pv;
use search::{Agent, Budget, Decision, Registry};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::games::Model;
use crate::memory::MemoryBudget;
use crate::view::{Scored, WebGame};

/// A game the server holds, whatever its type.
pub trait Session: Send {
    /// The state as JSON (without the server's `id` and `busy`).
    fn state(&self) -> Value;
    /// Plays a move given in the game's notation.
    ///
    /// # Errors
    /// 422 for an unreadable or illegal move.
    fn play(&mut self, mv: &str) -> Result<(), ApiError>;
    /// The spec of the agent to move, or an error when a human is to move or the game is over.
    ///
    /// # Errors
    /// 409 when no agent is to move.
    fn agent_to_move(&self) -> Result<String, ApiError>;
    /// Lets the agent of the side to move play within `think`, its tables reserved from
    /// `memory`.
    ///
    /// # Errors
    /// 409 when no agent is to move; 422 when the agent cannot play this position; 503 when
    /// the memory budget is spent.
    fn agent_move(&mut self, think: Think, memory: &MemoryBudget) -> Result<Value, ApiError>;
    /// Takes back to the human's previous turn (one move without exactly one human).
    ///
    /// # Errors
    /// 409 when there is nothing to undo.
    fn undo(&mut self) -> Result<(), ApiError>;
    /// The hint agent's move for the side to move, without playing it.
    ///
    /// # Errors
    /// 409 when the game is over; 503 when the memory budget is spent.
    fn hint(&mut self, think: Think, memory: &MemoryBudget) -> Result<Value, ApiError>;
    /// Changes who plays.
    ///
    /// # Errors
    /// 400 for a bad spec.
    fn set_players(&mut self, black: Option<&str>, white: Option<&str>) -> Result<(), ApiError>;
    /// Replaces the game by a transcript or board string.
    ///
    /// # Errors
    /// 422 when the text is neither.
    fn set_position(&mut self, text: &str) -> Result<(), ApiError>;
    /// Scores of the legal moves.
    ///
    /// # Errors
    /// 503 when the memory budget is spent.
    fn analysis(&self, time: Duration, memory: &MemoryBudget) -> Result<Value, ApiError>;
}

/// How long an agent may think: the request's time, else the agent spec's own `time=`, else the
/// server default; never more than the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Think {
    /// The time the request asked for.
    pub requested: Option<Duration>,
    /// The time when neither the request nor the spec names one.
    pub default: Duration,
    /// The most any request may use.
    pub cap: Duration,
}

impl Think {
    /// The time for an agent built from `spec`.
    #[must_use]
    pub fn for_spec(&self, spec: &str) -> Duration {
        let own = spec
            .parse::<search::Spec>()
            .ok()
            .and_then(|s| s.duration("time").ok().flatten());
        self.requested.or(own).unwrap_or(self.default).min(self.cap)
    }
}

/// Keys whose large values would let one request take gigabytes or minutes.
const LIMITS: [(&str, u64, &str); 4] = [
    ("tt", 20, "transposition tables above 2^20 entries"),
    (
        "solver",
        14,
        "exact search leaves with more than 14 empty squares",
    ),
    ("threads", 4, "searches on more than 4 threads"),
    (
        "empties",
        20,
        "exact solving from more than 20 empty squares",
    ),
];

/// Refuses specs the app does not run for the public: a key whose value names a file or a
/// program on the server (the registry marks them, [`search::KeyKind`]; models are chosen by
/// name, [`GameSession::build`]), and values above [`LIMITS`]. The one check every agent a
/// request names goes through.
fn check_limits<G: game::Game>(registry: &Registry<G>, spec: &str) -> Result<(), ApiError> {
    let Ok(parsed) = spec.parse::<search::Spec>() else {
        return Ok(()); // the registry reports the parse error
    };
    for (key, value) in &parsed.params {
        let kind = registry
            .key_kind(&parsed.name, key)
            .filter(|kind| kind.names_outside(value));
        match kind {
            Some(search::KeyKind::File { words }) => {
                let allowed = if words.is_empty() {
                    String::new()
                } else {
                    format!("; here it takes only {}", words.join(" or "))
                };
                return Err(ApiError::bad_request(format!(
                    "{:?}: {key}= names a file on the server, which the app does not read for a \
                     request{allowed}",
                    clip(spec)
                )));
            }
            Some(search::KeyKind::Program) => {
                return Err(ApiError::bad_request(format!(
                    "{:?}: {key}= starts a program on the server, which the app never does",
                    clip(spec)
                )));
            }
            // Models: a name the server offers ([`GameSession::build`]); unknown agents and
            // keys: the registry's own error.
            _ => {}
        }
    }
    for (key, max, what) in LIMITS {
        if let Some(value) = parsed.text(key) {
            if value.trim().parse::<u64>().is_ok_and(|v| v > max) {
                return Err(ApiError::bad_request(format!(
                    "{spec:?}: {key}={value} is above {max}: the app does not run {what}"
                )));
            }
        }
    }
    Ok(())
}

/// The threads a spec searches on (`threads=`, 1 when it names none): how many of the server's
/// workers its search takes.
pub(crate) fn search_threads(spec: &str) -> u32 {
    spec.parse::<search::Spec>()
        .ok()
        .and_then(|parsed| parsed.text("threads")?.trim().parse::<u32>().ok())
        .unwrap_or(1)
        .max(1)
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

const HUMAN: &str = "human";

fn is_human(spec: &str) -> bool {
    spec.trim().eq_ignore_ascii_case(HUMAN)
}

/// A game of type `G`.
pub struct GameSession<G: WebGame> {
    registry: Arc<Registry<G>>,
    /// The models agents may name (`model=NAME`); no other file is read.
    models: Arc<Vec<Model>>,
    hint_spec: String,
    players: [String; 2],
    /// `positions[i]` is the position before `moves[i]`; the last is the current one.
    positions: Vec<G>,
    moves: Vec<G::Move>,
    /// Per move: the mover's agent evaluation from black's point of view, when known.
    evals: Vec<Option<i32>>,
    /// The same with its unit, in words (`win by 6`, `+1.50`, `expects +0.42`).
    eval_texts: Vec<Option<String>>,
    seed: u64,
    /// The most search-table bytes a player may need: the server's whole memory budget.
    table_cap: usize,
}

impl<G: WebGame> GameSession<G> {
    /// A new game from the start between `black` and `white`, whose agents may play `models`
    /// (by name) with at most `table_cap` bytes of search tables each.
    ///
    /// # Errors
    /// 400 when a player spec is not an agent of this game, or needs more tables than that.
    pub fn new(
        registry: Arc<Registry<G>>,
        hint_spec: &str,
        models: Arc<Vec<Model>>,
        [black, white]: [&str; 2],
        seed: u64,
        table_cap: usize,
    ) -> Result<Self, ApiError> {
        let mut session = GameSession {
            registry,
            models,
            hint_spec: hint_spec.to_string(),
            players: [HUMAN.into(), HUMAN.into()],
            positions: vec![G::start()],
            moves: Vec::new(),
            evals: Vec::new(),
            eval_texts: Vec::new(),
            seed,
            table_cap,
        };
        session.set_players(Some(black), Some(white))?;
        Ok(session)
    }

    /// Every legal move scored by `spec`'s multi-PV analysis, the time shared among the moves
    /// (at least 5 ms each); the agent's tables are reserved through `reserve` first.
    fn engine_analysis(
        &self,
        spec: &str,
        time: Duration,
        reserve: &mut dyn FnMut(usize) -> Result<(), ApiError>,
    ) -> Result<Vec<Scored<G::Move>>, ApiError> {
        let pos = self.current();
        let moves = pos.legal_moves();
        if pos.is_over() || moves.is_empty() {
            return Ok(Vec::new());
        }
        let mut agent = self
            .build(spec, self.seed)?
            .ok_or_else(|| ApiError::internal("no analysis agent"))?;
        reserve(agent.table_bytes())?;
        let share = (time / moves.len() as u32).max(Duration::from_millis(5));
        let budget = Budget::time(share);
        Ok(multi_pv(agent.as_mut(), pos, &budget, &budget, moves.len())
            .unwrap_or_default()
            .iter()
            .filter_map(Scored::of)
            .collect())
    }

    fn current(&self) -> &G {
        // `positions` always holds at least the start.
        &self.positions[self.positions.len() - 1]
    }

    fn build(&self, spec: &str, seed: u64) -> Result<Option<Box<dyn Agent<G>>>, ApiError> {
        if is_human(spec) {
            return Ok(None);
        }
        check_limits(&self.registry, spec)?;
        let bad = |e: search::SpecError| ApiError::bad_request(format!("{:?}: {e}", clip(spec)));
        let mut parsed: search::Spec = spec.parse().map_err(bad)?;
        // The key through which this agent plays a trained model, if it does.
        let model_key = self
            .registry
            .describe()
            .into_iter()
            .find(|a| a.name == parsed.name)
            .and_then(|a| {
                a.reaches
                    .iter()
                    .find(|(_, kind)| *kind == search::KeyKind::Model)
                    .map(|(key, _)| *key)
            });
        let Some(model_key) = model_key else {
            return self
                .registry
                .build_spec(&parsed, seed)
                .map(Some)
                .map_err(bad);
        };
        // The models this agent can play: those whose card names it. A name is looked up among
        // them only, so a name never picks another agent's model.
        let playable: Vec<&Model> = self
            .models
            .iter()
            .filter(|m| m.algo == parsed.name)
            .collect();
        let Some(name) = parsed.params.get(model_key).cloned() else {
            let specs: Vec<String> = playable.iter().map(|m| m.spec()).collect();
            return Err(ApiError::bad_request(if specs.is_empty() {
                format!(
                    "{:?} plays a trained model, and this server offers no {} model for {}",
                    clip(spec),
                    parsed.name,
                    G::ID
                )
            } else {
                format!(
                    "{:?} needs a model: choose one by name ({})",
                    clip(spec),
                    specs.join(", ")
                )
            }));
        };
        let model = playable.iter().find(|m| m.name == name).ok_or_else(|| {
            let names: Vec<&str> = playable.iter().map(|m| m.name.as_str()).collect();
            let other = self
                .models
                .iter()
                .find(|m| m.name == name)
                .map(|m| format!(" ({} is a model for {})", m.name, m.algo))
                .unwrap_or_default();
            ApiError::bad_request(if names.is_empty() {
                format!(
                    "model {:?}: this server offers no {} models for {}{other}",
                    clip(&name),
                    parsed.name,
                    G::ID
                )
            } else {
                format!(
                    "model {:?} is not one of this server's {} models for {}{other}: choose \
                     one by name ({})",
                    clip(&name),
                    parsed.name,
                    G::ID,
                    names.join(", ")
                )
            })
        })?;
        let model = (*model).clone();
        parsed
            .params
            .insert(model_key.into(), model.path.to_string_lossy().into_owned());
        // The message names the model, never where the server keeps it.
        self.registry
            .build_spec(&parsed, seed)
            .map(Some)
            .map_err(|e| {
                ApiError::bad_request(format!(
                    "{:?}: model {:?} cannot be played: {}",
                    clip(spec),
                    model.name,
                    model.scrub(&model_reason(&e))
                ))
            })
    }

    /// The seed of the agent that plays `side` at the current ply: every search gets its own,
    /// and the same game seed replays the same games.
    fn move_seed(&self, side: Color) -> u64 {
        let ply = self.moves.len() as u64;
        self.seed
            .wrapping_add(side.index() as u64)
            .wrapping_add(ply.wrapping_mul(2))
    }

    fn record(&mut self, mv: G::Move, next: G, eval: Option<i32>, text: Option<String>) {
        self.positions.push(next);
        self.moves.push(mv);
        self.evals.push(eval);
        self.eval_texts.push(text);
    }

    fn decision_json(
        &self,
        d: &Decision<G::Move>,
        agent: &str,
        side: Color,
        elapsed: Duration,
    ) -> Value {
        json!({
            "move": d.mv.to_string(),
            "index": G::display_index(d.mv),
            "score": d.score,
            "eval": eval_json(d.value()),
            // Proven by a search that reached every end (an exact solve or a forced result).
            "exact": d.value().is_some_and(search::Score::is_proven),
            "pv": d.pv.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "depth": d.depth,
            "nodes": d.nodes,
            "time_ms": elapsed.as_millis() as u64,
            "agent": agent,
            "side": color_name(side),
        })
    }
}

impl<G: WebGame> Session for GameSession<G> {
    fn state(&self) -> Value {
        let pos = self.current();
        let over = pos.is_over();
        let side = pos.side_to_move();
        let legal: Vec<Value> = pos
            .legal_moves()
            .into_iter()
            .map(|mv| json!({"move": mv.to_string(), "index": G::display_index(mv)}))
            .collect();
        let last = self.moves.last().map(|&mv| {
            let mover = self.positions[self.positions.len() - 2].side_to_move();
            json!({
                "move": mv.to_string(),
                "index": G::display_index(mv),
                "color": color_name(mover),
                "pass": G::is_pass(mv),
            })
        });
        let flipped = match (self.moves.last(), self.positions.len()) {
            (Some(&mv), n) if n >= 2 => G::flipped(&self.positions[n - 2], mv),
            _ => Vec::new(),
        };
        let notice = match (self.moves.last(), self.positions.len()) {
            (Some(&mv), n) if n >= 2 && G::is_pass(mv) => {
                let mover = self.positions[n - 2].side_to_move();
                Some(format!(
                    "{} has no move and passes.",
                    if mover == Color::Black {
                        "Black"
                    } else {
                        "White"
                    }
                ))
            }
            _ => None,
        };
        let (black, white) = pos.counts();
        let result = pos.outcome().map(|o| {
            json!({
                "winner": o.winner().map(color_name),
                "text": pos.result_text(),
            })
        });
        json!({
            "game": G::ID,
            "family": G::FAMILY,
            "size": G::BOARD_SIZE,
            "rule": G::rule(),
            "files": G::files(),
            "ranks": G::ranks(),
            "cells": pos.cells(),
            "to_move": color_name(side),
            "players": {"black": self.players[0], "white": self.players[1]},
            "human_to_move": !over && is_human(&self.players[side.index()]),
            "legal": legal,
            "must_pass": pos.forced_pass().is_some(),
            "last": last,
            "flipped": flipped,
            "winning_line": pos.winning_line(),
            "forbidden": pos.forbidden(),
            "counts": {"black": black, "white": white},
            "notice": notice,
            "over": over,
            "result": result,
            "moves": self.moves.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "transcript": G::transcript(&self.moves),
            "board_string": pos.board_string(),
            "evals": self.evals,
            "eval_texts": self.eval_texts,
        })
    }

    fn play(&mut self, text: &str) -> Result<(), ApiError> {
        let pos = self.current().clone();
        if pos.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        let side = pos.side_to_move();
        if !is_human(&self.players[side.index()]) {
            return Err(ApiError::conflict(format!(
                "{} is played by {}: ask for its move with agent-move",
                color_name(side),
                self.players[side.index()]
            )));
        }
        let mv = G::parse_move(text.trim())
            .map_err(|e| ApiError::unprocessable(format!("{:?}: {e}", clip(text))))?;
        let next = pos
            .play(mv)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        self.record(mv, next, None, None);
        Ok(())
    }

    fn agent_to_move(&self) -> Result<String, ApiError> {
        let pos = self.current();
        if pos.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        let side = pos.side_to_move();
        let spec = &self.players[side.index()];
        if is_human(spec) {
            return Err(ApiError::conflict(format!(
                "{} is played by a human: send a move",
                color_name(side)
            )));
        }
        Ok(spec.clone())
    }

    fn agent_move(&mut self, think: Think, memory: &MemoryBudget) -> Result<Value, ApiError> {
        let spec = self.agent_to_move()?;
        let time = think.for_spec(&spec);
        let pos = self.current().clone();
        let side = pos.side_to_move();
        let Some(mut agent) = self.build(&spec, self.move_seed(side))? else {
            return Err(ApiError::conflict("no agent for the side to move"));
        };
        let _tables = memory.take(agent.table_bytes(), &spec)?;
        let started = Instant::now();
        let decision = agent
            .select(&pos, &Budget::time(time))
            .map_err(|e| ApiError::unprocessable(format!("{spec} cannot play here: {e}")))?;
        let elapsed = started.elapsed();
        let next = pos
            .play(decision.mv)
            .map_err(|e| ApiError::internal(format!("{spec} chose an illegal move: {e}")))?;
        let eval = decision
            .score
            .map(|s| if side == Color::Black { s } else { -s });
        let json = self.decision_json(&decision, &spec, side, elapsed);
        let text = decision
            .value()
            .map(|s| if side == Color::Black { s } else { -s }.to_string());
        self.record(decision.mv, next, eval, text);
        Ok(json)
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        if self.moves.is_empty() {
            return Err(ApiError::conflict("nothing to undo"));
        }
        let humans = self.players.iter().filter(|p| is_human(p)).count();
        let target = if humans == 1 {
            (0..self.positions.len() - 1)
                .rev()
                .find(|&i| is_human(&self.players[self.positions[i].side_to_move().index()]))
        } else {
            Some(self.positions.len() - 2)
        };
        let Some(i) = target else {
            return Err(ApiError::conflict(
                "no earlier position where the human is to move",
            ));
        };
        self.positions.truncate(i + 1);
        self.moves.truncate(i);
        self.evals.truncate(i);
        self.eval_texts.truncate(i);
        Ok(())
    }

    fn hint(&mut self, think: Think, memory: &MemoryBudget) -> Result<Value, ApiError> {
        let time = think.for_spec(&self.hint_spec);
        let pos = self.current().clone();
        if pos.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        let mut agent = self
            .build(&self.hint_spec.clone(), self.seed)?
            .ok_or_else(|| ApiError::internal("no hint agent"))?;
        let _tables = memory.take(agent.table_bytes(), &self.hint_spec)?;
        let started = Instant::now();
        let d = agent
            .select(&pos, &Budget::time(time))
            .map_err(|e| ApiError::unprocessable(format!("no hint here: {e}")))?;
        Ok(self.decision_json(&d, &self.hint_spec, pos.side_to_move(), started.elapsed()))
    }

    fn set_players(&mut self, black: Option<&str>, white: Option<&str>) -> Result<(), ApiError> {
        let mut specs = self.players.clone();
        if let Some(b) = black {
            specs[0] = b.trim().to_string();
        }
        if let Some(w) = white {
            specs[1] = w.trim().to_string();
        }
        // Check both before changing anything (building allocates no tables; the agents are
        // built again for each search). An agent whose tables could never fit is refused now,
        // not with a 503 at every move.
        for spec in &specs {
            let Some(agent) = self.build(spec, self.seed)? else {
                continue;
            };
            let bytes = agent.table_bytes();
            if bytes > self.table_cap {
                return Err(ApiError::bad_request(format!(
                    "{:?} needs {} MiB of search tables, more than this server's whole budget of \
                     {} MiB",
                    clip(spec),
                    bytes.div_ceil(1 << 20),
                    self.table_cap >> 20
                )));
            }
        }
        self.players = specs.map(|s| if is_human(&s) { HUMAN.to_string() } else { s });
        Ok(())
    }

    fn set_position(&mut self, text: &str) -> Result<(), ApiError> {
        let (moves, last) = G::parse_position(text).map_err(ApiError::unprocessable)?;
        let mut positions = vec![G::start()];
        if moves.is_empty() {
            positions = vec![last];
        } else {
            for &mv in &moves {
                let next = positions[positions.len() - 1].play_unchecked(mv);
                positions.push(next);
            }
        }
        self.evals = vec![None; moves.len()];
        self.eval_texts = vec![None; moves.len()];
        self.positions = positions;
        self.moves = moves;
        Ok(())
    }

    fn analysis(&self, time: Duration, memory: &MemoryBudget) -> Result<Value, ApiError> {
        let mut held = Vec::new();
        let mut reserve = |bytes: usize| {
            held.push(memory.take(bytes, "the analysis")?);
            Ok(())
        };
        // A registry without the engine (a trimmed catalog) keeps the game's own analysis.
        let engine = G::analysis_agent().filter(|spec| {
            let name = spec.split(':').next().unwrap_or(spec);
            self.registry.describe().iter().any(|a| a.name == name)
        });
        let mut scored = match engine {
            Some(spec) => self.engine_analysis(spec, time, &mut reserve)?,
            None => self.current().analyse(time, &mut reserve)?,
        };
        // Best first, as API.md promises (the multi-PV analysis puts the agent's own choice
        // first, whatever the later searches found).
        crate::view::best_first(&mut scored);
        let moves: Vec<Value> = scored
            .into_iter()
            .map(|s| {
                json!({
                    "move": s.mv.to_string(),
                    "index": G::display_index(s.mv),
                    "score": s.score,
                    "exact": s.exact,
                    "eval": eval_json(s.eval),
                    "depth": s.depth,
                })
            })
            .collect();
        drop(held);
        Ok(json!({ "moves": moves }))
    }
}

/// A score with its unit for the client: `{"kind": "proven"|"units"|"engine"|"expectation",
/// "value": number, "text": "win by 6"}` (mover's point of view), or `null`.
pub(crate) fn eval_json(score: Option<search::Score>) -> Value {
    match score {
        Some(s) => {
            let (kind, value) = s.parts();
            json!({ "kind": kind, "value": value, "text": s.to_string() })
        }
        None => Value::Null,
    }
}

/// What is wrong with a model, from its agent's error (the `why` of a bad `model=` value).
fn model_reason(e: &search::SpecError) -> String {
    match e {
        search::SpecError::BadValue { why, .. } => why.clone(),
        other => other.to_string(),
    }
}

/// At most 40 characters of user text, for messages.
pub(crate) fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}
