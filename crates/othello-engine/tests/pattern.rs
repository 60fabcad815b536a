//! The pattern evaluation against its slow twins: incremental feature updates against features
//! computed from scratch on random games, the same value on all 8 symmetric boards, the raw
//! tables against the compact columns, the edge readings against square-by-square ones, and the
//! weight file's round trip and refusals (both pattern sets).

use game::Game;
use othello::{Move, Othello8};
use othello_engine::pattern::{
    columns, edge_columns, edges, globals, Features, Layout, PatternEval, PatternWeights,
    WeightsError, EDGE_DISTINCT, EDGE_JOINT_DISTINCT, GLOBALS,
};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

const LAYOUTS: [Layout; 2] = [Layout::Patterns, Layout::EdgeMobility];

fn random_weights(rng: &mut ChaCha8Rng, width: u8, layout: Layout) -> PatternWeights {
    let mut w = PatternWeights::zeros_for(layout, width, 64).expect("a valid layout");
    for x in &mut w.weights {
        // A mix of zeros (runs) and values, the extremes included.
        *x = match rng.random_range(0..10) {
            0..=4 => 0,
            5 => i16::MAX,
            6 => -i16::MAX,
            _ => rng.random_range(-400..=400),
        };
    }
    w
}

/// Every position of `games` random games (passes included).
fn random_positions(games: usize, seed: u64) -> Vec<Othello8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Othello8::new();
        out.push(pos);
        while !pos.is_over() {
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
            out.push(pos);
        }
    }
    out
}

#[test]
fn incremental_updates_equal_features_from_scratch() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..300 {
        let mut pos = Othello8::new();
        let mut features = Features::from_scratch(pos.player(), pos.opponent());
        while !pos.is_over() {
            let moves = pos.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            match mv {
                Move::Pass => features.pass(),
                Move::Place(sq) => {
                    let flips = pos.flips(sq);
                    let leaf = features.mover_after(sq.index(), flips);
                    features.play(sq.index(), flips);
                    assert_eq!(&leaf, features.mover(), "the leaf's view of the move");
                }
            }
            pos = pos.play_unchecked(mv);
            let scratch = Features::from_scratch(pos.player(), pos.opponent());
            assert!(
                features.same_position(&scratch),
                "features drifted from the position\n{}",
                pos.board_string()
            );
            assert_eq!(features.mover(), scratch.mover());
        }
    }
}

fn transform(bits: u64, s: usize) -> u64 {
    let mut out = 0;
    for sq in 0..64u32 {
        if bits >> sq & 1 == 1 {
            let (r, c) = (sq / 8, sq % 8);
            let (r, c) = match s {
                0 => (r, c),
                1 => (r, 7 - c),
                2 => (7 - r, c),
                3 => (7 - r, 7 - c),
                4 => (c, r),
                5 => (c, 7 - r),
                6 => (7 - c, r),
                _ => (7 - c, 7 - r),
            };
            out |= 1 << (r * 8 + c);
        }
    }
    out
}

#[test]
fn the_value_is_the_same_on_all_symmetric_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for layout in LAYOUTS {
        let eval = PatternEval::new(&random_weights(&mut rng, 2, layout));
        assert_eq!(eval.layout(), layout);
        symmetric_values(&eval);
    }
}

fn symmetric_values(eval: &PatternEval) {
    for pos in random_positions(40, 3) {
        let (p, o) = (pos.player(), pos.opponent());
        let value = eval.evaluate_position(p, o);
        for s in 1..8 {
            assert_eq!(
                eval.evaluate_position(transform(p, s), transform(o, s)),
                value,
                "symmetry {s} of\n{}",
                pos.board_string()
            );
        }
    }
}

#[test]
fn raw_tables_agree_with_the_compact_columns() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for layout in LAYOUTS {
        let weights = random_weights(&mut rng, 4, layout);
        let eval = PatternEval::new(&weights);
        let n = layout.stage_len();
        let base = layout.globals_offset();
        for pos in random_positions(30, 9) {
            let (p, o) = (pos.player(), pos.opponent());
            let stage = weights.stage(pos.empty().count_ones());
            let w = &weights.weights[stage * n..(stage + 1) * n];
            let (cols, g) = columns(layout, p, o);
            let used = &cols[..layout.columns()];
            let mut slow: i32 = used.iter().map(|&c| i32::from(w[c as usize])).sum();
            for k in 0..GLOBALS {
                slow += i32::from(w[base + k]) * g[k];
            }
            assert_eq!(eval.evaluate_position(p, o), slow);
            assert_eq!(g, globals(p, o));
        }
    }
}

/// The four edges read square by square, each from the corner `edges` starts at.
fn edges_slow(bits: u64) -> [usize; 4] {
    let lines: [[u32; 8]; 4] = [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [56, 57, 58, 59, 60, 61, 62, 63],
        [0, 8, 16, 24, 32, 40, 48, 56],
        [7, 15, 23, 31, 39, 47, 55, 63],
    ];
    lines.map(|line| {
        line.iter()
            .enumerate()
            .map(|(k, &sq)| ((bits >> sq & 1) as usize) << k)
            .sum()
    })
}

