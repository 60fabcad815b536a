//! The generic agents on real games: legal, seeded, and alpha-beta exact against plain minimax.

use std::sync::Arc;
use std::time::Duration;

use game::{Color, Game};
use othello::{Othello4, Othello6, Othello8};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::{
    terminal_score, Agent, AlphaBeta, AlphaBetaConfig, Budget, FnEvaluator, Mcts, MctsConfig,
    Registry, SpecError, ZeroEvaluator, WIN,
};

/// Disc difference for the side to move, 100 per disc.
fn discs<const N: usize>() -> Arc<dyn search::Evaluator<othello::Othello<N>>> {
    Arc::new(FnEvaluator(|p: &othello::Othello<N>| {
        let me = p.side_to_move();
        100 * (p.count(me) as i32 - p.count(me.opponent()) as i32)
    }))
}

fn registry<const N: usize>() -> Registry<othello::Othello<N>> {
    Registry::generic(discs::<N>(), discs::<N>())
}

/// The slow twin: plain minimax to the end, score from the side to move.
fn minimax<G: Game>(pos: &G) -> i32 {
    if let Some(s) = terminal_score(pos) {
        return s;
    }
    pos.legal_moves()
        .iter()
        .map(|&m| -minimax(&pos.play_unchecked(m)))
        .max()
        .unwrap_or(0)
}

fn random_position<G: Game>(rng: &mut ChaCha8Rng, plies: usize) -> G {
    let mut pos = G::start();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    pos
}

#[test]
fn alphabeta_to_the_end_equals_minimax_on_4x4() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut ab = AlphaBeta::new(
        Arc::new(ZeroEvaluator),
        AlphaBetaConfig {
            depth: Some(20),
            ..Default::default()
        },
    );
    for plies in 0..40 {
        let pos: Othello4 = random_position(&mut rng, plies % 10);
        // With a single legal move the agent answers at once, without a score.
        if pos.legal_moves().len() < 2 {
            continue;
        }
        let d = ab.select(&pos, &Budget::default()).unwrap();
        let exact = minimax(&pos);
        assert_eq!(d.score, Some(exact), "{pos}");
        // The chosen move is optimal too.
        assert_eq!(-minimax(&pos.play_unchecked(d.mv)), exact, "{pos}");
        assert_eq!(d.pv.first(), Some(&d.mv));
    }
    // The 4x4 game: white wins with perfect play.
    let start = ab.select(&Othello4::new(), &Budget::default()).unwrap();
    assert!(
        start.score.unwrap() <= -WIN,
        "black should lose 4x4: {:?}",
        start.score
    );
}

