//! The learned pattern evaluation of 8x8 Othello: 46 board lines and corner regions read in base
//! 3, symmetric readings sharing one weight, six global features, weights per game stage.
//!
//! The pattern set (each shape and its instances, drawn at the `a1` corner and mapped by the 8
//! board symmetries):
//!
//! | shape | squares | instances | weights (distinct configurations) |
//! |---|---:|---:|---:|
//! | `corner3x3`: a1–c3 | 9 | 4 | 10,206 |
//! | `corner2x5`: a1–e2 | 10 | 8 | 59,049 |
//! | `edge2x`: rank 1 and the X-squares b2, g2 | 10 | 4 | 29,646 |
//! | `row2`, `row3`, `row4`: ranks 2, 3, 4 | 8 | 4 each | 3,321 each |
//! | `diag8`: a1–h8 | 8 | 2 | 3,321 |
//! | `diag7`, `diag6`, `diag5`, `diag4` | 7–4 | 4 each | 1,134, 378, 135, 45 |
//!
//! A square reads 0 (empty), 1 (the side to move) or 2 (the other side); the first square of an
//! instance is the lowest digit. Two readings of one instance that a board symmetry maps onto each
//! other (a row read left to right or right to left, a corner region across its diagonal) share
//! a weight, so the evaluation is the same on all 8 symmetric boards (tested).
//!
//! Globals (per stage, weights in the same units): a bias, odd empties, the mobility of each
//! side, and the potential mobility (empty squares next to the other side's discs) of each side.
//!
//! Pattern set 2 ([`Layout::EdgeMobility`]) adds tables of the legal moves along the four edges,
//! read from both sides' legal-move sets: each side's moves on an edge (8 bits, 136 weights each)
//! and both sides' together (16 bits, 32,896 weights), an edge and its reverse sharing a weight.
//! A linear evaluation cannot otherwise tell whether a side can play on an edge or take a corner.
//!
//! [`Features`] keeps every instance's index for both sides' views and updates them on each move
//! (tested equal to [`Features::from_scratch`], the slow twin, on random games).
//! [`PatternWeights`] is the versioned, checksummed file (`i16` weights, zero runs packed).

use std::sync::LazyLock;

use othello::bitboard::{legal_moves, neighbours};

/// The id of the base pattern set (the shapes and globals; [`Layout::Patterns`]).
pub const PATTERN_SET: u16 = 1;

/// The id of the base set plus the edge-mobility tables ([`Layout::EdgeMobility`]).
pub const EDGE_MOBILITY_SET: u16 = 2;

/// Distinct readings of one side's legal moves on an edge (an edge and its reverse share one).
pub const EDGE_DISTINCT: usize = 136;

/// Distinct readings of both sides' legal moves on an edge (reversed together).
pub const EDGE_JOINT_DISTINCT: usize = 32_896;

/// Entries of the edge-mobility block of a stage (the same in the raw and compact layouts).
pub const EDGE_BLOCK: usize = 2 * EDGE_DISTINCT + EDGE_JOINT_DISTINCT;

/// Edge-mobility columns of a position: the mover's, the other side's and both sides' legal
/// moves on each of the four edges.
pub const EDGE_COLUMNS: usize = 12;

/// The most training columns of a position ([`columns`]).
pub const MAX_COLUMNS: usize = INSTANCES + EDGE_COLUMNS;

/// What a weight file's stages hold: the pattern set it was trained for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// Set 1: the shapes, then the globals.
    #[default]
    Patterns,
    /// Set 2: the shapes, the edge-mobility block, then the globals.
    EdgeMobility,
}

impl Layout {
    /// The set id stored in a weight file.
    #[must_use]
    pub fn id(self) -> u16 {
        match self {
            Layout::Patterns => PATTERN_SET,
            Layout::EdgeMobility => EDGE_MOBILITY_SET,
        }
    }

    /// The layout of a set id, if it is one of ours.
    #[must_use]
    pub fn from_id(id: u16) -> Option<Layout> {
        match id {
            PATTERN_SET => Some(Layout::Patterns),
            EDGE_MOBILITY_SET => Some(Layout::EdgeMobility),
            _ => None,
        }
    }

    /// Entries of the edge-mobility block (0 without it).
    #[must_use]
    pub fn edge_block(self) -> usize {
        match self {
            Layout::Patterns => 0,
            Layout::EdgeMobility => EDGE_BLOCK,
        }
    }

    /// Where a stage's globals start among its weights (after the patterns and the edge block).
    #[must_use]
    pub fn globals_offset(self) -> usize {
        SET.compact_total + self.edge_block()
    }

    /// Weights per stage in a file of this layout: the distinct pattern weights, the edge block,
    /// then the globals.
    #[must_use]
    pub fn stage_len(self) -> usize {
        self.globals_offset() + GLOBALS
    }

    /// Set 2 when `edge_mobility`, else set 1.
    #[must_use]
    pub fn with_edge_mobility(edge_mobility: bool) -> Layout {
        if edge_mobility {
            Layout::EdgeMobility
        } else {
            Layout::Patterns
        }
    }

