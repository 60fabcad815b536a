//! The network-facing paths against their slow twins: alpha-beta with batched leaves against
//! alpha-beta evaluating one leaf at a time, and the multi-game driver against the same games
//! played one by one with the same seeds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use game::{Color, Game};
use gomoku::{Gomoku15, Gomoku7};
use othello::{Othello4, Othello6, Othello8};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::driver::{self, BatchedPlayers, DriverConfig, NoBatched, Seat, Table};
use search::{
    Agent, AgentError, AlphaBeta, AlphaBetaConfig, Budget, Evaluator, GreedyAgent, PolicyValue,
    RandomAgent, UniformPolicy,
};

/// Stone difference for the side to move plus a position-dependent jitter (so ties are rare and
/// ordering matters), counting how positions reach it.
#[derive(Default)]
struct Counting {
    single: AtomicUsize,
    batches: AtomicUsize,
    batched_positions: AtomicUsize,
    largest: AtomicUsize,
}

impl<G: Game> Evaluator<G> for Counting {
    fn evaluate(&self, pos: &G) -> i32 {
        self.single.fetch_add(1, Ordering::Relaxed);
        let (b, w) = pos.counts();
        let diff = 100 * (i64::from(b) - i64::from(w)) as i32;
        let jitter = (pos.hash_key() % 37) as i32;
        if pos.side_to_move() == Color::Black {
            diff + jitter
        } else {
            -diff + jitter
        }
    }

    fn evaluate_batch(&self, positions: &[G]) -> Vec<i32> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.batched_positions
            .fetch_add(positions.len(), Ordering::Relaxed);
        self.largest.fetch_max(positions.len(), Ordering::Relaxed);
        let before = self.single.load(Ordering::Relaxed);
        let out = positions.iter().map(|p| self.evaluate(p)).collect();
        // Batched positions are not single calls.
        self.single.store(before, Ordering::Relaxed);
        out
    }
}

fn random_position<G: Game>(rng: &mut ChaCha8Rng, plies: usize) -> Option<G> {
    let mut pos = G::start();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    (!pos.is_over()).then_some(pos)
}

fn alphabeta_twins<G: Game>(positions: usize, max_plies: usize, depth: u32, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut checked = 0;
    let eval = Arc::new(Counting::default());
    while checked < positions {
        let plies = rng.random_range(0..=max_plies);
        let Some(pos) = random_position::<G>(&mut rng, plies) else {
            continue;
        };
        let make = |batch: bool| {
            AlphaBeta::<G>::new(
                eval.clone(),
                AlphaBetaConfig {
                    depth: Some(depth),
                    tt_bits: 12,
                    batch_leaves: Some(batch),
                    ..AlphaBetaConfig::default()
                },
            )
        };
        let plain = make(false).select(&pos, &Budget::default()).unwrap();
        let single_before = eval.single.load(Ordering::Relaxed);
        let batched = make(true).select(&pos, &Budget::default()).unwrap();
        assert_eq!(
            (batched.mv, batched.score, batched.nodes, &batched.pv),
            (plain.mv, plain.score, plain.nodes, &plain.pv),
            "{pos}"
        );
        // With batched leaves, no leaf is evaluated alone.
        assert_eq!(eval.single.load(Ordering::Relaxed), single_before, "{pos}");
        checked += 1;
    }
    assert!(eval.largest.load(Ordering::Relaxed) > 1, "no real batches");
}

#[test]
fn alphabeta_with_batched_leaves_equals_one_at_a_time() {
    alphabeta_twins::<Othello4>(30, 8, 4, 1);
    alphabeta_twins::<Othello6>(30, 20, 4, 2);
    alphabeta_twins::<Othello8>(20, 40, 3, 3);
    alphabeta_twins::<Gomoku7>(20, 12, 2, 4);
    alphabeta_twins::<Gomoku15>(6, 10, 2, 5);
}

#[test]
fn evaluators_prefer_single_calls_by_default_and_ordering_is_batched() {
    let eval = Arc::new(Counting::default());
    assert!(!Evaluator::<Othello8>::prefers_batches(eval.as_ref()));
    let mut ab = AlphaBeta::<Othello8>::new(eval.clone(), AlphaBetaConfig::default());
    ab.select(&Othello8::start(), &Budget::depth(4)).unwrap();
    // Children are ordered from one batch per interior node.
    assert!(eval.batches.load(Ordering::Relaxed) > 0);
    assert!(eval.largest.load(Ordering::Relaxed) >= 4);
}

/// A batched player that picks uniformly at random with one generator per game, so its
/// choices do not depend on which other games share a batch.
struct PerGameRandom {
    rngs: Vec<ChaCha8Rng>,
    batch_sizes: Vec<usize>,
    played: usize,
    finished: usize,
}

impl PerGameRandom {
    fn new(games: usize, seed: u64) -> Self {
        PerGameRandom {
            rngs: (0..games)
                .map(|g| ChaCha8Rng::seed_from_u64(seed + g as u64))
                .collect(),
            batch_sizes: Vec::new(),
            played: 0,
            finished: 0,
        }
    }
}

