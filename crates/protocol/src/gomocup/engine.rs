//! The engine side: [`GomocupEngine`] answers a Gomocup manager (Piskvork, liskvork, or
//! stonelab's own driver) over any `BufRead`/`Write` pair, asking a [`GomocupBrain`] for moves.

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use game::{Color, IllegalReason};
use gomoku::{Board, Point, Rule, MAX_SIZE, MIN_SIZE};

use super::brain::{BrainFactory, GomocupBrain};
use super::{format_point, parse_numbers, quote, xy_to_point};
use crate::engine::Flow;
use crate::lines::{LineReader, MAX_LINE};

/// The time for one move when the manager sends no `INFO timeout_turn`. Piskvork's own default
/// is 30 s; 5 s keeps casual use snappy and is what Gomocup's fast rounds give.
pub const DEFAULT_TURN_TIME: Duration = Duration::from_millis(5000);
/// The most moves the rest of the match is assumed to last when sharing out the match time.
pub const MOVES_TO_GO: usize = 25;
/// The least time given to a brain when the turn allows at least that much.
pub const MIN_THINK: Duration = Duration::from_millis(5);
/// The least safety margin kept back from the turn time (for IO and the manager's clock).
const MIN_MARGIN: Duration = Duration::from_millis(30);

/// The time settings a manager sends with `INFO`, and the budget they leave for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GomocupTime {
    /// `timeout_turn`: the most one move may take; zero means "as fast as possible".
    pub turn: Duration,
    /// `timeout_match`: the time for the whole game; `None` (sent as 0) means no limit.
    pub match_time: Option<Duration>,
    /// `time_left`: what is left of the match time, as the manager last said.
    pub time_left: Option<Duration>,
}

impl Default for GomocupTime {
    /// [`DEFAULT_TURN_TIME`] per move, no match limit, nothing known of the time left.
    fn default() -> Self {
        GomocupTime {
            turn: DEFAULT_TURN_TIME,
            match_time: None,
            time_left: None,
        }
    }
}

impl GomocupTime {
    /// The time a brain may think for the next move, with `empties` empty points on the board
    /// and `spent` thinking time used since the manager last sent `time_left` (since the game
    /// started when it never has):
    ///
    /// - `left` = `time_left - spent`, or `timeout_match - spent` when only the match limit is
    ///   known, or unlimited;
    /// - `raw` = min(`timeout_turn`, `left / moves_to_go`), where `moves_to_go` = the engine's
    ///   share of the empty points (half, rounded up) capped at [`MOVES_TO_GO`] (and at least 1);
    /// - the budget is `raw` minus a safety margin of 10% of `raw`, at least 30 ms, but never
    ///   below [`MIN_THINK`] unless `raw` itself is (a zero turn time gives zero: play at once).
    #[must_use]
    pub fn budget(&self, empties: usize, spent: Duration) -> Duration {
        let moves_to_go = u32::try_from(empties.div_ceil(2).clamp(1, MOVES_TO_GO)).unwrap_or(1);
        let left = match (self.time_left, self.match_time) {
            (Some(left), _) | (None, Some(left)) => Some(left.saturating_sub(spent)),
            (None, None) => None,
        };
        let raw = match left {
            Some(left) => self.turn.min(left / moves_to_go),
            None => self.turn,
        };
        let margin = (raw / 10).max(MIN_MARGIN);
        // Never below a few milliseconds, but never more than half of a tiny turn either.
        raw.saturating_sub(margin).max(MIN_THINK.min(raw / 2))
    }
}

/// The game in progress: its brain, board and history.
struct Session {
    brain: Box<dyn GomocupBrain>,
    board: Board,
    /// Every stone in the order played (or given by `BOARD`), with its colour.
    moves: Vec<(Point, Color)>,
}

impl Session {
    fn history(&self) -> Vec<Point> {
        self.moves.iter().map(|&(p, _)| p).collect()
    }
}

/// The lines between `BOARD` and `DONE`.
#[derive(Default)]
struct BoardInput {
    /// `x,y,field` in the order given.
    stones: Vec<(usize, usize, usize)>,
    /// The first bad line, reported at `DONE`.
    error: Option<String>,
    lines: usize,
}