    /// Training columns per position ([`columns`]).
    #[must_use]
    pub fn columns(self) -> usize {
        match self {
            Layout::Patterns => INSTANCES,
            Layout::EdgeMobility => MAX_COLUMNS,
        }
    }
}

/// Numbers the readings `0..n` so that a reading and its `reverse` share a number, in order of
/// the smaller of the two.
fn number_with_reverse(n: usize, reverse: impl Fn(usize) -> usize) -> Vec<u16> {
    let mut map = vec![u16::MAX; n];
    let mut next = 0;
    for i in 0..n {
        let c = i.min(reverse(i));
        if map[c] == u16::MAX {
            map[c] = next;
            next += 1;
        }
        map[i] = map[c];
    }
    map
}

/// Per 8-bit edge reading, its weight among the [`EDGE_DISTINCT`] (shared with its reverse).
static EDGE_ONE: LazyLock<Vec<u16>> =
    LazyLock::new(|| number_with_reverse(256, |i| usize::from((i as u8).reverse_bits())));

/// Per pair of edge readings (mover's low byte, other side's high byte), its weight among the
/// [`EDGE_JOINT_DISTINCT`] (the two reversed together).
static EDGE_JOINT: LazyLock<Vec<u16>> = LazyLock::new(|| {
    number_with_reverse(1 << 16, |j| {
        usize::from((j as u8).reverse_bits()) | usize::from(((j >> 8) as u8).reverse_bits()) << 8
    })
});

/// The four edges of a bitboard as bytes, each read from a corner: rank 1 (a1 first), rank 8
/// (a8 first), file a (a1 first), file h (h1 first).
#[inline(always)]
#[must_use]
pub fn edges(bits: u64) -> [usize; 4] {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    // Moves square 8k of file a to bit 56 + k: the products never overlap, so nothing carries.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    [
        (bits & 0xff) as usize,
        (bits >> 56) as usize,
        ((bits & FILE_A).wrapping_mul(GATHER) >> 56) as usize,
        (((bits >> 7) & FILE_A).wrapping_mul(GATHER) >> 56) as usize,
    ]
}

/// The edge-mobility columns (offsets within the block) of the mover's legal moves `mine` and
/// the other side's `theirs`.
#[inline(always)]
#[must_use]
pub fn edge_columns(mine: u64, theirs: u64) -> [u32; EDGE_COLUMNS] {
    let (one, joint) = (&*EDGE_ONE, &*EDGE_JOINT);
    let (a, b) = (edges(mine), edges(theirs));
    let mut out = [0u32; EDGE_COLUMNS];
    for k in 0..4 {
        out[k] = u32::from(one[a[k]]);
        out[4 + k] = (EDGE_DISTINCT as u32) + u32::from(one[b[k]]);
        out[8 + k] = (2 * EDGE_DISTINCT as u32) + u32::from(joint[a[k] | b[k] << 8]);
    }
    out
}

/// The number of pattern instances on the board.
pub const INSTANCES: usize = 46;

/// The global features after the patterns: bias, odd empties, mobility (mover, other),
/// potential mobility (mover, other).
pub const GLOBALS: usize = 6;

/// The most instances one square belongs to.
const MAX_PER_SQUARE: usize = 12;

/// A base shape: its name and its squares as (rank, file) at the `a1` corner, in reading order.
struct Shape {
    name: &'static str,
    squares: &'static [(u8, u8)],
}

const SHAPES: [Shape; 11] = [
    Shape {
        name: "corner3x3",
        squares: &[
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (0, 2),
            (2, 0),
            (1, 2),
            (2, 1),
            (2, 2),
        ],
    },
    Shape {
        name: "corner2x5",
        squares: &[
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
            (1, 4),
        ],
    },
    Shape {
        name: "edge2x",
        squares: &[
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (0, 5),
            (0, 6),
            (0, 7),
            (1, 1),
            (1, 6),
        ],
    },
    Shape {
        name: "row2",
        squares: &[
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
            (1, 4),
            (1, 5),
            (1, 6),
            (1, 7),
        ],
    },
    Shape {
        name: "row3",
        squares: &[
            (2, 0),
            (2, 1),
            (2, 2),
            (2, 3),
            (2, 4),
            (2, 5),
            (2, 6),
            (2, 7),
        ],
    },
    Shape {
        name: "row4",
        squares: &[
            (3, 0),
            (3, 1),
            (3, 2),
            (3, 3),
            (3, 4),
            (3, 5),
            (3, 6),
            (3, 7),
        ],
    },
    Shape {
        name: "diag8",
        squares: &[
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (6, 6),
            (7, 7),
        ],
    },
    Shape {
        name: "diag7",
        squares: &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)],
    },
    Shape {
        name: "diag6",
        squares: &[(0, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7)],
    },
    Shape {
        name: "diag5",
        squares: &[(0, 3), (1, 4), (2, 5), (3, 6), (4, 7)],
    },
    Shape {
        name: "diag4",
        squares: &[(0, 4), (1, 5), (2, 6), (3, 7)],
    },
];

