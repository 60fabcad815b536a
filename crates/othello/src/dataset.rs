//! Value-learning data from WTHOR games: every decision point labelled with the game's result for
//! the side to move, aggregated per state, split train/test, and stored in a checksummed file.
//!
//! # Labels
//!
//! A game contributes each position where the side to move has a legal move (a *decision point*).
//! Finished positions are left out, and so are forced-pass positions: passing is no choice, and
//! the position after the pass (the opponent to move, same discs) is the one that is counted. The
//! label of a decision point is `z` = 1 when the game was won by the side to move there, 0 when
//! lost, 0.5 for a draw. The result is the **recorded** one (the `.wtb` file's black disc count,
//! empties to the winner: black wins above 32) — what the players agreed — and not the replay's
//! final count, which differs for about 0.3% of the games (adjourned or resigned ones).
//!
//! A state is keyed by its absolute bitboards and the side to move ([`StateKey`]); with
//! [`merge_symmetries`] by the smallest of its eight images under the board symmetries
//! ([`StateKey::canonical`]). Over its `N` occurrences a state's value is `V = mean(z)`, kept
//! exactly as `wins2 = Σ 2z` (a [`Record`]): `V = wins2 / (2N)`.
//!
//! # Splits
//!
//! - *Frequency* (the published one): states sorted by count, most frequent first, ties in a
//!   seeded random order ([`sort_by_frequency`]); the first `⌊0.8 n⌋` train
//!   ([`frequency_train_len`]), the rest test. Nearly all the states are seen once, so the cut
//!   falls inside the tie of count 1: ordering that tie by key (as this module once did) sent
//!   the once-seen states with the largest keys — late positions, Black owning corners — to
//!   test and the rest to training, a test set from another region than the training set.
//! - *Game*: each game goes to train or test (80/20) by a seeded hash of its identity, the file's
//!   year and its index in the file ([`GameId::part`]); states are aggregated separately over the
//!   two halves, so one state may be in both ([`GameSplit::shared`]).
//!
//! # File format (version 1)
//!
//! All little-endian. A 32-byte header: bytes 0–7 the magic `STONEVAL`, 8–9 `u16` version (1),
//! 10–11 `u16` record size (25), 12 symmetries (0 raw, 1 merged), 13 split (0 none, 1 frequency,
//! 2 game), 14 part (0 all, 1 train, 2 test), 15 zero, 16–23 `u64` record count, 24–31 `u64`
//! checksum: 64-bit FNV-1a over the records, continued over header bytes 0–23. Then the records,
//! 25 bytes each: `u64` black, `u64` white (bit `8*row + col`, `a1` = 0), `u8` side to move (0
//! black, 1 white), `u32` count `N`, `u32` `wins2` (`Σ 2z`, exact; `V = wins2 / (2N)`). Frequency
//! files hold their records in split order (count descending, then [`tie_rank`] under the build's seed, `summary.json`'s
//! `seed`, then key); the others in key order
//! (black, white, side). A file being written has zeros for its magic until it is finished.
//! [`DatasetReader`] streams a file in chunks and checks everything, the checksum at the end.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use game::{Color, Game, Symmetry};

use crate::wthor::WthorGame;
use crate::{Othello8, ReplayError};

/// The first eight bytes of a dataset file.
pub const MAGIC: [u8; 8] = *b"STONEVAL";
/// The format version this module writes and reads.
pub const VERSION: u16 = 1;
/// Bytes in the header.
pub const HEADER_LEN: usize = 32;
/// Bytes per record.
pub const RECORD_LEN: usize = 25;
/// Records per chunk a [`DatasetReader`] reads by default.
pub const DEFAULT_CHUNK_RECORDS: usize = 4096;
/// The seed of the game split unless the caller picks another.
pub const DEFAULT_SEED: u64 = 0;

use game::hash::{fnv1a, splitmix64, FNV_OFFSET};

// ---------------------------------------------------------------------------------------------
// Keys and symmetries

/// A state: black's and white's discs (absolute bitboards, bit `8*row + col`) and the side to
/// move. Ordered by black, then white, then side (black first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateKey {
    /// Black's discs.
    pub black: u64,
    /// White's discs.
    pub white: u64,
    /// The side to move.
    pub side: Color,
}

