//! The board at run time: any size from 5 to 25 and any [`Rule`]; stones, side to move,
//! incremental win detection, Zobrist keys and renju foul detection.

use std::fmt;

use game::{Color, IllegalMove, IllegalReason, Outcome};

use crate::point::{Point, MAX_SIZE, MIN_SIZE};
use crate::rule::{Foul, Rule};

const CELLS: usize = MAX_SIZE * MAX_SIZE;
const WORDS: usize = CELLS.div_ceil(64);

/// The four line directions as (row step, column step): horizontal, vertical, diagonal,
/// anti-diagonal.
pub const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

use game::hash::splitmix64 as splitmix;

static ZOBRIST: [[u64; CELLS]; 2] = {
    let mut table = [[0u64; CELLS]; 2];
    let mut i = 0;
    while i < CELLS {
        table[0][i] = splitmix(0x5EED_0000 + 2 * i as u64);
        table[1][i] = splitmix(0x5EED_0000 + 2 * i as u64 + 1);
        i += 1;
    }
    table
};
const WHITE_TO_MOVE_KEY: u64 = splitmix(0x0B1A_C4ED);

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
struct Bits([u64; WORDS]);

impl Bits {
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
}

/// A cell seen along a line: a stone, empty, or beyond the edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Black,
    White,
    Empty,
    Edge,
}

/// Cells at offsets -6..=6 along one direction from a point (index 6 is the point).
type Line = [Cell; 13];
const MID: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Status {
    Playing,
    Won(Color),
    Draw,
}

/// A board that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The side is outside 5..=25.
    #[error("board size {0} is not supported (5 to 25)")]
    Size(usize),
    /// A stone lies off the board.
    #[error("{point} is off the {size}x{size} board")]
    OffBoard {
        /// The point.
        point: Point,
        /// The board side.
        size: usize,
    },
    /// Two stones on one point.
    #[error("{0} holds two stones")]
    Duplicate(Point),
    /// Both sides already have a winning line.
    #[error("impossible position: both black and white have five in a row; a game ends at its first five")]
    BothWon,
}

/// A Gomoku position whose size and rule are chosen at run time (the [`Gomoku`](crate::Gomoku)
/// game type wraps one with both fixed at compile time).
///
/// Black moves first. The game ends when a move makes a winning line (see [`Rule::wins`]), when
/// the board is full (a draw), or, under renju, when black to move has only forbidden points
/// left (also a draw; this can happen only on nearly full boards).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    size: u8,
    rule: Rule,
    black: Bits,
    white: Bits,
    to_move: Color,
    stones: u16,
    hash: u64,
    status: Status,
}

