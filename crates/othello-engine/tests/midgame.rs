//! The midgame search against its slow twin: plain negamax over the same evaluation (no table,
//! no ordering, no windows) gives the same root score at every depth, and a search that reaches
//! the end gives the exact solver's score.

use std::sync::Arc;

use game::Game;
use othello::{Move, Othello8};
use othello_engine::correction::CorrectionNet;
use othello_engine::midgame::Midgame;
use othello_engine::pattern::{bundled, PatternEval};
use othello_engine::Solver;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn margin(pos: &Othello8) -> i32 {
    let (p, o) = (
        pos.player().count_ones() as i32,
        pos.opponent().count_ones() as i32,
    );
    let empty = 64 - p - o;
    match p.cmp(&o) {
        std::cmp::Ordering::Greater => p - o + empty,
        std::cmp::Ordering::Less => p - o - empty,
        std::cmp::Ordering::Equal => 0,
    }
}

/// Plain negamax: passes cost no depth, the end scores its margin, leaves their evaluation.
fn negamax(eval: &PatternEval, pos: &Othello8, depth: u32) -> i32 {
    negamax_with(eval, None, pos, depth)
}

/// [`negamax`] with the correction network's term added at the leaves, as the searcher does.
fn negamax_with(
    eval: &PatternEval,
    net: Option<&CorrectionNet>,
    pos: &Othello8,
    depth: u32,
) -> i32 {
    if pos.is_over() {
        return margin(pos) * eval.scale();
    }
    if depth == 0 {
        let limit = 64 * eval.scale() - 1;
        let (p, o) = (pos.player(), pos.opponent());
        let mut value = eval.evaluate_position(p, o);
        if let Some(net) = net {
            let s = eval.scale() as f32;
            value += (net.correction(p, o, value as f32 / s) * s).round() as i32;
        }
        return value.clamp(-limit, limit);
    }
    let moves = pos.legal_moves();
    if moves == [Move::Pass] {
        return -negamax_with(eval, net, &pos.play_unchecked(Move::Pass), depth);
    }
    moves
        .iter()
        .map(|&mv| -negamax_with(eval, net, &pos.play_unchecked(mv), depth - 1))
        .max()
        .unwrap_or(0)
}

fn random_position(rng: &mut ChaCha8Rng, plies: usize) -> Option<Othello8> {
    let mut pos = Othello8::new();
    for _ in 0..plies {
        if pos.is_over() {
            return None;
        }
        let moves = pos.legal_moves();
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    (!pos.is_over()).then_some(pos)
}

#[test]
fn search_scores_equal_plain_negamax() {
    let eval: Arc<PatternEval> = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut checked = 0;
    while checked < 40 {
        let plies = rng.random_range(4..54);
        let Some(pos) = random_position(&mut rng, plies) else {
            continue;
        };
        let depth = if plies > 48 { 5 } else { 1 + checked % 4 };
        let mut search = Midgame::new(eval.clone(), 16);
        let r = search.search(&pos, depth, None, None);
        let expected = negamax(&eval, &pos, depth);
        assert_eq!(r.score, expected, "depth {depth}, {}", pos.board_string());
        // The move played scores what the search says.
        if let Some(mv) = r.best {
            assert_eq!(
                -negamax(&eval, &pos.play_unchecked(mv), depth - 1),
                expected,
                "the best move of {}",
                pos.board_string()
            );
        }
        checked += 1;
    }
}

/// With the correction network the search still scores what plain negamax over the corrected
/// evaluation scores (its leaves, those evaluated without making the child included), and the
/// network changes the scores.
#[test]
fn search_with_the_correction_scores_equal_plain_negamax() {
    let eval: Arc<PatternEval> = bundled();
    let net = othello_engine::correction::bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut checked, mut changed) = (0, 0);
    while checked < 30 {
        let plies = rng.random_range(4..54);
        let Some(pos) = random_position(&mut rng, plies) else {
            continue;
        };
        let depth = if plies > 48 { 5 } else { 1 + checked % 4 };
        let mut search = Midgame::new(eval.clone(), 16).with_correction(Some(net.clone()));
        let r = search.search(&pos, depth, None, None);
        let expected = negamax_with(&eval, Some(&net), &pos, depth);
        assert_eq!(r.score, expected, "depth {depth}, {}", pos.board_string());
        if let Some(mv) = r.best {
            assert_eq!(
                -negamax_with(&eval, Some(&net), &pos.play_unchecked(mv), depth - 1),
                expected,
                "the best move of {}",
                pos.board_string()
            );
        }
        changed += usize::from(expected != negamax(&eval, &pos, depth));
        checked += 1;
    }
    assert!(
        changed > 20,
        "the network changed only {changed} of 30 scores"
    );
}

