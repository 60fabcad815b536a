//! `stonelab train patterns` through the binary: every phase on a few record games (labels,
//! first fit, search relabelling, deviations, self-play, final fit), a resumed run that ends
//! with the same weights as the uninterrupted one, a run exact on a fraction of the games, and
//! clear refusals.

mod common;
use common::{run, run_dir};

use std::path::Path;

/// A run small enough for a debug build: 40 games, shallow searches, a few self-play games.
fn tiny(out: &Path) -> Vec<String> {
    let wthor = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/othello/wthor");
    [
        "train",
        "patterns",
        "--wthor",
        wthor.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--max-games",
        "40",
        "--exact-empties",
        "8",
        "--search-depth",
        "2",
        "--self-play-games",
        "6",
        "--self-play-exact",
        "8",
        "--depth",
        "1",
        "--iterations",
        "10",
        "--deviations",
        "0.3",
        "--quiet",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect()
}

#[test]
fn a_pattern_run_labels_searches_plays_fits_and_resumes_to_the_same_weights() {
    let a = run_dir("patterns-a");
    let (ok, _, err) = run(&tiny(&a));
    assert!(ok, "{err}");
    for file in [
        "config.json",
        "log.csv",
        "final-log.csv",
        "patterns.bin",
        "patterns.json",
        "plots/mae.png",
        "samples/part-0000.bin",
        "samples/search-0000.bin",
        "samples/self-play-0000.bin",
        "samples/deviation-0000.bin",
    ] {
        assert!(a.join(file).is_file(), "{file} missing");
    }
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("patterns.json")).expect("card"))
            .expect("the card is JSON");
    let samples = &card["samples"];
    for kind in ["train", "test", "exact", "search", "self_play"] {
        assert!(
            samples[kind].as_u64().is_some_and(|n| n > 0),
            "{kind}: {samples}"
        );
    }
    assert_eq!(card["config"]["search_depth"], 2);
    assert_eq!(card["config"]["deviations"], 0.3);
    assert_eq!(card["stages"], 31);
    // 31 stages fitted twice, one row each.
    for log in ["log.csv", "final-log.csv"] {
        let text = std::fs::read_to_string(a.join(log)).expect("log");
        assert_eq!(text.lines().count(), 32, "{log}");
    }

    // The same run cut short after its first fit resumes to the same weights.
    let b = run_dir("patterns-b");
    std::fs::create_dir_all(b.join("samples")).expect("mkdir");
    for file in ["config.json", "fit.bin", "log.csv", "samples/part-0000.bin"] {
        std::fs::copy(a.join(file), b.join(file)).expect("copy");
    }
    let mut resume = tiny(&b);
    resume.push("--resume".into());
    let (ok, _, err) = run(&resume);
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read(a.join("patterns.bin")).expect("a"),
        std::fs::read(b.join("patterns.bin")).expect("b"),
        "the resumed run's weights differ"
    );
    for part in ["samples/search-0000.bin", "samples/deviation-0000.bin"] {
        assert_eq!(
            std::fs::read(a.join(part)).expect("a"),
            std::fs::read(b.join(part)).expect("b"),
            "{part}"
        );
    }

    // `--theoretical-exact` gives each game's position at 24 empties its theoretical score as
    // an exact label and changes no other record label; `--self-play-search` relabels the
    // self-play positions above their exact zone by the same search.
    let t = run_dir("patterns-t");
    let mut theo = tiny(&t);
    theo.push("--theoretical-exact".into());
    theo.push("--self-play-search".into());
    let (ok, _, err) = run(&theo);
    assert!(ok, "{err}");
    for part in ["samples/search-0000.bin", "samples/deviation-0000.bin"] {
        assert_eq!(
            std::fs::read(a.join(part)).expect("a"),
            std::fs::read(t.join(part)).expect("t"),
            "{part}"
        );
    }
    let exact = |dir: &Path| -> u64 {
        let card: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("patterns.json")).expect("card"),
        )
        .expect("the card is JSON");
        card["samples"]["exact"].as_u64().expect("a count")
    };
    // One position per game at 24 empties (40 games, each longer than 36 moves).
    let more = exact(&t) - exact(&a);
    assert!((30..=40).contains(&more), "{more} more exact labels");
    let played = std::fs::read(t.join("samples/self-play-0000.bin")).expect("self-play");
    let searched = std::fs::read(t.join("samples/self-play-search-0000.bin")).expect("searched");
    assert_eq!(played.len(), searched.len());
    assert_ne!(played, searched, "no self-play label changed");
    assert_ne!(
        std::fs::read(a.join("patterns.bin")).expect("a"),
        std::fs::read(t.join("patterns.bin")).expect("t"),
    );

    // `--exact-fraction 0.5 --exact-rest 4`: half the games are solved to 8 empties, the others
    // to 4 and lose their positions with 5-8 empties, so every record label up to 8 is exact.
    let f = run_dir("patterns-f");
    let mut frac = tiny(&f);
    frac.extend(["--exact-fraction", "0.5", "--exact-rest", "4"].map(String::from));
    let (ok, _, err) = run(&frac);
    assert!(ok, "{err}");
    let full = part_samples(&a.join("samples/part-0000.bin"));
    let cut = part_samples(&f.join("samples/part-0000.bin"));
    let zone =
        |samples: &[(u32, bool)]| samples.iter().filter(|(e, _)| (5..=8).contains(e)).count();
    assert!(
        zone(&cut) * 10 > zone(&full) * 3 && zone(&cut) * 10 < zone(&full) * 7,
        "{} of {} positions with 5-8 empties kept",
        zone(&cut),
        zone(&full)
    );
    assert!(cut.iter().all(|&(e, exact)| exact == (e <= 8)), "{cut:?}");
    assert_eq!(
        cut.iter().filter(|(e, _)| *e > 8).count(),
        full.iter().filter(|(e, _)| *e > 8).count()
    );

    // Other settings, an existing folder, bad values: refused with the reason.
    let mut other = tiny(&a);
    other.push("--resume".into());
    let depth = other
        .iter()
        .position(|s| s == "--search-depth")
        .expect("flag");
    other[depth + 1] = "3".into();
    let (ok, _, err) = run(&other);
    assert!(!ok && err.contains("other settings"), "{err}");
    assert!(err.contains("search_depth: 3 here, 2 in the run"), "{err}");
    let (ok, _, err) = run(&tiny(&a));
    assert!(
        !ok && err.contains("--resume") && err.contains("--force"),
        "{err}"
    );
    let mut deep = tiny(&run_dir("patterns-c"));
    let exact = deep
        .iter()
        .position(|s| s == "--exact-empties")
        .expect("flag");
    deep[exact + 1] = "25".into();
    let (ok, _, err) = run(&deep);
    assert!(!ok && err.contains("--exact-empties"), "{err}");
    let mut pc = tiny(&run_dir("patterns-d"));
    pc.push("--search-probcut=-1".into());
    let (ok, _, err) = run(&pc);
    assert!(!ok && err.contains("--search-probcut"), "{err}");
    let mut dev = tiny(&run_dir("patterns-e"));
    let at = dev.iter().position(|s| s == "--deviations").expect("flag");
    dev[at + 1] = "1.5".into();
    let (ok, _, err) = run(&dev);
    assert!(!ok && err.contains("--deviations"), "{err}");
    dev[at + 1] = "0.5".into();
    let depth = dev
        .iter()
        .position(|s| s == "--search-depth")
        .expect("flag");
    dev[depth + 1] = "0".into();
    let (ok, _, err) = run(&dev);
    assert!(!ok && err.contains("--search-depth"), "{err}");
    for (extra, flag) in [
        (&["--exact-fraction", "1.5"][..], "--exact-fraction"),
        (&["--exact-rest", "4"][..], "--exact-fraction below 1"),
        (
            &["--exact-fraction", "0.5", "--exact-rest", "9"][..],
            "above --exact-empties",
        ),
    ] {
        let mut bad = tiny(&run_dir("patterns-g"));
        bad.extend(extra.iter().map(|s| (*s).to_string()));
        let (ok, _, err) = run(&bad);
        assert!(!ok && err.contains(flag), "{extra:?}: {err}");
    }
}

