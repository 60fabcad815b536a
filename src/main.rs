//! `stonelab`: the command-line entry point (the browser app by default; terminal play, perft,
//! solving, benchmarks, the arena and the engine protocols).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[macro_use]
mod output;

mod arena_cmd;
mod bench_cmd;
mod bench_nn_cmd;
mod book_cmd;
mod cli_games;
mod data_cmd;
mod dp_cmd;
mod games;
mod gomocup_cmd;
mod input;
mod nboard_cmd;
mod patterns_cmd;
mod perft_cmd;
mod play;
mod progress;
mod reproduce;
mod serve_cmd;
mod solve_cmd;
mod train_cmd;

/// A lab for two-player stone games: play, train and measure Othello and Gomoku AIs.
#[derive(Parser, Debug)]
#[command(name = "stonelab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve the browser app (the default command): play, watch and analyse in the browser.
    Serve(serve_cmd::ServeArgs),
    /// Play a game in the terminal.
    Play(play::PlayArgs),
    /// Count the leaves of the game tree to a depth, with timings (a move-generator benchmark).
    Perft(perft_cmd::PerftArgs),
    /// Solve positions exactly: best move, perfect-play score, nodes and time.
    Solve(solve_cmd::SolveArgs),
    /// Benchmarks: the Othello endgame solver (FFO), midgame search and 6x6 solve, the Gomoku
    /// engine, the DQN network and the value-network minimax, most with node-count checksums.
    Bench(bench_cmd::BenchArgs),
    /// Play agents against each other: a round robin with Elo ratings, or an SPRT match.
    Arena(arena_cmd::ArenaArgs),
    /// Be an 8x8 Othello engine for the NBoard GUI (NBoard protocol on stdin/stdout).
    Nboard(nboard_cmd::NboardArgs),
    /// Be a Gomoku brain for Piskvork-compatible managers (Gomocup protocol on stdin/stdout).
    Gomocup(gomocup_cmd::GomocupArgs),
    /// Train a learning agent (q-table, q-mlp, the dqn trainers, the paper's cnn/mlp value
    /// networks and cnn self-play) into a run folder.
    Train(Box<train_cmd::TrainArgs>),
    /// Rerun an experiment of a student design and write its report beside the authors'
    /// numbers (--list shows them).
    Reproduce(reproduce::ReproduceArgs),
    /// Value iteration over every reachable position of a small board (othello4).
    Dp(dp_cmd::DpArgs),
    /// Build datasets from the shipped records (`data wthor`: labelled positions for value
    /// learning, split train/test).
    Data(data_cmd::DataArgs),
    /// The `othello` engine's opening book: build it from the records, or show its moves.
    Book(book_cmd::BookArgs),
    /// List the agents (spec strings) a game offers, with their keys.
    Agents {
        /// The game.
        #[arg(long, default_value_t = games::GameId::Othello8)]
        game: games::GameId,
    },
}

/// An error and its causes on one line, each said once: a cause whose text the message already
/// holds (errors that quote their source) is not repeated.
fn report(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// The ids of the options given on the command line to `subcommand` (not defaults).
fn given_options(matches: &clap::ArgMatches, subcommand: &str) -> Vec<String> {
    matches
        .subcommand_matches(subcommand)
        .map(learn::options::given_ids)
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Some(Command::Serve(args)) => serve_cmd::run(&args),
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Perft(args)) => perft_cmd::run(&args),
        Some(Command::Solve(args)) => solve_cmd::run(&args),
        Some(Command::Bench(args)) => bench_cmd::run(&args),
        Some(Command::Dp(args)) => dp_cmd::run(&args),
        Some(Command::Data(args)) => data_cmd::run(&args),
        Some(Command::Train(mut args)) => {
            args.options.given = given_options(&matches, "train");
            train_cmd::run(&args)
        }
        Some(Command::Reproduce(args)) => reproduce::run(&args),
        Some(Command::Arena(args)) => arena_cmd::run(&args),
        Some(Command::Nboard(args)) => nboard_cmd::run(&args),
        Some(Command::Gomocup(args)) => gomocup_cmd::run(&args),
        Some(Command::Book(args)) => book_cmd::run(&args),
        Some(Command::Agents { game }) => {
            outln!("{}", catalog::help(game));
            Ok(())
        }
        None => serve_cmd::run(&serve_cmd::ServeArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", report(&err));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled pattern weights are what the documented training command makes: the card's
    /// `config` (`models/othello8-patterns.json`) is the configuration that the README's
    /// `train patterns` line asks for, and docs/othello-engine.md gives the same line.
    #[test]
    fn the_bundled_pattern_card_is_the_documented_command() {
        let prefix = "cargo run --release -- ";
        let line = include_str!("../README.md")
            .lines()
            .find(|l| l.starts_with("cargo run --release -- train patterns"))
            .expect("the README gives the training command");
        let command = &line[prefix.len()..];
        assert!(
            include_str!("../docs/othello-engine.md").contains(&format!("\nstonelab {command}\n")),
            "docs/othello-engine.md gives another command than `{command}`"
        );
        let cli =
            Cli::try_parse_from(std::iter::once("stonelab").chain(command.split_whitespace()))
                .expect("the README's command parses");
        let Some(Command::Train(args)) = cli.command else {
            panic!("`{command}` is not a train command");
        };
        let asked = args
            .options
            .pattern_config()
            .expect("the README's command is valid");
        use othello_engine::train::pipeline::{CorrectionCard, PatternCard};
        let card: PatternCard =
            serde_json::from_str(include_str!("../models/othello8-patterns.json"))
                .expect("the card is a pattern card");
        assert_eq!(card.config, asked);
        // The correction network comes from the same command, fitted for the bundled weights.
        let card: CorrectionCard =
            serde_json::from_str(include_str!("../models/othello8-correction.json"))
                .expect("the correction card is a correction card");
        let mut config = card.config.clone();
        // It was distilled into a canonical network from the network that command fitted as
        // played (before canonical fits existed), and the card says so.
        assert!(
            config.correction_as_played,
            "the card's teacher was fitted as played"
        );
        assert_eq!(card.orientation, "canonical");
        let distilled = card
            .distilled
            .as_ref()
            .expect("the card says how it was distilled");
        assert!(distilled["teacher_sha256"].is_string());
        config.correction_as_played = false;
        assert_eq!(config, asked);
        let net = othello_engine::correction::bundled();
        assert!(net.canonical);
        assert_eq!(card.hidden, net.hidden);
        assert_eq!(card.planes, net.planes);
        assert_eq!(
            card.patterns_fingerprint,
            format!(
                "{:016x}",
                othello_engine::correction::pattern_fingerprint(
                    othello_engine::pattern::BUNDLED_BYTES
                )
            )
        );
    }
}
