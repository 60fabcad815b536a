//! An engine subprocess whose pipes never block the caller: a writer thread takes lines from a
//! channel, a reader thread turns stdout into a channel of lines, and a third keeps the last
//! lines of stderr for error messages. Every wait has a deadline.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::lines::LineReader;

/// What the pipe threads report.
enum Event {
    /// A line of the engine's stdout.
    Line(String),
    /// The engine closed its stdout (it exited, most likely).
    Eof,
    /// Reading stdout or writing stdin failed.
    Io(String),
}

/// How many engine lines may wait unread.
const EVENT_QUEUE: usize = 4096;

/// How many stderr lines are kept for error messages.
const STDERR_LINES: usize = 8;

/// A running engine process.
pub(crate) struct EngineProcess {
    program: String,
    child: Child,
    to_engine: Option<Sender<String>>,
    events: Receiver<Event>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    stderr_thread: Option<JoinHandle<()>>,
    /// Set once the engine is known to be gone (end of stdout or a broken pipe).
    dead: Option<String>,
    /// Whether the last wait ended at its deadline.
    timed_out: bool,
    /// The line that asks the engine to exit (`quit` for NBoard, `END` for Gomocup).
    quit: &'static str,
}

/// Checks that `program` can be started: a path (with a `/`) to an executable file, or a
/// name found as one on `PATH`. A spec naming a missing engine is refused when it is read,
/// instead of forfeiting every game of a match.
///
/// # Errors
/// A message naming the program and what is wrong.
pub(crate) fn check_program(program: &str) -> Result<(), String> {
    fn executable(path: &std::path::Path) -> bool {
        let Ok(meta) = std::fs::metadata(path) else {
            return false;
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            meta.is_file() && meta.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        {
            meta.is_file()
        }
    }
    if program.contains('/') {
        let path = std::path::Path::new(program);
        return if executable(path) {
            Ok(())
        } else if path.exists() {
            Err(format!("{program} is not an executable file"))
        } else {
            Err(format!("no program at {program}"))
        };
    }
    let found = std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| executable(&dir.join(program)))
    });
    if found {
        Ok(())
    } else {
        Err(format!(
            "no program {program:?} on PATH (give its full path)"
        ))
    }
}

/// [`check_program`] for the program of a spec's `cmd` (`command`, split), as the spec's
/// error.
pub(crate) fn check_spec_program(
    spec: &search::Spec,
    command: &[String],
) -> Result<(), search::SpecError> {
    let Some(program) = command.first() else {
        return Ok(());
    };
    check_program(program).map_err(|why| search::SpecError::BadValue {
        agent: spec.name.clone(),
        key: "cmd".into(),
        value: spec.text("cmd").unwrap_or_default().into(),
        why,
    })
}

