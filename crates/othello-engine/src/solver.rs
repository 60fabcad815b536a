//! The exact endgame solver: the final margin (empties to the winner) of an Othello position
//! under perfect play, with a best move.
//!
//! Principal-variation search with null windows everywhere else, a transposition table of exact
//! bounds keyed by the whole position, move ordering by a shallow search of the learned pattern
//! evaluation far from the end (8x8, where the solver is given one), fastest-first (fewest
//! opponent replies, corners counted twice) nearer the end and quadrant parity in the last few
//! empties, stability cutoffs, and code below seven empty squares that never generates a move
//! list. Its null-window probes start beside the evaluation's guess where it has one. Large
//! tables are backed by huge pages where Linux offers them. The recursive kernel (with the
//! evaluation search that orders its moves) is compiled twice from one macro: portable, and for
//! x86-64-v3 (popcnt/lzcnt/BMI/AVX2) where the CPU has it.

use arrayvec::ArrayVec;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};

use crate::table::Slot;
use std::time::{Duration, Instant};

use game::Game;
use othello::bitboard::{corners, flips, legal_moves, neighbours};
use othello::{Move, Othello, Square};

use crate::pattern::{Features, PatternEval};
use crate::stable_discs;

/// Bounds on the exact score of one position.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    best: u8,
    /// Empty squares of the position: deeper entries are kept over shallower ones.
    empties: u8,
}

const NO_MOVE: u8 = 255;

/// What a solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The final margin for the side to move under perfect play (empties to the winner), or a
    /// bound of it when solving with a window that excludes the true score.
    pub score: i32,
    /// A best move (`Pass` when forced), `None` when the game is over.
    pub best: Option<Move>,
    /// The expected line from the table, starting with `best`.
    pub pv: Vec<Move>,
    /// Positions visited: the search tree's, and those its move ordering and its first guess
    /// looked at (every position made, as Edax counts them).
    pub nodes: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// The exact endgame solver for the `N x N` board. Keeps its transposition table between
/// solves (its bounds are exact facts about positions, so they stay valid).
pub struct Solver<const N: usize> {
    /// Empty until the first search allocates it (see [`Solver::table_bytes`]).
    table: Vec<Slot>,
    /// log2 of the table's entries.
    bits: u32,
    nodes: u64,
    kernel: Kernel,
    /// The learned evaluation that orders moves far from the end (8x8 only).
    eval: Option<std::sync::Arc<PatternEval>>,
    /// The threads of a parallel solve (`None`: one thread, the caller's).
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

/// Which compilation of the recursive kernel a [`Solver`] runs. Both come from one macro and
/// must search exactly the same tree (a test compares them node for node).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kernel {
    /// The x86-64-v3 build where the CPU has it, the portable one otherwise.
    #[default]
    Dispatched,
    /// Always the portable build (the slow twin).
    Portable,
}

impl Kernel {
    /// Whether this choice runs the x86-64-v3 build on this CPU (never off x86-64): the one
    /// check behind the solver's and the midgame search's dispatch.
    #[must_use]
    pub(crate) fn runs_v3(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self == Kernel::Dispatched && othello::bitboard::has_x86_64_v3();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }
}

/// The largest table: 2^28 entries of 24 bytes (6 GiB).
pub const MAX_TABLE_BITS: u32 = 28;

/// Searches with at most this many empties use the move-list-free code.
const SMALL: u32 = 4;
/// Below this many empties moves are tried in parity order without sorting.
const SORT_MIN: u32 = 7;
/// The table is used from this many empties up (below, a probe's cache miss costs more than the
/// nodes it saves).
const TABLE_MIN: u32 = 8;
// Below SORT_MIN a node has no table probe to order by.
const _: () = assert!(SORT_MIN <= TABLE_MIN);
/// Stability cutoffs are tried from this many empties up.
const STABILITY_MIN: u32 = 6;

#[inline(always)]
fn final_score(player: u64, opponent: u64, squares: i32) -> i32 {
    let p = player.count_ones() as i32;
    let o = opponent.count_ones() as i32;
    let empty = squares - p - o;
    match p.cmp(&o) {
        std::cmp::Ordering::Greater => p - o + empty,
        std::cmp::Ordering::Less => p - o - empty,
        std::cmp::Ordering::Equal => 0,
    }
}

/// The squares around each square (king moves): a move there flips nothing unless one of
/// them holds an opponent disc.
static AROUND: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let bit = 1u64 << sq;
        let row = ((bit << 1) & 0xfefe_fefe_fefe_fefe) | ((bit >> 1) & 0x7f7f_7f7f_7f7f_7f7f) | bit;
        t[sq] = (row | (row << 8) | (row >> 8)) & !bit;
        sq += 1;
    }
    t
};

/// For a square at each place (0-7) along a line of up to 8 squares, and each pattern of the
/// mover's discs on that line (bit i: the line's i-th square, the square itself clear), how many
/// discs a move there flips along the line when every other square on it is the opponent's or off
/// the line's end (a run that reaches the end without a closing disc flips nothing).
static LINE_FLIPS: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut at = 0;
    while at < 8 {
        let mut pattern = 0;
        while pattern < 256 {
            let mut count = 0;
            // Towards higher places, then towards lower ones.
            let mut i = at + 1;
            while i < 8 && pattern >> i & 1 == 0 {
                i += 1;
            }
            if i < 8 {
                count += i - at - 1;
            }
            let mut j = at;
            while j > 0 && pattern >> (j - 1) & 1 == 0 {
                j -= 1;
            }
            if j > 0 {
                count += at - j;
            }
            t[at][pattern] = count as u8;
            pattern += 1;
        }
        at += 1;
    }
    t
};

/// The four lines (row, column, both diagonals) through each square of the 8x8 board, as masks,
/// with the square's place along each (counted from the line's lowest square).
static LINES: [([u64; 4], [u8; 4]); 64] = {
    let mut t = [([0u64; 4], [0u8; 4]); 64];
    let dirs: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut d = 0;
        while d < 4 {
            let (dr, dc) = dirs[d];
            let mut mask = 0u64;
            let mut k = -7;
            while k <= 7 {
                let (rr, cc) = (r + k * dr, c + k * dc);
                if rr >= 0 && rr < 8 && cc >= 0 && cc < 8 {
                    mask |= 1u64 << (rr * 8 + cc);
                }
                k += 1;
            }
            t[sq].0[d] = mask;
            t[sq].1[d] = (mask & ((1u64 << sq) - 1)).count_ones() as u8;
            d += 1;
        }
        sq += 1;
    }
    t
};

/// How many discs `player` flips by moving to `sq` on an 8x8 board whose only empty square is
/// `sq`: four bit extractions and table lookups instead of a flip mask (BMI2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn last_flip_count(sq: u32, player: u64) -> u32 {
    use std::arch::x86_64::_pext_u64;
    let (masks, places) = &LINES[(sq & 63) as usize];
    let mut count = 0;
    for d in 0..4 {
        let pattern = _pext_u64(player, masks[d]) as usize;
        count += u32::from(LINE_FLIPS[places[d] as usize][pattern & 255]);
    }
    count
}

