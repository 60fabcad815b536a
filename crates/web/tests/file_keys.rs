//! No request can make the server read a file or start a program: every spec key of every agent
//! in every game's registry that names one is marked as such (checked by building each agent
//! with a path in every unmarked key: the answer must not depend on the file system), and the
//! server refuses every marked key through its one check, whichever route names the agent.

mod common;

use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use catalog::{with_game, CatalogGame, GameId};
use search::KeyKind;
use serde_json::json;

use common::call_json;

/// A folder of the test `name`'s own, with one file of garbage in it and a name that does not
/// exist.
fn probes(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("stonelab-file-keys-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join("present.bin");
    std::fs::write(
        &file,
        b"stonecor but not really: garbage bytes \x00\x01\x02",
    )
    .expect("file");
    (dir.clone(), file, dir.join("missing.bin"))
}

/// The bundled correction network: a valid file of a file-like key, which must be refused too.
fn valid_correction() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/othello8-correction.bin")
}

/// Building an agent with an unmarked key set to a path gives the same answer whether the path
/// is a file or names nothing: no unmarked key reads a file or starts a program.
#[test]
fn every_key_that_names_a_file_or_a_program_is_marked() {
    let (dir, present, missing) = probes("marked");
    let mut marked = Vec::new();
    for id in GameId::ALL {
        with_game!(id, G => {
            let registry = G::registry();
            for info in registry.describe() {
                for &(key, _) in &info.keys {
                    let kind = info.kind(key);
                    if kind != KeyKind::Setting {
                        marked.push(format!("{id} {}:{key} {kind:?}", info.name));
                        continue;
                    }
                    let answer = |path: &Path| {
                        let spec = format!("{}:{key}={}", info.name, path.display());
                        match registry.build(&spec, 1) {
                            Ok(_) => "built".to_string(),
                            Err(e) => e.to_string().replace(&path.display().to_string(), "PATH"),
                        }
                    };
                    assert_eq!(
                        answer(&present),
                        answer(&missing),
                        "{id} {}:{key} reads the file system but is not marked",
                        info.name
                    );
                }
            }
        });
    }
    // The keys known to name files and programs are among the marked ones, on every game that
    // offers their agent.
    for want in [
        "othello8 othello:weights File",
        "othello8 othello:correction File",
        "othello8 nboard-engine:cmd Program",
        "gomoku15 gomocup-engine:cmd Program",
        "renju15 gomocup-engine:cmd Program",
        "othello4 dqn:model Model",
        "omok cnn-minimax:model Model",
        "gomoku9 q-mlp:model Model",
    ] {
        assert!(
            marked.iter().any(|m| m.starts_with(want)),
            "{want} is not marked: {marked:#?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every marked key of every agent of every game (external engines included, as a server given
/// the whole registry would have them) is refused by the server with a path in it, a real file
/// or not, when a game is created and when its players are set; models are refused by path.
#[tokio::test]
async fn the_server_refuses_every_file_and_program_key_of_every_registry() {
    let (dir, present, missing) = probes("refused");
    let correction = valid_correction();
    assert!(correction.is_file(), "{correction:?}");
    let mut tried = 0;
    for id in GameId::ALL {
        let (catalog, infos) = with_game!(id, G => (
            web::AppGames::new().with(id.title(), G::registry(), "random", "random"),
            G::registry().describe(),
        ));
        let app = web::router(catalog, web::ServerConfig::default());
        let (status, state) = call_json(
            &app,
            "POST",
            "/api/games",
            Some(json!({"game": id.name(), "black": "human", "white": "human"})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{state}");
        let game = state["id"].as_str().expect("id").to_string();
        for info in &infos {
            for (key, kind) in &info.reaches {
                for path in [
                    &present,
                    &missing,
                    &correction,
                    &PathBuf::from("/etc/passwd"),
                ] {
                    let spec = format!("{}:{key}={}", info.name, path.display());
                    let want = match kind {
                        KeyKind::File { .. } => "names a file on the server",
                        KeyKind::Program => "starts a program on the server",
                        KeyKind::Model => "is not one of this server's",
                        KeyKind::Setting => unreachable!("only marked keys are listed"),
                    };
                    let bodies = [
                        (
                            "/api/games".to_string(),
                            "POST",
                            json!({"game": id.name(), "black": "human", "white": spec}),
                        ),
                        (
                            format!("/api/games/{game}/players"),
                            "POST",
                            json!({"white": spec}),
                        ),
                    ];
                    for (uri, method, body) in bodies {
                        let (status, err) = call_json(&app, method, &uri, Some(body)).await;
                        let message = err["error"].as_str().unwrap_or_default();
                        assert_eq!(status, StatusCode::BAD_REQUEST, "{id} {spec}: {message}");
                        assert!(
                            message.contains(want) || message.contains("offers no"),
                            "{id} {method} {uri} {spec}: {message}"
                        );
                        assert!(!message.contains("  "), "{id} {spec}: spacing: {message}");
                        // Nothing about the file itself is told.
                        for leak in ["No such file", "regular file", "first bytes", "larger than"] {
                            assert!(!message.contains(leak), "{id} {spec}: {message}");
                        }
                        tried += 1;
                    }
                }
            }
        }
    }
    assert!(tried >= 8 * 4 * 2 * 4, "{tried} requests");
    // The words a file key takes stay allowed: the app's own on/off switch.
    let app = web::router(
        web::AppGames::new().with(
            "Othello 8x8",
            othello::Othello8::registry(),
            "random",
            "random",
        ),
        web::ServerConfig::default(),
    );
    for spec in [
        "othello:depth=1,correction=off",
        "othello:depth=1,correction=on",
    ] {
        let (status, state) = call_json(
            &app,
            "POST",
            "/api/games",
            Some(json!({"game": "othello8", "black": "human", "white": spec})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{spec}: {state}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
