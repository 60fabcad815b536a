//! The Gomocup engine side driven by scripted sessions: exact answers to every command, malformed
//! and out-of-range input, renju fouls, rule changes, the time given to the brain, brain failures,
//! whole games through `AgentBrain`, and arbitrary input that never breaks it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use game::{Color, Game};
use gomoku::presets::{Freestyle15, Freestyle7, Renju15};
use gomoku::{Board, Gomoku, Point, Rule};
use proptest::prelude::*;
use protocol::{
    point_to_xy, xy_to_point, AgentBrain, BrainFactory, Flow, GomocupBrain, GomocupEngine,
};
use search::{AlphaBeta, AlphaBetaConfig, RandomAgent, ZeroEvaluator};

/// What the scripted brain was asked.
#[derive(Default)]
struct Log {
    /// `(size, rule)` of every factory call.
    made: Vec<(usize, Rule)>,
    /// `(size, rule)` of every start.
    started: Vec<(usize, Rule)>,
    /// The time and history of every think.
    thinks: Vec<(Duration, Vec<Point>)>,
}

/// How the scripted brain answers.
#[derive(Clone, Copy)]
enum Style {
    /// The first legal point by index (`a1` first, which is `0,size-1` on the wire).
    FirstLegal,
    /// The first point by index, legal or not.
    FirstPoint,
    /// An error.
    Fail,
}

struct Scripted {
    log: Arc<Mutex<Log>>,
    style: Style,
}

impl GomocupBrain for Scripted {
    fn start(&mut self, size: usize, rule: Rule) -> Result<(), String> {
        self.log.lock().unwrap().started.push((size, rule));
        Ok(())
    }

    fn think(
        &mut self,
        board: &Board,
        history: &[Point],
        time: Duration,
        info: &mut dyn FnMut(&str),
    ) -> Result<Point, String> {
        self.log
            .lock()
            .unwrap()
            .thinks
            .push((time, history.to_vec()));
        match self.style {
            Style::FirstLegal => board
                .legal_moves()
                .first()
                .copied()
                .ok_or_else(|| "no move".to_string()),
            Style::FirstPoint => {
                info("line one\nforged line");
                Ok(Point::new(0, 0).unwrap())
            }
            Style::Fail => Err("out of ideas".into()),
        }
    }
}

/// A factory of scripted brains for `accepted` games (every game when empty).
fn factory(log: &Arc<Mutex<Log>>, style: Style, accepted: &[(usize, Rule)]) -> BrainFactory {
    let log = Arc::clone(log);
    let accepted = accepted.to_vec();
    Box::new(move |size, rule| {
        log.lock().unwrap().made.push((size, rule));
        if accepted.is_empty() || accepted.contains(&(size, rule)) {
            Ok(Box::new(Scripted {
                log: Arc::clone(&log),
                style,
            }) as Box<dyn GomocupBrain>)
        } else {
            Err(format!("no brain for {size}x{size} {rule}"))
        }
    })
}

fn run(engine: &mut GomocupEngine, lines: &[&str]) -> Vec<String> {
    let mut input = lines.join("\r\n");
    input.push_str("\r\n");
    let mut out = Vec::new();
    engine
        .run(input.as_bytes(), &mut out)
        .expect("in-memory IO");
    String::from_utf8(out)
        .expect("the engine writes UTF-8")
        .lines()
        .map(str::to_string)
        .collect()
}

fn pt(x: usize, y: usize, size: usize) -> Point {
    xy_to_point(x, y, size).unwrap()
}

