//! The correction network: a small learned non-linear term added to the pattern evaluation at
//! the midgame's leaves (one hidden layer over both sides' discs and legal moves, the stage and
//! the pattern value) and its versioned file; its seeded, resumable fit is
//! `train::correction_fit`.
//!
//! The pattern evaluation is linear per stage, so it cannot see how features combine (whether
//! a side can really reach a corner, say). The network is fitted by Adam to what the pattern
//! weights leave over (`label − evaluation`, mean squared error) on the final labels of a
//! `train patterns` run; its output in discs is added to the evaluation at the midgame
//! search's leaves. Move ordering and the exact solver keep the linear evaluation.

use othello::bitboard::legal_moves;

use crate::pattern::{fnv1a, FNV_START};
use game::hash::SplitMix;

/// Input planes of 64 squares: the mover's discs, the other side's, the mover's legal moves,
/// the other side's; with [`FRONTIER_PLANES`], also each side's frontier discs (next to an
/// empty square).
pub const PLANES: usize = 4;
/// [`PLANES`] with the two frontier planes.
pub const FRONTIER_PLANES: usize = 6;
/// One input per empty-square count 0..=60.
pub const STAGE_INPUTS: usize = 61;

/// Every input of a network over `planes` planes: the planes, the stage one-hot, and the
/// pattern value (in discs / 16), last.
#[must_use]
pub const fn inputs(planes: usize) -> usize {
    planes * 64 + STAGE_INPUTS + 1
}

/// The inputs of the four-plane network.
pub const INPUTS: usize = inputs(PLANES);
/// The widest hidden layer a file may have.
pub const MAX_HIDDEN: usize = 512;
/// Hidden widths are multiples of this (the fast path's unit of work).
pub const CHUNK: usize = 16;
/// The pattern value's input is the value in discs divided by this.
pub(crate) const DENSE_SCALE: f32 = 16.0;

const MAGIC: &[u8; 8] = b"stonecor";
/// Format version 1: the network reads the position as given.
const VERSION_AS_PLAYED: u16 = 1;
/// Format version 2 (the same layout): the network reads the position's canonical image.
const VERSION: u16 = 2;
const HEADER_LEN: usize = 32;
/// The fingerprint a correction file records of the pattern weight file it was fitted for:
/// FNV-1a over that file's bytes.
#[must_use]
pub fn pattern_fingerprint(pattern_file: &[u8]) -> u64 {
    fnv1a(FNV_START, pattern_file)
}

/// Why a correction file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CorrectionError {
    /// Not a correction file.
    #[error("not a stonelab correction network file (its first bytes are not \"stonecor\")")]
    Magic,
    /// Shorter than its header or its payload.
    #[error("the file is cut short: {0}")]
    Truncated(&'static str),
    /// A format version this build does not read.
    #[error("format version {0} (this build reads versions {VERSION_AS_PLAYED} and {VERSION})")]
    Version(u16),
    /// Input planes this build does not know.
    #[error("{0} input planes (this build reads {PLANES} or {FRONTIER_PLANES})")]
    Planes(u16),
    /// An input count that does not match the planes.
    #[error("{0} inputs, where its planes make {1}")]
    Inputs(u16, usize),
    /// A hidden width out of range.
    #[error("{0} hidden units (a multiple of {CHUNK} from {CHUNK} to {MAX_HIDDEN})")]
    Hidden(u16),
    /// The payload does not hold the layer sizes.
    #[error("{found} payload bytes, the header's layer sizes need {expected}")]
    Length {
        /// Needed.
        expected: usize,
        /// Found.
        found: usize,
    },
    /// The checksum does not match.
    #[error("checksum mismatch: the header says {stored:016x}, the contents give {computed:016x}")]
    Checksum {
        /// In the header.
        stored: u64,
        /// Of the contents.
        computed: u64,
    },
    /// A weight is NaN or infinite.
    #[error("weight {0} is not a finite number")]
    NotFinite(usize),
    /// Fitted for other pattern weights.
    #[error(
        "the network was fitted for the pattern weights with fingerprint {fitted:016x}, not \
         these ({given:016x}): a correction only fits the weights it was trained on"
    )]
    Mismatch {
        /// In the file.
        fitted: u64,
        /// Of the weights it would correct.
        given: u64,
    },
    /// The file could not be read.
    #[error("cannot read {path}: {why}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        why: String,
    },
}

