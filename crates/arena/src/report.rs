//! What an arena run produces: every game, per-pair results, standings with Elo, and the SPRT
//! state; all serialisable (JSON through serde, CSV rows through [`Report::game_rows`]).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::elo::{fit, EloOptions, PairScore};
use crate::{Ending, Side, SprtStatus};

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won (forfeits by the opponent included).
    pub wins: u32,
    /// Games drawn (move-limit stops included).
    pub draws: u32,
    /// Games lost (own forfeits included).
    pub losses: u32,
}

impl Wdl {
    /// Games counted.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win 1, a draw ½.
    #[must_use]
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Points per game, `None` before any game.
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / f64::from(self.games()))
    }

    /// Counts one game worth `points` (1, ½ or 0).
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Both counts together.
    #[must_use]
    pub fn merged(&self, other: &Wdl) -> Wdl {
        Wdl {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
        }
    }

    /// The opponent's view: wins and losses swapped.
    #[must_use]
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }
}

impl std::fmt::Display for Wdl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

/// One game of the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Its number in the schedule (0-based); results are in this order.
    pub index: usize,
    /// The agent (index into [`Report::agents`]) playing black.
    pub black: usize,
    /// The agent playing white.
    pub white: usize,
    /// The opening (index into [`Report::openings`]).
    pub opening: usize,
    /// The seed black's agent was built with.
    pub black_seed: u64,
    /// The seed white's agent was built with.
    pub white_seed: u64,
    /// Every move from the start, opening included, separated by spaces.
    pub moves: String,
    /// How it ended.
    pub ending: Ending,
}

impl GameRecord {
    /// The side `agent` played, if it played.
    #[must_use]
    pub fn side_of(&self, agent: usize) -> Option<Side> {
        if agent == self.black {
            Some(Side::Black)
        } else if agent == self.white {
            Some(Side::White)
        } else {
            None
        }
    }
}

/// The games between two agents, from the first one's (`a`'s) point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairStats {
    /// The first agent.
    pub a: usize,
    /// The second agent.
    pub b: usize,
    /// `a`'s results when playing black.
    pub a_as_black: Wdl,
    /// `a`'s results when playing white.
    pub a_as_white: Wdl,
    /// `a`'s mean final margin (Othello: disc difference) over the games played to the end.
    pub mean_margin: Option<f64>,
    /// Games played to the end.
    pub finished: u32,
    /// Games lost by forfeit (either side).
    pub forfeits: u32,
}

impl PairStats {
    /// `a`'s results over both colours.
    #[must_use]
    pub fn total(&self) -> Wdl {
        self.a_as_black.merged(&self.a_as_white)
    }
}

/// One agent's line in the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Its name in reports: the spec, with `#2`, `#3`... added to repeated specs.
    pub name: String,
    /// The spec string it was built from.
    pub spec: String,
    /// Its results over all games.
    pub results: Wdl,
    /// Its Elo rating (see [`Report::elo_options`]), when the fit succeeded.
    pub elo: Option<f64>,
    /// The rating's standard error.
    pub elo_stderr: Option<f64>,
    /// The half-width of the rating's 95% confidence interval.
    pub elo_ci95: Option<f64>,
}

/// Everything an arena run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The game's id.
    pub game: String,
    /// The base seed every agent's seed derives from.
    pub seed: u64,
    /// Games scheduled per pair (the game limit, for an SPRT).
    pub games_per_pair: usize,
    /// The move limit after which a game is a draw.
    pub max_plies: usize,
    /// The openings used, as transcripts.
    pub openings: Vec<String>,
    /// The agents, in the order given, with their standings.
    pub agents: Vec<Standing>,
    /// One entry per pair of agents that played.
    pub pairs: Vec<PairStats>,
    /// Every game, in schedule order.
    pub games: Vec<GameRecord>,
    /// How the ratings were fitted.
    pub elo_options: EloOptions,
    /// The virtual draws per pair the rating fit used: `elo_options.prior_draws`, or the
    /// fallback's when the plain fit had no finite maximum; `None` when the fit failed.
    pub elo_prior_draws: Option<f64>,
    /// Why the ratings could not be fitted, if they could not.
    pub elo_error: Option<String>,
    /// The SPRT, when the run was one.
    pub sprt: Option<SprtStatus>,
}

/// One CSV row: a game, flattened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    /// Its number in the schedule.
    pub index: usize,
    /// Black's agent name.
    pub black: String,
    /// White's agent name.
    pub white: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Black's final margin for games played to the end.
    pub black_margin: Option<i32>,
    /// `finished`, `forfeit` or `move_limit`.
    pub ending: String,
    /// The forfeiting side's failure, empty otherwise.
    pub reason: String,
    /// The opening's moves.
    pub opening: String,
    /// Every move from the start.
    pub moves: String,
}

/// The inputs of [`Report::build`] that describe the run rather than its games.
#[derive(Clone, Debug)]
pub(crate) struct RunInfo {
    pub game: String,
    pub seed: u64,
    pub games_per_pair: usize,
    pub max_plies: usize,
    pub openings: Vec<String>,
    pub names: Vec<String>,
    pub specs: Vec<String>,
    pub elo_options: EloOptions,
}

