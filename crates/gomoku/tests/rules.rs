//! Rule checks on hand-built positions (wins per rule, every renju foul, true and false threes)
//! and random games checked against a naive whole-board scan.

use game::{Color, Game, IllegalReason};
use gomoku::{Board, Foul, Gomoku15, Omok, Point, Renju15, Rule, Standard15};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn pt(s: &str) -> Point {
    s.parse().expect("test point")
}

/// A 15x15 board with these stones, black to move.
fn board(rule: Rule, black: &[&str], white: &[&str]) -> Board {
    let stones = black
        .iter()
        .map(|s| (pt(s), Color::Black))
        .chain(white.iter().map(|s| (pt(s), Color::White)));
    Board::with_stones(15, rule, stones, Color::Black).expect("test board")
}

fn winner_after(mut b: Board, mv: &str) -> Option<Color> {
    b.play(pt(mv)).expect("legal test move");
    b.winner()
}

#[test]
fn five_wins_under_every_rule() {
    for rule in Rule::ALL {
        let b = board(rule, &["d8", "e8", "f8", "g8"], &["a1", "a2", "a3"]);
        assert_eq!(winner_after(b.clone(), "h8"), Some(Color::Black), "{rule}");
        assert_eq!(winner_after(b, "c8"), Some(Color::Black), "{rule}");
    }
}

#[test]
fn overline_wins_only_in_freestyle_and_for_renju_white() {
    let black = ["c8", "d8", "e8", "g8", "h8"];
    let white = ["a1", "a2", "a3", "a4"];
    assert_eq!(
        winner_after(board(Rule::Freestyle, &black, &white), "f8"),
        Some(Color::Black)
    );
    let mut standard = board(Rule::Standard, &black, &white);
    standard.play(pt("f8")).expect("an overline is legal");
    assert_eq!(standard.winner(), None);
    assert!(!standard.is_over());

    let renju = board(Rule::Renju, &black, &white);
    assert_eq!(renju.foul(pt("f8")), Some(Foul::Overline));
    assert_eq!(renju.check(pt("f8")), Err(IllegalReason::Forbidden));
    let mut err_board = renju.clone();
    assert!(err_board.play(pt("f8")).is_err());
    assert_eq!(err_board, renju, "a refused move changes nothing");

    // White, under renju, wins with six.
    let stones = ["c8", "d8", "e8", "g8", "h8"]
        .iter()
        .map(|s| (pt(s), Color::White))
        .chain(
            ["a1", "a3", "a5", "a7", "a9", "a11"]
                .iter()
                .map(|s| (pt(s), Color::Black)),
        );
    let mut b = Board::with_stones(15, Rule::Renju, stones, Color::White).expect("board");
    b.play(pt("f8")).expect("white has no fouls");
    assert_eq!(b.winner(), Some(Color::White));
}

#[test]
fn renju_double_three_is_forbidden_but_not_in_other_rules() {
    let black = ["f8", "g8", "h6", "h7"];
    let white = ["a1", "a3", "a5", "a7"];
    let b = board(Rule::Renju, &black, &white);
    assert_eq!(b.foul(pt("h8")), Some(Foul::DoubleThree));
    assert!(!b.legal_moves().contains(&pt("h8")));
    for rule in [Rule::Freestyle, Rule::Standard] {
        let b = board(rule, &black, &white);
        assert_eq!(b.foul(pt("h8")), None);
        assert!(b.check(pt("h8")).is_ok());
    }
    // Split threes count too: f8 . h8(p) i8 and h6 h7.
    let b = board(Rule::Renju, &["f8", "i8", "h6", "h7"], &white);
    assert_eq!(b.foul(pt("h8")), Some(Foul::DoubleThree));
}

#[test]
fn a_blocked_three_is_no_three() {
    // e8 white: f8 g8 h8 can never become a straight four.
    let b = board(
        Rule::Renju,
        &["f8", "g8", "h6", "h7"],
        &["e8", "a1", "a3", "a5"],
    );
    assert_eq!(b.foul(pt("h8")), None);
    // Near the edge: a three touching the border is no three either.
    let b = board(
        Rule::Renju,
        &["b8", "c8", "d6", "d7"],
        &["a3", "a5", "a9", "a11"],
    );
    assert_eq!(b.foul(pt("d8")), Some(Foul::DoubleThree));
    let b = board(
        Rule::Renju,
        &["a8", "b8", "c6", "c7"],
        &["a3", "a5", "a11", "o1"],
    );
    assert_eq!(b.foul(pt("c8")), None);
}