/// The 8 symmetries of the board, as maps of (rank, file).
fn symmetry(s: usize, (r, c): (u8, u8)) -> (u8, u8) {
    match s {
        0 => (r, c),
        1 => (r, 7 - c),
        2 => (7 - r, c),
        3 => (7 - r, 7 - c),
        4 => (c, r),
        5 => (c, 7 - r),
        6 => (7 - c, r),
        _ => (7 - c, 7 - r),
    }
}

/// One shape's tables.
pub struct ShapeInfo {
    /// The shape's name.
    pub name: &'static str,
    /// Squares per instance.
    pub len: usize,
    /// Raw configurations, `3^len`.
    pub raw: usize,
    /// Start of this shape in a stage's raw table.
    pub raw_offset: usize,
    /// Distinct configurations (weights) after symmetric sharing.
    pub distinct: usize,
    /// Start of this shape in a stage's compact weights.
    pub compact_offset: usize,
    /// Raw index -> compact index (within the shape).
    pub compact: Vec<u32>,
}

/// One instance: its shape and its squares (bit indices) in reading order.
pub struct Instance {
    /// Index into [`PatternSet::shapes`].
    pub shape: usize,
    /// Bit indices, the first the lowest base-3 digit.
    pub squares: Vec<u8>,
}

/// The pattern set, computed once: shapes, instances, and per square the instances it is in.
pub struct PatternSet {
    /// The 11 shapes.
    pub shapes: Vec<ShapeInfo>,
    /// The 46 instances.
    pub instances: Vec<Instance>,
    /// Raw entries per stage (patterns only).
    pub raw_total: usize,
    /// Distinct weights per stage (patterns only).
    pub compact_total: usize,
    /// Per square: (instance, 3^position) for each instance containing it.
    by_square: [[(u8, u16); MAX_PER_SQUARE]; 64],
    by_square_len: [u8; 64],
    /// Per instance: its raw offset (the instance's shape's `raw_offset`).
    instance_offset: [u32; INSTANCES],
}

/// The pattern set.
pub static SET: LazyLock<PatternSet> = LazyLock::new(PatternSet::build);

fn pow3(k: usize) -> usize {
    3usize.pow(k as u32)
}

impl PatternSet {
    /// The (instance, 3^position) pairs of the instances that contain square `sq`.
    #[inline(always)]
    fn cells(&self, sq: usize) -> &[(u8, u16)] {
        &self.by_square[sq][..self.by_square_len[sq] as usize]
    }

    fn build() -> PatternSet {
        let mut shapes = Vec::new();
        let mut instances: Vec<Instance> = Vec::new();
        let (mut raw_offset, mut compact_offset) = (0, 0);
        for (id, shape) in SHAPES.iter().enumerate() {
            let len = shape.squares.len();
            let base: Vec<(u8, u8)> = shape.squares.to_vec();
            let mut sets: Vec<Vec<(u8, u8)>> = Vec::new();
            // Reading orders of the shape itself that a symmetry produces: permutations p with
            // image[k] = base[p[k]].
            let mut perms: Vec<Vec<usize>> = Vec::new();
            for s in 0..8 {
                let image: Vec<(u8, u8)> = base.iter().map(|&sq| symmetry(s, sq)).collect();
                let mut key = image.clone();
                key.sort_unstable();
                let mut base_key = base.clone();
                base_key.sort_unstable();
                if key == base_key {
                    let perm = image
                        .iter()
                        .map(|sq| base.iter().position(|b| b == sq).unwrap_or(0))
                        .collect();
                    perms.push(perm);
                }
                if !sets.contains(&key) {
                    sets.push(key);
                    instances.push(Instance {
                        shape: id,
                        squares: image.iter().map(|&(r, c)| r * 8 + c).collect(),
                    });
                }
            }
            let raw = pow3(len);
            let mut compact = vec![u32::MAX; raw];
            let mut distinct = 0u32;
            let mut digits = vec![0usize; len];
            for i in 0..raw {
                if compact[i] != u32::MAX {
                    continue;
                }
                let mut x = i;
                for d in digits.iter_mut() {
                    *d = x % 3;
                    x /= 3;
                }
                for p in &perms {
                    let j: usize = (0..len).map(|k| digits[p[k]] * pow3(k)).sum();
                    compact[j] = distinct;
                }
                compact[i] = distinct;
                distinct += 1;
            }
            shapes.push(ShapeInfo {
                name: shape.name,
                len,
                raw,
                raw_offset,
                distinct: distinct as usize,
                compact_offset,
                compact,
            });
            raw_offset += raw;
            compact_offset += distinct as usize;
        }
        let mut by_square = [[(0u8, 0u16); MAX_PER_SQUARE]; 64];
        let mut by_square_len = [0u8; 64];
        let mut instance_offset = [0u32; INSTANCES];
        for (i, inst) in instances.iter().enumerate() {
            instance_offset[i] = shapes[inst.shape].raw_offset as u32;
            for (k, &sq) in inst.squares.iter().enumerate() {
                let n = &mut by_square_len[sq as usize];
                by_square[sq as usize][*n as usize] = (i as u8, pow3(k) as u16);
                *n += 1;
            }
        }
        assert_eq!(
            instances.len(),
            INSTANCES,
            "the pattern set has 46 instances"
        );
        PatternSet {
            shapes,
            instances,
            raw_total: raw_offset,
            compact_total: compact_offset,
            by_square,
            by_square_len,
            instance_offset,
        }
    }

