//! The endgame solver against outside truth (the FFO suite's exact scores) and against its slow
//! twin (plain negamax through the `Game` trait).

use game::{Game, Symmetry};
use othello::{Move, Othello, Othello6, Othello8};
use othello_engine::Solver;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// One FFO position: board, and every legal move with its exact score.
struct Ffo {
    number: usize,
    pos: Othello8,
    scores: Vec<(Move, i32)>,
}

/// The suite bundled with the crate (copied from the FFO `.obf` files; its scores are the
/// published exact ones).
fn ffo() -> Vec<Ffo> {
    othello_engine::obf::ffo_suite()
        .into_iter()
        .enumerate()
        .map(|(i, p)| Ffo {
            number: i + 1,
            pos: p.pos,
            scores: p.scores,
        })
        .collect()
}

fn check_ffo(range: std::ops::RangeInclusive<usize>) {
    let mut solver = Solver::<8>::new(22);
    let (mut nodes, mut time) = (0u64, 0.0);
    for case in ffo().into_iter().filter(|c| range.contains(&c.number)) {
        solver.clear();
        let s = solver.solve(&case.pos);
        let best = case.scores.iter().map(|s| s.1).max().unwrap();
        assert_eq!(s.score, best, "FFO #{} score", case.number);
        let mv = s.best.unwrap();
        let listed = case.scores.iter().find(|(m, _)| *m == mv).map(|s| s.1);
        assert_eq!(
            listed,
            Some(best),
            "FFO #{}: {mv} is not a best move",
            case.number
        );
        println!(
            "FFO #{:2}: {:+3} {mv}  {:>12} nodes {:>8.3} s",
            case.number,
            s.score,
            s.nodes,
            s.elapsed.as_secs_f64()
        );
        nodes += s.nodes;
        time += s.elapsed.as_secs_f64();
    }
    println!("total {nodes} nodes {time:.3} s");
}

#[test]
fn ffo_1_to_19_exact_scores_and_best_moves() {
    check_ffo(1..=19);
}

#[test]
#[ignore = "slow: minutes in release mode; also in `stonelab bench endgame`"]
fn ffo_20_to_39() {
    check_ffo(20..=39);
}

#[test]
#[ignore = "slow: long in release mode; also in `stonelab bench endgame`"]
fn ffo_40_to_49() {
    check_ffo(40..=49);
}

#[test]
#[ignore = "very slow: the hardest FFO positions (24-34 empties)"]
fn ffo_50_to_59() {
    check_ffo(50..=59);
}

/// The slow twin: negamax to the end through the Game trait.
fn negamax<G: Game>(pos: &G) -> i32 {
    if let Some(o) = pos.outcome() {
        return o.score_for(pos.side_to_move());
    }
    pos.legal_moves()
        .iter()
        .map(|&m| -negamax(&pos.play_unchecked(m)))
        .max()
        .unwrap_or(0)
}

fn random_endgames<const N: usize>(count: usize, empties: u32, seed: u64) -> Vec<Othello<N>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Othello::<N>::new();
        while !pos.is_over() && pos.empty().count_ones() > empties {
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if !pos.is_over() {
            out.push(pos);
        }
    }
    out
}

