//! The architecture invariants of ARCHITECTURE.md, checked over `cargo metadata`.

use std::collections::BTreeMap;

use cargo_metadata::{DependencyKind, MetadataCommand};

/// Layer of each workspace crate, low to high. A crate may depend only on crates of lower layers.
fn layer(name: &str) -> Option<u32> {
    Some(match name {
        "stonelab-game" | "stonelab-files" => 0,
        "stonelab-othello" | "stonelab-gomoku" => 1,
        // The engines layer: generic search, then the game-specific engines built on it.
        "stonelab-search" => 2,
        "stonelab-othello-engine" | "stonelab-gomoku-engine" => 3,
        // The learning layer: the environment and the match runner (generic, no NN library),
        // then the learners built on them (trainers evaluate through the arena).
        "stonelab-env" | "stonelab-arena" => 4,
        "stonelab-learn" => 5,
        "stonelab-protocol" => 6,
        // The services layer: the catalog of games and agents, then the front ends on it.
        "stonelab-catalog" => 7,
        // Experiments run the catalog's agents and the learners' runs.
        "stonelab-lab" => 8,
        "stonelab-web" | "stonelab-py" => 9,
        // The binary is on top of the apps: it serves the web app.
        "stonelab" => 10,
        _ => return None,
    })
}

/// Crates from outside the workspace that the rules crates may use: small and made for the job.
const RULES_ALLOWED: [&str; 2] = ["thiserror", "rand"];
/// Crates that are the NN library: only `learn` and the apps may depend on them.
const NN: [&str; 3] = ["burn", "candle-core", "tch"];

#[test]
fn dependencies_point_down_and_rules_crates_stay_light() {
    let meta = MetadataCommand::new()
        .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .no_deps()
        .exec()
        .expect("cargo metadata");
    let members: BTreeMap<String, _> = meta
        .packages
        .iter()
        .filter(|p| meta.workspace_members.contains(&p.id))
        .map(|p| (p.name.to_string(), p))
        .collect();
    assert!(members.contains_key("stonelab-game") && members.contains_key("stonelab-othello"));
    for (name, package) in &members {
        let own = layer(name)
            .unwrap_or_else(|| panic!("{name} has no layer: add it here and to ARCHITECTURE.md"));
        for dep in package
            .dependencies
            .iter()
            .filter(|d| d.kind == DependencyKind::Normal)
        {
            let dep_name = dep.name.as_str();
            if let Some(dep_layer) = layer(dep_name) {
                assert!(
                    dep_layer < own,
                    "{name} (layer {own}) depends on {dep_name} (layer {dep_layer})"
                );
            } else {
                if own <= 1 {
                    assert!(
                        RULES_ALLOWED.contains(&dep_name),
                        "rules crate {name} depends on {dep_name}"
                    );
                }
                if name != "stonelab-learn" && own < 6 {
                    assert!(
                        !NN.contains(&dep_name),
                        "{name} depends on the NN library {dep_name}"
                    );
                }
            }
        }
    }
}

