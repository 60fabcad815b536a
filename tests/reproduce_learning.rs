//! `stonelab reproduce` for the learning designs, through the binary at a tiny scale: each
//! report holds the authors' figures, the evaluation against the three fixed players and a
//! normal run folder trained with the preset's settings.

mod common;
use common::stonelab;

use std::path::{Path, PathBuf};

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn reproduce(name: &str, scale: &str) -> (PathBuf, String) {
    let out = out_dir(&format!("reproduce-{name}"));
    let (ok, stdout, stderr) = stonelab(
        &[
            "reproduce",
            name,
            "--scale",
            scale,
            "--games",
            "2",
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(ok, "{name}: {stdout}{stderr}");
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    for opponent in ["`random`", "`greedy`", "`alphabeta:depth=2`"] {
        assert!(
            report.contains(opponent),
            "{name}: no games against {opponent}"
        );
    }
    assert!(report.contains("## Commands"), "{name}: {report}");
    (out, report)
}

#[test]
fn the_dqn_report_stands_beside_the_authors_losses_and_keeps_its_run() {
    let (out, report) = reproduce("seed000-greedy", "0.012");
    assert!(report.contains("| 4 | 5.41 |"), "{report}");
    assert!(report.contains("| 51 | 4.47 |"), "{report}");
    assert!(report.contains("untrained network"), "{report}");
    let run = out.join("runs/seed000-greedy");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("config.json")).expect("config"))
            .expect("json");
    assert_eq!(config["algo"], "dqn-self-play");
    assert_eq!(config["dqn"]["encoding"], "seed");
    assert_eq!(config["dqn"]["arch"]["kind"], "seed-resnet");
    assert_eq!(config["episodes"], 6);
    assert!(run.join("checkpoints/last.safetensors").exists());
    assert!(run.join("plots/loss.png").exists());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_q_mlp_report_trains_every_defect_switch() {
    let (out, report) = reproduce("seed001", "0.001");
    for run in [
        "design-defects-off",
        "greedy-lowest",
        "frozen-state",
        "additive-target",
        "tanh-derivative",
        "all-four-the-code-as-written",
        "stonelab-q-mlp-corrected",
    ] {
        assert!(
            out.join("runs").join(run).join("log.csv").exists(),
            "no run {run}"
        );
    }
    let config: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("runs/all-four-the-code-as-written/config.json"))
            .expect("config"),
    )
    .expect("json");
    let defects = &config["q_mlp"]["defects"];
    assert_eq!(defects["greedy_lowest"], true);
    assert_eq!(defects["frozen_state"], true);
    assert_eq!(defects["additive_target"], true);
    assert_eq!(defects["tanh_derivative"], true);
    assert_eq!(config["q_mlp"]["optimizer"], "sgd-per-transition");
    assert!(
        report.contains("--defect greedy-lowest --defect frozen-state"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
