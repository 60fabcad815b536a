//! `omok-ab`: a reproduction of a student Omok AI as designed — fixed-depth minimax with
//! alpha-beta, moves near the last four played, and a score of the ten 5-cell windows per
//! direction around the last move, for the side to move at the leaf.

use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use game::{Color, Game};
use gomoku::{Board, Gomoku, Point, Variant, DIRECTIONS};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::{Agent, AgentError, Budget, Decision, Spec, SpecError, WIN};

/// The agent's name in spec strings.
pub const NAME: &str = "omok-ab";

/// The deepest search the agent accepts (spec `depth` and [`Budget::depth`] are kept to
/// `1..=MAX_DEPTH`).
pub const MAX_DEPTH: u32 = 6;

/// Candidate moves lie within this Chebyshev distance of one of the last four moves (a 7x7
/// square around each).
pub const RADIUS: usize = 3;

/// How many recent moves span the candidate squares.
pub const RECENT_MOVES: usize = 4;

/// Cells in one evaluation window.
pub(crate) const WINDOW: i32 = 5;

/// The windows scored per direction start this many points before the last move …
const FIRST_START: i32 = -5;
/// … through this many after it (ten windows, spanning the points −5..+8 along the line).
const LAST_START: i32 = 4;

/// How often (in nodes) the search looks at the clock.
const CLOCK_EVERY: u64 = 256;

/// The largest weight or table entry accepted, so that no evaluation can overflow.
const MAX_WEIGHT: f64 = 1e12;

/// The parameters of `omok-ab` with their meaning, as the registry lists them. The registry adds
/// `seed` itself, so it is not repeated here; [`OmokAbConfig::from_spec`] accepts it too.
pub const KEYS: &[(&str, &str)] = &[
    ("depth", "search depth in plies, 1 to 6 (default 2)"),
    (
        "attack",
        "weight of windows holding only the AI's stones (default 1.3)",
    ),
    (
        "defence",
        "weight of windows holding only the opponent's stones (default 0.8)",
    ),
    ("defense", "the same as defence"),
    (
        "t1",
        "score of a window with 1 stone of one side (default 8)",
    ),
    (
        "t2",
        "score of a window with 2 stones of one side (default 80)",
    ),
    (
        "t3",
        "score of a window with 3 stones of one side (default 800)",
    ),
    (
        "t4",
        "score of a window with 4 stones of one side (default 80000)",
    ),
    (
        "t5",
        "score of a window with 5 stones, a five (default 1000000)",
    ),
    (
        "time",
        "time limit per move, e.g. 500ms or 5s (default 5s, stonelab's: the design gives none)",
    ),
    (
        "prune",
        "false: the design's search, whose alpha-beta window never narrows, so it visits every \
         node as plain minimax does (the same moves, many more nodes); default true",
    ),
];

const SEED_KEY: (&str, &str) = ("seed", "seed of the random first move");

/// A square board of stones, as the evaluation reads it: the rules crate's [`Board`], or any
/// other grid (the search's own board, which plays on past a five).
pub trait Stones {
    /// Points per side.
    fn size(&self) -> usize;
    /// The stone on `p`; `None` when `p` is empty or off the board.
    fn stone(&self, p: Point) -> Option<Color>;
}

