//! The WTHOR value dataset as a library call: every decision point of the records labelled
//! with its game's result, raw and merged over the symmetries, split by frequency and by game
//! (`othello::dataset`), written to a dataset folder with `summary.json` and `summary.md` beside
//! the paper's figures (`stonelab data wthor`, and the paper experiments' positions).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use files::{FileError, Folder};
use othello::dataset::{
    aggregate, decision_points, frequency_train_len, merge_symmetries, sort_by_frequency,
    write_dataset, DatasetError, DatasetReader, DatasetWriter, GameId, Occurrence, Part, Record,
    Split, Symmetries, DEFAULT_SEED,
};
use othello::wthor::{parse_games, GameFile};
use serde::{Deserialize, Serialize};

/// How many of the games that do not replay the summary names.
pub const MAX_SKIPPED_LISTED: usize = 10;

/// The largest WTHOR file read (the shipped years are about 1 MB each).
const MAX_WTHOR_BYTES: u64 = 64 << 20;

/// Why a dataset could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A file or folder could not be read or written, or the output folder was refused.
    #[error(transparent)]
    File(#[from] FileError),
    /// A dataset file could not be written or read back.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The records do not make a dataset (the message says why).
    #[error("{0}")]
    Records(String),
}

/// What [`build`] reports as it goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// The steps in all (files read, then eight dataset files written).
    Started {
        /// Steps.
        total: u64,
    },
    /// What it does now.
    Doing(&'a str),
    /// A step is done.
    Step,
    /// Something the user should see (games left out).
    Warning(&'a str),
}

/// What a dataset folder holds (the one output-folder policy: [`files::Folder`]).
pub const DATASET: Folder<'static> = Folder {
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

/// The published figures the summary sets beside ours.
/// About how many games the paper used.
pub const PAPER_GAMES: u64 = 150_000;
/// The paper's distinct states.
pub const PAPER_DISTINCT: u64 = 7_314_328;
/// The paper's training states.
pub const PAPER_TRAIN: u64 = 5_851_472;
/// The paper's test states.
pub const PAPER_TEST: u64 = 1_462_866;

/// What `summary.json` holds: the dataset built, beside the paper's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The WTHOR folder read.
    pub source: String,
    /// WTHOR files read.
    pub files_read: usize,
    /// Seed of the game split and of the frequency split's tie order.
    pub seed: u64,
    /// What the labels are.
    pub label: String,
    /// Games in the dataset.
    pub games: usize,
    /// Games left out because they do not replay (an illegal move or an impossible count).
    pub games_skipped: usize,
    /// The first [`MAX_SKIPPED_LISTED`] of them, as `file: game N: why`.
    pub skipped_games: Vec<String>,
    /// Games of the training part of the game split.
    pub games_train: usize,
    /// Games of its test part.
    pub games_test: usize,
    /// Games recorded as ending before neither side could move.
    pub unfinished_games: usize,
    /// Games whose recorded disc count differs from the replay's.
    pub recorded_count_differs: usize,
    /// Games whose recorded winner differs from the replay's.
    pub recorded_winner_differs: usize,
    /// Positions where the side to move had a choice.
    pub decision_points: usize,
    /// Forced-pass positions left out.
    pub forced_passes_skipped: usize,
    /// The positions as played.
    pub raw: Variant,
    /// The positions merged over the 8 symmetries.
    pub merged: Variant,
    /// The paper's published figures beside ours.
    pub paper: Paper,
    /// The files written, each read back.
    pub files: Vec<FileEntry>,
    /// Seconds the build took.
    pub seconds: f64,
    /// Peak resident memory (KiB), where /proc has it.
    pub peak_memory_kib: Option<u64>,
}

/// One variant of the dataset (raw or merged): its states and both splits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    /// Distinct states.
    pub distinct: usize,
    /// States seen once.
    pub singletons: usize,
    /// States of the frequency split's training part (the most frequent).
    pub frequency_train: usize,
    /// States of its test part.
    pub frequency_test: usize,
    /// The fewest occurrences of a training state in the frequency split.
    pub frequency_train_min_count: u32,
    /// Positions of the game split's training games.
    pub game_train_positions: usize,
    /// Positions of its test games.
    pub game_test_positions: usize,
    /// Distinct states of its training games.
    pub game_train_states: usize,
    /// Distinct states of its test games.
    pub game_test_states: usize,
    /// States in both parts.
    pub game_shared_states: usize,
    /// Where on the game the states of each split's halves lie (no default: a summary written
    /// before the field is refused rather than read as all zeros).
    pub regions: Regions,
}

