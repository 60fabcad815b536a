//! The Q-learning MLP against random on 6x6 Othello: the reference schedule, and a measurable
//! rise of the greedy win rate after a short training run.

use learn::qmlp::epsilon;
use learn::{QMlpConfig, QMlpTrainer};
use othello::Othello6;

#[test]
fn the_reference_exploration_schedule() {
    assert!((epsilon(0) - 1.11 / 1.1).abs() < 1e-12);
    assert!((epsilon(100) - (f64::exp(-1.7) + 0.11) / 1.1).abs() < 1e-12);
    assert!((epsilon(10_000) - 0.1).abs() < 1e-9);
}

#[test]
fn training_against_random_raises_the_win_rate() {
    let mut trainer = QMlpTrainer::<Othello6>::new(QMlpConfig {
        seed: 3,
        ..QMlpConfig::default()
    });
    let before = trainer.evaluate(300, 5).expect("eval").win_rate();
    let mut train_wins = Vec::new();
    for _ in 0..60 {
        train_wins.push(trainer.epoch().wins);
    }
    let after = trainer.evaluate(300, 5).expect("eval").win_rate();
    let early: usize = train_wins[..20].iter().sum();
    let late: usize = train_wins[40..].iter().sum();
    assert!(
        after > before + 0.08,
        "greedy win rate {before:.3} -> {after:.3}"
    );
    assert!(late > early, "training wins {early} -> {late}");
}
