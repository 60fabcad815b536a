//! Pattern training against known answers: a stage fit recovers an evaluation it was shown
//! exactly, labels near the end are the solver's, samples survive their file form, and the
//! Multi-ProbCut fit finds a line it was given.

use game::{Color, Game};
use othello::Othello8;
use othello_engine::midgame::ProbCut;
use othello_engine::pattern::{Layout, PatternEval, PatternWeights};
use othello_engine::train::{
    deviations, fit_probcut, fit_stage, label_game, quantize, search_labels, FitConfig,
    ProbCutPair, Sample, SAMPLE_LEN,
};
use othello_engine::Solver;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn random_game(rng: &mut ChaCha8Rng) -> Vec<Othello8> {
    let mut pos = Othello8::new();
    let mut line = vec![pos];
    while !pos.is_over() {
        let moves = pos.legal_moves();
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        line.push(pos);
    }
    line
}

#[test]
fn a_stage_fit_recovers_an_evaluation_it_was_shown() {
    for layout in [Layout::Patterns, Layout::EdgeMobility] {
        stage_fit_recovers(layout);
    }
}

fn stage_fit_recovers(layout: Layout) {
    // A hidden evaluation: random weights on one stage; targets are its values (rounded to
    // discs, like real labels). The fit must predict the targets far better than their spread.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut hidden = PatternWeights::zeros_for(layout, 61, 64).expect("one stage");
    for w in &mut hidden.weights {
        *w = rng.random_range(-64..=64);
    }
    let eval = PatternEval::new(&hidden);
    let mut samples = Vec::new();
    while samples.len() < 20_000 {
        for pos in random_game(&mut rng) {
            if pos.is_over() || pos.moves() == 0 {
                continue;
            }
            let v = eval.evaluate_position(pos.player(), pos.opponent()) / 64;
            samples.push(Sample {
                player: pos.player(),
                opponent: pos.opponent(),
                score: v.clamp(-64, 64) as i8,
                exact: false,
                test: false,
                search: false,
            });
        }
    }
    let spread = samples
        .iter()
        .map(|s| f64::from(s.score).abs())
        .sum::<f64>()
        / samples.len() as f64;
    let fit = fit_stage(
        &samples,
        &FitConfig {
            lambda: 0.01,
            lambda_globals: 0.01,
            iterations: 500,
            tolerance: 1e-8,
            layout,
        },
    );
    assert_eq!(fit.weights.len(), layout.stage_len());
    let mut learned = PatternWeights::zeros_for(layout, 61, 64).expect("one stage");
    quantize(&fit.weights, 64, 0, &mut learned);
    let learned = PatternEval::new(&learned);
    let error = samples
        .iter()
        .map(|s| {
            (f64::from(learned.evaluate_position(s.player, s.opponent)) / 64.0 - f64::from(s.score))
                .abs()
        })
        .sum::<f64>()
        / samples.len() as f64;
    assert!(
        error < spread / 10.0,
        "{layout:?}: fit error {error:.2} discs against a spread of {spread:.2}"
    );
}

#[test]
fn labels_near_the_end_are_exact_and_the_rest_follow_the_result() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut solver = Solver::<8>::new(16);
    for _ in 0..5 {
        let line = random_game(&mut rng);
        let black = 12;
        let samples = label_game(&line, black, 10, true, &mut solver);
        let playable: Vec<&Othello8> = line
            .iter()
            .filter(|p| !p.is_over() && p.moves() != 0)
            .collect();
        assert_eq!(samples.len(), playable.len());
        for (s, pos) in samples.iter().zip(playable) {
            assert_eq!((s.player, s.opponent), (pos.player(), pos.opponent()));
            assert!(s.test);
            if pos.empty().count_ones() <= 10 {
                assert!(s.exact);
                assert_eq!(i32::from(s.score), Solver::<8>::new(16).solve(pos).score);
            } else {
                assert!(!s.exact);
                let mine = if pos.side_to_move() == Color::Black {
                    black
                } else {
                    -black
                };
                assert_eq!(i32::from(s.score), mine);
            }
        }
    }
}

