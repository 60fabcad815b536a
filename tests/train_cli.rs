//! `stonelab train` for the neural agents, through the binary: the run folder, a resumed run
//! that logs exactly what an uninterrupted one does, a run killed with SIGKILL that resumes,
//! trained models used by spec, and clear errors.

mod common;
use common::{run, run_dir, stonelab};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A tiny DQN on 4x4 so the runs take seconds.
/// A tiny run of `algo` (the DQN trainers' own settings only where the algorithm reads them:
/// `train` refuses an option of another algorithm).
fn tiny(algo: &str, out: &Path, episodes: &str) -> Vec<String> {
    let mut args: Vec<&str> = vec![
        "train",
        algo,
        "--game",
        "othello4",
        "--episodes",
        episodes,
        "--out",
        out.to_str().expect("utf-8"),
        "--quiet",
        "--eval-every",
        "32",
        "--eval-games",
        "10",
        "--checkpoint-every",
        "32",
        "--threads",
        "1",
    ];
    if algo.starts_with("dqn") {
        args.extend([
            "--parallel",
            "8",
            "--warmup",
            "40",
            "--batch-size",
            "16",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--epsilon-decay",
            "64",
        ]);
    }
    args.iter().map(|s| (*s).to_string()).collect()
}

/// log.csv rows without the wall-clock column.
fn log_rows(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("log.csv"))
        .expect("log.csv")
        .lines()
        .skip(1)
        .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string())
        .collect()
}

