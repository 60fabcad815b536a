//! Rounds of games on the multi-game driver: learners batch their positions through their
//! networks and learn from their moves; greedy evaluation through the arena.

use env::RewardScheme;
use game::{Color, Game};
use rand::RngExt;
use search::{Agent, AgentError};

use crate::encode::{legal_points, mover_cells};
use crate::replay::Transition;

use super::*;

/// Who plays a colour in a game of a round: a fixed agent, or learner `n`
/// ([`Seat::Batched`]`(n)`).
pub use search::driver::Seat;

/// How a finished game went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameEnd {
    /// Final disc or stone counts (black, white).
    pub counts: (u32, u32),
    /// The winner (None for a draw or a cut game).
    pub winner: Option<Color>,
    /// Total reward each colour received.
    pub rewards: [f32; 2],
}

struct Pending {
    state: Vec<i8>,
    black: bool,
    action: usize,
    reward: f32,
}

/// The learners of a round as the driver's batched players: each step, every position a
/// learner must move in goes through its network in one batch; transitions (with the rewards
/// of the moves in between) go to its replay buffer as the games go on.
struct LearnerSeats<'a, 'l, G: Game, R: RngExt> {
    learners: &'a mut [&'l mut DqnLearner<G>],
    /// Which learner sits at each colour of each game.
    seats: Vec<[Option<usize>; 2]>,
    pending: Vec<[Option<Pending>; 2]>,
    rewards: Vec<[f32; 2]>,
    scheme: RewardScheme,
    end_reward: EndReward,
    /// What a transition's next state is.
    transitions: Transitions,
    /// What the learner at each colour learns from.
    learn_from: [LearnFrom; 2],
    /// Copies of transitions for the other learner of a game that learns from every move:
    /// (learner, transition), stored after the step's own transitions.
    shared: Vec<(usize, Transition)>,
    epsilon: f64,
    explore: bool,
    learn: bool,
    rng: &'a mut R,
}

impl<G: Game, R: RngExt> search::driver::BatchedPlayers<G> for LearnerSeats<'_, '_, G, R> {
    fn choose(
        &mut self,
        player: usize,
        requests: &[(usize, &G)],
    ) -> Result<Vec<G::Move>, AgentError> {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let learner = self
            .learners
            .get_mut(player)
            .ok_or_else(|| AgentError::Failed(format!("no learner {player}")))?;
        let (stored, q) = learner.q_positions(requests);
        let mut moves = Vec::with_capacity(requests.len());
        let mut shared = Vec::new();
        for (j, ((k, pos), (cells, black))) in requests.iter().zip(stored).enumerate() {
            let valid = legal_points(*pos);
            let row = q.get(j * points..(j + 1) * points).unwrap_or(&[]);
            let a = learner.choose(
                row,
                (&cells, black),
                &valid,
                self.epsilon,
                self.explore,
                self.rng,
            );
            moves.push(G::action_move(a).ok_or_else(|| AgentError::Failed(format!("action {a}")))?);
            let mover = if black { Color::Black } else { Color::White };
            if self.learn {
                let pending = &mut self.pending[*k][mover.index()];
                // With after-move transitions the last one was stored when its move was played.
                if let Some(p) = pending.take() {
                    let t = Transition {
                        state: p.state,
                        black: p.black,
                        action: p.action as u16,
                        reward: p.reward,
                        next: cells.clone(),
                        next_black: black,
                        next_valid: valid.iter().map(|&v| v as u16).collect(),
                        done: false,
                    };
                    if let Some(other) = sharer(&self.seats[*k], mover, player, self.learn_from) {
                        shared.push((other, t.clone()));
                    }
                    learner.push(t, self.rng);
                }
                *pending = Some(Pending {
                    state: cells,
                    black,
                    action: a,
                    reward: 0.0,
                });
            }
        }
        self.shared.extend(shared);
        for (other, t) in std::mem::take(&mut self.shared) {
            if let Some(learner) = self.learners.get_mut(other) {
                learner.push(t, self.rng);
            }
        }
        Ok(moves)
    }

    fn played(&mut self, game: usize, before: &G, mv: G::Move, after: &G) {
        let mut r = env::move_rewards(before, mv, after, self.scheme);
        if self.end_reward == EndReward::Replace {
            if let Some(outcome) = after.outcome() {
                r = end_rewards(outcome, self.scheme);
            }
        }
        if self.transitions == Transitions::AfterMove {
            for (total, r) in self.rewards[game].iter_mut().zip(r) {
                *total += r;
            }
            self.store_after_move(game, before, r, after);
            return;
        }
        for ((total, pending), r) in self.rewards[game]
            .iter_mut()
            .zip(self.pending[game].iter_mut())
            .zip(r)
        {
            *total += r;
            if let Some(p) = pending.as_mut() {
                p.reward += r;
            }
        }
    }

