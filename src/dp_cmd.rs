//! `stonelab dp`: value iteration over every reachable position of a small board, and a check of
//! the resulting `dp` agent against the exact solver. Each sweep prints its number and its largest
//! update (the most any position's value changed in it).

use anyhow::{bail, Result};
use clap::Args;
use othello::Othello4;
use search::{ValueIterationConfig, ValueTable};

use crate::games::GameId;
use lab::dp::{check_against_solver, update_text};

/// Arguments of `stonelab dp`.
#[derive(Args, Debug)]
pub struct DpArgs {
    /// The game (only othello4 is small enough to enumerate).
    #[arg(long, default_value_t = GameId::Othello4)]
    game: GameId,
    /// Discount per move (1 = none), in the design's form: V = best(r + discount·V(next)).
    #[arg(long, default_value_t = 1.0)]
    discount: f64,
    /// Stop when the largest update of a sweep is below this (above 0, at most 1: the rewards
    /// are ±100, so a coarser one would stop before values spread).
    #[arg(long, default_value_t = 0.01)]
    tolerance: f64,
    /// Skip checking every position against the exact solver.
    #[arg(long)]
    no_verify: bool,
}

pub fn run(args: &DpArgs) -> Result<()> {
    if args.game != GameId::Othello4 {
        bail!("value iteration enumerates every reachable position: only othello4 is small enough ({} is not)", args.game);
    }
    if !(args.discount > 0.0 && args.discount <= 1.0) {
        bail!("--discount {:?}: must be in (0, 1]", args.discount);
    }
    if !(args.tolerance > 0.0 && args.tolerance <= 1.0) {
        bail!("--tolerance {:?}: must be in (0, 1]", args.tolerance);
    }
    let config = ValueIterationConfig {
        discount: args.discount,
        tolerance: args.tolerance,
        ..ValueIterationConfig::default()
    };
    outln!("value iteration over othello4: reward +100 black win, -100 white win, 0 draw; discount {}, tolerance {}", config.discount, config.tolerance);
    // One line per sweep: 4x4 converges in about a dozen.
    let (table, report) =
        ValueTable::<Othello4, u128>::solve_with(Othello4::base3_key, &config, &mut |s| {
            outln!(
                "sweep {}: largest update {} ({} positions changed)",
                s.number,
                update_text(s.max_update),
                s.changed_states
            );
        })?;
    outln!(
        "reachable positions: {} ({} finished games), key = base-3 board + side to move",
        report.states,
        report.terminal
    );
    outln!("enumeration: {:.3} s", report.enumerate_time.as_secs_f64());
    outln!(
        "sweeps: {} (last largest update {:.6}), {:.3} s",
        report.sweeps,
        report.last_delta,
        report.iterate_time.as_secs_f64()
    );
    let verdict = match report.start_value {
        v if v > 0.0 => "black wins",
        v if v < 0.0 => "white wins",
        _ => "draw",
    };
    outln!(
        "value of the start (black's view): {:.2} ({verdict} with perfect play)",
        report.start_value
    );
    if args.no_verify {
        return Ok(());
    }
    let check = check_against_solver(&table);
    outln!(
        "check against the exact solver: {} positions with a move, dp's move keeps the perfect-play result in {} ({} wrong), {:.3} s",
        check.checked,
        check.checked - check.wrong,
        check.wrong,
        check.time.as_secs_f64()
    );
    outln!(
        "exact solver: start margin {:+} for black (empties to the winner)",
        check.start_margin
    );
    let wrong = check.wrong;
    if wrong > 0 {
        bail!("dp disagrees with the exact solver at {wrong} positions");
    }
    Ok(())
}
