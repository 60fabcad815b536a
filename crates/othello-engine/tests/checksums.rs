//! Search behaviour pinned: the node-count checksums of `stonelab bench endgame` (published in
//! docs/benchmarks.md) must not change unless a commit means to change the solver, and the
//! portable kernel must search exactly the tree the dispatched one does.

use game::Game;
use othello::Othello;
use othello_engine::bench::endgame;
use othello_engine::{Kernel, Solver};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn checksum(range: std::ops::RangeInclusive<usize>) -> String {
    let report = endgame(range, 22, 1, |_| {});
    assert_eq!(report.wrong(), 0, "a position was solved wrongly");
    report.checksum.to_string()
}

#[test]
fn ffo_1_to_19_checksum() {
    assert_eq!(checksum(1..=19), "35e543d15b8b049a");
}

/// The capped slice CI runs (about 35 M nodes): the checksum of the first ten rows of the
/// #20-#39 table in docs/benchmarks.md.
#[test]
fn ffo_20_to_29_checksum() {
    assert_eq!(checksum(20..=29), "92548cf4cfddd073");
}

#[test]
#[ignore = "slow: 180 M nodes; `cargo test --release -- --ignored`"]
fn ffo_20_to_39_checksum() {
    assert_eq!(checksum(20..=39), "7099e36b517bece9");
}

fn random_endgame<const N: usize>(empties: u32, rng: &mut ChaCha8Rng) -> Option<Othello<N>> {
    let mut pos = Othello::<N>::new();
    while !pos.is_over() && pos.empty().count_ones() > empties {
        let moves = pos.legal_moves();
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    (!pos.is_over()).then_some(pos)
}

fn kernels_agree<const N: usize>(empties: &[u32], per: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut dispatched = Solver::<N>::new(18);
    let mut portable = Solver::<N>::new(18).with_kernel(Kernel::Portable);
    for &e in empties {
        for _ in 0..per {
            let Some(pos) = random_endgame::<N>(e, &mut rng) else {
                continue;
            };
            dispatched.clear();
            portable.clear();
            let a = dispatched.solve(&pos);
            let b = portable.solve(&pos);
            assert_eq!(
                (a.score, a.best, a.nodes),
                (b.score, b.best, b.nodes),
                "{pos}"
            );
        }
    }
}

#[test]
fn portable_kernel_searches_the_same_tree_as_the_dispatched_one() {
    kernels_agree::<8>(&[3, 5, 8, 12, 16], 12, 1);
    kernels_agree::<6>(&[6, 10, 14], 10, 2);
    kernels_agree::<4>(&[6, 10], 10, 3);
    // And on outside positions.
    let suite = othello_engine::obf::ffo_suite();
    for p in &suite[..6] {
        let a = Solver::<8>::new(20).solve(&p.pos);
        let b = Solver::<8>::new(20)
            .with_kernel(Kernel::Portable)
            .solve(&p.pos);
        assert_eq!((a.score, a.best, a.nodes), (b.score, b.best, b.nodes));
    }
}

/// `stonelab bench midgame --depth 6`: the midgame search's node counts on its 20 fixed
/// positions (bundled weights and correction network, one thread); `--correction off`, the
/// pattern evaluation alone. Changes with the search or the bundled files.
#[test]
fn midgame_depth_6_checksum() {
    let report = othello_engine::bench::midgame(20, 6, 1, true, |_| {});
    assert_eq!(report.rows.len(), 20);
    assert_eq!(report.checksum.to_string(), "525a8cb6df6cdfa5");
    let alone = othello_engine::bench::midgame(20, 6, 1, false, |_| {});
    assert_eq!(alone.checksum.to_string(), "066d52d0863d613f");
}
