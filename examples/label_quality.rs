//! Developer tool: how far each kind of training label lies from the exact score, on record
//! positions with a given number of empties — the game's perfect-play result (what WTHOR
//! carries), the bundled evaluation, and searches of 2-8 plies with it (Multi-ProbCut 1.5).
//! `cargo run --release --example label_quality -- POSITIONS EMPTIES [WEIGHTS]` (default: the
//! bundled weights).

use othello::wthor::parse_games;
use othello_engine::midgame::{bundled_probcut, Midgame};
use othello_engine::pattern::{bundled, PatternEval, PatternWeights};
use othello_engine::Solver;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (count, empties, weights) = match args.as_slice() {
        [_, c, e] => (c, e, None),
        [_, c, e, w] => (c, e, Some(w)),
        _ => anyhow::bail!("usage: label_quality POSITIONS EMPTIES [WEIGHTS]"),
    };
    let count: usize = count.parse()?;
    let empties: u32 = empties.parse()?;
    let eval = match weights {
        Some(path) => std::sync::Arc::new(PatternEval::new(&PatternWeights::from_bytes(
            &std::fs::read(path)?,
        )?)),
        None => bundled(),
    };
    let mut games = Vec::new();
    for year in 2000..2010 {
        let path = format!("data/othello/wthor/WTH_{year}.wtb");
        games.extend(parse_games(&std::fs::read(&path)?)?.games);
    }
    let mut solver = Solver::<8>::new(20).with_evaluation(bundled());
    let mut search = Midgame::new(eval, 16).with_probcut(Some((bundled_probcut(), 1.5)));
    let scale = f64::from(search.scale());
    let depths = [2, 4, 6, 8];
    let names: Vec<String> = ["result".to_string(), "evaluation".to_string()]
        .into_iter()
        .chain(depths.iter().map(|d| format!("{d}-ply search")))
        .collect();
    let mut error = vec![0.0; names.len()];
    let mut n = 0;
    for game in &games {
        if n == count {
            break;
        }
        let Some((pos, result)) = othello_engine::train::wthor_position(game, empties) else {
            continue;
        };
        let exact = f64::from(solver.solve(&pos).score);
        let mut labels = vec![f64::from(result), f64::from(search.evaluate(&pos)) / scale];
        for &d in &depths {
            search.clear();
            labels.push(f64::from(search.search(&pos, d, None, None).score) / scale);
        }
        for (e, label) in error.iter_mut().zip(labels) {
            *e += (label - exact).abs();
        }
        n += 1;
    }
    println!("{n} record positions (2000-2009) with {empties} empties: mean |label - exact|");
    for (name, e) in names.iter().zip(error) {
        println!("  {name:>12}: {:.2} discs", e / n.max(1) as f64);
    }
    Ok(())
}