#[test]
fn scripted_session() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[])).with_name("tester");
    let out = run(
        &mut engine,
        &[
            "ABOUT",
            "TURN 7,7",
            "start 15",
            "INFO timeout_turn 2000",
            "INFO timeout_match 0",
            "INFO max_memory 83886080",
            "INFO game_type 1",
            "INFO rule 0",
            "INFO folder C:\\brains\\data",
            "INFO evaluate 3,4",
            "INFO some_new_key 7",
            "",
            "   ",
            "BEGIN",
            "TURN 7,7",
            "BEGIN",
            "TURN 7,7",
            "TURN 99,99",
            "TURN 15,0",
            "TURN x,7",
            "TURN 7",
            "TURN",
            "TURN -1,3",
            "flip the board",
            "SWAP2BOARD",
            "DONE",
            "TAKEBACK 7,7",
            "TAKEBACK 1,14",
            "TAKEBACK 1,14",
            "TAKEBACK 7,7",
            "TAKEBACK",
            "TURN 1,13",
            "START 3",
            "START 26",
            "START abc",
            "RECTSTART 15,20",
            "RECTSTART 15",
            "INFO timeout_turn soon",
            "INFO max_memory -5",
            "INFO game_type x",
            "INFO",
            "RESTART",
            "PLAY 7,7",
            "PLAY 7,7",
            "TURN 8,8",
            "RECTSTART 10,10",
            "end",
            "ABOUT",
        ],
    );
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        out,
        [
            format!(
                "name=\"stonelab-tester\", version=\"{version}\", author=\"stonelab\", country=\"unknown\""
            ),
            "ERROR no game: send START first".into(),
            "OK".into(),
            // BEGIN: the brain's first legal point, a1.
            "0,14".into(),
            // TURN 7,7: then b1.
            "1,14".into(),
            "ERROR BEGIN needs an empty board (send RESTART or BOARD)".into(),
            "ERROR 7,7 is occupied".into(),
            "ERROR 99,99 is off the 15x15 board".into(),
            "ERROR 15,0 is off the 15x15 board".into(),
            "ERROR bad coordinates \"x,7\": expected x,y".into(),
            "ERROR bad coordinates \"7\": expected x,y".into(),
            "ERROR bad coordinates \"\": expected x,y".into(),
            "ERROR bad coordinates \"-1,3\": expected x,y".into(),
            "UNKNOWN command \"flip\"".into(),
            "UNKNOWN SWAP2BOARD is not supported".into(),
            "ERROR 7,7 is not the last move (1,14 is)".into(),
            "OK".into(),
            "ERROR 1,14 is not the last move (7,7 is)".into(),
            "OK".into(),
            "ERROR bad coordinates \"\": expected x,y".into(),
            // TURN 1,13 after the takeback: the brain plays b1 again.
            "1,14".into(),
            // A refused START still ends the game in progress.
            "ERROR unsupported size 3: boards must be from 5x5 to 25x25".into(),
            "ERROR unsupported size 26: boards must be from 5x5 to 25x25".into(),
            "ERROR bad board size \"abc\": expected a number".into(),
            "ERROR rectangular boards are not supported".into(),
            "ERROR bad board size \"15\": expected width,height".into(),
            "MESSAGE INFO timeout_turn: expected milliseconds, got \"soon\"".into(),
            "MESSAGE INFO max_memory: expected bytes, got \"-5\"".into(),
            "MESSAGE INFO game_type: expected a game type (0 to 3), got \"x\"".into(),
            "MESSAGE INFO needs a key and a value".into(),
            "ERROR no game: send START first".into(),
            "ERROR no game: send START first".into(),
            "ERROR no game: send START first".into(),
            "ERROR no game: send START first".into(),
            "OK".into(),
        ]
    );
    // The session ended at `end`: the last ABOUT was never read. The last START is in force.
    let board = engine.board().unwrap();
    assert_eq!(board.size(), 10);
    assert_eq!(board.stone_count(), 0);
    assert!(engine.history().is_empty());
    assert_eq!(engine.time().turn, Duration::from_millis(2000));
    assert_eq!(engine.time().match_time, None);
    assert_eq!(engine.max_memory(), Some(83_886_080));
    assert_eq!(engine.game_type(), Some(1));
    assert_eq!(engine.folder(), Some("C:\\brains\\data"));
    let log = log.lock().unwrap();
    // START 15, RECTSTART 10,10: one brain each, started once each (the RESTART came after
    // the refused STARTs had ended the game, so it made none).
    assert_eq!(log.made, [(15, Rule::Freestyle), (10, Rule::Freestyle)]);
    assert_eq!(log.started, log.made);
    // The brain saw the history of each position, oldest first.
    let histories: Vec<&Vec<Point>> = log.thinks.iter().map(|(_, h)| h).collect();
    let (a1, h8) = (pt(0, 14, 15), pt(7, 7, 15));
    assert_eq!(
        histories,
        [&vec![], &vec![a1, h8], &vec![a1, pt(1, 13, 15)],]
    );
}

