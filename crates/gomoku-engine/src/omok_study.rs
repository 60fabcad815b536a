//! Move classes for studying `omok-ab`'s style: whether a move extends the mover's own lines,
//! blocks the opponent's, both or neither, judged from the board before the move.

use game::Color;
use gomoku::Point;

use crate::omok_ab::{for_each_window, Stones, WINDOW};

/// A move extends when some window through it holds at least this many of the mover's stones
/// and none of the opponent's.
pub const EXTEND_MIN_OWN: usize = 1;

/// A move blocks when some window through it holds at least this many of the opponent's stones
/// and none of the mover's: two, so that a move beside a lone opponent stone is not yet a
/// block (every move near the opponent would be one), while breaking a two, three or four is.
pub const BLOCK_MIN_THEIRS: usize = 2;

/// What a move does to the lines through it (see [`classify_move`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// It extends an own line and blocks none of the opponent's.
    Extend,
    /// It blocks an opponent line and extends none of its own.
    Block,
    /// It does both (in different windows).
    Both,
    /// It does neither: every window through it is empty, mixed, or holds a single opponent
    /// stone.
    Neither,
}

impl MoveKind {
    /// The four kinds, in the order reports list them.
    pub const ALL: [MoveKind; 4] = [
        MoveKind::Extend,
        MoveKind::Block,
        MoveKind::Both,
        MoveKind::Neither,
    ];

    /// Whether the move extends an own line ([`Extend`](Self::Extend) or
    /// [`Both`](Self::Both)).
    #[must_use]
    pub fn extends(self) -> bool {
        matches!(self, MoveKind::Extend | MoveKind::Both)
    }

    /// Whether the move blocks an opponent line ([`Block`](Self::Block) or
    /// [`Both`](Self::Both)).
    #[must_use]
    pub fn blocks(self) -> bool {
        matches!(self, MoveKind::Block | MoveKind::Both)
    }

    /// The kind's name in lower case, as reports print it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            MoveKind::Extend => "extend",
            MoveKind::Block => "block",
            MoveKind::Both => "both",
            MoveKind::Neither => "neither",
        }
    }
}

