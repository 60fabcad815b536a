//! `stonelab arena` driven as a user would: tables, files, SPRT and clear errors.

mod common;

use std::path::PathBuf;

/// The shared helper, with no standard input.
fn stonelab(args: &[&str]) -> (bool, String, String) {
    common::stonelab(args, "")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("arena-cli");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    // Left by an earlier run: the arena refuses to replace a file without --force.
    let _ = std::fs::remove_file(dir.join(name));
    dir.join(name)
}

/// The output without the timing line, which varies from run to run.
fn without_timing(out: &str) -> String {
    out.lines()
        .filter(|l| !l.contains("games/s") && !l.contains("thread"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_round_robin_prints_pairs_and_standings_and_writes_files() {
    let csv = scratch("rr.csv");
    let json = scratch("rr.json");
    let args = [
        "arena",
        "--game",
        "othello4",
        "--agents",
        "random",
        "greedy",
        "alphabeta:depth=2",
        "--games",
        "6",
        "--seed",
        "3",
        "--threads",
        "1",
        "--csv",
        csv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    let (ok, out, err) = stonelab(&args);
    assert!(ok, "{err}");
    assert!(
        out.contains("stonelab arena othello4: 3 agents, 6 games per pair"),
        "{out}"
    );
    assert!(out.contains("random, 2 plies"), "{out}");
    assert!(out.contains("Pairs ("), "{out}");
    assert!(out.contains("Standings (Elo"), "{out}");
    assert!(out.contains("18 games in"), "{out}");
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 19, "{rows}");
    assert!(rows.starts_with("index,black,white,result,black_margin,ending,reason,opening,moves"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["game"], "othello4");
    assert_eq!(report["games"].as_array().unwrap().len(), 18);
    assert_eq!(report["pairs"].as_array().unwrap().len(), 3);
    assert!(report["agents"][2]["elo"].is_number());
    // The same seed on more threads prints the same results.
    let mut more = args.to_vec();
    more[12] = "3";
    // The files exist now: replacing them needs --force, and a refusal leaves them as they are.
    let (ok, _, err) = stonelab(&more);
    assert!(!ok && err.contains("exists: add --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), rows);
    more.push("--force");
    let (ok, again, err) = stonelab(&more);
    assert!(ok, "{err}");
    assert_eq!(without_timing(&again), without_timing(&out));
}

#[test]
fn an_sprt_reports_its_llr_and_decision() {
    let (ok, out, err) = stonelab(&[
        "arena",
        "--game",
        "othello6",
        "--agents",
        "alphabeta:depth=3",
        "random",
        "--sprt",
        "0,50",
        "--seed",
        "2",
        "--threads",
        "2",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("SPRT of alphabeta:depth=3 against random"),
        "{out}"
    );
    assert!(
        out.contains("H1 accepted: alphabeta:depth=3 is stronger by more than 0 Elo"),
        "{out}"
    );
    assert!(out.contains("SPRT: LLR "), "{out}");
}

#[test]
fn bad_input_gets_a_clear_error() {
    let (ok, _, err) = stonelab(&["arena", "--agents", "random", "alphabeta:dept=3"]);
    assert!(!ok);
    assert!(
        err.contains("agent \"alphabeta\" has no parameter \"dept\""),
        "{err}"
    );
    assert!(!err.contains("agent \"alphabeta:dept=3\": agent"), "{err}");
    assert!(err.contains("valid keys"), "{err}");

    let (ok, _, err) = stonelab(&["arena", "--agents", "random"]);
    assert!(!ok);
    assert!(err.contains("at least two agents"), "{err}");

    // A bad value (not only a bad key) is found before the banner too.
    for bad in ["alphabeta:depth=abc", "dqn:model=no-such-model.safetensors"] {
        let (ok, out, err) = stonelab(&["arena", "--agents", "random", bad]);
        assert!(!ok, "{bad}");
        assert!(out.is_empty(), "{bad}: refused before the banner: {out}");
        assert!(err.contains(bad.split(':').next().unwrap_or(bad)), "{err}");
    }

    let (ok, out, err) = stonelab(&["arena", "--agents", "random", "greedy", "--threads", "0"]);
    assert!(!ok);
    assert!(err.contains("--threads 0: 1 to 1024"), "{err}");
    assert!(out.is_empty(), "refused before the banner: {out}");

    // Sizes and the Elo prior are checked before any game.
    for (flag, value, says) in [
        ("--games", "18446744073709551615", "1 to 1000000 per pair"),
        ("--elo-prior", "NaN", "virtual draws, 0 or more"),
        ("--elo-prior=-1", "", "virtual draws, 0 or more"),
    ] {
        let mut args = vec![
            "arena", "--game", "othello4", "--agents", "random", "greedy", flag,
        ];
        if !value.is_empty() {
            args.push(value);
        }
        let (ok, out, err) = stonelab(&args);
        assert!(!ok, "{flag}");
        assert!(err.contains(says), "{flag}: {err}");
        assert!(out.is_empty(), "{flag}: {out}");
    }

    let (ok, _, err) = stonelab(&["arena", "--agents", "random", "greedy", "--sprt", "10,0"]);
    assert!(!ok);
    assert!(err.contains("elo0 < elo1"), "{err}");

    let (ok, _, err) = stonelab(&[
        "arena", "--agents", "random", "greedy", "random", "--sprt", "0,10",
    ]);
    assert!(!ok);
    assert!(err.contains("exactly two agents"), "{err}");

    let file = scratch("bad-openings.txt");
    std::fs::write(
        &file,
        "# two good lines, then a bad one\nf5d6\nf5 f6\nf5 a1\n",
    )
    .unwrap();
    let (ok, _, err) = stonelab(&[
        "arena",
        "--agents",
        "random",
        "greedy",
        "--openings",
        file.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("openings line 4 (\"f5 a1\"): move 2 (a1) is illegal: it would flip no disc"),
        "{err}"
    );
}

#[test]
fn an_openings_file_is_used_in_order() {
    let file = scratch("openings.txt");
    std::fs::write(&file, "c2 b4 # a comment\n\nb3b2\n").unwrap();
    let json = scratch("openings.json");
    let (ok, out, err) = stonelab(&[
        "arena",
        "--game",
        "othello6",
        "--agents",
        "random",
        "greedy",
        "--games",
        "4",
        "--openings",
        file.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("from 2 openings"), "{out}");
    // One of the two lines records no score: no balance line.
    assert!(!out.contains("recorded scores"), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["openings"], serde_json::json!(["c2 b4", "b3 b2"]));
    for game in report["games"].as_array().unwrap() {
        let moves = game["moves"].as_str().unwrap();
        assert!(
            moves.starts_with("c2 b4 ") || moves.starts_with("b3 b2 "),
            "{moves}"
        );
    }
}

/// An unknown agent is reported once, with the valid ones.
#[test]
fn an_unknown_agent_is_reported_once() {
    let (ok, _, err) = stonelab(&["arena", "--agents", "nonsense", "random", "--games", "2"]);
    assert!(!ok);
    assert_eq!(err.matches("unknown agent").count(), 1, "{err}");
    assert!(err.contains("valid agents: alphabeta"), "{err}");
}

/// `--opening-set xot` plays the bundled XOT-style lines in order; a game without them, or a
/// second source of openings, is refused.
#[test]
fn the_xot_opening_set_is_played_in_order() {
    let json = scratch("xot.json");
    let (ok, out, err) = stonelab(&[
        "arena",
        "--agents",
        "random",
        "greedy",
        "--games",
        "4",
        "--opening-set",
        "xot",
        "--json",
        json.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("XOT"), "{out}");
    // The header shows how even the two openings played are, by their recorded scores.
    let scores: Vec<f64> = arena::recorded_scores(arena::OTHELLO8_XOT)
        .into_iter()
        .take(2)
        .map(Option::unwrap)
        .collect();
    let balance = arena::Balance::of(&scores).unwrap();
    assert!(
        out.contains(&format!("openings' recorded scores: {balance}")),
        "{out}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let first: Vec<String> = arena::OTHELLO8_XOT
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(2)
        .map(|l| {
            let moves = l.split('#').next().unwrap().trim();
            let squares: Vec<&str> = (0..moves.len() / 2)
                .map(|i| &moves[2 * i..2 * i + 2])
                .collect();
            squares.join(" ")
        })
        .collect();
    assert_eq!(report["openings"], serde_json::json!(first));
    let (ok, _, err) = stonelab(&[
        "arena",
        "--game",
        "othello6",
        "--agents",
        "random",
        "greedy",
        "--opening-set",
        "xot",
    ]);
    assert!(!ok);
    assert!(err.contains("othello6 has no such bundled list"), "{err}");
    let (ok, _, err) = stonelab(&[
        "arena",
        "--agents",
        "random",
        "greedy",
        "--opening-set",
        "xot",
        "--random-openings",
        "4",
    ]);
    assert!(!ok);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// With standard error not a terminal (here a pipe), a match writes plain progress lines as it
/// goes (every `STONELAB_PROGRESS_SECONDS`, 5 s by default), not only its result at the end.
#[test]
fn a_piped_match_writes_plain_progress_lines() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args([
            "arena",
            "--game",
            "othello6",
            "--games",
            "60",
            "--seed",
            "3",
            "--threads",
            "1",
            "--agents",
            "alphabeta:depth=5",
            "alphabeta:depth=4",
        ])
        .env("STONELAB_PROGRESS_SECONDS", "0.1")
        .output()
        .expect("run");
    assert!(output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("games: "))
        .unwrap_or_else(|| panic!("no progress line: {err}"));
    assert!(
        line.contains("/60 (") && line.contains("s elapsed, ETA "),
        "{line}"
    );
}
