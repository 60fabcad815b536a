//! `stonelab gomocup`: a Gomoku brain over the Gomocup (Piskvork) protocol on stdin/stdout, for
//! Piskvork-compatible managers or any driver (stonelab's own `gomocup-engine` agent included).

use std::io;

use anyhow::{Context, Result};
use clap::Args;
use gomoku::{presets, Rule, Variant};
use protocol::{AgentBrain, BrainFactory, GomocupBrain, GomocupEngine};

use crate::agents::gomoku_registry;

/// Options of `stonelab gomocup`.
#[derive(Args, Debug)]
pub struct GomocupArgs {
    /// The agent that picks the moves (a spec string; `stonelab agents --game gomoku15` lists
    /// them). The manager's turn time bounds its thinking.
    #[arg(long, default_value = "gomoku")]
    pub agent: String,
    /// Seed for agents that use randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The brain for one board size and rule, built from the spec.
fn brain<V: Variant>(spec: &str, seed: u64) -> Result<Box<dyn GomocupBrain>, String> {
    let agent = gomoku_registry::<V>()
        .build(spec, seed)
        .map_err(|e| e.to_string())?;
    Ok(Box::new(AgentBrain::<V>::new(agent)))
}

/// Serves one Gomocup session until `END` or the end of input. Boards of 15x15, 19x19 and
/// 20x20 are supported under every rule; `START` with another size answers `ERROR`.
pub fn run(args: &GomocupArgs) -> Result<()> {
    // Check the spec once up front, so a typo fails here rather than at START.
    gomoku_registry::<presets::Freestyle15>()
        .validate(&args.agent)
        .map_err(|e| {
            anyhow::anyhow!("{e}\n(`stonelab agents --game gomoku15` lists the agents)")
        })?;
    let spec = args.agent.clone();
    let seed = args.seed;
    let factory: BrainFactory = Box::new(move |size, rule| match (size, rule) {
        (15, Rule::Freestyle) => brain::<presets::Freestyle15>(&spec, seed),
        (19, Rule::Freestyle) => brain::<presets::Freestyle19>(&spec, seed),
        (20, Rule::Freestyle) => brain::<presets::Freestyle20>(&spec, seed),
        (15, Rule::Standard) => brain::<presets::Standard15>(&spec, seed),
        (19, Rule::Standard) => brain::<presets::Standard19>(&spec, seed),
        (20, Rule::Standard) => brain::<presets::Standard20>(&spec, seed),
        (15, Rule::Renju) => brain::<presets::Renju15>(&spec, seed),
        (19, Rule::Renju) => brain::<presets::Renju19>(&spec, seed),
        (20, Rule::Renju) => brain::<presets::Renju20>(&spec, seed),
        _ => Err(format!(
            "unsupported size {size}: stonelab plays 15x15, 19x19 and 20x20 boards"
        )),
    });
    let spec_name = args.agent.split(':').next().unwrap_or("agent").trim();
    let mut engine = GomocupEngine::new(factory).with_name(spec_name);
    let stdin = io::stdin();
    let stdout = io::stdout();
    engine
        .run(stdin.lock(), stdout.lock())
        .context("Gomocup session")
}