/// Where on the game a set of states lies: a split whose halves differ here trains on one
/// region and tests on another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Region {
    /// States.
    pub states: usize,
    /// Mean discs on the board.
    pub mean_discs: f64,
    /// Share of the states with at least 50 discs.
    pub late_share: f64,
    /// Share of the states where Black owns a corner.
    pub black_corner_share: f64,
}

/// The corners of the 8x8 board.
const CORNERS: u64 = 1 | 1 << 7 | 1 << 56 | 1 << 63;

/// Sums for a [`Region`], state by state.
#[derive(Clone, Copy, Debug, Default)]
struct RegionSums {
    states: usize,
    discs: u64,
    late: usize,
    black_corner: usize,
}

impl RegionSums {
    fn add(&mut self, r: &Record) {
        let discs = (r.key.black | r.key.white).count_ones();
        self.states += 1;
        self.discs += u64::from(discs);
        self.late += usize::from(discs >= 50);
        self.black_corner += usize::from(r.key.black & CORNERS != 0);
    }

    fn of(records: &[Record]) -> Region {
        let mut sums = RegionSums::default();
        for r in records {
            sums.add(r);
        }
        sums.region()
    }

    fn region(self) -> Region {
        let share = |k: usize| k as f64 / self.states.max(1) as f64;
        Region {
            states: self.states,
            mean_discs: self.discs as f64 / self.states.max(1) as f64,
            late_share: share(self.late),
            black_corner_share: share(self.black_corner),
        }
    }
}

/// The [`Region`] of each half of both splits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Regions {
    /// The frequency split's training half.
    pub frequency_train: Region,
    /// Its test half.
    pub frequency_test: Region,
    /// The game split's training half.
    pub game_train: Region,
    /// Its test half.
    pub game_test: Region,
}

/// The paper's published figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Paper {
    /// Games (about).
    pub games_about: u64,
    /// Distinct states.
    pub distinct: u64,
    /// States of the frequency split's training part (the most frequent).
    pub frequency_train: u64,
    /// States of its test part.
    pub frequency_test: u64,
    /// How its sizes add up.
    pub note: String,
}

/// A file written, read back whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file name.
    pub name: String,
    /// Records in it.
    pub records: u64,
    /// Its length.
    pub bytes: u64,
    /// The checksum of its header.
    pub checksum: String,
}

const LABEL: &str = "z = 1 if the side to move won, 0 if it lost, 0.5 for a draw, from the \
     recorded result (black's disc count in the .wtb record, empties to the winner); value = \
     mean z = wins2 / (2 count); decision points only (finished and forced-pass positions \
     left out)";

const PAPER_NOTE: &str = "the paper's train and test sizes add up to 7,314,338, 10 more than \
     its distinct count; 7,314,328 - floor(0.8 x 7,314,328) = 1,462,866 is its test size";

/// VmHWM (peak resident memory) of this process in KiB, where /proc has it.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn refuse(why: String) -> DataError {
    DataError::Records(why)
}

/// The `WTH_*.wtb` files of `dir`, sorted by name.
///
/// # Errors
/// An unreadable folder, or one without such files.
pub fn wthor_files(dir: &Path) -> Result<Vec<PathBuf>, DataError> {
    othello_engine::train::pipeline::wthor_files(dir).map_err(|e| refuse(e.to_string()))
}

fn read_wthor(path: &Path) -> Result<GameFile, DataError> {
    let bytes = files::read_capped(path, MAX_WTHOR_BYTES)?;
    parse_games(&bytes).map_err(|e| refuse(format!("{}: {e}", path.display())))
}

