//! The phased `train patterns` run: labels, the first fit, the relabelling searches, deviations,
//! self-play, the final fit, the cards and the correction network, each phase resumable from its
//! run folder; and the Multi-ProbCut fit of `train probcut`. Progress, news and charts go
//! through a [`Report`], so the binary, the web app or a Python caller each show them their way.
//!
//! The phases: (1) label the records (exact solves up to `exact_empties`, the game's
//! perfect-play result above; with `exact_fraction` below 1, only that seeded share of the games
//! is solved so far, the others to `exact_rest`, their positions between left out); (2) a first
//! fit; (3) relabel the record positions above `exact_empties` by a `search_depth`-ply search
//! with the first fit (and the pinned Multi-ProbCut table at `search_probcut`; with
//! `theoretical_exact`, each game's position at 24 empties keeps its theoretical score, exact);
//! (3b) with `deviations` > 0, positions after a random move from a fraction of the record
//! positions, labelled by the same search; (4) self-play games with the first fit, solved exactly
//! from `self_play_exact` empties (with `self_play_search`, the positions before relabelled by
//! the same search); (5) the final fit on (3) + (3b) + (4); (6) with `correction` > 0, the
//! correction network.
//!
//! The run folder: `config.json`; `samples/part-NNNN.bin` (labelled positions, one file per
//! 4,096 games, each written whole), `samples/search-NNNN.bin` (the same positions relabelled),
//! `samples/deviation-NNNN.bin` (their deviations), `samples/self-play-NNNN.bin` (and
//! `self-play-search-NNNN.bin`, relabelled); `fit.bin` and `log.csv` (the first fit's stages so
//! far, one row per stage), `final-fit.bin` and `final-log.csv` (the final fit's); at the end
//! `patterns.bin`, `patterns.json` (its [`PatternCard`]) and `plots/mae.png`; with a correction
//! network `correction-state.bin`, `correction-log.csv`, `correction.bin`, `correction.json` (its
//! [`CorrectionCard`]) and `plots/correction.png`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use files::{FileError, Folder};
use game::hash::{fnv1a, FNV_OFFSET};
use othello::wthor::{parse_games, WthorGame};
use serde::{Deserialize, Serialize};

use super::{
    fit_stage, label_wthor, mean_abs_error, quantize, self_play, FitConfig, PatternConfig, Sample,
    SelfPlayConfig, SAMPLE_LEN,
};
use crate::pattern::{PatternEval, PatternWeights};

/// Games per labelled part file.
const PART_GAMES: usize = 4096;
/// Games per self-play part file.
const SELF_PLAY_PART: usize = 1024;
/// The first bytes of a part file: magic, sample count (u64), FNV-1a of the samples (u64).
const PART_MAGIC: &[u8; 8] = b"stonesmp";
/// The largest record or part file read.
const MAX_FILE_BYTES: u64 = 64 << 20;
/// The empties from which the WTHOR files' theoretical scores are perfect play (checked per file).
pub const THEORETICAL_EMPTIES: u32 = 24;

/// What a pattern run writes in its folder: all that `--force` may replace.
pub const PATTERN_RUN: Folder<'static> = Folder {
    what: "a pattern run",
    entries: &[
        "config.json",
        "samples",
        "fit.bin",
        "log.csv",
        "final-fit.bin",
        "final-log.csv",
        "patterns.bin",
        "patterns.json",
        "plots",
        "correction-state.bin",
        "correction-log.csv",
        "correction.bin",
        "correction.json",
    ],
    below: None,
    marker: Some("config.json"),
    hint: "add --resume to continue it or --force to start over",
};

/// What `train probcut` writes in its folder.
pub const PROBCUT_RUN: Folder<'static> = Folder {
    what: "a ProbCut fit",
    entries: &["pairs.csv", "probcut.txt"],
    below: None,
    // A fit that stopped after `pairs.csv` is still one: the folder is the fit's when it
    // holds nothing else.
    marker: None,
    hint: "add --force to replace it",
};

/// Why a pattern run or a ProbCut fit stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file or folder could not be read or written, or the output folder was refused.
    #[error(transparent)]
    File(#[from] FileError),
    /// The inputs or the run folder do not allow the run (the message says why and what to do).
    #[error("{0}")]
    Refused(String),
}

macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err(PipelineError::Refused(format!($($arg)*)))
    };
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
    move |source| {
        PipelineError::File(FileError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// One phase's progress: steps done of its total, and a line about it.
pub trait Steps: Send + Sync {
    /// `done` steps so far.
    fn set_position(&self, done: u64);
    /// Forget the rate so far (after a jump to where a resumed run stands), so an estimate
    /// of the time left counts only the steps from here.
    fn reset_eta(&self) {}
    /// `n` more steps done.
    fn inc(&self, n: u64);
    /// A line about the phase ("held-out error 3.21 discs").
    fn set_message(&self, message: String);
    /// The phase is over.
    fn finish(&self);
}

/// A line chart of a run: named lines of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Its title.
    pub title: String,
    /// The horizontal axis's label.
    pub x_label: String,
    /// The vertical axis's label.
    pub y_label: String,
    /// The lines: a name and its points.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
    /// The vertical range, when fixed (otherwise the points').
    pub range: Option<(f64, f64)>,
}

/// Where a run reports: each phase's progress, news between phases, warnings, and its charts.
pub trait Report: Sync {
    /// Progress of a phase of `total` steps counted in `unit` ("games labelled"): a handle
    /// that may outlive the call (a trainer keeps one for its inner steps).
    fn steps(&self, total: u64, unit: &str) -> Arc<dyn Steps>;
    /// A line of news (what a phase gave); a quiet caller drops it.
    fn note(&self, line: &str);
    /// A line the caller should always show (games left out).
    fn warn(&self, line: &str);
    /// Draws `chart` to `path` (a PNG); a caller without charts does nothing.
    ///
    /// # Errors
    /// Why the chart could not be drawn.
    fn chart(&self, path: &Path, chart: &Chart) -> Result<(), String>;
}

/// A [`Report`] that shows nothing and draws nothing (tests, scripts).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Steps for Silent {
    fn set_position(&self, _: u64) {}
    fn inc(&self, _: u64) {}
    fn set_message(&self, _: String) {}
    fn finish(&self) {}
}

