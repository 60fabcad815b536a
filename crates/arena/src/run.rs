//! Running many games: the round robin and the SPRT match, on worker threads, with results
//! that depend only on the inputs and the seed — never on the number of threads or on which
//! game finishes first.
//!
//! Game `k` between the pair `(a, b)` starts from opening `(k / 2) % openings`, with `a` black
//! when `k` is even and white when it is odd, and its agents are built fresh with seeds derived
//! from the base seed, the two agents' names, `k` and the colour. Results are folded in
//! schedule order, so an SPRT stops at the same game however many threads ran ahead.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use game::Game;
use search::{Agent, SpecError};

use crate::duel::{default_max_plies, guarded, play_game};
use crate::elo::EloOptions;
use crate::report::RunInfo;
use crate::{ArenaError, GameRecord, Opening, Report, Side, Sprt, SprtDecision, Wdl};

/// The most worker threads a run may ask for.
pub const MAX_THREADS: usize = 1024;

/// How to run an arena.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Games per pair of agents (rounded up to even: every opening is played with both
    /// colours). For an SPRT, the most games to play.
    pub games_per_pair: usize,
    /// Worker threads, 1 to [`MAX_THREADS`]. The results do not depend on it.
    pub threads: usize,
    /// The base seed of every agent's seed.
    pub seed: u64,
    /// Moves after which a game is stopped as a draw; `None` for the game's default
    /// ([`default_max_plies`]).
    pub max_plies: Option<usize>,
    /// The longest an agent may think about one move; past it the agent forfeits the game
    /// (its search thread is abandoned). `None`: untimed.
    pub move_time_limit: Option<std::time::Duration>,
    /// How ratings are fitted.
    pub elo: EloOptions,
}

impl Settings {
    /// `games_per_pair` games per pair from `seed`, on every available core.
    #[must_use]
    pub fn new(games_per_pair: usize, seed: u64) -> Self {
        Settings {
            games_per_pair,
            threads: default_threads(),
            seed,
            max_plies: None,
            move_time_limit: None,
            elo: EloOptions::default(),
        }
    }
}

/// The number of cores, or 1 when unknown.
#[must_use]
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Reported after every game, in the order games finish.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Games finished so far.
    pub done: usize,
    /// Games scheduled (the limit, for an SPRT).
    pub total: usize,
    /// The game that just finished.
    pub game: &'a GameRecord,
    /// The SPRT's LLR over the games folded so far (in schedule order), for an SPRT.
    pub llr: Option<f64>,
}

/// A 64-bit mix (SplitMix64).
use game::hash::splitmix64 as mix;

/// A seed derived from `base` and `parts`; a different part gives an unrelated seed.
#[must_use]
pub fn derive_seed(base: u64, parts: &[u64]) -> u64 {
    parts.iter().fold(mix(base), |h, &p| mix(h ^ mix(p)))
}

/// A stable 64-bit hash of text (FNV-1a), so seeds do not depend on the agents' positions in
/// the list.
fn text_key(text: &str) -> u64 {
    game::hash::fnv1a(game::hash::FNV_OFFSET, text.as_bytes())
}

/// Black's and White's seeds of game `k` between the agents the arena names `a` and `b` (`a`
/// listed first; names as [`names`] gives them): how the arena seeds every game, so that a
/// caller playing the same pair (an experiment that lists the arena command replaying it) gets
/// the same games.
#[must_use]
pub fn pair_game_seeds(base: u64, a: &str, b: &str, k: usize) -> [u64; 2] {
    let pair_key = text_key(&format!("{a}\n{b}"));
    [
        derive_seed(base, &[pair_key, k as u64, 0]),
        derive_seed(base, &[pair_key, k as u64, 1]),
    ]
}

/// Names for reports: the specs, trimmed, with `#2`, `#3`... on repeats.
#[must_use]
pub fn names(specs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(specs.len());
    for spec in specs {
        let base = spec.trim().to_string();
        let seen = out
            .iter()
            .filter(|n| *n == &base || n.starts_with(&format!("{base}#")))
            .count();
        out.push(if seen == 0 {
            base
        } else {
            format!("{base}#{}", seen + 1)
        });
    }
    out
}

/// The agents, openings and settings of one run, checked.
struct Plan<'a, G: Game, F: ?Sized> {
    factory: &'a F,
    specs: &'a [String],
    names: Vec<String>,
    openings: &'a [Opening<G>],
    games_per_pair: usize,
    threads: usize,
    seed: u64,
    max_plies: usize,
    move_time_limit: Option<std::time::Duration>,
    elo: EloOptions,
}