impl EngineProcess {
    /// Starts `argv[0]` with the other elements as arguments.
    pub(crate) fn spawn(argv: &[String]) -> Result<Self, String> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| "no engine command given".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start engine {program:?}: {e}"))?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("engine {program:?} started without its pipes"));
                }
            };
        // Bounded: an engine that floods its output is slowed down, not buffered without end.
        let (event_tx, events) = mpsc::sync_channel(EVENT_QUEUE);
        let (to_engine, lines_rx) = mpsc::channel::<String>();
        let writer_events = event_tx.clone();
        let spawned = thread::Builder::new()
            .name("engine-writer".into())
            .spawn(move || write_lines(stdin, &lines_rx, &writer_events))
            .and_then(|_| {
                thread::Builder::new()
                    .name("engine-reader".into())
                    .spawn(move || read_lines(stdout, &event_tx))
            })
            .and_then(|_| {
                let tail = Arc::new(Mutex::new(VecDeque::new()));
                let keep = Arc::clone(&tail);
                thread::Builder::new()
                    .name("engine-stderr".into())
                    .spawn(move || keep_tail(stderr, &keep))
                    .map(|handle| (tail, handle))
            });
        match spawned {
            Ok((stderr_tail, handle)) => Ok(EngineProcess {
                program: program.clone(),
                child,
                to_engine: Some(to_engine),
                events,
                stderr_tail,
                stderr_thread: Some(handle),
                dead: None,
                timed_out: false,
                quit: "quit",
            }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!(
                    "cannot start the threads for engine {program:?}: {e}"
                ))
            }
        }
    }

    /// Sets the line sent to ask the engine to exit when the process is dropped (`quit` by
    /// default).
    pub(crate) fn set_quit_command(&mut self, line: &'static str) {
        self.quit = line;
    }

    /// Whether the last [`wait_for`](Self::wait_for) failed because its deadline passed.
    pub(crate) fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// Queues one line for the engine; never blocks. A failed write shows up in the next
    /// [`wait_for`](Self::wait_for).
    pub(crate) fn send(&mut self, line: &str) -> Result<(), String> {
        if let Some(why) = &self.dead {
            return Err(why.clone());
        }
        let sent = self
            .to_engine
            .as_ref()
            .is_some_and(|tx| tx.send(line.to_string()).is_ok());
        if sent {
            Ok(())
        } else {
            // An engine that died at once (a bad option, say) may be gone before its first
            // line: say how it ended and what it wrote, as when it dies while we wait.
            let why = self.gone("before it read its input");
            self.dead = Some(why.clone());
            Err(why)
        }
    }

    /// Reads lines until `wanted` returns `Some`, at most until `deadline`. Lines it returns
    /// `None` for are dropped.
    pub(crate) fn wait_for<T>(
        &mut self,
        deadline: Instant,
        what: &str,
        mut wanted: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, String> {
        if let Some(why) = &self.dead {
            return Err(why.clone());
        }
        self.timed_out = false;
        loop {
            // Checked before every read, so an engine that talks without end still times out.
            let left = deadline.saturating_duration_since(Instant::now());
            let event = if left.is_zero() {
                Err(RecvTimeoutError::Timeout)
            } else {
                self.events.recv_timeout(left)
            };
            let why = match event {
                Ok(Event::Line(line)) => match wanted(&line) {
                    Some(found) => return Ok(found),
                    None => continue,
                },
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    self.gone(&format!("while we waited for {what}"))
                }
                Ok(Event::Io(e)) => self.gone(&format!("while we waited for {what} ({e})")),
                Err(RecvTimeoutError::Timeout) => {
                    self.timed_out = true;
                    format!("engine {:?} gave no {what} in time", self.program)
                }
            };
            self.dead = Some(why.clone());
            return Err(why);
        }
    }

    /// Why the engine is gone: its exit status (once it has exited) and its last stderr lines.
    fn gone(&mut self, when: &str) -> String {
        let (status, tail) = self.exit_details();
        let mut why = match status {
            Some(status) => format!("engine {:?} exited {when}: {status}", self.program),
            None => format!("engine {:?} closed its pipes {when}", self.program),
        };
        if !tail.is_empty() {
            why.push_str(&format!("; its stderr: {tail}"));
        }
        why
    }

    /// The exit status (once the process has exited) and the last stderr lines.
    fn exit_details(&mut self) -> (Option<ExitStatus>, String) {
        // Give the process and the stderr thread a moment to finish.
        let until = Instant::now() + Duration::from_millis(500);
        let mut status = None;
        while Instant::now() < until {
            if status.is_none() {
                status = self.child.try_wait().ok().flatten();
            }
            let stderr_done = self
                .stderr_thread
                .as_ref()
                .is_none_or(JoinHandle::is_finished);
            if status.is_some() && stderr_done {
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | "))
            .unwrap_or_default();
        (status, tail)
    }
}

impl Drop for EngineProcess {
    /// Asks the engine to quit (see [`set_quit_command`](Self::set_quit_command)), closes its input, and kills it if it has not exited soon after.
    fn drop(&mut self) {
        if self.dead.is_none() {
            let _ = self.send(self.quit);
        }
        // Dropping the sender ends the writer thread, which closes the engine's stdin.
        self.to_engine = None;
        let until = Instant::now() + Duration::from_millis(300);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_lines(mut stdin: ChildStdin, lines: &Receiver<String>, events: &SyncSender<Event>) {
    for line in lines {
        let result = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if let Err(e) = result {
            let _ = events.send(Event::Io(format!("writing {line:?}: {e}")));
            return;
        }
    }
}

fn read_lines(stdout: impl Read, events: &SyncSender<Event>) {
    let mut reader = LineReader::new(BufReader::new(stdout));
    loop {
        match reader.read_line() {
            Ok(Some((line, _))) => {
                if events.send(Event::Line(line)).is_err() {
                    return;
                }
            }
            Ok(None) => {
                let _ = events.send(Event::Eof);
                return;
            }
            Err(e) => {
                let _ = events.send(Event::Io(format!("reading: {e}")));
                return;
            }
        }
    }
}

fn keep_tail(stderr: impl Read, tail: &Mutex<VecDeque<String>>) {
    let mut reader = LineReader::new(BufReader::new(stderr));
    while let Ok(Some((line, _))) = reader.read_line() {
        if line.trim().is_empty() {
            continue;
        }
        if let Ok(mut tail) = tail.lock() {
            if tail.len() == STDERR_LINES {
                tail.pop_front();
            }
            tail.push_back(line.chars().take(300).collect());
        }
    }
}
