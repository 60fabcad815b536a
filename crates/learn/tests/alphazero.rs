//! The `alphazero` trainer's promises: exact resume from every checkpoint, the same seed
//! writing the same bytes, damaged window files refused, and a model file that loads back
//! into the network that wrote it.

use std::path::{Path, PathBuf};

use game::Game;
use learn::alphazero::{AlphaZeroConfig, PvArch, PvEvaluator, PvNet};
use learn::run::{RunDir, CHECKPOINTS};
use learn::{build_trainer, resume, train, AlgoSettings, Opponent, RunConfig, RunError};
use othello::Othello4;
use search::{Agent, PolicyValue, RandomAgent};

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stonelab-az-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn random<G: Game>(seed: u64) -> Box<dyn Agent<G>> {
    Box::new(RandomAgent::new(seed))
}

/// A run of a few seconds: 4 games an iteration of 8-simulation searches, a tiny network.
fn tiny(episodes: usize, gate: bool) -> RunConfig {
    let mut az = AlphaZeroConfig::for_game("othello4", 3);
    az.arch = PvArch {
        blocks: 1,
        channels: 8,
        margin_head: true,
    };
    az.games = 4;
    az.concurrent = 3;
    az.sims = 8;
    az.fast_sims = 2;
    az.full_share = 0.5;
    az.batch = 16;
    az.window = 200;
    az.eval_sims = 8;
    az.solver_empties = 3;
    az.gate_games = if gate { 2 } else { 0 };
    RunConfig {
        algo: "alphazero".into(),
        game: "othello4".into(),
        episodes,
        eval_every: 2,
        eval_games: 4,
        checkpoint_every: 1,
        opponent: "random".into(),
        settings: AlgoSettings::AlphaZero(az),
        eval_opponents: Vec::new(),
    }
}

fn run(root: &Path, config: &RunConfig, fresh: bool, keep_all: bool) -> Result<(), RunError> {
    let (dir, config, from) = if fresh {
        let dir = RunDir::create(root, false)?;
        let dir = if keep_all {
            dir.keeping(usize::MAX)
        } else {
            dir
        };
        dir.write_config(config)?;
        (dir, config.clone(), None)
    } else {
        let r = resume(root, &config.algo, &config.game, Some(config.episodes))?;
        (r.dir, r.config, r.from)
    };
    let mut trainer = build_trainer::<Othello4>(&config, from.as_ref())?;
    let evals = [Opponent {
        name: "random".into(),
        make: Box::new(random::<Othello4>),
    }];
    train(
        &dir,
        &config,
        trainer.as_mut(),
        &random::<Othello4>,
        &evals,
        &mut |_| {},
    )
    .map(|_| ())
}

/// log.csv without the wall-clock column, and eval.csv.
fn logs(root: &Path) -> (Vec<String>, String) {
    let log = std::fs::read_to_string(root.join("log.csv")).expect("log.csv");
    let rows = log
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string())
        .collect();
    (
        rows,
        std::fs::read_to_string(root.join("eval.csv")).expect("eval.csv"),
    )
}

fn checkpoints(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join(CHECKPOINTS))
        .expect("checkpoints")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ep-"))
        .collect();
    names.sort();
    names
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from)
        .expect("read dir")
        .filter_map(Result::ok)
    {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

#[test]
fn alphazero_resumes_from_every_checkpoint_like_an_uninterrupted_run() {
    for gate in [false, true] {
        let config = tiny(5, gate);
        let whole = folder(&format!("whole-{gate}"));
        run(&whole, &config, true, true).expect("uninterrupted");
        let expected = logs(&whole);
        assert_eq!(expected.0.len(), 6, "header + one row per iteration");
        let all = checkpoints(&whole);
        assert_eq!(all.len(), 5, "{all:?}");
        for (k, keep) in all.iter().enumerate().take(4) {
            let part = folder(&format!("part-{gate}-{keep}"));
            copy_tree(&whole, &part);
            for later in &all[k + 1..] {
                std::fs::remove_dir_all(part.join(CHECKPOINTS).join(later)).expect("remove");
            }
            run(&part, &config, false, false).expect("resumed");
            assert_eq!(logs(&part), expected, "gate {gate}: resumed from {keep}");
            let _ = std::fs::remove_dir_all(&part);
        }
        let card: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(whole.join(CHECKPOINTS).join("last.json")).expect("card"),
        )
        .expect("json");
        assert_eq!(card["algo"], "az");
        assert_eq!(card["game"], "othello4");
        assert_eq!(card["episodes"], 5);
    }
}

