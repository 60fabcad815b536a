//! `stonelab train patterns`: the Othello pattern evaluation learned from the WTHOR records and
//! self-play — labelling (exact solves near the end, deep searches above), least-squares fits
//! per stage, held-out errors per stage, a plot, the weight file with its card; every phase
//! resumable.
//!
//! The phases: (1) label the records (exact solves up to `exact_empties`, the game's
//! perfect-play result above; with `exact_fraction` below 1, only that seeded share of the games
//! is solved so far, the others to `exact_rest`, their positions between left out); (2) a first
//! fit; (3) relabel the record positions above `exact_empties` by a `search_depth`-ply search
//! with the first fit (and the bundled Multi-ProbCut table at `search_probcut`; with
//! `theoretical_exact`, each game's position at 24 empties keeps its theoretical score, exact);
//! (3b) with `deviations` > 0, positions after a random move from a fraction of the record
//! positions, labelled by the same search; (4) self-play games with the first fit, solved exactly
//! from `self_play_exact` empties (with `self_play_search`, the positions before relabelled by
//! the same search); (5) the final fit on (3) + (3b) + (4).
//!
//! The run folder: `config.json`; `samples/part-NNNN.bin` (labelled positions, one file per
//! 4,096 games, each written whole), `samples/search-NNNN.bin` (the same positions relabelled),
//! `samples/deviation-NNNN.bin` (their deviations), `samples/self-play-NNNN.bin` (and
//! `self-play-search-NNNN.bin`, relabelled); `fit.bin`
//! and `log.csv` (the first fit's stages so far, one row per stage), `final-fit.bin` and
//! `final-log.csv` (the final fit's); at the end `patterns.bin`, `patterns.json` (the card) and
//! `plots/mae.png`.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use indicatif::ProgressBar;
use othello::wthor::{parse_games, WthorGame};
use othello_engine::pattern::{PatternEval, PatternWeights};
use othello_engine::train::{
    fit_stage, label_wthor, mean_abs_error, quantize, self_play, FitConfig, Sample, SelfPlayConfig,
    SAMPLE_LEN,
};
use serde::{Deserialize, Serialize};

use crate::plots::{line_chart, Series};

/// Games per labelled part file.
const PART_GAMES: usize = 4096;
const PART_MAGIC: &[u8; 8] = b"stonesmp";

pub use othello_engine::train::{PatternConfig, DEFAULT_CORRECTION_EPOCHS, DEFAULT_EXACT_REST};

/// The empties from which the WTHOR files' theoretical scores are perfect play (checked per file).
const THEORETICAL_EMPTIES: u32 = 24;

/// What `stonelab train patterns` needs from the command line.
pub struct PatternArgs<'a> {
    pub out: &'a Path,
    pub config: PatternConfig,
    pub resume: bool,
    pub force: bool,
    pub quiet: bool,
}

/// A progress bar of `total` steps labelled `what` (hidden when `quiet`).
pub(crate) fn bar(quiet: bool, total: u64, what: &str) -> ProgressBar {
    crate::progress::bar(quiet, total, what)
}

fn load_games(config: &PatternConfig) -> Result<Vec<WthorGame>> {
    let mut games = Vec::new();
    for path in crate::data_cmd::wthor_files(&config.wthor)? {
        let bytes = crate::input::read(&path)?;
        let file = parse_games(&bytes).with_context(|| format!("reading {}", path.display()))?;
        if u32::from(file.header.depth) != THEORETICAL_EMPTIES {
            bail!(
                "{}: theoretical scores from {} empties; the labels assume 24 (the WTHOR files \
                 in data/othello/wthor)",
                path.display(),
                file.header.depth
            );
        }
        games.extend(file.games);
    }
    if config.max_games > 0 {
        games.truncate(config.max_games);
    }
    if games.is_empty() {
        bail!("{} holds no games", config.wthor.display());
    }
    Ok(games)
}

use game::hash::{fnv1a, FNV_OFFSET};