impl Report for Silent {
    fn steps(&self, _: u64, _: &str) -> Arc<dyn Steps> {
        Arc::new(Silent)
    }
    fn note(&self, _: &str) {}
    fn warn(&self, _: &str) {}
    fn chart(&self, _: &Path, _: &Chart) -> Result<(), String> {
        Ok(())
    }
}

/// The `WTH_*.wtb` files of `dir`, sorted by name.
///
/// # Errors
/// An unreadable folder, or one without such files.
pub fn wthor_files(dir: &Path) -> Result<Vec<PathBuf>, PipelineError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        PipelineError::Refused(format!(
            "reading {} (run from the repository root or pass --wthor DIR): {e}",
            dir.display()
        ))
    })?;
    let mut list = Vec::new();
    for entry in entries {
        let path = entry.map_err(io(dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let wtb = Path::new(name)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("wtb"));
        if wtb && name.to_ascii_uppercase().starts_with("WTH_") && path.is_file() {
            list.push(path);
        }
    }
    list.sort();
    if list.is_empty() {
        refuse!("no WTH_*.wtb files in {}", dir.display());
    }
    Ok(list)
}

/// The games of the WTHOR files in `dir` (the first `max_games`; 0: all), whose theoretical
/// scores must start at [`THEORETICAL_EMPTIES`].
///
/// # Errors
/// No files or no games, an unreadable or malformed file, or one of another depth.
pub fn load_wthor(dir: &Path, max_games: usize) -> Result<Vec<WthorGame>, PipelineError> {
    let mut games = Vec::new();
    for path in wthor_files(dir)? {
        let bytes = files::read_capped(&path, MAX_FILE_BYTES)?;
        let file = parse_games(&bytes)
            .map_err(|e| PipelineError::Refused(format!("reading {}: {e}", path.display())))?;
        if u32::from(file.header.depth) != THEORETICAL_EMPTIES {
            refuse!(
                "{}: theoretical scores from {} empties; the labels assume 24 (the WTHOR files \
                 in data/othello/wthor)",
                path.display(),
                file.header.depth
            );
        }
        games.extend(file.games);
    }
    if max_games > 0 {
        games.truncate(max_games);
    }
    if games.is_empty() {
        refuse!("{} holds no games", dir.display());
    }
    Ok(games)
}

/// Writes `samples` as a part file (atomically: a part is there whole or not at all).
///
/// # Errors
/// [`FileError::Io`].
pub fn write_part(path: &Path, samples: &[Sample]) -> Result<(), PipelineError> {
    let mut body = Vec::with_capacity(samples.len() * SAMPLE_LEN);
    for s in samples {
        body.extend_from_slice(&s.to_bytes());
    }
    let mut bytes = Vec::with_capacity(24 + body.len());
    bytes.extend_from_slice(PART_MAGIC);
    bytes.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&fnv1a(FNV_OFFSET, &body).to_le_bytes());
    bytes.extend_from_slice(&body);
    Ok(files::write_atomic(path, &bytes)?)
}

/// Reads a part file, checking its length and checksum.
///
/// # Errors
/// An unreadable file, or one that is not a complete part.
pub fn read_part(path: &Path) -> Result<Vec<Sample>, PipelineError> {
    let bytes = files::read_capped(path, MAX_FILE_BYTES)?;
    let bad = || {
        PipelineError::Refused(format!(
            "{} is not a complete sample part (delete it to relabel)",
            path.display()
        ))
    };
    if bytes.len() < 24 || &bytes[..8] != PART_MAGIC {
        return Err(bad());
    }
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let (count, sum) = (word(8) as usize, word(16));
    let body = &bytes[24..];
    if Some(body.len()) != count.checked_mul(SAMPLE_LEN) || fnv1a(FNV_OFFSET, body) != sum {
        return Err(bad());
    }
    body.chunks_exact(SAMPLE_LEN)
        .map(|c| {
            let mut b = [0u8; SAMPLE_LEN];
            b.copy_from_slice(c);
            Sample::from_bytes(&b)
                .map_err(|e| PipelineError::Refused(format!("{}: {e}", path.display())))
        })
        .collect()
}

/// One row of `log.csv`: a stage's fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageRow {
    /// The stage.
    pub stage: usize,
    /// Its fewest empties.
    pub min_empties: u32,
    /// Its most empties.
    pub max_empties: u32,
    /// Training positions of the stage's own empties.
    pub train: usize,
    /// Held-out positions.
    pub test: usize,
    /// Mean absolute error on its own training positions (discs).
    pub train_mae: f64,
    /// Mean absolute error on the held-out positions (discs).
    pub test_mae: f64,
    /// Conjugate-gradient iterations.
    pub iterations: usize,
    /// Seconds the fit took.
    pub seconds: f64,
}

