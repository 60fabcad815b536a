//! The server's memory is bounded by its budget, not by its game count: games hold no search
//! tables, and running searches share the budget. One test in this file, so that the process's
//! resident memory is this test's alone (Linux: `/proc/self/status`).

mod common;

use std::time::Duration;

use axum::http::StatusCode;
use axum::Router;
use serde_json::{json, Value};

use web::{AppGames, ServerConfig};

const MIB: u64 = 1 << 20;

/// `VmRSS` and `VmHWM` (peak) of this process, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect(name)
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn call(app: &Router, method: &str, uri: &str, body: Value) -> (StatusCode, Value) {
    common::call_json(app, method, uri, Some(body)).await
}

async fn create(app: &Router, game: &str, black: &str, white: &str) -> String {
    let (status, state) = call(
        app,
        "POST",
        "/api/games",
        json!({"game": game, "black": black, "white": white, "seed": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{state}");
    state["id"].as_str().expect("id").to_string()
}

#[cfg(target_os = "linux")]
#[test]
fn memory_stays_under_the_budget_whatever_the_games() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let budget = 256 * MIB;
        // Six workers, so the budget (not the pool) is what bounds the tables below.
        let config = ServerConfig {
            workers: 6,
            memory_budget: budget as usize,
            ..ServerConfig::default()
        };
        let app = web::router(AppGames::standard(), config);
        // Warm up the shared tables (Gomoku patterns) and the allocator.
        create(&app, "gomoku15", "gomoku", "gomoku").await;
        let (before, _) = memory();

        // The worst-case games, created and not played: they hold no tables.
        let mut solvers = Vec::new();
        for _ in 0..20 {
            solvers.push(create(&app, "othello8", "solver", "solver").await);
            create(&app, "othello8", "alphabeta:tt=20", "alphabeta:tt=20").await;
            create(&app, "gomoku15", "gomoku", "gomoku").await;
            create(&app, "othello8", "mcts:time=1s", "mcts:time=1s").await;
        }
        let (after, _) = memory();
        assert!(
            after.saturating_sub(before) < 32 * MIB,
            "80 unplayed games took {} MiB",
            (after - before) / MIB
        );

        // Six exact endgame searches at once (each reserves the solver's table): at most as
        // many run as the budget holds, and the peak stays under it.
        let ffo = othello_engine::obf::ffo_suite();
        let mut tasks = Vec::new();
        for (k, id) in solvers.iter().take(6).enumerate() {
            let (status, state) = call(
                &app,
                "POST",
                &format!("/api/games/{id}/position"),
                json!({"text": ffo[k].pos.to_string()}),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{state}");
            let app = app.clone();
            let uri = format!("/api/games/{id}/agent-move");
            tasks.push(tokio::spawn(async move {
                call(&app, "POST", &uri, json!({"time_ms": 2000})).await
            }));
        }
        for task in tasks {
            let (status, reply) = task.await.expect("task");
            assert_eq!(status, StatusCode::OK, "{reply}");
            assert_eq!(reply["decision"]["eval"]["kind"], "proven", "{reply}");
            assert_eq!(reply["decision"]["exact"], true, "{reply}");
        }
        let (_, peak) = memory();
        assert!(
            peak.saturating_sub(before) < budget + 48 * MIB,
            "peak {} MiB above the start, budget {} MiB",
            (peak - before) / MIB,
            budget / MIB
        );

        // A budget smaller than one search's tables refuses that agent clearly when it is
        // chosen (a 400, not a 503 at every move), and changes nothing.
        let small = web::router(
            AppGames::standard(),
            ServerConfig {
                memory_budget: (32 * MIB) as usize,
                queue_wait: Duration::from_millis(100),
                ..ServerConfig::default()
            },
        );
        let refused = |status: StatusCode, err: &Value| {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
            let text = err["error"].as_str().expect("error");
            assert!(
                text.contains("MiB of search tables") && text.contains("budget of 32 MiB"),
                "{text}"
            );
        };
        let (status, err) = call(
            &small,
            "POST",
            "/api/games",
            json!({"game": "othello8", "black": "solver", "white": "human", "seed": 1}),
        )
        .await;
        refused(status, &err);
        let id = create(&small, "othello8", "human", "human").await;
        let (_, state) = call(
            &small,
            "POST",
            &format!("/api/games/{id}/position"),
            json!({"text": ffo[0].pos.to_string()}),
        )
        .await;
        let (status, err) = call(
            &small,
            "POST",
            &format!("/api/games/{id}/players"),
            json!({"black": "solver"}),
        )
        .await;
        refused(status, &err);
        let (_, now) = call(&small, "GET", &format!("/api/games/{id}"), json!({})).await;
        assert_eq!(now["moves"], state["moves"]);
        assert_eq!(now["players"]["black"], "human");
        assert_eq!(now["busy"], false);
    });
}
