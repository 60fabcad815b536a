//! PUCT and the Gumbel root against exact answers (4x4 Othello's value iteration as a perfect
//! network), batched searches against the same searches one at a time, and the solver, reuse,
//! virtual-loss and memory promises.

use std::sync::Arc;

use game::{Color, Game};
use gomoku::Gomoku9;
use othello::{Othello4, Othello6};
use search::{
    search_together, Agent, Budget, GumbelRoot, PolicyValue, PriorsValue, Puct, PuctAgent,
    PuctConfig, RootNoise, UniformPolicy, ValueIterationConfig, ValueTable,
};

/// The exact values of 4x4 Othello as the network's value, with uniform priors.
struct Oracle(ValueTable<Othello4, u128>);

impl PolicyValue<Othello4> for Oracle {
    fn policy_value(&self, positions: &[Othello4]) -> Vec<PriorsValue> {
        let mut out = UniformPolicy.policy_value(positions);
        for (pv, pos) in out.iter_mut().zip(positions) {
            let black = self.0.value(pos).unwrap_or(0.0) / 100.0;
            let v = if pos.side_to_move() == Color::Black {
                black
            } else {
                -black
            };
            pv.value = v as f32;
        }
        out
    }
}

fn oracle() -> Oracle {
    let (table, _) =
        ValueTable::solve(Othello4::base3_key, &ValueIterationConfig::default()).unwrap();
    Oracle(table)
}

/// A made-up network that depends on the position alone (not on the batch): priors and value
/// from the position's hash.
struct HashNet;

