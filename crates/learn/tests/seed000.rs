//! The reference DQN design's building blocks: one network in self-play, both networks
//! learning every move, the result replacing the last reward, one step per episode, the seed
//! encoding through a model file, and the `seed000-*` presets.

use game::{Color, Game};
use learn::presets::{preset, PresetOptions, Regime};
use learn::{
    build_trainer, train, Behaviour, CompetitiveTrainer, DqnAgent, DqnConfig, Encoding, EndReward,
    LearnFrom, Opponent, QLoss, QNet, QNetArch, Rewards, RunDir, SelfPlayTrainer, Transitions,
    UctVisits,
};
use othello::Othello4;
use rand::SeedableRng;
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
        assert_eq!(
            d.transitions,
            Transitions::AfterMove,
            "the design's transitions"
        );
        assert_eq!(d.q_loss, QLoss::RowMean, "Keras mse over the 64-wide row");
        assert_eq!(
            d.uct_visits,
            UctVisits::OnReplay,
            "visits counted in train()"
        );
        match regime {
            Regime::Competitive => {
                assert_eq!(run.algo, "dqn-competitive");
                assert_eq!(d.target_sync, 1, "target synced after every episode");
                assert_eq!(d.learn_from, LearnFrom::EveryMove);
                assert_eq!(d.rewards, Rewards::Scaled, "rewards divided by 100");
                assert_eq!(
                    d.behaviour,
                    Behaviour::Uct,
                    "DQN + UCT Policy for both networks"
                );
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

/// Discs of each kind in a stored board (mover's view): (own, the opponent's).
fn discs(cells: &[i8]) -> (usize, usize) {
    (
        cells.iter().filter(|&&c| c == 1).count(),
        cells.iter().filter(|&&c| c == -1).count(),
    )
}

#[test]
fn after_move_transitions_hold_the_board_right_after_the_move_and_the_movers_reward() {
    let mut trainer = SelfPlayTrainer::<Othello4>::new(DqnConfig {
        transitions: Transitions::AfterMove,
        end_reward: EndReward::Replace,
        ..frozen(3)
    })
    .expect("trainer");
    let stats = trainer.round(1).expect("round");
    let replay: Vec<_> = trainer.learner.replay().iter().cloned().collect();
    assert!(replay.len() >= 4, "{} transitions", replay.len());
    let done: Vec<_> = replay.iter().filter(|t| t.done).collect();
    assert_eq!(
        done.len(),
        1,
        "only the last mover's transition ends the game"
    );
    assert!(
        replay.last().is_some_and(|t| t.done),
        "stored in the order played"
    );
    let result = match stats[0].winner {
        None => 0.0,
        Some(w) if (w == Color::Black) == done[0].black => 100.0,
        Some(_) => -100.0,
    };
    assert_eq!(
        done[0].reward, result,
        "the result replaces the last move's reward"
    );
    for (i, t) in replay.iter().enumerate().filter(|(_, t)| !t.done) {
        // The board right after the move, seen by the side to move there: the opponent.
        assert_eq!(t.next_black, !t.black, "transition {i}");
        assert_eq!(
            t.next[usize::from(t.action)],
            -1,
            "the mover's new disc, transition {i}"
        );
        let (own, theirs) = discs(&t.state);
        let (their_after, own_after) = discs(&t.next);
        assert_eq!(
            own_after + their_after,
            own + theirs + 1,
            "one disc more, transition {i}"
        );
        let flips = theirs - their_after;
        assert!(flips >= 1, "transition {i}");
        assert_eq!(own_after, own + 1 + flips);
        // The mover's own reward (seed rewards): its disc gain minus the opponent's change.
        assert_eq!(t.reward, (1 + 2 * flips) as f32, "transition {i}");
        // The next decision, when the opponent has one, starts from that board.
        if let Some(n) = replay.get(i + 1) {
            if n.black != t.black {
                assert_eq!(n.state, t.next, "transition {i}");
            }
            if t.next_valid.is_empty() {
                assert_eq!(n.black, t.black, "the opponent passed, transition {i}");
            }
        }
    }
}

#[test]
fn the_row_mean_loss_is_the_chosen_actions_loss_over_the_points() {
    let loss = |q_loss| {
        let mut trainer = SelfPlayTrainer::<Othello4>::new(DqnConfig {
            q_loss,
            batch_size: 16,
            ..frozen(8)
        })
        .expect("trainer");
        trainer.round(2).expect("round");
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(1);
        trainer.learner.train_step(&mut rng)
    };
    let chosen = loss(QLoss::Chosen);
    let row = loss(QLoss::RowMean);
    assert!(chosen > 0.0);
    // The same batch: the 16-point row's other entries add no error.
    assert!(
        (row * 16.0 - chosen).abs() < 1e-6 * chosen.max(1.0),
        "{row} × 16 vs {chosen}"
    );
}

#[test]
fn uct_visits_grow_when_a_move_is_chosen_or_when_it_is_replayed() {
    let play = |uct_visits| {
        let mut trainer = SelfPlayTrainer::<Othello4>::new(DqnConfig {
            behaviour: Behaviour::Uct,
            uct_visits,
            batch_size: 8,
            ..frozen(9)
        })
        .expect("trainer");
        trainer.round(1).expect("round");
        trainer
    };
    // Summed over the distinct boards and the distinct (board, action) pairs of the buffer.
    let totals = |trainer: &SelfPlayTrainer<Othello4>| {
        let (mut boards, mut pairs) = (
            std::collections::HashSet::new(),
            std::collections::HashSet::new(),
        );
        let (mut states, mut moves) = (0, 0);
        for t in trainer.learner.replay().iter() {
            let (n_s, n_sa) =
                trainer
                    .learner
                    .visit_counts(&t.state, t.black, usize::from(t.action));
            if boards.insert((t.state.clone(), t.black)) {
                states += n_s;
            }
            if pairs.insert((t.state.clone(), t.black, t.action)) {
                moves += n_sa;
            }
        }
        (states, moves)
    };
    let chosen = play(UctVisits::OnChoice);
    let decisions = chosen.learner.replay().len() as u32;
    assert_eq!(
        totals(&chosen),
        (decisions, decisions),
        "one visit per move played"
    );
    let mut replayed = play(UctVisits::OnReplay);
    assert_eq!(totals(&replayed), (0, 0), "no training step yet, no visit");
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(2);
    replayed.learner.train_step(&mut rng);
    assert_eq!(
        totals(&replayed),
        (8, 8),
        "one visit per replayed transition"
    );
}

#[test]
fn after_move_transitions_go_to_both_competitive_networks_once_each() {
    let mut trainer = CompetitiveTrainer::<Othello4>::new(DqnConfig {
        transitions: Transitions::AfterMove,
        learn_from: LearnFrom::EveryMove,
        ..frozen(5)
    })
    .expect("trainer");
    trainer.round(1).expect("round");
    let black: Vec<_> = trainer.black.replay().iter().cloned().collect();
    let white: Vec<_> = trainer.white.replay().iter().cloned().collect();
    // Each network stores every move of the game once, in the order played.
    assert_eq!(black, white);
    assert!(black.iter().any(|t| t.black) && black.iter().any(|t| !t.black));
    assert_eq!(black.iter().filter(|t| t.done).count(), 1);
    for t in black.iter().filter(|t| !t.done) {
        assert_eq!(t.next_black, !t.black);
        let flips = discs(&t.state).1 - discs(&t.next).0;
        assert_eq!(t.reward, (1 + 2 * flips) as f32, "the mover's own reward");
    }
}
