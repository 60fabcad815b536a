//! `stonelab bench`: deterministic benchmarks whose node counts are a checksum of search
//! behaviour (quote them in commits that change search).

use std::time::Duration;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use othello_engine::obf::ffo_suite;
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
    /// Q-network speed on 8x8: inference positions/s and training steps/s (forward, backward,
    /// Adam) at batch 1/32/256 on 1 and 2 threads, for the default DQN network and the 6-block
    /// 64-channel reference size.
    Dqn {
        /// Seconds of each measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
        /// Board side (4, 6 or 8).
        #[arg(long, default_value_t = 8)]
        size: usize,
    },
}

pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.what {
        BenchKind::Endgame { range, table_bits } => endgame(range, *table_bits),
        BenchKind::Othello6 { table_bits } => othello6(*table_bits),
        BenchKind::Gomoku { depth } => gomoku_bench(*depth),
        BenchKind::Dqn { seconds, size } => dqn_bench(*seconds, *size),
    }
}

fn parse_range(text: &str) -> Result<(usize, usize)> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let (a, b): (usize, usize) = match (a.trim().parse(), b.trim().parse()) {
        (Ok(a), Ok(b)) => (a, b),
        _ => bail!("bad range {text:?}: expected FIRST-LAST such as 20-39"),
    };
    if a < 1 || b > 59 || a > b {
        bail!("bad range {text:?}: FFO positions are numbered 1 to 59");
    }
    Ok((a, b))
}

