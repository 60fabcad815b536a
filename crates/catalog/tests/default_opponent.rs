//! The app's default Othello opponent never gives away an endgame it could solve: within its
//! time it solves exactly (and says so: a proven score), else it searches with alpha-beta.

use std::time::{Duration, Instant};

use catalog::CatalogGame;
use game::Game;
use othello::Othello6;
use othello::Othello8;
use othello_engine::obf::{ffo_suite, Problem};
use othello_engine::Solver;
use search::{Budget, Score};

/// FFO problem `number` (1-59).
fn ffo(number: usize) -> Problem {
    ffo_suite()[number - 1].clone()
}

/// The best moves of a problem and their score.
fn best_of(problem: &Problem) -> (Vec<othello::Move>, i32) {
    let best = problem.best_score().unwrap_or(i32::MIN);
    let moves = problem
        .scores
        .iter()
        .filter(|s| s.1 == best)
        .map(|s| s.0)
        .collect();
    (moves, best)
}

/// `stonelab`'s FFO measurement: how many best moves an agent finds on FFO #40-#59 (or the
/// range in `STONELAB_RANGE`), at its own time or `STONELAB_MS` milliseconds a move. The
/// agent is `STONELAB_SPEC`, else the default opponent. Run in release mode:
/// `cargo test --release -p stonelab-catalog --test default_opponent -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: about 20 s; run in release mode"]
fn measure_best_moves_on_ffo_40_to_59() {
    let spec =
        std::env::var("STONELAB_SPEC").unwrap_or_else(|_| Othello8::DEFAULT_OPPONENT.to_string());
    let range = std::env::var("STONELAB_RANGE").unwrap_or_else(|_| "40-59".into());
    let (first, last) = range.split_once('-').expect("FIRST-LAST");
    let (first, last): (usize, usize) = (first.parse().unwrap(), last.parse().unwrap());
    let budget = match std::env::var("STONELAB_MS") {
        Ok(ms) => Budget::time(Duration::from_millis(ms.parse().unwrap())),
        Err(_) => Budget::default(),
    };
    let registry = Othello8::registry();
    let (mut found, mut exact) = (0, 0);
    for number in first..=last {
        let problem = ffo(number);
        let (best, score) = best_of(&problem);
        let mut agent = registry.build(&spec, 1).expect("agent");
        let started = Instant::now();
        let d = agent.select(&problem.pos, &budget).expect("a move");
        let took = started.elapsed();
        let got = problem
            .scores
            .iter()
            .find(|s| s.0 == d.mv)
            .map_or(i32::MIN, |s| s.1);
        let value = d.value();
        found += usize::from(best.contains(&d.mv));
        exact += usize::from(value.is_some_and(Score::is_proven));
        println!(
            "#{number} empties {:2} best {score:+3} {:?}: plays {} ({got:+}) eval {} depth {:?} in {:.2}s",
            problem.pos.empty().count_ones(),
            best.iter().map(ToString::to_string).collect::<Vec<_>>(),
            d.mv,
            value.map_or("-".into(), |v| v.to_string()),
            d.depth,
            took.as_secs_f64()
        );
    }
    println!(
        "{spec}: best move in {found} of {}, {exact} exact",
        last - first + 1
    );
}

/// Endgames two to eight plies into FFO #42, #45 and #52 along their best lines, where the old
/// default (`alphabeta:time=1s`) gave results away: the board string, the best moves and their
/// exact score (every move solved exactly, offline).
const THROWN: [(&str, &str, &[&str], i32); 4] = [
    // alphabeta:time=1s played d2 (-4): a win by 6 thrown away.
    (
        "FFO #42 after g2 h1",
        "--OOO--O----XXOOOOOOOOXO-OOOOXXOX-OOOXXO---OOXOO---OOOXO--OOOO-- X",
        &["c2"],
        6,
    ),
    (
        "FFO #42 after g2 h1 c2",
        "--OOO--O--X-XXOOOOOXOOXO-OOOXXXOX-OOOXXO---OOXOO---OOOXO--OOOO-- O",
        &["g1"],
        -6,
    ),
    // alphabeta:time=1s played h1 (-8).
    (
        "FFO #45 after five best moves",
        "--OXXXX-XXOOXO--XXOXOX--XXOXXXX-XXOXXXO--OXXXOOOO-OOOO------OO-- O",
        &["h3"],
        -6,
    ),
    // alphabeta:time=1s played a7 (-4): a draw turned into a loss.
    (
        "FFO #52 after eight best moves",
        "-XXXXX----XXXX-XOOOOXXXXXOOXXXXXXXXOOXXXXXXOOOXX--XO---X-------- O",
        &["g2"],
        0,
    ),
];