/// Positions `(row, col)` whose row has bit `k` clear and whose column has it set: the lower
/// halves of the pairs one transposition stage swaps.
const fn transpose_mask(k: u32) -> u64 {
    let mut mask = 0u64;
    let mut i = 0;
    while i < 64 {
        let (row, col) = (i / 8, i % 8);
        if (row >> k) & 1 == 0 && (col >> k) & 1 == 1 {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}

const TRANSPOSE_MASKS: [u64; 3] = [transpose_mask(0), transpose_mask(1), transpose_mask(2)];

/// Swaps the bits of `mask` with those `delta` places above them.
const fn delta_swap(x: u64, mask: u64, delta: u32) -> u64 {
    let t = (x ^ (x >> delta)) & mask;
    x ^ t ^ (t << delta)
}

/// `(row, col) -> (col, row)`: three stages, each swapping bit `k` of the row with bit `k` of the
/// column where they differ (the partner square is `7 * 2^k` places up).
const fn transpose(x: u64) -> u64 {
    let x = delta_swap(x, TRANSPOSE_MASKS[0], 7);
    let x = delta_swap(x, TRANSPOSE_MASKS[1], 14);
    delta_swap(x, TRANSPOSE_MASKS[2], 28)
}

/// `(row, col) -> (row, 7 - col)`.
const fn mirror_files(x: u64) -> u64 {
    x.reverse_bits().swap_bytes()
}

/// The image of an 8x8 bitboard under a symmetry, as [`Game::transform`] moves discs (a fast
/// twin of it, checked against it in the tests).
#[must_use]
pub const fn transform_bits(bits: u64, sym: Symmetry) -> u64 {
    match sym {
        Symmetry::Identity => bits,
        Symmetry::Rotate90 => mirror_files(transpose(bits)),
        Symmetry::Rotate180 => bits.reverse_bits(),
        Symmetry::Rotate270 => transpose(bits).swap_bytes(),
        Symmetry::FlipHorizontal => mirror_files(bits),
        Symmetry::FlipVertical => bits.swap_bytes(),
        Symmetry::Transpose => transpose(bits),
        Symmetry::AntiTranspose => transpose(bits).reverse_bits(),
    }
}

impl StateKey {
    /// The key of a position.
    #[must_use]
    pub fn of(pos: &Othello8) -> StateKey {
        StateKey {
            black: pos.discs(Color::Black),
            white: pos.discs(Color::White),
            side: pos.side_to_move(),
        }
    }

    /// The position, if the boards do not overlap.
    ///
    /// # Errors
    /// [`crate::PositionError::BadBitboards`] for overlapping boards.
    pub fn position(&self) -> Result<Othello8, crate::PositionError> {
        Othello8::from_bitboards(self.black, self.white, self.side)
    }

    /// The key of the position's image under `sym`.
    #[must_use]
    pub const fn transform(&self, sym: Symmetry) -> StateKey {
        StateKey {
            black: transform_bits(self.black, sym),
            white: transform_bits(self.white, sym),
            side: self.side,
        }
    }

    /// The smallest of the eight images: the same for a position and all its symmetric images.
    #[must_use]
    pub fn canonical(&self) -> StateKey {
        Symmetry::ALL
            .iter()
            .map(|&sym| self.transform(sym))
            .min()
            .unwrap_or(*self)
    }
}

// ---------------------------------------------------------------------------------------------
// Decision points

/// Which half of a split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// The training half (80%).
    Train,
    /// The test half (20%).
    Test,
}

/// A game's identity for the game split: its file's year and its 0-based index in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameId {
    /// The year of the `.wtb` file (its header's).
    pub year: u16,
    /// The index of the game in the file.
    pub index: u32,
}

impl GameId {
    /// The half this game belongs to under `seed`: a SplitMix64 hash of seed, year and index,
    /// train when it is below 80 modulo 100. Independent of std's hasher and of the platform.
    #[must_use]
    pub fn part(&self, seed: u64) -> Part {
        let id = u64::from(self.year) << 32 | u64::from(self.index);
        if splitmix64(seed ^ splitmix64(id)) % 100 < 80 {
            Part::Train
        } else {
            Part::Test
        }
    }
}

/// One decision point of one game: the state (fields as in [`StateKey`]), twice its label and
/// the game's half in the game split. Flat (24 bytes) to keep millions of them cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// Black's discs.
    pub black: u64,
    /// White's discs.
    pub white: u64,
    /// The side to move.
    pub side: Color,
    /// `2z`: 2 when the side to move won the game, 1 for a draw, 0 when it lost.
    pub z2: u8,
    /// The game's half in the game split.
    pub part: Part,
}

