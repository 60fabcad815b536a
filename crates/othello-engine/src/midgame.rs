//! The midgame search of the `othello` engine: principal-variation search on bitboards with the
//! pattern features updated incrementally, a transposition table, ordering by shallow searches
//! and the evaluation, iterative deepening with aspiration windows, and exact search where the
//! remaining depth reaches the end.
//!
//! Scores are in the evaluation's units (`1/scale` discs, 64 per disc for the bundled weights);
//! a finished game scores its disc margin (empties to the winner) in the same units.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use game::Game;
use othello::bitboard::{flips, legal_moves};
use othello::{Move, Othello8, Square};

use crate::correction::CorrectionNet;
use crate::pattern::{Features, PatternEval};
use crate::{Kernel, Solver};

/// The largest score magnitude: a 64-disc win.
const INF: i32 = i16::MAX as i32;

/// Nodes between two looks at the clock.
const CHECK_EVERY: u64 = 4096;
/// From this depth a null-window node of a parallel search searches its first move, then hands
/// the others to the pool's threads (young brothers wait).
const SPLIT_DEPTH: u32 = 5;

/// log2 of the entries of a helper searcher's solver table.
const HELPER_SOLVER_BITS: u32 = 16;

/// The threads of a parallel search: a pool and one helper searcher per thread.
struct Parallel {
    pool: rayon::ThreadPool,
    helpers: Vec<Mutex<Midgame>>,
}

/// Multi-ProbCut applies from this depth.
pub const PROBCUT_MIN_DEPTH: u32 = 3;

/// The shallow search that predicts a `depth`-ply one in Multi-ProbCut: about half as deep,
/// the same parity (3→1, 4→2, 5→3, 6→2, 8→4, 10→4, 12→6).
#[must_use]
pub fn shallow_depth(depth: u32) -> u32 {
    if depth.is_multiple_of(2) {
        2 * (depth / 4)
    } else {
        1 + 2 * ((depth - 1) / 4)
    }
}

/// One Multi-ProbCut regression: `v_deep ≈ a · v_shallow + b`, residual deviation `sigma`
/// (evaluation units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbCutParams {
    /// Slope.
    pub a: f32,
    /// Intercept.
    pub b: f32,
    /// Standard deviation of the residuals.
    pub sigma: f32,
    /// Pairs the fit used.
    pub samples: u32,
}

/// Multi-ProbCut regressions per depth and per 10 empties, fitted from searches
/// (`stonelab train probcut`). Depths beyond the table use its deepest row.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProbCut {
    /// `(depth, empties / 10) -> params`, sorted.
    pub rows: Vec<(u32, u32, ProbCutParams)>,
}

impl ProbCut {
    /// The regression for a node `depth` plies deep with `empties` empty squares.
    #[must_use]
    pub fn get(&self, depth: u32, empties: u32) -> Option<ProbCutParams> {
        let bucket = empties / 10;
        let deepest = self.rows.iter().map(|r| r.0).max()?;
        let d = depth.min(deepest);
        self.rows
            .iter()
            .find(|r| r.0 == d && r.1 == bucket)
            .map(|r| r.2)
    }

    /// The text form: one line per row, `depth bucket a b sigma samples`; `#` comments.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# stonelab Multi-ProbCut regressions: depth, empties/10, a, b, sigma (1/64 discs), pairs\n",
        );
        for (d, b, p) in &self.rows {
            out.push_str(&format!(
                "{d} {b} {} {} {} {}\n",
                p.a, p.b, p.sigma, p.samples
            ));
        }
        out
    }

    /// Reads the text form.
    ///
    /// # Errors
    /// The line and what is wrong with it.
    pub fn from_text(text: &str) -> Result<ProbCut, String> {
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            let bad = || format!("line {}: expected `depth bucket a b sigma samples`", i + 1);
            if f.len() != 6 {
                return Err(bad());
            }
            let depth: u32 = f[0].parse().map_err(|_| bad())?;
            let bucket: u32 = f[1].parse().map_err(|_| bad())?;
            let p = ProbCutParams {
                a: f[2].parse().map_err(|_| bad())?,
                b: f[3].parse().map_err(|_| bad())?,
                sigma: f[4].parse().map_err(|_| bad())?,
                samples: f[5].parse().map_err(|_| bad())?,
            };
            let finite = p.a.is_finite() && p.b.is_finite() && p.sigma.is_finite();
            if !(finite && p.sigma >= 0.0 && (PROBCUT_MIN_DEPTH..=60).contains(&depth))
                || bucket > 6
            {
                return Err(format!("line {}: values out of range", i + 1));
            }
            rows.push((depth, bucket, p));
        }
        rows.sort_by_key(|r| (r.0, r.1));
        Ok(ProbCut { rows })
    }
}

/// The bundled Multi-ProbCut regressions (`models/othello8-probcut.txt`, made by
/// `stonelab train probcut` for the bundled pattern weights).
pub static BUNDLED_PROBCUT: &str = include_str!("../../../models/othello8-probcut.txt");

/// The bundled regressions, parsed once (an unreadable bundle reads as no regressions; a test
/// checks that it parses).
#[must_use]
pub fn bundled_probcut() -> Arc<ProbCut> {
    static TABLE: LazyLock<Arc<ProbCut>> = LazyLock::new(|| compiled_in(BUNDLED_PROBCUT));
    TABLE.clone()
}

/// A table compiled into the binary, parsed (unreadable: no regressions).
fn compiled_in(text: &str) -> Arc<ProbCut> {
    Arc::new(ProbCut::from_text(text).unwrap_or_default())
}

/// The Multi-ProbCut regressions that `stonelab train patterns` relabels the records with
/// (`models/othello8-probcut-relabel.txt`): the table bundled before the current weights,
/// pinned so that the documented training command reproduces the bundled weights whatever
/// table is bundled for play.
pub static RELABEL_PROBCUT: &str = include_str!("../../../models/othello8-probcut-relabel.txt");