impl Report {
    /// The results as text: the pair table, the standings, the SPRT and any forfeits.
    pub fn to_text(&self) -> String {
        let report = self;
        let mut out = String::new();
        // A report read back from a file may name an agent it does not list.
        let name = |i: usize| report.agents.get(i).map_or("?", |a| a.name.as_str());
        let width = report
            .agents
            .iter()
            .map(|a| a.name.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let _ = writeln!(
            out,
            "\nPairs (results of the first agent; margin is its mean final margin: discs in Othello, +1 a win and -1 a loss in Gomoku):"
        );
        let _ = writeln!(
            out,
            "{:<width$}  {:<width$}  {:>11}  {:>11}  {:>11}  {:>6}  {:>9}",
            "agent", "opponent", "as black", "as white", "total", "score", "margin"
        );
        for p in &report.pairs {
            let total = p.total();
            let _ = writeln!(
                out,
                "{:<width$}  {:<width$}  {:>11}  {:>11}  {:>11}  {:>5.1}%  {:>9}",
                name(p.a),
                name(p.b),
                p.a_as_black.to_string(),
                p.a_as_white.to_string(),
                total.to_string(),
                100.0 * total.score().unwrap_or(0.0),
                p.mean_margin.map_or("-".into(), |m| signed(m, 2)),
            );
        }
        let prior = match report.elo_prior_draws {
            Some(p) if p > 0.0 => format!(
                "; {p} virtual draw{} per pair{}",
                if p == 1.0 { "" } else { "s" },
                if p > report.elo_options.prior_draws {
                    ", as some agents won every game against the rest"
                } else {
                    ""
                }
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "\nStandings (Elo by maximum likelihood over all games, mean 0, 95% confidence \
             interval{prior}):"
        );
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>7}  {:>7}  {:>6}  {:>6}  {:>14}",
            "rank", "agent", "Elo", "95% CI", "games", "score", "W-D-L"
        );
        for (rank, i) in report.ranking().into_iter().enumerate() {
            let a = &report.agents[i];
            let _ = writeln!(
                out,
                "{:>4}  {:<width$}  {:>7}  {:>7}  {:>6}  {:>5.1}%  {:>14}",
                rank + 1,
                a.name,
                a.elo.map_or("-".into(), |e| signed(e, 1)),
                a.elo_ci95.map_or("-".into(), |c| format!("±{c:.1}")),
                a.results.games(),
                100.0 * a.results.score().unwrap_or(0.0),
                a.results.to_string(),
            );
        }
        if let Some(e) = &report.elo_error {
            let _ = writeln!(out, "(no ratings: {e})");
        }
        if let Some(s) = &report.sprt {
            let _ = writeln!(
                out,
                "\nSPRT: LLR {:.3} (bounds {:.3}, {:.3}) after {} games ({}): {}",
                s.llr,
                s.lower,
                s.upper,
                s.results.games(),
                s.results,
                match s.decision {
                    crate::SprtDecision::AcceptH1 => format!(
                        "H1 accepted: {} is stronger by more than {} Elo",
                        name(0),
                        s.sprt.elo0
                    ),
                    crate::SprtDecision::AcceptH0 => format!(
                        "H0 accepted: {} is not {} Elo stronger",
                        name(0),
                        s.sprt.elo1
                    ),
                    crate::SprtDecision::Continue => "no decision within the game limit".into(),
                }
            );
        }
        let forfeits: Vec<_> = report.forfeits().collect();
        if !forfeits.is_empty() {
            let _ = writeln!(out, "\nForfeits ({}):", forfeits.len());
            for g in forfeits.iter().take(20) {
                if let Ending::Forfeit { loser, reason } = &g.ending {
                    let who = if *loser == Side::Black {
                        g.black
                    } else {
                        g.white
                    };
                    let _ = writeln!(
                        out,
                        "  game {}: {loser} ({}) {reason}; moves: {}",
                        g.index,
                        name(who),
                        if g.moves.is_empty() { "-" } else { &g.moves }
                    );
                }
            }
            if forfeits.len() > 20 {
                let _ = writeln!(out, "  ... and {} more", forfeits.len() - 20);
            }
        }
        let _ = writeln!(out);
        out
    }