impl Board {
    /// An empty board, black to move.
    ///
    /// # Errors
    /// [`BoardError::Size`] when `size` is outside 5..=25.
    pub fn new(size: usize, rule: Rule) -> Result<Board, BoardError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(BoardError::Size(size));
        }
        Ok(Board {
            size: size as u8,
            rule,
            black: Bits::default(),
            white: Bits::default(),
            to_move: Color::Black,
            stones: 0,
            hash: 0,
            status: Status::Playing,
        })
    }

    /// A board with these stones and this side to move (stone counts are not checked, so
    /// puzzle positions are allowed; [`validate`](Self::validate) checks that a game reaches
    /// it). A winning line already on the board ends the game.
    ///
    /// # Errors
    /// A bad size, a stone off the board, two stones on one point, or winning lines for both.
    pub fn with_stones(
        size: usize,
        rule: Rule,
        stones: impl IntoIterator<Item = (Point, Color)>,
        to_move: Color,
    ) -> Result<Board, BoardError> {
        let mut board = Board::new(size, rule)?;
        for (point, color) in stones {
            if !point.on_board(size) {
                return Err(BoardError::OffBoard { point, size });
            }
            if board.stone(point).is_some() {
                return Err(BoardError::Duplicate(point));
            }
            board.put(point.index(size), color);
        }
        board.to_move = to_move;
        if to_move == Color::White {
            board.hash ^= WHITE_TO_MOVE_KEY;
        }
        let mut winners = [false; 2];
        for p in board.points() {
            if let Some(color) = board.stone(p) {
                if DIRECTIONS
                    .iter()
                    .any(|&d| rule.wins(color, board.run_through(p, d, color)))
                {
                    winners[color as usize] = true;
                }
            }
        }
        board.status = match winners {
            [true, true] => return Err(BoardError::BothWon),
            [true, false] => Status::Won(Color::Black),
            [false, true] => Status::Won(Color::White),
            [false, false] => board.status_without_win(),
        };
        Ok(board)
    }

    /// The board side.
    #[must_use]
    pub fn size(&self) -> usize {
        usize::from(self.size)
    }

    /// The rule set.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The side whose turn it is.
    #[must_use]
    pub fn side_to_move(&self) -> Color {
        self.to_move
    }

    /// Stones on the board.
    #[must_use]
    pub fn stone_count(&self) -> usize {
        usize::from(self.stones)
    }

    /// Stones of each colour: (black, white).
    #[must_use]
    pub fn counts(&self) -> (u32, u32) {
        let ones = |b: &Bits| b.0.iter().map(|w| w.count_ones()).sum();
        (ones(&self.black), ones(&self.white))
    }

    /// The stone on `p`, or `None` when `p` is empty or off the board.
    #[must_use]
    pub fn stone(&self, p: Point) -> Option<Color> {
        if !p.on_board(self.size()) {
            return None;
        }
        let i = p.index(self.size());
        if self.black.get(i) {
            Some(Color::Black)
        } else if self.white.get(i) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Whether `p` is on the board and empty.
    #[must_use]
    pub fn is_empty(&self, p: Point) -> bool {
        p.on_board(self.size()) && self.stone(p).is_none()
    }

    /// Every point of the board, by index (row by row from `a1`).
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let n = self.size();
        (0..n * n).filter_map(move |i| Point::from_index(i, n))
    }

    /// The Zobrist key of the stones and the side to move.
    #[must_use]
    pub fn hash_key(&self) -> u64 {
        self.hash
    }

    /// The winner, once a side has made a winning line.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        match self.status {
            Status::Won(c) => Some(c),
            _ => None,
        }
    }

    /// How the game ended (black margin +1, -1 or 0), or `None` while it goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        match self.status {
            Status::Playing => None,
            Status::Draw => Some(Outcome::from_black_margin(0)),
            Status::Won(Color::Black) => Some(Outcome::from_black_margin(1)),
            Status::Won(Color::White) => Some(Outcome::from_black_margin(-1)),
        }
    }

    /// Whether the game is over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.status != Status::Playing
    }

    /// Whether the side to move may play `p`.
    ///
    /// # Errors
    /// Why not: the game is over, `p` is off the board or occupied, or renju forbids it.
    pub fn check(&self, p: Point) -> Result<(), IllegalReason> {
        if self.is_over() {
            return Err(IllegalReason::GameOver);
        }
        if !p.on_board(self.size()) {
            return Err(IllegalReason::OffBoard);
        }
        if self.stone(p).is_some() {
            return Err(IllegalReason::Occupied);
        }
        if self.rule.has_fouls(self.to_move) && self.foul(p).is_some() {
            return Err(IllegalReason::Forbidden);
        }
        Ok(())
    }

    /// Plays `p` for the side to move after checking it; on error nothing changes.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason.
    pub fn play(&mut self, p: Point) -> Result<(), IllegalMove<Point>> {
        self.check(p)
            .map_err(|reason| IllegalMove { mv: p, reason })?;
        self.play_unchecked(p);
        Ok(())
    }

    /// Plays `p` for the side to move without the rule checks (for search). A point that is
    /// off the board or occupied leaves the board unchanged; a renju foul is played as if legal.
    pub fn play_unchecked(&mut self, p: Point) {
        if self.is_over() || !self.is_empty(p) {
            return;
        }
        let color = self.to_move;
        self.put(p.index(self.size()), color);
        self.to_move = color.opponent();
        self.hash ^= WHITE_TO_MOVE_KEY;
        let won = DIRECTIONS
            .iter()
            .any(|&d| self.rule.wins(color, self.run_through(p, d, color)));
        self.status = if won {
            Status::Won(color)
        } else {
            self.status_without_win()
        };
    }

    /// Every legal move, by index. Empty exactly when the game is over.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Point> {
        if self.is_over() {
            return Vec::new();
        }
        let fouls = self.rule.has_fouls(self.to_move);
        self.points()
            .filter(|&p| self.stone(p).is_none() && !(fouls && self.foul(p).is_some()))
            .collect()
    }

    /// The length of the line of `color` stones through `p` along `dir`, counting `p` itself as
    /// a `color` stone whatever it holds.
    #[must_use]
    pub fn run_through(&self, p: Point, dir: (i32, i32), color: Color) -> usize {
        let mut run = 1;
        for sign in [1, -1] {
            let (mut r, mut c) = (p.row() as i32, p.col() as i32);
            loop {
                r += sign * dir.0;
                c += sign * dir.1;
                if self.cell(r, c) != color_cell(color) {
                    break;
                }
                run += 1;
            }
        }
        run
    }

    /// Why renju forbids black to play the empty point `p`, whoever is to move; `None` when it
    /// is allowed (always under the other rules, and for occupied or off-board points).
    ///
    /// A move that makes exactly five is never a foul. Otherwise an overline is; then two or
    /// more fours; then two or more *true* threes, where a three counts only if some point
    /// would turn it into a straight four and that point is not itself forbidden (a recursive
    /// test). A line that holds a four is not counted as a three.
    #[must_use]
    pub fn foul(&self, p: Point) -> Option<Foul> {
        if self.rule != Rule::Renju || !self.is_empty(p) || !self.may_foul(p) {
            return None;
        }
        let mut after = self.clone();
        after.put(p.index(self.size()), Color::Black);
        after.foul_of_placed(p)
    }

    // ----- internals -----

    fn put(&mut self, i: usize, color: Color) {
        match color {
            Color::Black => self.black.set(i),
            Color::White => self.white.set(i),
        }
        self.hash ^= ZOBRIST[color as usize][i];
        self.stones += 1;
    }

    fn status_without_win(&self) -> Status {
        if self.stone_count() == self.size() * self.size()
            || self.rule.has_fouls(self.to_move)
                && self
                    .points()
                    .all(|p| self.stone(p).is_some() || self.foul(p).is_some())
        {
            Status::Draw
        } else {
            Status::Playing
        }
    }

    fn cell(&self, r: i32, c: i32) -> Cell {
        let n = self.size() as i32;
        if r < 0 || c < 0 || r >= n || c >= n {
            return Cell::Edge;
        }
        let i = (r * n + c) as usize;
        if self.black.get(i) {
            Cell::Black
        } else if self.white.get(i) {
            Cell::White
        } else {
            Cell::Empty
        }
    }

    fn line(&self, p: Point, dir: (i32, i32)) -> Line {
        let mut line = [Cell::Edge; 13];
        for (k, slot) in line.iter_mut().enumerate() {
            let off = k as i32 - MID as i32;
            *slot = self.cell(p.row() as i32 + off * dir.0, p.col() as i32 + off * dir.1);
        }
        line
    }

    fn offset(&self, p: Point, dir: (i32, i32), off: i32) -> Option<Point> {
        let (r, c) = (p.row() as i32 + off * dir.0, p.col() as i32 + off * dir.1);
        let n = self.size() as i32;
        if r < 0 || c < 0 || r >= n || c >= n {
            None
        } else {
            Point::new(r as usize, c as usize)
        }
    }

    /// Cheap necessary condition for a foul at the empty point `p`: some line holds three
    /// black stones within four points, or two lines hold two.
    fn may_foul(&self, p: Point) -> bool {
        let mut pairs = 0;
        for dir in DIRECTIONS {
            let line = self.line(p, dir);
            let blacks = line[MID - 4..=MID + 4]
                .iter()
                .filter(|&&c| c == Cell::Black)
                .count();
            if blacks >= 3 {
                return true;
            }
            if blacks == 2 {
                pairs += 1;
            }
        }
        pairs >= 2
    }

    /// The foul of the black stone just put on `p` (which `self` already holds).
    fn foul_of_placed(&self, p: Point) -> Option<Foul> {
        let lines = DIRECTIONS.map(|d| self.line(p, d));
        let mut overline = false;
        for line in &lines {
            let (s, e) = black_run(line, MID);
            match e - s + 1 {
                5 => return None,
                n if n > 5 => overline = true,
                _ => {}
            }
        }
        if overline {
            return Some(Foul::Overline);
        }
        let fours: Vec<usize> = lines.iter().map(fours_in_line).collect();
        if fours.iter().sum::<usize>() >= 2 {
            return Some(Foul::DoubleFour);
        }
        let mut threes = 0;
        for (k, dir) in DIRECTIONS.into_iter().enumerate() {
            if fours[k] == 0 && self.true_three(p, dir, &lines[k]) {
                threes += 1;
                if threes >= 2 {
                    return Some(Foul::DoubleThree);
                }
            }
        }
        None
    }

    /// Whether the black stone on `p` makes a true three along `dir`: some empty point `q` of
    /// the line turns it into a straight four through `p` and `q`, and `q` is no foul itself.
    fn true_three(&self, p: Point, dir: (i32, i32), line: &Line) -> bool {
        for k in MID - 4..=MID + 4 {
            if k == MID || line[k] != Cell::Empty {
                continue;
            }
            let mut with_q = *line;
            with_q[k] = Cell::Black;
            if !straight_four(&with_q, MID, k) {
                continue;
            }
            let Some(q) = self.offset(p, dir, k as i32 - MID as i32) else {
                continue;
            };
            if self.foul(q).is_none() {
                return true;
            }
        }
        false
    }
}

