//! The VCF test set: every position holds a win by continuous fours for the side to move; the
//! engine must find one, and each line is checked move by move on the rules crate alone.

use game::Color;
use gomoku::{Board, Point, Rule};
use gomoku_engine::{find_vcf, EngineConfig, GomokuEngine};
use search::{Budget, WIN};

fn positions() -> Vec<(String, Board)> {
    include_str!("data/vcf.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (id, board) = line.split_once(' ').expect("id and board");
            let (rule, size) = match id {
                "gomoku15" => (Rule::Freestyle, 15),
                "omok" => (Rule::Freestyle, 19),
                "standard15" => (Rule::Standard, 15),
                "renju15" => (Rule::Renju, 15),
                other => panic!("unknown game {other}"),
            };
            let board = Board::from_board_string(board, size, rule).expect("valid board string");
            (id.to_string(), board)
        })
        .collect()
}

/// The points where `color` would make a winning line right now (rules crate only).
fn winning_points(board: &Board, color: Color) -> Vec<Point> {
    board
        .points()
        .filter(|&p| board.is_empty(p))
        .filter(|&p| {
            let stones = board
                .points()
                .filter_map(|q| board.stone(q).map(|c| (q, c)))
                .chain([(p, color)]);
            Board::with_stones(board.size(), board.rule(), stones, color.opponent())
                .is_ok_and(|b| b.winner() == Some(color))
                && !(color == Color::Black
                    && board.rule() == Rule::Renju
                    && board.foul(p).is_some())
        })
        .collect()
}

/// Replays `line` and checks that it is a forced win by continuous fours for the side to move.
fn check_line(start: &Board, line: &[Point]) -> Result<(), String> {
    let attacker = start.side_to_move();
    let mut board = start.clone();
    for (k, &mv) in line.iter().enumerate() {
        let mover = board.side_to_move();
        if mover == attacker {
            board
                .play(mv)
                .map_err(|e| format!("attacker move {k} {mv}: {e}"))?;
            if board.winner() == Some(attacker) {
                return if k + 1 == line.len() {
                    Ok(())
                } else {
                    Err("moves after the five".into())
                };
            }
            if !winning_points(&board, attacker.opponent()).is_empty() {
                return Err(format!("after {mv} the defender can make five"));
            }
            let threats = winning_points(&board, attacker);
            if threats.is_empty() {
                return Err(format!("attacker move {mv} is not a four"));
            }
        } else {
            let threats = winning_points(&board, attacker);
            if !threats.contains(&mv) {
                return Err(format!("defender move {mv} does not stop the four"));
            }
            if board.play(mv).is_err() {
                // The only block is a renju foul: the defender cannot stop the five.
                return if threats.len() == 1 && k + 1 == line.len() {
                    Ok(())
                } else {
                    Err(format!("defender move {mv} is illegal"))
                };
            }
        }
    }
    Err("the line ends without a five".into())
}

#[test]
fn the_set_is_large_and_covers_every_rule() {
    let set = positions();
    assert!(set.len() >= 30, "{} positions", set.len());
    for id in ["gomoku15", "omok", "standard15", "renju15"] {
        assert!(set.iter().any(|(g, _)| g == id), "{id} missing");
    }
}

#[test]
fn every_vcf_is_found_and_verified_by_replay() {
    let mut lengths = Vec::new();
    for (n, (id, board)) in positions().into_iter().enumerate() {
        let line = find_vcf(&board, 2_000_000).unwrap_or_else(|| {
            panic!("position {n} ({id}): no VCF found\n{}", board.diagram(None))
        });
        check_line(&board, &line).unwrap_or_else(|e| {
            panic!(
                "position {n} ({id}): line {:?} is not a VCF: {e}\n{}",
                line.iter().map(ToString::to_string).collect::<Vec<_>>(),
                board.diagram(None)
            )
        });
        lengths.push(line.len());
    }
    assert!(lengths.iter().all(|&l| l >= 5), "{lengths:?}");
}

#[test]
fn the_engine_plays_the_win() {
    for (n, (id, board)) in positions().into_iter().enumerate().step_by(4) {
        let mut engine = GomokuEngine::new(EngineConfig {
            time: None,
            ..EngineConfig::default()
        });
        let decision = engine
            .think(&board, &Budget::depth(2))
            .expect("the game goes on");
        assert!(
            decision.score.is_some_and(|s| s >= WIN - 100),
            "position {n} ({id}): score {:?}",
            decision.score
        );
        let mut after = board.clone();
        after.play(decision.mv).expect("a legal move");
        check_line(&board, &decision.pv).unwrap_or_else(|e| panic!("position {n}: {e}"));
    }
}

#[test]
fn a_broken_line_is_refused_by_the_checker() {
    let (_, board) = positions().into_iter().next().expect("a position");
    let line = find_vcf(&board, 2_000_000).expect("a VCF");
    let mut wrong = line.clone();
    if wrong.len() >= 2 {
        wrong.truncate(line.len() - 1);
    }
    assert!(check_line(&board, &wrong).is_err());
    assert!(check_line(&board, &line[..1]).is_err());
}
