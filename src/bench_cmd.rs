//! `stonelab bench`: deterministic benchmarks whose node counts are a checksum of search
//! behaviour (quote them in commits that change search).

use std::time::Duration;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use othello_engine::Solver;

use crate::solve_cmd::rate;

/// Arguments of `stonelab bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchKind,
}

#[derive(Subcommand, Debug)]
enum BenchKind {
    /// Solve FFO endgame positions exactly (bundled suite #1-#59) and check every score.
    Endgame {
        /// Which positions, as `FIRST-LAST` (1-59).
        #[arg(long, default_value = "1-19")]
        range: String,
        /// The transposition table holds 2^bits positions.
        #[arg(long, default_value_t = 22)]
        table_bits: u32,
        /// Search threads (young brothers wait; node counts are deterministic on one thread
        /// only). With more than one, the range is solved on one thread too and the speed-up
        /// printed.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// The `othello` engine's midgame search (bundled pattern evaluation, one thread) on fixed
    /// positions of 20-39 discs to a fixed depth, each from a cleared table: nodes, time,
    /// nodes/s and a node-count checksum that tests pin.
    Midgame {
        /// Search depth.
        #[arg(long, default_value_t = 10)]
        depth: u32,
        /// Positions searched.
        #[arg(long, default_value_t = 20)]
        positions: usize,
        /// Search threads (young brothers wait; node counts are deterministic on one thread only). With
        /// more than one, the run is made on one thread too and the speed-up printed.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// `off`: the pattern evaluation alone, without the correction network at the leaves;
        /// `both`: the run with the network, then without, and the ratio of their node rates.
        #[arg(long, default_value = "on", value_parser = ["on", "off", "both"])]
        correction: String,
    },
    /// Prove the perfect-play result of 6x6 Othello from the start (published: white wins
    /// 16-20, a margin of -4 for black). Minutes on one core.
    Othello6 {
        /// The transposition table holds 2^bits positions.
        #[arg(long, default_value_t = 24)]
        table_bits: u32,
    },
    /// The Gomoku engine on fixed middle-game positions (freestyle 15x15 and 19x19, exact five,
    /// renju) to a fixed depth: nodes, nodes/s and a node-count checksum.
    Gomoku {
        /// Alpha-beta depth of every search (threat searches run first, node-limited).
        #[arg(long, default_value_t = 8)]
        depth: u32,
    },
    /// How much of its clock an agent with `time=` uses: each of `positions` fixed positions
    /// (seeded random play from the start, 16 to 35 plies) searched once by a fresh agent; the
    /// mean, median and longest think as a share of the limit.
    Think {
        /// The game.
        #[arg(long, default_value = "othello8")]
        game: catalog::GameId,
        /// The agent, with its `time=` (the limit the shares are of).
        #[arg(long, default_value = "othello:time=200ms")]
        agent: String,
        /// Positions searched.
        #[arg(long, default_value_t = 20)]
        positions: usize,
    },
    /// Q-network speed on 8x8: inference positions/s and training steps/s (forward, backward,
    /// Adam) at batch 1/32/256 on 1 and 2 threads, for the default DQN network and the 6-block
    /// 64-channel reference size; and positions/s through the multi-game driver with 1, 16 and
    /// 64 concurrent games (a greedy learner against random).
    Dqn {
        /// Seconds of each measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
        /// Board side (4, 6 or 8).
        #[arg(long, default_value_t = 8)]
        size: usize,
    },
    /// AlphaZero self-play with the trainer's defaults for the game: searched positions/s,
    /// network evaluations/s and the mean batch, with 1, 16, 64 and 256 games at once on 1
    /// and 2 threads.
    Az {
        /// The game.
        #[arg(long, default_value = "othello6")]
        game: catalog::GameId,
        /// Seconds of each measurement (whole rounds of games, at least one).
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
    },
    /// A value network at the leaves of alpha-beta (cnn-minimax / mlp-minimax): the same
    /// searches with the leaves in batches and one at a time (checked: same moves, scores and
    /// nodes), positions evaluated per second and forward passes of each.
    Minimax {
        /// The value model (.safetensors with its card; default: the bundled CNN,
        /// othello8-cnn.safetensors).
        #[arg(long)]
        model: Option<std::path::PathBuf>,
        /// Search depth.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Positions searched (the arena's balanced 8-ply openings).
        #[arg(long, default_value_t = 40)]
        positions: usize,
    },
}

pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.what {
        BenchKind::Endgame {
            range,
            table_bits,
            threads,
        } => endgame(range, *table_bits, *threads),
        BenchKind::Othello6 { table_bits } => othello6(*table_bits),
        BenchKind::Midgame {
            depth,
            positions,
            threads,
            correction,
        } => match correction.as_str() {
            "both" => {
                let with = midgame(*depth, *positions, *threads, true)?;
                let without = midgame(*depth, *positions, *threads, false)?;
                outln!(
                    "with the correction network: {:.2}x the node rate of the patterns alone, \
                     {:.2}x the time",
                    with.0 / without.0.max(1e-9),
                    with.1 / without.1.max(1e-9)
                );
                Ok(())
            }
            other => midgame(*depth, *positions, *threads, other == "on").map(|_| ()),
        },
        BenchKind::Gomoku { depth } => gomoku_bench(*depth),
        BenchKind::Think {
            game,
            agent,
            positions,
        } => catalog::with_game!(*game, G => think_bench::<G>(agent, *positions)),
        BenchKind::Dqn { seconds, size } => crate::bench_nn_cmd::dqn_bench(*seconds, *size),
        BenchKind::Az { game, seconds } => {
            catalog::with_game!(*game, G => crate::bench_nn_cmd::az_bench::<G>(*seconds))
        }
        BenchKind::Minimax {
            model,
            depth,
            positions,
        } => {
            let model = match model {
                Some(path) => path.clone(),
                None => {
                    let bundled = catalog::BundledModels::locate();
                    bundled
                        .file("othello8-cnn.safetensors")
                        .ok_or_else(|| anyhow::anyhow!("{}", bundled.missing_message()))?
                }
            };
            crate::bench_nn_cmd::minimax_bench(&model, *depth, *positions)
        }
    }
}