impl Occurrence {
    /// Its state.
    #[must_use]
    pub const fn key(&self) -> StateKey {
        StateKey {
            black: self.black,
            white: self.white,
            side: self.side,
        }
    }
}

/// A game that cannot be labelled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The recorded black disc count is above 64.
    #[error("recorded black disc count {0} is above 64")]
    DiscCount(u8),
    /// A move of the record is illegal.
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// `2z` for black from black's recorded disc count (empties to the winner): 2 above 32, 1 at 32,
/// 0 below.
///
/// # Errors
/// [`GameError::DiscCount`] above 64.
pub fn black_z2(black_discs: u8) -> Result<u8, GameError> {
    match black_discs {
        0..=31 => Ok(0),
        32 => Ok(1),
        33..=64 => Ok(2),
        _ => Err(GameError::DiscCount(black_discs)),
    }
}

/// What [`decision_points`] saw in one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// Decision points added.
    pub positions: usize,
    /// Positions where the side to move had to pass (left out).
    pub passes: usize,
    /// Black's recorded disc count (the result used).
    pub recorded_black: u8,
    /// Black's disc count at the end of the replay, empties to the winner.
    pub replayed_black: u8,
    /// Whether the replay ends in a finished game.
    pub finished: bool,
}

impl GameSummary {
    /// Whether the recorded and replayed results name different winners (or one a draw).
    #[must_use]
    pub fn result_differs(&self) -> bool {
        self.recorded_black.cmp(&32) != self.replayed_black.cmp(&32)
    }
}

/// Replays `game` and appends its decision points, labelled with its recorded result, to `out`
/// (see the module documentation). Nothing is appended when it fails.
///
/// # Errors
/// [`GameError::DiscCount`] for a recorded count above 64, [`GameError::Replay`] for an illegal
/// move.
pub fn decision_points(
    game: &WthorGame,
    part: Part,
    out: &mut Vec<Occurrence>,
) -> Result<GameSummary, GameError> {
    let black = black_z2(game.black_discs)?;
    let replay = game.replay()?;
    let before = out.len();
    let mut passes = 0;
    for pos in replay.positions() {
        if pos.moves() == 0 {
            passes += usize::from(!pos.is_over());
            continue;
        }
        let key = StateKey::of(pos);
        let z2 = match key.side {
            Color::Black => black,
            Color::White => 2 - black,
        };
        out.push(Occurrence {
            black: key.black,
            white: key.white,
            side: key.side,
            z2,
            part,
        });
    }
    let last = replay.last();
    // The margin is within -64..=64, so the count is within 0..=64.
    let replayed_black = u8::try_from((64 + last.final_margin()) / 2).unwrap_or(0);
    Ok(GameSummary {
        positions: out.len() - before,
        passes,
        recorded_black: game.black_discs,
        replayed_black,
        finished: last.is_over(),
    })
}

/// Replaces every occurrence's state by its canonical image ([`StateKey::canonical`]).
pub fn merge_symmetries(occurrences: &mut [Occurrence]) {
    for o in occurrences {
        let c = o.key().canonical();
        (o.black, o.white) = (c.black, c.white);
    }
}

// ---------------------------------------------------------------------------------------------
// Aggregation and splits

/// A labelled state: how often it occurred and the sum of twice its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The state.
    pub key: StateKey,
    /// `N`: its occurrences.
    pub count: u32,
    /// `Σ 2z` over them (at most `2N`).
    pub wins2: u32,
}

impl Record {
    /// `V = mean(z) = wins2 / (2N)` (0 for a record with no occurrence).
    #[must_use]
    pub fn value(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            f64::from(self.wins2) / (2.0 * f64::from(self.count))
        }
    }

    fn add(&mut self, z2: u8) {
        // Counts saturate (a state would need 2^31 occurrences).
        self.count = self.count.saturating_add(1);
        self.wins2 = self.wins2.saturating_add(u32::from(z2));
    }
}

/// The sizes of the game split after [`aggregate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameSplit {
    /// Decision points of train games.
    pub train_positions: usize,
    /// Decision points of test games.
    pub test_positions: usize,
    /// Distinct states among the train games.
    pub train_states: usize,
    /// Distinct states among the test games.
    pub test_states: usize,
    /// States that occur in both halves.
    pub shared: usize,
}

