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
