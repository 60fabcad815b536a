//! Files the commands read from the user's paths: regular files only (a FIFO or device would
//! block or never end) and at most a size cap, checked before a byte is read.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// The most a record, book, opening list or position file may hold (64 MiB: the shipped WTHOR
/// years are about 1 MB each, the book 1.2 MB).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// `path`'s bytes: a regular file of at most [`MAX_INPUT_BYTES`].
///
/// # Errors
/// A missing or unreadable path, one that is not a regular file, or one over the cap.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    read_capped(path, MAX_INPUT_BYTES)
}

/// `path`'s text (UTF-8), as [`read`].
///
/// # Errors
/// As [`read`], or text that is not UTF-8.
pub fn read_to_string(path: &Path) -> Result<String> {
    String::from_utf8(read(path)?).with_context(|| format!("{} is not UTF-8 text", path.display()))
}

/// Checks before any work that `path` can take an output file: not a folder, in a folder that
/// exists, not a file that exists unless `force` (a device such as `/dev/null` is fine), and not
/// a named FIFO (opening it would block until something reads it). `flag` names the option in
/// the error.
///
/// # Errors
/// A path that is a folder, whose folder is missing, an existing file without `force`, a
/// named FIFO or another kind of file that cannot take output.
pub fn check_output(path: &Path, flag: &str, force: bool) -> Result<()> {
    let shown = path.display();
    if path.is_dir() {
        bail!("{flag} {shown} is a folder: name the file to write");
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            bail!(
                "{flag} {shown}: the folder {} does not exist",
                parent.display()
            );
        }
    }
    let Ok(meta) = fs::metadata(path) else {
        return Ok(());
    };
    if meta.is_file() {
        if !force {
            bail!("{flag} {shown} exists: add --force to replace it, or name another file");
        }
        return Ok(());
    }
    // Devices and the process's own streams (`/dev/null`, `/dev/stdout`, `/proc/self/fd/1`,
    // which may be a pipe) take output; a named FIFO elsewhere would block until something
    // reads it, and a socket or block device is no output file.
    let system = path.starts_with("/dev") || path.starts_with("/proc");
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || (system && kind.is_fifo()) {
            return Ok(());
        }
        if kind.is_fifo() {
            bail!(
                "{flag} {shown} is a FIFO: name a regular file (writing would wait for a reader)"
            );
        }
    }
    bail!("{flag} {shown} is not a regular file")
}

/// Refuses two outputs of one command that name the same file (the second would replace the
/// first).
///
/// # Errors
/// The two flags and the path.
pub fn check_distinct(outputs: &[(&str, &Path)]) -> Result<()> {
    for (i, (a, path_a)) in outputs.iter().enumerate() {
        for (b, path_b) in &outputs[i + 1..] {
            let same = path_a == path_b
                || matches!(
                    (resolved(path_a), resolved(path_b)),
                    (Some(x), Some(y)) if x == y
                );
            if same {
                bail!(
                    "{a} and {b} both name {}: give each its own file",
                    path_a.display()
                );
            }
        }
    }
    Ok(())
}

/// `path` with every link and `..` resolved, also for a file not made yet (its folder
/// resolved, its name kept); `None` when its folder does not exist either.
fn resolved(path: &Path) -> Option<std::path::PathBuf> {
    if let Ok(full) = fs::canonicalize(path) {
        return Some(full);
    }
    let name = path.file_name()?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::canonicalize(folder).ok().map(|f| f.join(name))
}

/// `path`'s bytes: a regular file of at most `limit` bytes.
///
/// # Errors
/// As [`read`].
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>> {
    files::read_capped(path, limit).map_err(|e| match e {
        files::FileError::Io { path, source } => {
            anyhow::Error::new(source).context(format!("reading {}", path.display()))
        }
        other => other.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = std::env::temp_dir().join(format!("stonelab-input-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small.txt");
        fs::write(&small, "hello").unwrap();
        assert_eq!(read(&small).unwrap(), b"hello");
        assert_eq!(read_to_string(&small).unwrap(), "hello");
        let err = read_capped(&small, 4).unwrap_err().to_string();
        assert!(err.contains("over the 4-byte limit"), "{err}");
        let err = read(&dir).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let err = read(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let err = read(&dir.join("missing")).unwrap_err();
        assert!(format!("{err:#}").contains("missing"), "{err:#}");
        fs::write(&small, [0xff, 0xfe]).unwrap();
        let err = read_to_string(&small).unwrap_err().to_string();
        assert!(err.contains("not UTF-8"), "{err}");
        #[cfg(unix)]
        {
            // A FIFO with no writer: opening it would block forever.
            let fifo = dir.join("fifo");
            let _ = fs::remove_file(&fifo);
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo runs");
            assert!(made.success(), "mkfifo made {}", fifo.display());
            let err = read(&fifo).unwrap_err().to_string();
            assert!(err.contains("not a regular file"), "{err}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn outputs_are_checked_before_the_work() {
        let dir = std::env::temp_dir().join(format!("stonelab-output-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let err = check_output(&dir, "--out", false).unwrap_err().to_string();
        assert!(err.contains("is a folder"), "{err}");
        let err = check_output(&dir.join("no/such/file.bin"), "--csv", false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--csv") && err.contains("does not exist"),
            "{err}"
        );
        check_output(&dir.join("new.bin"), "--out", false).unwrap();
        check_output(Path::new("relative.bin"), "--out", false).unwrap();
        // An existing file needs force; a device does not.
        fs::write(dir.join("old.bin"), "kept").unwrap();
        let err = check_output(&dir.join("old.bin"), "--out", false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("exists: add --force"), "{err}");
        check_output(&dir.join("old.bin"), "--out", true).unwrap();
        check_output(Path::new("/dev/null"), "--json", false).unwrap();
        // A FIFO nothing reads is refused at once instead of blocking.
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let err = check_output(&fifo, "--out", true).unwrap_err().to_string();
        assert!(err.contains("is a FIFO: name a regular file"), "{err}");
        // Two outputs naming one file.
        let a = dir.join("a.csv");
        let err = check_distinct(&[("--csv", &a), ("--json", &a)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("--csv and --json both name"), "{err}");
        check_distinct(&[("--csv", &a), ("--json", &dir.join("b.json"))]).unwrap();
        // Spelled differently, not made yet: still one file.
        fs::create_dir_all(dir.join("sub")).unwrap();
        for other in [dir.join("sub/../a.csv"), dir.join("./a.csv")] {
            let err = check_distinct(&[("--csv", &a), ("--json", &other)])
                .expect_err("one file under two spellings")
                .to_string();
            assert!(err.contains("both name"), "{err}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
