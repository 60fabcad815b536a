//! Experiments as a library: the registry of `stonelab reproduce`'s experiments ([`EXPERIMENTS`]),
//! each rerunning a documented experiment of a student design or the paper end to end into a
//! report folder (`report.md` with the table beside the authors' figures, plots, the exact
//! commands, the run folders), their reports, statistics and charts ([`plots`]).

pub mod az;
pub mod dp;
mod dqn;
mod omok;
mod paper;
pub mod plots;
mod qmlp;
pub mod rate;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use arena::{ColourWdl, Opening};
use catalog::CatalogGame;
use search::Agent;

pub use othello_engine::train::pipeline::{Report as Ui, Silent, Steps};

/// The most games per pair an experiment takes.
pub const MAX_GAMES: usize = 1_000_000;

/// The settings only some experiments read (the paper's and az-othello6's).
#[derive(Clone, Debug, Default)]
pub struct PaperArgs {
    /// Evaluation positions.
    pub positions: Option<usize>,
    /// The CNN model.
    pub cnn: Option<PathBuf>,
    /// The MLP model.
    pub mlp: Option<PathBuf>,
    /// A self-play run.
    pub selfplay: Option<PathBuf>,
    /// The dataset folder.
    pub data: Option<PathBuf>,
    /// Minimax depth (`None`: 3).
    pub depth: Option<u32>,
    /// paper-table2: the named reading of the self-play it trains.
    pub reading: Option<String>,
    /// az-othello6: a trained 6x6 model to check instead of training one.
    pub model: Option<PathBuf>,
}

/// What an experiment needs to know of its invocation.
pub struct Ctx<'a> {
    /// The experiment's name.
    pub name: &'static str,
    /// The report folder (it exists).
    pub out: PathBuf,
    /// The authors' full lengths.
    pub full: bool,
    /// Games per pair in the evaluations.
    pub games: usize,
    /// Size multiplier (1 normally).
    pub scale: f64,
    /// Seed.
    pub seed: u64,
    /// Where progress and notes go.
    pub ui: &'a dyn Ui,
    /// The paper experiments' settings.
    pub paper: PaperArgs,
}

impl Ctx<'_> {
    /// The paper experiments' positions (1,000 unless --positions; scaled by --scale).
    #[must_use]
    pub fn positions(&self) -> usize {
        self.paper
            .positions
            .unwrap_or_else(|| self.scaled(1_000, 1))
    }

    /// The paper experiments' minimax depth (3 unless asked).
    #[must_use]
    pub fn depth(&self) -> u32 {
        self.paper.depth.unwrap_or(3)
    }

    /// `n` scaled by `--scale`, at least `min`.
    #[must_use]
    pub fn scaled(&self, n: usize, min: usize) -> usize {
        ((n as f64 * self.scale).round() as usize).max(min)
    }

    /// The sizes this run used, in words: the authors' full lengths or the default sizes, and
    /// what `--scale`, `--games` and `--positions` changed.
    #[must_use]
    pub fn sizes(&self) -> String {
        let mut text = String::from(if self.full {
            "the authors' full lengths"
        } else {
            "default sizes"
        });
        if (self.scale - 1.0).abs() > f64::EPSILON {
            let _ = write!(text, " scaled by {}", self.scale);
        }
        if self.games != 200 {
            let _ = write!(text, ", {} evaluation games per pair", self.games);
        }
        if let (true, Some(n)) = (self.name.starts_with("paper-"), self.paper.positions) {
            let _ = write!(text, ", {n} positions");
        }
        text
    }

    /// The command line that reruns this experiment as it was run.
    #[must_use]
    pub fn command(&self) -> String {
        let mut cmd = format!("stonelab reproduce {}", self.name);
        if self.full {
            cmd.push_str(" --full");
        }
        if self.games != 200 {
            let _ = write!(cmd, " --games {}", self.games);
        }
        if (self.scale - 1.0).abs() > f64::EPSILON {
            let _ = write!(cmd, " --scale {}", self.scale);
        }
        if self.seed != 1 {
            let _ = write!(cmd, " --seed {}", self.seed);
        }
        if self.name.starts_with("paper-") {
            if let Some(n) = self.paper.positions {
                let _ = write!(cmd, " --positions {n}");
            }
            for (flag, value) in [
                ("--cnn", &self.paper.cnn),
                ("--mlp", &self.paper.mlp),
                ("--selfplay", &self.paper.selfplay),
                ("--data", &self.paper.data),
            ] {
                if let Some(v) = value {
                    let _ = write!(cmd, " {flag} {}", v.display());
                }
            }
            if self.depth() != 3 {
                let _ = write!(cmd, " --depth {}", self.depth());
            }
            if let Some(r) = &self.paper.reading {
                let _ = write!(cmd, " --reading {r}");
            }
        }
        if let Some(m) = &self.paper.model {
            let _ = write!(cmd, " --model {}", m.display());
        }
        cmd
    }

    /// Progress of `len` steps labelled `what`.
    #[must_use]
    pub fn bar(&self, len: u64, what: &str) -> Arc<dyn Steps> {
        self.ui.steps(len, what)
    }

    /// A note (a quiet caller drops it).
    pub fn say(&self, text: &str) {
        self.ui.note(text);
    }
}