/// The network: `out = w2 · relu(W1 x + b1) + b2`, in discs for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct CorrectionNet {
    /// Input planes: [`PLANES`] or [`FRONTIER_PLANES`].
    pub planes: usize,
    /// Hidden units.
    pub hidden: usize,
    /// `inputs(planes) × hidden`, input-major (the row of input `i` is
    /// `w1[i * hidden..][..hidden]`).
    pub w1: Vec<f32>,
    /// `hidden`.
    pub b1: Vec<f32>,
    /// `hidden`.
    pub w2: Vec<f32>,
    /// The output's bias.
    pub b2: f32,
    /// [`pattern_fingerprint`] of the pattern weight file it corrects.
    pub patterns: u64,
    /// The network reads the least of a position's 8 images ([`canonical_image`]), so every
    /// image of a position gets the same correction (file version 2); `false`: it reads the
    /// position as given (version 1 files, whose corrections differ from image to image).
    pub canonical: bool,
}

/// The least `(player, opponent)` over the 8 symmetries of the board: the image a canonical
/// network reads.
#[inline]
#[must_use]
pub fn canonical_image(player: u64, opponent: u64) -> (u64, u64) {
    crate::book::canonical(player, opponent).0
}

/// The discs of `discs` next to a square of `empty`.
#[inline]
fn frontier(discs: u64, empty: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let e = empty;
    let near =
        e << 8 | e >> 8 | (e << 1 | e << 9 | e >> 7) & NOT_A | (e >> 1 | e >> 9 | e << 7) & NOT_H;
    discs & near
}

/// The longest list of active inputs: 64 discs, 2 × 64 legal moves (fewer in fact), 64
/// frontier discs and one stage.
pub const MAX_ACTIVE: usize = 4 * 64 + 1;

/// The sparse active inputs of a position over `planes` planes (each of weight 1; the pattern
/// value comes apart); returns how many.
#[inline]
pub fn active_inputs(
    player: u64,
    opponent: u64,
    planes: usize,
    out: &mut [u16; MAX_ACTIVE],
) -> usize {
    let mine = legal_moves(player, opponent);
    let theirs = legal_moves(opponent, player);
    let empty = !(player | opponent);
    // The frontier planes only for a network that reads them (the leaves' hot path).
    let (my_frontier, their_frontier) = if planes > PLANES {
        (frontier(player, empty), frontier(opponent, empty))
    } else {
        (0, 0)
    };
    let all = [player, opponent, mine, theirs, my_frontier, their_frontier];
    let mut len = 0;
    for (k, &bits) in all[..planes].iter().enumerate() {
        let mut b = bits;
        while b != 0 {
            out[len] = (k * 64 + b.trailing_zeros() as usize) as u16;
            len += 1;
            b &= b - 1;
        }
    }
    out[len] = (planes * 64 + empty.count_ones().min(60) as usize) as u16;
    len + 1
}

/// [`canonical_image`] the slow way, square by square through the 8 maps of (row, column):
/// the twin the tests hold it to.
fn slow_canonical_image(player: u64, opponent: u64) -> (u64, u64) {
    /// A map of (row, column).
    type Map = fn(usize, usize) -> (usize, usize);
    let maps: [Map; 8] = [
        |r, c| (r, c),
        |r, c| (r, 7 - c),
        |r, c| (7 - r, c),
        |r, c| (7 - r, 7 - c),
        |r, c| (c, r),
        |r, c| (c, 7 - r),
        |r, c| (7 - c, r),
        |r, c| (7 - c, 7 - r),
    ];
    let image = |bits: u64, map: Map| {
        (0..64)
            .filter(|sq| bits >> sq & 1 == 1)
            .fold(0u64, |acc, sq| {
                let (r, c) = map(sq / 8, sq % 8);
                acc | 1 << (r * 8 + c)
            })
    };
    maps.iter()
        .map(|&m| (image(player, m), image(opponent, m)))
        .min()
        .unwrap_or((player, opponent))
}

