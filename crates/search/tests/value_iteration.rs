//! Value iteration's per-sweep trace on 4x4 Othello, against a slow twin that recomputes every
//! sweep from the rules with a plain map of values.

use std::collections::HashMap;

use game::{Color, Game};
use othello::Othello4;
use search::{Sweep, ValueIterationConfig, ValueTable};

fn solve_traced(config: &ValueIterationConfig) -> (ValueTable<Othello4, u128>, Vec<Sweep>) {
    let mut trace = Vec::new();
    let (table, _) =
        ValueTable::solve_with(Othello4::base3_key, config, &mut |s| trace.push(s)).unwrap();
    (table, trace)
}

/// The longest game from `pos` in plies (passes included), memoised by key.
fn longest(pos: &Othello4, memo: &mut HashMap<u128, usize>) -> usize {
    if let Some(&n) = memo.get(&pos.base3_key()) {
        return n;
    }
    let n = pos
        .legal_moves()
        .into_iter()
        .map(|mv| 1 + longest(&pos.play_unchecked(mv), memo))
        .max()
        .unwrap_or(0);
    memo.insert(pos.base3_key(), n);
    n
}

/// The slow twin: synchronous sweeps over a map from key to value, children found by playing
/// every legal move again each sweep, each move worth r + γ·V(next) (the reward when it ends
/// the game); returns each sweep's (largest update, values changed) and the final values.
fn twin_trace(positions: &[Othello4], discount: f64) -> (Vec<(f64, usize)>, HashMap<u128, f64>) {
    let mut values: HashMap<u128, f64> = positions
        .iter()
        .map(|p| {
            let v = p
                .outcome()
                .map_or(0.0, |o| 100.0 * f64::from(o.value_for(Color::Black)));
            (p.base3_key(), v)
        })
        .collect();
    let mut trace = Vec::new();
    loop {
        let mut next = values.clone();
        let (mut largest, mut changed) = (0.0f64, 0usize);
        for p in positions.iter().filter(|p| !p.is_over()) {
            let kids: Vec<f64> = p
                .legal_moves()
                .into_iter()
                .map(|mv| {
                    let next = p.play_unchecked(mv);
                    let v = values[&next.base3_key()];
                    if next.is_over() {
                        v
                    } else {
                        discount * v
                    }
                })
                .collect();
            let best = if p.side_to_move() == Color::Black {
                kids.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            } else {
                kids.iter().copied().fold(f64::INFINITY, f64::min)
            };
            let old = values[&p.base3_key()];
            largest = largest.max((best - old).abs());
            if best != old {
                changed += 1;
            }
            next.insert(p.base3_key(), best);
        }
        values = next;
        trace.push((largest, changed));
        if largest == 0.0 {
            return (trace, values);
        }
    }
}

#[test]
fn the_trace_is_numbered_from_one_and_ends_converged() {
    let config = ValueIterationConfig::default();
    let mut trace = Vec::new();
    let (table, report) =
        ValueTable::solve_with(Othello4::base3_key, &config, &mut |s| trace.push(s)).unwrap();
    assert_eq!(trace.len(), report.sweeps);
    for (i, s) in trace.iter().enumerate() {
        assert_eq!(s.number, i + 1);
        assert!(s.max_update >= 0.0 && s.max_update.is_finite(), "{s:?}");
        assert!(s.changed_states <= report.states - report.terminal, "{s:?}");
        // Values start at 0 and a value once ±100 is a proven result that never changes again:
        // every update is 0 or 100 (no discount), and a sweep changes some value exactly when
        // its largest update is not 0.
        assert!([0.0, 100.0].contains(&s.max_update), "{s:?}");
        assert_eq!(s.changed_states == 0, s.max_update == 0.0, "{s:?}");
    }
    let last = trace.last().unwrap();
    assert_eq!(last.max_update, 0.0);
    assert_eq!(last.changed_states, 0);
    assert_eq!(last.max_update, report.last_delta);
    // Each value moved at most once, from 0 to its final ±100.
    let decided = table
        .positions()
        .iter()
        .filter(|p| !p.is_over() && table.value(p) != Some(0.0))
        .count();
    assert_eq!(
        trace.iter().map(|s| s.changed_states).sum::<usize>(),
        decided
    );
    // Only the last sweep converges: every earlier one still changed something.
    assert!(trace[..trace.len() - 1].iter().all(|s| s.max_update > 0.0));
    // The same table and report as `solve`.
    let (plain, plain_report) = ValueTable::solve(Othello4::base3_key, &config).unwrap();
    assert_eq!(plain_report.sweeps, report.sweeps);
    assert_eq!(plain_report.start_value, report.start_value);
    assert_eq!(plain_report.states, report.states);
    for p in table.positions() {
        assert_eq!(plain.value(p), table.value(p));
    }
}