/// A report being written: a title, sections of markdown, and the commands that produced it.
pub struct Report {
    title: String,
    sections: Vec<(String, String)>,
    commands: Vec<String>,
}

impl Report {
    /// An empty report.
    #[must_use]
    pub fn new(title: &str) -> Self {
        Report {
            title: title.into(),
            sections: Vec::new(),
            commands: Vec::new(),
        }
    }

    /// Adds a section (`body` is markdown).
    pub fn section(&mut self, heading: &str, body: &str) {
        self.sections.push((heading.into(), body.trim_end().into()));
    }

    /// Records a command that reproduces a part of the report on its own.
    pub fn command(&mut self, cmd: &str) {
        self.commands.push(cmd.into());
    }

    /// Writes `report.md` into the report folder, with the experiment's command, the time it
    /// took and the recorded commands; returns its path.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write(&self, ctx: &Ctx, took: Duration) -> Result<PathBuf> {
        let mut md = format!("# {}\n\n", self.title);
        let _ = writeln!(
            md,
            "Reproduced by `{}` ({}; {:.0} s on this machine; stonelab {}).\n",
            ctx.command(),
            ctx.sizes(),
            took.as_secs_f64(),
            env!("CARGO_PKG_VERSION")
        );
        for (heading, body) in &self.sections {
            let _ = write!(md, "## {heading}\n\n{body}\n\n");
        }
        if !self.commands.is_empty() {
            md.push_str(
                if self
                    .commands
                    .iter()
                    .any(|c| c.starts_with("stonelab arena"))
                {
                    "## Commands\n\nEach part on its own (each `arena` command plays exactly \
                     the games of its part):\n\n```\n"
                } else {
                    "## Commands\n\nEach part on its own:\n\n```\n"
                },
            );
            for c in &self.commands {
                md.push_str(c);
                md.push('\n');
            }
            md.push_str("```\n");
        }
        let path = ctx.out.join("report.md");
        files::write(&path, md)?;
        Ok(path)
    }
}

/// A markdown table.
#[must_use]
pub fn md_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut md = format!("| {} |\n|", headers.join(" | "));
    for _ in headers {
        md.push_str("---|");
    }
    md.push('\n');
    for row in rows {
        let _ = writeln!(md, "| {} |", row.join(" | "));
    }
    md
}

pub use arena::wilson;

/// "54.5% [47.6, 61.2]": a proportion with its Wilson interval, in percent.
#[must_use]
pub fn pct_ci(hits: f64, n: f64) -> String {
    let (lo, hi) = wilson(hits, n);
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        100.0 * hits / n.max(1.0),
        100.0 * lo,
        100.0 * hi
    )
}

/// "12-3-5": wins, draws, losses.
#[must_use]
pub fn wdl(w: &arena::Wdl) -> String {
    format!("{}-{}-{}", w.wins, w.draws, w.losses)
}

/// Makes a fresh player by seed.
pub type AgentMaker<'a, G> = dyn Fn(u64) -> Box<dyn Agent<G>> + 'a;

/// The opponents every trained agent meets in the reports.
pub const EVAL_OPPONENTS: [&str; 3] = ["random", "greedy", "alphabeta:depth=2"];

