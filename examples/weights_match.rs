//! Developer tool: a pattern weight file searched by the `othello` engine at a fixed depth,
//! against any agent spec, from the arena's balanced openings with colours swapped — to compare
//! candidate weights before bundling one.
//! `cargo run --release --example weights_match -- WEIGHTS DEPTH OPPONENT OPENINGS [NET]`
//! (NET: a correction network file fitted for WEIGHTS, added at the midgame's leaves)

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
    let (weights, depth, opponent, count, net) = match args.as_slice() {
        [_, w, d, o, c] => (w, d, o, c, None),
        [_, w, d, o, c, n] => (w, d, o, c, Some(n)),
        _ => anyhow::bail!("usage: weights_match WEIGHTS DEPTH OPPONENT OPENINGS [NET]"),
    };
    let net = match net {
        Some(path) => {
            let net = othello_engine::correction::load(std::path::Path::new(path))?;
            net.check_fits(&std::fs::read(weights)?)?;
            Some(net)
        }
        None => None,
    };
    let eval = Arc::new(PatternEval::new(&PatternWeights::from_bytes(
        &std::fs::read(weights)?,
    )?));
    let depth: u32 = depth.parse()?;
    let count: usize = count.parse()?;
    // WEIGHTS_MATCH_XOT=1: the 1,000 XOT openings instead of the balanced set.
    let openings = if std::env::var_os("WEIGHTS_MATCH_XOT").is_some() {
        arena::xot_openings::<Othello8>()?.unwrap_or_default()
    } else {
        builtin_openings::<Othello8>()?.unwrap_or_default()
    };
    let registry = Othello8::registry();
    let factory = |spec: &str, seed: u64| -> Result<Box<dyn Agent<Othello8>>, SpecError> {
        if spec == "candidate" {
            let mut midgame = MidgameAgent::new(eval.clone(), depth, None);
            midgame = midgame.with_correction(net.clone());
            let empties: u32 = std::env::var("WM_EMPTIES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(18);
            let mut agent = SolverAgent::<8>::with_midgame(empties, None, Box::new(midgame));
            // WM_BOUNDED=EXTRA,NODES: node-bounded solves up to EXTRA empties above the exact
            // zone (the `othello` engine's handover is 2,2097152).
            if let Ok(b) = std::env::var("WM_BOUNDED") {
                let v: Vec<u64> = b.split(',').filter_map(|x| x.parse().ok()).collect();
                if let [extra, nodes] = v[..] {
                    agent = agent.with_bounded_handover(extra as u32, nodes);
                }
            }
            Ok(Box::new(agent))
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
    if let Ok(path) = std::env::var("WM_OUT") {
        let text: String = results
            .iter()
            .map(|p| match (p * 2.0) as i32 {
                2 => 'W',
                1 => 'D',
                _ => 'L',
            })
            .collect();
        std::fs::write(path, text)?;
    }
    println!(
        "{weights} depth {depth} vs {opponent}: {score}/{} = {:.1}%",
        results.len(),
        100.0 * score / results.len() as f64
    );
    Ok(())
}