const LOG_HEADER: &str =
    "stage,min_empties,max_empties,train,test,train_mae,test_mae,iterations,seconds";

fn read_log(path: &Path) -> Result<Vec<StageRow>, PipelineError> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let bad = || {
            PipelineError::Refused(format!(
                "{} line {}: not a stage row",
                path.display(),
                i + 1
            ))
        };
        if f.len() != 9 {
            return Err(bad());
        }
        rows.push(StageRow {
            stage: f[0].parse().map_err(|_| bad())?,
            min_empties: f[1].parse().map_err(|_| bad())?,
            max_empties: f[2].parse().map_err(|_| bad())?,
            train: f[3].parse().map_err(|_| bad())?,
            test: f[4].parse().map_err(|_| bad())?,
            train_mae: f[5].parse().map_err(|_| bad())?,
            test_mae: f[6].parse().map_err(|_| bad())?,
            iterations: f[7].parse().map_err(|_| bad())?,
            seconds: f[8].parse().map_err(|_| bad())?,
        });
    }
    Ok(rows)
}

fn write_log(path: &Path, rows: &[StageRow]) -> Result<(), PipelineError> {
    let mut text = String::from(LOG_HEADER);
    text.push('\n');
    for r in rows {
        text.push_str(&format!(
            "{},{},{},{},{},{:.4},{:.4},{},{:.1}\n",
            r.stage,
            r.min_empties,
            r.max_empties,
            r.train,
            r.test,
            r.train_mae,
            r.test_mae,
            r.iterations,
            r.seconds
        ));
    }
    Ok(files::write_atomic(path, text.as_bytes())?)
}

/// Fits every stage (resuming from `{prefix}fit.bin` and `{prefix}log.csv`): each stage also
/// fits the positions within `blend` empties beyond its own, held-out positions count only in
/// their own stage.
fn fit_all(
    out: &Path,
    prefix: &str,
    samples: &[Sample],
    config: &PatternConfig,
    report: &dyn Report,
) -> Result<(PatternWeights, Vec<StageRow>), PipelineError> {
    let fit_path = out.join(format!("{prefix}fit.bin"));
    let log_path = out.join(format!("{prefix}log.csv"));
    let mut weights = match std::fs::read(&fit_path) {
        Ok(bytes) => PatternWeights::from_bytes(&bytes)
            .map_err(|e| PipelineError::Refused(format!("reading {}: {e}", fit_path.display())))?,
        Err(_) => PatternWeights::zeros_for(config.layout(), config.stage_width, config.scale)
            .map_err(|e| PipelineError::Refused(e.to_string()))?,
    };
    if weights.layout != config.layout() {
        refuse!(
            "{} holds pattern set {}, but this run fits set {}",
            fit_path.display(),
            weights.layout.id(),
            config.layout().id()
        );
    }
    let mut rows = read_log(&log_path)?;
    if rows.len() > weights.stages() || rows.iter().enumerate().any(|(i, r)| r.stage != i) {
        refuse!("{} does not match this run's stages", log_path.display());
    }
    let width = u32::from(config.stage_width);
    let mut by_stage: Vec<Vec<Sample>> = vec![Vec::new(); weights.stages()];
    for s in samples {
        let e = s.empties();
        let first = weights.stage(e.saturating_sub(config.blend));
        let last = weights.stage((e + config.blend).min(60));
        for (stage, list) in by_stage.iter_mut().enumerate().take(last + 1).skip(first) {
            if !s.test || stage == weights.stage(e) {
                list.push(*s);
            }
        }
    }
    let fit_config = FitConfig {
        lambda: config.lambda,
        lambda_globals: config.lambda_globals,
        iterations: config.iterations,
        layout: config.layout(),
        ..FitConfig::default()
    };
    let progress = report.steps(weights.stages() as u64, "stages fitted");
    progress.set_position(rows.len() as u64);
    let done = rows.len();
    for (stage, list) in by_stage.iter().enumerate().skip(done) {
        let t = Instant::now();
        let (test, train): (Vec<Sample>, Vec<Sample>) = list.iter().partition(|s| s.test);
        let fit = fit_stage(&train, &fit_config);
        quantize(&fit.weights, config.scale, stage, &mut weights);
        let eval = PatternEval::new(&weights);
        let own: Vec<Sample> = train
            .iter()
            .filter(|s| weights.stage(s.empties()) == stage)
            .copied()
            .collect();
        let (train_mae, _) = mean_abs_error(&eval, &own);
        let (test_mae, _) = mean_abs_error(&eval, &test);
        rows.push(StageRow {
            stage,
            min_empties: stage as u32 * width,
            max_empties: (stage as u32 * width + width - 1).min(60),
            train: own.len(),
            test: test.len(),
            train_mae,
            test_mae,
            iterations: fit.iterations,
            seconds: t.elapsed().as_secs_f64(),
        });
        files::write_atomic(&fit_path, &weights.to_bytes())?;
        write_log(&log_path, &rows)?;
        progress.set_message(format!("held-out error {test_mae:.2} discs"));
        progress.inc(1);
    }
    progress.finish();
    Ok((weights, rows))
}

