//! The Gomocup driver against small shell-script brains: what it sends, and how it fails when a
//! brain dies, stays silent, refuses, or answers nonsense. (The driver against a real brain —
//! stonelab's own `gomocup` mode — is tested in the root package.)
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use game::Game;
use gomoku::presets::{Freestyle15, Renju15};
use gomoku::{Gomoku, Point};
use protocol::{xy_to_point, GomocupEngineAgent, GomocupEngineConfig};
use search::{Agent, AgentError, Budget};

/// A scratch file name unique to this test process and `tag`.
fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("stonelab-gomocup-{}-{tag}.log", std::process::id()))
}

/// A brain in `sh` that logs every line it reads to `log`, answers `START`/`RESTART` with `OK`,
/// and every move request (`BEGIN`, `TURN`, `DONE`) with `n,0` for n = 0, 1, 2, … (the top
/// row), after some chatter.
fn logging_brain(log: &Path) -> GomocupEngineConfig {
    let script = format!(
        r#"echo "a banner line"
n=0
while IFS= read -r line; do
  printf '%s\n' "$line" >> '{log}'
  case "$line" in
    START*|RESTART*) echo "DEBUG starting"; echo OK;;
    BEGIN|TURN*|DONE) echo "MESSAGE thinking"; echo "$n,0"; n=$((n+1));;
    END) exit 0;;
  esac
done"#,
        log = log.display()
    );
    let mut config = GomocupEngineConfig::new(vec!["sh".into(), "-c".into(), script]);
    config.turn = Duration::from_millis(1000);
    config.grace = Duration::from_secs(20);
    config
}

