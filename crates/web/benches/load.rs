//! Loopback load test of the app server: many concurrent games against `random` and `greedy`,
//! every request checked, latency percentiles of the agents' replies.
//!
//! `cargo bench -p stonelab-web --bench load` (optional arguments: games, default 200).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use search::Registry;
use web::{Catalog, ServerConfig};

fn catalog() -> Catalog {
    let othello8 = Registry::<othello::Othello8>::generic(
        Arc::new(othello_engine::Heuristic::<8>::default()),
        Arc::new(othello_engine::DiscDifference),
    );
    let gomoku15 = Registry::<gomoku::Gomoku15>::generic(
        Arc::new(gomoku_engine::WindowEvaluator),
        Arc::new(gomoku_engine::WindowEvaluator),
    );
    Catalog::new()
        .with("Othello 8x8", othello8, "greedy", "greedy")
        .with("Gomoku 15x15", gomoku15, "random", "random")
}

/// Plays one whole game: human moves (the first legal one) and agent replies. Returns the
/// agent-reply latencies, or the first error.
async fn play(client: reqwest::Client, base: String, k: usize) -> Result<Vec<Duration>, String> {
    let (game, white) = match k % 4 {
        0 => ("othello8", "greedy"),
        1 => ("othello8", "random"),
        2 => ("gomoku15", "random"),
        _ => ("gomoku15", "greedy"),
    };
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
            let reply = post(format!("{base}/api/games/{id}/agent-move"), json!({})).await?;
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
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(web::serve(listener, catalog(), ServerConfig::default(), std::future::pending()));
        let base = format!("http://{addr}");
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(games)
            .build()
            .expect("client");
        let started = Instant::now();
        let tasks: Vec<_> = (0..games)
            .map(|k| tokio::spawn(play(client.clone(), base.clone(), k)))
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
        latencies.sort();
        println!(
            "load test: {games} concurrent games (othello8 and gomoku15, human vs random/greedy) over loopback"
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
        for e in errors.iter().take(5) {
            println!("error: {e}");
        }
        if !errors.is_empty() {
            std::process::exit(1);
        }
    });
}
