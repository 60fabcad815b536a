//! The files stonelab writes and reads: atomic writes, reads capped before a byte is read, and
//! the one output-folder policy that gives `--force` its single meaning in every command.
//!
//! The policy ([`Folder::prepare`]): a command's output folder may be missing or empty; one
//! that holds anything needs `force`, and then may hold nothing but what that command writes
//! (its [`Folder::entries`], and the hidden `.NAME.tmp` files an interrupted [`write_atomic`]
//! leaves); anything else is refused by name and nothing is touched. `--force` thus replaces an
//! earlier output of the same command and never deletes what the command did not write.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A file or folder that could not be read, written or used as asked.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The operating system refused.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The refusal.
        #[source]
        source: std::io::Error,
    },
    /// Not a regular file (a folder, a FIFO, a device): reading it could block or never end.
    #[error("reading {}: not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// Longer than the reader accepts.
    #[error("reading {}: {len} bytes, over the {limit}-byte limit", path.display())]
    TooLong {
        /// The path.
        path: PathBuf,
        /// Its length (at least `limit + 1`).
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// An output folder that is a file.
    #[error("{} is not a folder: --out names the output folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// An output folder that holds something, without `force`.
    #[error("{} already holds {what}: {hint}, or choose another --out", path.display())]
    Exists {
        /// The folder.
        path: PathBuf,
        /// What it holds ("a run", "a report", or "files" when it is not the command's).
        what: String,
        /// How to go on ("add --force to replace it", "add --resume to continue it, ...").
        hint: String,
        /// Whether it holds the command's output (its marker entry), not other files.
        ours: bool,
    },
    /// An output folder, with `force`, that holds what the command does not write.
    #[error(
        "{} holds {count} entr{} {what} does not write (\"{first}\"{}): --force only replaces \
         an earlier output of the same command; choose another --out",
        path.display(),
        if *count == 1 { "y" } else { "ies" },
        if *count > 1 { ", ..." } else { "" }
    )]
    Foreign {
        /// The folder.
        path: PathBuf,
        /// The command's output, in words ("a pattern run").
        what: String,
        /// The first such entry (relative to the folder).
        first: String,
        /// How many there are.
        count: usize,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FileError + '_ {
    move |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `path`'s bytes: a regular file of at most `limit` bytes, checked before a byte is read (a
/// file that grows while it is read is cut at `limit + 1` bytes and refused).
///
/// # Errors
/// [`FileError::Io`] (missing, unreadable), [`FileError::NotAFile`] or [`FileError::TooLong`].
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    // `metadata` never blocks, where opening a FIFO would.
    let meta = fs::metadata(path).map_err(io(path))?;
    if !meta.is_file() {
        return Err(FileError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let too_long = |len| FileError::TooLong {
        path: path.to_path_buf(),
        len,
        limit,
    };
    if meta.len() > limit {
        return Err(too_long(meta.len()));
    }
    let file = File::open(path).map_err(io(path))?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io(path))?;
    if bytes.len() as u64 > limit {
        return Err(too_long(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The temporary file [`write_atomic`] writes `path` through: `.NAME.tmp` beside it.
#[must_use]
pub fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp"))
}

/// Whether `name` is a temporary file of [`write_atomic`].
#[must_use]
pub fn is_temporary(name: &str) -> bool {
    name.len() > 5 && name.starts_with('.') && name.ends_with(".tmp")
}

/// Writes `bytes` to `path` atomically: the [`temporary`] file beside it, synced, then renamed
/// over `path`. A reader sees the old file or the new one, never a part.
///
/// # Errors
/// [`FileError::Io`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let tmp = temporary(path);
    {
        let mut f = File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    fs::rename(&tmp, path).map_err(io(path))
}

/// Writes `bytes` to `path` (plainly: for logs and reports that are rewritten whole).
///
/// # Errors
/// [`FileError::Io`].
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), FileError> {
    fs::write(path, bytes).map_err(io(path))
}

/// Creates (or truncates) the file `path` for writing (plainly: for outputs that may be a
/// device, such as `/dev/stdout`).
///
/// # Errors
/// [`FileError::Io`].
pub fn create(path: &Path) -> Result<File, FileError> {
    File::create(path).map_err(io(path))
}

/// Makes `path` and the folders above it.
///
/// # Errors
/// [`FileError::Io`].
pub fn create_dir_all(path: &Path) -> Result<(), FileError> {
    fs::create_dir_all(path).map_err(io(path))
}

/// A finer check of an output folder: given the folder, the first entry below its top level
/// that the command does not write (relative path), if any.
pub type Below<'a> = dyn Fn(&Path) -> Result<Option<String>, FileError> + 'a;

/// A command's output folder: what it writes there (the policy of the module).
#[derive(Clone, Copy)]
pub struct Folder<'a> {
    /// What the command writes, in words, for the errors: "a pattern run", "a report".
    pub what: &'a str,
    /// The top-level entries it writes (files and folders).
    pub entries: &'a [&'a str],
    /// A finer check for the command that needs one: given the folder, the first entry below
    /// one of `entries` that the command does not write (relative path), if any.
    pub below: Option<&'a Below<'a>>,
    /// An entry whose presence says the folder is the command's ("config.json"): without it a
    /// non-empty folder "holds files", not the command's output. `None`: the folder is the
    /// command's when everything in it is one of its entries.
    pub marker: Option<&'a str>,
    /// How to go on with an earlier output, besides choosing another folder ("add --force to
    /// replace it"; "add --resume to continue it or --force to start over").
    pub hint: &'a str,
}

/// What [`Folder::prepare`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prepared {
    /// Missing: nothing was made yet.
    Missing,
    /// An empty folder.
    Empty,
    /// An earlier output (with `force`): these entries (sorted, top level) are to be replaced.
    Replace(Vec<String>),
}

