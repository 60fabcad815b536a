//! A Gomocup brain built from a spec with its own `time=` thinks no longer than that, however
//! much the manager allows per move.

use std::time::{Duration, Instant};

use protocol::GomocupEngine;

#[test]
fn the_specs_own_time_caps_what_the_manager_allows() {
    let mut engine = GomocupEngine::new(catalog::gomocup_factory("gomoku:time=100ms".into(), 1));
    let input = "START 15\r\nINFO timeout_turn 5000\r\nBEGIN\r\nTURN 7,8\r\nEND\r\n";
    let mut out = Vec::new();
    let started = Instant::now();
    engine
        .run(input.as_bytes(), &mut out)
        .expect("in-memory IO");
    let took = started.elapsed();
    let text = String::from_utf8(out).expect("UTF-8");
    let moves = text.lines().filter(|l| l.contains(',')).count();
    assert_eq!(moves, 2, "{text}");
    // Two moves of at most 100 ms each (plus slack for a slow machine), not 2 x 2.5 s.
    assert!(took < Duration::from_millis(1500), "took {took:?}: {text}");
}
