//! The Omok experiments of `stonelab reproduce` through the binary, at a tiny size (2 games
//! per pair): the reports hold their tables, the authors' claims and the commands.

mod common;

use std::fs;

use common::{stonelab, TempDir};

/// Runs experiment `name` with 2 games per pair; returns its `report.md`.
fn tiny_report(name: &str) -> String {
    let dir = TempDir::new(name);
    let out = dir.path().join("report");
    let out_arg = out.to_str().expect("temp path is UTF-8");
    let (ok, stdout, err) = stonelab(
        &[
            "reproduce",
            name,
            "--games",
            "2",
            "--quiet",
            "--out",
            out_arg,
        ],
        "",
    );
    assert!(ok, "{stdout}\n{err}");
    assert!(stdout.contains(&format!("{name}: report in")), "{stdout}");
    fs::read_to_string(out.join("report.md")).expect("report.md")
}

/// The data rows of the first markdown table after `header`.
fn rows_after<'a>(md: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    md.lines()
        .skip_while(|l| !l.starts_with(header))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect()
}

#[test]
fn self_play_reports_who_wins_beside_the_authors() {
    let md = tiny_report("omok-self-play");
    assert!(
        md.contains("`stonelab reproduce omok-self-play --games 2`"),
        "{md}"
    );
    assert!(
        md.contains("Authors: black won every self-play game."),
        "{md}"
    );
    let rows = rows_after(&md, "| attack | games | black wins");
    assert_eq!(rows.len(), 3, "{md}");
    for (row, attack) in rows.iter().zip(["×1.3 (authors')", "×0", "×20"]) {
        assert_eq!(row[0], attack, "{md}");
        assert_eq!(row[1], "2", "{md}");
        // Plies between the shortest possible game and a full board.
        let (lo, hi) = row[6].split_once('–').expect("min–max");
        let (lo, hi): (usize, usize) = (lo.parse().unwrap(), hi.parse().unwrap());
        assert!((9..=361).contains(&lo) && lo <= hi && hi <= 361, "{md}");
    }
    assert!(md.contains("--random-openings 0"), "{md}");
}

#[test]
fn the_attack_sweep_reports_every_weight_and_the_move_classes() {
    let md = tiny_report("omok-attack-sweep");
    let rows = rows_after(&md, "| attack | games | omok-ab score");
    let attacks: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(attacks, ["×1.3", "×3", "×5", "×10", "×20"], "{md}");
    for row in &rows {
        assert_eq!(row[1], "2", "{md}");
        assert!(row[6].ends_with(']') && row[7].ends_with(']'), "{md}");
    }
    assert_eq!(rows_after(&md, "| attack | moves | extend only").len(), 5);
    assert!(
        md.contains("Authors' claim: raising the attack weight"),
        "{md}"
    );
}

/// The arena command a report lists for a part plays exactly that part's games: the ×20 row of
/// the attack sweep (2 games against `random`) and the arena's games have the same lengths.
#[test]
fn a_listed_arena_command_replays_the_reports_games() {
    let md = tiny_report("omok-attack-sweep");
    let row = rows_after(&md, "| attack | games | omok-ab score")
        .into_iter()
        .find(|r| r[0] == "×20")
        .expect("the ×20 row");
    let report_plies = row[5]
        .split_once(' ')
        .expect("mean ± interval")
        .0
        .to_string();
    let command = md
        .lines()
        .find(|l| l.starts_with("stonelab arena") && l.contains("attack=20,"))
        .expect("the ×20 arena command");
    // The command's spec is quoted: split it by hand (no shell here).
    let (before, rest) = command.split_once('\'').expect("a quoted spec");
    let (spec, after) = rest.split_once('\'').expect("the closing quote");
    let dir = TempDir::new("omok-arena-replay");
    let csv = dir.path().join("games.csv");
    let mut args: Vec<&str> = before.split_whitespace().skip(1).collect();
    args.push(spec);
    args.extend(after.split_whitespace());
    args.extend(["--csv", csv.to_str().expect("utf-8")]);
    let (ok, stdout, err) = stonelab(&args, "");
    assert!(ok, "{stdout}\n{err}");
    let text = fs::read_to_string(&csv).expect("games.csv");
    // Each row's last field is the move list (the spec's commas sit inside quotes before it).
    let plies: Vec<usize> = text
        .lines()
        .skip(1)
        .map(|l| {
            l.rsplit(',')
                .next()
                .expect("moves")
                .split_whitespace()
                .count()
        })
        .collect();
    assert_eq!(plies.len(), 2, "{text}");
    let mean = plies.iter().sum::<usize>() as f64 / plies.len() as f64;
    assert_eq!(format!("{mean:.1}"), report_plies, "{md}\n{text}");
}
