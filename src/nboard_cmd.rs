//! `stonelab nboard`: an 8x8 Othello engine over the NBoard protocol on stdin/stdout, for the
//! NBoard GUI or any driver (stonelab's own `nboard-engine` agent included).

use std::io;

use anyhow::{Context, Result};
use catalog::CatalogGame;
use clap::Args;
use othello::Othello8;
use protocol::NboardEngine;

/// Options of `stonelab nboard`.
#[derive(Args, Debug)]
pub struct NboardArgs {
    /// The agent that picks the moves (a spec string; `stonelab agents` lists them). The GUI's
    /// `set depth N` (1 to 60) overrides its depth and searches that deep with no time limit
    /// of its own: from about 20 plies a move takes seconds to minutes, and 60 solves the game
    /// exactly. A `time=` in the spec caps every move, e.g. `othello:time=5s`.
    #[arg(long, default_value = "othello")]
    pub agent: String,
    /// Seed for agents that use randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Serves one NBoard session until `quit` or the end of input.
pub fn run(args: &NboardArgs) -> Result<()> {
    let agent = Othello8::registry()
        .build(&args.agent, args.seed)
        .map_err(|e| anyhow::anyhow!("{e}\n(`stonelab agents` lists the agents)"))?;
    let spec_name = args.agent.split(':').next().unwrap_or("agent").trim();
    let mut engine = NboardEngine::new(agent).with_name(&format!("stonelab-{spec_name}"));
    let stdin = io::stdin();
    let stdout = io::stdout();
    engine
        .run(stdin.lock(), stdout.lock())
        .context("NBoard session")
}
