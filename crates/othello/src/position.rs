//! The Othello position for 4x4, 6x6 and 8x8 boards, stored relative to the side to move.

use std::fmt;
use std::str::FromStr;

use game::{Color, Game, IllegalReason, Outcome, Symmetry};

use crate::bitboard;
use crate::square::{Move, NotationError, Square};

/// An Othello position on an `N x N` board (`N` is 4, 6 or 8).
///
/// The discs are two bitboards relative to the side to move (`player`, `opponent`), as in
/// Edax, so negamax search needs no colour branches. Bit `8 * row + col` is a square, `a1` = bit 0
/// (see [`crate::bitboard`]); boards below 8x8 use the low rows and files.
///
/// Rules: black moves first from the standard centre start (`d5`, `e4` black; `d4`, `e5` white on
/// 8x8, and the same pattern at the centre of smaller boards). A move must flip at least one disc.
/// A side with no such move must pass, and a pass is an explicit [`Move::Pass`], legal only then.
/// The game ends when neither side can move. The final score gives every empty square to the
/// winner (the World Othello Federation rule; a draw splits them), so the margin of a 40-20 finish
/// with 4 empties is +24.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Othello<const N: usize> {
    player: u64,
    opponent: u64,
    side: Color,
}

/// Othello on the 4x4 board.
pub type Othello4 = Othello<4>;
/// Othello on the 6x6 board.
pub type Othello6 = Othello<6>;
/// Othello on the standard 8x8 board.
pub type Othello8 = Othello<8>;

/// Error for a board string or bitboards that do not describe a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The board part has the wrong number of squares.
    #[error("board string has {found} squares, expected {expected} ({size}x{size})")]
    WrongLength {
        /// Squares expected.
        expected: usize,
        /// Squares found.
        found: usize,
        /// Board side length.
        size: usize,
    },
    /// A square character other than `X`, `O` or `-`.
    #[error("bad square character {ch:?} at square {index}: expected X, O or -")]
    BadSquare {
        /// The character.
        ch: char,
        /// Its position in the board part.
        index: usize,
    },
    /// No side to move after the board.
    #[error(
        "board string has no side to move after its {squares} squares: add X (black) or O \
         (white){}",
        missing_side_hint(*.ends_with_side)
    )]
    MissingSide {
        /// Squares found (the board's count).
        squares: usize,
        /// The board part ends with a character that also names a side (`X`, `O`): with one
        /// square too few, it was meant as the side to move.
        ends_with_side: bool,
    },
    /// Something other than one side letter after the board.
    #[error("bad side to move {0:?}: expected X (black) or O (white)")]
    BadSide(String),
    /// Bitboards that overlap or use squares off the board.
    #[error("bitboards overlap or use squares off the {0}x{0} board")]
    BadBitboards(usize),
    /// A centre square is empty: no game reaches such a position.
    #[error(
        "impossible position: centre square {square} is empty, but every Othello position has \
         the four centre squares filled (they start filled and discs are never removed)"
    )]
    EmptyCentre {
        /// The first empty centre square.
        square: Square,
    },
}

impl PositionError {
    /// Whether the text was read but describes a position no game reaches (as opposed to text
    /// that is not a board string at all).
    #[must_use]
    pub fn is_impossible(&self) -> bool {
        matches!(self, PositionError::EmptyCentre { .. })
    }
}

fn missing_side_hint(ends_with_side: bool) -> &'static str {
    if ends_with_side {
        "; if the last character was meant as the side to move, one square is missing"
    } else {
        ""
    }
}

/// The four centre squares of an `n x n` board (`d4`, `e4`, `d5`, `e5` on 8x8).
const fn centre(n: usize) -> u64 {
    let d4 = 1u64 << (9 * (n / 2 - 1));
    d4 | d4 << 1 | d4 << 8 | d4 << 9
}

const fn board_mask(n: usize) -> u64 {
    let row = (1u64 << n) - 1;
    let mut mask = 0;
    let mut r = 0;
    while r < n {
        mask |= row << (8 * r);
        r += 1;
    }
    mask
}

const fn game_id(n: usize) -> &'static str {
    match n {
        4 => "othello4",
        6 => "othello6",
        _ => "othello8",
    }
}

/// A well-mixed 64-bit hash step (the splitmix64 finaliser).
use game::hash::mix64 as mix;

impl<const N: usize> Othello<N> {
    const SIZE_OK: () = assert!(
        N == 4 || N == 6 || N == 8,
        "Othello boards are 4x4, 6x6 or 8x8"
    );

