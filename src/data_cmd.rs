//! `stonelab data wthor`: the WTHOR games as labelled value-learning positions, raw and merged
//! over the symmetries, split by frequency and by game (`othello::dataset`), with a summary.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::ProgressBar;
use othello::dataset::{
    aggregate, decision_points, frequency_train_len, merge_symmetries, sort_by_frequency,
    write_dataset, DatasetReader, DatasetWriter, GameId, Occurrence, Part, Split, Symmetries,
    DEFAULT_SEED,
};
use othello::wthor::{parse_games, GameFile};
use serde::Serialize;

/// Arguments of `stonelab data`.
#[derive(Args, Debug)]
pub struct DataArgs {
    #[command(subcommand)]
    source: DataSource,
}

/// How many of the games that do not replay the summary names.
const MAX_SKIPPED_LISTED: usize = 10;

#[derive(Subcommand, Debug)]
enum DataSource {
    /// Every WTHOR decision point labelled with the game's result for the side to move (value
    /// targets), raw and merged over the 8 symmetries, split 80/20 by frequency and by game.
    Wthor(WthorArgs),
}

/// Arguments of `stonelab data wthor`.
#[derive(Args, Debug)]
pub struct WthorArgs {
    /// Folder of the `WTH_*.wtb` files.
    #[arg(long, default_value = "data/othello/wthor")]
    wthor: PathBuf,
    /// Output folder (created; an existing non-empty one needs --force).
    #[arg(long)]
    out: PathBuf,
    /// Write into an existing non-empty --out (files of the same names are replaced, others
    /// are left alone).
    #[arg(long)]
    force: bool,
    /// No progress bar and no summary on the terminal.
    #[arg(long)]
    quiet: bool,
    /// Seed of the game split's hash.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
}

pub fn run(args: &DataArgs) -> Result<()> {
    match &args.source {
        DataSource::Wthor(args) => wthor(args),
    }
}

/// The published figures the summary sets beside ours.
const PAPER_GAMES: u64 = 150_000;
const PAPER_DISTINCT: u64 = 7_314_328;
const PAPER_TRAIN: u64 = 5_851_472;
const PAPER_TEST: u64 = 1_462_866;

#[derive(Serialize)]
struct Summary {
    source: String,
    files_read: usize,
    seed: u64,
    label: &'static str,
    games: usize,
    /// Games left out because they do not replay (an illegal move or an impossible count).
    games_skipped: usize,
    /// The first [`MAX_SKIPPED_LISTED`] of them, as `file: game N: why`.
    skipped_games: Vec<String>,
    games_train: usize,
    games_test: usize,
    unfinished_games: usize,
    recorded_count_differs: usize,
    recorded_winner_differs: usize,
    decision_points: usize,
    forced_passes_skipped: usize,
    raw: Variant,
    merged: Variant,
    paper: Paper,
    files: Vec<FileEntry>,
    seconds: f64,
    peak_memory_kib: Option<u64>,
}

#[derive(Serialize)]
struct Variant {
    distinct: usize,
    singletons: usize,
    frequency_train: usize,
    frequency_test: usize,
    frequency_train_min_count: u32,
    game_train_positions: usize,
    game_test_positions: usize,
    game_train_states: usize,
    game_test_states: usize,
    game_shared_states: usize,
}

#[derive(Serialize)]
struct Paper {
    games_about: u64,
    distinct: u64,
    frequency_train: u64,
    frequency_test: u64,
    note: &'static str,
}

#[derive(Serialize)]
struct FileEntry {
    name: String,
    records: u64,
    bytes: u64,
    checksum: String,
}

const LABEL: &str = "z = 1 if the side to move won, 0 if it lost, 0.5 for a draw, from the \
     recorded result (black's disc count in the .wtb record, empties to the winner); value = \
     mean z = wins2 / (2 count); decision points only (finished and forced-pass positions \
     left out)";

const PAPER_NOTE: &str = "the paper's train and test sizes add up to 7,314,338, 10 more than \
     its distinct count; 7,314,328 - floor(0.8 x 7,314,328) = 1,462,866 is its test size";

fn progress_bar(quiet: bool, total: usize) -> ProgressBar {
    crate::progress::bar(quiet, total as u64, "files")
}

