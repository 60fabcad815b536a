//! Prints the learning curve of tabular Q-learning on 4x4 Othello: the share of positions
//! (where the choice matters) whose greedy move is optimal, against the exact solution.
//!
//! `cargo run --release -p stonelab-learn --example qtable_curve [EPISODES]`

use learn::{QTable, QTableConfig};
use othello::Othello4;
use search::{ValueIterationConfig, ValueTable};

fn main() {
    let episodes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400_000);
    let (exact, _) = ValueTable::solve(Othello4::base3_key, &ValueIterationConfig::default())
        .expect("4x4 value iteration");
    let config = QTableConfig {
        episodes,
        ..QTableConfig::default()
    };
    let mut table = QTable::new(Othello4::base3_key);
    let every = (episodes / 10).max(1);
    println!("episodes,epsilon,alpha,states,optimal_fraction");
    println!(
        "0,1.0,{},0,{:.4}",
        config.alpha.0,
        table.optimal_fraction(exact.positions(), |p| exact.best_moves(p))
    );
    let started = std::time::Instant::now();
    table.train(&config, |t, p| {
        if p.episode % every == 0 {
            println!(
                "{},{:.3},{:.4},{},{:.4}",
                p.episode,
                p.epsilon,
                p.alpha,
                p.states,
                t.optimal_fraction(exact.positions(), |pos| exact.best_moves(pos))
            );
        }
    });
    eprintln!(
        "{episodes} episodes in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
