//! `stonelab nboard` (the engine side) and the `nboard-engine` agent (the driver side), tested
//! against each other: stonelab's own NBoard mode is the external engine.

mod common;
use common::stonelab;

use std::time::Duration;

use game::{Color, Game};
use othello::{replay_transcript, Move, Othello8};
use othello_engine::DiscDifference;
use protocol::{NboardEngineAgent, NboardEngineConfig};
use search::{terminal_score, Agent, Budget, Evaluator, RandomAgent};

const BIN: &str = env!("CARGO_BIN_EXE_stonelab");

/// The moves the greedy agent may choose: the best by the disc difference one ply ahead (a
/// proven result first).
fn greedy_choices(pos: &Othello8) -> Vec<Move> {
    let scored: Vec<(i32, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let child = pos.play_unchecked(mv);
            let score = terminal_score(&child).unwrap_or_else(|| DiscDifference.evaluate(&child));
            (-score, mv)
        })
        .collect();
    let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
    scored
        .into_iter()
        .filter(|s| s.0 == best)
        .map(|s| s.1)
        .collect()
}

fn engine_agent() -> NboardEngineAgent {
    let mut config = NboardEngineConfig::new(vec![
        BIN.into(),
        "nboard".into(),
        "--agent".into(),
        "greedy".into(),
    ]);
    config.timeout = Duration::from_secs(30);
    NboardEngineAgent::new(config)
}

/// Plays one game, the engine on `engine_side`; returns the engine's moves checked.
fn play_game(engine: &mut NboardEngineAgent, engine_side: Color, seed: u64) -> usize {
    let mut random = RandomAgent::new(seed);
    engine.new_game();
    Agent::<Othello8>::new_game(&mut random);
    let mut pos = Othello8::new();
    let mut checked = 0;
    while !pos.is_over() {
        let mv = if pos.side_to_move() == engine_side {
            let decision = engine
                .select(&pos, &Budget::default())
                .unwrap_or_else(|e| panic!("engine failed in {pos}: {e}"));
            assert!(pos.is_legal(decision.mv), "{} in {pos}", decision.mv);
            if decision.mv != Move::Pass {
                assert!(
                    greedy_choices(&pos).contains(&decision.mv),
                    "{} is not a greedy move in {pos}",
                    decision.mv
                );
                checked += 1;
            }
            decision.mv
        } else {
            random
                .select(&pos, &Budget::default())
                .expect("random moves")
                .mv
        };
        pos = pos.play(mv).expect("checked legal");
        engine.observe(mv, &pos);
        random.observe(mv, &pos);
    }
    checked
}

#[test]
fn stonelab_nboard_as_an_external_engine_plays_full_games() {
    let mut engine = engine_agent();
    // Two games on one process, the engine on each side.
    let black = play_game(&mut engine, Color::Black, 11);
    let white = play_game(&mut engine, Color::White, 12);
    assert!(black >= 15 && white >= 15, "{black} {white}");
    assert_eq!(engine.engine_name(), Some("stonelab-greedy"));
    assert!(engine.is_running());
}

#[test]
fn the_spec_string_drives_an_engine_in_play() {
    let spec = format!("nboard-engine:cmd='{BIN}' nboard --agent greedy,timeout=30s");
    let (ok, out, err) = stonelab(
        &["play", "--black", &spec, "--white", "random", "--seed", "3"],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("Game over."), "{out}");
    let transcript = out
        .lines()
        .find_map(|l| l.strip_prefix("Transcript: "))
        .expect("a transcript");
    let game = replay_transcript::<8>(transcript).expect("the game replays");
    assert!(game.last().is_over());
    // Only the 8x8 registry has the agent.
    let (_, list8, _) = stonelab(&["agents", "--game", "othello8"], "");
    assert!(list8.contains("nboard-engine:"), "{list8}");
    let (_, list6, _) = stonelab(&["agents", "--game", "othello6"], "");
    assert!(!list6.contains("nboard-engine"), "{list6}");
    let (ok, _, err) = stonelab(
        &["play", "--black", "nboard-engine", "--white", "random"],
        "",
    );
    assert!(!ok);
    assert!(err.contains("cmd"), "{err}");
}

#[test]
fn a_recorded_session_with_malformed_lines() {
    let input = "nboard 2\n\n  set depth 3  \nset game (;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[f5];)\r\nMOVE D6\nmove a1\nmove x\nhello there\nping 1\ngo\nset game (;GM[Othello]\nping 2\nlearn\nquit\n";
    let (ok, out, err) = stonelab(&["nboard", "--agent", "alphabeta:depth=2"], input);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "set myname stonelab-alphabeta");
    assert_eq!(
        lines[1],
        "status error: illegal move a1: it would flip no disc"
    );
    assert!(lines[2].starts_with("status error: move: \"x\""), "{out}");
    assert_eq!(lines[3], "status error: unknown command \"hello\"");
    assert_eq!(lines[4], "pong 1");
    assert_eq!(lines[5], "status thinking");
    assert!(lines[6].starts_with("nodestats "), "{out}");
    let answer = lines[7].strip_prefix("=== ").expect("a move");
    let mv: Move = answer.split('/').next().unwrap().parse().unwrap();
    let pos = replay_transcript::<8>("f5d6").unwrap();
    assert!(pos.last().is_legal(mv), "{mv}");
    assert_eq!(answer.split('/').count(), 3, "{answer}");
    assert_eq!(
        lines[8..],
        [
            "status",
            "status error: set game: the GGF game is not closed with \";)\"",
            "pong 2",
            "learned"
        ]
    );
    // A bad agent spec is refused before the session starts.
    let (ok, _, err) = stonelab(&["nboard", "--agent", "bogus"], "");
    assert!(!ok);
    assert!(err.contains("unknown agent"), "{err}");
}
