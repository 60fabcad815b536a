//! Prints the Q-learning MLP's learning curve on 8x8 Othello against `random`: per 20 epochs,
//! the training win rate (with exploration) and a greedy evaluation.
//!
//! `cargo run --release -p stonelab-learn --example qmlp_curve [EPOCHS]`

use learn::{QMlpConfig, QMlpTrainer};
use othello::Othello8;

fn main() {
    let epochs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let mut trainer = QMlpTrainer::<Othello8>::new(QMlpConfig {
        epochs,
        ..QMlpConfig::default()
    });
    let started = std::time::Instant::now();
    println!("epoch,epsilon,train_wins_of_10,loss,greedy_win_rate_vs_random");
    println!(
        "0,,,,{:.3}",
        trainer.evaluate(200, 5).map_or(f64::NAN, |r| r.win_rate())
    );
    let mut window = 0;
    for e in 1..=epochs {
        let s = trainer.epoch();
        window += s.wins;
        if e % 20 == 0 {
            println!(
                "{e},{:.3},{:.2},{:.5},{:.3}",
                s.epsilon,
                window as f64 / 20.0,
                s.loss,
                trainer.evaluate(200, 5).map_or(f64::NAN, |r| r.win_rate())
            );
            window = 0;
        }
    }
    eprintln!(
        "{epochs} epochs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
