//! Developer tool: a pattern weight file searched by the `othello` engine at a fixed depth,
//! against any agent spec, from the arena's balanced openings with colours swapped — to compare
//! candidate weights before bundling one.
//! `cargo run --release --example weights_match -- WEIGHTS DEPTH OPPONENT OPENINGS`

use std::sync::Arc;

use arena::{builtin_openings, play_game, Side};
use catalog::CatalogGame;
use othello::Othello8;
use othello_engine::midgame::MidgameAgent;
use othello_engine::pattern::{PatternEval, PatternWeights};
use othello_engine::SolverAgent;
use rayon::prelude::*;
use search::{Agent, SpecError};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, weights, depth, opponent, count] = args.as_slice() else {
        anyhow::bail!("usage: weights_match WEIGHTS DEPTH OPPONENT OPENINGS");
    };
    let eval = Arc::new(PatternEval::new(&PatternWeights::from_bytes(
        &std::fs::read(weights)?,
    )?));
    let depth: u32 = depth.parse()?;
    let count: usize = count.parse()?;
    let openings = builtin_openings::<Othello8>()?.unwrap_or_default();
    let registry = Othello8::registry();
    let factory = |spec: &str, seed: u64| -> Result<Box<dyn Agent<Othello8>>, SpecError> {
        if spec == "candidate" {
            let midgame = MidgameAgent::new(eval.clone(), depth, None);
            Ok(Box::new(SolverAgent::<8>::with_midgame(
                18,
                None,
                Box::new(midgame),
            )))
        } else {
            registry.build(spec, seed)
        }
    };
    let results: Vec<f64> = openings
        .iter()
        .take(count)
        .enumerate()
        .collect::<Vec<_>>()
        .par_iter()
        .flat_map_iter(|(i, opening)| {
            [Side::Black, Side::White]
                .into_iter()
                .map(|side| {
                    let specs = match side {
                        Side::Black => ["candidate", opponent.as_str()],
                        Side::White => [opponent.as_str(), "candidate"],
                    };
                    let seed = *i as u64;
                    let played = play_game(&factory, specs, [seed, seed + 1], opening, 200, None);
                    played.ending.points(side)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let score: f64 = results.iter().sum();
    println!(
        "{weights} depth {depth} vs {opponent}: {score}/{} = {:.1}%",
        results.len(),
        100.0 * score / results.len() as f64
    );
    Ok(())
}
