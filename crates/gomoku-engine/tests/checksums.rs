//! Search behaviour pinned: the node-count checksum of `stonelab bench gomoku` (published in
//! docs/gomoku.md) must not change unless a commit means to change the engine.

#[test]
fn bench_gomoku_depth_8_checksum() {
    let report = gomoku_engine::bench::run(8, |_| {}).unwrap();
    assert_eq!(report.rows.len(), 6);
    let nodes: u64 = report.rows.iter().map(|r| r.nodes).sum();
    assert_eq!(nodes, 313_345, "total nodes (docs/gomoku.md)");
    assert_eq!(report.checksum.to_string(), "51a650164eded4ee");
}

#[test]
fn bench_refuses_a_bad_depth() {
    assert!(gomoku_engine::bench::run(0, |_| {}).is_err());
    assert!(gomoku_engine::bench::run(21, |_| {}).is_err());
}