impl CorrectionNet {
    /// A network of `hidden` units with every weight drawn from `seed` (He-style uniform for
    /// the hidden layer, small for the output): the fit's starting point.
    ///
    /// # Errors
    /// A width out of range.
    pub fn initial(
        planes: usize,
        hidden: usize,
        seed: u64,
        patterns: u64,
    ) -> Result<Self, CorrectionError> {
        if hidden == 0 || hidden > MAX_HIDDEN || !hidden.is_multiple_of(CHUNK) {
            return Err(CorrectionError::Hidden(
                hidden.min(usize::from(u16::MAX)) as u16
            ));
        }
        if planes != PLANES && planes != FRONTIER_PLANES {
            return Err(CorrectionError::Planes(
                planes.min(usize::from(u16::MAX)) as u16
            ));
        }
        let mut rng = SplitMix(seed ^ 0x636f_7272_6563_7431);
        let mut uniform = |scale: f32| {
            let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            (u * 2.0 - 1.0) * scale
        };
        // About 40 inputs are active at once: keep the first layer's sums near unit scale.
        let s1 = (2.0f32 / 40.0).sqrt();
        let w1 = (0..inputs(planes) * hidden).map(|_| uniform(s1)).collect();
        let w2 = (0..hidden).map(|_| uniform(0.1)).collect();
        Ok(CorrectionNet {
            planes,
            hidden,
            w1,
            b1: vec![0.0; hidden],
            w2,
            b2: 0.0,
            patterns,
            canonical: true,
        })
    }

    /// The correction in discs for the side to move of `(player, opponent)`, whose pattern
    /// value is `base` discs: the fast path (sparse rows summed, no allocation).
    #[must_use]
    #[inline(always)]
    pub fn correction(&self, player: u64, opponent: u64, base: f32) -> f32 {
        let (player, opponent) = if self.canonical {
            canonical_image(player, opponent)
        } else {
            (player, opponent)
        };
        let h = self.hidden;
        let mut active = [0u16; MAX_ACTIVE];
        let len = active_inputs(player, opponent, self.planes, &mut active);
        let active = &active[..len];
        let dense = base / DENSE_SCALE;
        let last = &self.w1[(inputs(self.planes) - 1) * h..][..h];
        // Sixteen units at a time, their sums kept in registers while every active row adds
        // its sixteen weights (each unit's sum in the same order as `backprop`'s).
        let mut hidden = [0f32; MAX_HIDDEN];
        for c in (0..h).step_by(CHUNK) {
            let mut acc = [0f32; CHUNK];
            acc.copy_from_slice(&self.b1[c..c + CHUNK]);
            for &i in active {
                let row = &self.w1[usize::from(i) * h + c..][..CHUNK];
                for k in 0..CHUNK {
                    acc[k] += row[k];
                }
            }
            for k in 0..CHUNK {
                hidden[c + k] = (acc[k] + last[c + k] * dense).max(0.0);
            }
        }
        let mut out = self.b2;
        for (a, v) in hidden[..h].iter().zip(&self.w2) {
            out += a * v;
        }
        out
    }

