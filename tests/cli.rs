//! The `stonelab` binary driven through pipes, as a user would from a script.

mod common;
use common::stonelab;

use std::io::Write;
use std::process::{Command, Stdio};

use game::{Color, Game};
use othello::{replay_transcript, Move, Othello4};

fn field<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in:\n{text}"))
}

#[test]
fn ai_game_finishes_and_its_transcript_and_score_check_out() {
    let args = [
        "play", "--black", "random", "--white", "greedy", "--seed", "5",
    ];
    let (ok, out, err) = stonelab(&args, "");
    assert!(ok, "{err}");
    assert!(out.contains("Game over."), "{out}");
    let transcript = field(&out, "Transcript: ");
    let game = replay_transcript::<8>(transcript).expect("printed transcript replays");
    let outcome = game.last().outcome().expect("printed game is finished");
    match outcome.winner() {
        Some(w) => assert_eq!(
            field(&out, "Winner: "),
            format!("{w} by {}.", outcome.score_for(w))
        ),
        None => assert!(out.contains("Draw.")),
    }
    // The same seed plays the same game; another seed (almost surely) another.
    assert_eq!(stonelab(&args, "").1, out);
    let other = stonelab(
        &[
            "play", "--black", "random", "--white", "greedy", "--seed", "6",
        ],
        "",
    )
    .1;
    assert_ne!(field(&other, "Transcript: "), transcript);
}

#[test]
fn human_input_is_checked_and_bad_entries_change_nothing() {
    let input = "z9\na1\npass\nhint\nhelp\nD3\nundo\nundo\nf5\nquit\n";
    let (ok, out, err) = stonelab(&["play", "--white", "greedy", "--seed", "1"], input);
    assert!(ok, "{err}");
    assert!(out.contains("Cannot read \"z9\""), "{out}");
    assert!(
        out.contains("Illegal move a1: it would flip no disc. Legal moves: d3 c4 f5 e6."),
        "{out}"
    );
    assert!(out.contains("You cannot pass"), "{out}");
    assert!(out.contains("Legal moves: d3 c4 f5 e6. Commands:"), "{out}");
    // `hint` asks the game's default AI for a legal move.
    let hint = out
        .split("Hint (othello")
        .nth(1)
        .and_then(|rest| rest.split_once("): "))
        .map(|(_, mv)| mv)
        .unwrap_or_else(|| panic!("no hint in:\n{out}"));
    assert!(
        ["d3", "c4", "f5", "e6"].iter().any(|m| hint.starts_with(m)),
        "{out}"
    );
    assert!(out.contains("white (greedy) plays"), "{out}");
    // Greedy scores in discs: after d3 and its reply the discs are level.
    assert!(out.contains("(eval +0.00)."), "{out}");
    assert!(out.contains("Nothing to undo."), "{out}");
    // After undoing d3 and the reply, f5 is the only move in the transcript.
    assert!(out.contains("Quit. Transcript so far: f5"), "{out}");
    assert!(!out.contains("Transcript so far: d3"), "{out}");
}

#[test]
fn a_forced_pass_is_typed_and_announced() {
    // Find a 4x4 game with a pass, then play it as two humans through the terminal.
    fn find(pos: Othello4, line: &mut Vec<Move>) -> bool {
        if pos.is_over() {
            return line.contains(&Move::Pass);
        }
        for mv in pos.legal_moves() {
            line.push(mv);
            if find(pos.play_unchecked(mv), line) {
                return true;
            }
            line.pop();
        }
        false
    }
    let mut line = Vec::new();
    assert!(find(Othello4::new(), &mut line));
    let pass_at = line.iter().position(|m| *m == Move::Pass).expect("pass");
    // Before the pass, try a square: it is refused with the reason.
    let before_pass = line[..pass_at]
        .iter()
        .fold(Othello4::new(), |p, m| p.play_unchecked(*m));
    let empty = othello::Square::iter_bits(before_pass.empty())
        .next()
        .expect("an empty square");
    let mut input: Vec<String> = line.iter().map(ToString::to_string).collect();
    input.insert(pass_at, empty.to_string());
    let input = input.join("\n") + "\n";
    let (ok, out, err) = stonelab(
        &[
            "play", "--game", "othello4", "--black", "human", "--white", "human",
        ],
        &input,
    );
    assert!(ok, "{err}");
    assert!(out.contains("has no legal move: type pass."), "{out}");
    assert!(out.contains("must pass"), "{out}");
    assert!(out.contains(" passes."), "{out}");
    assert!(out.contains("Game over."), "{out}");
    let final_pos = line
        .iter()
        .fold(Othello4::new(), |p, m| p.play_unchecked(*m));
    let outcome = final_pos.outcome().expect("over");
    match outcome.winner() {
        Some(w) => assert_eq!(
            field(&out, "Winner: "),
            format!("{w} by {}.", outcome.score_for(w))
        ),
        None => assert!(out.contains("Draw."), "{out}"),
    }
    let (b, w) = (final_pos.count(Color::Black), final_pos.count(Color::White));
    assert_eq!(
        outcome.score_for(Color::Black).signum(),
        (b as i32 - w as i32).signum()
    );
}