/// Classifies `me` playing the empty point `p` on `board`, before the move is played. Only the
/// 5-cell windows that contain `p` and lie on the board count (up to five per direction, twenty
/// in all): the move *extends* when one of them holds at least [`EXTEND_MIN_OWN`] stone of
/// `me` and none of the opponent (the move adds to a line that can still become a five), and
/// *blocks* when one of them holds at least [`BLOCK_MIN_THEIRS`] opponent stones and none of
/// `me` (the move spoils a window where the opponent has a two or more). `None` when `p` is off
/// the board or occupied.
#[must_use]
pub fn classify_move<B: Stones + ?Sized>(board: &B, p: Point, me: Color) -> Option<MoveKind> {
    if !p.on_board(board.size()) || board.stone(p).is_some() {
        return None;
    }
    let (mut extends, mut blocks) = (false, false);
    for_each_window(board, p, 1 - WINDOW..=0, me, |own, theirs| {
        extends |= theirs == 0 && own >= EXTEND_MIN_OWN;
        blocks |= own == 0 && theirs >= BLOCK_MIN_THEIRS;
    });
    Some(match (extends, blocks) {
        (true, true) => MoveKind::Both,
        (true, false) => MoveKind::Extend,
        (false, true) => MoveKind::Block,
        (false, false) => MoveKind::Neither,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gomoku::{Board, Rule};

    fn pt(row: usize, col: usize) -> Point {
        Point::new(row, col).expect("on the board")
    }

    /// A 19x19 freestyle board with these black and white stones.
    fn board(black: &[(usize, usize)], white: &[(usize, usize)]) -> Board {
        let stones = black
            .iter()
            .map(|&(r, c)| (pt(r, c), Color::Black))
            .chain(white.iter().map(|&(r, c)| (pt(r, c), Color::White)));
        Board::with_stones(19, Rule::Freestyle, stones, Color::Black).expect("a board")
    }

    #[test]
    fn extend_block_both_neither_by_hand() {
        // Black (9,9); white (5,5) and (5,6), a two on row 5.
        let b = board(&[(9, 9)], &[(5, 5), (5, 6)]);
        // Beside black's stone, far from white's: extends.
        assert_eq!(
            classify_move(&b, pt(9, 10), Color::Black),
            Some(MoveKind::Extend)
        );
        // Four points from black along the row: (9,5)..(9,9) holds the stone, still extends.
        assert_eq!(
            classify_move(&b, pt(9, 5), Color::Black),
            Some(MoveKind::Extend)
        );
        // Five points away: no window holds both points.
        assert_eq!(
            classify_move(&b, pt(9, 4), Color::Black),
            Some(MoveKind::Neither)
        );
        // On white's row beside its two: blocks (the window (5,3)..(5,7) holds two white and
        // nothing black).
        assert_eq!(
            classify_move(&b, pt(5, 7), Color::Black),
            Some(MoveKind::Block)
        );
        // (7,7) lies on the diagonal (5,5)..(9,9): the windows (3,3)..(7,7) and (4,4)..(8,8)
        // hold white's (5,5) alone (one stone: no block), (6,6)..(10,10) and (7,7)..(11,11)
        // black's (9,9) alone (an extension); no other line through (7,7) meets a stone.
        assert_eq!(
            classify_move(&b, pt(7, 7), Color::Black),
            Some(MoveKind::Extend)
        );
        // For white the same point: (7,7)..(11,11) holds one black stone, not a block; the
        // window (3,3)..(7,7) holds white's (5,5): it extends.
        assert_eq!(
            classify_move(&b, pt(7, 7), Color::White),
            Some(MoveKind::Extend)
        );
        // Beside a lone opponent stone only: neither.
        assert_eq!(
            classify_move(&b, pt(9, 11), Color::White),
            Some(MoveKind::Neither)
        );
        // White beside its own two and on the way of nothing black: extends.
        assert_eq!(
            classify_move(&b, pt(5, 4), Color::White),
            Some(MoveKind::Extend)
        );
    }

    #[test]
    fn both_and_edges() {
        // Black two on column 3 (rows 2, 3); white two on row 6 (columns 4, 5). (6,3) is on
        // black's column (rows 2..6 window: two black, nothing white) and beside white's two
        // on row 6 (columns 1..5 window: two white, nothing black): both.
        let b = board(&[(2, 3), (3, 3)], &[(6, 4), (6, 5)]);
        let both = classify_move(&b, pt(6, 3), Color::Black);
        assert_eq!(both, Some(MoveKind::Both));
        assert!(both.is_some_and(|k| k.extends() && k.blocks()));
        // Occupied and off-board points have no class.
        assert_eq!(classify_move(&b, pt(2, 3), Color::Black), None);
        assert_eq!(classify_move(&b, pt(19, 0), Color::Black), None);
        assert_eq!(classify_move(&b, pt(0, 19), Color::White), None);
        // A corner: windows only inward. White two at (0,1), (0,2): black at (0,0) blocks.
        let b = board(&[(10, 10)], &[(0, 1), (0, 2)]);
        assert_eq!(
            classify_move(&b, pt(0, 0), Color::Black),
            Some(MoveKind::Block)
        );
        // An empty board: every move is neither.
        let empty = board(&[], &[]);
        assert_eq!(
            classify_move(&empty, pt(9, 9), Color::Black),
            Some(MoveKind::Neither)
        );
        assert_eq!(MoveKind::ALL.len(), 4);
        assert_eq!(MoveKind::Block.name(), "block");
        assert!(!MoveKind::Neither.extends() && !MoveKind::Extend.blocks());
    }

    #[test]
    fn a_window_holding_both_colours_counts_for_neither() {
        // Black (9,7), white (9,8) and (9,11). Through (9,10) on row 9: (9,6)..(9,10) and
        // (9,7)..(9,11) hold both colours (nothing), (9,8)..(9,12) two white stones and no
        // black one (a block), the rest white's (9,11) alone.
        let b = board(&[(9, 7)], &[(9, 8), (9, 11)]);
        assert_eq!(
            classify_move(&b, pt(9, 10), Color::Black),
            Some(MoveKind::Block)
        );
        // For white, (9,10) extends (e.g. (9,10)..(9,14) holds (9,11) alone) and blocks
        // nothing (black has one stone).
        assert_eq!(
            classify_move(&b, pt(9, 10), Color::White),
            Some(MoveKind::Extend)
        );
        // Black at (9,6): windows (9,2)..(9,6) through (9,6)..(9,10); those reaching (9,8)
        // hold white, those short of it hold black's (9,7) alone: extends.
        assert_eq!(
            classify_move(&b, pt(9, 6), Color::Black),
            Some(MoveKind::Extend)
        );
    }
}
