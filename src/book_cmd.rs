//! `stonelab book build|show|xot`: the `othello` engine's opening book — built from the WTHOR
//! records and self-play with every move scored by search, shown move by move — and XOT-style
//! match openings.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use game::Game;
use othello::wthor::parse_games;
use othello::{Move, Othello8};
use othello_engine::book::{build, collect, extend_by_self_play, Book, SelfPlay};

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
        /// Self-play games that grow the book past the records: each walks --self-play-plies
        /// moves, playing at random among the moves within --self-play-margin of the best, and
        /// every position it reaches that the records did not give is scored by search (0: none).
        #[arg(long, default_value_t = 2000)]
        self_play: usize,
        /// Moves per self-play game (past the records' horizon, --plies, the lines go deeper).
        #[arg(long, default_value_t = 24)]
        self_play_plies: usize,
        /// Self-play picks among moves within this many discs of the best.
        #[arg(long, default_value_t = 1.0)]
        self_play_margin: f64,
        /// Seed of the self-play games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The book file to write.
        #[arg(long)]
        out: PathBuf,
        /// Replace --out if it exists.
        #[arg(long)]
        force: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Make XOT-style match openings: random lines of --plies moves, kept when a --depth search
    /// scores them within --margin discs of even; written one transcript per line, for
    /// `stonelab arena --openings FILE` (the bundled set is `--opening-set xot`).
    Xot {
        /// Openings to keep.
        #[arg(long, default_value_t = 1000)]
        count: usize,
        /// Moves per opening.
        #[arg(long, default_value_t = 8)]
        plies: usize,
        /// Depth of the search that scores each line (Multi-ProbCut at 2 deviations).
        #[arg(long, default_value_t = 12)]
        depth: u32,
        /// Keep lines scored within this many discs of even.
        #[arg(long, default_value_t = 1.0)]
        margin: f64,
        /// Seed of the random lines.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
        /// Replace --out if it exists.
        #[arg(long)]
        force: bool,
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
    if let BookCommand::Build { out, force, .. } | BookCommand::Xot { out, force, .. } = &args.what
    {
        crate::input::check_output(out, "--out", *force)?;
    }
    match &args.what {
        BookCommand::Build {
            wthor,
            plies,
            min_count,
            depth,
            self_play,
            self_play_plies,
            self_play_margin,
            seed,
            out,
            quiet,
            force: _,
        } => build_book(
            wthor,
            &BuildPlan {
                plies: *plies,
                min_count: *min_count,
                depth: *depth,
                self_play: *self_play,
                self_play_plies: *self_play_plies,
                margin: *self_play_margin,
                seed: *seed,
            },
            out,
            *quiet,
        ),
        BookCommand::Xot {
            count,
            plies,
            depth,
            margin,
            seed,
            out,
            quiet,
            force: _,
        } => xot(
            XotPlanArgs {
                count: *count,
                plies: *plies,
                depth: *depth,
                margin: *margin,
                seed: *seed,
            },
            out,
            *quiet,
        ),
        BookCommand::Show { moves, book } => show(moves, book.as_ref()),
    }
}

/// How `book build` builds.
struct BuildPlan {
    plies: usize,
    min_count: u32,
    depth: u32,
    self_play: usize,
    self_play_plies: usize,
    margin: f64,
    seed: u64,
}