    /// The column of instance `i` at raw index `raw` in a stage's compact weights.
    #[must_use]
    pub fn column(&self, i: usize, raw: u16) -> u32 {
        let shape = &self.shapes[self.instances[i].shape];
        shape.compact_offset as u32 + shape.compact[raw as usize]
    }
}

/// Every instance's base-3 index, seen by both sides, and whose view is the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    idx: [[u16; INSTANCES]; 2],
    turn: u8,
}

impl Features {
    /// The features of a position, computed square by square (the slow twin of the updates).
    #[must_use]
    pub fn from_scratch(player: u64, opponent: u64) -> Features {
        let set = &*SET;
        let mut idx = [[0u16; INSTANCES]; 2];
        for (i, inst) in set.instances.iter().enumerate() {
            // Digit 1 for the viewer's disc, 2 for the other's, 0 for an empty square (no
            // branches: the solver computes this at every node it orders by the evaluation).
            let (mut mine, mut theirs, mut power) = (0u32, 0u32, 1u32);
            for &sq in &inst.squares {
                let a = (player >> sq & 1) as u32;
                let b = (opponent >> sq & 1) as u32;
                mine += power * (a + 2 * b);
                theirs += power * (b + 2 * a);
                power *= 3;
            }
            idx[0][i] = mine as u16;
            idx[1][i] = theirs as u16;
        }
        Features { idx, turn: 0 }
    }

    /// The side to move places a disc on `sq` (a bit index) and flips `flipped`; then the other
    /// side is to move.
    #[inline(always)]
    pub fn play(&mut self, sq: u32, flipped: u64) {
        let set = &*SET;
        let me = self.turn as usize;
        let other = me ^ 1;
        let sq = (sq & 63) as usize;
        for &(i, p) in set.cells(sq) {
            self.idx[me][i as usize] += p;
            self.idx[other][i as usize] += 2 * p;
        }
        let mut f = flipped;
        while f != 0 {
            let s = f.trailing_zeros() as usize;
            f &= f - 1;
            for &(i, p) in set.cells(s) {
                self.idx[me][i as usize] -= p;
                self.idx[other][i as usize] += p;
            }
        }
        self.turn ^= 1;
    }

    /// The features after the move, leaving these as they are.
    #[inline(always)]
    #[must_use]
    pub fn after(&self, sq: u32, flipped: u64) -> Features {
        let mut next = *self;
        next.play(sq, flipped);
        next
    }

    /// The indices the side to move sees after the move: `self.after(sq, flipped).mover()`
    /// without the other side's view, which a leaf of a search does not need (half the
    /// updates, half the copy).
    #[inline(always)]
    #[must_use]
    pub fn mover_after(&self, sq: u32, flipped: u64) -> [u16; INSTANCES] {
        let set = &*SET;
        // After the move the other side is to move; in its view the new disc is a 2 and each
        // flipped disc goes from 1 to 2.
        let mut idx = self.idx[(self.turn ^ 1) as usize];
        let sq = (sq & 63) as usize;
        for &(i, p) in set.cells(sq) {
            idx[i as usize] += 2 * p;
        }
        let mut f = flipped;
        while f != 0 {
            let s = f.trailing_zeros() as usize;
            f &= f - 1;
            for &(i, p) in set.cells(s) {
                idx[i as usize] += p;
            }
        }
        idx
    }

    /// The side to move passes.
    #[inline]
    pub fn pass(&mut self) {
        self.turn ^= 1;
    }

    /// The indices seen by the side to move.
    #[inline]
    #[must_use]
    pub fn mover(&self) -> &[u16; INSTANCES] {
        &self.idx[self.turn as usize]
    }

    /// Whether two feature sets describe the same position from the same side, whichever view
    /// each started from.
    #[must_use]
    pub fn same_position(&self, other: &Features) -> bool {
        let (a, b) = (self.turn as usize, other.turn as usize);
        self.idx[a] == other.idx[b] && self.idx[a ^ 1] == other.idx[b ^ 1]
    }
}

/// The global feature values of a position, for the side to move.
#[inline(always)]
#[must_use]
pub fn globals(player: u64, opponent: u64) -> [i32; GLOBALS] {
    globals_with(
        player,
        opponent,
        legal_moves(player, opponent),
        legal_moves(opponent, player),
    )
}