#[test]
fn the_handler_reports_the_end() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    let mut out = Vec::new();
    assert_eq!(engine.handle("START 20", &mut out).unwrap(), Flow::Continue);
    assert_eq!(engine.handle(" End ", &mut out).unwrap(), Flow::Quit);
    assert_eq!(String::from_utf8(out).unwrap(), "OK\n");
}

#[test]
fn board_positions() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    let out = run(
        &mut engine,
        &[
            "START 15",
            // Black (the opponent) played 7,7, we 8,8, the opponent 7,8: we are white.
            "BOARD",
            "7,7,2",
            "8,8,1",
            "",
            " 7 , 8 , 2 ",
            "DONE",
        ],
    );
    assert_eq!(out, ["OK", "0,14"]);
    let board = engine.board().unwrap();
    assert_eq!(board.stone(pt(7, 7, 15)), Some(Color::Black));
    assert_eq!(board.stone(pt(8, 8, 15)), Some(Color::White));
    assert_eq!(board.stone(pt(0, 14, 15)), Some(Color::White));
    assert_eq!(board.side_to_move(), Color::Black);
    assert_eq!(
        engine.history(),
        [pt(7, 7, 15), pt(8, 8, 15), pt(7, 8, 15), pt(0, 14, 15)]
    );
    let before = engine.board().cloned();
    let before_history = engine.history();
    // Bad BOARDs: one error at DONE, no move, nothing changed.
    let out = run(
        &mut engine,
        &[
            "BOARD", "1,1,1", "zz", "5,5,9", "DONE", // malformed lines
            "BOARD", "1,1,1", "1,1,2", "DONE", // a point given twice
            "BOARD", "1,1,1", "DONE", // we cannot be to move
            "BOARD", "1,1,1", "2,2,1", "3,3,2", "DONE", // nor here
            "BOARD", "1,1,2", "15,1,1", "DONE", // off the board
            "BOARD", "START 9", "DONE", // commands are not stones
            "BOARD", "30,30,1", "x", "DONE", // the first bad line is the one reported
        ],
    );
    assert_eq!(
        out,
        [
            "ERROR BOARD line 2: \"zz\": expected x,y,field",
            "ERROR BOARD line 2: 1,1 is given twice",
            "ERROR BOARD has 1 own and 0 opponent stones: it cannot be the engine's turn (expected equal counts, or one more opponent stone)",
            "ERROR BOARD has 2 own and 1 opponent stones: it cannot be the engine's turn (expected equal counts, or one more opponent stone)",
            "ERROR BOARD line 2: 15,1 is off the 15x15 board",
            "ERROR BOARD line 1: \"START 9\": expected x,y,field",
            "ERROR BOARD line 1: 30,30 is off the 15x15 board",
        ]
    );
    assert_eq!(engine.board().cloned(), before);
    assert_eq!(engine.history(), before_history);
    // An empty BOARD: we are black and open the game.
    let out = run(&mut engine, &["BOARD", "DONE"]);
    assert_eq!(out, ["0,14"]);
    assert_eq!(engine.history(), [pt(0, 14, 15)]);
    // Stones out of playing order are placed directly; the counts still decide who we are.
    let out = run(
        &mut engine,
        &["BOARD", "3,3,1", "4,4,1", "5,5,2", "6,6,2", "DONE"],
    );
    assert_eq!(out, ["0,14"]);
    let board = engine.board().unwrap();
    assert_eq!(board.stone(pt(3, 3, 15)), Some(Color::Black));
    assert_eq!(board.stone(pt(5, 5, 15)), Some(Color::White));
    assert_eq!(board.stone(pt(0, 14, 15)), Some(Color::Black));
    // TAKEBACK works on placed stones too: the last one goes, black is to move again.
    let out = run(&mut engine, &["TAKEBACK 0,14", "TAKEBACK 6,6"]);
    assert_eq!(out, ["OK", "OK"]);
    let board = engine.board().unwrap();
    assert_eq!(board.stone_count(), 3);
    assert_eq!(board.side_to_move(), Color::White);
    // BOARD before START is refused at DONE.
    let mut fresh = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    assert_eq!(
        run(&mut fresh, &["BOARD", "1,1,1", "DONE"]),
        ["ERROR no game: send START first"]
    );
}