/// A Gomocup ("Piskvork brain") engine: the protocol state — board, move history, rule and
/// time settings — over a [`GomocupBrain`] made by a [`BrainFactory`].
///
/// Commands are case-insensitive; every line written is flushed at once.
///
/// | command | answer |
/// |---|---|
/// | `START n` | `OK` for `n` in 5..=25 when the factory makes a brain for `n` and the current rule, else `ERROR …` |
/// | `RECTSTART w,h` | as `START w` when `w == h`, else `ERROR rectangular boards are not supported` |
/// | `RESTART` | a new game on the same board (a new brain, for the current rule): `OK` |
/// | `BEGIN` | the engine plays first (black) on the empty board: `x,y` |
/// | `TURN x,y` | the opponent's move, then the engine's: `x,y` |
/// | `BOARD`, lines `x,y,who`, `DONE` | a whole position, then the engine's move `x,y` |
/// | `PLAY x,y` | the manager plays the engine's move for it: the move is echoed, `x,y` |
/// | `TAKEBACK x,y` | the last move, which must be `x,y`, is taken back: `OK` |
/// | `INFO key value` | no answer (a `MESSAGE` for a malformed value or a rule it cannot play) |
/// | `ABOUT` | `name="stonelab", version="…", author="stonelab", country="unknown"` |
/// | `END` | the session ends |
///
/// Anything else is answered `UNKNOWN …`; empty lines are ignored. Every problem — a malformed
/// or out-of-range point, an occupied point, a renju foul for black in `TURN`/`PLAY`, a move
/// asked for when the game is over (`ERROR game over …`), a `BOARD` whose position is already
/// won — is answered with one `ERROR` line and changes nothing. A `TURN` whose own move ends the
/// game is the opponent's move, legal and kept (a `TAKEBACK` can take it back); only the engine's
/// answer is refused, with `ERROR game over …`.
///
/// `BOARD`: `who` is 1 for the engine's stones, 2 for the opponent's, listed in the order they
/// were played. The engine is to move, so it is black when both counts are equal and white when
/// the opponent has one stone more; anything else is an error. The position is rebuilt by
/// replaying the stones when they alternate black, white, … and every move is legal, else by
/// placing them directly (the manager is the referee: renju fouls are accepted here). `who = 3`
/// belongs to continuous games (rule bit 2), which are not played: refused. Any bad line
/// inside `BOARD` is reported once at `DONE` with no move, and the board stays as it was.
/// `SWAP2BOARD` (an opening protocol this engine does not play) is answered with one
/// `UNKNOWN` line, and its lines up to `DONE` are passed over.
///
/// `INFO` keys: `timeout_turn`, `timeout_match`, `time_left` (milliseconds), `max_memory`
/// (bytes, 0 = no limit), `game_type`, `rule`, `folder` are kept; `evaluate` and unknown keys
/// are ignored. The manager reads no answer to `INFO`, so a bad value is reported in a
/// `MESSAGE` line and changes nothing. `max_memory` is kept for the caller ([`GomocupEngine::max_memory`]) but does
/// not size the brain: stonelab's brains have fixed tables (the whole `stonelab gomocup`
/// process stays at a few tens of MB). `rule` is a bit mask: 4 = renju, else 1 = exactly five
/// (standard), else freestyle. A rule the engine cannot play — 2 (continuous game), 8 (caro),
/// or one the factory makes no brain for on this board — is said in a `MESSAGE`, and from then
/// every command that starts a game or asks for a move (`START`, `RESTART`, `BEGIN`, `TURN`,
/// `BOARD`, `PLAY`) is answered `ERROR` with the reason, until an `INFO rule` it can play: it
/// never plays a game under another rule than the manager's. Such a `START` still ends the game
/// in progress; when only the factory refused the rule, a `START` tries it again on its board. A rule change applies at once
/// while the game has no stones (the factory is asked again), else from the next
/// `START`/`RESTART`.
///
/// Time: the brain gets [`GomocupTime::budget`] minus the time spent since the command arrived
/// (see there for the formula; [`DEFAULT_TURN_TIME`] per move until `INFO timeout_turn`).
/// `START` and `RESTART` begin a new game's clock: the last `time_left` is forgotten, the other
/// settings stay.
///
/// When the brain fails or answers a point that is not a legal move, the engine plays the legal
/// point nearest the centre instead and says so in a `MESSAGE`: it never prints an illegal
/// move. Search information from the brain goes out as `MESSAGE` lines.
///
/// ```
/// use gomoku::presets::Freestyle15;
/// use protocol::{AgentBrain, GomocupEngine};
/// use search::RandomAgent;
///
/// let factory = AgentBrain::<Freestyle15>::factory(|| Ok(Box::new(RandomAgent::new(7))));
/// let mut engine = GomocupEngine::new(factory);
/// let input = "START 15\r\nINFO timeout_turn 1000\r\nTURN 7,7\r\nTURN 99,99\r\nEND\r\n";
/// let mut output = Vec::new();
/// engine.run(input.as_bytes(), &mut output)?;
/// let output = String::from_utf8(output)?;
/// let lines: Vec<&str> = output.lines().collect();
/// assert_eq!(lines[0], "OK");
/// assert_eq!(lines[2], "ERROR 99,99 is off the 15x15 board");
/// assert_eq!(engine.history().len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GomocupEngine {
    factory: BrainFactory,
    /// The boards the factory's brains play, in words, for refusals of other sizes.
    sizes: Option<String>,
    name: String,
    version: String,
    /// The rule for new games (set by `INFO rule`).
    rule: Rule,
    game: Option<Session>,
    time: GomocupTime,
    /// Thinking time used since `time_left` was last set (or since the game started).
    spent: Duration,
    max_memory: Option<u64>,
    game_type: Option<u32>,
    folder: Option<String>,
    board_input: Option<BoardInput>,
    /// Why the rule the manager asked for cannot be played (see the type's docs), with that
    /// rule when only the factory refused it (another board may have a brain for it).
    rule_problem: Option<(String, Option<Rule>)>,
    /// Inside a `SWAP2BOARD` block, passed over up to its `DONE`.
    skipping: bool,
}

