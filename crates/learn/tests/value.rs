//! The Othello paper's value learning (`learn::value`) on tiny datasets written here from seeded
//! random games: the paper's loss against a plain twin, supervised training that learns and logs
//! the exported model's test loss, same seed → same model bytes and resume = uninterrupted for
//! `cnn-supervised`, `mlp-supervised` and `cnn-selfplay`, batched leaf evaluation against
//! one-at-a-time evaluation, the evaluation and self-play positions of the protocol, and clear
//! refusals of wrong models and dataset files.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use burn::tensor::Device;
use game::{Color, Game};
use learn::checkpoint::{read_model, write_model};
use learn::run::{Trainer, CHECKPOINTS};
use learn::value::policy_iteration::SelfPlayOpponent;
use learn::value::positions::{evaluation_positions, is_balanced, self_play_starts};
use learn::value::{
    score_of, Orientation, SupervisedConfig, SupervisedTrainer, TurnPlane, ValueArch, ValueData,
    ValueEvaluator, ValueInput, ValueIterationConfig, ValueMinimax, ValueModel, ValueNet,
    ValueSelfPlayConfig, ValueSelfPlayTrainer, CNN_ALGO, MLP_ALGO,
};
use learn::{
    build_trainer, resume, train, AlgoSettings, Mobility, Opponent, RunConfig, RunDir, RunError,
};
use othello::dataset::{
    frequency_train_len, sort_by_frequency, write_dataset, Part, Record, Split, StateKey,
    Symmetries,
};
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::{Agent, Budget, RandomAgent};

// ---------------------------------------------------------------------------------------------
// Helpers

