//! The `seed001` preset (the Q-learning MLP as designed): each of its settings and each defect
//! switch does what it says, runs are reproducible, and resume is exact.

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::{Device, Tensor};
use learn::checkpoint::weights_bytes;
use learn::presets::{preset, PresetOptions};
use learn::qmlp::QMlpSettings;
use learn::qmlp::{
    choose, opponent_move, q_targets, Defects, LearnerMove, QMlpInit, QMlpLearner, QMlpOpponent,
    QMlpOptimizer,
};
use learn::{build_trainer, QMlpConfig, QMlpNet, QMlpTrainer, RunConfig};
use othello::Othello8;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// A fresh folder for test `name`.
fn folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("stonelab-seed001-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The preset's run settings.
fn run_config(seed: u64, defects: Defects) -> RunConfig {
    preset(
        "seed001",
        &PresetOptions {
            seed,
            episodes: None,
            defects,
        },
    )
    .expect("seed001")
}

/// The preset's trainer settings.
fn config(seed: u64, defects: Defects) -> QMlpConfig {
    run_config(seed, defects).q_mlp_config().expect("q-mlp")
}

const ALL: Defects = Defects {
    greedy_lowest: true,
    frozen_state: true,
    additive_target: true,
    tanh_derivative: true,
};

/// Every float parameter's shape and values, in field order.
struct Collect(Vec<(Vec<usize>, Vec<f32>)>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val();
        let dims = t.dims().to_vec();
        self.0
            .push((dims, t.into_data().try_to_vec::<f32>().expect("floats")));
    }
}

fn params(net: &QMlpNet) -> Vec<(Vec<usize>, Vec<f32>)> {
    let mut c = Collect(Vec::new());
    net.visit(&mut c);
    c.0
}

/// The input layer's weights, `[points][128]` (burn stores a dense layer's weight as
/// `[inputs, outputs]`).
fn input_weights(net: &QMlpNet) -> Vec<Vec<f32>> {
    let (dims, values) = params(net).into_iter().next().expect("input weight");
    assert_eq!(dims, [64, 128]);
    values.chunks(128).map(<[f32]>::to_vec).collect()
}

#[test]
fn the_preset_is_the_design_and_validates() {
    let run = run_config(7, Defects::default());
    run.validate().expect("valid");
    assert_eq!(
        (run.algo.as_str(), run.game.as_str(), run.episodes),
        ("q-mlp", "othello8", 20_000)
    );
    assert_eq!(
        (run.eval_every, run.eval_games, run.checkpoint_every),
        (2_000, 200, 2_000)
    );
    let c = run.q_mlp_config().expect("q-mlp");
    assert_eq!((c.epochs, c.games_per_epoch, c.seed), (2_000, 10, 7));
    assert_eq!(c.learning_rate, 0.03);
    assert_eq!(c.learner, QMlpLearner::Black);
    assert_eq!(c.opponent, QMlpOpponent::Mixed { random: 0.6 });
    assert_eq!(c.init, QMlpInit::Normal);
    assert_eq!(c.optimizer, QMlpOptimizer::SgdPerTransition);
    assert_eq!(c.gamma, 0.99);
    assert_eq!(c.defects, Defects::default());
    // The switches and the episode count pass through.
    let short = preset(
        "seed001",
        &PresetOptions {
            seed: 7,
            episodes: Some(30),
            defects: ALL,
        },
    )
    .expect("seed001");
    short.validate().expect("valid");
    assert_eq!(short.episodes, 30);
    assert_eq!(short.q_mlp_config().expect("q-mlp").defects, ALL);
    // config.json round-trips.
    let json = serde_json::to_string(&short).expect("json");
    let back: RunConfig = serde_json::from_str(&json).expect("parse");
    assert_eq!(back, short);
}