#[test]
fn no_subcommand_serves_the_app() {
    // Port 8080 may be taken on a busy machine: then the clear error proves the attempt.
    let line = server_output(&[]);
    assert!(
        line.contains("stonelab is running: open http://127.0.0.1:8080/")
            || line.contains("127.0.0.1:8080 is already in use"),
        "{line}"
    );
}

#[test]
fn serve_says_where_it_listens_and_refuses_a_taken_port() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("address").port().to_string();
    let line = server_output(&["serve", "--port", &port]);
    assert!(
        line.contains("already in use") && line.contains("--port"),
        "{line}"
    );
    drop(listener);
    let line = server_output(&["serve", "--port", "0"]);
    assert!(
        line.contains("stonelab is running: open http://127.0.0.1:"),
        "{line}"
    );
}

#[test]
fn closed_input_ends_the_game_cleanly() {
    let (ok, out, _) = stonelab(&["play"], "d3\n");
    assert!(ok);
    assert!(out.contains("Input closed"), "{out}");
}

#[test]
fn perft_prints_each_depth() {
    let (ok, out, err) = stonelab(
        &["perft", "--game", "othello4", "--depth", "16", "--baseline"],
        "",
    );
    assert!(ok, "{err}");
    let counts: Vec<&str> = out
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(counts.len(), 16, "{out}");
    assert_eq!(counts[2], "44");
    assert_eq!(counts[15], "60060");
    let (ok, out, _) = stonelab(&["perft", "--depth", "6", "--threads", "2"], "");
    assert!(ok);
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["6", "8200"])),
        "{out}"
    );
}

#[test]
fn perft_from_a_board_string_that_starts_with_a_dash() {
    // FFO #2: most board strings start with '-', which must not read as an option.
    let ffo2 = "-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X";
    let (ok, out, err) = stonelab(&["perft", "--depth", "1", "--from", ffo2], "");
    assert!(ok, "{err}");
    // The suite lists 8 legal moves for this position.
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["1", "8"])),
        "{out}"
    );
}