/// A fresh (absent) folder under the temporary directory, unique to this process.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stonelab-value-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// [`folder`], created.
fn made(name: &str) -> PathBuf {
    let dir = folder(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    dir
}

fn random(seed: u64) -> Box<dyn Agent<Othello8>> {
    Box::new(RandomAgent::new(seed))
}

fn discs(pos: &Othello8) -> u32 {
    pos.count(Color::Black) + pos.count(Color::White)
}

/// Every decision point (the side to move has a placement) of `games` seeded random games.
fn decision_points(seed: u64, games: usize) -> Vec<Othello8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Othello8::start();
        loop {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if pos.moves() != 0 {
                out.push(pos);
            }
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

/// The distinct canonical states of `positions`, in first-seen order.
fn distinct_canonical(positions: &[Othello8]) -> Vec<StateKey> {
    let mut seen = HashSet::new();
    positions
        .iter()
        .map(|p| StateKey::of(p).canonical())
        .filter(|k| seen.insert(*k))
        .collect()
}

/// `2·V·N` for the learnable label: V = 1 when the side to move has more discs, 0 when fewer,
/// ½ when even.
fn learnable_wins2(key: &StateKey, count: u32) -> u32 {
    let (black, white) = (key.black.count_ones(), key.white.count_ones());
    let (own, other) = match key.side {
        Color::Black => (black, white),
        Color::White => (white, black),
    };
    match own.cmp(&other) {
        std::cmp::Ordering::Greater => 2 * count,
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Equal => count,
    }
}

/// A tiny merged, frequency-split value dataset in `dir` (`merged-frequency-train.bin` and
/// `merged-frequency-test.bin`): `states` distinct canonical decision points of seeded random
/// games, counts 1..=30, labelled by [`learnable_wins2`]; one in four of the states of 14 to 24
/// discs is instead a balanced one (seen 10 to 30 times, |V − ½| ≤ 0.05). Returns every record,
/// in frequency order (the first ⌊0.8 n⌋ train).
fn dataset(dir: &Path, seed: u64, states: usize) -> Vec<Record> {
    std::fs::create_dir_all(dir).expect("mkdir");
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xda7a);
    let keys = distinct_canonical(&decision_points(seed, states / 20 + 10));
    assert!(keys.len() >= states, "{} states from the games", keys.len());
    let mut records: Vec<Record> = keys
        .into_iter()
        .take(states)
        .enumerate()
        .map(|(i, key)| {
            let d = (key.black | key.white).count_ones();
            if (14..=24).contains(&d) && i.is_multiple_of(4) {
                let count = rng.random_range(10..=30u32);
                let wins2 = count + rng.random_range(0..=1u32) * u32::from(count >= 20);
                Record { key, count, wins2 }
            } else {
                let count = rng.random_range(1..=30u32);
                Record {
                    key,
                    count,
                    wins2: learnable_wins2(&key, count),
                }
            }
        })
        .collect();
    sort_by_frequency(&mut records, 0);
    let train = frequency_train_len(records.len());
    write_dataset(
        &dir.join("merged-frequency-train.bin"),
        Symmetries::Merged,
        Split::Frequency(Part::Train),
        &records[..train],
    )
    .expect("train file");
    write_dataset(
        &dir.join("merged-frequency-test.bin"),
        Symmetries::Merged,
        Split::Frequency(Part::Test),
        &records[train..],
    )
    .expect("test file");
    records
}

/// The paper's self-play settings from the model `from` (read in its own orientation; the
/// default one when it does not load, for the refusals).
fn self_play_config(from: PathBuf, sha256: String, data: PathBuf) -> ValueSelfPlayConfig {
    let orientation = ValueModel::load(&from, CNN_ALGO, "othello8", 8)
        .map(|m| m.orientation)
        .unwrap_or_default();
    ValueSelfPlayConfig::paper(from, sha256, orientation, data)
}

/// The input a network of `arch` reads here: the paper planes for a CNN, the stones for an MLP.
fn input_of(arch: &ValueArch) -> ValueInput {
    match arch {
        ValueArch::Cnn { .. } => ValueInput::PaperPlanes {
            mobility: Mobility::AtMost,
            turn: TurnPlane::Kept,
        },
        ValueArch::Mlp { .. } => ValueInput::StoneOnly,
    }
}

/// Supervised settings for a tiny network `arch` over the dataset in `data`.
fn supervised(arch: &str, data: &Path) -> SupervisedConfig {
    let arch: ValueArch = arch.parse().expect("arch");
    let input = input_of(&arch);
    SupervisedConfig {
        batch: 32,
        learning_rate: 3e-3,
        seed: 7,
        eval_depth: 1,
        ..SupervisedConfig::paper(arch, input, data.to_path_buf())
    }
}

/// A run of `algo` on 8x8 Othello: an evaluation (2 games) and a checkpoint every episode.
fn run_config(algo: &str, episodes: usize, settings: AlgoSettings) -> RunConfig {
    RunConfig {
        algo: algo.into(),
        game: "othello8".into(),
        episodes,
        eval_every: 1,
        eval_games: 2,
        checkpoint_every: 1,
        opponent: "random".into(),
        settings,
        eval_opponents: Vec::new(),
    }
}

/// Runs a fresh run in `root` (keeping every checkpoint when `keep_all`), or continues the one
/// there, to `config.episodes`.
fn run(root: &Path, config: &RunConfig, fresh: bool, keep_all: bool) -> Result<(), RunError> {
    let (dir, config, from) = if fresh {
        let mut dir = RunDir::create(root, false)?;
        if keep_all {
            dir = dir.keeping(usize::MAX);
        }
        dir.write_config(config)?;
        (dir, config.clone(), None)
    } else {
        let r = resume(root, &config.algo, &config.game, Some(config.episodes))?;
        (r.dir, r.config, r.from)
    };
    let mut trainer = build_trainer::<Othello8>(&config, from.as_ref())?;
    let evals = [Opponent {
        name: "random".into(),
        make: Box::new(random),
    }];
    train(
        &dir,
        &config,
        trainer.as_mut(),
        &random,
        &evals,
        &mut |_| {},
    )?;
    Ok(())
}

/// log.csv without its seconds column, and eval.csv.
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

fn last_model(root: &Path) -> Vec<u8> {
    std::fs::read(root.join(CHECKPOINTS).join("last.safetensors")).expect("last.safetensors")
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
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The paper's loss and plain MSE of the model file at `path` on the test file of `data`.
fn model_test_losses(path: &Path, algo: &str, data: &Path) -> (f64, f64) {
    let model = ValueModel::load(path, algo, "othello8", 8).expect("model");
    let test = ValueData::load(
        &data.join("merged-frequency-test.bin"),
        Symmetries::Merged,
        Split::Frequency(Part::Test),
        None,
        0,
    )
    .expect("test states");
    let eval = model.evaluator();
    test.losses(|p| eval.probabilities(p))
}

/// Writes the models a trainer exports now into `dir`; returns their paths.
fn export(trainer: &dyn Trainer<Othello8>, dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).expect("mkdir");
    trainer
        .models("othello8", &serde_json::Value::Null)
        .expect("models")
        .into_iter()
        .map(|e| {
            let path = dir.join(&e.file);
            write_model(&path, &e.weights, e.card).expect("write model");
            path
        })
        .collect()
}

fn error_of<T>(r: Result<T, RunError>, what: &str) -> RunError {
    match r {
        Ok(_) => panic!("{what}: accepted"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------------------------
// The loss

/// `ValueData::losses` is Σ N·(V − v)² / Σ N and the plain mean of (V − v)², computed here by
/// hand from a fixed prediction, over more states than one chunk of 4096.
#[test]
fn the_paper_loss_is_the_frequency_weighted_squared_error() {
    let positions = decision_points(11, 120);
    assert!(positions.len() > 5000, "{}", positions.len());
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let records: Vec<Record> = positions
        .iter()
        .map(|p| {
            let count = rng.random_range(1..=50u32);
            Record {
                key: StateKey::of(p),
                count,
                wins2: rng.random_range(0..=2 * count),
            }
        })
        .collect();
    let total: u64 = records.iter().map(|r| u64::from(r.count)).sum();
    let data = ValueData {
        records: records.clone(),
        total,
    };
    // Some function of the position the loss cannot guess: the share of black discs, bent.
    let predict = |p: &Othello8| -> f32 {
        let b = p.count(Color::Black) as f32;
        let d = discs(p) as f32;
        (b / d).powi(2) * 0.9 + 0.05 * (p.moves().count_ones() % 3) as f32
    };
    let mut calls = 0;
    let mut seen = 0;
    let (weighted, plain) = data.losses(|batch| {
        calls += 1;
        assert!(batch.len() <= 4096, "a batch of {}", batch.len());
        for (k, p) in batch.iter().enumerate() {
            assert_eq!(
                StateKey::of(p),
                records[seen + k].key,
                "positions out of order"
            );
        }
        seen += batch.len();
        batch.iter().map(predict).collect()
    });
    assert_eq!(seen, records.len(), "every state predicted once");
    assert!(calls >= 2, "{calls} calls");
    let (mut num, mut den, mut sum) = (0.0f64, 0.0f64, 0.0f64);
    for r in &records {
        let v = f64::from(r.wins2) / (2.0 * f64::from(r.count));
        let p = f64::from(predict(&r.key.position().expect("position")));
        num += f64::from(r.count) * (v - p) * (v - p);
        den += f64::from(r.count);
        sum += (v - p) * (v - p);
    }
    let (want_weighted, want_plain) = (num / den, sum / records.len() as f64);
    assert!(
        (weighted - want_weighted).abs() < 1e-12,
        "{weighted} vs {want_weighted}"
    );
    assert!(
        (plain - want_plain).abs() < 1e-12,
        "{plain} vs {want_plain}"
    );
    // Weighting matters here: the two differ.
    assert!((weighted - plain).abs() > 1e-4, "{weighted} {plain}");
    // A perfect predictor has no loss.
    let by_key: HashMap<StateKey, f64> = records.iter().map(|r| (r.key, r.value())).collect();
    let kept: Vec<Record> = records
        .iter()
        .filter(|r| by_key[&r.key] == r.value())
        .copied()
        .collect();
    let perfect = ValueData {
        total: kept.iter().map(|r| u64::from(r.count)).sum(),
        records: kept,
    };
    let (w, m) = perfect.losses(|batch| {
        batch
            .iter()
            .map(|p| by_key[&StateKey::of(p)] as f32)
            .collect()
    });
    assert!(w < 1e-12 && m < 1e-12, "{w} {m}");
}

// ---------------------------------------------------------------------------------------------
// Supervised training

/// A few epochs of supervised training lower the paper's loss on the training and test states
/// of a learnable set (V = 1 when the side to move has more discs); each round's row holds the
/// epoch's loss and `test_losses()`, and the exported model, loaded back, gives that test loss.
#[test]
fn supervised_training_learns_and_logs_the_exported_models_test_loss() {
    let data = folder("learns-data");
    dataset(&data, 21, 400);
    for arch in ["cnn:4,k3,8", "mlp:16"] {
        let config = supervised(arch, &data);
        let algo = if arch.starts_with("cnn") {
            "cnn-supervised"
        } else {
            "mlp-supervised"
        };
        let mut trainer = SupervisedTrainer::new(algo, config.clone()).expect("trainer");
        assert_eq!(trainer.data().0.records.len(), 320, "{arch}");
        assert_eq!(trainer.data().1.records.len(), 80, "{arch}");
        let train_loss = |t: &SupervisedTrainer| {
            let eval = ValueEvaluator::new(t.inference_net(), config.input, config.orientation());
            t.data().0.losses(|p| eval.probabilities(p)).0
        };
        let (train0, test0) = (train_loss(&trainer), trainer.test_losses().0);
        let mut epoch_losses = Vec::new();
        for epoch in 1..=6 {
            let rows = trainer.round(1, &random).expect("round");
            assert_eq!(rows.len(), 1, "{arch}: one row per epoch");
            let loss = rows[0].loss.expect("a loss");
            let (test, mse) = trainer.test_losses();
            let fields: Vec<String> = rows[0].values.iter().map(ToString::to_string).collect();
            assert_eq!(
                fields,
                [
                    epoch.to_string(),
                    format!("{loss:.6}"),
                    format!("{test:.6}"),
                    format!("{mse:.6}"),
                    (epoch * 10).to_string()
                ],
                "{arch}: epoch,train_loss,test_loss,test_mse,steps"
            );
            assert_eq!(trainer.episode(), epoch);
            epoch_losses.push(loss);
        }
        let (train6, test6) = (train_loss(&trainer), trainer.test_losses().0);
        assert!(
            train6 < 0.6 * train0,
            "{arch}: training loss {train0} -> {train6}"
        );
        assert!(test6 < test0, "{arch}: test loss {test0} -> {test6}");
        assert!(
            epoch_losses[5] < epoch_losses[0],
            "{arch}: epoch losses {epoch_losses:?}"
        );
        // The exported model, written and loaded back, is the network the row measured.
        let models = folder(&format!("learns-{algo}"));
        let paths = export(&trainer, &models);
        assert_eq!(paths.len(), 1);
        let want = if algo == "cnn-supervised" {
            CNN_ALGO
        } else {
            MLP_ALGO
        };
        let loaded = model_test_losses(&paths[0], want, &data);
        let now = trainer.test_losses();
        assert!(
            (loaded.0 - now.0).abs() < 1e-9 && (loaded.1 - now.1).abs() < 1e-9,
            "{arch}: exported {loaded:?}, trainer {now:?}"
        );
        let (card, _) = read_model(&paths[0]).expect("card");
        assert_eq!(card.algo, want);
        assert_eq!(card.episodes, 6);
        assert_eq!(card.train_steps, 60);
        assert_eq!(card.config["trainer"], algo);
        assert_eq!(card.config["train_states"], 320);
        let _ = std::fs::remove_dir_all(&models);
    }
    let _ = std::fs::remove_dir_all(&data);
}

// ---------------------------------------------------------------------------------------------
// Reproducibility and resume

/// Whole runs of 3 episodes keeping every checkpoint; the same seed writes the same model
/// bytes; a run stopped at 1 and resumed to 3, and copies of the whole run resumed from each of
/// its checkpoints, end with the same `last.safetensors` bytes and the same logs. For
/// `cnn-supervised`, `mlp-supervised` and `cnn-selfplay` (from the tiny CNN's model).
#[test]
fn same_seed_same_bytes_and_resume_equals_uninterrupted() {
    let data = folder("resume-data");
    let records = dataset(&data, 31, 300);
    let train_states: HashMap<StateKey, Record> = records[..frequency_train_len(records.len())]
        .iter()
        .map(|r| (r.key, *r))
        .collect();
    let cnn = supervised("cnn:4,k3,8", &data);
    let mlp = supervised("mlp:16", &data);
    let base = made("resume-base");
    // The self-play readings with state of their own: θ⁻'s source, Adam's, the starts, the
    // input (`gated` checks after every episode here, so its best network changes).
    let runs = [
        ("cnn-supervised", None),
        ("mlp-supervised", None),
        ("cnn-selfplay", None),
        ("cnn-selfplay", Some("frozen")),
        ("cnn-selfplay", Some("gated")),
        ("cnn-selfplay", Some("adam-carried")),
        ("cnn-selfplay", Some("adam-reset")),
        ("cnn-selfplay", Some("initial")),
        ("cnn-selfplay", Some("turn-zeroed")),
        ("cnn-iteration", None),
    ];
    for (algo, reading) in runs {
        let name = reading.map_or(algo.to_string(), |r| format!("{algo}-{r}"));
        let config = |episodes: usize| {
            let settings = match algo {
                "cnn-supervised" => AlgoSettings::Supervised(cnn.clone()),
                "mlp-supervised" => AlgoSettings::Supervised(mlp.clone()),
                "cnn-iteration" => {
                    let from = base.join("base.safetensors");
                    let model =
                        ValueModel::load(&from, CNN_ALGO, "othello8", 8).expect("base model");
                    AlgoSettings::ValueIteration(ValueIterationConfig {
                        games: 4,
                        depth: 1,
                        buffer: 150,
                        batch: 16,
                        steps: 3,
                        gate_games: 2,
                        gate_threshold: 0.5,
                        ..ValueIterationConfig::preset(
                            from,
                            model.card.sha256,
                            model.orientation,
                            data.clone(),
                        )
                    })
                }
                _ => {
                    let from = base.join("base.safetensors");
                    let (card, _) = read_model(&from).expect("base model");
                    let mut settings = ValueSelfPlayConfig {
                        depth: 1,
                        epochs_per_game: 2,
                        ..self_play_config(from, card.sha256, data.clone())
                    };
                    if let Some(r) = reading {
                        settings.apply_reading(r).expect("a reading");
                    }
                    if reading == Some("gated") {
                        settings.opponent = SelfPlayOpponent::Gated {
                            every: 1,
                            games: 2,
                            threshold: 0.5,
                        };
                    }
                    AlgoSettings::ValueSelfPlay(settings)
                }
            };
            run_config(algo, episodes, settings)
        };
        let whole = folder(&format!("{name}-whole"));
        run(&whole, &config(3), true, true).expect("whole run");
        let expected = logs(&whole);
        assert_eq!(
            expected.0.len(),
            4,
            "{name}: header + 3 rows: {:?}",
            expected.0
        );
        assert_eq!(
            expected.1.lines().count(),
            5,
            "{name}: header + evaluations at 0..=3: {}",
            expected.1
        );
        let model = last_model(&whole);
        assert_eq!(
            checkpoints(&whole),
            ["ep-00000001", "ep-00000002", "ep-00000003"],
            "{name}"
        );
        let (card, _) =
            read_model(&whole.join(CHECKPOINTS).join("last.safetensors")).expect("last model");
        assert_eq!(card.episodes, 3, "{name}");
        assert_eq!(card.game, "othello8");
        assert_eq!(card.last_eval["episode"], 3, "{name}: {}", card.last_eval);
        assert_eq!(
            card.algo,
            if algo == "mlp-supervised" {
                MLP_ALGO
            } else {
                CNN_ALGO
            }
        );
        if algo.ends_with("-supervised") {
            // The test loss logged at the end is the exported model's.
            let logged: Vec<&str> = expected.0[3].split(',').collect();
            let (test, mse) = model_test_losses(
                &whole.join(CHECKPOINTS).join("last.safetensors"),
                &card.algo,
                &data,
            );
            assert_eq!(
                (logged[2], logged[3]),
                (format!("{test:.6}").as_str(), format!("{mse:.6}").as_str()),
                "{name}: the logged test loss is not the exported model's"
            );
        }

        // The same seed: the same bytes; another seed: other bytes.
        let again = folder(&format!("{name}-again"));
        run(&again, &config(3), true, false).expect("again");
        assert!(
            model == last_model(&again),
            "{name}: the same seed wrote other bytes"
        );
        assert_eq!(
            logs(&again),
            expected,
            "{name}: the same seed logged otherwise"
        );
        let mut other = config(3);
        if let Some(v) = other.value_mut() {
            v.seed += 1;
        }
        if let Some(v) = other.value_self_play_mut() {
            v.seed += 1;
        }
        if let AlgoSettings::ValueIteration(v) = &mut other.settings {
            v.seed += 1;
        }
        let reseeded = folder(&format!("{name}-reseeded"));
        run(&reseeded, &other, true, false).expect("reseeded");
        assert!(
            model != last_model(&reseeded),
            "{name}: another seed wrote the same bytes"
        );

        // Stopped at 1, resumed to 3.
        let part = folder(&format!("{name}-part"));
        run(&part, &config(1), true, false).expect("first part");
        assert_eq!(logs(&part).0.len(), 2, "{name}");
        // Say the first part took 1,000 s: the resumed rows count on from there.
        let log = std::fs::read_to_string(part.join("log.csv")).expect("log.csv");
        let (head, _) = log.trim_end().rsplit_once(',').expect("a seconds column");
        std::fs::write(part.join("log.csv"), format!("{head},1000.0\n")).expect("write log");
        run(&part, &config(3), false, false).expect("resumed");
        assert!(model == last_model(&part), "{name}: resumed bytes differ");
        assert_eq!(logs(&part), expected, "{name}: resumed logs differ");
        // The seconds column is the run's training time: a resumed run's clock picks up
        // where the stopped run's left off.
        let seconds: Vec<f64> = std::fs::read_to_string(part.join("log.csv"))
            .expect("log.csv")
            .lines()
            .skip(1)
            .map(|l| {
                l.rsplit(',')
                    .next()
                    .expect("a column")
                    .parse()
                    .expect("seconds")
            })
            .collect();
        assert!(
            seconds[0] == 1000.0 && seconds[1..].iter().all(|&t| t >= 1000.0),
            "{name}: the clock went back on resume: {seconds:?}"
        );

        // Resumed from each checkpoint of the whole run, its logs running past it.
        for (k, keep) in ["ep-00000001", "ep-00000002"].iter().enumerate() {
            let copy = folder(&format!("{name}-from-{keep}"));
            copy_tree(&whole, &copy);
            for later in &["ep-00000002", "ep-00000003"][k..] {
                std::fs::remove_dir_all(copy.join(CHECKPOINTS).join(later)).expect("remove");
            }
            run(&copy, &config(3), false, false).expect("resumed copy");
            assert!(
                model == last_model(&copy),
                "{name}: resumed from {keep}, other bytes"
            );
            assert_eq!(logs(&copy), expected, "{name}: resumed from {keep}");
            let _ = std::fs::remove_dir_all(&copy);
        }
        if reading == Some("adam-carried") {
            // A resume reads Adam from the run's checkpoint: the supervised run's may be gone.
            let kept = base.join("ep-00000003");
            let away = base.join("ep-00000003-away");
            std::fs::rename(&kept, &away).expect("move the supervised checkpoint");
            let copy = folder(&format!("{name}-without-supervised"));
            copy_tree(&whole, &copy);
            for later in ["ep-00000002", "ep-00000003"] {
                std::fs::remove_dir_all(copy.join(CHECKPOINTS).join(later)).expect("remove");
            }
            let resumed = run(&copy, &config(3), false, false);
            std::fs::rename(&away, &kept).expect("put the supervised checkpoint back");
            resumed.expect("a resume without the supervised checkpoint");
            assert!(model == last_model(&copy), "{name}: other bytes");
            let _ = std::fs::remove_dir_all(&copy);
        }

        if algo == "cnn-supervised" {
            // The self-play run starts from this model, its last checkpoint beside it (Adam
            // carried on reads it).
            for ext in ["safetensors", "json"] {
                std::fs::copy(
                    whole.join(CHECKPOINTS).join(format!("last.{ext}")),
                    base.join(format!("base.{ext}")),
                )
                .expect("copy base model");
            }
            let kept = base.join("ep-00000003");
            std::fs::create_dir_all(&kept).expect("checkpoint folder");
            for file in ["online.bpk", "optim.bpk", "learner.json"] {
                std::fs::copy(
                    whole.join(CHECKPOINTS).join("ep-00000003").join(file),
                    kept.join(file),
                )
                .expect("copy checkpoint");
            }
        } else if algo == "cnn-selfplay" {
            let (log, _) = &expected;
            assert_eq!(
                log[0],
                "episode,start,learner,result,plies,positions,loss_before,loss,steps,promotions"
            );
            for (i, row) in log[1..].iter().enumerate() {
                let f: Vec<&str> = row.split(',').collect();
                assert_eq!(f[0], (i + 1).to_string());
                assert_eq!(
                    f[2],
                    if i.is_multiple_of(2) {
                        "black"
                    } else {
                        "white"
                    }
                );
                assert_eq!(f[8], (2 * (i + 1)).to_string(), "2 steps a game: {row}");
                let start = Othello8::from_board_string(f[1]).expect("start");
                if reading == Some("initial") {
                    // The initial position after 6 random moves.
                    assert_eq!(discs(&start), 10, "{row}");
                    continue;
                }
                // It started from a training state of 14 to 24 discs, not an evaluation one.
                let state = train_states
                    .get(&StateKey::of(&start))
                    .expect("a start from the training states");
                assert!((14..=24).contains(&discs(&start)), "{row}");
                assert!(!is_balanced(state), "an evaluation position: {row}");
            }
            assert_eq!(
                card.train_steps,
                read_model(&base.join("base.safetensors"))
                    .expect("base")
                    .0
                    .train_steps
                    + 6
            );
        }
        if algo == "cnn-selfplay" {
            readings_do_what_they_name(&whole, &base, &data, reading);
        }
        if algo == "cnn-iteration" {
            // The buffer keeps at most its size, the promotions count the gates passed, and
            // 3 Adam steps an iteration.
            let (log, _) = &expected;
            let mut promotions = 0;
            for (i, row) in log[1..].iter().enumerate() {
                let f: Vec<usize> = row
                    .split(',')
                    .take(11)
                    .map(|v| v.parse::<f64>().expect("a number") as usize)
                    .collect();
                assert_eq!(f[1] + f[2] + f[3], 4, "4 games: {row}");
                assert!(f[4] > 0 && f[5] <= 150, "{row}");
                assert_eq!(f[7], 3 * (i + 1), "{row}");
                promotions += f[9];
                assert_eq!(f[10], promotions, "{row}");
            }
        }
        for dir in [&whole, &again, &reseeded, &part] {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    let _ = std::fs::remove_dir_all(&data);
    let _ = std::fs::remove_dir_all(&base);
}

/// What a self-play reading's last checkpoint (of 3 episodes) shows: its probe equals the
/// slow twin (each held-out state evaluated alone), θ⁻ is the supervised network under
/// `frozen` and not under the paper's reading, the turn plane is gone under `turn-zeroed`.
fn readings_do_what_they_name(whole: &Path, base: &Path, data: &Path, reading: Option<&str>) {
    use burn::store::{BurnpackStore, ModuleSnapshot};
    use learn::value::policy_iteration::{Probe, CHECKPOINT_MODEL, PROBE_FILE};
    let at = whole.join(CHECKPOINTS).join("ep-00000003");
    let probe: Probe =
        serde_json::from_slice(&std::fs::read(at.join(PROBE_FILE)).expect("probe.json"))
            .expect("probe json");
    assert_eq!(probe.episode, 3);
    let model = ValueModel::load(&at.join(CHECKPOINT_MODEL), CNN_ALGO, "othello8", 8)
        .expect("checkpoint model");
    let test = ValueData::load(
        &data.join("merged-frequency-test.bin"),
        Symmetries::Merged,
        Split::Frequency(Part::Test),
        None,
        0,
    )
    .expect("test states");
    assert_eq!(probe.states, test.records.len());
    let eval = model.evaluator();
    let planes = model.input.planes();
    // (White to move, Black to move): Σ output, Σ label, states; then Σ (V − v)², Σ |flip|.
    let mut sums = [[0.0f64; 3]; 2];
    let (mut se, mut flip) = (0.0, 0.0);
    for r in &test.records {
        let pos = r.key.position().expect("a position");
        let v = f64::from(eval.probabilities(&[pos])[0]);
        let side = usize::from(pos.side_to_move() == Color::Black);
        sums[side][0] += v;
        sums[side][1] += r.value();
        sums[side][2] += 1.0;
        se += (v - r.value()).powi(2);
        let mut x = Vec::new();
        model.input.encode(&model.orientation.image(&pos), &mut x);
        for f in &mut x[12 * 64..13 * 64] {
            *f = 1.0 - *f;
        }
        let flipped = model.net.predict(x, planes, 8, &Device::default())[0];
        flip += (v - f64::from(flipped)).abs();
    }
    let n = test.records.len() as f64;
    let mean = |side: usize, k: usize| sums[side][k] / sums[side][2];
    let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-5, "{what}: {a} vs {b}");
    close(probe.mse, se / n, "mse");
    close(probe.colour_gap, mean(0, 0) - mean(1, 0), "colour gap");
    close(
        probe.label_colour_gap,
        mean(0, 1) - mean(1, 1),
        "labels' colour gap",
    );
    if reading == Some("turn-zeroed") {
        assert_eq!(probe.turn_flip, None, "no turn plane to flip");
        let card: serde_json::Value = serde_json::from_slice(
            &std::fs::read(learn::checkpoint::card_path(&at.join(CHECKPOINT_MODEL))).expect("card"),
        )
        .expect("card json");
        assert_eq!(card["arch"]["input"]["turn"], "zeroed");
        // The turn plane is zeros whoever is to move.
        let pos = Othello8::start();
        let mut x = Vec::new();
        model.input.encode(&pos, &mut x);
        assert!(x[12 * 64..13 * 64].iter().all(|&f| f == 0.0));
    } else {
        close(
            probe.turn_flip.expect("a turn plane"),
            flip / n,
            "turn flip",
        );
    }
    // θ⁻ after 3 episodes: the supervised network under `frozen`, θ of episode 2 otherwise.
    let supervised = ValueModel::load(&base.join("base.safetensors"), CNN_ALGO, "othello8", 8)
        .expect("base model");
    // The report's "supervised" probe row reads the starting network as the run reads it.
    let run: learn::RunConfig =
        serde_json::from_slice(&std::fs::read(whole.join("config.json")).expect("config.json"))
            .expect("run config");
    let settings = run.value_self_play().expect("self-play settings");
    let start = settings
        .probe_start()
        .expect("probe of the start")
        .expect("a run with probes");
    assert_eq!(start.episode, 0);
    // A start model that is not the one the run began from is refused, not probed.
    let mut moved = settings.clone();
    moved.from_sha256 = "0".repeat(64);
    let e = moved.probe_start().expect_err("another model");
    assert!(e.to_string().contains("sha256"), "{e}");
    assert_eq!(
        start.turn_flip.is_none(),
        reading == Some("turn-zeroed"),
        "{reading:?}"
    );
    let read_as_run = ValueEvaluator::new(
        supervised.net.clone(),
        supervised.input.with_turn(settings.turn),
        supervised.orientation,
    );
    let se: f64 = test
        .records
        .iter()
        .map(|r| {
            let pos = r.key.position().expect("a position");
            (f64::from(read_as_run.probabilities(&[pos])[0]) - r.value()).powi(2)
        })
        .sum();
    close(start.mse, se / n, "the start's mse, read as the run reads");
    let mut opponent = supervised.net.clone();
    let bytes = std::fs::read(at.join("previous.bpk")).expect("previous.bpk");
    let mut store = BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(bytes)));
    opponent.load_from(&mut store).expect("θ⁻ loads");
    let positions: Vec<Othello8> = test
        .records
        .iter()
        .map(|r| r.key.position().expect("a position"))
        .collect();
    let same = ValueEvaluator::new(opponent, model.input, model.orientation)
        .probabilities(&positions)
        == ValueEvaluator::new(supervised.net.clone(), model.input, model.orientation)
            .probabilities(&positions);
    match reading {
        Some("frozen") => assert!(same, "frozen: θ⁻ is the supervised network"),
        None => assert!(!same, "paper: θ⁻ has learned"),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Orientation

const CANONICAL: Orientation = Orientation::Canonical;

/// The values `eval` gives the eight images of `pos`.
fn image_values(eval: &ValueEvaluator, pos: &Othello8) -> Vec<f32> {
    let images: Vec<Othello8> = game::Symmetry::ALL
        .iter()
        .map(|&s| pos.transform(s))
        .collect();
    eval.probabilities(&images)
}

/// A network trained on merged states reads each position's canonical image, the one it was
/// trained on: its card says so, and the 8 images of any position get one value from the
/// model file, in a batch and alone; the same network shown the images as played gives them
/// different values. A card from before the field existed is read by its settings' symmetries.
#[test]
fn a_network_trained_on_merged_states_gives_the_eight_images_one_value() {
    let data = folder("orientation-data");
    dataset(&data, 5, 300);
    let mut trainer =
        SupervisedTrainer::new("cnn-supervised", supervised("cnn:4,k3,8", &data)).expect("trainer");
    trainer.epoch();
    let dir = folder("orientation-model");
    let path = export(&trainer, &dir).remove(0);
    let model = ValueModel::load(&path, CNN_ALGO, "othello8", 8).expect("model");
    assert_eq!(model.orientation, Orientation::Canonical);
    let card: serde_json::Value =
        serde_json::from_slice(&std::fs::read(learn::checkpoint::card_path(&path)).expect("card"))
            .expect("card json");
    assert_eq!(card["arch"]["orientation"], "canonical");
    let canonical = model.evaluator();
    let as_played = ValueEvaluator::new(model.net.clone(), model.input, Orientation::AsPlayed);
    let positions: Vec<Othello8> = decision_points(77, 6).into_iter().step_by(7).collect();
    assert!(positions.len() >= 20, "{}", positions.len());
    let mut differ = 0;
    for pos in &positions {
        let values = image_values(&canonical, pos);
        assert!(
            values.iter().all(|&v| v == values[0]),
            "{values:?} for the images of\n{}",
            pos.board_string()
        );
        let alone = canonical.probabilities(std::slice::from_ref(pos))[0];
        assert!(
            (alone - values[0]).abs() < 1e-6,
            "alone {alone} and in a batch {}",
            values[0]
        );
        let raw = image_values(&as_played, pos);
        differ += usize::from(raw.iter().any(|&v| v != raw[0]));
        // The canonical image is the dataset's key.
        assert_eq!(
            StateKey::of(&pos.canonical()),
            StateKey::of(pos).canonical(),
            "{}",
            pos.board_string()
        );
    }
    assert!(
        differ * 2 > positions.len(),
        "as played, only {differ} of {} differ",
        positions.len()
    );

    // An old card: no arch.orientation; merged settings mean canonical, raw ones as played.
    let mut old = card.clone();
    old["arch"]
        .as_object_mut()
        .expect("arch")
        .remove("orientation");
    let (_, weights) = read_model(&path).expect("model file");
    for (symmetries, expected) in [
        ("merged", Orientation::Canonical),
        ("raw", Orientation::AsPlayed),
    ] {
        old["config"]["symmetries"] = serde_json::json!(symmetries);
        let card: learn::checkpoint::Card = serde_json::from_value(old.clone()).expect("card");
        let legacy = dir.join(format!("old-{symmetries}.safetensors"));
        write_model(&legacy, &weights, card).expect("write");
        let loaded = ValueModel::load(&legacy, CNN_ALGO, "othello8", 8).expect("old model");
        assert_eq!(loaded.orientation, expected, "{symmetries}");
    }
    // A card naming no orientation stonelab knows is refused by name.
    let mut bad = card.clone();
    bad["arch"]["orientation"] = serde_json::json!("sideways");
    let card: learn::checkpoint::Card = serde_json::from_value(bad).expect("card");
    let wrong = dir.join("bad.safetensors");
    write_model(&wrong, &weights, card).expect("write");
    let err = ValueModel::load(&wrong, CNN_ALGO, "othello8", 8)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("arch.orientation"), "{err}");
    let _ = std::fs::remove_dir_all(&data);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Batched leaves

/// Minimax over a value network with batched leaves and with one-at-a-time evaluation: the same
/// move, score, line and nodes at depths 1 to 3 on positions of random games, in fewer forward
/// passes; at depth 1 the score is the best child's, read from the network by hand.
#[test]
fn batched_leaves_search_like_one_at_a_time_in_fewer_passes() {
    let all = decision_points(41, 4);
    let positions: Vec<Othello8> = all
        .iter()
        .step_by(all.len() / 20)
        .filter(|p| p.legal_moves().len() >= 2)
        .take(20)
        .copied()
        .collect();
    assert!(positions.len() >= 15, "{}", positions.len());
    let device = Device::default();
    for (arch, seed) in [("cnn:4,k3,8", 3u64), ("mlp:16", 4)] {
        let arch: ValueArch = arch.parse().expect("arch");
        let input = input_of(&arch);
        let net = ValueNet::new(&arch, input.planes(), 8, seed, &device);
        let (mut passes_b, mut passes_u) = (0, 0);
        for depth in 1..=3u32 {
            for pos in &positions {
                let batched = Arc::new(ValueEvaluator::new(net.clone(), input, CANONICAL));
                let single =
                    Arc::new(ValueEvaluator::new(net.clone(), input, CANONICAL).batched(false));
                let mut b = ValueMinimax::<Othello8>::new("b".into(), batched.clone(), depth);
                let mut u = ValueMinimax::<Othello8>::new("u".into(), single.clone(), depth);
                let db = b.select(pos, &Budget::default()).expect("batched");
                let du = u.select(pos, &Budget::default()).expect("single");
                assert_eq!(
                    (db.mv, db.score, db.nodes, &db.pv, db.depth),
                    (du.mv, du.score, du.nodes, &du.pv, du.depth),
                    "{} depth {depth}:\n{}",
                    arch.label(),
                    pos.board_string()
                );
                let (pb, nb) = batched.counts();
                let (pu, nu) = single.counts();
                assert_eq!(pu, nu, "one position per pass one at a time");
                assert!(nb <= nu, "depth {depth}: {nb} batched passes, {nu} single");
                assert!(pb >= pu, "a batch evaluates whole nodes: {pb} < {pu}");
                passes_b += nb;
                passes_u += nu;
                if depth == 1 {
                    let open = pos
                        .legal_moves()
                        .into_iter()
                        .filter(|&mv| !pos.play_unchecked(mv).is_over())
                        .count() as u64;
                    assert_eq!(nb, u64::from(open > 0), "depth 1 is one batch");
                    assert_eq!(nu, open, "one pass per open child");
                    // The best child, read from the network one by one.
                    let eval = ValueEvaluator::new(net.clone(), input, CANONICAL);
                    let best = pos
                        .legal_moves()
                        .into_iter()
                        .map(|mv| {
                            let child = pos.play(mv).expect("legal");
                            match child.outcome() {
                                Some(_) => None,
                                None => Some(-score_of(eval.probabilities(&[child])[0])),
                            }
                        })
                        .collect::<Option<Vec<i32>>>()
                        .map(|s| s.into_iter().max().expect("moves"));
                    if let Some(best) = best {
                        assert_eq!(db.score, Some(best), "{}", pos.board_string());
                        let child = pos.play(db.mv).expect("legal");
                        assert_eq!(-score_of(eval.probabilities(&[child])[0]), best);
                    }
                }
            }
        }
        assert!(
            passes_b * 2 < passes_u,
            "{}: {passes_b} batched passes, {passes_u} single",
            arch.label()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Protocol positions

/// The protocol's evaluation positions: 14 to 24 discs, seen at least 10 times, |V − ½| ≤ 0.05,
/// distinct, with a move to play; all of them when asked for more, a seeded sample of `count`
/// otherwise, the same for the same seed whatever the order of the records. The self-play starts
/// are the other states of 14 to 24 discs: never an evaluation position.
#[test]
fn evaluation_positions_follow_the_protocol_and_self_play_never_starts_from_one() {
    let keys = distinct_canonical(&decision_points(51, 60));
    let mut rng = ChaCha8Rng::seed_from_u64(52);
    let mut records = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let d = (key.black | key.white).count_ones();
        let (count, wins2) = if (13..=25).contains(&d) {
            match i % 6 {
                // Balanced: V within 0.05 of ½ (0.55 and 0.45 exactly at the edge).
                0 => (20, 20 + rng.random_range(0..=2u32)),
                1 => (10, 11),
                2 => (10, 9),
                // Too rare, or too one-sided.
                3 => (9, 9),
                4 => (20, [17, 23][rng.random_range(0..2usize)]),
                _ => {
                    let count = rng.random_range(1..=40u32);
                    (count, rng.random_range(0..=2 * count))
                }
            }
        } else {
            // Balanced and frequent, but outside moves 10-20.
            (30, 30)
        };
        records.push(Record {
            key: *key,
            count,
            wins2,
        });
    }
    // Some balanced states twice.
    let twice: Vec<Record> = records
        .iter()
        .filter(|r| is_balanced(r))
        .step_by(3)
        .copied()
        .collect();
    records.extend(twice);
    // The protocol by hand.
    let protocol = |r: &Record| {
        let d = r.key.black.count_ones() + r.key.white.count_ones();
        (14..=24).contains(&d)
            && r.count >= 10
            && (f64::from(r.wins2) / (2.0 * f64::from(r.count)) - 0.5).abs() <= 0.05 + 1e-12
    };
    for r in &records {
        assert_eq!(is_balanced(r), protocol(r), "{r:?}");
    }
    let mut eligible: HashSet<StateKey> = HashSet::new();
    for r in records.iter().filter(|r| protocol(r)) {
        if r.key.position().expect("position").moves() != 0 {
            eligible.insert(r.key);
        }
    }
    assert!(eligible.len() >= 30, "{} eligible", eligible.len());
    let in_range = |p: &Othello8| (14..=24).contains(&discs(p));

    let all = evaluation_positions(&records, 10_000, 5);
    assert_eq!(all.len(), eligible.len(), "all of them when asked for more");
    let keys_of = |ps: &[Othello8]| ps.iter().map(StateKey::of).collect::<Vec<_>>();
    let all_keys: HashSet<StateKey> = keys_of(&all).into_iter().collect();
    assert_eq!(
        all_keys, eligible,
        "exactly the protocol's positions, distinct"
    );
    for p in &all {
        assert!(in_range(p), "{}", p.board_string());
        assert_ne!(p.moves(), 0);
    }

    let some = evaluation_positions(&records, 12, 5);
    assert_eq!(some.len(), 12);
    assert_eq!(
        keys_of(&some).into_iter().collect::<HashSet<_>>().len(),
        12,
        "distinct"
    );
    assert!(some.iter().all(|p| all_keys.contains(&StateKey::of(p))));
    assert_eq!(
        keys_of(&some),
        keys_of(&evaluation_positions(&records, 12, 5)),
        "deterministic"
    );
    let mut shuffled = records.clone();
    shuffled.reverse();
    shuffled.swap(0, 7);
    assert_eq!(
        keys_of(&some),
        keys_of(&evaluation_positions(&shuffled, 12, 5)),
        "whatever the order of the records"
    );
    assert_ne!(
        keys_of(&some),
        keys_of(&evaluation_positions(&records, 12, 6)),
        "another seed, another sample"
    );
    assert!(evaluation_positions(&records, 0, 5).is_empty());

    let starts = self_play_starts(&records);
    let start_keys: HashSet<StateKey> = keys_of(&starts).into_iter().collect();
    assert!(!starts.is_empty());
    assert!(
        start_keys.is_disjoint(&all_keys),
        "a self-play start is an evaluation position"
    );
    let mut want = HashSet::new();
    for r in &records {
        let p = r.key.position().expect("position");
        if in_range(&p) && !protocol(r) && p.moves() != 0 {
            want.insert(r.key);
        }
    }
    assert_eq!(start_keys, want, "the other positions of 14 to 24 discs");
    assert_eq!(starts.len(), start_keys.len(), "each once");
    assert_eq!(
        keys_of(&starts),
        keys_of(&self_play_starts(&shuffled)),
        "in a fixed order"
    );
}

// ---------------------------------------------------------------------------------------------
// Refusals

/// A model of the other kind, dataset files missing, of the wrong split or symmetries, or
/// damaged, and a self-play base of another sha256 are refused, naming the problem.
#[test]
fn wrong_models_and_dataset_files_are_refused_by_name() {
    let data = folder("refusals-data");
    dataset(&data, 61, 200);

    // An MLP model is no CNN model (and its card cannot pretend to be one).
    let mlp =
        SupervisedTrainer::new("mlp-supervised", supervised("mlp:16", &data)).expect("trainer");
    let models = made("refusals-models");
    let path = export(&mlp, &models).remove(0);
    let loaded = ValueModel::load(&path, MLP_ALGO, "othello8", 8).expect("an mlp model");
    assert_eq!(loaded.arch, "mlp:16".parse::<ValueArch>().expect("arch"));
    assert_eq!(loaded.input, ValueInput::StoneOnly);
    let e = ValueModel::load(&path, CNN_ALGO, "othello8", 8)
        .err()
        .expect("an mlp model as a cnn");
    assert!(
        e.to_string().contains("mlp-minimax") && e.to_string().contains("not cnn-minimax"),
        "{e}"
    );
    let card_file = path.with_extension("json");
    let mut card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&card_file).expect("card")).expect("json");
    card["algo"] = CNN_ALGO.into();
    std::fs::write(&card_file, card.to_string()).expect("edit card");
    let e = ValueModel::load(&path, CNN_ALGO, "othello8", 8)
        .err()
        .expect("an mlp net under a cnn card");
    assert!(
        e.to_string()
            .contains("arch.net is a mlp-minimax, not cnn-minimax"),
        "{e}"
    );
    let sha = read_model(&path).expect("model").0.sha256;
    let e = error_of(
        ValueSelfPlayTrainer::new(self_play_config(path.clone(), sha, data.clone())),
        "self-play from an mlp",
    );
    assert!(e.to_string().contains("arch.net is a mlp-minimax"), "{e}");

    // A CNN base of another sha256.
    let cnn =
        SupervisedTrainer::new("cnn-supervised", supervised("cnn:4,k3,8", &data)).expect("trainer");
    let cnn_dir = made("refusals-cnn");
    let base = export(&cnn, &cnn_dir).remove(0);
    ValueSelfPlayTrainer::new(self_play_config(
        base.clone(),
        read_model(&base).expect("model").0.sha256,
        data.clone(),
    ))
    .map(|_| ())
    .expect("the right sha256");
    // Adam carried on needs the supervised run's checkpoint beside the model.
    let mut carried = self_play_config(
        base.clone(),
        read_model(&base).expect("model").0.sha256,
        data.clone(),
    );
    carried.adam = learn::value::policy_iteration::AdamState::Carried;
    let e = error_of(
        ValueSelfPlayTrainer::new(carried),
        "carried without a checkpoint",
    );
    assert!(
        e.to_string()
            .contains("adam carried: no optimiser state at"),
        "{e}"
    );
    let e = error_of(
        ValueSelfPlayTrainer::new(self_play_config(base.clone(), "0".repeat(64), data.clone())),
        "another sha256",
    );
    assert!(
        matches!(e, RunError::Settings(_)) && e.to_string().contains("is not the 0000"),
        "{e}"
    );

    // A dataset folder without files, or without its test file.
    let empty = made("refusals-empty");
    let config = run_config(
        "cnn-supervised",
        1,
        AlgoSettings::Supervised(supervised("cnn:4,k3,8", &empty)),
    );
    let e = error_of(build_trainer::<Othello8>(&config, None), "no dataset");
    let train_file = empty.join("merged-frequency-train.bin");
    assert!(
        matches!(&e, RunError::Settings(m) if m.contains(&train_file.display().to_string())),
        "{e}"
    );
    std::fs::copy(data.join("merged-frequency-train.bin"), &train_file).expect("copy");
    let e = error_of(build_trainer::<Othello8>(&config, None), "no test file");
    let test_file = empty.join("merged-frequency-test.bin");
    assert!(
        matches!(&e, RunError::Settings(m) if m.contains(&test_file.display().to_string())),
        "{e}"
    );
    let nothing = made("refusals-nothing");
    let e = error_of(
        ValueSelfPlayTrainer::new(self_play_config(
            base.clone(),
            read_model(&base).expect("model").0.sha256,
            nothing.clone(),
        )),
        "self-play without data",
    );
    assert!(
        matches!(&e, RunError::Settings(m) if m.contains("merged-frequency-train.bin")),
        "{e}"
    );

    // Files of another split or other symmetries under frequency names.
    let wrong = made("refusals-wrong");
    let records = {
        let r = othello::dataset::DatasetReader::open(&data.join("merged-frequency-train.bin"))
            .expect("open");
        r.read_all().expect("read")
    };
    let write = |name: &str, symmetries, split| {
        write_dataset(&wrong.join(name), symmetries, split, &records).expect("write");
    };
    write(
        "merged-frequency-train.bin",
        Symmetries::Merged,
        Split::Game(Part::Train),
    );
    write(
        "merged-frequency-test.bin",
        Symmetries::Merged,
        Split::Frequency(Part::Test),
    );
    let config = run_config(
        "mlp-supervised",
        1,
        AlgoSettings::Supervised(supervised("mlp:16", &wrong)),
    );
    let e = error_of(
        build_trainer::<Othello8>(&config, None),
        "a game-split file",
    );
    assert!(
        matches!(&e, RunError::Settings(m)
            if m.contains("merged-frequency-train.bin")
                && m.contains("holds the merged states of the game split's training part")),
        "{e}"
    );
    let e = error_of(
        ValueSelfPlayTrainer::new(self_play_config(
            base.clone(),
            read_model(&base).expect("model").0.sha256,
            wrong.clone(),
        )),
        "self-play from a game-split file",
    );
    assert!(
        e.to_string()
            .contains("holds the merged states of the game split's training part"),
        "{e}"
    );
    write(
        "merged-frequency-train.bin",
        Symmetries::Raw,
        Split::Frequency(Part::Train),
    );
    let e = error_of(build_trainer::<Othello8>(&config, None), "a raw file");
    assert!(
        matches!(&e, RunError::Settings(m) if m.contains("holds the raw states of the frequency split's training part")),
        "{e}"
    );
    write(
        "merged-frequency-train.bin",
        Symmetries::Merged,
        Split::Frequency(Part::Test),
    );
    let e = error_of(build_trainer::<Othello8>(&config, None), "a test file");
    assert!(
        matches!(&e, RunError::Settings(m) if m.contains("holds the merged states of the frequency split's test part")),
        "{e}"
    );
    // The right files load; a damaged one does not.
    write(
        "merged-frequency-train.bin",
        Symmetries::Merged,
        Split::Frequency(Part::Train),
    );
    build_trainer::<Othello8>(&config, None)
        .map(|_| ())
        .expect("the right files");
    let file = wrong.join("merged-frequency-train.bin");
    let mut bytes = std::fs::read(&file).expect("read");
    let at = bytes.len() - 3;
    bytes[at] ^= 0x5a;
    std::fs::write(&file, bytes).expect("write");
    let e = error_of(build_trainer::<Othello8>(&config, None), "a damaged file");
    assert!(
        matches!(&e, RunError::Settings(m) if m.contains("merged-frequency-train.bin")
            && (m.contains("checksum") || m.contains("record"))),
        "{e}"
    );
    // A cnn-supervised run of an MLP shape.
    let config = run_config(
        "cnn-supervised",
        1,
        AlgoSettings::Supervised(supervised("mlp:16", &data)),
    );
    let e = error_of(build_trainer::<Othello8>(&config, None), "an mlp shape");
    assert!(
        e.to_string().contains("trains a cnn-minimax network"),
        "{e}"
    );
    for dir in [&data, &models, &empty, &wrong, &cnn_dir, &nothing] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn network_shapes_are_parsed_and_bounded() {
    let cnn: ValueArch = "cnn:16.16,k3,64".parse().expect("the default cnn");
    // 13·16·9 + 16, 16·16·9 + 16, 1024·64 + 64, 64 + 1.
    assert_eq!(cnn.parameters(13, 8), 1888 + 2320 + 65_600 + 65);
    let mlp: ValueArch = "mlp:256.128".parse().expect("the default mlp");
    assert_eq!(
        mlp.parameters(3, 8),
        192 * 256 + 256 + 256 * 128 + 128 + 129
    );
    for bad in [
        "cnn:2048.2048.2048.2048,k9,2048",
        "cnn:16,k4,64",
        "cnn:,k3,64",
        "mlp:0",
        "rnn:5",
        "cnn:16,k3",
    ] {
        assert!(bad.parse::<ValueArch>().is_err(), "{bad} was accepted");
    }
    let err = "cnn:2048.2048.2048.2048,k9,2048"
        .parse::<ValueArch>()
        .expect_err("too large");
    assert!(err.contains("parameters"), "{err}");
}

/// Every named reading validates and changes what its name says (and `paper` nothing); an
/// unknown name is refused with the list; the turn plane is written on a card only when it
/// is zeroed, so a card from before the setting reads as the paper's planes.
#[test]
fn the_readings_are_named_settings_and_the_turn_plane_round_trips() {
    use learn::value::policy_iteration::{AdamState, SelfPlayStart, READINGS};
    let paper = ValueSelfPlayConfig::paper(
        "m.safetensors".into(),
        "0".repeat(64),
        Orientation::Canonical,
        "data".into(),
    );
    let mut names = HashSet::new();
    for r in READINGS {
        assert!(names.insert(r.name), "{} twice", r.name);
        let mut c = paper.clone();
        c.apply_reading(r.name).expect("a reading");
        c.validate().expect("valid");
        assert_eq!(c.reading.as_deref(), Some(r.name));
        let changed = |f: &dyn Fn(&ValueSelfPlayConfig) -> bool| f(&c) && !f(&paper);
        let ok = match r.name {
            "paper" => {
                ValueSelfPlayConfig {
                    reading: None,
                    ..c.clone()
                } == paper
            }
            "frozen" => changed(&|c| c.opponent == SelfPlayOpponent::Frozen),
            "gated" => changed(&|c| matches!(c.opponent, SelfPlayOpponent::Gated { .. })),
            "adam-carried" => changed(&|c| c.adam == AdamState::Carried),
            "adam-reset" => changed(&|c| c.adam == AdamState::PerGame),
            "steps-1" => changed(&|c| c.epochs_per_game == 1),
            "lr-1e-4" => changed(&|c| c.learning_rate == 1e-4),
            "lr-1e-5" => changed(&|c| c.learning_rate == 1e-5),
            "initial" => changed(&|c| matches!(c.start, SelfPlayStart::Initial { .. })),
            "depth-2" => changed(&|c| c.depth == 2),
            "depth-4" => changed(&|c| c.depth == 4),
            "turn-zeroed" => changed(&|c| c.turn == TurnPlane::Zeroed),
            other => panic!("a reading this test does not know: {other}"),
        };
        assert!(ok, "{}: {c:?}", r.name);
        // One change each: the rest is the paper's.
        let json = |c: &ValueSelfPlayConfig| {
            let mut v = serde_json::to_value(c).expect("json");
            v.as_object_mut().expect("object").remove("reading");
            v
        };
        let (a, b) = (json(&c), json(&paper));
        let differ = a
            .as_object()
            .expect("object")
            .iter()
            .filter(|(k, v)| b[k.as_str()] != **v)
            .count();
        assert_eq!(differ, usize::from(r.name != "paper"), "{}", r.name);
    }
    let mut c = paper.clone();
    let e = c.apply_reading("literal").expect_err("no such reading");
    assert!(
        e.contains("no reading `literal`") && e.contains("turn-zeroed"),
        "{e}"
    );
    assert_eq!(c, paper, "a refused reading changes nothing");

    // A config.json written before the readings reads as the paper's reading, as played.
    let mut old = serde_json::to_value(&paper).expect("json");
    for k in [
        "reading",
        "orientation",
        "turn",
        "opponent",
        "adam",
        "start",
        "probe_states",
    ] {
        old.as_object_mut().expect("object").remove(k);
    }
    let read: ValueSelfPlayConfig = serde_json::from_value(old).expect("an old config");
    // No recorded orientation: the run reads positions as its supervised model does.
    assert_eq!(read.orientation, None);
    assert_eq!(read.reading_label(), "custom");
    assert!(!serde_json::to_value(&read)
        .expect("json")
        .as_object()
        .expect("object")
        .contains_key("orientation"));

    // A report names the reading, and says when a setting it fixes was changed after it.
    let mut c = paper.clone();
    c.apply_reading("frozen").expect("a reading");
    c.seed = 7;
    assert_eq!(
        c.reading_label(),
        "frozen",
        "the seed is no part of a reading"
    );
    c.learning_rate = 1e-4;
    assert_eq!(c.reading_label(), "frozen, changed");
    assert_eq!(read.opponent, SelfPlayOpponent::Previous);
    assert_eq!(read.probe_states, 0);

    let kept = ValueInput::PaperPlanes {
        mobility: Mobility::AtMost,
        turn: TurnPlane::Kept,
    };
    let v = serde_json::to_value(kept).expect("json");
    assert_eq!(
        v,
        serde_json::json!({"kind": "paper-planes", "mobility": "at-most"})
    );
    let zeroed = kept.with_turn(TurnPlane::Zeroed);
    let v = serde_json::to_value(zeroed).expect("json");
    assert_eq!(v["turn"], "zeroed");
    assert_eq!(
        serde_json::from_value::<ValueInput>(v).expect("back"),
        zeroed
    );
    // Zeroed: the side-to-move plane is all zeros, every other plane as the paper's.
    let pos = Othello8::start();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    kept.encode(&pos, &mut a);
    zeroed.encode(&pos, &mut b);
    assert!(a[12 * 64..].iter().all(|&f| f == 1.0), "Black to move");
    assert!(b[12 * 64..].iter().all(|&f| f == 0.0));
    assert_eq!(a[..12 * 64], b[..12 * 64]);

    // cnn-iteration's gate plays each opening twice: an odd or empty gate is refused by name.
    let preset = ValueIterationConfig::preset(
        "m.safetensors".into(),
        "0".repeat(64),
        Orientation::Canonical,
        "data".into(),
    );
    preset.validate().expect("the preset is valid");
    for games in [0, 1, 63] {
        let e = ValueIterationConfig {
            gate_games: games,
            ..preset.clone()
        }
        .validate()
        .expect_err("a gate of one colour");
        assert!(e.contains("gate games"), "{games}: {e}");
    }
}
