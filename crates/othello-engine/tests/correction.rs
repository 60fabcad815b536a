//! The correction network: the fast path against its dense twin, the file refusing what is
//! wrong with it, the bundled network tied to the bundled weights, and the fit learning,
//! seed-faithful, thread-independent and exactly resumable.

use game::Game;
use othello::Othello8;
use othello_engine::correction::{
    bundled, pattern_fingerprint, CorrectionError, CorrectionNet, INPUTS,
};
use othello_engine::pattern::{Features, BUNDLED_BYTES};
use othello_engine::train::correction_fit::{fit_epoch, held_out_errors, FitConfig, FitState, Row};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn random_positions(seed: u64, count: usize) -> Vec<Othello8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Othello8::new();
        let plies = rng.random_range(0..60);
        for _ in 0..plies {
            if pos.is_over() {
                break;
            }
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        out.push(pos);
    }
    out
}

#[test]
fn the_fast_path_equals_the_dense_twin() {
    let net = bundled();
    let eval = othello_engine::pattern::bundled();
    let mut largest = 0f32;
    for pos in random_positions(1, 2000) {
        let (p, o) = (pos.player(), pos.opponent());
        let base = eval.evaluate(&Features::from_scratch(p, o), p, o) as f32 / 64.0;
        let (fast, slow) = (net.correction(p, o, base), net.correction_dense(p, o, base));
        assert!(
            (fast - slow).abs() < 1e-3,
            "{fast} against {slow} on {}",
            pos.board_string()
        );
        largest = largest.max(fast.abs());
    }
    assert!(
        largest > 1.0,
        "the network corrects by at most {largest} discs"
    );
}

/// The same with the frontier planes, on a network of random weights (and through its file).
#[test]
fn the_frontier_network_equals_its_dense_twin() {
    let net =
        CorrectionNet::initial(othello_engine::correction::FRONTIER_PLANES, 32, 3, 0).unwrap();
    let net = CorrectionNet::from_bytes(&net.to_bytes()).unwrap();
    assert_eq!(net.planes, othello_engine::correction::FRONTIER_PLANES);
    for (i, pos) in random_positions(2, 1000).into_iter().enumerate() {
        let (p, o) = (pos.player(), pos.opponent());
        let base = (i % 41) as f32 - 20.0;
        let (fast, slow) = (net.correction(p, o, base), net.correction_dense(p, o, base));
        assert!(
            (fast - slow).abs() < 1e-3,
            "{fast} against {slow} on {}",
            pos.board_string()
        );
    }
}

/// Every image of a position under the board's 8 symmetries.
fn images(p: u64, o: u64) -> [(u64, u64); 8] {
    std::array::from_fn(|s| {
        (
            othello_engine::book::transform(p, s as u8),
            othello_engine::book::transform(o, s as u8),
        )
    })
}

/// The bundled network reads canonical images: the 8 images of a position get one correction
/// (exactly, by the fast path; by the dense twin, whose canonical image is found square by
/// square, too). The same weights read as given (a version-1 file) do not: the test can fail.
#[test]
fn the_bundled_network_gives_the_eight_images_of_a_position_one_value() {
    let net = bundled();
    assert!(
        net.canonical,
        "the bundled network reads positions as given"
    );
    let mut as_played = (*net).clone();
    as_played.canonical = false;
    let as_played = CorrectionNet::from_bytes(&as_played.to_bytes()).unwrap();
    assert!(!as_played.canonical);
    assert_eq!(as_played.to_bytes()[8], 1, "as given is file version 1");
    assert_eq!(net.to_bytes()[8], 2, "canonical is file version 2");
    let eval = othello_engine::pattern::bundled();
    let (mut spread_given, mut positions) = (0f32, 0);
    for pos in random_positions(21, 400) {
        let (p, o) = (pos.player(), pos.opponent());
        let base = eval.evaluate_position(p, o) as f32 / 64.0;
        let values: Vec<f32> = images(p, o)
            .iter()
            .map(|&(ip, io)| {
                // The pattern evaluation is symmetric by construction.
                assert_eq!(eval.evaluate_position(ip, io), eval.evaluate_position(p, o));
                net.correction(ip, io, base)
            })
            .collect();
        assert!(
            values.iter().all(|v| v.to_bits() == values[0].to_bits()),
            "{values:?} on {}",
            pos.board_string()
        );
        for &(ip, io) in &images(p, o) {
            let slow = net.correction_dense(ip, io, base);
            assert!(
                (slow - values[0]).abs() < 1e-3,
                "{slow} against {}",
                values[0]
            );
        }
        let given: Vec<f32> = images(p, o)
            .iter()
            .map(|&(ip, io)| as_played.correction(ip, io, base))
            .collect();
        let (lo, hi) = given
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        spread_given += hi - lo;
        positions += 1;
    }
    assert!(
        spread_given / positions as f32 > 0.5,
        "read as given, the images differ by only {} discs on average",
        spread_given / positions as f32
    );
}

