//! One game between two agents, from an opening, with every agent failure turned into a
//! forfeit: an error, an illegal move or a panic loses the game for the side that caused it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;

use game::{Color, Game};
use search::{Agent, AgentError, Budget, Decision, SpecError};
use serde::{Deserialize, Serialize};

use crate::opening::join_moves;
use crate::Opening;

/// A side of the board (serialisable twin of [`game::Color`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The side that moves first.
    Black,
    /// The other side.
    White,
}

impl From<Color> for Side {
    fn from(c: Color) -> Self {
        match c {
            Color::Black => Side::Black,
            Color::White => Side::White,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Self {
        match s {
            Side::Black => Color::Black,
            Side::White => Color::White,
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Color::from(*self).fmt(f)
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ending {
    /// Played to the end by the rules.
    Finished {
        /// Black's final margin ([`game::Outcome::score_for`] black; Othello: the disc
        /// difference with empty squares to the winner).
        black_margin: i32,
    },
    /// One side failed to give a legal move (an error, an illegal move or a panic) and lost.
    Forfeit {
        /// The side that failed.
        loser: Side,
        /// What went wrong.
        reason: String,
    },
    /// Stopped after the move limit without an end; scored as a draw.
    MoveLimit {
        /// The moves played (opening included).
        plies: usize,
    },
}

impl Ending {
    /// The points `side` gets: 1 for a win, ½ for a draw, 0 for a loss.
    #[must_use]
    pub fn points(&self, side: Side) -> f64 {
        match self {
            Ending::Finished { black_margin } => {
                let margin = Self::signed(*black_margin, side);
                match margin.signum() {
                    1 => 1.0,
                    0 => 0.5,
                    _ => 0.0,
                }
            }
            Ending::Forfeit { loser, .. } => {
                if *loser == side {
                    0.0
                } else {
                    1.0
                }
            }
            Ending::MoveLimit { .. } => 0.5,
        }
    }

    /// The final margin from `side`'s point of view, for games played to the end.
    #[must_use]
    pub fn margin(&self, side: Side) -> Option<i32> {
        match self {
            Ending::Finished { black_margin } => Some(Self::signed(*black_margin, side)),
            _ => None,
        }
    }

    fn signed(black_margin: i32, side: Side) -> i32 {
        match side {
            Side::Black => black_margin,
            Side::White => -black_margin,
        }
    }
}

/// A played game: every move from the start (the opening's included) and the ending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played<G: Game> {
    /// The moves from the start.
    pub moves: Vec<G::Move>,
    /// How it ended.
    pub ending: Ending,
}

impl<G: Game> Played<G> {
    /// The moves, separated by spaces.
    #[must_use]
    pub fn transcript(&self) -> String {
        join_moves::<G>(&self.moves)
    }
}

/// The default move limit: four times the action space, far beyond any real game of Othello or
/// Gomoku, so that only a broken game reaches it.
#[must_use]
pub fn default_max_plies<G: Game>() -> usize {
    G::NUM_ACTIONS.saturating_mul(4)
}

/// Runs `f`, turning a panic into its message.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string())
    })
}

/// Plays one game: builds both agents with `factory` (black's from `specs[0]` and `seeds[0]`,
/// white's from `specs[1]` and `seeds[1]`), starts them with [`Agent::new_game`], tells them the
/// opening's moves with [`Agent::observe`], then lets them play, telling both of every move.
///
/// Never panics and never loops forever (moves beyond `max_plies` end the game as a draw);
/// whatever an agent does wrong is a [`Ending::Forfeit`] against it. With a
/// `move_time_limit`, each [`Agent::select`] runs on its own thread and an agent that has not
/// answered in time forfeits (its thread is left to finish on its own); without one, an agent
/// that never returns stalls the game.
pub fn play_game<G, F>(
    factory: &F,
    specs: [&str; 2],
    seeds: [u64; 2],
    opening: &Opening<G>,
    max_plies: usize,
    move_time_limit: Option<Duration>,
) -> Played<G>
where
    G: Game,
    F: Fn(&str, u64) -> Result<Box<dyn Agent<G>>, SpecError> + ?Sized,
{
    let mut moves: Vec<G::Move> = Vec::new();
    let forfeit = |moves: Vec<G::Move>, loser: Color, reason: String| Played {
        moves,
        ending: Ending::Forfeit {
            loser: loser.into(),
            reason,
        },
    };
    let mut agents: Vec<Box<dyn Agent<G>>> = Vec::with_capacity(2);
    for side in Color::ALL {
        let i = side.index();
        match guarded(|| factory(specs[i], seeds[i])) {
            Ok(Ok(agent)) => agents.push(agent),
            Ok(Err(e)) => return forfeit(moves, side, format!("could not be built: {e}")),
            Err(p) => return forfeit(moves, side, format!("panicked while being built: {p}")),
        }
    }
    for side in Color::ALL {
        let agent = &mut agents[side.index()];
        if let Err(p) = guarded(|| agent.new_game()) {
            return forfeit(moves, side, format!("panicked in new_game: {p}"));
        }
    }
    for (&mv, next) in opening.moves().iter().zip(&opening.positions()[1..]) {
        moves.push(mv);
        if let Some(loser) = observe_all(&mut agents, mv, next) {
            return forfeit(moves, loser.0, loser.1);
        }
    }
    let mut pos = opening.position().clone();
    loop {
        if let Some(outcome) = pos.outcome() {
            return Played {
                moves,
                ending: Ending::Finished {
                    black_margin: outcome.score_for(Color::Black),
                },
            };
        }
        if moves.len() >= max_plies {
            let plies = moves.len();
            return Played {
                moves,
                ending: Ending::MoveLimit { plies },
            };
        }
        let side = pos.side_to_move();
        let selected = match move_time_limit {
            None => {
                let agent = &mut agents[side.index()];
                guarded(|| agent.select(&pos, &Budget::default()))
            }
            Some(limit) => {
                let agent = std::mem::replace(&mut agents[side.index()], Box::new(Gone));
                match timed_select(agent, pos.clone(), limit) {
                    Some((agent, result)) => {
                        agents[side.index()] = agent;
                        result
                    }
                    None => {
                        let reason = format!("no move within the limit of {limit:?}");
                        return forfeit(moves, side, reason);
                    }
                }
            }
        };
        let decision = match selected {
            Ok(Ok(decision)) => decision,
            Ok(Err(e)) => return forfeit(moves, side, format!("no move: {e}")),
            Err(p) => return forfeit(moves, side, format!("panicked in select: {p}")),
        };
        let next = match pos.play(decision.mv) {
            Ok(next) => next,
            Err(e) => return forfeit(moves, side, e.to_string()),
        };
        moves.push(decision.mv);
        if let Some(loser) = observe_all(&mut agents, decision.mv, &next) {
            return forfeit(moves, loser.0, loser.1);
        }
        pos = next;
    }
}

/// The outcome of one guarded `select`.
type Selected<G> = Result<Result<Decision<<G as Game>::Move>, AgentError>, String>;

/// Runs `select` on a thread of its own; `None` when it has not answered within `limit` (the
/// thread and the agent are then abandoned).
fn timed_select<G: Game>(
    mut agent: Box<dyn Agent<G>>,
    pos: G,
    limit: Duration,
) -> Option<(Box<dyn Agent<G>>, Selected<G>)> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("arena-select".into())
        .spawn(move || {
            let result = guarded(|| agent.select(&pos, &Budget::default()));
            // The receiver may have given up: nothing to do then.
            let _ = tx.send((agent, result));
        });
    if spawned.is_err() {
        return None;
    }
    rx.recv_timeout(limit).ok()
}

/// Stands in for an agent that is thinking on another thread.
struct Gone;

impl<G: Game> Agent<G> for Gone {
    fn name(&self) -> String {
        "gone".into()
    }

    fn select(&mut self, _pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        Err(AgentError::Failed("the agent was lost to a timeout".into()))
    }
}

/// Tells both agents of a move; the side whose agent panicked, with the reason, if any.
fn observe_all<G: Game>(
    agents: &mut [Box<dyn Agent<G>>],
    mv: G::Move,
    next: &G,
) -> Option<(Color, String)> {
    for side in Color::ALL {
        let agent = &mut agents[side.index()];
        if let Err(p) = guarded(|| agent.observe(mv, next)) {
            return Some((side, format!("panicked in observe: {p}")));
        }
    }
    None
}
