//! Loopback load test of the app server over the real catalog: worst-case games created and
//! left unplayed (resident memory), then many concurrent games played to the end against the
//! default and the heaviest agents, every request checked, latency percentiles of the agents'
//! replies and the peak resident memory against the tables' budget.
//!
//! `cargo bench -p stonelab-web --bench load -- [GAMES] [THINK_MS]` (defaults 200 and 50).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use web::{AppGames, ServerConfig};

/// `VmRSS` and `VmHWM` (peak) of this process in MiB (Linux; zeros elsewhere).
fn memory_mib() -> (u64, u64) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return (0, 0);
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The agents of game `k`: the app's default opponents and the heaviest specs it accepts.
fn matchup(k: usize) -> (&'static str, &'static str) {
    match k % 5 {
        0 => (
            "othello8",
            <othello::Othello8 as catalog::CatalogGame>::DEFAULT_OPPONENT,
        ),
        1 => ("gomoku15", "gomoku"),
        2 => ("othello8", "solver"),
        3 => ("othello8", "alphabeta:tt=20"),
        _ => ("othello6", "mcts"),
    }
}

/// Plays one whole game: human moves (the first legal one) and agent replies. Returns the
/// agent-reply latencies, or the first error.
async fn play(
    client: reqwest::Client,
    base: String,
    k: usize,
    think_ms: u64,
) -> Result<Vec<Duration>, String> {
    let (game, white) = matchup(k);
    let post = |url: String, body: Value| {
        let client = client.clone();
        async move {
            let resp = client
                .post(&url)
                .json(&body)
                .send()
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            let status = resp.status();
            let value: Value = resp.json().await.map_err(|e| format!("{url}: {e}"))?;
            if !status.is_success() {
                return Err(format!("{url}: {status} {value}"));
            }
            Ok::<Value, String>(value)
        }
    };
    let mut state = post(
        format!("{base}/api/games"),
        json!({"game": game, "black": "human", "white": white, "seed": k}),
    )
    .await?;
    let id = state["id"].as_str().unwrap_or_default().to_string();
    let mut latencies = Vec::new();
    let mut plies = 0;
    while !state["over"].as_bool().unwrap_or(true) {
        plies += 1;
        if plies > 400 {
            return Err(format!("game {id} does not end"));
        }
        if state["human_to_move"].as_bool().unwrap_or(false) {
            let mv = if state["must_pass"].as_bool().unwrap_or(false) {
                "pass".to_string()
            } else {
                state["legal"][0]["move"]
                    .as_str()
                    .unwrap_or("pass")
                    .to_string()
            };
            state = post(format!("{base}/api/games/{id}/move"), json!({"move": mv})).await?;
        } else {
            let started = Instant::now();
            let reply = post(
                format!("{base}/api/games/{id}/agent-move"),
                json!({"time_ms": think_ms}),
            )
            .await?;
            latencies.push(started.elapsed());
            state = reply["state"].clone();
        }
    }
    Ok(latencies)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn main() {
    let mut numbers = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<u64>().ok());
    let games = numbers.next().map_or(200, |g| g as usize);
    let think_ms = numbers.next().unwrap_or(50);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let config = ServerConfig {
            max_games: games.max(500) + 250,
            // Every game comes from this one loopback client.
            max_games_per_client: games.max(500) + 250,
            ..ServerConfig::default()
        };
        let (workers, budget) = (config.workers, config.memory_budget >> 20);
        tokio::spawn(web::serve(
            listener,
            AppGames::standard(),
            config,
            std::future::pending(),
        ));
        let base = format!("http://{addr}");
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(games)
            .build()
            .expect("client");
        let (start_rss, _) = memory_mib();
        // The worst case of the hardening issue: games created and never played.
        for k in 0..games {
            let (game, black, white) = match k % 3 {
                0 => ("othello8", "solver", "solver"),
                1 => ("othello8", "alphabeta:tt=20", "alphabeta:tt=20"),
                _ => ("gomoku15", "gomoku", "gomoku"),
            };
            let resp = client
                .post(format!("{base}/api/games"))
                .json(&json!({"game": game, "black": black, "white": white}))
                .send()
                .await
                .expect("create");
            assert!(resp.status().is_success(), "create: {}", resp.status());
        }
        let (idle_rss, _) = memory_mib();
        println!(
            "server: {workers} workers, memory budget {budget} MiB; resident at start {start_rss} MiB"
        );
        println!(
            "{games} unplayed worst-case games (solver vs solver, alphabeta:tt=20 x2, gomoku x2): resident {idle_rss} MiB (+{} MiB)",
            idle_rss.saturating_sub(start_rss)
        );
        let started = Instant::now();
        let tasks: Vec<_> = (0..games)
            .map(|k| tokio::spawn(play(client.clone(), base.clone(), k, think_ms)))
            .collect();
        let mut latencies = Vec::new();
        let mut errors = Vec::new();
        for task in tasks {
            match task.await {
                Ok(Ok(l)) => latencies.extend(l),
                Ok(Err(e)) => errors.push(e),
                Err(e) => errors.push(e.to_string()),
            }
        }
        let wall = started.elapsed();
        let (end_rss, peak_rss) = memory_mib();
        latencies.sort();
        println!(
            "{games} concurrent games played to the end over loopback (human vs the othello8 default, gomoku, solver, alphabeta:tt=20, mcts; {think_ms} ms per agent move)"
        );
        println!(
            "finished games: {}, errors: {}, agent replies: {}, wall time {:.2} s",
            games - errors.len(),
            errors.len(),
            latencies.len(),
            wall.as_secs_f64()
        );
        println!(
            "agent reply latency: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            percentile(&latencies, 50.0).as_secs_f64() * 1e3,
            percentile(&latencies, 95.0).as_secs_f64() * 1e3,
            percentile(&latencies, 99.0).as_secs_f64() * 1e3,
            latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3
        );
        println!(
            "resident memory: {end_rss} MiB at the end, peak {peak_rss} MiB (+{} MiB over the start; budget for tables {budget} MiB)",
            peak_rss.saturating_sub(start_rss)
        );
        for e in errors.iter().take(5) {
            println!("error: {e}");
        }
        if !errors.is_empty() {
            std::process::exit(1);
        }
    });
}
