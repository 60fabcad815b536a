//! 8x8 perft against the published table in data/othello, and the 4x4/6x6 tables in tests/data.

mod common;

use othello::{perft, perft_parallel, Othello4, Othello6, Othello8};

fn published_8x8() -> Vec<(u32, u64)> {
    let path = common::data_dir().join("othello/perft-8x8.txt");
    let text = std::fs::read_to_string(&path).expect("read perft-8x8.txt");
    let table = common::perft_table(&text);
    assert!(
        table.len() >= 12,
        "expected at least 12 depths in {}",
        path.display()
    );
    table
}

#[test]
fn perft_8x8_matches_published_counts_to_depth_9() {
    for (depth, leaves) in published_8x8().into_iter().filter(|&(d, _)| d <= 9) {
        assert_eq!(perft(&Othello8::new(), depth), leaves, "perft({depth})");
    }
}

#[test]
#[ignore = "slow: depths 10-12 take about ten seconds in release mode"]
fn perft_8x8_matches_published_counts_to_depth_12() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (depth, leaves) in published_8x8()
        .into_iter()
        .filter(|&(d, _)| (10..=12).contains(&d))
    {
        assert_eq!(
            perft_parallel(&Othello8::new(), depth, threads),
            leaves,
            "perft({depth})"
        );
    }
}

#[test]
fn perft_4x4_and_6x6_match_their_tables() {
    let four = common::perft_table(include_str!("data/perft-4x4.txt"));
    for &(depth, leaves) in &four {
        assert_eq!(perft(&Othello4::new(), depth), leaves, "4x4 perft({depth})");
    }
    let six = common::perft_table(include_str!("data/perft-6x6.txt"));
    for &(depth, leaves) in six.iter().filter(|&&(d, _)| d <= 10) {
        assert_eq!(perft(&Othello6::new(), depth), leaves, "6x6 perft({depth})");
    }
}

#[test]
#[ignore = "slow: 6x6 depths 11-13 take about ten seconds in release mode"]
fn perft_6x6_deep() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let six = common::perft_table(include_str!("data/perft-6x6.txt"));
    for &(depth, leaves) in six.iter().filter(|&&(d, _)| d > 10) {
        assert_eq!(
            perft_parallel(&Othello6::new(), depth, threads),
            leaves,
            "6x6 perft({depth})"
        );
    }
}