fn write_part(path: &Path, samples: &[Sample]) -> Result<()> {
    let mut body = Vec::with_capacity(samples.len() * SAMPLE_LEN);
    for s in samples {
        body.extend_from_slice(&s.to_bytes());
    }
    let sum = fnv1a(FNV_OFFSET, &body);
    let tmp = path.with_extension("tmp");
    let mut f = fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(PART_MAGIC)?;
    f.write_all(&(samples.len() as u64).to_le_bytes())?;
    f.write_all(&sum.to_le_bytes())?;
    f.write_all(&body)?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn read_part(path: &Path) -> Result<Vec<Sample>> {
    let bytes = crate::input::read(path)?;
    let what = || {
        format!(
            "{} is not a complete sample part (delete it to relabel)",
            path.display()
        )
    };
    if bytes.len() < 24 || &bytes[..8] != PART_MAGIC {
        bail!(what());
    }
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[8..16]);
    let count = u64::from_le_bytes(w) as usize;
    w.copy_from_slice(&bytes[16..24]);
    let sum = u64::from_le_bytes(w);
    let body = &bytes[24..];
    if Some(body.len()) != count.checked_mul(SAMPLE_LEN) || fnv1a(FNV_OFFSET, body) != sum {
        bail!(what());
    }
    body.chunks_exact(SAMPLE_LEN)
        .map(|c| {
            let mut b = [0u8; SAMPLE_LEN];
            b.copy_from_slice(c);
            Sample::from_bytes(&b).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        })
        .collect()
}

/// Labels the games part by part (finished parts are kept), then returns every part's samples.
fn label(out: &Path, config: &PatternConfig, quiet: bool) -> Result<Vec<Vec<Sample>>> {
    let games = load_games(config)?;
    let dir = out.join("samples");
    fs::create_dir_all(&dir)?;
    let parts = games.len().div_ceil(PART_GAMES);
    let todo: Vec<usize> = (0..parts)
        .filter(|p| !dir.join(format!("part-{p:04}.bin")).exists())
        .collect();
    if !todo.is_empty() {
        let progress = bar(quiet, games.len() as u64, "games labelled");
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
        progress.finish_and_clear();
        if skipped > 0 {
            eprintln!("{skipped} games did not replay and were left out");
        }
    }
    (0..parts)
        .map(|p| read_part(&dir.join(format!("part-{p:04}.bin"))))
        .collect()
}

/// One row of `log.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageRow {
    pub stage: usize,
    pub min_empties: u32,
    pub max_empties: u32,
    pub train: usize,
    pub test: usize,
    pub train_mae: f64,
    pub test_mae: f64,
    pub iterations: usize,
    pub seconds: f64,
}

const LOG_HEADER: &str =
    "stage,min_empties,max_empties,train,test,train_mae,test_mae,iterations,seconds";