/// Plays `make`'s agents against each of [`EVAL_OPPONENTS`] (`ctx.games` games each from the
/// evaluation openings, each opening twice with colours swapped, seeded by the experiment's
/// seed) and returns a markdown table: per opponent, the score with its interval, and W-D-L as
/// black and as white, with a line naming the openings.
///
/// # Errors
/// When an agent fails or an opponent cannot be built.
pub fn evaluate_table<G: CatalogGame>(
    ctx: &Ctx,
    rows: &[(String, Box<AgentMaker<'_, G>>)],
) -> Result<String> {
    let registry = G::registry();
    let mut out = Vec::new();
    let total = (rows.len() * EVAL_OPPONENTS.len()) as u64;
    let bar = ctx.bar(total, "evaluation matches");
    for (label, make) in rows {
        for (k, spec) in EVAL_OPPONENTS.iter().enumerate() {
            registry
                .validate(spec)
                .map_err(|e| anyhow!("evaluation opponent {spec}: {e}"))?;
            bar.set_message(format!("{label} vs {spec}"));
            let record = play_versus::<G>(
                make,
                &|seed| {
                    registry
                        .build(spec, seed)
                        .unwrap_or_else(|_| Box::new(search::RandomAgent::new(seed)))
                },
                ctx.games,
                ctx.seed.wrapping_mul(31).wrapping_add(k as u64),
                ctx.seed,
            )?;
            out.push(eval_row(label, spec, &record));
            bar.inc(1);
        }
    }
    bar.finish();
    let (openings, kind) = eval_openings::<G>(ctx.games.div_ceil(2), ctx.seed);
    let pairs = ctx.games.div_ceil(2);
    let repeats = if openings.len() < pairs {
        " There are fewer openings than pairs of games, so each is played more than once and \
         deterministic players repeat their games: the intervals, which count every game as \
         independent, are narrower than the evidence."
    } else {
        ""
    };
    Ok(format!(
        "{}\nGames start from {kind} ({} of them), each played twice with colours swapped, so \
         that deterministic players meet in different games; scores count a draw as ½, with \
         Wilson 95% intervals.{repeats}\n",
        md_table(
            &[
                "agent",
                "opponent",
                "games",
                "score (95% interval)",
                "as black W-D-L",
                "as white W-D-L",
            ],
            &out,
        ),
        openings.len().min(pairs)
    ))
}

/// One row of [`evaluate_table`].
fn eval_row(label: &str, opponent: &str, r: &ColourWdl) -> Vec<String> {
    let t = r.total();
    let points = f64::from(t.wins) + 0.5 * f64::from(t.draws);
    vec![
        label.into(),
        format!("`{opponent}`"),
        r.games().to_string(),
        pct_ci(points, f64::from(r.games())),
        wdl(&r.as_black),
        wdl(&r.as_white),
    ]
}

/// The openings of the evaluation matches: the game's own (Gomoku: random stones near the
/// centre), else the arena's built-in set (6x6 and 8x8 Othello: balanced openings), else random
/// openings of the arena's default depth (deeper, by up to [`EXTRA_OPENING_PLIES`], where too
/// few distinct ones exist there); with a description for the reports.
pub fn eval_openings<G: CatalogGame>(count: usize, seed: u64) -> (Vec<Opening<G>>, String) {
    if let Some(found) = G::default_openings(count, seed) {
        return found;
    }
    if let Ok(Some(list)) = arena::builtin_openings::<G>() {
        if !list.is_empty() {
            return (list, "the arena's built-in balanced openings".into());
        }
    }
    // The arena's default depth, or deeper where a small board has too few distinct
    // positions there (4x4 Othello has 3 after 2 plies): deterministic players would replay
    // the same few games.
    let base = arena::default_random_plies::<G>();
    let mut best: (Vec<Opening<G>>, usize) = (Vec::new(), base);
    for plies in base..=base + EXTRA_OPENING_PLIES {
        let list = arena::random_openings::<G>(plies, count, seed);
        if list.len() > best.0.len() {
            best = (list, plies);
        }
        if best.0.len() >= count {
            break;
        }
    }
    let (list, plies) = best;
    if list.is_empty() {
        (vec![Opening::start()], "the start position".into())
    } else {
        (list, format!("random openings of {plies} plies"))
    }
}

/// How many plies past the arena's default [`eval_openings`] may go to find enough openings.
const EXTRA_OPENING_PLIES: usize = 6;

/// `games` games of `make`'s agents against `opponent`'s (agents seeded from `seed`, openings
/// from `openings_seed`): game `2k` from opening `k` with the
/// agent as Black, game `2k + 1` from the same opening as White (openings reused in turn when
/// there are fewer), so deterministic players still meet in different games.
///
/// # Errors
/// When a player fails to move (a forfeit).
pub fn play_versus<G: CatalogGame>(
    make: &AgentMaker<'_, G>,
    opponent: &AgentMaker<'_, G>,
    games: usize,
    seed: u64,
    openings_seed: u64,
) -> Result<ColourWdl> {
    let (openings, _) = eval_openings::<G>(games.div_ceil(2), openings_seed);
    Ok(arena::versus_openings(
        make, opponent, games, seed, &openings,
    )?)
}

/// One experiment.
pub struct Experiment {
    /// Its name on the command line.
    pub name: &'static str,
    /// The design it reproduces.
    pub design: &'static str,
    /// What it measures, in one line.
    pub about: &'static str,
    /// Roughly how long the default size takes on the 2-core development machine (measured).
    pub takes: &'static str,
    /// Runs it, writing into the report (the caller writes the report file).
    pub run: fn(&Ctx, &mut Report) -> Result<()>,
}

/// Every experiment, in the order `--list` shows them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "az-othello6",
        design: "AlphaZero (this project's trainer)",
        about: "6x6 Othello trained in under an hour on 2 cores: score against alphabeta:depth=4, \
                moves that keep the exact value, White against the exact solver",
        takes: "about 90 minutes (an hour of training, then the matches and the solver checks)",
        run: az::othello6,
    },
    Experiment {
        name: "omok-attack-sweep",
        design: "19x19 Omok alpha-beta (omok-ab)",
        about: "attack weight x1.3/3/5/10/20 against random: win rate, game length, extending vs blocking moves",
        takes: "about 1.5 minutes",
        run: omok::attack_sweep,
    },
    Experiment {
        name: "omok-tables",
        design: "19x19 Omok alpha-beta (omok-ab)",
        about: "the two score tables against each other and against random",
        takes: "about 1 minute",
        run: omok::tables,
    },
    Experiment {
        name: "omok-self-play",
        design: "19x19 Omok alpha-beta (omok-ab)",
        about: "omok-ab against itself from the empty board: who wins, game length",
        takes: "about 1 minute",
        run: omok::self_play,
    },
    Experiment {
        name: "omok-depth",
        design: "19x19 Omok alpha-beta (omok-ab)",
        about: "time and nodes per move at depths 2, 3 and 4, stonelab's alpha-beta and the design's \
                search",
        takes: "about 10 minutes",
        run: omok::depth,
    },
    Experiment {
        name: "seed000-greedy",
        design: "Othello DQN (ResNet Q-network)",
        about: "regime 1: one network in greedy self-play (the authors' 499 episodes; --full changes nothing)",
        takes: "about 3 minutes",
        run: dqn::greedy,
    },
    Experiment {
        name: "seed000-uct",
        design: "Othello DQN (ResNet Q-network)",
        about: "regime 2: one network in UCT self-play (the authors' 399 episodes; --full changes nothing)",
        takes: "about 3 minutes",
        run: dqn::uct,
    },
    Experiment {
        name: "seed000-competitive",
        design: "Othello DQN (ResNet Q-network)",
        about: "regime 3: a black and a white network, both learning every transition (9,999 episodes with --full)",
        takes: "about 7 minutes (about an hour, estimated, with --full)",
        run: dqn::competitive,
    },
    Experiment {
        name: "seed001",
        design: "Othello Q-learning MLP",
        about: "the design as written, then each of its four code defects switched on, then all four",
        takes: "about 5 minutes",
        run: qmlp::seed001,
    },
    Experiment {
        name: "paper-table1",
        design: "Othello CNN value network (J. IKEEE 2019)",
        about: "the supervised CNN agent against the MLP agent from 1,000 balanced record positions, each colour; and both on stonelab's ladder",
        takes: "about 7 minutes with the paper's 1,000 positions",
        run: paper::table1,
    },
    Experiment {
        name: "paper-table2",
        design: "Othello CNN value network (J. IKEEE 2019)",
        about: "200 episodes of self-play policy iteration, the agent after 10/30/50/100/150/200 against the MLP and the supervised CNN",
        takes: "about 5 minutes of self-play, then 11 with --positions 100 (about 1.5 hours, estimated, with the paper's 1,000)",
        run: paper::table2,
    },
    Experiment {
        name: "othello4-value-iteration",
        design: "4x4 Othello value iteration",
        about: "every reachable 4x4 position solved by value iteration, with the per-sweep trace",
        takes: "about 1 second",
        run: dp::value_iteration,
    },
];

