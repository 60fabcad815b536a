//! Evaluation matches: one player against fresh opponents, colours alternating, many games at
//! once on the multi-game driver (so a network player sees batches), with results per colour.

use game::{Color, Game};
use search::driver::{self, BatchedPlayers, DriverConfig, DriverError, Seat, Table};
use search::Agent;
use serde::{Deserialize, Serialize};

use crate::{play_game, Ending, Opening, Side, Wdl};

/// One player's results by the colour it played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ColourWdl {
    /// Results when playing black.
    pub as_black: Wdl,
    /// Results when playing white.
    pub as_white: Wdl,
}

impl ColourWdl {
    /// Counts one game played as `side`, worth `points` (1, ½ or 0).
    pub fn add(&mut self, side: Side, points: f64) {
        match side {
            Side::Black => self.as_black.add(points),
            Side::White => self.as_white.add(points),
        }
    }

    /// Both colours together.
    #[must_use]
    pub fn total(&self) -> Wdl {
        self.as_black.merged(&self.as_white)
    }

    /// Games counted.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.total().games()
    }

    /// Wins per game (draws count nothing); 0 before any game.
    #[must_use]
    pub fn win_rate(&self) -> f64 {
        let t = self.total();
        f64::from(t.wins) / f64::from(t.games().max(1))
    }

    /// Points per game (a draw ½); 0 before any game.
    #[must_use]
    pub fn score(&self) -> f64 {
        self.total().score().unwrap_or(0.0)
    }
}

/// How an evaluation match is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersusSettings {
    /// Games in all; the player takes black in the even-numbered ones.
    pub games: usize,
    /// Opponent `g` is built with seed `seed · 1,000,003 + g`.
    pub seed: u64,
    /// Games played at once (the batch a batched player sees per step).
    pub parallel: usize,
    /// Cut a game after this many moves and count it a draw (`None`: play to the end).
    pub max_plies: Option<usize>,
}

impl VersusSettings {
    /// `games` games from `seed`, 50 at a time, played to the end.
    #[must_use]
    pub fn new(games: usize, seed: u64) -> Self {
        VersusSettings {
            games,
            seed,
            parallel: 50,
            max_plies: None,
        }
    }

    /// The seed opponent `game` is built with.
    #[must_use]
    pub fn opponent_seed(&self, game: usize) -> u64 {
        self.seed.wrapping_mul(1_000_003).wrapping_add(game as u64)
    }
}

/// Plays `settings.games` games of one player against fresh opponents from `opponent(seed)`,
/// on the multi-game driver. `player(g)` seats the player in game `g`: a
/// [`Seat::Batched`] player answered by `batched` (all its positions of a step in one call) or
/// an agent of its own. A game cut by the move limit is a draw.
///
/// # Errors
/// [`DriverError`] when either side fails or plays an illegal move.
pub fn versus<G: Game>(
    player: &mut dyn FnMut(usize) -> Seat<G>,
    batched: &mut dyn BatchedPlayers<G>,
    opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    settings: &VersusSettings,
) -> Result<ColourWdl, DriverError> {
    versus_from(player, batched, opponent, settings, &[])
}

