//! Lines of a byte stream, read in large chunks and split with `memchr`;
//! gzip input is recognised by its magic bytes and decompressed on the fly.

use std::io::{self, Cursor, Read};

use flate2::read::MultiGzDecoder;

/// Bytes read from the source at a time: the buffer starts at `FIRST_CHUNK`
/// (small inputs stay cheap) and doubles up to `CHUNK`, or past it for a
/// line that does not fit.
const FIRST_CHUNK: usize = 1 << 16;
const CHUNK: usize = 1 << 20;

/// `reader` as plain bytes, decompressed if it starts with the gzip magic
/// bytes; the flag says whether it did.
pub(super) fn decompressed<'a, R: Read + 'a>(
    mut reader: R,
) -> io::Result<(Box<dyn Read + 'a>, bool)> {
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < magic.len() {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let whole = Cursor::new(magic[..got].to_vec()).chain(reader);
    Ok(if magic[..got] == [0x1f, 0x8b] {
        // Multi-member: bgzip and parallel gzip tools write several members.
        (Box::new(MultiGzDecoder::new(whole)), true)
    } else {
        (Box::new(whole), false)
    })
}

/// Lines of a reader, each without its `\n` (a `\r` before it stays; field
/// splitting treats it as space), numbered from 1.
pub(super) struct Lines<R> {
    inner: R,
    buf: Vec<u8>,
    /// `buf[start..end]` is read but not yet returned.
    start: usize,
    end: usize,
    eof: bool,
    /// Number of the last line returned.
    line: u64,
    /// Bytes taken from `inner` so far.
    taken: u64,
    /// Total bytes `inner` will give, when known.
    size_hint: Option<u64>,
}

impl<R: Read> Lines<R> {
    pub(super) fn new(inner: R, size_hint: Option<u64>) -> Self {
        Lines {
            inner,
            buf: vec![0; FIRST_CHUNK],
            start: 0,
            end: 0,
            eof: false,
            line: 0,
            taken: 0,
            size_hint,
        }
    }

    /// The next line and its number, `None` at the end of the input.
    #[inline]
    pub(super) fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        loop {
            if let Some(len) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let start = self.start;
                self.start += len + 1;
                self.line += 1;
                return Ok(Some((self.line, &self.buf[start..start + len])));
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let start = self.start;
                self.start = self.end;
                self.line += 1;
                return Ok(Some((self.line, &self.buf[start..self.end])));
            }
            self.fill()?;
        }
    }

    /// Number of the last line returned (0 before the first).
    pub(super) fn line(&self) -> u64 {
        self.line
    }

    /// An upper bound on the bytes not yet returned, when one is known: the
    /// size hint, or what is buffered once the source is exhausted.
    pub(super) fn remaining_bytes(&self) -> Option<u64> {
        let buffered = (self.end - self.start) as u64;
        if self.eof {
            Some(buffered)
        } else {
            self.size_hint
                .map(|total| total.saturating_sub(self.taken) + buffered)
        }
    }

    /// Moves the unreturned bytes to the front, then reads until the buffer
    /// is full or the input ends (so a small input is known to have ended
    /// after one fill, and its size bounds what the header may reserve).
    fn fill(&mut self) -> io::Result<()> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() || (self.taken > 0 && self.buf.len() < CHUNK) {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        while self.end < self.buf.len() {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.end += n;
                    self.taken += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(input: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let mut lines = Lines::new(input, None);
        let mut out = Vec::new();
        while let Some((no, line)) = lines.next_line().unwrap() {
            out.push((no, line.to_vec()));
        }
        out
    }

    #[test]
    fn splits_lines_with_and_without_final_newline() {
        assert_eq!(
            all_lines(b"a\r\n\nbc"),
            [(1, b"a\r".to_vec()), (2, vec![]), (3, b"bc".to_vec())]
        );
        assert_eq!(all_lines(b"a\n"), [(1, b"a".to_vec())]);
        assert!(all_lines(b"").is_empty());
    }

    #[test]
    fn a_line_longer_than_the_buffer_grows_it() {
        let mut input = vec![b'x'; CHUNK * 3 + 5];
        input.extend_from_slice(b"\ny");
        let lines = all_lines(&input);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].1.len(), CHUNK * 3 + 5);
    }
}
