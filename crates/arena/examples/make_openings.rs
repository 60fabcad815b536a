//! Builds the built-in `othello8` opening list (`openings/othello8.txt`), offline:
//!
//! 1. every line of `PLIES` moves from the start that begins with f5 (every first move is an
//!    image of f5), kept once per position up to the board's symmetries (lines that end in a
//!    position with a single legal move, or none, are left out);
//! 2. each position scored by the `othello` engine's pattern evaluation searched `QUICK_DEPTH`
//!    plies (no ProbCut), in discs from Black's view; those within `QUICK_MARGIN` discs of even
//!    go on, in a seeded shuffled order so that any prefix of the list is a varied sample;
//! 3. in that order, each scored by a `DEEP_DEPTH`-ply search with Multi-ProbCut at
//!    `DEEP_PROBCUT` standard deviations (as `stonelab book xot` builds the XOT-style set) and
//!    kept when within `KEEP_MARGIN` discs of even, until `KEEP` are kept.
//!
//! The deep scores are cached in `target/make_openings-cache.txt` (one `transcript score` line
//! per searched position), so an interrupted run resumes where it stopped.
//!
//! `cargo run --release -p stonelab-arena --example make_openings > crates/arena/openings/othello8.txt`

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use arena::canonical_form;
use game::{Color, Game};
use othello::{Move, Othello8};
use othello_engine::midgame::{Midgame, ProbCut};
use othello_engine::pattern::PatternEval;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

const PLIES: usize = 8;
const QUICK_DEPTH: u32 = 8;
const QUICK_MARGIN: f64 = 3.0;
const DEEP_DEPTH: u32 = 16;
const KEEP_MARGIN: f64 = 1.0;
/// The deep search cuts by Multi-ProbCut at this many standard deviations (as `book xot` does).
const DEEP_PROBCUT: f64 = 2.0;
const KEEP: usize = 400;
const SHUFFLE_SEED: u64 = 8;
const CACHE: &str = "target/make_openings-cache.txt";

fn lines(pos: &Othello8, moves: &mut Vec<Move>, out: &mut BTreeMap<String, Vec<Move>>) {
    if moves.len() == PLIES {
        if pos.legal_moves().len() > 1 {
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

fn transcript(moves: &[Move]) -> String {
    moves.iter().map(ToString::to_string).collect()
}

/// Multi-ProbCut's table and its deviations (`None`: full width).
type Cut = Option<(Arc<ProbCut>, f64)>;

/// Black's score of the position after `moves`, in discs, by a `depth`-ply search.
fn score(eval: &Arc<PatternEval>, probcut: &Cut, moves: &[Move], depth: u32) -> f64 {
    let pos = moves
        .iter()
        .fold(Othello8::new(), |p, &m| p.play_unchecked(m));
    let mut search = Midgame::new(eval.clone(), 20).with_probcut(probcut.clone());
    let mover = f64::from(search.search(&pos, depth, None, None).score) / f64::from(eval.scale());
    if pos.side_to_move() == Color::Black {
        mover
    } else {
        -mover
    }
}

/// Scores every line of `todo` on every core; `each` gets each result as it comes.
fn score_all(
    eval: &Arc<PatternEval>,
    probcut: &Cut,
    todo: &[&Vec<Move>],
    depth: u32,
    each: &(dyn Fn(usize, f64) + Sync),
) {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(moves) = todo.get(i) else { break };
                each(i, score(eval, probcut, moves, depth));
            });
        }
    });
}

