//! `stonelab bench`: deterministic benchmarks whose node counts are a checksum of search
//! behaviour (quote them in commits that change search).

use std::time::{Duration, Instant};

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
        BenchKind::Dqn { seconds, size } => dqn_bench(*seconds, *size),
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
            minimax_bench(&model, *depth, *positions)
        }
    }
}

/// `stonelab bench minimax`.
fn minimax_bench(model: &std::path::Path, depth: u32, count: usize) -> Result<()> {
    use search::Agent;
    use std::sync::Arc;
    if !(1..=8).contains(&depth) || count == 0 {
        anyhow::bail!("--depth 1..=8 and --positions at least 1");
    }
    // Its errors name the file.
    let (card, _) = learn::checkpoint::read_model(model)?;
    if card.algo != learn::value::CNN_ALGO && card.algo != learn::value::MLP_ALGO {
        anyhow::bail!(
            "{}: this is a model for {}, not a value network ({} or {}: cnn-supervised, \
             mlp-supervised or cnn-selfplay)",
            model.display(),
            card.algo,
            learn::value::CNN_ALGO,
            learn::value::MLP_ALGO
        );
    }
    let loaded = learn::value::ValueModel::load(model, &card.algo, "othello8", 8)
        .map_err(|e| anyhow::anyhow!("{}: {e}", model.display()))?;
    let openings = arena::builtin_openings::<othello::Othello8>()?
        .ok_or_else(|| anyhow::anyhow!("no built-in openings"))?;
    if count > openings.len() {
        anyhow::bail!(
            "--positions {count}: at most {} (the built-in balanced openings)",
            openings.len()
        );
    }
    let positions: Vec<othello::Othello8> =
        openings.iter().take(count).map(|o| *o.position()).collect();
    outln!(
        "{} ({}), depth {depth}, {} positions, {} thread(s)",
        model.display(),
        loaded.arch.label(),
        positions.len(),
        rayon::current_num_threads()
    );
    let mut rows = Vec::new();
    let mut decisions = Vec::new();
    for batched in [true, false] {
        let eval = Arc::new(
            learn::value::ValueEvaluator::new(loaded.net.clone(), loaded.input).batched(batched),
        );
        let started = Instant::now();
        let mut nodes = 0;
        let mut found = Vec::new();
        for pos in &positions {
            let mut agent = learn::value::ValueMinimax::<othello::Othello8>::new(
                "bench".into(),
                eval.clone(),
                depth,
            );
            let d = agent.select(pos, &search::Budget::default())?;
            nodes += d.nodes;
            found.push((d.mv, d.score, d.nodes));
        }
        let seconds = started.elapsed().as_secs_f64();
        let (evaluated, passes) = eval.counts();
        rows.push((batched, seconds, nodes, evaluated, passes));
        decisions.push(found);
    }
    if decisions[0] != decisions[1] {
        anyhow::bail!("batched and one-at-a-time searches differ: a bug");
    }
    outln!(
        "{:<14} {:>9} {:>10} {:>12} {:>10} {:>11} {:>14}",
        "leaves",
        "seconds",
        "nodes",
        "evaluated",
        "passes",
        "mean batch",
        "positions/s"
    );
    for (batched, seconds, nodes, evaluated, passes) in &rows {
        outln!(
            "{:<14} {seconds:>9.2} {nodes:>10} {evaluated:>12} {passes:>10} {:>11.1} {:>14.0}",
            if *batched { "batched" } else { "one at a time" },
            *evaluated as f64 / (*passes).max(1) as f64,
            *evaluated as f64 / seconds
        );
    }
    let speedup = (rows[1].3 as f64 / rows[1].1) / (rows[0].3 as f64 / rows[0].1).max(1e-9);
    // Time per search, one at a time over batched: above 1, batching is faster.
    let ratio = rows[1].1 / rows[0].1.max(1e-9);
    outln!(
        "same moves, scores and nodes both ways; batched evaluates {:.2}x the positions/s of one \
         at a time ({})",
        1.0 / speedup.max(1e-9),
        if ratio >= 1.0 {
            format!("{ratio:.2}x faster per search")
        } else {
            format!("{:.2}x slower per search", 1.0 / ratio.max(1e-9))
        }
    );
    Ok(())
}

