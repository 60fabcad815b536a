//! The multi-game driver: many games advanced one move at a time together, so every position
//! that needs a network in a step goes to it in one batch. Self-play, evaluation matches and
//! DQN data collection run on it; its slow twin is the same games played one at a time.

use game::Game;

use crate::{Agent, AgentError, Budget};

/// Who plays one colour of one game.
pub enum Seat<G: Game> {
    /// An agent that decides alone, one position at a time.
    Agent(Box<dyn Agent<G>>),
    /// Batched player number `n` of the [`BatchedPlayers`]: its positions of a step are
    /// decided in one call.
    Batched(usize),
}

/// Players that decide many positions at once (a network), and see every move of every game.
pub trait BatchedPlayers<G: Game> {
    /// Moves for player `player` in each of `requests` (game index, position), in game order;
    /// one legal move per request.
    ///
    /// # Errors
    /// [`AgentError`] when the player cannot decide.
    fn choose(
        &mut self,
        player: usize,
        requests: &[(usize, &G)],
    ) -> Result<Vec<G::Move>, AgentError>;

    /// Game `game` went from `before` to `after` by `mv` (any seat's move, forced passes
    /// included), in game order within a step.
    fn played(&mut self, _game: usize, _before: &G, _mv: G::Move, _after: &G) {}

    /// Game `game` ended at `end` (called right after its last move).
    fn finished(&mut self, _game: usize, _end: &G) {}
}

/// No batched players: every seat is an [`Seat::Agent`].
pub struct NoBatched;

impl<G: Game> BatchedPlayers<G> for NoBatched {
    fn choose(&mut self, player: usize, _: &[(usize, &G)]) -> Result<Vec<G::Move>, AgentError> {
        Err(AgentError::Failed(format!("no batched player {player}")))
    }
}

/// One game to play: its start and its two seats `[black, white]`.
pub struct Table<G: Game> {
    /// The position it starts from.
    pub start: G,
    /// Black's and white's seat.
    pub seats: [Seat<G>; 2],
}

/// How a game went.
#[derive(Clone, Debug, PartialEq)]
pub struct Played<G: Game> {
    /// Every move from the start, forced passes included.
    pub moves: Vec<G::Move>,
    /// The final position (finished, or cut by the ply limit).
    pub end: G,
}

/// Why the driver stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DriverError {
    /// A seat of game `game` failed.
    #[error("game {game}: {error}")]
    Agent {
        /// The game index.
        game: usize,
        /// What the agent said.
        error: AgentError,
    },
    /// A seat of game `game` chose an illegal move (a bug in that player).
    #[error("game {game}: illegal move {mv}")]
    Illegal {
        /// The game index.
        game: usize,
        /// The move, as text.
        mv: String,
    },
    /// A batched player answered a different number of moves than it was asked.
    #[error("batched player {player} gave {got} moves for {asked} positions")]
    Count {
        /// The player.
        player: usize,
        /// Positions asked.
        asked: usize,
        /// Moves given.
        got: usize,
    },
}

/// Settings of a [`play`] run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverConfig {
    /// What agents seated as [`Seat::Agent`] may think per move.
    pub budget: Budget,
    /// Cut a game after this many moves (`None`: play to the end).
    pub max_plies: Option<usize>,
}

struct Slot<G: Game> {
    pos: G,
    seats: [Seat<G>; 2],
    moves: Vec<G::Move>,
    done: bool,
}

/// Plays every table to its end, all at once: in each step every unfinished game gets one move
/// (agents decide in game order, then each batched player decides all its positions in one
/// call, in player order), then the moves are played in game order. Forced passes are played
/// by the driver right after the move before them and reported like any move; agents are told
/// every move through [`Agent::observe`].
///
/// # Errors
/// [`DriverError`] when a seat fails or plays an illegal move.
pub fn play<G: Game>(
    tables: Vec<Table<G>>,
    players: &mut dyn BatchedPlayers<G>,
    config: &DriverConfig,
) -> Result<Vec<Played<G>>, DriverError> {
    let mut slots: Vec<Slot<G>> = tables
        .into_iter()
        .map(|t| Slot {
            pos: t.start,
            seats: t.seats,
            moves: Vec::new(),
            done: false,
        })
        .collect();
    for (k, slot) in slots.iter_mut().enumerate() {
        for seat in &mut slot.seats {
            if let Seat::Agent(agent) = seat {
                agent.new_game();
            }
        }
        settle(k, slot, players, config);
    }
    let mut wanted: Vec<Vec<usize>> = Vec::new();
    loop {
        let mut chosen: Vec<Option<G::Move>> = vec![None; slots.len()];
        wanted.iter_mut().for_each(Vec::clear);
        for (k, slot) in slots.iter_mut().enumerate() {
            if slot.done {
                continue;
            }
            match &mut slot.seats[slot.pos.side_to_move().index()] {
                Seat::Agent(agent) => {
                    let d = agent
                        .select(&slot.pos, &config.budget)
                        .map_err(|error| DriverError::Agent { game: k, error })?;
                    chosen[k] = Some(d.mv);
                }
                Seat::Batched(p) => {
                    if wanted.len() <= *p {
                        wanted.resize_with(*p + 1, Vec::new);
                    }
                    wanted[*p].push(k);
                }
            }
        }
        if slots.iter().all(|s| s.done) {
            break;
        }
        for (player, games) in wanted.iter().enumerate() {
            if games.is_empty() {
                continue;
            }
            let requests: Vec<(usize, &G)> = games.iter().map(|&k| (k, &slots[k].pos)).collect();
            let moves = players
                .choose(player, &requests)
                .map_err(|error| DriverError::Agent {
                    game: games[0],
                    error,
                })?;
            if moves.len() != games.len() {
                return Err(DriverError::Count {
                    player,
                    asked: games.len(),
                    got: moves.len(),
                });
            }
            for (&k, mv) in games.iter().zip(moves) {
                chosen[k] = Some(mv);
            }
        }
        for (k, slot) in slots.iter_mut().enumerate() {
            let Some(mv) = chosen[k] else { continue };
            if !slot.pos.is_legal(mv) {
                return Err(DriverError::Illegal {
                    game: k,
                    mv: mv.to_string(),
                });
            }
            apply(k, slot, mv, players);
            settle(k, slot, players, config);
        }
    }
    Ok(slots
        .into_iter()
        .map(|s| Played {
            moves: s.moves,
            end: s.pos,
        })
        .collect())
}

/// Plays `mv` (known legal) and tells everyone.
fn apply<G: Game>(k: usize, slot: &mut Slot<G>, mv: G::Move, players: &mut dyn BatchedPlayers<G>) {
    let after = slot.pos.play_unchecked(mv);
    players.played(k, &slot.pos, mv, &after);
    for seat in &mut slot.seats {
        if let Seat::Agent(agent) = seat {
            agent.observe(mv, &after);
        }
    }
    slot.moves.push(mv);
    slot.pos = after;
}

/// Plays forced passes, then marks the game done when it is over or cut.
fn settle<G: Game>(
    k: usize,
    slot: &mut Slot<G>,
    players: &mut dyn BatchedPlayers<G>,
    config: &DriverConfig,
) {
    if slot.done {
        return;
    }
    while let Some(pass) = slot.pos.forced_pass() {
        apply(k, slot, pass, players);
    }
    if slot.pos.is_over() {
        slot.done = true;
        players.finished(k, &slot.pos);
    } else if config.max_plies.is_some_and(|m| slot.moves.len() >= m) {
        slot.done = true;
    }
}