/// The relabelling regressions, parsed once (a test checks that they parse).
#[must_use]
pub fn relabel_probcut() -> Arc<ProbCut> {
    static TABLE: LazyLock<Arc<ProbCut>> = LazyLock::new(|| compiled_in(RELABEL_PROBCUT));
    TABLE.clone()
}

/// More moves than any Othello position has (the most known is 33).
const MAX_MOVES: usize = 40;

/// No move in a table entry.
const NO_MOVE: u8 = 255;

/// A position with its features.
#[derive(Clone, Copy)]
struct Node {
    p: u64,
    o: u64,
    f: Features,
}

impl Node {
    /// The node of a position, its features computed from scratch.
    fn of(pos: &Othello8) -> Node {
        Node {
            p: pos.player(),
            o: pos.opponent(),
            f: Features::from_scratch(pos.player(), pos.opponent()),
        }
    }

    #[inline]
    fn play(&self, sq: u32, flipped: u64) -> Node {
        Node {
            p: self.o ^ flipped,
            o: self.p | flipped | 1u64 << sq,
            f: self.f.after(sq, flipped),
        }
    }

    #[inline]
    fn pass(&self) -> Node {
        let mut f = self.f;
        f.pass();
        Node {
            p: self.o,
            o: self.p,
            f,
        }
    }

    fn empties(&self) -> u32 {
        (!(self.p | self.o)).count_ones()
    }
}

/// The final margin for the side to move, empties to the winner.
pub(crate) fn final_margin(p: u64, o: u64) -> i32 {
    let (mine, theirs) = (p.count_ones() as i32, o.count_ones() as i32);
    let empty = 64 - mine - theirs;
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Greater => mine - theirs + empty,
        std::cmp::Ordering::Less => mine - theirs - empty,
        std::cmp::Ordering::Equal => 0,
    }
}

/// A table entry as read back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    lower: i16,
    upper: i16,
    depth: u8,
    best: u8,
}

impl Entry {
    fn pack(self) -> u64 {
        // Bit 48 marks a used slot.
        u64::from(self.lower as u16)
            | u64::from(self.upper as u16) << 16
            | u64::from(self.depth) << 32
            | u64::from(self.best) << 40
            | 1 << 48
    }

    fn unpack(data: u64) -> Entry {
        Entry {
            lower: data as u16 as i16,
            upper: (data >> 16) as u16 as i16,
            depth: (data >> 32) as u8,
            best: (data >> 40) as u8,
        }
    }
}

/// Bounds found for positions, two slots a bucket (the deeper search, and the latest), shared
/// by every thread of a search without locks: a slot holds `player ^ data`, `opponent ^ data`
/// and `data`, so a slot torn by two writers fails the key check and reads as empty.
pub struct Table {
    slots: Vec<crate::table::Slot>,
    mask: usize,
}

impl Table {
    /// A table of `2^bits` slots (24 bytes each).
    #[must_use]
    pub fn new(bits: u32) -> Table {
        let len = 1usize << bits.clamp(4, 28);
        Table {
            slots: crate::table::slots(len),
            mask: len - 2,
        }
    }

    #[inline]
    fn index(&self, p: u64, o: u64) -> usize {
        let h = p.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ o.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        ((h ^ (h >> 29)) as usize) & self.mask
    }

    #[inline]
    fn read(&self, i: usize, p: u64, o: u64) -> Option<Entry> {
        let (kp, ko, data) = self.slots[i].load();
        (data >> 48 == 1 && kp == p && ko == o).then(|| Entry::unpack(data))
    }

    #[inline]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let i = self.index(p, o);
        self.read(i, p, o).or_else(|| self.read(i + 1, p, o))
    }

    fn write(&self, i: usize, p: u64, o: u64, e: Entry) {
        self.slots[i].store(p, o, e.pack());
    }

    #[allow(clippy::too_many_arguments)]
    fn store(&self, p: u64, o: u64, depth: u32, alpha: i32, beta: i32, score: i32, best: u8) {
        let i = self.index(p, o);
        let (lower, upper) = if score >= beta {
            (score, INF)
        } else if score <= alpha {
            (-INF, score)
        } else {
            (score, score)
        };
        let depth = depth.min(255) as u8;
        let mut e = Entry {
            lower: lower as i16,
            upper: upper as i16,
            depth,
            best,
        };
        // The same position at the same depth: keep both bounds.
        for k in [i, i + 1] {
            if let Some(old) = self.read(k, p, o) {
                if old.depth == depth {
                    e.lower = e.lower.max(old.lower);
                    e.upper = e.upper.min(old.upper);
                    if best == NO_MOVE {
                        e.best = old.best;
                    }
                }
                if old.depth <= depth || k == i + 1 {
                    self.write(k, p, o, e);
                    return;
                }
            }
        }
        // The first slot keeps the deeper search; the second takes the rest.
        let first = self.slots[i].data();
        let slot = if first >> 48 == 0 || Entry::unpack(first).depth <= depth {
            i
        } else {
            i + 1
        };
        self.write(slot, p, o, e);
    }

    /// Empties every slot.
    pub fn clear(&self) {
        for s in &self.slots {
            s.clear();
        }
    }

    /// Bytes held.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.slots.len() * 24
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The best move found (`Pass` when forced), `None` when the game is over.
    pub best: Option<Move>,
    /// Its score for the side to move, in the evaluation's units.
    pub score: i32,
    /// The deepest iteration completed.
    pub depth: u32,
    /// Whether the score is the exact final margin (the search reached every end).
    pub exact: bool,
    /// The expected line.
    pub pv: Vec<Move>,
    /// Nodes searched.
    pub nodes: u64,
}

/// One root move scored by [`Midgame::analyse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootScore {
    /// The move.
    pub mv: Move,
    /// Its score for the side to move at the root, in the evaluation's units.
    pub score: i32,
    /// Plies searched from the root.
    pub depth: u32,
    /// Whether the score is the exact final margin (the search reached every end).
    pub exact: bool,
    /// The expected line, starting with the move.
    pub pv: Vec<Move>,
}