    /// Summarises `games` between the agents of `info`, pairs in `pairs` order.
    pub(crate) fn build(
        info: RunInfo,
        pairs: &[(usize, usize)],
        games: Vec<GameRecord>,
        sprt: Option<SprtStatus>,
    ) -> Report {
        let k = info.names.len();
        let mut results = vec![Wdl::default(); k];
        let mut pair_stats: Vec<PairStats> = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let mut stats = PairStats {
                a,
                b,
                a_as_black: Wdl::default(),
                a_as_white: Wdl::default(),
                mean_margin: None,
                finished: 0,
                forfeits: 0,
            };
            let mut margin_sum = 0i64;
            for g in games
                .iter()
                .filter(|g| (g.black == a && g.white == b) || (g.black == b && g.white == a))
            {
                let Some(side) = g.side_of(a) else { continue };
                let points = g.ending.points(side);
                match side {
                    Side::Black => stats.a_as_black.add(points),
                    Side::White => stats.a_as_white.add(points),
                }
                if let Some(m) = g.ending.margin(side) {
                    margin_sum += i64::from(m);
                    stats.finished += 1;
                }
                if matches!(g.ending, Ending::Forfeit { .. }) {
                    stats.forfeits += 1;
                }
            }
            if stats.finished > 0 {
                stats.mean_margin = Some(margin_sum as f64 / f64::from(stats.finished));
            }
            let total = stats.total();
            results[a] = results[a].merged(&total);
            results[b] = results[b].merged(&total.flipped());
            pair_stats.push(stats);
        }
        let scores: Vec<PairScore> = pair_stats
            .iter()
            .filter(|p| p.total().games() > 0)
            .map(|p| PairScore {
                a: p.a,
                b: p.b,
                games: f64::from(p.total().games()),
                points_a: p.total().points(),
            })
            .collect();
        let ratings = fit(k, &scores, &info.elo_options);
        let agents = (0..k)
            .map(|i| {
                let r = ratings.as_ref().ok();
                Standing {
                    name: info.names[i].clone(),
                    spec: info.specs[i].clone(),
                    results: results[i],
                    elo: r.map(|r| r.elo[i]),
                    elo_stderr: r.map(|r| r.stderr[i]),
                    elo_ci95: r.map(|r| r.ci95[i]),
                }
            })
            .collect();
        Report {
            game: info.game,
            seed: info.seed,
            games_per_pair: info.games_per_pair,
            max_plies: info.max_plies,
            openings: info.openings,
            agents,
            pairs: pair_stats,
            games,
            elo_options: info.elo_options,
            elo_prior_draws: ratings.as_ref().ok().map(|r| r.prior_draws),
            elo_error: ratings.err().map(|e| e.to_string()),
            sprt,
        }
    }

    /// Agent indices from the highest rating down (by score where there are no ratings).
    #[must_use]
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.agents.len()).collect();
        let key = |i: usize| {
            let s = &self.agents[i];
            s.elo.unwrap_or_else(|| s.results.score().unwrap_or(0.0))
        };
        order.sort_by(|&x, &y| key(y).total_cmp(&key(x)));
        order
    }

    /// The forfeited games.
    pub fn forfeits(&self) -> impl Iterator<Item = &GameRecord> {
        self.games
            .iter()
            .filter(|g| matches!(g.ending, Ending::Forfeit { .. }))
    }

    /// One flat row per game, for CSV.
    #[must_use]
    pub fn game_rows(&self) -> Vec<GameRow> {
        let name = |i: usize| {
            self.agents
                .get(i)
                .map_or_else(|| i.to_string(), |s| s.name.clone())
        };
        self.games
            .iter()
            .map(|g| {
                let points = g.ending.points(Side::Black);
                let result = if points > 0.75 {
                    "1-0"
                } else if points > 0.25 {
                    "1/2-1/2"
                } else {
                    "0-1"
                };
                let (ending, reason) = match &g.ending {
                    Ending::Finished { .. } => ("finished", String::new()),
                    Ending::Forfeit { loser, reason } => ("forfeit", format!("{loser}: {reason}")),
                    Ending::MoveLimit { .. } => ("move_limit", String::new()),
                };
                GameRow {
                    index: g.index,
                    black: name(g.black),
                    white: name(g.white),
                    result: result.to_string(),
                    black_margin: g.ending.margin(Side::Black),
                    ending: ending.to_string(),
                    reason,
                    opening: self.openings.get(g.opening).cloned().unwrap_or_default(),
                    moves: g.moves.clone(),
                }
            })
            .collect()
    }
}

/// The Wilson 95% score interval of a proportion of `hits` in `n` trials (hits may be half
/// points: a score); `(0, 1)` before any trial.
#[must_use]
pub fn wilson(hits: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96_f64;
    let p = hits / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn signed(x: f64, decimals: usize) -> String {
    format!("{x:+.decimals$}")
}

#[cfg(test)]
mod wilson_tests {
    use super::wilson;

    /// Against published values (Newcombe 1998, Table I: 81/263 → 0.2553–0.3662; and the
    /// textbook 50/100 → 0.4038–0.5962), the limits, and the empty case.
    #[test]
    fn wilson_intervals_match_published_values() {
        let close = |a: f64, b: f64| (a - b).abs() < 5e-4;
        let (lo, hi) = wilson(81.0, 263.0);
        assert!(close(lo, 0.2553) && close(hi, 0.3662), "{lo} {hi}");
        let (lo, hi) = wilson(50.0, 100.0);
        assert!(close(lo, 0.4038) && close(hi, 0.5962), "{lo} {hi}");
        let (lo, hi) = wilson(0.0, 10.0);
        assert!(lo == 0.0 && close(hi, 0.2775), "{hi}");
        let (lo, hi) = wilson(10.0, 10.0);
        assert!(close(lo, 0.7225) && hi == 1.0, "{lo}");
        assert_eq!(wilson(0.0, 0.0), (0.0, 1.0));
    }
}