/// Sorts `occurrences` by state and aggregates them: returns every distinct state over all of
/// them, in key order, and hands `by_part` the states of each half of the game split (also in
/// key order, each half's counts only) as they are found, so they need not be held.
///
/// # Errors
/// The first error `by_part` returns.
pub fn aggregate<E>(
    occurrences: &mut [Occurrence],
    mut by_part: impl FnMut(Part, &Record) -> Result<(), E>,
) -> Result<(Vec<Record>, GameSplit), E> {
    occurrences.sort_unstable_by_key(Occurrence::key);
    let distinct = occurrences
        .chunk_by(|a, b| a.key() == b.key())
        .map(|_| ())
        .count();
    let mut states = Vec::with_capacity(distinct);
    let mut split = GameSplit::default();
    for group in occurrences.chunk_by(|a, b| a.key() == b.key()) {
        let key = group[0].key();
        let empty = Record {
            key,
            count: 0,
            wins2: 0,
        };
        let (mut all, mut train, mut test) = (empty, empty, empty);
        for o in group {
            all.add(o.z2);
            match o.part {
                Part::Train => train.add(o.z2),
                Part::Test => test.add(o.z2),
            }
        }
        split.train_positions += train.count as usize;
        split.test_positions += test.count as usize;
        if train.count > 0 {
            split.train_states += 1;
            by_part(Part::Train, &train)?;
        }
        if test.count > 0 {
            split.test_states += 1;
            by_part(Part::Test, &test)?;
        }
        if train.count > 0 && test.count > 0 {
            split.shared += 1;
        }
        states.push(all);
    }
    Ok((states, split))
}

/// Where a state goes among the states of its count under `seed`: a SplitMix64 hash of the
/// seed and the key, so states of one count come in a seeded random order that does not depend
/// on where on the board they are. Independent of std's hasher and of the platform.
#[must_use]
pub const fn tie_rank(key: &StateKey, seed: u64) -> u64 {
    let side = match key.side {
        Color::Black => 0,
        Color::White => 1,
    };
    splitmix64(splitmix64(splitmix64(seed ^ key.black) ^ key.white) ^ side)
}

/// Sorts states for the frequency split: count descending, then by [`tie_rank`] under `seed`
/// (a seeded shuffle of each count's states), then by key (for a total order).
pub fn sort_by_frequency(states: &mut [Record], seed: u64) {
    // The rank is computed once per state, not once per comparison.
    states.sort_by_cached_key(|r| (std::cmp::Reverse(r.count), tie_rank(&r.key, seed), r.key));
}

/// How many of `n` states (sorted by [`sort_by_frequency`]) the frequency split trains on:
/// `⌊0.8 n⌋`; the other `n - ⌊0.8 n⌋` are the test set.
#[must_use]
pub const fn frequency_train_len(n: usize) -> usize {
    n / 5 * 4 + n % 5 * 4 / 5
}

// ---------------------------------------------------------------------------------------------
// Files

/// Whether a file's states are raw or merged over the board symmetries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetries {
    /// Each position as played.
    Raw,
    /// Each position replaced by its canonical image.
    Merged,
}

/// Which split (and half) a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// Every state, unsplit.
    All,
    /// A half of the frequency split.
    Frequency(Part),
    /// A half of the game split.
    Game(Part),
}

/// A dataset file's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Raw or merged states.
    pub symmetries: Symmetries,
    /// The split and half.
    pub split: Split,
    /// Records that follow.
    pub records: u64,
    /// FNV-1a 64 of the records, continued over header bytes 0–23.
    pub checksum: u64,
}