impl<'a, G, F> Plan<'a, G, F>
where
    G: Game,
    F: Fn(&str, u64) -> Result<Box<dyn Agent<G>>, SpecError> + Sync + ?Sized,
{
    fn new(
        factory: &'a F,
        specs: &'a [String],
        openings: &'a [Opening<G>],
        settings: &Settings,
    ) -> Result<Self, ArenaError> {
        if settings.games_per_pair == 0 {
            return Err(ArenaError::Settings(
                "games per pair must be at least 1".into(),
            ));
        }
        if !(1..=MAX_THREADS).contains(&settings.threads) {
            return Err(ArenaError::Settings(format!(
                "threads must be between 1 and {MAX_THREADS}"
            )));
        }
        if openings.is_empty() {
            return Err(ArenaError::NoOpenings);
        }
        for spec in specs {
            match guarded(|| factory(spec, 0)) {
                Ok(Ok(_)) => {}
                Ok(Err(source)) => {
                    return Err(ArenaError::Spec {
                        spec: spec.clone(),
                        source,
                    })
                }
                Err(message) => {
                    return Err(ArenaError::Panicked {
                        spec: spec.clone(),
                        message,
                    })
                }
            }
        }
        Ok(Plan {
            factory,
            specs,
            names: names(specs),
            openings,
            games_per_pair: settings.games_per_pair.saturating_add(1) / 2 * 2,
            threads: settings.threads,
            seed: settings.seed,
            max_plies: settings.max_plies.unwrap_or_else(default_max_plies::<G>),
            move_time_limit: settings.move_time_limit,
            elo: settings.elo,
        })
    }

    /// Game `k` of the pair `(a, b)`.
    fn play(&self, index: usize, (a, b): (usize, usize), k: usize) -> GameRecord {
        let opening = (k / 2) % self.openings.len();
        let (black, white) = if k.is_multiple_of(2) { (a, b) } else { (b, a) };
        let [black_seed, white_seed] =
            pair_game_seeds(self.seed, &self.names[a], &self.names[b], k);
        let played = play_game(
            self.factory,
            [&self.specs[black], &self.specs[white]],
            [black_seed, white_seed],
            &self.openings[opening],
            self.max_plies,
            self.move_time_limit,
        );
        GameRecord {
            index,
            black,
            white,
            opening,
            black_seed,
            white_seed,
            moves: played.transcript(),
            ending: played.ending,
        }
    }

    fn info(&self) -> RunInfo {
        let used = self.openings.len().min(self.games_per_pair / 2);
        RunInfo {
            game: G::ID.to_string(),
            seed: self.seed,
            games_per_pair: self.games_per_pair,
            max_plies: self.max_plies,
            openings: self.openings[..used]
                .iter()
                .map(Opening::transcript)
                .collect(),
            names: self.names.clone(),
            specs: self.specs.iter().map(|s| s.trim().to_string()).collect(),
            elo_options: self.elo,
        }
    }
}

