//! Random balanced-looking openings for matches: 2 to 4 stones near the centre.

use std::collections::HashSet;

use game::Game;
use gomoku::{Gomoku, Point, Variant};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Half the side of the central square the opening stones are drawn from (a 7x7 square).
const RADIUS: usize = 3;

/// `count` distinct openings of 2, 3 or 4 legal moves, each stone within the central 7x7
/// square, none ending the game; the same seed gives the same list. Fewer come back only on
/// boards too small to hold that many distinct openings.
#[must_use]
pub fn random_openings<V: Variant>(count: usize, seed: u64) -> Vec<Vec<Point>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = V::SIZE;
    let centre = n / 2;
    let lo = centre.saturating_sub(RADIUS);
    let hi = (centre + RADIUS).min(n - 1);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0usize;
    while out.len() < count && attempts < count.saturating_mul(50).max(1000) {
        attempts += 1;
        let stones = rng.random_range(2..=4usize);
        let mut pos = Gomoku::<V>::start();
        let mut moves = Vec::with_capacity(stones);
        while moves.len() < stones {
            let Some(p) = Point::new(rng.random_range(lo..=hi), rng.random_range(lo..=hi)) else {
                break;
            };
            if let Ok(next) = pos.play(p) {
                pos = next;
                moves.push(p);
            }
        }
        if moves.len() == stones && !pos.is_over() && seen.insert(pos.hash_key()) {
            out.push(moves);
        }
    }
    out
}