    /// The same network computed the slow way, as a dense matrix over every input (zeros
    /// included): the twin the tests hold [`correction`](Self::correction) to.
    #[must_use]
    pub fn correction_dense(&self, player: u64, opponent: u64, base: f32) -> f32 {
        let (player, opponent) = if self.canonical {
            slow_canonical_image(player, opponent)
        } else {
            (player, opponent)
        };
        let n = inputs(self.planes);
        let mut x = vec![0f32; n];
        let mine = legal_moves(player, opponent);
        let theirs = legal_moves(opponent, player);
        let empty = |sq: i32| (0..64).contains(&sq) && (player | opponent) >> sq & 1 == 0;
        // A disc square by square: on the frontier when one of its up to 8 neighbours is empty.
        let on_frontier = |sq: i32| {
            let (r, c) = (sq / 8, sq % 8);
            (-1..=1).any(|dr| {
                (-1..=1).any(|dc| {
                    (dr, dc) != (0, 0)
                        && (0..8).contains(&(r + dr))
                        && (0..8).contains(&(c + dc))
                        && empty((r + dr) * 8 + c + dc)
                })
            })
        };
        for sq in 0..64i32 {
            let bit = |bits: u64| bits >> sq & 1 == 1;
            let planes = [
                bit(player),
                bit(opponent),
                bit(mine),
                bit(theirs),
                bit(player) && on_frontier(sq),
                bit(opponent) && on_frontier(sq),
            ];
            for (k, on) in planes[..self.planes].iter().enumerate() {
                if *on {
                    x[k * 64 + sq as usize] = 1.0;
                }
            }
        }
        let empties = (0..64).filter(|&sq| empty(sq)).count();
        x[self.planes * 64 + empties.min(60)] = 1.0;
        x[n - 1] = base / DENSE_SCALE;
        let mut out = f64::from(self.b2);
        for j in 0..self.hidden {
            let mut s = f64::from(self.b1[j]);
            for (i, xi) in x.iter().enumerate() {
                s += f64::from(*xi) * f64::from(self.w1[i * self.hidden + j]);
            }
            out += s.max(0.0) * f64::from(self.w2[j]);
        }
        out as f32
    }

    /// Refuses to correct pattern weights other than those it was fitted for.
    ///
    /// # Errors
    /// [`CorrectionError::Mismatch`].
    pub fn check_fits(&self, pattern_file: &[u8]) -> Result<(), CorrectionError> {
        let given = pattern_fingerprint(pattern_file);
        if given == self.patterns {
            Ok(())
        } else {
            Err(CorrectionError::Mismatch {
                fitted: self.patterns,
                given,
            })
        }
    }

    fn params(&self) -> impl Iterator<Item = &f32> {
        self.w1
            .iter()
            .chain(&self.b1)
            .chain(&self.w2)
            .chain(std::iter::once(&self.b2))
    }

    pub(crate) fn params_mut(&mut self) -> impl Iterator<Item = &mut f32> {
        self.w1
            .iter_mut()
            .chain(self.b1.iter_mut())
            .chain(self.w2.iter_mut())
            .chain(std::iter::once(&mut self.b2))
    }

    pub(crate) fn param_count(planes: usize, hidden: usize) -> usize {
        inputs(planes) * hidden + 2 * hidden + 1
    }