#[test]
fn config_files_written_before_the_design_settings_load_as_before() {
    let old = r#"{"games_per_epoch": 4, "gamma": 0.99, "learning_rate": 0.001, "seed": 5}"#;
    let s: QMlpSettings = serde_json::from_str(old).expect("old settings");
    assert_eq!(
        s,
        QMlpSettings {
            games_per_epoch: 4,
            seed: 5,
            ..QMlpSettings::default()
        }
    );
    let mut run = run_config(1, Defects::default());
    run.settings = learn::AlgoSettings::QMlp(s);
    let c = run.q_mlp_config().expect("q-mlp");
    let today = QMlpConfig::default();
    assert_eq!(
        (c.learner, c.opponent, c.init, c.optimizer, c.defects),
        (
            today.learner,
            today.opponent,
            today.init,
            today.optimizer,
            today.defects
        )
    );
    assert_eq!(today.learner, QMlpLearner::Alternate);
    assert_eq!(today.opponent, QMlpOpponent::Random);
    assert_eq!(today.init, QMlpInit::Default);
    assert_eq!(today.optimizer, QMlpOptimizer::Adam);
    // A random share outside [0, 1] is refused.
    for bad in [1.5, -0.1, f64::NAN] {
        let mut run = run_config(1, Defects::default());
        if let Some(q) = run.q_mlp_mut() {
            q.opponent = QMlpOpponent::Mixed { random: bad };
        }
        assert!(run.validate().is_err(), "random share {bad}");
    }
}

#[test]
fn greedy_lowest_picks_the_lowest_legal_value() {
    //        0    1    2     3    4    5     6
    let q = [0.9, 0.2, -0.5, 0.7, -0.9, 0.7, -0.5];
    let legal = [1, 2, 3, 5, 6];
    // The highest legal value (0 is higher, but not legal), the lowest point among ties.
    assert_eq!(choose(&q, &legal, false), Some(3));
    // The defect: the lowest legal value (4 is lower, but not legal), lowest point among ties.
    assert_eq!(choose(&q, &legal, true), Some(2));
    assert_eq!(choose(&q, &[4], true), Some(4));
    assert_eq!(choose(&q, &[], true), None);
    assert_eq!(choose(&q, &[], false), None);
}

#[test]
fn targets_replace_or_add_as_the_switch_says() {
    // Three decisions on a 4-point board; the rows are the network's values of the real
    // boards (the design's target rows, whatever board the update is fed).
    let points = 4;
    let q_real = [
        0.1, 0.2, 0.3, 0.4, //
        0.9, -0.6, 0.3, 0.1, //
        -0.2, 0.4, -0.7, 0.8,
    ];
    let moves = [
        LearnerMove {
            action: 2,
            legal: vec![0, 2],
        },
        LearnerMove {
            action: 1,
            legal: vec![1, 2],
        },
        LearnerMove {
            action: 0,
            legal: vec![0, 2],
        },
    ];
    let (share, gamma) = (0.25, 0.5);
    let replaced = q_targets(&q_real, &moves, points, share, gamma, false);
    let mut want = q_real.to_vec();
    // γ·max over the next decision's legal points (1 and 2, not 0 with 0.9).
    want[2] = gamma * 0.3;
    // Next legal 0 and 2: max(−0.2, −0.7); the best overall (3, 0.8) is not legal.
    want[4 + 1] = gamma * -0.2;
    want[8] = share;
    assert_eq!(replaced, want);

    let added = q_targets(&q_real, &moves, points, share, gamma, true);
    let mut want = q_real.to_vec();
    // Q(s, a) of the real board + γ·max over all four outputs of the next row.
    want[2] = 0.3 + gamma * 0.9;
    want[4 + 1] = -0.6 + gamma * 0.8;
    want[8] = share;
    assert_eq!(added, want);
}

