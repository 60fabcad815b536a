//! The Othello paper's pipeline through the binary at toy sizes: `data wthor` on two WTHOR
//! files (2,400 games, enough for a few protocol positions), `train mlp-supervised` / `cnn-supervised` (log, plot, model card, an exact
//! `--resume`), `train cnn-selfplay --from RUN` (a model in every checkpoint), the agents in
//! `bench minimax` (batched = one at a time), and `reproduce paper-table1` / `paper-table2`.

mod common;
use common::{stonelab, TempDir};

fn dataset() -> TempDir {
    let src = TempDir::new("paper-wthor");
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/othello/wthor");
    for year in [1985, 1986] {
        let name = format!("WTH_{year}.wtb");
        std::fs::copy(data.join(&name), src.path().join(&name)).expect("copy");
    }
    let out = TempDir::new("paper-data");
    let (ok, _, err) = stonelab(
        &[
            "data",
            "wthor",
            "--wthor",
            src.path().to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
            "--force",
            "--quiet",
        ],
        "",
    );
    assert!(ok, "{err}");
    out
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of a log without the trailing `seconds` column.
fn rows_without_seconds(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string())
        .collect()
}

fn train(algo: &str, data: &str, out: &str, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec![
        "train",
        algo,
        "--data",
        data,
        "--out",
        out,
        "--eval-games",
        "2",
        "--quiet",
    ];
    if algo.ends_with("-supervised") {
        args.extend_from_slice(&["--max-train", "3000", "--max-test", "1000"]);
    }
    args.extend_from_slice(extra);
    stonelab(&args, "")
}

