//! The run folder: `config.json`, `log.csv` and `eval.csv` (cut back on resume), atomic
//! checkpoint folders `checkpoints/ep-NNNNNNNN/` with rotation, and the exported models.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::RunError;
use crate::checkpoint::{write_atomic, write_model, Card};

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
/// The file that marks a checkpoint folder complete: `{"episode": N, "algo": "..."}`.
pub const STATE: &str = "state.json";
/// How many checkpoint folders are kept.
pub const KEEP_CHECKPOINTS: usize = 2;

/// A complete checkpoint folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// Episodes played when it was written.
    pub episode: usize,
    /// The folder.
    pub path: PathBuf,
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
    /// Makes `root` ready for a new run. A folder that already holds a run (a `config.json`) is
    /// refused unless `overwrite`, which removes its logs, checkpoints and plots.
    ///
    /// # Errors
    /// [`RunError::Exists`], or [`RunError::Io`] when the folder cannot be made.
    pub fn create(root: &Path, overwrite: bool) -> Result<Self, RunError> {
        let dir = RunDir {
            root: root.to_path_buf(),
            keep: KEEP_CHECKPOINTS,
        };
        if dir.file(CONFIG).exists() {
            if !overwrite {
                return Err(RunError::Exists(root.to_path_buf()));
            }
            for name in [LOG, EVAL] {
                let _ = fs::remove_file(dir.file(name));
            }
            let _ = fs::remove_dir_all(dir.file(CHECKPOINTS));
            let _ = fs::remove_dir_all(dir.file(PLOTS));
        }
        fs::create_dir_all(root).map_err(io(root))?;
        Ok(dir)
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
        let bytes = fs::read(&path).map_err(|source| {
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

    /// The newest complete checkpoint: the highest `ep-N` folder holding a readable
    /// `state.json`.
    #[must_use]
    pub fn latest_checkpoint(&self) -> Option<Checkpoint> {
        let mut found: Vec<(usize, PathBuf)> = self.checkpoint_folders();
        found.sort();
        found
            .into_iter()
            .rev()
            .find_map(|(_, path)| Self::checkpoint(&path).ok())
    }

    /// The checkpoint in `path`, with its episode from its `state.json`.
    ///
    /// # Errors
    /// [`RunError::BadCheckpoint`] when `state.json` is missing or malformed.
    pub fn checkpoint(path: &Path) -> Result<Checkpoint, RunError> {
        let state = path.join(STATE);
        let bad = |why: String| RunError::BadCheckpoint {
            path: path.to_path_buf(),
            why,
        };
        let text = fs::read_to_string(&state).map_err(|e| bad(format!("{STATE}: {e}")))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| bad(format!("{STATE}: {e}")))?;
        let episode = value["episode"]
            .as_u64()
            .and_then(|e| usize::try_from(e).ok())
            .ok_or_else(|| bad(format!("{STATE} has no episode")))?;
        Ok(Checkpoint {
            episode,
            path: path.to_path_buf(),
        })
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

    /// Cuts `log.csv` and `eval.csv` back to the rows of episodes up to `to`'s (the rest came
    /// after it, or were cut short by a kill); without a checkpoint, removes them.
    ///
    /// # Errors
    /// [`RunError::Io`] when a file cannot be rewritten.
    pub fn rewind(&self, to: Option<&Checkpoint>) -> Result<(), RunError> {
        if let Some(cp) = to {
            check_log_complete(&self.file(LOG), cp.episode)?;
        }
        for name in [LOG, EVAL] {
            let path = self.file(name);
            match to {
                Some(cp) => truncate_csv(&path, cp.episode)?,
                None => {
                    let _ = fs::remove_file(&path);
                }
            }
        }
        Ok(())
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
    /// `save` fills a temporary folder, `state.json` is added, and the folder is renamed into
    /// place. Then the exported models are written (each atomically) and all but the newest
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
        let state = serde_json::json!({"episode": episode, "algo": algo});
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
        })
    }
}

/// Keeps the header and the rows whose first field is an episode up to `episode` (and that have
/// as many fields as the header), rewriting the file atomically.
/// Checks that `log.csv` holds one row for every episode `1..=episode`, in order, before a
/// resume cuts it back to `episode`: rows lost before the checkpoint (a cut or edited file)
/// would otherwise stay lost behind new ones.
fn check_log_complete(path: &Path, episode: usize) -> Result<(), RunError> {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut lines = text.lines();
    let fields = lines.next().map_or(0, |h| h.split(',').count());
    let mut expected = 1;
    for line in lines {
        if line.split(',').count() != fields {
            continue;
        }
        let Some(e) = line.split(',').next().and_then(|f| f.parse::<usize>().ok()) else {
            continue;
        };
        if e > episode {
            break;
        }
        if e != expected {
            break;
        }
        expected += 1;
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

fn truncate_csv(path: &Path, episode: usize) -> Result<(), RunError> {
    let Ok(text) = fs::read_to_string(path) else {
        return Ok(());
    };
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Ok(());
    };
    let fields = header.split(',').count();
    let mut out = String::from(header);
    out.push('\n');
    for line in lines {
        let keep = line.split(',').count() == fields
            && line
                .split(',')
                .next()
                .and_then(|f| f.parse::<usize>().ok())
                .is_some_and(|e| e <= episode);
        if keep {
            out.push_str(line);
            out.push('\n');
        }
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
