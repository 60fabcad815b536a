//! `stonelab gomocup`: a Gomoku brain over the Gomocup (Piskvork) protocol on stdin/stdout, for
//! Piskvork-compatible managers or any driver (stonelab's own `gomocup-engine` agent included).

use std::io;

use anyhow::{Context, Result};
use clap::Args;
use protocol::GomocupEngine;

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

/// Serves one Gomocup session until `END` or the end of input. Boards of 15x15, 19x19 and
/// 20x20 are supported under freestyle, exactly five and renju, and 9x9 freestyle (caro and
/// continuous games are refused); `START` with another size answers `ERROR`.
pub fn run(args: &GomocupArgs) -> Result<()> {
    // Check the spec once up front, so a typo fails here rather than at START.
    catalog::validate_gomocup_agent(&args.agent).map_err(|e| {
        anyhow::anyhow!("{e}\n(`stonelab agents --game gomoku15` lists the agents)")
    })?;
    let factory = catalog::gomocup_factory(args.agent.clone(), args.seed);
    let spec_name = args.agent.split(':').next().unwrap_or("agent").trim();
    let mut engine = GomocupEngine::new(factory)
        .with_name(spec_name)
        .with_sizes(catalog::GOMOCUP_SIZES);
    let stdin = io::stdin();
    let stdout = io::stdout();
    engine
        .run(stdin.lock(), stdout.lock())
        .context("Gomocup session")
}
