//! The driver against small shell-script engines: what it sends, and how it fails when an engine
//! dies, stays silent or answers nonsense. (The driver against a real engine — stonelab's own
//! `nboard` mode — is tested in the root package.)
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use game::Game;
use othello::{GgfGame, Move, Othello8};
use protocol::{NboardEngineAgent, NboardEngineConfig};
use search::{Agent, AgentError, Budget};

/// A scratch file name unique to this test process and `tag`.
fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("stonelab-driver-{}-{tag}.log", std::process::id()))
}

/// An engine in `sh` that logs every line it reads to `log` and answers `ping N` with `pong N`
/// and `go` with `=== <answer>` (after a banner and a status line, as real engines do).
fn logging_engine(log: &Path, answer: &str) -> NboardEngineConfig {
    let script = format!(
        r#"echo "banner: a test engine"
while IFS= read -r line; do
  printf '%s\n' "$line" >> '{log}'
  case "$line" in
    ping*) echo "status busy"; echo "pong ${{line#ping }}";;
    go) echo "status thinking"; echo "=== {answer}";;
    quit) exit 0;;
  esac
done"#,
        log = log.display()
    );
    let mut config = NboardEngineConfig::new(vec!["sh".into(), "-c".into(), script]);
    config.timeout = Duration::from_secs(20);
    config
}

fn read_log(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

#[test]
fn sends_the_game_pings_before_go_and_reports_every_move() {
    let log = scratch("talk");
    let _ = std::fs::remove_file(&log);
    let mut agent = NboardEngineAgent::new(logging_engine(&log, "d3/-1.50/0.2"));
    agent.new_game();
    let start = Othello8::new();
    let decision = agent.select(&start, &Budget::default()).unwrap();
    assert_eq!(decision.mv, mv("d3"));
    assert_eq!(decision.score, Some(-150));
    let ggf = GgfGame::default().to_string();
    assert_eq!(
        read_log(&log),
        [
            "nboard 2".to_string(),
            "set depth 6".into(),
            format!("set game {ggf}"),
            "ping 1".into(),
            "go".into(),
        ]
    );
    // Both sides' moves are reported; a new depth is sent; the game is not sent again.
    let after_d3 = start.play(mv("d3")).unwrap();
    agent.observe(mv("d3"), &after_d3);
    let after_c5 = after_d3.play(mv("c5")).unwrap();
    agent.observe(mv("c5"), &after_c5);
    // The engine answers d3 again, which is occupied now: a clear failure.
    let err = agent.select(&after_c5, &Budget::depth(3)).unwrap_err();
    let AgentError::Failed(why) = err else {
        panic!("expected a failure, got {err:?}")
    };
    assert!(why.contains("illegal move d3"), "{why}");
    assert!(!agent.is_running());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !read_log(&log).contains(&"quit".to_string()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        read_log(&log)[5..],
        ["move d3", "move c5", "set depth 3", "ping 2", "go", "quit"]
    );
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_position_out_of_the_blue_is_sent_as_a_new_game() {
    let log = scratch("resync");
    let _ = std::fs::remove_file(&log);
    let mut agent = NboardEngineAgent::new(logging_engine(&log, "PA"));
    // Black must pass here: the driver answers itself, without starting the engine.
    let must_pass = Othello8::from_bitboards(0b10, 0b01, game::Color::Black).unwrap();
    assert_eq!(
        agent.select(&must_pass, &Budget::default()).unwrap().mv,
        Move::Pass
    );
    assert!(!agent.is_running());
    // A mid-game position the agent never saw arrive: set game with that board.
    let pos = Othello8::new()
        .play(mv("f5"))
        .unwrap()
        .play(mv("d6"))
        .unwrap();
    let err = agent.select(&pos, &Budget::default()).unwrap_err();
    assert!(
        err.to_string().contains("illegal move pass"),
        "the engine's PA is checked: {err}"
    );
    let sent = read_log(&log);
    assert_eq!(sent[2], format!("set game {}", GgfGame::new(pos)));
    let _ = std::fs::remove_file(&log);
}

fn failure(config: NboardEngineConfig) -> (String, Duration) {
    let mut agent = NboardEngineAgent::new(config);
    let start = Instant::now();
    let err = agent
        .select(&Othello8::new(), &Budget::default())
        .unwrap_err();
    let took = start.elapsed();
    assert!(!agent.is_running());
    match err {
        AgentError::Failed(why) => (why, took),
        other => panic!("expected a failure, got {other:?}"),
    }
}

fn sh(script: &str, timeout: Duration) -> NboardEngineConfig {
    let mut config = NboardEngineConfig::new(vec!["sh".into(), "-c".into(), script.into()]);
    config.timeout = timeout;
    config
}

#[test]
fn an_engine_that_dies_is_reported_with_its_stderr() {
    let (why, took) = failure(sh(
        "echo 'no such agent' >&2; exit 3",
        Duration::from_secs(20),
    ));
    assert!(why.contains("exited"), "{why}");
    assert!(why.contains("no such agent"), "{why}");
    assert!(why.contains("exit status: 3"), "{why}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_silent_engine_times_out() {
    // Reads everything, answers nothing.
    let (why, took) = failure(sh("cat > /dev/null", Duration::from_millis(300)));
    assert!(why.contains("gave no pong 1 in time"), "{why}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // Answers the ping but never moves: no input is sent while it "searches".
    let script = r#"while IFS= read -r line; do
  case "$line" in ping*) echo "pong ${line#ping }";; go) sleep 5;; esac
done"#;
    let (why, took) = failure(sh(script, Duration::from_millis(300)));
    assert!(why.contains("gave no move"), "{why}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // Talks without end but never answers: the deadline still holds.
    let (why, took) = failure(sh(
        "yes 'status still thinking'",
        Duration::from_millis(300),
    ));
    assert!(why.contains("gave no pong 1 in time"), "{why}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn unreadable_answers_fail_clearly() {
    let script = r#"while IFS= read -r line; do
  case "$line" in ping*) echo "pong ${line#ping }";; go) echo "=== zz9";; esac
done"#;
    let (why, _) = failure(sh(script, Duration::from_secs(20)));
    assert!(why.contains("unreadable move \"=== zz9\""), "{why}");
}

#[test]
fn a_missing_program_fails_at_the_first_move() {
    let config = NboardEngineConfig::new(vec!["/nonexistent/stonelab-engine".into()]);
    let (why, _) = failure(config);
    assert!(why.contains("cannot start engine"), "{why}");
}