    /// The squares of this board in the 8x8 layout.
    pub const MASK: u64 = board_mask(N);
    /// The four centre squares, filled in every position a game reaches.
    pub const CENTRE: u64 = centre(N);
    /// Number of squares.
    pub const SQUARES: usize = N * N;

    /// The standard start: black to move, the two centre diagonals filled.
    #[must_use]
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::SIZE_OK;
        let c = N / 2 - 1;
        let d4 = 1u64 << (9 * c); // the lower-left centre square (d4 on 8x8)
        let black = d4 << 1 | d4 << 8;
        let white = d4 | d4 << 9;
        Othello {
            player: black,
            opponent: white,
            side: Color::Black,
        }
    }

    /// A position from absolute bitboards (bit 0 = `a1`) and the side to move. Any arrangement
    /// of discs is accepted (puzzles, tests); [`validate`](Self::validate) checks that a game
    /// can reach it.
    ///
    /// # Errors
    /// [`PositionError::BadBitboards`] when the boards overlap or use squares off this board.
    pub const fn from_bitboards(
        black: u64,
        white: u64,
        side: Color,
    ) -> Result<Self, PositionError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::SIZE_OK;
        if black & white != 0 || (black | white) & !Self::MASK != 0 {
            return Err(PositionError::BadBitboards(N));
        }
        Ok(match side {
            Color::Black => Othello {
                player: black,
                opponent: white,
                side,
            },
            Color::White => Othello {
                player: white,
                opponent: black,
                side,
            },
        })
    }

    /// The discs of the side to move.
    #[must_use]
    pub const fn player(&self) -> u64 {
        self.player
    }

    /// The discs of the side not to move.
    #[must_use]
    pub const fn opponent(&self) -> u64 {
        self.opponent
    }

    /// The discs of `color`.
    #[must_use]
    pub fn discs(&self, color: Color) -> u64 {
        if color == self.side {
            self.player
        } else {
            self.opponent
        }
    }

    /// How many discs `color` has.
    #[must_use]
    pub fn count(&self, color: Color) -> u32 {
        self.discs(color).count_ones()
    }

    /// The empty squares of this board.
    #[must_use]
    pub const fn empty(&self) -> u64 {
        !(self.player | self.opponent) & Self::MASK
    }

    /// The squares where the side to move may place a disc (0 when it must pass or the game is
    /// over).
    #[inline]
    #[must_use]
    pub fn moves(&self) -> u64 {
        bitboard::legal_moves(self.player, self.opponent) & Self::MASK
    }

    /// The discs a move to `sq` would flip (0 when the move is illegal).
    #[inline]
    #[must_use]
    pub fn flips(&self, sq: Square) -> u64 {
        if self.empty() & sq.bit() == 0 {
            return 0;
        }
        bitboard::flips(sq.index(), self.player, self.opponent)
    }

    /// Whether the side to move has no disc to place but the game goes on (it must pass).
    #[must_use]
    pub fn must_pass(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() != 0
    }

    fn opponent_moves(&self) -> u64 {
        bitboard::legal_moves(self.opponent, self.player) & Self::MASK
    }

    /// The position after the side to move places a disc on `sq`, flipping `flipped`.
    #[inline]
    #[must_use]
    pub const fn with_move(&self, sq: Square, flipped: u64) -> Self {
        Othello {
            player: self.opponent ^ flipped,
            opponent: self.player | flipped | sq.bit(),
            side: self.side.opponent(),
        }
    }

    /// The position after a pass.
    #[must_use]
    pub const fn passed(&self) -> Self {
        Othello {
            player: self.opponent,
            opponent: self.player,
            side: self.side.opponent(),
        }
    }

    /// Black's final margin with empties given to the winner, as if the game ended now.
    #[must_use]
    pub fn final_margin(&self) -> i32 {
        let black = self.count(Color::Black) as i32;
        let white = self.count(Color::White) as i32;
        let empty = self.empty().count_ones() as i32;
        match black.cmp(&white) {
            std::cmp::Ordering::Greater => black - white + empty,
            std::cmp::Ordering::Less => black - white - empty,
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// The board string: `N*N` characters `X` (black), `O` (white), `-` (empty) from `a1` along
    /// each rank to the last square, a space, then the side to move (`X` or `O`). For 8x8 this is
    /// the FFO `.obf` format.
    #[must_use]
    pub fn board_string(&self) -> String {
        let black = self.discs(Color::Black);
        let white = self.discs(Color::White);
        let mut s = String::with_capacity(N * N + 2);
        for r in 0..N {
            for c in 0..N {
                let bit = 1u64 << (8 * r + c);
                s.push(if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else {
                    '-'
                });
            }
        }
        s.push(' ');
        s.push(self.side.symbol());
        s
    }

    /// Reads a board string (see [`board_string`](Self::board_string)) as written, whatever
    /// the arrangement of discs (puzzles, tests). Also accepts `x`/`*` for black, `o` for white,
    /// `.` for empty, and `B`/`W` for the side; white space between the board and the side is
    /// optional. Text from outside goes through [`parse`](str::parse) ([`FromStr`]), which also
    /// [validates](Self::validate) the position.
    ///
    /// # Errors
    /// A [`PositionError`] saying what is wrong.
    pub fn from_board_string(text: &str) -> Result<Self, PositionError> {
        let chars: Vec<char> = text.trim().chars().collect();
        let is_square = |c: &char| matches!(c, 'X' | 'x' | '*' | 'O' | 'o' | '-' | '.');
        let run = chars.iter().take_while(|c| is_square(c)).count();
        if run < N * N {
            return Err(match chars.get(run) {
                Some(&ch) if !ch.is_whitespace() => PositionError::BadSquare { ch, index: run },
                _ => PositionError::WrongLength {
                    expected: N * N,
                    found: run,
                    size: N,
                },
            });
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (i, ch) in chars[..N * N].iter().enumerate() {
            let bit = 1u64 << (8 * (i / N) + i % N);
            match ch {
                'X' | 'x' | '*' => black |= bit,
                'O' | 'o' => white |= bit,
                _ => {}
            }
        }
        let side_text: String = chars[N * N..].iter().collect();
        let side = match side_text.trim() {
            "" => {
                return Err(PositionError::MissingSide {
                    squares: N * N,
                    ends_with_side: matches!(chars[N * N - 1], 'X' | 'x' | '*' | 'O' | 'o'),
                })
            }
            "X" | "x" | "B" | "b" | "*" => Color::Black,
            "O" | "o" | "W" | "w" => Color::White,
            _ if run > N * N + 1 => {
                return Err(PositionError::WrongLength {
                    expected: N * N,
                    found: run,
                    size: N,
                });
            }
            other => return Err(PositionError::BadSide(other.to_string())),
        };
        Self::from_bitboards(black, white, side)
    }

    /// Checks that a game can reach this position: the four centre squares are filled (they
    /// start filled and discs are never removed).
    ///
    /// # Errors
    /// [`PositionError::EmptyCentre`] naming the first empty centre square.
    pub fn validate(&self) -> Result<(), PositionError> {
        let empty = Self::CENTRE & !(self.player | self.opponent);
        match Square::from_index(empty.trailing_zeros()) {
            Some(square) => Err(PositionError::EmptyCentre { square }),
            None => Ok(()),
        }
    }

    /// The position as one number: each square a base-3 digit (0 empty, 1 black, 2 white; `a1`
    /// the lowest, along each rank), times two, plus 1 when white is to move. Exact: equal keys
    /// mean equal positions.
    #[must_use]
    pub fn base3_key(&self) -> u128 {
        let black = self.discs(Color::Black);
        let white = self.discs(Color::White);
        let mut key: u128 = 0;
        for r in (0..N).rev() {
            for c in (0..N).rev() {
                let bit = 1u64 << (8 * r + c);
                let digit = if black & bit != 0 {
                    1
                } else if white & bit != 0 {
                    2
                } else {
                    0
                };
                key = key * 3 + digit;
            }
        }
        key * 2 + u128::from(self.side == Color::White)
    }

    /// A text diagram with coordinates: `X` black, `O` white, `.` empty, `*` a legal move of the
    /// side to move, then the disc counts and whose turn it is.
    #[must_use]
    pub fn diagram(&self) -> String {
        let files: String = (0..N)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let black = self.discs(Color::Black);
        let white = self.discs(Color::White);
        let moves = self.moves();
        let mut out = format!("  {files}\n");
        for r in 0..N {
            out.push_str(&format!("{:>2}", r + 1));
            for c in 0..N {
                let bit = 1u64 << (8 * r + c);
                let ch = if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else if moves & bit != 0 {
                    '*'
                } else {
                    '.'
                };
                out.push(' ');
                out.push(ch);
            }
            out.push_str(&format!(" {}\n", r + 1));
        }
        out.push_str(&format!("  {files}\n"));
        out.push_str(&format!(
            "X (black) {}  O (white) {}  ",
            black.count_ones(),
            white.count_ones()
        ));
        match self.outcome() {
            Some(o) => match o.winner() {
                Some(w) => out.push_str(&format!("game over: {w} wins by {}", o.score_for(w))),
                None => out.push_str("game over: draw"),
            },
            None => out.push_str(&format!("{} ({}) to move", self.side.symbol(), self.side)),
        }
        out
    }
}

impl<const N: usize> Default for Othello<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> fmt::Display for Othello<N> {
    /// The board string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board_string())
    }
}

/// A board string from outside: read by [`Othello::from_board_string`], then
/// [validated](Othello::validate).
impl<const N: usize> FromStr for Othello<N> {
    type Err = PositionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let pos = Self::from_board_string(s)?;
        pos.validate()?;
        Ok(pos)
    }
}