/// Calls `f(own, theirs)` with the stones of `me` and of the opponent in each 5-cell window
/// through `centre`: along each of the four [`DIRECTIONS`], the windows that start `start`
/// points from `centre` for each `start` in `starts`, skipping windows that leave the board.
/// Shared by [`OmokAbConfig::evaluate_last_move`] (the search's hot path: no allocation) and
/// [`classify_move`](crate::omok_study::classify_move).
#[inline]
pub(crate) fn for_each_window<B: Stones + ?Sized>(
    board: &B,
    centre: Point,
    starts: RangeInclusive<i32>,
    me: Color,
    mut f: impl FnMut(usize, usize),
) {
    let n = board.size() as i32;
    let on_board = |r: i32, c: i32| (0..n).contains(&r) && (0..n).contains(&c);
    let (row, col) = (centre.row() as i32, centre.col() as i32);
    for (dr, dc) in DIRECTIONS {
        for start in starts.clone() {
            let (r0, c0) = (row + start * dr, col + start * dc);
            // A straight window lies on the board exactly when both its ends do.
            if !on_board(r0, c0) || !on_board(r0 + (WINDOW - 1) * dr, c0 + (WINDOW - 1) * dc) {
                continue;
            }
            let (mut own, mut theirs) = (0usize, 0usize);
            for i in 0..WINDOW {
                let cell = Point::new((r0 + i * dr) as usize, (c0 + i * dc) as usize);
                match cell.and_then(|p| board.stone(p)) {
                    Some(c) if c == me => own += 1,
                    Some(_) => theirs += 1,
                    None => {}
                }
            }
            f(own, theirs);
        }
    }
}

impl Stones for Board {
    fn size(&self) -> usize {
        Board::size(self)
    }

    fn stone(&self, p: Point) -> Option<Color> {
        Board::stone(self, p)
    }
}

/// Settings of [`OmokAb`]: search depth, evaluation weights and table, time per move.
#[derive(Clone, Debug, PartialEq)]
pub struct OmokAbConfig {
    /// Search depth in plies, `1..=`[`MAX_DEPTH`].
    pub depth: u32,
    /// Weight of a window that holds only the AI's stones.
    pub attack: f64,
    /// Weight of a window that holds only the opponent's stones.
    pub defence: f64,
    /// `table[k - 1]` scores a window with `k` stones of one side, `k = 1..=5`.
    pub table: [f64; 5],
    /// Time limit per move; when it runs out the move is random, as in the design (which
    /// gives no value: the default of 5 s is stonelab's).
    pub time: Duration,
    /// Whether the alpha-beta window narrows (stonelab's fail-soft alpha-beta). The design
    /// passes its bounds down but never updates them, so nothing is ever cut off and it visits
    /// every node of the minimax tree; `false` searches that way. Both choose the same moves
    /// with the same scores: only the node counts and times differ.
    pub prune: bool,
}

impl Default for OmokAbConfig {
    fn default() -> Self {
        OmokAbConfig {
            depth: 2,
            attack: 1.3,
            defence: 0.8,
            table: [8.0, 80.0, 800.0, 80_000.0, 1_000_000.0],
            time: Duration::from_secs(5),
            prune: true,
        }
    }
}

fn bad_value(spec: &Spec, key: &str, why: &str) -> SpecError {
    SpecError::BadValue {
        agent: spec.name.clone(),
        key: key.to_string(),
        value: spec.text(key).unwrap_or_default().to_string(),
        why: why.to_string(),
    }
}

/// A weight or table entry: a finite number from 0 to [`MAX_WEIGHT`], or `default` when absent.
fn weight(spec: &Spec, key: &str, default: f64) -> Result<f64, SpecError> {
    match spec.get::<f64>(key)? {
        None => Ok(default),
        Some(w) if w.is_finite() && (0.0..=MAX_WEIGHT).contains(&w) => Ok(w),
        Some(_) => Err(bad_value(spec, key, "expected a number from 0 to 1e12")),
    }
}

