//! The driver side: [`GomocupEngineAgent`] plays through an external Gomocup brain run as a
//! subprocess, so arena, CLI and web can use it like any other [`Agent`].

use std::time::{Duration, Instant};

use game::{Color, Game};
use gomoku::{Gomoku, Point, Variant};
use search::{Agent, AgentError, Budget, Decision, Spec, SpecError};

use super::engine::DEFAULT_TURN_TIME;
use super::{format_point, parse_numbers, quote, rule_bits, xy_to_point};
use crate::driver::split_command_line;
use crate::process::EngineProcess;

/// How long past the turn time a move may come before it is forfeited.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(2000);
/// What `INFO time_left` says when the match has no time limit (as Piskvork does).
const UNLIMITED_MS: u64 = 2_147_483_647;

/// The keys of the `gomocup-engine` spec, with their meaning (for a [`search::Registry`]).
pub const GOMOCUP_SPEC_KEYS: [(&str, &str); 5] = [
    (
        "cmd",
        "the brain's program and arguments, e.g. cmd=pbrain-rapfi (required; quote with ' or \")",
    ),
    (
        "turn_ms",
        "the time per move in ms, sent as INFO timeout_turn (default 5000)",
    ),
    (
        "match_ms",
        "the time for a whole game in ms, sent as INFO timeout_match; 0 = no limit (default 0)",
    ),
    (
        "max_memory",
        "the memory limit in bytes, sent as INFO max_memory; 0 = no limit (default 0)",
    ),
    (
        "timeout",
        "how long past the turn time a move may come before it is forfeited, e.g. 2s (default 2000 ms)",
    ),
];

/// How to run and talk to an external Gomocup brain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GomocupEngineConfig {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The time per move (`INFO timeout_turn`) when the budget sets none.
    pub turn: Duration,
    /// The time for a whole game (`INFO timeout_match`); `None` for no limit.
    pub match_time: Option<Duration>,
    /// The memory limit in bytes (`INFO max_memory`); `None` for no limit.
    pub max_memory: Option<u64>,
    /// How long past the turn time an answer may come before it counts as none.
    pub grace: Duration,
}

impl GomocupEngineConfig {
    /// Defaults for `command`: [`DEFAULT_TURN_TIME`] per move, no match or memory limit,
    /// [`DEFAULT_GRACE`].
    #[must_use]
    pub fn new(command: Vec<String>) -> Self {
        GomocupEngineConfig {
            command,
            turn: DEFAULT_TURN_TIME,
            match_time: None,
            max_memory: None,
            grace: DEFAULT_GRACE,
        }
    }

    /// The configuration of a spec
    /// `gomocup-engine:cmd=...,turn_ms=...,match_ms=...,max_memory=...,timeout=...` (keys in
    /// [`GOMOCUP_SPEC_KEYS`]).
    ///
    /// # Errors
    /// [`SpecError::BadValue`] for a missing or unsplittable `cmd`, numbers that are not whole
    /// numbers, or a timeout that is not a duration.
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let bad = |key: &str, why: &str| SpecError::BadValue {
            agent: spec.name.clone(),
            key: key.into(),
            value: spec.text(key).unwrap_or_default().into(),
            why: why.into(),
        };
        let cmd = spec
            .text("cmd")
            .ok_or_else(|| bad("cmd", "required: the brain's program and arguments"))?;
        let command = split_command_line(cmd).map_err(|e| bad("cmd", &e.to_string()))?;
        let mut config = GomocupEngineConfig::new(command);
        if let Some(ms) = spec.get::<u64>("turn_ms")? {
            config.turn = Duration::from_millis(ms);
        }
        if let Some(ms) = spec.get::<u64>("match_ms")? {
            config.match_time = Some(Duration::from_millis(ms)).filter(|d| !d.is_zero());
        }
        if let Some(bytes) = spec.get::<u64>("max_memory")? {
            config.max_memory = Some(bytes).filter(|&b| b > 0);
        }
        if let Some(grace) = spec.duration("timeout")? {
            config.grace = grace;
        }
        Ok(config)
    }
}