/// The analysis scores every legal move as plain negamax scores the position after it, all at
/// the analysed depth, best first (the first line the search's own score).
#[test]
fn analysis_scores_every_move_at_one_depth_like_plain_negamax() {
    let eval: Arc<PatternEval> = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut checked = 0;
    while checked < 16 {
        let plies = rng.random_range(4..50);
        let Some(pos) = random_position(&mut rng, plies) else {
            continue;
        };
        if pos.legal_moves() == [Move::Pass] {
            continue;
        }
        let depth = 1 + checked % 4;
        let mut search = Midgame::new(eval.clone(), 16);
        let lines = search.analyse(&pos, depth, None, None);
        let mut moves: Vec<Move> = lines.iter().map(|l| l.mv).collect();
        let mut legal = pos.legal_moves();
        moves.sort();
        legal.sort();
        assert_eq!(moves, legal, "{}", pos.board_string());
        assert!(
            lines.windows(2).all(|w| w[0].score >= w[1].score),
            "best first"
        );
        assert_eq!(lines[0].score, negamax(&eval, &pos, depth));
        for line in &lines {
            assert_eq!(line.depth, depth);
            assert_eq!(line.pv.first(), Some(&line.mv));
            let after = pos.play_unchecked(line.mv);
            assert_eq!(
                line.score,
                -negamax(&eval, &after, depth - 1),
                "{} at depth {depth} in {}",
                line.mv,
                pos.board_string()
            );
        }
        checked += 1;
    }
}

/// The four first moves are one move up to symmetry: the analysis scores them alike, and under
/// a clock every line still comes from one depth.
#[test]
fn analysis_scores_symmetric_moves_alike() {
    let eval = bundled();
    let start = Othello8::new();
    let mut search = Midgame::new(eval.clone(), 16);
    let lines = search.analyse(&start, 6, None, None);
    assert_eq!(lines.len(), 4);
    assert!(
        lines
            .iter()
            .all(|l| l.score == lines[0].score && l.depth == 6),
        "{lines:?}"
    );
    let mut search = Midgame::new(eval, 16);
    let lines = search.analyse(&start, 60, Some(std::time::Duration::from_millis(30)), None);
    assert_eq!(lines.len(), 4);
    assert!(lines[0].depth >= 1);
    assert!(
        lines
            .iter()
            .all(|l| l.score == lines[0].score && l.depth == lines[0].depth),
        "{lines:?}"
    );
    // A side that must pass gets the pass alone (the first such position of seeded random
    // games).
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut found = None;
    'games: for _ in 0..10_000 {
        let mut pos = Othello8::new();
        while !pos.is_over() {
            let moves = pos.legal_moves();
            if moves == [Move::Pass] {
                found = Some(pos);
                break 'games;
            }
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
    }
    let pos = found.expect("random games reach a pass");
    let mut search = Midgame::new(bundled(), 16);
    let lines = search.analyse(&pos, 4, None, None);
    assert_eq!(lines.iter().map(|l| l.mv).collect::<Vec<_>>(), [Move::Pass]);
}

#[test]
fn a_search_to_the_end_is_exact() {
    let eval = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut checked = 0;
    while checked < 20 {
        let Some(pos) = random_position(&mut rng, 48) else {
            continue;
        };
        let mut search = Midgame::new(eval.clone(), 16);
        let r = search.search(&pos, 20, None, None);
        let exact = Solver::<8>::new(16).solve(&pos).score;
        assert!(r.exact);
        assert_eq!(r.score, exact * eval.scale(), "{}", pos.board_string());
        checked += 1;
    }
}

#[test]
fn parallel_searches_agree_where_the_answer_is_unique() {
    let eval = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut checked = 0;
    while checked < 10 {
        let Some(pos) = random_position(&mut rng, 46) else {
            continue;
        };
        // To the end: the exact score, whatever the threads do.
        let mut search = Midgame::new(eval.clone(), 16);
        let r = search.search_threads(&pos, 30, None, None, 3);
        assert!(r.exact);
        assert_eq!(
            r.score,
            Solver::<8>::new(16).solve(&pos).score * eval.scale()
        );
        // A midgame depth: a legal move, nodes counted over every thread.
        let Some(mid) = random_position(&mut rng, 20) else {
            continue;
        };
        let one = Midgame::new(eval.clone(), 16).search(&mid, 5, None, None);
        let two = Midgame::new(eval.clone(), 16).search_threads(&mid, 5, None, None, 2);
        let mv = two.best.expect("a move");
        assert!(mid.legal_moves().contains(&mv));
        assert!(two.nodes > 0 && one.nodes > 0);
        checked += 1;
    }
}