impl Folder<'_> {
    /// Checks that `out` can take the command's output (see the module), touching nothing.
    ///
    /// # Errors
    /// [`FileError::NotAFolder`], [`FileError::Exists`] (without `force`),
    /// [`FileError::Foreign`] (with `force`), or [`FileError::Io`].
    pub fn prepare(&self, out: &Path, force: bool) -> Result<Prepared, FileError> {
        let meta = match fs::symlink_metadata(out) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Prepared::Missing),
            Err(e) => return Err(io(out)(e)),
        };
        if !meta.is_dir() {
            return Err(FileError::NotAFolder {
                path: out.to_path_buf(),
            });
        }
        let mut names = Vec::new();
        for entry in fs::read_dir(out).map_err(io(out))? {
            let entry = entry.map_err(io(out))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        if names.is_empty() {
            return Ok(Prepared::Empty);
        }
        names.sort();
        if !force {
            // The command's output: its marker is there, or (a command without one)
            // everything there is its own.
            let own =
                |n: &String| self.entries.contains(&n.as_str()) || is_temporary(n) || n == PREVIOUS;
            let ours = match self.marker {
                Some(m) => names.iter().any(|n| n == m),
                None => names.iter().all(own),
            };
            return Err(FileError::Exists {
                path: out.to_path_buf(),
                what: if ours {
                    self.what.into()
                } else {
                    "files".into()
                },
                hint: if ours {
                    self.hint.into()
                } else {
                    format!(
                        "they are not {}; add --force only to replace one",
                        self.what
                    )
                },
                ours,
            });
        }
        let foreign: Vec<&String> = names
            .iter()
            .filter(|n| !self.entries.contains(&n.as_str()) && !is_temporary(n) && *n != PREVIOUS)
            .collect();
        let first = match (foreign.first(), self.below) {
            (Some(first), _) => Some(((*first).clone(), foreign.len())),
            (None, Some(below)) => below(out)?.map(|first| (first, 1)),
            (None, None) => None,
        };
        if let Some((first, count)) = first {
            return Err(FileError::Foreign {
                path: out.to_path_buf(),
                what: self.what.into(),
                first,
                count,
            });
        }
        Ok(Prepared::Replace(names))
    }

    /// [`Folder::prepare`], then the earlier output's entries removed (a link is removed, never
    /// followed) and the folder made.
    ///
    /// # Errors
    /// As [`Folder::prepare`], or [`FileError::Io`] when removing or creating fails.
    pub fn replace(&self, out: &Path, force: bool) -> Result<(), FileError> {
        if let Prepared::Replace(names) = self.prepare(out, force)? {
            remove_entries(out, &names)?;
        }
        create_dir_all(out)
    }
}

/// Where [`Folder::begin`] keeps an earlier output until the new one is complete.
pub const PREVIOUS: &str = ".previous-output";

/// An output being written by [`Folder::begin`]: [`Pending::commit`] once it is complete,
/// [`Pending::abandon`] when the command failed.
#[derive(Debug)]
#[must_use = "commit the output when it is complete, or abandon it"]
pub struct Pending {
    out: PathBuf,
    entries: Vec<String>,
    /// The earlier output's entries, set aside in [`PREVIOUS`].
    set_aside: Vec<String>,
    /// The first folder this command made (removed with those below it when abandoned).
    created: Option<PathBuf>,
}