/// The time the tests give a move: the app's second, with room for the unoptimised test
/// build on a busy machine (a solve returns as soon as it is done).
const TEST_TIME: Duration = Duration::from_secs(4);

/// Within its time the default opponent solves these endgames exactly: a best move, its
/// proven score (a draw included) and the empties as its depth. The old default, alpha-beta
/// alone, gave no proven score and threw some of them away.
#[test]
fn default_othello8_opponent_solves_endgames_within_its_reach() {
    let registry = Othello8::registry();
    for (name, board, best, score) in THROWN {
        let pos = Othello8::from_board_string(board).expect(name);
        let mut agent = registry
            .build(Othello8::DEFAULT_OPPONENT, 1)
            .expect("agent");
        let started = Instant::now();
        let d = agent.select(&pos, &Budget::time(TEST_TIME)).expect(name);
        let took = started.elapsed();
        println!(
            "{name}: {} {:?} in {:.2}s",
            d.mv,
            d.value(),
            took.as_secs_f64()
        );
        assert!(
            best.contains(&d.mv.to_string().as_str()),
            "{name}: {} played {}, best is {best:?} ({score:+})",
            Othello8::DEFAULT_OPPONENT,
            d.mv
        );
        assert_eq!(
            d.value(),
            Some(Score::Proven { margin: score }),
            "{name}: the decision is not marked exact"
        );
        assert_eq!(d.depth, Some(pos.empty().count_ones()), "{name}");
    }
}

/// FFO positions the fixed threshold (18 empties) leaves to alpha-beta but the clock reaches.
#[test]
fn default_othello8_opponent_solves_ffo_positions_within_its_reach() {
    let registry = Othello8::registry();
    for number in [24, 27, 29] {
        let problem = ffo(number);
        assert!(problem.pos.empty().count_ones() > 18, "#{number}");
        let (best, score) = best_of(&problem);
        let mut agent = registry
            .build(Othello8::DEFAULT_OPPONENT, 1)
            .expect("agent");
        let started = Instant::now();
        let d = agent
            .select(&problem.pos, &Budget::time(TEST_TIME))
            .expect("a move");
        println!(
            "#{number}: {} {:?} in {:.2}s",
            d.mv,
            d.value(),
            started.elapsed().as_secs_f64()
        );
        assert!(
            best.contains(&d.mv),
            "#{number}: played {}, best {best:?}",
            d.mv
        );
        assert_eq!(
            d.value(),
            Some(Score::Proven { margin: score }),
            "#{number}"
        );
    }
}

/// Beyond its reach in the time it has, it gives up the solve and still answers in time with
/// alpha-beta (no proven score claimed).
#[test]
fn default_othello8_opponent_falls_back_to_alpha_beta_in_time() {
    let problem = ffo(45); // 24 empties: a cold exact solve takes about 20 s in release mode
    let mut agent = Othello8::registry()
        .build(Othello8::DEFAULT_OPPONENT, 1)
        .expect("agent");
    let budget = Duration::from_millis(200);
    let started = Instant::now();
    let d = agent
        .select(&problem.pos, &Budget::time(budget))
        .expect("a move");
    let took = started.elapsed();
    assert!(problem.pos.is_legal(d.mv));
    assert!(!d.value().is_some_and(Score::is_proven), "{:?}", d.value());
    assert!(took < budget + Duration::from_secs(1), "took {took:?}");
}

/// A time limit holds in the exact zone too: with the zone raised to 26 empties, FFO #45 (24
/// empties, a cold solve of about 20 s in release mode) is abandoned in time and alpha-beta
/// answers (no proven score claimed), for the engine and for the `solver` agent alike. Without
/// a limit the zone is solved as before (a quick 12-empty position: a proven score).
#[test]
fn a_time_limit_holds_in_the_exact_zone() {
    let problem = ffo(45);
    let budget = Duration::from_millis(200);
    for spec in [
        "othello:empties=26,book=off",
        "solver:empties=26,depth=4",
        "othello:empties=26,book=off,threads=2",
    ] {
        let mut agent = Othello8::registry().build(spec, 1).expect("agent");
        let started = Instant::now();
        let d = agent
            .select(&problem.pos, &Budget::time(budget))
            .expect("a move");
        let took = started.elapsed();
        assert!(problem.pos.is_legal(d.mv), "{spec}");
        assert!(
            !d.value().is_some_and(Score::is_proven),
            "{spec}: {:?}",
            d.value()
        );
        assert!(
            took < budget + Duration::from_secs(1),
            "{spec}: took {took:?}"
        );
    }
    // A quick position in the zone: #45 played on along the first legal move to 12 empties.
    let mut pos = problem.pos;
    while pos.empty().count_ones() > 12 {
        let moves = pos.legal_moves();
        pos = pos.play_unchecked(moves[0]);
    }
    assert!(!pos.is_over(), "{pos}");
    let exact = Solver::<8>::new(16).solve(&pos).score;
    let mut agent = Othello8::registry()
        .build("othello:book=off", 1)
        .expect("agent");
    for budget in [Budget::default(), Budget::time(TEST_TIME)] {
        let d = agent.select(&pos, &budget).expect("a move");
        assert_eq!(d.value(), Some(Score::Proven { margin: exact }), "{pos}");
    }
}

