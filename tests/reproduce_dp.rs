//! `stonelab reproduce othello4-value-iteration` through the binary, the experiment list, and
//! the refusals of `reproduce` (unknown names, a report folder that is already there); and
//! `stonelab dp`'s per-sweep trace.

mod common;

use std::fs;
use std::path::Path;

use common::{stonelab, TempDir};

/// Every experiment `reproduce --list` must show.
const EXPERIMENTS: [&str; 10] = [
    "az-othello6",
    "omok-attack-sweep",
    "omok-tables",
    "omok-self-play",
    "omok-depth",
    "seed000-greedy",
    "seed000-uct",
    "seed000-competitive",
    "seed001",
    "othello4-value-iteration",
];

fn arg(p: &Path) -> &str {
    p.to_str().expect("temp path is UTF-8")
}

/// `stonelab reproduce othello4-value-iteration --games 2 --quiet --out OUT`.
fn reproduce_dp(out: &Path) -> (bool, String, String) {
    stonelab(
        &[
            "reproduce",
            "othello4-value-iteration",
            "--games",
            "2",
            "--quiet",
            "--out",
            arg(out),
        ],
        "",
    )
}

#[test]
fn the_report_holds_the_sweep_table_and_the_convergence_line() {
    let dir = TempDir::new("report");
    let out = dir.path().join("report");
    let (ok, stdout, err) = reproduce_dp(&out);
    assert!(ok, "{stdout}\n{err}");
    assert!(
        stdout.contains("othello4-value-iteration: report in"),
        "{stdout}"
    );
    let md = fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        md.contains("| sweep | largest update | positions changed |"),
        "{md}"
    );
    // Sweeps numbered from 1; the last one's largest update is 0.
    assert!(md.contains("\n| 1 | "), "{md}");
    let sweeps: Vec<(usize, String)> = md
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            match cells.as_slice() {
                [n, update, changed] if changed.parse::<usize>().is_ok() => {
                    Some((n.parse().ok()?, (*update).to_string()))
                }
                _ => None,
            }
        })
        .collect();
    assert!(sweeps.len() >= 2, "{md}");
    for (i, (n, _)) in sweeps.iter().enumerate() {
        assert_eq!(*n, i + 1, "{md}");
    }
    assert_eq!(sweeps.last().map(|s| s.1.as_str()), Some("0"), "{md}");
    let converged = format!(
        "Converged after {} sweeps: sweep {}'s largest update is 0",
        sweeps.len(),
        sweeps.len()
    );
    assert!(md.contains(&converged), "{md}");
    assert!(md.contains("Reachable positions: **62789**"), "{md}");
    assert!(md.contains("**-100**: white wins"), "{md}");
    assert!(md.contains("0 wrong"), "{md}");
    for opponent in ["`random`", "`greedy`", "`alphabeta:depth=2`"] {
        assert!(md.contains(opponent), "{md}");
    }
    assert!(md.contains("stonelab dp\n"), "{md}");
    assert!(out.join("largest_update.png").is_file());
    assert!(out.join("positions_changed.png").is_file());
}

#[test]
fn the_list_names_every_experiment() {
    let (ok, stdout, err) = stonelab(&["reproduce", "--list"], "");
    assert!(ok, "{err}");
    for name in EXPERIMENTS {
        assert!(stdout.contains(name), "{name} missing from\n{stdout}");
    }
}

#[test]
fn an_unknown_experiment_is_refused_with_the_list() {
    let dir = TempDir::new("unknown");
    let out = dir.path().join("report");
    let (ok, _, err) = stonelab(
        &["reproduce", "othello5-value-iteration", "--out", arg(&out)],
        "",
    );
    assert!(!ok);
    assert!(
        err.contains("unknown experiment \"othello5-value-iteration\""),
        "{err}"
    );
    for name in EXPERIMENTS {
        assert!(err.contains(name), "{name} missing from\n{err}");
    }
    assert!(!out.exists(), "nothing is created for an unknown name");
}