/// [`globals`] from the two sides' legal-move sets already computed.
#[inline(always)]
#[must_use]
pub fn globals_with(player: u64, opponent: u64, mine: u64, theirs: u64) -> [i32; GLOBALS] {
    let empty = !(player | opponent);
    [
        1,
        (empty.count_ones() & 1) as i32,
        mine.count_ones() as i32,
        theirs.count_ones() as i32,
        (neighbours(opponent) & empty).count_ones() as i32,
        (neighbours(player) & empty).count_ones() as i32,
    ]
}

/// Why a weight file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WeightsError {
    /// Not a stonelab pattern file.
    #[error("not a stonelab pattern weight file (its first bytes are not \"stonepat\")")]
    Magic,
    /// Shorter than its header or its payload.
    #[error("the file is cut short: {0}")]
    Truncated(&'static str),
    /// A format version this build does not read.
    #[error("format version {0} (this build reads version 1)")]
    Version(u16),
    /// Weights for another pattern set.
    #[error(
        "weights for pattern set {0} (this build reads sets {PATTERN_SET} and {EDGE_MOBILITY_SET})"
    )]
    Set(u16),
    /// A stage layout that does not cover the game.
    #[error("{0}")]
    Stages(String),
    /// The checksum does not match.
    #[error("checksum mismatch: the header says {stored:016x}, the contents give {computed:016x}")]
    Checksum {
        /// In the header.
        stored: u64,
        /// Of the contents.
        computed: u64,
    },
    /// The packed weights do not decode to the expected count.
    #[error("the weights decode to {found} values, the header's layout needs {expected}")]
    Length {
        /// Needed.
        expected: usize,
        /// Found (stops counting past `expected`).
        found: usize,
    },
    /// Bytes after the payload.
    #[error("{0} unexpected bytes after the weights")]
    Trailing(usize),
    /// The file could not be read.
    #[error("cannot read {path}: {why}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        why: String,
    },
    /// Larger than any weight file of this set.
    #[error("{path} is larger than {limit} bytes: not a pattern weight file of this set")]
    TooLarge {
        /// The file.
        path: String,
        /// The most bytes read.
        limit: u64,
    },
}

const MAGIC: &[u8; 8] = b"stonepat";
const VERSION: u16 = 1;
const HEADER_LEN: usize = 28;
/// Marks a run of zero weights in the packed stream: the marker, then the run length (u16).
const ZERO_RUN: i16 = i16::MIN;

pub(crate) use game::hash::{fnv1a, FNV_OFFSET as FNV_START};

/// Pattern weights: per stage, the distinct pattern weights then the globals, as `i16` in
/// `1/scale` discs. Stage `s` covers the positions with `s * width ..= s * width + width - 1`
/// empty squares.
///
/// The file (version 1, little-endian): `stonepat`, version u16, pattern set u16, stage width u8,
/// stages u8, scale u16, payload bytes u32, checksum u64 (FNV-1a over the payload, then header
/// bytes 0–19), then the payload: the weights in order, each an `i16`, except that a run of
/// zeros is written as −32768 and its length (u16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternWeights {
    /// The pattern set the weights are for (the file's set id).
    pub layout: Layout,
    /// Empty-square counts per stage.
    pub width: u8,
    /// Weight units per disc.
    pub scale: u16,
    /// `stages × layout.stage_len()` weights.
    pub weights: Vec<i16>,
}

/// The largest scale (weight units per disc): the search stores scores of up to ±64 discs in
/// 16-bit table entries, so `64 · scale` must stay below 32,767.
pub const MAX_SCALE: u16 = 511;

/// Refuses a scale of 0 or above [`MAX_SCALE`].
fn check_scale(scale: u16) -> Result<(), WeightsError> {
    if scale == 0 || scale > MAX_SCALE {
        return Err(WeightsError::Stages(format!(
            "a scale of {scale} weight units per disc (1 to {MAX_SCALE}: the search keeps \
             64-disc scores in 16 bits)"
        )));
    }
    Ok(())
}

impl PatternWeights {
    /// All-zero weights with stages of `width` empties (1..=61).
    ///
    /// # Errors
    /// [`WeightsError::Stages`] for a width outside 1..=61 or a scale outside 1..=511.
    pub fn zeros(width: u8, scale: u16) -> Result<PatternWeights, WeightsError> {
        Self::zeros_for(Layout::Patterns, width, scale)
    }

    /// All-zero weights of `layout` with stages of `width` empties (1..=61).
    ///
    /// # Errors
    /// [`WeightsError::Stages`] for a width outside 1..=61 or a scale outside 1..=511.
    pub fn zeros_for(
        layout: Layout,
        width: u8,
        scale: u16,
    ) -> Result<PatternWeights, WeightsError> {
        let stages = Self::stages_for(width)?;
        check_scale(scale)?;
        Ok(PatternWeights {
            layout,
            width,
            scale,
            weights: vec![0; stages * layout.stage_len()],
        })
    }

    fn stages_for(width: u8) -> Result<usize, WeightsError> {
        if width == 0 || width > 61 {
            return Err(WeightsError::Stages(format!(
                "a stage width of {width} empties (1..=61)"
            )));
        }
        Ok(60 / width as usize + 1)
    }