/// The 6x6 default keeps the exact solver's agent (the `othello` engine is 8x8 only): exact
/// within reach. The positions have 20 empties, beyond the fixed threshold (18), so the clock
/// decides; they take at most about 0.2 s each in a test build (22 empties took up to 1.9 s of
/// the 3 s the solve gets, too close under a loaded machine).
#[test]
fn default_othello6_opponent_solves_endgames_within_its_reach() {
    assert_eq!(Othello6::DEFAULT_OPPONENT, "solver:time=1s");
    assert_eq!(Othello8::DEFAULT_OPPONENT, "othello:time=1s");
    let registry = Othello6::registry();
    // Seeded random play (splitmix64).
    let mut state = 6u64;
    let mut random = |n: usize| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    let mut solver = Solver::<6>::new(20);
    let mut checked = 0;
    while checked < 4 {
        let mut pos = Othello6::new();
        while !pos.is_over() && pos.empty().count_ones() > 20 {
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[random(moves.len())]);
        }
        if pos.is_over() || pos.legal_moves().len() < 2 {
            continue;
        }
        let exact = solver.solve(&pos).score;
        let mut agent = registry
            .build(Othello6::DEFAULT_OPPONENT, 1)
            .expect("agent");
        let d = agent
            .select(&pos, &Budget::time(TEST_TIME))
            .expect("a move");
        assert_eq!(d.value(), Some(Score::Proven { margin: exact }), "{pos}");
        let after = solver.solve(&pos.play_unchecked(d.mv)).score;
        assert_eq!(-after, exact, "{pos}: {} is not a best move", d.mv);
        checked += 1;
    }
}

/// `othello:game_time=…` builds a clocked engine; a zero or malformed clock is refused with a
/// message naming the key.
#[test]
fn othello_game_time_spec() {
    let registry = Othello8::registry();
    let mut agent = registry
        .build("othello:game_time=2s,book=off", 1)
        .expect("a clocked engine");
    let started = Instant::now();
    let d = agent
        .select(&Othello8::new(), &Budget::default())
        .expect("a move");
    assert!(Othello8::new().legal_moves().contains(&d.mv));
    // The first move's share of a 2 s game is about a 26th of it.
    assert!(started.elapsed() < Duration::from_millis(400));
    for bad in ["othello:game_time=0", "othello:game_time=soon"] {
        let err = registry.build(bad, 1).err().expect("refused").to_string();
        assert!(err.contains("game_time"), "{bad}: {err}");
    }
}

/// `othello:depth=N` searches as the level of that depth does: full width to 5 plies (the
/// levels' table), Multi-ProbCut from 6; an explicit `selectivity` still wins. Checked by the
/// searches' node counts on midgame positions of seeded random games.
#[test]
fn othello_depth_takes_the_selectivity_of_its_level() {
    let registry = Othello8::registry();
    let nodes = |spec: &str, pos: &Othello8| {
        let mut agent = registry.build(spec, 1).expect("agent");
        let d = agent.select(pos, &Budget::default()).expect("a move");
        (d.mv, d.nodes)
    };
    let mut state = 15u64;
    let mut random = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((state >> 33) % n as u64) as usize
    };
    let mut selective_differs = false;
    for _ in 0..6 {
        let mut pos = Othello8::new();
        while !pos.is_over() && pos.empty().count_ones() > 36 {
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[random(moves.len())]);
        }
        if pos.is_over() {
            continue;
        }
        assert_eq!(
            nodes("othello:depth=4,book=off", &pos),
            nodes("othello:depth=4,book=off,selectivity=off", &pos),
            "{pos}"
        );
        let level6 = nodes("othello:depth=6,book=off", &pos);
        assert_eq!(
            level6,
            nodes("othello:depth=6,book=off,selectivity=2", &pos),
            "{pos}"
        );
        selective_differs |= level6 != nodes("othello:depth=6,book=off,selectivity=off", &pos);
    }
    assert!(selective_differs, "Multi-ProbCut never cut at depth 6");
}