/// One line to the manager, flushed at once. Line breaks inside `line` become spaces, so no
/// text can forge a line.
fn send(out: &mut dyn Write, line: &str) -> io::Result<()> {
    let line: String = line
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `x,y` as a point of a `size x size` board, or the `ERROR` text.
fn parse_point(text: &str, size: usize) -> Result<Point, String> {
    let [x, y] = parse_numbers::<2>(text)
        .ok_or_else(|| format!("bad coordinates \"{}\": expected x,y", quote(text)))?;
    xy_to_point(x, y, size).ok_or_else(|| format!("{x},{y} is off the {size}x{size} board"))
}

/// The rule a Gomocup `rule` bit mask asks for, or why it cannot be played.
fn rule_from_bits(bits: u64) -> Result<Rule, String> {
    if bits & 2 != 0 {
        Err(format!(
            "rule {bits}: continuous games (bit 2) are not supported by this engine"
        ))
    } else if bits & 8 != 0 {
        Err(format!(
            "rule {bits}: caro (bit 8) is not supported by this engine"
        ))
    } else if bits & 4 != 0 {
        Ok(Rule::Renju)
    } else if bits & 1 != 0 {
        Ok(Rule::Standard)
    } else {
        Ok(Rule::Freestyle)
    }
}

/// A board of `size` under `rule` with `stones` (in order) and `to_move` to play: replayed
/// when the stones alternate from black and every move is legal, placed directly otherwise.
fn build_board(
    size: usize,
    rule: Rule,
    stones: &[(Point, Color)],
    to_move: Color,
) -> Result<Board, String> {
    let alternates = stones.iter().enumerate().all(|(i, &(_, c))| {
        c == if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }) && to_move
        == if stones.len().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
    if alternates {
        let mut board = Board::new(size, rule).map_err(|e| e.to_string())?;
        if stones.iter().all(|&(p, _)| board.play(p).is_ok()) {
            return Ok(board);
        }
    }
    Board::with_stones(size, rule, stones.iter().copied(), to_move).map_err(|e| e.to_string())
}

/// Why the game on `board` is over, for `ERROR game over …`.
fn game_over_text(board: &Board) -> String {
    match board.winner() {
        Some(Color::Black) => "game over: black has won".into(),
        Some(Color::White) => "game over: white has won".into(),
        None => "game over: a draw".into(),
    }
}

impl GomocupEngine {
    /// An engine named `stonelab`, freestyle until `INFO rule` says otherwise, that asks
    /// `factory` for a brain at every new game.
    #[must_use]
    pub fn new(factory: BrainFactory) -> Self {
        GomocupEngine {
            factory,
            sizes: None,
            name: "stonelab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            rule: Rule::Freestyle,
            game: None,
            time: GomocupTime::default(),
            spent: Duration::ZERO,
            max_memory: None,
            game_type: None,
            folder: None,
            board_input: None,
            rule_problem: None,
            skipping: false,
        }
    }

    /// Says which boards the brains play (e.g. `15x15, 19x19 and 20x20 boards`): a `START`
    /// with a size outside the protocol's range names these rather than the whole range.
    #[must_use]
    pub fn with_sizes(mut self, sizes: &str) -> Self {
        self.sizes = Some(sizes.to_string());
        self
    }

    /// Names the engine `stonelab-<agent>` in `ABOUT` (quotes become `'`).
    #[must_use]
    pub fn with_name(mut self, agent: &str) -> Self {
        let agent = agent.trim().replace('"', "'");
        if !agent.is_empty() {
            self.name = format!("stonelab-{agent}");
        }
        self
    }

    /// Sets the version given in `ABOUT` (the protocol crate's version by default).
    #[must_use]
    pub fn with_version(mut self, version: &str) -> Self {
        let version = version.trim().replace('"', "'");
        if !version.is_empty() {
            self.version = version;
        }
        self
    }

    /// Sets the rule of the games started before any `INFO rule` (freestyle by default): an
    /// engine that plays only renju should say so, since Piskvork sends `INFO rule` after
    /// `START`.
    #[must_use]
    pub fn with_rule(mut self, rule: Rule) -> Self {
        self.rule = rule;
        self
    }

    /// The board of the game in progress, once `START` has succeeded.
    #[must_use]
    pub fn board(&self) -> Option<&Board> {
        self.game.as_ref().map(|s| &s.board)
    }

    /// Every move of the game in progress, oldest first (the `BOARD` order for given stones).
    #[must_use]
    pub fn history(&self) -> Vec<Point> {
        self.game.as_ref().map(Session::history).unwrap_or_default()
    }

    /// The rule for new games (the current game's is [`Board::rule`]).
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The time settings received.
    #[must_use]
    pub fn time(&self) -> &GomocupTime {
        &self.time
    }

    /// The memory limit in bytes (`INFO max_memory`), `None` for no limit.
    #[must_use]
    pub fn max_memory(&self) -> Option<u64> {
        self.max_memory
    }

    /// `INFO game_type`: 0 the opponent is human, 1 a brain, 2 a tournament, 3 a network
    /// tournament.
    #[must_use]
    pub fn game_type(&self) -> Option<u32> {
        self.game_type
    }

    /// `INFO folder`: where the brain may keep files.
    #[must_use]
    pub fn folder(&self) -> Option<&str> {
        self.folder.as_deref()
    }

    /// Serves a whole session: reads lines from `input` until `END` or its end, answering on
    /// `output`. Lines longer than [`MAX_LINE`](crate::MAX_LINE) are refused.
    ///
    /// # Errors
    /// I/O errors of `input` or `output` (for example a manager that closed the pipe).
    pub fn run<R: BufRead, W: Write>(&mut self, input: R, mut output: W) -> io::Result<()> {
        let mut input = LineReader::new(input);
        while let Some((line, cut)) = input.read_line()? {
            if cut {
                let why = format!("line longer than {MAX_LINE} bytes ignored");
                match &mut self.board_input {
                    Some(board) => {
                        board.lines += 1;
                        board.error.get_or_insert(why);
                    }
                    None => send(&mut output, &format!("ERROR {why}"))?,
                }
                continue;
            }
            if self.handle(&line, &mut output)? == Flow::Quit {
                break;
            }
        }
        Ok(())
    }

    /// Handles one line of input, writing the answer (if any) to `out`.
    ///
    /// # Errors
    /// Only I/O errors of `out`; protocol problems are answered with `ERROR`/`UNKNOWN` lines.
    pub fn handle(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Flow> {
        let received = Instant::now();
        let text = line.trim();
        if self.board_input.is_some() {
            return self.board_line(text, out, received);
        }
        if self.skipping {
            match text.to_ascii_uppercase().as_str() {
                "DONE" => self.skipping = false,
                "END" => return Ok(Flow::Quit),
                _ => {}
            }
            return Ok(Flow::Continue);
        }
        if text.is_empty() {
            return Ok(Flow::Continue);
        }
        let (word, rest) = match text.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (text, ""),
        };
        let command = word.to_ascii_uppercase();
        // A rule the engine cannot play refuses every command that would play it.
        if let Some((why, wanted)) = self.rule_problem.clone() {
            let starts = matches!(command.as_str(), "START" | "RECTSTART" | "RESTART");
            if starts {
                // A new game ends the old one, refused or not.
                self.game = None;
            }
            match wanted {
                // The factory refused the rule on the old board: a new board may have a brain
                // for it, and START says so either way.
                Some(rule) if command == "START" || command == "RECTSTART" => {
                    self.rule = rule;
                    self.rule_problem = None;
                }
                _ if starts || matches!(command.as_str(), "BEGIN" | "TURN" | "BOARD" | "PLAY") => {
                    if command == "BOARD" {
                        // Its lines up to DONE belong to it.
                        self.skipping = true;
                    }
                    send(out, &format!("ERROR {why}"))?;
                    return Ok(Flow::Continue);
                }
                _ => {}
            }
        }
        let result = match command.as_str() {
            "START" => self.start(rest, out),
            "RECTSTART" => match parse_numbers::<2>(rest) {
                Some([w, h]) if w == h => self.start(&w.to_string(), out),
                Some(_) => Err("rectangular boards are not supported".into()),
                None => {
                    Err(format!("bad board size \"{}\": expected width,height", quote(rest)).into())
                }
            },
            "RESTART" => self.restart(out),
            "BEGIN" => self.begin(out, received),
            "TURN" => self.turn(rest, out, received),
            "PLAY" => self.play(rest, out),
            "BOARD" => {
                self.board_input = Some(BoardInput::default());
                Ok(())
            }
            "DONE" => Err("DONE without BOARD".into()),
            "TAKEBACK" => self.takeback(rest, out),
            "INFO" => match self.info(rest, out) {
                // No answer is read: a problem is said, not answered.
                Err(Problem::Refused(why)) => {
                    send(out, &format!("MESSAGE {why}")).map_err(Problem::Io)
                }
                other => other,
            },
            "SWAP2BOARD" => {
                self.skipping = true;
                send(out, "UNKNOWN SWAP2BOARD is not supported").map_err(Problem::Io)
            }
            "ABOUT" => send(
                out,
                &format!(
                    "name=\"{}\", version=\"{}\", author=\"stonelab\", country=\"unknown\"",
                    self.name, self.version
                ),
            )
            .map_err(Problem::Io),
            "END" => return Ok(Flow::Quit),
            _ => {
                send(out, &format!("UNKNOWN command \"{}\"", quote(word)))?;
                Ok(())
            }
        };
        match result {
            Ok(()) => Ok(Flow::Continue),
            Err(Problem::Io(e)) => Err(e),
            Err(Problem::Refused(why)) => {
                send(out, &format!("ERROR {why}"))?;
                Ok(Flow::Continue)
            }
        }
    }

    /// A fresh game of `size` under `rule`: a board and a started brain.
    fn new_session(&mut self, size: usize, rule: Rule) -> Result<Session, String> {
        let board = Board::new(size, rule).map_err(|e| e.to_string())?;
        let mut brain = (self.factory)(size, rule)?;
        brain.start(size, rule)?;
        Ok(Session {
            brain,
            board,
            moves: Vec::new(),
        })
    }

    fn session(&mut self) -> Result<&mut Session, Problem> {
        self.game
            .as_mut()
            .ok_or_else(|| Problem::from("no game: send START first"))
    }

    fn start(&mut self, size: &str, out: &mut dyn Write) -> Result<(), Problem> {
        // A START always ends the previous game, even one that is refused.
        self.game = None;
        self.spent = Duration::ZERO;
        self.time.time_left = None;
        let n = match parse_numbers::<1>(size) {
            Some([n]) => n,
            None => {
                return Err(format!("bad board size \"{}\": expected a number", quote(size)).into())
            }
        };
        if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
            return Err(match &self.sizes {
                Some(sizes) => format!("unsupported size {n}: this brain plays {sizes}"),
                None => format!(
                    "unsupported size {n}: boards must be from {MIN_SIZE}x{MIN_SIZE} to {MAX_SIZE}x{MAX_SIZE}"
                ),
            }
            .into());
        }
        let rule = self.rule;
        // Reasons that name the board already are said as they are.
        let session = self.new_session(n, rule).map_err(|why| {
            if why.contains(&format!("{n}x{n}")) {
                why
            } else {
                format!("cannot play {n}x{n} {rule}: {why}")
            }
        })?;
        self.game = Some(session);
        self.spent = Duration::ZERO;
        self.time.time_left = None;
        send(out, "OK").map_err(Problem::Io)
    }

    fn restart(&mut self, out: &mut dyn Write) -> Result<(), Problem> {
        let size = self.session()?.board.size();
        let rule = self.rule;
        self.game = None;
        let session = self
            .new_session(size, rule)
            .map_err(|why| format!("cannot restart {size}x{size} {rule}: {why}"))?;
        self.game = Some(session);
        self.spent = Duration::ZERO;
        self.time.time_left = None;
        send(out, "OK").map_err(Problem::Io)
    }

    fn begin(&mut self, out: &mut dyn Write, received: Instant) -> Result<(), Problem> {
        let session = self.session()?;
        if !session.moves.is_empty() {
            return Err("BEGIN needs an empty board (send RESTART or BOARD)".into());
        }
        self.answer_move(out, received)
    }

    /// The point of `text` if the side to move may play it, else the `ERROR` text.
    fn playable(session: &Session, text: &str) -> Result<Point, Problem> {
        let size = session.board.size();
        let p = parse_point(text, size)?;
        let at = format_point(p, size);
        match session.board.check(p) {
            Ok(()) => Ok(p),
            Err(IllegalReason::GameOver) => Err(game_over_text(&session.board).into()),
            Err(IllegalReason::Occupied) => Err(format!("{at} is occupied").into()),
            Err(IllegalReason::Forbidden) => {
                let foul = session
                    .board
                    .foul(p)
                    .map_or_else(|| "a foul".to_string(), |f| f.to_string());
                Err(format!("{at} is forbidden for black under renju ({foul})").into())
            }
            Err(reason) => Err(format!("{at}: {reason}").into()),
        }
    }

    /// Plays `p` (already checked) for the side to move.
    fn push(session: &mut Session, p: Point) -> Result<(), Problem> {
        let color = session.board.side_to_move();
        session
            .board
            .play(p)
            .map_err(|e| format!("{}: {}", format_point(p, session.board.size()), e.reason))?;
        session.moves.push((p, color));
        Ok(())
    }

    fn turn(&mut self, text: &str, out: &mut dyn Write, received: Instant) -> Result<(), Problem> {
        let session = self.session()?;
        let p = Self::playable(session, text)?;
        Self::push(session, p)?;
        self.answer_move(out, received)
    }

    fn play(&mut self, text: &str, out: &mut dyn Write) -> Result<(), Problem> {
        let session = self.session()?;
        let p = Self::playable(session, text)?;
        Self::push(session, p)?;
        send(out, &format_point(p, session.board.size())).map_err(Problem::Io)
    }

    fn takeback(&mut self, text: &str, out: &mut dyn Write) -> Result<(), Problem> {
        let session = self.session()?;
        let size = session.board.size();
        let p = parse_point(text, size)?;
        let Some(&(last, color)) = session.moves.last() else {
            return Err("nothing to take back: the board has no moves".into());
        };
        if last != p {
            return Err(format!(
                "{} is not the last move ({} is)",
                format_point(p, size),
                format_point(last, size)
            )
            .into());
        }
        let kept = &session.moves[..session.moves.len() - 1];
        session.board = build_board(size, session.board.rule(), kept, color)?;
        session.moves.pop();
        send(out, "OK").map_err(Problem::Io)
    }

    fn info(&mut self, text: &str, out: &mut dyn Write) -> Result<(), Problem> {
        let (key, value) = match text.split_once(char::is_whitespace) {
            Some((key, value)) => (key.to_ascii_lowercase(), value.trim()),
            None => (text.to_ascii_lowercase(), ""),
        };
        if key.is_empty() {
            return Err("INFO needs a key and a value".into());
        }
        let number = |what: &str| -> Result<u64, Problem> {
            value.parse::<u64>().map_err(|_| {
                format!("INFO {key}: expected {what}, got \"{}\"", quote(value)).into()
            })
        };
        let ms = |v: u64| Duration::from_millis(v);
        match key.as_str() {
            "timeout_turn" => self.time.turn = ms(number("milliseconds")?),
            "timeout_match" => {
                self.time.match_time = Some(number("milliseconds")?).filter(|&v| v > 0).map(ms);
            }
            "time_left" => {
                // Some managers send a negative time once the clock has run out.
                let left = match value.parse::<i64>() {
                    Ok(v) => u64::try_from(v).unwrap_or(0),
                    Err(_) => number("milliseconds")?,
                };
                self.time.time_left = Some(ms(left));
                self.spent = Duration::ZERO;
            }
            "max_memory" => self.max_memory = Some(number("bytes")?).filter(|&v| v > 0),
            "game_type" => {
                let kind = number("a game type (0 to 3)")?;
                self.game_type = Some(u32::try_from(kind).map_err(|_| {
                    Problem::from(format!("INFO game_type: {kind} is out of range"))
                })?);
            }
            "rule" => {
                let bits = number("a rule bit mask")?;
                // The protocol defines bits 1 (exactly five), 2 (continuous game), 4 (renju)
                // and 8 (caro); others are said to be ignored rather than silently dropped.
                let unknown = bits & !15;
                if unknown != 0 {
                    send(
                        out,
                        &format!("MESSAGE INFO rule: bits {unknown} are not defined by the protocol and are ignored"),
                    )
                    .map_err(Problem::Io)?;
                }
                let problem = match rule_from_bits(bits) {
                    Err(why) => Some((why, None)),
                    Ok(rule) => self.set_rule(rule, out).err().map(|why| (why, Some(rule))),
                };
                if let Some((why, _)) = &problem {
                    send(out, &format!("MESSAGE {why}")).map_err(Problem::Io)?;
                }
                self.rule_problem = problem;
            }
            "folder" => self.folder = Some(value.to_string()),
            // `evaluate x,y` (the mouse position in a GUI) and unknown keys need nothing.
            _ => {}
        }
        Ok(())
    }

    /// Makes `rule` the rule of new games, and of the game in progress while it has no stones;
    /// the reason when no brain plays it on this board.
    fn set_rule(&mut self, rule: Rule, out: &mut dyn Write) -> Result<(), String> {
        let Some(session) = &self.game else {
            self.rule = rule;
            return Ok(());
        };
        if session.board.rule() == rule {
            self.rule = rule;
            return Ok(());
        }
        if session.moves.is_empty() {
            let size = session.board.size();
            let fresh = self
                .new_session(size, rule)
                .map_err(|why| format!("cannot play {size}x{size} {rule}: {why}"))?;
            self.game = Some(fresh);
            self.rule = rule;
            return Ok(());
        }
        self.rule = rule;
        // A failed write shows again at the next answer.
        let _ = send(
            out,
            &format!("MESSAGE the rule {rule} applies from the next START or RESTART"),
        );
        Ok(())
    }

    /// A line between `BOARD` and `DONE`.
    fn board_line(
        &mut self,
        text: &str,
        out: &mut dyn Write,
        received: Instant,
    ) -> io::Result<Flow> {
        let size = self.game.as_ref().map(|g| g.board.size());
        let Some(input) = &mut self.board_input else {
            return Ok(Flow::Continue);
        };
        if text.is_empty() {
            return Ok(Flow::Continue);
        }
        match text.to_ascii_uppercase().as_str() {
            "DONE" => {
                let input = self.board_input.take().unwrap_or_default();
                return match self.board_done(input, out, received) {
                    Ok(()) => Ok(Flow::Continue),
                    Err(Problem::Io(e)) => Err(e),
                    Err(Problem::Refused(why)) => {
                        send(out, &format!("ERROR {why}"))?;
                        Ok(Flow::Continue)
                    }
                };
            }
            // The manager gave up on the position: end the session as asked.
            "END" => return Ok(Flow::Quit),
            _ => {}
        }
        input.lines += 1;
        if input.lines > MAX_SIZE * MAX_SIZE {
            // More lines than any board has points: kept no more (a manager that never sends
            // DONE cannot fill memory), reported at DONE.
            input.error.get_or_insert(format!(
                "BOARD has more than {} lines: no board has that many points",
                MAX_SIZE * MAX_SIZE
            ));
            return Ok(Flow::Continue);
        }
        match parse_numbers::<3>(text) {
            // Checked as it comes, so that the line reported at DONE is the first bad one.
            Some([x, y, _]) if size.is_some_and(|size| xy_to_point(x, y, size).is_none()) => {
                let size = size.unwrap_or_default();
                input.error.get_or_insert(format!(
                    "BOARD line {}: {x},{y} is off the {size}x{size} board",
                    input.lines
                ));
            }
            Some([x, y, 1..=2]) if input.stones.iter().any(|&(a, b, _)| (a, b) == (x, y)) => {
                input.error.get_or_insert(format!(
                    "BOARD line {}: {x},{y} is given twice",
                    input.lines
                ));
            }
            Some([x, y, who @ 1..=2]) => input.stones.push((x, y, who)),
            Some([_, _, 3]) => {
                input.error.get_or_insert(format!(
                    "BOARD line {}: \"{}\": field 3 marks a continuous game, which this engine \
                     does not play",
                    input.lines,
                    quote(text)
                ));
            }
            Some([_, _, who]) => {
                input.error.get_or_insert(format!(
                    "BOARD line {}: \"{}\": the field must be 1 (own) or 2 (opponent), not {who}",
                    input.lines,
                    quote(text)
                ));
            }
            None => {
                input.error.get_or_insert(format!(
                    "BOARD line {}: \"{}\": expected x,y,field",
                    input.lines,
                    quote(text)
                ));
            }
        }
        Ok(Flow::Continue)
    }

    fn board_done(
        &mut self,
        input: BoardInput,
        out: &mut dyn Write,
        received: Instant,
    ) -> Result<(), Problem> {
        let session = self.session()?;
        if let Some(why) = input.error {
            return Err(why.into());
        }
        let size = session.board.size();
        let mut points: Vec<(Point, usize)> = Vec::with_capacity(input.stones.len());
        for (x, y, who) in input.stones {
            let p = xy_to_point(x, y, size)
                .ok_or_else(|| format!("BOARD: {x},{y} is off the {size}x{size} board"))?;
            if points.iter().any(|&(q, _)| q == p) {
                return Err(format!("BOARD: {x},{y} is given twice").into());
            }
            points.push((p, who));
        }
        let own = points.iter().filter(|&&(_, who)| who == 1).count();
        let opponent = points.iter().filter(|&&(_, who)| who == 2).count();
        let engine = if own == opponent {
            Color::Black
        } else if opponent == own + 1 {
            Color::White
        } else {
            return Err(format!(
                "BOARD has {own} own and {opponent} opponent stones: it cannot be the engine's \
                 turn (expected equal counts, or one more opponent stone)"
            )
            .into());
        };
        let moves: Vec<(Point, Color)> = points
            .iter()
            .map(|&(p, who)| (p, if who == 1 { engine } else { engine.opponent() }))
            .collect();
        let board = build_board(size, session.board.rule(), &moves, engine)
            .map_err(|why| format!("BOARD: {why}"))?;
        // A finished position has no move to answer: refused like any other, changing nothing.
        if board.is_over() {
            return Err(game_over_text(&board).into());
        }
        session.board = board;
        session.moves = moves;
        self.answer_move(out, received)
    }

    /// Asks the brain for the side to move's move, plays it and writes it.
    fn answer_move(&mut self, out: &mut dyn Write, received: Instant) -> Result<(), Problem> {
        let time = self.time;
        let spent = self.spent;
        let session = self.session()?;
        let size = session.board.size();
        if session.board.is_over() {
            return Err(game_over_text(&session.board).into());
        }
        let legal: Vec<Point> = session.board.legal_moves();
        if legal.is_empty() {
            return Err("game over: no point is left to play".into());
        }
        let empties = size * size - session.board.stone_count();
        let budget = time
            .budget(empties, spent)
            .saturating_sub(received.elapsed());
        let history = session.history();
        let mut io_error = None;
        let started = Instant::now();
        let choice = session
            .brain
            .think(&session.board, &history, budget, &mut |text| {
                if io_error.is_none() {
                    if let Err(e) = send(out, &format!("MESSAGE {text}")) {
                        io_error = Some(e);
                    }
                }
            });
        let used = started.elapsed();
        if let Some(e) = io_error {
            return Err(Problem::Io(e));
        }
        let problem = match choice {
            Ok(p) if legal.contains(&p) => None,
            Ok(p) if p.on_board(size) => Some(format!(
                "the brain chose {}, which is not a legal move",
                format_point(p, size)
            )),
            Ok(p) => Some(format!("the brain chose {p}, which is off the board")),
            Err(ref why) => Some(format!("the brain failed: {why}")),
        };
        let mv = match (problem, choice) {
            (None, Ok(p)) => p,
            (problem, _) => {
                let fallback = nearest_centre(&legal, size);
                let why = problem.unwrap_or_default();
                send(
                    out,
                    &format!(
                        "MESSAGE {why}; playing {} instead",
                        format_point(fallback, size)
                    ),
                )
                .map_err(Problem::Io)?;
                fallback
            }
        };
        Self::push(session, mv)?;
        self.spent += used;
        send(out, &format_point(mv, size)).map_err(Problem::Io)
    }
}