#[test]
fn the_mixed_opponent_moves_at_random_sixty_percent_of_the_time() {
    let legal = [3, 7, 11, 20];
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let n = 20_000;
    let (mut random, mut counts) = (0usize, [0usize; 4]);
    for _ in 0..n {
        let (a, drawn) = opponent_move(
            QMlpOpponent::Mixed { random: 0.6 },
            &mut rng,
            &legal,
            || Some(11),
        )
        .expect("a move");
        if drawn {
            random += 1;
            counts[legal.iter().position(|&l| l == a).expect("legal")] += 1;
        } else {
            assert_eq!(a, 11, "otherwise the network's choice");
        }
    }
    let share = random as f64 / n as f64;
    assert!((share - 0.6).abs() < 0.015, "random share {share}");
    for c in counts {
        let p = c as f64 / random as f64;
        assert!(
            (p - 0.25).abs() < 0.02,
            "uniform among the legal points: {p}"
        );
    }
    // A network choice that is missing or not legal falls back to the first legal point.
    let mut never = |net: Option<usize>| {
        opponent_move(
            QMlpOpponent::Mixed { random: 0.0 },
            &mut rng,
            &legal,
            || net,
        )
    };
    assert_eq!(never(Some(4)), Some((3, false)));
    assert_eq!(never(None), Some((3, false)));
    assert_eq!(never(Some(20)), Some((20, false)));
    // The default opponent: one uniform draw, as before.
    let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(4), ChaCha8Rng::seed_from_u64(4));
    for _ in 0..100 {
        let want = legal[b.random_range(0..legal.len())];
        assert_eq!(
            opponent_move(QMlpOpponent::Random, &mut a, &legal, || Some(11)),
            Some((want, true))
        );
    }
    assert_eq!(
        opponent_move(QMlpOpponent::Random, &mut a, &[], || None),
        None
    );
}

#[test]
fn normal_init_draws_weights_and_biases_from_n01() {
    let device = Device::default();
    let stats = |values: &[f32]| {
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / n;
        (mean, var.sqrt())
    };
    let normal = params(&QMlpNet::with_init(64, 3, QMlpInit::Normal, &device));
    assert_eq!(normal.len(), 8, "4 weights and 4 biases");
    let all: Vec<f32> = normal.iter().flat_map(|p| p.1.iter().copied()).collect();
    let (mean, std) = stats(&all);
    assert!(
        mean.abs() < 0.02 && (std - 1.0).abs() < 0.02,
        "{mean} ± {std}"
    );
    let biases: Vec<f32> = normal
        .iter()
        .filter(|p| p.0.len() == 1)
        .flat_map(|p| p.1.iter().copied())
        .collect();
    let (mean, std) = stats(&biases);
    assert!(
        mean.abs() < 0.15 && (std - 1.0).abs() < 0.1,
        "biases {mean} ± {std}"
    );
    // burn's default is much narrower.
    let default = params(&QMlpNet::with_init(64, 3, QMlpInit::Default, &device));
    let all: Vec<f32> = default.iter().flat_map(|p| p.1.iter().copied()).collect();
    assert!(stats(&all).1 < 0.2);
    // The preset's learner is N(0, 1); the same seed gives the same network.
    let trainer = QMlpTrainer::<Othello8>::new(config(3, Defects::default()));
    let all: Vec<f32> = params(&trainer.net)
        .iter()
        .flat_map(|p| p.1.iter().copied())
        .collect();
    assert!((stats(&all).1 - 1.0).abs() < 0.02);
    assert_eq!(
        weights_bytes(&trainer.net).expect("bytes"),
        weights_bytes(&QMlpNet::with_init(64, 3, QMlpInit::Normal, &device)).expect("bytes")
    );
}