/// `LABEL: N nodes, T s, R nodes/s`.
fn print_total(label: &str, nodes: u64, elapsed: std::time::Duration) {
    outln!(
        "{label}: {nodes} nodes, {:.3} s, {} nodes/s",
        elapsed.as_secs_f64(),
        rate(nodes, elapsed)
    );
}

/// The one-thread time over the `threads`-thread time, measured in the same run.
fn print_speed_up(threads: usize, one: std::time::Duration, many: std::time::Duration, what: &str) {
    outln!(
        "speed-up on {threads} threads: {:.2}x ({what})",
        one.as_secs_f64() / many.as_secs_f64().max(1e-9)
    );
}

fn endgame(range: &str, table_bits: u32, threads: usize) -> Result<()> {
    let (first, last) = othello_engine::bench::ffo_range(range)
        .map(|r| (*r.start(), *r.end()))
        .map_err(anyhow::Error::msg)?;
    if !(1..=64).contains(&threads) {
        bail!("--threads {threads}: 1 to 64");
    }
    if !(4..=othello_engine::MAX_TABLE_BITS).contains(&table_bits) {
        bail!(
            "--table-bits must be from 4 to {} (24 bytes per entry)",
            othello_engine::MAX_TABLE_BITS
        );
    }
    let what = if threads == 1 {
        "one thread".to_string()
    } else {
        format!("{threads} threads")
    };
    outln!("FFO endgame benchmark #{first}-#{last}, {what}, table 2^{table_bits}, each solved from a cleared table");
    // On several threads, the one-thread run first: the baseline of the speed-up, and the
    // deterministic node checksum (parallel trees differ run to run).
    let single = (threads > 1).then(|| {
        let r = othello_engine::bench::endgame(first..=last, table_bits, 1, |_| {});
        print_total("baseline, one thread", r.nodes, r.elapsed);
        outln!("node checksum (one thread): {}", r.checksum);
        r.elapsed
    });
    outln!(
        "{:>4} {:>7} {:>6} {:>5} {:>14} {:>9} {:>10}",
        "#",
        "empties",
        "score",
        "move",
        "nodes",
        "seconds",
        "nodes/s"
    );
    let report = othello_engine::bench::endgame(first..=last, table_bits, threads, |row| {
        outln!(
            "{:>4} {:>7} {:>+6} {:>5} {:>14} {:>9.3} {:>10}{}",
            row.number,
            row.empties,
            row.score,
            row.best.map(|m| m.to_string()).unwrap_or_default(),
            row.nodes,
            row.elapsed.as_secs_f64(),
            rate(row.nodes, row.elapsed),
            if row.correct { "" } else { "  WRONG" }
        );
    });
    print_total("total", report.nodes, report.elapsed);
    if let Some(one) = single {
        print_speed_up(
            threads,
            one,
            report.elapsed,
            "time to solve the same positions",
        );
    } else {
        outln!("node checksum: {}", report.checksum);
    }
    let wrong = report.wrong();
    if wrong > 0 {
        bail!("{wrong} position(s) solved wrongly");
    }
    Ok(())
}