impl OmokAbConfig {
    /// The settings of a parsed spec (`omok-ab:depth=3,attack=1.5,time=2s`); absent keys keep
    /// their defaults. `seed` is accepted and left to the caller (see [`OmokAb::from_spec`]).
    ///
    /// # Errors
    /// [`SpecError::UnknownKey`] for a key not in [`KEYS`] (or `seed`); [`SpecError::BadValue`]
    /// for a depth outside `1..=6`, a weight or table entry that is not a number from 0 to 1e12,
    /// a time that is not a positive duration, or both `defence` and `defense`.
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let mut valid = KEYS.to_vec();
        valid.push(SEED_KEY);
        spec.check_keys(&valid)?;
        let d = OmokAbConfig::default();
        let depth = match spec.get::<u32>("depth")? {
            None => d.depth,
            Some(depth) if (1..=MAX_DEPTH).contains(&depth) => depth,
            Some(_) => {
                return Err(bad_value(
                    spec,
                    "depth",
                    "expected a whole number from 1 to 6",
                ))
            }
        };
        let defence = match (spec.text("defence"), spec.text("defense")) {
            (Some(_), Some(_)) => {
                return Err(bad_value(
                    spec,
                    "defense",
                    "give either defence or defense, not both",
                ))
            }
            (None, Some(_)) => weight(spec, "defense", d.defence)?,
            _ => weight(spec, "defence", d.defence)?,
        };
        let mut table = d.table;
        for (k, entry) in table.iter_mut().enumerate() {
            *entry = weight(spec, &format!("t{}", k + 1), *entry)?;
        }
        let time = match spec.duration("time")? {
            None => d.time,
            Some(t) if !t.is_zero() => t,
            Some(_) => return Err(bad_value(spec, "time", "expected a positive duration")),
        };
        Ok(OmokAbConfig {
            depth,
            attack: weight(spec, "attack", d.attack)?,
            defence,
            table,
            time,
            prune: spec.get::<bool>("prune")?.unwrap_or(d.prune),
        })
    }

    /// The spec string of these settings: `omok-ab:depth=N` followed by every other setting that
    /// differs from its default. [`from_spec`](Self::from_spec) reads it back.
    #[must_use]
    pub fn to_spec(&self) -> String {
        let d = OmokAbConfig::default();
        let mut s = format!("{NAME}:depth={}", self.depth);
        if self.attack != d.attack {
            let _ = write!(s, ",attack={}", self.attack);
        }
        if self.defence != d.defence {
            let _ = write!(s, ",defence={}", self.defence);
        }
        for (k, (&t, &default)) in self.table.iter().zip(&d.table).enumerate() {
            if t != default {
                let _ = write!(s, ",t{}={t}", k + 1);
            }
        }
        if self.time != d.time {
            if self.time.subsec_nanos().is_multiple_of(1_000_000) {
                let _ = write!(s, ",time={}ms", self.time.as_millis());
            } else {
                let _ = write!(s, ",time={}s", self.time.as_secs_f64());
            }
        }
        if self.prune != d.prune {
            let _ = write!(s, ",prune={}", self.prune);
        }
        s
    }

    /// The score of the position on `board` from `ai`'s point of view, as the design counts it:
    /// in each of the four directions, the ten 5-cell windows that start 5 points before `last`
    /// (the move that led to the position) through 4 points after it — so windows beside the
    /// move count too — skipping windows that leave the board. A window holding `k >= 1` stones
    /// of `ai` and none of the opponent adds `table[k - 1] * attack`; one holding `k >= 1`
    /// opponent stones and none of `ai`'s subtracts `table[k - 1] * defence`; mixed and empty
    /// windows count nothing. A five is no special case: just its window's score. `board` is any
    /// [`Stones`]: a rules [`Board`] or a grid that holds more than one five.
    #[must_use]
    pub fn evaluate_last_move<B: Stones + ?Sized>(&self, board: &B, last: Point, ai: Color) -> f64 {
        // Windows counted by side and stone count, then weighed once: the score does not depend
        // on the order the windows are visited in, so equal shapes tie exactly.
        let (mut own_windows, mut their_windows) = ([0u32; 5], [0u32; 5]);
        for_each_window(
            board,
            last,
            FIRST_START..=LAST_START,
            ai,
            |own, theirs| match (own, theirs) {
                (0, 0) => {}
                (k, 0) => own_windows[k - 1] += 1,
                (0, k) => their_windows[k - 1] += 1,
                _ => {}
            },
        );
        let weigh = |windows: [u32; 5]| -> f64 {
            windows
                .iter()
                .zip(&self.table)
                .map(|(&count, &value)| f64::from(count) * value)
                .sum()
        };
        weigh(own_windows) * self.attack - weigh(their_windows) * self.defence
    }
}