/// `samples` relabelled above `exact_empties` by the run's search: `search_depth` plies with
/// `eval` and the pinned relabelling Multi-ProbCut table
/// ([`crate::midgame::relabel_probcut`]) at `search_probcut` (0: full width).
fn relabel(
    eval: &Arc<PatternEval>,
    samples: &[Sample],
    config: &PatternConfig,
    done: &(dyn Fn() + Sync),
) -> Vec<Sample> {
    super::search_labels(
        eval,
        samples,
        config.exact_empties,
        config.search_depth,
        (config.search_probcut > 0.0)
            .then(|| (crate::midgame::relabel_probcut(), config.search_probcut)),
        done,
    )
}

/// A relabelled part file, which must hold as many samples as the part it relabels.
fn read_relabelled(path: &Path, len: usize) -> Result<Vec<Sample>, PipelineError> {
    let relabelled = read_part(path)?;
    if relabelled.len() != len {
        refuse!(
            "{} does not match its part (delete it to relabel)",
            path.display()
        );
    }
    Ok(relabelled)
}

/// The counts of a card.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Training positions.
    pub train: usize,
    /// Held-out positions.
    pub test: usize,
    /// Positions solved exactly.
    pub exact: usize,
    /// Positions labelled by a search.
    pub search: usize,
    /// Self-play positions.
    pub self_play: usize,
}

impl SampleCounts {
    fn of(samples: &[Sample], self_play: usize) -> Self {
        SampleCounts {
            train: samples.iter().filter(|s| !s.test).count(),
            test: samples.iter().filter(|s| s.test).count(),
            exact: samples.iter().filter(|s| s.exact).count(),
            search: samples.iter().filter(|s| s.search).count(),
            self_play,
        }
    }
}

/// The card of pattern weights (`patterns.json`, and the bundled `othello8-patterns.json`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PatternCard {
    /// `stonelab-model/1`.
    pub format: String,
    /// `othello`.
    pub algo: String,
    /// `othello8`.
    pub game: String,
    /// 8.
    pub board_size: usize,
    /// The pattern set's id.
    pub pattern_set: u16,
    /// Empties per stage.
    pub stage_width: u8,
    /// Stages.
    pub stages: usize,
    /// Weight units per disc.
    pub scale: u16,
    /// The weights file beside the card.
    pub weights: String,
    /// Weights per stage.
    pub distinct_weights_per_stage: usize,
    /// The positions fitted.
    pub samples: SampleCounts,
    /// Per stage: fewest and most empties, held-out mean absolute error (discs).
    pub held_out_mae: Vec<(u32, u32, f64)>,
    /// The run's settings.
    pub config: PatternConfig,
    /// The stonelab version that wrote it.
    pub stonelab: String,
}

/// The card of a correction network (`correction.json`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CorrectionCard {
    /// `stonelab-model/1`.
    pub format: String,
    /// `othello-correction`.
    pub algo: String,
    /// `othello8`.
    pub game: String,
    /// 8.
    pub board_size: usize,
    /// The network file beside the card.
    pub network: String,
    /// The pattern weights it corrects.
    pub weights: String,
    /// Hidden units.
    pub hidden: usize,
    /// Input planes.
    pub planes: usize,
    /// Inputs.
    pub inputs: usize,
    /// `canonical` (the network reads each position's least image) or `as-played`.
    pub orientation: String,
    /// FNV-1a of the pattern file it corrects (`patterns.bin`).
    pub patterns_fingerprint: String,
    /// Epochs fitted.
    pub epochs: u32,
    /// Training positions.
    pub training_positions: usize,
    /// (first empties of the band, held-out positions, pattern error, with the network);
    /// a distilled network's card gives its errors under `distilled` instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out_mae: Vec<(u32, usize, f64, f64)>,
    /// How a distilled network was made from its teacher (the bundled network's card; a
    /// fitted network has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distilled: Option<serde_json::Value>,
    /// The run's settings.
    pub config: PatternConfig,
    /// The stonelab version that wrote it.
    pub stonelab: String,
}

/// A pattern run to start or resume.
pub struct PatternRun<'a> {
    /// The run folder.
    pub out: &'a Path,
    /// Its settings.
    pub config: PatternConfig,
    /// Go on with the run in `out` (its settings must be `config`).
    pub resume: bool,
    /// Replace an earlier pattern run in `out` ([`PATTERN_RUN`]).
    pub force: bool,
    /// The version written in the cards.
    pub version: &'a str,
}

/// The settings in which `now` differs from `saved`, as `key: now here, saved in the run`.
fn differences(saved: &PatternConfig, now: &PatternConfig) -> String {
    let (Ok(serde_json::Value::Object(saved)), Ok(serde_json::Value::Object(now))) =
        (serde_json::to_value(saved), serde_json::to_value(now))
    else {
        return "unreadable settings".into();
    };
    let list: Vec<String> = now
        .iter()
        .filter(|(key, value)| saved.get(*key) != Some(*value))
        .map(|(key, value)| {
            let was = saved
                .get(key)
                .map_or_else(|| "none".into(), ToString::to_string);
            format!("{key}: {value} here, {was} in the run")
        })
        .collect();
    list.join("; ")
}

fn json<T: Serialize>(value: &T) -> Result<String, PipelineError> {
    serde_json::to_string_pretty(value).map_err(|e| PipelineError::Refused(e.to_string()))
}

/// The phases' state, shared by their steps.
struct Phases<'a> {
    out: &'a Path,
    config: &'a PatternConfig,
    report: &'a dyn Report,
    started: Instant,
}

