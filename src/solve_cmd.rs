//! `stonelab solve`: exact endgame scores, best moves and search statistics.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use game::Game;
use othello::Othello;
use othello_engine::obf::parse_obf;
use othello_engine::Solver;

use crate::games::GameId;

/// Arguments of `stonelab solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Board strings (squares X/O/- from a1, then the side to move) or `.obf` files; none means
    /// the game's start position. Options go before them (board strings may start with '-').
    #[arg(allow_hyphen_values = true)]
    positions: Vec<OsString>,
    /// The game (board size).
    #[arg(long, default_value_t = GameId::Othello8, value_parser = crate::games::othello_game())]
    game: GameId,
    /// Only decide win, draw or loss (a null-window search around 0; much faster).
    #[arg(long)]
    wld: bool,
    /// The transposition table holds 2^bits positions (24 bytes each).
    #[arg(long, default_value_t = 22)]
    table_bits: u32,
    /// Solve even positions with more than 36 empty squares (which may never finish).
    #[arg(long)]
    force: bool,
}

/// Positions with more empty squares need `--force`.
const MAX_EMPTIES: u32 = 36;

/// One position to solve, with its source and the expected score when a file lists it.
struct Job<const N: usize> {
    label: String,
    pos: Othello<N>,
    expected: Option<i32>,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    match args.game {
        GameId::Othello4 => run_sized::<4>(args),
        GameId::Othello6 => run_sized::<6>(args),
        GameId::Othello8 => run_sized::<8>(args),
        other => bail!("solve is for Othello games (othello4, othello6, othello8), not {other}"),
    }
}

fn jobs<const N: usize>(args: &SolveArgs) -> Result<Vec<Job<N>>> {
    if args.positions.is_empty() {
        return Ok(vec![Job {
            label: "start".into(),
            pos: Othello::<N>::new(),
            expected: None,
        }]);
    }
    let mut out = Vec::new();
    for raw in &args.positions {
        // A file's name may be any bytes the system allows; a board string is text.
        let path = Path::new(raw);
        let shown = path.display().to_string();
        let arg = shown.as_str();
        if path.is_file() {
            if N != 8 {
                bail!(".obf files hold 8x8 positions; use --game othello8");
            }
            let text = crate::input::read_to_string(path)?;
            let problems = parse_obf(&text).with_context(|| format!("in {arg}"))?;
            if problems.is_empty() {
                bail!("{arg}: no positions in the file");
            }
            for (i, p) in problems.into_iter().enumerate() {
                let pos = Othello::<N>::from_board_string(&p.pos.to_string())?;
                out.push(Job {
                    label: format!("{}:{}", path.display(), i + 1),
                    pos,
                    expected: p.best_score(),
                });
            }
            continue;
        }
        // A folder, a FIFO or a device is named as such, whatever its name looks like.
        if path.exists() {
            bail!("{arg}: not a regular file (a position file is an .obf text file)");
        }
        let Some(arg) = raw.to_str() else {
            bail!("no such file: {arg} (and not a board string, which is plain text)");
        };
        // A board string is checked against the rules: a position no game reaches (an empty
        // centre square) is named as such, not solved.
        let error = match arg.parse::<Othello<N>>() {
            Ok(pos) => {
                out.push(Job {
                    label: format!("#{}", out.len() + 1),
                    pos,
                    expected: None,
                });
                continue;
            }
            Err(e) if e.is_impossible() => bail!("{arg:?}: {e}"),
            Err(e) => e,
        };
        // Not a board: say what it looks like instead.
        let option = arg.starts_with("--")
            && arg[2..]
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '=' || c.is_ascii_digit())
            && arg.len() < 24;
        if option {
            bail!("{arg:?} looks like an option: put options before the positions, e.g. stonelab solve {arg} POSITION");
        }
        // Text that looks like a path names the missing file, not a bad board.
        if arg.contains('/') || arg.contains('\\') || arg.ends_with(".obf") {
            bail!("no such file: {arg}");
        }
        return Err(anyhow::Error::new(error)
            .context(format!("{arg:?} is neither a file nor a board string")));
    }
    Ok(out)
}

