//! What an outside reliability and security test found, each pinned: abandoned requests never
//! leave a game busy, a full store evicts its least recently used idle game, models are chosen
//! by name only, host names and security headers.

mod common;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use serde_json::{json, Value};
use tower::ServiceExt;

use web::{AppGames, ServerConfig};

use common::{call, call_json, othello_registry};

fn catalog() -> AppGames {
    let othello6 = othello_registry::<6>();
    let othello8 = othello_registry::<8>();
    AppGames::new()
        .with("Othello 6x6", othello6, "random", "greedy")
        .with("Othello 8x8", othello8, "greedy", "greedy")
}

async fn create(app: &Router, body: Value) -> (StatusCode, Value) {
    call(app, "POST", "/api/games", Some(&body.to_string())).await
}

async fn new_game(app: &Router, body: Value) -> String {
    let (status, state) = create(app, body).await;
    assert_eq!(status, StatusCode::CREATED, "{state}");
    state["id"].as_str().expect("id").to_string()
}

/// Starts an agent move on `id` in the background.
fn think(app: &Router, id: &str, ms: u64) -> tokio::task::JoinHandle<(StatusCode, Value)> {
    let app = app.clone();
    let uri = format!("/api/games/{id}/agent-move");
    tokio::spawn(async move {
        call(
            &app,
            "POST",
            &uri,
            Some(&json!({"time_ms": ms}).to_string()),
        )
        .await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_request_never_leaves_its_game_busy() {
    // One worker: while game A thinks, game B's request waits for the worker; its client goes
    // away (the request future is dropped) before the worker is free.
    let config = ServerConfig {
        workers: 1,
        ..ServerConfig::default()
    };
    let app = web::router(catalog(), config);
    let ai = json!({"game": "othello8", "black": "alphabeta:time=1500ms", "white": "alphabeta:time=1500ms"});
    let a = new_game(&app, ai.clone()).await;
    let b = new_game(&app, ai).await;
    let running = think(&app, &a, 1500);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let waiting = tokio::time::timeout(
        Duration::from_millis(300),
        call(
            &app,
            "POST",
            &format!("/api/games/{b}/agent-move"),
            Some("{}"),
        ),
    )
    .await;
    assert!(
        waiting.is_err(),
        "B's request should still wait for the worker"
    );
    let (status, reply) = running.await.expect("task");
    assert_eq!(status, StatusCode::OK, "{reply}");
    // B is not busy, its controls work, and it can think now.
    let (_, state) = call(&app, "GET", &format!("/api/games/{b}"), None).await;
    assert_eq!(state["busy"], false, "{state}");
    let (status, err) = call(&app, "POST", &format!("/api/games/{b}/players"), Some("{}")).await;
    assert_eq!(status, StatusCode::OK, "{err}");
    let (status, reply) = think(&app, &b, 100).await.expect("task");
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["state"]["busy"], false);
    // A heuristic midgame move is not exact.
    assert_eq!(reply["decision"]["exact"], false, "{reply}");
}

#[tokio::test]
async fn a_full_store_evicts_its_least_recently_used_idle_game() {
    let config = ServerConfig {
        max_games: 3,
        ..ServerConfig::default()
    };
    let app = web::router(catalog(), config);
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(new_game(&app, json!({"game": "othello6", "white": "human"})).await);
    }
    // Touch the first: the second is now the least recently used.
    let (status, _) = call(&app, "GET", &format!("/api/games/{}", ids[0]), None).await;
    assert_eq!(status, StatusCode::OK);
    // Quick creates beyond the cap succeed at once, each evicting the oldest idle game.
    for _ in 0..5 {
        ids.push(new_game(&app, json!({"game": "othello6", "white": "human"})).await);
    }
    let mut alive = Vec::new();
    for id in &ids {
        let (status, _) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
        alive.push(status == StatusCode::OK);
    }
    assert_eq!(alive.iter().filter(|&&a| a).count(), 3, "{alive:?}");
    assert!(alive[7], "the newest game is kept");
    assert!(!alive[1], "the least recently used game went first");
}

/// `workers` bounds threads, not searches: a search on two threads takes both workers of two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_on_several_threads_takes_as_many_workers() {
    let config = ServerConfig {
        workers: 2,
        queue_wait: Duration::from_millis(200),
        ..ServerConfig::default()
    };
    let app = web::router(
        AppGames::new().with(
            "Othello 8x8",
            catalog::local_registry::<othello::Othello8>(),
            "greedy",
            "greedy",
        ),
        config,
    );
    let wide = new_game(
        &app,
        json!({"game": "othello8", "black": "othello:threads=2,book=off", "white": "human"}),
    )
    .await;
    let other = new_game(
        &app,
        json!({"game": "othello8", "black": "greedy", "white": "human"}),
    )
    .await;
    // At least a third of its 3 s (it starts no iteration past that).
    let running = think(&app, &wide, 3000);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, err) = think(&app, &other, 10).await.expect("task");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{err}");
    assert!(err["error"].as_str().unwrap().contains("busy"), "{err}");
    let (status, done) = running.await.expect("task");
    assert_eq!(status, StatusCode::OK, "{done}");
    // Both workers free again.
    let (status, moved) = think(&app, &other, 10).await.expect("task");
    assert_eq!(status, StatusCode::OK, "{moved}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_full_of_thinking_games_refuses_clearly() {
    let config = ServerConfig {
        max_games: 1,
        workers: 1,
        ..ServerConfig::default()
    };
    let app = web::router(catalog(), config);
    let a = new_game(
        &app,
        json!({"game": "othello8", "black": "alphabeta:time=1s", "white": "human"}),
    )
    .await;
    let running = think(&app, &a, 1000);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, err) = create(&app, json!({"game": "othello6"})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{err}");
    assert!(
        err["error"].as_str().unwrap().contains("agent thinking"),
        "{err}"
    );
    assert_eq!(running.await.expect("task").0, StatusCode::OK);
    // Once it is idle, a new game takes its place.
    let (status, _) = create(&app, json!({"game": "othello6"})).await;
    assert_eq!(status, StatusCode::CREATED);
}