impl Phases<'_> {
    fn samples(&self) -> PathBuf {
        self.out.join("samples")
    }

    /// Labels the games part by part (finished parts are kept), then returns every part.
    fn label(&self) -> Result<Vec<Vec<Sample>>, PipelineError> {
        let config = self.config;
        let games = load_wthor(&config.wthor, config.max_games)?;
        let dir = self.samples();
        files::create_dir_all(&dir)?;
        let parts = games.len().div_ceil(PART_GAMES);
        let todo: Vec<usize> = (0..parts)
            .filter(|p| !dir.join(format!("part-{p:04}.bin")).exists())
            .collect();
        if !todo.is_empty() {
            let progress = self.report.steps(games.len() as u64, "games labelled");
            progress.set_position(((parts - todo.len()) * PART_GAMES).min(games.len()) as u64);
            let mut skipped = 0;
            for p in todo {
                let chunk = &games[p * PART_GAMES..((p + 1) * PART_GAMES).min(games.len())];
                let (samples, skip) = label_wthor(
                    chunk,
                    (p * PART_GAMES) as u64,
                    config.exact_zone(),
                    config.seed,
                    &|| progress.inc(1),
                );
                skipped += skip;
                write_part(&dir.join(format!("part-{p:04}.bin")), &samples)?;
            }
            progress.finish();
            if skipped > 0 {
                self.report
                    .warn(&format!("{skipped} games did not replay and were left out"));
            }
        }
        (0..parts)
            .map(|p| read_part(&dir.join(format!("part-{p:04}.bin"))))
            .collect()
    }

    /// Relabels the record positions above `exact_empties` part by part (finished parts are
    /// kept) by a `search_depth`-ply search with `eval`.
    fn search(
        &self,
        eval: &Arc<PatternEval>,
        records: &[Vec<Sample>],
    ) -> Result<Vec<Sample>, PipelineError> {
        let dir = self.samples();
        let parts = records.len();
        let total: usize = records.iter().map(Vec::len).sum();
        let progress = self
            .report
            .steps(total as u64, "positions relabelled by search");
        let mut all = Vec::with_capacity(total);
        for (p, part) in records.iter().enumerate() {
            let path = dir.join(format!("search-{p:04}.bin"));
            if !path.exists() {
                let games = AtomicU64::new(0);
                let relabelled = relabel(eval, part, self.config, &|| {
                    let n = games.fetch_add(1, Ordering::Relaxed);
                    progress.set_message(format!("part {}/{parts}, {} games", p + 1, n + 1));
                });
                write_part(&path, &relabelled)?;
            }
            let relabelled = read_relabelled(&path, part.len())?;
            progress.inc(part.len() as u64);
            all.extend(relabelled);
        }
        progress.finish();
        Ok(all)
    }

    /// The deviations (see [`super::deviations`]) of every record part, labelled by the
    /// relabelling search, part by part (finished parts are kept).
    fn deviations(
        &self,
        eval: &Arc<PatternEval>,
        records: &[Vec<Sample>],
    ) -> Result<Vec<Sample>, PipelineError> {
        let config = self.config;
        let dir = self.samples();
        let progress = self
            .report
            .steps(records.len() as u64, "parts of deviations labelled");
        let mut all = Vec::new();
        for (p, part) in records.iter().enumerate() {
            let path = dir.join(format!("deviation-{p:04}.bin"));
            if !path.exists() {
                let children = super::deviations(
                    part,
                    config.deviations,
                    config.exact_empties,
                    config.seed,
                    p as u64,
                );
                write_part(&path, &relabel(eval, &children, config, &|| {}))?;
            }
            all.extend(read_part(&path)?);
            progress.inc(1);
        }
        progress.finish();
        Ok(all)
    }

    /// Plays the self-play games part by part (finished parts are kept).
    fn self_play(&self, eval: &Arc<PatternEval>) -> Result<Vec<Sample>, PipelineError> {
        let config = self.config;
        let dir = self.samples();
        let parts = config.self_play_games.div_ceil(SELF_PLAY_PART);
        let progress = self
            .report
            .steps(config.self_play_games as u64, "self-play games");
        let mut all = Vec::new();
        for p in 0..parts {
            let path = dir.join(format!("self-play-{p:04}.bin"));
            let first = p * SELF_PLAY_PART;
            let games = SELF_PLAY_PART.min(config.self_play_games - first);
            if path.exists() {
                progress.inc(games as u64);
            } else {
                let sp = SelfPlayConfig {
                    games,
                    random_plies: 6,
                    depth: config.self_play_depth,
                    noise: 0.1,
                    noise_until: 40,
                    exact_empties: config.self_play_exact,
                    seed: config.seed,
                };
                let samples = self_play(eval, &sp, first as u64, &|| progress.inc(1));
                write_part(&path, &samples)?;
            }
            let samples = read_part(&path)?;
            if config.self_play_search && config.search_depth > 0 {
                // Above the exact zone, the records' search labels them, not the game's result.
                let searched = dir.join(format!("self-play-search-{p:04}.bin"));
                if !searched.exists() {
                    write_part(&searched, &relabel(eval, &samples, config, &|| {}))?;
                }
                all.extend(read_relabelled(&searched, samples.len())?);
            } else {
                all.extend(samples);
            }
        }
        progress.finish();
        Ok(all)
    }

    fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