/// [`versus`] from given positions: games `2k` and `2k + 1` start from `starts[k]` (in turn,
/// when there are fewer), the player Black in the first and White in the second, so two
/// deterministic players meet in different games; no starts: every game from the start.
///
/// # Errors
/// [`DriverError`] when either side fails or plays an illegal move.
pub fn versus_from<G: Game>(
    player: &mut dyn FnMut(usize) -> Seat<G>,
    batched: &mut dyn BatchedPlayers<G>,
    opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    settings: &VersusSettings,
    starts: &[G],
) -> Result<ColourWdl, DriverError> {
    let mut record = ColourWdl::default();
    let config = DriverConfig {
        max_plies: settings.max_plies,
        ..DriverConfig::default()
    };
    let parallel = settings.parallel.max(1);
    let mut done = 0;
    while done < settings.games {
        let n = parallel.min(settings.games - done);
        let mut tables = Vec::with_capacity(n);
        let mut sides = Vec::with_capacity(n);
        for g in done..done + n {
            let me = if g % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let mine = player(g);
            let theirs = Seat::Agent(opponent(settings.opponent_seed(g)));
            let seats = if me == Color::Black {
                [mine, theirs]
            } else {
                [theirs, mine]
            };
            let start = if starts.is_empty() {
                G::start()
            } else {
                starts[(g / 2) % starts.len()].clone()
            };
            tables.push(Table { start, seats });
            sides.push(me);
        }
        let played = driver::play(tables, batched, &config)?;
        for (me, game) in sides.into_iter().zip(played) {
            let points = match game.end.outcome() {
                Some(o) => match o.winner() {
                    Some(w) if w == me => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                },
                None => 0.5,
            };
            record.add(me.into(), points);
        }
        done += n;
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Othello4;
    use search::driver::NoBatched;
    use search::RandomAgent;

    /// A random mover that plays a forced pass without drawing from its generator, as the
    /// driver does (it plays forced passes itself), so that [`crate::play_game`], which asks
    /// the agent, plays the same games.
    struct Random(RandomAgent);

    impl Agent<Othello4> for Random {
        fn name(&self) -> String {
            "random".into()
        }

        fn select(
            &mut self,
            pos: &Othello4,
            budget: &search::Budget,
        ) -> Result<search::Decision<othello::Move>, search::AgentError> {
            match pos.forced_pass() {
                Some(pass) => Ok(search::Decision::just(pass)),
                None => self.0.select(pos, budget),
            }
        }
    }

    fn random(seed: u64) -> Box<dyn Agent<Othello4>> {
        Box::new(Random(RandomAgent::new(seed)))
    }

    /// The twin: the same games one at a time through [`crate::play_game`].
    #[test]
    fn versus_counts_what_sequential_games_give() {
        let settings = VersusSettings {
            parallel: 7,
            ..VersusSettings::new(30, 9)
        };
        let record = versus::<Othello4>(
            &mut |g| Seat::Agent(random(100 + g as u64)),
            &mut NoBatched,
            &random,
            &settings,
        )
        .expect("random agents do not fail");
        let mut twin = ColourWdl::default();
        let factory = |_: &str, seed: u64| -> Result<Box<dyn Agent<Othello4>>, search::SpecError> {
            Ok(random(seed))
        };
        for g in 0..30 {
            let me = if g % 2 == 0 { Side::Black } else { Side::White };
            let seeds = if me == Side::Black {
                [100 + g as u64, settings.opponent_seed(g)]
            } else {
                [settings.opponent_seed(g), 100 + g as u64]
            };
            let played = crate::play_game(
                &factory,
                ["random", "random"],
                seeds,
                &crate::Opening::start(),
                crate::default_max_plies::<Othello4>(),
                None,
            );
            twin.add(me, played.ending.points(me));
        }
        assert_eq!(record, twin);
        assert_eq!(record.games(), 30);
        assert_eq!(record.as_black.games(), 15);
    }

    /// Remembers the first position it is asked to move in.
    struct First(
        std::sync::Arc<std::sync::Mutex<Option<Othello4>>>,
        RandomAgent,
    );

    impl Agent<Othello4> for First {
        fn name(&self) -> String {
            "first".into()
        }

        fn select(
            &mut self,
            pos: &Othello4,
            budget: &search::Budget,
        ) -> Result<search::Decision<othello::Move>, search::AgentError> {
            if let Ok(mut seen) = self.0.lock() {
                seen.get_or_insert(*pos);
            }
            self.1.select(pos, budget)
        }
    }

    #[test]
    fn games_start_from_the_given_positions_each_twice() {
        // Two positions two plies in (Black to move again), distinct.
        let mut starts = Vec::new();
        for k in 0..2 {
            let mut pos = Othello4::start();
            for _ in 0..2 {
                let moves = pos.legal_moves();
                pos = pos.play(moves[k % moves.len()]).expect("legal");
            }
            starts.push(pos);
        }
        assert_ne!(starts[0], starts[1]);
        for g in 0..4 {
            let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
            let mut settings = VersusSettings::new(g + 1, 3);
            settings.parallel = 1;
            // Only game g's player records (the earlier games use a plain random player).
            let record = seen.clone();
            versus_from(
                &mut |i| {
                    if i == g {
                        Seat::Agent(Box::new(First(record.clone(), RandomAgent::new(i as u64))))
                    } else {
                        Seat::Agent(Box::new(RandomAgent::new(i as u64)))
                    }
                },
                &mut NoBatched,
                &|s| Box::new(RandomAgent::new(s)),
                &settings,
                &starts,
            )
            .expect("games");
            let first = seen.lock().expect("lock").expect("the player moved");
            let start = starts[g / 2];
            let discs = |p: &Othello4| p.counts().0 + p.counts().1;
            if g % 2 == 0 {
                assert_eq!(first, start, "game {g}: the player is Black from the start");
            } else {
                assert_eq!(
                    discs(&first),
                    discs(&start) + 1,
                    "game {g}: one move after it"
                );
            }
        }
    }
}

/// A game of [`versus_openings`] that a player lost by failing (it could not be built, moved
/// illegally, failed to move or panicked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}: {side:?} ({who}) failed: {reason}")]
pub struct Forfeited {
    /// The game's number.
    pub game: usize,
    /// The colour that failed.
    pub side: Side,
    /// `player` or `opponent`.
    pub who: &'static str,
    /// What went wrong.
    pub reason: String,
}

/// `games` games, one after another, of `player`'s agents against `opponent`'s through
/// [`play_game`]: game `2k` from `openings[k]` (in turn, when there are fewer) with the player
/// Black, game `2k + 1` from the same opening with it White, so deterministic players still
/// meet in different games; game `g`'s Black is built with seed `derive_seed(seed, [g, 0])`,
/// its White with `derive_seed(seed, [g, 1])`. Games are played to the end (beyond
/// [`crate::default_max_plies`] a draw).
///
/// # Errors
/// [`Forfeited`] for the first game a player fails (the match stops there); no openings is
/// the game's start.
pub fn versus_openings<G: Game>(
    player: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    games: usize,
    seed: u64,
    openings: &[Opening<G>],
) -> Result<ColourWdl, Forfeited> {
    const ME: &str = "player";
    const THEM: &str = "opponent";
    let start = [Opening::start()];
    let openings = if openings.is_empty() {
        &start[..]
    } else {
        openings
    };
    let factory = |spec: &str, s: u64| -> Result<Box<dyn Agent<G>>, search::SpecError> {
        Ok(if spec == ME { player(s) } else { opponent(s) })
    };
    let mut record = ColourWdl::default();
    for g in 0..games {
        let opening = &openings[(g / 2) % openings.len()];
        let side = if g % 2 == 0 { Side::Black } else { Side::White };
        let specs = if side == Side::Black {
            [ME, THEM]
        } else {
            [THEM, ME]
        };
        let seeds = [
            crate::derive_seed(seed, &[g as u64, 0]),
            crate::derive_seed(seed, &[g as u64, 1]),
        ];
        let played = play_game(
            &factory,
            specs,
            seeds,
            opening,
            crate::default_max_plies::<G>(),
            None,
        );
        if let Ending::Forfeit { loser, reason } = &played.ending {
            return Err(Forfeited {
                game: g,
                side: *loser,
                who: specs[usize::from(*loser == Side::White)],
                reason: reason.clone(),
            });
        }
        record.add(side, played.ending.points(side));
    }
    Ok(record)
}
