//! Positions from outside are checked against the rules (issue 12: 20 black stones and no
//! white, or both sides with five, were accepted): each impossible board is refused with its
//! typed error and a message that says what is wrong; real games pass.

use game::{Color, Game};
use gomoku::{
    Board, BoardError, BoardStringError, Gomoku15, Omok, Point, PositionError, Renju15, Rule,
    Standard15,
};

/// A 15x15 board string with these stones and side to move.
fn board15(black: &[&str], white: &[&str], to_move: char) -> String {
    let mut cells = vec!['-'; 225];
    for (stones, ch) in [(black, 'X'), (white, 'O')] {
        for s in stones {
            let p: Point = s.parse().expect("test point");
            cells[p.index(15)] = ch;
        }
    }
    format!("{} {to_move}", cells.into_iter().collect::<String>())
}

fn impossible<G>(text: &str) -> PositionError
where
    G: std::str::FromStr<Err = BoardStringError> + std::fmt::Debug,
{
    match text.parse::<G>() {
        Err(BoardStringError::Impossible(e)) => e,
        other => panic!("{text}: expected an impossible position, got {other:?}"),
    }
}

#[test]
fn stone_counts_must_fit_black_first_play() {
    // 20 black stones, no white (issue 12).
    let twenty: Vec<String> = (0..20)
        .map(|i| format!("{}{}", char::from(b'a' + (i % 10) as u8), 1 + 2 * (i / 10)))
        .collect();
    let twenty: Vec<&str> = twenty.iter().map(String::as_str).collect();
    let text = board15(&twenty, &[], 'O');
    let e = impossible::<Gomoku15>(&text);
    assert_eq!(
        e,
        PositionError::Counts {
            black: 20,
            white: 0,
            to_move: Color::White
        }
    );
    assert_eq!(
        e.to_string(),
        "impossible position: 20 black and 0 white stones with white to move; black moves \
         first, so black has as many stones as white when black is to move and one more when \
         white is to move"
    );
    // The side to move must match the counts.
    assert!(matches!(
        impossible::<Gomoku15>(&board15(&["h8"], &[], 'X')),
        PositionError::Counts { .. }
    ));
    assert!(matches!(
        impossible::<Gomoku15>(&board15(&["h8"], &["h9"], 'O')),
        PositionError::Counts { .. }
    ));
    assert!(matches!(
        impossible::<Gomoku15>(&board15(&[], &["h9"], 'X')),
        PositionError::Counts { .. }
    ));
    // Balanced boards pass, either side to move.
    assert!(board15(&["h8"], &[], 'O').parse::<Gomoku15>().is_ok());
    assert!(board15(&["h8"], &["h9"], 'X').parse::<Gomoku15>().is_ok());
    assert!(format!("{} X", "-".repeat(225)).parse::<Gomoku15>().is_ok());
}

#[test]
fn both_sides_with_five_are_refused() {
    let text = board15(
        &["a1", "b1", "c1", "d1", "e1"],
        &["a3", "b3", "c3", "d3", "e3"],
        'X',
    );
    let e = text.parse::<Gomoku15>().unwrap_err();
    assert_eq!(e, BoardStringError::Board(BoardError::BothWon));
    assert!(
        e.to_string()
            .contains("both black and white have five in a row"),
        "{e}"
    );
}

#[test]
fn a_five_belongs_to_the_side_that_moved_last() {
    // Black's five with black to move: white moved last.
    let text = board15(
        &["a1", "b1", "c1", "d1", "e1"],
        &["a3", "b3", "c3", "d3", "h8"],
        'X',
    );
    let e = impossible::<Gomoku15>(&text);
    assert_eq!(
        e,
        PositionError::WinnerToMove {
            winner: Color::Black
        }
    );
    assert!(e
        .to_string()
        .contains("black has five in a row but is to move"));
    // White's five, white moved last: fine.
    let ok = board15(
        &["a1", "b1", "c1", "d1", "h8"],
        &["a3", "b3", "c3", "d3", "e3"],
        'X',
    );
    let pos: Gomoku15 = ok.parse().expect("white's five");
    assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Color::White));
}

