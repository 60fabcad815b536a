//! The engine side driven by recorded sessions: exact answers to a script with malformed lines,
//! a whole game played through `go`/`move`, and arbitrary input that never breaks it.

use game::Game;
use othello::{GgfGame, Move, Othello8};
use proptest::prelude::*;
use protocol::{Flow, NboardEngine};
use search::{
    Agent, AgentError, AlphaBeta, AlphaBetaConfig, Budget, Decision, Evaluator, FnEvaluator,
    ScoreScale,
};
use std::sync::Arc;

/// A predictable agent: the first legal move, scored 1 disc per legal move, depth from the
/// budget; it records the budgets it was given.
struct Scripted {
    budgets: Arc<std::sync::Mutex<Vec<Budget>>>,
}

impl Agent<Othello8> for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn select(&mut self, pos: &Othello8, budget: &Budget) -> Result<Decision<Move>, AgentError> {
        if let Ok(mut b) = self.budgets.lock() {
            b.push(*budget);
        }
        let moves = pos.legal_moves();
        let mv = *moves.first().ok_or(AgentError::GameOver)?;
        Ok(Decision {
            mv,
            score: Some(100 * moves.len() as i32),
            pv: vec![mv],
            depth: budget.depth,
            nodes: 7,
            scale: search::ScoreScale::Centi,
        })
    }
}

fn run(engine: &mut NboardEngine, input: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    engine.run(input, &mut out).expect("in-memory IO");
    String::from_utf8(out)
        .expect("the engine writes UTF-8")
        .lines()
        .map(str::to_string)
        .collect()
}

const START_BO: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