fn build_book(wthor: &Path, plan: &BuildPlan, out: &Path, quiet: bool) -> Result<()> {
    let BuildPlan {
        plies,
        min_count,
        depth,
        ..
    } = *plan;
    if !(0.0..=64.0).contains(&plan.margin) {
        bail!("--self-play-margin {}: 0 to 64 discs", plan.margin);
    }
    if plan.self_play > 1_000_000 {
        bail!("--self-play {}: at most 1000000 games", plan.self_play);
    }
    if !(1..=20).contains(&depth) {
        bail!("--depth {depth}: 1 to 20");
    }
    if plies > 40 {
        bail!("--plies {plies}: at most 40");
    }
    if plan.self_play_plies > 40 {
        bail!("--self-play-plies {}: at most 40", plan.self_play_plies);
    }
    if min_count == 0 {
        bail!("--min-count 0: a position is seen at least once");
    }
    if plan.self_play == 0 && (plan.self_play_plies != 24 || plan.margin != 1.0) {
        bail!("--self-play-plies and --self-play-margin shape the self-play games: --self-play 0 plays none");
    }
    let started = Instant::now();
    let mut games = Vec::new();
    let mut skipped = 0;
    for path in crate::data_cmd::wthor_files(wthor)? {
        let bytes = crate::input::read(&path)?;
        let file = parse_games(&bytes).with_context(|| format!("reading {}", path.display()))?;
        for g in file.games {
            match g.replay() {
                Ok(replay) => games.push(replay.positions().to_vec()),
                Err(_) => skipped += 1,
            }
        }
    }
    if skipped > 0 {
        eprintln!("{skipped} games did not replay (an illegal move) and were left out");
    }
    if games.is_empty() {
        bail!(
            "no game of {} replays: there is nothing to build a book from",
            wthor.display()
        );
    }
    let positions = collect(&games, plies, min_count.max(1));
    drop(games);
    let bar = crate::progress::bar(quiet, positions.len() as u64, "record positions");
    let probcut = Some((othello_engine::midgame::bundled_probcut(), 1.5));
    let eval = othello_engine::pattern::bundled();
    let mut book = build(&eval, probcut.clone(), &positions, depth, &|| bar.inc(1));
    bar.finish_and_clear();
    let records = book.len();
    let bar = crate::progress::bar(quiet, plan.self_play as u64, "self-play games");
    let added = extend_by_self_play(
        &mut book,
        &eval,
        probcut,
        depth,
        SelfPlay {
            games: plan.self_play,
            plies: plan.self_play_plies,
            margin: (plan.margin * 64.0).round() as i32,
            seed: plan.seed,
        },
        &|| bar.inc(1),
    );
    bar.finish_and_clear();
    let bytes = book.to_bytes();
    files::write(out, &bytes)?;
    eprintln!(
        "book: {} positions ({records} from the records: first {plies} moves, seen {min_count}+ \
         times; {added} from {} self-play games of {} moves), moves scored at depth {depth}, {} KB, {:.0} s \
         -> {}",
        book.len(),
        plan.self_play,
        plan.self_play_plies,
        bytes.len() / 1024,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

fn show(moves: &str, path: Option<&PathBuf>) -> Result<()> {
    let book = match path {
        Some(p) => {
            let bytes = crate::input::read(p)?;
            Arc::new(Book::from_bytes(&bytes).with_context(|| format!("reading {}", p.display()))?)
        }
        None => othello_engine::book::bundled(),
    };
    let squares = othello::parse_transcript(moves).with_context(|| format!("--moves {moves:?}"))?;
    let replay = othello::replay(&Othello8::new(), &squares)
        .map_err(|e| anyhow::anyhow!("--moves {moves:?}: {e}"))?;
    let pos = *replay.last();
    outln!("{}", pos.diagram());
    outln!(
        "book: {} positions, moves scored at depth {}",
        book.len(),
        book.depth
    );
    match book.moves(&pos) {
        None => outln!("this position is not in the book"),
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
                outln!("{text:>5} {:+7.2}{deeper}", f64::from(score) / 64.0);
            }
        }
    }
    Ok(())
}

/// What `book xot` was asked for.
struct XotPlanArgs {
    count: usize,
    plies: usize,
    depth: u32,
    margin: f64,
    seed: u64,
}

fn xot(args: XotPlanArgs, out: &Path, quiet: bool) -> Result<()> {
    if !(1..=100_000).contains(&args.count) {
        bail!("--count {}: 1 to 100000", args.count);
    }
    if !(1..=20).contains(&args.plies) {
        bail!("--plies {}: 1 to 20", args.plies);
    }
    if !(1..=16).contains(&args.depth) {
        bail!("--depth {}: 1 to 16", args.depth);
    }
    if !(0.0..=64.0).contains(&args.margin) {
        bail!("--margin {}: 0 to 64 discs", args.margin);
    }
    let started = Instant::now();
    let bar = crate::progress::bar(quiet, args.count as u64, "openings kept");
    let plan = othello_engine::xot::XotPlan {
        count: args.count,
        plies: args.plies,
        depth: args.depth,
        margin: (args.margin * 64.0).round() as i32,
        seed: args.seed,
    };
    let list = othello_engine::xot::generate(
        &othello_engine::pattern::bundled(),
        Some((othello_engine::midgame::bundled_probcut(), 2.0)),
        plan,
        args.count.saturating_mul(1000),
        &|kept| bar.set_position(kept as u64),
    );
    bar.finish_and_clear();
    if list.is_empty() {
        bail!(
            "no {}-move line scored within {} disc(s) of even at depth {}: nothing written \
             (a wider --margin or more --plies finds some)",
            args.plies,
            args.margin,
            args.depth
        );
    }
    let mut text = format!(
        "# stonelab XOT-style othello8 openings: random {}-move lines (distinct up to symmetry),\n\
         # kept when the othello engine's depth-{} search (Multi-ProbCut at 2 deviations) scores\n\
         # them within {} disc(s) of even. Made by `stonelab book xot --count {} --plies {} --depth {}\n\
         # --margin {} --seed {}`. One transcript per line, Black's score in discs after it.\n",
        args.plies, args.depth, args.margin, args.count, args.plies, args.depth, args.margin, args.seed
    );
    for o in &list {
        // XOT lines never pass, so the transcript is every move.
        let moves = othello::transcript(&o.moves);
        text.push_str(&format!("{moves} # {:+.2}\n", f64::from(o.score) / 64.0));
    }
    files::write(out, text)?;
    eprintln!(
        "xot: {} openings within {} disc(s) of even at depth {}, {:.0} s -> {}",
        list.len(),
        args.margin,
        args.depth,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    if list.len() < args.count {
        eprintln!(
            "xot: only {} of the {} openings asked for were found",
            list.len(),
            args.count
        );
    }
    Ok(())
}
