//! The correction network's fit: training rows from labelled samples, a seeded Adam fit an
//! epoch at a time whose whole state is saved between epochs (so a resumed fit is the same
//! fit), and the held-out errors per band of empties.

use game::hash::SplitMix;
use rayon::prelude::*;

use super::Sample;
use crate::correction::{
    active_inputs, canonical_image, inputs, CorrectionError, CorrectionNet, DENSE_SCALE,
    MAX_ACTIVE, PLANES,
};

/// One training position: the board, its pattern value and what the network must add.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// The side to move's discs.
    pub player: u64,
    /// The other side's discs.
    pub opponent: u64,
    /// The pattern evaluation in discs.
    pub base: f32,
    /// The label in discs.
    pub label: f32,
    /// Held out.
    pub test: bool,
}

impl Row {
    /// The row of a labelled sample whose pattern value is `base` discs.
    #[must_use]
    pub fn of(sample: &Sample, base: f32) -> Row {
        Row {
            player: sample.player,
            opponent: sample.opponent,
            base,
            label: f32::from(sample.score),
            test: sample.test,
        }
    }

    fn empties(&self) -> u32 {
        (!(self.player | self.opponent)).count_ones()
    }
}

/// Rows that teach a network what `teacher` adds to the pattern value of each position read as
/// given (the orientation the teacher was fitted in): each row's label is `eval`'s value plus
/// the teacher's correction, so [`fit_epoch`] fits a network (of either orientation) to the
/// teacher, and [`held_out_errors`] gives, per band, the teacher's mean correction and the
/// mean distance between the two. Each position is `(player, opponent, held out)`.
#[must_use]
pub fn distillation_rows(
    teacher: &CorrectionNet,
    eval: &crate::pattern::PatternEval,
    positions: &[(u64, u64, bool)],
) -> Vec<Row> {
    let scale = eval.scale() as f32;
    positions
        .par_iter()
        .map(|&(player, opponent, test)| {
            let base = eval.evaluate_position(player, opponent) as f32 / scale;
            Row {
                player,
                opponent,
                base,
                label: base + teacher.correction(player, opponent, base),
                test,
            }
        })
        .collect()
}

/// The settings of a fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitConfig {
    /// Input planes ([`PLANES`] or [`FRONTIER_PLANES`]).
    pub planes: usize,
    /// Hidden units.
    pub hidden: usize,
    /// Passes over the training rows.
    pub epochs: u32,
    /// Adam's step size (the last epoch takes 0.3 of it).
    pub lr: f32,
    /// Rows per step.
    pub batch: usize,
    /// Seeds the first weights and the order of the rows.
    pub seed: u64,
    /// The network reads each position's canonical image (see [`CorrectionNet::canonical`]):
    /// every image of a position gets the same correction. `false`: positions as given.
    pub canonical: bool,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            planes: PLANES,
            hidden: 128,
            epochs: 10,
            lr: 1e-3,
            batch: 1024,
            seed: 1,
            canonical: true,
        }
    }
}

/// A fit in progress, whole: the network, Adam's moments, the steps and epochs done and the
/// shuffling generator. Saved after every epoch, so that a resumed fit is the same fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitState {
    /// The network so far.
    pub net: CorrectionNet,
    m: Vec<f32>,
    v: Vec<f32>,
    steps: u64,
    /// Epochs done.
    pub epochs: u32,
    rng: u64,
}

/// The gradient of a batch is summed over this many fixed slices of it, each computed on its
/// own and added in order, so that the sum (and the fit) does not depend on the threads.
const SLICES: usize = 8;
const STATE_MAGIC: &[u8; 8] = b"stonecfs";