/// Young brothers wait (depth 6: the root's children split from depth 5) finds plain negamax's
/// root score on 2 and 3 threads, as the serial search does.
#[test]
fn parallel_search_scores_equal_plain_negamax() {
    let eval: Arc<PatternEval> = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut checked = 0;
    while checked < 4 {
        let plies = rng.random_range(14..30);
        let Some(pos) = random_position(&mut rng, plies) else {
            continue;
        };
        let expected = negamax(&eval, &pos, 6);
        for threads in [2, 3] {
            let r = Midgame::new(eval.clone(), 16).search_threads(&pos, 6, None, None, threads);
            assert_eq!(
                r.score,
                expected,
                "{threads} threads, {}",
                pos.board_string()
            );
        }
        checked += 1;
    }
}

/// With the bundled correction network the search scores the 8 images of a position alike
/// (the evaluation is symmetric, the network reads canonical images), whatever order its
/// moves are tried in.
#[test]
fn the_corrected_search_scores_the_eight_images_of_a_position_alike() {
    let eval: Arc<PatternEval> = bundled();
    let net = othello_engine::correction::bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut checked = 0;
    while checked < 12 {
        let plies = rng.random_range(2..50);
        let Some(pos) = random_position(&mut rng, plies) else {
            continue;
        };
        let depth = 1 + checked % 4;
        let scores: Vec<i32> = (0..8u8)
            .map(|s| {
                let image = Othello8::from_bitboards(
                    othello_engine::book::transform(pos.discs(game::Color::Black), s),
                    othello_engine::book::transform(pos.discs(game::Color::White), s),
                    pos.side_to_move(),
                )
                .expect("an image of a position is a position");
                let mut search = Midgame::new(eval.clone(), 16).with_correction(Some(net.clone()));
                search.search(&image, depth, None, None).score
            })
            .collect();
        assert!(
            scores.iter().all(|&s| s == scores[0]),
            "depth {depth}: {scores:?} on the images of {}",
            pos.board_string()
        );
        checked += 1;
    }
}

/// What the app's analysis and its Hint show agree when both search the same position to the
/// same depth with the engine's own settings (Multi-ProbCut, the correction network): the Hint's
/// move is one the analysis ranks best, with the analysis' best score.
#[test]
fn analysis_and_the_chosen_move_agree_at_one_depth() {
    use search::Agent;
    let eval: Arc<PatternEval> = bundled();
    let net = othello_engine::correction::bundled();
    let probcut = othello_engine::midgame::bundled_probcut();
    let make = || {
        othello_engine::midgame::MidgameAgent::new(eval.clone(), 60, None)
            .with_correction(Some(net.clone()))
            .with_probcut(probcut.clone(), 1.5)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut checked = 0;
    let mut start = vec![Othello8::new()];
    // The position of the outside tester's report, then random ones.
    let reported = "f5d6c3d3c4f4f6f3e6e7"
        .as_bytes()
        .chunks(2)
        .map(|c| std::str::from_utf8(c).unwrap().parse::<Move>().unwrap())
        .fold(Othello8::new(), |p, m| p.play(m).unwrap());
    start.push(reported);
    while checked < 10 {
        let pos = match start.pop() {
            Some(p) => p,
            None => {
                let plies = rng.random_range(6..40);
                let Some(p) = random_position(&mut rng, plies) else {
                    continue;
                };
                p
            }
        };
        if pos.legal_moves().len() < 2 {
            continue;
        }
        let depth = 4 + checked % 4;
        let budget = search::Budget::depth(depth);
        let chosen = make().select(&pos, &budget).unwrap();
        let lines = search::analysis::multi_pv(&mut make(), &pos, &budget, &budget, 60).unwrap();
        let best = lines[0].raw;
        assert_eq!(
            chosen.score,
            best,
            "depth {depth} on {}",
            pos.board_string()
        );
        let tied: Vec<Move> = lines
            .iter()
            .filter(|l| l.raw == best)
            .map(|l| l.mv)
            .collect();
        assert!(
            tied.contains(&chosen.mv),
            "depth {depth}: chose {} ({:?}), the analysis ranks {tied:?} best on {}",
            chosen.mv,
            chosen.score,
            pos.board_string()
        );
        checked += 1;
    }
}