/// The midgame searcher: owns its table and a solver for the nodes near the end.
pub struct Midgame {
    eval: Arc<PatternEval>,
    table: Arc<Table>,
    solver: Solver<8>,
    nodes: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    stopped: bool,
    probcut: Option<(Arc<ProbCut>, f64)>,
    /// The correction network added to the evaluation at the leaves.
    correction: Option<Arc<CorrectionNet>>,
    /// The pool this searcher splits its nodes over (`None`: serial; helpers are serial).
    parallel: Option<Arc<Parallel>>,
    /// A helper's split point: set when a sibling has settled the node it works for.
    cut: Option<Arc<AtomicBool>>,
    /// The pool and helpers kept between parallel searches.
    pool: Option<Arc<Parallel>>,
    /// Whether the CPU runs the x86-64-v3 build of the search (popcnt, BMI2, AVX2).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    v3: bool,
}

impl Midgame {
    /// A searcher over `eval` with a table of `2^table_bits` entries (24 bytes each).
    #[must_use]
    pub fn new(eval: Arc<PatternEval>, table_bits: u32) -> Midgame {
        Midgame {
            solver: Solver::new(16).with_evaluation(eval.clone()),
            eval,
            table: Arc::new(Table::new(table_bits)),
            nodes: 0,
            deadline: None,
            node_limit: None,
            stopped: false,
            probcut: None,
            correction: None,
            parallel: None,
            cut: None,
            pool: None,
            v3: Kernel::Dispatched.runs_v3(),
        }
    }

    /// This searcher cutting by Multi-ProbCut at `t` standard deviations (None: every move is
    /// searched to full depth).
    #[must_use]
    pub fn with_probcut(mut self, probcut: Option<(Arc<ProbCut>, f64)>) -> Midgame {
        self.probcut = probcut.filter(|(_, t)| t.is_finite() && *t > 0.0);
        self
    }

    /// This searcher adding `net`'s correction to the evaluation at its leaves (`None`: the
    /// pattern evaluation alone). The network must be fitted for this searcher's weights (see
    /// [`CorrectionNet::check_fits`]).
    #[must_use]
    pub fn with_correction(mut self, net: Option<Arc<CorrectionNet>>) -> Midgame {
        self.correction = net;
        self
    }

    /// `value` (the pattern evaluation of `(p, o)`, in its units) with the correction network's
    /// term added, rounded to the evaluation's units.
    #[inline(always)]
    fn correct(&self, value: i32, p: u64, o: u64) -> i32 {
        match &self.correction {
            None => value,
            Some(net) => {
                let s = self.eval.scale() as f32;
                value + (net.correction(p, o, value as f32 / s) * s).round() as i32
            }
        }
    }

    /// This searcher forced onto one compilation of its search: [`Kernel::Portable`] runs the
    /// baseline build even where the CPU has x86-64-v3 (the slow twin the tests compare).
    #[must_use]
    pub fn with_kernel(mut self, kernel: Kernel) -> Midgame {
        self.v3 = kernel.runs_v3();
        self
    }

    /// Forgets every stored bound.
    pub fn clear(&mut self) {
        self.table.clear();
        self.solver.clear();
    }

