//! Replaying game records: transcripts of squares with implicit passes, as WTHOR and most
//! Othello software write them.

use game::{Game, IllegalReason};

use crate::square::{parse_transcript, Move, NotationError, Square};
use crate::Othello;

/// A game replayed move by move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay<const N: usize> {
    moves: Vec<Move>,
    positions: Vec<Othello<N>>,
}

impl<const N: usize> Replay<N> {
    /// Every move played, with the implicit passes made explicit.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The position before each move, then the final one (`moves().len() + 1` entries, never
    /// empty).
    #[must_use]
    pub fn positions(&self) -> &[Othello<N>] {
        &self.positions
    }

    /// The last position reached.
    #[must_use]
    pub fn last(&self) -> &Othello<N> {
        // `positions` is private and always holds at least the start position.
        &self.positions[self.positions.len() - 1]
    }

    /// The transcript (lower case, passes left out).
    #[must_use]
    pub fn transcript(&self) -> String {
        transcript(&self.moves)
    }
}

/// Error for a record that breaks the rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// A move of the record is illegal where it stands.
    #[error("move {number} ({square}) is illegal: {reason}")]
    Illegal {
        /// 1-based number of the move in the record (passes not counted).
        number: usize,
        /// The square.
        square: Square,
        /// Why.
        reason: IllegalReason,
    },
    /// The transcript text is malformed.
    #[error(transparent)]
    Notation(#[from] NotationError),
}

/// Replays `squares` from `start`, inserting a pass wherever the side to move has no legal move
/// (passes are implicit in records).
///
/// # Errors
/// [`ReplayError::Illegal`] at the first move that breaks the rules.
pub fn replay<const N: usize>(
    start: &Othello<N>,
    squares: &[Square],
) -> Result<Replay<N>, ReplayError> {
    let mut pos = *start;
    let mut moves = Vec::with_capacity(squares.len() + 2);
    let mut positions = Vec::with_capacity(squares.len() + 3);
    positions.push(pos);
    for (i, &square) in squares.iter().enumerate() {
        if pos.must_pass() {
            pos = pos.passed();
            moves.push(Move::Pass);
            positions.push(pos);
        }
        pos = pos
            .play(Move::Place(square))
            .map_err(|e| ReplayError::Illegal {
                number: i + 1,
                square,
                reason: e.reason,
            })?;
        moves.push(Move::Place(square));
        positions.push(pos);
    }
    Ok(Replay { moves, positions })
}

/// Parses and replays a transcript such as `f5d6c3d3c4` from the standard start.
///
/// # Errors
/// A [`ReplayError`] for malformed text or an illegal move.
pub fn replay_transcript<const N: usize>(text: &str) -> Result<Replay<N>, ReplayError> {
    replay(&Othello::<N>::new(), &parse_transcript(text)?)
}

/// A lower-case transcript of moves, passes left out.
#[must_use]
pub fn transcript(moves: &[Move]) -> String {
    moves
        .iter()
        .filter_map(|m| match m {
            Move::Place(sq) => Some(sq.to_string()),
            Move::Pass => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Othello8;

    #[test]
    fn replays_with_implicit_passes() {
        // The shortest 8x8 game: black wins in nine moves, no pass.
        let r = replay_transcript::<8>("f5d6c5f4e3f6g5e6e7").unwrap();
        assert!(r.last().is_over());
        assert_eq!(r.transcript(), "f5d6c5f4e3f6g5e6e7");
        // An illegal second move is reported with its number and leaves nothing half-done.
        let err = replay_transcript::<8>("f5f5").unwrap_err();
        assert!(matches!(
            err,
            ReplayError::Illegal {
                number: 2,
                reason: IllegalReason::Occupied,
                ..
            }
        ));
        assert!(matches!(
            replay_transcript::<8>("f5x9"),
            Err(ReplayError::Notation(_))
        ));
        let _ = Othello8::new();
    }

    #[test]
    fn inserts_passes_on_4x4() {
        // Find a 4x4 game with a pass by brute force, then check that replaying its transcript
        // restores the pass.
        fn search(pos: Othello<4>, line: &mut Vec<Move>) -> Option<Vec<Move>> {
            if line.contains(&Move::Pass) && pos.is_over() {
                return Some(line.clone());
            }
            for mv in pos.legal_moves() {
                line.push(mv);
                if let Some(found) = search(pos.play_unchecked(mv), line) {
                    return Some(found);
                }
                line.pop();
            }
            None
        }
        let line = search(Othello::<4>::new(), &mut Vec::new()).expect("4x4 has games with passes");
        let r = replay_transcript::<4>(&transcript(&line)).unwrap();
        assert_eq!(r.moves(), line);
    }
}