fn with_models() -> Router {
    let model = web::Model {
        name: "othello8-dqn".into(),
        game: "othello8".into(),
        algo: "dqn".into(),
        path: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../models/othello8-dqn.safetensors"),
    };
    let cnn = web::Model {
        name: "othello8-cnn".into(),
        game: "othello8".into(),
        algo: "cnn-minimax".into(),
        path: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../models/othello8-cnn.safetensors"),
    };
    web::router(
        AppGames::standard().with_models(vec![model, cnn]),
        ServerConfig::default(),
    )
}

#[tokio::test]
async fn models_are_chosen_by_name_and_no_path_is_ever_read() {
    let app = with_models();
    let (status, catalog) = call(&app, "GET", "/api/catalog", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        catalog["models"],
        json!([
            {"name": "othello8-dqn", "game": "othello8", "algo": "dqn", "spec": "dqn:model=othello8-dqn"},
            {"name": "othello8-cnn", "game": "othello8", "algo": "cnn-minimax", "spec": "cnn-minimax:model=othello8-cnn"}
        ]),
        "models are listed by name and game, never by path"
    );
    // Paths, even to real files, are refused without reading them.
    let real = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../models/othello8-dqn.safetensors");
    for spec in [
        "dqn:model=/etc/passwd".to_string(),
        format!("dqn:model={}", real.display()),
        "dqn:model=models/othello8-dqn.safetensors".to_string(),
    ] {
        let (status, err) = create(&app, json!({"game": "othello8", "white": spec})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{spec}: {err}");
        let text = err["error"].as_str().unwrap();
        // Only the models this agent plays are suggested.
        assert!(
            text.contains("is not one of this server's dqn models for othello8: choose one by name (othello8-dqn)"),
            "{spec}: {text}"
        );
        assert!(!text.contains("root") && !text.contains("card"), "{text}");
    }
    let (status, err) = create(
        &app,
        json!({"game": "othello8", "white": "q-mlp:model=/proc/self/environ"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let text = err["error"].as_str().unwrap();
    assert!(
        text.contains("this server offers no q-mlp models for othello8"),
        "{text}"
    );
    assert!(!text.contains("root"), "{text}");
    // The agent alone names the models to choose from.
    let (status, err) = create(&app, json!({"game": "othello8", "white": "dqn"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .contains("needs a model: choose one by name (dqn:model=othello8-dqn)"),
        "{err}"
    );
    // The 8x8 model is not offered for 6x6.
    let (status, err) = create(
        &app,
        json!({"game": "othello6", "white": "dqn:model=othello8-dqn"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .contains("no dqn models for othello6"),
        "{err}"
    );
    // By name it plays.
    let id = new_game(
        &app,
        json!({"game": "othello8", "black": "dqn:model=othello8-dqn", "white": "human"}),
    )
    .await;
    let (status, reply) = call(&app, "POST", &format!("/api/games/{id}/agent-move"), None).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["decision"]["agent"], "dqn:model=othello8-dqn");
}

/// Names are looked up per agent (a `cnn-minimax:model=` never picks a dqn model), and a model
/// that fails to load (its weights changed since the server started, a model of another agent
/// behind a name) is reported by its name: never the server's path to it, never checksums.
#[tokio::test]
async fn model_lookups_are_per_agent_and_messages_name_the_model_only() {
    let app = with_models();
    let (status, err) = create(
        &app,
        json!({"game": "othello8", "white": "cnn-minimax:model=othello8-dqn"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    let text = err["error"].as_str().unwrap_or_default();
    assert!(
        text.contains("is not one of this server's cnn-minimax models for othello8")
            && text.contains("(othello8-dqn is a model for dqn)")
            && text.contains("choose one by name (othello8-cnn)"),
        "{text}"
    );

    // A damaged model, and a card that names the wrong agent, behind offered names.
    let dir = std::env::temp_dir().join(format!("stonelab-web-damaged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("folder");
    let bundled = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models");
    for ext in ["safetensors", "json"] {
        std::fs::copy(
            bundled.join(format!("othello8-dqn.{ext}")),
            dir.join(format!("damaged.{ext}")),
        )
        .expect("copy");
        std::fs::copy(
            bundled.join(format!("othello8-dqn.{ext}")),
            dir.join(format!("other.{ext}")),
        )
        .expect("copy");
    }
    let mut bytes = std::fs::read(dir.join("damaged.safetensors")).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(dir.join("damaged.safetensors"), bytes).expect("write");
    let offered = |name: &str, algo: &str| web::Model {
        name: name.into(),
        game: "othello8".into(),
        algo: algo.into(),
        path: dir.join(format!("{name}.safetensors")),
    };
    let app = web::router(
        AppGames::standard().with_models(vec![
            offered("damaged", "dqn"),
            // Its card says dqn: played as cnn-minimax it is refused by the agent.
            offered("other", "cnn-minimax"),
        ]),
        ServerConfig::default(),
    );
    for (spec, says) in [
        ("dqn:model=damaged", "does not match"),
        ("cnn-minimax:model=other", "this is a model for dqn"),
    ] {
        let (status, err) = create(&app, json!({"game": "othello8", "white": spec})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{spec}: {err}");
        let text = err["error"].as_str().unwrap_or_default();
        let name = spec.rsplit('=').next().unwrap_or_default();
        assert!(
            text.contains(&format!("model {name:?} cannot be played")) && text.contains(says),
            "{spec}: {text}"
        );
        let folder = dir.display().to_string();
        assert!(!text.contains(&folder), "{spec}: the server's path: {text}");
        assert!(
            !text.contains(".safetensors"),
            "{spec}: a file name: {text}"
        );
        let hex_run = text
            .split(|c: char| !c.is_ascii_hexdigit())
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(hex_run < 64, "{spec}: a checksum: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn every_response_carries_the_security_headers_and_hosts_ignore_case() {
    let app = web::router(catalog(), ServerConfig::default());
    for (uri, host) in [
        ("/", "LOCALHOST:8080"),
        ("/app.js", "Localhost"),
        ("/api/catalog", "127.0.0.1"),
        ("/api/games/nope", "localhost"),
    ] {
        let resp = app
            .clone()
            .oneshot(
                Request::builder()
                    .uri(uri)
                    .header("host", host)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_ne!(resp.status(), StatusCode::FORBIDDEN, "{uri} {host}");
        let h = resp.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"),
            "{csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(h["x-frame-options"], "DENY");
        assert_eq!(h["x-content-type-options"], "nosniff");
    }
    // A refused host gets them too, a second Host header is checked like the first, and a
    // request with no Host header is refused as API.md says.
    let refused: [Vec<&str>; 3] = [vec![], vec!["evil.com"], vec!["localhost", "evil.com"]];
    for hosts in refused {
        let mut request = Request::builder().uri("/api/catalog");
        for host in &hosts {
            request = request.header("host", *host);
        }
        let resp = app
            .clone()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{hosts:?}");
        assert_eq!(resp.headers()["x-frame-options"], "DENY", "{hosts:?}");
        assert!(resp.headers().contains_key("content-security-policy"));
    }
}

/// Bodies are JSON objects: an array, which serde would read into a struct, is refused on
/// every route with a body, and nothing changes.
#[tokio::test]
async fn bodies_must_be_json_objects() {
    let app = web::router(catalog(), ServerConfig::default());
    let id = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let (_, before) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    for (uri, body) in [
        (
            "/api/games".to_string(),
            r#"["othello6", "human", "random", 5]"#,
        ),
        (format!("/api/games/{id}/move"), r#"["c2"]"#),
        (format!("/api/games/{id}/position"), r#"["f5"]"#),
        (format!("/api/games/{id}/undo"), "[]"),
        (format!("/api/games/{id}/agent-move"), "[50]"),
        (format!("/api/games/{id}/players"), r#"["greedy"]"#),
    ] {
        let (status, err) = call(&app, "POST", &uri, Some(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri} {body}: {err}");
        assert!(
            err["error"]
                .as_str()
                .unwrap()
                .contains("expected a JSON object"),
            "{err}"
        );
    }
    let (_, after) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(after, before);
    // The position limit counts characters, not bytes.
    let text = "€".repeat(4000);
    let (status, err) = call_json(
        &app,
        "POST",
        &format!("/api/games/{id}/position"),
        Some(json!({ "text": text })),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
}

/// A real server on a free loopback port: its address, the sender that stops it, its task.
async fn listen(
    config: ServerConfig,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(web::serve(listener, catalog(), config, async {
        let _ = stopped.await;
    }));
    (addr, stop, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_finishes_its_headers_is_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (addr, stop, server) = listen(ServerConfig {
        header_timeout: Duration::from_millis(300),
        ..ServerConfig::default()
    })
    .await;
    // A whole request is answered.
    let mut ok = tokio::net::TcpStream::connect(addr).await.expect("connect");
    ok.write_all(b"GET /api/catalog HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut reply = Vec::new();
    ok.read_to_end(&mut reply).await.expect("read");
    assert!(
        reply.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
    // Half-open connections (a partial head, then silence) are closed after the timeout.
    let mut slow = Vec::new();
    for _ in 0..20 {
        let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        s.write_all(b"GET / HTTP/1.1\r\nHost: local")
            .await
            .expect("write");
        slow.push(s);
    }
    for mut s in slow {
        let mut buf = [0u8; 256];
        let closed = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await;
        assert!(
            matches!(closed, Ok(Ok(_) | Err(_))),
            "a half-open connection stayed open past the header timeout"
        );
    }
    let _ = stop.send(());
    server.await.expect("task").expect("serve");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_arrives_gets_a_408_and_its_connection_closes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (addr, stop, server) = listen(ServerConfig {
        body_timeout: Duration::from_millis(300),
        ..ServerConfig::default()
    })
    .await;
    // A body declared over the cap is refused at once (413), not waited for.
    let mut huge = tokio::net::TcpStream::connect(addr).await.expect("connect");
    huge.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
          Content-Length: 99999999999\r\n\r\n{",
    )
    .await
    .expect("write");
    let mut reply = [0u8; 12];
    let read = tokio::time::timeout(Duration::from_millis(250), huge.read_exact(&mut reply)).await;
    assert!(read.is_ok(), "no answer before the body timeout");
    assert_eq!(&reply, b"HTTP/1.1 413");
    let mut slow = tokio::net::TcpStream::connect(addr).await.expect("connect");
    slow.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{",
    )
    .await
    .expect("write");
    let mut reply = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut reply)).await;
    assert!(
        read.is_ok(),
        "the connection stayed open past the body timeout"
    );
    let text = String::from_utf8_lossy(&reply);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("request body not received"), "{text}");
    // A whole body is still answered.
    let mut ok = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let body = json!({"game": "othello6"}).to_string();
    let request = format!(
        "POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    ok.write_all(request.as_bytes()).await.expect("write");
    let mut reply = Vec::new();
    ok.read_to_end(&mut reply).await.expect("read");
    let text = String::from_utf8_lossy(&reply);
    assert!(text.starts_with("HTTP/1.1 201"), "{text}");
    let _ = stop.send(());
    server.await.expect("task").expect("serve");
}

#[tokio::test]
async fn event_streams_are_capped_and_a_closed_one_frees_its_place() {
    let config = ServerConfig {
        max_event_streams: 2,
        ..ServerConfig::default()
    };
    let app = web::router(catalog(), config);
    let id = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let open = |app: &Router| {
        let request = Request::builder()
            .uri(format!("/api/games/{id}/events"))
            .header("host", "localhost")
            .body(Body::empty())
            .expect("request");
        app.clone().oneshot(request)
    };
    let first = open(&app).await.expect("response");
    let second = open(&app).await.expect("response");
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(second.status(), StatusCode::OK);
    let third = open(&app).await.expect("response");
    assert_eq!(third.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body = axum::body::to_bytes(third.into_body(), 64 * 1024)
        .await
        .expect("body");
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("event streams are open"), "{text}");
    // Other requests are still answered, and a closed stream frees its place.
    let (status, _) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    drop(first);
    let again = open(&app).await.expect("response");
    assert_eq!(again.status(), StatusCode::OK);
    drop(second);
}

#[tokio::test]
async fn an_oversized_body_gets_the_same_413_on_every_route() {
    let app = web::router(catalog(), ServerConfig::default());
    let id = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let padding = " ".repeat(100 * 1024);
    for route in [
        "/api/games".to_string(),
        format!("/api/games/{id}/move"),
        format!("/api/games/{id}/players"),
        format!("/api/games/{id}/agent-move"),
        format!("/api/games/{id}/hint"),
        format!("/api/games/{id}/position"),
    ] {
        let (status, err) = call(&app, "POST", &route, Some(&format!("{{}}{padding}"))).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{route}: {err}");
        assert!(
            err["error"]
                .as_str()
                .unwrap()
                .contains("larger than 64 KiB"),
            "{route}: {err}"
        );
    }
    // A position text within the body limit but over the position limit: 413 as well.
    let text = "c4 ".repeat(4000);
    let (status, err) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/position"),
        Some(&json!({"text": text}).to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{err}");
}

/// One HTTP/1.1 request to a real server from the local address `from` (any 127.x.y.z on
/// Linux): its status code and JSON body.
async fn request_from(
    addr: std::net::SocketAddr,
    from: [u8; 4],
    method: &str,
    path: &str,
    body: &str,
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(std::net::SocketAddr::from((from, 0)))
        .expect("bind a loopback address");
    let mut stream = socket.connect(addr).await.expect("connect");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await.expect("read");
    let text = String::from_utf8_lossy(&reply);
    let status = text
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP reply: {text}"));
    let json = text
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, json)
}

/// One client creating game after game pushes out only its own oldest games: another
/// client's games stay, however many the first creates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_push_out_another_clients_games() {
    let (addr, stop, server) = listen(ServerConfig {
        max_games: 6,
        max_games_per_client: 3,
        ..ServerConfig::default()
    })
    .await;
    let create = |from| async move {
        let game = json!({"game": "othello6", "white": "human"}).to_string();
        let (status, state) = request_from(addr, from, "POST", "/api/games", &game).await;
        assert_eq!(status, 201, "{state}");
        state["id"].as_str().expect("id").to_string()
    };
    let alive = |id: String| async move {
        request_from(addr, [127, 0, 0, 1], "GET", &format!("/api/games/{id}"), "")
            .await
            .0
            == 200
    };
    let mine = vec![create([127, 0, 0, 1]).await, create([127, 0, 0, 1]).await];
    let mut theirs = Vec::new();
    for _ in 0..8 {
        theirs.push(create([127, 0, 0, 2]).await);
    }
    for id in mine {
        assert!(alive(id).await, "another client's game was pushed out");
    }
    let mut kept = Vec::new();
    for id in theirs {
        kept.push(alive(id).await);
    }
    assert_eq!(
        kept,
        [false, false, false, false, false, true, true, true],
        "the busy client keeps its 3 newest games"
    );
    let _ = stop.send(());
    server.await.expect("task").expect("serve");
}
