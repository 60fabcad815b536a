//! `stonelab arena`: round robins and SPRT matches between agents, with a progress bar, a
//! results table per pair, Elo ratings with confidence intervals, and CSV/JSON output.

use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use arena::{
    builtin_openings, derive_seed, parse_openings, round_robin, sprt_match, xot_openings, Anchor,
    EloOptions, Ending, Opening, Progress, Report, Settings, Sprt,
};
use clap::Args;
use indicatif::ProgressBar;
use rand::RngExt;

use crate::games::{with_game, CliGame, GameId};
use catalog::CatalogGame;

/// The most games per pair `--games` takes (every game is kept for the report).
const MAX_GAMES_PER_PAIR: usize = 1_000_000;

/// Games per pair when `--games` is not given.
const DEFAULT_GAMES: usize = 100;
/// The SPRT's game limit when `--games` is not given.
const DEFAULT_SPRT_GAMES: usize = 20_000;

/// The bundled opening sets.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningSet {
    /// 8-ply lines scored even by a heuristic alpha-beta search.
    Balanced,
    /// Random 8-move lines the othello engine scores within a disc of even.
    Xot,
}

/// Arguments of `stonelab arena`.
#[derive(Args, Debug, Clone)]
pub struct ArenaArgs {
    /// The game.
    #[arg(long, default_value_t = GameId::Othello8)]
    pub game: GameId,
    /// The agents, as spec strings (`stonelab agents` lists them): at least two, or exactly
    /// two with --sprt.
    #[arg(long, num_args = 1.., required = true, value_name = "SPEC")]
    pub agents: Vec<String>,
    /// Games per pair: every opening is played twice with colours swapped, so an odd number
    /// rounds up. With --sprt, the most games to play [default: 100; 20000 with --sprt]
    #[arg(long)]
    pub games: Option<usize>,
    /// A file of openings, one transcript per line (`f5d6c3` or `f5 d6 c3`; `#` comments).
    /// Default: the built-in list of balanced openings (othello6, othello8) or random ones.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Play from random openings this many plies deep instead (the default where there is no
    /// built-in list, as on othello4: an eighth of the board's squares, 2 to 8 plies).
    #[arg(long, value_name = "PLIES", conflicts_with = "openings")]
    pub random_openings: Option<usize>,
    /// A bundled opening set: `balanced` (the default; othello6: 8-ply lines exactly within 2
    /// discs of even; othello8: 8-ply lines even by a heuristic search) or `xot` (othello8:
    /// random 8-move lines the othello engine scores within a disc of even, XOT-style).
    #[arg(long, value_enum, value_name = "SET", conflicts_with_all = ["openings", "random_openings"])]
    pub opening_set: Option<OpeningSet>,
    /// Worker threads [default: all cores]. The results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of every game's agents and of random openings; printed when not given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run an SPRT of the first agent against the second: H0 "it is ELO0 Elo stronger"
    /// against H1 "it is ELO1 stronger", e.g. `0,10`; stops when the LLR crosses a bound.
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
    pub sprt: Option<String>,
    /// The longest an agent may think about one move before it forfeits the game, e.g. 30s,
    /// 5m or 500ms (a bare number is milliseconds, as in agent specs' `time=`); 0 for no limit.
    #[arg(long, default_value = "5m", value_name = "DURATION")]
    pub move_time_limit: String,
    /// The SPRT's chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub alpha: f64,
    /// The SPRT's chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub beta: f64,
    /// Virtual draws added to every pair in the Elo fit. At 0, the plain maximum likelihood;
    /// when that has no finite maximum (some agents won every game against the rest), one
    /// virtual draw per pair is used instead.
    #[arg(long, default_value_t = 0.0, value_name = "DRAWS")]
    pub elo_prior: f64,
    /// Write every game as a CSV row to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the whole report (settings, openings, pairs, ratings, every game) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Replace --csv and --json files that already exist.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &ArenaArgs) -> Result<()> {
    let seed = args
        .seed
        .unwrap_or_else(|| rand::rng().random::<u32>().into());
    with_game!(args.game, G => run_game::<G>(args, seed))
}