#[test]
fn the_paper_pipeline_runs_end_to_end() {
    let data = dataset();
    let d = data.path().to_str().unwrap();
    let runs = TempDir::new("paper-runs");
    let run = |name: &str| runs.path().join(name);

    // Supervised MLP: 3 epochs straight, and 1 + resume to 3: the same model and log.
    let straight = run("mlp");
    let (ok, out, err) = train(
        "mlp-supervised",
        d,
        straight.to_str().unwrap(),
        &["--episodes", "3", "--net", "mlp:32"],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("mlp-supervised on othello8: 3 episodes"),
        "{out}"
    );
    let log = read(&straight.join("log.csv"));
    assert!(
        log.starts_with("epoch,train_loss,test_loss,test_mse,steps,seconds"),
        "{log}"
    );
    assert_eq!(log.lines().count(), 4, "{log}");
    assert!(straight.join("plots/loss.png").is_file());
    let card: serde_json::Value =
        serde_json::from_str(&read(&straight.join("checkpoints/last.json"))).unwrap();
    assert_eq!(card["algo"], "mlp-minimax");
    assert_eq!(card["episodes"], 3);
    assert_eq!(card["arch"]["input"]["kind"], "stone-only");
    let resumed = run("mlp-resumed");
    let r = resumed.to_str().unwrap();
    let (ok, _, err) = train(
        "mlp-supervised",
        d,
        r,
        &["--episodes", "1", "--net", "mlp:32"],
    );
    assert!(ok, "{err}");
    let (ok, _, err) = train(
        "mlp-supervised",
        d,
        r,
        &["--episodes", "3", "--net", "mlp:32", "--resume"],
    );
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read(straight.join("checkpoints/last.safetensors")).unwrap(),
        std::fs::read(resumed.join("checkpoints/last.safetensors")).unwrap(),
        "resume is exact"
    );
    assert_eq!(
        rows_without_seconds(&log),
        rows_without_seconds(&read(&resumed.join("log.csv")))
    );

    // Supervised CNN, one epoch of a toy network.
    let cnn = run("cnn");
    let (ok, _, err) = train(
        "cnn-supervised",
        d,
        cnn.to_str().unwrap(),
        &["--episodes", "1", "--net", "cnn:4,k3,8"],
    );
    assert!(ok, "{err}");
    let cnn_model = cnn.join("checkpoints/last.safetensors");
    let card: serde_json::Value =
        serde_json::from_str(&read(&cnn.join("checkpoints/last.json"))).unwrap();
    assert_eq!(card["algo"], "cnn-minimax");
    assert_eq!(card["arch"]["input"]["kind"], "paper-planes");

    // A dataset file holding another part (the test half where the training half should be)
    // is refused before any run folder is made.
    let swapped = run("swapped-data");
    std::fs::create_dir_all(&swapped).unwrap();
    for entry in std::fs::read_dir(d).unwrap().filter_map(Result::ok) {
        std::fs::copy(entry.path(), swapped.join(entry.file_name())).unwrap();
    }
    std::fs::copy(
        swapped.join("merged-frequency-test.bin"),
        swapped.join("merged-frequency-train.bin"),
    )
    .unwrap();
    let refused = run("refused");
    let (ok, _, err) = train(
        "cnn-supervised",
        swapped.to_str().unwrap(),
        refused.to_str().unwrap(),
        &["--episodes", "1", "--net", "cnn:4,k3,8"],
    );
    assert!(
        !ok && err.contains(
            "holds the merged states of the frequency split's test part, not the merged \
             states of the frequency split's training part"
        ),
        "{err}"
    );
    assert!(!refused.exists(), "no run folder is made");

    // Self-play from the CNN run: a playable model in every checkpoint.
    let sp = run("selfplay");
    let (ok, _, err) = train(
        "cnn-selfplay",
        d,
        sp.to_str().unwrap(),
        &[
            "--from",
            cnn.to_str().unwrap(),
            "--episodes",
            "2",
            "--depth",
            "1",
            "--checkpoint-every",
            "1",
        ],
    );
    assert!(ok, "{err}");
    let log = read(&sp.join("log.csv"));
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(read(&sp.join("eval.csv")).lines().count() > 1);
    for ep in 1..=2 {
        assert!(sp
            .join(format!("checkpoints/ep-{ep:08}/value.safetensors"))
            .is_file());
    }
    // A self-play run cannot start from an MLP.
    let (ok, _, err) = train(
        "cnn-selfplay",
        d,
        run("bad").to_str().unwrap(),
        &["--from", straight.to_str().unwrap()],
    );
    assert!(!ok);
    assert!(
        err.contains("a model for mlp-minimax, not cnn-minimax"),
        "{err}"
    );

    // The agents: batched leaves search exactly as one at a time.
    let (ok, out, err) = stonelab(
        &[
            "bench",
            "minimax",
            "--model",
            cnn_model.to_str().unwrap(),
            "--positions",
            "3",
            "--depth",
            "2",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("same moves, scores and nodes both ways"),
        "{out}"
    );

    // The paper's tables at toy sizes.
    let mlp_model = straight.join("checkpoints/last.safetensors");
    let (cnn_s, mlp_s) = (cnn_model.to_str().unwrap(), mlp_model.to_str().unwrap());
    // Both tables at toy sizes: 2 positions, 2 ladder games, depth 1.
    let tables = |name: &str, out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "reproduce",
            name,
            "--cnn",
            cnn_s,
            "--mlp",
            mlp_s,
            "--data",
            d,
            "--positions",
            "2",
            "--games",
            "2",
            "--depth",
            "1",
            "--force",
            "--quiet",
        ];
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        stonelab(&args, "")
    };
    let report = TempDir::new("paper-report");
    let (ok, out, err) = tables("paper-table1", report.path(), &[]);
    assert!(ok, "{err}");
    assert!(out.contains("paper-table1: report in"), "{out}");
    let md = read(&report.path().join("report.md"));
    assert!(md.contains("| paper | 69.7% | 72.1% |"), "{md}");
    assert!(md.contains("| stonelab |"), "{md}");
    assert!(md.contains("`alphabeta:depth=4`"), "{md}");
    assert!(report.path().join("table1.png").is_file());

    let report2 = TempDir::new("paper-report2");
    let (ok, _, err) = tables(
        "paper-table2",
        report2.path(),
        &["--selfplay", sp.to_str().unwrap()],
    );
    assert!(ok, "{err}");
    let md = read(&report2.path().join("report.md"));
    // The run is shorter than the paper's first row: its last network is measured.
    assert!(md.contains("| 2 | "), "{md}");
    assert!(report2.path().join("table2.png").is_file());
    // Each part's command names the dataset its positions came from.
    assert!(md.contains(&format!("--data {d}")), "{md}");
    // paper-table2 plays a self-play run's checkpoints: a supervised run is refused, and
    // paper-table1 takes no self-play run at all.
    let refused = TempDir::new("paper-refused");
    let (ok, _, err) = tables(
        "paper-table2",
        refused.path(),
        &["--selfplay", cnn.to_str().unwrap()],
    );
    assert!(
        !ok && err.contains("a cnn-supervised run, not a cnn-selfplay run"),
        "{err}"
    );
    let (ok, _, err) = tables(
        "paper-table1",
        refused.path(),
        &["--selfplay", sp.to_str().unwrap()],
    );
    assert!(
        !ok && err.contains("--selfplay is a setting of paper-table2"),
        "{err}"
    );

    // Settings of other experiments are refused.
    let (ok, _, err) = stonelab(&["reproduce", "seed001", "--positions", "5"], "");
    assert!(!ok);
    assert!(err.contains("paper-table1 and paper-table2 only"), "{err}");
    // cnn-supervised on another game, or without a dataset, is a clear error.
    let (ok, _, err) = stonelab(
        &[
            "train",
            "cnn-supervised",
            "--game",
            "othello6",
            "--out",
            run("x").to_str().unwrap(),
            "--data",
            d,
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("othello8 only"), "{err}");
    let (ok, _, err) = stonelab(
        &[
            "train",
            "mlp-supervised",
            "--out",
            run("y").to_str().unwrap(),
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("needs --data DIR"), "{err}");
    // A folder without the dataset is refused before any run folder is made.
    let (ok, _, err) = stonelab(
        &[
            "train",
            "mlp-supervised",
            "--data",
            runs.path().to_str().unwrap(),
            "--out",
            run("z").to_str().unwrap(),
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("merged-frequency-train.bin"), "{err}");
    assert!(!run("z").exists());
}
