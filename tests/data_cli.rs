//! `stonelab data wthor` on three small WTHOR files: the eight dataset files and the summaries
//! agree with each other, and an existing non-empty --out needs --force.

mod common;
use common::{stonelab, TempDir};

use othello::dataset::{DatasetReader, Part, Split, Symmetries};

#[test]
fn data_wthor_writes_consistent_splits() {
    let src = TempDir::new("wthor");
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/othello/wthor");
    for year in [1977, 1978, 1979] {
        let name = format!("WTH_{year}.wtb");
        std::fs::copy(data.join(&name), src.path().join(&name)).expect("copy");
    }
    let out = TempDir::new("data-out");
    let (wthor, dir) = (src.path().to_str().unwrap(), out.path().to_str().unwrap());
    let (ok, stdout, err) = stonelab(&["data", "wthor", "--wthor", wthor, "--out", dir], "");
    assert!(ok, "{err}");
    assert!(stdout.contains("| distinct states |"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["files_read"], 3);
    let points = summary["decision_points"].as_u64().unwrap();
    assert!(points > 0);
    for (prefix, symmetries) in [("raw", Symmetries::Raw), ("merged", Symmetries::Merged)] {
        let mut total = 0u64;
        let mut states = 0u64;
        for (name, split) in [
            ("frequency-train", Split::Frequency(Part::Train)),
            ("frequency-test", Split::Frequency(Part::Test)),
        ] {
            let path = out.path().join(format!("{prefix}-{name}.bin"));
            let reader = DatasetReader::open(&path).expect("open");
            assert_eq!(reader.header().symmetries, symmetries);
            assert_eq!(reader.header().split, split);
            for r in reader {
                let r = r.expect("record");
                total += u64::from(r.count);
                states += 1;
            }
        }
        // Every decision point is counted once across the frequency split.
        assert_eq!(total, points);
        assert_eq!(states, summary[prefix]["distinct"].as_u64().unwrap());
        let train = summary[prefix]["frequency_train"].as_u64().unwrap();
        assert_eq!(train, states * 4 / 5);
        let mut game_points = 0u64;
        for name in ["game-train", "game-test"] {
            let path = out.path().join(format!("{prefix}-{name}.bin"));
            let records = DatasetReader::open(&path).expect("open").read_all();
            game_points += records
                .expect("records")
                .iter()
                .map(|r| u64::from(r.count))
                .sum::<u64>();
        }
        assert_eq!(game_points, points);
    }
    assert!(std::fs::read_to_string(out.path().join("summary.md"))
        .unwrap()
        .contains("7,314,328"));

    // An existing non-empty --out is refused without --force and replaced with it.
    let (ok, _, err) = stonelab(
        &["data", "wthor", "--wthor", wthor, "--out", dir, "--quiet"],
        "",
    );
    assert!(!ok);
    assert!(err.contains("--force"), "{err}");
    let (ok, stdout, err) = stonelab(
        &[
            "data", "wthor", "--wthor", wthor, "--out", dir, "--quiet", "--force",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    // --force replaces only a dataset: a file no dataset writes stops it, and stays.
    std::fs::write(out.path().join("notes.txt"), "mine").expect("write");
    let (ok, _, err) = stonelab(
        &[
            "data", "wthor", "--wthor", wthor, "--out", dir, "--quiet", "--force",
        ],
        "",
    );
    assert!(!ok);
    assert!(
        err.contains("holds 1 entry a dataset does not write (\"notes.txt\")"),
        "{err}"
    );
    assert!(out.path().join("notes.txt").is_file());
    assert!(out.path().join("summary.json").is_file());
    std::fs::remove_file(out.path().join("notes.txt")).expect("remove");

    // A folder without WTHOR files is named.
    let empty = TempDir::new("no-wthor");
    let (ok, _, err) = stonelab(
        &[
            "data",
            "wthor",
            "--wthor",
            empty.path().to_str().unwrap(),
            "--out",
            out.path().join("x").to_str().unwrap(),
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("no WTH_*.wtb files"), "{err}");

    // A bad file or one over the read cap is refused before --out is made.
    let bad = TempDir::new("bad-wthor");
    let file = bad.path().join("WTH_2003.wtb");
    std::fs::write(&file, [0xAB; 5000]).expect("write");
    let fresh = out.path().join("fresh");
    let args = [
        "data",
        "wthor",
        "--wthor",
        bad.path().to_str().unwrap(),
        "--out",
        fresh.to_str().unwrap(),
    ];
    let (ok, _, err) = stonelab(&args, "");
    assert!(!ok);
    assert!(err.contains("WTH_2003.wtb"), "{err}");
    assert!(!fresh.exists(), "no folder is left behind");
    std::fs::File::options()
        .write(true)
        .open(&file)
        .and_then(|f| f.set_len(1 << 30))
        .expect("a sparse 1 GiB file");
    let (ok, _, err) = stonelab(&args, "");
    assert!(!ok);
    assert!(err.contains("over the 67108864-byte limit"), "{err}");
    assert!(!fresh.exists(), "no folder is left behind");
    // A well-formed file with no games: nothing to build, no folder.
    let real =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/othello/wthor/WTH_1977.wtb");
    let mut empty = std::fs::read(real).expect("a shipped WTHOR file")[..16].to_vec();
    empty[4..8].copy_from_slice(&0u32.to_le_bytes());
    std::fs::write(&file, &empty).expect("write");
    let (ok, _, err) = stonelab(&args, "");
    assert!(!ok);
    assert!(err.contains("hold no games"), "{err}");
    assert!(!fresh.exists(), "no folder is left behind");
}

#[test]
fn data_wthor_leaves_out_games_that_do_not_replay() {
    let real =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/othello/wthor/WTH_1977.wtb");
    let bytes = std::fs::read(real).expect("a shipped WTHOR file");
    let games = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    assert!(games > 2);
    let out = TempDir::new("skip-out");
    let run = |bytes: &[u8], dir: &str| {
        let src = TempDir::new("skip-wthor");
        std::fs::write(src.path().join("WTH_1977.wtb"), bytes).expect("write");
        let dir = out.path().join(dir);
        let args = [
            "data",
            "wthor",
            "--wthor",
            src.path().to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ];
        let (ok, _, err) = stonelab(&args, "");
        (ok, err, dir)
    };
    let (ok, err, whole) = run(&bytes, "whole");
    assert!(ok, "{err}");
    // The second game's first move on a1: not legal from the start position.
    let mut broken = bytes.clone();
    broken[16 + 68 + 8] = 11;
    let (ok, err, part) = run(&broken, "part");
    assert!(ok, "{err}");
    assert!(err.contains("1 game that does not replay"), "{err}");
    assert!(err.contains("game 1"), "{err}");
    let read = |dir: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
    };
    let (whole, part) = (read(&whole), read(&part));
    assert_eq!(whole["games_skipped"], 0);
    assert_eq!(part["games_skipped"], 1);
    assert_eq!(part["games"].as_u64(), Some(games as u64 - 1));
    assert!(part["skipped_games"][0]
        .as_str()
        .unwrap()
        .contains("game 1"));
    assert!(part["decision_points"].as_u64().unwrap() < whole["decision_points"].as_u64().unwrap());

    // Every game broken: an error that says so, and no folder.
    for g in 0..games {
        broken[16 + 68 * g + 8] = 11;
    }
    let (ok, err, none) = run(&broken, "none");
    assert!(!ok);
    assert!(err.contains("none of the"), "{err}");
    assert!(!none.exists(), "no folder is left behind");
}
