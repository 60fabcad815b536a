//! The bounded endgame handover of `SolverAgent`: above the exact zone, a node-bounded exact
//! solve plays the solver's move when it finishes, a win/loss/draw solve plays a move that
//! keeps the proven result when only that finishes, and otherwise (or further from the end,
//! or with no nodes to spend) the midgame decides exactly as it would alone.

use std::sync::Arc;

use game::Game;
use othello::Othello8;
use othello_engine::midgame::MidgameAgent;
use othello_engine::pattern::bundled;
use othello_engine::{SolveLimit, Solver, SolverAgent};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::{Agent, Budget, Score, ScoreScale};

fn with_empties(rng: &mut ChaCha8Rng, empties: u32) -> Option<Othello8> {
    let mut pos = Othello8::new();
    while pos.empty().count_ones() > empties {
        if pos.is_over() {
            return None;
        }
        let moves = pos.legal_moves();
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    (pos.empty().count_ones() == empties && !pos.is_over() && pos.legal_moves().len() >= 2)
        .then_some(pos)
}

fn midgame() -> Box<dyn Agent<Othello8>> {
    Box::new(MidgameAgent::new(Arc::clone(&bundled()), 3, None))
}

fn agent(extra: u32, nodes: u64) -> SolverAgent<8> {
    SolverAgent::<8>::with_midgame(18, None, midgame()).with_bounded_handover(extra, nodes)
}

fn proven(decision: &search::Decision<othello::Move>) -> Option<i32> {
    match Score::from_raw(decision.score?, ScoreScale::Centi) {
        Score::Proven { margin } => Some(margin),
        _ => None,
    }
}

/// The exact score of the position after `mv`, from the mover's side.
fn after(pos: &Othello8, mv: othello::Move) -> i32 {
    -Solver::<8>::new(20).solve(&pos.play_unchecked(mv)).score
}

#[test]
fn a_finished_exact_solve_plays_the_solvers_move_and_score() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut checked = 0;
    while checked < 12 {
        let empties = 19 + checked % 2;
        let Some(pos) = with_empties(&mut rng, empties) else {
            continue;
        };
        let exact = Solver::<8>::new(20).solve(&pos);
        let d = agent(2, 1 << 26)
            .select(&pos, &Budget::default())
            .expect("a move");
        assert_eq!(proven(&d), Some(exact.score), "{}", pos.board_string());
        assert_eq!(after(&pos, d.mv), exact.score, "{}", pos.board_string());
        checked += 1;
    }
}

#[test]
fn without_nodes_or_beyond_its_reach_the_midgame_decides() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut checked = 0;
    while checked < 8 {
        let empties = [19, 20, 21, 24][checked % 4];
        let Some(pos) = with_empties(&mut rng, empties) else {
            continue;
        };
        let alone = midgame().select(&pos, &Budget::default()).expect("a move");
        // No nodes to spend: no handover at all; 21 empties and more: beyond its reach.
        let mut cases = vec![agent(2, 0), agent(0, 1 << 20)];
        if empties > 20 {
            cases.push(agent(2, 1 << 26));
        }
        for mut a in cases {
            let d = a.select(&pos, &Budget::default()).expect("a move");
            assert_eq!(
                (d.mv, d.score),
                (alone.mv, alone.score),
                "{}",
                pos.board_string()
            );
        }
        checked += 1;
    }
}

/// Where the exact solve runs out of nodes but the win/loss/draw solve proves a win or a draw,
/// its move keeps that result; where it proves a loss, the midgame decides.
#[test]
fn a_win_loss_draw_solve_alone_plays_a_move_that_keeps_its_result() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut kept, mut left) = (0, 0);
    let mut tries = 0;
    while (kept < 3 || left < 2) && tries < 400 {
        tries += 1;
        let Some(pos) = with_empties(&mut rng, 20) else {
            continue;
        };
        // The agent's own solver (evaluation-ordered, 2^22 entries), in the agent's order: the
        // exact solve first, which must run out, then the win/loss/draw solve, which must not.
        let nodes = 1 << 13;
        let mut solver = Solver::<8>::new(22).with_evaluation(bundled());
        if solver
            .solve_limited(&pos, &SolveLimit::nodes(nodes))
            .is_some()
        {
            continue;
        }
        let Some(wld) = solver.solve_window_limited(&pos, -1, 1, &SolveLimit::nodes(nodes)) else {
            continue;
        };
        let exact = Solver::<8>::new(20).solve(&pos).score;
        assert_eq!(wld.score.signum(), exact.signum(), "{}", pos.board_string());
        let d = agent(2, nodes)
            .select(&pos, &Budget::default())
            .expect("a move");
        if exact >= 0 {
            let margin = proven(&d).expect("a proven result");
            assert_eq!(margin.signum(), exact.signum(), "{}", pos.board_string());
            assert_eq!(
                after(&pos, d.mv).signum(),
                exact.signum(),
                "{}",
                pos.board_string()
            );
            kept += 1;
        } else {
            let alone = midgame().select(&pos, &Budget::default()).expect("a move");
            assert_eq!(
                (d.mv, d.score),
                (alone.mv, alone.score),
                "{}",
                pos.board_string()
            );
            left += 1;
        }
    }
    assert!(
        kept >= 3 && left >= 2,
        "{kept} kept, {left} left in {tries} tries"
    );
}