#[test]
fn continuous_games_and_swap2_are_refused_in_one_answer() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    let out = run(
        &mut engine,
        &[
            "START 15",
            // Field 3 belongs to continuous games: the whole BOARD is refused at DONE.
            "BOARD",
            "0,14,3",
            "7,7,2",
            "DONE",
            // An opening protocol it does not play: one answer, its lines passed over.
            "SWAP2BOARD",
            "7,7",
            "8,7",
            "9,9",
            "DONE",
            "BEGIN",
        ],
    );
    assert_eq!(
        out,
        [
            "OK",
            "ERROR BOARD line 1: \"0,14,3\": field 3 marks a continuous game, which this engine \
             does not play",
            "UNKNOWN SWAP2BOARD is not supported",
            "0,14",
        ]
    );
    assert_eq!(engine.board().unwrap().stone_count(), 1);
}

#[test]
fn brain_failures_are_covered_by_a_legal_move() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::Fail, &[]));
    let out = run(&mut engine, &["START 15", "BEGIN"]);
    assert_eq!(
        out,
        [
            "OK",
            "MESSAGE the brain failed: out of ideas; playing 7,7 instead",
            "7,7"
        ]
    );
    // A brain that answers an occupied point.
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstPoint, &[]));
    let out = run(&mut engine, &["START 5", "TURN 0,4"]);
    assert_eq!(
        out,
        [
            "OK",
            "MESSAGE line one forged line",
            "MESSAGE the brain chose 0,4, which is not a legal move; playing 2,2 instead",
            "2,2"
        ]
    );
}

#[test]
fn finished_games_ask_for_nothing() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    // We are white; black has four on the top row (y = 0) and completes five with TURN 4,0.
    let out = run(
        &mut engine,
        &[
            "START 9", "BOARD", "0,0,2", "0,8,1", "1,0,2", "1,8,1", "2,0,2", "2,8,1", "3,0,2",
            "DONE", "TURN 4,0", "TURN 5,5", "PLAY 5,5", "BEGIN",
        ],
    );
    assert_eq!(
        out,
        [
            "OK",
            // Our reply to the BOARD: the first legal point by index.
            "3,8",
            "ERROR game over: black has won",
            "ERROR game over: black has won",
            "ERROR game over: black has won",
            "ERROR BEGIN needs an empty board (send RESTART or BOARD)",
        ]
    );
    assert_eq!(engine.board().unwrap().winner(), Some(Color::Black));
    // The opponent's winning TURN was kept: it can be taken back.
    let out = run(&mut engine, &["TAKEBACK 4,0"]);
    assert_eq!(out, ["OK"]);
    assert_eq!(engine.board().unwrap().winner(), None);
    // A BOARD with a five already on it has no move to answer: refused, and the board stays
    // as it was (empty after the RESTART).
    let out = run(
        &mut engine,
        &[
            "RESTART", "BOARD", "0,0,1", "0,8,2", "1,0,1", "2,8,2", "2,0,1", "4,8,2", "3,0,1",
            "6,8,2", "4,0,1", "8,8,2", "DONE",
        ],
    );
    assert_eq!(out, ["OK", "ERROR game over: black has won"]);
    assert_eq!(engine.board().unwrap().stone_count(), 0);
}