/// The most positions `bench midgame` searches.
const MAX_MIDGAME_POSITIONS: usize = 10_000;

/// Runs the midgame benchmark; returns its nodes per second and seconds.
fn midgame(depth: u32, positions: usize, threads: usize, correction: bool) -> Result<(f64, f64)> {
    if !(1..=30).contains(&depth) {
        bail!("--depth {depth}: 1 to 30");
    }
    if !(1..=MAX_MIDGAME_POSITIONS).contains(&positions) {
        bail!("--positions {positions}: 1 to {MAX_MIDGAME_POSITIONS}");
    }
    if !(1..=64).contains(&threads) {
        bail!("--threads {threads}: 1 to 64");
    }
    let single = (threads > 1).then(|| {
        let r = othello_engine::bench::midgame(positions, depth, 1, correction, |_| {});
        print_total("one thread", r.nodes, r.elapsed);
        r.elapsed
    });
    outln!(
        "othello midgame benchmark: {positions} positions, depth {depth}, {threads} thread(s), \
         each from a cleared table, {}",
        if correction {
            "with the correction network"
        } else {
            "the pattern evaluation alone"
        }
    );
    outln!(
        "{:>4} {:>7} {:>8} {:>5} {:>12} {:>9} {:>10}",
        "#",
        "empties",
        "score",
        "move",
        "nodes",
        "seconds",
        "nodes/s"
    );
    let report = othello_engine::bench::midgame(positions, depth, threads, correction, |row| {
        outln!(
            "{:>4} {:>7} {:>+8.2} {:>5} {:>12} {:>9.3} {:>10}",
            row.number,
            row.empties,
            f64::from(row.score) / 64.0,
            row.best.map(|m| m.to_string()).unwrap_or_default(),
            row.nodes,
            row.elapsed.as_secs_f64(),
            rate(row.nodes, row.elapsed)
        );
    });
    print_total("total", report.nodes, report.elapsed);
    if let Some(one) = single {
        print_speed_up(threads, one, report.elapsed, "time to the same depths");
    } else {
        outln!("node checksum: {}", report.checksum);
    }
    let seconds = report.elapsed.as_secs_f64();
    Ok((report.nodes as f64 / seconds.max(1e-9), seconds))
}

