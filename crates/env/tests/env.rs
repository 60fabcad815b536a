//! The environment on random episodes, checked against the rules: rewards per scheme (against a
//! direct count of flips), masks, passes, invalid actions, single-agent mode, truncation.

use env::{Env, EnvConfig, EnvError, InvalidAction, RewardScheme};
use game::{Color, Game};
use othello::{Move, Othello4, Othello6, Othello8};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::RandomAgent;

fn config(rewards: RewardScheme) -> EnvConfig {
    EnvConfig {
        rewards,
        ..EnvConfig::default()
    }
}

#[test]
fn seed_rewards_are_flips_and_the_result() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut passes_seen = 0;
    for episode in 0..200 {
        let mut env = Env::<Othello6>::new(config(RewardScheme::Seed));
        let (_, mut info) = env.reset(episode);
        loop {
            let pos = *env.position();
            // The mask is exactly the legal moves (no pass: the environment plays those).
            let legal: Vec<usize> = pos
                .legal_moves()
                .into_iter()
                .map(Othello6::action_index)
                .collect();
            assert_eq!(info.valid_actions, legal);
            assert_eq!(info.mask.iter().filter(|&&m| m).count(), legal.len());
            let action = info.valid_actions[rng.random_range(0..info.valid_actions.len())];
            let mover = pos.side_to_move();
            let Some(Move::Place(sq)) = Othello6::action_move(action) else {
                panic!("a square")
            };
            let flips = pos.flips(sq).count_ones() as f32;
            let step = env.step(action).expect("valid action");
            assert_eq!(step.rewards[0], -step.rewards[1], "zero-sum");
            assert_eq!(step.reward, step.rewards[mover.index()]);
            let end = if step.terminated {
                let outcome = env.position().outcome().expect("over");
                match outcome.winner() {
                    Some(w) if w == mover => 100.0,
                    Some(_) => -100.0,
                    None => 0.0,
                }
            } else {
                0.0
            };
            // Passes played by the environment move no disc: they add nothing.
            assert_eq!(step.reward, 2.0 * flips + 1.0 + end, "episode {episode}");
            passes_seen += step.info.passes.len();
            for &passer in &step.info.passes {
                assert_ne!(passer, step.info.to_move, "a pass hands the move over");
            }
            info = step.info;
            if step.terminated {
                assert!(info.valid_actions.is_empty());
                assert_eq!(env.step(0), Err(EnvError::Done));
                break;
            }
        }
    }
    assert!(
        passes_seen > 0,
        "no pass in 200 games: the pass path is untested"
    );
}

#[test]
fn scaled_and_terminal_schemes() {
    for seed in 0..50 {
        let mut seeded = Env::<Othello4>::new(config(RewardScheme::Seed));
        let mut scaled = Env::<Othello4>::new(config(RewardScheme::Scaled));
        let mut terminal = Env::<Othello4>::new(config(RewardScheme::Terminal));
        let (_, info) = seeded.reset(seed);
        scaled.reset(seed);
        terminal.reset(seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut actions = info.valid_actions;
        loop {
            let a = actions[rng.random_range(0..actions.len())];
            let s = seeded.step(a).expect("valid");
            let c = scaled.step(a).expect("valid");
            let t = terminal.step(a).expect("valid");
            assert!((c.reward - s.reward / 100.0).abs() < 1e-6);
            assert_eq!(s.obs, c.obs);
            if t.terminated {
                // Only the result counts: +1/-1 to the winner/loser, 0 for a draw.
                let black_result = match seeded.position().outcome().and_then(|o| o.winner()) {
                    None => 0.0,
                    Some(Color::Black) => 1.0,
                    Some(Color::White) => -1.0,
                };
                assert_eq!(t.rewards, [black_result, -black_result]);
                assert!([-1.0, 0.0, 1.0].contains(&t.reward));
                break;
            }
            assert_eq!(t.reward, 0.0);
            actions = s.info.valid_actions;
        }
    }
}

#[test]
fn invalid_actions_error_or_cost_and_change_nothing() {
    let mut env = Env::<Othello8>::new(EnvConfig::default());
    let (obs, _) = env.reset(0);
    for bad in [0, 63, 64, 65, 10_000] {
        assert!(
            matches!(env.step(bad), Err(EnvError::Invalid { .. })),
            "{bad}"
        );
    }
    assert_eq!(*env.position(), Othello8::new());
    let mut env = Env::<Othello8>::new(EnvConfig {
        invalid: InvalidAction::Penalty,
        ..EnvConfig::default()
    });
    env.reset(0);
    let step = env.step(0).expect("a penalty step");
    assert_eq!(step.reward, -100.0);
    assert!(!step.terminated);
    assert_eq!(step.obs, obs);
    assert_eq!(step.info.valid_actions.len(), 4);
}

#[test]
fn single_agent_mode_plays_the_opponent() {
    let mut wins = 0;
    for seed in 0..40 {
        let opponent = Box::new(RandomAgent::new(seed));
        let mut env = Env::<Othello6>::against(EnvConfig::default(), opponent, Color::White);
        let (obs, mut info) = env.reset(seed);
        // The opponent (black) has moved: white to move, five discs.
        assert_eq!(obs.to_move, Color::White);
        assert_eq!(info.counts.0 + info.counts.1, 5);
        let mut total = 0.0;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        loop {
            assert_eq!(info.to_move, Color::White);
            let a = info.valid_actions[rng.random_range(0..info.valid_actions.len())];
            let step = env.step(a).expect("valid");
            assert_eq!(step.reward, step.rewards[Color::White.index()]);
            total += step.reward;
            info = step.info;
            if step.terminated {
                // The shaped rewards sum to the final disc difference (before empties are
                // counted) plus the result: white's total is its margin of discs + ±100.
                let (b, w) = info.counts;
                let result = match env.position().outcome().and_then(|o| o.winner()) {
                    Some(Color::White) => {
                        wins += 1;
                        100.0
                    }
                    Some(Color::Black) => -100.0,
                    None => 0.0,
                };
                // Start: 2-2; the opponent's first move (+3 to black) came in reset, outside.
                assert_eq!(total, (w as f32 - b as f32) + 3.0 + result, "seed {seed}");
                break;
            }
        }
    }
    assert!(wins > 5 && wins < 35, "{wins} random-vs-random wins of 40");
}

#[test]
fn truncation_and_gomoku() {
    let mut env = Env::<gomoku::Gomoku15>::new(EnvConfig {
        max_steps: Some(3),
        ..EnvConfig::default()
    });
    let (obs, info) = env.reset(0);
    assert_eq!(obs.cells.len(), 225);
    assert_eq!(info.valid_actions.len(), 225);
    for k in 0..3 {
        let step = env.step(k).expect("valid");
        assert_eq!(step.reward, 1.0, "one stone placed, none taken");
        assert_eq!(step.truncated, k == 2);
        assert!(!step.terminated);
    }
    assert_eq!(env.step(10), Err(EnvError::Done));
    // Five in a row: +1 for the stone and +100 for the win.
    let mut env = Env::<gomoku::Gomoku15>::new(EnvConfig::default());
    env.reset(0);
    for (k, a) in [0, 15, 1, 16, 2, 17, 3, 18].into_iter().enumerate() {
        let s = env.step(a).expect("valid");
        assert!(!s.terminated, "move {k}");
    }
    let s = env.step(4).expect("valid");
    assert!(s.terminated);
    assert_eq!(s.reward, 101.0);
    assert_eq!(s.rewards, [101.0, -101.0]);
}
