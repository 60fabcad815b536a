//! The run folder: `config.json`, `log.csv` and `eval.csv` (cut back when a resumed run's
//! training starts), atomic checkpoint folders `checkpoints/ep-NNNNNNNN/` with rotation and a
//! manifest of checksums, and the exported models.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::RunError;
use crate::checkpoint::{sha256_hex, write_atomic, write_model, Card};

/// The settings file.
pub const CONFIG: &str = "config.json";
/// One row per training episode.
pub const LOG: &str = "log.csv";
/// One row per evaluation and opponent.
pub const EVAL: &str = "eval.csv";
/// The checkpoint folders and the exported models.
pub const CHECKPOINTS: &str = "checkpoints";
/// Charts drawn by the application.
pub const PLOTS: &str = "plots";
/// The file that marks a checkpoint folder complete, written last: the episode, the algorithm,
/// the manifest (every other file of the folder with its size and sha256) and the sha256 of
/// the record itself.
pub const STATE: &str = "state.json";
/// The format of [`STATE`] written by this version.
pub const STATE_FORMAT: &str = "stonelab-checkpoint/1";
/// How many checkpoint folders are kept (at least two, so that a damaged newest one leaves an
/// older one to resume from).
pub const KEEP_CHECKPOINTS: usize = 2;
/// The prefix a damaged checkpoint folder is renamed with when a resume passes over it
/// (`checkpoints/damaged-ep-NNNNNNNN`): kept for inspection, no longer a checkpoint.
pub const DAMAGED: &str = "damaged-";

/// The settings a resumed run may hold other than its checkpoint's: the total of episodes, and
/// where its dataset and starting model are (files that may move).
const RESUME_MAY_CHANGE: &[&str] = &[
    "episodes",
    "value.data",
    "value_self_play.data",
    "value_self_play.from",
];

/// A checkpoint's count of the evaluation rows written before it.
pub const EVAL_ROWS: &str = "eval-rows.json";

/// A complete checkpoint folder whose files check out against its manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// Episodes played when it was written.
    pub episode: usize,
    /// The folder.
    pub path: PathBuf,
    /// Whether its files were checked against a manifest: `false` for a checkpoint written
    /// before checksums (its `state.json` holds only the episode and the algorithm), which is
    /// loaded as it is.
    pub verified: bool,
}

/// One file of a checkpoint's manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSum {
    bytes: u64,
    sha256: String,
}

/// [`STATE`] as written by this version.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateRecord {
    format: String,
    episode: u64,
    algo: String,
    files: BTreeMap<String, FileSum>,
    /// sha256 of [`StateBody`]'s compact JSON: the record without this field.
    sha256: String,
}

/// What the record's own sha256 covers (every field but the sha256, in this order).
#[derive(Serialize)]
struct StateBody<'a> {
    format: &'a str,
    episode: u64,
    algo: &'a str,
    files: &'a BTreeMap<String, FileSum>,
}

impl StateBody<'_> {
    fn sha256(&self) -> String {
        sha256_hex(&serde_json::to_vec(self).unwrap_or_default())
    }
}

/// Every file under `dir` (recursively) but [`STATE`] at its top, as `/`-separated paths
/// relative to `dir`, with its size and sha256.
fn manifest(dir: &Path) -> Result<BTreeMap<String, FileSum>, RunError> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, FileSum>) -> Result<(), RunError> {
        for entry in fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            if path.is_dir() {
                walk(&path, &format!("{rel}/"), out)?;
            } else if rel != STATE {
                let bytes = read_regular(&path, u64::MAX).map_err(io(&path))?;
                out.insert(
                    rel,
                    FileSum {
                        bytes: bytes.len() as u64,
                        sha256: sha256_hex(&bytes),
                    },
                );
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out)?;
    Ok(out)
}

/// A model a trainer exports at each checkpoint: `checkpoints/<file>` with its card.
pub struct Export {
    /// File name, e.g. `last.safetensors`.
    pub file: String,
    /// The safetensors bytes.
    pub weights: Vec<u8>,
    /// The card (sha256, size and file name are filled in when written).
    pub card: Card,
}