/// The fully solved games are a seeded draw of the asked share, independent of the held-out
/// split; the labeller solves those through the whole zone, the others to `rest`, and leaves
/// out the others' positions between the two, so every label kept within the zone is exact.
/// Its output is checked against labelling each game alone (the slow twin).
#[test]
fn a_fraction_of_the_games_is_solved_through_the_zone_and_the_rest_is_cut() {
    use othello_engine::train::{fully_solved, held_out, label_wthor, wthor_margin, ExactZone};
    let n = 20_000u64;
    let picked: Vec<u64> = (0..n).filter(|&i| fully_solved(5, i, 0.25)).collect();
    let share = picked.len() as f64 / n as f64;
    assert!((0.23..0.27).contains(&share), "{share}");
    let held = picked.iter().filter(|&&i| held_out(5, i)).count() as f64 / picked.len() as f64;
    assert!(
        (0.08..0.12).contains(&held),
        "held out among the picked: {held}"
    );
    let other_seed = (0..n).filter(|&i| fully_solved(6, i, 0.25)).count();
    assert_ne!(picked.len(), other_seed, "the seed changes the draw");
    assert!((0..1000).all(|i| fully_solved(5, i, 1.0)));
    assert!((0..1000).all(|i| !fully_solved(5, i, 0.0)));

    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/othello/wthor/WTH_2015.wtb"
    ))
    .expect("the bundled WTHOR file");
    let games = &othello::wthor::parse_games(&bytes)
        .expect("it parses")
        .games[..24];
    let zone = ExactZone {
        empties: 12,
        fraction: 0.5,
        rest: 8,
    };
    let (seed, first) = (3, 100);
    let (samples, skipped) = label_wthor(games, first, zone, seed, &|| {});
    assert_eq!(skipped, 0);
    let mut expected = Vec::new();
    let mut solver = Solver::<8>::new(16);
    let mut cut_games = 0;
    for (k, game) in games.iter().enumerate() {
        let index = first + k as u64;
        let full = fully_solved(seed, index, zone.fraction);
        let replay = game.replay().expect("it replays");
        let exact = if full { zone.empties } else { zone.rest };
        let labelled = label_game(
            replay.positions(),
            wthor_margin(game),
            exact,
            held_out(seed, index),
            &mut solver,
        );
        let before = labelled.len();
        let kept: Vec<Sample> = labelled
            .into_iter()
            .filter(|s| full || !(9..=12).contains(&s.empties()))
            .collect();
        if !full {
            assert!(kept.len() < before, "game {index} reaches 9-12 empties");
            cut_games += 1;
        }
        expected.extend(kept);
    }
    assert!((4..=20).contains(&cut_games), "{cut_games} of 24 games cut");
    assert_eq!(samples, expected);
    for s in &samples {
        assert_eq!(s.exact, s.empties() <= 12, "{s:?}");
    }
    // Every game solved through the zone: the plain labeller's output, nothing left out.
    let (all, _) = label_wthor(games, first, ExactZone::all(12), seed, &|| {});
    assert_eq!(
        all.iter().filter(|s| s.exact).count(),
        all.iter().filter(|s| s.empties() <= 12).count()
    );
    assert!(all.len() > samples.len());
}

#[test]
fn search_labels_replace_only_the_game_results_and_ignore_the_thread_count() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut solver = Solver::<8>::new(16);
    let mut samples = Vec::new();
    for _ in 0..6 {
        samples.extend(label_game(
            &random_game(&mut rng),
            -8,
            8,
            false,
            &mut solver,
        ));
    }
    let eval = othello_engine::pattern::bundled();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool")
            .install(|| search_labels(&eval, &samples, 8, 3, None, &|| {}))
    };
    let one = run(1);
    assert_eq!(one, run(3), "labels depend on the thread count");
    assert_eq!(one.len(), samples.len());
    for (new, old) in one.iter().zip(&samples) {
        assert_eq!(
            (new.player, new.opponent, new.test),
            (old.player, old.opponent, old.test)
        );
        if old.exact {
            assert_eq!(new, old, "an exact label changed");
        } else {
            assert!(new.search || new.exact, "{new:?}");
        }
    }
    // The first position of a game is searched from a cleared table: its label is a fresh
    // 3-ply search's score, rounded to discs.
    let first = Othello8::from_bitboards(samples[0].player, samples[0].opponent, Color::Black)
        .expect("a position");
    let mut search = othello_engine::midgame::Midgame::new(eval.clone(), 16);
    let fresh = search.search(&first, 3, None, None).score;
    let discs = (f64::from(fresh) / f64::from(search.scale())).round() as i32;
    assert_eq!(i32::from(one[0].score), discs.clamp(-64, 64));
    assert!(
        one.iter().zip(&samples).any(|(a, b)| a.score != b.score),
        "no label moved"
    );
}

