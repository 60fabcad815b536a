//! The JSON API through the router: every route, every kind of bad input (malformed JSON,
//! unknown games and agents, illegal and out-of-range moves, unknown ids), busy games, and
//! whole games to the end.

mod common;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

use search::{Registry, ZeroEvaluator};
use web::{AppGames, ServerConfig};

use common::{call, othello_registry};

fn catalog() -> AppGames {
    let othello6 = othello_registry::<6>();
    let othello8 = othello_registry::<8>();
    let renju =
        Registry::<gomoku::Renju15>::generic(Arc::new(ZeroEvaluator), Arc::new(ZeroEvaluator));
    let gomoku15 =
        Registry::<gomoku::Gomoku15>::generic(Arc::new(ZeroEvaluator), Arc::new(ZeroEvaluator));
    AppGames::new()
        .with("Othello 6x6", othello6, "random", "greedy")
        .with("Othello 8x8", othello8, "alphabeta:time=3s", "greedy")
        .with("Gomoku 15x15", gomoku15, "random", "greedy")
        .with("Renju 15x15", renju, "random", "greedy")
}

fn app() -> Router {
    web::router(catalog(), ServerConfig::default())
}

async fn new_game(app: &Router, body: Value) -> Value {
    let (status, state) = call(app, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{state}");
    state
}

fn id(state: &Value) -> String {
    state["id"].as_str().expect("id").to_string()
}

#[tokio::test]
async fn catalog_agents_and_static_files() {
    let app = app();
    let (status, cat) = call(&app, "GET", "/api/catalog", None).await;
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<&str> = cat["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["othello6", "othello8", "gomoku15", "renju15"]);
    let (status, agents) = call(&app, "GET", "/api/agents?game=othello6", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["name"] == "alphabeta"));
    for bad in ["/api/agents", "/api/agents?game=chess"] {
        let (status, err) = call(&app, "GET", bad, None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(err["error"].as_str().is_some());
    }
    let (status, err) = call(&app, "GET", "/nope", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(err["error"].as_str().is_some());
    let resp = app
        .clone()
        .oneshot(
            Request::builder()
                .header("host", "localhost")
                .uri("/")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
}

#[tokio::test]
async fn creating_games_validates_everything() {
    let app = app();
    let state = new_game(
        &app,
        json!({"game": "othello6", "black": "human", "white": "greedy", "seed": 3}),
    )
    .await;
    assert_eq!(state["id"].as_str().unwrap().len(), 32);
    assert_eq!(state["to_move"], "black");
    assert_eq!(state["legal"].as_array().unwrap().len(), 4);
    assert_eq!(state["counts"], json!({"black": 2, "white": 2}));
    assert_eq!(state["players"]["white"], "greedy");
    // Defaults: black human, white the game's default agent.
    let state = new_game(&app, json!({"game": "gomoku15"})).await;
    assert_eq!(
        state["players"],
        json!({"black": "human", "white": "random"})
    );
    assert_eq!(state["cells"].as_str().unwrap().len(), 225);

    for (body, want) in [
        ("{", StatusCode::BAD_REQUEST),
        ("[]", StatusCode::BAD_REQUEST),
        (r#"{"game": 5}"#, StatusCode::BAD_REQUEST),
        (r#"{"game": "chess"}"#, StatusCode::BAD_REQUEST),
        (
            r#"{"game": "othello6", "white": "alphabeta:dpth=3"}"#,
            StatusCode::BAD_REQUEST,
        ),
        (
            r#"{"game": "othello6", "black": "deep-blue"}"#,
            StatusCode::BAD_REQUEST,
        ),
        (
            r#"{"game": "othello6", "colour": "red"}"#,
            StatusCode::BAD_REQUEST,
        ),
        (
            r#"{"game": "othello6", "seed": -1}"#,
            StatusCode::BAD_REQUEST,
        ),
        (
            r#"{"game": "othello6", "seed": 18446744073709551616}"#,
            StatusCode::BAD_REQUEST,
        ),
        (
            r#"{"game": "othello6", "seed": 1.5}"#,
            StatusCode::BAD_REQUEST,
        ),
        (
            r#"{"game": "othello6", "seed": "7"}"#,
            StatusCode::BAD_REQUEST,
        ),
        // A page never names a file on the server.
        (
            r#"{"game": "othello8", "white": "othello:weights=/etc/passwd"}"#,
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let (status, err) = call(&app, "POST", "/api/games", Some(body)).await;
        assert_eq!(status, want, "{body}: {err}");
        if body.contains("weights=") {
            let message = err["error"].as_str().unwrap_or_default();
            // This catalog has no `othello` engine (tests/file_keys.rs tries every registry).
            assert!(
                message.contains("names a file on the server")
                    || message.contains("unknown agent \"othello\""),
                "{message}"
            );
        }
        if body.contains("seed") {
            let message = err["error"].as_str().unwrap_or_default();
            assert!(
                message.contains("a whole number from 0 to 18446744073709551615"),
                "{message}"
            );
        }
        assert!(
            err["error"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    }
}

/// Every route with a body reads it as UTF-8 JSON by its declared type alike: no type, another
/// type or another charset is a 415 naming it (and changes nothing); `application/json` with
/// `charset=utf-8` (any case, quoted or not) or a `+json` type is read; an empty optional body
/// is the defaults whatever its type.
#[tokio::test]
async fn every_route_reads_bodies_by_their_declared_type_alike() {
    let app = app();
    let state = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let id = id(&state);
    let send = |method: &str, uri: String, kind: Option<&str>, body: &str| {
        let mut req = Request::builder()
            .header("host", "localhost")
            .method(method)
            .uri(uri);
        if let Some(kind) = kind {
            req = req.header("content-type", kind);
        }
        let req = req.body(Body::from(body.to_string())).unwrap();
        let app = app.clone();
        async move {
            let resp = app.oneshot(req).await.unwrap();
            let status = resp.status();
            let bytes = resp.into_body().collect().await.unwrap().to_bytes();
            (
                status,
                serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null),
            )
        }
    };
    let routes = [
        (
            "POST",
            "/api/games".to_string(),
            r#"{"game": "othello6", "white": "human"}"#,
        ),
        ("POST", format!("/api/games/{id}/move"), r#"{"move": "zz"}"#),
        (
            "POST",
            format!("/api/games/{id}/position"),
            r#"{"text": "?"}"#,
        ),
        ("POST", format!("/api/games/{id}/players"), "{}"),
        ("POST", format!("/api/games/{id}/undo"), "{}"),
        (
            "POST",
            format!("/api/games/{id}/agent-move"),
            r#"{"time_ms": 10}"#,
        ),
        (
            "POST",
            format!("/api/games/{id}/hint"),
            r#"{"time_ms": 10}"#,
        ),
    ];
    let (_, before) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    for (method, uri, body) in &routes {
        for (kind, named) in [
            (None, "Content-Type"),
            (Some("text/plain"), "text/plain"),
            (
                Some("application/x-www-form-urlencoded"),
                "x-www-form-urlencoded",
            ),
            (Some("application/json; charset=utf-16"), "utf-16"),
            (Some("application/json;charset=\"latin1\""), "latin1"),
        ] {
            let (status, err) = send(method, uri.clone(), kind, body).await;
            assert_eq!(
                status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{uri} {kind:?}: {err}"
            );
            let message = err["error"].as_str().unwrap_or_default();
            assert!(message.contains(named), "{uri} {kind:?}: {err}");
        }
        for kind in [
            "application/json; charset=UTF-8",
            "application/json;charset=\"utf-8\"",
            "Application/JSON",
            "application/vnd.stonelab+json",
        ] {
            let (status, reply) = send(method, uri.clone(), Some(kind), body).await;
            assert_ne!(
                status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{uri} {kind}: {reply}"
            );
            assert_ne!(status, StatusCode::BAD_REQUEST, "{uri} {kind}: {reply}");
        }
    }
    for (method, uri, _) in &routes[3..] {
        let (status, reply) = send(method, uri.clone(), Some("text/plain"), "").await;
        assert_ne!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{uri}: {reply}");
    }
    // The refused requests changed nothing: the game is where it was (the accepted ones above
    // were an illegal move, an unreadable position, players unchanged, an undo of nothing, an
    // agent move and a hint with no agent to move: all refused or no-ops).
    let (_, after) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(after["board"], before["board"]);
}

#[tokio::test]
async fn bad_moves_change_nothing() {
    let app = app();
    let state = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let id = id(&state);
    let uri = format!("/api/games/{id}/move");
    for (body, want) in [
        (r#"{"move": "a1"}"#, StatusCode::UNPROCESSABLE_ENTITY),
        (r#"{"move": "g7"}"#, StatusCode::UNPROCESSABLE_ENTITY),
        (r#"{"move": "z99"}"#, StatusCode::UNPROCESSABLE_ENTITY),
        (r#"{"move": "pass"}"#, StatusCode::UNPROCESSABLE_ENTITY),
        (r#"{"move": ""}"#, StatusCode::UNPROCESSABLE_ENTITY),
        (r#"{"move": 3}"#, StatusCode::BAD_REQUEST),
        (r#"{"mv": "c2"}"#, StatusCode::BAD_REQUEST),
        ("not json", StatusCode::BAD_REQUEST),
    ] {
        let (status, err) = call(&app, "POST", &uri, Some(body)).await;
        assert_eq!(status, want, "{body}: {err}");
        assert!(err["error"].as_str().is_some(), "{body}");
        let (_, now) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
        assert_eq!(now["cells"], state["cells"], "{body} changed the board");
        assert_eq!(now["moves"], json!([]));
    }
    let (status, _) = call(&app, "POST", &uri, Some(r#"{"move": "C2"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    // Unknown and malformed ids.
    for bad in ["00000000000000000000000000000000", "x", "../../etc"] {
        let (status, err) = call(&app, "GET", &format!("/api/games/{bad}"), None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{bad}");
        assert!(err["error"].as_str().is_some());
        let (status, _) = call(
            &app,
            "POST",
            &format!("/api/games/{bad}/move"),
            Some(r#"{"move":"c2"}"#),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
}

#[tokio::test]
async fn agents_reply_undo_and_hint() {
    let app = app();
    let state = new_game(
        &app,
        json!({"game": "othello6", "white": "greedy", "seed": 1}),
    )
    .await;
    let id = id(&state);
    // Black is human: the agent may not move for it.
    let (status, err) = call(&app, "POST", &format!("/api/games/{id}/agent-move"), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    let (status, _) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "c2"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, reply) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/agent-move"),
        Some(r#"{"time_ms": 100}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["decision"]["side"], "white");
    // Greedy scores in discs (100 per disc): its eval says so, in words too.
    let decision = &reply["decision"];
    assert_eq!(decision["eval"]["kind"], "units", "{decision}");
    assert_eq!(
        decision["eval"]["value"].as_f64(),
        decision["score"].as_f64().map(|s| s / 100.0),
        "{decision}"
    );
    assert!(decision["eval"]["text"].is_string(), "{decision}");
    let state = &reply["state"];
    assert_eq!(
        state["eval_texts"][0],
        Value::Null,
        "the human's move has none"
    );
    assert!(state["eval_texts"][1].is_string(), "{state}");
    assert_eq!(state["moves"].as_array().unwrap().len(), 2);
    assert_eq!(state["to_move"], "black");
    assert!(state["human_to_move"].as_bool().unwrap());
    assert_eq!(state["last"]["color"], "white");
    assert!(!state["flipped"].as_array().unwrap().is_empty());
    // The hint is a legal move and changes nothing.
    let (status, hint) = call(&app, "POST", &format!("/api/games/{id}/hint"), None).await;
    assert_eq!(status, StatusCode::OK, "{hint}");
    let legal: Vec<&str> = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert!(legal.contains(&hint["move"].as_str().unwrap()), "{hint}");
    // Undo takes no field: an unknown one is refused, and nothing is undone.
    let (status, err) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/undo"),
        Some("{\"x\": 1}"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert!(
        err["error"].as_str().unwrap().contains("unknown field"),
        "{err}"
    );
    let (_, kept) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_ne!(kept["moves"], json!([]));
    // Undo goes back to the human's turn: the start.
    let (status, back) = call(&app, "POST", &format!("/api/games/{id}/undo"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(back["moves"], json!([]));
    let (status, _) = call(&app, "POST", &format!("/api/games/{id}/undo"), None).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Analysis scores every legal move.
    let (status, analysis) = call(
        &app,
        "GET",
        &format!("/api/games/{id}/analysis?time_ms=100"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{analysis}");
    assert_eq!(analysis["moves"].as_array().unwrap().len(), 4);
    for m in analysis["moves"].as_array().unwrap() {
        let kind = m["eval"]["kind"].as_str().unwrap_or_default();
        assert!(kind == "units" || kind == "proven", "{m}");
    }
    let (status, _) = call(
        &app,
        "GET",
        &format!("/api/games/{id}/analysis?time_ms=abc"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Players can change; bad specs are refused and change nothing.
    let (status, err) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/players"),
        Some(r#"{"white": "nonsense"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    let (status, st) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/players"),
        Some(r#"{"black": "random"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(st["players"], json!({"black": "random", "white": "greedy"}));
}

#[tokio::test]
async fn positions_from_transcripts_and_board_strings() {
    let app = app();
    let state = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let id = id(&state);
    let uri = format!("/api/games/{id}/position");
    let (status, st) = call(&app, "POST", &uri, Some(r#"{"text": "c2b4"}"#)).await;
    assert_eq!(status, StatusCode::OK, "{st}");
    assert_eq!(st["moves"], json!(["c2", "b4"]));
    assert_eq!(st["transcript"], "c2b4");
    let board = st["board_string"].as_str().unwrap().to_string();
    let (status, st2) = call(
        &app,
        "POST",
        &uri,
        Some(&json!({"text": board}).to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(st2["cells"], st["cells"]);
    assert_eq!(st2["moves"], json!([]));
    for bad in [
        r#"{"text": "c2c2"}"#,
        r#"{"text": "hello"}"#,
        r#"{"text": ""}"#,
    ] {
        let (status, err) = call(&app, "POST", &uri, Some(bad)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {err}");
        let (_, now) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
        assert_eq!(now["cells"], st2["cells"]);
    }
}

#[tokio::test]
async fn gomoku_marks_fouls_and_the_winning_line() {
    let app = app();
    let state = new_game(&app, json!({"game": "renju15", "white": "human"})).await;
    let id = id(&state);
    let uri = format!("/api/games/{id}/position");
    // Black f8 g8 h6 h7 (white elsewhere), black to move: h8 is a double three.
    let (status, st) = call(
        &app,
        "POST",
        &uri,
        Some(r#"{"text": "f8 a1 g8 a3 h6 a5 h7 a7"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{st}");
    let forbidden = st["forbidden"].as_array().unwrap();
    // h8: rank 8 is row 7 from the top of 15 ranks, file h is column 7.
    assert!(forbidden.contains(&json!(7 * 15 + 7)), "{forbidden:?}");
    let (status, err) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "h8"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    // Five in a row ends the game with the line marked.
    let (status, st) = call(
        &app,
        "POST",
        &uri,
        Some(r#"{"text": "a15 b1 b15 c1 c15 d1 d15 e1 e15"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{st}");
    assert!(st["over"].as_bool().unwrap());
    assert_eq!(st["result"]["winner"], "black");
    assert_eq!(st["winning_line"].as_array().unwrap().len(), 5);
    let (status, _) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "o1"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
}

#[tokio::test]
async fn a_whole_6x6_game_against_random() {
    let app = app();
    let state = new_game(
        &app,
        json!({"game": "othello6", "white": "random", "seed": 5}),
    )
    .await;
    let id = id(&state);
    let mut state = state;
    let mut plies = 0;
    while !state["over"].as_bool().unwrap() {
        plies += 1;
        assert!(plies < 200, "the game does not end");
        if state["human_to_move"].as_bool().unwrap() {
            let mv = if state["must_pass"].as_bool().unwrap() {
                "pass".to_string()
            } else {
                state["legal"][0]["move"].as_str().unwrap().to_string()
            };
            let (status, st) = call(
                &app,
                "POST",
                &format!("/api/games/{id}/move"),
                Some(&json!({"move": mv}).to_string()),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{st}");
            state = st;
        } else {
            let (status, reply) =
                call(&app, "POST", &format!("/api/games/{id}/agent-move"), None).await;
            assert_eq!(status, StatusCode::OK, "{reply}");
            state = reply["state"].clone();
        }
    }
    let text = state["result"]["text"].as_str().unwrap();
    assert!(text.contains("wins") || text.contains("Draw"), "{text}");
    let (b, w) = (
        state["counts"]["black"].as_u64().unwrap(),
        state["counts"]["white"].as_u64().unwrap(),
    );
    assert!(b + w <= 36);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thinking_game_is_busy_and_others_are_not() {
    let app = app();
    let state = new_game(
        &app,
        json!({"game": "othello8", "black": "alphabeta:time=3s", "white": "human"}),
    )
    .await;
    let id = id(&state);
    let other = id_of(new_game(&app, json!({"game": "othello6", "white": "human"})).await);
    let thinking = {
        let app = app.clone();
        let id = id.clone();
        tokio::spawn(async move {
            call(
                &app,
                "POST",
                &format!("/api/games/{id}/agent-move"),
                Some(r#"{"time_ms": 1500}"#),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, now) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(now["busy"], true);
    let (status, err) = call(&app, "POST", &format!("/api/games/{id}/undo"), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    // Another game is served meanwhile.
    let (status, _) = call(
        &app,
        "POST",
        &format!("/api/games/{other}/move"),
        Some(r#"{"move": "c2"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, reply) = thinking.await.expect("task");
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert!(reply["decision"]["time_ms"].as_u64().unwrap() <= 3000);
    assert_eq!(reply["state"]["busy"], false);
}

fn id_of(state: Value) -> String {
    id(&state)
}

#[tokio::test]
async fn garbage_never_breaks_the_server() {
    let app = app();
    let state = new_game(&app, json!({"game": "gomoku15", "white": "human"})).await;
    let id = id(&state);
    let bodies = [
        "",
        "{}",
        "null",
        "\"x\"",
        "{\"move\": null}",
        "{\"time_ms\": -5}",
        "{\"text\": 1}",
        "\u{0}\u{1}",
        "{\"move\": \"\u{202e}h8\"}",
    ];
    for route in ["move", "agent-move", "undo", "hint", "players", "position"] {
        for body in bodies {
            let (status, v) = call(
                &app,
                "POST",
                &format!("/api/games/{id}/{route}"),
                Some(body),
            )
            .await;
            // `{}` is a valid body for some routes (hint, players: defaults); nothing is a 5xx.
            assert!(!status.is_server_error(), "{route} {body:?}: {status} {v}");
            if !status.is_success() {
                assert!(v["error"].as_str().is_some(), "{route} {body:?}");
            }
        }
    }
    let (_, now) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(now["moves"], json!([]));
}

#[tokio::test]
async fn idle_games_expire() {
    let config = ServerConfig {
        idle: Duration::from_millis(200),
        ..ServerConfig::default()
    };
    let app = web::router(catalog(), config);
    let state = new_game(&app, json!({"game": "othello6"})).await;
    let id = id(&state);
    let (status, _) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (status, err) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{err}");
    assert!(err["error"].as_str().unwrap().contains("expired"));
}

#[tokio::test]
async fn events_stream_the_state() {
    let app = app();
    let state = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let id = id(&state);
    let resp = app
        .clone()
        .oneshot(
            Request::builder()
                .header("host", "localhost")
                .uri(format!("/api/games/{id}/events"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body();
    let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("an event in time")
        .expect("a frame")
        .expect("no error");
    let text = String::from_utf8(frame.into_data().expect("data").to_vec()).expect("utf-8");
    assert!(text.starts_with("event: state"), "{text}");
    assert!(text.contains(&id), "{text}");
    // A move is published to the stream.
    let (status, _) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "c2"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("an event in time")
        .expect("a frame")
        .expect("no error");
    let text = String::from_utf8(frame.into_data().expect("data").to_vec()).expect("utf-8");
    assert!(text.contains("\"c2\""), "{text}");
}

#[tokio::test]
async fn moves_for_an_agent_limits_deletion_and_hosts() {
    let app = app();
    // The side to move is an agent: a plain move is refused.
    let state = new_game(
        &app,
        json!({"game": "othello6", "black": "greedy", "white": "human"}),
    )
    .await;
    let id = id(&state);
    let (status, err) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "c2"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    // Specs that would take gigabytes, minutes or many threads are refused.
    for spec in [
        "alphabeta:tt=24",
        "alphabeta:depth=3,tt=21",
        "alphabeta:depth=3,threads=64",
    ] {
        let (status, err) = call(
            &app,
            "POST",
            "/api/games",
            Some(&json!({"game": "othello6", "white": spec}).to_string()),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{spec}: {err}");
    }
    // Empty bodies are fine for the optional ones, whatever the content type.
    let (status, _) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/agent-move"),
        Some(""),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // DELETE frees a game.
    let (status, _) = call(&app, "DELETE", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A path that is not UTF-8 is a JSON error too.
    let (status, err) = call(&app, "GET", "/api/games/%FF", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(err["error"].as_str().is_some(), "{err}");
    // A wrong method is a JSON error too.
    let (status, err) = call(&app, "PUT", "/api/games", Some("{}")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(err["error"].as_str().is_some());
    // Only loopback host names are answered (no DNS rebinding).
    for (host, want) in [
        ("localhost:8080", StatusCode::OK),
        ("127.0.0.1:8080", StatusCode::OK),
        ("[::1]:8080", StatusCode::OK),
        ("evil.example:8080", StatusCode::FORBIDDEN),
        ("127.0.0.1.evil.example", StatusCode::FORBIDDEN),
    ] {
        let resp = app
            .clone()
            .oneshot(
                Request::builder()
                    .header("host", "localhost")
                    .uri("/api/catalog")
                    .header("host", host)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(resp.status(), want, "{host}");
    }
}

/// The 6x6 analysis lists its moves best first on every position, and `time_ms` governs the
/// search: a longer analysis of a midgame position takes longer (it was capped at depth 8 and
/// answered in ~30 ms whatever the time).
#[tokio::test]
async fn othello6_analysis_is_best_first_and_takes_its_time() {
    use game::Game;
    let registry = catalog::local_registry::<othello::Othello6>();
    let app = web::router(
        AppGames::new().with("Othello 6x6", registry, "random", "random"),
        ServerConfig::default(),
    );
    let state = new_game(&app, json!({"game": "othello6", "white": "human"})).await;
    let id = id(&state);
    let uri = format!("/api/games/{id}/position");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut positions = Vec::new();
    while positions.len() < 12 {
        let mut pos = othello::Othello6::new();
        let plies = 4 + positions.len() * 2;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if pos.is_over() || moves.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos = pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
        }
        if !pos.is_over() && pos.legal_moves().len() > 1 {
            positions.push(pos);
        }
    }
    for position in &positions {
        let text = json!({ "text": position.board_string() }).to_string();
        let (status, st) = call(&app, "POST", &uri, Some(&text)).await;
        assert_eq!(status, StatusCode::OK, "{st}");
        let (status, analysis) = call(
            &app,
            "GET",
            &format!("/api/games/{id}/analysis?time_ms=120"),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{analysis}");
        let scores: Vec<i64> = analysis["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["score"].as_i64().unwrap())
            .collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "{position}: {analysis}"
        );
    }
    // A midgame position (beyond the solver's 14 empties): 600 ms searches for most of it.
    let midgame = positions
        .iter()
        .find(|p| p.empty().count_ones() >= 20)
        .expect("a midgame position");
    let text = json!({ "text": midgame.board_string() }).to_string();
    let (status, _) = call(&app, "POST", &uri, Some(&text)).await;
    assert_eq!(status, StatusCode::OK);
    let started = std::time::Instant::now();
    let (status, _) = call(
        &app,
        "GET",
        &format!("/api/games/{id}/analysis?time_ms=600"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let took = started.elapsed();
    assert!(
        took >= std::time::Duration::from_millis(300),
        "{took:?} for 600 ms"
    );
}

/// With the engine in the registry, the 8x8 overlay is the engine's multi-PV analysis: every
/// legal move once, the alternatives best first, and near the end every score exact (checked
/// against the solver move by move).
#[tokio::test]
async fn othello8_analysis_is_the_engines_multi_pv() {
    use game::Game;
    let registry = catalog::local_registry::<othello::Othello8>();
    let app = web::router(
        AppGames::new().with("Othello 8x8", registry, "random", "othello:book=off"),
        ServerConfig::default(),
    );
    let state = new_game(&app, json!({"game": "othello8", "white": "human"})).await;
    let id = id(&state);
    // A fixed midgame position, then one 11 empties from the end (first legal moves).
    let mut pos = othello::Othello8::new();
    let mut midgame = None;
    while pos.empty().count_ones() > 11 {
        if pos.empty().count_ones() == 40 {
            midgame = Some(pos);
        }
        let moves = pos.legal_moves();
        let mv = moves[moves.len() / 2];
        pos = pos.play_unchecked(mv);
    }
    assert!(!pos.is_over());
    let uri = format!("/api/games/{id}/position");
    for (position, exact) in [(midgame.unwrap(), false), (pos, true)] {
        let text = json!({ "text": position.board_string() }).to_string();
        let (status, st) = call(&app, "POST", &uri, Some(&text)).await;
        assert_eq!(status, StatusCode::OK, "{st}");
        let (status, analysis) = call(
            &app,
            "GET",
            &format!("/api/games/{id}/analysis?time_ms=400"),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{analysis}");
        let lines = analysis["moves"].as_array().unwrap();
        let mut legal: Vec<String> = position
            .legal_moves()
            .iter()
            .map(ToString::to_string)
            .collect();
        let mut seen: Vec<String> = lines
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect();
        legal.sort();
        seen.sort();
        assert_eq!(seen, legal, "{analysis}");
        let scores: Vec<i64> = lines.iter().map(|m| m["score"].as_i64().unwrap()).collect();
        // Best first, the engine's own choice included (API.md).
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{analysis}");
        if exact {
            let mut solver = othello_engine::Solver::<8>::new(16);
            for m in lines {
                assert_eq!(m["eval"]["kind"], "proven", "{m}");
                let mv = position
                    .legal_moves()
                    .into_iter()
                    .find(|mv| mv.to_string() == m["move"].as_str().unwrap())
                    .unwrap();
                let after = position.play_unchecked(mv);
                let truth = if after.is_over() {
                    after.outcome().unwrap().score_for(position.side_to_move())
                } else {
                    -solver.solve(&after).score
                };
                assert_eq!(m["score"].as_i64().unwrap(), i64::from(truth), "{m}");
            }
        } else {
            for m in lines {
                assert_eq!(m["eval"]["kind"], "units", "{m}");
            }
        }
    }
}
