//! The engine's board: a padded cell array with line patterns kept up to date on every move and
//! undo, stone proximity counts for move generation, and an incremental pattern score. A
//! [`gomoku::Board`] rides along for the exact rules (wins, renju fouls).

use game::Color;
use gomoku::{Board, Point, Rule};

use crate::patterns::{tables, Pattern, Tables, EDGE, EMPTY, OPP, OWN};

const _: () = assert!(BLACK == OWN && WHITE == OPP && BORDER == EDGE);

/// Cells beyond the board on each side (a line window reaches 4 away).
pub(crate) const PAD: usize = 5;
/// Row stride of the padded array (at least 25 + 2 * PAD).
pub(crate) const STRIDE: usize = 36;
/// Cells of the padded array.
pub(crate) const CELLS: usize = STRIDE * (25 + 2 * PAD);
/// Index steps of the four line directions.
pub(crate) const DIRS: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];

const BLACK: u8 = 1;
const WHITE: u8 = 2;
const BORDER: u8 = 3;

/// Evaluation weight of each pattern, counted at every empty point that has it.
const VALUE: [i32; 8] = [0, 2, 8, 10, 40, 45, 400, 4000];

/// A point's threat for one colour, from its four line patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Threat {
    None,
    Two,
    Three,
    OpenThree,
    Four,
    DoubleThree,
    FourThree,
    OpenFour,
    Five,
}

pub(crate) fn color_index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// The padded index of a point.
pub(crate) fn index_of(p: Point) -> usize {
    (p.row() + PAD) * STRIDE + p.col() + PAD
}

/// The point of a padded index (on some board up to 25x25).
pub(crate) fn point_of(i: usize) -> Option<Point> {
    let (r, c) = (i / STRIDE, i % STRIDE);
    if r < PAD || c < PAD {
        return None;
    }
    Point::new(r - PAD, c - PAD)
}

/// A cell's record as it was before a move: (cell, patterns, threats, values).
type Saved = (usize, [[u8; 4]; 2], [Threat; 2], [i32; 2]);

#[derive(Clone)]
pub(crate) struct State {
    n: usize,
    exact: [bool; 2],
    tables: &'static Tables,
    pub(crate) board: Board,
    history: Vec<Board>,
    cells: Vec<u8>,
    /// Patterns per colour, cell and direction.
    pat: Vec<[[u8; 4]; 2]>,
    /// The threat per cell and colour, from `pat`.
    threats: Vec<[Threat; 2]>,
    /// The move-ordering value per cell and colour, from `pat`.
    values: Vec<[i32; 2]>,
    /// Stones within two points (Chebyshev distance) of each cell.
    near: Vec<u8>,
    /// On-board cell indices.
    pub(crate) on_board: Vec<usize>,
    /// The pattern score per colour.
    sum: [i32; 2],
    /// Cell records overwritten by each move, for undo: (cell, patterns, threats, values).
    trail: Vec<Saved>,
    /// Per move: the trail length and the score before it.
    marks: Vec<(usize, [i32; 2])>,
    pub(crate) moves: Vec<usize>,
}

impl State {
    pub(crate) fn new(board: &Board) -> State {
        let n = board.size();
        let rule = board.rule();
        let mut cells = vec![BORDER; CELLS];
        let mut on_board = Vec::with_capacity(n * n);
        for r in 0..n {
            for c in 0..n {
                let i = (r + PAD) * STRIDE + c + PAD;
                cells[i] = EMPTY;
                on_board.push(i);
            }
        }
        let mut state = State {
            n,
            exact: [
                matches!(rule, Rule::Standard | Rule::Renju),
                matches!(rule, Rule::Standard),
            ],
            tables: tables(),
            board: Board::new(n, rule).unwrap_or_else(|_| board.clone()),
            history: Vec::new(),
            cells,
            pat: vec![[[0; 4]; 2]; CELLS],
            threats: vec![[Threat::None; 2]; CELLS],
            values: vec![[0; 2]; CELLS],
            near: vec![0; CELLS],
            on_board,
            sum: [0; 2],
            trail: Vec::new(),
            marks: Vec::new(),
            moves: Vec::new(),
        };
        state.board = board.clone();
        for p in board.points() {
            if let Some(color) = board.stone(p) {
                let i = index_of(p);
                state.cells[i] = if color == Color::Black { BLACK } else { WHITE };
                state.add_near(i, 1);
            }
        }
        for k in 0..state.on_board.len() {
            let i = state.on_board[k];
            if state.cells[i] == EMPTY {
                for d in 0..4 {
                    state.refresh(i, d);
                }
            }
        }
        state
    }

    pub(crate) fn size(&self) -> usize {
        self.n
    }

    pub(crate) fn side(&self) -> Color {
        self.board.side_to_move()
    }

    pub(crate) fn hash(&self) -> u64 {
        self.board.hash_key()
    }