#[test]
fn two_fives_must_share_the_last_move() {
    // Two separate fives of black: no single move made both.
    let text = board15(
        &["a1", "b1", "c1", "d1", "e1", "a5", "b5", "c5", "d5", "e5"],
        &["a3", "b3", "c3", "d3", "h8", "h9", "h10", "j8", "j9"],
        'O',
    );
    assert_eq!(
        impossible::<Gomoku15>(&text),
        PositionError::SeparateWins {
            winner: Color::Black
        }
    );
    // Two fives through one stone (e1 made both): one move can do that.
    let cross = board15(
        &["a1", "b1", "c1", "d1", "e1", "e2", "e3", "e4", "e5"],
        &["a3", "b3", "c3", "h8", "h9", "h10", "j8", "j9"],
        'O',
    );
    let pos: Gomoku15 = cross.parse().expect("a double five");
    assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Color::Black));
    // Eleven in a row in freestyle: taking any one stone back still leaves a five.
    let eleven: Vec<String> = (0..11)
        .map(|c| format!("{}1", char::from(b'a' + c)))
        .collect();
    let eleven: Vec<&str> = eleven.iter().map(String::as_str).collect();
    let white: Vec<String> = (0..10)
        .map(|c| format!("{}{}", char::from(b'a' + 2 * (c % 5)), 4 + 2 * (c / 5)))
        .collect();
    let white: Vec<&str> = white.iter().map(String::as_str).collect();
    assert!(matches!(
        impossible::<Gomoku15>(&board15(&eleven, &white, 'O')),
        PositionError::SeparateWins { .. }
    ));
}

#[test]
fn overlines_follow_the_rule() {
    let six = ["a1", "b1", "c1", "d1", "e1", "f1"];
    let white = ["a3", "b3", "c3", "d3", "h8"];
    // Freestyle: six in a row wins, made last by black.
    let text = board15(&six, &white, 'O');
    let pos: Gomoku15 = text.parse().expect("freestyle overline");
    assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Color::Black));
    // Standard: an overline wins nobody and may stand on the board.
    let pos: Standard15 = text.parse().expect("standard overline");
    assert!(pos.outcome().is_none());
    // Renju: black may not make an overline at all.
    assert!(matches!(
        impossible::<Renju15>(&text),
        PositionError::RenjuOverline { .. }
    ));
    assert!(impossible::<Renju15>(&text)
        .to_string()
        .contains("an overline renju forbids black"));
    // ... except in the move that makes five: e3 makes a3-e3 and the overline e1-e6 at once.
    let pos: Renju15 = board15(
        &["a3", "b3", "c3", "d3", "e3", "e1", "e2", "e4", "e5", "e6"],
        &["h8", "h10", "h12", "j9", "j11", "l8", "l10", "l12", "n9"],
        'O',
    )
    .parse()
    .expect("five and overline by one move");
    assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Color::Black));
    // ... and white may, and it wins.
    let pos: Renju15 = board15(&["a3", "b3", "c3", "d3", "h8", "j9"], &six, 'X')
        .parse()
        .expect("white's overline");
    assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Color::White));
}

#[test]
fn real_games_pass_under_every_rule() {
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for rule in Rule::ALL {
        for _ in 0..40 {
            let mut board = Board::new(9, rule).expect("9x9");
            while !board.is_over() {
                board
                    .validate()
                    .unwrap_or_else(|e| panic!("{}: {e}", board.board_string()));
                let moves = board.legal_moves();
                board
                    .play(moves[rng.random_range(0..moves.len())])
                    .expect("legal");
            }
            board
                .validate()
                .unwrap_or_else(|e| panic!("{}: {e}", board.board_string()));
            let again = Board::parse_board_string(&board.board_string(), 9, rule);
            assert_eq!(again.as_ref(), Ok(&board));
        }
    }
    // The presets parse what they print.
    let pos = Omok::start()
        .play("j10".parse().expect("point"))
        .expect("legal");
    assert_eq!(pos.to_string().parse::<Omok>(), Ok(pos));
}