fn color_cell(color: Color) -> Cell {
    match color {
        Color::Black => Cell::Black,
        Color::White => Cell::White,
    }
}

/// The run of black cells through `i` (which must be black), as inclusive bounds.
fn black_run(line: &Line, i: usize) -> (usize, usize) {
    let mut s = i;
    while s > 0 && line[s - 1] == Cell::Black {
        s -= 1;
    }
    let mut e = i;
    while e + 1 < line.len() && line[e + 1] == Cell::Black {
        e += 1;
    }
    (s, e)
}

/// Whether black on the empty cell `q` would make exactly five that covers `through`.
fn exact_five_with(line: &Line, q: usize, through: usize) -> bool {
    if line[q] != Cell::Empty {
        return false;
    }
    let mut l = *line;
    l[q] = Cell::Black;
    let (s, e) = black_run(&l, q);
    e - s + 1 == 5 && s <= through && through <= e
}

/// Fours through the centre: points that complete an exact five with it. Two such points five
/// apart are one straight four; otherwise each is a four of its own.
fn fours_in_line(line: &Line) -> usize {
    let points: Vec<usize> = (MID - 4..=MID + 4)
        .filter(|&q| q != MID && exact_five_with(line, q, MID))
        .collect();
    match points.as_slice() {
        [a, b] if b - a == 5 => 1,
        _ => points.len(),
    }
}