/// The most bytes of `config.json` or a checkpoint's `state.json` a run reads.
const MAX_SMALL_FILE: u64 = 16 << 20;
/// The most bytes of `log.csv` or `eval.csv` a resume reads (about 20 million rows).
const MAX_LOG_FILE: u64 = 1 << 30;

/// `path`'s bytes when it is a regular file of at most `limit` bytes: a FIFO or device put in
/// a run folder (by hand or by a link) is refused before it is opened, as is a file too large
/// to be one the run wrote.
fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} bytes, over the {limit}-byte limit", meta.len()),
        ));
    }
    fs::read(path)
}

/// One run's folder.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
    keep: usize,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl RunDir {
    /// Makes `root` ready for a new run: a folder that is missing or empty. A folder that is not
    /// empty is refused unless `overwrite`, and then only when it holds nothing but what a run
    /// writes ([`RunDir::foreign_entry`]): its config, logs, checkpoints and plots are removed.
    ///
    /// # Errors
    /// [`RunError::Exists`] (a run) or [`RunError::NotEmpty`] (other files) without `overwrite`,
    /// [`RunError::Foreign`] naming an entry no run writes, or [`RunError::Io`].
    pub fn create(root: &Path, overwrite: bool) -> Result<Self, RunError> {
        use files::FileError;
        let dir = RunDir {
            root: root.to_path_buf(),
            keep: KEEP_CHECKPOINTS,
        };
        let below = |_: &Path| {
            dir.foreign_entry().map_err(|e| FileError::Io {
                path: root.to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            })
        };
        // The one output-folder policy, with the run's finer check below its entries.
        let folder = files::Folder {
            what: "a run",
            entries: &[CONFIG, LOG, EVAL, CHECKPOINTS, PLOTS],
            below: Some(&below),
            marker: Some(CONFIG),
            hint: "add --resume to continue it or --force to start over",
        };
        match folder.replace(root, overwrite) {
            Ok(()) => Ok(dir),
            Err(FileError::Exists { ours: true, .. }) => Err(RunError::Exists(root.to_path_buf())),
            Err(FileError::Exists { .. }) => Err(RunError::NotEmpty(root.to_path_buf())),
            Err(FileError::Foreign { first, .. }) => Err(RunError::Foreign {
                path: root.to_path_buf(),
                entry: first,
            }),
            Err(FileError::Io { path, source }) => Err(RunError::Io { path, source }),
            Err(e) => Err(RunError::Io {
                path: root.to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            }),
        }
    }

    /// The first entry of the folder (relative path) that no run writes, if any: a run writes
    /// `config.json`, `log.csv`, `eval.csv`, `checkpoints/` (checkpoint folders `ep-*` and
    /// `damaged-ep-*`, exported `*last.safetensors` with their `*last.json` cards) and `plots/`
    /// (`*.png`), and leaves at most hidden `.*.tmp` files of an interrupted write.
    ///
    /// # Errors
    /// [`RunError::Io`] when a folder cannot be listed.
    pub fn foreign_entry(&self) -> Result<Option<String>, RunError> {
        fn names(dir: &Path) -> Result<Vec<(String, bool)>, RunError> {
            let mut out = Vec::new();
            for entry in fs::read_dir(dir).map_err(io(dir))? {
                let entry = entry.map_err(io(dir))?;
                let is_dir = entry.file_type().map_err(io(dir))?.is_dir();
                out.push((entry.file_name().to_string_lossy().into_owned(), is_dir));
            }
            out.sort();
            Ok(out)
        }
        let temporary = |name: &str| name.starts_with('.') && name.ends_with(".tmp");
        for (name, is_dir) in names(&self.root)? {
            let ours = match name.as_str() {
                CONFIG | LOG | EVAL => !is_dir,
                CHECKPOINTS | PLOTS => is_dir,
                other => temporary(other),
            };
            if !ours {
                return Ok(Some(name));
            }
        }
        let checkpoints = self.file(CHECKPOINTS);
        if checkpoints.is_dir() {
            for (name, is_dir) in names(&checkpoints)? {
                let ours = if is_dir {
                    name.starts_with("ep-") || name.starts_with(DAMAGED)
                } else {
                    name.ends_with("last.safetensors")
                        || name.ends_with("last.json")
                        || temporary(&name)
                };
                if !ours {
                    return Ok(Some(format!("{CHECKPOINTS}/{name}")));
                }
            }
        }
        let plots = self.file(PLOTS);
        if plots.is_dir() {
            for (name, is_dir) in names(&plots)? {
                if is_dir || !(name.ends_with(".png") || temporary(&name)) {
                    return Ok(Some(format!("{PLOTS}/{name}")));
                }
            }
        }
        Ok(None)
    }

    /// An existing run.
    ///
    /// # Errors
    /// [`RunError::NoRun`] when `root` holds no `config.json`.
    pub fn open(root: &Path) -> Result<Self, RunError> {
        let dir = RunDir {
            root: root.to_path_buf(),
            keep: KEEP_CHECKPOINTS,
        };
        if !dir.file(CONFIG).is_file() {
            return Err(RunError::NoRun(root.to_path_buf()));
        }
        Ok(dir)
    }

    /// The folder.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A path inside the folder.
    #[must_use]
    pub fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Keeps the newest `keep` checkpoint folders (at least 1) instead of
    /// [`KEEP_CHECKPOINTS`]: for tests and audits that resume from every checkpoint of a run.
    #[must_use]
    pub fn keeping(mut self, keep: usize) -> Self {
        self.keep = keep.max(1);
        self
    }

    /// Writes `config.json` atomically.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn write_config<T: Serialize>(&self, config: &T) -> Result<(), RunError> {
        let path = self.file(CONFIG);
        let text = serde_json::to_string_pretty(config).map_err(|e| RunError::BadConfig {
            path: path.clone(),
            why: e.to_string(),
        })?;
        write_atomic(&path, text.as_bytes())?;
        Ok(())
    }

    /// Reads `config.json`.
    ///
    /// # Errors
    /// [`RunError::NoRun`] when it is missing, [`RunError::BadConfig`] when it is malformed.
    pub fn read_config<T: DeserializeOwned>(&self) -> Result<T, RunError> {
        let path = self.file(CONFIG);
        let bytes = read_regular(&path, MAX_SMALL_FILE).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                RunError::NoRun(self.root.clone())
            } else {
                RunError::Io {
                    path: path.clone(),
                    source,
                }
            }
        })?;
        serde_json::from_slice(&bytes).map_err(|e| RunError::BadConfig {
            path,
            why: e.to_string(),
        })
    }

    /// The newest usable checkpoint (see [`usable_checkpoint`](Self::usable_checkpoint)), if
    /// any.
    #[must_use]
    pub fn latest_checkpoint(&self) -> Option<Checkpoint> {
        self.usable_checkpoint().ok().and_then(|(cp, _)| cp)
    }

    /// The newest checkpoint folder that is complete and whose files all check out against its
    /// manifest ([`checkpoint`](Self::checkpoint)), and why each newer `ep-N` folder was passed
    /// over (newest first). `None` when the run has no checkpoint folder at all.
    ///
    /// # Errors
    /// [`RunError::NoUsableCheckpoint`] when there are checkpoint folders but none is usable.
    pub fn usable_checkpoint(&self) -> Result<(Option<Checkpoint>, Vec<RunError>), RunError> {
        let mut found = self.checkpoint_folders();
        found.sort();
        let mut passed_over = Vec::new();
        for (_, path) in found.into_iter().rev() {
            match Self::checkpoint(&path) {
                Ok(cp) => return Ok((Some(cp), passed_over)),
                Err(e) => passed_over.push(e),
            }
        }
        if passed_over.is_empty() {
            // No checkpoint folder at all: a fresh run, or one stopped before its first
            // checkpoint. A run that has written models did checkpoint once: its folders are
            // gone, and starting over would overwrite its logs and models.
            let models = self.checkpoint_models();
            if models.is_empty() {
                return Ok((None, passed_over));
            }
            return Err(RunError::NoUsableCheckpoint {
                path: self.file(CHECKPOINTS),
                reasons: vec![format!(
                    "no ep-N checkpoint folder is left, though the run has trained models ({})",
                    models.join(", ")
                )],
            });
        }
        Err(RunError::NoUsableCheckpoint {
            path: self.file(CHECKPOINTS),
            reasons: passed_over.iter().map(ToString::to_string).collect(),
        })
    }

    /// The checkpoint in `path`, checked before any of it is used: its `state.json` must be
    /// intact (its own sha256 matches its content) and every file its manifest lists must be
    /// there with the listed size and sha256; a folder named `ep-N` must hold episode `N`. A
    /// `state.json` written before checksums (only `episode` and `algo`) gives an unverified
    /// checkpoint ([`Checkpoint::verified`] `false`).
    ///
    /// # Errors
    /// [`RunError::Damaged`] naming the folder and the file that is missing or does not match,
    /// or [`RunError::BadCheckpoint`] when the folder's name and episode disagree.
    pub fn checkpoint(path: &Path) -> Result<Checkpoint, RunError> {
        let damaged = |file: &str, why: String| RunError::Damaged {
            checkpoint: path.to_path_buf(),
            file: file.to_string(),
            why,
        };
        let bytes = read_regular(&path.join(STATE), MAX_SMALL_FILE).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                damaged(STATE, "missing: the checkpoint is incomplete".into())
            } else {
                damaged(STATE, format!("unreadable: {e}"))
            }
        })?;
        let value: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| damaged(STATE, format!("not valid JSON: {e}")))?;
        let legacy = value
            .as_object()
            .is_some_and(|o| o.len() == 2 && o.contains_key("episode") && o.contains_key("algo"));
        let (episode, verified) = if legacy {
            let episode = value["episode"]
                .as_u64()
                .ok_or_else(|| damaged(STATE, "its episode is not a count".into()))?;
            (episode, false)
        } else {
            let record: StateRecord = serde_json::from_value(value)
                .map_err(|e| damaged(STATE, format!("malformed: {e}")))?;
            if record.format != STATE_FORMAT {
                return Err(damaged(
                    STATE,
                    format!("format {:?}, expected {STATE_FORMAT:?}", record.format),
                ));
            }
            let body = StateBody {
                format: &record.format,
                episode: record.episode,
                algo: &record.algo,
                files: &record.files,
            };
            if body.sha256() != record.sha256 {
                return Err(damaged(
                    STATE,
                    "its checksum does not match its content (edited or damaged)".into(),
                ));
            }
            for (name, sum) in &record.files {
                let relative = Path::new(name);
                if !relative
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)))
                {
                    return Err(damaged(
                        STATE,
                        format!("the manifest names {name:?}, outside the folder"),
                    ));
                }
                let file = path.join(relative);
                // The manifest gives the size: nothing larger is read.
                let data = match read_regular(&file, sum.bytes) {
                    Ok(data) => data,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(damaged(name, "missing".into()));
                    }
                    Err(e) => return Err(damaged(name, format!("unreadable: {e}"))),
                };
                if data.len() as u64 != sum.bytes {
                    return Err(damaged(
                        name,
                        format!(
                            "{} bytes, the manifest says {} (cut short or changed)",
                            data.len(),
                            sum.bytes
                        ),
                    ));
                }
                let found = sha256_hex(&data);
                if found != sum.sha256 {
                    return Err(damaged(
                        name,
                        format!(
                            "checksum mismatch: sha256 {found}, the manifest says {}",
                            sum.sha256
                        ),
                    ));
                }
            }
            (record.episode, true)
        };
        let episode = usize::try_from(episode)
            .map_err(|_| damaged(STATE, format!("episode {episode} is out of range")))?;
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("ep-"))
            .and_then(|n| n.parse::<usize>().ok());
        if let Some(named) = named {
            if named != episode {
                return Err(RunError::BadCheckpoint {
                    path: path.to_path_buf(),
                    why: format!("{STATE} says episode {episode}, the folder's name {named}"),
                });
            }
        }
        Ok(Checkpoint {
            episode,
            path: path.to_path_buf(),
            verified,
        })
    }

    /// Renames the checkpoint folder `path` to `damaged-<name>` (or `damaged-<name>.K` when
    /// that is taken) beside it, so that it no longer counts as a checkpoint; returns the new
    /// path.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn set_aside(path: &Path) -> Result<PathBuf, RunError> {
        let name = path
            .file_name()
            .map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned());
        let mut target = path.with_file_name(format!("{DAMAGED}{name}"));
        let mut k = 1;
        while target.exists() {
            target = path.with_file_name(format!("{DAMAGED}{name}.{k}"));
            k += 1;
        }
        fs::rename(path, &target).map_err(io(&target))?;
        Ok(target)
    }

    /// The model files (`*.safetensors`) directly in `checkpoints/`, sorted.
    fn checkpoint_models(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(self.file(CHECKPOINTS)) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| {
                let name = e.ok()?.file_name().to_string_lossy().into_owned();
                name.ends_with(".safetensors").then_some(name)
            })
            .collect();
        names.sort();
        names
    }

    fn checkpoint_folders(&self) -> Vec<(usize, PathBuf)> {
        let Ok(entries) = fs::read_dir(self.file(CHECKPOINTS)) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().to_string_lossy().into_owned();
                let episode: usize = name.strip_prefix("ep-")?.parse().ok()?;
                Some((episode, e.path()))
            })
            .collect()
    }

    /// Checks that `log.csv` holds every episode up to `episode` (a checkpoint's), so that a
    /// resume from it leaves no gap. Changes nothing.
    ///
    /// # Errors
    /// [`RunError::Io`] naming the missing rows.
    pub fn check_log(&self, episode: usize) -> Result<(), RunError> {
        check_log_complete(&self.file(LOG), episode)
    }

    /// Checks that `eval.csv` still holds every evaluation row written before `checkpoint`
    /// (the count the checkpoint keeps; checkpoints written before they kept one pass).
    ///
    /// # Errors
    /// [`RunError::Io`] naming the file and the rows missing.
    pub fn check_eval_log(&self, checkpoint: &Checkpoint) -> Result<(), RunError> {
        let Ok(bytes) = read_regular(&checkpoint.path.join(EVAL_ROWS), MAX_SMALL_FILE) else {
            return Ok(());
        };
        let Some(kept) = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("eval_rows").and_then(serde_json::Value::as_u64))
        else {
            return Ok(());
        };
        let path = self.file(EVAL);
        let found = complete_rows(&path, checkpoint.episode)?;
        if (found as u64) < kept {
            return Err(RunError::Io {
                path: path.clone(),
                source: std::io::Error::other(format!(
                    "holds {found} evaluation rows up to episode {}, where checkpoint {} was \
                     written after {kept}: resuming would leave them missing (restore the file, \
                     or start the run over with --force)",
                    checkpoint.episode,
                    checkpoint.path.display()
                )),
            });
        }
        Ok(())
    }

    /// Checks that `config.json` holds the settings `checkpoint` was trained under (the copy
    /// the checkpoint keeps; checkpoints written before it kept one pass), both read as a
    /// `C` so that defaults written out later compare equal. The
    /// total of episodes is left aside (a resume may raise it), and so are the paths of the
    /// files a run reads (`data`, `from`), which may move.
    ///
    /// # Errors
    /// [`RunError::BadConfig`] naming the settings that differ.
    pub fn check_config_of<C: super::RunSpec>(
        &self,
        checkpoint: &Checkpoint,
    ) -> Result<(), RunError> {
        let kept = checkpoint.path.join(CONFIG);
        let Ok(then) = read_regular(&kept, MAX_SMALL_FILE) else {
            return Ok(());
        };
        let path = self.file(CONFIG);
        let now = read_regular(&path, MAX_SMALL_FILE).map_err(|source| RunError::Io {
            path: path.clone(),
            source,
        })?;
        let parse = |bytes: &[u8]| -> Option<serde_json::Value> {
            let config: C = serde_json::from_slice(bytes).ok()?;
            serde_json::to_value(config).ok()
        };
        // A copy this version cannot read says nothing either way.
        let Some(then) = parse(&then) else {
            return Ok(());
        };
        let Some(now) = parse(&now) else {
            return Err(RunError::BadConfig {
                path,
                why: "not the settings of a run".into(),
            });
        };
        let mut found = Vec::new();
        json_differences("", &now, &then, RESUME_MAY_CHANGE, &mut found);
        let differ: Vec<String> = found
            .iter()
            .map(|(path, now, then)| format!("{path}: {then} in the checkpoint, {now} now"))
            .collect();
        if differ.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = differ.iter().take(4).cloned().collect();
        Err(RunError::BadConfig {
            path,
            why: format!(
                "changed since checkpoint {} was written ({}{}): a run resumes with the settings \
                 it was trained with; put them back, or start a new run",
                checkpoint.path.display(),
                shown.join("; "),
                if differ.len() > shown.len() {
                    format!("; {} more", differ.len() - shown.len())
                } else {
                    String::new()
                }
            ),
        })
    }

    /// Cuts `log.csv` and `eval.csv` back to the rows of episodes up to `episode` (the rest
    /// came after it, or were cut short by a kill); at episode 0, removes them. A resumed run
    /// does this when training starts, once its trainer is built, so a resume that fails
    /// before leaves the logs as they were.
    ///
    /// # Errors
    /// [`RunError::Io`] when a file cannot be rewritten.
    pub fn rewind_to(&self, episode: usize) -> Result<(), RunError> {
        for name in [LOG, EVAL] {
            let path = self.file(name);
            if episode > 0 {
                truncate_csv(&path, episode)?;
            } else {
                let _ = fs::remove_file(&path);
            }
        }
        Ok(())
    }

    /// The `seconds` (last column) of `log.csv`'s last row, 0 without one: where the clock of
    /// a resumed run picks up, so the column stays the run's training time across resumes.
    #[must_use]
    pub fn last_log_seconds(&self) -> f64 {
        fs::read_to_string(self.file(LOG))
            .ok()
            .and_then(|text| {
                let last = text
                    .lines()
                    .skip(1)
                    .filter(|l| !l.trim().is_empty())
                    .last()?;
                last.rsplit(',').next()?.trim().parse::<f64>().ok()
            })
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or(0.0)
    }

    /// Refuses a `log.csv` whose header is not `header` (a log another version began: rows
    /// of other columns would garble it); a missing or empty log passes.
    ///
    /// # Errors
    /// [`RunError::Settings`] naming both headers, or [`RunError::Io`].
    pub fn check_log_header(&self, header: &str) -> Result<(), RunError> {
        check_header(&self.file(LOG), header)
    }

    /// Opens `log.csv` for appending, writing `header` when it is new.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn log(&self, header: &str) -> Result<CsvLog, RunError> {
        CsvLog::open(&self.file(LOG), header)
    }

    /// Opens `eval.csv` for appending.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn eval_log(&self) -> Result<CsvLog, RunError> {
        CsvLog::open(&self.file(EVAL), super::EVAL_HEADER)
    }

    /// Writes checkpoint folder `ep-<episode>` so that it appears complete or not at all:
    /// `save` fills a temporary folder, `state.json` is added last (atomically) with the
    /// manifest of every file `save` wrote (size and sha256) and its own sha256, and the folder
    /// is renamed into place. Then the exported models are written (each atomically) and all but the newest
    /// [`KEEP_CHECKPOINTS`] folders removed.
    ///
    /// # Errors
    /// What `save` returns, or [`RunError::Io`].
    pub fn save_checkpoint(
        &self,
        episode: usize,
        algo: &str,
        save: &dyn Fn(&Path) -> Result<(), RunError>,
        exports: Vec<Export>,
    ) -> Result<Checkpoint, RunError> {
        let checkpoints = self.file(CHECKPOINTS);
        fs::create_dir_all(&checkpoints).map_err(io(&checkpoints))?;
        let folder = checkpoints.join(format!("ep-{episode:08}"));
        let tmp = checkpoints.join(format!(".ep-{episode:08}.tmp"));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        save(&tmp)?;
        // The settings this checkpoint was trained under, so a resume can tell whether
        // config.json was changed since (covered by the manifest like every other file).
        if let Ok(bytes) = read_regular(&self.file(CONFIG), MAX_SMALL_FILE) {
            write_atomic(&tmp.join(CONFIG), &bytes)?;
        }
        // How many evaluation rows the run had written by now (all of them up to this
        // episode): a resume checks that `eval.csv` still holds them.
        let rows = complete_rows(&self.file(EVAL), episode)?;
        write_atomic(
            &tmp.join(EVAL_ROWS),
            serde_json::json!({ "eval_rows": rows })
                .to_string()
                .as_bytes(),
        )?;
        let files = manifest(&tmp)?;
        let body = StateBody {
            format: STATE_FORMAT,
            episode: episode as u64,
            algo,
            files: &files,
        };
        let state = serde_json::json!({
            "format": STATE_FORMAT,
            "episode": episode,
            "algo": algo,
            "files": files,
            "sha256": body.sha256(),
        });
        let text = serde_json::to_string_pretty(&state).unwrap_or_default();
        write_atomic(&tmp.join(STATE), text.as_bytes())?;
        if folder.exists() {
            fs::remove_dir_all(&folder).map_err(io(&folder))?;
        }
        fs::rename(&tmp, &folder).map_err(io(&folder))?;
        for export in exports {
            write_model(
                &checkpoints.join(&export.file),
                &export.weights,
                export.card,
            )?;
        }
        let mut found = self.checkpoint_folders();
        found.sort();
        let excess = found.len().saturating_sub(self.keep);
        for (_, path) in found.into_iter().take(excess) {
            let _ = fs::remove_dir_all(path);
        }
        Ok(Checkpoint {
            episode,
            path: folder,
            verified: true,
        })
    }
}