/// A BOARD of more lines than any board has points keeps no more of them (bounded memory) and
/// is refused at DONE; control characters are quoted escaped, never raw.
#[test]
fn board_floods_and_control_characters_are_bounded() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    let mut lines = vec!["START 15", "BOARD"];
    lines.extend(std::iter::repeat_n("1,1,1", 100_000));
    lines.extend(["DONE", "FOO\u{1b}[31m\u{0}"]);
    let out = run(&mut engine, &lines);
    assert_eq!(out[0], "OK");
    // The first bad line is the second (the first point again); the flood is read and
    // dropped.
    assert_eq!(out[1], "ERROR BOARD line 2: 1,1 is given twice");
    assert_eq!(engine.board().unwrap().stone_count(), 0);
    assert!(out[2].starts_with("UNKNOWN command"), "{out:?}");
    assert!(!out[2].chars().any(char::is_control), "{:?}", out[2]);
    assert!(out[2].contains("\\u{1b}"), "{:?}", out[2]);
}

/// A line longer than the most one read takes (16 MiB) is answered once, not once per piece,
/// and the next line is answered as usual.
#[test]
fn a_line_past_the_read_limit_is_answered_once() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    let long = "x".repeat(20 << 20);
    let out = run(&mut engine, &["START 15", &long, "ABOUT"]);
    assert_eq!(out.len(), 3, "{:?}", &out[..out.len().min(4)]);
    assert_eq!(
        out[1],
        format!(
            "ERROR line longer than {} bytes ignored",
            protocol::MAX_LINE
        )
    );
    assert!(out[2].contains("name="), "{}", out[2]);
}

/// Black (the opponent) has 5,7 6,7 (a row) and 7,9 7,8 (a column) around 7,7: playing 7,7
/// makes two open threes, a foul under renju.
const DOUBLE_THREE_BOARD: [&str; 9] = [
    "BOARD", "5,7,2", "14,14,1", "6,7,2", "14,13,1", "7,9,2", "14,12,1", "7,8,2", "DONE",
];

#[test]
fn renju_fouls_are_refused_in_turns_but_accepted_in_boards() {
    let log = Arc::new(Mutex::new(Log::default()));
    let renju = [(15, Rule::Renju)];
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &renju));
    let mut script = vec!["START 15", "INFO rule 4", "START 15"];
    script.extend(DOUBLE_THREE_BOARD);
    script.extend(["TURN 7,7", "PLAY 7,7", "TURN 8,8"]);
    let out = run(&mut engine, &script);
    assert_eq!(
        out,
        [
            "ERROR no brain for 15x15 freestyle",
            "OK",
            "0,14",
            "ERROR 7,7 is forbidden for black under renju (double three)",
            "ERROR 7,7 is forbidden for black under renju (double three)",
            "1,14",
        ]
    );
    assert_eq!(engine.board().unwrap().rule(), Rule::Renju);
    assert_eq!(engine.board().unwrap().stone(pt(7, 7, 15)), None);
    // The manager is the referee: a BOARD whose last black stone is a foul is accepted.
    let out = run(
        &mut engine,
        &[
            "RESTART", "BOARD", "5,7,2", "14,14,1", "6,7,2", "14,13,1", "7,9,2", "14,12,1",
            "7,8,2", "14,11,1", "7,7,2", "DONE",
        ],
    );
    assert_eq!(out, ["OK", "0,14"]);
    assert_eq!(
        engine.board().unwrap().stone(pt(7, 7, 15)),
        Some(Color::Black)
    );
}

