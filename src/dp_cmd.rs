//! `stonelab dp`: value iteration over every reachable position of a small board, and a check of
//! the resulting `dp` agent against the exact solver.

use std::time::Instant;

use anyhow::{bail, Result};
use clap::Args;
use game::{Color, Game};
use othello::Othello4;
use othello_engine::Solver;
use search::{ValueIterationConfig, ValueTable};

use crate::games::GameId;

/// Arguments of `stonelab dp`.
#[derive(Args, Debug)]
pub struct DpArgs {
    /// The game (only othello4 is small enough to enumerate).
    #[arg(long, default_value_t = GameId::Othello4)]
    game: GameId,
    /// Discount per move (1 = none).
    #[arg(long, default_value_t = 1.0)]
    discount: f64,
    /// Stop when the largest update of a sweep is below this.
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
    let discount_ok = args.discount > 0.0 && args.discount <= 1.0;
    let tolerance_ok = args.tolerance > 0.0 && args.tolerance.is_finite();
    if !discount_ok || !tolerance_ok {
        bail!("--discount must be in (0, 1] and --tolerance above 0");
    }
    let config = ValueIterationConfig {
        discount: args.discount,
        tolerance: args.tolerance,
        ..ValueIterationConfig::default()
    };
    println!("value iteration over othello4: reward +100 black win, -100 white win, 0 draw; discount {}, tolerance {}", config.discount, config.tolerance);
    let (table, report) = ValueTable::<Othello4, u128>::solve(Othello4::base3_key, &config)?;
    println!(
        "reachable positions: {} ({} finished games), key = base-3 board + side to move",
        report.states, report.terminal
    );
    println!("enumeration: {:.3} s", report.enumerate_time.as_secs_f64());
    println!(
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
    println!(
        "value of the start (black's view): {:.2} ({verdict} with perfect play)",
        report.start_value
    );
    if args.no_verify {
        return Ok(());
    }
    let t = Instant::now();
    let mut solver = Solver::<4>::new(18);
    let (mut checked, mut wrong) = (0usize, 0usize);
    for pos in table.positions().iter().filter(|p| !p.is_over()) {
        let exact = solver.solve(pos).score;
        let moves = table.best_moves(pos);
        let Some(&mv) = moves.first() else { continue };
        let after = pos.play_unchecked(mv);
        let got = if after.is_over() {
            after
                .outcome()
                .map_or(0, |o| o.score_for(pos.side_to_move()))
        } else {
            -solver.solve(&after).score
        };
        let sign = if pos.side_to_move() == Color::Black {
            1.0
        } else {
            -1.0
        };
        // f64::signum(0.0) is 1: compare explicit win/draw/loss classes.
        let class = |x: f64| match x.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => 1,
            Some(std::cmp::Ordering::Less) => -1,
            _ => 0,
        };
        let value_ok = table
            .value(pos)
            .is_some_and(|v| class(sign * v) == exact.signum());
        if got.signum() != exact.signum() || !value_ok {
            wrong += 1;
        }
        checked += 1;
    }
    println!(
        "check against the exact solver: {checked} positions with a move, dp's move keeps the perfect-play result in {} ({wrong} wrong), {:.3} s",
        checked - wrong,
        t.elapsed().as_secs_f64()
    );
    let exact_start = solver.solve(&Othello4::new());
    println!(
        "exact solver: start margin {:+} for black (empties to the winner)",
        exact_start.score
    );
    if wrong > 0 {
        bail!("dp disagrees with the exact solver at {wrong} positions");
    }
    Ok(())
}