/// The first of the two slots (a bucket) where a position may be stored.
#[inline(always)]
fn table_index(player: u64, opponent: u64, len: usize) -> usize {
    let h = (player ^ opponent.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((h ^ (h >> 29)) as usize) & (len - 1) & !1
}

/// The solver's entry in a table slot: the bounds, the move and the empties packed in the
/// slot's data word.
#[inline(always)]
fn load(slot: &Slot) -> Entry {
    let (player, opponent, data) = slot.load();
    let [lower, upper, best, empties, ..] = data.to_le_bytes();
    Entry {
        player,
        opponent,
        lower: lower as i8,
        upper: upper as i8,
        best,
        empties,
    }
}

/// Writes `e` into `slot`.
#[inline(always)]
fn put(slot: &Slot, e: &Entry) {
    let data = u64::from_le_bytes([e.lower as u8, e.upper as u8, e.best, e.empties, 0, 0, 0, 0]);
    slot.store(e.player, e.opponent, data);
}

/// Asks the CPU to bring this position's bucket into cache: issued when a node lists its
/// children, so each child's own table probe does not wait on memory.
#[inline(always)]
fn prefetch(table: &[Slot], player: u64, opponent: u64) {
    crate::table::prefetch(table, table_index(player, opponent, table.len()));
}

/// The entry of this position, if the table holds one.
#[inline(always)]
fn find(table: &[Slot], player: u64, opponent: u64) -> Option<Entry> {
    let i = table_index(player, opponent, table.len());
    (i..i + 2)
        .map(|j| load(&table[j]))
        .find(|e| e.player == player && e.opponent == opponent)
}

/// Stores `e`: in its position's own slot; else in the bucket's first slot when it is at
/// least as deep as the entry there (depth-preferred); else in the second (always replaced).
#[inline(always)]
fn store(table: &[Slot], e: &Entry) {
    let i = table_index(e.player, e.opponent, table.len());
    let first = load(&table[i]);
    let j = if first.player == e.player && first.opponent == e.opponent {
        i
    } else if load(&table[i + 1]).player == e.player && load(&table[i + 1]).opponent == e.opponent {
        i + 1
    } else if e.empties >= first.empties {
        i
    } else {
        i + 1
    };
    put(&table[j], e);
}

/// The four quadrants of an `n x n` board in the 8x8 layout.
const fn quadrants(n: usize) -> [u64; 4] {
    let h = n / 2;
    let mut q = [0u64; 4];
    let mut r = 0;
    while r < n {
        let mut c = 0;
        while c < n {
            let i = (r >= h) as usize * 2 + (c >= h) as usize;
            q[i] |= 1u64 << (8 * r + c);
            c += 1;
        }
        r += 1;
    }
    q
}

/// The empty squares of quadrants with an odd number of empties (tried first: whoever moves
/// last in a region tends to gain there).
#[inline(always)]
fn odd_quadrants(empty: u64, quads: &[u64; 4]) -> u64 {
    let mut odd = 0;
    for &q in quads {
        if (empty & q).count_ones() & 1 == 1 {
            odd |= q;
        }
    }
    odd & empty
}

/// The quadrant (0-3) of each square of an `n x n` board in the 8x8 layout.
const fn quadrant_of(n: usize) -> [u8; 64] {
    let q = quadrants(n);
    let mut t = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < 4 {
            if q[i] >> sq & 1 == 1 {
                t[sq] = i as u8;
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

/// Three empty squares in the order the parity rule tries them: a square alone in its quadrant
/// (the odd one when the other two share one) first, then the rest ascending.
#[inline(always)]
fn parity3<const N: usize>(empty: u64) -> [u32; 3] {
    let quad = const { quadrant_of(N) };
    let a = empty.trailing_zeros();
    let rest = empty & (empty - 1);
    let b = rest.trailing_zeros();
    let c = 63 - empty.leading_zeros();
    let (qa, qb, qc) = (quad[a as usize], quad[b as usize], quad[c as usize]);
    if qa == qb && qb != qc {
        [c, a, b]
    } else if qa == qc && qa != qb {
        [b, a, c]
    } else {
        // b and c share a quadrant (a is alone and first), or all three are odd: ascending.
        [a, b, c]
    }
}

/// From this many empties [`Solver::solve`] starts its probes beside the evaluation's guess.
const GUESS_MIN: u32 = 14;
/// How deep the search behind that guess looks at most: even depths (odd ones guessed worse on
/// FFO #20-#49), two plies more for each two empties above `GUESS_MIN` + 2.
const GUESS_DEPTH: u32 = 8;
/// The first search beside [`Solver::solve`]'s own guess is exact within this many discs of it
/// (a window, not a null window): on FFO #40-#49 0.98 G nodes fell to 0.88 G; on 300 record
/// positions with 20 empties 5.13 M to 5.04 M nodes each; about the same at 22 empties and on
/// #20-#39.
const ASPIRATION: i32 = 2;
/// The guess's depth at most in [`Solver::solve_limited`], whose limit does not bind the guess's
/// search (measured: 4 plies took 0.12 ms at 18 empties; 8 plies took a quarter of a second on
/// FFO #46, 24 empties).
const LIMITED_GUESS_DEPTH: u32 = 4;

/// From this many empties [`Solver::solve`]'s guess comes from the midgame search instead: a
/// selective search with its own table, [`midgame_guess_depth`] plies deep. Measured when it
/// came (14 plies): #50-#59 (26-34 empties) 22.5 G to 20.2 G nodes (#54 6.6 G to 4.1 G; #57
/// 0.90 G to 1.12 G). At 25 empties the two FFO positions split (#47 15.6 M to 13.6 M, #48 138 M
/// to 178 M) while the search costs more beside their shorter solves, so it starts at 26.
const MIDGAME_GUESS_MIN: u32 = 26;
/// How deep that search looks at `empties` empties: 14 plies at 26, 18 from 27. The 18-ply
/// search (0.1-2.3 s on FFO #50-#59, against 0.03-0.4 s for 14 plies) brought the guesses of
/// #54, #56 and #57 2-4 discs nearer the exact score, and their solves with #58's took 343 s
/// instead of 398 s (#54 7.47 G to 5.57 G nodes); the other positions' times moved by less
/// than the machine's spread. At 26 empties it did not pay: #49 took 0.4 s more (its guess
/// 2 discs further off) and #50 no less. 20 plies guessed #55 exactly (18: 2 discs off) but
/// solved it in the same 14.3 G nodes.
fn midgame_guess_depth(empties: u32) -> u32 {
    if empties > MIDGAME_GUESS_MIN {
        18
    } else {
        14
    }
}

/// Its Multi-ProbCut cut at this many standard deviations.
const MIDGAME_GUESS_PROBCUT: f64 = 1.5;

/// At most this many nodes for that search at `empties` empties (the deepest iteration finished
/// stands): 2 M at 26 empties (about 0.5 s), three times as many for each empty more (about
/// what a solve grows by), at most 16 M (about 4 s). The caps keep easy positions cheap (#39,
/// a wipeout, needs 7.8 M nodes for 14 plies, more than the rest of its solve). On FFO
/// #50-#59 the searches take 0.3-9 M nodes, under their caps.
fn midgame_guess_nodes(empties: u32) -> u64 {
    let beyond = empties.saturating_sub(MIDGAME_GUESS_MIN).min(3);
    (2_000_000 * 3u64.pow(beyond)).min(16_000_000)
}

/// `score` (in 1/`scale` disc) rounded to the nearest even disc margin of an `n x n` board.
fn even_discs(score: i32, scale: i32, n: usize) -> i32 {
    let squares = (n * n) as i32;
    let discs = (f64::from(score) / f64::from(scale) / 2.0).round() as i32 * 2;
    discs.clamp(-squares, squares)
}

/// From this many empties a null-window node of a parallel solve searches its first move, then
/// hands the others to the pool's threads (young brothers wait).
const SPLIT_MIN: u32 = 12;

/// From this many empties, children are looked up in the table before any is searched.
const ETC_MIN: u32 = 14;
/// From this many empties, moves are ordered by a shallow search as well.
const SHALLOW_MIN: u32 = 14;
/// How much the fastest-first key counts beside the shallow search score.
const SHALLOW_MIX: i32 = 1;

/// From this many empties, moves are ordered by the learned evaluation where the solver has one.
const EVAL_ORDER_MIN: u32 = 16;
/// Weight of the opponent's replies (corners twice) beside the evaluation (1/64 disc units).
const EVAL_MOBILITY_WEIGHT: i32 = 64;

/// How deep the evaluation search behind the ordering looks at a node with `empties` empties
/// (chosen by time on FFO #40-#49: deeper searches there cut the nodes by a tenth, but cost
/// more than they save below 20 empties).
fn eval_order_depth(empties: u32) -> u32 {
    match empties {
        0..=16 => 0,
        17..=18 => 1,
        19 => 2,
        20 => 3,
        21..=23 => 4,
        _ => 5,
    }
}

/// From this depth the evaluation search behind the ordering (`eval_search`) tries first the
/// moves that leave the opponent the fewest replies: the same value (the window is never
/// narrowed from outside), fewer leaves.
const EVAL_SORT_MIN: u32 = 2;

/// X-squares (diagonal neighbours of the corners) of an `n x n` board.
const fn x_squares(n: usize) -> u64 {
    let m = n - 2;
    1 << 9 | 1 << (8 + m) | 1 << (8 * m + 1) | 1 << (8 * m + m)
}

/// The X-squares whose corner is empty.
#[inline(always)]
fn x_next_to_empty_corner<const N: usize>(empty: u64) -> u64 {
    let m = N - 1;
    let mut out = 0;
    if empty & 1 != 0 {
        out |= 1 << 9;
    }
    if empty & 1 << m != 0 {
        out |= 1 << (m - 1 + 8);
    }
    if empty & 1 << (8 * m) != 0 {
        out |= 1 << (8 * (m - 1) + 1);
    }
    if empty & 1 << (8 * m + m) != 0 {
        out |= 1 << (8 * (m - 1) + m - 1);
    }
    out
}

/// Weight of the opponent's potential mobility in the move-ordering key (mobility weighs 16).
const POTENTIAL_WEIGHT: i32 = 4;

/// Limits on one exact solve ([`Solver::solve_limited`]): the solve gives up when either runs
/// out. The default has none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveLimit {
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Give up after this many nodes (all probes of the solve together).
    pub nodes: Option<u64>,
}

impl SolveLimit {
    /// A limit of `time` from now.
    #[must_use]
    pub fn time(time: Duration) -> Self {
        SolveLimit {
            deadline: Some(Instant::now() + time),
            nodes: None,
        }
    }

    /// A limit of `nodes` nodes.
    #[must_use]
    pub fn nodes(nodes: u64) -> Self {
        SolveLimit {
            deadline: None,
            nodes: Some(nodes),
        }
    }
}

/// The limits are looked at once per this many interior nodes (a fraction of a millisecond).
const CHECK_EVERY: u64 = 2048;

/// Search state shared by the kernels.
struct Ctx<'a> {
    table: &'a [Slot],
    nodes: u64,
    /// The node count at which the limits are looked at next (`u64::MAX`: never, no limits; 0
    /// once the search gave up, so every node returns at once).
    check_at: u64,
    /// Give up at this instant.
    deadline: Option<Instant>,
    /// Give up once `nodes` passes this.
    node_limit: u64,
    /// The search gave up: scores are meaningless and nothing more is stored.
    aborted: bool,
    /// The learned evaluation that orders moves far from the end (8x8 only).
    eval: Option<&'a PatternEval>,
    /// Whether nodes may hand their later moves to other threads (inside a solver's pool).
    parallel: bool,
    /// Flags of the split points above this search: when one is set, a sibling has already
    /// settled that node and this search gives up.
    stops: Vec<&'a AtomicBool>,
}

impl Ctx<'_> {
    /// A search without limits.
    fn unlimited(table: &[Slot]) -> Ctx<'_> {
        Ctx {
            table,
            nodes: 0,
            check_at: u64::MAX,
            deadline: None,
            node_limit: u64::MAX,
            aborted: false,
            eval: None,
            parallel: false,
            stops: Vec::new(),
        }
    }

    /// Whether the search must give up now (looked at every [`CHECK_EVERY`] nodes, then at
    /// every node once it has).
    #[cold]
    #[inline(never)]
    fn out_of_budget(&mut self) -> bool {
        if !self.aborted
            && (self.nodes > self.node_limit
                || self.stops.iter().any(|s| s.load(Relaxed))
                || self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.aborted = true;
        }
        self.check_at = if self.aborted {
            0
        } else {
            (self.nodes + CHECK_EVERY).min(self.node_limit.saturating_add(1))
        };
        self.aborted
    }
}