/// Writes one variant's four files into `out` and returns its figures.
fn write_variant(
    occurrences: &mut [Occurrence],
    symmetries: Symmetries,
    seed: u64,
    out: &Path,
    progress: &mut dyn FnMut(Progress<'_>),
    written: &mut Vec<FileEntry>,
) -> Result<Variant, DataError> {
    let prefix = match symmetries {
        Symmetries::Raw => "raw",
        Symmetries::Merged => "merged",
    };
    let path = |split: &str| out.join(format!("{prefix}-{split}.bin"));
    progress(Progress::Doing(&format!("aggregating {prefix} states")));
    let train_path = path("game-train");
    let test_path = path("game-test");
    let mut train = DatasetWriter::create(&train_path, symmetries, Split::Game(Part::Train))?;
    let mut test = DatasetWriter::create(&test_path, symmetries, Split::Game(Part::Test))?;
    let (mut game_train, mut game_test) = (RegionSums::default(), RegionSums::default());
    let (mut states, split) = aggregate(occurrences, |part, record| match part {
        Part::Train => {
            game_train.add(record);
            train.push(record)
        }
        Part::Test => {
            game_test.add(record);
            test.push(record)
        }
    })?;
    for (writer, path) in [(train, &train_path), (test, &test_path)] {
        let (_, file) = writer.finish()?;
        file.sync_all().map_err(|source| FileError::Io {
            path: path.clone(),
            source,
        })?;
        written.push(verify(path)?);
        progress(Progress::Step);
    }
    progress(Progress::Doing(&format!(
        "sorting {prefix} states by frequency"
    )));
    sort_by_frequency(&mut states, seed);
    let cut = frequency_train_len(states.len());
    let (freq_train, freq_test) = states.split_at(cut);
    for (records, part, name) in [
        (freq_train, Part::Train, "frequency-train"),
        (freq_test, Part::Test, "frequency-test"),
    ] {
        let path = path(name);
        progress(Progress::Doing(&format!("writing {}", path.display())));
        write_dataset(&path, symmetries, Split::Frequency(part), records)?;
        written.push(verify(&path)?);
        progress(Progress::Step);
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
        regions: Regions {
            frequency_train: RegionSums::of(freq_train),
            frequency_test: RegionSums::of(freq_test),
            game_train: game_train.region(),
            game_test: game_test.region(),
        },
    })
}

