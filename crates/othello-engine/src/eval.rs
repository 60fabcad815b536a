//! The hand-built Othello evaluation: square weights, mobility, potential mobility, corners,
//! stable discs and parity, blended by game stage. Meant to be replaced by a learned one later;
//! it only has to implement [`search::Evaluator`].

use game::Game;
use othello::bitboard::{corners, legal_moves, neighbours};
use othello::{Othello, Square};
use search::Evaluator;

use crate::stable_discs;

/// The weights of [`Heuristic`], in centi-discs (100 = one disc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeuristicWeights {
    /// Per-square values for the side owning the square, indexed by bit (`8 * row + col`).
    pub squares: [i32; 64],
    /// Per unit of relative mobility, `100 * (mine - theirs) / (mine + theirs + 2)`.
    pub mobility: i32,
    /// Per frontier square of difference (empty squares next to the opponent's discs, minus next
    /// to ours).
    pub potential_mobility: i32,
    /// Per corner of difference.
    pub corners: i32,
    /// Per stable disc of difference.
    pub stable: i32,
    /// For the side to move when an odd number of squares is empty (it gets the last move of
    /// each region), in the last `parity_empties` empties.
    pub parity: i32,
    /// Parity counts below this many empty squares.
    pub parity_empties: u32,
}

impl HeuristicWeights {
    /// The default weights for an `n x n` board.
    #[must_use]
    pub fn for_size(n: usize) -> Self {
        let mut squares = [0i32; 64];
        for r in 0..n {
            for c in 0..n {
                let dr = r.min(n - 1 - r);
                let dc = c.min(n - 1 - c);
                squares[8 * r + c] = match (dr.min(dc), dr.max(dc)) {
                    (0, 0) => 100, // corner
                    (0, 1) => -20, // C-square, next to a corner
                    (1, 1) => -50, // X-square, diagonal to a corner
                    (0, 2) => 10,  // A-square
                    (0, _) => 5,   // other edge squares
                    (1, _) => -2,  // the second ring
                    _ => -1,       // the centre
                };
            }
        }
        HeuristicWeights {
            squares,
            mobility: 8,
            potential_mobility: 25,
            corners: 700,
            stable: 120,
            parity: 150,
            parity_empties: 14,
        }
    }
}

/// The hand-built heuristic, from the side to move's point of view, in centi-discs.
///
/// `score = squares + w_m * mobility + w_p * potential + w_c * corners + w_s * stable + parity`,
/// where each term is "mine minus theirs" and the square weights count for the square's owner. In the last third of the game the plain disc difference is blended in, since
/// there the final count is what matters.
#[derive(Clone, Debug)]
pub struct Heuristic<const N: usize> {
    weights: HeuristicWeights,
}

impl<const N: usize> Default for Heuristic<N> {
    fn default() -> Self {
        Heuristic {
            weights: HeuristicWeights::for_size(N),
        }
    }
}

impl<const N: usize> Heuristic<N> {
    /// The heuristic with custom weights.
    #[must_use]
    pub fn with_weights(weights: HeuristicWeights) -> Self {
        Heuristic { weights }
    }

    /// The score of the position for the side to move.
    #[must_use]
    pub fn score(&self, pos: &Othello<N>) -> i32 {
        let w = &self.weights;
        let board = Othello::<N>::MASK;
        let (me, them) = (pos.player(), pos.opponent());
        let empty = !(me | them) & board;
        let empties = empty.count_ones();
        let squares: i32 = Square::iter_bits(me)
            .map(|sq| w.squares[sq.index() as usize])
            .sum::<i32>()
            - Square::iter_bits(them)
                .map(|sq| w.squares[sq.index() as usize])
                .sum::<i32>();
        let my_moves = (legal_moves(me, them) & board).count_ones() as i32;
        let their_moves = (legal_moves(them, me) & board).count_ones() as i32;
        let mobility = 100 * (my_moves - their_moves) / (my_moves + their_moves + 2);
        let potential = (neighbours(them) & empty).count_ones() as i32
            - (neighbours(me) & empty).count_ones() as i32;
        let corners_mask = corners(N);
        let corners =
            (me & corners_mask).count_ones() as i32 - (them & corners_mask).count_ones() as i32;
        let stable = stable_discs(me, them, board).count_ones() as i32
            - stable_discs(them, me, board).count_ones() as i32;
        let parity = if empties <= w.parity_empties {
            if empties % 2 == 1 {
                w.parity
            } else {
                -w.parity
            }
        } else {
            0
        };
        let positional = squares
            + w.mobility * mobility
            + w.potential_mobility * potential
            + w.corners * corners
            + w.stable * stable
            + parity;
        // Blend in the disc difference over the last third of the game.
        let total = (N * N) as i32;
        let late = (total / 3 - empties as i32).max(0);
        let discs = 100 * (me.count_ones() as i32 - them.count_ones() as i32);
        let score = (positional * (total / 3 - late) + discs * late * 2) / (total / 3).max(1);
        score.clamp(-(search::WIN / 2), search::WIN / 2)
    }
}

impl<const N: usize> Evaluator<Othello<N>> for Heuristic<N> {
    fn evaluate(&self, pos: &Othello<N>) -> i32 {
        self.score(pos)
    }

    fn scale(&self) -> search::ScoreScale {
        search::ScoreScale::Centi
    }
}

/// Disc difference for the side to move, 100 per disc: what greedy maximises one ply ahead
/// (the move that flips the most discs).
#[derive(Clone, Copy, Debug, Default)]
pub struct DiscDifference;

impl<const N: usize> Evaluator<Othello<N>> for DiscDifference {
    fn evaluate(&self, pos: &Othello<N>) -> i32 {
        let me = pos.side_to_move();
        100 * (pos.count(me) as i32 - pos.count(me.opponent()) as i32)
    }

    fn scale(&self) -> search::ScoreScale {
        search::ScoreScale::Centi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::{Othello6, Othello8};

    #[test]
    fn symmetric_start_is_even_and_scores_are_antisymmetric_under_colour_swap() {
        let h = Heuristic::<8>::default();
        assert_eq!(h.score(&Othello8::new()), 0);
        let pos = othello::replay_transcript::<8>("f5d6c3d3c4f4c5b3c2").unwrap();
        let p = *pos.last();
        // The same discs with the other side to move: the evaluation of the swapped view.
        let swapped = p.passed();
        let a = h.score(&p);
        let b = h.score(&swapped);
        assert_eq!(a, -b, "{p}");
    }

    #[test]
    fn corners_are_good() {
        let h = Heuristic::<6>::default();
        let with_corner =
            Othello6::from_board_string("X-------------OX----XO-------------- O").unwrap();
        let without =
            Othello6::from_board_string("--------------OX----XO-------------- O").unwrap();
        assert!(h.score(&with_corner) < h.score(&without));
    }
}