#[test]
fn alphabeta_depth_limited_equals_plain_minimax_at_that_depth() {
    fn limited<G: Game>(pos: &G, depth: u32, eval: &dyn Fn(&G) -> i32) -> i32 {
        if let Some(s) = terminal_score(pos) {
            return s;
        }
        if depth == 0 {
            return eval(pos);
        }
        pos.legal_moves()
            .iter()
            .map(|&m| -limited(&pos.play_unchecked(m), depth - 1, eval))
            .max()
            .unwrap_or(0)
    }
    let eval = |p: &Othello6| {
        let me = p.side_to_move();
        100 * (p.count(me) as i32 - p.count(me.opponent()) as i32)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for i in 0..12 {
        let pos: Othello6 = random_position(&mut rng, 4 + i);
        if pos.is_over() {
            continue;
        }
        for depth in 1..=4 {
            let mut ab = AlphaBeta::new(
                discs::<6>(),
                AlphaBetaConfig {
                    depth: Some(depth),
                    ..Default::default()
                },
            );
            let d = ab.select(&pos, &Budget::default()).unwrap();
            if pos.legal_moves().len() > 1 {
                assert_eq!(
                    d.score,
                    Some(limited(&pos, depth, &eval)),
                    "depth {depth} {pos}"
                );
            }
        }
    }
}

#[test]
fn time_and_node_budgets_stop_the_search() {
    let mut ab = registry::<8>().build("alphabeta:time=50ms", 0).unwrap();
    let t = std::time::Instant::now();
    let d = ab.select(&Othello8::new(), &Budget::default()).unwrap();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(d.depth.unwrap_or(0) >= 2);
    let mut ab = registry::<8>().build("alphabeta:nodes=500", 0).unwrap();
    let d = ab.select(&Othello8::new(), &Budget::default()).unwrap();
    assert!(d.nodes <= 501, "{}", d.nodes);
    // A budget given to select overrides the spec.
    let d = ab.select(&Othello8::new(), &Budget::depth(2)).unwrap();
    assert_eq!(d.depth, Some(2));
}

fn play_game<G: Game>(black: &mut dyn Agent<G>, white: &mut dyn Agent<G>) -> (Vec<G::Move>, G) {
    let mut pos = G::start();
    let mut moves = Vec::new();
    black.new_game();
    white.new_game();
    while !pos.is_over() {
        let agent: &mut dyn Agent<G> = if pos.side_to_move() == Color::Black {
            &mut *black
        } else {
            &mut *white
        };
        let d = agent.select(&pos, &Budget::default()).unwrap();
        pos = pos.play(d.mv).expect("agents play legal moves");
        moves.push(d.mv);
        black.observe(d.mv, &pos);
        white.observe(d.mv, &pos);
    }
    (moves, pos)
}

#[test]
fn every_generic_agent_plays_legal_reproducible_games() {
    let reg = registry::<6>();
    for spec in [
        "random",
        "greedy",
        "alphabeta:depth=2",
        "mcts:playouts=200",
        "mcts:playouts=100,rollout=greedy",
    ] {
        let game = |seed| {
            let mut a = reg.build(spec, seed).unwrap();
            let mut b = reg.build("random", seed + 1).unwrap();
            play_game::<Othello6>(a.as_mut(), b.as_mut()).0
        };
        assert_eq!(game(7), game(7), "{spec} is not reproducible");
    }
    let a = play_game::<Othello6>(
        reg.build("random", 1).unwrap().as_mut(),
        reg.build("random", 2).unwrap().as_mut(),
    );
    let b = play_game::<Othello6>(
        reg.build("random", 3).unwrap().as_mut(),
        reg.build("random", 4).unwrap().as_mut(),
    );
    assert_ne!(a.0, b.0);
}

#[test]
fn greedy_flips_the_most_discs() {
    let mut agent = registry::<8>().build("greedy", 0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for plies in 1..30 {
        let pos: Othello8 = random_position(&mut rng, plies);
        if pos.is_over() || pos.must_pass() {
            continue;
        }
        let most = othello::Square::iter_bits(pos.moves())
            .map(|s| pos.flips(s).count_ones())
            .max()
            .unwrap();
        let d = agent.select(&pos, &Budget::default()).unwrap();
        let othello::Move::Place(sq) = d.mv else {
            panic!("greedy passed with moves available")
        };
        // The one-ply evaluator also sees wins, so only check ordinary positions.
        if d.score.unwrap().abs() < WIN {
            assert_eq!(pos.flips(sq).count_ones(), most, "{pos}");
        }
    }
}

#[test]
fn mcts_beats_random_and_reuses_its_tree() {
    let reg = registry::<6>();
    let mut wins = 0;
    for seed in 0..6 {
        let mut mcts = reg.build("mcts:playouts=300", seed).unwrap();
        let mut rnd = reg.build("random", 100 + seed).unwrap();
        let (_, end) = if seed % 2 == 0 {
            play_game::<Othello6>(mcts.as_mut(), rnd.as_mut())
        } else {
            play_game::<Othello6>(rnd.as_mut(), mcts.as_mut())
        };
        let mcts_color = if seed % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        if end.outcome().unwrap().winner() == Some(mcts_color) {
            wins += 1;
        }
    }
    assert!(wins >= 5, "mcts won only {wins} of 6 against random");

    let mut mcts = Mcts::new(
        discs::<6>(),
        MctsConfig {
            playouts: Some(400),
            ..Default::default()
        },
        3,
    );
    let start = Othello6::new();
    let d = mcts.select(&start, &Budget::default()).unwrap();
    let next = start.play_unchecked(d.mv);
    mcts.observe(d.mv, &next);
    assert!(
        mcts.root_visits() > 50,
        "reused subtree has {} visits",
        mcts.root_visits()
    );
    let reply = next.legal_moves()[0];
    let after = next.play_unchecked(reply);
    mcts.observe(reply, &after);
    let before = mcts.root_visits();
    mcts.select(&after, &Budget::nodes(100)).unwrap();
    assert_eq!(mcts.root_visits(), before + 100);
}

#[test]
fn mcts_finds_a_forced_win_on_4x4() {
    // From positions where alpha-beta proves a win, MCTS with many playouts picks a winning move.
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut checked = 0;
    for _ in 0..60 {
        let pos: Othello4 = random_position(&mut rng, 5);
        if pos.is_over() || pos.legal_moves().len() < 2 || minimax(&pos) <= WIN {
            continue;
        }
        let mut mcts = Mcts::new(
            Arc::new(ZeroEvaluator),
            MctsConfig {
                playouts: Some(3000),
                ..Default::default()
            },
            1,
        );
        let d = mcts.select(&pos, &Budget::default()).unwrap();
        assert!(
            -minimax(&pos.play_unchecked(d.mv)) > WIN,
            "{pos}: {} does not win",
            d.mv
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} winning positions found");
}

#[test]
fn bad_specs_are_clear_errors() {
    let reg = registry::<8>();
    let unknown = reg.build("minimax", 0).err().unwrap();
    assert!(matches!(unknown, SpecError::UnknownAgent { .. }));
    assert!(
        unknown
            .to_string()
            .contains("alphabeta, greedy, mcts, random"),
        "{unknown}"
    );
    let key = reg.build("alphabeta:dpth=3", 0).err().unwrap();
    assert!(key.to_string().contains("valid keys: depth"), "{key}");
    assert!(reg.build("mcts:c=-1", 0).is_err());
    assert!(reg.build("mcts:rollout=smart", 0).is_err());
    assert!(reg.build("alphabeta:depth=0", 0).is_err());
    assert!(reg.build("alphabeta:time=soon", 0).is_err());
    assert!(reg.build("random:seed=4", 0).is_ok());
    assert!(reg.help().contains("mcts: UCT"));
}

#[test]
fn finished_games_are_an_error_not_a_panic() {
    let reg = registry::<4>();
    let over = Othello4::from_board_string("XX-------------- O").unwrap();
    for spec in reg.names() {
        let mut agent = reg.build(spec, 0).unwrap();
        assert!(agent.select(&over, &Budget::default()).is_err(), "{spec}");
    }
}

/// `check_names` checks what can be checked before a game is known (the name, the keys, the
/// seed) and builds nothing; `validate` builds.
#[test]
fn check_names_checks_names_and_keys_without_building() {
    let registry = registry::<8>();
    assert_eq!(registry.check_names("alphabeta:depth=3,seed=4"), Ok(()));
    assert!(matches!(
        registry.check_names("nonsense"),
        Err(SpecError::UnknownAgent { .. })
    ));
    assert!(registry.check_names("random:colour=red").is_err());
    assert!(registry.check_names("random:seed=x").is_err());
    assert!(registry.check_names("alphabeta:depth=3").is_ok());
    assert!(registry.validate("alphabeta:depth=3").is_ok());
}