    /// Bytes held by the tables.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.table.bytes() + self.solver.table_bytes()
    }

    /// The evaluation's units per disc.
    #[must_use]
    pub fn scale(&self) -> i32 {
        self.eval.scale()
    }

    /// The static evaluation of a position for its side to move (clamped inside ±64 discs).
    #[must_use]
    pub fn evaluate(&self, pos: &Othello8) -> i32 {
        self.leaf(&Node::of(pos))
    }

    #[inline(always)]
    fn leaf(&self, n: &Node) -> i32 {
        let limit = 64 * self.eval.scale() - 1;
        let v = self.eval.evaluate(&n.f, n.p, n.o);
        self.correct(v, n.p, n.o).clamp(-limit, limit)
    }

    /// [`leaf`](Self::leaf) of the child `n.play(sq, flipped)`, from the one view of its
    /// features the evaluation reads (half the updates of making the child).
    #[inline(always)]
    fn leaf_after(&self, n: &Node, sq: u32, flipped: u64) -> i32 {
        let limit = 64 * self.eval.scale() - 1;
        let (p, o) = (n.o ^ flipped, n.p | flipped | 1u64 << sq);
        let v = self
            .eval
            .evaluate_indices(&n.f.mover_after(sq, flipped), p, o);
        self.correct(v, p, o).clamp(-limit, limit)
    }

    /// [`leaf_after`](Self::leaf_after) without the correction network (move ordering).
    #[inline(always)]
    fn leaf_after_linear(&self, n: &Node, sq: u32, flipped: u64) -> i32 {
        let limit = 64 * self.eval.scale() - 1;
        let (p, o) = (n.o ^ flipped, n.p | flipped | 1u64 << sq);
        self.eval
            .evaluate_indices(&n.f.mover_after(sq, flipped), p, o)
            .clamp(-limit, limit)
    }

    /// What [`pvs`](Self::pvs) does at depth 0 for a leaf whose value is `value`: one node
    /// counted, and 0 once the search is out of budget.
    #[inline(always)]
    fn visit_leaf(&mut self, value: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            0
        } else {
            value
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.node_limit.is_some_and(|n| self.nodes >= n);
            self.stopped =
                late || spent || self.cut.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        }
        self.stopped
    }

    /// Exact score (evaluation units) of a node with a window, by the endgame solver.
    fn exact(&mut self, n: &Node, alpha: i32, beta: i32) -> i32 {
        let scale = self.eval.scale();
        // Disc bounds that contain the window.
        let lo = alpha.div_euclid(scale);
        let hi = -((-beta).div_euclid(scale));
        let pos = match Othello8::from_bitboards(n.p, n.o, game::Color::Black) {
            Ok(pos) => pos,
            Err(_) => return 0,
        };
        if self.deadline.is_none() && self.node_limit.is_none() {
            let s = self.solver.solve_window(&pos, lo.max(-65), hi.min(65));
            self.nodes += s.nodes;
            return s.score * scale;
        }
        // A search with a deadline or a node budget keeps it inside the solve too.
        let limit = crate::SolveLimit {
            deadline: self.deadline,
            nodes: self.node_limit.map(|n| n.saturating_sub(self.nodes)),
        };
        match self
            .solver
            .solve_window_limited(&pos, lo.max(-65), hi.min(65), &limit)
        {
            Some(s) => {
                self.nodes += s.nodes;
                s.score * scale
            }
            None => {
                self.stopped = true;
                0
            }
        }
    }

    /// Moves of `n` in search order (into `list`, returning how many): the table move, then by
    /// the ordering score.
    #[inline(always)]
    fn ordered(
        &mut self,
        n: &Node,
        moves: u64,
        depth: u32,
        table_move: u8,
        list: &mut [(i32, u32, u64); MAX_MOVES],
    ) -> usize {
        let mut len = 0;
        let mut m = moves;
        while m != 0 && len < MAX_MOVES {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = flips(sq, n.p, n.o);
            let score = if sq as u8 == table_move {
                i32::MAX
            } else {
                // Fewer replies for the opponent first; the evaluation breaks ties, and deep
                // nodes look one or two plies further.
                let replies = legal_moves(n.o ^ f, n.p | f | 1u64 << sq).count_ones() as i32;
                let value = if depth >= 6 {
                    let shallow = if depth >= 10 { 2 } else { 1 };
                    -self.pvs(&n.play(sq, f), shallow, -INF, INF, false)
                } else if depth >= 3 {
                    -self.leaf_after_linear(n, sq, f)
                } else {
                    0
                };
                value - replies * self.eval.scale() * 2
            };
            list[len] = (score, sq, f);
            len += 1;
        }
        list[..len].sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
        len
    }

    /// Negamax principal-variation search of `n` to `depth` plies in the window: the
    /// x86-64-v3 build of [`pvs_body`](Self::pvs_body) where the CPU has it (the same tree).
    fn pvs(&mut self, n: &Node, depth: u32, alpha: i32, beta: i32, pv: bool) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if self.v3 {
            // SAFETY: `v3` is set only where the CPU has every feature `pvs_v3` is built for.
            return unsafe { self.pvs_v3(n, depth, alpha, beta, pv) };
        }
        self.pvs_body(n, depth, alpha, beta, pv)
    }

    /// [`pvs_body`](Self::pvs_body) compiled for x86-64-v3, with what it inlines (ordering,
    /// Multi-ProbCut, the evaluation, move generation): 7% faster on `bench midgame --depth 10`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    unsafe fn pvs_v3(&mut self, n: &Node, depth: u32, alpha: i32, beta: i32, pv: bool) -> i32 {
        self.pvs_body(n, depth, alpha, beta, pv)
    }

    /// The search itself; its children go back through [`pvs`](Self::pvs).
    #[inline(always)]
    fn pvs_body(&mut self, n: &Node, depth: u32, mut alpha: i32, beta: i32, pv: bool) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let empties = n.empties();
        if depth == 0 {
            return self.leaf(n);
        }
        if depth >= empties {
            // The search would reach every end: the solver does it faster.
            return self.exact(n, alpha, beta);
        }
        let moves = legal_moves(n.p, n.o);
        if moves == 0 {
            if legal_moves(n.o, n.p) == 0 {
                return final_margin(n.p, n.o) * self.eval.scale();
            }
            return -self.pvs(&n.pass(), depth, -beta, -alpha, pv);
        }
        let mut table_move = NO_MOVE;
        if let Some(e) = self.table.probe(n.p, n.o) {
            table_move = e.best;
            if u32::from(e.depth) >= depth && !pv {
                let (lower, upper) = (i32::from(e.lower), i32::from(e.upper));
                if lower >= beta {
                    return lower;
                }
                if upper <= alpha {
                    return upper;
                }
                if lower == upper {
                    return lower;
                }
            }
        }
        if !pv && depth >= PROBCUT_MIN_DEPTH {
            if let Some(cut) = self.probcut(n, depth, empties, alpha, beta) {
                return cut;
            }
        }
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        let mut list = [(0i32, 0u32, 0u64); MAX_MOVES];
        let len = self.ordered(n, moves, depth, table_move, &mut list);
        for (k, &(_, sq, f)) in list[..len].iter().enumerate() {
            if k == 1
                && !pv
                && beta == alpha + 1
                && depth >= SPLIT_DEPTH
                && len > 2
                && self.parallel.is_some()
            {
                // The first move did not cut: the rest in parallel.
                let (score, sq) = self.split(n, depth, alpha, &list[1..len]);
                if self.stopped {
                    return 0;
                }
                if score > best {
                    best = score;
                    best_move = sq;
                }
                break;
            }
            let score = if depth == 1 {
                // The child is a leaf: what `pvs` does at depth 0 (a re-search included),
                // without making the child's features.
                let value = self.leaf_after(n, sq, f);
                let s = -self.visit_leaf(value);
                if k > 0 && s > alpha && s < beta && pv {
                    -self.visit_leaf(value)
                } else {
                    s
                }
            } else if k == 0 {
                let child = n.play(sq, f);
                -self.pvs(&child, depth - 1, -beta, -alpha, pv)
            } else {
                let child = n.play(sq, f);
                let s = -self.pvs(&child, depth - 1, -alpha - 1, -alpha, false);
                if s > alpha && s < beta && pv {
                    -self.pvs(&child, depth - 1, -beta, -alpha, true)
                } else {
                    s
                }
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = sq as u8;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.table
            .store(n.p, n.o, depth, alpha0, beta, best, best_move);
        best
    }

    /// The null-window search `(alpha, alpha + 1)` of `moves` of node `n` to `depth` on the
    /// pool's threads, each thread taking the next move in order through its helper; the
    /// first move to reach `alpha + 1` stops the others. The best score and its square
    /// (fail-soft); a helper stopped for the search's own limits stops this searcher.
    fn split(&mut self, n: &Node, depth: u32, alpha: i32, moves: &[(i32, u32, u64)]) -> (i32, u8) {
        use rayon::prelude::*;
        let Some(par) = self.parallel.clone() else {
            return (-INF, NO_MOVE);
        };
        let cut = Arc::new(AtomicBool::new(false));
        let next = AtomicUsize::new(0);
        let best = Mutex::new((-INF, NO_MOVE));
        let nodes = AtomicU64::new(0);
        let given_up = AtomicBool::new(false);
        let deadline = self.deadline;
        let workers = par.helpers.len().min(moves.len());
        (0..workers).into_par_iter().for_each(|_| {
            // One task at a time per thread (helpers never split), so its helper is free.
            let t = rayon::current_thread_index().unwrap_or(0) % par.helpers.len();
            let mut h = par.helpers[t]
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            h.cut = Some(cut.clone());
            h.deadline = deadline;
            h.node_limit = None;
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= moves.len() || cut.load(Ordering::Relaxed) {
                    break;
                }
                let (_, sq, f) = moves[k];
                h.nodes = 0;
                h.stopped = false;
                let score = -h.pvs(&n.play(sq, f), depth - 1, -alpha - 1, -alpha, false);
                nodes.fetch_add(h.nodes, Ordering::Relaxed);
                if h.stopped {
                    if !cut.load(Ordering::Relaxed) {
                        given_up.store(true, Ordering::Relaxed);
                    }
                    break;
                }
                let mut b = best.lock().unwrap_or_else(PoisonError::into_inner);
                if score > b.0 {
                    *b = (score, sq as u8);
                }
                if score > alpha {
                    cut.store(true, Ordering::Relaxed);
                }
            }
            h.cut = None;
        });
        self.nodes += nodes.into_inner();
        let (score, sq) = best.into_inner().unwrap_or_else(PoisonError::into_inner);
        if given_up.into_inner() && score <= alpha {
            self.stopped = true;
        }
        (score, sq)
    }

    /// Multi-ProbCut: a shallow null-window search predicts the deep one; when the prediction
    /// is `t` standard deviations outside the window, the node is cut.
    #[inline(always)]
    fn probcut(
        &mut self,
        n: &Node,
        depth: u32,
        empties: u32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let (params, t) = {
            let (table, t) = self.probcut.as_ref()?;
            (table.get(depth, empties)?, *t)
        };
        let shallow = shallow_depth(depth);
        let (a, b, sigma) = (
            f64::from(params.a),
            f64::from(params.b),
            f64::from(params.sigma),
        );
        if a <= 0.0 {
            return None;
        }
        // Fail high: v_deep >= beta is likely when a·v_shallow + b − t·σ >= beta.
        let high = ((f64::from(beta) + t * sigma - b) / a).ceil();
        if high < f64::from(INF) && high > f64::from(-INF) {
            let bound = high as i32;
            if self.pvs(n, shallow, bound - 1, bound, false) >= bound {
                return Some(beta);
            }
        }
        if self.stopped {
            return Some(0);
        }
        let low = ((f64::from(alpha) - t * sigma - b) / a).floor();
        if low > f64::from(-INF) && low < f64::from(INF) {
            let bound = low as i32;
            if self.pvs(n, shallow, bound, bound + 1, false) <= bound {
                return Some(alpha);
            }
        }
        None
    }

    fn pv_line(&self, pos: &Othello8, first: Move, max: usize) -> Vec<Move> {
        let mut line = vec![first];
        let mut p = pos.play_unchecked(first);
        while line.len() < max && !p.is_over() {
            let mv = if p.moves() == 0 {
                Move::Pass
            } else {
                match self.table.probe(p.player(), p.opponent()) {
                    Some(e) if e.best != NO_MOVE => match Square::from_index(u32::from(e.best)) {
                        Some(sq) if p.moves() & sq.bit() != 0 => Move::Place(sq),
                        _ => break,
                    },
                    _ => break,
                }
            };
            line.push(mv);
            p = p.play_unchecked(mv);
        }
        line
    }

    /// Searches `pos` by iterative deepening to `depth` plies, stopping early at `time` or
    /// `nodes` (the last completed iteration's answer stands, or under a clock the best move of
    /// the iteration the clock cut when it beat that answer on a finished search; the first
    /// iteration always completes).
    pub fn search(
        &mut self,
        pos: &Othello8,
        depth: u32,
        time: Option<Duration>,
        nodes: Option<u64>,
    ) -> SearchResult {
        let start = Instant::now();
        self.nodes = 0;
        self.stopped = false;
        let moves = pos.moves();
        if moves == 0 {
            let over = pos.is_over();
            let n = Node::of(pos);
            let score = if over {
                final_margin(n.p, n.o) * self.eval.scale()
            } else {
                -self.pvs(&n.pass(), depth.max(1), -INF, INF, true)
            };
            return SearchResult {
                best: (!over).then_some(Move::Pass),
                score,
                depth,
                exact: over,
                pv: if over { Vec::new() } else { vec![Move::Pass] },
                nodes: self.nodes,
            };
        }
        let root = Node::of(pos);
        let empties = root.empties();
        let max_depth = depth.clamp(1, empties);
        let mut result: Option<SearchResult> = None;
        for d in 1..=max_depth {
            // The first iteration always finishes; later ones may be cut by the budget.
            self.deadline = if d == 1 {
                None
            } else {
                time.map(|t| start + search::Budget::stop_within(t))
            };
            self.node_limit = if d == 1 { None } else { nodes };
            let guess = result.as_ref().map_or(0, |r| r.score);
            // Under a clock the root goes move by move, so that an iteration the clock stops
            // still gives the best of the moves it finished (the classic engines' rule); without
            // one, the aspiration search (whose trees the node checksums pin).
            let previous = result.as_ref().and_then(|r| match r.best {
                Some(Move::Place(sq)) => Some(sq.index()),
                _ => None,
            });
            let (score, best) = if self.deadline.is_some() {
                match self.root_timed(&root, d, previous) {
                    Some((score, sq, true)) => (score, sq as u8),
                    Some((score, sq, false)) => {
                        // Stopped: a move that beat the previous best on a finished search
                        // is played, the completed depth and its line otherwise kept.
                        if let (Some(r), Some(square)) = (result.as_mut(), Square::from_index(sq)) {
                            if Some(sq) != previous {
                                r.best = Some(Move::Place(square));
                                r.score = score;
                                r.pv = self.pv_line(pos, Move::Place(square), d as usize);
                            }
                        }
                        break;
                    }
                    None => break,
                }
            } else {
                self.root(&root, d, guess)
            };
            if self.stopped {
                break;
            }
            // The root always stores its best move; the first legal move is a fallback only.
            let sq = if best != NO_MOVE && moves >> best & 1 == 1 {
                u32::from(best)
            } else {
                moves.trailing_zeros()
            };
            let Some(sq) = Square::from_index(sq) else {
                break;
            };
            let mv = Move::Place(sq);
            let exact = d >= empties;
            result = Some(SearchResult {
                best: Some(mv),
                score,
                depth: d,
                exact,
                pv: self.pv_line(pos, mv, d as usize),
                nodes: self.nodes,
            });
            if exact {
                break;
            }
            // Under a clock the next iteration starts whatever time is left: what it finishes
            // before the deadline counts (above).
            if time.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
        }
        let mut r = result.unwrap_or_else(|| SearchResult {
            best: Square::from_index(moves.trailing_zeros()).map(Move::Place),
            score: 0,
            depth: 0,
            exact: false,
            pv: Vec::new(),
            nodes: 0,
        });
        r.nodes = self.nodes;
        r
    }

    /// Every legal move of `pos` scored by the same search: iterative deepening to `depth`
    /// plies from `pos`, the position after each move searched with an open window, stopping at
    /// `time` or `nodes`. The last iteration that scored every move stands (the first always
    /// completes), so all scores come from one depth and compare like for like. Best first; ties
    /// keep the previous iteration's order. A side that must pass gets one line, the pass; a
    /// finished game none.
    pub fn analyse(
        &mut self,
        pos: &Othello8,
        depth: u32,
        time: Option<Duration>,
        nodes: Option<u64>,
    ) -> Vec<RootScore> {
        let moves = pos.moves();
        if moves == 0 {
            let r = self.search(pos, depth, time, nodes);
            return r
                .best
                .map(|mv| RootScore {
                    mv,
                    score: r.score,
                    depth: r.depth,
                    exact: r.exact,
                    pv: r.pv,
                })
                .into_iter()
                .collect();
        }
        let start = Instant::now();
        self.nodes = 0;
        self.stopped = false;
        let root = Node::of(pos);
        let empties = root.empties();
        let scale = self.eval.scale();
        // (score, square), in the order the next iteration searches them.
        let mut order: Vec<(i32, u32)> = Vec::new();
        let mut rest = moves;
        while rest != 0 {
            order.push((0, rest.trailing_zeros()));
            rest &= rest - 1;
        }
        let mut done = 0;
        for d in 1..=depth.clamp(1, empties) {
            self.deadline = if d == 1 {
                None
            } else {
                time.map(|t| start + t)
            };
            self.node_limit = if d == 1 { None } else { nodes };
            let mut scored = Vec::with_capacity(order.len());
            for &(_, sq) in &order {
                let child = root.play(sq, flips(sq, root.p, root.o));
                let score =
                    if legal_moves(child.p, child.o) == 0 && legal_moves(child.o, child.p) == 0 {
                        -final_margin(child.p, child.o) * scale
                    } else {
                        -self.pvs(&child, d - 1, -INF, INF, true)
                    };
                if self.stopped {
                    break;
                }
                scored.push((score, sq));
            }
            if self.stopped {
                break;
            }
            // Stable: equal scores keep the order they were searched in.
            scored.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
            order = scored;
            done = d;
            if d >= empties {
                break;
            }
            // Each iteration costs several times the last: do not start one that cannot finish.
            if time.is_some_and(|t| start.elapsed() * 3 > t) {
                break;
            }
        }
        order
            .into_iter()
            .filter_map(|(score, sq)| {
                let mv = Move::Place(Square::from_index(sq)?);
                Some(RootScore {
                    mv,
                    score,
                    depth: done,
                    exact: done >= empties,
                    pv: self.pv_line(pos, mv, done as usize),
                })
            })
            .collect()
    }

    /// A helper for a parallel search: this searcher's evaluation, table, stop flag and
    /// selectivity, its own solver.
    fn helper(&self) -> Midgame {
        Midgame {
            eval: self.eval.clone(),
            table: self.table.clone(),
            solver: Solver::new(HELPER_SOLVER_BITS).with_evaluation(self.eval.clone()),
            nodes: 0,
            deadline: None,
            node_limit: None,
            stopped: false,
            probcut: self.probcut.clone(),
            correction: self.correction.clone(),
            parallel: None,
            cut: None,
            pool: None,
            v3: self.v3,
        }
    }

    /// [`search`](Self::search) on `threads` threads (young brothers wait): at a null-window
    /// node from depth 5 whose first move did not cut, the pool's threads take the other moves
    /// in order, each through its own helper searcher sharing this one's table. Nodes count
    /// every thread's; they vary from run to run. One thread (or a pool that cannot be made)
    /// is exactly `search`.
    pub fn search_threads(
        &mut self,
        pos: &Othello8,
        depth: u32,
        time: Option<Duration>,
        nodes: Option<u64>,
        threads: usize,
    ) -> SearchResult {
        if threads <= 1 {
            return self.search(pos, depth, time, nodes);
        }
        let par = match &self.pool {
            Some(p) if p.helpers.len() == threads => p.clone(),
            _ => match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                Ok(pool) => {
                    let helpers = (0..threads).map(|_| Mutex::new(self.helper())).collect();
                    Arc::new(Parallel { pool, helpers })
                }
                Err(_) => return self.search(pos, depth, time, nodes),
            },
        };
        self.pool = Some(par.clone());
        self.parallel = Some(par.clone());
        let result = par.pool.install(|| self.search(pos, depth, time, nodes));
        self.parallel = None;
        result
    }

    /// The score of every iteration 1..=`depth` of a full-width search (no budget): what
    /// Multi-ProbCut's regressions are fitted on.
    pub fn iteration_scores(&mut self, pos: &Othello8, depth: u32) -> Vec<i32> {
        self.nodes = 0;
        self.stopped = false;
        self.deadline = None;
        self.node_limit = None;
        let root = Node::of(pos);
        if pos.moves() == 0 {
            return Vec::new();
        }
        let mut scores: Vec<i32> = Vec::new();
        for d in 1..=depth.min(root.empties()) {
            let guess = scores.last().copied().unwrap_or(0);
            scores.push(self.root(&root, d, guess).0);
        }
        scores
    }

    /// One root iteration under a clock, move by move: principal variation search with the
    /// previous iteration's best move first and the others in square order. `(score, best
    /// square, finished)`: when the clock stops the iteration, the best of the moves whose
    /// search finished (a move that failed high on a finished null window counts as better than
    /// the best before it, its score that bound); `None` when not even the first move finished.
    fn root_timed(
        &mut self,
        root: &Node,
        depth: u32,
        first: Option<u32>,
    ) -> Option<(i32, u32, bool)> {
        let scale = self.eval.scale();
        let moves = legal_moves(root.p, root.o);
        let mut order: Vec<u32> = Vec::with_capacity(moves.count_ones() as usize);
        if let Some(f) = first.filter(|&f| f < 64 && moves >> f & 1 == 1) {
            order.push(f);
        }
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            if Some(sq) != first {
                order.push(sq);
            }
            rest &= rest - 1;
        }
        let mut best: Option<(i32, u32)> = None;
        for sq in order {
            let child = root.play(sq, flips(sq, root.p, root.o));
            let score = if legal_moves(child.p, child.o) == 0 && legal_moves(child.o, child.p) == 0
            {
                -final_margin(child.p, child.o) * scale
            } else {
                match best {
                    None => -self.pvs(&child, depth - 1, -INF, INF, true),
                    Some((alpha, _)) => {
                        let probe = -self.pvs(&child, depth - 1, -alpha - 1, -alpha, false);
                        if self.stopped {
                            break;
                        }
                        if probe > alpha {
                            let full = -self.pvs(&child, depth - 1, -INF, -alpha, true);
                            if self.stopped {
                                best = Some((probe, sq));
                                break;
                            }
                            full
                        } else {
                            probe
                        }
                    }
                }
            };
            if self.stopped {
                break;
            }
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, sq));
            }
        }
        let finished = !self.stopped;
        if finished {
            if let Some((score, sq)) = best {
                // The next iteration's ordering and the line read the table's root entry.
                self.table
                    .store(root.p, root.o, depth, -INF, INF, score, sq as u8);
            }
        }
        best.map(|(score, sq)| (score, sq, finished))
    }

    /// One root iteration with an aspiration window around `guess`: (score, best square).
    fn root(&mut self, root: &Node, depth: u32, guess: i32) -> (i32, u8) {
        let scale = self.eval.scale();
        let mut delta = 2 * scale;
        let (mut lo, mut hi) = if depth <= 2 {
            (-INF, INF)
        } else {
            ((guess - delta).max(-INF), (guess + delta).min(INF))
        };
        loop {
            let score = self.pvs(root, depth, lo, hi, true);
            if self.stopped {
                return (0, NO_MOVE);
            }
            if score <= lo && lo > -INF {
                lo = (score - delta).max(-INF);
            } else if score >= hi && hi < INF {
                hi = (score + delta).min(INF);
            } else {
                let best = self.table.probe(root.p, root.o).map_or(NO_MOVE, |e| e.best);
                return (score, best);
            }
            delta *= 2;
        }
    }
}