impl<G: Game> PolicyValue<G> for HashNet {
    fn policy_value(&self, positions: &[G]) -> Vec<PriorsValue> {
        positions
            .iter()
            .map(|pos| {
                let h = pos.hash_key();
                let mut priors = vec![0.0f32; G::NUM_ACTIONS];
                let mut sum = 0.0;
                for mv in pos.legal_moves() {
                    let a = G::action_index(mv);
                    let w = ((h ^ (a as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) % 997 + 1) as f32;
                    priors[a] = w;
                    sum += w;
                }
                priors.iter_mut().for_each(|p| *p /= sum.max(1.0));
                let value = ((h >> 7) % 2001) as f32 / 1000.0 - 1.0;
                PriorsValue { priors, value }
            })
            .collect()
    }
}

fn config(sims: u32) -> PuctConfig {
    PuctConfig {
        sims: Some(sims),
        ..PuctConfig::default()
    }
}

fn gumbel(sims: u32, sample: bool) -> PuctConfig {
    PuctConfig {
        gumbel: Some(GumbelRoot {
            considered: 8,
            sample,
            ..GumbelRoot::default()
        }),
        ..config(sims)
    }
}

/// Every reachable, unfinished 4x4 position, and the share of them where `make`'s agent
/// plays a move of best exact value.
fn optimal_share(oracle: &Arc<Oracle>, make: &dyn Fn() -> PuctAgent<Othello4>) -> (usize, usize) {
    let mut good = 0;
    let mut total = 0;
    for pos in oracle.0.positions() {
        if pos.is_over() || pos.forced_pass().is_some() {
            continue;
        }
        let mut agent = make();
        let d = agent.select(pos, &Budget::default()).unwrap();
        total += 1;
        if oracle.0.best_moves(pos).contains(&d.mv) {
            good += 1;
        }
    }
    (good, total)
}

#[test]
fn puct_over_the_exact_values_plays_perfectly_on_4x4() {
    let oracle = Arc::new(oracle());
    for solver in [true, false] {
        let net: Arc<dyn PolicyValue<Othello4>> = oracle.clone();
        let make = || {
            PuctAgent::new(
                "puct",
                net.clone(),
                PuctConfig {
                    solver,
                    ..config(64)
                },
                1,
            )
        };
        let (good, total) = optimal_share(&oracle, &make);
        assert!(total > 1000, "{total} positions");
        assert_eq!(good, total, "solver {solver}: {good} of {total} optimal");
    }
}

#[test]
fn the_gumbel_root_over_the_exact_values_plays_perfectly_on_4x4() {
    let oracle = Arc::new(oracle());
    let net: Arc<dyn PolicyValue<Othello4>> = oracle.clone();
    let make = || PuctAgent::new("gumbel", net.clone(), gumbel(32, false), 1);
    let (good, total) = optimal_share(&oracle, &make);
    assert_eq!(good, total, "{good} of {total} optimal");
}

#[test]
fn the_solver_proves_the_start_of_4x4_a_white_win() {
    // 4x4 Othello is a white win (value iteration's start value is negative for black).
    let oracle = oracle();
    assert!(oracle.0.value(&Othello4::new()).unwrap() < 0.0);
    let give_up = PuctConfig {
        resist: false,
        ..config(200_000)
    };
    let mut agent = PuctAgent::new("solver", Arc::new(UniformPolicy), give_up, 3);
    let r = agent.search(&Othello4::new(), &Budget::default()).unwrap();
    assert_eq!(r.proven, Some(-1), "black to move at the start loses");
    assert!(r.sims < 200_000, "the search stops once the root is proven");
}

#[test]
fn a_lost_root_is_searched_again_as_the_network_alone_would() {
    // Black loses 4x4 from the start: once that is proven, the rest of the budget goes to a
    // proof-free search from a bare root, which must be the plain network search with the
    // simulations left.
    let target = 60_000;
    let net: Arc<dyn PolicyValue<Othello4>> = Arc::new(HashNet);
    let start = Othello4::new();
    let give_up = PuctConfig {
        resist: false,
        ..config(target)
    };
    let proof = PuctAgent::new("a", net.clone(), give_up, 3)
        .search(&start, &Budget::default())
        .unwrap();
    assert_eq!(proof.proven, Some(-1));
    assert!(proof.sims < target, "proved within the budget");
    let resisted = PuctAgent::new("b", net.clone(), config(target), 3)
        .search(&start, &Budget::default())
        .unwrap();
    assert_eq!(resisted.proven, Some(-1), "still reported lost");
    assert_eq!(resisted.value, -1.0);
    assert_eq!(resisted.sims, target, "the whole budget is used");
    let plain = PuctConfig {
        solver: false,
        ..config(target - proof.sims)
    };
    let alone = PuctAgent::new("c", net, plain, 3)
        .search(&start, &Budget::default())
        .unwrap();
    assert_eq!(resisted.best, alone.best);
    assert_eq!(resisted.visits, alone.visits);
}

fn searched<G: Game>(trees: &mut [Puct<G>], starts: &[G]) {
    for (t, p) in trees.iter_mut().zip(starts) {
        t.start(p, &Budget::default());
    }
    let mut refs: Vec<&mut Puct<G>> = trees.iter_mut().collect();
    search_together(&mut refs, &HashNet).unwrap();
}

/// Positions a few random-ish plies into the game, one per seed.
fn starts<G: Game>(n: usize) -> Vec<G> {
    (0..n)
        .map(|k| {
            let mut p = G::start();
            for ply in 0..(k % 7) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p = p.play_unchecked(moves[(k * 31 + ply * 7) % moves.len()]);
            }
            p
        })
        .collect()
}

fn batched_matches_alone<G: Game>(config: &PuctConfig) {
    let starts = starts::<G>(12);
    let mut together: Vec<Puct<G>> = (0..12)
        .map(|k| Puct::new(config.clone(), 100 + k))
        .collect();
    searched(&mut together, &starts);
    for (k, start) in starts.iter().enumerate() {
        let mut alone = vec![Puct::new(config.clone(), 100 + k as u64)];
        searched(&mut alone, std::slice::from_ref(start));
        assert_eq!(
            alone[0].result(),
            together[k].result(),
            "{}: game {k}",
            G::ID
        );
    }
}

