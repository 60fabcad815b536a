//! Positions from outside (issue 12): the app refuses boards no game reaches — an empty Othello
//! board, 20 black Gomoku stones and no white, both sides with five — and says what is wrong
//! with a board string (a missing square, a bad side to move, the wrong board size) in its own
//! words, through `WebGame::parse_position` and through the API.

mod common;

use axum::http::StatusCode;
use serde_json::json;

use gomoku::{Gomoku15, Omok};
use othello::{Othello6, Othello8};
use web::{AppGames, ServerConfig, WebGame};

use common::call_json;

/// A 15x15 board string with these stones (`(file, rank)` from 0) and side to move.
fn gomoku15_board(black: &[(usize, usize)], white: &[(usize, usize)], side: char) -> String {
    let mut cells = vec!['-'; 225];
    for &(c, r) in black {
        cells[r * 15 + c] = 'X';
    }
    for &(c, r) in white {
        cells[r * 15 + c] = 'O';
    }
    format!("{} {side}", cells.into_iter().collect::<String>())
}

fn twenty_black() -> String {
    let black: Vec<(usize, usize)> = (0..20).map(|i| (i % 10, 2 * (i / 10))).collect();
    gomoku15_board(&black, &[], 'O')
}

fn both_fives() -> String {
    let black: Vec<(usize, usize)> = (0..5).map(|c| (c, 0)).collect();
    let white: Vec<(usize, usize)> = (0..5).map(|c| (c, 2)).collect();
    gomoku15_board(&black, &white, 'X')
}

fn empty_othello8() -> String {
    format!("{} X", "-".repeat(64))
}

#[test]
fn impossible_boards_are_refused_with_the_reason() {
    let e = Othello8::parse_position(&empty_othello8()).expect_err("empty board");
    assert!(e.contains("centre square d4 is empty"), "{e}");
    let e = Othello6::parse_position(&format!("{} O", "-".repeat(36))).expect_err("empty 6x6");
    assert!(e.contains("centre square c3 is empty"), "{e}");
    let e = Gomoku15::parse_position(&twenty_black()).expect_err("20 black, 0 white");
    assert!(
        e.starts_with("impossible position: 20 black and 0 white stones"),
        "{e}"
    );
    let e = Gomoku15::parse_position(&both_fives()).expect_err("both fives");
    assert!(e.contains("both black and white have five in a row"), "{e}");
    // What a game reaches still loads.
    assert!(Othello8::parse_position(&Othello8::new().to_string()).is_ok());
    let ok = gomoku15_board(&[(7, 7)], &[(8, 8)], 'X');
    assert!(Gomoku15::parse_position(&ok).is_ok());
}

#[test]
fn board_strings_say_what_is_wrong_in_their_own_words() {
    // A 15x15 string in the 19x19 game: the size, not "rank must be a number from 1 to 25".
    let fifteen = gomoku15_board(&[(7, 7)], &[], 'O');
    let e = Omok::parse_position(&fifteen).expect_err("15x15 string in omok");
    assert_eq!(
        e,
        "bad board string: a 19x19 board string needs 361 points (X, O or -), found 225"
    );
    let e = Gomoku15::parse_position(&fifteen.replace(" O", " Z")).expect_err("bad side");
    assert!(e.contains("side to move, X (black) or O (white)"), "{e}");
    // Othello: 63 squares, a bad side to move.
    let start = Othello8::new().to_string();
    let e = Othello8::parse_position(&format!("{} X", &start[1..64])).expect_err("63 squares");
    assert_eq!(
        e,
        "not a board string: board string has 63 squares, expected 64 (8x8)"
    );
    let e = Othello8::parse_position(&format!("{} Z", &start[..64])).expect_err("bad side");
    assert_eq!(
        e,
        "not a board string: bad side to move \"Z\": expected X (black) or O (white)"
    );
    // Moves still read as moves, and a bad one says so.
    assert!(Gomoku15::parse_position("h8 h9 i8").is_ok());
    let e = Gomoku15::parse_position("h8 h9 z99").expect_err("bad move");
    assert!(e.contains("move 3"), "{e}");
}

/// Through the API: 422 with the reason, and the game is left as it was.
#[tokio::test]
async fn the_api_refuses_impossible_positions() {
    let app = web::router(AppGames::standard(), ServerConfig::default());
    let cases = [
        ("othello8", empty_othello8(), "centre square d4 is empty"),
        ("gomoku15", twenty_black(), "20 black and 0 white stones"),
        (
            "gomoku15",
            both_fives(),
            "both black and white have five in a row",
        ),
        (
            "omok",
            gomoku15_board(&[(7, 7)], &[], 'O'),
            "a 19x19 board string needs 361 points",
        ),
    ];
    for (game, text, why) in cases {
        let (status, state) = call_json(
            &app,
            "POST",
            "/api/games",
            Some(json!({"game": game, "black": "human", "white": "human"})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{state}");
        let id = state["id"].as_str().expect("id").to_string();
        let (status, err) = call_json(
            &app,
            "POST",
            &format!("/api/games/{id}/position"),
            Some(json!({ "text": text })),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{game}: {err}");
        let message = err["error"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{game}: {message}");
        let (_, now) = call_json(&app, "GET", &format!("/api/games/{id}"), None).await;
        assert_eq!(now["cells"], state["cells"], "{game}: the game changed");
    }
}