#[test]
fn solver_equals_plain_negamax_on_random_endgames() {
    let mut solver = Solver::<8>::new(16);
    for empties in [1, 2, 3, 4, 5, 6, 7, 8, 9] {
        for pos in random_endgames::<8>(30, empties, u64::from(empties)) {
            let exact = negamax(&pos);
            let s = solver.solve(&pos);
            assert_eq!(s.score, exact, "{pos}");
            let mv = s.best.unwrap();
            assert_eq!(
                -negamax(&pos.play(mv).unwrap()),
                exact,
                "{pos}: {mv} is not best"
            );
            // The printed line, played out to the end, reaches the exact score.
            let mut end = pos;
            for &m in &s.pv {
                end = end
                    .play(m)
                    .unwrap_or_else(|e| panic!("{pos}: line {:?}: {e}", s.pv));
            }
            if let Some(o) = end.outcome() {
                assert_eq!(
                    o.score_for(pos.side_to_move()),
                    exact,
                    "{pos}: line {:?}",
                    s.pv
                );
            }
            assert_eq!(
                solver.solve_pvs(&pos).score,
                exact,
                "{pos}: full-window root"
            );
            let wld = solver.solve_wld(&pos).score;
            assert_eq!(wld.signum(), exact.signum(), "{pos}: win/loss/draw");
            // A guess anywhere (right, near, far, off the scale) gives the same exact score,
            // from a cleared table and from a warm one.
            for guess in [exact, exact + 2, exact - 6, 64, -64, 1, 99, -99] {
                solver.clear();
                assert_eq!(
                    solver.solve_near(&pos, guess).score,
                    exact,
                    "{pos}, {guess}"
                );
                assert_eq!(
                    solver.solve_near(&pos, -guess).score,
                    exact,
                    "{pos}, {guess}"
                );
            }
        }
    }
    let mut solver6 = Solver::<6>::new(16);
    for pos in random_endgames::<6>(40, 10, 66) {
        assert_eq!(solver6.solve(&pos).score, negamax(&pos), "{pos}");
    }
    let mut solver4 = Solver::<4>::new(12);
    for pos in random_endgames::<4>(40, 12, 44) {
        assert_eq!(solver4.solve(&pos).score, negamax(&pos), "{pos}");
    }
}

#[test]
fn the_eight_symmetries_solve_to_the_same_score() {
    let cases = ffo();
    let mut solver = Solver::<8>::new(20);
    for case in cases.iter().filter(|c| [1, 3, 7, 12].contains(&c.number)) {
        let scores: Vec<i32> = Symmetry::ALL
            .iter()
            .map(|&s| solver.solve(&case.pos.transform(s)).score)
            .collect();
        assert!(
            scores.iter().all(|&s| s == scores[0]),
            "FFO #{}: {scores:?}",
            case.number
        );
    }
    for pos in random_endgames::<6>(5, 14, 6) {
        let scores: Vec<i32> = Symmetry::ALL
            .iter()
            .map(|&s| solver6(&pos.transform(s)))
            .collect();
        assert!(scores.iter().all(|&s| s == scores[0]), "{pos}: {scores:?}");
    }
}

fn solver6(pos: &Othello6) -> i32 {
    Solver::<6>::new(14).solve(pos).score
}