#[test]
fn many_trees_in_one_batch_search_as_each_alone() {
    let noisy = PuctConfig {
        noise: Some(RootNoise {
            alpha: 0.5,
            frac: 0.25,
        }),
        ..config(48)
    };
    for c in [config(48), noisy, gumbel(24, true)] {
        batched_matches_alone::<Othello6>(&c);
        batched_matches_alone::<Gomoku9>(&c);
    }
}

#[test]
fn virtual_loss_sends_distinct_leaves_and_the_same_number_of_simulations() {
    let mut tree = Puct::<Othello6>::new(
        PuctConfig {
            leaves: 8,
            ..config(100)
        },
        5,
    );
    tree.start(&Othello6::new(), &Budget::default());
    let mut steps = 0;
    while !tree.done() {
        let mut batch = Vec::new();
        let n = tree.gather(&mut batch);
        assert_eq!(n, batch.len());
        let mut keys: Vec<u64> = batch.iter().map(Game::hash_key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), batch.len(), "a leaf went twice into one batch");
        tree.feed(&HashNet.policy_value(&batch)).unwrap();
        steps += 1;
    }
    let r = tree.result().unwrap();
    assert_eq!(r.sims, 100);
    assert!(steps < 100, "{steps} batches for 100 simulations");
    assert_eq!(tree.root_visits(), 100);
}

#[test]
fn a_feed_of_the_wrong_size_is_refused_and_changes_nothing() {
    let mut tree = Puct::<Othello6>::new(config(10), 1);
    tree.start(&Othello6::new(), &Budget::default());
    let mut batch = Vec::new();
    assert_eq!(tree.gather(&mut batch), 1);
    let err = tree.feed(&[]).unwrap_err();
    assert_eq!((err.asked, err.given), (1, 0));
    assert_eq!(tree.root_visits(), 0);
    tree.feed(&HashNet.policy_value(&batch)).unwrap();
    assert_eq!(tree.root_visits(), 1);
}

#[test]
fn the_tree_is_kept_across_moves() {
    let mut tree = Puct::<Othello6>::new(config(300), 2);
    let start = Othello6::new();
    searched(
        std::slice::from_mut(&mut tree),
        std::slice::from_ref(&start),
    );
    let r = tree.result().unwrap();
    let after = start.play_unchecked(r.best);
    let reply = after.legal_moves()[0];
    let next = after.play_unchecked(reply);
    tree.start(&next, &Budget::default());
    let kept = tree.root_visits();
    assert!(kept > 0, "the reply's subtree is kept");
    let mut refs = vec![&mut tree];
    search_together(&mut refs, &HashNet).unwrap();
    assert_eq!(tree.root_visits(), kept + 300);
    let mut fresh = Puct::<Othello6>::new(
        PuctConfig {
            reuse: false,
            ..config(300)
        },
        2,
    );
    fresh.start(&start, &Budget::default());
    fresh.start(&next, &Budget::default());
    assert_eq!(fresh.root_visits(), 0);
}

#[test]
fn the_tree_stays_within_its_memory_bound() {
    let bound = 64 << 10;
    let mut tree = Puct::<Gomoku9>::new(
        PuctConfig {
            max_tree_bytes: bound,
            ..config(2000)
        },
        4,
    );
    searched(std::slice::from_mut(&mut tree), &[Gomoku9::start()]);
    assert!(
        tree.tree_size() * 64 <= 2 * bound,
        "{} nodes",
        tree.tree_size()
    );
    assert_eq!(tree.result().unwrap().sims, 2000);
}