/// The midgame searcher as an agent: iterative deepening to its depth, within its time.
pub struct MidgameAgent {
    search: Midgame,
    depth: u32,
    time: Option<Duration>,
    threads: usize,
}

impl MidgameAgent {
    /// Searches `depth` plies (at most), within `time` per move when given.
    #[must_use]
    pub fn new(eval: Arc<PatternEval>, depth: u32, time: Option<Duration>) -> MidgameAgent {
        MidgameAgent {
            search: Midgame::new(eval, 20),
            depth,
            time,
            threads: 1,
        }
    }

    /// This agent searching on `threads` threads (young brothers wait).
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> MidgameAgent {
        self.threads = threads.clamp(1, 256);
        self
    }

    /// This agent adding `net`'s correction to the evaluation at its leaves.
    #[must_use]
    pub fn with_correction(mut self, net: Option<Arc<CorrectionNet>>) -> MidgameAgent {
        self.search = self.search.with_correction(net);
        self
    }

    /// This agent cutting by Multi-ProbCut at `t` standard deviations.
    #[must_use]
    pub fn with_probcut(mut self, table: Arc<ProbCut>, t: f64) -> MidgameAgent {
        self.search = self.search.with_probcut(Some((table, t)));
        self
    }

    /// The depth and time a search under `budget` gets: the budget's, else this agent's; a
    /// clock without a depth searches as deep as the clock allows.
    fn limits(&self, budget: &search::Budget) -> (u32, Option<Duration>) {
        let depth = budget.depth.unwrap_or(if budget.time.is_some() {
            60
        } else {
            self.depth
        });
        (depth, budget.time.or(self.time))
    }
}

