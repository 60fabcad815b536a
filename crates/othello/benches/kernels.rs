//! Criterion benches of the hot kernels: legal-move generation, flips and perft, each beside
//! its plain twin as the baseline measured in the same run.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use game::Game;
use othello::bitboard::{flips, flips_naive, legal_moves, legal_moves_naive};
use othello::{perft, perft_portable, Othello8};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Positions from seeded random games, every ply kept.
fn positions() -> Vec<Othello8> {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut out = Vec::new();
    for _ in 0..40 {
        let mut pos = Othello8::new();
        loop {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            out.push(pos);
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

fn bench_kernels(c: &mut Criterion) {
    let positions = positions();
    let mut group = c.benchmark_group("legal_moves");
    group.bench_function("bitboard", |b| {
        b.iter(|| {
            positions.iter().fold(0u64, |acc, p| {
                acc ^ legal_moves(black_box(p.player()), p.opponent())
            })
        })
    });
    group.bench_function("naive", |b| {
        b.iter(|| {
            positions.iter().fold(0u64, |acc, p| {
                acc ^ legal_moves_naive(black_box(p.player()), p.opponent())
            })
        })
    });
    group.finish();

    let moves: Vec<(u32, u64, u64)> = positions
        .iter()
        .flat_map(|p| {
            let m = p.moves();
            (0..64)
                .filter(move |sq| m >> sq & 1 == 1)
                .map(move |sq| (sq, p.player(), p.opponent()))
        })
        .collect();
    let mut group = c.benchmark_group("flips");
    group.bench_function("bitboard", |b| {
        b.iter(|| {
            moves
                .iter()
                .fold(0u64, |acc, &(sq, p, o)| acc ^ flips(black_box(sq), p, o))
        })
    });
    group.bench_function("naive", |b| {
        b.iter(|| {
            moves.iter().fold(0u64, |acc, &(sq, p, o)| {
                acc ^ flips_naive(black_box(sq), p, o)
            })
        })
    });
    group.finish();

    let mut group = c.benchmark_group("perft7");
    group.sample_size(20);
    group.bench_function("dispatched", |b| {
        b.iter(|| perft(black_box(&Othello8::new()), 7))
    });
    group.bench_function("portable", |b| {
        b.iter(|| perft_portable(black_box(&Othello8::new()), 7))
    });
    group.finish();
}

criterion_group!(benches, bench_kernels);
criterion_main!(benches);