/// The game as the driver knows it: a start position and the moves observed since.
struct Line<V: Variant> {
    base: Gomoku<V>,
    moves: Vec<Point>,
    last: Gomoku<V>,
}

impl<V: Variant> Line<V> {
    fn from(pos: &Gomoku<V>) -> Self {
        Line {
            base: pos.clone(),
            moves: Vec::new(),
            last: pos.clone(),
        }
    }
}

/// A running brain and what it has been told.
struct Session<V: Variant> {
    process: EngineProcess,
    /// The start and moves on the brain's board.
    base: Gomoku<V>,
    moves: Vec<Point>,
    /// Whether the brain has a game going (so a new position needs `RESTART` first).
    dirty: bool,
    /// The `timeout_turn` last sent.
    turn_sent: Duration,
}

/// What one line from the brain means while a move is awaited.
enum Answer {
    Move(usize, usize),
    Suggest(usize, usize),
    Refused(String),
    Malformed(String),
}

fn classify(line: &str) -> Option<Answer> {
    let text = line.trim();
    let (word, rest) = match text.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (text, ""),
    };
    match word.to_ascii_uppercase().as_str() {
        "" | "MESSAGE" | "DEBUG" | "OK" => None,
        "ERROR" | "UNKNOWN" => Some(Answer::Refused(quote_long(text))),
        "SUGGEST" => Some(match parse_numbers::<2>(rest) {
            Some([x, y]) => Answer::Suggest(x, y),
            None => Answer::Malformed(quote(text)),
        }),
        _ if text.starts_with(|c: char| c.is_ascii_digit()) => {
            Some(match parse_numbers::<2>(text) {
                Some([x, y]) => Answer::Move(x, y),
                None => Answer::Malformed(quote(text)),
            })
        }
        // Anything else (banners, chatter) is skipped.
        _ => None,
    }
}

/// An engine's own error text, cut to a sensible length.
fn quote_long(text: &str) -> String {
    text.chars().take(300).collect()
}

/// An [`Agent`] for Gomoku variant `V` that asks an external Gomocup brain (any
/// `pbrain-*` program) for its moves.
///
/// The conversation:
///
/// 1. when the process starts: `START <size>` (the brain must answer `OK`), then `INFO
///    timeout_turn`, `INFO timeout_match` (0 = none), `INFO max_memory` (0 = none), `INFO
///    rule` (0 freestyle, 1 exactly five, 4 renju) and `INFO game_type 1`;
/// 2. before every move: `INFO time_left` (what is left of the match time, after the brain's
///    own thinking time so far; 2147483647 when there is no limit, sent once), and `INFO
///    timeout_turn` again when a budget's time changes it;
/// 3. the move: `TURN x,y` with the opponent's last move when the brain's board is exactly one
///    move behind; else `RESTART` (when the brain has a game going; it must answer `OK`) and
///    then `BEGIN` on an empty board, or `BOARD`, every stone as `x,y,1` (the brain's) or
///    `x,y,2` in the order played (stones of a position the driver did not see arrive come
///    first, black and white alternating from black, in board order within each colour), and
///    `DONE`;
/// 4. lines are read until a move `x,y`; `MESSAGE`, `DEBUG`, `OK` and unknown lines are
///    skipped; `SUGGEST x,y` is answered with `PLAY x,y` and its echo taken as the move.
///
/// The move must come within the turn time plus [`GomocupEngineConfig::grace`]. A brain that
/// dies, stays silent, answers `ERROR`/`UNKNOWN`, or answers a malformed or illegal move makes
/// [`select`](Agent::select) fail with [`AgentError::Failed`] and the reason, and the process
/// is stopped (the next `select` starts a fresh one). Dropping the agent sends `END` and kills
/// the process if it has not exited shortly after.
pub struct GomocupEngineAgent<V: Variant> {
    config: GomocupEngineConfig,
    name: String,
    session: Option<Session<V>>,
    line: Line<V>,
    /// The brain's thinking time in this game, for `INFO time_left`.
    spent: Duration,
}

