//! Time management over a whole game: an agent with a clock for the game (as in a timed match)
//! gives each move its share of what is left, so it never runs out and spends most where the
//! search gains most.

use std::time::{Duration, Instant};

use othello::{Move, Othello8};
use search::{Agent, AgentError, Budget, Decision};

/// Empties from which the remaining moves count as free (the exact solver settles them quickly).
const CHEAP_EMPTIES: u32 = 12;
/// The part of the time left that is never planned (kept for the unexpected).
const RESERVE_DIVISOR: u32 = 20;
/// The longest share: this fraction of the usable time (one move never takes most of it).
const MAX_SHARE_DIVISOR: u32 = 4;
/// The shortest share (the engine still answers; level-1 speed).
const MIN_SHARE: Duration = Duration::from_millis(1);

/// Shares planned for all the moves from [`CHEAP_EMPTIES`] on together.
const ENDGAME_SHARES: u32 = 2;

/// The time for the next move with `left` on the clock and `empties` empty squares: after
/// keeping 1/20 of `left` back, an equal share over the mover's moves until [`CHEAP_EMPTIES`]
/// plus two shares for the rest, and at most a quarter of the usable time (so the last moves
/// take less and less, and the clock never reaches zero when every move keeps to its share).
#[must_use]
pub fn move_time(left: Duration, empties: u32) -> Duration {
    let usable = left.saturating_sub(left / RESERVE_DIVISOR);
    let moves = empties.saturating_sub(CHEAP_EMPTIES).div_ceil(2) + ENDGAME_SHARES;
    let share = (usable / moves).min(usable / MAX_SHARE_DIVISOR);
    // An answer needs some time, but never more than is left.
    share.max(MIN_SHARE.min(usable))
}

/// An agent playing a game on a clock: `game_time` for all its moves of one game (reset by
/// [`Agent::new_game`]). A budget's own time per move, where it names one, still caps a move.
pub struct GameClock {
    inner: Box<dyn Agent<Othello8>>,
    game_time: Duration,
    spent: Duration,
}

impl GameClock {
    /// `inner` with `game_time` for each game.
    #[must_use]
    pub fn new(inner: Box<dyn Agent<Othello8>>, game_time: Duration) -> GameClock {
        GameClock {
            inner,
            game_time,
            spent: Duration::ZERO,
        }
    }

    /// What is left on the clock in this game.
    #[must_use]
    pub fn left(&self) -> Duration {
        self.game_time.saturating_sub(self.spent)
    }
}

impl Agent<Othello8> for GameClock {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn new_game(&mut self) {
        self.spent = Duration::ZERO;
        self.inner.new_game();
    }

    fn select(&mut self, pos: &Othello8, budget: &Budget) -> Result<Decision<Move>, AgentError> {
        let share = move_time(self.left(), pos.empty().count_ones());
        let time = budget.time.map_or(share, |t| t.min(share));
        let start = Instant::now();
        let decision = self.inner.select(
            pos,
            &Budget {
                time: Some(time),
                ..*budget
            },
        );
        self.spent += start.elapsed();
        decision
    }

    fn observe(&mut self, mv: Move, pos: &Othello8) {
        self.inner.observe(mv, pos);
    }

    fn table_bytes(&self) -> usize {
        self.inner.table_bytes()
    }

    /// The inner agent's analysis, off the game clock (an analysis plays no move).
    fn analyse(
        &mut self,
        pos: &Othello8,
        budget: &Budget,
        lines: usize,
    ) -> Option<Result<Vec<search::analysis::Line<Move>>, AgentError>> {
        self.inner.analyse(pos, budget, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game;
    use std::sync::{Arc, Mutex};

    #[test]
    fn planned_shares_never_use_the_whole_clock() {
        for total_ms in [1_000u64, 10_000, 60_000, 600_000] {
            let total = Duration::from_millis(total_ms);
            let mut left = total;
            let mut empties = 60;
            let mut first = None;
            while empties > 0 {
                let t = move_time(left, empties);
                first.get_or_insert(t);
                assert!(t <= left / 4 + MIN_SHARE, "{t:?} of {left:?}");
                left = left.saturating_sub(t);
                empties -= 2;
            }
            // Time survives a game where every move used all of its share.
            assert!(left >= total / 100, "{total:?}: {left:?} left");
            // The first move gets about an equal share of the 24 midgame moves.
            let first = first.unwrap();
            assert!(first >= total / 30 && first <= total / 20, "{first:?}");
        }
    }

    /// Plays the first legal move after sleeping for the time it was given.
    struct Sleeper(Arc<Mutex<Vec<Duration>>>);

    impl Agent<Othello8> for Sleeper {
        fn name(&self) -> String {
            "sleeper".into()
        }
        fn select(
            &mut self,
            pos: &Othello8,
            budget: &Budget,
        ) -> Result<Decision<Move>, AgentError> {
            let t = budget.time.expect("the clock always gives a time");
            self.0.lock().unwrap().push(t);
            std::thread::sleep(t);
            let mv = *pos.legal_moves().first().ok_or(AgentError::GameOver)?;
            Ok(Decision::just(mv))
        }
    }

    #[test]
    fn a_game_stays_within_its_clock_and_the_next_starts_afresh() {
        let given = Arc::new(Mutex::new(Vec::new()));
        let game_time = Duration::from_millis(1000);
        let mut clock = GameClock::new(Box::new(Sleeper(given.clone())), game_time);
        for _ in 0..2 {
            clock.new_game();
            let start = Instant::now();
            let mut pos = Othello8::new();
            let mut moves = 0;
            while !pos.is_over() {
                // The clock plays black; white answers at once.
                let mv = if pos.side_to_move() == game::Color::Black {
                    moves += 1;
                    clock.select(&pos, &Budget::default()).unwrap().mv
                } else {
                    pos.legal_moves()[0]
                };
                pos = pos.play(mv).unwrap();
            }
            assert!(moves > 20);
            // Sleeps overshoot a little; the plan itself keeps 1/20 back.
            assert!(start.elapsed() < game_time + Duration::from_millis(150));
            assert!(
                clock.left() > Duration::ZERO,
                "{moves} moves, {:?}",
                start.elapsed()
            );
        }
        // A budget's own time caps a move.
        clock.new_game();
        given.lock().unwrap().clear();
        clock
            .select(&Othello8::new(), &Budget::time(Duration::from_millis(3)))
            .unwrap();
        assert_eq!(given.lock().unwrap()[0], Duration::from_millis(3));
    }
}
