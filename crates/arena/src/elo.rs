//! Elo ratings by maximum likelihood over all games (the Bradley–Terry model on the Elo
//! scale), with confidence intervals from the observed Fisher information.
//!
//! The model: agent `i` scores against agent `j` with expectation
//! `E = 1 / (1 + 10^(-(R_i - R_j) / 400))`; a draw is half a win. The log-likelihood of all
//! results is maximised by Newton's method (with step halving); since only differences are
//! identified, one agent is held at 0 during the fit and the ratings are then shifted to the
//! chosen [`Anchor`]. The covariance of the ratings is the inverse of the negative Hessian at
//! the maximum, carried through the same shift, and a 95% interval is ±1.96 standard errors.
//!
//! When a group of agents wins every game against the rest the likelihood has no maximum (the
//! gap runs to infinity); a small prior — virtual draws added to every pair that played — keeps
//! the ratings finite. By default the plain maximum likelihood is used, and one virtual draw
//! per pair only when it does not exist ([`EloOptions`]); [`Ratings::prior_draws`] says which.

use serde::{Deserialize, Serialize};

use crate::EloError;

/// Elo points per natural-log unit of odds: `400 / ln 10`.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;
/// The two-sided 95% quantile of the standard normal.
const Z95: f64 = 1.959_963_984_540_054;
/// A rating (in nats) beyond this means the fit is running away: about 5200 Elo.
const RUNAWAY: f64 = 30.0;

/// The games between two agents and the points the first scored (a win 1, a draw ½).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairScore {
    /// The first agent's index.
    pub a: usize,
    /// The second agent's index.
    pub b: usize,
    /// Games played between them.
    pub games: f64,
    /// Points the first agent scored.
    pub points_a: f64,
}

/// Which rating is fixed, since only differences are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// The mean rating is 0.
    Mean,
    /// This agent's rating is 0.
    Agent(usize),
}

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloOptions {
    /// Which rating is fixed.
    pub anchor: Anchor,
    /// Virtual draws added to every pair that played (0 for the plain maximum likelihood).
    pub prior_draws: f64,
    /// Virtual draws per pair to use instead when the fit with `prior_draws` has no finite
    /// maximum (ignored unless larger than `prior_draws`; 0 to report the error).
    pub fallback_prior_draws: f64,
}

impl Default for EloOptions {
    /// Mean 0, the plain maximum likelihood, falling back to one virtual draw per pair.
    fn default() -> Self {
        EloOptions {
            anchor: Anchor::Mean,
            prior_draws: 0.0,
            fallback_prior_draws: 1.0,
        }
    }
}

/// Fitted ratings, per agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    /// The rating in Elo points.
    pub elo: Vec<f64>,
    /// Its standard error (0 for the anchor agent).
    pub stderr: Vec<f64>,
    /// The half-width of its 95% confidence interval: `1.96 * stderr`.
    pub ci95: Vec<f64>,
    /// Newton iterations used.
    pub iterations: usize,
    /// The virtual draws per pair the fit used (the fallback's when the first fit failed).
    pub prior_draws: f64,
}

impl Ratings {
    /// The 95% confidence interval of agent `i`'s rating, `None` for an unknown agent.
    #[must_use]
    pub fn interval(&self, i: usize) -> Option<(f64, f64)> {
        let (elo, ci) = (self.elo.get(i)?, self.ci95.get(i)?);
        Some((elo - ci, elo + ci))
    }
}

/// The expected score of a player `elo_diff` points stronger than its opponent.
#[must_use]
pub fn expected_score(elo_diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo_diff / 400.0))
}