/// The moves the agent considers at the root, in `pos`: the empty legal points within
/// [`RADIUS`] (Chebyshev) of any of the last [`RECENT_MOVES`] moves, by index; all legal moves
/// when that leaves none (no recent moves known, as for a position parsed from a string). Empty
/// when the game is over. Below the root the search picks its moves the same way on its own
/// board, where "legal" is just "empty" (see [`OmokAb`]).
#[must_use]
pub fn candidate_moves<V: Variant>(pos: &Gomoku<V>) -> Vec<Point> {
    let board = pos.board();
    if board.is_over() {
        return Vec::new();
    }
    let points = near_recent(board.size(), pos.recent_moves(), |p| board.check(p).is_ok());
    if points.is_empty() {
        board.legal_moves()
    } else {
        points
    }
}

/// The points `free` accepts within [`RADIUS`] of any of the first [`RECENT_MOVES`] of `recent`
/// (newest first), by index, without repeats.
fn near_recent(
    n: usize,
    recent: impl Iterator<Item = Point>,
    free: impl Fn(Point) -> bool,
) -> Vec<Point> {
    let mut points = Vec::new();
    for m in recent.take(RECENT_MOVES) {
        let rows = m.row().saturating_sub(RADIUS)..=(m.row() + RADIUS).min(n - 1);
        for r in rows {
            let cols = m.col().saturating_sub(RADIUS)..=(m.col() + RADIUS).min(n - 1);
            points.extend(cols.filter_map(|c| Point::new(r, c)));
        }
    }
    points.sort_unstable_by_key(|p| p.index(n));
    points.dedup();
    points.retain(|&p| free(p));
    points
}

/// The search's own board, as the design keeps one: stones, the side to move and the moves
/// that led here, with no rules at all — a five does not end anything, so the search plays on
/// below it. Moves are made and taken back in place.
struct SearchBoard {
    n: usize,
    cells: Vec<Option<Color>>,
    to_move: Color,
    /// The root position's recent moves (oldest first), then the moves made in the search.
    moves: Vec<Point>,
}

impl SearchBoard {
    fn new<V: Variant>(pos: &Gomoku<V>) -> Self {
        let board = pos.board();
        let n = board.size();
        let cells = (0..n * n)
            .map(|i| Point::from_index(i, n).and_then(|p| board.stone(p)))
            .collect();
        let mut moves: Vec<Point> = pos.recent_moves().collect();
        moves.reverse();
        SearchBoard {
            n,
            cells,
            to_move: pos.side_to_move(),
            moves,
        }
    }

    /// Puts a stone of the side to move on the empty point `p` (the caller picks empty points).
    fn make(&mut self, p: Point) {
        if let Some(cell) = self.cells.get_mut(p.index(self.n)) {
            *cell = Some(self.to_move);
        }
        self.to_move = self.to_move.opponent();
        self.moves.push(p);
    }

    /// Takes back the last [`make`](Self::make).
    fn unmake(&mut self) {
        if let Some(p) = self.moves.pop() {
            if let Some(cell) = self.cells.get_mut(p.index(self.n)) {
                *cell = None;
            }
            self.to_move = self.to_move.opponent();
        }
    }

    /// The empty points near the last four moves, by index; every empty point when none is.
    fn candidates(&self) -> Vec<Point> {
        let free = |p: Point| self.stone(p).is_none();
        let points = near_recent(self.n, self.moves.iter().rev().copied(), free);
        if points.is_empty() {
            (0..self.n * self.n)
                .filter_map(|i| Point::from_index(i, self.n))
                .filter(|&p| free(p))
                .collect()
        } else {
            points
        }
    }
}

impl Stones for SearchBoard {
    fn size(&self) -> usize {
        self.n
    }