    pub(crate) fn is_empty(&self, i: usize) -> bool {
        self.cells[i] == EMPTY
    }

    pub(crate) fn near(&self, i: usize) -> bool {
        self.near[i] > 0
    }

    pub(crate) fn stones(&self) -> usize {
        self.board.stone_count()
    }

    /// The pattern of `color` at empty cell `i` along direction `d`.
    pub(crate) fn pattern(&self, color: usize, i: usize, d: usize) -> Pattern {
        Pattern::from_u8(self.pat[i][color][d])
    }

    /// The strongest threat `color` makes by playing the empty cell `i`.
    #[inline]
    pub(crate) fn threat(&self, color: usize, i: usize) -> Threat {
        self.threats[i][color]
    }

    fn compute_threat(&self, color: usize, i: usize) -> Threat {
        let mut fours = 0;
        let mut open_threes = 0;
        let mut threes = 0;
        let mut twos = 0;
        for d in 0..4 {
            match Pattern::from_u8(self.pat[i][color][d]) {
                Pattern::Five => return Threat::Five,
                Pattern::OpenFour => fours += 2,
                Pattern::Four => fours += 1,
                Pattern::OpenThree => open_threes += 1,
                Pattern::Three => threes += 1,
                Pattern::OpenTwo | Pattern::Two => twos += 1,
                Pattern::None => {}
            }
        }
        if fours >= 2 {
            Threat::OpenFour
        } else if fours == 1 && open_threes >= 1 {
            Threat::FourThree
        } else if fours == 1 {
            Threat::Four
        } else if open_threes >= 2 {
            Threat::DoubleThree
        } else if open_threes == 1 {
            Threat::OpenThree
        } else if threes >= 1 {
            Threat::Three
        } else if twos >= 1 {
            Threat::Two
        } else {
            Threat::None
        }
    }

    /// A move-ordering score of the empty cell `i` for `color` (attack) and the other colour
    /// (defence).
    #[inline]
    pub(crate) fn cell_score(&self, i: usize, color: usize) -> i32 {
        self.values[i][color] * 5 / 4 + self.values[i][1 - color]
    }

    /// The ordering value of cell `i` for `color` alone (its patterns and their combination).
    fn compute_value(&self, color: usize, i: usize) -> i32 {
        const W: [i32; 8] = [0, 2, 6, 8, 30, 36, 200, 10_000];
        let lines: i32 = (0..4).map(|d| W[self.pat[i][color][d] as usize]).sum();
        let bonus = match self.threats[i][color] {
            Threat::Five => 100_000,
            Threat::OpenFour => 20_000,
            Threat::FourThree => 8_000,
            Threat::DoubleThree => 2_000,
            _ => 0,
        };
        lines + bonus
    }

    /// Whether `color` playing the empty cell `i` makes a winning line under the real rule.
    pub(crate) fn makes_five(&self, color: usize, i: usize) -> bool {
        let stone = if color == 0 { BLACK } else { WHITE };
        let exact = self.exact[color];
        DIRS.iter().any(|&step| {
            let mut run = 1;
            for sign in [1isize, -1] {
                let mut j = i as isize + sign * step;
                while self.cells[j as usize] == stone {
                    run += 1;
                    j += sign * step;
                }
            }
            if exact {
                run == 5
            } else {
                run >= 5
            }
        })
    }

    /// Whether `color` playing the empty cell `i` would then threaten five at two or more points
    /// (an open four or a double four), checked on the real rule: the pattern tables see four
    /// points each way, so under the exact-five rule a stone further out can spoil a five.
    pub(crate) fn double_five_threat(&self, color: usize, i: usize) -> bool {
        let stone = if color == 0 { BLACK } else { WHITE };
        let own = |k: usize| k == i || self.cells[k] == stone;
        let mut points: Vec<usize> = Vec::new();
        for &step in &DIRS {
            for sign in [1isize, -1] {
                for k in 1..=4isize {
                    let j = (i as isize + sign * k * step) as usize;
                    match self.cells[j] {
                        BORDER => break,
                        EMPTY => {}
                        _ => continue,
                    }
                    let mut run = 1;
                    for dir in [1isize, -1] {
                        let mut x = j as isize + dir * step;
                        while own(x as usize) {
                            run += 1;
                            x += dir * step;
                        }
                    }
                    let five = if self.exact[color] {
                        run == 5
                    } else {
                        run >= 5
                    };
                    if five && !points.contains(&j) {
                        points.push(j);
                    }
                }
            }
        }
        points.len() >= 2
    }

    /// Whether the side to move may play cell `i` (empty, and no renju foul).
    pub(crate) fn legal(&self, i: usize) -> bool {
        if self.cells[i] != EMPTY {
            return false;
        }
        if self.board.rule().has_fouls(self.side()) {
            if let Some(p) = point_of(i) {
                return self.board.foul(p).is_none();
            }
        }
        true
    }