    fn finished(&mut self, game: usize, _end: &G) {
        if !self.learn {
            return;
        }
        for c in 0..2 {
            let Some(p) = self.pending[game][c].take() else {
                continue;
            };
            let t = Transition {
                state: p.state,
                black: p.black,
                action: p.action as u16,
                reward: p.reward,
                next: Vec::new(),
                next_black: false,
                next_valid: Vec::new(),
                done: true,
            };
            let mover = if c == 0 { Color::Black } else { Color::White };
            let own = self.seats[game][c];
            if let Some(other) =
                own.and_then(|l| sharer(&self.seats[game], mover, l, self.learn_from))
            {
                if let Some(learner) = self.learners.get_mut(other) {
                    learner.push(t.clone(), self.rng);
                }
            }
            if let Some(learner) = own.and_then(|l| self.learners.get_mut(l)) {
                learner.push(t, self.rng);
            }
        }
        // Learners that train by episodes take their steps now, once per game each.
        let mut seated: Vec<usize> = self.seats[game].iter().flatten().copied().collect();
        seated.dedup();
        for l in seated {
            if let Some(learner) = self.learners.get_mut(l) {
                learner.episode_end(self.rng);
            }
        }
    }
}

impl<G: Game, R: RngExt> LearnerSeats<'_, '_, G, R> {
    /// [`Transitions::AfterMove`]: the move just played from `before` (by a learner, when one
    /// chose it) becomes (board before, action, the mover's own reward of the move, the board
    /// `after` with its side to move and legal points, whether the game ended there), stored by
    /// the mover's learner and by the other learner when it learns from every move.
    fn store_after_move(&mut self, game: usize, before: &G, rewards: [f32; 2], after: &G) {
        let mover = before.side_to_move();
        let Some(p) = self.pending[game][mover.index()].take() else {
            // A forced pass, or a fixed agent's move: nothing was chosen by a learner.
            return;
        };
        // (A pending move exists only when the round learns.)
        let done = after.is_over();
        let t = Transition {
            state: p.state,
            black: p.black,
            action: p.action as u16,
            reward: rewards[mover.index()],
            next: if done { Vec::new() } else { mover_cells(after) },
            next_black: after.side_to_move() == Color::Black,
            next_valid: if done {
                Vec::new()
            } else {
                legal_points(after).iter().map(|&v| v as u16).collect()
            },
            done,
        };
        let own = self.seats[game][mover.index()];
        if let Some(other) = own.and_then(|l| sharer(&self.seats[game], mover, l, self.learn_from))
        {
            if let Some(learner) = self.learners.get_mut(other) {
                learner.push(t.clone(), self.rng);
            }
        }
        if let Some(learner) = own.and_then(|l| self.learners.get_mut(l)) {
            learner.push(t, self.rng);
        }
    }
}

/// The other learner of a game that stores a copy of `mover`'s transitions (stored first by
/// `own`): the learner at the other colour, when it is another learner and learns from every
/// move.
fn sharer(
    seats: &[Option<usize>; 2],
    mover: Color,
    own: usize,
    learn_from: [LearnFrom; 2],
) -> Option<usize> {
    let other_colour = mover.opponent().index();
    let other = seats[other_colour]?;
    (other != own && learn_from[other_colour] == LearnFrom::EveryMove).then_some(other)
}

/// The rewards `[black, white]` of the game-ending move when the result replaces the move's
/// own reward: ±100 (±1 unless `scheme` is `Seed`) to the winner and the loser, 0 each for a
/// draw.
#[must_use]
pub fn end_rewards(outcome: game::Outcome, scheme: RewardScheme) -> [f32; 2] {
    let end = if scheme == RewardScheme::Seed {
        100.0
    } else {
        1.0
    };
    let mut r = [0.0; 2];
    if let Some(winner) = outcome.winner() {
        r[winner.index()] = end;
        r[winner.opponent().index()] = -end;
    }
    r
}

