//! Builds the built-in `othello8` opening list (`openings/othello8.txt`), offline:
//!
//! 1. every line of `PLIES` moves from the start that begins with f5 (every first move is an
//!    image of f5), kept once per position up to the board's symmetries;
//! 2. each position scored by `alphabeta:depth=6` over the hand-built heuristic (the same agent
//!    `stonelab` builds from that spec);
//!    (positions with a single legal move are skipped);
//! 3. the positions scored closest to even kept, in a seeded shuffled order so that any prefix
//!    of the list is a varied sample.
//!
//! `cargo run --release -p stonelab-arena --example make_openings > crates/arena/openings/othello8.txt`

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arena::canonical_form;
use game::{Color, Game};
use othello::{Move, Othello8};
use othello_engine::{DiscDifference, Heuristic};
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use search::{Budget, Registry};

const PLIES: usize = 8;
const SPEC: &str = "alphabeta:depth=6";
const KEEP: usize = 400;
const SHUFFLE_SEED: u64 = 8;

fn lines(pos: &Othello8, moves: &mut Vec<Move>, out: &mut BTreeMap<String, Vec<Move>>) {
    if moves.len() == PLIES {
        if !pos.is_over() {
            // The first line (in move order) reaching each position up to symmetry.
            out.entry(canonical_form(pos))
                .or_insert_with(|| moves.clone());
        }
        return;
    }
    for mv in pos.legal_moves() {
        if moves.is_empty() && mv.to_string() != "f5" {
            continue;
        }
        moves.push(mv);
        lines(&pos.play_unchecked(mv), moves, out);
        moves.pop();
    }
}

fn main() {
    let mut found = BTreeMap::new();
    lines(&Othello8::new(), &mut Vec::new(), &mut found);
    let candidates: Vec<Vec<Move>> = found.into_values().collect();
    eprintln!(
        "{} distinct positions after {PLIES} plies",
        candidates.len()
    );

    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = candidates.len().div_ceil(threads);
    let done = AtomicUsize::new(0);
    let scored: Vec<(i32, &Vec<Move>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = candidates
            .chunks(chunk)
            .map(|part| {
                let done = &done;
                scope.spawn(move || {
                    let registry = Registry::<Othello8>::generic(
                        Arc::new(Heuristic::<8>::default()),
                        Arc::new(DiscDifference),
                    );
                    let mut agent = registry.build(SPEC, 0).expect("valid spec");
                    part.iter()
                        .filter_map(|moves| {
                            let pos = moves
                                .iter()
                                .fold(Othello8::new(), |p, &m| p.play_unchecked(m));
                            if done.fetch_add(1, Ordering::Relaxed) % 5000 == 4999 {
                                eprintln!("{} scored", done.load(Ordering::Relaxed));
                            }
                            agent.new_game();
                            let d = agent.select(&pos, &Budget::default()).expect("a move");
                            // A forced move comes back unscored: such lines are skipped.
                            let mover = d.score?;
                            let black = if pos.side_to_move() == Color::Black {
                                mover
                            } else {
                                -mover
                            };
                            Some((black, moves))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });

    let mut by_balance = scored.clone();
    by_balance.sort_by_key(|&(s, m)| (s.abs(), m.clone()));
    by_balance.truncate(KEEP);
    let worst = by_balance.last().map_or(0, |s| s.0.abs());
    let within = scored.iter().filter(|s| s.0.abs() <= worst).count();
    by_balance.shuffle(&mut ChaCha8Rng::seed_from_u64(SHUFFLE_SEED));

    println!("# stonelab built-in othello8 openings: balanced lines {PLIES} plies deep.");
    println!(
        "# Made by crates/arena/examples/make_openings.rs: every {PLIES}-ply line from f5, one per"
    );
    println!(
        "# position up to symmetry ({} positions), scored by {SPEC} (black's view, in discs);",
        candidates.len()
    );
    println!(
        "# the {KEEP} closest to even kept (|score| <= {:.2}; {within} positions qualify),",
        f64::from(worst) / 100.0
    );
    println!(
        "# in a shuffled order (seed {SHUFFLE_SEED}). One transcript per line; # starts a comment."
    );
    for (score, moves) in &by_balance {
        let text: String = moves.iter().map(ToString::to_string).collect();
        println!("{text} # {:+.2}", f64::from(*score) / 100.0);
    }
}