    /// The pattern score of the side to move minus the opponent's.
    pub(crate) fn evaluate(&self) -> i32 {
        let me = color_index(self.side());
        (self.sum[me] * 6 - self.sum[1 - me] * 5) / 5
    }

    /// Plays the empty cell `i` for the side to move.
    pub(crate) fn play(&mut self, i: usize) {
        let Some(p) = point_of(i) else { return };
        self.history.push(self.board.clone());
        self.board.play_unchecked(p);
        let stone = if self.history.last().map(Board::side_to_move) == Some(Color::Black) {
            BLACK
        } else {
            WHITE
        };
        self.cells[i] = stone;
        self.moves.push(i);
        self.marks.push((self.trail.len(), self.sum));
        self.save(i);
        for color in 0..2 {
            for d in 0..4 {
                self.sum[color] -= VALUE[self.pat[i][color][d] as usize];
                self.pat[i][color][d] = 0;
            }
        }
        self.threats[i] = [Threat::None; 2];
        self.values[i] = [0; 2];
        self.add_near(i, 1);
        self.refresh_lines(i);
    }

    /// Takes back the last move.
    pub(crate) fn undo(&mut self) {
        let (Some(i), Some(board), Some((mark, sum))) =
            (self.moves.pop(), self.history.pop(), self.marks.pop())
        else {
            return;
        };
        self.board = board;
        self.cells[i] = EMPTY;
        self.add_near(i, -1);
        while self.trail.len() > mark {
            if let Some((j, pat, threats, values)) = self.trail.pop() {
                self.pat[j] = pat;
                self.threats[j] = threats;
                self.values[j] = values;
            }
        }
        self.sum = sum;
    }

    fn save(&mut self, j: usize) {
        self.trail
            .push((j, self.pat[j], self.threats[j], self.values[j]));
    }

    fn add_near(&mut self, i: usize, delta: i8) {
        for dr in -2isize..=2 {
            for dc in -2isize..=2 {
                let j = (i as isize + dr * STRIDE as isize + dc) as usize;
                self.near[j] = self.near[j].wrapping_add_signed(delta);
            }
        }
    }

    fn refresh_lines(&mut self, i: usize) {
        for (d, &step) in DIRS.iter().enumerate() {
            for sign in [1isize, -1] {
                let mut j = i as isize;
                for _ in 0..4 {
                    j += sign * step;
                    let c = self.cells[j as usize];
                    if c == BORDER {
                        break;
                    }
                    if c == EMPTY {
                        self.save(j as usize);
                        self.refresh(j as usize, d);
                    }
                }
            }
        }
    }

    /// Recomputes both colours' patterns of the empty cell `i` along direction `d`.
    fn refresh(&mut self, i: usize, d: usize) {
        let step = DIRS[d];
        // Cell codes are black's view already (empty 0, black 1 = own, white 2 = opponent,
        // border 3 = edge); white's view swaps the two bits of every code.
        let mut black_key = 0usize;
        for (n, k) in [-4isize, -3, -2, -1, 1, 2, 3, 4].into_iter().enumerate() {
            black_key |= usize::from(self.cells[(i as isize + k * step) as usize]) << (2 * n);
        }
        let white_key = ((black_key & 0x5555) << 1) | ((black_key >> 1) & 0x5555);
        for color in 0..2 {
            let key = if color == 0 { black_key } else { white_key };
            let new = self.tables.get(self.exact[color], key) as u8;
            let old = self.pat[i][color][d];
            self.sum[color] += VALUE[new as usize] - VALUE[old as usize];
            self.pat[i][color][d] = new;
        }
        for color in 0..2 {
            self.threats[i][color] = self.compute_threat(color, i);
            self.values[i][color] = self.compute_value(color, i);
        }
    }

    /// Checks the incremental patterns and score against a fresh build (tests).
    #[cfg(test)]
    pub(crate) fn consistent(&self) -> bool {
        let fresh = State::new(&self.board);
        fresh
            .pat
            .iter()
            .zip(&self.pat)
            .enumerate()
            .all(|(i, (a, b))| self.cells[i] != EMPTY || a == b)
            && fresh.sum == self.sum
            && fresh.near == self.near
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn incremental_patterns_match_a_fresh_build() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for rule in Rule::ALL {
            let board = Board::new(15, rule).unwrap();
            let mut state = State::new(&board);
            for step in 0..120 {
                if state.board.is_over() {
                    break;
                }
                let legal: Vec<usize> = state
                    .on_board
                    .clone()
                    .into_iter()
                    .filter(|&i| state.legal(i))
                    .collect();
                let i = legal[rng.random_range(0..legal.len())];
                state.play(i);
                if step % 7 == 3 {
                    state.undo();
                }
                assert!(state.consistent(), "{rule} step {step}");
            }
            while !state.moves.is_empty() {
                state.undo();
            }
            assert!(state.consistent());
            assert_eq!(state.sum, [0, 0]);
        }
    }
}