#[test]
fn a_dqn_run_writes_its_folder_and_resumes_like_an_uninterrupted_run() {
    let a = run_dir("train-dqn-a");
    let (ok, text, err) = run(&tiny("dqn", &a, "64"));
    assert!(ok, "{err}");
    assert!(text.contains("dqn on othello4: 64 episodes"), "{text}");
    for file in [
        "config.json",
        "log.csv",
        "eval.csv",
        "plots/loss.png",
        "plots/winrate.png",
        "checkpoints/last.safetensors",
        "checkpoints/last.json",
        "checkpoints/ep-00000032/state.json",
        "checkpoints/ep-00000064/optim.bpk",
        "checkpoints/ep-00000064/replay.bin",
    ] {
        assert!(a.join(file).exists(), "{file} missing");
    }
    assert_eq!(log_rows(&a).len(), 64);
    let eval = std::fs::read_to_string(a.join("eval.csv")).expect("eval");
    let episodes: Vec<&str> = eval
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap_or(""))
        .collect();
    assert_eq!(episodes, ["0", "0", "32", "32", "64", "64"], "{eval}");
    assert!(eval.contains(",dqn,random,10,") && eval.contains(",dqn,greedy,10,"));
    let card: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(a.join("checkpoints/last.json")).expect("card"),
    )
    .expect("json");
    let weights = std::fs::read(a.join("checkpoints/last.safetensors")).expect("weights");
    assert_eq!(card["sha256"], learn::checkpoint::sha256_hex(&weights));
    assert_eq!(card["episodes"], 64);
    assert_eq!(card["arch"]["kind"], "resnet");
    assert!(card["last_eval"]["dqn vs random"]["games"] == 10, "{card}");

    // Continue to 96 episodes; an uninterrupted 96-episode run logs the same games.
    let mut more = tiny("dqn", &a, "96");
    more.push("--resume".into());
    let (ok, text, err) = run(&more);
    assert!(ok, "{err}");
    // The summary counts what this invocation played, and names the run's total.
    assert!(
        text.contains("dqn on othello4: 32 episodes (65 to 96) in ")
            && text.contains("; the run has 96;"),
        "{text}"
    );
    // The new total is the run's: its config says so, and a plain --resume has nothing to do.
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("config.json")).expect("config"))
            .expect("json");
    assert_eq!(config["episodes"], 96);
    // Without --game the run's own game (othello4) is resumed.
    let plain: Vec<String> = [
        "train",
        "dqn",
        "--out",
        a.to_str().expect("utf-8"),
        "--resume",
    ]
    .map(String::from)
    .to_vec();
    let (ok, out, err) = run(&plain);
    assert!(ok, "{err}");
    assert!(out.contains("already has 96 of 96 episodes"), "{out}{err}");
    let b = run_dir("train-dqn-b");
    let (ok, _, err) = run(&tiny("dqn", &b, "96"));
    assert!(ok, "{err}");
    let (ra, rb) = (log_rows(&a), log_rows(&b));
    assert_eq!(ra.len(), 96);
    assert_eq!(ra, rb, "a resumed run must replay the uninterrupted one");

    // The trained model plays by spec; a run is not overwritten by accident.
    let spec = format!(
        "dqn:model={}",
        a.join("checkpoints/last.safetensors").display()
    );
    let (ok, text, err) = stonelab(
        &[
            "arena", "--game", "othello4", "--agents", &spec, "random", "--games", "4",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(text.contains("Standings"), "{text}");
    let (ok, _, err) = run(&tiny("dqn", &a, "10"));
    assert!(!ok && err.contains("--resume"), "{err}");
    let mut other = tiny("q-mlp", &a, "10");
    other.push("--resume".into());
    let (ok, _, err) = run(&other);
    assert!(!ok && err.contains("is a dqn run"), "{err}");
    let mut nothing = tiny("dqn", &run_dir("train-dqn-none"), "10");
    nothing.push("--resume".into());
    let (ok, _, err) = run(&nothing);
    assert!(!ok && err.contains("no config.json"), "{err}");
}

#[test]
fn a_run_killed_with_sigkill_resumes_without_corrupt_files() {
    let dir = run_dir("train-dqn-kill");
    let mut args = tiny("dqn", &dir, "100000");
    if let Some(i) = args.iter().position(|a| a == "--checkpoint-every") {
        args[i + 1] = "8".into();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    // Kill it some time after its second checkpoint, probably in the middle of writing.
    let start = Instant::now();
    loop {
        let count = std::fs::read_dir(dir.join("checkpoints"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with("ep-"))
                    .count()
            })
            .unwrap_or(0);
        if count >= 2 || start.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(150));
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    // Continue to two checkpoints past the newest complete one (the child may have got far).
    let newest = std::fs::read_dir(dir.join("checkpoints"))
        .expect("checkpoints")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("ep-")?.parse::<usize>().ok()
        })
        .max()
        .expect("a complete checkpoint survives the kill");
    let total = newest + 16;
    let (ok, text, err) = {
        let mut resume = tiny("dqn", &dir, &total.to_string());
        resume.push("--resume".into());
        run(&resume)
    };
    assert!(ok, "{err}");
    assert!(text.contains(&format!("the run has {total};")), "{text}");
    let rows = log_rows(&dir);
    let episodes: Vec<usize> = rows
        .iter()
        .map(|r| {
            r.split(',')
                .next()
                .and_then(|e| e.parse().ok())
                .expect("episode")
        })
        .collect();
    assert_eq!(
        episodes,
        (1..=total).collect::<Vec<_>>(),
        "one row per episode, in order"
    );
    let spec = format!(
        "dqn:model={}",
        dir.join("checkpoints/last.safetensors").display()
    );
    let (ok, _, err) = stonelab(
        &[
            "arena", "--game", "othello4", "--agents", &spec, "random", "--games", "2",
        ],
        "",
    );
    assert!(ok, "{err}");
}