impl FitState {
    /// The state before the first epoch.
    ///
    /// # Errors
    /// A width out of range.
    pub fn new(config: &FitConfig, patterns: u64) -> Result<FitState, CorrectionError> {
        let mut net = CorrectionNet::initial(config.planes, config.hidden, config.seed, patterns)?;
        net.canonical = config.canonical;
        let n = CorrectionNet::param_count(config.planes, config.hidden);
        Ok(FitState {
            net,
            m: vec![0.0; n],
            v: vec![0.0; n],
            steps: 0,
            epochs: 0,
            rng: config.seed ^ 0x7368_7566_666c_6521,
        })
    }

    /// The state's bytes (the network's file, then the rest), for resuming.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let net = self.net.to_bytes();
        let mut out = STATE_MAGIC.to_vec();
        out.extend_from_slice(&(net.len() as u64).to_le_bytes());
        out.extend_from_slice(&net);
        out.extend_from_slice(&self.steps.to_le_bytes());
        out.extend_from_slice(&self.epochs.to_le_bytes());
        out.extend_from_slice(&self.rng.to_le_bytes());
        for x in self.m.iter().chain(&self.v) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// A message naming what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<FitState, String> {
        let bad = || "not a correction fit state (or cut short)".to_string();
        if bytes.get(..8) != Some(STATE_MAGIC.as_slice()) {
            return Err(bad());
        }
        let word = |i: usize| -> Result<u64, String> {
            let b = bytes.get(i..i + 8).ok_or_else(bad)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            Ok(u64::from_le_bytes(a))
        };
        let net_len = usize::try_from(word(8)?).map_err(|_| bad())?;
        let net_end = 16usize.checked_add(net_len).ok_or_else(bad)?;
        let net = CorrectionNet::from_bytes(bytes.get(16..net_end).ok_or_else(bad)?)
            .map_err(|e| e.to_string())?;
        let steps = word(net_end)?;
        let epochs = bytes
            .get(net_end + 8..net_end + 12)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(bad)?;
        let rng = word(net_end + 12)?;
        let n = CorrectionNet::param_count(net.planes, net.hidden);
        let rest = bytes.get(net_end + 20..).ok_or_else(bad)?;
        if rest.len() != 8 * n {
            return Err(bad());
        }
        let floats: Vec<f32> = rest
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(FitState {
            net,
            m: floats[..n].to_vec(),
            v: floats[n..].to_vec(),
            steps,
            epochs,
            rng,
        })
    }
}

/// Forward and backward for one row, adding the gradient of half the squared error to `grad`
/// (laid out as the network's parameters); returns the squared error.
fn backprop(net: &CorrectionNet, r: &Row, grad: &mut [f32], h: &mut [f32], dh: &mut [f32]) -> f32 {
    let hidden = net.hidden;
    let n = inputs(net.planes);
    let (player, opponent) = if net.canonical {
        canonical_image(r.player, r.opponent)
    } else {
        (r.player, r.opponent)
    };
    let mut active = [0u16; MAX_ACTIVE];
    let len = active_inputs(player, opponent, net.planes, &mut active);
    let dense = r.base / DENSE_SCALE;
    h.copy_from_slice(&net.b1);
    for &i in &active[..len] {
        for (a, w) in h
            .iter_mut()
            .zip(&net.w1[usize::from(i) * hidden..][..hidden])
        {
            *a += w;
        }
    }
    let last = &net.w1[(n - 1) * hidden..][..hidden];
    let mut y = net.b2;
    for ((a, w), v) in h.iter_mut().zip(last).zip(&net.w2) {
        *a = (*a + w * dense).max(0.0);
        y += *a * v;
    }
    let d = y - (r.label - r.base);
    let (g1, rest) = grad.split_at_mut(n * hidden);
    let (gb1, rest) = rest.split_at_mut(hidden);
    let (gw2, gb2) = rest.split_at_mut(hidden);
    gb2[0] += d;
    for k in 0..hidden {
        gw2[k] += d * h[k];
        dh[k] = if h[k] > 0.0 { d * net.w2[k] } else { 0.0 };
        gb1[k] += dh[k];
    }
    for &i in &active[..len] {
        for (g, x) in g1[usize::from(i) * hidden..][..hidden].iter_mut().zip(&*dh) {
            *g += x;
        }
    }
    for (g, x) in g1[(n - 1) * hidden..][..hidden].iter_mut().zip(&*dh) {
        *g += x * dense;
    }
    d * d
}

