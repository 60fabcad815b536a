//! Reading protocol lines safely: bounded length, any bytes (invalid UTF-8 is replaced, not an
//! error), `\n` or `\r\n` endings.

use std::io::{self, BufRead};

/// The longest line kept; the rest of a longer line is read and dropped. A GGF game of 60 moves
/// with evaluations and tags is well under 4 KiB.
pub const MAX_LINE: usize = 64 * 1024;

/// The most bytes [`read_line`] reads for one line: past it, what was read is a line (cut), so
/// that an endless input without a newline (`/dev/zero`) still gives lines, bounded in time.
pub const MAX_LINE_READ: usize = 16 << 20;

/// Reads the lines of one input: each line once, however long it is.
///
/// A line longer than [`MAX_LINE`] bytes is cut to that length (the second value of
/// [`read_line`](Self::read_line) is then `true`). A read stops after [`MAX_LINE_READ`] bytes
/// without a newline, so an endless input (`/dev/zero`) still gives its first line in bounded
/// time; the rest of that line is then read and dropped by the next call, never answered as a
/// line of its own.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    /// The last piece read stopped inside a line, at the read limit.
    inside: bool,
}

impl<R: BufRead> LineReader<R> {
    /// Lines of `reader`.
    pub fn new(reader: R) -> Self {
        LineReader {
            reader,
            inside: false,
        }
    }

    /// The next line without its ending, and whether it was cut; `Ok(None)` at the end of input.
    ///
    /// # Errors
    /// The reader's I/O errors (an interrupted read is retried).
    pub fn read_line(&mut self) -> io::Result<Option<(String, bool)>> {
        loop {
            let Some((line, cut, ended)) = read_piece(&mut self.reader)? else {
                return Ok(None);
            };
            if std::mem::replace(&mut self.inside, !ended) {
                // The rest of a line already returned (cut): not a line of its own.
                continue;
            }
            return Ok(Some((line, cut || !ended)));
        }
    }
}

/// One piece of a line: its text (at most [`MAX_LINE`] bytes kept), whether bytes were dropped,
/// and whether the line ended (a newline or the end of input) rather than the read limit.
fn read_piece<R: BufRead + ?Sized>(reader: &mut R) -> io::Result<Option<(String, bool, bool)>> {
    let mut bytes = Vec::new();
    let mut cut = false;
    let mut seen_any = false;
    let mut ended = false;
    let mut read = 0usize;
    while read < MAX_LINE_READ {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            ended = true;
            break;
        }
        seen_any = true;
        let buf = &buf[..buf.len().min(MAX_LINE_READ - read)];
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = MAX_LINE.saturating_sub(bytes.len());
        if chunk.len() > room {
            cut = true;
        }
        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        read += used;
        reader.consume(used);
        if done.is_some() {
            ended = true;
            break;
        }
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    Ok(Some((
        String::from_utf8_lossy(&bytes).into_owned(),
        cut,
        ended,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_every_kind() {
        let mut input = LineReader::new(&b"a\r\nb\n\n\xff\xfec\nlast"[..]);
        let mut lines = Vec::new();
        while let Some((line, cut)) = input.read_line().unwrap() {
            assert!(!cut);
            lines.push(line);
        }
        assert_eq!(lines, ["a", "b", "", "\u{fffd}\u{fffd}c", "last"]);
    }

    #[test]
    fn long_lines_are_cut_and_the_next_line_survives() {
        let mut text = vec![b'x'; MAX_LINE * 3];
        text.extend_from_slice(b"\nping 1\n");
        let mut reader = LineReader::new(io::BufReader::with_capacity(1000, text.as_slice()));
        let (first, cut) = reader.read_line().unwrap().unwrap();
        assert!(cut);
        assert_eq!(first.len(), MAX_LINE);
        assert_eq!(reader.read_line().unwrap(), Some(("ping 1".into(), false)));
        assert_eq!(reader.read_line().unwrap(), None);
    }

    /// A line longer than the read limit is one line, not two: the rest after the limit is
    /// dropped with it, and the next line is read as it is.
    #[test]
    fn a_line_past_the_read_limit_is_one_line() {
        let mut text = vec![b'y'; MAX_LINE_READ + MAX_LINE_READ / 2];
        text.extend_from_slice(b"\nping 2\n");
        let mut reader = LineReader::new(io::BufReader::new(text.as_slice()));
        let (first, cut) = reader.read_line().unwrap().unwrap();
        assert!(cut);
        assert_eq!(first.len(), MAX_LINE);
        assert_eq!(reader.read_line().unwrap(), Some(("ping 2".into(), false)));
        assert_eq!(reader.read_line().unwrap(), None);
    }

    /// An endless input without a newline (`/dev/zero`) still gives its first line, after
    /// [`MAX_LINE_READ`] bytes.
    #[test]
    fn an_endless_line_gives_its_first_line_after_the_read_limit() {
        let mut reader = LineReader::new(io::BufReader::new(io::repeat(0)));
        let (line, cut) = reader.read_line().unwrap().unwrap();
        assert!(cut);
        assert_eq!(line.len(), MAX_LINE);
    }
}