/// Runs `work(0..total)` on `threads` threads. `on_arrival` sees each result as it comes;
/// `on_ordered` takes them in index order and returns `false` to stop (results past that
/// point are dropped, and no new work starts).
fn run_parallel<T, W>(
    total: usize,
    threads: usize,
    work: &W,
    on_arrival: &mut dyn FnMut(&T),
    on_ordered: &mut dyn FnMut(T) -> bool,
) where
    T: Send,
    W: Fn(usize) -> T + Sync,
{
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(total) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total || tx.send((i, work(i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut folded = 0;
        let mut stopped = false;
        for (i, item) in rx {
            if stopped {
                continue;
            }
            on_arrival(&item);
            pending.insert(i, item);
            while let Some(item) = pending.remove(&folded) {
                folded += 1;
                if !on_ordered(item) {
                    stopped = true;
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
    });
}

/// A round robin: every pair of `specs` plays [`Settings::games_per_pair`] games, each opening
/// once with each colour, openings taken in order (and reused when there are fewer than
/// half the games). `factory` builds an agent from a spec and a seed; `progress` hears of every
/// finished game.
///
/// # Errors
/// [`ArenaError`] for fewer than two agents, a spec the factory refuses, no openings or bad
/// settings; never for what agents do during games (that is a forfeit).
pub fn round_robin<G, F, P>(
    specs: &[String],
    factory: &F,
    openings: &[Opening<G>],
    settings: &Settings,
    mut progress: P,
) -> Result<Report, ArenaError>
where
    G: Game,
    F: Fn(&str, u64) -> Result<Box<dyn Agent<G>>, SpecError> + Sync + ?Sized,
    P: FnMut(&Progress<'_>),
{
    if specs.len() < 2 {
        return Err(ArenaError::TooFewAgents(specs.len()));
    }
    let plan = Plan::new(factory, specs, openings, settings)?;
    let pairs: Vec<(usize, usize)> = (0..specs.len())
        .flat_map(|a| (a + 1..specs.len()).map(move |b| (a, b)))
        .collect();
    let total = pairs
        .len()
        .checked_mul(plan.games_per_pair)
        .ok_or_else(|| ArenaError::Settings("too many games".into()))?;
    // Interleave the pairs so that the finished share of the work (and the ETA) is even.
    let work = |i: usize| plan.play(i, pairs[i % pairs.len()], i / pairs.len());
    let mut games = Vec::new();
    let mut done = 0;
    run_parallel(
        total,
        plan.threads,
        &work,
        &mut |game: &GameRecord| {
            done += 1;
            progress(&Progress {
                done,
                total,
                game,
                llr: None,
            });
        },
        &mut |game| {
            games.push(game);
            true
        },
    );
    Ok(Report::build(plan.info(), &pairs, games, None))
}

/// An SPRT match between `specs[0]` (A) and `specs[1]` (B): games in the round robin's order
/// for one pair until the test decides or [`Settings::games_per_pair`] games are played.
///
/// # Errors
/// As [`round_robin`], and [`ArenaError::SprtNeedsTwo`] for other than two agents.
pub fn sprt_match<G, F, P>(
    specs: &[String],
    factory: &F,
    openings: &[Opening<G>],
    settings: &Settings,
    sprt: &Sprt,
    mut progress: P,
) -> Result<Report, ArenaError>
where
    G: Game,
    F: Fn(&str, u64) -> Result<Box<dyn Agent<G>>, SpecError> + Sync + ?Sized,
    P: FnMut(&Progress<'_>),
{
    if specs.len() != 2 {
        return Err(ArenaError::SprtNeedsTwo(specs.len()));
    }
    let plan = Plan::new(factory, specs, openings, settings)?;
    let total = plan.games_per_pair;
    let work = |i: usize| plan.play(i, (0, 1), i);
    let mut games = Vec::new();
    let mut results = Wdl::default();
    let mut status = sprt.status(&results);
    let mut done = 0;
    // Both closures need the LLR: the ordered fold writes it, the progress reads it.
    let llr = std::cell::Cell::new(status.llr);
    run_parallel(
        total,
        plan.threads,
        &work,
        &mut |game: &GameRecord| {
            done += 1;
            progress(&Progress {
                done,
                total,
                game,
                llr: Some(llr.get()),
            });
        },
        &mut |game: GameRecord| {
            let side = game.side_of(0).unwrap_or(Side::Black);
            results.add(game.ending.points(side));
            games.push(game);
            status = sprt.status(&results);
            llr.set(status.llr);
            status.decision == SprtDecision::Continue
        },
    );
    Ok(Report::build(plan.info(), &[(0, 1)], games, Some(status)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_mark_repeats() {
        let specs: Vec<String> = ["random", " greedy", "random", "random"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names(&specs), ["random", "greedy", "random#2", "random#3"]);
    }

    #[test]
    fn seeds_differ_by_every_part() {
        let a = derive_seed(1, &[2, 3, 0]);
        assert_eq!(a, derive_seed(1, &[2, 3, 0]));
        assert_ne!(a, derive_seed(1, &[2, 3, 1]));
        assert_ne!(a, derive_seed(1, &[3, 2, 0]));
        assert_ne!(a, derive_seed(2, &[2, 3, 0]));
    }

    #[test]
    fn parallel_runs_fold_in_order_and_stop_where_told() {
        for threads in [1, 2, 5] {
            let mut arrived = 0;
            let mut folded = Vec::new();
            run_parallel(
                50,
                threads,
                &|i: usize| i * 10,
                &mut |_: &usize| arrived += 1,
                &mut |x| {
                    folded.push(x);
                    x < 200
                },
            );
            assert_eq!(folded, (0..=20).map(|i| i * 10).collect::<Vec<_>>());
            assert!(arrived >= 21);
        }
    }
}
