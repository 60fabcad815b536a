//! `stonelab solve`, `bench endgame` and `dp` driven as a user would.

mod common;
use common::stonelab;

#[test]
fn solve_reads_obf_files_and_checks_the_listed_scores() {
    let dir = std::env::temp_dir().join(format!("stonelab-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two.obf");
    // FFO #1 and #5 with their best listed scores.
    std::fs::write(
        &file,
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;\n",
    )
    .unwrap();
    let (ok, out, err) = stonelab(&["solve", file.to_str().unwrap()], "");
    assert!(ok, "{err}");
    assert!(out.contains("+18") && out.contains("ok"), "{out}");
    // A wrong listed score is reported and fails the command.
    std::fs::write(
        &file,
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+20;\n",
    )
    .unwrap();
    let (ok, out, _) = stonelab(&["solve", file.to_str().unwrap()], "");
    assert!(!ok);
    assert!(out.contains("WRONG: expected +20"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn solve_defaults_to_the_start_and_refuses_hopeless_positions() {
    let (ok, out, err) = stonelab(&["solve", "--game", "othello4"], "");
    assert!(ok, "{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("start") && l.contains(" -10 ")),
        "{out}"
    );
    let (ok, _, err) = stonelab(&["solve"], "");
    assert!(!ok);
    assert!(err.contains("--force"), "{err}");
    let (ok, _, err) = stonelab(&["solve", "not a board"], "");
    assert!(!ok);
    assert!(err.contains("neither a file nor a board string"), "{err}");
}

#[test]
fn bench_endgame_checks_and_fingerprints() {
    let (ok, out, err) = stonelab(
        &["bench", "endgame", "--range", "1-3", "--table-bits", "16"],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("node checksum:"), "{out}");
    assert!(!out.contains("WRONG"), "{out}");
    // The same run gives the same checksum.
    let again = stonelab(
        &["bench", "endgame", "--range", "1-3", "--table-bits", "16"],
        "",
    )
    .1;
    let sum = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("node checksum"))
            .map(str::to_string)
    };
    assert_eq!(sum(&out), sum(&again));
    let (ok, _, err) = stonelab(&["bench", "endgame", "--range", "0-70"], "");
    assert!(!ok && err.contains("1 to 59"), "{err}");
}

/// Sizes out of range are refused by name before any work, never clamped or allocated.
#[test]
fn bench_sizes_out_of_range_are_refused() {
    for (args, says) in [
        (
            &[
                "bench",
                "midgame",
                "--positions",
                "18446744073709551615",
                "--depth",
                "1",
            ][..],
            "--positions 18446744073709551615: 1 to 10000",
        ),
        (&["bench", "midgame", "--positions", "0"][..], "1 to 10000"),
        (
            &["bench", "othello6", "--table-bits", "99"][..],
            "--table-bits 99: 4 to 28",
        ),
        (
            &["bench", "othello6", "--table-bits", "0"][..],
            "--table-bits 0: 4 to 28",
        ),
        (
            &["bench", "minimax", "--positions", "99999999"][..],
            "at most 400 (the built-in balanced openings)",
        ),
        (
            &[
                "bench",
                "minimax",
                "--model",
                "models/othello8-dqn.safetensors",
            ][..],
            "this is a model for dqn, not a value network",
        ),
    ] {
        let (ok, _, err) = stonelab(args, "");
        assert!(!ok, "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn dp_reports_the_4x4_solution() {
    let (ok, out, err) = stonelab(&["dp"], "");
    assert!(ok, "{err}");
    assert!(out.contains("reachable positions: 62789"), "{out}");
    assert!(out.contains("(0 wrong)"), "{out}");
    assert!(out.contains("-100.00 (white wins"), "{out}");
    let (ok, _, err) = stonelab(&["dp", "--game", "othello6"], "");
    assert!(!ok && err.contains("only othello4"), "{err}");
}

/// A path that does not exist is named as a missing file, and an error that quotes its cause
/// says it once.
#[test]
fn errors_name_the_real_problem_once() {
    let (ok, _, err) = stonelab(&["solve", "/nonexistent/position.obf"], "");
    assert!(!ok);
    assert_eq!(err.trim(), "error: no such file: /nonexistent/position.obf");
    // A path that is not a regular file (a folder, a device) is named as such.
    let (ok, _, err) = stonelab(&["solve", "/dev/null"], "");
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "error: /dev/null: not a regular file (a position file is an .obf text file)"
    );
    let dir = std::env::temp_dir().join(format!("stonelab-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("notes.obf");
    std::fs::write(&path, "root:x:0:0\n").expect("write");
    let (ok, _, err) = stonelab(&["solve", path.to_str().expect("utf-8")], "");
    assert!(!ok);
    assert_eq!(err.matches("bad square character").count(), 1, "{err}");
    // An empty file has no positions to solve.
    let empty = dir.join("empty.obf");
    std::fs::write(&empty, "").expect("write");
    let (ok, _, err) = stonelab(&["solve", empty.to_str().expect("utf-8")], "");
    assert!(!ok && err.contains("no positions in the file"), "{err}");
}

/// A board string may start with `--` (the 4x4 start position does); only text that is no
/// board and looks like an option is named as one. A folder is named as such whatever its name.
#[test]
fn board_strings_starting_with_dashes_are_boards() {
    let (ok, out, err) = stonelab(
        &["solve", "--game", "othello4", "--", "-----OX--XO-----X"],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("-10"), "{out}");
    let (ok, _, err) = stonelab(&["solve", "--", "--depth"], "");
    assert!(!ok && err.contains("looks like an option"), "{err}");
    let dir = std::env::temp_dir().join(format!("stonelab-solve-dir-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("d")).expect("dir");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(["solve", "--game", "othello4", "d"])
        .current_dir(&dir)
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&status.stderr);
    assert!(!status.status.success());
    assert!(err.contains("d: not a regular file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A position file whose name is not UTF-8 (any bytes but `/` and NUL on Unix) is read like
/// any other; a missing one is named, lossily, as a missing file.
#[cfg(unix)]
#[test]
fn position_files_with_non_utf8_names_are_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::env::temp_dir().join(format!("stonelab-solve-raw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let name = std::ffi::OsStr::from_bytes(b"ffo-\xff\xfe.obf");
    let path = dir.join(name);
    std::fs::write(
        &path,
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;\n",
    )
    .expect("write");
    let run = |arg: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_stonelab"))
            .arg("solve")
            .arg(arg)
            .env("NO_COLOR", "1")
            .output()
            .expect("run")
    };
    let found = run(&path);
    let (out, err) = (
        String::from_utf8_lossy(&found.stdout),
        String::from_utf8_lossy(&found.stderr),
    );
    assert!(found.status.success(), "{err}");
    assert!(out.contains("+18") && out.contains("ok"), "{out}");
    let missing = run(&dir.join(std::ffi::OsStr::from_bytes(b"gone-\xff.obf")));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(!missing.status.success());
    assert!(
        err.contains("no such file") && err.contains("gone-"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