impl<G: Game> BatchedPlayers<G> for PerGameRandom {
    fn choose(
        &mut self,
        _player: usize,
        requests: &[(usize, &G)],
    ) -> Result<Vec<G::Move>, AgentError> {
        self.batch_sizes.push(requests.len());
        // Uses the policy-value interface the way a network player would: one call per batch.
        let positions: Vec<G> = requests.iter().map(|(_, p)| (*p).clone()).collect();
        let out = UniformPolicy.policy_value(&positions);
        Ok(requests
            .iter()
            .zip(out)
            .map(|(&(game, pos), pv)| {
                let moves = pos.legal_moves();
                assert!(moves.iter().all(|&m| pv.priors[G::action_index(m)] > 0.0));
                moves[self.rngs[game].random_range(0..moves.len())]
            })
            .collect())
    }

    fn played(&mut self, _game: usize, before: &G, mv: G::Move, after: &G) {
        assert_eq!(&before.play(mv).unwrap(), after);
        self.played += 1;
    }

    fn finished(&mut self, _game: usize, end: &G) {
        assert!(end.is_over());
        self.finished += 1;
    }
}

/// The slow twin: one game alone, the same seats, the same per-game generator.
fn sequential<G: Game>(
    mut black: Seat<G>,
    mut white: Seat<G>,
    rng: &mut ChaCha8Rng,
) -> Vec<G::Move> {
    let mut pos = G::start();
    let mut moves = Vec::new();
    for seat in [&mut black, &mut white] {
        if let Seat::Agent(a) = seat {
            a.new_game();
        }
    }
    while !pos.is_over() {
        let mv = if let Some(pass) = pos.forced_pass() {
            pass
        } else {
            let seat = if pos.side_to_move() == Color::Black {
                &mut black
            } else {
                &mut white
            };
            match seat {
                Seat::Agent(a) => a.select(&pos, &Budget::default()).unwrap().mv,
                Seat::Batched(_) => {
                    let legal = pos.legal_moves();
                    legal[rng.random_range(0..legal.len())]
                }
            }
        };
        pos = pos.play(mv).unwrap();
        for seat in [&mut black, &mut white] {
            if let Seat::Agent(a) = seat {
                a.observe(mv, &pos);
            }
        }
        moves.push(mv);
    }
    moves
}

fn driver_twins<G: Game>(games: usize, seed: u64) {
    let eval: Arc<dyn Evaluator<G>> = Arc::new(Counting::default());
    let seats = |g: usize| -> [Seat<G>; 2] {
        let agent: Seat<G> = if g.is_multiple_of(3) {
            Seat::Agent(Box::new(GreedyAgent::new(
                eval.clone(),
                seed * 1000 + g as u64,
            )))
        } else {
            Seat::Agent(Box::new(RandomAgent::new(seed * 1000 + g as u64)))
        };
        if g.is_multiple_of(2) {
            [Seat::Batched(0), agent]
        } else {
            [agent, Seat::Batched(0)]
        }
    };
    let tables: Vec<Table<G>> = (0..games)
        .map(|g| Table {
            start: G::start(),
            seats: seats(g),
        })
        .collect();
    let mut players = PerGameRandom::new(games, seed);
    let played = driver::play(tables, &mut players, &DriverConfig::default()).unwrap();
    assert_eq!(played.len(), games);
    assert_eq!(players.finished, games);
    assert_eq!(
        players.played,
        played.iter().map(|p| p.moves.len()).sum::<usize>()
    );
    assert!(players.batch_sizes.iter().any(|&n| n > 1));
    for (g, game) in played.iter().enumerate() {
        let [black, white] = seats(g);
        let mut rng = ChaCha8Rng::seed_from_u64(seed + g as u64);
        assert_eq!(game.moves, sequential(black, white, &mut rng), "game {g}");
        assert!(game.end.is_over());
    }
}

#[test]
fn driver_games_equal_sequential_play() {
    driver_twins::<Othello6>(12, 1);
    driver_twins::<Othello8>(8, 2);
    driver_twins::<Gomoku7>(10, 3);
}

#[test]
fn driver_with_agents_only_and_a_ply_limit() {
    let tables: Vec<Table<Othello4>> = (0..5)
        .map(|g| Table {
            start: Othello4::start(),
            seats: [
                Seat::Agent(Box::new(RandomAgent::new(g))),
                Seat::Agent(Box::new(RandomAgent::new(g + 100))),
            ],
        })
        .collect();
    let config = DriverConfig {
        max_plies: Some(3),
        ..DriverConfig::default()
    };
    let played = driver::play(tables, &mut NoBatched, &config).unwrap();
    assert!(played
        .iter()
        .all(|p| p.moves.len() == 3 && !p.end.is_over()));
    // A batched seat with no batched players is an error, not a panic.
    let tables = vec![Table {
        start: Othello4::start(),
        seats: [Seat::Batched(0), Seat::Agent(Box::new(RandomAgent::new(1)))],
    }];
    assert!(driver::play(tables, &mut NoBatched, &DriverConfig::default()).is_err());
}