#[test]
fn q_mlp_and_competitive_runs_produce_playable_models() {
    let q = run_dir("train-qmlp");
    let (ok, text, err) = run(&tiny("q-mlp", &q, "40"));
    assert!(ok, "{err}");
    assert!(text.contains("q-mlp on othello4: 40 episodes"), "{text}");
    assert_eq!(log_rows(&q).len(), 40);
    let c = run_dir("train-competitive");
    let (ok, _, err) = run(&tiny("dqn-competitive", &c, "40"));
    assert!(ok, "{err}");
    let eval = std::fs::read_to_string(c.join("eval.csv")).expect("eval");
    for who in [
        "black-dqn,random",
        "white-dqn,random",
        "black-dqn,greedy",
        "white-dqn,greedy",
    ] {
        assert!(eval.contains(who), "{who}: {eval}");
    }
    let specs = [
        format!(
            "q-mlp:model={}",
            q.join("checkpoints/last.safetensors").display()
        ),
        format!(
            "dqn:model={}",
            c.join("checkpoints/black-last.safetensors").display()
        ),
        format!(
            "dqn:model={}",
            c.join("checkpoints/white-last.safetensors").display()
        ),
    ];
    let mut args = vec!["arena", "--game", "othello4", "--games", "2", "--agents"];
    args.extend(specs.iter().map(String::as_str));
    let (ok, _, err) = stonelab(&args, "");
    assert!(ok, "{err}");
    // A q-mlp file is not a DQN.
    let wrong = format!(
        "dqn:model={}",
        q.join("checkpoints/last.safetensors").display()
    );
    let (ok, _, err) = stonelab(
        &[
            "arena", "--game", "othello4", "--games", "2", "--agents", &wrong, "random",
        ],
        "",
    );
    assert!(!ok && err.contains("a model for q-mlp, not dqn"), "{err}");
}

#[test]
fn the_bundled_8x8_dqn_loads_and_beats_random() {
    let (ok, text, err) = stonelab(
        &[
            "arena",
            "--game",
            "othello8",
            "--agents",
            "dqn:model=models/othello8-dqn.safetensors",
            "random",
            "--games",
            "40",
            "--random-openings",
            "0",
            "--seed",
            "5",
        ],
        "",
    );
    assert!(ok, "{err}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 ") || l.trim_start().starts_with("2 "))
        .filter(|l| l.contains("dqn:model"))
        .unwrap_or_else(|| panic!("{text}"));
    let wdl = line.split_whitespace().last().unwrap_or("");
    let wins: u32 = wdl
        .split('-')
        .next()
        .and_then(|w| w.parse().ok())
        .expect("W-D-L");
    assert!(wins >= 30, "{line}");
}

