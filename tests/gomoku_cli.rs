//! Gomoku through the binary: `stonelab gomocup` as a brain (scripted sessions, malformed
//! input), the `gomocup-engine` driver running stonelab's own brain, terminal play and the
//! arena on Gomoku.

mod common;
use common::stonelab;

use std::time::Duration;

use game::{Color, Game};
use gomoku::{Gomoku15, Point};
use protocol::{GomocupEngineAgent, GomocupEngineConfig};
use search::{Agent, Budget};

const BIN: &str = env!("CARGO_BIN_EXE_stonelab");

fn xy(line: &str) -> Option<(usize, usize)> {
    let (x, y) = line.trim().split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

#[test]
fn a_gomocup_session_with_malformed_and_out_of_range_input() {
    let script =
        "ABOUT\nSTART 15\nINFO timeout_turn 200\nINFO rule 0\nBEGIN\nTURN 99,99\nTURN 7,x\n\
                  TURN 0,0\nSTART 3\nRECTSTART 15,20\nHELLO\nEND\n";
    let (ok, out, err) = stonelab(&["gomocup", "--agent", "gomoku"], script);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
    assert!(
        lines[0].starts_with("name=\"stonelab-gomoku\""),
        "{lines:?}"
    );
    assert_eq!(lines[1], "OK");
    // The engine opens in the centre.
    assert_eq!(lines[2], "7,7");
    assert!(lines[3].starts_with("ERROR"), "{lines:?}");
    assert!(lines[4].starts_with("ERROR"), "{lines:?}");
    let reply = xy(lines[5]).expect("a move after TURN 0,0");
    assert_ne!(reply, (0, 0));
    assert_ne!(reply, (7, 7));
    assert!(reply.0 < 15 && reply.1 < 15);
    assert!(lines[6].starts_with("ERROR"), "START 3: {lines:?}");
    assert!(lines[7].starts_with("ERROR"), "RECTSTART: {lines:?}");
    assert!(lines[8].starts_with("UNKNOWN"), "{lines:?}");
    assert_eq!(lines.len(), 9, "{lines:?}");
}

#[test]
fn a_gomocup_board_command_and_a_bad_agent() {
    // Own stones at (7,7) (7,8) (7,9) (7,10) with an open end: the brain must make five.
    let script =
        "START 15\nINFO timeout_turn 500\nBOARD\n7,7,1\n0,0,2\n7,8,1\n1,0,2\n7,9,1\n2,0,2\n\
                  7,10,1\n3,0,2\nDONE\nEND\n";
    let (ok, out, err) = stonelab(&["gomocup"], script);
    assert!(ok, "{err}");
    let moves: Vec<(usize, usize)> = out.lines().filter_map(xy).collect();
    assert!(
        moves == vec![(7, 11)] || moves == vec![(7, 6)],
        "expected the five, got {out}"
    );
    let (ok, _, err) = stonelab(&["gomocup", "--agent", "nonsense"], "END\n");
    assert!(!ok);
    assert!(err.contains("unknown agent"), "{err}");
}

/// Sizes the brain does not play are refused naming the ones it does, in and out of the
/// protocol's range alike.
#[test]
fn the_gomocup_brain_names_the_boards_it_plays() {
    let (ok, out, err) = stonelab(&["gomocup"], "START 0\nSTART 5\nEND\n");
    assert!(ok, "{err}");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(errors.len(), 2, "{out}");
    for line in errors {
        assert!(
            line.contains("15x15, 19x19 and 20x20 boards (and 9x9 freestyle)"),
            "{line}"
        );
    }
}

/// stonelab's own brain driven as an external engine, against the built-in random agent.
#[test]
fn the_gomocup_driver_plays_stonelabs_own_brain() {
    let mut config = GomocupEngineConfig::new(vec![
        BIN.into(),
        "gomocup".into(),
        "--agent".into(),
        "gomoku:time=50ms".into(),
    ]);
    config.turn = Duration::from_millis(200);
    let mut engine = GomocupEngineAgent::<gomoku::presets::Freestyle15>::new(config);
    let mut random = search::RandomAgent::new(5);
    for game_no in 0..2 {
        let engine_side = if game_no == 0 {
            Color::Black
        } else {
            Color::White
        };
        Agent::<Gomoku15>::new_game(&mut engine);
        Agent::<Gomoku15>::new_game(&mut random);
        let mut pos = Gomoku15::start();
        while !pos.is_over() {
            let mv = if pos.side_to_move() == engine_side {
                engine
                    .select(&pos, &Budget::default())
                    .expect("the brain answers")
                    .mv
            } else {
                random.select(&pos, &Budget::default()).expect("random").mv
            };
            pos = pos.play(mv).expect("legal moves only");
            engine.observe(mv, &pos);
            random.observe(mv, &pos);
        }
        let winner = pos.outcome().and_then(|o| o.winner());
        assert_eq!(
            winner,
            Some(engine_side),
            "game {game_no}:\n{}",
            pos.diagram()
        );
    }
}

#[test]
fn the_arena_plays_gomoku_with_random_openings() {
    let (ok, out, err) = stonelab(
        &[
            "arena",
            "--game",
            "gomoku15",
            "--agents",
            "gomoku:depth=2",
            "omok-ab",
            "--games",
            "4",
            "--seed",
            "9",
            "--quiet",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("random, 2-4 stones near the centre"), "{out}");
    assert!(out.contains("gomoku:depth=2"), "{out}");
}

#[test]
fn terminal_play_on_omok() {
    let input = "h8\nz9\nh8\nundo\nk10\nhint\nquit\n";
    let (ok, out, err) = stonelab(
        &[
            "play",
            "--game",
            "omok",
            "--black",
            "human",
            "--white",
            "gomoku:depth=1",
            "--color",
            "never",
        ],
        input,
    );
    assert!(ok, "{err}");
    // Coordinates on the edges: files a..s, ranks 1..19.
    assert!(
        out.contains(" a b c d e f g h i j k l m n o p q r s"),
        "{out}"
    );
    assert!(out.contains("19 "), "{out}");
    // The last move is marked in parentheses.
    assert!(out.contains("(X)"), "{out}");
    assert!(out.contains("Cannot read \"z9\""), "{out}");
    assert!(out.contains("Illegal"), "{out}");
    assert!(out.contains("white (gomoku:depth=1) plays"), "{out}");
    assert!(out.contains("Quit."), "{out}");
    let point: Point = "s19".parse().expect("point");
    assert_eq!(point.col(), 18);
}
