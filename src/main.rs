//! `stonelab`: the command-line entry point (terminal play, perft; later the web app, training,
//! arena and engine protocols).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod agents;
mod bench_cmd;
mod games;
mod perft_cmd;
mod play;
mod solve_cmd;

/// A lab for two-player stone games: play, train and measure Othello and Gomoku AIs.
#[derive(Parser, Debug)]
#[command(name = "stonelab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a game in the terminal (the default command until the web app lands).
    Play(play::PlayArgs),
    /// Count the leaves of the game tree to a depth, with timings (a move-generator benchmark).
    Perft(perft_cmd::PerftArgs),
    /// Solve positions exactly: best move, perfect-play score, nodes and time.
    Solve(solve_cmd::SolveArgs),
    /// Deterministic benchmarks (FFO endgames) with node-count checksums.
    Bench(bench_cmd::BenchArgs),
    /// List the agents (spec strings) a game offers, with their keys.
    Agents {
        /// The game.
        #[arg(long, default_value_t = games::GameId::Othello8)]
        game: games::GameId,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Perft(args)) => perft_cmd::run(&args),
        Some(Command::Solve(args)) => solve_cmd::run(&args),
        Some(Command::Bench(args)) => bench_cmd::run(&args),
        Some(Command::Agents { game }) => {
            println!("{}", agents::help(game));
            Ok(())
        }
        None => play::run(&play::PlayArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