fn main() {
    let started = Instant::now();
    let eval = othello_engine::pattern::bundled();
    let mut found = BTreeMap::new();
    lines(&Othello8::new(), &mut Vec::new(), &mut found);
    let candidates: Vec<Vec<Move>> = found.into_values().collect();
    eprintln!(
        "{} distinct positions after {PLIES} plies",
        candidates.len()
    );

    // Step 2: the quick search over every candidate.
    let all: Vec<&Vec<Move>> = candidates.iter().collect();
    let quick = Mutex::new(vec![0.0; all.len()]);
    let done = AtomicUsize::new(0);
    score_all(&eval, &None, &all, QUICK_DEPTH, &|i, s| {
        quick.lock().expect("no panic")[i] = s;
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(5000) {
            eprintln!("depth {QUICK_DEPTH}: {n} of {} scored", all.len());
        }
    });
    let quick = quick.into_inner().expect("no panic");
    let mut order: Vec<&Vec<Move>> = candidates
        .iter()
        .zip(&quick)
        .filter(|(_, s)| s.abs() <= QUICK_MARGIN)
        .map(|(m, _)| m)
        .collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(SHUFFLE_SEED));
    eprintln!(
        "{} within {QUICK_MARGIN} discs at depth {QUICK_DEPTH} ({:.0} s)",
        order.len(),
        started.elapsed().as_secs_f64()
    );

    // Step 3: the deep search, resumable through the cache.
    let deep_cut: Cut = Some((othello_engine::midgame::bundled_probcut(), DEEP_PROBCUT));
    let mut cached: BTreeMap<String, f64> = BTreeMap::new();
    if let Ok(text) = fs::read_to_string(CACHE) {
        for line in text.lines() {
            let mut parts = line.split_whitespace();
            if let (Some(t), Some(s), None) = (parts.next(), parts.next(), parts.next()) {
                if let Ok(s) = s.parse::<f64>() {
                    cached.insert(t.to_owned(), s);
                }
            }
        }
        eprintln!("{} deep scores read from {CACHE}", cached.len());
    }
    let cache = Mutex::new(
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(CACHE)
            .expect("the cache file opens"),
    );
    let mut deep: Vec<Option<f64>> = order
        .iter()
        .map(|m| cached.get(&transcript(m)).copied())
        .collect();
    let mut searched = 0;
    let batch = 64;
    let mut at = 0;
    loop {
        let kept = deep
            .iter()
            .filter(|s| s.is_some_and(|s| s.abs() <= KEEP_MARGIN))
            .count();
        if kept >= KEEP || at >= order.len() {
            break;
        }
        let end = (at + batch).min(order.len());
        let todo: Vec<usize> = (at..end).filter(|&i| deep[i].is_none()).collect();
        let lines: Vec<&Vec<Move>> = todo.iter().map(|&i| order[i]).collect();
        let results = Mutex::new(Vec::new());
        score_all(&eval, &deep_cut, &lines, DEEP_DEPTH, &|j, s| {
            let text = transcript(lines[j]);
            writeln!(cache.lock().expect("no panic"), "{text} {s}").expect("the cache is written");
            results.lock().expect("no panic").push((todo[j], s));
        });
        for (i, s) in results.into_inner().expect("no panic") {
            deep[i] = Some(s);
        }
        searched += lines.len();
        at = end;
        eprintln!(
            "depth {DEEP_DEPTH}: {at} of {} looked at, {kept} kept before this batch, \
             {searched} searched this run ({:.0} s)",
            order.len(),
            started.elapsed().as_secs_f64()
        );
    }

    let mut kept = Vec::new();
    let mut looked = 0;
    for (moves, s) in order.iter().zip(&deep) {
        if kept.len() == KEEP {
            break;
        }
        looked += 1;
        if let Some(s) = s {
            if s.abs() <= KEEP_MARGIN {
                kept.push((transcript(moves), *s));
            }
        }
    }
    let n = kept.len() as f64;
    let mean = kept.iter().map(|k| k.1).sum::<f64>() / n;
    let sd = (kept.iter().map(|k| (k.1 - mean).powi(2)).sum::<f64>() / n).sqrt();

    println!("# stonelab built-in othello8 openings: balanced lines {PLIES} plies deep.");
    println!(
        "# Made by crates/arena/examples/make_openings.rs: every {PLIES}-ply line from f5, one per"
    );
    println!(
        "# position up to symmetry ({} positions with a choice of move); the {} within {QUICK_MARGIN} discs",
        candidates.len(),
        order.len()
    );
    println!(
        "# of even by the othello engine's pattern evaluation at depth {QUICK_DEPTH}, in a shuffled order"
    );
    println!(
        "# (seed {SHUFFLE_SEED}), scored by its depth-{DEEP_DEPTH} search (Multi-ProbCut at {DEEP_PROBCUT} deviations);"
    );
    println!(
        "# the first {KEEP} within {KEEP_MARGIN} disc of even kept ({looked} searched). Black's score in"
    );
    println!(
        "# discs after each line: mean {mean:+.2}, standard deviation {sd:.2}. # starts a comment."
    );
    for (text, s) in &kept {
        println!("{text} # {s:+.2}");
    }
    eprintln!(
        "{} kept of {looked} searched, mean {mean:+.2}, sd {sd:.2} ({:.0} s)",
        kept.len(),
        started.elapsed().as_secs_f64()
    );
}