macro_rules! solver_kernels {
    ($fast:expr $(, $attr:meta)*) => {
        use super::*;

        /// The score when one square is left: no move list, just the flips.
        $(#[$attr])*
        #[inline]
        fn last1<const N: usize>(ctx: &mut Ctx, player: u64, opponent: u64, sq: u32) -> i32 {
            let squares = (N * N) as i32;
            ctx.nodes += 1;
            #[cfg(target_arch = "x86_64")]
            if $fast && N == 8 {
                // SAFETY: `$fast` is true only in the x86-64-v3 build, which runs only where the
                // CPU has BMI2 and popcnt (checked before dispatch).
                #[allow(unused_unsafe)]
                let count = |discs| unsafe { last_flip_count(sq, discs) };
                let n = count(player);
                if n != 0 {
                    return 2 * (player.count_ones() + n + 1) as i32 - squares;
                }
                let n = count(opponent);
                if n != 0 {
                    return squares - 2 * (opponent.count_ones() + n + 1) as i32;
                }
                return final_score(player, opponent, squares);
            }
            let around = AROUND[sq as usize];
            let f = if around & opponent != 0 { flips(sq, player, opponent) } else { 0 };
            if f != 0 {
                return 2 * (player.count_ones() + f.count_ones() + 1) as i32 - squares;
            }
            let f = if around & player != 0 { flips(sq, opponent, player) } else { 0 };
            if f != 0 {
                return squares - 2 * (opponent.count_ones() + f.count_ones() + 1) as i32;
            }
            final_score(player, opponent, squares)
        }

        /// The move at `sq` for `player` (when it flips something) searched one empty square
        /// nearer the end by `next`; `None` when `sq` is not a legal move.
        #[inline(always)]
        fn try_square(
            player: u64,
            opponent: u64,
            sq: u32,
            next: impl FnOnce(u64, u64) -> i32,
        ) -> Option<i32> {
            if AROUND[sq as usize] & opponent == 0 {
                return None;
            }
            let f = flips(sq, player, opponent);
            if f == 0 {
                return None;
            }
            Some(-next(opponent ^ f, player | f | 1u64 << sq))
        }

        /// Two empty squares `a < b` (their parity order is always ascending).
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        fn last2<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            alpha: i32,
            beta: i32,
            a: u32,
            b: u32,
            passed: bool,
        ) -> i32 {
            let squares = (N * N) as i32;
            ctx.nodes += 1;
            let first = try_square(player, opponent, a, |p, o| last1::<N>(ctx, p, o, b));
            if let Some(score) = first {
                if score >= beta {
                    return score;
                }
            }
            let second = try_square(player, opponent, b, |p, o| last1::<N>(ctx, p, o, a));
            match (first, second) {
                (Some(x), Some(y)) => x.max(y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) if passed => final_score(player, opponent, squares),
                (None, None) => -last2::<N>(ctx, opponent, player, -beta, -alpha, a, b, true),
            }
        }

        /// Three empty squares in parity order (a square alone in its quadrant first, then
        /// ascending).
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        fn last3<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            mut alpha: i32,
            beta: i32,
            order: [u32; 3],
            passed: bool,
        ) -> i32 {
            let squares = (N * N) as i32;
            ctx.nodes += 1;
            let [a, b, c] = order;
            let mut best = -squares - 1;
            // Each move leaves the other two, ascending.
            for (sq, x, y) in [(a, b.min(c), b.max(c)), (b, a.min(c), a.max(c)), (c, a.min(b), a.max(b))] {
                let score = try_square(player, opponent, sq, |p, o| {
                    last2::<N>(ctx, p, o, -beta, -alpha, x, y, false)
                });
                if let Some(score) = score {
                    if score > best {
                        best = score;
                        if score > alpha {
                            alpha = score;
                            if alpha >= beta {
                                return best;
                            }
                        }
                    }
                }
            }
            if best == -squares - 1 {
                if passed {
                    return final_score(player, opponent, squares);
                }
                return -last3::<N>(ctx, opponent, player, -beta, -alpha, order, true);
            }
            best
        }

        /// Up to `SMALL` empties: tries every empty square (odd quadrants first), no sorting,
        /// no table; two and three empties have their own code.
        $(#[$attr])*
        pub(super) fn small<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            mut alpha: i32,
            beta: i32,
            empty: u64,
            passed: bool,
        ) -> i32 {
            let squares = (N * N) as i32;
            match empty.count_ones() {
                1 => return last1::<N>(ctx, player, opponent, empty.trailing_zeros()),
                2 => {
                    let a = empty.trailing_zeros();
                    let b = 63 - empty.leading_zeros();
                    return last2::<N>(ctx, player, opponent, alpha, beta, a, b, passed);
                }
                3 => {
                    return last3::<N>(ctx, player, opponent, alpha, beta, parity3::<N>(empty), passed);
                }
                _ => {}
            }
            ctx.nodes += 1;
            let odd = odd_quadrants(empty, &const { quadrants(N) });
            let mut best = -squares - 1;
            for set in [odd, empty & !odd] {
                let mut todo = set;
                while todo != 0 {
                    let sq = todo.trailing_zeros();
                    todo &= todo - 1;
                    let rest = empty ^ 1u64 << sq;
                    let Some(score) = try_square(player, opponent, sq, |p, o| {
                        small::<N>(ctx, p, o, -beta, -alpha, rest, false)
                    }) else {
                        continue;
                    };
                    if score > best {
                        best = score;
                        if score > alpha {
                            alpha = score;
                            if alpha >= beta {
                                return best;
                            }
                        }
                    }
                }
            }
            if best == -squares - 1 {
                // No move: pass, or the game is over.
                if passed {
                    return final_score(player, opponent, squares);
                }
                return -small::<N>(ctx, opponent, player, -beta, -alpha, empty, true);
            }
            best
        }

        /// A shallow alpha-beta over the learned evaluation (1/scale discs, side to move), with the
        /// features carried incrementally: how the solver orders moves far from the end. Each
        /// position it makes below the one it is given (a pass included) adds one to `nodes`.
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        pub(super) fn eval_search(
            eval: &PatternEval,
            features: &Features,
            player: u64,
            opponent: u64,
            depth: u32,
            mut alpha: i32,
            beta: i32,
            nodes: &mut u64,
        ) -> i32 {
            if depth == 0 {
                return eval.evaluate(features, player, opponent);
            }
            let mut moves = legal_moves(player, opponent);
            if moves == 0 {
                if legal_moves(opponent, player) == 0 {
                    return eval.scale() * final_score(player, opponent, 64);
                }
                let mut passed = *features;
                passed.pass();
                *nodes += 1;
                return -eval_search(
                    eval,
                    &passed,
                    opponent,
                    player,
                    depth - 1,
                    -beta,
                    -alpha,
                    nodes,
                );
            }
            let mut best = i32::MIN + 1;
            let mut visit = |sq: u32, f: u64, best: &mut i32, alpha: &mut i32| {
                let (np, no) = (opponent ^ f, player | f | 1 << sq);
                *nodes += 1;
                // One ply from the leaves the child is evaluated here (what the call would do),
                // from the one view it needs.
                let score = if depth == 1 {
                    -eval.evaluate_indices(&features.mover_after(sq, f), np, no)
                } else {
                    let child = features.after(sq, f);
                    -eval_search(eval, &child, np, no, depth - 1, -beta, -*alpha, nodes)
                };
                if score > *best {
                    *best = score;
                    *alpha = (*alpha).max(score);
                }
                *alpha >= beta
            };
            if depth < EVAL_SORT_MIN {
                // Next to the leaves: ascending squares.
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    if visit(sq, flips(sq, player, opponent), &mut best, &mut alpha) {
                        break;
                    }
                }
                return best;
            }
            // Deeper: the opponent's replies fewest first (the list covers every square).
            let mut list = ArrayVec::<(u32, u32, u64), 64>::new();
            while moves != 0 {
                let sq = moves.trailing_zeros();
                moves &= moves - 1;
                let f = flips(sq, player, opponent);
                list.push((legal_moves(opponent ^ f, player | f | 1 << sq).count_ones(), sq, f));
            }
            list.sort_unstable_by_key(|m| m.0);
            for &(_, sq, f) in &list {
                if visit(sq, f, &mut best, &mut alpha) {
                    break;
                }
            }
            best
        }

        /// A quick static score for move ordering, from the side to move: weighted mobility,
        /// corners, and X-squares next to empty corners.
        $(#[$attr])*
        #[inline]
        fn order_eval<const N: usize>(player: u64, opponent: u64) -> i32 {
            let board = Othello::<N>::MASK;
            let corner_mask = const { corners(N) };
            let x_mask = const { x_squares(N) };
            let mine = legal_moves(player, opponent) & board;
            let theirs = legal_moves(opponent, player) & board;
            let mobility = (mine.count_ones() + (mine & corner_mask).count_ones()) as i32
                - (theirs.count_ones() + (theirs & corner_mask).count_ones()) as i32;
            let corners_held = (player & corner_mask).count_ones() as i32 - (opponent & corner_mask).count_ones() as i32;
            let empty = !(player | opponent) & board;
            let open_x = x_mask & x_next_to_empty_corner::<N>(empty);
            let x_held = (player & open_x).count_ones() as i32 - (opponent & open_x).count_ones() as i32;
            16 * mobility + 64 * corners_held - 32 * x_held
        }

        /// A shallow alpha-beta over [`order_eval`] for ordering moves deep in the endgame;
        /// each position it makes below the one it is given adds one to `nodes`.
        $(#[$attr])*
        fn shallow<const N: usize>(player: u64, opponent: u64, depth: u32, mut alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
            let board = Othello::<N>::MASK;
            if depth == 0 {
                return order_eval::<N>(player, opponent);
            }
            let mut moves = legal_moves(player, opponent) & board;
            if moves == 0 {
                if legal_moves(opponent, player) & board == 0 {
                    return 1000 * final_score(player, opponent, (N * N) as i32);
                }
                *nodes += 1;
                return -shallow::<N>(opponent, player, depth - 1, -beta, -alpha, nodes);
            }
            let mut best = i32::MIN + 1;
            while moves != 0 {
                let sq = moves.trailing_zeros();
                moves &= moves - 1;
                let f = flips(sq, player, opponent);
                *nodes += 1;
                let score = -shallow::<N>(opponent ^ f, player | f | 1 << sq, depth - 1, -beta, -alpha, nodes);
                if score > best {
                    best = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            best
        }

        /// Null-window search: is the score above `alpha`? Fail-soft.
        $(#[$attr])*
        pub(super) fn nws<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            alpha: i32,
            empties: u32,
        ) -> i32 {
            pvs::<N>(ctx, player, opponent, alpha, alpha + 1, empties)
        }

        /// A child's score from the parent's side: a full-window search for the first move,
        /// else a null-window probe, re-searched with the full window when it lands inside.
        $(#[$attr])*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        fn child<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            alpha: i32,
            beta: i32,
            empties: u32,
            full: bool,
        ) -> i32 {
            if full {
                return -pvs::<N>(ctx, player, opponent, -beta, -alpha, empties);
            }
            let probe = -nws::<N>(ctx, player, opponent, -alpha - 1, empties);
            if probe > alpha && probe < beta {
                -pvs::<N>(ctx, player, opponent, -beta, -alpha, empties)
            } else {
                probe
            }
        }

        /// The null-window search `(alpha, alpha + 1)` of `moves` (squares and flips of the
        /// node `player`/`opponent`) on the pool's threads: the best score and its square
        /// (fail-soft; `NO_MOVE` when none finished). The first move to reach `alpha + 1` stops
        /// the others. A search given up for the node's own limits marks `ctx` given up.
        $(#[$attr])*
        fn split<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            alpha: i32,
            empties: u32,
            moves: &[(i32, u32, u64)],
        ) -> (i32, u8) {
            use rayon::prelude::*;
            let squares = (N * N) as i32;
            let cut = AtomicBool::new(false);
            let given_up = AtomicBool::new(false);
            let nodes = AtomicU64::new(0);
            let best = std::sync::Mutex::new((-squares - 1, NO_MOVE));
            let (table, eval, deadline) = (ctx.table, ctx.eval, ctx.deadline);
            let node_limit = ctx.node_limit.saturating_sub(ctx.nodes);
            let mut stops = ctx.stops.clone();
            stops.push(&cut);
            // Each thread takes the next move in order (the best-ordered moves first, so a cut
            // is found early and little work is thrown away).
            let next = std::sync::atomic::AtomicUsize::new(0);
            let workers = rayon::current_num_threads().min(moves.len());
            (0..workers).into_par_iter().for_each(|_| loop {
                let k = next.fetch_add(1, Relaxed);
                if k >= moves.len() || cut.load(Relaxed) {
                    return;
                }
                let (_, sq, f) = moves[k];
                let mut worker = Ctx {
                    table,
                    nodes: 0,
                    check_at: CHECK_EVERY.min(node_limit.saturating_add(1)),
                    deadline,
                    node_limit,
                    aborted: false,
                    eval,
                    parallel: true,
                    stops: stops.clone(),
                };
                let bit = 1u64 << sq;
                // SAFETY: this closure runs only inside this kernel build's `split`, so the CPU
                // has every feature the kernel was compiled for.
                #[allow(unused_unsafe)]
                let score = unsafe {
                    -nws::<N>(&mut worker, opponent ^ f, player | f | bit, -alpha - 1, empties - 1)
                };
                nodes.fetch_add(worker.nodes, Relaxed);
                if worker.aborted {
                    if !cut.load(Relaxed) {
                        given_up.store(true, Relaxed);
                    }
                    return;
                }
                let mut b = best.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if score > b.0 {
                    *b = (score, sq as u8);
                }
                if score > alpha {
                    cut.store(true, Relaxed);
                }
            });
            ctx.nodes += nodes.into_inner();
            let (score, sq) = best.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
            if given_up.into_inner() && score <= alpha {
                ctx.aborted = true;
                ctx.check_at = 0;
            }
            (score, sq)
        }

        /// The ordering keys of `moves` (square and flips of the node `player`/`opponent`;
        /// smaller first): the opponent's replies (corners twice) and potential mobility, or
        /// a shallow search's score far from the end (of the learned evaluation where there
        /// is one); corners and odd quadrants a little earlier.
        $(#[$attr])*
        fn order_moves<const N: usize>(
            eval: Option<&PatternEval>,
            player: u64,
            opponent: u64,
            empty: u64,
            moves: &mut [(i32, u32, u64)],
            nodes: &mut u64,
        ) {
            let board = Othello::<N>::MASK;
            let corner_mask = const { corners(N) };
            let empties = empty.count_ones();
            let odd = odd_quadrants(empty, &const { quadrants(N) });
            let learned = eval.filter(|_| N == 8 && empties >= EVAL_ORDER_MIN);
            let features = learned.map(|_| Features::from_scratch(player, opponent));
            for m in moves.iter_mut() {
                let (sq, f) = (m.1, m.2);
                let bit = 1u64 << sq;
                let (np, no) = (opponent ^ f, player | f | bit);
                // The child is a position looked at (Edax counts it too).
                *nodes += 1;
                let replies = legal_moves(np, no) & board;
                let weighted = (replies.count_ones() + (replies & corner_mask).count_ones()) as i32;
                let mut key = if let (Some(eval), Some(features)) = (learned, &features) {
                    // The opponent's value after the move, searched a little (smaller first).
                    let depth = eval_order_depth(empties);
                    let value = if depth == 0 {
                        eval.evaluate_indices(&features.mover_after(sq, f), np, no)
                    } else {
                        let cf = features.after(sq, f);
                        eval_search(eval, &cf, np, no, depth, -1_000_000, 1_000_000, nodes)
                    };
                    weighted * EVAL_MOBILITY_WEIGHT + value
                } else {
                    let potential = (neighbours(no) & empty & !bit).count_ones() as i32;
                    let key = weighted * 16 + potential * POTENTIAL_WEIGHT;
                    if empties >= SHALLOW_MIN {
                        let depth = if empties >= 22 { 3 } else if empties >= SHALLOW_MIN + 4 { 2 } else { 1 };
                        key * SHALLOW_MIX + shallow::<N>(np, no, depth, -30_000, 30_000, nodes)
                    } else {
                        key
                    }
                };
                if bit & corner_mask != 0 {
                    key -= 12;
                }
                if bit & odd != 0 {
                    key -= 4;
                }
                m.0 = key;
            }
        }

        /// Principal-variation search in `(alpha, beta)`, fail-soft.
        $(#[$attr])*
        pub(super) fn pvs<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            mut alpha: i32,
            mut beta: i32,
            empties: u32,
        ) -> i32 {
            let board = Othello::<N>::MASK;
            let squares = (N * N) as i32;
            let empty = !(player | opponent) & board;
            if empties <= SMALL {
                return small::<N>(ctx, player, opponent, alpha, beta, empty, false);
            }
            ctx.nodes += 1;
            if ctx.nodes >= ctx.check_at && ctx.out_of_budget() {
                return 0;
            }
            let moves = legal_moves(player, opponent) & board;
            if moves == 0 {
                if legal_moves(opponent, player) & board == 0 {
                    return final_score(player, opponent, squares);
                }
                return -pvs::<N>(ctx, opponent, player, -beta, -alpha, empties);
            }
            // Stability: the opponent keeps its stable discs, which caps our score.
            // The opponent's stable discs are some of its discs: when even all of them could
            // not bring the cap down to `alpha`, only a wide window's `beta` can move.
            if empties >= STABILITY_MIN
                && alpha >= 0
                && (beta - alpha > 1 || squares - 2 * opponent.count_ones() as i32 <= alpha)
            {
                let cap = squares - 2 * stable_discs(opponent, player, board).count_ones() as i32;
                if cap <= alpha {
                    return cap;
                }
                if cap < beta {
                    beta = cap;
                }
            }
            if empties < SORT_MIN {
                // Few empties: no table and no sorting, odd quadrants first straight from the
                // move mask (no move list to fill).
                let odd = odd_quadrants(empty, &const { quadrants(N) });
                let mut best = -squares - 1;
                let mut first = true;
                for set in [moves & odd, moves & !odd] {
                    let mut todo = set;
                    while todo != 0 {
                        let sq = todo.trailing_zeros();
                        todo &= todo - 1;
                        let f = flips(sq, player, opponent);
                        let (np, no) = (opponent ^ f, player | f | 1 << sq);
                        let score = child::<N>(ctx, np, no, alpha, beta, empties - 1, first || beta - alpha == 1);
                        first = false;
                        if score > best {
                            best = score;
                            if score > alpha {
                                alpha = score;
                                if alpha >= beta {
                                    return best;
                                }
                            }
                        }
                    }
                }
                return best;
            }
            let mut tt_move = NO_MOVE;
            let slot = empties >= TABLE_MIN;
            if slot {
                if let Some(e) = find(ctx.table, player, opponent) {
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
                    alpha = alpha.max(lower);
                    beta = beta.min(upper);
                    tt_move = e.best;
                }
            }
            let original_alpha = alpha;
            let mut best = -squares - 1;
            let mut best_sq = NO_MOVE;

            // Order: the table's move, then fastest first.
            // Not zero-filled: at most 64 moves (one per square), pushed as they are made.
            let mut list = ArrayVec::<(i32, u32, u64), 64>::new();
            let mut rest = moves;
            if tt_move != NO_MOVE && moves >> tt_move & 1 == 1 {
                let sq = u32::from(tt_move);
                let f = flips(sq, player, opponent);
                if empties > TABLE_MIN {
                    prefetch(ctx.table, opponent ^ f, player | f | 1 << sq);
                }
                list.push((i32::MIN, sq, f));
                rest &= !(1u64 << sq);
            }
            // The table's move (first in the list) is searched before the others are ordered:
            // when it cuts, their keys are never needed.
            let ordered_from = list.len();
            // First pass: every other move's flips and its child's bucket prefetched; then an
            // enhanced transposition cutoff (a child already known to be bad enough for the
            // opponent settles this node at once), its lookups overlapping in memory.
            while rest != 0 {
                let sq = rest.trailing_zeros();
                rest &= rest - 1;
                let f = flips(sq, player, opponent);
                let (np, no) = (opponent ^ f, player | f | 1 << sq);
                if empties > TABLE_MIN {
                    prefetch(ctx.table, np, no);
                }
                list.push((0, sq, f));
            }
            let count = list.len();
            if empties >= ETC_MIN {
                for &(_, sq, f) in &list[ordered_from..count] {
                    if let Some(child) = find(ctx.table, opponent ^ f, player | f | 1 << sq) {
                        let bound = -i32::from(child.upper);
                        if bound >= beta {
                            return bound;
                        }
                    }
                }
            }
            for i in 0..count {
                if i == ordered_from {
                    order_moves::<N>(ctx.eval, player, opponent, empty, &mut list[ordered_from..count], &mut ctx.nodes);
                }
                if i >= ordered_from {
                    // Selection sort: most nodes cut after the first few moves.
                    let mut min = i;
                    for j in i + 1..count {
                        if list[j].0 < list[min].0 {
                            min = j;
                        }
                    }
                    list.swap(i, min);
                }
                if i == 1 && ctx.parallel && empties >= SPLIT_MIN && beta - alpha == 1 && count > 2 {
                    // The first move did not cut: the rest in parallel.
                    let rest = &mut list[1..count];
                    rest.sort_unstable_by_key(|m| m.0);
                    let (score, sq) = split::<N>(ctx, player, opponent, alpha, empties, rest);
                    if score > best {
                        best = score;
                        best_sq = sq;
                    }
                    break;
                }
                let (_, sq, f) = list[i];
                let bit = 1u64 << sq;
                let (np, no) = (opponent ^ f, player | f | bit);
                let score = child::<N>(ctx, np, no, alpha, beta, empties - 1, i == 0 || beta - alpha == 1);
                if score > best {
                    best = score;
                    best_sq = sq as u8;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            // A search that gave up below this node proved nothing here.
            if slot && !ctx.aborted {
                let mut e = find(ctx.table, player, opponent).unwrap_or_default();
                if e.player != player || e.opponent != opponent {
                    e = Entry {
                        player,
                        opponent,
                        lower: -squares as i8,
                        upper: squares as i8,
                        best: NO_MOVE,
                        empties: empties as u8,
                    };
                }
                if best > original_alpha && best < beta {
                    e.lower = best as i8;
                    e.upper = best as i8;
                } else if best >= beta {
                    e.lower = e.lower.max(best as i8);
                } else {
                    e.upper = e.upper.min(best as i8);
                }
                // A fail-low's best move is only the one with the highest upper bound: keep
                // a better-founded move when there is one.
                if best > original_alpha || e.best == NO_MOVE {
                    e.best = best_sq;
                }
                store(ctx.table, &e);
            }
            best
        }

        /// The root: the score in `(alpha, beta)` and the best move's square.
        $(#[$attr])*
        pub(super) fn root<const N: usize>(
            ctx: &mut Ctx,
            player: u64,
            opponent: u64,
            mut alpha: i32,
            beta: i32,
        ) -> (i32, Option<u32>) {
            let board = Othello::<N>::MASK;
            let empty = !(player | opponent) & board;
            let empties = empty.count_ones();
            let mut moves = legal_moves(player, opponent) & board;
            if moves == 0 {
                return (pvs::<N>(ctx, player, opponent, alpha, beta, empties), None);
            }
            // Order the root by a first pass of the same search: the table then knows the best
            // reply lines; simplest is to search the table's move first.
            let mut order = Vec::new();
            let e = find(ctx.table, player, opponent).unwrap_or_default();
            if e.player == player && e.opponent == opponent && e.best != NO_MOVE && moves >> e.best & 1 == 1 {
                order.push(u32::from(e.best));
                moves &= !(1u64 << e.best);
            }
            let mut keyed: Vec<(i32, u32)> = Vec::new();
            let depth = if empties >= 24 { 4 } else if empties >= 16 { 3 } else { 1 };
            while moves != 0 {
                let sq = moves.trailing_zeros();
                moves &= moves - 1;
                let f = flips(sq, player, opponent);
                let (np, no) = (opponent ^ f, player | f | 1 << sq);
                let replies = legal_moves(np, no) & board;
                ctx.nodes += 1;
                let key = 16 * replies.count_ones() as i32 + shallow::<N>(np, no, depth, -30_000, 30_000, &mut ctx.nodes);
                keyed.push((key, sq));
            }
            keyed.sort_unstable();
            order.extend(keyed.into_iter().map(|(_, sq)| sq));
            let mut best = (i32::MIN, None);
            for (k, &sq) in order.iter().enumerate() {
                let f = flips(sq, player, opponent);
                let (np, no) = (opponent ^ f, player | f | 1 << sq);
                let score = child::<N>(ctx, np, no, alpha, beta, empties - 1, k == 0);
                if score > best.0 {
                    best = (score, Some(sq));
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            best
        }
    };
}

mod portable {
    solver_kernels!(false);
}

#[cfg(target_arch = "x86_64")]
mod v3 {
    solver_kernels!(true, target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2"));
}

impl<const N: usize> Default for Solver<N> {
    fn default() -> Self {
        Self::new(22)
    }
}

impl<const N: usize> Solver<N> {
    /// A solver whose table holds `2^table_bits` positions (24 bytes each; 22 bits is 96 MiB),
    /// allocated by its first search.
    #[must_use]
    pub fn new(table_bits: u32) -> Self {
        Solver {
            table: Vec::new(),
            bits: table_bits.clamp(4, MAX_TABLE_BITS),
            nodes: 0,
            kernel: Kernel::Dispatched,
            eval: None,
            pool: None,
        }
    }

    /// This solver running the given kernel build.
    #[must_use]
    pub fn with_kernel(mut self, kernel: Kernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// This solver ordering moves by `eval` far from the end (used on 8x8 boards only).
    #[must_use]
    pub fn with_evaluation(mut self, eval: std::sync::Arc<PatternEval>) -> Self {
        self.eval = Some(eval);
        self
    }

    /// This solver searching on `threads` threads (young brothers wait: a node's later moves
    /// are searched in parallel once its first has not cut off). Scores stay exact; node
    /// counts vary from run to run. One thread, or a pool that cannot be made: serial.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .ok()
            })
            .flatten()
            .map(std::sync::Arc::new);
        self
    }

    /// The bytes of its table once it has searched.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        (1usize << self.bits) * std::mem::size_of::<Entry>()
    }

    /// Shrinks a table not yet allocated to what one solve of `time` can use (assuming 2^23
    /// positions stored a second: a chosen rate, not a measured one), from 2^16 entries up to
    /// its own size. Writing a cold table of
    /// 2^22 entries takes tens to hundreds of milliseconds, which a move of 50 ms cannot pay;
    /// an allocated table keeps its size.
    pub fn fit_table_to(&mut self, time: Duration) {
        if !self.table.is_empty() {
            return;
        }
        let stored = time.as_secs_f64() * f64::from(1u32 << 23);
        let bits = stored.max(1.0).log2().ceil();
        // In range by the clamp: a float of at most 64.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let bits = (bits.min(64.0) as u32).clamp(16.min(self.bits), self.bits);
        self.bits = bits;
    }

    /// Allocates the table now rather than in the first search (so that search's time does
    /// not include writing the table's memory).
    pub fn allocate(&mut self) {
        if self.table.is_empty() {
            self.table = crate::table::slots(1usize << self.bits);
        }
    }

    /// Forgets every stored bound.
    pub fn clear(&mut self) {
        self.table.iter().for_each(Slot::clear);
    }

    /// The exact perfect-play margin of `pos` and a best move.
    ///
    /// Narrows the score range with null-window probes ("is the score above x?"): the first
    /// beside the learned evaluation's guess after a shallow search (8x8 with an evaluation,
    /// from 14 empties), stepping away from it in doubling steps until a probe fails the other
    /// way, then bisecting; without a guess the first probe sits at 0 (win or not). The table
    /// keeps every proven bound between probes, so later probes are cheap. Scores on these
    /// even-sized boards are always even, so probes sit on odd values.
    pub fn solve(&mut self, pos: &Othello<N>) -> Solution {
        // Without limits the search never gives up.
        self.guess_and_bisect(pos, &SolveLimit::default(), false).0
    }

    /// [`guess`](Self::guess), then [`bisect`](Self::bisect) beside it: the solution's nodes
    /// and time include the guess's.
    fn guess_and_bisect(
        &mut self,
        pos: &Othello<N>,
        limit: &SolveLimit,
        limited: bool,
    ) -> (Solution, bool) {
        let start = Instant::now();
        let (guess, guess_nodes) = self.guess(pos, limited);
        let (mut solution, aborted) = self.bisect(pos, limit, guess, ASPIRATION);
        solution.nodes += guess_nodes;
        self.nodes += guess_nodes;
        solution.elapsed = start.elapsed();
        (solution, aborted)
    }

    /// The learned evaluation's estimate of `pos`'s score after a shallow search, rounded to an
    /// even disc margin, where the solver has an evaluation (8x8) and the position is far
    /// enough from the end for the probes it saves to matter: a 2-8 ply evaluation search, or
    /// from [`MIDGAME_GUESS_MIN`] empties the midgame search; `limited` (a search under a
    /// [`SolveLimit`], which does not bind the guess) keeps to [`LIMITED_GUESS_DEPTH`] plies.
    /// Beside it, the positions its search visited.
    fn guess(&self, pos: &Othello<N>, limited: bool) -> (Option<i32>, u64) {
        let Some(eval) = self.eval.as_deref().filter(|_| N == 8) else {
            return (None, 0);
        };
        let empties = pos.empty().count_ones();
        if empties < GUESS_MIN {
            return (None, 0);
        }
        if empties >= MIDGAME_GUESS_MIN && !limited {
            let (Some(shared), Ok(pos8)) = (
                self.eval.clone(),
                othello::Othello8::from_bitboards(pos.player(), pos.opponent(), game::Color::Black),
            ) else {
                return (None, 0);
            };
            let mut search = crate::midgame::Midgame::new(shared, 16).with_probcut(Some((
                crate::midgame::bundled_probcut(),
                MIDGAME_GUESS_PROBCUT,
            )));
            // A parallel solver's guess runs on as many threads (one thread: exactly `search`).
            let threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
            let result = search.search_threads(
                &pos8,
                midgame_guess_depth(empties),
                None,
                Some(midgame_guess_nodes(empties)),
                threads,
            );
            return (
                Some(even_discs(result.score, eval.scale(), N)),
                result.nodes,
            );
        }
        let max_depth = if limited {
            LIMITED_GUESS_DEPTH
        } else {
            GUESS_DEPTH
        };
        let depth = ((empties - GUESS_MIN) & !1).clamp(2, max_depth);
        let (player, opponent) = (pos.player(), pos.opponent());
        let features = Features::from_scratch(player, opponent);
        let mut nodes = 1;
        let score = portable::eval_search(
            eval, &features, player, opponent, depth, -1_000_000, 1_000_000, &mut nodes,
        );
        (Some(even_discs(score, eval.scale(), N)), nodes)
    }

    /// [`solve`](Self::solve) starting from the caller's guess of the score instead of its own:
    /// the first probes sit on either side of `guess`, so a good guess (a successor's exact
    /// score) takes two probes where bisection takes five or six. Same score for any guess.
    pub fn solve_near(&mut self, pos: &Othello<N>, guess: i32) -> Solution {
        self.bisect(pos, &SolveLimit::default(), Some(guess), 0).0
    }

    /// [`solve`](Self::solve) within `limit`: `None` when the limit ran out first. Every bound
    /// proven before that stays in the table, so a later solve of this position or one after it
    /// starts from them; nothing from the abandoned search is stored.
    pub fn solve_limited(&mut self, pos: &Othello<N>, limit: &SolveLimit) -> Option<Solution> {
        // The guess's search is not bound by the limit: kept shallow.
        let (solution, aborted) = self.guess_and_bisect(pos, limit, true);
        (!aborted).then_some(solution)
    }

    /// The bisection of [`solve`](Self::solve), its first probes beside `guess` when given
    /// (the first a window `aspiration` discs wide on each side of it when that is above 0);
    /// `true` beside the solution when `limit` ran out (the solution is then meaningless).
    fn bisect(
        &mut self,
        pos: &Othello<N>,
        limit: &SolveLimit,
        guess: Option<i32>,
        aspiration: i32,
    ) -> (Solution, bool) {
        let squares = (N * N) as i32;
        let start = Instant::now();
        let (mut low, mut high) = (-squares, squares);
        let mut nodes = 0;
        let mut best: Option<Move> = None;
        // Probes sit on odd values (scores are even): "is the score at least x + 1?".
        let mut x = guess.map_or(1, |g| {
            let x = g.clamp(-squares + 2, squares) - 1;
            x - (1 - x.rem_euclid(2))
        });
        let mut beside_guess = guess.is_some();
        let mut step = 2;
        loop {
            let left = SolveLimit {
                deadline: limit.deadline,
                nodes: limit.nodes.map(|n| n.saturating_sub(nodes)),
            };
            // The first search around a guess of its own settles scores near it at once.
            let wide = beside_guess && aspiration > 0 && low == -squares && high == squares;
            let (alpha, beta) = if wide {
                (x - aspiration, x + 2 + aspiration)
            } else {
                (x, x + 1)
            };
            let (probe, aborted) = self.window(pos, alpha, beta, &left);
            nodes += probe.nodes;
            if aborted || probe.best.is_none() {
                let elapsed = start.elapsed();
                return (
                    Solution {
                        nodes,
                        elapsed,
                        ..probe
                    },
                    aborted,
                );
            }
            if probe.score > alpha && probe.score < beta {
                // Inside the aspiration window: exact.
                low = probe.score;
                best = probe.best;
                break;
            }
            if probe.score >= beta {
                low = low.max(probe.score);
                best = probe.best;
            } else {
                high = high.min(probe.score);
            }
            if low >= high {
                break;
            }
            if wide {
                // Next: just past the bound the window proved (bounds are even, so odd), then
                // on as below.
                x = if probe.score >= beta {
                    low + 1
                } else {
                    high - 1
                };
                continue;
            }
            if beside_guess && (low == -squares || high == squares) {
                // Away from the guess in growing steps until a probe fails the other way,
                // then bisection between the two proven bounds.
                x = if probe.score > x {
                    (x + step).max(low + 1)
                } else {
                    (x - step).min(high - 1)
                };
                step *= 2;
                if x > low && x < high && x.rem_euclid(2) == 1 {
                    continue;
                }
            }
            beside_guess = false;
            // The next odd value between the bounds, near their middle.
            let mid = (low + high).div_euclid(2);
            x = (mid - mid.rem_euclid(2) + 1).clamp(low + 1, high - 1);
            if x % 2 == 0 {
                x -= 1;
            }
        }
        let best = best.or_else(|| pos.legal_moves().first().copied());
        let pv = best.map(|mv| self.pv(pos, mv)).unwrap_or_default();
        let solution = Solution {
            score: low,
            best,
            pv,
            nodes,
            elapsed: start.elapsed(),
        };
        (solution, false)
    }

    /// The exact score by one full-window principal-variation search from the root (the
    /// classical method; [`solve`](Self::solve) is usually faster).
    pub fn solve_pvs(&mut self, pos: &Othello<N>) -> Solution {
        let squares = (N * N) as i32;
        self.solve_window(pos, -squares - 1, squares + 1)
    }

    /// Whether the side to move wins (+), draws (0) or loses (-): a null-window solve around 0,
    /// much faster than the exact score. The returned score has the right sign only.
    pub fn solve_wld(&mut self, pos: &Othello<N>) -> Solution {
        self.solve_window(pos, -1, 1)
    }

    /// Solves within `(alpha, beta)`: the exact score when it lies inside, else a bound on the
    /// side it falls (fail-soft).
    pub fn solve_window(&mut self, pos: &Othello<N>, alpha: i32, beta: i32) -> Solution {
        self.window(pos, alpha, beta, &SolveLimit::default()).0
    }

    /// [`solve_window`](Self::solve_window) within `limit`: `None` when the limit ran out
    /// first (bounds proven before that stay in the table, as in
    /// [`solve_limited`](Self::solve_limited)).
    pub fn solve_window_limited(
        &mut self,
        pos: &Othello<N>,
        alpha: i32,
        beta: i32,
        limit: &SolveLimit,
    ) -> Option<Solution> {
        let (solution, aborted) = self.window(pos, alpha, beta, limit);
        (!aborted).then_some(solution)
    }

    /// [`solve_window`](Self::solve_window) within `limit`; `true` beside the solution when the
    /// limit ran out (the solution is then meaningless).
    fn window(
        &mut self,
        pos: &Othello<N>,
        alpha: i32,
        beta: i32,
        limit: &SolveLimit,
    ) -> (Solution, bool) {
        let start = Instant::now();
        let (player, opponent) = (pos.player(), pos.opponent());
        self.allocate();
        let mut ctx = Ctx::unlimited(&self.table);
        ctx.eval = self.eval.as_deref();
        if limit.deadline.is_some() || limit.nodes.is_some() {
            ctx.deadline = limit.deadline;
            ctx.node_limit = limit.nodes.unwrap_or(u64::MAX);
            ctx.check_at = CHECK_EVERY.min(ctx.node_limit.saturating_add(1));
        }
        if pos.is_over() {
            let solution = Solution {
                score: pos.final_margin()
                    * if pos.side_to_move() == game::Color::Black {
                        1
                    } else {
                        -1
                    },
                best: None,
                pv: Vec::new(),
                nodes: 1,
                elapsed: start.elapsed(),
            };
            return (solution, false);
        }
        let kernel = self.kernel;
        let run = |ctx: &mut Ctx| {
            #[cfg(target_arch = "x86_64")]
            if kernel.runs_v3() {
                // SAFETY: the CPU supports every feature the v3 kernels are compiled for (checked).
                return unsafe { v3::root::<N>(ctx, player, opponent, alpha, beta) };
            }
            let _ = kernel;
            portable::root::<N>(ctx, player, opponent, alpha, beta)
        };
        let (score, best) = match &self.pool {
            Some(pool) => {
                ctx.parallel = true;
                pool.install(|| run(&mut ctx))
            }
            None => run(&mut ctx),
        };
        let (nodes, aborted) = (ctx.nodes, ctx.aborted);
        self.nodes += nodes;
        if aborted {
            let solution = Solution {
                score: 0,
                best: None,
                pv: Vec::new(),
                nodes,
                elapsed: start.elapsed(),
            };
            return (solution, true);
        }
        let best = match best {
            Some(sq) => Square::from_index(sq).map(Move::Place),
            None => Some(Move::Pass),
        };
        let pv = best.map(|mv| self.pv(pos, mv)).unwrap_or_default();
        let solution = Solution {
            score,
            best,
            pv,
            nodes,
            elapsed: start.elapsed(),
        };
        (solution, false)
    }

    /// The line of best moves the table knows after `first`.
    fn pv(&self, pos: &Othello<N>, first: Move) -> Vec<Move> {
        let mut line = vec![first];
        let mut pos = pos.play_unchecked(first);
        while line.len() < N * N && !pos.is_over() {
            let mv = if pos.must_pass() {
                Move::Pass
            } else {
                let e = (!self.table.is_empty())
                    .then(|| find(&self.table, pos.player(), pos.opponent()))
                    .flatten()
                    .unwrap_or_default();
                let known =
                    e.player == pos.player() && e.opponent == pos.opponent() && e.best != NO_MOVE;
                match Square::from_index(u32::from(e.best)) {
                    Some(sq) if known && pos.is_legal(Move::Place(sq)) => Move::Place(sq),
                    // Below the table's reach the rest of the line is cheap to solve exactly.
                    _ if pos.empty().count_ones() < TABLE_MIN => match best_small(&pos) {
                        Some(mv) => mv,
                        None => break,
                    },
                    _ => break,
                }
            };
            line.push(mv);
            pos = pos.play_unchecked(mv);
        }
        line
    }

    /// Nodes searched by this solver since it was made (PV completion not counted).
    #[must_use]
    pub fn total_nodes(&self) -> u64 {
        self.nodes
    }
}

/// A best move of a position with few empties, by plain exact negamax (for completing lines).
fn best_small<const N: usize>(pos: &Othello<N>) -> Option<Move> {
    fn value<const N: usize>(pos: &Othello<N>) -> i32 {
        match pos.outcome() {
            Some(o) => o.score_for(pos.side_to_move()),
            None => pos
                .legal_moves()
                .iter()
                .map(|&m| -value(&pos.play_unchecked(m)))
                .max()
                .unwrap_or(0),
        }
    }
    pos.legal_moves()
        .into_iter()
        .max_by_key(|&m| -value(&pos.play_unchecked(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cold table shrinks to a short move's time and never grows; an allocated one keeps its
    /// size.
    #[test]
    fn a_cold_table_fits_the_time() {
        let entry = Solver::<8>::new(22).table_bytes() >> 22;
        let mut s = Solver::<8>::new(22);
        s.fit_table_to(Duration::from_millis(50));
        assert_eq!(s.table_bytes(), entry << 19);
        s.fit_table_to(Duration::from_secs(60));
        assert_eq!(s.table_bytes(), entry << 19, "never grows");
        let mut s = Solver::<8>::new(22);
        s.fit_table_to(Duration::ZERO);
        assert_eq!(s.table_bytes(), entry << 16);
        let mut s = Solver::<8>::new(22);
        s.allocate();
        s.fit_table_to(Duration::from_millis(1));
        assert_eq!(
            s.table_bytes(),
            entry << 22,
            "an allocated table keeps its size"
        );
        let mut small = Solver::<8>::new(12);
        small.fit_table_to(Duration::ZERO);
        assert_eq!(small.table_bytes(), entry << 12);
    }

    /// The table count of the last move equals the flip mask's size (the slow twin) on random
    /// full boards, for both sides, at every square.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn last_flip_count_equals_the_flip_mask() {
        if !othello::bitboard::has_x86_64_v3() {
            return;
        }
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            // xorshift: any full board will do.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for sq in 0..64 {
                let bit = 1u64 << sq;
                let player = x & !bit;
                let opponent = !x & !bit;
                // SAFETY: the CPU has BMI2 and popcnt (checked above).
                let count = unsafe { last_flip_count(sq, player) };
                assert_eq!(
                    count,
                    flips(sq, player, opponent).count_ones(),
                    "{x:#x} {sq}"
                );
            }
        }
    }

    /// The aspiration window around a guess gives the exact score and a best move that keeps
    /// it whether the score lies inside the window, above it or below it (the slow twin: the
    /// bisection from 0 without a guess).
    #[test]
    fn aspiration_window_is_exact_on_every_side_of_the_guess() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut solver = Solver::<8>::new(16);
        let mut checked = 0;
        while checked < 12 {
            let mut pos = Othello::<8>::new();
            while !pos.is_over() && pos.empty().count_ones() > 12 {
                let moves = pos.legal_moves();
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos = pos.play_unchecked(moves[(state % moves.len() as u64) as usize]);
            }
            if pos.is_over() || pos.legal_moves().is_empty() {
                continue;
            }
            let exact = solver.bisect(&pos, &SolveLimit::default(), None, 0).0.score;
            for guess in [exact - 12, exact - 2, exact, exact + 2, exact + 12] {
                solver.clear();
                let got = solver
                    .bisect(&pos, &SolveLimit::default(), Some(guess), ASPIRATION)
                    .0;
                assert_eq!(got.score, exact, "{pos}: guess {guess}");
                let mv = got.best.expect("a move");
                let after = solver
                    .bisect(
                        &pos.play(mv).expect("legal"),
                        &SolveLimit::default(),
                        None,
                        0,
                    )
                    .0;
                assert_eq!(
                    -after.score, exact,
                    "{pos}: guess {guess}: {mv} is not best"
                );
            }
            checked += 1;
        }
    }
}