/// Runs (or resumes) a pattern training run (see the module for its phases and files).
///
/// # Errors
/// A refused run folder ([`PATTERN_RUN`]), settings other than a resumed run's, unusable
/// records, or a failed read or write.
pub fn train_patterns(run: &PatternRun<'_>, report: &dyn Report) -> Result<(), PipelineError> {
    let out = run.out;
    let config_path = out.join("config.json");
    if run.resume {
        let text = std::fs::read_to_string(&config_path).map_err(|e| {
            PipelineError::Refused(format!("--resume: reading {}: {e}", config_path.display()))
        })?;
        let saved: PatternConfig = serde_json::from_str(&text).map_err(|e| {
            PipelineError::Refused(format!(
                "--resume: {} is not a pattern run: {e}",
                config_path.display()
            ))
        })?;
        if saved != run.config {
            refuse!(
                "--resume: {} was made with other settings ({}); resume with the same options",
                out.display(),
                differences(&saved, &run.config)
            );
        }
    } else {
        // Refuse a folder that is not this kind of run before anything is removed, and check
        // the records before the old run goes.
        PATTERN_RUN.prepare(out, run.force)?;
        load_wthor(&run.config.wthor, run.config.max_games)?;
        PATTERN_RUN.replace(out, run.force)?;
        files::write(&config_path, json(&run.config)?)?;
    }
    let config = &run.config;
    let phases = Phases {
        out,
        config,
        report,
        started: Instant::now(),
    };
    let parts = phases.label()?;
    let mut samples = parts.concat();
    if samples.is_empty() {
        refuse!(
            "no labelled positions in {}: none of its games replays (each has an illegal move)",
            config.wthor.display()
        );
    }
    let mut count = SampleCounts::of(&samples, 0);
    report.note(&format!(
        "{} positions: {} training, {} held out, {} solved exactly ({:.0} s)",
        samples.len(),
        count.train,
        count.test,
        count.exact,
        phases.seconds()
    ));

    let (mut weights, mut rows) = fit_all(out, "", &samples, config, report)?;
    let first = Arc::new(PatternEval::new(&weights));
    if config.search_depth > 0 {
        samples = phases.search(&first, &parts)?;
        report.note(&format!(
            "{} record positions relabelled by {}-ply searches ({:.0} s)",
            samples.iter().filter(|s| s.search).count(),
            config.search_depth,
            phases.seconds()
        ));
    }
    if config.theoretical_exact && config.exact_empties < THEORETICAL_EMPTIES {
        // A record label above the exact zone starts as its game's theoretical score, which is
        // exact for the position at the files' depth: that position takes it back from the
        // search (searched all the same, so the other labels do not depend on this option).
        let records = parts.iter().flatten();
        for (s, record) in samples.iter_mut().zip(records) {
            if record.empties() == THEORETICAL_EMPTIES && !record.exact {
                *s = Sample {
                    exact: true,
                    search: false,
                    ..*record
                };
            }
        }
        report.note(&format!(
            "{} record positions keep their game's theoretical score (exact from {} empties)",
            samples
                .iter()
                .filter(|s| s.exact && s.empties() == THEORETICAL_EMPTIES)
                .count(),
            THEORETICAL_EMPTIES
        ));
    }
    if config.deviations > 0.0 && config.search_depth > 0 {
        let children = phases.deviations(&first, &parts)?;
        report.note(&format!(
            "{} deviations from the records labelled ({:.0} s)",
            children.len(),
            phases.seconds()
        ));
        samples.extend(children);
    }
    // The parts live on in `samples`; the later phases need only that.
    drop(parts);
    let mut self_play = 0;
    if config.self_play_games > 0 {
        let games = phases.self_play(&first)?;
        report.note(&format!(
            "{} self-play positions from {} games ({:.0} s)",
            games.len(),
            config.self_play_games,
            phases.seconds()
        ));
        self_play = games.len();
        samples.extend(games);
    }
    // Deviations come only with a relabelling search, so `search_depth > 0` covers them.
    if config.search_depth > 0 || config.self_play_games > 0 {
        count = SampleCounts::of(&samples, self_play);
        (weights, rows) = fit_all(out, "final-", &samples, config, report)?;
    }

    files::write(&out.join("patterns.bin"), weights.to_bytes())?;
    let card = PatternCard {
        format: "stonelab-model/1".into(),
        algo: "othello".into(),
        game: "othello8".into(),
        board_size: 8,
        pattern_set: config.layout().id(),
        stage_width: config.stage_width,
        stages: weights.stages(),
        scale: config.scale,
        weights: "patterns.bin".into(),
        distinct_weights_per_stage: config.layout().stage_len(),
        samples: count,
        held_out_mae: rows
            .iter()
            .map(|r| {
                (
                    r.min_empties,
                    r.max_empties,
                    (r.test_mae * 1000.0).round() / 1000.0,
                )
            })
            .collect(),
        config: config.clone(),
        stonelab: run.version.into(),
    };
    files::write(&out.join("patterns.json"), json(&card)?)?;
    let plots = out.join("plots");
    files::create_dir_all(&plots)?;
    let line = |name: &str, f: fn(&StageRow) -> f64| {
        let points = rows
            .iter()
            .filter(|r| r.test > 0)
            .map(|r| (f64::from(r.min_empties), f(r)))
            .collect();
        (name.to_string(), points)
    };
    let chart = Chart {
        title: "mean absolute error per stage (discs)".into(),
        x_label: "empty squares".into(),
        y_label: "discs".into(),
        lines: vec![
            line("training", |r| r.train_mae),
            line("held out", |r| r.test_mae),
        ],
        range: None,
    };
    let mae = plots.join("mae.png");
    report
        .chart(&mae, &chart)
        .map_err(|e| PipelineError::Refused(format!("drawing {}: {e}", mae.display())))?;
    let (n, sum) = rows.iter().fold((0usize, 0.0), |(n, s), r| {
        (n + r.test, s + r.test_mae * r.test as f64)
    });
    report.note(&format!(
        "patterns: {} ({:.2} discs mean held-out error over {n} positions, {:.0} s)",
        out.join("patterns.bin").display(),
        sum / n.max(1) as f64,
        phases.seconds()
    ));
    if config.correction > 0 {
        fit_correction(run, &weights, &samples, report)?;
        report.note(&format!(
            "correction network: {} ({:.0} s)",
            out.join("correction.bin").display(),
            phases.seconds()
        ));
    }
    Ok(())
}

