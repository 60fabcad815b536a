//! The pattern pipeline in process: a small run reports its phases through the [`Report`], an
//! interrupted run resumes to the same files, and the output folder's policy holds.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use othello_engine::train::pipeline::{
    train_patterns, Chart, PatternRun, PipelineError, Report, Silent, Steps, PATTERN_RUN,
};
use othello_engine::train::{PatternConfig, DEFAULT_CORRECTION_EPOCHS};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stonelab-pipeline-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config() -> PatternConfig {
    PatternConfig {
        wthor: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/othello/wthor"),
        max_games: 24,
        exact_empties: 6,
        stage_width: 4,
        scale: 64,
        lambda: 10.0,
        lambda_globals: 1.0,
        iterations: 8,
        seed: 7,
        blend: 0,
        self_play_games: 3,
        self_play_depth: 1,
        search_depth: 1,
        self_play_exact: 6,
        search_probcut: 0.0,
        deviations: 0.2,
        theoretical_exact: false,
        self_play_search: false,
        edge_mobility: false,
        exact_fraction: 1.0,
        exact_rest: 0,
        correction: 16,
        correction_epochs: DEFAULT_CORRECTION_EPOCHS.min(2),
        correction_frontier: false,
        correction_as_played: false,
    }
}

fn run(out: &Path) -> PatternRun<'_> {
    PatternRun {
        out,
        config: config(),
        resume: false,
        force: false,
        version: "test",
    }
}

/// Every file of `dir` (relative path) with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let name = path.strip_prefix(root).unwrap().display().to_string();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Records what a run reports.
#[derive(Default)]
struct Recorder {
    events: Arc<Mutex<Vec<String>>>,
}

struct Counted(Arc<Mutex<Vec<String>>>, String);

impl Steps for Counted {
    fn set_position(&self, _: u64) {}
    fn inc(&self, _: u64) {}
    fn set_message(&self, _: String) {}
    fn finish(&self) {
        self.0.lock().unwrap().push(format!("done {}", self.1));
    }
}

impl Report for Recorder {
    fn steps(&self, total: u64, unit: &str) -> Arc<dyn Steps> {
        self.events
            .lock()
            .unwrap()
            .push(format!("{unit} ({total})"));
        Arc::new(Counted(Arc::clone(&self.events), unit.to_string()))
    }
    fn note(&self, line: &str) {
        self.events.lock().unwrap().push(format!("note {line}"));
    }
    fn warn(&self, line: &str) {
        self.events.lock().unwrap().push(format!("warn {line}"));
    }
    fn chart(&self, path: &Path, chart: &Chart) -> Result<(), String> {
        let name = path.file_name().unwrap().to_string_lossy();
        let lines: Vec<&str> = chart.lines.iter().map(|l| l.0.as_str()).collect();
        self.events
            .lock()
            .unwrap()
            .push(format!("chart {name} {lines:?}"));
        std::fs::write(path, "chart").map_err(|e| e.to_string())
    }
}

#[test]
fn a_run_reports_each_phase_and_resumes_to_the_same_files() {
    let a = scratch("a");
    let recorder = Recorder::default();
    train_patterns(&run(&a), &recorder).unwrap();
    let events = recorder.events.lock().unwrap().clone();
    for expected in [
        "games labelled (24)",
        "stages fitted (16)",
        "positions relabelled by search",
        "parts of deviations labelled (1)",
        "self-play games (3)",
        "correction network (epochs) (2)",
        "chart mae.png [\"training\", \"held out\"]",
        "chart correction.png [\"patterns\", \"patterns + correction\"]",
    ] {
        assert!(
            events.iter().any(|e| e.starts_with(expected)),
            "no {expected:?} in {events:#?}"
        );
    }
    let started = events
        .iter()
        .filter(|e| !e.starts_with("note") && !e.starts_with("chart"));
    let (begun, ended) = started.fold((0, 0), |(b, d), e| {
        if e.starts_with("done ") {
            (b, d + 1)
        } else {
            (b + 1, d)
        }
    });
    assert_eq!(begun, ended, "every phase's progress finishes: {events:#?}");

    // Interrupted after the first fit: the later phases' files are gone; resuming makes them
    // again, byte for byte.
    let b = scratch("b");
    train_patterns(&run(&b), &Silent).unwrap();
    for gone in [
        "final-fit.bin",
        "final-log.csv",
        "patterns.bin",
        "patterns.json",
        "correction-state.bin",
        "correction.bin",
        "correction.json",
        "samples/self-play-0000.bin",
    ] {
        std::fs::remove_file(b.join(gone)).unwrap();
    }
    let resumed = PatternRun {
        resume: true,
        ..run(&b)
    };
    train_patterns(&resumed, &Silent).unwrap();
    // The logs hold timings; the rest must match.
    let strip = |files: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        files
            .into_iter()
            .filter(|(name, _)| !name.ends_with(".png") && !name.ends_with("log.csv"))
            .collect()
    };
    let (fa, fb) = (strip(contents(&a)), strip(contents(&b)));
    assert_eq!(
        fa.iter().map(|f| &f.0).collect::<Vec<_>>(),
        fb.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for ((name, x), (_, y)) in fa.iter().zip(&fb) {
        assert!(x == y, "{name} differs after the resume");
    }

    // A resume with other settings is refused, naming the difference.
    let other = PatternRun {
        resume: true,
        config: PatternConfig {
            seed: 8,
            ..config()
        },
        ..run(&b)
    };
    let err = train_patterns(&other, &Silent).unwrap_err().to_string();
    assert!(err.contains("seed: 8 here, 7 in the run"), "{err}");
    for dir in [a, b] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn the_run_folder_takes_only_a_pattern_run() {
    let out = scratch("folder");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("config.json"), "{}").unwrap();
    let err = train_patterns(&run(&out), &Silent).unwrap_err();
    assert!(
        err.to_string().contains("already holds a pattern run"),
        "{err}"
    );
    std::fs::write(out.join("thesis.tex"), "mine").unwrap();
    let forced = PatternRun {
        force: true,
        ..run(&out)
    };
    let err = train_patterns(&forced, &Silent).unwrap_err();
    assert!(matches!(err, PipelineError::File(_)), "{err}");
    assert!(err.to_string().contains("\"thesis.tex\""), "{err}");
    assert!(out.join("thesis.tex").exists() && out.join("config.json").exists());
    assert!(PATTERN_RUN.entries.contains(&"correction.json"));
    std::fs::remove_dir_all(&out).unwrap();
}
