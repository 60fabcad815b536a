//! The `game` conformance suite on every preset that users pick, plus a small board played to
//! the end many times.

use game::conformance::{run, Config};
use gomoku::{presets, Gomoku, Gomoku15, Omok, Renju15, Standard15};

fn config(games: usize, seed: u64) -> Config {
    Config {
        games,
        seed,
        ..Config::default()
    }
}

#[test]
fn gomoku7_conforms() {
    let report =
        run::<Gomoku<presets::Freestyle7>>(&config(300, 1)).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(report.finished, 300);
    assert!(
        report.black_wins > 0 && report.white_wins > 0 && report.draws > 0,
        "{report:?}"
    );
}

#[test]
fn gomoku15_conforms() {
    let report = run::<Gomoku15>(&config(12, 2)).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(report.finished, 12);
}

#[test]
fn standard15_conforms() {
    run::<Standard15>(&config(12, 3)).unwrap_or_else(|f| panic!("{f}"));
}

#[test]
fn renju15_conforms() {
    let report = run::<Renju15>(&config(12, 4)).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(report.finished, 12);
}

#[test]
fn omok_conforms() {
    run::<Omok>(&config(4, 5)).unwrap_or_else(|f| panic!("{f}"));
}
