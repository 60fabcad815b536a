//! A plain whole-board evaluation for the game-generic agents (`alphabeta`, `mcts`, `greedy`)
//! on Gomoku: every 5-point window holding stones of one colour only scores by its count.

use game::Game;
use gomoku::{Gomoku, Point, Variant, DIRECTIONS};
use search::Evaluator;

/// Window values by stone count (index 1..=4); a full window is a finished game.
const VALUES: [i32; 5] = [0, 1, 12, 150, 3000];

/// Scores the side to move's windows minus the opponent's, the opponent's weighted a little
/// less (the side to move plays next).
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowEvaluator;

impl<V: Variant> Evaluator<Gomoku<V>> for WindowEvaluator {
    fn evaluate(&self, pos: &Gomoku<V>) -> i32 {
        let board = pos.board();
        let n = V::SIZE as i32;
        let me = pos.side_to_move();
        let mut score: i64 = 0;
        for r in 0..n {
            for c in 0..n {
                for (dr, dc) in DIRECTIONS {
                    let (er, ec) = (r + 4 * dr, c + 4 * dc);
                    if er < 0 || er >= n || ec < 0 || ec >= n {
                        continue;
                    }
                    let (mut mine, mut theirs) = (0usize, 0usize);
                    for k in 0..5 {
                        let p = Point::new((r + k * dr) as usize, (c + k * dc) as usize);
                        match p.and_then(|p| board.stone(p)) {
                            Some(color) if color == me => mine += 1,
                            Some(_) => theirs += 1,
                            None => {}
                        }
                    }
                    match (mine, theirs) {
                        (m, 0) if m > 0 => score += i64::from(VALUES[m.min(4)]) * 5,
                        (0, t) if t > 0 => score -= i64::from(VALUES[t.min(4)]) * 4,
                        _ => {}
                    }
                }
            }
        }
        score.clamp(-900_000, 900_000) as i32
    }
}