#[test]
fn rule_changes() {
    let log = Arc::new(Mutex::new(Log::default()));
    let accepted = [(15, Rule::Renju), (15, Rule::Standard)];
    let mut engine =
        GomocupEngine::new(factory(&log, Style::FirstLegal, &accepted)).with_rule(Rule::Renju);
    let out = run(
        &mut engine,
        &[
            "START 15",
            "INFO rule 5", // renju (with exactly five): no change
            "INFO rule 0", // freestyle: no brain for it
            "BEGIN",       // so no move is played under another rule
            "INFO rule 9", // caro: not supported
            "INFO rule 2", // continuous freestyle: not supported
            "BOARD",       // refused, with its lines
            "7,7,2",
            "DONE",
            "INFO rule 1", // exactly five: playable again
            "BEGIN",
            "INFO rule 4", // the game has stones: from the next game on
            "RESTART",
            "INFO rule x",
        ],
    );
    assert_eq!(
        out,
        [
            "OK",
            "MESSAGE cannot play 15x15 freestyle: no brain for 15x15 freestyle",
            "ERROR cannot play 15x15 freestyle: no brain for 15x15 freestyle",
            "MESSAGE rule 9: caro (bit 8) is not supported by this engine",
            "MESSAGE rule 2: continuous games (bit 2) are not supported by this engine",
            "ERROR rule 2: continuous games (bit 2) are not supported by this engine",
            "0,14",
            "MESSAGE the rule renju applies from the next START or RESTART",
            "OK",
            "MESSAGE INFO rule: expected a rule bit mask, got \"x\"",
        ]
    );
    assert_eq!(engine.rule(), Rule::Renju);
    assert_eq!(engine.board().unwrap().rule(), Rule::Renju);
    let log = log.lock().unwrap();
    assert_eq!(
        log.made,
        [
            (15, Rule::Renju),
            (15, Rule::Freestyle),
            (15, Rule::Standard),
            (15, Rule::Renju),
        ]
    );
    // Only the brains the factory made were started.
    assert_eq!(
        log.started,
        [(15, Rule::Renju), (15, Rule::Standard), (15, Rule::Renju)]
    );
}

#[test]
fn a_refused_rule_ends_the_game_at_start_and_is_tried_again_on_a_new_board() {
    let log = Arc::new(Mutex::new(Log::default()));
    let accepted = [(15, Rule::Renju), (19, Rule::Freestyle)];
    let mut engine =
        GomocupEngine::new(factory(&log, Style::FirstLegal, &accepted)).with_rule(Rule::Renju);
    let out = run(
        &mut engine,
        &[
            "START 15",
            "INFO rule 9", // caro: not supported
            "START 19",    // refused, and the 15x15 game is over
            "INFO rule 4",
            "BEGIN",
            "START 15",
            "INFO rule 0", // freestyle: no brain for it on 15x15
            "BEGIN",
            "START 19", // tried again on 19x19: there is one
            "BEGIN",
        ],
    );
    assert_eq!(
        out,
        [
            "OK",
            "MESSAGE rule 9: caro (bit 8) is not supported by this engine",
            "ERROR rule 9: caro (bit 8) is not supported by this engine",
            "ERROR no game: send START first",
            "OK",
            "MESSAGE cannot play 15x15 freestyle: no brain for 15x15 freestyle",
            "ERROR cannot play 15x15 freestyle: no brain for 15x15 freestyle",
            "OK",
            "0,18",
        ]
    );
    assert_eq!(engine.board().unwrap().rule(), Rule::Freestyle);
}

#[test]
fn the_brain_gets_no_more_than_the_turn_allows() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[]));
    let out = run(
        &mut engine,
        &[
            "START 15",
            "BEGIN", // the default: 5 s a move
            "INFO timeout_turn 200",
            "TURN 7,7",
            "INFO time_left 1000", // 1 s for the rest of the game: 40 ms a move
            "TURN 7,8",
            "INFO time_left -20", // out of time
            "TURN 7,9",
            "INFO timeout_turn 0", // as fast as possible
            "INFO time_left 100000",
            "TURN 7,10",
        ],
    );
    assert_eq!(out.len(), 6, "{out:?}");
    let log = log.lock().unwrap();
    let times: Vec<Duration> = log.thinks.iter().map(|(t, _)| *t).collect();
    assert!(
        times[0] <= Duration::from_millis(4500) && times[0] >= Duration::from_millis(4000),
        "{times:?}"
    );
    assert!(
        times[1] <= Duration::from_millis(170) && times[1] >= Duration::from_millis(100),
        "{times:?}"
    );
    assert!(times[2] <= Duration::from_millis(10), "{times:?}");
    assert_eq!(times[3], Duration::ZERO);
    assert_eq!(times[4], Duration::ZERO);
}