#[test]
fn an_existing_report_is_kept_without_force() {
    let dir = TempDir::new("existing");
    let out = dir.path();
    fs::write(out.join("report.md"), "an earlier report\n").expect("write");
    let (ok, _, err) = reproduce_dp(out);
    assert!(!ok);
    assert!(
        err.contains("already holds a report") && err.contains("--force"),
        "{err}"
    );
    let names: Vec<_> = fs::read_dir(out)
        .expect("read")
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    assert_eq!(names, ["report.md"]);
    assert_eq!(
        fs::read_to_string(out.join("report.md")).expect("read"),
        "an earlier report\n"
    );
}

#[test]
fn dp_prints_every_sweep() {
    let (ok, stdout, err) = stonelab(&["dp", "--no-verify"], "");
    assert!(ok, "{err}");
    let sweeps: Vec<&str> = stdout.lines().filter(|l| l.starts_with("sweep ")).collect();
    assert!(sweeps.len() >= 2, "{stdout}");
    for (i, line) in sweeps.iter().enumerate() {
        assert!(
            line.starts_with(&format!("sweep {}: largest update ", i + 1)),
            "{stdout}"
        );
    }
    let last = sweeps.last().copied().unwrap_or_default();
    assert!(last.contains("largest update 0 ("), "{stdout}");
    assert!(
        stdout.contains(&format!("sweeps: {} (", sweeps.len())),
        "{stdout}"
    );
}

/// `--force` replaces only a report: a folder holding anything a report does not write is
/// refused by name and left as it was.
#[test]
fn force_replaces_only_a_report() {
    let dir = TempDir::new("force-other");
    let out = dir.path();
    fs::write(out.join("report.md"), "an earlier report\n").expect("write");
    fs::create_dir(out.join("src")).expect("mkdir");
    fs::write(out.join("src/main.rs"), "fn main() {}\n").expect("write");
    fs::write(out.join("thesis.tex"), "\\documentclass{article}\n").expect("write");
    let mut args = vec![
        "reproduce",
        "othello4-value-iteration",
        "--quiet",
        "--force",
    ];
    args.extend(["--out", arg(out)]);
    let (ok, _, err) = stonelab(&args, "");
    assert!(!ok);
    assert!(
        err.contains("holds 2 entries a report does not write (\"src\", ...)"),
        "{err}"
    );
    assert!(out.join("src/main.rs").is_file());
    assert!(out.join("thesis.tex").is_file());
    assert_eq!(
        fs::read_to_string(out.join("report.md")).expect("read"),
        "an earlier report\n"
    );
}

/// A `--force` run that fails puts the report it was replacing back; one that succeeds leaves
/// only its own report.
#[test]
fn a_failed_forced_run_keeps_the_previous_report() {
    let dir = TempDir::new("force-fail");
    let out = dir.path();
    fs::write(out.join("report.md"), "an earlier report\n").expect("write");
    fs::write(out.join("table1.png"), "an earlier chart").expect("write");
    let missing = out.join("no-such-model.safetensors");
    let (ok, _, err) = stonelab(
        &[
            "reproduce",
            "paper-table1",
            "--cnn",
            arg(&missing),
            "--quiet",
            "--force",
            "--out",
            arg(out),
        ],
        "",
    );
    assert!(!ok, "{err}");
    let mut names: Vec<_> = fs::read_dir(out)
        .expect("read")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    assert_eq!(names, ["report.md", "table1.png"], "{err}");
    // A failed run into a new folder leaves no folder behind, nor the ones above it it made.
    let fresh = out.join("new").join("report");
    let (ok, _, err) = stonelab(
        &[
            "reproduce",
            "paper-table1",
            "--cnn",
            arg(&missing),
            "--quiet",
            "--out",
            arg(&fresh),
        ],
        "",
    );
    assert!(!ok && err.contains("no CNN model"), "{err}");
    assert!(!out.join("new").exists(), "{err}");
    assert_eq!(
        fs::read_to_string(out.join("report.md")).expect("read"),
        "an earlier report\n"
    );
    let (ok, _, err) = stonelab(
        &[
            "reproduce",
            "othello4-value-iteration",
            "--games",
            "2",
            "--quiet",
            "--force",
            "--out",
            arg(out),
        ],
        "",
    );
    assert!(ok, "{err}");
    let report = fs::read_to_string(out.join("report.md")).expect("read");
    assert!(report.starts_with("# othello4-value-iteration"), "{report}");
    assert!(!out.join("table1.png").exists());
    assert!(!out.join(".previous-output").exists());
}
