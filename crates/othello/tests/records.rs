//! Outside records: every WTHOR game replays legally through positions that pass the check for
//! positions from outside, and every FFO position parses (checked), round-trips and has exactly
//! the legal moves the suite lists.

mod common;

use std::collections::BTreeSet;

use game::{Color, Game};
use othello::wthor::{parse_games, parse_players, parse_tournaments};
use othello::{Move, Othello8};

#[test]
fn every_wthor_game_replays_without_an_illegal_move() {
    let dir = common::data_dir().join("othello/wthor");
    let players =
        parse_players(&std::fs::read(dir.join("WTHOR.JOU")).expect("JOU")).expect("players");
    let tournaments = parse_tournaments(&std::fs::read(dir.join("WTHOR.TRN")).expect("TRN"))
        .expect("tournaments");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("wthor dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
        .collect();
    files.sort();
    let (mut games, mut finished, mut score_matches, mut passes) = (0usize, 0usize, 0usize, 0usize);
    for path in &files {
        let file = parse_games(&std::fs::read(path).expect("read")).expect("parse");
        for (i, g) in file.games.iter().enumerate() {
            assert!(
                usize::from(g.black_player) < players.len(),
                "{} game {i}",
                path.display()
            );
            assert!(
                usize::from(g.white_player) < players.len(),
                "{} game {i}",
                path.display()
            );
            assert!(
                usize::from(g.tournament) < tournaments.len(),
                "{} game {i}",
                path.display()
            );
            let replay = g
                .replay()
                .unwrap_or_else(|e| panic!("{} game {i}: {e}", path.display()));
            passes += replay.moves().iter().filter(|m| **m == Move::Pass).count();
            // Every position of a real game passes the check for positions from outside.
            for pos in replay.positions() {
                pos.validate()
                    .unwrap_or_else(|e| panic!("{} game {i}: {pos}: {e}", path.display()));
            }
            let last = replay.last();
            assert_eq!(last.to_string().parse::<Othello8>().as_ref(), Ok(last));
            games += 1;
            if last.is_over() {
                finished += 1;
            }
            // The recorded black count follows the empties-to-the-winner rule.
            let margin = Othello8::final_margin(last);
            let black = (64 + margin) / 2;
            if black == i32::from(g.black_discs) {
                score_matches += 1;
            }
        }
    }
    println!(
        "WTHOR: {} files, {games} games replayed, {passes} implicit passes, {finished} played to \
         the end, recorded black score matches the replay in {score_matches} ({:.2}%)",
        files.len(),
        100.0 * score_matches as f64 / games as f64
    );
    assert_eq!(games, 124_106, "the data README lists 124,106 games");
    assert!(
        score_matches as f64 >= 0.99 * games as f64,
        "only {score_matches} scores match"
    );
}

fn ffo_lines() -> Vec<(String, String)> {
    let dir = common::data_dir().join("othello/ffo");
    let mut lines = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("ffo dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    paths.sort();
    for path in paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "obf"))
    {
        for line in std::fs::read_to_string(&path).expect("read").lines() {
            if let Some((board, moves)) = line.split_once(';') {
                lines.push((board.trim().to_string(), moves.to_string()));
            }
        }
    }
    lines
}

#[test]
fn ffo_positions_parse_round_trip_and_list_our_legal_moves() {
    let lines = ffo_lines();
    assert_eq!(lines.len(), 59, "FFO #1-#59");
    for (board, moves) in lines {
        let pos: Othello8 = board.parse().unwrap_or_else(|e| panic!("{board}: {e}"));
        assert_eq!(pos.to_string(), board);
        let listed: BTreeSet<String> = moves
            .split(';')
            .filter_map(|m| m.split_once(':'))
            .map(|(sq, _)| sq.trim().to_ascii_lowercase())
            .collect();
        let ours: BTreeSet<String> = pos.legal_moves().iter().map(ToString::to_string).collect();
        assert_eq!(ours, listed, "{board}");
        let side: Color = board[65..].parse().expect("side");
        assert_eq!(pos.side_to_move(), side);
    }
}
