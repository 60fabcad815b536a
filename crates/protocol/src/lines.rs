//! Reading protocol lines safely: bounded length, any bytes (invalid UTF-8 is replaced, not an
//! error), `\n` or `\r\n` endings.

use std::io::{self, BufRead};

/// The longest line kept; the rest of a longer line is read and dropped. A GGF game of 60 moves
/// with evaluations and tags is well under 4 KiB.
pub const MAX_LINE: usize = 64 * 1024;

/// The most bytes [`read_line`] reads for one line: past it, what was read is a line (cut), so
/// that an endless input without a newline (`/dev/zero`) still gives lines, bounded in time.
pub const MAX_LINE_READ: usize = 16 << 20;

/// Reads one line into a string without its ending. `Ok(None)` at the end of input. A line
/// longer than [`MAX_LINE`] bytes is cut to that length (the second value is then `true`); one
/// longer than [`MAX_LINE_READ`] ends there, the rest being the next line.
///
/// # Errors
/// The reader's I/O errors (an interrupted read is retried).
pub fn read_line<R: BufRead + ?Sized>(reader: &mut R) -> io::Result<Option<(String, bool)>> {
    let mut bytes = Vec::new();
    let mut cut = false;
    let mut seen_any = false;
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
            break;
        }
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    Ok(Some((String::from_utf8_lossy(&bytes).into_owned(), cut)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_every_kind() {
        let mut input: &[u8] = b"a\r\nb\n\n\xff\xfec\nlast";
        let mut lines = Vec::new();
        while let Some((line, cut)) = read_line(&mut input).unwrap() {
            assert!(!cut);
            lines.push(line);
        }
        assert_eq!(lines, ["a", "b", "", "\u{fffd}\u{fffd}c", "last"]);
    }

    #[test]
    fn long_lines_are_cut_and_the_next_line_survives() {
        let mut text = vec![b'x'; MAX_LINE * 3];
        text.extend_from_slice(b"\nping 1\n");
        let mut reader = io::BufReader::with_capacity(1000, text.as_slice());
        let (first, cut) = read_line(&mut reader).unwrap().unwrap();
        assert!(cut);
        assert_eq!(first.len(), MAX_LINE);
        assert_eq!(
            read_line(&mut reader).unwrap(),
            Some(("ping 1".into(), false))
        );
        assert_eq!(read_line(&mut reader).unwrap(), None);
    }

    /// An endless input without a newline (`/dev/zero`) still gives lines, each after
    /// [`MAX_LINE_READ`] bytes.
    #[test]
    fn an_endless_line_ends_after_the_read_limit() {
        let mut reader = io::BufReader::new(io::repeat(0));
        for _ in 0..2 {
            let (line, cut) = read_line(&mut reader).unwrap().unwrap();
            assert!(cut);
            assert_eq!(line.len(), MAX_LINE);
        }
    }
}