/// `--correction N`: after the final fit, the correction network fitted for the run's weights,
/// with its card, log and plot; the same command gives the same network, a run resumed after
/// its final fit gives it too, and the `othello` engine plays the pair from the files.
#[test]
fn a_pattern_run_fits_a_correction_network_seed_faithfully() {
    let with = |out: &Path| {
        let mut args = tiny(out);
        args.extend(["--correction", "16", "--correction-epochs", "2"].map(String::from));
        args
    };
    let a = run_dir("patterns-corr-a");
    let (ok, _, err) = run(&with(&a));
    assert!(ok, "{err}");
    for file in [
        "correction.bin",
        "correction.json",
        "correction-log.csv",
        "correction-state.bin",
        "plots/correction.png",
    ] {
        assert!(a.join(file).is_file(), "{file} missing");
    }
    let net = othello_engine::correction::load(&a.join("correction.bin")).expect("a network");
    assert_eq!(net.hidden, 16);
    let weights = std::fs::read(a.join("patterns.bin")).expect("weights");
    net.check_fits(&weights)
        .expect("fitted for the run's weights");
    let log = std::fs::read_to_string(a.join("correction-log.csv")).expect("log");
    assert_eq!(log.lines().count(), 3, "{log}");
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("correction.json")).expect("card"))
            .expect("the card is JSON");
    assert_eq!(card["hidden"], 16);
    assert_eq!(card["epochs"], 2);
    assert!(
        card["held_out_mae"]
            .as_array()
            .is_some_and(|b| !b.is_empty()),
        "{card}"
    );

    // The same command again, and the run resumed after its final fit: the same network.
    let b = run_dir("patterns-corr-b");
    let (ok, _, err) = run(&with(&b));
    assert!(ok, "{err}");
    let c = run_dir("patterns-corr-c");
    std::fs::create_dir_all(c.join("samples")).expect("mkdir");
    for entry in std::fs::read_dir(a.join("samples")).expect("samples") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), c.join("samples").join(entry.file_name())).expect("copy");
    }
    for file in [
        "config.json",
        "fit.bin",
        "log.csv",
        "final-fit.bin",
        "final-log.csv",
    ] {
        std::fs::copy(a.join(file), c.join(file)).expect("copy");
    }
    let mut resume = with(&c);
    resume.push("--resume".into());
    let (ok, _, err) = run(&resume);
    assert!(ok, "{err}");
    for dir in [&b, &c] {
        assert_eq!(
            std::fs::read(a.join("correction.bin")).expect("a"),
            std::fs::read(dir.join("correction.bin")).expect("other"),
            "{}",
            dir.display()
        );
    }

    // The engine plays the pair from the files; the network refuses other weights.
    let spec = format!(
        "othello:depth=2,book=off,weights={},correction={}",
        a.join("patterns.bin").display(),
        a.join("correction.bin").display()
    );
    let (ok, _, err) = run(&[
        "arena".to_string(),
        "--agents".into(),
        spec,
        "random".into(),
        "--games".into(),
        "2".into(),
    ]);
    assert!(ok, "{err}");
    let (ok, _, err) = run(&[
        "arena".to_string(),
        "--agents".into(),
        format!(
            "othello:depth=1,correction={}",
            a.join("correction.bin").display()
        ),
        "random".into(),
        "--games".into(),
        "2".into(),
    ]);
    assert!(
        !ok && err.contains("fitted for the pattern weights"),
        "{err}"
    );
}