#[test]
fn gomoku_models_train_and_play_their_game_only() {
    let g = run_dir("train-gomoku9");
    let mut args = tiny("dqn", &g, "16");
    if let Some(i) = args.iter().position(|a| a == "othello4") {
        args[i] = "gomoku9".into();
    }
    let (ok, text, err) = run(&args);
    assert!(ok, "{err}");
    assert!(text.contains("dqn on gomoku9: 16 episodes"), "{text}");
    let q = run_dir("train-gomoku9-qmlp");
    let mut args = tiny("q-mlp", &q, "10");
    if let Some(i) = args.iter().position(|a| a == "othello4") {
        args[i] = "gomoku9".into();
    }
    let (ok, _, err) = run(&args);
    assert!(ok, "{err}");
    let dqn = format!(
        "dqn:model={}",
        g.join("checkpoints/last.safetensors").display()
    );
    let mlp = format!(
        "q-mlp:model={}",
        q.join("checkpoints/last.safetensors").display()
    );
    let (ok, text, err) = stonelab(
        &[
            "arena", "--game", "gomoku9", "--games", "2", "--agents", &dqn, &mlp, "random",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(text.contains("Standings"), "{text}");
    // As a Gomocup brain on a 9x9 board: it answers a move on the board.
    let script = "START 9\nBEGIN\nEND\n";
    let (ok, out, err) = stonelab(&["gomocup", "--agent", &dqn], script);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
    assert_eq!(lines[0], "OK", "{out}");
    let mv: Vec<u32> = lines[1]
        .split(',')
        .map(|v| v.trim().parse().expect("x,y"))
        .collect();
    assert!(mv.len() == 2 && mv[0] < 9 && mv[1] < 9, "{out}");
    // On another board it is refused, naming the game it plays.
    let (ok, _, err) = stonelab(
        &[
            "arena", "--game", "gomoku15", "--games", "2", "--agents", &dqn, "random",
        ],
        "",
    );
    assert!(!ok && err.contains("plays gomoku9"), "{err}");
    assert_eq!(err.matches("plays gomoku9").count(), 1, "said once: {err}");
    let (ok, _, err) = stonelab(
        &[
            "arena", "--game", "othello8", "--games", "2", "--agents", &mlp, "random",
        ],
        "",
    );
    assert!(!ok && err.contains("plays gomoku9"), "{err}");
}

#[test]
fn an_eval_step_that_is_not_a_multiple_of_the_round_is_announced_and_kept() {
    let out = run_dir("eval-rounding");
    let mut args = tiny("dqn", &out, "50");
    // Rounds of 8 games; evaluations asked every 20 episodes: after episodes 24, 40 and 50.
    let at = args.iter().position(|a| a == "--eval-every").expect("flag") + 1;
    args[at] = "20".into();
    let (ok, _, err) = run(&args);
    assert!(ok, "{err}");
    assert!(
        err.contains(
            "note: evaluations were asked for every 20 episodes, but training plays rounds of \
             8 games and stops only between rounds, so this run makes them at episodes 24, 40, \
             50"
        ),
        "{err}"
    );
    let evals: std::collections::BTreeSet<String> = std::fs::read_to_string(out.join("eval.csv"))
        .expect("eval.csv")
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next().map(str::to_string))
        .collect();
    let evals: Vec<&str> = evals.iter().map(String::as_str).collect();
    let mut want = vec!["0", "24", "40", "50"];
    want.sort_unstable();
    assert_eq!(evals, want, "the note tells the truth");
    let _ = std::fs::remove_dir_all(&out);
}

/// Flips sixteen bytes spread over the file.
fn flip_bytes(path: &Path) {
    let mut bytes = std::fs::read(path).expect("read");
    let len = bytes.len();
    let mut at: Vec<usize> = (0..16).map(|i| len * (2 * i + 1) / 32).collect();
    at.dedup();
    for i in at {
        bytes[i] ^= 0xff;
    }
    std::fs::write(path, bytes).expect("write");
}

/// `--resume` with damaged checkpoints: a damaged newest checkpoint is passed over with a
/// warning on stderr and the run resumes from the older one exactly; with every checkpoint
/// damaged, `--resume` is refused and nothing changes.
#[test]
fn resume_passes_over_a_damaged_checkpoint_says_so_and_refuses_when_none_is_left() {
    let whole = run_dir("train-damaged-whole");
    let (ok, _, err) = run(&tiny("dqn", &whole, "96"));
    assert!(ok, "{err}");
    let part = run_dir("train-damaged");
    let (ok, _, err) = run(&tiny("dqn", &part, "64"));
    assert!(ok, "{err}");
    flip_bytes(&part.join("checkpoints/ep-00000064/target.safetensors"));
    let mut resume = tiny("dqn", &part, "96");
    resume.push("--resume".into());
    let (ok, _, err) = run(&resume);
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: checkpoint ")
            && err.contains("ep-00000064: target.safetensors is damaged (checksum mismatch")
            && err.contains("resuming from the older checkpoint")
            && err.contains("at episode 32"),
        "{err}"
    );
    assert_eq!(log_rows(&part), log_rows(&whole), "resumed exactly from 32");

    // Every checkpoint damaged: refused, naming each, and the folder is left as it was.
    for cp in ["ep-00000064", "ep-00000096"] {
        flip_bytes(&part.join("checkpoints").join(cp).join("optim.bpk"));
    }
    let log = std::fs::read(part.join("log.csv")).expect("log.csv");
    let mut again = tiny("dqn", &part, "128");
    again.push("--resume".into());
    let (ok, _, err) = run(&again);
    assert!(!ok, "{err}");
    assert!(
        err.contains("--resume: ")
            && err.contains("no usable checkpoint")
            && err.contains("ep-00000096: optim.bpk is damaged")
            && err.contains("ep-00000064: optim.bpk is damaged")
            && err.contains("--force starts it over"),
        "{err}"
    );
    assert_eq!(std::fs::read(part.join("log.csv")).expect("log.csv"), log);

    // Every checkpoint folder gone, the logs and models left: refused too (it used to start
    // the run over and rewrite its logs), and nothing changes.
    for cp in ["ep-00000064", "ep-00000096"] {
        std::fs::remove_dir_all(part.join("checkpoints").join(cp)).expect("remove");
    }
    let model = std::fs::read(part.join("checkpoints/last.safetensors")).expect("model");
    let (ok, out, err) = run(&again);
    assert!(!ok, "{out}{err}");
    assert!(
        err.contains("no usable checkpoint")
            && err.contains("no ep-N checkpoint folder is left")
            && err.contains("last.safetensors")
            && !err.contains("starting the run over"),
        "{err}"
    );
    assert_eq!(std::fs::read(part.join("log.csv")).expect("log.csv"), log);
    assert_eq!(
        std::fs::read(part.join("checkpoints/last.safetensors")).expect("model"),
        model
    );
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&part);
}

