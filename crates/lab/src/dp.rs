//! `othello4-value-iteration`: the 4x4 Othello value-iteration design, rerun with its per-sweep
//! trace, checked against the exact solver and played against the evaluation opponents.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use game::{Color, Game};
use othello::Othello4;
use othello_engine::Solver;
use search::{DpAgent, Sweep, ValueIterationConfig, ValueTable};

use super::{evaluate_table, md_table, AgentMaker, Ctx, Report, EVAL_OPPONENTS};
use crate::plots::{line_chart, Series};

/// The chart of the largest update per sweep, in the report folder.
const CHART: &str = "largest_update.png";

/// The chart of the positions changed per sweep, in the report folder.
const CHANGED_CHART: &str = "positions_changed.png";

/// Solves every reachable 4x4 position by value iteration (the defaults of `stonelab dp`),
/// writes the per-sweep table, the start's value, the check against the exact solver and the
/// `dp` agent's results against the evaluation opponents.
///
/// # Errors
/// When value iteration fails, the table disagrees with the exact solver or with the registry's
/// `dp` agent, the chart cannot be drawn, or a match fails.
pub fn value_iteration(ctx: &Ctx, report: &mut Report) -> Result<()> {
    let config = ValueIterationConfig::default();
    ctx.say("value iteration over every reachable 4x4 position");
    let mut trace: Vec<Sweep> = Vec::new();
    let (table, vi) =
        ValueTable::<Othello4, u128>::solve_with(Othello4::base3_key, &config, &mut |s| {
            trace.push(s);
        })?;
    let Some(last) = trace.last().copied() else {
        bail!("value iteration reported no sweep");
    };

    report.section(
        "The design",
        "The student design solves 4x4 Othello by value iteration over every position reachable \
         from the start: rewards +100 for a black win, -100 for a white win, 0 for a draw, on \
         the move that ends the game; every sweep sets each unfinished position to the best \
         over its moves of reward + discount x value(next) for the side to move (synchronous \
         sweeps from all zeros) until the largest update of a sweep falls below the tolerance. \
         The design gives no value for the discount: stonelab's default is 1 (none), the one \
         value where its choice cannot change the result. It prints each sweep's number and its largest update \
         (the most any position's value changed in that sweep), and reports that the iteration \
         converges. This run uses `stonelab dp`'s defaults (the same settings as the registry's \
         `dp` agent). The whole game is enumerated, so `--full` and `--scale` change nothing \
         here; `--games` sets the evaluation matches.",
    );

    let rows: Vec<Vec<String>> = trace
        .iter()
        .map(|s| {
            vec![
                s.number.to_string(),
                update_text(s.max_update),
                s.changed_states.to_string(),
            ]
        })
        .collect();
    let mut body = format!(
        "Reachable positions: **{}** ({} finished games, {} with a move to make), keyed by the \
         base-3 board and the side to move; enumerated in {:.3} s. Discount {}, tolerance {}.\n\n",
        vi.states,
        vi.terminal,
        vi.states - vi.terminal,
        vi.enumerate_time.as_secs_f64(),
        config.discount,
        config.tolerance
    );
    body.push_str(&md_table(
        &["sweep", "largest update", "positions changed"],
        &rows,
    ));
    let longest_game = longest_game(&table);
    let _ = write!(
        body,
        "\nConverged after {} sweeps: sweep {}'s largest update is {} (below the tolerance {}), \
         {:.3} s of sweeps. Each sweep backs the proven results up one more ply, so the number \
         of sweeps is at most the longest game plus one ({longest_game} plies, passes included, \
         so at most {}). A value is proven once and never changes again: every position's value \
         moves at most once, from 0 to its final ±100, so every largest update is 0 or 100 and \
         the changes add up to {} positions, the unfinished ones not drawn with perfect play.\n",
        vi.sweeps,
        last.number,
        update_text(last.max_update),
        config.tolerance,
        vi.iterate_time.as_secs_f64(),
        longest_game + 1,
        trace.iter().map(|s| s.changed_states).sum::<usize>()
    );
    let chart = ctx.out.join(CHART);
    let points = |f: fn(&Sweep) -> f64| -> Vec<(f64, f64)> {
        trace.iter().map(|s| (s.number as f64, f(s))).collect()
    };
    line_chart(
        &chart,
        "4x4 Othello value iteration: largest update per sweep",
        "sweep",
        "largest update (max |dV|)",
        &[Series {
            name: "largest update".into(),
            points: points(|s| s.max_update),
        }],
        None,
    )?;
    line_chart(
        &ctx.out.join(CHANGED_CHART),
        "4x4 Othello value iteration: positions changed per sweep",
        "sweep",
        "positions whose value changed",
        &[Series {
            name: "positions changed".into(),
            points: points(|s| s.changed_states as f64),
        }],
        None,
    )?;
    let _ = write!(
        body,
        "\n![largest update per sweep]({CHART})\n\n![positions changed per sweep]({CHANGED_CHART})\n"
    );
    report.section("Value iteration, sweep by sweep", &body);

    let verdict = match vi.start_value {
        v if v > 0.0 => "black wins",
        v if v < 0.0 => "white wins",
        _ => "a draw",
    };
    ctx.say("checking every position against the exact solver");
    let check = check_against_solver(&table);
    if check.wrong > 0 {
        bail!(
            "the value table disagrees with the exact solver at {} of {} positions",
            check.wrong,
            check.checked
        );
    }
    // The registry's `dp` agent plays from its own table, solved with the same settings.
    let registry_table = catalog::othello4_values().context("the registry's dp table")?;
    let differ = table
        .positions()
        .iter()
        .filter(|p| registry_table.value(p) != table.value(p))
        .count();
    if differ > 0 {
        bail!("the registry's dp agent's table differs at {differ} positions");
    }
    report.section(
        "Perfect play",
        &format!(
            "Value of the start position (black's view): **{:+.0}**: {verdict} with perfect \
             play. The exact solver agrees: the start's margin is {:+} for black (empties to the \
             winner).\n\n\
             Check against the exact solver (what `stonelab dp` checks): at all {} positions \
             with a move, the table's value has the sign of the exact score and the `dp` agent's \
             move keeps the perfect-play result — {} wrong ({:.3} s). The registry's `dp` agent \
             plays from the same values (compared at every position).",
            vi.start_value,
            check.start_margin,
            check.checked,
            check.wrong,
            check.time.as_secs_f64()
        ),
    );

    ctx.say("evaluation matches");
    let table = Arc::new(table);
    let make: Box<AgentMaker<'_, Othello4>> = Box::new(|_| Box::new(DpAgent::new(table.clone())));
    let results = evaluate_table::<Othello4>(ctx, &[("`dp`".to_string(), make)])?;
    report.section(
        "The `dp` agent against the evaluation opponents",
        &format!(
            "The agent of the solved table (registry spec `dp`: the first of the best moves, in \
             action order) against {}, {} games each.\n\n{}\n\
             The table is exact, so `dp` never loses a position it could hold: every game it \
             loses starts from an opening already lost for its side with perfect play (from \
             the start itself, White wins).",
            EVAL_OPPONENTS
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", "),
            ctx.games,
            results
        ),
    );

    report.section(
        "Beside the authors' figures",
        &md_table(
            &["", "the design", "here"],
            &[
                vec![
                    "per-sweep trace".into(),
                    "prints each sweep's number and largest update (the issue quotes no \
                     values)"
                        .into(),
                    format!("{} sweeps, in the table above", vi.sweeps),
                ],
                vec![
                    "convergence".into(),
                    "reported converging (no sweep count or final update given)".into(),
                    format!(
                        "converged: sweep {}'s largest update is {}",
                        last.number,
                        update_text(last.max_update)
                    ),
                ],
                vec![
                    "reachable positions".into(),
                    "not given".into(),
                    vi.states.to_string(),
                ],
                vec![
                    "value of the start".into(),
                    "not given".into(),
                    format!("{:+.0} ({verdict})", vi.start_value),
                ],
            ],
        ),
    );
    report.command("stonelab dp");
    Ok(())
}