/// The Elo difference that gives this expected score (infinite at 0 and 1).
#[must_use]
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// `ln(1 / (1 + e^-x))` without overflow.
fn log_sigmoid(x: f64) -> f64 {
    if x > 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Games and points between every two agents, prior included: `n[i][j]`, `s[i][j]` (points of
/// `i` against `j`).
struct Table {
    k: usize,
    n: Vec<f64>,
    s: Vec<f64>,
}

impl Table {
    fn build(k: usize, results: &[PairScore], prior: f64) -> Result<Self, EloError> {
        let mut t = Table {
            k,
            n: vec![0.0; k * k],
            s: vec![0.0; k * k],
        };
        for r in results {
            let bad = |why: &str| EloError::BadResult {
                a: r.a,
                b: r.b,
                why: why.to_string(),
            };
            if r.a >= k || r.b >= k {
                return Err(bad("no such agent"));
            }
            if r.a == r.b {
                return Err(bad("an agent cannot play itself"));
            }
            if !(r.games.is_finite() && r.points_a.is_finite()) {
                return Err(bad("counts must be finite"));
            }
            if r.games < 0.0 || r.points_a < 0.0 || r.points_a > r.games {
                return Err(bad("need 0 <= points <= games"));
            }
            t.n[r.a * k + r.b] += r.games;
            t.n[r.b * k + r.a] += r.games;
            t.s[r.a * k + r.b] += r.points_a;
            t.s[r.b * k + r.a] += r.games - r.points_a;
        }
        for i in 0..k {
            for j in 0..k {
                if t.n[i * k + j] > 0.0 {
                    t.n[i * k + j] += prior;
                    t.s[i * k + j] += prior / 2.0;
                }
            }
        }
        Ok(t)
    }

    fn n(&self, i: usize, j: usize) -> f64 {
        self.n[i * self.k + j]
    }

    fn s(&self, i: usize, j: usize) -> f64 {
        self.s[i * self.k + j]
    }

    /// The first agent not reachable from agent 0 through games, if any.
    fn disconnected(&self) -> Option<usize> {
        let mut seen = vec![false; self.k];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for (j, seen_j) in seen.iter_mut().enumerate() {
                if !*seen_j && self.n(i, j) > 0.0 {
                    *seen_j = true;
                    stack.push(j);
                }
            }
        }
        seen.iter().position(|&s| !s)
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let mut ll = 0.0;
        for i in 0..self.k {
            for j in 0..self.k {
                // Over ordered pairs: i's points against j, then j's against i.
                if self.n(i, j) > 0.0 {
                    ll += self.s(i, j) * log_sigmoid(theta[i] - theta[j]);
                }
            }
        }
        ll
    }

    /// Gradient and Fisher information (negative Hessian) over agents `1..k`.
    fn derivatives(&self, theta: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let m = self.k - 1;
        let mut g = vec![0.0; m];
        let mut f = vec![0.0; m * m];
        for i in 1..self.k {
            for j in 0..self.k {
                let n = self.n(i, j);
                if n <= 0.0 {
                    continue;
                }
                let d = theta[i] - theta[j];
                let w = n * sigmoid(d) * sigmoid(-d);
                g[i - 1] += self.s(i, j) - n * sigmoid(d);
                f[(i - 1) * m + (i - 1)] += w;
                if j > 0 {
                    f[(i - 1) * m + (j - 1)] -= w;
                }
            }
        }
        (g, f)
    }
}

/// Cholesky factor `L` (row-major, lower) of a symmetric positive definite `m x m` matrix.
fn cholesky(a: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let mut sum = a[i * m + j];
            for p in 0..j {
                sum -= l[i * m + p] * l[j * m + p];
            }
            if i == j {
                if !(sum > 0.0 && sum.is_finite()) {
                    return None;
                }
                l[i * m + i] = sum.sqrt();
            } else {
                l[i * m + j] = sum / l[j * m + j];
            }
        }
    }
    Some(l)
}

/// Solves `L L^T x = b`.
fn cholesky_solve(l: &[f64], m: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; m];
    for i in 0..m {
        let mut sum = b[i];
        for p in 0..i {
            sum -= l[i * m + p] * y[p];
        }
        y[i] = sum / l[i * m + i];
    }
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        let mut sum = y[i];
        for p in i + 1..m {
            sum -= l[p * m + i] * x[p];
        }
        x[i] = sum / l[i * m + i];
    }
    x
}

fn runaway(theta: &[f64]) -> EloError {
    let agent = (0..theta.len())
        .max_by(|&a, &b| theta[a].abs().total_cmp(&theta[b].abs()))
        .unwrap_or(0);
    EloError::Unbounded { agent }
}

/// Fits the ratings of `agents` agents to `results` (several entries for one pair add up).
///
/// # Errors
/// [`EloError`] for bad results, an agent not linked to the others by games, a bad anchor or
/// prior, or ratings without a finite maximum even with the fallback prior.
pub fn fit(
    agents: usize,
    results: &[PairScore],
    options: &EloOptions,
) -> Result<Ratings, EloError> {
    for prior in [options.prior_draws, options.fallback_prior_draws] {
        if !(prior.is_finite() && prior >= 0.0) {
            return Err(EloError::BadPrior(prior));
        }
    }
    if let Anchor::Agent(anchor) = options.anchor {
        if anchor >= agents {
            return Err(EloError::BadAnchor { anchor, agents });
        }
    }
    match fit_with_prior(agents, results, options.anchor, options.prior_draws) {
        Err(EloError::Unbounded { .. }) if options.fallback_prior_draws > options.prior_draws => {
            fit_with_prior(
                agents,
                results,
                options.anchor,
                options.fallback_prior_draws,
            )
        }
        other => other,
    }
}