impl<V: Variant> GomocupEngineAgent<V> {
    /// An agent for this brain; the process starts at the first [`select`](Agent::select).
    #[must_use]
    pub fn new(config: GomocupEngineConfig) -> Self {
        let name = format!("gomocup-engine:cmd={}", config.command.join(" "));
        GomocupEngineAgent {
            config,
            name,
            session: None,
            line: Line::from(&Gomoku::new()),
            spent: Duration::ZERO,
        }
    }

    /// The agent for a spec `gomocup-engine:cmd=...` (see
    /// [`GomocupEngineConfig::from_spec`]), named by the spec.
    ///
    /// # Errors
    /// As [`GomocupEngineConfig::from_spec`], and [`SpecError::BadValue`] for a `cmd` whose
    /// program cannot be found (a missing engine is refused here, not at every game's first
    /// move).
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let config = GomocupEngineConfig::from_spec(spec)?;
        crate::process::check_spec_program(spec, &config.command)?;
        let mut agent = GomocupEngineAgent::new(config);
        agent.name = spec.to_string();
        Ok(agent)
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &GomocupEngineConfig {
        &self.config
    }

    /// Whether a brain process is running.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.session.is_some()
    }

    fn deadline_text(&self, turn: Duration) -> String {
        let total = turn.saturating_add(self.config.grace);
        format!(
            "no move within {} ms (turn {} ms + grace {} ms)",
            total.as_millis(),
            turn.as_millis(),
            self.config.grace.as_millis()
        )
    }

    /// Waits for `OK` (after `START` or `RESTART`).
    fn wait_ok(process: &mut EngineProcess, deadline: Instant, what: &str) -> Result<(), String> {
        let answer = process.wait_for(deadline, &format!("OK to {what}"), |line| {
            let text = line.trim();
            let word = text.split_whitespace().next().unwrap_or("");
            match word.to_ascii_uppercase().as_str() {
                "OK" => Some(Ok(())),
                "ERROR" | "UNKNOWN" => Some(Err(quote_long(text))),
                _ => None,
            }
        })?;
        answer.map_err(|text| format!("the brain refused {what}: {text}"))
    }

    fn start(&mut self, turn: Duration) -> Result<Session<V>, String> {
        let mut process = EngineProcess::spawn(&self.config.command)?;
        process.set_quit_command("END");
        let start = format!("START {}", V::SIZE);
        process.send(&start)?;
        let deadline = Instant::now() + turn.saturating_add(self.config.grace);
        Self::wait_ok(&mut process, deadline, &start)?;
        let ms = |d: Option<Duration>| d.map_or(0, |d| d.as_millis());
        for line in [
            format!("INFO timeout_turn {}", turn.as_millis()),
            format!("INFO timeout_match {}", ms(self.config.match_time)),
            format!("INFO max_memory {}", self.config.max_memory.unwrap_or(0)),
            format!("INFO rule {}", rule_bits(V::RULE)),
            "INFO game_type 1".to_string(),
        ] {
            process.send(&line)?;
        }
        if self.config.match_time.is_none() {
            process.send(&format!("INFO time_left {UNLIMITED_MS}"))?;
        }
        Ok(Session {
            process,
            base: Gomoku::new(),
            moves: Vec::new(),
            dirty: false,
            turn_sent: turn,
        })
    }

    /// One question to the brain.
    fn ask(&mut self, pos: &Gomoku<V>, turn: Duration) -> Result<Point, String> {
        let mut session = match self.session.take() {
            Some(session) => session,
            None => self.start(turn)?,
        };
        let result = self.ask_session(&mut session, pos, turn);
        if result.is_ok() {
            self.session = Some(session);
        }
        // On an error the session is dropped here, which stops the process.
        result
    }

    fn ask_session(
        &mut self,
        session: &mut Session<V>,
        pos: &Gomoku<V>,
        turn: Duration,
    ) -> Result<Point, String> {
        let size = V::SIZE;
        let deadline_text = self.deadline_text(turn);
        let line = &self.line;
        let process = &mut session.process;
        if session.turn_sent != turn {
            process.send(&format!("INFO timeout_turn {}", turn.as_millis()))?;
            session.turn_sent = turn;
        }
        if let Some(limit) = self.config.match_time {
            let left = limit.saturating_sub(self.spent);
            process.send(&format!("INFO time_left {}", left.as_millis()))?;
        }
        let one_behind = session.base == line.base
            && session.moves.len() + 1 == line.moves.len()
            && line.moves.starts_with(&session.moves);
        match line.moves.last() {
            Some(&last) if one_behind => {
                process.send(&format!("TURN {}", format_point(last, size)))?;
            }
            _ => {
                if session.dirty {
                    process.send("RESTART")?;
                    let deadline = Instant::now() + turn.saturating_add(self.config.grace);
                    Self::wait_ok(process, deadline, "RESTART")?;
                }
                let board = pos.board();
                if board.stone_count() == 0 {
                    process.send("BEGIN")?;
                } else {
                    let me = board.side_to_move();
                    // The start position's stones have no known order: black and white
                    // alternate, from black, so the list reads as a game (renju brains
                    // replay it by the rules).
                    let base = line.base.board();
                    let of = |c: Color| base.points().filter(move |&p| base.stone(p) == Some(c));
                    let (mut black, mut white) = (of(Color::Black), of(Color::White));
                    let mut stones: Vec<Point> = Vec::new();
                    loop {
                        let b = black.next();
                        let w = white.next();
                        if b.is_none() && w.is_none() {
                            break;
                        }
                        stones.extend(b);
                        stones.extend(w);
                    }
                    stones.extend(line.moves.iter().copied());
                    process.send("BOARD")?;
                    for p in stones {
                        let who = if board.stone(p) == Some(me) { 1 } else { 2 };
                        process.send(&format!("{},{who}", format_point(p, size)))?;
                    }
                    process.send("DONE")?;
                }
            }
        }
        session.dirty = true;
        session.base = line.base.clone();
        session.moves = line.moves.clone();
        let asked = Instant::now();
        let deadline = asked + turn.saturating_add(self.config.grace);
        let result = loop {
            let answer = process.wait_for(deadline, "move", classify);
            match answer {
                Err(_) if process.timed_out() => break Err(deadline_text),
                Err(why) => break Err(why),
                Ok(Answer::Suggest(x, y)) => process.send(&format!("PLAY {x},{y}"))?,
                Ok(Answer::Move(x, y)) => break Ok((x, y)),
                Ok(Answer::Refused(text)) => break Err(format!("the brain answered \"{text}\"")),
                Ok(Answer::Malformed(text)) => {
                    break Err(format!("the brain answered a malformed move \"{text}\""))
                }
            }
        };
        self.spent += asked.elapsed();
        let (x, y) = result?;
        let mv = xy_to_point(x, y, size).ok_or_else(|| {
            format!("the brain answered {x},{y}, which is off the {size}x{size} board")
        })?;
        pos.check(mv).map_err(|reason| {
            format!("the brain answered the illegal move {x},{y} ({mv}): {reason}")
        })?;
        session.moves.push(mv);
        Ok(mv)
    }
}