impl Header {
    /// The first 24 bytes (everything but the checksum).
    fn prefix(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&VERSION.to_le_bytes());
        b[10..12].copy_from_slice(&(RECORD_LEN as u16).to_le_bytes());
        b[12] = match self.symmetries {
            Symmetries::Raw => 0,
            Symmetries::Merged => 1,
        };
        let part = |p: Part| match p {
            Part::Train => 1,
            Part::Test => 2,
        };
        (b[13], b[14]) = match self.split {
            Split::All => (0, 0),
            Split::Frequency(p) => (1, part(p)),
            Split::Game(p) => (2, part(p)),
        };
        b[16..24].copy_from_slice(&self.records.to_le_bytes());
        b
    }

    /// The 32 header bytes.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..24].copy_from_slice(&self.prefix());
        b[24..].copy_from_slice(&self.checksum.to_le_bytes());
        b
    }

    /// Reads and checks the 32 header bytes.
    ///
    /// # Errors
    /// [`FormatError::BadMagic`], [`FormatError::UnsupportedVersion`],
    /// [`FormatError::RecordSize`] or [`FormatError::BadHeader`].
    pub fn parse(b: &[u8; HEADER_LEN]) -> Result<Header, FormatError> {
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&b[..8]);
        if magic != MAGIC {
            return Err(FormatError::BadMagic(magic));
        }
        let version = u16::from_le_bytes([b[8], b[9]]);
        if version != VERSION {
            return Err(FormatError::UnsupportedVersion(version));
        }
        let size = u16::from_le_bytes([b[10], b[11]]);
        if usize::from(size) != RECORD_LEN {
            return Err(FormatError::RecordSize(size));
        }
        let symmetries = match b[12] {
            0 => Symmetries::Raw,
            1 => Symmetries::Merged,
            x => {
                return Err(FormatError::BadHeader(format!(
                    "symmetries byte {x} is neither 0 (raw) nor 1 (merged)"
                )))
            }
        };
        let part = |x: u8| match x {
            1 => Ok(Part::Train),
            2 => Ok(Part::Test),
            _ => Err(FormatError::BadHeader(format!(
                "part byte {x} is neither 1 (train) nor 2 (test)"
            ))),
        };
        let split = match (b[13], b[14]) {
            (0, 0) => Split::All,
            (0, x) => {
                return Err(FormatError::BadHeader(format!(
                    "part byte {x} for an unsplit file (0 expected)"
                )))
            }
            (1, x) => Split::Frequency(part(x)?),
            (2, x) => Split::Game(part(x)?),
            (x, _) => {
                return Err(FormatError::BadHeader(format!(
                    "split byte {x} is not 0 (none), 1 (frequency) or 2 (game)"
                )))
            }
        };
        if b[15] != 0 {
            return Err(FormatError::BadHeader(format!(
                "reserved byte 15 is {} (0 expected)",
                b[15]
            )));
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(&b[16..24]);
        let records = u64::from_le_bytes(word);
        word.copy_from_slice(&b[24..32]);
        Ok(Header {
            symmetries,
            split,
            records,
            checksum: u64::from_le_bytes(word),
        })
    }
}

impl Record {
    /// The record's 25 bytes.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        b[..8].copy_from_slice(&self.key.black.to_le_bytes());
        b[8..16].copy_from_slice(&self.key.white.to_le_bytes());
        b[16] = match self.key.side {
            Color::Black => 0,
            Color::White => 1,
        };
        b[17..21].copy_from_slice(&self.count.to_le_bytes());
        b[21..25].copy_from_slice(&self.wins2.to_le_bytes());
        b
    }

    /// Reads and checks a record's 25 bytes.
    ///
    /// # Errors
    /// A description of the problem: overlapping boards, a side byte other than 0 or 1, a zero
    /// count, or `wins2` above twice the count.
    pub fn parse(b: &[u8; RECORD_LEN]) -> Result<Record, String> {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(w)
        };
        let half = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let (black, white, count, wins2) = (word(0), word(8), half(17), half(21));
        let side = match b[16] {
            0 => Color::Black,
            1 => Color::White,
            x => return Err(format!("side byte {x} is neither 0 (black) nor 1 (white)")),
        };
        if black & white != 0 {
            return Err(format!(
                "black {black:#018x} and white {white:#018x} share squares"
            ));
        }
        if count == 0 {
            return Err("count is 0".into());
        }
        if u64::from(wins2) > 2 * u64::from(count) {
            return Err(format!("wins2 {wins2} is above twice the count {count}"));
        }
        Ok(Record {
            key: StateKey { black, white, side },
            count,
            wins2,
        })
    }
}