impl search::Agent<Othello8> for MidgameAgent {
    fn name(&self) -> String {
        "othello".into()
    }

    fn new_game(&mut self) {
        self.search.clear();
    }

    fn table_bytes(&self) -> usize {
        // A parallel search gives each thread a helper with its own small solver table.
        let helpers = if self.threads > 1 {
            self.threads * Solver::<8>::new(HELPER_SOLVER_BITS).table_bytes()
        } else {
            0
        };
        self.search.table_bytes() + helpers
    }

    fn select(
        &mut self,
        pos: &Othello8,
        budget: &search::Budget,
    ) -> Result<search::Decision<Move>, search::AgentError> {
        if pos.is_over() {
            return Err(search::AgentError::GameOver);
        }
        let (depth, time) = self.limits(budget);
        let r = self
            .search
            .search_threads(pos, depth, time, budget.nodes, self.threads);
        let mv = r.best.ok_or(search::AgentError::GameOver)?;
        Ok(search::Decision {
            mv,
            score: Some(raw_score(r.score, r.exact, self.search.scale())),
            pv: r.pv,
            depth: Some(r.depth),
            nodes: r.nodes,
            scale: search::ScoreScale::Centi,
        })
    }

    /// [`Midgame::analyse`] (one thread) within the budget, as in [`select`](Self::select); each
    /// line's `nodes` are the whole analysis'.
    fn analyse(
        &mut self,
        pos: &Othello8,
        budget: &search::Budget,
        lines: usize,
    ) -> Option<Result<Vec<search::analysis::Line<Move>>, search::AgentError>> {
        if pos.is_over() {
            return Some(Err(search::AgentError::GameOver));
        }
        let (depth, time) = self.limits(budget);
        let found = self.search.analyse(pos, depth, time, budget.nodes);
        let nodes = self.search.nodes;
        let scale = self.search.scale();
        Some(Ok(found
            .into_iter()
            .take(lines.max(1))
            .map(|r| search::analysis::Line {
                mv: r.mv,
                raw: Some(raw_score(r.score, r.exact, scale)),
                scale: search::ScoreScale::Centi,
                pv: r.pv,
                depth: Some(r.depth),
                nodes,
            })
            .collect()))
    }
}