/// A new run never writes into a folder holding other files; `--force` replaces only a run's
/// own files; and a run whose agents cannot be built changes nothing, even with `--force`.
#[test]
fn runs_only_ever_replace_runs() {
    let dir = run_dir("train-foreign");
    std::fs::create_dir_all(dir.join("plots")).expect("mkdir");
    std::fs::write(dir.join("log.csv"), "my,data\n").expect("write");
    let (ok, _, err) = run(&tiny("dqn", &dir, "8"));
    assert!(
        !ok && err.contains("is not empty and holds no run"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("log.csv")).expect("kept"),
        "my,data\n"
    );
    // A config.json alone does not make a run of a folder with other files in it.
    std::fs::write(dir.join("config.json"), "{\"name\": \"webapp\"}").expect("write");
    std::fs::create_dir_all(dir.join("checkpoints/mine")).expect("mkdir");
    std::fs::write(dir.join("checkpoints/mine/model.pt"), "weights").expect("write");
    let mut force = tiny("dqn", &dir, "8");
    force.push("--force".into());
    let (ok, _, err) = run(&force);
    assert!(
        !ok && err.contains("\"checkpoints/mine\", which no run writes"),
        "{err}"
    );
    assert!(dir.join("checkpoints/mine/model.pt").is_file());

    // A finished run, then --force with an evaluation opponent that cannot be built.
    let done = run_dir("train-force-bad-opponent");
    let (ok, _, err) = run(&tiny("dqn", &done, "8"));
    assert!(ok, "{err}");
    let log = std::fs::read_to_string(done.join("log.csv")).expect("log");
    let mut bad = tiny("dqn", &done, "8");
    bad.extend(["--force".into(), "--eval-opponent".into()]);
    bad.push("dqn:model=/nonexistent.safetensors".into());
    let (ok, _, err) = run(&bad);
    assert!(!ok && err.contains("evaluation opponent"), "{err}");
    assert_eq!(
        std::fs::read_to_string(done.join("log.csv")).expect("log"),
        log
    );
    assert!(done.join("checkpoints/last.safetensors").is_file());
    // --force on the run itself replaces it.
    let mut again = tiny("dqn", &done, "8");
    again.push("--force".into());
    let (ok, _, err) = run(&again);
    assert!(ok, "{err}");
}

