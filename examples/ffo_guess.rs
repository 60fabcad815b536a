//! Developer tool: how many nodes the exact solver spends on FFO positions with its own first
//! probe (`solve`: beside the evaluation's guess) against the cheapest start there is (`exact`:
//! the first probes beside the listed score, the two any proof needs).
//! `cargo run --release --example ffo_guess -- FIRST LAST [solve|exact]`

use std::time::Instant;

use anyhow::Context;
use othello_engine::obf::ffo_suite;
use othello_engine::pattern::bundled;
use othello_engine::Solver;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (first, last, mode) = match args.as_slice() {
        [_, f, l] => (f, l, "solve"),
        [_, f, l, m] => (f, l, m.as_str()),
        _ => anyhow::bail!("usage: ffo_guess FIRST LAST [solve|exact]"),
    };
    let (first, last): (usize, usize) = (first.parse()?, last.parse()?);
    anyhow::ensure!(
        mode == "solve" || mode == "exact",
        "mode is solve or exact, not {mode}"
    );
    let suite = ffo_suite();
    let mut solver = Solver::<8>::new(22).with_evaluation(bundled());
    solver.allocate();
    let (mut nodes, mut seconds) = (0, 0.0);
    for number in first..=last {
        let problem = number
            .checked_sub(1)
            .and_then(|i| suite.get(i))
            .with_context(|| format!("no FFO position #{number}"))?;
        let listed = problem.best_score().context("no listed score")?;
        solver.clear();
        let start = Instant::now();
        let s = if mode == "exact" {
            solver.solve_near(&problem.pos, listed)
        } else {
            solver.solve(&problem.pos)
        };
        let elapsed = start.elapsed().as_secs_f64();
        anyhow::ensure!(s.score == listed, "#{number}: {} against {listed}", s.score);
        println!(
            "#{number}: {:+} in {} nodes, {elapsed:.3} s",
            s.score, s.nodes
        );
        nodes += s.nodes;
        seconds += elapsed;
    }
    println!(
        "total: {nodes} nodes, {seconds:.2} s, {:.1} M nodes/s",
        nodes as f64 / seconds / 1e6
    );
    Ok(())
}