impl Folder<'_> {
    /// [`Folder::prepare`], then the folder made (a missing one) or an earlier output's entries
    /// set aside in [`PREVIOUS`] (with `force`), so that a failed command can put it back.
    ///
    /// # Errors
    /// As [`Folder::prepare`], or [`FileError::Io`].
    pub fn begin(&self, out: &Path, force: bool) -> Result<Pending, FileError> {
        let prepared = self.prepare(out, force)?;
        let mut pending = Pending {
            out: out.to_path_buf(),
            entries: self.entries.iter().map(|e| (*e).to_string()).collect(),
            set_aside: Vec::new(),
            created: None,
        };
        match prepared {
            Prepared::Missing => {
                let mut top = out.to_path_buf();
                while let Some(parent) = top
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty() && !p.exists())
                {
                    top = parent.to_path_buf();
                }
                create_dir_all(out)?;
                pending.created = Some(top);
            }
            Prepared::Empty => {}
            Prepared::Replace(names) => {
                let previous = out.join(PREVIOUS);
                // Left by a command that was killed: the output before that one.
                remove_entries(out, &[PREVIOUS.to_string()])?;
                fs::create_dir(&previous).map_err(io(&previous))?;
                for name in names.into_iter().filter(|n| n != PREVIOUS) {
                    let from = out.join(&name);
                    fs::rename(&from, previous.join(&name)).map_err(io(&from))?;
                    pending.set_aside.push(name);
                }
            }
        }
        Ok(pending)
    }
}

impl Pending {
    /// The new output is complete: the earlier one goes.
    ///
    /// # Errors
    /// [`FileError::Io`].
    pub fn commit(self) -> Result<(), FileError> {
        remove_entries(&self.out, &[PREVIOUS.to_string()])
    }

    /// The command failed: its partial output goes, and the earlier output comes back (or the
    /// folders this command made go, when there was none). Best effort: it runs on the way out
    /// of an error.
    pub fn abandon(self) {
        let _ = remove_entries(&self.out, &self.entries);
        if let Some(top) = &self.created {
            let mut folder = Some(self.out.as_path());
            while let Some(f) = folder {
                if fs::remove_dir(f).is_err() || f == top {
                    break;
                }
                folder = f.parent();
            }
            return;
        }
        let previous = self.out.join(PREVIOUS);
        for name in &self.set_aside {
            let _ = fs::rename(previous.join(name), self.out.join(name));
        }
        let _ = fs::remove_dir(&previous);
    }
}