/// Settings out of range are refused by name before any folder is made, never clamped.
#[test]
fn settings_out_of_range_are_refused_before_anything_is_written() {
    let dir = run_dir("train-out-of-range");
    let out = dir.to_str().expect("utf-8");
    for (args, says) in [
        (
            &["q-mlp", "--game", "othello4", "--lr", "1e400"][..],
            "learning rate must be above 0 and at most 10",
        ),
        (
            &["q-mlp", "--game", "othello4", "--gamma", "5"][..],
            "gamma must be within [0, 1]",
        ),
        (
            &["dqn", "--game", "othello4", "--batch-size", "100000000"][..],
            "--batch-size 100000000: must be from 1 to 65536",
        ),
        (
            &["dqn", "--game", "othello4", "--lr", "99999999999999999999"][..],
            "the learning rate must be above 0 and at most 10",
        ),
        (
            &["dqn", "--game", "othello4", "--parallel", "0"][..],
            "--parallel 0: games played at once must be from 1 to 4096",
        ),
        (
            &["dqn", "--game", "othello4", "--gamma", "2"][..],
            "--gamma 2: the discount must be within [0, 1]",
        ),
        (
            &["dqn", "--game", "othello4", "--epsilon-start", "2"][..],
            "--epsilon-start 2: ε must be within [0, 1]",
        ),
        // Settings the chosen set-up would not read are refused, not ignored.
        (
            &["dqn", "--arch", "seed-resnet", "--blocks", "5"][..],
            "--blocks: not read with --arch seed-resnet",
        ),
        (
            &["dqn", "--behaviour", "greedy", "--epsilon-end", "0.1"][..],
            "--epsilon-end: not read with this --behaviour",
        ),
        (
            &["dqn", "--uct-c", "0.5"][..],
            "--uct-c: not read with this --behaviour",
        ),
        (
            &["dqn", "--steps-per-episode", "2", "--train-every", "4"][..],
            "--train-every: not read when --steps-per-episode",
        ),
        (
            &["dqn-self-play", "--learn-from", "every-move"][..],
            "--learn-from is not a setting of `train dqn-self-play`",
        ),
        (
            &["q-mlp", "--game", "othello4", "--episodes", "15"][..],
            "--episodes 15: q-mlp trains in epochs of 10 games",
        ),
        (
            &[
                "mlp-supervised",
                "--data",
                "/nonexistent",
                "--mobility",
                "exactly",
            ][..],
            "--mobility reads a CNN's mobility planes",
        ),
        (
            &["q-mlp", "--preset", "seed001", "--eval-opponent", "greedy"][..],
            "cannot be used with",
        ),
        (
            &["q-table", "--episodes", "1000", "--evals", "0"][..],
            "--evals 0: at least one evaluation",
        ),
        (
            &["dqn", "--threads", "99999"][..],
            "--threads 99999: 1 to 1024",
        ),
        (&["dqn", "--eval-games", "1"][..], "--eval-games 1: from 2"),
        (&["dqn", "--eval-every", "0"][..], "must be at least 1"),
    ] {
        let mut command = vec!["train"];
        command.extend(args);
        command.extend(["--out", out, "--quiet"]);
        let (ok, _, err) = stonelab(&command, "");
        assert!(!ok, "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.exists(), "{args:?}: nothing is written");
    }
}

/// A run file replaced by a FIFO (or a link to a device) is refused on resume at once, never
/// opened: opening a FIFO would wait for ever, `/dev/zero` would be read without end.
#[test]
fn a_fifo_in_a_run_folder_is_refused_not_read() {
    let dir = run_dir("train-fifo-log");
    let (ok, _, err) = run(&tiny("dqn", &dir, "8"));
    assert!(ok, "{err}");
    std::fs::remove_file(dir.join("log.csv")).expect("rm");
    let made = Command::new("mkfifo")
        .arg(dir.join("log.csv"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let started = Instant::now();
    let mut resume = tiny("dqn", &dir, "16");
    resume.push("--resume".into());
    let (ok, _, err) = run(&resume);
    assert!(!ok && err.contains("log.csv: not a regular file"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30));
}