fn read_log(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Waits until the log has `n` lines (the brain writes them as it reads).
fn wait_for_log(log: &Path, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    while read_log(log).len() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    read_log(log)
}

fn xy(x: usize, y: usize) -> Point {
    xy_to_point(x, y, 15).unwrap()
}

#[test]
fn sends_start_infos_moves_and_end() {
    let log = scratch("talk");
    let _ = std::fs::remove_file(&log);
    let mut agent = GomocupEngineAgent::<Freestyle15>::new(logging_brain(&log));
    agent.new_game();
    let mut pos = Gomoku::<Freestyle15>::new();
    let play = |agent: &mut GomocupEngineAgent<Freestyle15>, pos: &mut Gomoku<Freestyle15>, mv| {
        *pos = pos.play(mv).unwrap();
        agent.observe(mv, pos);
    };
    // We open: BEGIN.
    let mv = agent.select(&pos, &Budget::default()).unwrap().mv;
    assert_eq!(mv, xy(0, 0));
    play(&mut agent, &mut pos, mv);
    play(&mut agent, &mut pos, xy(7, 7));
    // One move behind: TURN with the opponent's move (a new turn time is sent first).
    let decision = agent
        .select(&pos, &Budget::time(Duration::from_millis(300)))
        .unwrap();
    assert_eq!(decision.mv, xy(1, 0));
    assert_eq!(decision.pv, [xy(1, 0)]);
    play(&mut agent, &mut pos, decision.mv);
    play(&mut agent, &mut pos, xy(7, 8));
    let mv = agent.select(&pos, &Budget::default()).unwrap().mv;
    assert_eq!(mv, xy(2, 0));
    // A new game from a position the driver did not see arrive: RESTART, then BOARD with the
    // stones alternating black and white (board order within a colour), the brain's (white's)
    // as 1.
    agent.new_game();
    let mut pos = Gomoku::<Freestyle15>::new();
    for p in [xy(5, 5), xy(6, 6), xy(5, 6)] {
        pos = pos.play(p).unwrap();
    }
    let mv = agent.select(&pos, &Budget::default()).unwrap().mv;
    assert_eq!(mv, xy(3, 0));
    play(&mut agent, &mut pos, mv);
    play(&mut agent, &mut pos, xy(9, 9));
    // The game goes on from there: TURN again.
    let mv = agent.select(&pos, &Budget::default()).unwrap().mv;
    assert_eq!(mv, xy(4, 0));
    assert!(agent.is_running());
    drop(agent);
    let sent = wait_for_log(&log, 20);
    assert_eq!(
        sent,
        [
            "START 15",
            "INFO timeout_turn 1000",
            "INFO timeout_match 0",
            "INFO max_memory 0",
            "INFO rule 0",
            "INFO game_type 1",
            "INFO time_left 2147483647",
            "BEGIN",
            "INFO timeout_turn 300",
            "TURN 7,7",
            "INFO timeout_turn 1000",
            "TURN 7,8",
            "RESTART",
            "BOARD",
            "5,6,2",
            "6,6,1",
            "5,5,2",
            "DONE",
            "TURN 9,9",
            "END",
        ]
    );
    let _ = std::fs::remove_file(&log);
}

#[test]
fn rule_memory_and_match_time_are_sent() {
    let log = scratch("renju");
    let _ = std::fs::remove_file(&log);
    let mut config = logging_brain(&log);
    config.match_time = Some(Duration::from_secs(60));
    config.max_memory = Some(1 << 20);
    let mut agent = GomocupEngineAgent::<Renju15>::new(config);
    // White to move after black's first stone, seen played: TURN from the empty board.
    agent.new_game();
    let pos = Gomoku::<Renju15>::new().play(xy(7, 7)).unwrap();
    agent.observe(xy(7, 7), &pos);
    assert_eq!(agent.select(&pos, &Budget::default()).unwrap().mv, xy(0, 0));
    drop(agent);
    let sent = wait_for_log(&log, 9);
    assert_eq!(
        sent,
        [
            "START 15",
            "INFO timeout_turn 1000",
            "INFO timeout_match 60000",
            "INFO max_memory 1048576",
            "INFO rule 4",
            "INFO game_type 1",
            "INFO time_left 60000",
            "TURN 7,7",
            "END",
        ]
    );
    let _ = std::fs::remove_file(&log);
}

fn sh(script: &str, turn_ms: u64, grace_ms: u64) -> GomocupEngineConfig {
    let mut config = GomocupEngineConfig::new(vec!["sh".into(), "-c".into(), script.into()]);
    config.turn = Duration::from_millis(turn_ms);
    config.grace = Duration::from_millis(grace_ms);
    config
}

/// The failure of the first move asked of `config`'s brain on the empty board, and how long
/// it took.
fn failure(config: GomocupEngineConfig) -> (String, Duration) {
    let mut agent = GomocupEngineAgent::<Freestyle15>::new(config);
    let started = Instant::now();
    let err = agent
        .select(&Gomoku::new(), &Budget::default())
        .unwrap_err();
    let took = started.elapsed();
    assert!(!agent.is_running());
    match err {
        AgentError::Failed(why) => (why, took),
        other => panic!("expected a failure, got {other:?}"),
    }
}

/// A brain that says OK to START and answers every move request with `answer`.
fn answering(answer: &str) -> GomocupEngineConfig {
    let script = format!(
        r#"while IFS= read -r line; do
  case "$line" in START*) echo OK;; BEGIN) echo "{answer}";; END) exit 0;; esac
done"#
    );
    sh(&script, 1000, 20_000)
}

#[test]
fn a_brain_that_dies_is_reported_with_its_stderr() {
    let (why, took) = failure(sh("echo 'no such brain' >&2; exit 3", 1000, 20_000));
    assert!(why.contains("exited"), "{why}");
    assert!(why.contains("no such brain"), "{why}");
    assert!(why.contains("exit status: 3"), "{why}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_silent_brain_forfeits_at_the_deadline() {
    // OK to START, then nothing.
    let script = r#"while IFS= read -r line; do case "$line" in START*) echo OK;; esac; done"#;
    let (why, took) = failure(sh(script, 200, 100));
    assert_eq!(why, "no move within 300 ms (turn 200 ms + grace 100 ms)");
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // Talks without end but never says OK: the deadline still holds.
    let (why, took) = failure(sh("yes 'MESSAGE still thinking'", 200, 100));
    assert!(why.contains("gave no OK to START 15 in time"), "{why}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn refusals_and_bad_moves_fail_clearly() {
    let script = r#"while IFS= read -r line; do case "$line" in START*) echo "ERROR only 20x20, sorry";; esac; done"#;
    let (why, _) = failure(sh(script, 1000, 20_000));
    assert_eq!(why, "the brain refused START 15: ERROR only 20x20, sorry");
    let (why, _) = failure(answering("ERROR out of memory"));
    assert_eq!(why, "the brain answered \"ERROR out of memory\"");
    let (why, _) = failure(answering("UNKNOWN BEGIN"));
    assert_eq!(why, "the brain answered \"UNKNOWN BEGIN\"");
    let (why, _) = failure(answering("7,x"));
    assert_eq!(why, "the brain answered a malformed move \"7,x\"");
    let (why, _) = failure(answering("15,3"));
    assert_eq!(why, "the brain answered 15,3, which is off the 15x15 board");
    let (why, _) = failure(sh("exit 0", 1000, 20_000));
    assert!(why.contains("exited"), "{why}");
}

#[test]
fn an_occupied_point_is_an_illegal_move() {
    // Always 0,0: fine the first time, occupied the second.
    let script = r#"while IFS= read -r line; do
  case "$line" in START*) echo OK;; BEGIN|TURN*|DONE) echo "0,0";; END) exit 0;; esac