/// A search score in evaluation units as an agent's raw score: hundredths of a disc, or a proven
/// result (`WIN` plus the margin) when exact.
fn raw_score(score: i32, exact: bool, scale: i32) -> i32 {
    if exact {
        let margin = score / scale;
        if margin < 0 {
            -search::WIN + margin
        } else {
            search::WIN + margin
        }
    } else {
        score * 100 / scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The x86-64-v3 build of the search and the portable one search the same tree: the same
    /// score, move and node count at every depth on record-like positions.
    #[test]
    fn the_v3_build_searches_the_portable_builds_tree() {
        let eval = crate::pattern::bundled();
        for number in [1, 10, 20] {
            let pos = crate::obf::ffo_suite()[number].pos;
            let Ok(pos) =
                Othello8::from_bitboards(pos.player(), pos.opponent(), game::Color::Black)
            else {
                panic!("FFO #{} is an 8x8 position", number + 1);
            };
            for (depth, correction) in [(3, false), (6, false), (3, true), (6, true)] {
                // With the correction network too: its sums come out the same in both builds.
                let net = correction.then(crate::correction::bundled);
                let mut fast = Midgame::new(eval.clone(), 16).with_correction(net.clone());
                let mut slow = Midgame::new(eval.clone(), 16)
                    .with_correction(net)
                    .with_kernel(Kernel::Portable);
                let (a, b) = (
                    fast.search(&pos, depth, None, None),
                    slow.search(&pos, depth, None, None),
                );
                assert_eq!(
                    (a.score, a.best, a.nodes),
                    (b.score, b.best, b.nodes),
                    "FFO #{} depth {depth}, correction {correction}",
                    number + 1
                );
            }
        }
    }

    /// Where a search reaches the end it hands the node to the solver, which keeps the search's
    /// deadline and node budget: past either the search stops instead of solving on (FFO #45, 24
    /// empties, seconds to solve); within them, and without them, the score is exact.
    #[test]
    fn the_solve_at_the_end_keeps_the_searchs_limits() {
        let hard = crate::obf::ffo_suite()[44].pos;
        assert_eq!(hard.empty().count_ones(), 24);
        let eval = crate::pattern::bundled();
        let scale = eval.scale();
        for (deadline, nodes) in [(Some(Instant::now()), None), (None, Some(10_000))] {
            let mut m = Midgame::new(eval.clone(), 10);
            m.deadline = deadline;
            m.node_limit = nodes;
            let started = Instant::now();
            m.exact(&Node::of(&hard), -scale, scale);
            assert!(m.stopped, "{deadline:?} {nodes:?}");
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{deadline:?} {nodes:?}"
            );
        }
        let mut easy = hard;
        while easy.empty().count_ones() > 12 {
            easy = easy.play_unchecked(easy.legal_moves()[0]);
        }
        let exact = Solver::<8>::new(16).solve(&easy).score;
        let limits = [
            (None, None),
            (Some(Instant::now() + Duration::from_secs(60)), None),
            (None, Some(u64::MAX / 2)),
        ];
        for (deadline, nodes) in limits {
            let mut m = Midgame::new(eval.clone(), 10);
            m.deadline = deadline;
            m.node_limit = nodes;
            let got = m.exact(&Node::of(&easy), -65 * scale, 65 * scale);
            assert!(!m.stopped);
            assert_eq!(got, exact * scale, "{deadline:?} {nodes:?}");
        }
    }
}