    /// The number of stages.
    #[must_use]
    pub fn stages(&self) -> usize {
        60 / self.width as usize + 1
    }

    /// The stage of a position with `empties` empty squares.
    #[must_use]
    pub fn stage(&self, empties: u32) -> usize {
        (empties.min(60) / u32::from(self.width)) as usize
    }

    /// One stage's weights.
    #[must_use]
    pub fn stage_weights(&self, stage: usize) -> &[i16] {
        let n = self.layout.stage_len();
        &self.weights[stage * n..(stage + 1) * n]
    }

    /// The file bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(self.weights.len());
        let mut i = 0;
        while i < self.weights.len() {
            let w = self.weights[i];
            if w == 0 || w == ZERO_RUN {
                // ZERO_RUN itself is never a weight: training clamps to ±32767.
                let mut run = 0usize;
                while i < self.weights.len()
                    && (self.weights[i] == 0 || self.weights[i] == ZERO_RUN)
                    && run < u16::MAX as usize
                {
                    run += 1;
                    i += 1;
                }
                payload.extend_from_slice(&ZERO_RUN.to_le_bytes());
                payload.extend_from_slice(&(run as u16).to_le_bytes());
            } else {
                payload.extend_from_slice(&w.to_le_bytes());
                i += 1;
            }
        }
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        header[8..10].copy_from_slice(&VERSION.to_le_bytes());
        header[10..12].copy_from_slice(&self.layout.id().to_le_bytes());
        header[12] = self.width;
        header[13] = self.stages() as u8;
        header[14..16].copy_from_slice(&self.scale.to_le_bytes());
        header[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        let sum = fnv1a(fnv1a(FNV_START, &payload), &header[..20]);
        header[20..28].copy_from_slice(&sum.to_le_bytes());
        let mut out = header.to_vec();
        out.extend_from_slice(&payload);
        out
    }

    /// Reads a weight file, checking everything before anything is used.
    ///
    /// # Errors
    /// A [`WeightsError`] naming the first problem.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or(WeightsError::Truncated("no complete header"))?;
        if header.get(..8) != Some(MAGIC.as_slice()) {
            return Err(WeightsError::Magic);
        }
        let u16_at = |at: usize| u16::from_le_bytes([header[at], header[at + 1]]);
        let version = u16_at(8);
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let set = u16_at(10);
        let layout = Layout::from_id(set).ok_or(WeightsError::Set(set))?;
        let width = header[12];
        let stages = Self::stages_for(width)?;
        if header[13] as usize != stages {
            return Err(WeightsError::Stages(format!(
                "{} stages in the header, but stages of {width} empties make {stages}",
                header[13]
            )));
        }
        let scale = u16_at(14);
        check_scale(scale)?;
        let len = u32::from_le_bytes([header[16], header[17], header[18], header[19]]) as usize;
        let payload = bytes
            .get(HEADER_LEN..HEADER_LEN.saturating_add(len))
            .ok_or(WeightsError::Truncated(
                "the weights are shorter than the header says",
            ))?;
        if bytes.len() > HEADER_LEN + len {
            return Err(WeightsError::Trailing(bytes.len() - HEADER_LEN - len));
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(&header[20..28]);
        let stored = u64::from_le_bytes(word);
        let computed = fnv1a(fnv1a(FNV_START, payload), &header[..20]);
        if stored != computed {
            return Err(WeightsError::Checksum { stored, computed });
        }
        let expected = stages * layout.stage_len();
        let mut weights = Vec::with_capacity(expected);
        let mut chunks = payload.chunks(2);
        while let Some(c) = chunks.next() {
            if c.len() < 2 {
                return Err(WeightsError::Truncated(
                    "an odd byte at the end of the weights",
                ));
            }
            let w = i16::from_le_bytes([c[0], c[1]]);
            let run = if w == ZERO_RUN {
                let n = chunks
                    .next()
                    .filter(|n| n.len() == 2)
                    .ok_or(WeightsError::Truncated("a zero run without its length"))?;
                u16::from_le_bytes([n[0], n[1]]) as usize
            } else {
                1
            };
            if weights.len() + run > expected {
                return Err(WeightsError::Length {
                    expected,
                    found: weights.len() + run,
                });
            }
            let value = if w == ZERO_RUN { 0 } else { w };
            weights.resize(weights.len() + run, value);
        }
        if weights.len() != expected {
            return Err(WeightsError::Length {
                expected,
                found: weights.len(),
            });
        }
        Ok(PatternWeights {
            layout,
            width,
            scale,
            weights,
        })
    }
}

/// The pattern evaluation ready to search with: each stage's weights laid out by raw index.
#[derive(Clone, Debug)]
pub struct PatternEval {
    /// Where each count of empties (0..=60) finds its stage in `raw` (no division per leaf).
    stage_at: [u32; 61],
    scale: i32,
    /// The pattern set: with [`Layout::EdgeMobility`] the stages carry the edge block.
    layout: Layout,
    /// Per stage `raw_total` pattern entries, the edge block (if any), then `GLOBALS`.
    raw: Vec<i16>,
    stride: usize,
    /// Where a stage's globals start.
    globals_at: usize,
}

