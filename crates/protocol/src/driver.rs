//! The driver side: [`NboardEngineAgent`] plays through an external NBoard engine run as a
//! subprocess, so arena, CLI and web can use it like any other [`Agent`].

use std::time::{Duration, Instant};

use game::Game;
use othello::{GgfGame, GgfMove, Move, Othello8};
use search::{Agent, AgentError, Budget, Decision, Spec, SpecError, WIN};

use crate::command::{Command, Reply};
use crate::process::EngineProcess;

/// The depth sent when neither the budget nor the configuration sets one.
pub const DEFAULT_DEPTH: u32 = 6;
/// How long to wait for each answer by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The keys of the `nboard-engine` spec, with their meaning (for a [`search::Registry`]).
pub const SPEC_KEYS: [(&str, &str); 4] = [
    (
        "cmd",
        "the engine's program and arguments, e.g. cmd=edax -q (required; quote with ' or \")",
    ),
    (
        "depth",
        "the depth sent with set depth, 1 to 60 (default 6)",
    ),
    (
        "timeout",
        "the longest wait for each answer, e.g. 30s (default 60s)",
    ),
    (
        "protocol",
        "the NBoard version to announce: 1 or 2 (default 2)",
    ),
];

/// How to run and talk to an external engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NboardEngineConfig {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The depth sent with `set depth` when the budget sets none.
    pub depth: u32,
    /// The longest wait for each answer (`pong`, `===`); a budget's time is added to it.
    pub timeout: Duration,
    /// The protocol version announced with `nboard`.
    pub protocol: u32,
}

impl NboardEngineConfig {
    /// Defaults for `command`: depth 6, a 60 s timeout, protocol 2.
    #[must_use]
    pub fn new(command: Vec<String>) -> Self {
        NboardEngineConfig {
            command,
            depth: DEFAULT_DEPTH,
            timeout: DEFAULT_TIMEOUT,
            protocol: 2,
        }
    }

    /// The configuration of a spec `nboard-engine:cmd=...,depth=...,timeout=...,protocol=...`
    /// (keys in [`SPEC_KEYS`]).
    ///
    /// # Errors
    /// [`SpecError::BadValue`] for a missing or unsplittable `cmd`, a depth outside 1..=60, a zero
    /// timeout, or a protocol other than 1 or 2.
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let bad = |key: &str, why: &str| SpecError::BadValue {
            agent: spec.name.clone(),
            key: key.into(),
            value: spec.text(key).unwrap_or_default().into(),
            why: why.into(),
        };
        let cmd = spec
            .text("cmd")
            .ok_or_else(|| bad("cmd", "required: the engine's program and arguments"))?;
        let command = split_command_line(cmd).map_err(|e| bad("cmd", &e.to_string()))?;
        let mut config = NboardEngineConfig::new(command);
        if let Some(depth) = spec.positive("depth")? {
            config.depth = u32::try_from(depth)
                .ok()
                .filter(|d| *d <= 60)
                .ok_or_else(|| bad("depth", "expected 1 to 60 plies (the engine's `set depth`)"))?;
        }
        if let Some(timeout) = spec.duration("timeout")? {
            if timeout.is_zero() {
                return Err(bad("timeout", "expected a duration above zero"));
            }
            config.timeout = timeout;
        }
        match spec.get::<u32>("protocol")? {
            None => {}
            Some(v @ (1 | 2)) => config.protocol = v,
            Some(_) => return Err(bad("protocol", "expected 1 or 2")),
        }
        Ok(config)
    }
}

/// Error for a command line that cannot be split into words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandLineError {
    /// Nothing but white space.
    #[error("the command is empty")]
    Empty,
    /// A quote that is never closed.
    #[error("a {0} quote is never closed")]
    UnclosedQuote(char),
    /// A backslash at the very end.
    #[error("the command ends in a lone backslash")]
    TrailingBackslash,
}

/// Splits a command line into words as a POSIX shell would for plain words: white space
/// separates, `'...'` is literal, `"..."` allows `\"` and `\\`, and a backslash outside quotes
/// takes the next character literally. Nothing is expanded.
///
/// # Errors
/// A [`CommandLineError`] for an empty line, an unclosed quote or a trailing backslash.
pub fn split_command_line(text: &str) -> Result<Vec<String>, CommandLineError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(CommandLineError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(CommandLineError::UnclosedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(CommandLineError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or(CommandLineError::TrailingBackslash)?);
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(CommandLineError::Empty);
    }
    Ok(words)
}

/// A running engine and what it has been told.
struct Session {
    process: EngineProcess,
    /// The depth last sent with `set depth`.
    depth_sent: Option<u32>,
    /// Whether the engine's game is the driver's `history`.
    synced: bool,
    next_ping: i64,
}

