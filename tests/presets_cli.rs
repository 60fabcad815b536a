//! `stonelab train --preset` and the reference design's building blocks as flags, through the
//! binary: a self-play run with the seed encoding plays a model that loads by spec, and presets
//! are refused with a clear message where they do not fit.

mod common;
use common::{run_dir, stonelab};

#[test]
fn the_design_building_blocks_are_flags_of_a_normal_run() {
    let out = run_dir("preset-blocks");
    let dir = out.to_str().expect("utf-8");
    let (ok, stdout, stderr) = stonelab(
        &[
            "train",
            "dqn-self-play",
            "--game",
            "othello4",
            "--episodes",
            "6",
            "--out",
            dir,
            "--quiet",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--parallel",
            "2",
            "--warmup",
            "8",
            "--batch-size",
            "8",
            "--encoding",
            "seed",
            "--end-reward",
            "replace",
            "--rewards",
            "seed",
            "--steps-per-episode",
            "1",
            "--transitions",
            "after-move",
            "--q-loss",
            "row-mean",
            "--behaviour",
            "uct",
            "--uct-visits",
            "on-replay",
            "--eval-games",
            "4",
            "--threads",
            "1",
        ],
        "",
    );
    assert!(ok, "{stdout}{stderr}");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).expect("config"))
            .expect("json");
    assert_eq!(config["algo"], "dqn-self-play");
    assert_eq!(config["dqn"]["encoding"], "seed");
    assert_eq!(config["dqn"]["end_reward"], "replace");
    assert_eq!(config["dqn"]["rewards"], "seed");
    assert_eq!(config["dqn"]["steps_per_episode"], 1);
    assert_eq!(config["dqn"]["transitions"], "after-move");
    assert_eq!(config["dqn"]["q_loss"], "row-mean");
    assert_eq!(config["dqn"]["behaviour"], "uct");
    assert_eq!(config["dqn"]["uct_visits"], "on-replay");
    let log = std::fs::read_to_string(out.join("log.csv")).expect("log");
    assert!(
        log.starts_with("episode,winner,black_reward,white_reward"),
        "{log}"
    );
    assert_eq!(log.lines().count(), 7, "header + 6 episodes");
    // The model plays by spec, fed the planes its card names.
    let model = out.join("checkpoints/last.safetensors");
    let spec = format!("dqn:model={}", model.display());
    let (ok, stdout, stderr) = stonelab(
        &[
            "arena", "--game", "othello4", "--agents", &spec, "random", "--games", "4", "--quiet",
        ],
        "",
    );
    assert!(ok, "{stdout}{stderr}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn presets_are_refused_where_they_do_not_fit() {
    let out = run_dir("preset-refused");
    let dir = out.to_str().expect("utf-8");
    let cases: [(&[&str], &str); 4] = [
        (
            &["train", "dqn", "--preset", "seed000-greedy", "--out", dir],
            "dqn-self-play",
        ),
        (
            &[
                "train",
                "dqn-self-play",
                "--preset",
                "seed000-greedy",
                "--arch",
                "resnet",
                "--out",
                dir,
            ],
            "cannot be used with",
        ),
        (
            &["train", "q-mlp", "--preset", "seed003", "--out", dir],
            "seed000-greedy",
        ),
        (
            &[
                "train",
                "dqn-self-play",
                "--defect",
                "frozen-state",
                "--out",
                dir,
            ],
            "--preset",
        ),
    ];
    for (args, says) in cases {
        let (ok, stdout, stderr) = stonelab(args, "");
        assert!(!ok, "{args:?} must fail: {stdout}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!out.exists(), "{args:?}: nothing is written");
    }
}

/// A preset is only settings of the general trainer: the same settings given as flags train
/// the same games.
#[test]
fn seed001_is_the_general_trainer_with_the_design_flags() {
    let run = |name: &str, extra: &[&str]| {
        let out = run_dir(name);
        let dir = out.to_str().expect("utf-8").to_string();
        let mut args = vec![
            "train",
            "q-mlp",
            "--episodes",
            "20",
            "--eval-every",
            "10",
            "--eval-games",
            "4",
            "--checkpoint-every",
            "10",
            "--quiet",
            "--threads",
            "1",
            "--out",
            &dir,
        ];
        args.extend_from_slice(extra);
        let (ok, stdout, stderr) = stonelab(&args, "");
        assert!(ok, "{args:?}: {stdout}{stderr}");
        let config: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("config.json")).expect("config"),
        )
        .expect("json");
        let log: Vec<String> = std::fs::read_to_string(out.join("log.csv"))
            .expect("log")
            .lines()
            // Without the wall-clock seconds.
            .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string())
            .collect();
        let _ = std::fs::remove_dir_all(&out);
        (config["q_mlp"].clone(), log)
    };
    let (preset, preset_log) = run("seed001-preset", &["--preset", "seed001"]);
    let (flags, flags_log) = run(
        "seed001-flags",
        &[
            "--always-black",
            "--opponent-mix",
            "0.6",
            "--normal-init",
            "--sgd-per-transition",
            "--lr",
            "0.03",
        ],
    );
    assert_eq!(preset, flags);
    assert_eq!(preset["learner"], "black");
    assert_eq!(preset_log, flags_log, "the same games, the same losses");
    assert_eq!(preset_log.len(), 21);
}