/// Reads a written file back through the streaming reader (every record and the checksum).
fn verify(path: &Path) -> Result<FileEntry, DataError> {
    let mut reader = DatasetReader::open(path)?;
    let header = *reader.header();
    let mut chunk = Vec::new();
    let mut records = 0u64;
    while reader.next_chunk(&mut chunk)? {
        records += chunk.len() as u64;
    }
    let bytes = std::fs::metadata(path)
        .map_err(|source| FileError::Io {
            path: path.to_path_buf(),
            source,
        })?
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

/// Builds the dataset of the WTHOR files in `wthor` into the folder `out` ([`DATASET`]; an
/// earlier dataset there is replaced only with `force`, once every file has been read and
/// replayed), the game split and the frequency split's tie order seeded by `seed`; writes `summary.json` and `summary.md` and
/// returns the summary. Games that do not replay are left out, counted and named (the first
/// [`MAX_SKIPPED_LISTED`]).
///
/// # Errors
/// A refused folder, unreadable or malformed records, records without a game that replays, or
/// a failed write.
pub fn build(
    wthor: &Path,
    out: &Path,
    force: bool,
    seed: u64,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, DataError> {
    let started = Instant::now();
    let paths = wthor_files(wthor)?;
    DATASET.prepare(out, force)?;
    progress(Progress::Started {
        total: paths.len() as u64 + 8,
    });

    // Read every file first, to size the positions' vector exactly.
    let mut files: Vec<(PathBuf, GameFile)> = Vec::with_capacity(paths.len());
    for path in &paths {
        progress(Progress::Doing(&format!("reading {}", path.display())));
        files.push((path.clone(), read_wthor(path)?));
        progress(Progress::Step);
    }
    if files.iter().all(|(_, f)| f.games.is_empty()) {
        return Err(refuse(format!(
            "{}: the WTHOR files hold no games, so there is nothing to build a dataset from",
            wthor.display()
        )));
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
    progress(Progress::Doing("replaying the games"));
    for (path, file) in &files {
        for (index, game) in file.games.iter().enumerate() {
            let id = GameId {
                year: file.header.year,
                index: u32::try_from(index)
                    .map_err(|_| refuse("more than 2^32 games in a file".into()))?,
            };
            let part = id.part(seed);
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
        return Err(refuse(format!(
            "{}: none of the {skipped} games replays (the first: {}), so there is nothing to \
             build a dataset from",
            wthor.display(),
            first_skipped
        )));
    }
    if skipped > 0 {
        progress(Progress::Warning(&format!(
            "warning: {skipped} game{} that do{} not replay left out (listed in summary.json); \
             the first: {}",
            if skipped == 1 { "" } else { "s" },
            if skipped == 1 { "es" } else { "" },
            first_skipped
        )));
    }
    // Every file read and replayed: only now is the folder made.
    DATASET.replace(out, force)?;
    let decision = occurrences.len();

    let mut written = Vec::new();
    let raw = write_variant(
        &mut occurrences,
        Symmetries::Raw,
        seed,
        out,
        progress,
        &mut written,
    )?;
    progress(Progress::Doing("merging symmetric positions"));
    merge_symmetries(&mut occurrences);
    let merged = write_variant(
        &mut occurrences,
        Symmetries::Merged,
        seed,
        out,
        progress,
        &mut written,
    )?;
    drop(occurrences);

    let summary = Summary {
        source: wthor.display().to_string(),
        files_read: paths.len(),
        seed,
        label: LABEL.into(),
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
            note: PAPER_NOTE.into(),
        },
        files: written,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_kib: peak_memory_kib(),
    };
    let json = serde_json::to_string_pretty(&summary)
        .map_err(|e| refuse(format!("encoding the summary: {e}")))?;
    files::write(&out.join("summary.json"), json + "\n")?;
    files::write(&out.join("summary.md"), markdown(&summary))?;
    Ok(summary)
}

/// `n` with thousands separators.
#[must_use]
pub fn thousands(n: u64) -> String {
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

/// The summary as markdown (`summary.md`).
#[must_use]
pub fn markdown(s: &Summary) -> String {
    let n = |x: usize| thousands(x as u64);
    let mut md = String::new();
    let _ = writeln!(md, "# WTHOR value dataset\n");
    let _ = writeln!(
        md,
        "{} games from {} files in `{}` (seed {} of the game split and the frequency split's ties: {} train, {} test games). \
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
    let _ = writeln!(
        md,
        "Where the states of each half lie (the frequency split's ties of equal count are \
         broken in a seeded random order, seed {}; halves alike here train and test on the same \
         part of the game):\n",
        s.seed
    );
    let _ = writeln!(
        md,
        "| dataset | half | states | mean discs | ≥ 50 discs | Black owns a corner |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|");
    for (name, v) in [("raw", &s.raw), ("merged", &s.merged)] {
        for (half, r) in [
            ("frequency train", v.regions.frequency_train),
            ("frequency test", v.regions.frequency_test),
            ("game train", v.regions.game_train),
            ("game test", v.regions.game_test),
        ] {
            let _ = writeln!(
                md,
                "| {name} | {half} | {} | {:.1} | {:.1}% | {:.1}% |",
                n(r.states),
                r.mean_discs,
                100.0 * r.late_share,
                100.0 * r.black_corner_share
            );
        }
    }
    let _ = writeln!(md);
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
pub fn merged_states(wthor: &Path) -> Result<Vec<Record>, DataError> {
    let mut occurrences = Vec::new();
    for path in wthor_files(wthor)? {
        let file = read_wthor(&path)?;
        for (index, game) in file.games.iter().enumerate() {
            let id = GameId {
                year: file.header.year,
                index: u32::try_from(index)
                    .map_err(|_| refuse("more than 2^32 games in a file".into()))?,
            };
            decision_points(game, id.part(DEFAULT_SEED), &mut occurrences)
                .map_err(|e| refuse(format!("{}: game {index}: {e}", path.display())))?;
        }
    }
    merge_symmetries(&mut occurrences);
    let Ok((states, _)) = aggregate(&mut occurrences, |_, _| {
        Ok::<(), std::convert::Infallible>(())
    });
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