    fn stone(&self, p: Point) -> Option<Color> {
        if p.on_board(self.n) {
            self.cells.get(p.index(self.n)).copied().flatten()
        } else {
            None
        }
    }
}

/// The `omok-ab` agent, as designed: minimax with alpha-beta (fail-soft; or, with
/// [`OmokAbConfig::prune`] off, the design's window that never narrows) to a fixed depth, the
/// root's side maximising and the other minimising, over [`candidate_moves`] at the root and
/// the same squares below it. Below the root the search plays on its own board with no win
/// check: a five is only a large window score, and the opponent moves after it. A leaf is
/// scored by [`OmokAbConfig::evaluate_last_move`] around its last move for the side to move
/// at the leaf, and the minimax uses that number as it is — at even depths that is the root's
/// side, at odd depths the opponent (the design's flaw, reproduced on purpose).
///
/// What that makes of play: at depth 1 a move is scored for the opponent, so the AI prefers
/// moves beside the opponent's lines and away from its own, and its own five counts against
/// it; at depth 2 (the default) the leaf is scored around the opponent's reply, so the AI sees
/// the opponent's fives and blocks them, but its own five counts only through the windows
/// around that reply (nothing, unless the reply lies on the five's line): it completes a five
/// only when no other move scores higher, and a game between two of them ends at a five made
/// by chance or the tie rule — from the empty board such games nearly always fill the board
/// (`stonelab reproduce omok-self-play`). Ties at the root go to the last candidate by index.
/// On an empty board it plays a random point; a move whose time runs out is a random legal
/// move. Below the root the only rule is "an empty point" (renju fouls are kept out at the root
/// only). Scores are reported rounded and kept inside `(-WIN, WIN)`, since the original's
/// numbers are heuristic, never proofs; at odd depths they are the opponent's view, as the
/// design has it.
pub struct OmokAb {
    config: OmokAbConfig,
    rng: ChaCha8Rng,
    nodes: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    aborted: bool,
    /// The side to move at the root: the side that maximises (leaves are scored for the side
    /// to move there).
    ai: Color,
}

impl OmokAb {
    /// An agent with these settings and a seeded generator (for the first move on an empty
    /// board and for a move when time runs out before any root move is searched).
    #[must_use]
    pub fn new(config: OmokAbConfig, seed: u64) -> Self {
        OmokAb {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            nodes: 0,
            deadline: None,
            node_limit: None,
            aborted: false,
            ai: Color::Black,
        }
    }