#[test]
fn scripted_session_with_malformed_lines() {
    let budgets = Arc::new(std::sync::Mutex::new(Vec::new()));
    let agent = Scripted {
        budgets: Arc::clone(&budgets),
    };
    let mut engine = NboardEngine::new(Box::new(agent)).with_name("tester");
    let game = format!("(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]TY[8]{START_BO}B[F5];)");
    let mut input = Vec::new();
    for line in [
        "nboard 2".to_string(),
        String::new(),
        "   ".into(),
        "set depth 4   ".into(),
        "set contempt 10".into(),
        format!("set game {game}"),
        "PING 1".into(),
        "move D6/-0.50/2.1".into(),
        "move a1".into(),
        "move z9".into(),
        "flip the board".into(),
        "set depth x".into(),
        "set game (;GM[Go];)".into(),
        "set game (;GM[Othello]B[f5]".into(),
        "set hash 64".into(),
        "nboard 3".into(),
        "ping".into(),
        "go".into(),
        "hint 3".into(),
        "analyze".into(),
        "learn".into(),
        "ping 2".into(),
        "quit".into(),
        "ping 3".into(),
    ] {
        input.extend_from_slice(line.as_bytes());
        input.extend_from_slice(b"\r\n");
    }
    // A line of bytes that are not UTF-8 comes before the end.
    let at = input.len() - "quit\r\nping 3\r\n".len();
    input.splice(at..at, b"\xff\xfe\n".iter().copied());
    let out = run(&mut engine, &input);

    // The position after f5 d6, and what the scripted agent says about it.
    let pos = *engine.game().last();
    assert_eq!(engine.game().moves().len(), 2);
    assert_eq!(engine.depth(), Some(4));
    assert_eq!(engine.contempt(), 10.0);
    assert_eq!(engine.version(), Some(2));
    let moves = pos.legal_moves();
    let best = moves[0];
    let eval = moves.len() as f64;

    let mut expected: Vec<String> = [
        "set myname tester",
        "pong 1",
        "status error: illegal move a1: it would flip no disc",
        "status error: move: \"z9\": \"z9\" is not a square: expected a file a-h and a rank 1-8, like d3",
        "status error: unknown command \"flip\"",
        "status error: set depth: \"x\" is not a depth from 1 to 60",
        "status error: set game: GM[Go] is not Othello",
        "status error: set game: the GGF game is not closed with \";)\"",
        "status error: unknown option \"hash\" ignored",
        "status error: NBoard protocol version 3 is not supported (1 and 2 are)",
        "status error: ping needs an argument",
        "status thinking",
        "nodestats 7 TIME",
        &format!("=== {best}/{eval:.2}/TIME"),
        "status",
        "status thinking",
        &format!("search {best} {eval:.2} 0 4"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // The other moves, each searched one ply less deep: the fewer replies, the better.
    let mut others: Vec<(f64, Move)> = moves[1..]
        .iter()
        .map(|&m| (-(pos.play(m).unwrap().legal_moves().len() as f64), m))
        .collect();
    others.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (eval, m) in others.iter().take(2) {
        let reply = pos.play(*m).unwrap().legal_moves()[0];
        expected.push(format!("search {m}-{reply} {eval:.2} 0 4"));
    }
    expected.push("status".into());
    expected.push("status thinking".into());
    for (plies, p) in engine.game().positions().iter().enumerate().rev() {
        expected.push(format!(
            "analysis {plies} {:.2}",
            p.legal_moves().len() as f64
        ));
    }
    expected.push("status".into());
    expected.push("learned".into());
    expected.push("pong 2".into());
    expected.push("status error: unknown command \"\u{fffd}\u{fffd}\"".into());

    let normalised: Vec<String> = out
        .iter()
        .map(|line| {
            if let Some(rest) = line.strip_prefix("nodestats 7 ") {
                assert!(rest.parse::<f64>().is_ok(), "{line}");
                "nodestats 7 TIME".to_string()
            } else if line.starts_with("=== ") {
                let (head, time) = line.rsplit_once('/').expect("=== move/eval/time");
                assert!(time.parse::<f64>().is_ok(), "{line}");
                format!("{head}/TIME")
            } else {
                line.clone()
            }
        })
        .collect();
    assert_eq!(normalised, expected);
    // `set depth 4` reached the agent: depth 4 at the root, 3 for the other hint moves.
    let budgets = budgets.lock().unwrap();
    assert_eq!(budgets[0].depth, Some(4));
    assert!(budgets.iter().any(|b| b.depth == Some(3)));
}

#[test]
fn moves_may_skip_a_forced_pass_and_go_passes_at_once() {
    let agent = Scripted {
        budgets: Arc::default(),
    };
    let mut engine = NboardEngine::new(Box::new(agent));
    // Black (to move) must pass; white then takes c1 and the game is over. White holds a1 and
    // the four centre squares, black b1 alone.
    let mut squares = vec!['-'; 64];
    squares[0] = 'O';
    squares[1] = '*';
    for centre in [27, 28, 35, 36] {
        squares[centre] = 'O';
    }
    let bo = format!("BO[8 {} *]", squares.into_iter().collect::<String>());
    let script = format!("set game (;GM[Othello]{bo};)\ngo\nmove c1\ngo\nhint 2\n");
    let out = run(&mut engine, script.as_bytes());
    assert_eq!(
        out,
        [
            "=== PA",
            "status error: the game is over: there is no move to choose",
            "status error: the game is over: there is nothing to hint",
        ]
    );
    let moves: Vec<Move> = engine.game().moves().iter().map(|m| m.mv).collect();
    assert_eq!(moves, [Move::Pass, "c1".parse().unwrap()]);
}

#[test]
fn overlong_lines_are_refused_and_the_session_goes_on() {
    let mut engine = NboardEngine::new(Box::new(search::RandomAgent::new(1)));
    let mut input = format!("set game {}", "x".repeat(protocol::MAX_LINE + 10));
    input.push_str("\nping 1\n");
    let out = run(&mut engine, input.as_bytes());
    assert_eq!(
        out,
        [
            format!(
                "status error: line longer than {} bytes ignored",
                protocol::MAX_LINE
            ),
            "pong 1".to_string()
        ]
    );
}

/// A line longer than the most one read takes (16 MiB) gets one error, not one per piece.
#[test]
fn a_line_past_the_read_limit_gets_one_error() {
    let mut engine = NboardEngine::new(Box::new(search::RandomAgent::new(1)));
    let mut input = "x".repeat(20 << 20);
    input.push_str("\nping 2\n");
    let out = run(&mut engine, input.as_bytes());
    assert_eq!(
        out,
        [
            format!(
                "status error: line longer than {} bytes ignored",
                protocol::MAX_LINE
            ),
            "pong 2".to_string()
        ]
    );
}

/// The disc difference, 100 per disc (so its scores are discs to NBoard).
struct DiscDifference;

impl Evaluator<Othello8> for DiscDifference {
    fn evaluate(&self, p: &Othello8) -> i32 {
        let me = p.side_to_move();
        100 * (p.count(me) as i32 - p.count(me.opponent()) as i32)
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale::Centi
    }
}

fn disc_difference() -> Arc<DiscDifference> {
    Arc::new(DiscDifference)
}

/// The same values without a declared unit: NBoard is told the move only.
#[test]
fn scores_without_a_unit_are_not_sent_as_discs() {
    let config = AlphaBetaConfig {
        depth: Some(2),
        ..AlphaBetaConfig::default()
    };
    let unitless = Arc::new(FnEvaluator(|p: &Othello8| {
        let me = p.side_to_move();
        100 * (p.count(me) as i32 - p.count(me.opponent()) as i32)
    }));
    let mut engine = NboardEngine::new(Box::new(AlphaBeta::new(unitless, config)));
    let mut out = Vec::new();
    for line in [
        "nboard 2",
        &format!("set game {}", GgfGame::default()),
        "go",
    ] {
        engine.handle(line, &mut out).unwrap();
    }
    let text = String::from_utf8(out).unwrap();
    let answer = text.lines().find_map(|l| l.strip_prefix("=== ")).unwrap();
    assert!(!answer.contains('/'), "{text}");
}

#[test]
fn a_whole_game_through_go_and_move() {
    let config = AlphaBetaConfig {
        depth: Some(2),
        ..AlphaBetaConfig::default()
    };
    let agent = AlphaBeta::new(disc_difference(), config);
    let mut engine = NboardEngine::new(Box::new(agent));
    let mut out = Vec::new();
    for line in [
        "nboard 2",
        "set depth 2",
        &format!("set game {}", GgfGame::default()),
    ] {
        assert_eq!(engine.handle(line, &mut out).unwrap(), Flow::Continue);
    }
    let mut pos = Othello8::new();
    let mut plies = 0;
    while !pos.is_over() {
        let mut out = Vec::new();
        engine.handle("go", &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let answer = text
            .lines()
            .find_map(|l| l.strip_prefix("=== "))
            .unwrap_or_else(|| panic!("no move in {text:?}"));
        let mv_text = answer.split('/').next().unwrap();
        let mv: Move = mv_text.parse().unwrap();
        assert!(pos.is_legal(mv), "{mv} in {pos}");
        if pos.legal_moves().len() > 1 {
            // A searched move comes with an evaluation in discs and a time.
            assert_eq!(answer.split('/').count(), 3, "{answer}");
        }
        pos = pos.play(mv).unwrap();
        let mut out = Vec::new();
        engine.handle(&format!("move {mv_text}"), &mut out).unwrap();
        assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
        assert_eq!(engine.game().last(), &pos);
        plies += 1;
    }
    assert!(plies >= 9);
    assert_eq!(engine.handle("quit", &mut out).unwrap(), Flow::Quit);
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        "(nboard|set|move|go|hint|ping|learn|analyze|NBOARD|Move|GO)( {1,2}[a-hA-HpPsS0-9/.\\-]{0,6}){0,3} {0,2}\r?",
        "set (depth|game|contempt|Depth) \\PC{0,20}",
        "set game \\(;(GM\\[Othello\\])?(B\\[[a-h][1-8]\\]|W\\[[a-h][1-8]\\]){0,4};\\)",
        "move (d3|c4|f5|e6|pa|PA|pass)(/[0-9.\\-]{0,4}){0,3}",
        "\\PC{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_sessions_never_break_the_engine(lines in proptest::collection::vec(line(), 0..25)) {
        let mut engine = NboardEngine::new(Box::new(search::RandomAgent::new(3)));
        let input = lines.join("\n");
        let out = run(&mut engine, input.as_bytes());
        for l in &out {
            let known = ["set myname ", "status", "pong ", "=== ", "nodestats ", "search ", "analysis ", "learned"];
            prop_assert!(known.iter().any(|k| l.starts_with(k)), "unexpected line {:?}", l);
        }
        // The engine's game is always a legal game.
        let game = engine.game();
        let mut pos = *game.start();
        for m in game.moves() {
            pos = pos.play(m.mv).expect("legal");
        }
        prop_assert_eq!(&pos, game.last());
    }
}