fn run_sized<const N: usize>(args: &SolveArgs) -> Result<()> {
    if !(4..=othello_engine::MAX_TABLE_BITS).contains(&args.table_bits) {
        bail!(
            "--table-bits must be from 4 to {} (24 bytes per entry)",
            othello_engine::MAX_TABLE_BITS
        );
    }
    let jobs = jobs::<N>(args)?;
    if let Some(job) = jobs
        .iter()
        .find(|j| j.pos.empty().count_ones() > MAX_EMPTIES)
    {
        if !args.force {
            bail!(
                "{} has {} empty squares: an exact solve beyond {MAX_EMPTIES} may never finish (add --force to try anyway)",
                job.label,
                job.pos.empty().count_ones()
            );
        }
    }
    let mut solver = Solver::<N>::new(args.table_bits);
    let (mut nodes, mut time, mut wrong) = (0u64, Duration::ZERO, 0);
    // The position column as wide as its longest label (a file's path and line), so the
    // columns stay aligned.
    let width = jobs
        .iter()
        .map(|j| j.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(14);
    outln!(
        "{:<width$} {:>4} {:>7} {:>6} {:>14} {:>9} {:>10}  line",
        "position",
        "side",
        "empties",
        "score",
        "nodes",
        "seconds",
        "nodes/s"
    );
    for job in &jobs {
        // An exact solve can take minutes: the elapsed time shows it is still going.
        let spinner = crate::progress::spinner(
            false,
            &format!(
                "solving {} ({} empties)",
                job.label,
                job.pos.empty().count_ones()
            ),
        );
        let s = if args.wld {
            solver.solve_wld(&job.pos)
        } else {
            solver.solve(&job.pos)
        };
        spinner.finish_and_clear();
        let score = if args.wld {
            match s.score.signum() {
                1 => "win".to_string(),
                -1 => "loss".to_string(),
                _ => "draw".to_string(),
            }
        } else {
            format!("{:+}", s.score)
        };
        let check = match job.expected {
            Some(e) if !args.wld && e != s.score => {
                wrong += 1;
                format!("  WRONG: expected {e:+}")
            }
            Some(e) if args.wld && e.signum() != s.score.signum() => {
                wrong += 1;
                format!("  WRONG: expected {e:+}")
            }
            Some(_) => "  ok".to_string(),
            None => String::new(),
        };
        let line: Vec<String> = s.pv.iter().map(ToString::to_string).collect();
        outln!(
            "{:<width$} {:>4} {:>7} {:>6} {:>14} {:>9.3} {:>10}  {}{check}",
            job.label,
            job.pos.side_to_move().symbol(),
            job.pos.empty().count_ones(),
            score,
            s.nodes,
            s.elapsed.as_secs_f64(),
            rate(s.nodes, s.elapsed),
            line.join(" ")
        );
        nodes += s.nodes;
        time += s.elapsed;
    }
    if jobs.len() > 1 {
        outln!(
            "total: {} positions, {nodes} nodes, {:.3} s, {} nodes/s",
            jobs.len(),
            time.as_secs_f64(),
            rate(nodes, time)
        );
    }
    if wrong > 0 {
        bail!("{wrong} position(s) solved to a score other than the file lists");
    }
    Ok(())
}

/// Nodes per second, human-readable.
pub fn rate(nodes: u64, time: Duration) -> String {
    let secs = time.as_secs_f64();
    if secs <= 0.0 {
        return "-".into();
    }
    let r = nodes as f64 / secs;
    if r >= 1e6 {
        format!("{:.1} M", r / 1e6)
    } else {
        format!("{:.1} k", r / 1e3)
    }
}
