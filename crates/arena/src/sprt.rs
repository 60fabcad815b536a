//! The sequential probability ratio test: play until the results tell "A is at least `elo1`
//! stronger than B" (H1) from "A is at most `elo0` stronger" (H0), with error rates `alpha`
//! (accepting H1 when H0 holds) and `beta` (accepting H0 when H1 holds).
//!
//! This is the generalised SPRT on the trinomial model of game results: each game scores `x` in
//! {0, ½, 1} for A, with unknown probabilities `p`. Under hypothesis `k` the mean score must be
//! `s_k = E(elo_k)` (the Elo expectation); the likelihood of the results is maximised under
//! each constraint, and the log-likelihood ratio is `N Σ p̂(x) ln(p1(x) / p0(x))`, where `p̂`
//! is the observed frequency and `p_k(x) = p̂(x) / (1 + λ_k (x - s_k))` with `λ_k` the root of
//! `Σ p̂(x) (x - s_k) / (1 + λ_k (x - s_k)) = 0` (found by bisection). For many games this is
//! the familiar normal approximation `N (s1 - s0) (2 x̄ - s0 - s1) / (2 σ²)`; for few games it
//! does not overstate the evidence of a short run of equal results.
//!
//! The test stops when `LLR <= ln(beta / (1 - alpha))` (accept H0) or
//! `LLR >= ln((1 - beta) / alpha)` (accept H1). A thousandth of a game is added to each of
//! wins, draws and losses so that outcomes not yet seen keep a non-zero frequency.

use serde::{Deserialize, Serialize};

use crate::elo::expected_score;
use crate::{SprtError, Wdl};

/// The test's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// H0: A is `elo0` Elo stronger than B (or weaker, when negative).
    pub elo0: f64,
    /// H1: A is `elo1` Elo stronger than B.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where the test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// The LLR fell to the lower bound: A is not `elo1` stronger.
    AcceptH0,
    /// The LLR rose to the upper bound: A is stronger by more than `elo0`.
    AcceptH1,
    /// Neither bound reached (yet, or before the game limit).
    Continue,
}

impl std::fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "no decision",
        })
    }
}

/// The test's state after some games, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The parameters.
    pub sprt: Sprt,
    /// A's results.
    pub results: Wdl,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The lower bound, `ln(beta / (1 - alpha))`.
    pub lower: f64,
    /// The upper bound, `ln((1 - beta) / alpha)`.
    pub upper: f64,
    /// Where that leaves the test.
    pub decision: SprtDecision,
}

/// Scores of a loss, a draw and a win.
const SCORES: [f64; 3] = [0.0, 0.5, 1.0];
/// Added to each outcome's count so that none has frequency zero.
const PSEUDO_COUNT: f64 = 1e-3;

