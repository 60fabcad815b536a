//! Helpers shared by the binary's integration tests.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A scratch folder `name` under the tests' temporary directory, removed if it exists.
pub fn run_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// [`stonelab`] with owned arguments and no input.
pub fn run(args: &[String]) -> (bool, String, String) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    stonelab(&refs, "")
}

/// Runs `stonelab` with `args`, feeding `stdin`; returns (success, stdout, stderr).
pub fn stonelab(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start stonelab");
    // A command that fails before reading its input closes the pipe: that is not an error here.
    if let Err(e) = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
    {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    let out = child.wait_with_output().expect("run stonelab");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder under the system's temporary folder with a unique name (the test binary, `what`,
/// the process id, a nanosecond timestamp and a per-process counter), removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(what: &str) -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!(
            "stonelab-{}-{what}-{}-{nanos}-{}",
            env!("CARGO_CRATE_NAME"),
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