#[test]
fn the_same_seed_writes_the_same_model_bytes_and_the_model_loads_back() {
    let model = |name: &str| {
        let root = folder(name);
        run(&root, &tiny(2, false), true, false).expect("run");
        let path = root.join(CHECKPOINTS).join("last.safetensors");
        (std::fs::read(&path).expect("model"), path)
    };
    let (a, path) = model("seed-a");
    let (b, _) = model("seed-b");
    assert_eq!(a, b, "the same seed wrote other bytes");
    let (net, card, arch) = PvNet::load::<Othello4>(&path).expect("loads");
    assert_eq!(card.algo, "az");
    assert_eq!(arch.channels, 8);
    let eval = PvEvaluator::<Othello4>::new(&net);
    let out = eval.policy_value(&[Othello4::new()]);
    let sum: f32 = out[0].priors.iter().sum();
    assert!((sum - 1.0).abs() < 1e-4);
    assert!(
        PvNet::load::<othello::Othello6>(&path).is_err(),
        "a 4x4 model is no 6x6 model"
    );
}

#[test]
fn a_damaged_window_file_is_refused_and_the_run_falls_back_to_the_checkpoint_before() {
    let root = folder("damaged");
    let config = tiny(3, false);
    run(&root, &config, true, false).expect("run");
    let all = checkpoints(&root);
    let newest = root
        .join(CHECKPOINTS)
        .join(all.last().expect("a checkpoint"));
    let window = newest.join("window.bin");
    let mut bytes = std::fs::read(&window).expect("window");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&window, bytes).expect("write");
    let resumed = resume(&root, "alphazero", "othello4", Some(4)).expect("falls back");
    let from = resumed.from.expect("a checkpoint");
    assert_ne!(from.path, newest, "the damaged checkpoint is passed over");
    assert!(!resumed.warnings.is_empty(), "the fallback is reported");
}

/// The bundled 4x4 model (`docs/alphazero.md` gives the command that trained it) at every
/// position reachable from the start: its search plays a move of best exact value at 99% or
/// more of the choices, and its value head has the exact result's sign at 80% or more of the positions (85.3% measured, mean squared error 0.33).
#[test]
fn the_bundled_4x4_model_plays_optimally_at_every_reachable_position() {
    use learn::alphazero::exactness;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/othello4-az.safetensors");
    let (net, card, _) = PvNet::load::<Othello4>(&path).expect("the bundled 4x4 model");
    assert_eq!(card.algo, "az");
    let eval = PvEvaluator::<Othello4>::new(&net);
    let table = exactness::othello4_table().expect("value iteration");
    let config = search::PuctConfig {
        sims: Some(EXACT_SIMS),
        ..search::PuctConfig::default()
    };
    let r = exactness::othello4(&eval, &table, &config, 512);
    assert!(r.choices > 20_000, "{r:?}");
    let share = |k: usize, n: usize| k as f64 / n as f64;
    assert!(share(r.search_optimal, r.choices) >= 0.99, "{r:?}");
    assert!(share(r.value_sign, r.positions) >= 0.8, "{r:?}");
    assert!(r.value_mse < 0.4, "{r:?}");
}

/// Simulations per move of the 4x4 exactness check (the `az` agent's default is 400).
const EXACT_SIMS: u32 = 64;