fn transform_bits(bits: u64, sym: Symmetry, n: usize) -> u64 {
    Square::iter_bits(bits).fold(0, |acc, sq| {
        let (r, c) = sym.apply(sq.row(), sq.col(), n);
        acc | 1u64 << (8 * r + c)
    })
}

impl<const N: usize> Game for Othello<N> {
    type Move = Move;
    type MoveParseError = NotationError;

    const ID: &'static str = game_id(N);
    const NUM_ACTIONS: usize = N * N + 1;
    const BOARD_SIZE: usize = N;

    fn start() -> Self {
        Self::new()
    }

    fn stone_at(&self, index: usize) -> Option<Color> {
        if index >= N * N {
            return None;
        }
        let bit = Square::new(index / N, index % N)?.bit();
        if self.discs(Color::Black) & bit != 0 {
            Some(Color::Black)
        } else if self.discs(Color::White) & bit != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    fn counts(&self) -> (u32, u32) {
        (self.count(Color::Black), self.count(Color::White))
    }

    fn pass() -> Option<Move> {
        Some(Move::Pass)
    }

    fn forced_pass(&self) -> Option<Move> {
        self.must_pass().then_some(Move::Pass)
    }

    fn side_to_move(&self) -> Color {
        self.side
    }

    fn legal_moves(&self) -> Vec<Move> {
        let moves = self.moves();
        if moves != 0 {
            Square::iter_bits(moves).map(Move::Place).collect()
        } else if self.opponent_moves() != 0 {
            vec![Move::Pass]
        } else {
            Vec::new()
        }
    }

    fn check(&self, mv: Move) -> Result<(), IllegalReason> {
        let moves = self.moves();
        if moves == 0 && self.opponent_moves() == 0 {
            return Err(IllegalReason::GameOver);
        }
        match mv {
            Move::Pass if moves == 0 => Ok(()),
            Move::Pass => Err(IllegalReason::PassNotForced),
            Move::Place(sq) if !sq.on_board(N) => Err(IllegalReason::OffBoard),
            Move::Place(sq) if self.empty() & sq.bit() == 0 => Err(IllegalReason::Occupied),
            Move::Place(_) if moves == 0 => Err(IllegalReason::MustPass),
            // Decided by the flip kernel, not the move mask, so that the conformance suite's
            // brute force compares the two independent kernels.
            Move::Place(sq) if self.flips(sq) == 0 => Err(IllegalReason::NoCapture),
            Move::Place(_) => Ok(()),
        }
    }

    #[inline]
    fn play_unchecked(&self, mv: Move) -> Self {
        match mv {
            // Off this board there is nothing to place: never leave a hidden disc there.
            Move::Place(sq) if !sq.on_board(N) => self.passed(),
            Move::Place(sq) => {
                self.with_move(sq, bitboard::flips(sq.index(), self.player, self.opponent))
            }
            Move::Pass => self.passed(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.moves() != 0 || self.opponent_moves() != 0 {
            None
        } else {
            Some(Outcome::from_black_margin(self.final_margin()))
        }
    }

    fn hash_key(&self) -> u64 {
        let black = self.discs(Color::Black);
        let white = self.discs(Color::White);
        let side = match self.side {
            Color::Black => 0x9e37_79b9_7f4a_7c15,
            Color::White => 0x6a09_e667_f3bc_c909,
        };
        mix(black ^ mix(white ^ side))
    }

    fn parse_move(s: &str) -> Result<Move, NotationError> {
        let mv: Move = s.parse()?;
        match mv {
            Move::Place(square) if !square.on_board(N) => {
                Err(NotationError::OffBoard { square, size: N })
            }
            _ => Ok(mv),
        }
    }

    fn action_index(mv: Move) -> usize {
        match mv {
            // A square off this board (only made by bypassing `parse_move`) gets an index that
            // is not below NUM_ACTIONS; `check` and `play` reject such moves.
            Move::Place(sq) => sq.row() * N + sq.col(),
            Move::Pass => N * N,
        }
    }

    fn action_move(index: usize) -> Option<Move> {
        match index.cmp(&(N * N)) {
            std::cmp::Ordering::Less => Square::new(index / N, index % N).map(Move::Place),
            std::cmp::Ordering::Equal => Some(Move::Pass),
            std::cmp::Ordering::Greater => None,
        }
    }

    fn transform(&self, sym: Symmetry) -> Self {
        Othello {
            player: transform_bits(self.player, sym, N),
            opponent: transform_bits(self.opponent, sym, N),
            side: self.side,
        }
    }

    /// The image with the smallest Black discs, then White discs, as 64-bit numbers (the order
    /// of [`game::canonical_image`], whose points go in the same row-major order); on
    /// 8x8 through the fast transforms of [`crate::dataset::transform_bits`], so it is the
    /// image [`crate::dataset::StateKey::canonical`] keys a merged dataset by.
    fn canonical(&self) -> Self {
        let image = |sym: Symmetry| {
            if N == 8 {
                Othello {
                    player: crate::dataset::transform_bits(self.player, sym),
                    opponent: crate::dataset::transform_bits(self.opponent, sym),
                    side: self.side,
                }
            } else {
                self.transform(sym)
            }
        };
        Symmetry::ALL
            .iter()
            .map(|&sym| image(sym))
            .min_by_key(|p| (p.discs(Color::Black), p.discs(Color::White)))
            .unwrap_or(*self)
    }

    fn transform_move(mv: Move, sym: Symmetry) -> Move {
        match mv {
            Move::Place(sq) if sq.on_board(N) => {
                let (r, c) = sym.apply(sq.row(), sq.col(), N);
                Square::new(r, c).map_or(mv, Move::Place)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_of_every_size() {
        assert_eq!(Othello4::new().to_string(), "-----OX--XO----- X");
        assert_eq!(
            Othello6::new().to_string(),
            "--------------OX----XO-------------- X"
        );
        assert_eq!(Othello8::new().board_string().len(), 66);
        for pos in [Othello4::new().legal_moves(), Othello6::new().legal_moves()] {
            assert_eq!(pos.len(), 4);
        }
    }

    #[test]
    fn check_gives_the_reason() {
        let pos = Othello8::new();
        let mv = |s: &str| s.parse::<Move>().unwrap();
        assert_eq!(pos.check(mv("d4")), Err(IllegalReason::Occupied));
        assert_eq!(pos.check(mv("a1")), Err(IllegalReason::NoCapture));
        assert_eq!(pos.check(Move::Pass), Err(IllegalReason::PassNotForced));
        assert_eq!(
            Othello6::new().check(mv("h8")),
            Err(IllegalReason::OffBoard)
        );
        let err = pos.play(mv("a1")).unwrap_err();
        assert_eq!(err.to_string(), "illegal move a1: it would flip no disc");
        // Black to move with no disc to place, white can still move: black must pass.
        let must = Othello4::from_board_string("OX-------------- X").unwrap();
        assert_eq!(must.legal_moves(), vec![Move::Pass]);
        assert_eq!(must.check(mv("c1")), Err(IllegalReason::MustPass));
        let over = Othello4::from_board_string("XX-------------- O").unwrap();
        assert_eq!(over.check(mv("c1")), Err(IllegalReason::GameOver));
        // 2 black discs, 14 empties: black wins 16-0.
        assert_eq!(over.outcome(), Some(Outcome::from_black_margin(16)));
    }

    #[test]
    fn diagram_shows_coordinates_counts_and_moves() {
        let text = Othello4::new().diagram();
        let expected =
            "   a b c d\n 1 . * . . 1\n 2 * O X . 2\n 3 . X O * 3\n 4 . . * . 4\n   a b c d\n\
                        X (black) 2  O (white) 2  X (black) to move";
        assert_eq!(text, expected);
    }

    #[test]
    fn base3_keys() {
        let start = Othello4::new();
        // b2 (index 5) and c3 (10) white, c2 (6) and b3 (9) black.
        let expected = 2 * 3u128.pow(5) + 3u128.pow(6) + 3u128.pow(9) + 2 * 3u128.pow(10);
        assert_eq!(start.base3_key(), expected * 2);
        assert_eq!(start.passed().base3_key(), expected * 2 + 1);
    }

    #[test]
    fn hash_keys_tell_sides_apart() {
        let pos = Othello8::new();
        let swapped = Othello8::from_bitboards(
            pos.discs(Color::Black),
            pos.discs(Color::White),
            Color::White,
        )
        .unwrap();
        assert_ne!(pos.hash_key(), swapped.hash_key());
        assert_eq!(pos.hash_key(), Othello8::new().hash_key());
    }
}