/// Phase 6: the correction network fitted to what `weights` leave over on the final labels,
/// an epoch at a time (each saved whole in `correction-state.bin`, so a resumed fit is the
/// same fit), with `correction-log.csv`, `plots/correction.png`, `correction.bin` and its card.
fn fit_correction(
    run: &PatternRun<'_>,
    weights: &PatternWeights,
    samples: &[Sample],
    report: &dyn Report,
) -> Result<(), PipelineError> {
    use super::correction_fit::{fit_epoch, held_out_errors, FitConfig, FitState, Row};
    use crate::correction::pattern_fingerprint;
    use rayon::prelude::*;
    let (out, config) = (run.out, &run.config);
    let fingerprint = pattern_fingerprint(&weights.to_bytes());
    let eval = PatternEval::new(weights);
    let scale = f32::from(config.scale);
    let rows: Vec<Row> = samples
        .par_iter()
        .map(|s| {
            let f = crate::pattern::Features::from_scratch(s.player, s.opponent);
            Row::of(s, eval.evaluate(&f, s.player, s.opponent) as f32 / scale)
        })
        .collect();
    let fit = FitConfig {
        planes: if config.correction_frontier {
            crate::correction::FRONTIER_PLANES
        } else {
            crate::correction::PLANES
        },
        hidden: config.correction,
        epochs: config.correction_epochs,
        seed: config.seed,
        canonical: !config.correction_as_played,
        ..FitConfig::default()
    };
    let state_path = out.join("correction-state.bin");
    let log_path = out.join("correction-log.csv");
    let mut state = match std::fs::read(&state_path) {
        Ok(bytes) => {
            let state = FitState::from_bytes(&bytes)
                .map_err(|e| PipelineError::Refused(format!("{}: {e}", state_path.display())))?;
            if state.net.patterns != fingerprint
                || state.net.hidden != config.correction
                || state.net.planes != fit.planes
                || state.net.canonical != fit.canonical
            {
                refuse!(
                    "{} belongs to another fit (other pattern weights, width or orientation); \
                     remove it to fit the correction network again",
                    state_path.display()
                );
            }
            state
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            files::write(
                &log_path,
                "epoch,train_rmse,held_out_mae_patterns,held_out_mae_corrected\n",
            )?;
            FitState::new(&fit, fingerprint).map_err(|e| PipelineError::Refused(e.to_string()))?
        }
        Err(e) => return Err(io(&state_path)(e)),
    };
    let training = rows.iter().filter(|r| !r.test).count();
    let progress = report.steps(
        u64::from(config.correction_epochs),
        "correction network (epochs)",
    );
    progress.set_position(u64::from(state.epochs.min(config.correction_epochs)));
    let overall = |bands: &[(u32, usize, f64, f64)]| {
        let n: usize = bands.iter().map(|b| b.1).sum();
        let sum = |f: fn(&(u32, usize, f64, f64)) -> f64| {
            bands.iter().map(|b| f(b) * b.1 as f64).sum::<f64>() / n.max(1) as f64
        };
        (sum(|b| b.2), sum(|b| b.3))
    };
    while state.epochs < config.correction_epochs {
        let rmse = fit_epoch(&mut state, &rows, &fit);
        let (before, after) = overall(&held_out_errors(&state.net, &rows));
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(&log_path)
            .map_err(io(&log_path))?;
        writeln!(log, "{},{rmse:.4},{before:.4},{after:.4}", state.epochs)
            .map_err(io(&log_path))?;
        files::write_atomic(&state_path, &state.to_bytes())?;
        progress.set_position(u64::from(state.epochs));
    }
    progress.finish();
    let bands = held_out_errors(&state.net, &rows);
    files::write(&out.join("correction.bin"), state.net.to_bytes())?;
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let card = CorrectionCard {
        format: "stonelab-model/1".into(),
        algo: "othello-correction".into(),
        game: "othello8".into(),
        board_size: 8,
        network: "correction.bin".into(),
        weights: "patterns.bin".into(),
        hidden: state.net.hidden,
        planes: state.net.planes,
        inputs: crate::correction::inputs(state.net.planes),
        orientation: if state.net.canonical {
            "canonical"
        } else {
            "as-played"
        }
        .into(),
        patterns_fingerprint: format!("{fingerprint:016x}"),
        epochs: state.epochs,
        training_positions: training,
        held_out_mae: bands
            .iter()
            .map(|&(e, n, a, b)| (e, n, round(a), round(b)))
            .collect(),
        distilled: None,
        config: config.clone(),
        stonelab: run.version.into(),
    };
    files::write(&out.join("correction.json"), json(&card)?)?;
    let plots = out.join("plots");
    files::create_dir_all(&plots)?;
    let band = |name: &str, f: fn(&(u32, usize, f64, f64)) -> f64| {
        (
            name.to_string(),
            bands.iter().map(|b| (f64::from(b.0), f(b))).collect(),
        )
    };
    let chart = Chart {
        title: "held-out mean absolute error per band of 10 empties (discs)".into(),
        x_label: "empty squares (band start)".into(),
        y_label: "discs".into(),
        lines: vec![
            band("patterns", |b| b.2),
            band("patterns + correction", |b| b.3),
        ],
        range: None,
    };
    let path = plots.join("correction.png");
    report
        .chart(&path, &chart)
        .map_err(|e| PipelineError::Refused(format!("drawing {}: {e}", path.display())))?;
    for (e, n, a, b) in &bands {
        let range = if *e >= 60 {
            "60".to_string()
        } else {
            format!("{e}-{}", e + 9)
        };
        report.note(&format!(
            "  {range:>5} empties: {n:8} held out, patterns {a:.3}, with the correction {b:.3}"
        ));
    }
    Ok(())
}