fn run_game<G: CliGame + CatalogGame>(args: &ArenaArgs, seed: u64) -> Result<()> {
    if let Some(path) = &args.csv {
        crate::input::check_output(path, "--csv", args.force)?;
    }
    if let Some(path) = &args.json {
        crate::input::check_output(path, "--json", args.force)?;
    }
    if let (Some(csv), Some(json)) = (&args.csv, &args.json) {
        crate::input::check_distinct(&[("--csv", csv), ("--json", json)])?;
    }
    let sprt = args
        .sprt
        .as_deref()
        .map(|text| Sprt::parse_bounds(text)?.with_error_rates(args.alpha, args.beta))
        .transpose()?;
    let games = args.games.unwrap_or(if sprt.is_some() {
        DEFAULT_SPRT_GAMES
    } else {
        DEFAULT_GAMES
    });
    if !(1..=MAX_GAMES_PER_PAIR).contains(&games) {
        bail!("--games {games}: 1 to {MAX_GAMES_PER_PAIR} per pair");
    }
    if !(args.elo_prior.is_finite() && args.elo_prior >= 0.0) {
        bail!(
            "--elo-prior {}: a number of virtual draws, 0 or more",
            args.elo_prior
        );
    }
    if let Some(threads) = args.threads.filter(|t| !(1..=1024).contains(t)) {
        bail!("--threads {threads}: 1 to 1024");
    }
    let games_per_pair = games.saturating_add(1) / 2 * 2;
    let settings = Settings {
        games_per_pair,
        threads: args.threads.unwrap_or_else(arena::default_threads),
        seed,
        max_plies: None,
        move_time_limit: match search::parse_duration(&args.move_time_limit) {
            Some(d) if d.is_zero() => None,
            Some(d) => Some(d),
            None => bail!(
                "--move-time-limit {:?}: expected a duration like 30s, 5m or 500ms (0 for none)",
                args.move_time_limit
            ),
        },
        elo: EloOptions {
            anchor: Anchor::Mean,
            prior_draws: args.elo_prior,
            fallback_prior_draws: args.elo_prior.max(1.0),
        },
    };
    let (openings, source, text) = openings::<G>(args, seed, games_per_pair / 2)?;
    let registry = G::registry();
    let factory = |spec: &str, seed: u64| registry.build(spec, seed);

    let k = args.agents.len();
    if k < 2 {
        return Err(arena::ArenaError::TooFewAgents(k).into());
    }
    if sprt.is_some() && k != 2 {
        return Err(arena::ArenaError::SprtNeedsTwo(k).into());
    }
    // Every spec is checked before the header, so a typo or a bad value is the only output:
    // names and keys, then values by building the agent once (agents that start a program are
    // only checked by name and keys, so nothing is started before the match).
    for spec in &args.agents {
        let starts_program = spec.parse::<search::Spec>().is_ok_and(|parsed| {
            parsed
                .params
                .keys()
                .any(|key| registry.key_kind(&parsed.name, key) == Some(search::KeyKind::Program))
        });
        let checked = if starts_program {
            registry.check_names(spec)
        } else {
            registry.validate(spec)
        };
        checked.map_err(|source| arena::ArenaError::Spec {
            spec: spec.clone(),
            source,
        })?;
    }
    let total = if sprt.is_some() {
        games_per_pair
    } else {
        (k * k.saturating_sub(1) / 2).saturating_mul(games_per_pair)
    };
    let used = openings.len().min(games_per_pair / 2);
    outln!(
        "stonelab arena {}: {k} agents, {games_per_pair} games per pair{} from {used} openings \
         ({source}), seed {seed}, {} thread{}",
        args.game,
        if sprt.is_some() { " at most" } else { "" },
        settings.threads,
        if settings.threads == 1 { "" } else { "s" },
    );
    // How even the openings played are, by the scores their file records.
    if let Some(balance) = text
        .as_deref()
        .and_then(|t| arena::Balance::of_first(t, used))
    {
        outln!("openings' recorded scores: {balance}");
    }
    if let Some(s) = &sprt {
        let (lo, hi) = s.bounds();
        outln!(
            "SPRT of {} against {}: H0 elo {} vs H1 elo {}, alpha {}, beta {} (LLR bounds \
             {lo:.2}, {hi:.2})",
            args.agents[0].trim(),
            args.agents.get(1).map_or("", |s| s.trim()),
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta
        );
    }

    let bar = progress_bar(total as u64, args.quiet);
    let on_progress = |p: &Progress<'_>| {
        bar.set_position(p.done as u64);
        if let Some(llr) = p.llr {
            bar.set_message(format!("LLR {llr:.2}"));
        }
        if let Ending::Forfeit { loser, reason } = &p.game.ending {
            bar.println(format!(
                "forfeit in game {}: {loser} ({}) {reason}",
                p.game.index,
                args.agents
                    .get(if *loser == arena::Side::Black {
                        p.game.black
                    } else {
                        p.game.white
                    })
                    .map_or("?", |s| s.trim())
            ));
        }
    };
    let started = Instant::now();
    let report = match &sprt {
        Some(s) => sprt_match(&args.agents, &factory, &openings, &settings, s, on_progress)?,
        None => round_robin(&args.agents, &factory, &openings, &settings, on_progress)?,
    };
    bar.finish_and_clear();
    let elapsed = started.elapsed();

    // The files first: a closed standard output ends the process while it prints.
    if let Some(path) = &args.csv {
        write_csv(&report, path).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        write_json(&report, path).with_context(|| format!("writing {}", path.display()))?;
    }
    out!("{}", report.to_text());
    outln!(
        "{} games in {} ({:.2} games/s)",
        report.games.len(),
        format_duration(elapsed),
        report.games.len() as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    if let Some(path) = &args.csv {
        outln!("Games written to {}", path.display());
    }
    if let Some(path) = &args.json {
        outln!("Report written to {}", path.display());
    }
    Ok(())
}