/// What is wrong with a dataset file (see [`DatasetError`], which names the file).
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file does not start with `STONEVAL`.
    #[error(
        "not a stonelab dataset file (magic {0:02x?}, expected \"STONEVAL\"; a file whose \
         writing did not finish has zeros there)"
    )]
    BadMagic([u8; 8]),
    /// A version this build cannot read.
    #[error("format version {0} is not supported (this build reads version 1)")]
    UnsupportedVersion(u16),
    /// A record size other than 25.
    #[error("record size {0} bytes (version 1 records are 25 bytes)")]
    RecordSize(u16),
    /// An invalid header field.
    #[error("corrupt header: {0}")]
    BadHeader(String),
    /// The file ends inside the header.
    #[error("the file ends inside its 32-byte header ({0} bytes)")]
    ShortHeader(usize),
    /// The file ends before the announced records.
    #[error(
        "truncated: the header announces {announced} records but the file holds only {complete} \
         complete ones"
    )]
    Truncated {
        /// Records the header announces.
        announced: u64,
        /// Complete records present.
        complete: u64,
    },
    /// Bytes after the announced records.
    #[error("{extra} bytes follow the {announced} records the header announces")]
    TrailingData {
        /// Records the header announces.
        announced: u64,
        /// Bytes beyond them (a lower bound when streaming).
        extra: u64,
    },
    /// The checksum does not match the contents.
    #[error(
        "checksum mismatch: the header says {stored:016x}, the contents give {computed:016x} \
         (corrupt file)"
    )]
    ChecksumMismatch {
        /// The header's checksum.
        stored: u64,
        /// The checksum of what was read.
        computed: u64,
    },
    /// A record that cannot be a labelled state.
    #[error("record {index}: {problem}")]
    BadRecord {
        /// 0-based record index.
        index: u64,
        /// What is wrong.
        problem: String,
    },
}

/// An error reading or writing a dataset file, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct DatasetError {
    /// The file (or the name a caller gave a stream).
    pub path: PathBuf,
    /// The problem.
    #[source]
    pub kind: FormatError,
}

/// Writes a dataset file record by record; [`finish`](Self::finish) writes the header.
pub struct DatasetWriter<W: Write + Seek> {
    inner: BufWriter<W>,
    path: PathBuf,
    header: Header,
    hash: u64,
}

impl DatasetWriter<File> {
    /// Creates (or truncates) the file at `path`.
    ///
    /// # Errors
    /// When the file cannot be created or written.
    pub fn create(
        path: &Path,
        symmetries: Symmetries,
        split: Split,
    ) -> Result<DatasetWriter<File>, DatasetError> {
        let file = File::create(path).map_err(|e| DatasetError {
            path: path.to_path_buf(),
            kind: e.into(),
        })?;
        DatasetWriter::new(file, path, symmetries, split)
    }
}

impl<W: Write + Seek> DatasetWriter<W> {
    /// A writer over `inner`, called `name` in errors. Writes a placeholder header (zero magic)
    /// at once.
    ///
    /// # Errors
    /// When the placeholder cannot be written.
    pub fn new(
        inner: W,
        name: impl Into<PathBuf>,
        symmetries: Symmetries,
        split: Split,
    ) -> Result<Self, DatasetError> {
        let mut writer = DatasetWriter {
            inner: BufWriter::with_capacity(1 << 16, inner),
            path: name.into(),
            header: Header {
                symmetries,
                split,
                records: 0,
                checksum: 0,
            },
            hash: FNV_OFFSET,
        };
        let placeholder = [0u8; HEADER_LEN];
        writer
            .inner
            .write_all(&placeholder)
            .map_err(|e| writer.error(e))?;
        Ok(writer)
    }

    fn error(&self, e: io::Error) -> DatasetError {
        DatasetError {
            path: self.path.clone(),
            kind: e.into(),
        }
    }

    /// Appends a record.
    ///
    /// # Errors
    /// When writing fails.
    pub fn push(&mut self, record: &Record) -> Result<(), DatasetError> {
        let bytes = record.to_bytes();
        self.hash = fnv1a(self.hash, &bytes);
        self.header.records += 1;
        self.inner.write_all(&bytes).map_err(|e| self.error(e))
    }

    /// Records written so far.
    #[must_use]
    pub fn records(&self) -> u64 {
        self.header.records
    }

    /// Writes the header (count and checksum) over the placeholder and returns it with the
    /// inner writer.
    ///
    /// # Errors
    /// When flushing, seeking or writing fails.
    pub fn finish(mut self) -> Result<(Header, W), DatasetError> {
        self.header.checksum = fnv1a(self.hash, &self.header.prefix());
        let header = self.header;
        let path = self.path;
        let err = |e: io::Error| DatasetError {
            path: path.clone(),
            kind: e.into(),
        };
        let mut inner = self.inner.into_inner().map_err(|e| err(e.into_error()))?;
        inner.seek(SeekFrom::Start(0)).map_err(err)?;
        inner.write_all(&header.to_bytes()).map_err(err)?;
        inner.flush().map_err(err)?;
        Ok((header, inner))
    }
}

