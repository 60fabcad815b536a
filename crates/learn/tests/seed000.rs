//! The reference DQN design's building blocks: one network in self-play, both networks
//! learning every move, the result replacing the last reward, one step per episode, the seed
//! encoding through a model file, and the `seed000-*` presets.

use game::{Color, Game};
use learn::presets::{preset, PresetOptions, Regime};
use learn::{
    build_trainer, train, Behaviour, CompetitiveTrainer, DqnAgent, DqnConfig, Encoding, EndReward,
    LearnFrom, Opponent, QNet, QNetArch, Rewards, RunDir, SelfPlayTrainer,
};
use othello::Othello4;
use search::{Agent, Budget, RandomAgent};

/// A small network that does not train (the buffer never reaches `warmup`), playing greedily:
/// the same settings play the same games.
fn frozen(seed: u64) -> DqnConfig {
    DqnConfig {
        arch: QNetArch::Resnet {
            blocks: 1,
            channels: 8,
        },
        behaviour: Behaviour::Greedy,
        rewards: Rewards::Seed,
        parallel: 1,
        warmup: 1_000_000,
        seed,
        ..DqnConfig::default()
    }
}

#[test]
fn one_network_plays_both_colours_and_stores_every_decision() {
    let mut trainer = SelfPlayTrainer::<Othello4>::new(frozen(3)).expect("trainer");
    let stats = trainer.round(1).expect("round");
    assert_eq!(stats.len(), 1);
    let replay: Vec<_> = trainer.learner.replay().iter().cloned().collect();
    let black = replay.iter().filter(|t| t.black).count();
    let white = replay.len() - black;
    assert!(
        black > 0 && white > 0,
        "both colours stored: {black} / {white}"
    );
    let done: Vec<_> = replay.iter().filter(|t| t.done).collect();
    assert_eq!(done.len(), 2, "one terminal transition per colour");
    assert_ne!(done[0].black, done[1].black);
    for t in replay.iter().filter(|t| !t.done) {
        assert_eq!(
            t.next_black, t.black,
            "a transition runs to the mover's next decision"
        );
    }
    // Total stored rewards per colour are the game's rewards per colour, but for what White
    // received before its first decision: Black's opening move, which flips one disc (−3).
    let total = |b: bool| -> f32 {
        replay
            .iter()
            .filter(|t| t.black == b)
            .map(|t| t.reward)
            .sum()
    };
    assert!((total(true) - stats[0].rewards[0]).abs() < 1e-3);
    assert!((total(false) - (stats[0].rewards[1] + 3.0)).abs() < 1e-3);
}

#[test]
fn the_result_replaces_the_last_reward_or_is_added_to_it() {
    let play = |end_reward| {
        let mut trainer = SelfPlayTrainer::<Othello4>::new(DqnConfig {
            end_reward,
            ..frozen(4)
        })
        .expect("trainer");
        let stats = trainer.round(1).expect("round");
        let done: Vec<_> = trainer
            .learner
            .replay()
            .iter()
            .filter(|t| t.done)
            .cloned()
            .collect();
        (stats[0].winner, done)
    };
    let (winner, replaced) = play(EndReward::Replace);
    let (winner_add, added) = play(EndReward::Add);
    assert_eq!(winner, winner_add, "the same game either way");
    let result = |black: bool| match winner {
        None => 0.0,
        Some(w) if (w == Color::Black) == black => 100.0,
        Some(_) => -100.0,
    };
    // The last mover's terminal transition holds only the game-ending move: exactly its result
    // when replaced, its disc reward plus the result when added.
    let last_mover = replaced
        .iter()
        .find(|t| (t.reward - result(t.black)).abs() < 1e-4)
        .expect("one side's last reward is exactly its result");
    let same = added
        .iter()
        .find(|t| t.black == last_mover.black)
        .expect("same side");
    let shaped = same.reward - result(same.black);
    assert!(
        shaped.abs() >= 3.0,
        "an Othello move earns at least 3 discs of difference: {shaped}"
    );
    assert_eq!(
        learn::dqn::games::end_rewards(
            game::Outcome::from_black_margin(4),
            env::RewardScheme::Seed
        ),
        [100.0, -100.0]
    );
}

#[test]
fn competitive_networks_store_their_own_moves_or_every_move() {
    let play = |learn_from| {
        let mut trainer = CompetitiveTrainer::<Othello4>::new(DqnConfig {
            learn_from,
            ..frozen(5)
        })
        .expect("trainer");
        trainer.round(1).expect("round");
        (
            trainer.black.replay().iter().cloned().collect::<Vec<_>>(),
            trainer.white.replay().iter().cloned().collect::<Vec<_>>(),
        )
    };
    let (black_own, white_own) = play(LearnFrom::OwnMoves);
    assert!(black_own.iter().all(|t| t.black));
    assert!(white_own.iter().all(|t| !t.black));
    let (black_all, white_all) = play(LearnFrom::EveryMove);
    let mut everything: Vec<_> = black_own.iter().chain(&white_own).cloned().collect();
    let key = |t: &learn::Transition| (t.state.clone(), t.black, t.action, t.done);
    everything.sort_by_key(key);
    for (who, mut got) in [("black", black_all), ("white", white_all)] {
        got.sort_by_key(key);
        assert_eq!(got, everything, "{who} stores every transition of the game");
    }
}