/// The longest game from the start, in plies (passes included): the longest path from the start
/// to a finished game, memoised by position (games last at most a few dozen plies, so the
/// recursion stays shallow).
fn longest_game(table: &ValueTable<Othello4, u128>) -> usize {
    fn below(pos: &Othello4, memo: &mut HashMap<u128, usize>) -> usize {
        if let Some(&n) = memo.get(&pos.base3_key()) {
            return n;
        }
        let n = pos
            .legal_moves()
            .into_iter()
            .map(|mv| 1 + below(&pos.play_unchecked(mv), memo))
            .max()
            .unwrap_or(0);
        memo.insert(pos.base3_key(), n);
        n
    }
    let mut memo = HashMap::with_capacity(table.positions().len());
    below(&Othello4::new(), &mut memo)
}

/// A sweep's largest update as text: whole numbers without decimals (`100`, `0`), others to six
/// places.
#[must_use]
pub fn update_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.6}")
    }
}

/// What [`check_against_solver`] found.
#[derive(Clone, Debug)]
pub struct SolverCheck {
    /// Positions with a move that were checked.
    pub checked: usize,
    /// Of those, positions where the table's value or its move disagrees with the solver.
    pub wrong: usize,
    /// The exact margin of the start for black (empties to the winner).
    pub start_margin: i32,
    /// Time of the check.
    pub time: Duration,
}

/// Checks every reachable position with a move against the exact solver: the table's value must
/// have the sign (win, draw, loss) of the exact score, and the `dp` agent's move (the first best
/// move) must keep the perfect-play result.
#[must_use]
pub fn check_against_solver(table: &ValueTable<Othello4, u128>) -> SolverCheck {
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
    let start_margin = solver.solve(&Othello4::new()).score;
    SolverCheck {
        checked,
        wrong,
        start_margin,
        time: t.elapsed(),
    }
}