fn othello6(table_bits: u32) -> Result<()> {
    if !(4..=othello_engine::MAX_TABLE_BITS).contains(&table_bits) {
        bail!(
            "--table-bits {table_bits}: 4 to {}",
            othello_engine::MAX_TABLE_BITS
        );
    }
    outln!("6x6 Othello from the start, exact, one thread, table 2^{table_bits}");
    let mut solver = Solver::<6>::new(table_bits);
    let s = solver.solve(&othello::Othello6::new());
    let line: Vec<String> = s.pv.iter().map(ToString::to_string).collect();
    outln!(
        "score {:+} for black (published: -4, white wins 16-20); nodes {}; {:.1} s; {} nodes/s",
        s.score,
        s.nodes,
        s.elapsed.as_secs_f64(),
        rate(s.nodes, s.elapsed)
    );
    outln!("line: {}", line.join(" "));
    if s.score != -4 {
        bail!("6x6 solved to {:+}, not the published -4", s.score);
    }
    Ok(())
}

/// `stonelab bench think`: the time an agent thinks against its `time=`.
fn think_bench<G: catalog::CatalogGame>(spec: &str, count: usize) -> Result<()> {
    if !(1..=1000).contains(&count) {
        bail!("--positions {count}: 1 to 1000");
    }
    let limit = search::timing::time_limit(spec)?;
    let registry = G::registry();
    registry
        .validate(spec)
        .map_err(|e| anyhow::anyhow!("--agent: {e}"))?;
    outln!(
        "Thinking time of {spec} on {}: {count} positions (seeded random play, 16-35 plies), \
         limit {} ms",
        G::ID,
        limit.as_millis()
    );
    outln!(
        "{:>3} {:>6} {:>6} {:>9} {:>7}",
        "#",
        "ply",
        "move",
        "ms",
        "limit"
    );
    let mut k = 0;
    let rows = search::timing::thinking_times(&registry, spec, count, &mut |row| {
        k += 1;
        outln!(
            "{k:>3} {:>6} {:>6} {:>9.1} {:>6.0}%",
            row.plies,
            row.mv,
            row.took.as_secs_f64() * 1e3,
            100.0 * row.took.as_secs_f64() / limit.as_secs_f64()
        );
    })?;
    let Some(t) = search::timing::ThinkSummary::of(&rows, limit) else {
        bail!("no position was searched");
    };
    let share = |d: Duration| 100.0 * d.as_secs_f64() / limit.as_secs_f64();
    outln!(
        "mean {:.1} ms ({:.0}% of the limit), median {:.1} ms ({:.0}%), longest {:.1} ms \
         ({:.0}%); {} of {} over the limit",
        t.mean.as_secs_f64() * 1e3,
        share(t.mean),
        t.median.as_secs_f64() * 1e3,
        share(t.median),
        t.longest.as_secs_f64() * 1e3,
        share(t.longest),
        t.over,
        rows.len()
    );
    Ok(())
}

fn gomoku_bench(depth: u32) -> Result<()> {
    use gomoku_engine::bench;
    if !(1..=20).contains(&depth) {
        bail!("--depth must be between 1 and 20");
    }
    outln!(
        "Gomoku engine benchmark: {} positions, depth {depth}, one thread, fresh table each",
        bench::POSITIONS.len()
    );
    outln!(
        "{:>2} {:>9} {:>5} {:>6} {:>5} {:>9} {:>12} {:>9} {:>10}",
        "#",
        "rule",
        "size",
        "stones",
        "move",
        "score",
        "nodes",
        "seconds",
        "nodes/s"
    );
    let mut k = 0;
    let report = bench::run(depth, |row| {
        k += 1;
        outln!(
            "{k:>2} {:>9} {:>5} {:>6} {:>5} {:>9} {:>12} {:>9.3} {:>10}",
            row.rule.name(),
            row.size,
            row.stones,
            row.mv.to_string(),
            row.score.unwrap_or(0),
            row.nodes,
            row.elapsed.as_secs_f64(),
            rate(row.nodes, row.elapsed)
        );
    })?;
    let nodes: u64 = report.rows.iter().map(|r| r.nodes).sum();
    let time: Duration = report.rows.iter().map(|r| r.elapsed).sum();
    outln!(
        "total: {nodes} nodes, {:.3} s, {} nodes/s",
        time.as_secs_f64(),
        rate(nodes, time)
    );
    outln!("node checksum: {}", report.checksum);
    Ok(())
}