#[test]
fn frozen_state_feeds_the_first_position_to_every_update() {
    // With plain SGD, an input point that is 0 (empty) in every update's board gets no
    // gradient: under the defect only the start position's four discs move the input layer.
    let centre = [27, 28, 35, 36];
    for frozen in [false, true] {
        let defects = Defects {
            frozen_state: frozen,
            ..Defects::default()
        };
        let mut trainer = QMlpTrainer::<Othello8>::new(config(5, defects));
        let before = input_weights(&trainer.net);
        trainer.epoch();
        let after = input_weights(&trainer.net);
        let moved: Vec<usize> = (0..64).filter(|&p| before[p] != after[p]).collect();
        if frozen {
            assert_eq!(moved, centre);
        } else {
            assert!(moved.len() > 50, "{} input rows moved", moved.len());
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_weights() {
    for defects in [Defects::default(), ALL] {
        let weights = |seed: u64| {
            let mut trainer = QMlpTrainer::<Othello8>::new(config(seed, defects));
            trainer.epoch();
            trainer.epoch();
            weights_bytes(&trainer.net).expect("bytes")
        };
        let a = weights(11);
        assert_eq!(a, weights(11), "{defects:?}");
        assert_ne!(a, weights(12), "{defects:?}");
    }
}

#[test]
fn resume_is_exact() {
    for (name, defects) in [("plain", Defects::default()), ("defects", ALL)] {
        let c = config(13, defects);
        let mut whole = QMlpTrainer::<Othello8>::new(c.clone());
        whole.epoch();
        let second = whole.epoch();
        let mut part = QMlpTrainer::<Othello8>::new(c.clone());
        part.epoch();
        let dir = folder(name);
        part.save_state(&dir).expect("save");
        assert!(dir.join("optim.bpk").is_file());
        let mut resumed = QMlpTrainer::<Othello8>::load_state(c, &dir).expect("load");
        assert_eq!(resumed.epochs_done(), 1);
        assert_eq!(resumed.optimizer_steps(), part.optimizer_steps(), "{name}");
        assert_eq!(resumed.epoch(), second);
        assert_eq!(resumed.optimizer_steps(), whole.optimizer_steps(), "{name}");
        assert_eq!(
            weights_bytes(&resumed.net).expect("bytes"),
            weights_bytes(&whole.net).expect("bytes"),
            "{name}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn the_card_records_the_design_settings() {
    let mut run = run_config(2, ALL);
    run.episodes = 10;
    let mut trainer = build_trainer::<Othello8>(&run, None).expect("trainer");
    trainer
        .round(10, &|s| Box::new(search::RandomAgent::new(s)))
        .expect("round");
    let models = trainer
        .models("othello8", &serde_json::Value::Null)
        .expect("models");
    let card = &models[0].card;
    // One SGD step per learner transition of the epoch's 10 games (the exact count is checked
    // inside the crate, against a twin that steps through burn).
    assert!(
        (10..=600).contains(&card.train_steps),
        "{} steps",
        card.train_steps
    );
    assert_eq!(card.config["learning_rate"], 0.03);
    assert_eq!(card.config["learner"], "black");
    assert_eq!(
        card.config["opponent"],
        serde_json::json!({"kind": "mixed", "random": 0.6})
    );
    assert_eq!(card.config["init"], "normal");
    assert_eq!(card.config["optimizer"], "sgd-per-transition");
    assert_eq!(
        card.config["defects"],
        serde_json::json!({
            "greedy_lowest": true,
            "frozen_state": true,
            "additive_target": true,
            "tanh_derivative": true
        })
    );
}

/// The time of `seed001`'s epochs and the projected time of the design's 2,000 (run with
/// `cargo test --release -p stonelab-learn --test seed001 -- --ignored --nocapture`;
/// `STONELAB_SEED001_EPOCHS` epochs, 300 by default: by then ε is within 1% of its floor, so
/// the last epochs' mean stands for the remaining ones).
#[test]
#[ignore = "timing, slow"]
fn seed001_epoch_timing() {
    let epochs: usize = std::env::var("STONELAB_SEED001_EPOCHS")
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(300)
        .clamp(2, 2_000);
    for (name, defects) in [("no defects", Defects::default()), ("all defects", ALL)] {
        let mut trainer = QMlpTrainer::<Othello8>::new(config(1, defects));
        let mut seconds = Vec::with_capacity(epochs);
        for _ in 0..epochs {
            let started = std::time::Instant::now();
            trainer.epoch();
            seconds.push(started.elapsed().as_secs_f64());
        }
        let total: f64 = seconds.iter().sum();
        let tail = &seconds[epochs - epochs / 5..];
        let steady = tail.iter().sum::<f64>() / tail.len() as f64;
        let projected = total + steady * (2_000 - epochs) as f64;
        println!(
            "seed001 ({name}): epoch 1 {:.3} s; {epochs} epochs {total:.1} s; the last {} \
             {:.3} s each (ε {:.3}); 2,000 epochs ≈ {projected:.0} s",
            seconds[0],
            tail.len(),
            steady,
            learn::qmlp::epsilon(epochs)
        );
    }
}
