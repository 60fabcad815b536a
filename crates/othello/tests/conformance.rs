//! Othello on every size passes the shared conformance suite of the `game` crate.

use game::conformance::{run, Config};
use othello::{Othello4, Othello6, Othello8};

#[test]
fn othello4_conforms() {
    let report = run::<Othello4>(&Config {
        games: 500,
        ..Config::default()
    })
    .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(report.finished, 500);
    assert!(report.black_wins > 0 && report.white_wins > 0);
}

#[test]
fn othello6_conforms() {
    let report = run::<Othello6>(&Config {
        games: 200,
        seed: 6,
        ..Config::default()
    })
    .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(report.finished, 200);
}

#[test]
fn othello8_conforms() {
    let report = run::<Othello8>(&Config {
        games: 100,
        seed: 8,
        ..Config::default()
    })
    .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(report.finished, 100);
    assert!(report.positions > 100 * 55);
}