/// `--force` replaces only an earlier run of the same command: a folder holding anything else is
/// refused and left whole, and a run whose records cannot be read leaves the old run in place.
#[test]
fn force_replaces_only_a_run_and_only_once_the_records_read() {
    let dir = run_dir("patterns-force");
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    std::fs::write(dir.join("notes.txt"), "keep me").expect("write");
    let mut args = tiny(&dir);
    args.push("--force".into());
    let (ok, _, err) = run(&args);
    assert!(
        !ok && err.contains("does not write") && err.contains("another --out"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).expect("kept"),
        "keep me"
    );
    assert!(dir.join("sub").is_dir());

    // A plain file is no run folder.
    let file = dir.join("notes.txt");
    let (ok, _, err) = run(&tiny(&file));
    assert!(!ok && err.contains("not a folder"), "{err}");

    // An earlier run (only a run's files) with records that cannot be read: nothing removed.
    let old = run_dir("patterns-force-old");
    std::fs::create_dir_all(old.join("samples")).expect("mkdir");
    std::fs::write(old.join("config.json"), "{}").expect("write");
    std::fs::write(old.join("patterns.bin"), "old").expect("write");
    let mut bad = tiny(&old);
    let at = bad.iter().position(|s| s == "--wthor").expect("flag");
    bad[at + 1] = old.join("no-such-records").to_str().expect("utf-8").into();
    bad.push("--force".into());
    let (ok, _, err) = run(&bad);
    assert!(!ok && err.contains("no-such-records"), "{err}");
    assert_eq!(
        std::fs::read_to_string(old.join("patterns.bin")).expect("kept"),
        "old"
    );
    assert!(old.join("samples").is_dir());

    // `train probcut --force` keeps to its own files too.
    let (ok, _, err) = run(&[
        "train".into(),
        "probcut".into(),
        "--out".into(),
        dir.to_str().expect("utf-8").into(),
        "--force".into(),
        "--quiet".into(),
    ]);
    assert!(!ok && err.contains("does not write"), "{err}");
    assert!(dir.join("notes.txt").is_file());
}

/// Each sample's empties and exact flag in a labelled part file (24-byte header, 18 bytes per
/// sample: two boards, the score, the flags with 1 = exact).
fn part_samples(path: &Path) -> Vec<(u32, bool)> {
    let bytes = std::fs::read(path).expect("part file");
    bytes[24..]
        .chunks_exact(18)
        .map(|c| {
            let word =
                |at: usize| u64::from_le_bytes(c[at..at + 8].try_into().expect("eight bytes"));
            ((!(word(0) | word(8))).count_ones(), c[17] & 1 != 0)
        })
        .collect()
}

/// `train probcut` on too few positions to fit any regression is an error that says so (the
/// searched pairs are kept), not an empty table with exit status 0.
#[test]
fn probcut_with_too_few_pairs_for_any_regression_is_an_error() {
    let dir = run_dir("probcut-too-few");
    let wthor = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/othello/wthor");
    let (ok, _, err) = run(&[
        "train".into(),
        "probcut".into(),
        "--wthor".into(),
        wthor.to_str().expect("utf-8").into(),
        "--positions".into(),
        "3".into(),
        "--depth".into(),
        "4".into(),
        "--out".into(),
        dir.to_str().expect("utf-8").into(),
        "--quiet".into(),
    ]);
    assert!(!ok, "{err}");
    assert!(err.contains("no regression could be fitted"), "{err}");
    assert!(!dir.join("probcut.txt").exists());
    assert!(dir.join("pairs.csv").is_file());
}