/// A Multi-ProbCut fit to make (`train probcut`).
pub struct ProbCutRun<'a> {
    /// The output folder.
    pub out: &'a Path,
    /// The WTHOR folder.
    pub wthor: &'a Path,
    /// Pattern weights to search with (with the `correction.bin` beside them when it was fitted
    /// for them); `None`: the bundled weights and correction network.
    pub weights: Option<&'a Path>,
    /// Positions to search.
    pub positions: usize,
    /// The deepest search.
    pub max_depth: u32,
    /// Seed of the walk through the games.
    pub seed: u64,
    /// Replace an earlier fit in `out` ([`PROBCUT_RUN`]).
    pub force: bool,
}

/// Fits the Multi-ProbCut regressions: full-width searches to `max_depth` on record positions
/// of 8-54 discs (one per game, seeded), written to `OUT/probcut.txt` with `pairs.csv`.
///
/// # Errors
/// A refused output folder, unusable records or weights, too few pairs, or a failed write.
pub fn fit_probcut_run(run: &ProbCutRun<'_>, report: &dyn Report) -> Result<(), PipelineError> {
    let out = run.out;
    PROBCUT_RUN.prepare(out, run.force)?;
    let games = load_wthor(run.wthor, 0)?;
    let eval = match run.weights {
        Some(path) => crate::pattern::load(path)
            .map_err(|e| PipelineError::Refused(format!("--from {}: {e}", path.display())))?,
        None => crate::pattern::bundled(),
    };
    // The searches are the engine's: the bundled weights with the bundled correction network,
    // or `--from FILE` with the `correction.bin` beside it when it was fitted for that file.
    let correction = match run.weights {
        None => Some(crate::correction::bundled()),
        Some(path) => {
            let beside = path.with_file_name("correction.bin");
            if beside.is_file() {
                let failed = |e: &dyn std::fmt::Display| {
                    PipelineError::Refused(format!("{}: {e}", beside.display()))
                };
                let net = crate::correction::load(&beside).map_err(|e| failed(&e))?;
                let bytes = std::fs::read(path).map_err(|e| {
                    PipelineError::Refused(format!("--from {}: {e}", path.display()))
                })?;
                net.check_fits(&bytes).map_err(|e| failed(&e))?;
                report.note(&format!("with the correction network {}", beside.display()));
                Some(net)
            } else {
                None
            }
        }
    };
    // A seeded walk through the games: each picked game gives its position after a seeded
    // number of moves (4-50: 56 to 10 empties, so every 10-empties row from 10 to 59 is fitted).
    let mut rng = game::hash::SplitMix(run.seed ^ 0x005e_ed0f_9c0d);
    let mut next = move || rng.next_u64();
    let mut positions = Vec::new();
    let mut tries = 0;
    while positions.len() < run.positions && tries < run.positions * 20 {
        tries += 1;
        let game = &games[(next() % games.len() as u64) as usize];
        let Ok(replay) = game.replay() else { continue };
        let ply = 4 + (next() % 47) as usize;
        if let Some(pos) = replay.positions().get(ply) {
            if pos.moves() != 0 {
                positions.push(*pos);
            }
        }
    }
    if positions.is_empty() {
        refuse!(
            "no position to search: no game of {} replays (each has an illegal move)",
            run.wthor.display()
        );
    }
    PROBCUT_RUN.replace(out, run.force)?;
    let started = Instant::now();
    let progress = report.steps(positions.len() as u64, "positions searched");
    let pairs = super::probcut_pairs(
        &eval,
        correction.as_ref(),
        &positions,
        run.max_depth,
        &|| {
            progress.inc(1);
        },
    );
    progress.finish();
    let mut csv = String::from("depth,empties,shallow,deep\n");
    for p in &pairs {
        csv.push_str(&format!(
            "{},{},{},{}\n",
            p.depth, p.empties, p.shallow, p.deep
        ));
    }
    files::write(&out.join("pairs.csv"), csv)?;
    let table = super::fit_probcut(&pairs);
    if table.rows.is_empty() {
        refuse!(
            "no regression could be fitted: the {} pairs from {} positions leave fewer than 30 \
             at every depth and stage (pairs.csv has them); search more --positions",
            pairs.len(),
            positions.len()
        );
    }
    files::write(&out.join("probcut.txt"), table.to_text())?;
    report.note(&format!(
        "probcut: {} pairs from {} positions, {} regressions, {:.0} s -> {}",
        pairs.len(),
        positions.len(),
        table.rows.len(),
        started.elapsed().as_secs_f64(),
        out.join("probcut.txt").display()
    ));
    Ok(())
}