#[test]
fn the_bundled_network_fits_the_bundled_weights_only() {
    let net = bundled();
    assert_eq!(net.check_fits(BUNDLED_BYTES), Ok(()));
    let mut other = BUNDLED_BYTES.to_vec();
    let last = other.len() - 1;
    other[last] ^= 1;
    assert!(matches!(
        net.check_fits(&other),
        Err(CorrectionError::Mismatch { .. })
    ));
    assert_eq!(net.patterns, pattern_fingerprint(BUNDLED_BYTES));
}

fn rewrite_checksum(bytes: &mut [u8]) {
    // FNV-1a over the payload, then header bytes 0-23, as the file format says.
    let fnv = |mut h: u64, b: &[u8]| {
        for &x in b {
            h ^= u64::from(x);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    };
    let sum = fnv(fnv(0xcbf2_9ce4_8422_2325, &bytes[32..]), &bytes[..24]);
    bytes[24..32].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn a_damaged_file_is_refused_with_its_reason() {
    let good = bundled().to_bytes();
    assert_eq!(CorrectionNet::from_bytes(&good).as_ref(), Ok(&*bundled()));
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        CorrectionNet::from_bytes(&b)
    };
    assert_eq!(with(&|b| b[0] = b'x'), Err(CorrectionError::Magic));
    assert_eq!(
        with(&|b| b.truncate(20)),
        Err(CorrectionError::Truncated("the header needs 32 bytes"))
    );
    assert_eq!(with(&|b| b[8] = 9), Err(CorrectionError::Version(9)));
    assert_eq!(
        with(&|b| b[10..12].copy_from_slice(&0u16.to_le_bytes())),
        Err(CorrectionError::Hidden(0))
    );
    assert_eq!(
        with(&|b| b[10..12].copy_from_slice(&4000u16.to_le_bytes())),
        Err(CorrectionError::Hidden(4000))
    );
    assert_eq!(
        with(&|b| b[12..14].copy_from_slice(&7u16.to_le_bytes())),
        Err(CorrectionError::Inputs(7, INPUTS))
    );
    assert_eq!(
        with(&|b| b[14..16].copy_from_slice(&5u16.to_le_bytes())),
        Err(CorrectionError::Planes(5))
    );
    assert!(matches!(
        with(&|b| b.truncate(b.len() - 4)),
        Err(CorrectionError::Length { .. })
    ));
    assert!(matches!(
        with(&|b| b[100] ^= 0x40),
        Err(CorrectionError::Checksum { .. })
    ));
    assert_eq!(
        with(&|b| {
            b[32..36].copy_from_slice(&f32::NAN.to_le_bytes());
            rewrite_checksum(b);
        }),
        Err(CorrectionError::NotFinite(0))
    );
    // Every error names its problem.
    let text = with(&|b| b[100] ^= 0x40).unwrap_err().to_string();
    assert!(text.contains("checksum"), "{text}");
}

#[test]
fn loading_refuses_what_is_not_a_network_file() {
    let dir = std::env::temp_dir().join(format!("stonelab-correction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = othello_engine::correction::load(&dir.join("none.bin")).unwrap_err();
    assert!(matches!(missing, CorrectionError::Io { .. }), "{missing}");
    let folder = othello_engine::correction::load(&dir).unwrap_err();
    assert!(
        folder.to_string().contains("not a regular file"),
        "{folder}"
    );
    let big = dir.join("big.bin");
    std::fs::write(
        &big,
        vec![0u8; (othello_engine::correction::MAX_FILE_BYTES + 1) as usize],
    )
    .unwrap();
    let err = othello_engine::correction::load(&big).unwrap_err();
    assert!(err.to_string().contains("larger than"), "{err}");
    let good = dir.join("good.bin");
    std::fs::write(&good, bundled().to_bytes()).unwrap();
    assert_eq!(
        *othello_engine::correction::load(&good).unwrap(),
        *bundled()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Rows whose label is the pattern value plus a term no linear model of the squares holds:
/// +6 discs when both sides can move to a corner, −6 otherwise.
fn synthetic_rows(seed: u64, count: usize) -> Vec<Row> {
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    random_positions(seed, count)
        .into_iter()
        .enumerate()
        .filter(|(_, pos)| !pos.is_over())
        .map(|(i, pos)| {
            let (p, o) = (pos.player(), pos.opponent());
            let both = othello::bitboard::legal_moves(p, o) & CORNERS != 0
                && othello::bitboard::legal_moves(o, p) & CORNERS != 0;
            let base = ((p.count_ones() as f32) - (o.count_ones() as f32)) / 2.0;
            Row {
                player: p,
                opponent: o,
                base,
                label: base + if both { 6.0 } else { -6.0 },
                test: i % 10 == 0,
            }
        })
        .collect()
}

fn overall(net: &CorrectionNet, rows: &[Row]) -> (f64, f64) {
    let bands = held_out_errors(net, rows);
    let n: usize = bands.iter().map(|b| b.1).sum();
    let before = bands.iter().map(|b| b.2 * b.1 as f64).sum::<f64>() / n as f64;
    let after = bands.iter().map(|b| b.3 * b.1 as f64).sum::<f64>() / n as f64;
    (before, after)
}

#[test]
fn the_fit_learns_an_interaction_of_features() {
    let rows = synthetic_rows(7, 6000);
    let config = FitConfig {
        planes: othello_engine::correction::PLANES,
        hidden: 32,
        epochs: 12,
        lr: 3e-3,
        batch: 64,
        seed: 5,
        canonical: true,
    };
    let mut state = FitState::new(&config, 42).unwrap();
    for _ in 0..config.epochs {
        fit_epoch(&mut state, &rows, &config);
    }
    let (before, after) = overall(&state.net, &rows);
    assert!((before - 6.0).abs() < 1e-6, "{before}");
    assert!(
        after < 2.5,
        "held-out error {after} after the fit (6 before)"
    );
    assert_eq!(state.net.patterns, 42);
    assert_eq!(state.net.w1.len(), INPUTS * 32);
}

#[test]
fn the_fit_is_seed_faithful_thread_independent_and_resumes_exactly() {
    let rows = synthetic_rows(9, 1500);
    let config = FitConfig {
        planes: othello_engine::correction::FRONTIER_PLANES,
        hidden: 16,
        epochs: 3,
        lr: 1e-3,
        batch: 100,
        seed: 3,
        canonical: true,
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut state = FitState::new(&config, 1).unwrap();
            for _ in 0..config.epochs {
                fit_epoch(&mut state, &rows, &config);
            }
            state
        })
    };
    let one = run(1);
    assert_eq!(
        one.to_bytes(),
        run(3).to_bytes(),
        "one thread against three"
    );
    assert_eq!(one.to_bytes(), run(1).to_bytes(), "the same seed again");
    // Cut after every epoch, saved and read back: the same fit.
    for cut in 1..config.epochs {
        let mut state = FitState::new(&config, 1).unwrap();
        for _ in 0..cut {
            fit_epoch(&mut state, &rows, &config);
        }
        let mut resumed = FitState::from_bytes(&state.to_bytes()).unwrap();
        assert_eq!(resumed, state);
        while resumed.epochs < config.epochs {
            fit_epoch(&mut resumed, &rows, &config);
        }
        assert_eq!(
            resumed.to_bytes(),
            one.to_bytes(),
            "resumed after epoch {cut}"
        );
    }
    let other = FitState::new(&FitConfig { seed: 4, ..config }, 1).unwrap();
    assert_ne!(other.net, FitState::new(&config, 1).unwrap().net);
    assert!(FitState::from_bytes(&one.to_bytes()[..100]).is_err());
}