#[test]
fn agent_brains_play_whole_games() {
    // A seeded random agent on 15x15 freestyle, against moves from a local copy of the game.
    let play = || {
        let factory = AgentBrain::<Freestyle15>::factory(|| Ok(Box::new(RandomAgent::new(7))));
        let mut engine = GomocupEngine::new(factory);
        let mut out = Vec::new();
        let mut pos = Gomoku::<Freestyle15>::new();
        engine.handle("START 15", &mut out).unwrap();
        engine.handle("BEGIN", &mut out).unwrap();
        let mut replies = Vec::new();
        let mut opponent = RandomAgent::new(99);
        loop {
            let text = String::from_utf8(std::mem::take(&mut out)).unwrap();
            let reply = text.lines().last().unwrap().to_string();
            replies.push(reply.clone());
            if reply.starts_with("ERROR game over") {
                break;
            }
            let [x, y]: [usize; 2] = reply
                .split(',')
                .map(|n| n.parse().unwrap())
                .collect::<Vec<_>>()
                .try_into()
                .unwrap();
            pos = pos.play(xy_to_point(x, y, 15).unwrap()).unwrap();
            if pos.is_over() {
                break;
            }
            let mv = search::Agent::select(&mut opponent, &pos, &search::Budget::default())
                .unwrap()
                .mv;
            pos = pos.play(mv).unwrap();
            let (x, y) = point_to_xy(mv, 15);
            engine.handle(&format!("TURN {x},{y}"), &mut out).unwrap();
        }
        assert_eq!(engine.board().unwrap(), pos.board());
        replies
    };
    let first = play();
    assert!(first.len() > 5);
    assert_eq!(first, play(), "seeded agents play the same game");
    // The factory refuses other games.
    let factory = AgentBrain::<Freestyle15>::factory(|| Ok(Box::new(RandomAgent::new(7))));
    let mut engine = GomocupEngine::new(factory);
    assert_eq!(
        run(&mut engine, &["START 20"]),
        ["ERROR this engine plays only 15x15 freestyle (gomoku15), not 20x20 freestyle"]
    );
}

#[test]
fn agent_brains_report_their_search() {
    let factory = AgentBrain::<Freestyle7>::factory(|| {
        let config = AlphaBetaConfig {
            depth: Some(2),
            tt_bits: 10,
            ..AlphaBetaConfig::default()
        };
        Ok(Box::new(AlphaBeta::<Gomoku<Freestyle7>>::new(
            Arc::new(ZeroEvaluator),
            config,
        )))
    });
    let mut engine = GomocupEngine::new(factory);
    let out = run(&mut engine, &["START 7", "TURN 3,3", "TURN 0,0", "END"]);
    assert_eq!(out[0], "OK");
    assert!(out[1].starts_with("MESSAGE depth 2 score "), "{out:?}");
    assert!(out[1].contains(" nodes "), "{out:?}");
    assert!(out[3].starts_with("MESSAGE depth 2 score "), "{out:?}");
    let history = engine.history();
    assert_eq!(history.len(), 4);
    assert_eq!(history[0], xy_to_point(3, 3, 7).unwrap());
    // A renju-only factory refuses a freestyle start, and a brain refuses a wrong game too.
    let mut brain = AgentBrain::<Renju15>::new(Box::new(RandomAgent::new(1)));
    assert!(brain.start(15, Rule::Renju).is_ok());
    assert!(brain.start(15, Rule::Freestyle).is_err());
    let board = Board::new(15, Rule::Freestyle).unwrap();
    assert!(brain
        .think(&board, &[], Duration::from_millis(10), &mut |_| {})
        .is_err());
    assert_eq!(brain.agent_name(), "random");
}

