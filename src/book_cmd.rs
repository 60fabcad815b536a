//! `stonelab book build|show`: the `othello` engine's opening book — built from the WTHOR
//! records with every move scored by search, and shown move by move.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use game::Game;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::wthor::parse_games;
use othello::{Move, Othello8};
use othello_engine::book::{build, collect, Book};

/// Options of `stonelab book`.
#[derive(Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    what: BookCommand,
}

#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Build a book: the record positions of the first --plies moves seen at least --min-count
    /// times (symmetries merged), every move scored by a --depth search, backed up by negamax.
    Build {
        /// The WTHOR folder.
        #[arg(long, default_value = "data/othello/wthor")]
        wthor: PathBuf,
        /// Positions after at most this many moves.
        #[arg(long, default_value_t = 16)]
        plies: usize,
        /// Positions seen at least this many times.
        #[arg(long, default_value_t = 4)]
        min_count: u32,
        /// Search depth that scores each move (Multi-ProbCut at 1.5 deviations from depth 6).
        #[arg(long, default_value_t = 8)]
        depth: u32,
        /// The book file to write.
        #[arg(long)]
        out: PathBuf,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Show the book's moves and scores at the start or after a move sequence.
    Show {
        /// Moves from the start, e.g. f5d6c3.
        #[arg(long, default_value = "")]
        moves: String,
        /// A book file (default: the bundled one).
        #[arg(long)]
        book: Option<PathBuf>,
    },
}

pub fn run(args: &BookArgs) -> Result<()> {
    match &args.what {
        BookCommand::Build {
            wthor,
            plies,
            min_count,
            depth,
            out,
            quiet,
        } => build_book(wthor, *plies, *min_count, *depth, out, *quiet),
        BookCommand::Show { moves, book } => show(moves, book.as_ref()),
    }
}

fn build_book(
    wthor: &Path,
    plies: usize,
    min_count: u32,
    depth: u32,
    out: &Path,
    quiet: bool,
) -> Result<()> {
    if !(1..=20).contains(&depth) {
        bail!("--depth {depth}: 1 to 20");
    }
    if plies > 40 {
        bail!("--plies {plies}: at most 40");
    }
    let started = Instant::now();
    let mut games = Vec::new();
    for path in crate::data_cmd::wthor_files(wthor)? {
        let bytes = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let file = parse_games(&bytes).with_context(|| format!("reading {}", path.display()))?;
        for g in file.games {
            if let Ok(replay) = g.replay() {
                games.push(replay.positions().to_vec());
            }
        }
    }
    let positions = collect(&games, plies, min_count.max(1));
    drop(games);
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::with_draw_target(
            Some(positions.len() as u64),
            ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} positions, ETA {eta_precise}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    };
    let probcut = Some((othello_engine::midgame::bundled_probcut(), 1.5));
    let book = build(
        &othello_engine::pattern::bundled(),
        probcut,
        &positions,
        depth,
        &|| bar.inc(1),
    );
    bar.finish_and_clear();
    let bytes = book.to_bytes();
    fs::write(out, &bytes).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "book: {} positions (first {plies} moves, seen {min_count}+ times), moves scored at depth \
         {depth}, {} KB, {:.0} s -> {}",
        book.len(),
        bytes.len() / 1024,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

fn show(moves: &str, path: Option<&PathBuf>) -> Result<()> {
    let book = match path {
        Some(p) => {
            let bytes = fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            Arc::new(Book::from_bytes(&bytes).with_context(|| format!("reading {}", p.display()))?)
        }
        None => othello_engine::book::bundled(),
    };
    let squares = othello::parse_transcript(moves).with_context(|| format!("--moves {moves:?}"))?;
    let replay = othello::replay(&Othello8::new(), &squares)
        .map_err(|e| anyhow::anyhow!("--moves {moves:?}: {e}"))?;
    let pos = *replay.last();
    println!("{}", pos.diagram());
    println!(
        "book: {} positions, moves scored at depth {}",
        book.len(),
        book.depth
    );
    match book.moves(&pos) {
        None => println!("this position is not in the book"),
        Some(list) => {
            for (mv, score) in list {
                let child = pos.play_unchecked(mv);
                let deeper = if book.value(&child).is_some() {
                    "  (book continues)"
                } else {
                    ""
                };
                let text = match mv {
                    Move::Place(sq) => sq.to_string(),
                    Move::Pass => "pass".into(),
                };
                println!("{text:>5} {:+7.2}{deeper}", f64::from(score) / 64.0);
            }
        }
    }
    Ok(())
}
