//! Helpers shared by the integration tests: the repository's `data/` folder and perft tables.
#![allow(dead_code)]

use std::path::PathBuf;

/// The repository's public data folder (`data/` at the project root: perft table, FFO, WTHOR).
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// Reads a `depth leaves` table, skipping `#` comments.
pub fn perft_table(text: &str) -> Vec<(u32, u64)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let depth = parts.next().and_then(|d| d.parse().ok()).expect("depth");
            let leaves = parts.next().and_then(|d| d.parse().ok()).expect("leaves");
            (depth, leaves)
        })
        .collect()
}