#[test]
fn deviations_are_legal_children_drawn_by_the_seed() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut solver = Solver::<8>::new(16);
    let mut samples = Vec::new();
    for g in 0..8 {
        samples.extend(label_game(
            &random_game(&mut rng),
            4,
            8,
            g % 3 == 0,
            &mut solver,
        ));
    }
    // Every child any eligible position could give, with the parent's held-out flag.
    let mut possible = std::collections::HashSet::new();
    let mut eligible = 0;
    for s in &samples {
        if s.empties() <= 9 {
            continue;
        }
        let pos = Othello8::from_bitboards(s.player, s.opponent, Color::Black).expect("a position");
        let mut any = false;
        for mv in pos.legal_moves() {
            let child = pos.play_unchecked(mv);
            if !child.is_over() && child.moves() != 0 {
                possible.insert((child.player(), child.opponent(), s.test));
                any = true;
            }
        }
        eligible += usize::from(any);
    }
    let all = deviations(&samples, 1.0, 8, 3, 0);
    let half = deviations(&samples, 0.5, 8, 3, 0);
    assert!(deviations(&samples, 0.0, 8, 3, 0).is_empty());
    assert!(
        all.len() >= eligible * 9 / 10 && all.len() <= eligible,
        "{} of {eligible}",
        all.len()
    );
    assert!(
        half.len() > all.len() / 4 && half.len() < all.len() * 3 / 4,
        "{}",
        half.len()
    );
    for d in all.iter().chain(&half) {
        assert!(possible.contains(&(d.player, d.opponent, d.test)), "{d:?}");
        assert!(
            d.empties() > 8 && !d.exact && !d.search && d.score == 0,
            "{d:?}"
        );
    }
    assert_eq!(half, deviations(&samples, 0.5, 8, 3, 0), "not seeded");
    assert_ne!(
        half,
        deviations(&samples, 0.5, 8, 4, 0),
        "the seed is ignored"
    );
    assert_ne!(
        half,
        deviations(&samples, 0.5, 8, 3, 1),
        "the part is ignored"
    );
}

#[test]
fn samples_survive_their_file_form_and_bad_ones_are_refused() {
    let s = Sample {
        player: 0x0000_0010_0800_0000,
        opponent: 0x0000_0008_1000_0000,
        score: -38,
        exact: true,
        test: false,
        search: false,
    };
    assert_eq!(Sample::from_bytes(&s.to_bytes()), Ok(s));
    let mut b = s.to_bytes();
    b[8..16].copy_from_slice(&s.player.to_le_bytes());
    assert!(Sample::from_bytes(&b).is_err(), "overlapping discs");
    let mut b = s.to_bytes();
    b[16] = 100;
    assert!(Sample::from_bytes(&b).is_err(), "score beyond 64");
    let mut b = s.to_bytes();
    b[SAMPLE_LEN - 1] = 9;
    assert!(Sample::from_bytes(&b).is_err(), "unknown flags");
    b[SAMPLE_LEN - 1] = 5;
    assert!(
        Sample::from_bytes(&b).is_err(),
        "exact and searched at once"
    );
    let searched = Sample {
        exact: false,
        search: true,
        test: true,
        ..s
    };
    assert_eq!(Sample::from_bytes(&searched.to_bytes()), Ok(searched));
}

