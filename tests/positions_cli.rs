//! `stonelab solve` refuses positions no game reaches and names what is wrong with a board
//! string (issue 12): an empty board, an empty centre square, a missing square, a bad side to
//! move, from the command line and from an `.obf` file.

mod common;
use common::stonelab;

const START: &str = "---------------------------OX------XO---------------------------";

#[test]
fn solve_refuses_an_empty_centre_square() {
    let empty = format!("{} X", "-".repeat(64));
    for args in [
        vec!["solve", empty.as_str()],
        vec!["solve", "--force", empty.as_str()],
    ] {
        let (ok, out, err) = stonelab(&args, "");
        assert!(!ok, "{out}");
        assert!(
            err.contains("impossible position: centre square d4 is empty"),
            "{err}"
        );
        assert!(!err.contains("neither a file nor a board string"), "{err}");
        assert_eq!(err.matches("is empty").count(), 1, "said once: {err}");
    }
    // One centre square missing on 6x6 (c4 empty).
    let six = "--------------OX-----O-------------- X";
    let (ok, _, err) = stonelab(&["solve", "--game", "othello6", six], "");
    assert!(!ok);
    assert!(err.contains("centre square c4 is empty"), "{err}");
}

#[test]
fn solve_refuses_impossible_positions_in_obf_files() {
    let dir = std::env::temp_dir().join(format!("stonelab-positions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("empty.obf");
    std::fs::write(
        &file,
        format!("% an empty board\n{} X; A1:+0;\n", "-".repeat(64)),
    )
    .expect("write");
    let (ok, _, err) = stonelab(&["solve", file.to_str().expect("utf-8")], "");
    assert!(!ok);
    assert!(
        err.contains("line 2: impossible position: centre square d4 is empty"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn solve_names_a_missing_square_and_a_bad_side_to_move() {
    let cases = [
        (
            format!("{START} Z"),
            "bad side to move \"Z\": expected X (black) or O (white)",
        ),
        (
            format!("{} X", &START[1..]),
            "board string has 63 squares, expected 64 (8x8)",
        ),
        (format!("{}X", &START[1..]), "one square is missing"),
    ];
    for (text, why) in cases {
        let (ok, _, err) = stonelab(&["solve", &text], "");
        assert!(!ok);
        assert!(err.contains(why), "{text}: {err}");
        assert!(!err.contains("transcript"), "{text}: {err}");
    }
    // The start itself still solves (4x4: in no time).
    let (ok, out, err) = stonelab(&["solve", "--game", "othello4", "-----OX--XO----- X"], "");
    assert!(ok, "{err}");
    assert!(out.contains(" -10 "), "{out}");
}