/// The text of the log at `path`, `None` when there is none; `strict`: bytes that are not
/// UTF-8 are an error (a file about to be rewritten) rather than replaced (one only read).
fn read_log(path: &Path, strict: bool) -> Result<Option<String>, RunError> {
    match read_regular(path, MAX_LOG_FILE) {
        Ok(bytes) if strict => {
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| RunError::BadConfig {
                    path: path.to_path_buf(),
                    why: "not UTF-8 text".into(),
                })
        }
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(RunError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Refuses the log at `path` when it has a first line other than `header`.
fn check_header(path: &Path, header: &str) -> Result<(), RunError> {
    if fs::metadata(path).map_or(true, |m| m.len() == 0) {
        return Ok(());
    }
    let text = fs::read_to_string(path).map_err(io(path))?;
    let found = text.lines().next().unwrap_or_default();
    if found == header {
        return Ok(());
    }
    Err(RunError::Settings(format!(
        "{}: its columns are `{found}`, not this version's `{header}` (an earlier stonelab \
         began the run: continue it with that version, or start a new run)",
        path.display()
    )))
}

/// The header of a log's text and its rows, each with its episode when it is a whole row (as
/// many fields as the header, an episode first); a row cut by a kill or edited has none.
fn log_rows(text: &str) -> Option<(&str, impl Iterator<Item = (Option<usize>, &str)>)> {
    let mut lines = text.lines();
    let header = lines.next()?;
    let fields = header.split(',').count();
    Some((
        header,
        lines.map(move |line| {
            let episode = (line.split(',').count() == fields)
                .then(|| line.split(',').next().and_then(|f| f.parse::<usize>().ok()))
                .flatten();
            (episode, line)
        }),
    ))
}

/// Checks that `log.csv` holds one row for every episode `1..=episode`, in order, before a
/// resume cuts it back to `episode`: rows lost before the checkpoint (a cut or edited file)
/// would otherwise stay lost behind new ones.
fn check_log_complete(path: &Path, episode: usize) -> Result<(), RunError> {
    let text = read_log(path, false)?.unwrap_or_default();
    let mut expected = 1;
    if let Some((_, rows)) = log_rows(&text) {
        for e in rows.filter_map(|(e, _)| e) {
            if e > episode || e != expected {
                break;
            }
            expected += 1;
        }
    }
    if expected <= episode {
        return Err(RunError::BadConfig {
            path: path.to_path_buf(),
            why: format!(
                "the rows of episodes {expected} to {episode} are missing or out of order, \
                 before the checkpoint at episode {episode} (the file was cut or edited): \
                 resuming would leave a gap; restore the file or start a new run"
            ),
        });
    }
    Ok(())
}

/// The whole rows of the log at `path` (a missing file has none) whose episode is at most
/// `episode`: those a rewind to `episode` keeps.
fn complete_rows(path: &Path, episode: usize) -> Result<usize, RunError> {
    let Some(text) = read_log(path, false)? else {
        return Ok(0);
    };
    Ok(log_rows(&text).map_or(0, |(_, rows)| {
        rows.filter(|(e, _)| e.is_some_and(|e| e <= episode))
            .count()
    }))
}

/// Keeps the header and the whole rows whose episode is at most `episode`, rewriting the file
/// atomically.
fn truncate_csv(path: &Path, episode: usize) -> Result<(), RunError> {
    let Some(text) = read_log(path, true)? else {
        return Ok(());
    };
    let Some((header, rows)) = log_rows(&text) else {
        return Ok(());
    };
    let mut out = format!("{header}\n");
    for (_, line) in rows.filter(|(e, _)| e.is_some_and(|e| e <= episode)) {
        out.push_str(line);
        out.push('\n');
    }
    write_atomic(path, out.as_bytes())?;
    Ok(())
}

/// A CSV file being appended to, row by row.
pub struct CsvLog {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CsvLog {
    /// Opens `path` for appending, writing `header` when the file is new or empty.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn open(path: &Path, header: &str) -> Result<Self, RunError> {
        let fresh = fs::metadata(path).map_or(true, |m| m.len() == 0);
        check_header(path, header)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io(path))?;
        let mut log = CsvLog {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        };
        if fresh {
            log.row(header)?;
            log.flush()?;
        }
        Ok(log)
    }

    /// Appends one line.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn row(&mut self, line: &str) -> Result<(), RunError> {
        writeln!(self.out, "{line}").map_err(io(&self.path))
    }

    /// Writes what is buffered.
    ///
    /// # Errors
    /// [`RunError::Io`].
    pub fn flush(&mut self) -> Result<(), RunError> {
        self.out.flush().map_err(io(&self.path))
    }
}

/// Collects, as `(path, fresh, stored)`, the leaves where `fresh` and `stored` differ (a key
/// missing on one side reads as `null`), leaving out the paths in `skip` (dotted, from the
/// root: `dqn.arch.channels`).
pub fn json_differences(
    path: &str,
    fresh: &serde_json::Value,
    stored: &serde_json::Value,
    skip: &[&str],
    out: &mut Vec<(String, serde_json::Value, serde_json::Value)>,
) {
    use serde_json::Value;
    match (fresh, stored) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let inner = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if skip.contains(&inner.as_str()) {
                    continue;
                }
                json_differences(
                    &inner,
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                    skip,
                    out,
                );
            }
        }
        (a, b) if a != b && !skip.contains(&path) => {
            out.push((path.to_string(), a.clone(), b.clone()));
        }
        _ => {}
    }
}
