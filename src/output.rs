//! Standard output for the commands: a closed pipe (`stonelab perft | head -1`) ends the
//! process quietly and a failed write (a full disk) with one error line, never a panic.

use std::fmt;
use std::io::{self, Write};

/// Writes `args` to standard output; on failure the process ends (see the module).
pub fn write(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    // Standard output is line-buffered: a line is written at its newline, a part at once.
    let written = if newline {
        writeln!(out, "{args}")
    } else {
        out.write_fmt(args).and_then(|()| out.flush())
    };
    if let Err(e) = written {
        gone(&e);
    }
}

/// Ends the process after a failed write to standard output: quietly with status 141 (as a
/// process killed by SIGPIPE) when the reader has gone, otherwise with an error line and 1.
fn gone(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// `println!` for the commands' results (see the module).
macro_rules! outln {
    () => {
        $crate::output::write(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*), true)
    };
}

/// `print!` for the commands' results (see the module).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*), false)
    };
}
