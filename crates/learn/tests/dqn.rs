//! DQN: the replay buffer's file form, symmetric targets, determinism, a resumed run that
//! continues exactly like an uninterrupted one, model files, and learning on 4x4 Othello.

use std::path::PathBuf;

use game::Game;
use learn::checkpoint::{read_model, weights_bytes, write_model, Card, ModelError};
use learn::{
    evaluate, Behaviour, DqnAgent, DqnConfig, DqnLearner, DqnTrainer, QNet, QNetArch, ReplayBuffer,
    Transition,
};
use othello::{Othello4, Othello6};
use search::{Agent, Budget, RandomAgent};

/// The network's values on the positions of a fixed random game.
fn fingerprint(learner: &DqnLearner<Othello4>) -> Vec<u32> {
    let agent = DqnAgent::<Othello4>::new(learner.inference_net(), "x".into());
    let mut mover = RandomAgent::new(99);
    let mut pos = Othello4::start();
    let mut out = Vec::new();
    while !pos.is_over() {
        out.extend(agent.values(&pos).iter().map(|v| v.to_bits()));
        let d = Agent::<Othello4>::select(&mut mover, &pos, &Budget::default()).expect("move");
        pos = pos.play_unchecked(d.mv);
    }
    out
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stonelab-dqn-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn small(seed: u64, behaviour: Behaviour) -> DqnConfig {
    DqnConfig {
        arch: QNetArch::Resnet {
            blocks: 1,
            channels: 8,
        },
        behaviour,
        parallel: 4,
        batch_size: 16,
        warmup: 40,
        train_every: 2,
        epsilon_decay: 100,
        target_sync: 8,
        seed,
        ..DqnConfig::default()
    }
}

fn random<G: Game>(seed: u64) -> Box<dyn Agent<G>> {
    Box::new(RandomAgent::new(seed))
}

fn train(trainer: &mut DqnTrainer<Othello4>, until: usize) {
    while trainer.episode < until {
        let left = until - trainer.episode;
        trainer.round(&random::<Othello4>, left).expect("round");
    }
}

#[test]
fn replay_buffers_round_trip_and_refuse_garbage() {
    let mut buffer = ReplayBuffer::new(3);
    for k in 0..5u16 {
        buffer.push(Transition {
            state: vec![1, -1, 0, 1],
            black: k % 2 == 0,
            action: k,
            reward: f32::from(k) / 10.0,
            next: if k == 4 { vec![] } else { vec![0, 0, 1, -1] },
            next_black: true,
            next_valid: vec![k, 2],
            done: k == 4,
        });
    }
    assert_eq!(buffer.len(), 3);
    let bytes = buffer.to_bytes();
    assert_eq!(ReplayBuffer::from_bytes(&bytes), Ok(buffer));
    assert!(ReplayBuffer::from_bytes(b"nonsense").is_err());
    assert!(ReplayBuffer::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    let mut bad = bytes.clone();
    let last_cell = 8 * 4 + 2; // first transition's first cell
    bad[last_cell] = 7;
    assert!(ReplayBuffer::from_bytes(&bad).is_err());
}

#[test]
fn the_same_seed_trains_the_same_network() {
    let run = || {
        let mut t = DqnTrainer::<Othello4>::new(small(5, Behaviour::Epsilon)).expect("config");
        train(&mut t, 60);
        let bytes = weights_bytes(&t.learner.inference_net()).expect("bytes");
        (fingerprint(&t.learner), bytes)
    };
    let (a, b) = (run(), run());
    assert_eq!(a.0, b.0, "same values");
    // Same tensors, same bytes: the file's header is written in one fixed order.
    assert_eq!(a.1, b.1, "same weights file");
}

/// Networks are seeded per learner, not through a process-wide generator: learners built and
/// trained at the same time on several threads of one process (as the other tests here also
/// do) end exactly as each does alone.
#[test]
fn learners_trained_side_by_side_equal_learners_trained_alone() {
    let run = |seed: u64, behaviour: Behaviour| {
        let mut t = DqnTrainer::<Othello4>::new(small(seed, behaviour)).expect("config");
        train(&mut t, 40);
        fingerprint(&t.learner)
    };
    let cases = [
        (11, Behaviour::Epsilon),
        (12, Behaviour::Uct),
        (13, Behaviour::Epsilon),
    ];
    let side_by_side: Vec<Vec<u32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(seed, b)| scope.spawn(move || run(seed, b)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    for (&(seed, b), together) in cases.iter().zip(&side_by_side) {
        assert_eq!(&run(seed, b), together, "seed {seed}");
    }
    assert_ne!(
        side_by_side[0], side_by_side[2],
        "different seeds, same network"
    );
}

#[test]
fn a_resumed_run_continues_like_an_uninterrupted_one() {
    for behaviour in [Behaviour::Epsilon, Behaviour::Uct] {
        let dir = tmp(&format!("resume-{behaviour:?}"));
        let config = small(9, behaviour);
        let mut a = DqnTrainer::<Othello4>::new(config.clone()).expect("config");
        train(&mut a, 48);
        assert!(a.learner.grad_steps > 0, "learning has started");
        a.learner.save_state(&dir).expect("save");
        train(&mut a, 96);
        let mut b = DqnTrainer {
            learner: DqnLearner::<Othello4>::load_state(config, &dir).expect("load"),
            episode: 48,
        };
        train(&mut b, 96);
        assert_eq!(a.learner.grad_steps, b.learner.grad_steps);
        assert_eq!(
            fingerprint(&a.learner),
            fingerprint(&b.learner),
            "{behaviour:?}: resumed weights differ"
        );
        // A damaged state is refused with an error, not a panic.
        let optim = std::fs::read(dir.join("optim.bpk")).expect("optimizer state");
        std::fs::write(dir.join("optim.bpk"), b"broken").expect("write");
        let e = DqnLearner::<Othello4>::load_state(small(9, behaviour), &dir)
            .err()
            .expect("a broken optimizer state");
        assert!(e.to_string().starts_with("training state "), "{e}");
        assert!(e.to_string().contains("optim.bpk"), "{e}");
        std::fs::write(dir.join("optim.bpk"), optim).expect("restore");
        std::fs::write(dir.join("replay.bin"), b"broken").expect("write");
        let e = DqnLearner::<Othello4>::load_state(small(9, behaviour), &dir)
            .err()
            .expect("a broken replay buffer");
        // Named as the replay buffer it is, not as weights.
        assert!(e.to_string().starts_with("training state "), "{e}");
        assert!(e.to_string().contains("replay.bin"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn card(game: &str, size: usize, arch: QNetArch) -> Card {
    Card {
        format: String::new(),
        algo: "dqn".into(),
        game: game.into(),
        board_size: size,
        arch: serde_json::to_value(arch).ok(),
        config: serde_json::json!({}),
        episodes: 0,
        train_steps: 0,
        weights: String::new(),
        sha256: String::new(),
        bytes: 0,
        last_eval: serde_json::Value::Null,
    }
}

#[test]
fn model_files_load_as_agents_and_bad_files_are_refused() {
    let dir = tmp("model");
    let config = small(2, Behaviour::Epsilon);
    let learner = DqnLearner::<Othello6>::new(config.clone()).expect("config");
    let net = learner.inference_net();
    let path = dir.join("m.safetensors");
    let bytes = weights_bytes(&net).expect("bytes");
    let written = write_model(&path, &bytes, card("othello6", 6, config.arch)).expect("write");
    assert_eq!(written.sha256.len(), 64);
    let (loaded, c) = QNet::load(&path, "othello6", 6).expect("load");
    assert_eq!(c, written);
    // The loaded network plays exactly like the original.
    let original = DqnAgent::<Othello6>::new(net, "a".into());
    let mut copy = DqnAgent::<Othello6>::new(loaded, "b".into());
    let pos = Othello6::start();
    assert_eq!(original.values(&pos), copy.values(&pos));
    let d = copy.select(&pos, &Budget::default()).expect("move");
    assert!(pos.is_legal(d.mv));
    // Wrong game, changed weights, broken card, missing file: clear errors.
    assert!(matches!(
        QNet::load(&path, "othello8", 8),
        Err(ModelError::Mismatch(_))
    ));
    let mut changed = bytes.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    std::fs::write(&path, &changed).expect("write");
    assert!(matches!(
        read_model(&path),
        Err(ModelError::Checksum { .. })
    ));
    std::fs::write(dir.join("m.json"), "{ not json").expect("write");
    assert!(matches!(read_model(&path), Err(ModelError::Card { .. })));
    // A card far larger than any card is refused without being read whole (a file that is
    // not a card, say): the message says it is too long, not what it holds.
    let mut huge = vec![b' '; 200 * 1024];
    huge.extend_from_slice(b"\"SECRET=1\"");
    std::fs::write(dir.join("m.json"), &huge).expect("write");
    match read_model(&path) {
        Err(e @ ModelError::File { .. }) => {
            let text = e.to_string();
            assert!(text.contains("longer than the 65536 bytes"), "{text}");
            assert!(!text.contains("SECRET"), "{text}");
        }
        other => panic!("a huge card: {other:?}"),
    }
    // A missing weights file is named as such, and a missing card as the card (not as an
    // unreadable file of another name).
    let absent = read_model(&dir.join("absent.safetensors")).map(|_| ());
    let text = absent.expect_err("no such file").to_string();
    assert!(
        text.ends_with("absent.safetensors: no such model file"),
        "{text}"
    );
    std::fs::copy(&path, dir.join("bare.safetensors")).expect("copy");
    let text = read_model(&dir.join("bare.safetensors"))
        .map(|_| ())
        .expect_err("no card")
        .to_string();
    assert!(
        text.contains("its card") && text.contains("bare.json is missing"),
        "{text}"
    );
    // The card named instead of the weights, or no file at all.
    match read_model(&dir.join("m.json")) {
        Err(e @ ModelError::File { .. }) => {
            assert!(
                e.to_string()
                    .contains("this is a model card: name its weights file"),
                "{e}"
            );
        }
        other => panic!("a card as the model: {:?}", other.map(|_| ())),
    }
    assert!(matches!(
        read_model(std::path::Path::new("")),
        Err(ModelError::File { .. })
    ));
    // Weights of another shape under a matching card.
    let wide = QNetArch::Resnet {
        blocks: 1,
        channels: 16,
    };
    let wide_net = learn::QNet::new(wide, 6, 3, &burn::tensor::Device::default());
    write_model(
        &path,
        &weights_bytes(&wide_net).expect("b"),
        card("othello6", 6, config.arch),
    )
    .expect("write");
    match QNet::load(&path, "othello6", 6) {
        Err(e @ ModelError::Weights(_)) => {
            let text = e.to_string();
            // Named in words, a few at most, with no debug dump of the library's types.
            assert!(
                text.starts_with("weights: not the network the card describes: "),
                "{text}"
            );
            assert!(text.contains("in the file,"), "{text}");
            assert!(
                !text.contains("Shape {") && !text.contains("Mismatch"),
                "{text}"
            );
            assert!(text.len() < 600, "{text}");
        }
        other => panic!("weights of another shape: {:?}", other.map(|_| ())),
    }
    // Weights with a NaN (a diverged run) are refused, not played.
    let mut poisoned = bytes.clone();
    let header = u64::from_le_bytes(poisoned[..8].try_into().expect("8 bytes")) as usize;
    poisoned[8 + header..12 + header].copy_from_slice(&f32::NAN.to_le_bytes());
    write_model(&path, &poisoned, card("othello6", 6, config.arch)).expect("write");
    match QNet::load(&path, "othello6", 6) {
        Err(e @ ModelError::Weights(_)) => {
            assert!(
                e.to_string().contains("holds a NaN or an infinite value"),
                "{e}"
            );
        }
        other => panic!("NaN weights: {:?}", other.map(|_| ())),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dqn_learns_to_beat_random_on_4x4() {
    let config = DqnConfig {
        arch: QNetArch::Resnet {
            blocks: 1,
            channels: 16,
        },
        parallel: 8,
        batch_size: 32,
        warmup: 200,
        train_every: 2,
        epsilon_decay: 600,
        seed: 4,
        ..DqnConfig::default()
    };
    let mut trainer = DqnTrainer::<Othello4>::new(config).expect("config");
    let before = evaluate(
        &mut trainer.learner,
        &random::<Othello4>,
        &arena::VersusSettings::new(400, 11),
    )
    .expect("eval");
    train(&mut trainer, 1000);
    let after = evaluate(
        &mut trainer.learner,
        &random::<Othello4>,
        &arena::VersusSettings::new(400, 11),
    )
    .expect("eval");
    assert!(
        after.win_rate() > before.win_rate() + 0.15,
        "win rate {:.3} -> {:.3}",
        before.win_rate(),
        after.win_rate()
    );
}

#[test]
fn both_networks_give_one_value_per_point_on_every_board() {
    use burn::tensor::{Device, Tensor};
    let device = Device::default();
    for arch in [QNetArch::SeedResnet, QNetArch::DEFAULT] {
        for n in [4usize, 6, 8] {
            let net = learn::QNet::new(arch, n, 1, &device);
            let out = net.forward(Tensor::<4>::zeros([3, learn::PLANES, n, n], &device));
            assert_eq!(out.dims(), [3, n * n], "{arch:?} on {n}x{n}");
        }
    }
}

#[test]
fn the_counted_weights_are_the_networks_own() {
    use burn::module::Module;
    let device = burn::tensor::Device::default();
    let archs = [
        QNetArch::SeedResnet,
        QNetArch::DEFAULT,
        QNetArch::Resnet {
            blocks: 0,
            channels: 5,
        },
        QNetArch::Resnet {
            blocks: 2,
            channels: 16,
        },
    ];
    for arch in archs {
        for n in [4usize, 6, 8, 9] {
            let net = learn::QNet::new(arch, n, 1, &device);
            assert_eq!(
                arch.parameters(learn::PLANES, n),
                net.num_params() as u64,
                "{arch:?} on {n}x{n}"
            );
        }
    }
    let huge = QNetArch::Resnet {
        blocks: 64,
        channels: 1024,
    };
    let err = huge.check(learn::PLANES, 8).expect_err("1.2 G weights");
    assert!(err.contains("at most 64000000"), "{err}");
    assert!(QNetArch::DEFAULT.check(learn::PLANES, 19).is_ok());
}

#[test]
fn a_card_naming_a_larger_network_than_its_file_is_refused_before_it_is_built() {
    let dir = tmp("bigcard");
    let config = small(2, Behaviour::Epsilon);
    let learner = DqnLearner::<Othello6>::new(config.clone()).expect("config");
    let path = dir.join("m.safetensors");
    let bytes = weights_bytes(&learner.inference_net()).expect("bytes");
    // 40 blocks of 256 channels (47 M weights) under the small network's weights: refused as a
    // card (by its size), not as weights of the wrong shape after building it.
    let big = QNetArch::Resnet {
        blocks: 40,
        channels: 256,
    };
    assert!(big.check(learn::PLANES, 6).is_ok());
    write_model(&path, &bytes, card("othello6", 6, big)).expect("write");
    match QNet::load(&path, "othello6", 6) {
        Err(e @ ModelError::Card { .. }) => {
            let text = e.to_string();
            assert!(text.contains("resnet-40x256 has"), "{text}");
            assert!(text.contains("byte weights file"), "{text}");
        }
        other => panic!("a card larger than its weights: {:?}", other.map(|_| ())),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_behaviour_plays_only_valid_moves() {
    // The environment refuses invalid actions with an error, so whole training rounds under
    // each behaviour prove their choices valid; greedy evaluation likewise.
    for behaviour in [Behaviour::Greedy, Behaviour::Epsilon, Behaviour::Uct] {
        let mut t = DqnTrainer::<Othello6>::new(DqnConfig {
            epsilon_decay: 10,
            ..small(3, behaviour)
        })
        .expect("config");
        while t.episode < 24 {
            t.round(&random::<Othello6>, 24 - t.episode).expect("round");
        }
        let r = evaluate(
            &mut t.learner,
            &random::<Othello6>,
            &arena::VersusSettings::new(8, 1),
        )
        .expect("eval");
        assert_eq!(r.games(), 8);
    }
}
