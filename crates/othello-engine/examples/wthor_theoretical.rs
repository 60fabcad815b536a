//! Developer check: the WTHOR files' theoretical scores against the exact solver. Solves the
//! position at 24 empties of every `step`-th game of a file and counts agreements with the
//! file's perfect-play result (what `train patterns --theoretical-exact` uses as a label).
//! `cargo run --release -p stonelab-othello-engine --example wthor_theoretical -- FILE GAMES`

use anyhow::{bail, Context};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, count] = args.as_slice() else {
        bail!("usage: wthor_theoretical FILE GAMES");
    };
    let count: usize = count.parse().context("GAMES: a number")?;
    let bytes = std::fs::read(file).with_context(|| format!("reading {file}"))?;
    let records = othello::wthor::parse_games(&bytes)?;
    let depth = u32::from(records.header.depth);
    let mut solver =
        othello_engine::Solver::<8>::new(22).with_evaluation(othello_engine::pattern::bundled());
    let (mut agree, mut differ) = (0, 0);
    let step = (records.games.len() / count.max(1)).max(1);
    for game in records.games.iter().step_by(step).take(count) {
        let Some((pos, file_score)) = othello_engine::train::wthor_position(game, depth) else {
            continue;
        };
        let solved = solver.solve(&pos).score;
        if solved == file_score {
            agree += 1;
        } else {
            differ += 1;
            println!("{pos}: solver {solved}, file {file_score}");
        }
    }
    println!("{file}: {agree} agree, {differ} differ (positions at {depth} empties)");
    Ok(())
}