#[test]
fn training_by_episodes_takes_one_step_per_game() {
    let config = DqnConfig {
        warmup: 1,
        steps_per_episode: 1,
        parallel: 3,
        batch_size: 8,
        ..frozen(6)
    };
    let mut one = SelfPlayTrainer::<Othello4>::new(config.clone()).expect("trainer");
    one.round(3).expect("round");
    assert_eq!(one.learner.grad_steps, 3, "self-play: one step per game");
    let mut two = CompetitiveTrainer::<Othello4>::new(config).expect("trainer");
    two.round(3).expect("round");
    assert_eq!((two.black.grad_steps, two.white.grad_steps), (3, 3));
}

#[test]
fn a_seed_encoded_model_file_plays_as_the_network_it_was_saved_from() {
    let root = std::env::temp_dir().join(format!("stonelab-seed000-model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut config = preset(
        "seed000-greedy",
        &PresetOptions {
            seed: 9,
            episodes: Some(2),
            ..PresetOptions::default()
        },
    )
    .expect("preset");
    config.game = "othello4".into();
    config.eval_games = 2;
    if let Some(d) = config.dqn_mut() {
        d.arch = QNetArch::Resnet {
            blocks: 1,
            channels: 8,
        };
        d.warmup = 8;
        d.batch_size = 8;
    }
    let dir = RunDir::create(&root, false).expect("dir");
    dir.write_config(&config).expect("config");
    let mut trainer = build_trainer::<Othello4>(&config, None).expect("trainer");
    let random = |s: u64| -> Box<dyn Agent<Othello4>> { Box::new(RandomAgent::new(s)) };
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
    )
    .expect("train");
    let path = root.join(learn::run::CHECKPOINTS).join("last.safetensors");
    let (net, card) = QNet::load(&path, "othello4", 4).expect("load");
    assert_eq!(QNet::card_encoding(&card), Ok(Encoding::Seed));
    // Fed the stone planes instead, the same weights cannot even be loaded into a network of
    // the other input width; fed the seed planes, the loaded agent plays like the saved one.
    let resumed = learn::DqnLearner::<Othello4>::load_state(
        config.dqn().cloned().expect("dqn"),
        &std::fs::read_dir(root.join(learn::run::CHECKPOINTS))
            .expect("checkpoints")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.is_dir()
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("ep-"))
            })
            .expect("a checkpoint"),
    )
    .expect("state");
    let mut saved =
        DqnAgent::<Othello4>::with_encoding(resumed.inference_net(), Encoding::Seed, "a".into());
    let mut loaded = DqnAgent::<Othello4>::with_encoding(net, Encoding::Seed, "b".into());
    let mut pos = Othello4::start();
    while !pos.is_over() {
        let a = saved.select(&pos, &Budget::default()).expect("move");
        let b = loaded.select(&pos, &Budget::default()).expect("move");
        assert_eq!(a.mv, b.mv);
        pos = pos.play(a.mv).expect("legal");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_seed000_presets_are_the_design() {
    for (name, regime) in [
        ("seed000-greedy", Regime::Greedy),
        ("seed000-uct", Regime::Uct),
        ("seed000-competitive", Regime::Competitive),
    ] {
        let run = preset(name, &PresetOptions::default()).expect("preset");
        let d = run.dqn().cloned().expect("dqn settings");
        assert_eq!(run.game, "othello8");
        assert_eq!(run.episodes, regime.design_episodes());
        assert_eq!(run.checkpoint_every, 100, "a save every 100 episodes");
        assert_eq!(d.arch, QNetArch::SeedResnet);
        assert_eq!(d.encoding, Encoding::Seed);
        assert_eq!(d.end_reward, EndReward::Replace);
        assert_eq!(d.steps_per_episode, 1, "one training step per episode");
        assert_eq!(d.parallel, 1);
        assert!(!d.augment);
        match regime {
            Regime::Competitive => {
                assert_eq!(run.algo, "dqn-competitive");
                assert_eq!(d.target_sync, 1, "target synced after every episode");
                assert_eq!(d.learn_from, LearnFrom::EveryMove);
                assert_eq!(d.rewards, Rewards::Scaled, "rewards divided by 100");
            }
            _ => {
                assert_eq!(run.algo, "dqn-self-play");
                assert_eq!(d.target_sync, 30);
                assert_eq!(d.rewards, Rewards::Seed);
                assert_eq!(
                    d.behaviour,
                    if regime == Regime::Greedy {
                        Behaviour::Greedy
                    } else {
                        Behaviour::Uct
                    }
                );
            }
        }
    }
    assert_eq!(run_episodes("seed000-uct", 10), 10);
    let e = preset("seed002", &PresetOptions::default()).expect_err("unknown");
    assert!(e.to_string().contains("seed000-greedy"), "{e}");
}

fn run_episodes(name: &str, episodes: usize) -> usize {
    preset(
        name,
        &PresetOptions {
            episodes: Some(episodes),
            ..PresetOptions::default()
        },
    )
    .expect("preset")
    .episodes
}