/// `othello:weights=FILE` searches with a weight file from disk: the bundled file's bytes play
/// exactly as the bundled evaluation, other weights play otherwise, and a file that is missing,
/// not a weight file or too large is refused by name.
#[test]
fn othello_weights_from_a_file() {
    use othello_engine::pattern::{PatternWeights, BUNDLED_BYTES, MAX_FILE_BYTES};
    let dir = std::env::temp_dir().join(format!("stonelab-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bundled = dir.join("bundled.bin");
    std::fs::write(&bundled, BUNDLED_BYTES).expect("write");
    let flat = dir.join("flat.bin");
    let zeros = PatternWeights::zeros(2, 64).expect("zero weights");
    std::fs::write(&flat, zeros.to_bytes()).expect("write");
    let registry = Othello8::registry();
    let mut pos = Othello8::new();
    for mv in ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"] {
        let mv: othello::Move = mv.parse().expect("move");
        assert!(pos.legal_moves().contains(&mv), "{mv}");
        pos = pos.play_unchecked(mv);
    }
    let decide = |spec: &str| {
        let mut agent = registry.build(spec, 1).expect("agent");
        let d = agent.select(&pos, &Budget::default()).expect("a move");
        (d.mv, d.nodes, d.score)
    };
    // A weight file from disk comes without the bundled correction network.
    let plain = decide("othello:depth=5,book=off,correction=off");
    let spec = format!("othello:depth=5,book=off,weights={}", bundled.display());
    assert_eq!(decide(&spec), plain);
    let spec = format!("othello:depth=5,book=off,weights={}", flat.display());
    assert_ne!(decide(&spec), plain);

    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, b"not weights").expect("write");
    let large = dir.join("large.bin");
    let file = std::fs::File::create(&large).expect("create");
    file.set_len(MAX_FILE_BYTES + 1).expect("sparse file");
    for (path, why) in [
        (dir.join("missing.bin"), "cannot read"),
        (garbage, "cut short"),
        (large, "larger than"),
        (dir.clone(), "not a regular file"),
    ] {
        let spec = format!("othello:weights={}", path.display());
        let err = registry.build(&spec, 1).err().expect("refused").to_string();
        assert!(
            err.contains("weights") && err.contains(why),
            "{spec}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `othello:correction=`: on by default with the bundled weights (and changing the search),
/// `off` searching the patterns alone, a file fitted for the weights played as the bundled
/// network plays, and a network refused by name when it is damaged, missing, fitted for other
/// weights or named `on` beside a weight file.
#[test]
fn othello_correction_network_option() {
    use othello_engine::correction::bundled;
    use othello_engine::pattern::{PatternWeights, BUNDLED_BYTES};
    let dir = std::env::temp_dir().join(format!("stonelab-correction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let net = dir.join("correction.bin");
    std::fs::write(&net, bundled().to_bytes()).expect("write");
    let weights = dir.join("patterns.bin");
    std::fs::write(&weights, BUNDLED_BYTES).expect("write");
    let flat = dir.join("flat.bin");
    let zeros = PatternWeights::zeros(2, 64).expect("zero weights");
    std::fs::write(&flat, zeros.to_bytes()).expect("write");
    let registry = Othello8::registry();
    let mut pos = Othello8::new();
    for mv in ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"] {
        pos = pos.play_unchecked(mv.parse().expect("move"));
    }
    let decide = |spec: &str| {
        let mut agent = registry.build(spec, 1).expect(spec);
        let d = agent.select(&pos, &Budget::default()).expect("a move");
        (d.mv, d.nodes, d.score)
    };
    let default = decide("othello:depth=5,book=off");
    assert_eq!(decide("othello:depth=5,book=off,correction=on"), default);
    assert_ne!(decide("othello:depth=5,book=off,correction=off"), default);
    let file = format!("othello:depth=5,book=off,correction={}", net.display());
    assert_eq!(decide(&file), default);
    let both = format!(
        "othello:depth=5,book=off,weights={},correction={}",
        weights.display(),
        net.display()
    );
    assert_eq!(decide(&both), default);

    let damaged = dir.join("damaged.bin");
    let mut bytes = bundled().to_bytes();
    bytes[200] ^= 1;
    std::fs::write(&damaged, bytes).expect("write");
    for (spec, why) in [
        (
            format!("othello:correction={}", damaged.display()),
            "checksum",
        ),
        (
            format!("othello:correction={}", dir.join("none.bin").display()),
            "cannot read",
        ),
        (
            format!(
                "othello:weights={},correction={}",
                flat.display(),
                net.display()
            ),
            "fitted for the pattern weights",
        ),
        (
            format!("othello:weights={},correction=on", flat.display()),
            "bundled weights only",
        ),
    ] {
        let err = registry.build(&spec, 1).err().expect("refused").to_string();
        assert!(
            err.contains("correction") && err.contains(why),
            "{spec}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
