//! Value iteration over every reachable 4x4 position, checked against the exact solver.

use std::sync::Arc;

use game::{Color, Game};
use othello::Othello4;
use othello_engine::Solver;
use search::{Agent, Budget, DpAgent, ValueIterationConfig, ValueTable};

#[test]
fn dp_plays_perfectly_at_every_reachable_4x4_position() {
    let (table, report) =
        ValueTable::<Othello4, u128>::solve(Othello4::base3_key, &ValueIterationConfig::default())
            .unwrap();
    assert!(report.states > 1000 && report.terminal > 0);
    // The solver's exact result decides the sign of every value.
    let mut solver = Solver::<4>::new(16);
    let start_exact = solver.solve(&Othello4::new()).score;
    assert!(start_exact < 0, "white wins 4x4");
    assert_eq!(report.start_value, -100.0);
    let table = Arc::new(table);
    let mut agent = DpAgent::new(Arc::clone(&table));
    let mut checked = 0;
    for pos in table.positions() {
        let exact = if pos.is_over() {
            pos.outcome().unwrap().score_for(pos.side_to_move())
        } else {
            solver.solve(pos).score
        };
        // Values are black's: +100 win, 0 draw, -100 loss under perfect play.
        let black_exact = if pos.side_to_move() == Color::Black {
            exact
        } else {
            -exact
        };
        assert_eq!(
            table.value(pos),
            Some(100.0 * f64::from(black_exact.signum())),
            "{pos}"
        );
        if pos.is_over() {
            continue;
        }
        let mv = agent.select(pos, &Budget::default()).unwrap().mv;
        let after = pos.play(mv).unwrap();
        let got = if after.is_over() {
            after.outcome().unwrap().score_for(pos.side_to_move())
        } else {
            -solver.solve(&after).score
        };
        assert_eq!(got.signum(), exact.signum(), "{pos}: dp plays {mv}");
        checked += 1;
    }
    assert!(checked > 1000);
}