impl<V: Variant> Agent<Gomoku<V>> for GomocupEngineAgent<V> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.line = Line::from(&Gomoku::new());
        self.spent = Duration::ZERO;
    }

    fn select(&mut self, pos: &Gomoku<V>, budget: &Budget) -> Result<Decision<Point>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        if self.line.last != *pos {
            self.line = Line::from(pos);
        }
        let turn = budget.time.unwrap_or(self.config.turn);
        let mv = self.ask(pos, turn).map_err(AgentError::Failed)?;
        Ok(Decision {
            mv,
            score: None,
            pv: vec![mv],
            depth: None,
            nodes: 0,
            scale: search::ScoreScale::default(),
        })
    }

    fn observe(&mut self, mv: Point, pos: &Gomoku<V>) {
        match self.line.last.play(mv) {
            Ok(next) if next == *pos => {
                self.line.moves.push(mv);
                self.line.last = next;
            }
            _ => self.line = Line::from(pos),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_from_specs() {
        let spec: Spec =
            "gomocup-engine:cmd=pbrain-x -v 1,2,turn_ms=300,match_ms=60000,max_memory=1000,timeout=1s"
                .parse()
                .unwrap();
        let config = GomocupEngineConfig::from_spec(&spec).unwrap();
        assert_eq!(config.command, ["pbrain-x", "-v", "1,2"]);
        assert_eq!(config.turn, Duration::from_millis(300));
        assert_eq!(config.match_time, Some(Duration::from_secs(60)));
        assert_eq!(config.max_memory, Some(1000));
        assert_eq!(config.grace, Duration::from_secs(1));
        let plain: Spec = "gomocup-engine:cmd=brain,match_ms=0,max_memory=0"
            .parse()
            .unwrap();
        assert_eq!(
            GomocupEngineConfig::from_spec(&plain).unwrap(),
            GomocupEngineConfig::new(vec!["brain".into()])
        );
        for bad in [
            "gomocup-engine",
            "gomocup-engine:cmd=",
            "gomocup-engine:cmd='x",
            "gomocup-engine:cmd=x,turn_ms=-1",
            "gomocup-engine:cmd=x,turn_ms=fast",
            "gomocup-engine:cmd=x,match_ms=1.5",
            "gomocup-engine:cmd=x,max_memory=lots",
            "gomocup-engine:cmd=x,timeout=soon",
        ] {
            let spec: Spec = bad.parse().unwrap();
            assert!(
                matches!(
                    GomocupEngineConfig::from_spec(&spec),
                    Err(SpecError::BadValue { .. })
                ),
                "{bad}"
            );
        }
        // Every key from_spec reads is listed, and nothing else.
        assert!(spec.check_keys(&GOMOCUP_SPEC_KEYS).is_ok());
        assert_eq!(spec.params.len(), GOMOCUP_SPEC_KEYS.len());
    }

    #[test]
    fn lines_from_the_brain() {
        assert!(classify("MESSAGE depth 3").is_none());
        assert!(classify("debug x").is_none());
        assert!(classify("OK").is_none());
        assert!(classify("").is_none());
        assert!(classify("hello world").is_none());
        assert!(matches!(classify(" 7,8 "), Some(Answer::Move(7, 8))));
        assert!(matches!(
            classify("SUGGEST 1,2"),
            Some(Answer::Suggest(1, 2))
        ));
        assert!(matches!(classify("7,x"), Some(Answer::Malformed(_))));
        assert!(matches!(classify("7,8,9"), Some(Answer::Malformed(_))));
        assert!(matches!(classify("SUGGEST"), Some(Answer::Malformed(_))));
        assert!(matches!(classify("ERROR bad"), Some(Answer::Refused(t)) if t == "ERROR bad"));
        assert!(matches!(classify("UNKNOWN x"), Some(Answer::Refused(_))));
    }

    #[test]
    fn finished_games_need_no_brain() {
        use gomoku::presets::Freestyle7;
        let config = GomocupEngineConfig::new(vec!["/nonexistent/stonelab-brain".into()]);
        let mut agent = GomocupEngineAgent::<Freestyle7>::new(config);
        let mut pos = Gomoku::<Freestyle7>::new();
        for (r, c) in [
            (0, 0),
            (1, 0),
            (0, 1),
            (1, 1),
            (0, 2),
            (1, 2),
            (0, 3),
            (1, 3),
            (0, 4),
        ] {
            pos = pos.play(Point::new(r, c).unwrap()).unwrap();
        }
        assert_eq!(
            agent.select(&pos, &Budget::default()),
            Err(AgentError::GameOver)
        );
        assert!(!agent.is_running());
        let err = agent
            .select(&Gomoku::new(), &Budget::default())
            .unwrap_err();
        assert!(err.to_string().contains("cannot start engine"), "{err}");
    }
}