    /// An agent from a parsed spec, seeded with the spec's `seed` when it has one, else `seed`.
    ///
    /// # Errors
    /// As [`OmokAbConfig::from_spec`], and a `seed` that is not a whole number.
    pub fn from_spec(spec: &Spec, seed: u64) -> Result<Self, SpecError> {
        let config = OmokAbConfig::from_spec(spec)?;
        let seed = spec.get::<u64>("seed")?.unwrap_or(seed);
        Ok(OmokAb::new(config, seed))
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &OmokAbConfig {
        &self.config
    }

    fn out_of_budget(&self) -> bool {
        self.node_limit.is_some_and(|n| self.nodes >= n)
            || (self.nodes.is_multiple_of(CLOCK_EVERY) && self.past_deadline())
    }

    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Minimax with alpha-beta (fail-soft) below the root, on the search's own board: the
    /// value of `board`, reached by `last`, with the root's side maximising and the other side
    /// minimising; a leaf is scored by [`OmokAbConfig::evaluate_last_move`] for the side to move
    /// there, and that number is used as it is. No node stops at a five. `pv` receives the best
    /// line from `board`. Returns 0 once the budget is spent (the caller checks `aborted`).
    fn search(
        &mut self,
        board: &mut SearchBoard,
        last: Point,
        depth: u32,
        mut alpha: f64,
        mut beta: f64,
        pv: &mut Vec<Point>,
    ) -> f64 {
        self.nodes += 1;
        if self.out_of_budget() {
            self.aborted = true;
        }
        if self.aborted {
            return 0.0;
        }
        let moves = if depth == 0 {
            Vec::new()
        } else {
            board.candidates()
        };
        if moves.is_empty() {
            // The design's perspective: the side to move at the leaf (the root's side at even
            // depths, its opponent at odd ones), whatever side the minimax is on.
            return self.config.evaluate_last_move(&*board, last, board.to_move);
        }
        let maximize = board.to_move == self.ai;
        let mut best = if maximize {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        let mut line = Vec::new();
        for mv in moves {
            line.clear();
            board.make(mv);
            let score = self.search(board, mv, depth - 1, alpha, beta, &mut line);
            board.unmake();
            if self.aborted {
                return 0.0;
            }
            let better = if maximize { score > best } else { score < best };
            if better {
                best = score;
                pv.clear();
                pv.push(mv);
                pv.extend_from_slice(&line);
            }
            // The design's window never narrows: (-inf, inf) all the way down, no cut-off.
            if self.config.prune {
                if maximize {
                    alpha = alpha.max(score);
                } else {
                    beta = beta.min(score);
                }
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    fn random_move(&mut self, moves: &[Point]) -> Point {
        moves[self.rng.random_range(0..moves.len())]
    }
}

/// A score in whole units, inside `(-WIN, WIN)`.
fn report(score: f64) -> i32 {
    let bound = f64::from(WIN - 1);
    score.round().clamp(-bound, bound) as i32
}

impl<V: Variant> Agent<Gomoku<V>> for OmokAb {
    fn name(&self) -> String {
        self.config.to_spec()
    }

    fn select(&mut self, pos: &Gomoku<V>, budget: &Budget) -> Result<Decision<Point>, AgentError> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Err(AgentError::GameOver);
        }
        if pos.board().stone_count() == 0 {
            return Ok(Decision::just(self.random_move(&legal)));
        }
        let depth = budget
            .depth
            .unwrap_or(self.config.depth)
            .clamp(1, MAX_DEPTH);
        let time = budget
            .time
            .map_or(self.config.time, |t| t.min(self.config.time));
        self.deadline = Instant::now().checked_add(time);
        self.node_limit = budget.nodes;
        self.nodes = 0;
        self.aborted = false;

        self.ai = pos.side_to_move();
        let mut board = SearchBoard::new(pos);
        let mut best: Option<(f64, Point, Vec<Point>)> = None;
        let mut alpha = f64::NEG_INFINITY;
        let mut line = Vec::new();
        // The root's moves come from the real position (the game is not over there).
        for mv in candidate_moves(pos) {
            if self.past_deadline() {
                self.aborted = true;
                break;
            }
            line.clear();
            // Just below the best so far: a later move that ties it is scored exactly (the
            // design keeps the last of equal moves).
            board.make(mv);
            let floor = if self.config.prune {
                alpha.next_down()
            } else {
                f64::NEG_INFINITY
            };
            let score = self.search(&mut board, mv, depth - 1, floor, f64::INFINITY, &mut line);
            board.unmake();
            if self.aborted {
                break;
            }
            if best.as_ref().is_none_or(|(b, _, _)| score >= *b) {
                let mut pv = Vec::with_capacity(line.len() + 1);
                pv.push(mv);
                pv.extend_from_slice(&line);
                best = Some((score, mv, pv));
            }
            alpha = alpha.max(score);
        }
        let decision = match best {
            // Out of time: the design plays a random move.
            _ if self.aborted => Decision {
                nodes: self.nodes,
                ..Decision::just(self.random_move(&legal))
            },
            Some((score, mv, pv)) => Decision {
                mv,
                score: Some(report(score)),
                pv,
                depth: (!self.aborted).then_some(depth),
                nodes: self.nodes,
                scale: search::ScoreScale::Engine,
            },
            None => Decision {
                nodes: self.nodes,
                ..Decision::just(self.random_move(&legal))
            },
        };
        Ok(decision)
    }
}