fn endgame(range: &str, table_bits: u32) -> Result<()> {
    let (first, last) = parse_range(range)?;
    let suite = ffo_suite();
    let mut solver = Solver::<8>::new(table_bits);
    let (mut nodes, mut time, mut wrong) = (0u64, Duration::ZERO, 0);
    // FNV-1a over the node counts: a fingerprint of the search's exact behaviour.
    let mut checksum: u64 = 0xcbf2_9ce4_8422_2325;
    println!("FFO endgame benchmark #{first}-#{last}, one thread, table 2^{table_bits}, each solved from a cleared table");
    println!(
        "{:>4} {:>7} {:>6} {:>5} {:>14} {:>9} {:>10}",
        "#", "empties", "score", "move", "nodes", "seconds", "nodes/s"
    );
    for number in first..=last {
        let problem = &suite[number - 1];
        solver.clear();
        let s = solver.solve(&problem.pos);
        let expected = problem.best_score();
        let best_ok = s.best.is_some_and(|mv| {
            problem
                .scores
                .iter()
                .any(|&(m, sc)| m == mv && Some(sc) == expected)
        });
        let ok = expected == Some(s.score) && best_ok;
        if !ok {
            wrong += 1;
        }
        println!(
            "{number:>4} {:>7} {:>+6} {:>5} {:>14} {:>9.3} {:>10}{}",
            problem.pos.empty().count_ones(),
            s.score,
            s.best.map(|m| m.to_string()).unwrap_or_default(),
            s.nodes,
            s.elapsed.as_secs_f64(),
            rate(s.nodes, s.elapsed),
            if ok { "" } else { "  WRONG" }
        );
        nodes += s.nodes;
        time += s.elapsed;
        for byte in s.nodes.to_le_bytes() {
            checksum = (checksum ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!(
        "total: {nodes} nodes, {:.3} s, {} nodes/s",
        time.as_secs_f64(),
        rate(nodes, time)
    );
    println!("node checksum: {checksum:016x}");
    if wrong > 0 {
        bail!("{wrong} position(s) solved wrongly");
    }
    Ok(())
}

fn othello6(table_bits: u32) -> Result<()> {
    println!("6x6 Othello from the start, exact, one thread, table 2^{table_bits}");
    let mut solver = Solver::<6>::new(table_bits);
    let s = solver.solve(&othello::Othello6::new());
    let line: Vec<String> = s.pv.iter().map(ToString::to_string).collect();
    println!(
        "score {:+} for black (published: -4, white wins 16-20); nodes {}; {:.1} s; {} nodes/s",
        s.score,
        s.nodes,
        s.elapsed.as_secs_f64(),
        rate(s.nodes, s.elapsed)
    );
    println!("line: {}", line.join(" "));
    if s.score != -4 {
        bail!("6x6 solved to {:+}, not the published -4", s.score);
    }
    Ok(())
}

/// The Gomoku benchmark positions: rule, board side, moves from the empty board (taken from
/// engine games on random openings, before either side had a forced win).
const GOMOKU_POSITIONS: [(gomoku::Rule, usize, &str); 6] = [
    (gomoku::Rule::Freestyle, 15, "j8 e9 k7 i9 k9 i7 k8 k6 j7 j6"),
    (
        gomoku::Rule::Freestyle,
        15,
        "j8 e9 k7 f8 g7 e8 i9 h10 l6 m5 h8 j10",
    ),
    (gomoku::Rule::Freestyle, 19, "l13 h13 m13 n13 l12 l10"),
    (
        gomoku::Rule::Freestyle,
        19,
        "l13 h13 e10 g13 f13 g14 g12 e14 e15 h14",
    ),
    (
        gomoku::Rule::Renju,
        15,
        "j10 j6 g5 j7 j5 f5 g7 g6 h7 i6 h6 h5",
    ),
    (
        gomoku::Rule::Standard,
        15,
        "e8 k9 j9 j8 g6 l10 i7 m11 n12 f7",
    ),
];

fn gomoku_bench(depth: u32) -> Result<()> {
    if !(1..=20).contains(&depth) {
        bail!("--depth must be between 1 and 20");
    }
    println!(
        "Gomoku engine benchmark: {} positions, depth {depth}, one thread, fresh table each",
        GOMOKU_POSITIONS.len()
    );
    println!(
        "{:>2} {:>9} {:>5} {:>6} {:>5} {:>9} {:>12} {:>9} {:>10}",
        "#", "rule", "size", "stones", "move", "score", "nodes", "seconds", "nodes/s"
    );
    let (mut nodes, mut time) = (0u64, Duration::ZERO);
    let mut checksum: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, (rule, size, moves)) in GOMOKU_POSITIONS.iter().enumerate() {
        let mut board = gomoku::Board::new(*size, *rule)?;
        for text in moves.split_whitespace() {
            board.play(text.parse()?)?;
        }
        let mut engine = gomoku_engine::GomokuEngine::new(gomoku_engine::EngineConfig {
            time: None,
            ..gomoku_engine::EngineConfig::default()
        });
        let started = std::time::Instant::now();
        let Some(d) = engine.think(&board, &search::Budget::depth(depth)) else {
            bail!("benchmark position {} is already over", k + 1);
        };
        let elapsed = started.elapsed();
        println!(
            "{:>2} {:>9} {:>5} {:>6} {:>5} {:>9} {:>12} {:>9.3} {:>10}",
            k + 1,
            rule.name(),
            size,
            board.stone_count(),
            d.mv.to_string(),
            d.score.unwrap_or(0),
            d.nodes,
            elapsed.as_secs_f64(),
            rate(d.nodes, elapsed)
        );
        nodes += d.nodes;
        time += elapsed;
        let mv = d.mv.to_string();
        for byte in d.nodes.to_le_bytes().iter().chain(mv.as_bytes()) {
            checksum = (checksum ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!(
        "total: {nodes} nodes, {:.3} s, {} nodes/s",
        time.as_secs_f64(),
        rate(nodes, time)
    );
    println!("node checksum: {checksum:016x}");
    Ok(())
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
    println!(
        "Q-network speed on {size}x{size} (burn Flex CPU; {seconds} s per figure; this machine has {} cores)",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );
    println!(
        "{:<14} {:<15} {:>7} {:>5} {:>13} {:>13}",
        "network", "", "threads", "batch", "positions/s", "train steps/s"
    );
    for (arch, label) in archs {
        for threads in [1, 2] {
            for batch in [1, 32, 256] {
                let s = measure(arch, size, batch, threads, time)?;
                println!(
                    "{:<14} {:<15} {threads:>7} {batch:>5} {:>13.0} {:>13.2}",
                    arch.label(),
                    label,
                    s.positions_per_s,
                    s.train_steps_per_s
                );
            }
        }
    }
    Ok(())
}