/// The openings to play, where they come from, and the text of their file where they have one.
fn openings<G: CliGame + CatalogGame>(
    args: &ArenaArgs,
    seed: u64,
    needed: usize,
) -> Result<(Vec<Opening<G>>, String, Option<String>)> {
    if let Some(path) = &args.openings {
        // The reader's error names the file already.
        let text = crate::input::read_to_string(path).context("--openings")?;
        let list = parse_openings::<G>(&text).with_context(|| format!("in {}", path.display()))?;
        if list.is_empty() {
            bail!("{} holds no openings", path.display());
        }
        return Ok((list, format!("from {}", path.display()), Some(text)));
    }
    if let Some(set) = args.opening_set {
        let (list, name, text) = match set {
            OpeningSet::Balanced => (
                builtin_openings::<G>()?,
                "built-in balanced list",
                arena::builtin_text::<G>().unwrap_or_default(),
            ),
            OpeningSet::Xot => (
                xot_openings::<G>()?,
                "bundled XOT-style list",
                arena::OTHELLO8_XOT,
            ),
        };
        return match list {
            Some(list) => Ok((list, name.into(), Some(text.into()))),
            None => bail!(
                "--opening-set {}: {} has no such bundled list (othello8 has both, othello6 balanced)",
                format!("{set:?}").to_lowercase(),
                G::ID
            ),
        };
    }
    let (list, source, text) =
        catalog::match_openings::<G>(args.random_openings, needed, derive_seed(seed, &[u64::MAX]))
            .map_err(anyhow::Error::msg)?;
    Ok((list, source, text.map(String::from)))
}

fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    crate::progress::bar(quiet, total, "games")
}

fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{:.1}s", d.as_secs_f64()),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m {:02}s", s / 3600, s / 60 % 60, s % 60),
    }
}

fn write_csv(report: &Report, path: &Path) -> Result<()> {
    let mut writer = csv::Writer::from_writer(files::create(path)?);
    for row in report.game_rows() {
        writer.serialize(row)?;
    }
    writer.flush()?;
    Ok(())
}

fn write_json(report: &Report, path: &Path) -> Result<()> {
    let mut out = BufWriter::new(files::create(path)?);
    serde_json::to_writer_pretty(&mut out, report)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}