#[test]
fn non_utf8_input_is_an_unreadable_entry_not_a_crash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(["play", "--color", "never", "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"\xff\xfe\nf5\nquit\n")
        .expect("write");
    let out = child.wait_with_output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Cannot read"), "{text}");
    assert!(text.contains("Transcript so far: f5"), "{text}");
}

#[test]
fn bad_arguments_are_reported() {
    let (ok, _, err) = stonelab(&["play", "--game", "chess"], "");
    assert!(!ok);
    assert!(err.contains("othello8"), "{err}");
    let (ok, _, err) = stonelab(&["perft", "--from", "XO"], "");
    assert!(!ok);
    assert!(err.contains("board string has 2 squares"), "{err}");
    for (args, says) in [
        (&["perft", "--depth", "0"][..], "--depth 0 counts nothing"),
        (&["perft", "--threads", "0"][..], "--threads"),
        (
            &["dp", "--tolerance", "1e300"][..],
            "--tolerance 1e300: must be in (0, 1]",
        ),
        (
            &["dp", "--discount", "0"][..],
            "--discount 0.0: must be in (0, 1]",
        ),
        (
            &["arena", "--agents", "alphabeta:tt=99", "random"][..],
            "expected a whole number from 4 to 24",
        ),
        (
            &[
                "arena",
                "--agents",
                "alphabeta:depth=99999999999999999999",
                "random",
            ][..],
            "expected a whole number from 1 to 128",
        ),
    ] {
        let (ok, _, err) = stonelab(args, "");
        assert!(!ok, "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn train_q_table_writes_a_run_folder() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("train-q-table");
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().expect("utf-8 path");
    let (ok, text, err) = stonelab(
        &[
            "train",
            "q-table",
            "--episodes",
            "3000",
            "--out",
            out,
            "--quiet",
            "--evals",
            "3",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(text.contains("greedy move optimal in"), "{text}");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).expect("config"))
            .expect("json");
    assert_eq!(config["algo"], "q-table");
    let eval = std::fs::read_to_string(dir.join("eval.csv")).expect("eval.csv");
    let rows: Vec<&str> = eval.lines().collect();
    assert_eq!(rows[0], "episode,optimal_fraction");
    assert_eq!(rows.len(), 1 + 1 + 3, "{eval}");
    let first: f64 = rows[1].split(',').nth(1).unwrap().parse().unwrap();
    let last: f64 = rows[rows.len() - 1]
        .split(',')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(last > first, "{eval}");
    let log = std::fs::read_to_string(dir.join("log.csv")).expect("log.csv");
    assert_eq!(log.lines().count(), 1 + 1000);
    // An existing run is not overwritten without --force; other games are refused.
    let (ok, _, err) = stonelab(&["train", "q-table", "--episodes", "10", "--out", out], "");
    assert!(!ok && err.contains("--force"), "{err}");
    let (ok, _, err) = stonelab(
        &[
            "train", "q-table", "--game", "othello8", "--out", out, "--force",
        ],
        "",
    );
    assert!(!ok && err.contains("othello4"), "{err}");
    // An option another algorithm reads is refused by name, before anything is written.
    let fresh = dir.with_extension("other");
    let _ = std::fs::remove_dir_all(&fresh);
    let fresh_out = fresh.to_str().expect("utf-8 path");
    for (args, flag) in [
        (vec!["q-table", "--lr", "0.1"], "--lr"),
        (vec!["patterns", "--episodes", "5"], "--episodes"),
        (vec!["probcut", "--lambda", "2"], "--lambda"),
        (vec!["q-mlp", "--opponent", "greedy"], "--opponent"),
    ] {
        let mut command = vec!["train"];
        command.extend(&args);
        command.extend(["--out", fresh_out]);
        let (ok, _, err) = stonelab(&command, "");
        assert!(!ok, "{args:?}");
        assert!(
            err.contains(&format!("{flag} is not a setting of `train {}`", args[0])),
            "{args:?}: {err}"
        );
        assert!(!fresh.exists(), "{args:?}: nothing is written");
    }
}

/// Binary input (a NUL byte, as `< /dev/zero` gives without end) stops the game at once.
#[test]
fn binary_input_stops_the_game() {
    let (ok, out, err) = stonelab(&["play", "--white", "greedy"], "\0\0\0\0d3\n");
    assert!(ok, "{err}");
    assert!(
        out.contains("Input is not text (a NUL byte); stopping"),
        "{out}"
    );
}

/// A huge input line is neither kept whole nor echoed whole: the refusal quotes 40 characters.
#[test]
fn a_huge_input_line_is_refused_without_echoing_it() {
    let input = format!("{}\nquit\n", "x".repeat(5_000_000));
    let (ok, out, err) = stonelab(&["play", "--white", "greedy"], &input);
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!("Cannot read \"{}…\"", "x".repeat(40))),
        "{}",
        &out[..out.len().min(400)]
    );
    assert!(out.len() < 10_000, "echoed {} bytes", out.len());
}

/// Starts `stonelab ARGS`, collects what it prints on stdout and stderr until it says it is
/// running (or exits, or 20 s pass), then stops it.
fn server_output(args: &[&str]) -> String {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start stonelab");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let out = child.stdout.take().expect("stdout");
    let err = child.stderr.take().expect("stderr");
    let tx2 = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx2.send(line);
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut text = String::new();
    let mut running = false;
    loop {
        // Once it runs, what the other stream printed before arrives within moments.
        let wait = if running {
            std::time::Duration::from_millis(500)
        } else {
            deadline.saturating_duration_since(std::time::Instant::now())
        };
        let Ok(line) = rx.recv_timeout(wait) else {
            break;
        };
        running |= line.contains("stonelab is running");
        text.push_str(&line);
        text.push('\n');
    }
    let _ = child.kill();
    let _ = child.wait();
    text
}

#[test]
fn serving_beyond_loopback_is_an_explicit_choice_with_a_warning() {
    let text = server_output(&["serve", "--host", "LocalHost", "--port", "0"]);
    assert!(
        text.contains("stonelab is running: open http://127.0.0.1:"),
        "{text}"
    );
    let text = server_output(&["serve", "--host", "0.0.0.0", "--port", "0"]);
    assert!(
        text.contains("0.0.0.0 is not a loopback address") && text.contains("--allow-remote"),
        "{text}"
    );
    assert!(!text.contains("stonelab is running"), "{text}");
    let text = server_output(&[
        "serve",
        "--host",
        "0.0.0.0",
        "--allow-remote",
        "--port",
        "0",
    ]);
    assert!(
        text.contains("warning: serving beyond this machine")
            && text.contains("stonelab is running"),
        "{text}"
    );
    let text = server_output(&["serve", "--host", "my.box", "--port", "0"]);
    assert!(
        text.contains("is not an IP address or `localhost`"),
        "{text}"
    );
}

#[test]
fn an_exact_move_says_so() {
    let (ok, out, err) = stonelab(
        &[
            "play", "--game", "othello4", "--black", "solver", "--white", "greedy",
        ],
        "",
    );
    assert!(ok, "{err}");
    // The solver settles 4x4 from the first move: a proven result, marked exact.
    let first = out
        .lines()
        .find(|l| l.contains("black (solver) plays"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(first.contains(", exact)."), "{first}");
    // Greedy's one-ply disc counts are not.
    assert!(out
        .lines()
        .filter(|l| l.contains("(greedy) plays"))
        .all(|l| !l.contains("exact")));
}

#[test]
fn perft_refuses_an_impossible_position() {
    let empty = format!("{} X", "-".repeat(64));
    let (ok, _, err) = stonelab(&["perft", "--depth", "1", "--from", &empty], "");
    assert!(!ok);
    assert!(err.contains("impossible position"), "{err}");
    assert_eq!(err.matches("impossible position").count(), 1, "{err}");
}

/// Runs `stonelab args` with its standard output closed after it wrote `lines` lines (a
/// reader that has gone, as in `stonelab ... | head -1`); returns its exit code and standard
/// error.
fn with_stdout_closed(args: &[&str], lines: usize) -> (Option<i32>, String) {
    use std::io::BufRead;
    let (reader, writer) = std::io::pipe().expect("a pipe");
    // Closed before the command starts, when it is to write nothing.
    let reader = (lines > 0).then_some(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .spawn()
        .expect("start stonelab");
    if let Some(reader) = reader {
        let mut reader = std::io::BufReader::new(reader);
        for _ in 0..lines {
            let mut line = String::new();
            reader.read_line(&mut line).expect("a line");
        }
    }
    let out = child.wait_with_output().expect("stonelab ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn a_closed_or_full_standard_output_ends_a_command_without_a_panic() {
    for args in [
        &["perft", "--game", "othello4", "--depth", "6"][..],
        &["agents", "--game", "othello8"][..],
        &["reproduce", "--list"][..],
    ] {
        let (code, err) = with_stdout_closed(args, 0);
        assert_eq!(code, Some(141), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    // A full disk is an error, said once.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(["perft", "--game", "othello4", "--depth", "3"])
        .stdout(Stdio::from(full))
        .output()
        .expect("stonelab runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.trim(),
        "error: cannot write to standard output: No space left on device (os error 28)"
    );
    // The arena writes its files before it prints its results, so an output closed while it
    // plays (after its two header lines: the match, the openings' recorded scores) loses none
    // of them.
    let dir = common::run_dir("closed-stdout");
    std::fs::create_dir_all(&dir).expect("dir");
    let json = dir.join("r.json");
    let csv = dir.join("g.csv");
    let (json_arg, csv_arg) = (json.to_str().expect("utf-8"), csv.to_str().expect("utf-8"));
    let (code, err) = with_stdout_closed(
        &[
            "arena",
            "--agents",
            "alphabeta:depth=5",
            "greedy",
            "--games",
            "20",
            "--quiet",
            "--json",
            json_arg,
            "--csv",
            csv_arg,
        ],
        2,
    );
    assert_eq!(code, Some(141), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the report")).expect("json");
    assert_eq!(report["games"].as_array().map(Vec::len), Some(20));
    assert_eq!(
        std::fs::read_to_string(&csv).expect("csv").lines().count(),
        21
    );
}

/// `bench think` measures an agent's thinking time against its `time=` (figures in the closing
/// notes come from the release build); it refuses an agent without a clock.
#[test]
fn bench_think_reports_the_share_of_the_clock_used() {
    let (ok, out, err) = common::stonelab(
        &[
            "bench",
            "think",
            "--game",
            "othello6",
            "--agent",
            "alphabeta:time=30ms",
            "--positions",
            "3",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("limit 30 ms")
            && out.contains("% of the limit), median ")
            && out.contains(" of 3 over the limit"),
        "{out}"
    );
    let (ok, _, err) = common::stonelab(&["bench", "think", "--agent", "othello:depth=2"], "");
    assert!(!ok && err.contains("give it a time per move"), "{err}");
}