done"#;
    let mut agent = GomocupEngineAgent::<Freestyle15>::new(sh(script, 1000, 20_000));
    let mut pos = Gomoku::<Freestyle15>::new();
    let mv = agent.select(&pos, &Budget::default()).unwrap().mv;
    pos = pos.play(mv).unwrap();
    agent.observe(mv, &pos);
    pos = pos.play(xy(7, 7)).unwrap();
    agent.observe(xy(7, 7), &pos);
    let err = agent.select(&pos, &Budget::default()).unwrap_err();
    assert_eq!(
        err,
        AgentError::Failed(
            "the brain answered the illegal move 0,0 (a15): the square is occupied".into()
        )
    );
    assert!(!agent.is_running());
    // The next select starts a fresh brain and sends the whole position.
    assert_eq!(
        agent.select(&pos, &Budget::default()).unwrap_err(),
        AgentError::Failed(
            "the brain answered the illegal move 0,0 (a15): the square is occupied".into()
        )
    );
}

#[test]
fn suggestions_are_played() {
    let log = scratch("suggest");
    let _ = std::fs::remove_file(&log);
    let script = format!(
        r#"while IFS= read -r line; do
  printf '%s\n' "$line" >> '{log}'
  case "$line" in START*) echo OK;; BEGIN) echo "SUGGEST 3,3";; PLAY*) echo "${{line#PLAY }}";; END) exit 0;; esac
done"#,
        log = log.display()
    );
    let mut agent = GomocupEngineAgent::<Freestyle15>::new(sh(&script, 1000, 20_000));
    let mv = agent.select(&Gomoku::new(), &Budget::default()).unwrap().mv;
    assert_eq!(mv, xy(3, 3));
    drop(agent);
    let sent = wait_for_log(&log, 10);
    assert_eq!(sent[7..], ["BEGIN", "PLAY 3,3", "END"]);
    let _ = std::fs::remove_file(&log);
}

#[test]
fn specs_name_the_agent_and_a_missing_program_is_refused() {
    let spec: search::Spec = "gomocup-engine:cmd=sh -c true,turn_ms=100".parse().unwrap();
    let agent = GomocupEngineAgent::<Freestyle15>::from_spec(&spec).unwrap();
    assert_eq!(agent.name(), "gomocup-engine:cmd=sh -c true,turn_ms=100");
    assert_eq!(agent.config().turn, Duration::from_millis(100));
    // A spec naming no program is refused when read, not at every game's first move.
    for (cmd, why) in [
        (
            "/nonexistent/pbrain-x",
            "no program at /nonexistent/pbrain-x",
        ),
        ("/etc/passwd", "/etc/passwd is not an executable file"),
        (
            "no-such-brain-on-path",
            "no program \"no-such-brain-on-path\" on PATH",
        ),
    ] {
        let spec: search::Spec = format!("gomocup-engine:cmd={cmd}").parse().unwrap();
        let err = GomocupEngineAgent::<Freestyle15>::from_spec(&spec)
            .err()
            .expect("a missing program");
        assert!(err.to_string().contains(why), "{err}");
    }
    // A program that vanishes after the spec is read fails at the first move.
    let config = GomocupEngineConfig::new(vec!["/nonexistent/pbrain-x".into()]);
    let (why, _) = failure(config);
    assert!(why.contains("cannot start engine"), "{why}");
}
