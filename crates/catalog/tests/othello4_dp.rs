//! `dp` on 4x4 plays every legal position, reachable or not, and its scores are proven margins
//! (the exact solver's), not a learned agent's expectation.

use catalog::{othello4_values, CatalogGame};
use game::{Color, Game};
use othello::Othello4;
use othello_engine::Solver;
use search::{Budget, Score};

/// Positions a game reaches, and positions none reaches (one disc of a reached position turned
/// over) that still have a move to make; from a fixed walk.
fn positions() -> (Vec<Othello4>, Vec<Othello4>) {
    let table = othello4_values().expect("table");
    let mut reached = Vec::new();
    let mut unreached = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..40 {
        let mut pos = Othello4::start();
        while !pos.is_over() {
            reached.push(pos);
            let discs = pos.discs(Color::Black) | pos.discs(Color::White);
            let bits: Vec<u32> = (0..64).filter(|i| discs >> i & 1 != 0).collect();
            let bit = 1u64 << bits[(next() % bits.len() as u64) as usize];
            let (black, white) = (pos.discs(Color::Black) ^ bit, pos.discs(Color::White) ^ bit);
            if let Ok(odd) = Othello4::from_bitboards(black, white, pos.side_to_move()) {
                if table.value(&odd).is_none() && !odd.is_over() {
                    unreached.push(odd);
                }
            }
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
        }
    }
    (reached, unreached)
}

#[test]
fn dp_plays_every_legal_position_and_scores_it_as_proven() {
    let registry = Othello4::registry();
    let mut dp = registry.build("dp", 0).expect("dp");
    let mut solver = Solver::<4>::new(12);
    let (reached, unreached) = positions();
    assert!(
        unreached.len() >= 20,
        "{} positions off the reachable set",
        unreached.len()
    );
    for (pos, is_reached) in reached
        .iter()
        .map(|p| (p, true))
        .chain(unreached.iter().map(|p| (p, false)))
    {
        let decision = dp.select(pos, &Budget::default()).unwrap_or_else(|e| {
            panic!("{pos}: {e}");
        });
        assert!(pos.legal_moves().contains(&decision.mv), "{pos}");
        let score = decision.value().expect("a score");
        let Score::Proven { margin } = score else {
            panic!("{pos}: {score} is not a proven result");
        };
        // The margin after the chosen move, exactly.
        let after = pos.play(decision.mv).expect("legal");
        assert_eq!(margin, -solver.solve(&after).score, "{pos}");
        // Perfect in win/draw/loss terms: the chosen move keeps the position's result.
        let best = solver.solve(pos).score;
        assert_eq!(margin.signum(), best.signum(), "{pos} ({is_reached})");
        if !is_reached {
            // Off the reachable set the solver decides: its margin is the position's best.
            assert_eq!(margin, best, "{pos}");
        }
        assert!(!score.to_string().contains("expects"), "{score}");
    }
}