#[test]
fn targets_are_distributions_over_legal_moves() {
    for c in [config(64), gumbel(32, true)] {
        for start in starts::<Gomoku9>(5) {
            let mut tree = Puct::new(c.clone(), 9);
            searched(
                std::slice::from_mut(&mut tree),
                std::slice::from_ref(&start),
            );
            let r = tree.result().unwrap();
            let sum: f32 = r.policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "sums to {sum}");
            for (a, &p) in r.policy.iter().enumerate() {
                let legal = Gomoku9::action_move(a).is_some_and(|m| start.is_legal(m));
                assert!(legal || p == 0.0, "mass on illegal action {a}");
            }
            assert!(start.is_legal(r.best));
            assert!((-1.0..=1.0).contains(&r.value));
        }
    }
}

#[test]
fn a_win_in_one_is_proven_and_played() {
    // Black has four in a row on 9x9 with both ends open: any search must find five.
    let mut pos = Gomoku9::start();
    for mv in ["c5", "c1", "d5", "d1", "e5", "e1", "f5", "f1"] {
        pos = pos.play(Gomoku9::parse_move(mv).unwrap()).unwrap();
    }
    let mut agent = PuctAgent::new("p", Arc::new(UniformPolicy), config(400), 1);
    let r = agent.search(&pos, &Budget::default()).unwrap();
    assert_eq!(r.proven, Some(1));
    let after = pos.play(r.best).unwrap();
    assert_eq!(after.outcome().and_then(|o| o.winner()), Some(Color::Black));
}

mod self_play {
    use super::*;
    use search::selfplay::{self_play, PlayoutCap, SelfPlayConfig};

    fn cfg(concurrent: usize, gumbel_root: bool) -> SelfPlayConfig {
        SelfPlayConfig {
            search: PuctConfig {
                noise: Some(RootNoise {
                    alpha: 0.6,
                    frac: 0.25,
                }),
                ..if gumbel_root {
                    gumbel(16, true)
                } else {
                    config(24)
                }
            },
            cap: Some(PlayoutCap {
                full_share: 0.25,
                fast_sims: 6,
            }),
            temperature_plies: 6,
            concurrent,
            max_plies: None,
            random_opening: Some((0, 3)),
        }
    }