/// What a dataset folder holds (the one output-folder policy: [`files::Folder`]).
const DATASET: files::Folder<'static> = files::Folder {
    what: "a dataset",
    entries: &[
        "raw-game-train.bin",
        "raw-game-test.bin",
        "raw-frequency-train.bin",
        "raw-frequency-test.bin",
        "merged-game-train.bin",
        "merged-game-test.bin",
        "merged-frequency-train.bin",
        "merged-frequency-test.bin",
        "summary.json",
        "summary.md",
    ],
    below: None,
    marker: Some("summary.json"),
    hint: "add --force to replace it",
};

/// The `WTH_*.wtb` files of `dir`, sorted by name.
pub fn wthor_files(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(othello_engine::train::pipeline::wthor_files(dir)?)
}

/// VmHWM (peak resident memory) of this process in KiB, where /proc has it.
fn peak_memory_kib() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Writes one variant's four files and returns its sizes.
fn write_variant(
    occurrences: &mut [Occurrence],
    symmetries: Symmetries,
    out: &Path,
    bar: &ProgressBar,
    files: &mut Vec<FileEntry>,
) -> Result<Variant> {
    let prefix = match symmetries {
        Symmetries::Raw => "raw",
        Symmetries::Merged => "merged",
    };
    let path = |split: &str| out.join(format!("{prefix}-{split}.bin"));
    bar.set_message(format!("aggregating {prefix} states"));
    let train_path = path("game-train");
    let test_path = path("game-test");
    let mut train = DatasetWriter::create(&train_path, symmetries, Split::Game(Part::Train))?;
    let mut test = DatasetWriter::create(&test_path, symmetries, Split::Game(Part::Test))?;
    let (mut states, split) = aggregate(occurrences, |part, record| match part {
        Part::Train => train.push(record),
        Part::Test => test.push(record),
    })?;
    for (writer, path) in [(train, &train_path), (test, &test_path)] {
        let (_, file) = writer.finish()?;
        file.sync_all()
            .with_context(|| format!("writing {}", path.display()))?;
        files.push(verify(path)?);
        bar.inc(1);
    }
    bar.set_message(format!("sorting {prefix} states by frequency"));
    sort_by_frequency(&mut states);
    let cut = frequency_train_len(states.len());
    let (freq_train, freq_test) = states.split_at(cut);
    for (records, part, name) in [
        (freq_train, Part::Train, "frequency-train"),
        (freq_test, Part::Test, "frequency-test"),
    ] {
        let path = path(name);
        bar.set_message(format!("writing {}", path.display()));
        write_dataset(&path, symmetries, Split::Frequency(part), records)?;
        files.push(verify(&path)?);
        bar.inc(1);
    }
    Ok(Variant {
        distinct: states.len(),
        singletons: states.iter().filter(|r| r.count == 1).count(),
        frequency_train: freq_train.len(),
        frequency_test: freq_test.len(),
        frequency_train_min_count: freq_train.last().map_or(0, |r| r.count),
        game_train_positions: split.train_positions,
        game_test_positions: split.test_positions,
        game_train_states: split.train_states,
        game_test_states: split.test_states,
        game_shared_states: split.shared,
    })
}

/// Reads a written file back through the streaming reader (every record and the checksum).
fn verify(path: &Path) -> Result<FileEntry> {
    let mut reader = DatasetReader::open(path)?;
    let header = *reader.header();
    let mut chunk = Vec::new();
    let mut records = 0u64;
    while reader.next_chunk(&mut chunk)? {
        records += chunk.len() as u64;
    }
    let bytes = fs::metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .len();
    Ok(FileEntry {
        name: path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        records,
        bytes,
        checksum: format!("{:016x}", header.checksum),
    })
}