fn fit_with_prior(
    agents: usize,
    results: &[PairScore],
    anchor: Anchor,
    prior: f64,
) -> Result<Ratings, EloError> {
    let table = Table::build(agents, results, prior)?;
    if agents == 0 {
        return Ok(Ratings {
            elo: Vec::new(),
            stderr: Vec::new(),
            ci95: Vec::new(),
            iterations: 0,
            prior_draws: prior,
        });
    }
    if let Some(agent) = table.disconnected() {
        return Err(EloError::Disconnected { agent });
    }
    let k = agents;
    let m = k - 1;
    let mut theta = vec![0.0; k];
    let mut iterations = 0;
    let mut converged = m == 0;
    while !converged && iterations < 200 {
        iterations += 1;
        let (g, f) = table.derivatives(&theta);
        let l = cholesky(&f, m).ok_or_else(|| runaway(&theta))?;
        let step = cholesky_solve(&l, m, &g);
        let ll0 = table.log_likelihood(&theta);
        let mut t = 1.0;
        let mut next = theta.clone();
        loop {
            for i in 1..k {
                next[i] = theta[i] + t * step[i - 1];
            }
            if table.log_likelihood(&next) >= ll0 - 1e-12 || t < 1e-8 {
                break;
            }
            t /= 2.0;
        }
        let moved = step.iter().map(|d| (t * d).abs()).fold(0.0, f64::max);
        theta = next;
        if theta.iter().any(|x| !x.is_finite() || x.abs() > RUNAWAY) {
            return Err(runaway(&theta));
        }
        converged = moved < 1e-10;
    }
    if !converged {
        return Err(runaway(&theta));
    }
    // Covariance with agent 0 fixed: the inverse information, padded with zeros for agent 0.
    let mut cov = vec![0.0; k * k];
    if m > 0 {
        let (_, f) = table.derivatives(&theta);
        let l = cholesky(&f, m).ok_or_else(|| runaway(&theta))?;
        for c in 0..m {
            let mut e = vec![0.0; m];
            e[c] = 1.0;
            let col = cholesky_solve(&l, m, &e);
            for r in 0..m {
                cov[(r + 1) * k + (c + 1)] = col[r];
            }
        }
    }
    // Shift to the anchor: theta_i - w.theta, whose variance is
    // cov_ii - 2 (cov w)_i + w' cov w.
    let w: Vec<f64> = match anchor {
        Anchor::Mean => vec![1.0 / k as f64; k],
        Anchor::Agent(a) => (0..k).map(|i| if i == a { 1.0 } else { 0.0 }).collect(),
    };
    let shift: f64 = w.iter().zip(&theta).map(|(w, t)| w * t).sum();
    let cov_w: Vec<f64> = (0..k)
        .map(|i| (0..k).map(|j| cov[i * k + j] * w[j]).sum())
        .collect();
    let w_cov_w: f64 = w.iter().zip(&cov_w).map(|(a, b)| a * b).sum();
    let mut elo = Vec::with_capacity(k);
    let mut stderr = Vec::with_capacity(k);
    for i in 0..k {
        elo.push((theta[i] - shift) * ELO_PER_NAT);
        let var = (cov[i * k + i] - 2.0 * cov_w[i] + w_cov_w).max(0.0);
        stderr.push(var.sqrt() * ELO_PER_NAT);
    }
    let ci95 = stderr.iter().map(|s| s * Z95).collect();
    Ok(Ratings {
        elo,
        stderr,
        ci95,
        iterations,
        prior_draws: prior,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    fn pure() -> EloOptions {
        EloOptions {
            anchor: Anchor::Mean,
            prior_draws: 0.0,
            fallback_prior_draws: 0.0,
        }
    }

    /// A round robin of `games` per pair between agents of the given true ratings, with a
    /// share of draws, sampled from a seeded generator.
    fn simulate(truth: &[f64], games: usize, seed: u64) -> Vec<PairScore> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let e = expected_score(truth[a] - truth[b]);
                // Draws take a fifth of the mass, centred so the expectation stays e.
                let draw = 0.2 * (1.0 - (2.0 * e - 1.0).abs());
                let win = e - draw / 2.0;
                let mut points = 0.0;
                for _ in 0..games {
                    let u: f64 = rng.random();
                    if u < win {
                        points += 1.0;
                    } else if u < win + draw {
                        points += 0.5;
                    }
                }
                out.push(PairScore {
                    a,
                    b,
                    games: games as f64,
                    points_a: points,
                });
            }
        }
        out
    }

    #[test]
    fn two_agents_match_the_closed_form() {
        // 75% for a against b: the MLE gap is elo_from_score(0.75) = 190.85 Elo.
        let r = fit(
            2,
            &[PairScore {
                a: 0,
                b: 1,
                games: 400.0,
                points_a: 300.0,
            }],
            &pure(),
        )
        .unwrap();
        let gap = r.elo[0] - r.elo[1];
        assert!((gap - elo_from_score(0.75)).abs() < 1e-6, "{gap}");
        assert!((r.elo[0] + r.elo[1]).abs() < 1e-9);
        // Var of the log-odds gap is 1 / (n p (1-p)); each rating carries half of the gap.
        let se_gap = (1.0 / (400.0 * 0.75 * 0.25f64)).sqrt() * ELO_PER_NAT;
        assert!((r.stderr[0] - se_gap / 2.0).abs() < 1e-6, "{:?}", r.stderr);
        let anchored = fit(
            2,
            &[PairScore {
                a: 0,
                b: 1,
                games: 400.0,
                points_a: 300.0,
            }],
            &EloOptions {
                anchor: Anchor::Agent(1),
                prior_draws: 0.0,
                fallback_prior_draws: 0.0,
            },
        )
        .unwrap();
        assert!(anchored.elo[1].abs() < 1e-9 && anchored.stderr[1] < 1e-9);
        assert!((anchored.elo[0] - gap).abs() < 1e-6);
        assert!((anchored.stderr[0] - se_gap).abs() < 1e-6);
    }

    #[test]
    fn recovers_known_ratings_within_the_interval() {
        let truth = [-300.0, -100.0, 0.0, 50.0, 350.0];
        let mean = truth.iter().sum::<f64>() / truth.len() as f64;
        let mut misses = 0;
        let trials = 20;
        for seed in 0..trials {
            let r = fit(truth.len(), &simulate(&truth, 400, seed), &pure()).unwrap();
            for (i, t) in truth.iter().enumerate() {
                let (lo, hi) = r.interval(i).unwrap();
                if !(lo..=hi).contains(&(t - mean)) {
                    misses += 1;
                }
                // Never far off, whatever the seed.
                assert!((r.elo[i] - (t - mean)).abs() < 4.0 * r.stderr[i] + 1.0);
            }
        }
        // 95% intervals: about 5 misses in 100 expected; allow for chance.
        assert!(misses <= 12, "{misses} of {} outside", trials * 5);
    }

    #[test]
    fn intervals_shrink_with_more_games() {
        let truth = [0.0, 100.0, 200.0];
        let small = fit(3, &simulate(&truth, 50, 1), &EloOptions::default()).unwrap();
        // No sweep here: the plain maximum likelihood.
        assert_eq!(small.prior_draws, 0.0);
        let large = fit(3, &simulate(&truth, 800, 1), &EloOptions::default()).unwrap();
        for i in 0..3 {
            // Sixteen times the games: about a quarter of the width.
            let ratio = large.ci95[i] / small.ci95[i];
            assert!(ratio > 0.15 && ratio < 0.4, "agent {i}: {ratio}");
        }
    }

    #[test]
    fn a_clean_sweep_needs_the_prior() {
        let sweep = [PairScore {
            a: 0,
            b: 1,
            games: 10.0,
            points_a: 10.0,
        }];
        assert!(matches!(
            fit(2, &sweep, &pure()),
            Err(EloError::Unbounded { .. })
        ));
        let r = fit(2, &sweep, &EloOptions::default()).unwrap();
        assert_eq!(r.prior_draws, 1.0);
        // 10.5 of 11 points: a large but finite gap.
        let gap = r.elo[0] - r.elo[1];
        assert!((gap - elo_from_score(10.5 / 11.0)).abs() < 1e-6, "{gap}");
    }

    #[test]
    fn bad_input_is_an_error() {
        let ok = PairScore {
            a: 0,
            b: 1,
            games: 2.0,
            points_a: 1.0,
        };
        assert!(matches!(
            fit(3, &[ok], &pure()),
            Err(EloError::Disconnected { agent: 2 })
        ));
        let bad = [PairScore { a: 0, b: 5, ..ok }];
        assert!(matches!(
            fit(3, &bad, &pure()),
            Err(EloError::BadResult { .. })
        ));
        let bad = [PairScore {
            points_a: 3.0,
            ..ok
        }];
        assert!(fit(2, &bad, &pure()).is_err());
        let opts = EloOptions {
            anchor: Anchor::Agent(2),
            prior_draws: 0.0,
            fallback_prior_draws: 0.0,
        };
        assert!(matches!(
            fit(2, &[ok], &opts),
            Err(EloError::BadAnchor { .. })
        ));
        let opts = EloOptions {
            anchor: Anchor::Mean,
            prior_draws: -1.0,
            fallback_prior_draws: 0.0,
        };
        assert!(matches!(fit(2, &[ok], &opts), Err(EloError::BadPrior(_))));
        assert_eq!(fit(1, &[], &pure()).unwrap().elo, vec![0.0]);
    }
}
