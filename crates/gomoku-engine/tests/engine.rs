//! The strong engine on hand-built positions: wins, blocks, renju fouls, the exact-five rule,
//! and its limits.

use std::time::{Duration, Instant};

use game::Color;
use gomoku::{Board, Point, Rule};
use gomoku_engine::{EngineConfig, GomokuEngine};
use search::{Budget, WIN};

fn pt(s: &str) -> Point {
    s.parse().expect("test point")
}

fn board(rule: Rule, black: &[&str], white: &[&str], to_move: Color) -> Board {
    let stones = black
        .iter()
        .map(|s| (pt(s), Color::Black))
        .chain(white.iter().map(|s| (pt(s), Color::White)));
    Board::with_stones(15, rule, stones, to_move).expect("test board")
}

fn engine() -> GomokuEngine {
    GomokuEngine::new(EngineConfig::default())
}

#[test]
fn it_makes_five_and_blocks_four() {
    for rule in Rule::ALL {
        let b = board(
            rule,
            &["d8", "e8", "f8", "g8"],
            &["d9", "e9", "f9"],
            Color::Black,
        );
        let d = engine().think(&b, &Budget::depth(2)).expect("a move");
        let mut after = b.clone();
        after.play(d.mv).expect("legal");
        assert_eq!(after.winner(), Some(Color::Black), "{rule}: {}", d.mv);

        // White to move must stop the four (at c8 or h8) unless it has a five itself.
        let b = board(
            rule,
            &["d8", "e8", "f8", "g8", "a1"],
            &["d9", "e9", "k2", "a3"],
            Color::White,
        );
        let d = engine().think(&b, &Budget::depth(4)).expect("a move");
        assert!(d.mv == pt("c8") || d.mv == pt("h8"), "{rule}: {}", d.mv);
    }
}

#[test]
fn black_never_plays_a_renju_foul() {
    // h8 would be a double three for black (f8 g8 and h6 h7): tempting, forbidden.
    let b = board(
        Rule::Renju,
        &["f8", "g8", "h6", "h7"],
        &["a1", "a3", "o15", "o13"],
        Color::Black,
    );
    assert!(b.foul(pt("h8")).is_some());
    for depth in [1, 3, 5] {
        let d = engine().think(&b, &Budget::depth(depth)).expect("a move");
        assert_ne!(d.mv, pt("h8"));
        assert!(b.check(d.mv).is_ok(), "depth {depth}: {}", d.mv);
    }
}

#[test]
fn five_wins_even_when_it_is_also_a_double_four() {
    let b = board(
        Rule::Renju,
        &["e8", "f8", "g8", "h8", "i5", "i6", "i7"],
        &["d8", "a3", "a5", "a7", "o1", "o3"],
        Color::Black,
    );
    // i8 is the only five (d8 is taken), and it also makes a second four on the i-file.
    let d = engine().think(&b, &Budget::depth(1)).expect("a move");
    assert_eq!(d.mv, pt("i8"));
    let mut after = b.clone();
    after.play(d.mv).expect("a five is never a foul");
    assert_eq!(after.winner(), Some(Color::Black));
}

#[test]
fn an_overline_is_no_win_under_the_exact_rule() {
    // f8 would make six; under the exact rule only a real five counts.
    for rule in [Rule::Standard, Rule::Renju] {
        let b = board(
            rule,
            &["c8", "d8", "e8", "g8", "h8"],
            &["c9", "d9", "a1", "o15", "o1"],
            Color::White,
        );
        // White to move: black threatens nothing real at f8, so a claimed loss must be real.
        let d = engine().think(&b, &Budget::depth(3)).expect("a move");
        let mut after = b.clone();
        after.play(d.mv).expect("legal");
        if d.score.is_some_and(|s| s <= -(WIN - 10)) {
            panic!("{rule}: white believes it is lost after {}", d.mv);
        }
    }
    // The same shape under freestyle is a win for black to move.
    let b = board(
        Rule::Freestyle,
        &["c8", "d8", "e8", "g8", "h8"],
        &["c9", "d9", "a1", "o15"],
        Color::Black,
    );
    let d = engine().think(&b, &Budget::depth(1)).expect("a move");
    assert_eq!(d.mv, pt("f8"));
}

#[test]
fn time_and_node_limits_hold() {
    let mut b = Board::new(19, Rule::Freestyle).expect("board");
    for mv in ["j10", "k11", "k10", "j11", "l12", "h10"] {
        b.play(pt(mv)).expect("legal");
    }
    let started = Instant::now();
    let d = engine()
        .think(&b, &Budget::time(Duration::from_millis(100)))
        .expect("a move");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(b.check(d.mv).is_ok());
    let mut limited = GomokuEngine::new(EngineConfig {
        nodes: Some(2_000),
        ..EngineConfig::default()
    });
    let d = limited.think(&b, &Budget::default()).expect("a move");
    assert!(d.nodes <= 4_000, "{} nodes", d.nodes);
    assert!(b.check(d.mv).is_ok());
    // The empty board: the centre.
    let empty = Board::new(15, Rule::Renju).expect("board");
    assert_eq!(
        engine()
            .think(&empty, &Budget::default())
            .expect("a move")
            .mv,
        pt("h8")
    );
    // A finished game has no move.
    let mut won = board(
        Rule::Freestyle,
        &["d8", "e8", "f8", "g8"],
        &["d9", "e9", "f9"],
        Color::Black,
    );
    won.play(pt("h8")).expect("legal");
    assert!(engine().think(&won, &Budget::default()).is_none());
}

#[test]
fn spec_keys_parse_and_refuse_bad_values() {
    let ok = "gomoku:time=200ms,width=8,vct=off"
        .parse::<search::Spec>()
        .expect("spec");
    let config = EngineConfig::from_spec(&ok).expect("valid");
    assert_eq!(config.time, Some(Duration::from_millis(200)));
    assert_eq!(config.width, 8);
    assert!(!config.vct && config.vcf);
    // Bare, the engine keeps its documented second a move; a depth or node limit alone lifts
    // the clock.
    let config = |text: &str| EngineConfig::from_spec(&text.parse().expect("spec")).expect("ok");
    assert_eq!(config("gomoku").time, Some(gomoku_engine::DEFAULT_TIME));
    assert_eq!(config("gomoku").time, EngineConfig::default().time);
    assert_eq!(config("gomoku:depth=4").time, None);
    assert_eq!(config("gomoku:nodes=5000").time, None);
    assert_eq!(
        config("gomoku:depth=4,time=2s").time,
        Some(Duration::from_secs(2))
    );
    for bad in [
        "gomoku:vcf=maybe",
        "gomoku:depth=0",
        "gomoku:time=soon",
        "gomoku:wdth=3",
    ] {
        let spec = bad.parse::<search::Spec>().expect("parses as a spec");
        assert!(EngineConfig::from_spec(&spec).is_err(), "{bad}");
    }
}