/// The point of `legal` (not empty) nearest the centre of the board, the first such by index.
fn nearest_centre(legal: &[Point], size: usize) -> Point {
    let centre = size as i64 - 1; // twice the centre coordinate, to stay in whole numbers
    let distance = |p: &Point| {
        let dr = 2 * p.row() as i64 - centre;
        let dc = 2 * p.col() as i64 - centre;
        dr * dr + dc * dc
    };
    legal
        .iter()
        .copied()
        .min_by_key(distance)
        .unwrap_or(legal[0])
}

/// Why a command got no normal answer.
enum Problem {
    /// Answered with `ERROR <text>`.
    Refused(String),
    /// The output failed.
    Io(io::Error),
}

impl From<String> for Problem {
    fn from(why: String) -> Self {
        Problem::Refused(why)
    }
}

impl From<&str> for Problem {
    fn from(why: &str) -> Self {
        Problem::Refused(why.to_string())
    }
}

impl From<io::Error> for Problem {
    fn from(e: io::Error) -> Self {
        Problem::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn budgets_keep_a_margin_and_share_the_match_time() {
        let mut time = GomocupTime::default();
        // 5 s per move, nothing else known: 10% margin.
        assert_eq!(time.budget(225, Duration::ZERO), ms(4500));
        time.turn = ms(200);
        assert_eq!(time.budget(225, Duration::ZERO), ms(170));
        time.turn = ms(40);
        assert_eq!(time.budget(225, Duration::ZERO), ms(10));
        time.turn = ms(20);
        assert_eq!(time.budget(225, Duration::ZERO), MIN_THINK);
        // A tiny turn: half of it, so answering never takes the whole turn.
        time.turn = ms(3);
        assert_eq!(
            time.budget(225, Duration::ZERO),
            Duration::from_micros(1500)
        );
        time.turn = Duration::ZERO;
        assert_eq!(time.budget(225, Duration::ZERO), Duration::ZERO);
        // The match share: 50 s left over 25 moves is 2 s, less 10%.
        time.turn = ms(30_000);
        time.time_left = Some(ms(50_000));
        assert_eq!(time.budget(400, Duration::ZERO), ms(1800));
        // Time spent since time_left was sent counts.
        assert_eq!(time.budget(400, ms(25_000)), ms(900));
        // Few empty points: fewer moves to go.
        assert_eq!(time.budget(7, Duration::ZERO), ms(11_250));
        // Only the match limit known: it stands in for time_left.
        time.time_left = None;
        time.match_time = Some(ms(100_000));
        assert_eq!(time.budget(400, ms(50_000)), ms(1800));
        // Out of time: the least budget, never more than the raw share.
        assert_eq!(time.budget(400, ms(200_000)), Duration::ZERO);
    }

    #[test]
    fn rule_bits() {
        assert_eq!(rule_from_bits(0), Ok(Rule::Freestyle));
        assert_eq!(rule_from_bits(1), Ok(Rule::Standard));
        assert_eq!(rule_from_bits(4), Ok(Rule::Renju));
        assert_eq!(rule_from_bits(5), Ok(Rule::Renju));
        assert_eq!(rule_from_bits(16), Ok(Rule::Freestyle));
        for bits in [2, 3, 6, 8, 9, 12] {
            assert!(rule_from_bits(bits).is_err(), "rule {bits}");
        }
    }

    #[test]
    fn boards_replay_when_they_can() {
        let p = |r, c| Point::new(r, c).unwrap();
        let stones = [(p(7, 7), Color::Black), (p(7, 8), Color::White)];
        let replayed = build_board(15, Rule::Freestyle, &stones, Color::Black).unwrap();
        let mut expected = Board::new(15, Rule::Freestyle).unwrap();
        expected.play(p(7, 7)).unwrap();
        expected.play(p(7, 8)).unwrap();
        assert_eq!(replayed, expected);
        // Out of order: placed directly, same position.
        let swapped = [stones[1], stones[0]];
        let placed = build_board(15, Rule::Freestyle, &swapped, Color::Black).unwrap();
        assert_eq!(placed, expected);
        assert!(build_board(15, Rule::Freestyle, &[stones[0], stones[0]], Color::Black).is_err());
    }

    #[test]
    fn the_fallback_is_central() {
        let p = |r, c| Point::new(r, c).unwrap();
        let board = Board::new(15, Rule::Freestyle).unwrap();
        assert_eq!(nearest_centre(&board.legal_moves(), 15), p(7, 7));
        assert_eq!(nearest_centre(&[p(0, 0), p(5, 6), p(14, 14)], 15), p(5, 6));
    }
}
