//! `stonelab bench minimax`, `bench dqn` and `bench az`: the networks' speed on this machine
//! (a value network at the leaves of alpha-beta, batched against one at a time; the Q-networks,
//! the multi-game driver and AlphaZero self-play), measured by `learn::speed`, as tables.

use std::time::Duration;

use anyhow::{bail, Result};

/// `stonelab bench minimax`.
pub fn minimax_bench(model: &std::path::Path, depth: u32, count: usize) -> Result<()> {
    let m = learn::speed::value_minimax(model, depth, count, &mut |arch, positions| {
        outln!(
            "{} ({arch}), depth {depth}, {positions} positions, {} thread(s)",
            model.display(),
            rayon::current_num_threads()
        );
    })?;
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
    for r in &m.runs {
        let (seconds, nodes, evaluated, passes) = (r.seconds, r.nodes, r.evaluated, r.passes);
        outln!(
            "{:<14} {seconds:>9.2} {nodes:>10} {evaluated:>12} {passes:>10} {:>11.1} {:>14.0}",
            if r.batched {
                "batched"
            } else {
                "one at a time"
            },
            evaluated as f64 / passes.max(1) as f64,
            evaluated as f64 / seconds
        );
    }
    let [batched, single] = &m.runs;
    let speedup = (single.evaluated as f64 / single.seconds)
        / (batched.evaluated as f64 / batched.seconds).max(1e-9);
    // Time per search, one at a time over batched: above 1, batching is faster.
    let ratio = single.seconds / batched.seconds.max(1e-9);
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

/// `stonelab bench az`.
pub fn az_bench<G: game::Game>(seconds: f64) -> Result<()> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 600.0) {
        bail!("--seconds must be within (0, 600]");
    }
    let arch = learn::alphazero::AlphaZeroConfig::for_game(G::ID, 1).arch;
    outln!(
        "AlphaZero self-play on {} ({}, the trainer's defaults)",
        G::ID,
        arch.label()
    );
    outln!("threads   games      positions/s      evaluations/s      batch");
    for threads in [1, 2] {
        for games in [1, 16, 64, 256] {
            let (searched, evals, batch) =
                learn::speed::az_self_play::<G>(games, threads, Duration::from_secs_f64(seconds))?;
            outln!("{threads:>7} {games:>7} {searched:>16.1} {evals:>18.0} {batch:>10.1}");
        }
    }
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

/// `stonelab bench dqn`.
pub fn dqn_bench(seconds: f64, size: usize) -> Result<()> {
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