impl PatternEval {
    /// Expands the weights to raw tables (about 0.33 MB per stage).
    #[must_use]
    pub fn new(weights: &PatternWeights) -> PatternEval {
        let set = &*SET;
        let block = weights.layout.edge_block();
        let globals_at = set.raw_total + block;
        let stride = globals_at + GLOBALS;
        let mut raw = vec![0i16; weights.stages() * stride];
        for stage in 0..weights.stages() {
            let w = weights.stage_weights(stage);
            let out = &mut raw[stage * stride..(stage + 1) * stride];
            for shape in &set.shapes {
                for (r, &c) in shape.compact.iter().enumerate() {
                    out[shape.raw_offset + r] = w[shape.compact_offset + c as usize];
                }
            }
            // The edge block and the globals keep their order (the block has no raw form).
            out[set.raw_total..].copy_from_slice(&w[set.compact_total..]);
        }
        PatternEval {
            stage_at: std::array::from_fn(|empties| {
                (weights.stage(empties as u32) * stride) as u32
            }),
            scale: i32::from(weights.scale),
            layout: weights.layout,
            raw,
            stride,
            globals_at,
        }
    }

    /// Weight units per disc.
    #[must_use]
    pub fn scale(&self) -> i32 {
        self.scale
    }

    /// The pattern set of the weights.
    #[must_use]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The value of the position for the side to move, in `1/scale` discs, from its features.
    /// Always inlined, as are the feature updates and [`globals`]: the solver's x86-64-v3
    /// kernels then compile them with their instructions (hardware popcount).
    #[inline(always)]
    #[must_use]
    pub fn evaluate(&self, features: &Features, player: u64, opponent: u64) -> i32 {
        self.evaluate_indices(features.mover(), player, opponent)
    }

    /// [`evaluate`](Self::evaluate) from the side to move's indices alone (a search's leaf
    /// takes them from [`Features::mover_after`]).
    #[inline(always)]
    #[must_use]
    pub fn evaluate_indices(&self, idx: &[u16; INSTANCES], player: u64, opponent: u64) -> i32 {
        let set = &*SET;
        let empties = (!(player | opponent)).count_ones();
        let at = self.stage_at[empties.min(60) as usize] as usize;
        let w = &self.raw[at..at + self.stride];
        let mut sum = 0i32;
        for i in 0..INSTANCES {
            sum += i32::from(w[set.instance_offset[i] as usize + idx[i] as usize]);
        }
        let (mine, theirs) = (legal_moves(player, opponent), legal_moves(opponent, player));
        if self.layout == Layout::EdgeMobility {
            let block = &w[set.raw_total..];
            for c in edge_columns(mine, theirs) {
                sum += i32::from(block[c as usize]);
            }
        }
        let g = globals_with(player, opponent, mine, theirs);
        let gw = &w[self.globals_at..];
        for k in 0..GLOBALS {
            sum += i32::from(gw[k]) * g[k];
        }
        sum
    }

    /// The value from the bitboards alone (features computed from scratch).
    #[must_use]
    pub fn evaluate_position(&self, player: u64, opponent: u64) -> i32 {
        self.evaluate(&Features::from_scratch(player, opponent), player, opponent)
    }

    /// The value in centi-discs (100 per disc), rounded toward zero.
    #[must_use]
    pub fn centi(&self, value: i32) -> i32 {
        value * 100 / self.scale
    }
}

impl search::Evaluator<othello::Othello8> for PatternEval {
    fn evaluate(&self, pos: &othello::Othello8) -> i32 {
        self.centi(self.evaluate_position(pos.player(), pos.opponent()))
    }

    fn scale(&self) -> search::ScoreScale {
        search::ScoreScale::Centi
    }
}

/// The weights bundled in the binary (`models/othello8-patterns.bin`, made by
/// `stonelab train patterns`; its card is `models/othello8-patterns.json`).
pub static BUNDLED_BYTES: &[u8] = include_bytes!("../../../models/othello8-patterns.bin");

/// The bundled evaluation, expanded once.
///
/// # Panics
/// Never in a released build: the bundled file is checked by a test.
pub fn bundled() -> std::sync::Arc<PatternEval> {
    static EVAL: LazyLock<std::sync::Arc<PatternEval>> = LazyLock::new(|| {
        let weights = PatternWeights::from_bytes(BUNDLED_BYTES)
            .expect("the bundled pattern weights are valid (tested)");
        std::sync::Arc::new(PatternEval::new(&weights))
    });
    EVAL.clone()
}

/// The largest weight file read from disk: every stage of width 1 unpacked, with room to spare.
pub const MAX_FILE_BYTES: u64 = 32 << 20;