#[test]
fn a_three_whose_only_straight_four_point_is_forbidden_is_false() {
    // Horizontal f8 g8 + h8: j8 is white, so only e8 makes a straight four (e8-h8).
    // Vertical h6 h7 + h8 is a true three.
    let base_black = ["f8", "g8", "h6", "h7"];
    let white = ["j8", "a1", "a3", "a5", "a7", "a9"];
    let b = board(Rule::Renju, &base_black, &white);
    assert_eq!(b.foul(pt("h8")), Some(Foul::DoubleThree));
    // Now make e8 itself a double three (vertical e6 e7, diagonal c6 d7): after h8, e8 would
    // be four-three-three, forbidden; the horizontal three through h8 is then false.
    let mut black = base_black.to_vec();
    black.extend(["e6", "e7", "c6", "d7"]);
    let b = board(Rule::Renju, &black, &white);
    let mut after = b.clone();
    after.play_unchecked(pt("h8"));
    assert_eq!(after.foul(pt("e8")), Some(Foul::DoubleThree));
    assert_eq!(b.foul(pt("h8")), None, "only one true three remains");
}

#[test]
fn renju_double_four_in_two_lines_and_in_one_line() {
    let white = ["a1", "a3", "a5", "a7", "a9"];
    let b = board(Rule::Renju, &["e8", "f8", "g8", "h5", "h6", "h7"], &white);
    assert_eq!(b.foul(pt("h8")), Some(Foul::DoubleFour));
    // X . X p X . X in one line: e8 and i8 both complete a five.
    let b = board(Rule::Renju, &["d8", "f8", "h8", "j8"], &white);
    assert_eq!(b.foul(pt("g8")), Some(Foul::DoubleFour));
    // X X X . p . X X X
    let b = board(Rule::Renju, &["c8", "d8", "e8", "i8", "j8", "k8"], &white);
    assert_eq!(b.foul(pt("g8")), Some(Foul::DoubleFour));
    // A straight four (one line, two points five apart) is a single four: legal.
    let b = board(Rule::Renju, &["e8", "f8", "g8"], &white);
    assert_eq!(b.foul(pt("h8")), None);
}

#[test]
fn four_three_is_legal() {
    let white = ["a1", "a3", "a5", "a7"];
    let b = board(Rule::Renju, &["e8", "f8", "g8", "h6", "h7"], &white);
    assert_eq!(b.foul(pt("h8")), None);
}

#[test]
fn five_overrides_every_foul() {
    let white = ["a1", "a3", "a5", "a7", "a9", "a11", "a13", "a15"];
    // i8 makes e8-i8 (exactly five) and a vertical four i5 i6 i7 + diagonal three.
    let black = ["e8", "f8", "g8", "h8", "i5", "i6", "i7", "g6", "h7"];
    let b = board(Rule::Renju, &black, &white);
    assert_eq!(b.foul(pt("i8")), None);
    assert_eq!(winner_after(b, "i8"), Some(Color::Black));
    // Five in one line and an overline in another: still a win.
    let black = ["e8", "f8", "g8", "h8", "i6", "i7", "i9", "i10", "i11"];
    let b = board(Rule::Renju, &black, &white);
    assert_eq!(b.foul(pt("i8")), None);
    assert_eq!(winner_after(b, "i8"), Some(Color::Black));
}

#[test]
fn board_strings_round_trip_and_refuse_bad_input() {
    let mut pos = Renju15::start();
    for mv in ["h8", "h9", "i8", "j10", "g7"] {
        pos = pos.play(pt(mv)).expect("legal");
    }
    assert_eq!(pos.board().counts(), (3, 2));
    let text = pos.to_string();
    assert_eq!(text.len(), 225 + 2);
    let back: Renju15 = text.parse().expect("round trip");
    assert_eq!(back, pos);
    assert_eq!(back.side_to_move(), Color::White);

    assert!("X".parse::<Gomoku15>().is_err());
    assert!(format!("{} Z", "-".repeat(225))
        .parse::<Gomoku15>()
        .is_err());
    assert!(format!("{} X", "-".repeat(224))
        .parse::<Gomoku15>()
        .is_err());
    assert!(format!("{}? X", "-".repeat(224))
        .parse::<Gomoku15>()
        .is_err());
    // Both sides with five: refused.
    let both = format!("XXXXX{}OOOOO{} X", "-".repeat(10), "-".repeat(205));
    assert!(both.parse::<Gomoku15>().is_err());
    // One side with five, made last: the game is over.
    let over: Gomoku15 = format!("XXXXX{}OOOO{} O", "-".repeat(10), "-".repeat(206))
        .parse()
        .expect("five");
    assert_eq!(over.outcome().and_then(|o| o.winner()), Some(Color::Black));
}

