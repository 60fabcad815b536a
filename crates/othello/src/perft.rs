//! Perft: counting the leaves of the game tree to a fixed depth, the standard check of a move
//! generator.
//!
//! Convention ("a pass consumes a ply", as in the published 8x8 table): a forced pass is one ply
//! of depth, and a finished game reached before full depth counts as one leaf. The last ply is
//! bulk-counted: a node at depth 1 contributes the number of its legal moves (or 1 when it must
//! pass or the game is over) without making them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::bitboard::flips;
#[cfg(target_arch = "x86_64")]
use crate::bitboard::has_x86_64_v3;
use crate::bitboard::legal_moves;
use crate::Othello;

/// Leaves at `depth` plies below `pos` (see the module docs for the convention).
#[must_use]
pub fn perft<const N: usize>(pos: &Othello<N>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    perft_node::<N>(pos.player(), pos.opponent(), depth)
}

/// The kernel the CPU supports best, chosen once per call.
#[inline]
fn perft_node<const N: usize>(player: u64, opponent: u64, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_x86_64_v3() {
        // SAFETY: the CPU supports every feature `perft_x86_64_v3` is compiled with (just checked).
        return unsafe { perft_x86_64_v3::<N>(player, opponent, depth) };
    }
    perft_portable_node::<N>(player, opponent, depth)
}

/// One recursive perft kernel; instantiated plain (portable) and with x86-64-v3 features, where
/// the same bitboard code compiles to hardware popcount, bit scans and AVX2 shifts.
macro_rules! perft_kernel {
    ($(#[$attr:meta])* fn $name:ident) => {
        $(#[$attr])*
        fn $name<const N: usize>(player: u64, opponent: u64, depth: u32) -> u64 {
            let mask = Othello::<N>::MASK;
            let mut moves = legal_moves(player, opponent) & mask;
            if depth <= 1 {
                return u64::from(moves.count_ones().max(1));
            }
            if moves == 0 {
                return if legal_moves(opponent, player) & mask == 0 {
                    1
                } else {
                    $name::<N>(opponent, player, depth - 1)
                };
            }
            let mut total = 0;
            if depth == 2 {
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    let f = flips(sq, player, opponent);
                    let replies = legal_moves(opponent ^ f, player | f | 1 << sq) & mask;
                    total += u64::from(replies.count_ones().max(1));
                }
            } else {
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    let f = flips(sq, player, opponent);
                    total += $name::<N>(opponent ^ f, player | f | 1 << sq, depth - 1);
                }
            }
            total
        }
    };
}

perft_kernel!(fn perft_portable_node);

#[cfg(target_arch = "x86_64")]
perft_kernel!(
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn perft_x86_64_v3
);

/// [`perft`] with the portable kernel only (no CPU-specific instructions): the baseline the
/// dispatched kernel is checked and measured against.
#[must_use]
pub fn perft_portable<const N: usize>(pos: &Othello<N>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    perft_portable_node::<N>(pos.player(), pos.opponent(), depth)
}

/// [`perft`] on `threads` threads: the tree is split a few plies down into subtrees that the
/// threads take in turn. Gives exactly the same count as `perft`.
#[must_use]
pub fn perft_parallel<const N: usize>(pos: &Othello<N>, depth: u32, threads: usize) -> u64 {
    let threads = threads.max(1);
    let split = depth.saturating_sub(1).min(if depth > 8 { 4 } else { 2 });
    if threads == 1 || split == 0 {
        return perft(pos, depth);
    }
    let mut tasks = Vec::new();
    let mut leaves = 0;
    collect_subtrees::<N>(pos.player(), pos.opponent(), split, &mut tasks, &mut leaves);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = threads.min(tasks.len()).min(4 * cores).max(1);
    let next = AtomicUsize::new(0);
    let total = Mutex::new(leaves);
    let remaining = depth - split;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut sum = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(p, o)) = tasks.get(i) else { break };
                    sum += perft_node::<N>(p, o, remaining);
                }
                *total.lock().unwrap_or_else(|e| e.into_inner()) += sum;
            });
        }
    });
    total.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Walks `plies` plies down, pushing each position reached; a game that ends earlier adds one
/// leaf instead.
fn collect_subtrees<const N: usize>(
    player: u64,
    opponent: u64,
    plies: u32,
    tasks: &mut Vec<(u64, u64)>,
    leaves: &mut u64,
) {
    if plies == 0 {
        tasks.push((player, opponent));
        return;
    }
    let mask = Othello::<N>::MASK;
    let mut moves = legal_moves(player, opponent) & mask;
    if moves == 0 {
        if legal_moves(opponent, player) & mask == 0 {
            *leaves += 1;
        } else {
            collect_subtrees::<N>(opponent, player, plies - 1, tasks, leaves);
        }
        return;
    }
    while moves != 0 {
        let sq = moves.trailing_zeros();
        moves &= moves - 1;
        let f = flips(sq, player, opponent);
        collect_subtrees::<N>(opponent ^ f, player | f | 1 << sq, plies - 1, tasks, leaves);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Othello4, Othello6, Othello8};

    #[test]
    fn parallel_equals_sequential() {
        for depth in 0..=9 {
            assert_eq!(
                perft_parallel(&Othello8::new(), depth, 3),
                perft(&Othello8::new(), depth)
            );
        }
        for depth in [5, 9, 12, 14] {
            assert_eq!(
                perft_parallel(&Othello4::new(), depth, 2),
                perft(&Othello4::new(), depth)
            );
        }
        assert_eq!(
            perft_parallel(&Othello6::new(), 9, 2),
            perft(&Othello6::new(), 9)
        );
    }

    #[test]
    fn dispatched_kernel_matches_portable_kernel() {
        for depth in 0..=8 {
            assert_eq!(
                perft(&Othello8::new(), depth),
                perft_portable(&Othello8::new(), depth)
            );
        }
        let pos = crate::replay_transcript::<8>("f5d6c3d3c4f4c5b3c2e6c6b4").unwrap();
        assert_eq!(perft(pos.last(), 6), perft_portable(pos.last(), 6));
    }

    #[test]
    fn all_kernels_agree_on_random_positions_of_every_size() {
        use game::Game;
        use rand::rngs::ChaCha8Rng;
        use rand::{RngExt, SeedableRng};
        fn check<const N: usize>(rng: &mut ChaCha8Rng, games: usize, depth: u32) {
            for _ in 0..games {
                let mut pos = Othello::<N>::new();
                while !pos.is_over() {
                    let fast = perft(&pos, depth);
                    assert_eq!(fast, perft_portable(&pos, depth), "{pos}");
                    assert_eq!(fast, game::perft(&pos, depth), "{pos}");
                    let moves = pos.legal_moves();
                    pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
                }
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        check::<4>(&mut rng, 30, 4);
        check::<6>(&mut rng, 10, 3);
        check::<8>(&mut rng, 5, 3);
    }

    #[test]
    fn fast_perft_matches_generic_perft_through_the_game_trait() {
        for depth in 0..=6 {
            assert_eq!(
                perft(&Othello8::new(), depth),
                game::perft(&Othello8::new(), depth)
            );
            assert_eq!(
                perft(&Othello6::new(), depth),
                game::perft(&Othello6::new(), depth)
            );
        }
        for depth in 0..=13 {
            assert_eq!(
                perft(&Othello4::new(), depth),
                game::perft(&Othello4::new(), depth)
            );
        }
    }
}