/// Whether `line` holds a straight four through `a` and `b`: exactly four black in a row, with
/// both ends empty and each end completing an exact five.
fn straight_four(line: &Line, a: usize, b: usize) -> bool {
    let (s, e) = black_run(line, a);
    if e - s + 1 != 4 || b < s || b > e || s == 0 || e + 1 >= line.len() {
        return false;
    }
    exact_five_with(line, s - 1, a) && exact_five_with(line, e + 1, a)
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({} {}x{} ", self.rule, self.size, self.size)?;
        crate::notation::write_board_string(self, f)?;
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random renju boards: the cheap prefilter never hides a foul the full test finds.
    #[test]
    fn the_foul_prefilter_hides_no_foul() {
        let mut seed = 0x1234_5678_u64;
        let mut next = move || {
            seed = splitmix(seed);
            seed
        };
        let mut fouls = 0;
        for _ in 0..400 {
            let mut stones = Vec::new();
            for i in 0..81 {
                let r = next() % 10;
                let Some(p) = Point::from_index(i, 9) else {
                    continue;
                };
                match r {
                    0..=2 => stones.push((p, Color::Black)),
                    3 => stones.push((p, Color::White)),
                    _ => {}
                }
            }
            let Ok(board) = Board::with_stones(9, Rule::Renju, stones, Color::Black) else {
                continue;
            };
            for p in board.points().filter(|&p| board.is_empty(p)) {
                let mut after = board.clone();
                after.put(p.index(9), Color::Black);
                let full = after.foul_of_placed(p);
                assert_eq!(board.foul(p), full, "{} at {p}", board.board_string());
                fouls += usize::from(full.is_some());
            }
        }
        assert!(fouls > 100, "only {fouls} fouls seen");
    }
}