#[test]
fn moves_parse_for_their_board_only() {
    assert_eq!(pt("h8").row(), 7);
    assert_eq!(pt("H8").col(), 7);
    assert!(Gomoku15::parse_move("p1").is_err());
    assert!(Omok::parse_move("s19").is_ok());
    assert!(Omok::parse_move("t1").is_err());
    for bad in ["", "h", "8", "h0", "h26", "z1", "h8x", "h-1", "hh8", "ä1"] {
        assert!(bad.parse::<Point>().is_err(), "{bad}");
    }
    // The errors give this board's limits, not the largest board's.
    let said = |e: Result<Point, gomoku::MoveError>| e.expect_err("refused").to_string();
    for bad in ["zz99", "p1"] {
        let text = said(Gomoku15::parse_move(bad));
        assert!(text.contains("a letter from a to o"), "{text}");
    }
    let text = said(Gomoku15::parse_move("a16"));
    assert!(text.contains("a number from 1 to 15"), "{text}");
    let text = said(Omok::parse_move("t1"));
    assert!(text.contains("from a to s"), "{text}");
    let largest = "zz99".parse::<Point>().expect_err("refused").to_string();
    assert!(largest.contains("from a to y"), "{largest}");
}

/// Winner by brute force: every maximal run on the board, judged by the rule.
fn naive_winner(b: &Board) -> Vec<Color> {
    let n = b.size() as i32;
    let mut winners = Vec::new();
    for color in [Color::Black, Color::White] {
        let at = |r: i32, c: i32| {
            r >= 0
                && c >= 0
                && r < n
                && c < n
                && b.stone(Point::new(r as usize, c as usize).expect("on board")) == Some(color)
        };
        let mut won = false;
        for r in 0..n {
            for c in 0..n {
                for (dr, dc) in gomoku::DIRECTIONS {
                    if !at(r, c) || at(r - dr, c - dc) {
                        continue; // not the start of a maximal run
                    }
                    let mut len = 0;
                    while at(r + len * dr, c + len * dc) {
                        len += 1;
                    }
                    won |= b.rule().wins(color, len as usize);
                }
            }
        }
        if won {
            winners.push(color);
        }
    }
    winners
}

#[test]
fn incremental_win_detection_matches_a_whole_board_scan() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut finished = 0;
    for game in 0..600 {
        let rule = Rule::ALL[game % 3];
        let size = [5, 7, 9, 15][game % 4];
        let mut b = Board::new(size, rule).expect("size");
        loop {
            let scan = naive_winner(&b);
            assert_eq!(
                b.winner().into_iter().collect::<Vec<_>>(),
                scan,
                "{rule} {size}: {}",
                b.board_string()
            );
            if b.is_over() {
                finished += 1;
                break;
            }
            let moves = b.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            b.play(mv).expect("generated moves are legal");
        }
    }
    assert_eq!(finished, 600);
}

#[test]
fn standard_rule_never_lets_an_overline_win() {
    let b = board(
        Rule::Standard,
        &["b8", "c8", "d8", "e8", "g8"],
        &["a1", "a2", "a3"],
    );
    let mut after = b.clone();
    after.play(pt("f8")).expect("legal");
    assert!(after.winner().is_none());
    let _ = Standard15::start();
}

#[test]
fn psq_records_round_trip_and_refuse_bad_lines() {
    use gomoku::PsqGame;
    let text = "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,8,120\n8,9,50\n-1\npbrain-a.exe\n";
    let game = PsqGame::parse(text).expect("valid record");
    assert_eq!(game.size, 15);
    // x is the column from the left, y the row from the top: (8,8) is h8, (8,9) is h7.
    assert_eq!(game.moves, vec![pt("h8"), pt("i8"), pt("h7")]);
    assert_eq!(game.times_ms, vec![0, 120, 50]);
    assert_eq!(PsqGame::parse(&game.to_psq()), Ok(game));

    for bad in [
        "",
        "Gomoku 15x15\n",
        "Piskvorky 15x20, 1:1, 0\n",
        "Piskvorky 30x30, 1:1, 0\n",
        "Piskvorky 15x15, 1:1, 0\n16,1,0\n",
        "Piskvorky 15x15, 1:1, 0\n0,1,0\n",
        "Piskvorky 15x15, 1:1, 0\n1,1,0\n1,1,0\n",
        "Piskvorky 15x15, 1:1, 0\n1,x,0\n",
        "Piskvorky 15x15, 1:1, 0\n1,2,3,4\n",
    ] {
        assert!(PsqGame::parse(bad).is_err(), "{bad:?}");
    }
}