#[test]
fn edge_readings_match_the_squares_and_share_weights_with_their_reverse() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for _ in 0..10_000 {
        let bits: u64 = rng.random();
        assert_eq!(edges(bits), edges_slow(bits), "{bits:#018x}");
    }
    // One side's reading of rank 1 (the first column): a reading and its reverse share a
    // weight, and nothing else does.
    let one = |a: u8| edge_columns(u64::from(a), 0)[0];
    let mut seen = std::collections::HashSet::new();
    for a in 0..=255u8 {
        assert_eq!(one(a), one(a.reverse_bits()));
        seen.insert(one(a));
        for b in 0..=255u8 {
            if b != a && b != a.reverse_bits() {
                assert_ne!(one(a), one(b), "{a:08b} and {b:08b}");
            }
        }
    }
    assert_eq!(seen.len(), EDGE_DISTINCT);
    // The other side's and the joint readings, offset after the mover's.
    let mut joint = std::collections::HashSet::new();
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let c = edge_columns(u64::from(a), u64::from(b));
            assert_eq!(c[4], EDGE_DISTINCT as u32 + one(b));
            let r = edge_columns(u64::from(a.reverse_bits()), u64::from(b.reverse_bits()));
            assert_eq!(c[8], r[8]);
            assert!((c[8] as usize) >= 2 * EDGE_DISTINCT);
            joint.insert(c[8]);
        }
    }
    assert_eq!(joint.len(), EDGE_JOINT_DISTINCT);
}

#[test]
fn weight_files_round_trip_and_bad_files_are_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let edge_weights = random_weights(&mut rng, 5, Layout::EdgeMobility);
    assert_eq!(
        PatternWeights::from_bytes(&edge_weights.to_bytes()),
        Ok(edge_weights.clone())
    );
    let weights = random_weights(&mut rng, 3, Layout::Patterns);
    let bytes = weights.to_bytes();
    assert_eq!(PatternWeights::from_bytes(&bytes), Ok(weights.clone()));
    // Zero runs pack: half the weights are zero.
    assert!(bytes.len() < weights.weights.len() * 2);

    assert_eq!(
        PatternWeights::from_bytes(&bytes[..10]),
        Err(WeightsError::Truncated("no complete header"))
    );
    let mut bad = bytes.clone();
    bad[0] = b'S';
    assert_eq!(PatternWeights::from_bytes(&bad), Err(WeightsError::Magic));
    let mut bad = bytes.clone();
    bad[8] = 9;
    assert_eq!(
        PatternWeights::from_bytes(&bad),
        Err(WeightsError::Version(9))
    );
    let mut bad = bytes.clone();
    bad[10] = 3;
    assert_eq!(PatternWeights::from_bytes(&bad), Err(WeightsError::Set(3)));
    // Set-1 weights relabelled set 2 (checksum fixed) hold too few values.
    let relabelled = PatternWeights {
        layout: Layout::EdgeMobility,
        ..weights.clone()
    };
    assert!(matches!(
        PatternWeights::from_bytes(&relabelled.to_bytes()),
        Err(WeightsError::Length { .. })
    ));
    let mut bad = bytes.clone();
    bad[12] = 0;
    assert!(matches!(
        PatternWeights::from_bytes(&bad),
        Err(WeightsError::Stages(_))
    ));
    // A scale whose 64-disc scores overflow the search's 16-bit table (checksum fixed).
    for (scale, ok) in [
        (0, false),
        (1, true),
        (511, true),
        (512, false),
        (1000, false),
    ] {
        let rescaled = PatternWeights {
            scale,
            ..weights.clone()
        };
        let read = PatternWeights::from_bytes(&rescaled.to_bytes());
        assert_eq!(read.is_ok(), ok, "scale {scale}: {read:?}");
        if let Err(e) = read {
            assert!(matches!(e, WeightsError::Stages(_)), "scale {scale}: {e}");
            assert!(
                e.to_string().contains(&format!("a scale of {scale} ")),
                "{e}"
            );
        }
    }
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(matches!(
        PatternWeights::from_bytes(&bad),
        Err(WeightsError::Checksum { .. })
    ));
    assert!(matches!(
        PatternWeights::from_bytes(&bytes[..bytes.len() - 3]),
        Err(WeightsError::Truncated(_))
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        PatternWeights::from_bytes(&long),
        Err(WeightsError::Trailing(1))
    );
    // Weights for the wrong layout: a file of width 3 relabelled width 4 (checksum fixed) holds
    // too many values.
    let other = PatternWeights {
        width: 4,
        ..weights.clone()
    };
    assert!(matches!(
        PatternWeights::from_bytes(&other.to_bytes()),
        Err(WeightsError::Length { .. })
    ));
}

#[test]
fn the_bundled_files_read() {
    use othello_engine::book::{Book, BUNDLED_BOOK};
    use othello_engine::midgame::{ProbCut, BUNDLED_PROBCUT};
    use othello_engine::pattern::BUNDLED_BYTES;
    let weights = PatternWeights::from_bytes(BUNDLED_BYTES).expect("the bundled weights read");
    assert!(
        weights.weights.iter().any(|&w| w != 0),
        "the bundled weights are trained"
    );
    ProbCut::from_text(BUNDLED_PROBCUT).expect("the bundled Multi-ProbCut table reads");
    Book::from_bytes(BUNDLED_BOOK).expect("the bundled book reads");
}