#[test]
fn the_number_of_sweeps_is_at_most_the_longest_game_plus_one() {
    let (table, trace) = solve_traced(&ValueIterationConfig::default());
    let mut memo = HashMap::new();
    let longest_game = longest(&Othello4::new(), &mut memo);
    // A position `h` plies from its farthest end is exact after `h` sweeps (synchronous sweeps
    // from zeros back the results up one ply each), so one more sweep finds nothing to change.
    assert!(
        trace.len() <= longest_game + 1,
        "{} sweeps, longest game {longest_game} plies",
        trace.len()
    );
    // The search for the longest game saw exactly the positions the table enumerated.
    assert_eq!(memo.len(), table.positions().len());
    eprintln!("{} sweeps, longest game {longest_game} plies", trace.len());
}

/// Solves with `config` and checks the trace and every value against the slow twin.
fn solve_like_the_twin(config: &ValueIterationConfig) -> (ValueTable<Othello4, u128>, Vec<Sweep>) {
    let (table, trace) = solve_traced(config);
    let (twin, values) = twin_trace(table.positions(), config.discount);
    let got: Vec<(f64, usize)> = trace
        .iter()
        .map(|s| (s.max_update, s.changed_states))
        .collect();
    assert_eq!(got, twin);
    for p in table.positions() {
        assert_eq!(table.value(p), Some(values[&p.base3_key()]), "{p}");
    }
    (table, trace)
}

#[test]
fn the_trace_matches_the_slow_twin() {
    solve_like_the_twin(&ValueIterationConfig::default());
}

#[test]
fn a_discount_matches_the_slow_twin_in_the_designs_form() {
    let (table, trace) = solve_like_the_twin(&ValueIterationConfig {
        discount: 0.9,
        tolerance: 1e-12,
        ..ValueIterationConfig::default()
    });
    // The game graph has no cycles, so the values are exact after finitely many sweeps whatever
    // the discount; the trace ends with a largest update of exactly 0.
    assert_eq!(trace.last().map(|s| s.max_update), Some(0.0));
    assert!(trace.iter().all(|s| s.max_update >= 0.0));
    // The design's form: the first sweep gives every position one move from its end the full
    // reward (an update of 100, not 90), and the start is worth -31.38 (the stonelab form of
    // earlier releases, γ·V(child) with finished games at ±100, gave 90 and -28.24).
    assert_eq!(trace[0].max_update, 100.0);
    let start = table.value(&Othello4::new()).unwrap();
    assert!((start - -31.38).abs() < 0.005, "{start}");
}

#[test]
fn under_a_discount_a_win_one_move_away_keeps_the_full_reward() {
    let (table, _) = solve_traced(&ValueIterationConfig {
        discount: 0.5,
        tolerance: 1e-12,
        ..ValueIterationConfig::default()
    });
    // A position whose every move ends the game is worth its best result, undiscounted (the
    // earlier form halved it).
    let mut last_moves = 0;
    for p in table.positions().iter().filter(|p| !p.is_over()) {
        let kids: Vec<Othello4> = p
            .legal_moves()
            .into_iter()
            .map(|mv| p.play_unchecked(mv))
            .collect();
        if kids.iter().all(Game::is_over) {
            let results = kids.iter().map(|k| table.value(k).unwrap());
            let best = if p.side_to_move() == Color::Black {
                results.fold(f64::NEG_INFINITY, f64::max)
            } else {
                results.fold(f64::INFINITY, f64::min)
            };
            assert!([100.0, 0.0, -100.0].contains(&best));
            assert_eq!(table.value(p), Some(best), "{p}");
            last_moves += 1;
        }
    }
    assert!(last_moves > 100, "{last_moves}");
}