/// A weight file made by `stonelab train patterns`, read (at most [`MAX_FILE_BYTES`]), checked and
/// expanded; each file is expanded once per process while it stays unchanged (same length and
/// modification time), so agents built game after game share it.
///
/// # Errors
/// [`WeightsError::Io`] when the file cannot be read, [`WeightsError::TooLarge`] past the limit,
/// or what [`PatternWeights::from_bytes`] refuses.
pub fn load(path: &std::path::Path) -> Result<std::sync::Arc<PatternEval>, WeightsError> {
    /// A file's length and modification time: the cache's test that it is unchanged.
    type Stamp = (u64, Option<std::time::SystemTime>);
    type Cache =
        std::collections::HashMap<std::path::PathBuf, (Stamp, std::sync::Arc<PatternEval>)>;
    static CACHE: LazyLock<std::sync::Mutex<Cache>> = LazyLock::new(Default::default);
    let (file, meta) = open_regular(path)?;
    let stamp: Stamp = (meta.len(), meta.modified().ok());
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(cache) = CACHE.lock() {
        if let Some((seen, eval)) = cache.get(&key) {
            if *seen == stamp {
                return Ok(eval.clone());
            }
        }
    }
    let bytes = read_capped(file, path)?;
    let eval = std::sync::Arc::new(PatternEval::new(&PatternWeights::from_bytes(&bytes)?));
    if let Ok(mut cache) = CACHE.lock() {
        // A handful of files at most in practice; never more than 8 kept.
        if cache.len() >= 8 {
            cache.clear();
        }
        cache.insert(key, (stamp, eval.clone()));
    }
    Ok(eval)
}

fn io_error(path: &std::path::Path, why: impl std::fmt::Display) -> WeightsError {
    WeightsError::Io {
        path: path.display().to_string(),
        why: why.to_string(),
    }
}

/// `path` opened, when it is a regular file: checked before opening (`metadata` never blocks,
/// where opening a FIFO would) and again on the open file.
fn open_regular(
    path: &std::path::Path,
) -> Result<(std::fs::File, std::fs::Metadata), WeightsError> {
    if !std::fs::metadata(path)
        .map_err(|e| io_error(path, e))?
        .is_file()
    {
        return Err(io_error(path, "not a regular file"));
    }
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let meta = file.metadata().map_err(|e| io_error(path, e))?;
    if !meta.is_file() {
        return Err(io_error(path, "not a regular file"));
    }
    Ok((file, meta))
}

/// The bytes of `file` (read from `path`), refused past [`MAX_FILE_BYTES`].
fn read_capped(file: std::fs::File, path: &std::path::Path) -> Result<Vec<u8>, WeightsError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(WeightsError::TooLarge {
            path: path.display().to_string(),
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(bytes)
}

/// A weight file's bytes, unchecked (at most [`MAX_FILE_BYTES`]): what a correction network's
/// fingerprint is compared with.
///
/// # Errors
/// [`WeightsError::Io`] or [`WeightsError::TooLarge`].
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, WeightsError> {
    let (file, _) = open_regular(path)?;
    read_capped(file, path)
}

/// The compact columns a position touches under `layout` (one per instance, then with
/// [`Layout::EdgeMobility`] the [`EDGE_COLUMNS`] after the patterns; `layout.columns()` of the
/// array are used, the rest are 0) and its global values: the training view of the evaluation
/// (`value = Σ w[column] + Σ w_g · g`, the globals at [`Layout::globals_offset`]).
#[must_use]
pub fn columns(layout: Layout, player: u64, opponent: u64) -> ([u32; MAX_COLUMNS], [i32; GLOBALS]) {
    let set = &*SET;
    let f = Features::from_scratch(player, opponent);
    let mut cols = [0u32; MAX_COLUMNS];
    for (i, c) in cols.iter_mut().enumerate().take(INSTANCES) {
        *c = set.column(i, f.mover()[i]);
    }
    let (mine, theirs) = (legal_moves(player, opponent), legal_moves(opponent, player));
    if layout == Layout::EdgeMobility {
        for (c, e) in cols[INSTANCES..].iter_mut().zip(edge_columns(mine, theirs)) {
            *c = set.compact_total as u32 + e;
        }
    }
    (cols, globals_with(player, opponent, mine, theirs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_has_the_documented_sizes() {
        let set = &*SET;
        let sizes: Vec<(&str, usize, usize)> = set
            .shapes
            .iter()
            .map(|s| {
                (
                    s.name,
                    set.instances
                        .iter()
                        .filter(|i| set.shapes[i.shape].name == s.name)
                        .count(),
                    s.distinct,
                )
            })
            .collect();
        assert_eq!(
            sizes,
            vec![
                ("corner3x3", 4, 10_206),
                ("corner2x5", 8, 59_049),
                ("edge2x", 4, 29_646),
                ("row2", 4, 3_321),
                ("row3", 4, 3_321),
                ("row4", 4, 3_321),
                ("diag8", 2, 3_321),
                ("diag7", 4, 1_134),
                ("diag6", 4, 378),
                ("diag5", 4, 135),
                ("diag4", 4, 45),
            ]
        );
        // Every square is read by some instance, none by more than the table holds.
        for sq in 0..64 {
            assert!(set.by_square_len[sq] >= 1);
        }
    }
}
