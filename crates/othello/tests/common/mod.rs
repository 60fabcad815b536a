//! Helpers shared by the integration tests: finding ../shared/data and reading perft tables.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared test data folder: `$STONELAB_SHARED/data` when set, else `../shared/data` beside
/// the project root.
pub fn shared_data() -> PathBuf {
    let root = std::env::var_os("STONELAB_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let data = root.join("data");
    assert!(
        data.is_dir(),
        "shared test data not found at {}: check out ../shared beside the project or set \
         STONELAB_SHARED",
        data.display()
    );
    data
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