fn wthor(args: &WthorArgs) -> Result<()> {
    let started = Instant::now();
    let paths = wthor_files(&args.wthor)?;
    DATASET.prepare(&args.out, args.force)?;
    let bar = progress_bar(args.quiet, paths.len() + 8);

    // Read every file first, to size the positions' vector exactly.
    let mut files: Vec<(PathBuf, GameFile)> = Vec::with_capacity(paths.len());
    for path in &paths {
        bar.set_message(format!("reading {}", path.display()));
        let bytes = crate::input::read(path)?;
        let file = parse_games(&bytes).with_context(|| format!("{}", path.display()))?;
        files.push((path.clone(), file));
        bar.inc(1);
    }
    if files.iter().all(|(_, f)| f.games.is_empty()) {
        bail!(
            "{}: the WTHOR files hold no games, so there is nothing to build a dataset from",
            args.wthor.display()
        );
    }
    let capacity: usize = files
        .iter()
        .flat_map(|(_, f)| f.games.iter().map(|g| g.moves.len() + 1))
        .sum();
    let mut occurrences = Vec::with_capacity(capacity);
    let (mut games, mut games_train, mut unfinished, mut count_differs, mut winner_differs) =
        (0, 0, 0, 0, 0);
    let mut passes = 0;
    let (mut skipped, mut skipped_examples) = (0usize, Vec::new());
    bar.set_message("replaying the games");
    for (path, file) in &files {
        for (index, game) in file.games.iter().enumerate() {
            let id = GameId {
                year: file.header.year,
                index: u32::try_from(index).context("more than 2^32 games in a file")?,
            };
            let part = id.part(args.seed);
            // A game that does not replay is left out (nothing of it is kept) and reported, as
            // `train patterns` does; the others still make the dataset.
            let summary = match decision_points(game, part, &mut occurrences) {
                Ok(summary) => summary,
                Err(e) => {
                    if skipped_examples.len() < MAX_SKIPPED_LISTED {
                        skipped_examples.push(format!("{}: game {index}: {e}", path.display()));
                    }
                    skipped += 1;
                    continue;
                }
            };
            games += 1;
            games_train += usize::from(part == Part::Train);
            unfinished += usize::from(!summary.finished);
            count_differs += usize::from(summary.recorded_black != summary.replayed_black);
            winner_differs += usize::from(summary.result_differs());
            passes += summary.passes;
        }
    }
    drop(files);
    let first_skipped = skipped_examples.first().map_or("", String::as_str);
    if games == 0 {
        bail!(
            "{}: none of the {skipped} games replays (the first: {}), so there is nothing to \
             build a dataset from",
            args.wthor.display(),
            first_skipped
        );
    }
    if skipped > 0 && !args.quiet {
        bar.suspend(|| {
            eprintln!(
                "warning: {skipped} game{} that do{} not replay left out (listed in summary.json); \
                 the first: {}",
                if skipped == 1 { "" } else { "s" },
                if skipped == 1 { "es" } else { "" },
                first_skipped
            );
        });
    }
    // Every file read and replayed: only now is the folder made.
    DATASET.replace(&args.out, args.force)?;
    let decision = occurrences.len();

    let mut written = Vec::new();
    let raw = write_variant(
        &mut occurrences,
        Symmetries::Raw,
        &args.out,
        &bar,
        &mut written,
    )?;
    bar.set_message("merging symmetric positions");
    merge_symmetries(&mut occurrences);
    let merged = write_variant(
        &mut occurrences,
        Symmetries::Merged,
        &args.out,
        &bar,
        &mut written,
    )?;
    drop(occurrences);
    bar.finish_and_clear();

    let summary = Summary {
        source: args.wthor.display().to_string(),
        files_read: paths.len(),
        seed: args.seed,
        label: LABEL,
        games,
        games_skipped: skipped,
        skipped_games: skipped_examples,
        games_train,
        games_test: games - games_train,
        unfinished_games: unfinished,
        recorded_count_differs: count_differs,
        recorded_winner_differs: winner_differs,
        decision_points: decision,
        forced_passes_skipped: passes,
        raw,
        merged,
        paper: Paper {
            games_about: PAPER_GAMES,
            distinct: PAPER_DISTINCT,
            frequency_train: PAPER_TRAIN,
            frequency_test: PAPER_TEST,
            note: PAPER_NOTE,
        },
        files: written,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_kib: peak_memory_kib(),
    };
    let json_path = args.out.join("summary.json");
    let json = serde_json::to_string_pretty(&summary).context("encoding the summary")?;
    fs::write(&json_path, json + "\n")
        .with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = args.out.join("summary.md");
    let md = markdown(&summary);
    fs::write(&md_path, &md).with_context(|| format!("writing {}", md_path.display()))?;
    if !args.quiet {
        out!("{md}");
        outln!("\nwritten to {}", args.out.display());
    }
    Ok(())
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn markdown(s: &Summary) -> String {
    let n = |x: usize| thousands(x as u64);
    let mut md = String::new();
    let _ = writeln!(md, "# WTHOR value dataset\n");
    let _ = writeln!(
        md,
        "{} games from {} files in `{}` (game split seed {}: {} train, {} test games). \
         Labels: {}.\n",
        n(s.games),
        s.files_read,
        s.source,
        s.seed,
        n(s.games_train),
        n(s.games_test),
        s.label
    );
    let _ = writeln!(
        md,
        "{} decision points ({} forced-pass positions left out). {} games end unfinished; the \
         recorded count differs from the replayed one in {} games, the winner in {}.\n",
        n(s.decision_points),
        n(s.forced_passes_skipped),
        n(s.unfinished_games),
        n(s.recorded_count_differs),
        n(s.recorded_winner_differs)
    );
    if s.games_skipped > 0 {
        let _ = writeln!(
            md,
            "{} games left out because they do not replay (the first: {}).\n",
            n(s.games_skipped),
            s.skipped_games.first().map_or("", String::as_str)
        );
    }
    let _ = writeln!(md, "| | raw | merged (8 symmetries) | paper |");
    let _ = writeln!(md, "|---|---:|---:|---:|");
    let rows: [(&str, usize, usize, String); 10] = [
        (
            "games",
            s.games,
            s.games,
            format!("about {}", thousands(PAPER_GAMES)),
        ),
        (
            "decision points",
            s.decision_points,
            s.decision_points,
            "—".into(),
        ),
        (
            "distinct states",
            s.raw.distinct,
            s.merged.distinct,
            thousands(PAPER_DISTINCT),
        ),
        (
            "frequency split: train (most frequent 80%)",
            s.raw.frequency_train,
            s.merged.frequency_train,
            thousands(PAPER_TRAIN),
        ),
        (
            "frequency split: test",
            s.raw.frequency_test,
            s.merged.frequency_test,
            thousands(PAPER_TEST),
        ),
        (
            "game split: train decision points",
            s.raw.game_train_positions,
            s.merged.game_train_positions,
            "—".into(),
        ),
        (
            "game split: test decision points",
            s.raw.game_test_positions,
            s.merged.game_test_positions,
            "—".into(),
        ),
        (
            "game split: train states",
            s.raw.game_train_states,
            s.merged.game_train_states,
            "—".into(),
        ),
        (
            "game split: test states",
            s.raw.game_test_states,
            s.merged.game_test_states,
            "—".into(),
        ),
        (
            "game split: states in both halves",
            s.raw.game_shared_states,
            s.merged.game_shared_states,
            "—".into(),
        ),
    ];
    for (label, raw, merged, paper) in &rows {
        let _ = writeln!(md, "| {label} | {} | {} | {paper} |", n(*raw), n(*merged));
    }
    let _ = writeln!(
        md,
        "\nStates seen once: {} raw, {} merged; the least frequent state of the frequency \
         split's train half was seen {} time(s) (raw; merged: {}). Note: {}.\n",
        n(s.raw.singletons),
        n(s.merged.singletons),
        s.raw.frequency_train_min_count,
        s.merged.frequency_train_min_count,
        PAPER_NOTE
    );
    let _ = writeln!(md, "| file | records | bytes | checksum (FNV-1a 64) |");
    let _ = writeln!(md, "|---|---:|---:|---|");
    for f in &s.files {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | `{}` |",
            f.name,
            thousands(f.records),
            thousands(f.bytes),
            f.checksum
        );
    }
    let memory = s
        .peak_memory_kib
        .map_or_else(|| "unknown".into(), |k| format!("{} MiB", k / 1024));
    let _ = writeln!(
        md,
        "\nBuilt in {:.1} s; peak memory {memory}. Format: `othello::dataset` (32-byte header, \
         25-byte records: black u64, white u64, side u8, count u32, wins2 u32).",
        s.seconds
    );
    md
}

/// Every decision point of the WTHOR games in `wthor` merged over the 8 symmetries and
/// aggregated per state (what `merged-*.bin` hold, unsplit), in memory: the paper experiments'
/// source of evaluation positions when no dataset folder is given.
///
/// # Errors
/// Unreadable or malformed WTHOR files.
pub fn merged_states(wthor: &Path) -> Result<Vec<othello::dataset::Record>> {
    let mut occurrences = Vec::new();
    for path in wthor_files(wthor)? {
        let bytes = crate::input::read(&path)?;
        let file = parse_games(&bytes).with_context(|| format!("{}", path.display()))?;
        for (index, game) in file.games.iter().enumerate() {
            let id = GameId {
                year: file.header.year,
                index: u32::try_from(index).context("more than 2^32 games in a file")?,
            };
            decision_points(game, id.part(DEFAULT_SEED), &mut occurrences)
                .with_context(|| format!("{}: game {index}", path.display()))?;
        }
    }
    merge_symmetries(&mut occurrences);
    let (states, _) = aggregate(&mut occurrences, |_, _| {
        Ok::<(), std::convert::Infallible>(())
    })?;
    Ok(states)
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(7_314_328), "7,314,328");
    }
}