/// How an experiment is asked to run: its sizes, its seed and the paper experiments' own
/// settings (checked by [`reproduce`]).
#[derive(Clone, Debug)]
pub struct Invocation {
    /// The authors' full lengths instead of the default sizes.
    pub full: bool,
    /// Games per pair in the evaluations (colours swapped).
    pub games: usize,
    /// Scale of the experiment's own sizes.
    pub scale: f64,
    /// Seed of everything random in the experiment.
    pub seed: u64,
    /// The paper experiments' own settings.
    pub paper: PaperArgs,
}

/// The experiment called `name`.
///
/// # Errors
/// An unknown name, with the list of experiments.
pub fn find(name: &str) -> Result<&'static Experiment> {
    EXPERIMENTS.iter().find(|e| e.name == name).ok_or_else(|| {
        anyhow!(
            "unknown experiment {name:?}; the experiments: {}",
            EXPERIMENTS
                .iter()
                .map(|e| e.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Runs experiment `name` as `how` asks into the report folder `out` (`reports/NAME` when
/// `None`; one that holds an earlier report is replaced only with `force`, and only once the
/// new report is written), reporting through `ui`. Returns the report's path and the time the
/// experiment took.
///
/// # Errors
/// An unknown experiment, settings it does not take, an existing report folder without
/// `force`, or a failed experiment (the earlier report then stays).
pub fn reproduce(
    name: &str,
    how: &Invocation,
    out: Option<&Path>,
    force: bool,
    ui: &dyn Ui,
) -> Result<(PathBuf, Duration)> {
    let experiment = find(name)?;
    if !(2..=MAX_GAMES).contains(&how.games) {
        bail!("--games must be from 2 (colours are swapped) to {MAX_GAMES}");
    }
    if !(how.scale > 0.0 && how.scale <= 100.0) {
        bail!("--scale must be above 0 and at most 100");
    }
    let p = &how.paper;
    let paper = name.starts_with("paper-");
    if !paper
        && (p.positions.is_some()
            || p.cnn.is_some()
            || p.mlp.is_some()
            || p.selfplay.is_some()
            || p.data.is_some()
            || p.depth.is_some()
            || p.reading.is_some())
    {
        bail!("--positions, --cnn, --mlp, --selfplay, --data, --depth and --reading are settings of paper-table1 and paper-table2 only");
    }
    if p.model.is_some() && name != "az-othello6" {
        bail!("--model is a setting of az-othello6 (the model it checks instead of training one)");
    }
    if name == "paper-table1" && p.reading.is_some() {
        bail!("--reading is a setting of paper-table2 (the self-play run it trains)");
    }
    if p.reading.is_some() && p.selfplay.is_some() {
        bail!(
            "--reading names the self-play run paper-table2 trains; a --selfplay run has its own"
        );
    }
    if name == "paper-table1" && p.selfplay.is_some() {
        bail!("--selfplay is a setting of paper-table2 (the self-play run it plays)");
    }
    if p.positions == Some(0) {
        bail!("--positions must be at least 1");
    }
    if !p.depth.is_none_or(|d| (1..=8).contains(&d)) {
        bail!("--depth must be 1 to 8");
    }
    if name == "othello4-value-iteration" && (how.full || how.scale != 1.0) {
        bail!("{name} solves the whole game at one size: --full and --scale do not apply");
    }
    let out = out.map_or_else(|| Path::new("reports").join(name), Path::to_path_buf);
    let pending = REPORT.begin(&out, force)?;
    let ctx = Ctx {
        name: experiment.name,
        out,
        full: how.full,
        games: how.games,
        scale: how.scale,
        seed: how.seed,
        ui,
        paper: p.clone(),
    };
    let started = Instant::now();
    let mut report = Report::new(&format!("{} — {}", experiment.name, experiment.design));
    let written = (experiment.run)(&ctx, &mut report)
        .with_context(|| format!("experiment {name}"))
        .and_then(|()| report.write(&ctx, started.elapsed()));
    let path = match written {
        Ok(path) => path,
        Err(e) => {
            // The partial report goes; the one it replaced, if any, comes back.
            pending.abandon();
            return Err(e);
        }
    };
    pending.commit()?;
    Ok((path, started.elapsed()))
}

/// What a report folder holds: the report, its charts and its training runs (the one
/// output-folder policy: [`files::Folder`]).
const REPORT: files::Folder<'static> = files::Folder {
    what: "a report",
    entries: &[
        "report.md",
        "runs",
        "largest_update.png",
        "positions_changed.png",
        "move_classes.png",
        "time_per_move.png",
        "table1.png",
        "table2.png",
    ],
    below: None,
    marker: Some("report.md"),
    hint: "add --force to replace it",
};

/// A finished training run of a report.
pub struct TrainedRun {
    /// Its folder (`runs/LABEL` in the report folder).
    pub dir: PathBuf,
    /// What the run did.
    pub summary: learn::run::Summary,
}

impl TrainedRun {
    /// The rows of its `log.csv` (header left out), split into fields.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn log(&self) -> Result<Vec<Vec<String>>> {
        let path = self.dir.join(learn::run::LOG);
        let bytes = files::read_capped(&path, u64::MAX)
            .with_context(|| format!("reading {}", path.display()))?;
        let text = String::from_utf8(bytes)
            .with_context(|| format!("reading {}: not UTF-8", path.display()))?;
        Ok(text
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect())
    }

    /// A model the run exported (`last.safetensors`, `black-last.safetensors`, ...).
    #[must_use]
    pub fn model(&self, file: &str) -> PathBuf {
        self.dir.join(learn::run::CHECKPOINTS).join(file)
    }
}

/// Trains `run` from scratch into `runs/LABEL` of the report folder, with a progress bar, the
/// run's own evaluations and plots, as `stonelab train` would.
///
/// # Errors
/// When the run fails.
pub fn train_run<G: CatalogGame>(
    ctx: &Ctx,
    label: &str,
    run: &learn::RunConfig,
) -> Result<TrainedRun> {
    let root = ctx.out.join("runs").join(label);
    let dir = learn::RunDir::create(&root, true).map_err(|e| anyhow!("{e}"))?;
    dir.write_config(run)?;
    ctx.say(&format!("training {label} ({} episodes)", run.episodes));
    let summary = match learn::session::execute::<G>(&dir, run, None, &G::registry(), ctx.ui)? {
        learn::session::Finished::Trained(summary) => summary,
        learn::session::Finished::AlreadyDone { .. } => {
            bail!("{label}: the run had nothing to do")
        }
    };
    Ok(TrainedRun { dir: root, summary })
}

/// A path relative to the report folder, for links in `report.md`.
#[must_use]
pub fn relative(ctx: &Ctx, path: &Path) -> String {
    path.strip_prefix(&ctx.out)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report's first line says what sizes it ran at: a reduced run never calls itself the
    /// default or the authors' full lengths unqualified.
    #[test]
    fn reports_name_the_sizes_they_ran_at() {
        let ctx = |name: &'static str, full: bool, games: usize, scale: f64, positions| Ctx {
            name,
            out: PathBuf::new(),
            full,
            games,
            scale,
            seed: 1,
            ui: &Silent,
            paper: PaperArgs {
                positions,
                ..PaperArgs::default()
            },
        };
        assert_eq!(
            ctx("seed000-greedy", false, 200, 1.0, None).sizes(),
            "default sizes"
        );
        assert_eq!(
            ctx("seed000-greedy", false, 4, 0.02, None).sizes(),
            "default sizes scaled by 0.02, 4 evaluation games per pair"
        );
        assert_eq!(
            ctx("omok-tables", true, 200, 0.01, None).sizes(),
            "the authors' full lengths scaled by 0.01"
        );
        assert_eq!(
            ctx("paper-table1", false, 200, 1.0, Some(5)).sizes(),
            "default sizes, 5 positions"
        );
    }

    /// On 4x4 Othello the arena's 2-ply openings are 3 positions: the evaluation goes deeper
    /// until each pair of games has an opening of its own, all distinct, and says how deep.
    #[test]
    fn small_boards_get_enough_distinct_evaluation_openings() {
        let (base, _) = eval_openings::<othello::Othello4>(100, 1);
        let two_plies = arena::random_openings::<othello::Othello4>(2, 100, 1);
        assert!(
            two_plies.len() < 10,
            "{} openings at 2 plies",
            two_plies.len()
        );
        assert_eq!(base.len(), 100);
        let (_, kind) = eval_openings::<othello::Othello4>(100, 1);
        assert!(
            kind.starts_with("random openings of ") && !kind.contains(" 2 plies"),
            "{kind}"
        );
        // 8x8 keeps the balanced set.
        let (_, kind) = eval_openings::<othello::Othello8>(100, 1);
        assert_eq!(kind, "the arena's built-in balanced openings");
    }
}