/// Writes `records` to a new file at `path`.
///
/// # Errors
/// When the file cannot be created or written.
pub fn write_dataset<'a>(
    path: &Path,
    symmetries: Symmetries,
    split: Split,
    records: impl IntoIterator<Item = &'a Record>,
) -> Result<Header, DatasetError> {
    let mut writer = DatasetWriter::create(path, symmetries, split)?;
    for record in records {
        writer.push(record)?;
    }
    let (header, file) = writer.finish()?;
    file.sync_all().map_err(|e| DatasetError {
        path: path.to_path_buf(),
        kind: e.into(),
    })?;
    Ok(header)
}

/// Streams a dataset file in chunks of records (bounded memory), checking the header first and
/// the length and checksum at the end.
///
/// A record is only known to be intact once the whole file has been read: the last call of
/// [`next_chunk`](Self::next_chunk) (or the iterator's last item) reports a mismatch.
pub struct DatasetReader<R: Read> {
    inner: BufReader<R>,
    path: PathBuf,
    header: Header,
    chunk_records: usize,
    read: u64,
    hash: u64,
    bytes: Vec<u8>,
    pending: Vec<Record>,
    next: usize,
    finished: bool,
}

impl DatasetReader<File> {
    /// Opens the file at `path`, checks its header and that its length matches the record
    /// count.
    ///
    /// # Errors
    /// A [`DatasetError`] naming the file: unreadable, not a dataset, another version, a corrupt
    /// header, or [`FormatError::Truncated`] / [`FormatError::TrailingData`] for a length that
    /// does not match.
    pub fn open(path: &Path) -> Result<DatasetReader<File>, DatasetError> {
        let err = |kind: FormatError| DatasetError {
            path: path.to_path_buf(),
            kind,
        };
        // `metadata` never blocks, where opening a FIFO would: only regular files are read.
        let meta = std::fs::metadata(path).map_err(|e| err(e.into()))?;
        if !meta.is_file() {
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            )
            .into()));
        }
        let file = File::open(path).map_err(|e| err(e.into()))?;
        let len = file.metadata().map_err(|e| err(e.into()))?.len();
        let reader = DatasetReader::new(file, path)?;
        let announced = reader.header.records;
        let payload = len.saturating_sub(HEADER_LEN as u64);
        let expected = announced.saturating_mul(RECORD_LEN as u64);
        if payload < expected {
            return Err(err(FormatError::Truncated {
                announced,
                complete: payload / RECORD_LEN as u64,
            }));
        }
        if payload > expected {
            return Err(err(FormatError::TrailingData {
                announced,
                extra: payload - expected,
            }));
        }
        Ok(reader)
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn fill(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match reader.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

impl<R: Read> DatasetReader<R> {
    /// A reader over `inner` (buffered here), called `name` in errors; reads and checks the
    /// header.
    ///
    /// # Errors
    /// A [`DatasetError`]: unreadable, shorter than a header, not a dataset, another version or
    /// a corrupt header.
    pub fn new(inner: R, name: impl Into<PathBuf>) -> Result<Self, DatasetError> {
        let path = name.into();
        let mut inner = BufReader::with_capacity(1 << 16, inner);
        let mut bytes = [0u8; HEADER_LEN];
        let got = fill(&mut inner, &mut bytes).map_err(|e| DatasetError {
            path: path.clone(),
            kind: e.into(),
        })?;
        let header = if got < HEADER_LEN {
            Err(FormatError::ShortHeader(got))
        } else {
            Header::parse(&bytes)
        }
        .map_err(|kind| DatasetError {
            path: path.clone(),
            kind,
        })?;
        Ok(DatasetReader {
            inner,
            path,
            header,
            chunk_records: DEFAULT_CHUNK_RECORDS,
            read: 0,
            hash: FNV_OFFSET,
            bytes: Vec::new(),
            pending: Vec::new(),
            next: 0,
            finished: false,
        })
    }

    /// Reads at most `records` records per chunk (at least 1).
    #[must_use]
    pub fn with_chunk_records(mut self, records: usize) -> Self {
        self.chunk_records = records.max(1);
        self
    }

    /// The file's header.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's name in errors.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, kind: FormatError) -> DatasetError {
        DatasetError {
            path: self.path.clone(),
            kind,
        }
    }

    /// Replaces `out`'s contents by the next chunk (at most the chunk size). Returns `false`,
    /// with `out` empty, once every record has been read and the file checked.
    ///
    /// # Errors
    /// A [`DatasetError`] naming the file: a read failure, a truncated file, a corrupt record,
    /// bytes after the records, or a checksum mismatch.
    pub fn next_chunk(&mut self, out: &mut Vec<Record>) -> Result<bool, DatasetError> {
        let result = self.read_chunk(out);
        if result.is_err() {
            // Nothing more is read after an error.
            self.finished = true;
            out.clear();
        }
        result
    }

    fn read_chunk(&mut self, out: &mut Vec<Record>) -> Result<bool, DatasetError> {
        out.clear();
        if self.finished {
            return Ok(false);
        }
        let left = self.header.records - self.read;
        if left == 0 {
            self.finish()?;
            return Ok(false);
        }
        let n = usize::try_from(left).map_or(self.chunk_records, |l| l.min(self.chunk_records));
        self.bytes.resize(n * RECORD_LEN, 0);
        let got = fill(&mut self.inner, &mut self.bytes).map_err(|e| self.error(e.into()))?;
        if got < self.bytes.len() {
            return Err(self.error(FormatError::Truncated {
                announced: self.header.records,
                complete: self.read + (got / RECORD_LEN) as u64,
            }));
        }
        self.hash = fnv1a(self.hash, &self.bytes);
        for (i, chunk) in self.bytes.chunks_exact(RECORD_LEN).enumerate() {
            let mut b = [0u8; RECORD_LEN];
            b.copy_from_slice(chunk);
            let record = Record::parse(&b).map_err(|problem| DatasetError {
                path: self.path.clone(),
                kind: FormatError::BadRecord {
                    index: self.read + i as u64,
                    problem,
                },
            })?;
            out.push(record);
        }
        self.read += n as u64;
        Ok(true)
    }

    /// After the last record: no byte may follow, and the checksum must match.
    fn finish(&mut self) -> Result<(), DatasetError> {
        self.finished = true;
        let mut probe = [0u8; 4096];
        let extra = fill(&mut self.inner, &mut probe).map_err(|e| self.error(e.into()))?;
        if extra > 0 {
            return Err(self.error(FormatError::TrailingData {
                announced: self.header.records,
                extra: extra as u64,
            }));
        }
        let computed = fnv1a(self.hash, &self.header.prefix());
        if computed != self.header.checksum {
            return Err(self.error(FormatError::ChecksumMismatch {
                stored: self.header.checksum,
                computed,
            }));
        }
        Ok(())
    }

    /// Reads every remaining record into memory (for small files and tests).
    ///
    /// # Errors
    /// As [`next_chunk`](Self::next_chunk).
    pub fn read_all(mut self) -> Result<Vec<Record>, DatasetError> {
        let mut all = Vec::new();
        let mut chunk = Vec::new();
        while self.next_chunk(&mut chunk)? {
            all.append(&mut chunk);
        }
        Ok(all)
    }
}