    #[test]
    fn games_played_together_are_the_games_played_one_at_a_time() {
        for gumbel_root in [false, true] {
            let one = self_play(
                &Othello6::new(),
                0..6,
                11,
                &HashNet,
                &cfg(1, gumbel_root),
                None,
                &mut |_| {},
            )
            .unwrap();
            let many = self_play(
                &Othello6::new(),
                0..6,
                11,
                &HashNet,
                &cfg(4, gumbel_root),
                None,
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(one, many);
            let all = self_play(
                &Othello6::new(),
                0..6,
                11,
                &HashNet,
                &cfg(64, gumbel_root),
                None,
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(one, all);
            let play = |range| {
                self_play(
                    &Othello6::new(),
                    range,
                    11,
                    &HashNet,
                    &cfg(3, gumbel_root),
                    None,
                    &mut |_| {},
                )
                .unwrap()
            };
            let mut split = play(0..2);
            split.extend(play(2..6));
            assert_eq!(one, split, "games 2..6 played apart are the same games");
            let distinct: std::collections::HashSet<_> =
                one.iter().map(|g| g.moves.clone()).collect();
            assert!(distinct.len() > 3, "the draws differ between games");
        }
    }

    #[test]
    fn every_game_is_played_out_with_a_share_of_full_searches() {
        let mut heard = 0;
        let games = self_play(
            &Gomoku9::start(),
            0..5,
            3,
            &HashNet,
            &cfg(3, false),
            None,
            &mut |_| heard += 1,
        )
        .unwrap();
        assert_eq!(heard, 5);
        assert_eq!(
            games.iter().map(|g| g.index).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        let (mut full, mut all) = (0, 0);
        for g in &games {
            let mut pos = Gomoku9::start();
            for &mv in &g.moves {
                pos = pos.play(mv).unwrap();
            }
            assert_eq!(pos.outcome(), g.outcome);
            assert!(g.outcome.is_some());
            assert_eq!(g.samples.len(), g.moves.len() - g.opening);
            assert!(g.opening <= 3);
            full += g.samples.iter().filter(|s| s.full).count();
            all += g.samples.len();
        }
        let share = full as f64 / all as f64;
        assert!(
            (0.1..0.4).contains(&share),
            "full searches: {full} of {all}"
        );
    }

    #[test]
    fn othello_forced_passes_are_played_but_not_searched() {
        let games = self_play(
            &Othello4::new(),
            0..40,
            1,
            &UniformPolicy,
            &SelfPlayConfig {
                concurrent: 8,
                ..cfg(8, false)
            },
            None,
            &mut |_| {},
        )
        .unwrap();
        let passes: usize = games
            .iter()
            .map(|g| g.moves.iter().filter(|m| Othello4::is_pass(**m)).count())
            .sum();
        assert!(passes > 0, "40 games of 4x4 without a pass");
        for g in &games {
            let after = &g.moves[g.opening..];
            let searched = after.len() - after.iter().filter(|m| Othello4::is_pass(**m)).count();
            assert_eq!(g.samples.len(), searched);
            assert!(g.samples.iter().all(|s| s.pos.forced_pass().is_none()));
        }
    }
}

#[test]
fn batched_players_in_the_driver_play_the_games_of_agents_one_at_a_time() {
    use search::driver::{play, DriverConfig, NoBatched, Seat, Table};
    use search::selfplay::game_seed;
    use search::PuctPlayers;
    let net: Arc<dyn PolicyValue<Othello6>> = Arc::new(HashNet);
    let configs = [config(30), gumbel(16, false)];
    let starts = starts::<Othello6>(6);
    let tables = |batched: bool| -> Vec<Table<Othello6>> {
        starts
            .iter()
            .enumerate()
            .map(|(g, s)| Table {
                start: *s,
                seats: [0usize, 1].map(|p| {
                    if batched {
                        Seat::Batched(p)
                    } else {
                        Seat::Agent(Box::new(PuctAgent::new(
                            "p",
                            net.clone(),
                            configs[p].clone(),
                            game_seed(7, g, p as u64),
                        )))
                    }
                }),
            })
            .collect()
    };
    let mut players = PuctPlayers::new(
        configs.iter().map(|c| (net.clone(), c.clone())).collect(),
        7,
    );
    let together = play(tables(true), &mut players, &DriverConfig::default()).unwrap();
    let alone = play(tables(false), &mut NoBatched, &DriverConfig::default()).unwrap();
    assert_eq!(together, alone);
    assert!(together.iter().all(|p| p.end.is_over()));
}

#[test]
fn a_gumbel_search_cut_short_plays_a_move_it_visited() {
    for sims in [2, 5, 9] {
        let mut tree = Puct::<Gomoku9>::new(gumbel(sims, true), 3);
        searched(std::slice::from_mut(&mut tree), &[Gomoku9::start()]);
        let r = tree.result().unwrap();
        let visits = r.visits.iter().find(|v| v.0 == r.best).map_or(0, |v| v.1);
        assert!(
            visits > 0,
            "{sims} simulations: {} was never visited",
            r.best
        );
    }
}

#[test]
fn drawn_moves_are_never_proven_losses_and_a_proven_root_plays_its_best() {
    use rand::SeedableRng;
    let moves = Othello6::new().legal_moves();
    let mut r = search::SearchResult {
        best: moves[0],
        visits: vec![(moves[0], 10), (moves[1], 90)],
        policy: vec![0.0; Othello6::NUM_ACTIONS],
        value: 0.0,
        proven: None,
        move_proofs: vec![None, Some(-1)],
        sims: 100,
    };
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(1);
    assert!((0..200).all(|_| r.sample(1.0, &mut rng) == moves[0]));
    r.move_proofs = vec![None, None];
    r.proven = Some(1);
    assert!((0..200).all(|_| r.sample(1.0, &mut rng) == moves[0]));
    r.proven = None;
    assert!((0..200).any(|_| r.sample(1.0, &mut rng) == moves[1]));
}