/// One epoch over the training rows (`test` rows are skipped): a seeded shuffle, then Adam
/// steps of `config.batch` rows. Returns the epoch's root mean squared error. The result
/// depends only on the state, the rows and the config, not on the number of threads.
pub fn fit_epoch(state: &mut FitState, rows: &[Row], config: &FitConfig) -> f64 {
    let hidden = state.net.hidden;
    let n = CorrectionNet::param_count(state.net.planes, hidden);
    let mut order: Vec<u32> = (0..rows.len() as u32)
        .filter(|&i| !rows[i as usize].test)
        .collect();
    let mut rng = SplitMix(state.rng);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    state.rng = rng.0;
    let lr = config.lr
        * if state.epochs + 1 == config.epochs {
            0.3
        } else {
            1.0
        };
    let slice = config.batch.div_ceil(SLICES).max(1);
    let mut grads = vec![vec![0f32; n]; SLICES];
    let mut total = 0f64;
    for batch in order.chunks(config.batch.max(1)) {
        let net = &state.net;
        let losses: Vec<f64> = grads
            .par_iter_mut()
            .zip(batch.par_chunks(slice))
            .map(|(g, part)| {
                g.fill(0.0);
                let (mut h, mut dh) = (vec![0f32; hidden], vec![0f32; hidden]);
                part.iter()
                    .map(|&i| f64::from(backprop(net, &rows[i as usize], g, &mut h, &mut dh)))
                    .sum()
            })
            .collect();
        total += losses.iter().sum::<f64>();
        let used = batch.len().div_ceil(slice);
        let (first, others) = grads.split_at_mut(1);
        for g in &others[..used - 1] {
            for (a, b) in first[0].iter_mut().zip(g) {
                *a += b;
            }
        }
        state.steps += 1;
        let t = state.steps.min(i32::MAX as u64) as i32;
        let (c1, c2) = (1.0 - 0.9f32.powi(t), 1.0 - 0.999f32.powi(t));
        let inv = 1.0 / batch.len() as f32;
        let (m, v) = (&mut state.m, &mut state.v);
        for (k, p) in state.net.params_mut().enumerate() {
            let g = first[0][k] * inv;
            m[k] = 0.9 * m[k] + 0.1 * g;
            v[k] = 0.999 * v[k] + 0.001 * g * g;
            *p -= lr * (m[k] / c1) / ((v[k] / c2).sqrt() + 1e-8);
        }
    }
    state.epochs += 1;
    (total / order.len().max(1) as f64).sqrt()
}

/// Held-out mean absolute errors per band of 10 empties (0-9, ..., 60): positions, the pattern
/// evaluation's error, and with the network added.
#[must_use]
pub fn held_out_errors(net: &CorrectionNet, rows: &[Row]) -> Vec<(u32, usize, f64, f64)> {
    let per: Vec<(u32, f32, f32)> = rows
        .par_iter()
        .filter(|r| r.test)
        .map(|r| {
            let y = net.correction(r.player, r.opponent, r.base);
            (
                r.empties() / 10,
                (r.label - r.base).abs(),
                (r.label - r.base - y).abs(),
            )
        })
        .collect();
    let mut bands = vec![(0usize, 0f64, 0f64); 7];
    for (b, a, c) in per {
        let band = &mut bands[b.min(6) as usize];
        band.0 += 1;
        band.1 += f64::from(a);
        band.2 += f64::from(c);
    }
    bands
        .into_iter()
        .enumerate()
        .filter(|(_, b)| b.0 > 0)
        .map(|(i, (count, a, c))| (i as u32 * 10, count, a / count as f64, c / count as f64))
        .collect()
}