    /// The file form (little-endian): `stonecor`, version u16 (2 for a canonical network, 1
    /// for one that reads positions as given), hidden u16, inputs u16, planes u16, the pattern fingerprint u64, a checksum u64 (FNV-1a over the
    /// payload, then header bytes 0-23), then the payload: `w1`, `b1`, `w2`, `b2` as `f32`.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(4 * Self::param_count(self.planes, self.hidden));
        for x in self.params() {
            payload.extend_from_slice(&x.to_le_bytes());
        }
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        let version = if self.canonical {
            VERSION
        } else {
            VERSION_AS_PLAYED
        };
        header[8..10].copy_from_slice(&version.to_le_bytes());
        header[10..12].copy_from_slice(&(self.hidden as u16).to_le_bytes());
        header[12..14].copy_from_slice(&(inputs(self.planes) as u16).to_le_bytes());
        header[14..16].copy_from_slice(&(self.planes as u16).to_le_bytes());
        header[16..24].copy_from_slice(&self.patterns.to_le_bytes());
        let sum = fnv1a(fnv1a(FNV_START, &payload), &header[..24]);
        header[24..32].copy_from_slice(&sum.to_le_bytes());
        let mut out = header.to_vec();
        out.extend_from_slice(&payload);
        out
    }

    /// Reads the file form, checking everything.
    ///
    /// # Errors
    /// What is wrong with the bytes, named.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CorrectionError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(CorrectionError::Magic);
        }
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or(CorrectionError::Truncated("the header needs 32 bytes"))?;
        let u16_at = |i: usize| u16::from_le_bytes([header[i], header[i + 1]]);
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&header[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let version = u16_at(8);
        if version != VERSION && version != VERSION_AS_PLAYED {
            return Err(CorrectionError::Version(version));
        }
        let hidden = u16_at(10);
        if hidden == 0
            || usize::from(hidden) > MAX_HIDDEN
            || !usize::from(hidden).is_multiple_of(CHUNK)
        {
            return Err(CorrectionError::Hidden(hidden));
        }
        let planes = u16_at(14);
        if usize::from(planes) != PLANES && usize::from(planes) != FRONTIER_PLANES {
            return Err(CorrectionError::Planes(planes));
        }
        let planes = usize::from(planes);
        let count = u16_at(12);
        if usize::from(count) != inputs(planes) {
            return Err(CorrectionError::Inputs(count, inputs(planes)));
        }
        let hidden = usize::from(hidden);
        let payload = &bytes[HEADER_LEN..];
        let expected = 4 * Self::param_count(planes, hidden);
        if payload.len() != expected {
            return Err(CorrectionError::Length {
                expected,
                found: payload.len(),
            });
        }
        let stored = u64_at(24);
        let computed = fnv1a(fnv1a(FNV_START, payload), &header[..24]);
        if stored != computed {
            return Err(CorrectionError::Checksum { stored, computed });
        }
        let mut values = payload
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut net = CorrectionNet {
            planes,
            hidden,
            w1: vec![0.0; inputs(planes) * hidden],
            b1: vec![0.0; hidden],
            w2: vec![0.0; hidden],
            b2: 0.0,
            patterns: u64_at(16),
            canonical: version == VERSION,
        };
        for (k, (p, v)) in net.params_mut().zip(&mut values).enumerate() {
            if !v.is_finite() {
                return Err(CorrectionError::NotFinite(k));
            }
            *p = v;
        }
        Ok(net)
    }
}

/// The bundled network (`models/othello8-correction.bin`, fitted for the bundled pattern
/// weights by `stonelab train patterns --correction`; its card is `othello8-correction.json`).
pub static BUNDLED_BYTES: &[u8] = include_bytes!("../../../models/othello8-correction.bin");

/// The bundled network, read once.
///
/// # Panics
/// Never in a released build: the bundled file is checked by a test.
pub fn bundled() -> std::sync::Arc<CorrectionNet> {
    static NET: std::sync::LazyLock<std::sync::Arc<CorrectionNet>> =
        std::sync::LazyLock::new(|| {
            std::sync::Arc::new(
                CorrectionNet::from_bytes(BUNDLED_BYTES)
                    .expect("the bundled correction network is valid (tested)"),
            )
        });
    NET.clone()
}

/// The largest correction file read from disk (512 hidden units, with room to spare).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A correction file from disk (at most [`MAX_FILE_BYTES`]), checked.
///
/// # Errors
/// [`CorrectionError::Io`] when it cannot be read or is too large, or what
/// [`CorrectionNet::from_bytes`] refuses.
pub fn load(path: &std::path::Path) -> Result<std::sync::Arc<CorrectionNet>, CorrectionError> {
    use std::io::Read;
    let shown = path.display().to_string();
    let io = |why: String| CorrectionError::Io {
        path: shown.clone(),
        why,
    };
    if !std::fs::metadata(path)
        .map_err(|e| io(e.to_string()))?
        .is_file()
    {
        return Err(io("not a regular file".into()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(|e| io(e.to_string()))?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io(e.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(io(format!(
            "larger than {MAX_FILE_BYTES} bytes: not a correction network"
        )));
    }
    CorrectionNet::from_bytes(&bytes).map(std::sync::Arc::new)
}