/// Removes the entries `names` of `out` (each a file, a link or a folder with all below it; a
/// link is removed, never followed; a missing one is passed over).
///
/// # Errors
/// [`FileError::Io`].
pub fn remove_entries(out: &Path, names: &[String]) -> Result<(), FileError> {
    for name in names {
        let path = out.join(name);
        let removed = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(_) => continue,
        };
        removed.map_err(io(&path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("stonelab-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    const RUN: Folder<'static> = Folder {
        what: "a test run",
        entries: &["config.json", "log.csv", "plots"],
        below: None,
        marker: Some("config.json"),
        hint: "add --force to replace it",
    };

    #[test]
    fn reads_are_capped_and_regular_files_only() {
        let dir = scratch("read");
        let small = dir.join("small");
        fs::write(&small, b"12345").unwrap();
        assert_eq!(read_capped(&small, 5).unwrap(), b"12345");
        let err = read_capped(&small, 4).unwrap_err().to_string();
        assert!(err.contains("5 bytes, over the 4-byte limit"), "{err}");
        let err = read_capped(&dir, 4).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        assert!(matches!(
            read_capped(&dir.join("missing"), 4),
            Err(FileError::Io { .. })
        ));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_writes_leave_no_temporary() {
        let dir = scratch("atomic");
        let path = dir.join("state.bin");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["state.bin"]);
        assert!(is_temporary(".state.bin.tmp") && !is_temporary(".tmp") && !is_temporary("a.tmp"));
        assert_eq!(temporary(&path), dir.join(".state.bin.tmp"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn force_replaces_only_the_commands_own_output() {
        let dir = scratch("folder");
        let out = dir.join("run");
        assert_eq!(RUN.prepare(&out, false).unwrap(), Prepared::Missing);
        fs::create_dir(&out).unwrap();
        assert_eq!(RUN.prepare(&out, false).unwrap(), Prepared::Empty);
        fs::write(out.join("config.json"), "{}").unwrap();
        fs::create_dir(out.join("plots")).unwrap();
        fs::write(out.join(".log.csv.tmp"), "").unwrap();
        let err = RUN.prepare(&out, false).unwrap_err().to_string();
        assert!(
            err.contains("already holds a test run: add --force"),
            "{err}"
        );
        assert_eq!(
            RUN.prepare(&out, true).unwrap(),
            Prepared::Replace(vec![
                ".log.csv.tmp".into(),
                "config.json".into(),
                "plots".into()
            ])
        );
        // Anything the command does not write stops --force, and nothing is touched.
        fs::write(out.join("notes.txt"), "mine").unwrap();
        fs::write(out.join("src"), "mine").unwrap();
        let err = RUN.replace(&out, true).unwrap_err().to_string();
        assert!(
            err.contains("holds 2 entries a test run does not write (\"notes.txt\", ...)"),
            "{err}"
        );
        assert!(out.join("config.json").exists() && out.join("notes.txt").exists());
        fs::remove_file(out.join("notes.txt")).unwrap();
        fs::remove_file(out.join("src")).unwrap();
        RUN.replace(&out, true).unwrap();
        assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_a_marker_a_folder_of_the_commands_own_files_is_its_output() {
        let dir = scratch("unmarked");
        fs::write(dir.join("log.csv"), "partial").unwrap();
        // With a marker, files named like the command's are not its output without it.
        let err = RUN.prepare(&dir, false).unwrap_err().to_string();
        assert!(
            err.contains("already holds files: they are not a test run"),
            "{err}"
        );
        let unmarked = Folder {
            marker: None,
            ..RUN
        };
        let err = unmarked.prepare(&dir, false).unwrap_err().to_string();
        assert!(
            err.contains("already holds a test run: add --force"),
            "{err}"
        );
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        let err = unmarked.prepare(&dir, false).unwrap_err().to_string();
        assert!(err.contains("already holds files"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_that_is_not_the_commands_is_named_so() {
        let dir = scratch("foreign");
        fs::write(dir.join("photo.jpg"), "x").unwrap();
        let err = RUN.prepare(&dir, false).unwrap_err().to_string();
        assert!(
            err.contains("already holds files: they are not a test run"),
            "{err}"
        );
        let file = dir.join("photo.jpg");
        let err = RUN.prepare(&file, true).unwrap_err().to_string();
        assert!(err.contains("is not a folder"), "{err}");
        // A finer check below the entries.
        let below = |out: &Path| -> Result<Option<String>, FileError> {
            Ok(out
                .join("plots/x.txt")
                .exists()
                .then(|| "plots/x.txt".to_string()))
        };
        let folder = Folder {
            below: Some(&below),
            ..RUN
        };
        let out = dir.join("run");
        fs::create_dir_all(out.join("plots")).unwrap();
        fs::write(out.join("plots/x.txt"), "x").unwrap();
        let err = folder.prepare(&out, true).unwrap_err().to_string();
        assert!(err.contains("(\"plots/x.txt\")"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_earlier_output_waits_until_the_new_one_is_complete() {
        let dir = scratch("pending");
        let out = dir.join("a/b/report");
        // A failed first output leaves nothing, not even the folders it made.
        let pending = RUN.begin(&out, false).unwrap();
        fs::write(out.join("log.csv"), "partial").unwrap();
        pending.abandon();
        assert!(!dir.join("a").exists());
        // A complete one stays; a failed replacement puts it back.
        RUN.begin(&out, false).unwrap().commit().unwrap();
        fs::write(out.join("config.json"), "old").unwrap();
        let pending = RUN.begin(&out, true).unwrap();
        assert!(!out.join("config.json").exists());
        fs::write(out.join("config.json"), "new, partial").unwrap();
        pending.abandon();
        assert_eq!(fs::read_to_string(out.join("config.json")).unwrap(), "old");
        assert!(!out.join(PREVIOUS).exists());
        // A completed replacement drops the earlier output.
        let pending = RUN.begin(&out, true).unwrap();
        fs::write(out.join("config.json"), "new").unwrap();
        pending.commit().unwrap();
        assert_eq!(fs::read_to_string(out.join("config.json")).unwrap(), "new");
        assert_eq!(fs::read_dir(&out).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_are_removed_not_followed() {
        let dir = scratch("links");
        let target = dir.join("keep");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("precious"), "x").unwrap();
        let out = dir.join("run");
        fs::create_dir(&out).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, out.join("plots")).unwrap();
        RUN.replace(&out, true).unwrap();
        assert!(target.join("precious").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
