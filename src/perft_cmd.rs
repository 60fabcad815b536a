//! `stonelab perft`: leaf counts per depth with time and speed, the move-generator benchmark.

use std::time::Instant;

use anyhow::{bail, Result};
use clap::Args;
use othello::{perft_parallel, perft_portable, Othello};

use crate::games::GameId;

/// Arguments of `stonelab perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game.
    #[arg(long, default_value_t = GameId::Othello8, value_parser = crate::games::othello_game())]
    game: GameId,
    /// Deepest depth; every depth from 1 up to it is counted and timed.
    #[arg(long, default_value_t = 9)]
    depth: u32,
    /// Worker threads, 1 to 1024 (1 = the single-threaded kernel; at most four per core run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,
    /// Start from this board string (squares X/O/- from a1, then the side to move) instead of
    /// the standard start.
    #[arg(long, allow_hyphen_values = true)]
    from: Option<String>,
    /// Also time the portable single-threaded kernel at each depth and print the speed-up of
    /// the measured run over it (a baseline measured in the same run).
    #[arg(long)]
    baseline: bool,
}

pub fn run(args: &PerftArgs) -> Result<()> {
    if args.depth == 0 {
        bail!("--depth 0 counts nothing: every depth from 1 to --depth is counted");
    }
    if args.depth > 30 {
        bail!(
            "depth {} is far beyond what can finish; use at most 30",
            args.depth
        );
    }
    match args.game {
        GameId::Othello4 => run_sized::<4>(args),
        GameId::Othello6 => run_sized::<6>(args),
        GameId::Othello8 => run_sized::<8>(args),
        other => bail!("perft is for Othello games (othello4, othello6, othello8), not {other}"),
    }
}

fn run_sized<const N: usize>(args: &PerftArgs) -> Result<()> {
    let pos = match &args.from {
        Some(text) => {
            let pos = Othello::<N>::from_board_string(text)?;
            pos.validate()?;
            pos
        }
        None => Othello::<N>::new(),
    };
    let threads = usize::from(args.threads);
    outln!(
        "perft {} from {}; a pass is one ply, a finished game one leaf; the last ply is \
         bulk-counted (moves counted, not made); {threads} thread{}",
        args.game,
        if args.from.is_some() {
            pos.board_string()
        } else {
            "the start position".into()
        },
        if threads == 1 { "" } else { "s" },
    );
    out!(
        "{:>5} {:>16} {:>10} {:>16}",
        "depth",
        "leaves",
        "seconds",
        "leaves/s"
    );
    if args.baseline {
        out!(" {:>16} {:>9}", "portable/s", "speed-up");
    }
    outln!();
    for depth in 1..=args.depth {
        let t = Instant::now();
        let leaves = perft_parallel(&pos, depth, threads);
        let secs = t.elapsed().as_secs_f64();
        out!(
            "{depth:>5} {leaves:>16} {secs:>10.3} {:>16}",
            format_rate(leaves, secs)
        );
        if args.baseline {
            let t = Instant::now();
            let check = perft_portable(&pos, depth);
            let base = t.elapsed().as_secs_f64();
            if check != leaves {
                bail!("portable kernel counts {check} leaves at depth {depth}, not {leaves}");
            }
            let ratio = if secs > 0.0 {
                format!("{:.2}x", base / secs)
            } else {
                "-".into()
            };
            out!(" {:>16} {ratio:>9}", format_rate(leaves, base));
        }
        outln!();
    }
    Ok(())
}

fn format_rate(leaves: u64, secs: f64) -> String {
    let rate = leaves as f64 / secs;
    if secs <= 0.0 || !rate.is_finite() {
        "-".into()
    } else if rate >= 1e6 {
        format!("{:.1} M", rate / 1e6)
    } else {
        format!("{:.1} k", rate / 1e3)
    }
}
