//! Builds the built-in `othello6` opening list (`openings/othello6.txt`), offline:
//!
//! 1. every line of `PLIES` moves from the start, kept once per position up to the board's
//!    symmetries (the first line in move order that reaches it; lines that end in a position
//!    with a single legal move, or none, are left out);
//! 2. in a seeded shuffled order (so that any prefix of the list is a varied sample), each
//!    position solved by the exact solver (perfect play, empties to the winner) within a window
//!    of `KEEP_MARGIN` discs around even: the exact score where it lies inside, else only
//!    which side it falls;
//! 3. those within the window kept, until `KEEP` are kept.
//!
//! 6x6 Othello is a proven White win by 4 discs (16-20) from the start, so lines from it are
//! rarely even by accident; exact solving is cheap at 6x6, and the list's scores are the game's
//! own values, not an engine's guess.
//!
//! `cargo run --release -p stonelab-arena --example make_othello6_openings > crates/arena/openings/othello6.txt`

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use arena::canonical_form;
use game::{Color, Game};
use othello::{Move, Othello6};
use othello_engine::Solver;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

const PLIES: usize = 8;
const KEEP_MARGIN: i32 = 2;
const KEEP: usize = 200;
/// Positions solved per batch (the batch is finished before the count is checked).
const BATCH: usize = 64;
const SHUFFLE_SEED: u64 = 6;
/// The solver's table: 2^20 entries (24 MiB) per thread.
const TABLE_BITS: u32 = 20;

fn lines(pos: &Othello6, moves: &mut Vec<Move>, out: &mut BTreeMap<String, Vec<Move>>) {
    if moves.len() == PLIES {
        if pos.legal_moves().len() > 1 {
            out.entry(canonical_form(pos))
                .or_insert_with(|| moves.clone());
        }
        return;
    }
    for mv in pos.legal_moves() {
        moves.push(mv);
        lines(&pos.play_unchecked(mv), moves, out);
        moves.pop();
    }
}

/// Black's exact final margin after `moves`, in discs, where it is within `KEEP_MARGIN` of
/// even; else a bound beyond it.
fn exact(solver: &mut Solver<6>, moves: &[Move]) -> i32 {
    let pos = moves
        .iter()
        .fold(Othello6::start(), |p, &m| p.play_unchecked(m));
    let mover = solver
        .solve_window(&pos, -KEEP_MARGIN - 1, KEEP_MARGIN + 1)
        .score;
    if pos.side_to_move() == Color::Black {
        mover
    } else {
        -mover
    }
}

fn main() {
    let started = Instant::now();
    let mut found = BTreeMap::new();
    lines(&Othello6::start(), &mut Vec::new(), &mut found);
    let mut candidates: Vec<Vec<Move>> = found.into_values().collect();
    let total = candidates.len();
    eprintln!("{total} distinct positions after {PLIES} plies");
    candidates.shuffle(&mut ChaCha8Rng::seed_from_u64(SHUFFLE_SEED));

    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut solvers: Vec<Solver<6>> = (0..threads).map(|_| Solver::new(TABLE_BITS)).collect();
    let mut kept: Vec<(&Vec<Move>, i32)> = Vec::new();
    let mut solved = 0;
    for batch in candidates.chunks(BATCH) {
        if kept.len() >= KEEP {
            break;
        }
        let scores = Mutex::new(vec![0; batch.len()]);
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for solver in &mut solvers {
                let (scores, next) = (&scores, &next);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(moves) = batch.get(i) else { break };
                    let s = exact(solver, moves);
                    scores.lock().expect("no panic")[i] = s;
                });
            }
        });
        let scores = scores.into_inner().expect("no panic");
        kept.extend(
            batch
                .iter()
                .zip(scores)
                .filter(|(_, s)| s.abs() <= KEEP_MARGIN),
        );
        solved += batch.len();
        eprintln!(
            "{solved} solved, {} kept ({:.0} s)",
            kept.len(),
            started.elapsed().as_secs_f64()
        );
    }
    kept.truncate(KEEP);
    let mean = kept.iter().map(|(_, s)| f64::from(*s)).sum::<f64>() / kept.len().max(1) as f64;
    println!("# stonelab built-in othello6 openings: balanced lines {PLIES} plies deep.");
    println!(
        "# Made by crates/arena/examples/make_othello6_openings.rs: every {PLIES}-ply line from the"
    );
    println!(
        "# start, one per position up to symmetry ({total} positions with a choice of move), in a"
    );
    println!(
        "# shuffled order (seed {SHUFFLE_SEED}), solved exactly; the first {} whose perfect-play score",
        kept.len()
    );
    println!(
        "# is within {KEEP_MARGIN} discs of even ({solved} solved). Black's exact margin after each line"
    );
    println!("# (mean {mean:+.2}).");
    println!("# # starts a comment.");
    for (moves, s) in kept {
        let text: String = moves.iter().map(ToString::to_string).collect();
        println!("{text} # {s:+}");
    }
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
}
