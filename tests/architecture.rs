//! The architecture invariants of ARCHITECTURE.md, checked over `cargo metadata`.

use std::collections::BTreeMap;

use cargo_metadata::{DependencyKind, MetadataCommand};

/// Layer of each workspace crate, low to high. A crate may depend only on crates of lower layers.
fn layer(name: &str) -> Option<u32> {
    Some(match name {
        "stonelab-game" => 0,
        "stonelab-othello" | "stonelab-gomoku" => 1,
        // The engines layer: generic search, then the game-specific engines built on it.
        "stonelab-search" => 2,
        "stonelab-othello-engine" | "stonelab-gomoku-engine" => 3,
        // The learning layer: the environment and the match runner (generic, no NN library),
        // then the learners built on them (trainers evaluate through the arena).
        "stonelab-env" | "stonelab-arena" => 4,
        "stonelab-learn" => 5,
        "stonelab-protocol" => 6,
        // The services layer: the catalog of games and agents, then the front ends on it.
        "stonelab-catalog" => 7,
        "stonelab-web" | "stonelab-py" => 8,
        // The binary is on top of the apps: it serves the web app.
        "stonelab" => 9,
        _ => return None,
    })
}

/// Crates from outside the workspace that the rules crates may use: small and made for the job.
const RULES_ALLOWED: [&str; 2] = ["thiserror", "rand"];
/// Crates that are the NN library: only `learn` and the apps may depend on them.
const NN: [&str; 3] = ["burn", "candle-core", "tch"];

#[test]
fn dependencies_point_down_and_rules_crates_stay_light() {
    let meta = MetadataCommand::new()
        .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .no_deps()
        .exec()
        .expect("cargo metadata");
    let members: BTreeMap<String, _> = meta
        .packages
        .iter()
        .filter(|p| meta.workspace_members.contains(&p.id))
        .map(|p| (p.name.to_string(), p))
        .collect();
    assert!(members.contains_key("stonelab-game") && members.contains_key("stonelab-othello"));
    for (name, package) in &members {
        let own = layer(name)
            .unwrap_or_else(|| panic!("{name} has no layer: add it here and to ARCHITECTURE.md"));
        for dep in package
            .dependencies
            .iter()
            .filter(|d| d.kind == DependencyKind::Normal)
        {
            let dep_name = dep.name.as_str();
            if let Some(dep_layer) = layer(dep_name) {
                assert!(
                    dep_layer < own,
                    "{name} (layer {own}) depends on {dep_name} (layer {dep_layer})"
                );
            } else {
                if own <= 1 {
                    assert!(
                        RULES_ALLOWED.contains(&dep_name),
                        "rules crate {name} depends on {dep_name}"
                    );
                }
                if name != "stonelab-learn" && own < 6 {
                    assert!(
                        !NN.contains(&dep_name),
                        "{name} depends on the NN library {dep_name}"
                    );
                }
            }
        }
    }
}