impl<R: Read> Iterator for DatasetReader<R> {
    type Item = Result<Record, DatasetError>;

    /// The next record, read a chunk at a time; an error ends the iteration.
    fn next(&mut self) -> Option<Self::Item> {
        if self.next == self.pending.len() {
            let mut chunk = std::mem::take(&mut self.pending);
            self.next = 0;
            match self.next_chunk(&mut chunk) {
                Ok(true) => self.pending = chunk,
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        let record = self.pending[self.next];
        self.next += 1;
        Some(Ok(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_transforms_match_the_generic_ones() {
        let game = crate::replay_transcript::<8>("f5d6c3d3c4f4f6f3e6e7d7c5b6").unwrap();
        for pos in game.positions() {
            for sym in Symmetry::ALL {
                assert_eq!(
                    StateKey::of(pos).transform(sym),
                    StateKey::of(&pos.transform(sym)),
                    "{pos} {sym:?}"
                );
            }
        }
        for (i, bit) in (0..64).map(|i| (i, 1u64 << i)) {
            for sym in Symmetry::ALL {
                let (r, c) = sym.apply(i / 8, i % 8, 8);
                assert_eq!(transform_bits(bit, sym), 1 << (8 * r + c), "{i} {sym:?}");
            }
        }
    }

    #[test]
    fn frequency_split_rounds_down() {
        assert_eq!(frequency_train_len(0), 0);
        assert_eq!(frequency_train_len(4), 3);
        assert_eq!(frequency_train_len(5), 4);
        assert_eq!(frequency_train_len(11), 8);
        assert_eq!(frequency_train_len(7_314_328), 5_851_462);
    }
}