/// An [`Agent`] for 8x8 Othello that asks an external NBoard engine for its moves.
///
/// The conversation, per move asked for:
///
/// 1. once per process: `nboard 2` (or `1`, see [`NboardEngineConfig::protocol`]);
/// 2. `set depth N` whenever the depth changes (the budget's depth, else the configured one);
/// 3. `set game <GGF>` when the engine does not know the game yet (a new game, a new process,
///    or a position that does not follow from the moves observed);
/// 4. `ping K`, then every line is skipped until `pong K` (stale `status`, `search` lines);
/// 5. `go`, then lines are read until `=== <move>`; nothing is sent while the engine searches
///    (some engines abort a search on any input).
///
/// Every move played in the game ([`Agent::observe`]) is sent as `move <mv>`. When the engine's
/// side must pass, the driver passes without asking (some engines hang on a position without
/// moves). Each wait has a deadline ([`NboardEngineConfig::timeout`]); an engine that dies, stays
/// silent, or answers an unreadable or illegal move makes [`select`](Agent::select) fail with
/// [`AgentError::Failed`] and the reason, and the process is stopped (the next `select` starts a
/// fresh one).
pub struct NboardEngineAgent {
    config: NboardEngineConfig,
    name: String,
    session: Option<Session>,
    /// The game as the driver knows it: a start and the moves observed since.
    history: GgfGame,
    engine_name: Option<String>,
}

impl NboardEngineAgent {
    /// An agent for this engine; the process starts at the first [`select`](Agent::select).
    #[must_use]
    pub fn new(config: NboardEngineConfig) -> Self {
        let name = format!("nboard-engine:cmd={}", config.command.join(" "));
        NboardEngineAgent {
            config,
            name,
            session: None,
            history: GgfGame::default(),
            engine_name: None,
        }
    }

    /// The agent for a spec `nboard-engine:cmd=...` (see [`NboardEngineConfig::from_spec`]),
    /// named by the spec.
    ///
    /// # Errors
    /// As [`NboardEngineConfig::from_spec`], and [`SpecError::BadValue`] for a `cmd` whose
    /// program cannot be found (a missing engine is refused here, not at every game's first
    /// move).
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let config = NboardEngineConfig::from_spec(spec)?;
        crate::process::check_spec_program(spec, &config.command)?;
        let mut agent = NboardEngineAgent::new(config);
        agent.name = spec.to_string();
        Ok(agent)
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &NboardEngineConfig {
        &self.config
    }

    /// The name the engine gave with `set myname`, once it has.
    #[must_use]
    pub fn engine_name(&self) -> Option<&str> {
        self.engine_name.as_deref()
    }

    /// Whether an engine process is running.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.session.is_some()
    }

    /// Forgets the game: the next `select` sends `set game` with `start` and no moves.
    fn restart_history(&mut self, start: Othello8) {
        self.history = GgfGame::new(start);
        if let Some(session) = &mut self.session {
            session.synced = false;
        }
    }

    fn start(&mut self) -> Result<Session, String> {
        let mut process = EngineProcess::spawn(&self.config.command)?;
        process.send(&Command::Nboard(self.config.protocol).to_string())?;
        Ok(Session {
            process,
            depth_sent: None,
            synced: false,
            next_ping: 1,
        })
    }

    /// One question to the engine: sync the game and depth, then `go`.
    fn ask(
        &mut self,
        pos: &Othello8,
        depth: u32,
        timeout: Duration,
    ) -> Result<Decision<Move>, String> {
        let mut session = match self.session.take() {
            Some(session) => session,
            None => self.start()?,
        };
        let result = self.ask_session(&mut session, pos, depth, timeout);
        if result.is_ok() {
            self.session = Some(session);
        }
        // On an error the session is dropped here, which stops the process.
        result
    }

    fn ask_session(
        &mut self,
        session: &mut Session,
        pos: &Othello8,
        depth: u32,
        timeout: Duration,
    ) -> Result<Decision<Move>, String> {
        let process = &mut session.process;
        if session.depth_sent != Some(depth) {
            process.send(&Command::SetDepth(depth).to_string())?;
            session.depth_sent = Some(depth);
        }
        if !session.synced {
            process.send(&Command::SetGame(Box::new(self.history.clone())).to_string())?;
            session.synced = true;
        }
        let ping = session.next_ping;
        session.next_ping += 1;
        process.send(&Command::Ping(ping).to_string())?;
        let mut engine_name = None;
        process.wait_for(Instant::now() + timeout, &format!("pong {ping}"), |line| {
            match Reply::parse(line) {
                Reply::Pong(n) if n == ping => Some(()),
                Reply::MyName(name) => {
                    engine_name = Some(name);
                    None
                }
                _ => None,
            }
        })?;
        if engine_name.is_some() {
            self.engine_name = engine_name;
        }
        process.send(&Command::Go.to_string())?;
        let start = Instant::now();
        let answer = process.wait_for(
            start + timeout,
            "move (=== ...)",
            |line| match Reply::parse(line) {
                Reply::Best(mv) => Some(Ok(mv)),
                Reply::BadBest(text) => Some(Err(text)),
                _ => None,
            },
        )?;
        let best: GgfMove = answer
            .map_err(|text| format!("the engine answered an unreadable move \"=== {text}\""))?;
        pos.check(best.mv).map_err(|reason| {
            format!(
                "the engine answered the illegal move {} in {}: {reason}",
                best.mv, pos
            )
        })?;
        let score = best.eval.map(|discs| {
            let centi = (discs * 100.0).round();
            // In range after the clamp, so the cast is exact.
            centi.clamp(f64::from(-(WIN - 1)), f64::from(WIN - 1)) as i32
        });
        Ok(Decision {
            mv: best.mv,
            score,
            pv: vec![best.mv],
            depth: None,
            nodes: 0,
            // The engine's eval in discs, ×100.
            scale: search::ScoreScale::Centi,
        })
    }
}

