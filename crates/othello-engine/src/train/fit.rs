//! The per-stage ridge least-squares fit of the pattern weights (preconditioned conjugate
//! gradients), its quantisation and its error.

use rayon::prelude::*;

use super::Sample;
use crate::pattern::{columns, Layout, PatternWeights, GLOBALS};

/// Settings of a stage fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitConfig {
    /// Ridge penalty on each pattern weight (in samples: a weight seen `k` times keeps about
    /// `k / (k + λ)` of its least-squares value).
    pub lambda: f64,
    /// Ridge penalty on the global weights.
    pub lambda_globals: f64,
    /// Most conjugate-gradient iterations.
    pub iterations: usize,
    /// Stop when the residual norm falls below this fraction of the start's.
    pub tolerance: f64,
    /// The pattern set to fit (its columns and stage length).
    pub layout: Layout,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            lambda: 4.0,
            lambda_globals: 1.0,
            iterations: 300,
            tolerance: 1e-4,
            layout: Layout::Patterns,
        }
    }
}

/// One stage's design: per sample its pattern columns, global values and target.
struct Design {
    /// `per` columns a sample, flat.
    cols: Vec<u32>,
    per: usize,
    /// Where the globals' weights start.
    base: usize,
    globals: Vec<[f32; GLOBALS]>,
    y: Vec<f32>,
}

impl Design {
    fn new(samples: &[Sample], layout: Layout) -> Design {
        let per = layout.columns();
        // Filled in place: no per-sample rows held beside the design.
        let mut cols = vec![0u32; samples.len() * per];
        let mut globals = vec![[0f32; GLOBALS]; samples.len()];
        cols.par_chunks_mut(per)
            .zip(globals.par_iter_mut())
            .zip(samples.par_iter())
            .for_each(|((row, g), s)| {
                let (c, v) = columns(layout, s.player, s.opponent);
                row.copy_from_slice(&c[..per]);
                *g = v.map(|x| x as f32);
            });
        Design {
            cols,
            per,
            base: layout.globals_offset(),
            globals,
            y: samples.iter().map(|s| f32::from(s.score)).collect(),
        }
    }

    /// Sample `i`'s columns.
    fn row(&self, i: usize) -> &[u32] {
        &self.cols[i * self.per..(i + 1) * self.per]
    }

    fn predict(&self, w: &[f64], i: usize) -> f64 {
        let base = self.base;
        let mut p: f64 = self.row(i).iter().map(|&c| w[c as usize]).sum();
        for k in 0..GLOBALS {
            p += w[base + k] * f64::from(self.globals[i][k]);
        }
        p
    }

    /// `out = Xᵀ v` for a per-sample vector `v`.
    fn scatter(&self, v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        let base = self.base;
        for (i, &vi) in v.iter().enumerate() {
            for &c in self.row(i) {
                out[c as usize] += vi;
            }
            for k in 0..GLOBALS {
                out[base + k] += vi * f64::from(self.globals[i][k]);
            }
        }
    }

    /// `X w` per sample.
    fn gather(&self, w: &[f64]) -> Vec<f64> {
        (0..self.y.len())
            .into_par_iter()
            .map(|i| self.predict(w, i))
            .collect()
    }
}

/// What a stage fit reached.
#[derive(Clone, Debug, PartialEq)]
pub struct StageFit {
    /// The stage's weights in discs (`stage_len` values).
    pub weights: Vec<f64>,
    /// Conjugate-gradient iterations run.
    pub iterations: usize,
}

/// Fits one stage's weights to `samples` (all from that stage, none held out).
#[must_use]
pub fn fit_stage(samples: &[Sample], config: &FitConfig) -> StageFit {
    let n = config.layout.stage_len();
    let base = config.layout.globals_offset();
    let mut w = vec![0.0f64; n];
    if samples.is_empty() {
        return StageFit {
            weights: w,
            iterations: 0,
        };
    }
    let d = Design::new(samples, config.layout);
    let penalty: Vec<f64> = (0..n)
        .map(|j| {
            if j < base {
                config.lambda
            } else {
                config.lambda_globals
            }
        })
        .collect();
    // Jacobi preconditioner: diag(XᵀX) + λ.
    let mut diag = penalty.clone();
    for i in 0..d.y.len() {
        for &c in d.row(i) {
            diag[c as usize] += 1.0;
        }
        for k in 0..GLOBALS {
            diag[base + k] += f64::from(d.globals[i][k]).powi(2);
        }
    }
    let apply = |v: &[f64], out: &mut [f64]| {
        let xv = d.gather(v);
        d.scatter(&xv, out);
        for j in 0..n {
            out[j] += penalty[j] * v[j];
        }
    };
    // r = Xᵀy − A w (w = 0).
    let y: Vec<f64> = d.y.iter().map(|&v| f64::from(v)).collect();
    let mut r = vec![0.0; n];
    d.scatter(&y, &mut r);
    let mut z: Vec<f64> = r.iter().zip(&diag).map(|(a, b)| a / b).collect();
    let mut p = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    let start = r.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut ap = vec![0.0; n];
    let mut iterations = 0;
    while iterations < config.iterations {
        apply(&p, &mut ap);
        let pap: f64 = p.iter().zip(&ap).map(|(a, b)| a * b).sum();
        if pap <= 0.0 {
            break;
        }
        let alpha = rz / pap;
        for j in 0..n {
            w[j] += alpha * p[j];
            r[j] -= alpha * ap[j];
        }
        iterations += 1;
        let norm = r.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm <= config.tolerance * start {
            break;
        }
        for j in 0..n {
            z[j] = r[j] / diag[j];
        }
        let rz_next: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let beta = rz_next / rz;
        rz = rz_next;
        for j in 0..n {
            p[j] = z[j] + beta * p[j];
        }
    }
    StageFit {
        weights: w,
        iterations,
    }
}

/// Writes a stage's weights (discs) into `out` as `i16` units of `1/scale` disc, clamped.
pub fn quantize(weights: &[f64], scale: u16, stage: usize, out: &mut PatternWeights) {
    let n = out.layout.stage_len();
    for (j, &w) in weights.iter().enumerate().take(n) {
        let q = (w * f64::from(scale)).round().clamp(-32767.0, 32767.0);
        out.weights[stage * n + j] = q as i16;
    }
}

/// Mean absolute error (discs) and count of `eval` over `samples`.
#[must_use]
pub fn mean_abs_error(eval: &crate::pattern::PatternEval, samples: &[Sample]) -> (f64, usize) {
    if samples.is_empty() {
        return (0.0, 0);
    }
    let total: f64 = samples
        .par_iter()
        .map(|s| {
            let v =
                f64::from(eval.evaluate_position(s.player, s.opponent)) / f64::from(eval.scale());
            (v - f64::from(s.score)).abs()
        })
        .sum();
    (total / samples.len() as f64, samples.len())
}