/// Lines a manager might send, good and bad.
fn line() -> impl Strategy<Value = String> {
    let keyword = prop::sample::select(vec![
        "START",
        "RESTART",
        "BEGIN",
        "TURN",
        "BOARD",
        "DONE",
        "INFO",
        "END",
        "ABOUT",
        "TAKEBACK",
        "PLAY",
        "RECTSTART",
        "turn",
        "xyzzy",
        "",
    ]);
    let arg = prop_oneof![
        (0usize..30, 0usize..30).prop_map(|(x, y)| format!("{x},{y}")),
        (0usize..30, 0usize..30, 0usize..5).prop_map(|(x, y, w)| format!("{x},{y},{w}")),
        (0usize..30).prop_map(|n| n.to_string()),
        Just("rule 4".to_string()),
        Just("timeout_turn 1".to_string()),
        "[ -~]{0,12}",
    ];
    prop_oneof![
        (keyword, arg).prop_map(|(k, a)| format!("{k} {a}")),
        "[ -~]{0,20}",
        (0usize..30, 0usize..30, 1usize..4).prop_map(|(x, y, w)| format!("{x},{y},{w}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever comes in, the engine answers with protocol lines only, and every move it prints
    /// is legal on its board at that moment.
    #[test]
    fn arbitrary_input_never_breaks_the_engine(lines in prop::collection::vec(line(), 0..40)) {
        let factory: BrainFactory = Box::new(|_, _| {
            Ok(Box::new(LastLegal) as Box<dyn GomocupBrain>)
        });
        let mut engine = GomocupEngine::new(factory);
        let mut start = vec!["START 7".to_string(), "INFO timeout_turn 0".into()];
        start.extend(lines);
        for line in &start {
            let mut out = Vec::new();
            let flow = engine.handle(line, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            for reply in text.lines() {
                let ok = ["OK", "ERROR ", "UNKNOWN ", "MESSAGE ", "name="]
                    .iter()
                    .any(|p| reply.starts_with(p));
                if !ok {
                    // A move: legal on the board before it (after an opponent's TURN move).
                    let [x, y]: [usize; 2] = reply
                        .split(',')
                        .map(|n| n.parse().unwrap())
                        .collect::<Vec<_>>()
                        .try_into()
                        .unwrap();
                    let board = engine.board().unwrap();
                    let p = xy_to_point(x, y, board.size()).unwrap();
                    prop_assert!(board.stone(p).is_some(), "{reply} was played");
                }
            }
            if flow == Flow::Quit {
                break;
            }
        }
    }
}

/// A brain for any game: the last legal point.
struct LastLegal;

impl GomocupBrain for LastLegal {
    fn start(&mut self, _size: usize, _rule: Rule) -> Result<(), String> {
        Ok(())
    }

    fn think(
        &mut self,
        board: &Board,
        _history: &[Point],
        _time: Duration,
        _info: &mut dyn FnMut(&str),
    ) -> Result<Point, String> {
        board
            .legal_moves()
            .last()
            .copied()
            .ok_or_else(|| "no move".into())
    }
}

#[test]
fn a_refused_start_ends_the_previous_game() {
    let factory: protocol::BrainFactory = Box::new(|size, rule| {
        if size == 15 {
            protocol::AgentBrain::<gomoku::presets::Freestyle15>::factory(|| {
                Ok(Box::new(search::RandomAgent::new(1)) as Box<dyn search::Agent<_>>)
            })(size, rule)
        } else {
            Err(format!("no brain for {size}"))
        }
    });
    let mut engine = protocol::GomocupEngine::new(factory);
    let mut out = Vec::new();
    engine
        .run(
            "START 15\nTURN 7,7\nSTART 25\nTURN 8,8\nEND\n".as_bytes(),
            &mut out,
        )
        .expect("session");
    let text = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
    assert_eq!(lines[0], "OK");
    assert!(lines[2].starts_with("ERROR"), "{lines:?}");
    assert!(lines[3].starts_with("ERROR no game"), "{lines:?}");
    assert!(engine.board().is_none());
}

/// A brain that plays some boards only names those when a size is out of the protocol's
/// range, and rule bits the protocol does not define are said to be ignored.
#[test]
fn refusals_name_the_playable_boards_and_unknown_rule_bits() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut engine = GomocupEngine::new(factory(&log, Style::FirstLegal, &[(15, Rule::Standard)]))
        .with_sizes("15x15 boards");
    let out = run(&mut engine, &["START 0", "INFO rule 97", "START 15"]);
    assert_eq!(
        out,
        [
            "ERROR unsupported size 0: this brain plays 15x15 boards",
            "MESSAGE INFO rule: bits 96 are not defined by the protocol and are ignored",
            "OK",
        ]
    );
    assert_eq!(
        engine.board().unwrap().rule(),
        Rule::Standard,
        "bit 1: exactly five"
    );
}
