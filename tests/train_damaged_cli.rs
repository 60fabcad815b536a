//! `stonelab train --resume` with damaged checkpoints, through the binary: a damaged newest
//! checkpoint is passed over with a warning on stderr and the run resumes from the older one
//! exactly; with every checkpoint damaged, `--resume` is refused and nothing changes.

mod common;
use common::stonelab;

use std::path::{Path, PathBuf};

fn run_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A tiny DQN on 4x4 (checkpoints every 16 episodes) so the runs take seconds.
fn tiny(out: &Path, episodes: &str, resume: bool) -> (bool, String, String) {
    let out = out.to_str().expect("utf-8");
    let mut args = vec![
        "train",
        "dqn",
        "--game",
        "othello4",
        "--episodes",
        episodes,
        "--out",
        out,
        "--quiet",
        "--parallel",
        "4",
        "--warmup",
        "24",
        "--batch-size",
        "16",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--eval-every",
        "16",
        "--eval-games",
        "4",
        "--checkpoint-every",
        "16",
        "--epsilon-decay",
        "32",
        "--threads",
        "1",
    ];
    if resume {
        args.push("--resume");
    }
    stonelab(&args, "")
}

/// log.csv rows without the wall-clock column.
fn log_rows(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("log.csv"))
        .expect("log.csv")
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string())
        .collect()
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

#[test]
fn resume_passes_over_a_damaged_checkpoint_says_so_and_refuses_when_none_is_left() {
    let whole = run_dir("train-damaged-whole");
    let (ok, _, err) = tiny(&whole, "48", false);
    assert!(ok, "{err}");
    let part = run_dir("train-damaged");
    let (ok, _, err) = tiny(&part, "32", false);
    assert!(ok, "{err}");
    flip_bytes(&part.join("checkpoints/ep-00000032/target.safetensors"));
    let (ok, _, err) = tiny(&part, "48", true);
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: checkpoint ")
            && err.contains("ep-00000032: target.safetensors is damaged (checksum mismatch")
            && err.contains("resuming from the older checkpoint")
            && err.contains("at episode 16"),
        "{err}"
    );
    assert_eq!(log_rows(&part), log_rows(&whole), "resumed exactly from 16");

    // Every checkpoint damaged: refused, naming each, and the folder is left as it was.
    for cp in ["ep-00000032", "ep-00000048"] {
        flip_bytes(&part.join("checkpoints").join(cp).join("optim.bpk"));
    }
    let log = std::fs::read(part.join("log.csv")).expect("log.csv");
    let (ok, _, err) = tiny(&part, "64", true);
    assert!(!ok, "{err}");
    assert!(
        err.contains("--resume: ")
            && err.contains("no usable checkpoint")
            && err.contains("ep-00000048: optim.bpk is damaged")
            && err.contains("ep-00000032: optim.bpk is damaged")
            && err.contains("--force starts it over"),
        "{err}"
    );
    assert_eq!(std::fs::read(part.join("log.csv")).expect("log.csv"), log);
}
