//! `stonelab reproduce az-othello6` through the binary at a tiny scale: the report names its
//! training command, scores the model against alpha-beta per colour, checks its moves against
//! the solver, and keeps its run folder.

mod common;
use common::stonelab;

#[test]
fn the_az_othello6_report_has_its_tables_and_its_run() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("reproduce-az-othello6");
    let _ = std::fs::remove_dir_all(&out);
    let (ok, stdout, stderr) = stonelab(
        &[
            "reproduce",
            "az-othello6",
            "--scale",
            "0.012",
            "--games",
            "2",
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(ok, "{stdout}{stderr}");
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    for needle in [
        "stonelab train alphazero --game othello6 --episodes 2",
        "## Against alphabeta:depth=4",
        "| Black | 1 |",
        "| White | 1 |",
        "## Moves that keep the exact value",
        "Not played at a reduced scale",
    ] {
        assert!(report.contains(needle), "no {needle:?} in {report}");
    }
    let run = out.join("runs/az6");
    assert!(run.join("checkpoints/last.safetensors").exists());
    assert!(run.join("plots/loss.png").exists());
    let _ = std::fs::remove_dir_all(&out);
}

/// `--model` checks a given model without training (no run folder), names it in the report
/// and the rerun command; a model that does not load, or `--model` on another experiment, is
/// refused before anything runs.
#[test]
fn az_othello6_checks_a_given_model_without_training() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("reproduce-az6-model");
    let _ = std::fs::remove_dir_all(&out);
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/othello6-az.safetensors"
    );
    let args = |model: &str| {
        [
            "reproduce",
            "az-othello6",
            "--scale",
            "0.012",
            "--games",
            "2",
            "--quiet",
            "--force",
            "--model",
            model,
            "--out",
            out.to_str().expect("utf-8"),
        ]
        .map(String::from)
    };
    let run = |a: &[String]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        stonelab(&a, "")
    };
    let (ok, stdout, stderr) = run(&args(model));
    assert!(ok, "{stdout}{stderr}");
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    for needle in [
        "Not trained here: the model checked is",
        "othello6-az.safetensors",
        "--model ",
        "| Black | 1 |",
        "| White | 1 |",
    ] {
        assert!(report.contains(needle), "no {needle:?} in {report}");
    }
    assert!(!out.join("runs/az6").exists(), "it trained a run");

    let missing = out.join("no-such-model.safetensors");
    let (ok, _, err) = run(&args(missing.to_str().expect("utf-8")));
    assert!(
        !ok && err.contains("no-such-model.safetensors: no such model file"),
        "{err}"
    );
    let eight = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/othello8-dqn.safetensors"
    );
    let (ok, _, err) = run(&args(eight));
    assert!(!ok && err.contains("a model for dqn, not az"), "{err}");
    // The failed runs changed nothing: the first report is still there, whole.
    let kept = std::fs::read_to_string(out.join("report.md")).expect("report.md kept");
    assert_eq!(kept, report);

    let (ok, _, err) = stonelab(&["reproduce", "seed001", "--model", model], "");
    assert!(
        !ok && err.contains("--model is a setting of az-othello6"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