#[test]
fn probcut_fits_a_given_line_and_its_text_round_trips() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let pairs: Vec<ProbCutPair> = (0..400)
        .map(|_| {
            let shallow = rng.random_range(-2000..2000);
            let noise = rng.random_range(-50..=50);
            ProbCutPair {
                depth: 6,
                empties: 34,
                shallow,
                deep: (shallow as f64 * 0.9) as i32 + 30 + noise,
            }
        })
        .collect();
    let table = fit_probcut(&pairs);
    let p = table
        .get(6, 34)
        .expect("a row for depth 6 at 30-39 empties");
    assert!((p.a - 0.9).abs() < 0.02, "{p:?}");
    assert!((p.b - 30.0).abs() < 10.0, "{p:?}");
    assert!(p.sigma > 20.0 && p.sigma < 40.0, "{p:?}");
    // Deeper searches use the deepest row; other empties have none.
    assert_eq!(table.get(12, 34), Some(p));
    assert_eq!(table.get(6, 14), None);
    let text = table.to_text();
    assert_eq!(ProbCut::from_text(&text), Ok(table));
    assert!(ProbCut::from_text("6 3 0.9 30").is_err());
    assert!(ProbCut::from_text("6 3 0.9 30 -1 10").is_err());
}

/// The bundled Multi-ProbCut table (and the pinned one the training relabels with) reads and
/// has a regression, fitted from at least 100 pairs, for every depth it covers at every stage
/// from 10 to 59 empties (the opening included).
#[test]
fn the_bundled_probcut_table_covers_every_stage() {
    for text in [
        othello_engine::midgame::BUNDLED_PROBCUT,
        othello_engine::midgame::RELABEL_PROBCUT,
    ] {
        covers_every_stage(&ProbCut::from_text(text).expect("the table reads"));
    }
}

fn covers_every_stage(table: &ProbCut) {
    for depth in 3..=10 {
        for empties in [10, 25, 38, 47, 50, 59] {
            let p = table
                .get(depth, empties)
                .unwrap_or_else(|| panic!("no row for depth {depth} at {empties} empties"));
            assert!(p.samples >= 100, "depth {depth}, {empties} empties: {p:?}");
            assert!(p.a > 0.5 && p.a < 1.5 && p.sigma > 0.0, "{p:?}");
        }
    }
}

/// `wthor_position` finds a record game's position at the asked empties with the side to move
/// able to move, and gives the file's perfect-play margin from that side: at the files' own
/// depth (24 empties) it is the exact score, which the solver confirms on two games of 2015,
/// and a ply later, from the other side, a floor of it.
#[test]
fn a_record_position_carries_the_files_margin_from_its_movers_side() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/othello/wthor/WTH_2015.wtb"
    ))
    .expect("the bundled WTHOR file");
    let records = othello::wthor::parse_games(&bytes).expect("it parses");
    let depth = u32::from(records.header.depth);
    assert_eq!(depth, 24);
    let mut solver = Solver::<8>::new(22).with_evaluation(othello_engine::pattern::bundled());
    let step = records.games.len() / 2;
    for game in records.games.iter().step_by(step).take(2) {
        let (pos, margin) =
            othello_engine::train::wthor_position(game, depth).expect("a position at 24 empties");
        assert_eq!(pos.empty().count_ones(), depth);
        assert_ne!(pos.moves(), 0);
        let black = othello_engine::train::wthor_margin(game);
        let mover = if pos.side_to_move() == Color::Black {
            black
        } else {
            -black
        };
        assert_eq!(margin, mover);
        assert_eq!(solver.solve(&pos).score, margin, "{pos}");
        // One move later the mover has changed; the move played can only have given the new
        // mover as much as perfect play or more, so the file's margin from its side is a floor.
        let (next, next_margin) =
            othello_engine::train::wthor_position(game, depth - 1).expect("23 empties");
        assert_ne!(next.side_to_move(), pos.side_to_move());
        assert_eq!(next_margin, -margin);
        assert!(solver.solve(&next).score >= next_margin, "{next}");
    }
    assert!(othello_engine::train::wthor_position(&records.games[0], 61).is_none());
}