/// Plays one game per entry of `seats` at the same time on the multi-game driver; learners act
/// by their behaviour (`explore`) or greedily, and learn from their moves when `learn` is set.
///
/// # Errors
/// [`DqnError`] when a fixed agent fails.
pub fn play_games<G: Game, R: RngExt>(
    learners: &mut [&mut DqnLearner<G>],
    seats: Vec<[Seat<G>; 2]>,
    epsilon: f64,
    explore: bool,
    learn: bool,
    rng: &mut R,
) -> Result<Vec<GameEnd>, DqnError> {
    let scheme = learners
        .first()
        .map_or(RewardScheme::Scaled, |l| l.config.rewards.scheme());
    let end_reward = learners
        .first()
        .map_or(EndReward::Add, |l| l.config.end_reward);
    let transitions = learners
        .first()
        .map_or(Transitions::NextDecision, |l| l.config.transitions);
    let learner_at = |seat: &Seat<G>| match seat {
        Seat::Batched(l) => Some(*l),
        Seat::Agent(_) => None,
    };
    let n = seats.len();
    let seat_learners: Vec<[Option<usize>; 2]> = seats
        .iter()
        .map(|[b, w]| [learner_at(b), learner_at(w)])
        .collect();
    // What the learner at each colour learns from, as the first game with a learner there
    // says. It only matters where two learners share a game (competitive training), and there
    // each sits at its own colour in every game.
    let learn_from_of = |colour: usize| {
        seat_learners
            .iter()
            .find_map(|s| s[colour])
            .and_then(|l| learners.get(l))
            .map_or(LearnFrom::OwnMoves, |l| l.config.learn_from)
    };
    let learn_from = [learn_from_of(0), learn_from_of(1)];
    let mut players = LearnerSeats {
        seats: seat_learners,
        learners,
        learn_from,
        end_reward,
        transitions,
        shared: Vec::new(),
        pending: (0..n).map(|_| [None, None]).collect(),
        rewards: vec![[0.0; 2]; n],
        scheme,
        epsilon,
        explore,
        learn,
        rng,
    };
    let tables = seats
        .into_iter()
        .map(|seats| search::driver::Table {
            start: G::start(),
            seats,
        })
        .collect();
    let played = search::driver::play(
        tables,
        &mut players,
        &search::driver::DriverConfig::default(),
    )
    .map_err(|e| match e {
        search::driver::DriverError::Agent { error, .. } => DqnError::Opponent(error.to_string()),
        other => DqnError::Env(other.to_string()),
    })?;
    Ok(played
        .into_iter()
        .zip(players.rewards)
        .map(|(p, rewards)| GameEnd {
            counts: p.end.counts(),
            winner: p.end.outcome().and_then(|o| o.winner()),
            rewards,
        })
        .collect())
}

/// Learners as batched players that always take their greedy move (evaluation).
struct GreedyLearners<'a, G: Game> {
    learners: Vec<&'a mut DqnLearner<G>>,
}

impl<G: Game> search::driver::BatchedPlayers<G> for GreedyLearners<'_, G> {
    fn choose(
        &mut self,
        player: usize,
        requests: &[(usize, &G)],
    ) -> Result<Vec<G::Move>, AgentError> {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let learner = self
            .learners
            .get_mut(player)
            .ok_or_else(|| AgentError::Failed(format!("no learner {player}")))?;
        let (_, q) = learner.q_positions(requests);
        requests
            .iter()
            .enumerate()
            .map(|(j, (_, pos))| {
                let row = q.get(j * points..(j + 1) * points).unwrap_or(&[]);
                let a = best(row, &legal_points(*pos)).unwrap_or(0);
                G::action_move(a).ok_or_else(|| AgentError::Failed(format!("action {a}")))
            })
            .collect()
    }
}

/// Greedy games of `learner` against fresh opponents from `opponent(seed)`, colours
/// alternating, through the arena's evaluation match ([`arena::versus`]): its positions of
/// each step go through the network in one batch.
///
/// # Errors
/// [`DqnError::Opponent`] when an opponent fails.
pub fn evaluate<G: Game>(
    learner: &mut DqnLearner<G>,
    opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
    settings: &arena::VersusSettings,
) -> Result<arena::ColourWdl, DqnError> {
    let mut players = GreedyLearners {
        learners: vec![learner],
    };
    arena::versus(&mut |_| Seat::Batched(0), &mut players, opponent, settings).map_err(
        |e| match e {
            search::driver::DriverError::Agent { error, .. } => {
                DqnError::Opponent(error.to_string())
            }
            other => DqnError::Env(other.to_string()),
        },
    )
}