impl Agent<Othello8> for NboardEngineAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.restart_history(Othello8::new());
    }

    fn select(&mut self, pos: &Othello8, budget: &Budget) -> Result<Decision<Move>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        if self.history.last() != pos {
            self.restart_history(*pos);
        }
        if pos.must_pass() {
            return Ok(Decision::just(Move::Pass));
        }
        let depth = budget.depth.unwrap_or(self.config.depth).clamp(1, 60);
        let timeout = self
            .config
            .timeout
            .saturating_add(budget.time.unwrap_or_default());
        self.ask(pos, depth, timeout).map_err(AgentError::Failed)
    }

    fn observe(&mut self, mv: Move, pos: &Othello8) {
        if self.history.last().play(mv).as_ref() != Ok(pos) {
            self.restart_history(*pos);
            return;
        }
        if self.history.play(mv).is_err() {
            self.restart_history(*pos);
            return;
        }
        if let Some(session) = &mut self.session {
            if session.synced {
                let line = Command::Move(GgfMove::new(mv)).to_string();
                if session.process.send(&line).is_err() {
                    // The engine is gone; the next select starts a new one.
                    self.session = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let split = |s: &str| split_command_line(s).unwrap();
        assert_eq!(split("edax -q"), ["edax", "-q"]);
        assert_eq!(split("  a   b\tc "), ["a", "b", "c"]);
        assert_eq!(split("'my engine' --x=\"1 2\""), ["my engine", "--x=1 2"]);
        assert_eq!(split(r#""a\"b\\c\d""#), [r#"a"b\c\d"#]);
        assert_eq!(split(r"a\ b ''"), ["a b", ""]);
        assert_eq!(split("prog a,b"), ["prog", "a,b"]);
        assert_eq!(split_command_line("  "), Err(CommandLineError::Empty));
        assert_eq!(
            split_command_line("'x"),
            Err(CommandLineError::UnclosedQuote('\''))
        );
        assert_eq!(
            split_command_line("\"x\\"),
            Err(CommandLineError::UnclosedQuote('"'))
        );
        assert_eq!(
            split_command_line("x\\"),
            Err(CommandLineError::TrailingBackslash)
        );
    }

    #[test]
    fn configs_from_specs() {
        let spec: Spec = "nboard-engine:cmd=edax -q -l 10,x,depth=8,timeout=5s,protocol=1"
            .parse()
            .unwrap();
        let config = NboardEngineConfig::from_spec(&spec).unwrap();
        assert_eq!(config.command, ["edax", "-q", "-l", "10,x"]);
        assert_eq!(config.depth, 8);
        assert_eq!(config.timeout, Duration::from_secs(5));
        assert_eq!(config.protocol, 1);
        let plain: Spec = "nboard-engine:cmd=ntest".parse().unwrap();
        assert_eq!(
            NboardEngineConfig::from_spec(&plain).unwrap(),
            NboardEngineConfig::new(vec!["ntest".into()])
        );
        for bad in [
            "nboard-engine",
            "nboard-engine:cmd=",
            "nboard-engine:cmd='x",
            "nboard-engine:cmd=x,depth=0",
            "nboard-engine:cmd=x,depth=61",
            "nboard-engine:cmd=x,depth=99999999999",
            "nboard-engine:cmd=x,timeout=0s",
            "nboard-engine:cmd=x,timeout=soon",
            "nboard-engine:cmd=x,protocol=3",
        ] {
            let spec: Spec = bad.parse().unwrap();
            assert!(
                matches!(
                    NboardEngineConfig::from_spec(&spec),
                    Err(SpecError::BadValue { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn forced_passes_and_finished_games_need_no_engine() {
        // The engine does not exist: asking it anything would fail.
        let config = NboardEngineConfig::new(vec!["/nonexistent/stonelab-test-engine".into()]);
        let mut agent = NboardEngineAgent::new(config);
        let must_pass = Othello8::from_bitboards(0b10, 0b01, game::Color::Black).unwrap();
        assert!(must_pass.must_pass());
        assert_eq!(
            agent.select(&must_pass, &Budget::default()).unwrap().mv,
            Move::Pass
        );
        let over = must_pass.passed().play("c1".parse().unwrap()).unwrap();
        assert_eq!(
            agent.select(&over, &Budget::default()),
            Err(AgentError::GameOver)
        );
        assert!(!agent.is_running());
        let err = agent
            .select(&Othello8::new(), &Budget::default())
            .unwrap_err();
        assert!(err.to_string().contains("cannot start engine"), "{err}");
    }
}