/// The distribution over loss, draw and win closest (in likelihood) to the frequencies `freq`
/// (all positive) among those with mean score `s` (strictly between 0 and 1).
fn constrained_mle(freq: &[f64; 3], s: f64) -> [f64; 3] {
    // f(λ) = Σ freq (x - s) / (1 + λ (x - s)) falls from +∞ to -∞ on the interval where every
    // 1 + λ (x - s) is positive: (-1 / (1 - s), 1 / s).
    let f = |lambda: f64| -> f64 {
        (0..3)
            .map(|i| freq[i] * (SCORES[i] - s) / (1.0 + lambda * (SCORES[i] - s)))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    [0, 1, 2].map(|i| freq[i] / (1.0 + lambda * (SCORES[i] - s)))
}

impl Sprt {
    /// A test of H0 `elo0` against H1 `elo1` with alpha = beta = 0.05.
    ///
    /// # Errors
    /// [`SprtError::BadElo`] unless `elo0 < elo1`, both within ±2000.
    pub fn new(elo0: f64, elo1: f64) -> Result<Self, SprtError> {
        let ok = |e: f64| e.is_finite() && e.abs() <= 2000.0;
        if !(ok(elo0) && ok(elo1) && elo0 < elo1) {
            return Err(SprtError::BadElo { elo0, elo1 });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        })
    }

    /// The same test with other error rates.
    ///
    /// # Errors
    /// [`SprtError::BadErrorRates`] unless both lie strictly between 0 and 0.5.
    pub fn with_error_rates(self, alpha: f64, beta: f64) -> Result<Self, SprtError> {
        let ok = |p: f64| p > 0.0 && p < 0.5;
        if !(ok(alpha) && ok(beta)) {
            return Err(SprtError::BadErrorRates { alpha, beta });
        }
        Ok(Sprt {
            alpha,
            beta,
            ..self
        })
    }

    /// Reads `elo0,elo1` (for example `0,10` or `-5,5`).
    ///
    /// # Errors
    /// [`SprtError::Syntax`] for other text, and as [`new`](Self::new).
    pub fn parse_bounds(text: &str) -> Result<Self, SprtError> {
        let syntax = || SprtError::Syntax(text.to_string());
        let (a, b) = text.split_once(',').ok_or_else(syntax)?;
        let elo0: f64 = a.trim().parse().map_err(|_| syntax())?;
        let elo1: f64 = b.trim().parse().map_err(|_| syntax())?;
        Sprt::new(elo0, elo1)
    }

    /// The lower and upper LLR bounds.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 given A's results.
    #[must_use]
    pub fn llr(&self, results: &Wdl) -> f64 {
        let n = f64::from(results.games());
        if n == 0.0 {
            return 0.0;
        }
        let counts = [
            f64::from(results.losses) + PSEUDO_COUNT,
            f64::from(results.draws) + PSEUDO_COUNT,
            f64::from(results.wins) + PSEUDO_COUNT,
        ];
        let total: f64 = counts.iter().sum();
        let freq = counts.map(|c| c / total);
        let p0 = constrained_mle(&freq, expected_score(self.elo0));
        let p1 = constrained_mle(&freq, expected_score(self.elo1));
        n * (0..3).map(|i| freq[i] * (p1[i] / p0[i]).ln()).sum::<f64>()
    }

    /// The test's state given A's results.
    #[must_use]
    pub fn status(&self, results: &Wdl) -> SprtStatus {
        let llr = self.llr(results);
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        };
        SprtStatus {
            sprt: *self,
            results: *results,
            llr,
            lower,
            upper,
            decision,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    /// Feeds games with win and draw chances `win`, `draw` until the test decides; the
    /// decision and the games it took.
    fn run(sprt: &Sprt, win: f64, draw: f64, seed: u64) -> (SprtDecision, u32) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut results = Wdl::default();
        for _ in 0..100_000 {
            let u: f64 = rng.random();
            if u < win {
                results.wins += 1;
            } else if u < win + draw {
                results.draws += 1;
            } else {
                results.losses += 1;
            }
            let status = sprt.status(&results);
            if status.decision != SprtDecision::Continue {
                return (status.decision, results.games());
            }
        }
        (SprtDecision::Continue, results.games())
    }

    #[test]
    fn bounds_follow_the_error_rates() {
        let s = Sprt::new(0.0, 10.0).unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((hi - 2.944_438_979).abs() < 1e-6);
        assert_eq!(s.llr(&Wdl::default()), 0.0);
    }

    #[test]
    fn a_clearly_stronger_agent_is_accepted_as_stronger() {
        let sprt = Sprt::new(0.0, 30.0).unwrap();
        for seed in 0..10 {
            // 70% wins, 10% draws: about +190 Elo.
            let (decision, games) = run(&sprt, 0.7, 0.1, seed);
            assert_eq!(decision, SprtDecision::AcceptH1, "seed {seed}");
            assert!(games < 200, "seed {seed}: {games} games");
        }
    }

    #[test]
    fn equal_agents_are_accepted_as_not_stronger() {
        let sprt = Sprt::new(0.0, 30.0).unwrap();
        let mut h0 = 0;
        for seed in 0..20 {
            let (decision, _) = run(&sprt, 0.4, 0.2, seed);
            assert_ne!(decision, SprtDecision::Continue);
            h0 += usize::from(decision == SprtDecision::AcceptH0);
        }
        // At equality H1 is accepted with probability about alpha = 5%.
        assert!(h0 >= 17, "{h0} of 20");
    }

    #[test]
    fn the_llr_moves_with_the_evidence() {
        let sprt = Sprt::new(-5.0, 5.0).unwrap();
        let good = Wdl {
            wins: 60,
            draws: 10,
            losses: 30,
        };
        let bad = Wdl {
            wins: 30,
            draws: 10,
            losses: 60,
        };
        let even = Wdl {
            wins: 45,
            draws: 10,
            losses: 45,
        };
        assert!(sprt.llr(&good) > 0.0 && sprt.llr(&bad) < 0.0);
        // Symmetric hypotheses around 0: an even score is no evidence either way.
        assert!(sprt.llr(&even).abs() < 1e-9);
        // Twice the games with the same proportions: about twice the evidence.
        let double = Wdl {
            wins: 120,
            draws: 20,
            losses: 60,
        };
        let ratio = sprt.llr(&double) / sprt.llr(&good);
        assert!((ratio - 2.0).abs() < 0.05, "{ratio}");
        // Many games: the normal approximation agrees.
        let many = Wdl {
            wins: 4100,
            draws: 1800,
            losses: 4100 - 150,
        };
        let n = f64::from(many.games());
        let mean = many.points() / n;
        let var = (f64::from(many.wins) * (1.0 - mean).powi(2)
            + f64::from(many.draws) * (0.5 - mean).powi(2)
            + f64::from(many.losses) * mean.powi(2))
            / n;
        let (s0, s1) = (expected_score(-5.0), expected_score(5.0));
        let normal = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        assert!(
            (sprt.llr(&many) - normal).abs() < 0.01 * normal.abs(),
            "{normal}"
        );
        // A short run of wins weighs what the trinomial likelihood says: ln(s1 / s0) each.
        let sprt = Sprt::new(0.0, 100.0).unwrap();
        let five = Wdl {
            wins: 5,
            draws: 0,
            losses: 0,
        };
        let exact = 5.0 * (expected_score(100.0) / 0.5).ln();
        assert!(
            (sprt.llr(&five) - exact).abs() < 0.01,
            "{}",
            sprt.llr(&five)
        );
        assert_eq!(sprt.status(&five).decision, SprtDecision::Continue);
        // One identical result is no proof.
        let one = Wdl {
            wins: 1,
            draws: 0,
            losses: 0,
        };
        assert_eq!(sprt.status(&one).decision, SprtDecision::Continue);
    }

    #[test]
    fn parameters_are_checked() {
        assert!(Sprt::new(10.0, 0.0).is_err());
        assert!(Sprt::new(0.0, f64::NAN).is_err());
        assert!(Sprt::new(0.0, 10.0)
            .unwrap()
            .with_error_rates(0.0, 0.05)
            .is_err());
        let s = Sprt::parse_bounds(" -5 , 5 ").unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (-5.0, 5.0, 0.05, 0.05));
        assert!(matches!(Sprt::parse_bounds("5"), Err(SprtError::Syntax(_))));
        assert!(Sprt::parse_bounds("a,b").is_err());
    }
}
