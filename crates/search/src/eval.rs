//! Static evaluation: the [`Evaluator`] trait search takes a heuristic or a network through
//! (one position or a batch at a time), and the scoring of finished games.

use game::Game;

/// Scores at or beyond `WIN` in absolute value are proven results: `WIN + margin` for a win by
/// `margin`, `-(WIN + margin)` for a loss (from a depth-limited search the win is proven but the
/// margin may only be a bound). Heuristic evaluations stay well inside `(-WIN, WIN)`.
pub const WIN: i32 = 1_000_000;

/// The score of a finished game from the side to move's point of view (0 for a draw).
#[must_use]
pub fn terminal_score<G: Game>(pos: &G) -> Option<i32> {
    let outcome = pos.outcome()?;
    let margin = outcome.score_for(pos.side_to_move());
    Some(match margin.signum() {
        1 => WIN + margin,
        -1 => -WIN + margin,
        _ => 0,
    })
}

/// A static evaluation of unfinished positions, from the side to move's point of view, in
/// units the evaluator chooses (Othello's heuristic uses 100 per disc). Implementations must
/// stay strictly inside `(-WIN, WIN)`.
///
/// Search hands positions over in batches where it can ([`evaluate_batch`](Self::evaluate_batch):
/// alpha-beta gives all children of a node it orders, and all leaves of a node one ply above the
/// horizon when [`prefers_batches`](Self::prefers_batches) says so), so an evaluator backed by a
/// network runs one forward pass per batch. The batch must give exactly what one-by-one
/// evaluation gives.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The value of `pos` for the side to move.
    fn evaluate(&self, pos: &G) -> i32;

    /// The values of `positions` (none of them finished), in order. The default loops over
    /// [`evaluate`](Self::evaluate).
    fn evaluate_batch(&self, positions: &[G]) -> Vec<i32> {
        positions.iter().map(|p| self.evaluate(p)).collect()
    }

    /// Whether evaluating a batch costs much less than evaluating its positions one by one (a
    /// network: yes; a hand-written heuristic: no). Alpha-beta then evaluates every leaf of a
    /// node at once, including leaves a cutoff would have skipped.
    fn prefers_batches(&self) -> bool {
        false
    }

    /// The unit of its values: hundredths of the game's unit (Othello: 100 per disc), or its
    /// own (the default: no unit is claimed).
    fn scale(&self) -> crate::ScoreScale {
        crate::ScoreScale::Engine
    }
}

/// Scores every position 0: alpha-beta then only sees proven results.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZeroEvaluator;

impl<G: Game> Evaluator<G> for ZeroEvaluator {
    fn evaluate(&self, _pos: &G) -> i32 {
        0
    }
}

/// An evaluator from a plain function.
pub struct FnEvaluator<F>(pub F);

impl<G: Game, F: Fn(&G) -> i32 + Send + Sync> Evaluator<G> for FnEvaluator<F> {
    fn evaluate(&self, pos: &G) -> i32 {
        (self.0)(pos)
    }
}