/// Every `.rs` file under `dir` (relative to the workspace root), with its text.
fn sources(dir: &str) -> Vec<(String, String)> {
    fn walk(path: &std::path::Path, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("a source file reads");
                out.push((p.display().to_string(), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        &mut out,
    );
    out
}

/// The binary is glue, and shrinks to stay so (issue 54: at most 4,000 lines in all and 500 a
/// file). A ratchet: each limit holds, and sits within 100 lines of what `src/` has, so a
/// commit that shrinks `src/` lowers it (never raises it).
const SRC_LINES: usize = 4_000;
const SRC_FILE_LINES: usize = 500;

#[test]
fn the_binary_only_shrinks() {
    let files = sources("src");
    let lines = |t: &str| t.lines().count();
    let total: usize = files.iter().map(|(_, t)| lines(t)).sum();
    let (largest, most) = files
        .iter()
        .map(|(p, t)| (p.clone(), lines(t)))
        .max_by_key(|f| f.1)
        .expect("src/ has files");
    assert!(
        total <= SRC_LINES,
        "src/ has {total} lines, over the ratchet's {SRC_LINES}"
    );
    assert!(
        SRC_LINES - total < 100,
        "src/ shrank to {total} lines: lower SRC_LINES ({SRC_LINES}) to match"
    );
    assert!(
        most <= SRC_FILE_LINES,
        "{largest} has {most} lines, over the ratchet's {SRC_FILE_LINES}"
    );
    assert!(
        SRC_FILE_LINES - most < 100,
        "the largest file of src/ shrank to {most} lines: lower SRC_FILE_LINES to match"
    );
}

/// One FNV-1a and one SplitMix64 for the workspace (`game::hash`): no other library or binary
/// source holds their constants (tests may keep independent twins).
#[test]
fn one_fnv_and_one_splitmix() {
    let mut found = Vec::new();
    let mut files = sources("src");
    for dir in std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates"))
        .expect("crates/")
        .filter_map(Result::ok)
    {
        let name = dir.file_name().to_string_lossy().into_owned();
        files.extend(sources(&format!("crates/{name}/src")));
    }
    for (path, text) in &files {
        if path.ends_with("crates/game/src/hash.rs") {
            continue;
        }
        // Any spelling: case and digit separators do not matter.
        let plain = text.to_ascii_lowercase().replace('_', "");
        for constant in ["0x100000001b3", "0xbf58476d1ce4e5b9", "0x94d049bb133111eb"] {
            if plain.contains(constant) {
                found.push(format!("{path} ({constant})"));
            }
        }
    }
    assert!(found.is_empty(), "a second FNV-1a or SplitMix64: {found:?}");
}

/// The code lines of `text`: comments and doc comments left out.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with("//"))
}

/// The engines' runtime modules (what a game or a search runs) import nothing from training:
/// the pattern evaluation, the correction network's inference, the midgame search and the
/// exact solver stay usable, and small, without the fits beside them.
#[test]
fn runtime_engine_modules_import_no_training() {
    let mut found = Vec::new();
    for (path, text) in sources("crates/othello-engine/src") {
        if path.contains("/train/") || path.ends_with("/lib.rs") {
            continue;
        }
        for line in code_lines(&text) {
            if line.contains("train::") || line.contains("crate::train") {
                found.push(format!("{path}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "runtime code imports training: {found:#?}"
    );
}

/// `src/` holds no on-disk format: no serde derives (the formats, their schemas and their
/// readers live in the libraries, where the web app and a Python package reach them too).
#[test]
fn the_binary_defines_no_file_format() {
    let mut found = Vec::new();
    for (path, text) in sources("src") {
        for line in code_lines(&text) {
            let derive = line.trim_start().starts_with("#[derive(");
            if derive && (line.contains("Serialize") || line.contains("Deserialize")) {
                found.push(format!("{path}: {}", line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "serde derives in src/: {found:#?}");
}

/// `src/` tests no algorithm by its name: what differs between algorithms is a fact of the
/// registry (`learn::algos`), so adding a trainer touches no string in the binary.
#[test]
fn the_binary_tests_no_algorithm_name() {
    let mut found = Vec::new();
    for (path, text) in sources("src") {
        for line in code_lines(&text) {
            for a in learn::algos::ALGORITHMS {
                let quoted = format!("\"{}\"", a.name);
                let tests = [
                    format!("== {quoted}"),
                    format!("!= {quoted}"),
                    format!("{quoted} =>"),
                    format!("{quoted} |"),
                    format!("| {quoted}"),
                    format!("ends_with({quoted})"),
                    format!("starts_with({quoted})"),
                ];
                if tests.iter().any(|t| line.contains(t.as_str())) {
                    found.push(format!("{path}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "algorithm names tested in src/: {found:#?}"
    );
}

/// One progress-bar builder in the binary (`src/progress.rs`): every bar and spinner comes
/// from it, so each shows the same way on a terminal and as plain lines in a log.
#[test]
fn one_progress_bar_builder() {
    let mut found = Vec::new();
    for (path, text) in sources("src") {
        if path.ends_with("src/progress.rs") {
            continue;
        }
        for line in code_lines(&text) {
            if [
                "ProgressStyle",
                "ProgressBar::new",
                "ProgressBar::with",
                "ProgressDrawTarget",
            ]
            .iter()
            .any(|p| line.contains(p))
            {
                found.push(format!("{path}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "progress bars built outside src/progress.rs: {found:#?}"
    );
}

/// `src/` writes files only through its output helpers (`files`, `lab::plots`, and
/// `src/input.rs`, `src/output.rs`), so every output is checked, atomic where it must be, and
/// kept to the one output-folder policy.
#[test]
fn the_binary_writes_through_its_output_helpers() {
    let helpers = ["src/input.rs", "src/output.rs"];
    let writes = [
        "fs::write",
        "File::create",
        "OpenOptions",
        "create_dir",
        "fs::rename",
        "remove_file",
        "remove_dir",
        "from_path(",
    ];
    let mut found = Vec::new();
    for (path, text) in sources("src") {
        if helpers.iter().any(|h| path.ends_with(h)) {
            continue;
        }
        for line in code_lines(&text) {
            // The helpers' own calls (`files::create_dir_all`, `files::write`) are the way.
            let plain = line.replace("files::", "helper.");
            let direct = |w: &&str| plain.contains(*w) && !plain.contains(&format!("helper.{w}"));
            if writes.iter().any(direct) {
                found.push(format!("{path}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files written past the output helpers: {found:#?}"
    );
}

/// The run framework (`learn::run`: run folders, the trainer trait, the loop) imports no
/// algorithm: from its own crate it takes only the model-file helpers (`crate::checkpoint`),
/// and it names no trainer, so a new trainer registers in `learn::algos` and `learn::build`
/// without touching it (the settings reach it through the `RunSpec` trait).
#[test]
fn the_run_framework_imports_no_algorithm() {
    let trainers = [
        "CompetitiveTrainer",
        "DqnTrainer",
        "SelfPlayTrainer",
        "QMlpTrainer",
        "ValueSelfPlayTrainer",
        "SupervisedTrainer",
        "DqnConfig",
        "QMlpSettings",
        "SupervisedConfig",
        "ValueSelfPlayConfig",
    ];
    let mut found = Vec::new();
    for (path, text) in sources("crates/learn/src/run") {
        for line in code_lines(&text) {
            if trainers.iter().any(|t| line.contains(t)) {
                found.push(format!("{path}: {}", line.trim()));
            }
            for (at, _) in line.match_indices("crate::") {
                let module: String = line[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if module != "checkpoint" {
                    found.push(format!("{path}: crate::{module} in {}", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "learn::run imports algorithms: {found:#?}"
    );
}

/// `src/` does no parallel work: the experiments, matches and searches that run on many cores
/// are library code (the binary may size a command's thread pool).
#[test]
fn the_binary_does_no_parallel_work() {
    let parallel = [
        "par_iter",
        "par_chunks",
        "par_bridge",
        "rayon::join",
        "rayon::scope",
        "rayon::prelude",
        "rayon::spawn",
        "thread::scope",
    ];
    let mut found = Vec::new();
    for (path, text) in sources("src") {
        for line in code_lines(&text) {
            if parallel.iter().any(|p| line.contains(p)) {
                found.push(format!("{path}: {}", line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "parallel work in src/: {found:#?}");
}
