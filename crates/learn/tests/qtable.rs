//! Tabular Q-learning on 4x4 Othello against the exact value-iteration solution: the share of
//! positions where the greedy move is optimal rises with training.

use std::sync::{Arc, OnceLock};

use learn::{QTable, QTableConfig};
use othello::Othello4;
use search::{ValueIterationConfig, ValueTable};

fn solution() -> &'static Arc<ValueTable<Othello4, u128>> {
    static TABLE: OnceLock<Arc<ValueTable<Othello4, u128>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let (table, _) = ValueTable::solve(Othello4::base3_key, &ValueIterationConfig::default())
            .expect("4x4 value iteration");
        Arc::new(table)
    })
}

#[test]
fn self_play_learns_optimal_moves_on_4x4() {
    let exact = solution();
    let config = QTableConfig {
        episodes: 40_000,
        seed: 7,
        ..QTableConfig::default()
    };
    let mut table = QTable::new(Othello4::base3_key);
    let before = table.optimal_fraction(exact.positions(), |p| exact.best_moves(p));
    let mut curve = Vec::new();
    table.train(&config, |t, p| {
        if p.episode % 10_000 == 0 {
            curve.push(t.optimal_fraction(exact.positions(), |pos| exact.best_moves(pos)));
        }
    });
    let after = *curve.last().expect("points");
    assert!(after > before + 0.15, "{before:.3} -> {curve:?}");
    assert!(
        curve.windows(2).filter(|w| w[1] >= w[0] - 0.01).count() >= curve.len() - 2,
        "{curve:?}"
    );
    assert!(table.len() > 10_000, "{} states", table.len());
}

#[test]
fn the_same_seed_learns_the_same_table() {
    let exact = solution();
    let config = QTableConfig {
        episodes: 2_000,
        seed: 3,
        ..QTableConfig::default()
    };
    let run = || {
        let mut t = QTable::new(Othello4::base3_key);
        t.train(&config, |_, _| {});
        (
            t.len(),
            t.optimal_fraction(exact.positions(), |p| exact.best_moves(p)),
        )
    };
    assert_eq!(run(), run());
}

#[test]
fn schedules() {
    let c = QTableConfig {
        episodes: 100,
        epsilon: (1.0, 0.0),
        alpha: (0.5, 0.05),
        ..QTableConfig::default()
    };
    assert_eq!(c.epsilon_at(0), 1.0);
    assert!((c.epsilon_at(50) - 0.5).abs() < 1e-12);
    assert!((c.alpha_at(100) - 0.05).abs() < 1e-12);
    assert!(c.alpha_at(50) < 0.5 && c.alpha_at(50) > 0.05);
}