/// A solve that runs out of nodes or time gives up (`None`) without storing anything false:
/// the same solver then finds every exact score, and a limit large enough changes nothing.
#[test]
fn a_limited_solve_gives_up_and_leaves_its_table_sound() {
    use othello_engine::SolveLimit;
    use std::time::{Duration, Instant};
    for case in ffo().into_iter().filter(|c| (20..=29).contains(&c.number)) {
        let best = case.scores.iter().map(|s| s.1).max().unwrap();
        let mut full = Solver::<8>::new(20);
        let whole = full.solve(&case.pos);
        let mut solver = Solver::<8>::new(20);
        // Cut at several points of the search, each time from what the last cut left.
        for share in [8, 4, 2] {
            let limit = SolveLimit::nodes(whole.nodes / share);
            if whole.nodes / share > 10_000 {
                assert_eq!(
                    solver.solve_limited(&case.pos, &limit),
                    None,
                    "FFO #{}: {} of {} nodes",
                    case.number,
                    whole.nodes / share,
                    whole.nodes
                );
            }
        }
        let s = solver.solve(&case.pos);
        assert_eq!(s.score, best, "FFO #{} after giving up", case.number);
        let mut fresh = Solver::<8>::new(20);
        let limited = fresh
            .solve_limited(&case.pos, &SolveLimit::nodes(whole.nodes))
            .expect("enough nodes");
        assert_eq!(
            (limited.score, limited.best, limited.nodes),
            (whole.score, whole.best, whole.nodes),
            "FFO #{}: a limit that does not bind changes the search",
            case.number
        );
    }
    // A deadline: a position far beyond reach gives up about on time.
    let hard = &ffo()[49]; // FFO #50, 26 empties: about 90 s in release mode
    let mut solver = Solver::<8>::new(20);
    let started = Instant::now();
    let limit = SolveLimit::time(Duration::from_millis(100));
    assert_eq!(solver.solve_limited(&hard.pos, &limit), None);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// The learned ordering (used from 16 empties) changes which moves are tried first, never the
/// answer: the same exact scores as the solver without it, and a best move that reaches them.
#[test]
fn learned_ordering_keeps_scores_exact() {
    let eval = othello_engine::pattern::bundled();
    let mut plain = Solver::<8>::new(18);
    let mut learned = Solver::<8>::new(18).with_evaluation(eval);
    for empties in [16, 17, 18, 19, 20] {
        for pos in random_endgames::<8>(4, empties, 100 + u64::from(empties)) {
            let a = plain.solve(&pos);
            let b = learned.solve(&pos);
            assert_eq!(a.score, b.score, "{pos}");
            let mv = b.best.unwrap();
            let after = plain.solve(&pos.play(mv).unwrap());
            assert_eq!(-after.score, a.score, "{pos}: {mv} is not best");
        }
    }
}

/// A parallel solve (young brothers wait on 2 and 3 threads) finds the serial solver's exact
/// scores and a move that keeps them, on random endgames and the FFO positions #20-#29;
/// a time-limited parallel solve either gives up or is exact.
#[test]
fn parallel_solves_are_exact() {
    let eval = othello_engine::pattern::bundled();
    let mut serial = Solver::<8>::new(18);
    for threads in [2, 3] {
        let mut parallel = Solver::<8>::new(18)
            .with_evaluation(eval.clone())
            .with_threads(threads);
        let mut positions = Vec::new();
        for empties in [13, 15, 17, 19] {
            positions.extend(random_endgames::<8>(3, empties, 200 + u64::from(empties)));
        }
        positions.extend(
            othello_engine::obf::ffo_suite()[19..29]
                .iter()
                .map(|p| p.pos),
        );
        for pos in positions {
            let want = serial.solve(&pos).score;
            let got = parallel.solve(&pos);
            assert_eq!(got.score, want, "{threads} threads: {pos}");
            let mv = got.best.unwrap();
            assert_eq!(
                -serial.solve(&pos.play(mv).unwrap()).score,
                want,
                "{threads} threads: {pos}: {mv} is not best"
            );
            parallel.clear();
            let limited = parallel.solve_limited(
                &pos,
                &othello_engine::SolveLimit::time(std::time::Duration::from_millis(2)),
            );
            if let Some(s) = limited {
                assert_eq!(s.score, want, "{threads} threads, limited: {pos}");
            }
        }
    }
}

/// From 26 empties the first guess is a midgame search, which a parallel solver runs on its
/// own threads: FFO #39 (26 empties) on 1 and 2 threads gives the listed score and a listed
/// best move.
#[test]
fn solves_guessing_with_the_midgame_search_are_exact_on_any_threads() {
    let eval = othello_engine::pattern::bundled();
    let case = &ffo()[38];
    assert_eq!(case.pos.empty().count_ones(), 26);
    let best = case.scores.iter().map(|s| s.1).max().unwrap();
    for threads in [1, 2] {
        let mut solver = Solver::<8>::new(18)
            .with_evaluation(eval.clone())
            .with_threads(threads);
        let s = solver.solve(&case.pos);
        assert_eq!(s.score, best, "{threads} threads");
        let mv = s.best.unwrap();
        assert!(
            case.scores.iter().any(|&(m, v)| m == mv && v == best),
            "{threads} threads: {mv} is not a best move"
        );
    }
}