fn read_log(path: &Path) -> Result<Vec<StageRow>> {
    let Ok(text) = fs::read_to_string(path) else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let bad = || anyhow::anyhow!("{} line {}: not a stage row", path.display(), i + 1);
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

fn write_log(path: &Path, rows: &[StageRow]) -> Result<()> {
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
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Fits every stage (resuming from `{prefix}fit.bin` and `{prefix}log.csv`).
fn fit_all(
    out: &Path,
    prefix: &str,
    samples: &[Sample],
    config: &PatternConfig,
    quiet: bool,
) -> Result<(PatternWeights, Vec<StageRow>)> {
    let fit_path = out.join(format!("{prefix}fit.bin"));
    let log_path = out.join(format!("{prefix}log.csv"));
    let mut weights = match fs::read(&fit_path) {
        Ok(bytes) => PatternWeights::from_bytes(&bytes)
            .with_context(|| format!("reading {}", fit_path.display()))?,
        Err(_) => PatternWeights::zeros_for(config.layout(), config.stage_width, config.scale)?,
    };
    if weights.layout != config.layout() {
        bail!(
            "{} holds pattern set {}, but this run fits set {}",
            fit_path.display(),
            weights.layout.id(),
            config.layout().id()
        );
    }
    let mut rows = read_log(&log_path)?;
    if rows.len() > weights.stages() || rows.iter().enumerate().any(|(i, r)| r.stage != i) {
        bail!("{} does not match this run's stages", log_path.display());
    }
    let width = u32::from(config.stage_width);
    let mut by_stage: Vec<Vec<Sample>> = vec![Vec::new(); weights.stages()];
    for s in samples {
        let e = s.empties();
        let first = weights.stage(e.saturating_sub(config.blend));
        let last = weights.stage((e + config.blend).min(60));
        for (stage, list) in by_stage.iter_mut().enumerate().take(last + 1).skip(first) {
            // Held-out positions count only in their own stage.
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
    let progress = bar(quiet, weights.stages() as u64, "stages fitted");
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
        fs::write(&fit_path, weights.to_bytes())?;
        write_log(&log_path, &rows)?;
        progress.set_message(format!("held-out error {test_mae:.2} discs"));
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok((weights, rows))
}

/// Games per self-play part file.
const SELF_PLAY_PART: usize = 1024;

/// Plays the self-play games part by part (finished parts are kept) and returns their samples.
fn self_play_samples(
    out: &Path,
    eval: &std::sync::Arc<PatternEval>,
    config: &PatternConfig,
    quiet: bool,
) -> Result<Vec<Sample>> {
    let dir = out.join("samples");
    let parts = config.self_play_games.div_ceil(SELF_PLAY_PART);
    let progress = bar(quiet, config.self_play_games as u64, "self-play games");
    let mut all = Vec::new();
    for p in 0..parts {
        let path = dir.join(format!("self-play-{p:04}.bin"));
        let first = p * SELF_PLAY_PART;
        let games = SELF_PLAY_PART.min(config.self_play_games - first);
        if !path.exists() {
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
        } else {
            progress.inc(games as u64);
        }
        let samples = read_part(&path)?;
        if config.self_play_search && config.search_depth > 0 {
            // Above the exact zone, the records' search labels them instead of the game's result.
            let searched = dir.join(format!("self-play-search-{p:04}.bin"));
            if !searched.exists() {
                write_part(&searched, &relabel(eval, &samples, config, &|| {}))?;
            }
            all.extend(read_relabelled(&searched, samples.len())?);
        } else {
            all.extend(samples);
        }
    }
    progress.finish_and_clear();
    Ok(all)
}

/// `samples` relabelled above `exact_empties` by the run's search: `search_depth` plies with
/// `eval` and the pinned relabelling Multi-ProbCut table
/// ([`othello_engine::midgame::relabel_probcut`]) at `search_probcut` (0: full width).
fn relabel(
    eval: &std::sync::Arc<PatternEval>,
    samples: &[Sample],
    config: &PatternConfig,
    done: &(dyn Fn() + Sync),
) -> Vec<Sample> {
    othello_engine::train::search_labels(
        eval,
        samples,
        config.exact_empties,
        config.search_depth,
        (config.search_probcut > 0.0).then(|| {
            (
                othello_engine::midgame::relabel_probcut(),
                config.search_probcut,
            )
        }),
        done,
    )
}

/// A relabelled part file, which must hold as many samples as the part it relabels.
fn read_relabelled(path: &Path, len: usize) -> Result<Vec<Sample>> {
    let relabelled = read_part(path)?;
    if relabelled.len() != len {
        bail!(
            "{} does not match its part (delete it to relabel)",
            path.display()
        );
    }
    Ok(relabelled)
}

/// Relabels the record positions above `exact_empties` part by part (finished parts are kept)
/// by a `search_depth`-ply search with `eval`, and returns every sample.
fn search_samples(
    out: &Path,
    eval: &std::sync::Arc<PatternEval>,
    records: &[Vec<Sample>],
    config: &PatternConfig,
    quiet: bool,
) -> Result<Vec<Sample>> {
    let dir = out.join("samples");
    let parts = records.len();
    let total: usize = records.iter().map(Vec::len).sum();
    let progress = bar(quiet, total as u64, "positions relabelled by search");
    let mut all = Vec::with_capacity(total);
    for (p, part) in records.iter().enumerate() {
        let path = dir.join(format!("search-{p:04}.bin"));
        if !path.exists() {
            let games = std::sync::atomic::AtomicU64::new(0);
            let relabelled = relabel(eval, part, config, &|| {
                let n = games.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                progress.set_message(format!("part {}/{parts}, {} games", p + 1, n + 1));
            });
            write_part(&path, &relabelled)?;
        }
        let relabelled = read_relabelled(&path, part.len())?;
        progress.inc(part.len() as u64);
        all.extend(relabelled);
    }
    progress.finish_and_clear();
    Ok(all)
}

/// The deviations (see [`othello_engine::train::deviations`]) of every record part, labelled
/// by a `search_depth`-ply search with `eval`, part by part (finished parts are kept).
fn deviation_samples(
    out: &Path,
    eval: &std::sync::Arc<PatternEval>,
    records: &[Vec<Sample>],
    config: &PatternConfig,
    quiet: bool,
) -> Result<Vec<Sample>> {
    let dir = out.join("samples");
    let parts = records.len();
    let progress = bar(quiet, parts as u64, "parts of deviations labelled");
    let mut all = Vec::new();
    for (p, part) in records.iter().enumerate() {
        let path = dir.join(format!("deviation-{p:04}.bin"));
        if !path.exists() {
            let children = othello_engine::train::deviations(
                part,
                config.deviations,
                config.exact_empties,
                config.seed,
                p as u64,
            );
            let labelled = relabel(eval, &children, config, &|| {});
            write_part(&path, &labelled)?;
        }
        all.extend(read_part(&path)?);
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(all)
}

/// The card written beside the weights.
#[derive(Serialize)]
struct Card<'a> {
    format: &'static str,
    algo: &'static str,
    game: &'static str,
    board_size: usize,
    pattern_set: u16,
    stage_width: u8,
    stages: usize,
    scale: u16,
    weights: &'static str,
    distinct_weights_per_stage: usize,
    samples: SampleCounts,
    held_out_mae: Vec<(u32, u32, f64)>,
    config: &'a PatternConfig,
    stonelab: &'static str,
}

#[derive(Serialize, Clone, Copy, Default)]
struct SampleCounts {
    train: usize,
    test: usize,
    exact: usize,
    search: usize,
    self_play: usize,
}

/// What a pattern run writes in its folder: all that `--force` may remove.
const PATTERN_RUN_FILES: &[&str] = &[
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
];

/// What `train probcut` writes in its folder.
const PROBCUT_RUN_FILES: &[&str] = &["pairs.csv", "probcut.txt"];

/// Checks that `out` can take a new run writing `files`: it is missing, an empty folder, or
/// (with `force`) a folder holding nothing but such files. Anything else is refused, so that
/// `--force` never deletes what a run did not write. `restart` says how to go on with an old run.
fn check_out(out: &Path, files: &[&str], force: bool, restart: &str) -> Result<()> {
    let meta = match fs::symlink_metadata(out) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", out.display())),
    };
    if !meta.is_dir() {
        bail!(
            "{} is not a folder: --out names the run's folder",
            out.display()
        );
    }
    let mut names = Vec::new();
    for entry in fs::read_dir(out).with_context(|| format!("reading {}", out.display()))? {
        let entry = entry.with_context(|| format!("reading {}", out.display()))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    if names.is_empty() {
        return Ok(());
    }
    if !force {
        bail!("{} exists: {restart} to start over", out.display());
    }
    names.sort();
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !files.contains(&n.as_str()))
        .collect();
    if let Some(first) = foreign.first() {
        bail!(
            "{} holds {} entr{} this run does not write (\"{first}\"{}): --force only replaces \
             an earlier run of the same command; choose another --out",
            out.display(),
            foreign.len(),
            if foreign.len() == 1 { "y" } else { "ies" },
            if foreign.len() > 1 { ", ..." } else { "" }
        );
    }
    Ok(())
}

/// Removes an earlier run's `files` from `out` (already checked by [`check_out`]) and makes the
/// folder. A link is removed, never followed.
fn replace_out(out: &Path, files: &[&str]) -> Result<()> {
    for name in files {
        let path = out.join(name);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(_) => continue,
        }
        .with_context(|| format!("removing {}", path.display()))?;
    }
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))
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

/// Runs (or resumes) a pattern training run.
pub fn train(args: &PatternArgs<'_>) -> Result<()> {
    let out = args.out;
    let config_path = out.join("config.json");
    if args.resume {
        let text = fs::read_to_string(&config_path)
            .with_context(|| format!("--resume: reading {}", config_path.display()))?;
        let saved: PatternConfig = serde_json::from_str(&text)
            .with_context(|| format!("--resume: {} is not a pattern run", config_path.display()))?;
        if saved != args.config {
            bail!(
                "--resume: {} was made with other settings ({}); resume with the same options",
                out.display(),
                differences(&saved, &args.config)
            );
        }
    } else {
        // Refuse a folder that is not this kind of run before anything is removed, and check
        // the records before the old run goes.
        check_out(
            out,
            PATTERN_RUN_FILES,
            args.force,
            "--resume to continue it or --force",
        )?;
        load_games(&args.config)?;
        replace_out(out, PATTERN_RUN_FILES)?;
        fs::write(&config_path, serde_json::to_string_pretty(&args.config)?)?;
    }
    let config = &args.config;
    let started = Instant::now();
    let parts = label(out, config, args.quiet)?;
    let mut samples = parts.concat();
    if samples.is_empty() {
        bail!(
            "no labelled positions in {}: none of its games replays (each has an illegal move)",
            config.wthor.display()
        );
    }
    let counts = |samples: &[Sample], self_play: usize| SampleCounts {
        train: samples.iter().filter(|s| !s.test).count(),
        test: samples.iter().filter(|s| s.test).count(),
        exact: samples.iter().filter(|s| s.exact).count(),
        search: samples.iter().filter(|s| s.search).count(),
        self_play,
    };
    let mut count = counts(&samples, 0);
    if !args.quiet {
        eprintln!(
            "{} positions: {} training, {} held out, {} solved exactly ({:.0} s)",
            samples.len(),
            count.train,
            count.test,
            count.exact,
            started.elapsed().as_secs_f64()
        );
    }

    let (mut weights, mut rows) = fit_all(out, "", &samples, config, args.quiet)?;
    let first = std::sync::Arc::new(PatternEval::new(&weights));
    if config.search_depth > 0 {
        samples = search_samples(out, &first, &parts, config, args.quiet)?;
        if !args.quiet {
            eprintln!(
                "{} record positions relabelled by {}-ply searches ({:.0} s)",
                samples.iter().filter(|s| s.search).count(),
                config.search_depth,
                started.elapsed().as_secs_f64()
            );
        }
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
        if !args.quiet {
            eprintln!(
                "{} record positions keep their game's theoretical score (exact from {} empties)",
                samples
                    .iter()
                    .filter(|s| s.exact && s.empties() == THEORETICAL_EMPTIES)
                    .count(),
                THEORETICAL_EMPTIES
            );
        }
    }
    if config.deviations > 0.0 && config.search_depth > 0 {
        let children = deviation_samples(out, &first, &parts, config, args.quiet)?;
        if !args.quiet {
            eprintln!(
                "{} deviations from the records labelled ({:.0} s)",
                children.len(),
                started.elapsed().as_secs_f64()
            );
        }
        samples.extend(children);
    }
    // The parts live on in `samples`; the later phases need only that.
    drop(parts);
    let mut self_play = 0;
    if config.self_play_games > 0 {
        let games = self_play_samples(out, &first, config, args.quiet)?;
        if !args.quiet {
            eprintln!(
                "{} self-play positions from {} games ({:.0} s)",
                games.len(),
                config.self_play_games,
                started.elapsed().as_secs_f64()
            );
        }
        self_play = games.len();
        samples.extend(games);
    }
    // Deviations come only with a relabelling search, so `search_depth > 0` covers them.
    if config.search_depth > 0 || config.self_play_games > 0 {
        count = counts(&samples, self_play);
        (weights, rows) = fit_all(out, "final-", &samples, config, args.quiet)?;
    }

    fs::write(out.join("patterns.bin"), weights.to_bytes())?;
    let card = Card {
        format: "stonelab-model/1",
        algo: "othello",
        game: "othello8",
        board_size: 8,
        pattern_set: config.layout().id(),
        stage_width: config.stage_width,
        stages: weights.stages(),
        scale: config.scale,
        weights: "patterns.bin",
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
        config,
        stonelab: env!("CARGO_PKG_VERSION"),
    };
    fs::write(
        out.join("patterns.json"),
        serde_json::to_string_pretty(&card)?,
    )?;
    let plots = out.join("plots");
    fs::create_dir_all(&plots)?;
    let series = |name: &str, f: fn(&StageRow) -> f64| Series {
        name: name.into(),
        points: rows
            .iter()
            .filter(|r| r.test > 0)
            .map(|r| (f64::from(r.min_empties), f(r)))
            .collect(),
    };
    line_chart(
        &plots.join("mae.png"),
        "mean absolute error per stage (discs)",
        "empty squares",
        "discs",
        &[
            series("training", |r| r.train_mae),
            series("held out", |r| r.test_mae),
        ],
        None,
    )?;
    if !args.quiet {
        let (n, sum) = rows.iter().fold((0usize, 0.0), |(n, s), r| {
            (n + r.test, s + r.test_mae * r.test as f64)
        });
        eprintln!(
            "patterns: {} ({:.2} discs mean held-out error over {n} positions, {:.0} s)",
            out.join("patterns.bin").display(),
            sum / n.max(1) as f64,
            started.elapsed().as_secs_f64()
        );
    }
    if config.correction > 0 {
        fit_correction(out, &weights, &samples, config, args.quiet)?;
        if !args.quiet {
            eprintln!(
                "correction network: {} ({:.0} s)",
                out.join("correction.bin").display(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}

/// The card of a correction network (`correction.json`).
#[derive(Serialize)]
struct CorrectionCard<'a> {
    format: &'static str,
    algo: &'static str,
    game: &'static str,
    board_size: usize,
    network: &'static str,
    weights: &'static str,
    hidden: usize,
    planes: usize,
    inputs: usize,
    /// `canonical` (the network reads each position's least image) or `as-played`.
    orientation: &'static str,
    /// FNV-1a of the pattern file it corrects (`patterns.bin`).
    patterns_fingerprint: String,
    epochs: u32,
    training_positions: usize,
    /// (first empties of the band, held-out positions, pattern error, with the network).
    held_out_mae: Vec<(u32, usize, f64, f64)>,
    config: &'a PatternConfig,
    stonelab: &'static str,
}

/// Phase 6: the correction network fitted to what `weights` leave over on the final labels,
/// an epoch at a time (each saved whole in `correction-state.bin`, so a resumed fit is the
/// same fit), with `correction-log.csv`, `plots/correction.png`, `correction.bin` and its card.
fn fit_correction(
    out: &Path,
    weights: &PatternWeights,
    samples: &[Sample],
    config: &PatternConfig,
    quiet: bool,
) -> Result<()> {
    use othello_engine::correction::{
        fit_epoch, held_out_errors, pattern_fingerprint, FitConfig, FitState, Row,
    };
    use rayon::prelude::*;
    let fingerprint = pattern_fingerprint(&weights.to_bytes());
    let eval = PatternEval::new(weights);
    let scale = f32::from(config.scale);
    let rows: Vec<Row> = samples
        .par_iter()
        .map(|s| {
            let f = othello_engine::pattern::Features::from_scratch(s.player, s.opponent);
            Row::of(s, eval.evaluate(&f, s.player, s.opponent) as f32 / scale)
        })
        .collect();
    let fit = FitConfig {
        planes: if config.correction_frontier {
            othello_engine::correction::FRONTIER_PLANES
        } else {
            othello_engine::correction::PLANES
        },
        hidden: config.correction,
        epochs: config.correction_epochs,
        seed: config.seed,
        canonical: !config.correction_as_played,
        ..FitConfig::default()
    };
    let state_path = out.join("correction-state.bin");
    let log_path = out.join("correction-log.csv");
    let mut state = match fs::read(&state_path) {
        Ok(bytes) => {
            let state = FitState::from_bytes(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", state_path.display()))?;
            if state.net.patterns != fingerprint
                || state.net.hidden != config.correction
                || state.net.planes != fit.planes
                || state.net.canonical != fit.canonical
            {
                bail!(
                    "{} belongs to another fit (other pattern weights, width or orientation); \
                     remove it to fit the correction network again",
                    state_path.display()
                );
            }
            state
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::write(
                &log_path,
                "epoch,train_rmse,held_out_mae_patterns,held_out_mae_corrected\n",
            )?;
            FitState::new(&fit, fingerprint)?
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", state_path.display())),
    };
    let training = rows.iter().filter(|r| !r.test).count();
    let progress = bar(
        quiet,
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
        let mut log = fs::OpenOptions::new().append(true).open(&log_path)?;
        writeln!(log, "{},{rmse:.4},{before:.4},{after:.4}", state.epochs)?;
        let tmp = out.join("correction-state.tmp");
        fs::write(&tmp, state.to_bytes())?;
        fs::rename(&tmp, &state_path)?;
        progress.set_position(u64::from(state.epochs));
    }
    progress.finish_and_clear();
    let bands = held_out_errors(&state.net, &rows);
    fs::write(out.join("correction.bin"), state.net.to_bytes())?;
    let card = CorrectionCard {
        format: "stonelab-model/1",
        algo: "othello-correction",
        game: "othello8",
        board_size: 8,
        network: "correction.bin",
        weights: "patterns.bin",
        hidden: state.net.hidden,
        planes: state.net.planes,
        inputs: othello_engine::correction::inputs(state.net.planes),
        orientation: if state.net.canonical {
            "canonical"
        } else {
            "as-played"
        },
        patterns_fingerprint: format!("{fingerprint:016x}"),
        epochs: state.epochs,
        training_positions: training,
        held_out_mae: bands
            .iter()
            .map(|&(e, n, a, b)| {
                (
                    e,
                    n,
                    (a * 1000.0).round() / 1000.0,
                    (b * 1000.0).round() / 1000.0,
                )
            })
            .collect(),
        config,
        stonelab: env!("CARGO_PKG_VERSION"),
    };
    fs::write(
        out.join("correction.json"),
        serde_json::to_string_pretty(&card)?,
    )?;
    let plots = out.join("plots");
    fs::create_dir_all(&plots)?;
    let band = |name: &str, f: fn(&(u32, usize, f64, f64)) -> f64| Series {
        name: name.into(),
        points: bands.iter().map(|b| (f64::from(b.0), f(b))).collect(),
    };
    line_chart(
        &plots.join("correction.png"),
        "held-out mean absolute error per band of 10 empties (discs)",
        "empty squares (band start)",
        "discs",
        &[
            band("patterns", |b| b.2),
            band("patterns + correction", |b| b.3),
        ],
        None,
    )?;
    if !quiet {
        for (e, n, a, b) in &bands {
            let range = if *e >= 60 {
                "60".to_string()
            } else {
                format!("{e}-{}", e + 9)
            };
            eprintln!(
                "  {range:>5} empties: {n:8} held out, patterns {a:.3}, with the correction {b:.3}"
            );
        }
    }
    Ok(())
}

/// What `stonelab train probcut` needs from the command line.
pub struct ProbCutArgs<'a> {
    pub out: &'a Path,
    pub wthor: &'a Path,
    pub weights: Option<&'a Path>,
    pub positions: usize,
    pub max_depth: u32,
    pub seed: u64,
    pub force: bool,
    pub quiet: bool,
}

/// Fits the Multi-ProbCut regressions: full-width searches to `max_depth` on record positions
/// of 8-54 discs (one per game, seeded), written to `OUT/probcut.txt` with `pairs.csv`.
pub fn probcut(args: &ProbCutArgs<'_>) -> Result<()> {
    let out = args.out;
    check_out(out, PROBCUT_RUN_FILES, args.force, "--force")?;
    let games = load_games(&PatternConfig {
        wthor: args.wthor.to_path_buf(),
        max_games: 0,
        exact_empties: 0,
        stage_width: 1,
        scale: 64,
        lambda: 0.0,
        lambda_globals: 0.0,
        iterations: 0,
        seed: args.seed,
        blend: 0,
        self_play_games: 0,
        self_play_depth: 0,
        search_depth: 0,
        self_play_exact: 0,
        search_probcut: 0.0,
        deviations: 0.0,
        theoretical_exact: false,
        self_play_search: false,
        edge_mobility: false,
        exact_fraction: 1.0,
        exact_rest: 0,
        correction: 0,
        correction_epochs: DEFAULT_CORRECTION_EPOCHS,
        correction_frontier: false,
        correction_as_played: false,
    })?;
    let eval = match args.weights {
        Some(path) => othello_engine::pattern::load(path)
            .with_context(|| format!("--from {}", path.display()))?,
        None => othello_engine::pattern::bundled(),
    };
    // The searches are the engine's: the bundled weights with the bundled correction network,
    // or `--from FILE` with the `correction.bin` beside it when it was fitted for that file.
    let correction = match args.weights {
        None => Some(othello_engine::correction::bundled()),
        Some(path) => {
            let beside = path.with_file_name("correction.bin");
            if beside.is_file() {
                let net = othello_engine::correction::load(&beside)
                    .with_context(|| format!("{}", beside.display()))?;
                let bytes = fs::read(path).with_context(|| format!("--from {}", path.display()))?;
                net.check_fits(&bytes)
                    .with_context(|| format!("{}", beside.display()))?;
                if !args.quiet {
                    eprintln!("with the correction network {}", beside.display());
                }
                Some(net)
            } else {
                None
            }
        }
    };
    // A seeded walk through the games: each picked game gives its position after a seeded
    // number of moves (4-50: 56 to 10 empties, so every 10-empties row from 10 to 59 is fitted).
    let mut rng = othello_engine::train::SplitMix(args.seed ^ 0x005e_ed0f_9c0d);
    let mut next = move || rng.next_u64();
    let mut positions = Vec::new();
    let mut tries = 0;
    while positions.len() < args.positions && tries < args.positions * 20 {
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
        bail!(
            "no position to search: no game of {} replays (each has an illegal move)",
            args.wthor.display()
        );
    }
    replace_out(out, PROBCUT_RUN_FILES)?;
    let started = Instant::now();
    let progress = bar(args.quiet, positions.len() as u64, "positions searched");
    let pairs = othello_engine::train::probcut_pairs(
        &eval,
        correction.as_ref(),
        &positions,
        args.max_depth,
        &|| {
            progress.inc(1);
        },
    );
    progress.finish_and_clear();
    let mut csv = String::from("depth,empties,shallow,deep\n");
    for p in &pairs {
        csv.push_str(&format!(
            "{},{},{},{}\n",
            p.depth, p.empties, p.shallow, p.deep
        ));
    }
    fs::write(out.join("pairs.csv"), csv)?;
    let table = othello_engine::train::fit_probcut(&pairs);
    if table.rows.is_empty() {
        bail!(
            "no regression could be fitted: the {} pairs from {} positions leave fewer than 30 \
             at every depth and stage (pairs.csv has them); search more --positions",
            pairs.len(),
            positions.len()
        );
    }
    fs::write(out.join("probcut.txt"), table.to_text())?;
    if !args.quiet {
        eprintln!(
            "probcut: {} pairs from {} positions, {} regressions, {:.0} s -> {}",
            pairs.len(),
            positions.len(),
            table.rows.len(),
            started.elapsed().as_secs_f64(),
            out.join("probcut.txt").display()
        );
    }
    Ok(())
}