fn parse_range(text: &str) -> Result<(usize, usize)> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let (a, b): (usize, usize) = match (a.trim().parse(), b.trim().parse()) {
        (Ok(a), Ok(b)) => (a, b),
        _ => bail!("bad range {text:?}: expected FIRST-LAST such as 20-39"),
    };
    if a < 1 || b > 59 {
        bail!("bad range {text:?}: FFO positions are numbered 1 to 59");
    }
    if a > b {
        bail!("bad range {text:?}: the first position comes after the last");
    }
    Ok((a, b))
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
    let (first, last) = parse_range(range)?;
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
    use rand::{RngExt, SeedableRng};
    if !(1..=1000).contains(&count) {
        bail!("--positions {count}: 1 to 1000");
    }
    let parsed: search::Spec = spec.parse()?;
    let Some(limit) = parsed.duration("time")?.filter(|t| !t.is_zero()) else {
        bail!("--agent {spec:?}: give it a time per move (time=200ms), the limit measured against");
    };
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
    let mut times = Vec::with_capacity(count);
    let mut number = 0u64;
    while times.len() < count {
        number += 1;
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(number);
        let plies = 16 + rng.random_range(0..20);
        let mut pos = G::start();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if pos.is_over() || moves.is_empty() {
                break;
            }
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if pos.is_over() || pos.legal_moves().len() < 2 {
            continue;
        }
        let mut agent = registry.build(spec, number)?;
        let started = Instant::now();
        let decision = agent
            .select(&pos, &search::Budget::default())
            .map_err(|e| anyhow::anyhow!("position {number}: {e}"))?;
        let took = started.elapsed();
        times.push(took);
        outln!(
            "{:>3} {plies:>6} {:>6} {:>9.1} {:>6.0}%",
            times.len(),
            decision.mv.to_string(),
            took.as_secs_f64() * 1e3,
            100.0 * took.as_secs_f64() / limit.as_secs_f64()
        );
    }
    let mut sorted = times.clone();
    sorted.sort();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let share = |d: Duration| 100.0 * d.as_secs_f64() / limit.as_secs_f64();
    let median = sorted[sorted.len() / 2];
    let longest = sorted[sorted.len() - 1];
    outln!(
        "mean {:.1} ms ({:.0}% of the limit), median {:.1} ms ({:.0}%), longest {:.1} ms \
         ({:.0}%); {} of {} over the limit",
        mean.as_secs_f64() * 1e3,
        share(mean),
        median.as_secs_f64() * 1e3,
        share(median),
        longest.as_secs_f64() * 1e3,
        share(longest),
        times.iter().filter(|&&t| t > limit).count(),
        times.len()
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

fn measure_driver<G: game::Game>(
    arch: learn::QNetArch,
    games: usize,
    threads: usize,
    time: Duration,
) -> Result<f64> {
    Ok(learn::speed::driver_positions_per_s::<G>(
        arch, games, threads, time,
    )?)
}

fn dqn_bench(seconds: f64, size: usize) -> Result<()> {
    use learn::speed::measure;
    use learn::QNetArch;
    if ![4, 6, 8].contains(&size) {
        bail!("--size must be 4, 6 or 8");
    }
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 600.0) {
        bail!("--seconds must be within (0, 600]");
    }
    let time = Duration::from_secs_f64(seconds);
    let archs = [
        (QNetArch::DEFAULT, "default"),
        (
            QNetArch::Resnet {
                blocks: 6,
                channels: 64,
            },
            "reference size",
        ),
    ];
    outln!(
        "Q-network speed on {size}x{size} (burn Flex CPU; {seconds} s per figure; this machine has {} cores)",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );
    outln!(
        "{:<14} {:<15} {:>7} {:>5} {:>13} {:>13}",
        "network",
        "",
        "threads",
        "batch",
        "positions/s",
        "train steps/s"
    );
    // 12 network figures, then 12 driver figures, each taking about `seconds`.
    let bar = crate::progress::bar(false, 24, "figures");
    for (arch, label) in archs {
        for threads in [1, 2] {
            for batch in [1, 32, 256] {
                let s = measure(arch, size, batch, threads, time)?;
                bar.inc(1);
                bar.suspend(|| {
                    outln!(
                        "{:<14} {:<15} {threads:>7} {batch:>5} {:>13.0} {:>13.2}",
                        arch.label(),
                        label,
                        s.positions_per_s,
                        s.train_steps_per_s
                    );
                });
            }
        }
    }
    // The multi-game driver in a table of its own: positions/s with 1, 16 and 64 games at once.
    outln!();
    outln!("Multi-game driver (greedy against random), positions/s");
    outln!(
        "{:<14} {:<15} {:>7} {:>13} {:>13} {:>13}",
        "network",
        "",
        "threads",
        "1 game",
        "16 games",
        "64 games"
    );
    for (arch, label) in archs {
        for threads in [1, 2] {
            let figures: Vec<String> = [1, 16, 64]
                .iter()
                .map(|&games| {
                    let rate = match size {
                        4 => measure_driver::<othello::Othello4>(arch, games, threads, time),
                        6 => measure_driver::<othello::Othello6>(arch, games, threads, time),
                        _ => measure_driver::<othello::Othello8>(arch, games, threads, time),
                    }?;
                    bar.inc(1);
                    Ok(format!("{rate:>13.0}"))
                })
                .collect::<Result<_>>()?;
            bar.suspend(|| {
                outln!(
                    "{:<14} {:<15} {threads:>7} {}",
                    arch.label(),
                    label,
                    figures.join(" ")
                );
            });
        }
    }
    bar.finish_and_clear();
    Ok(())
}
