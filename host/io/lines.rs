//! Lines of a byte stream, read in large chunks and split with `memchr`;
//! gzip input is recognised by its magic bytes and decompressed on the fly.
//! What one line may buffer is bounded ([`MAX_LINE_BYTES`]), and so, once a
//! budget is set, is the whole text ([`Lines::set_budget`]).

use std::io::{self, BufRead, Chain, Cursor, Read};

use flate2::bufread::GzDecoder;

/// Bytes read from the source at a time: the buffer starts at `FIRST_CHUNK`
/// (small inputs stay cheap) and doubles up to `CHUNK`; only a line that
/// does not fit grows it further, to at most [`MAX_LINE_BYTES`] + 1.
const FIRST_CHUNK: usize = 1 << 16;
const CHUNK: usize = 1 << 20;

/// The longest line read, in bytes without its `\n`. A data line takes
/// about 100 bytes, but comment lines can be long (a pasted abstract, an
/// embedded table), so the limit is generous; it is a limit so that input
/// with no newline (`/dev/zero`, a disk image, a gzip bomb) is refused
/// instead of growing one line buffer until the allocator aborts.
pub const MAX_LINE_BYTES: usize = 1 << 20;

// The buffer outgrows CHUNK only for a line that does not fit, so no
// buffer, and no line, is longer than MAX_LINE_BYTES + 1.
const _: () = assert!(CHUNK <= MAX_LINE_BYTES);

/// Why the next line could not be given.
#[derive(Debug)]
pub(super) enum LineError {
    Io(io::Error),
    /// Line `line` is longer than [`MAX_LINE_BYTES`].
    TooLong {
        line: u64,
    },
    /// The text goes on past `budget` bytes (see [`Lines::set_budget`])
    /// within line `line`.
    PastBudget {
        line: u64,
        budget: u64,
    },
}

impl From<io::Error> for LineError {
    fn from(e: io::Error) -> Self {
        LineError::Io(e)
    }
}

/// The gzip magic bytes.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A source with the bytes read to detect gzip put back in front.
type Whole<R> = Chain<Cursor<Vec<u8>>, R>;

/// A source as plain text: as it is, or decompressed.
pub(super) enum Decoded<R: Read> {
    Plain(Whole<R>),
    Gzip(Box<GzMembers<Whole<R>>>),
}

impl<R: Read> Decoded<R> {
    /// Whether the source was gzip.
    pub(super) fn is_gzip(&self) -> bool {
        matches!(self, Decoded::Gzip(_))
    }

    /// Bytes after the gzip data that were ignored (see [`GzMembers`]); 0
    /// for plain text.
    pub(super) fn ignored_trailing_bytes(&self) -> u64 {
        match self {
            Decoded::Plain(_) => 0,
            Decoded::Gzip(gz) => gz.trailing,
        }
    }
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Decoded::Plain(r) => r.read(buf),
            Decoded::Gzip(r) => r.read(buf),
        }
    }
}

/// `reader` as plain text, decompressed if it starts with the gzip magic
/// bytes.
pub(super) fn decompressed<R: Read>(mut reader: R) -> io::Result<Decoded<R>> {
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
    Ok(if magic[..got] == GZIP_MAGIC {
        Decoded::Gzip(Box::new(GzMembers::new(whole)))
    } else {
        Decoded::Plain(whole)
    })
}

/// The text of gzip members one after another (bgzip and parallel gzip
/// tools write several). Bytes after a member that do not start another
/// one are ignored and counted, as gzip(1) does ("trailing garbage
/// ignored"); a damaged member is still an error.
pub(super) struct GzMembers<R: Read> {
    /// The member being read; `None` once the input is done.
    member: Option<GzDecoder<Peekable<R>>>,
    trailing: u64,
}

impl<R: Read> GzMembers<R> {
    fn new(inner: R) -> Self {
        GzMembers {
            member: Some(GzDecoder::new(Peekable::new(inner))),
            trailing: 0,
        }
    }
}

impl<R: Read> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while let Some(member) = &mut self.member {
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The member ended: another one follows, or the rest is ignored.
            let mut rest = self.member.take().expect("a member").into_inner();
            if rest.peek(GZIP_MAGIC.len())? == GZIP_MAGIC {
                self.member = Some(GzDecoder::new(rest));
            } else {
                self.trailing = io::copy(&mut rest, &mut io::sink())?;
            }
        }
        Ok(0)
    }
}

/// A buffered reader that can look a few bytes ahead.
struct Peekable<R> {
    inner: R,
    buf: Vec<u8>,
    /// `buf[pos..end]` is read but not yet consumed.
    pos: usize,
    end: usize,
}

impl<R: Read> Peekable<R> {
    fn new(inner: R) -> Self {
        Peekable {
            inner,
            buf: vec![0; FIRST_CHUNK],
            pos: 0,
            end: 0,
        }
    }

    /// The next `n` bytes without consuming them (fewer at the end).
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.end - self.pos < n {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            while self.end < n {
                match self.inner.read(&mut self.buf[self.end..]) {
                    Ok(0) => break,
                    Ok(got) => self.end += got,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(&self.buf[self.pos..self.end.min(self.pos + n)])
    }
}

impl<R: Read> Read for Peekable<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Peekable<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.pos = 0;
            self.end = 0;
            self.end = loop {
                match self.inner.read(&mut self.buf) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => break other?,
                }
            };
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }
}

/// Lines of a reader, each without its `\n` (a `\r` before it stays; field
/// splitting treats it as space), numbered from 1, none longer than
/// [`MAX_LINE_BYTES`].
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
    /// The most bytes `inner` may give, once set.
    budget: Option<u64>,
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
            budget: None,
        }
    }

    /// The first `n` bytes of the input (fewer if it is shorter), reading
    /// no more than that: what a banner check needs, before any line is.
    pub(super) fn first_bytes(&mut self, n: usize) -> io::Result<&[u8]> {
        debug_assert_eq!(self.line, 0, "first_bytes after a line");
        let n = n.min(self.buf.len());
        while self.end < n && !self.eof {
            match self.inner.read(&mut self.buf[self.end..n]) {
                Ok(0) => self.eof = true,
                Ok(got) => {
                    self.end += got;
                    self.taken += got as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(&self.buf[..self.end.min(n)])
    }

    /// The next line and its number, `None` at the end of the input.
    #[inline]
    pub(super) fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, LineError> {
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

    /// The source the lines come from.
    pub(super) fn source(&self) -> &R {
        &self.inner
    }

    /// Number of the last line returned (0 before the first).
    pub(super) fn line(&self) -> u64 {
        self.line
    }

    /// Bytes of the lines returned so far, newlines included.
    pub(super) fn consumed(&self) -> u64 {
        self.taken - (self.end - self.start) as u64
    }

    /// From now on, an input that gives more than `budget` bytes in all is
    /// an error ([`LineError::PastBudget`]) once the lines within the
    /// budget are returned: for a stream whose length nothing else bounds.
    pub(super) fn set_budget(&mut self, budget: u64) {
        self.budget = Some(budget);
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
    /// Reads at most one byte past the budget, which then ends the lines.
    fn fill(&mut self) -> Result<(), LineError> {
        let next = self.line + 1;
        if let Some(budget) = self.budget
            && self.taken > budget
        {
            return Err(LineError::PastBudget { line: next, budget });
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end > MAX_LINE_BYTES {
            return Err(LineError::TooLong { line: next });
        }
        if self.end == self.buf.len() {
            // One unfinished line fills the buffer.
            let grown = (self.buf.len() * 2).min(MAX_LINE_BYTES + 1);
            self.buf.resize(grown, 0);
        } else if self.taken > 0 && self.buf.len() < CHUNK {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let mut room = self.buf.len();
        if let Some(budget) = self.budget {
            // taken ≤ budget here, so at least one byte is allowed.
            let allowed = (budget - self.taken).saturating_add(1).min(room as u64);
            room = room.min(self.end + allowed as usize);
        }
        while self.end < room {
            match self.inner.read(&mut self.buf[self.end..room]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.end += n;
                    self.taken += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
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
    fn a_line_of_the_limit_is_read_and_a_longer_one_refused_with_its_number() {
        let mut input = b"a\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES));
        input.extend_from_slice(b"\nb\n");
        assert_eq!(all_lines(&input)[1].1.len(), MAX_LINE_BYTES);
        // One byte more, from an endless source: refused once the buffer
        // holds the limit and a byte, never larger.
        let endless = io::repeat(b'x');
        let mut lines = Lines::new(b"a\n".chain(endless), None);
        lines.next_line().unwrap();
        let err = lines.next_line().unwrap_err();
        assert!(matches!(err, LineError::TooLong { line: 2 }), "{err:?}");
        assert_eq!(lines.buf.len(), MAX_LINE_BYTES + 1);
    }

    #[test]
    fn the_budget_ends_the_lines_after_those_within_it() {
        let mut lines = Lines::new(b"ab\ncd\nef\n".chain(io::repeat(b'\n')), None);
        lines.set_budget(6);
        assert_eq!(lines.next_line().unwrap(), Some((1, &b"ab"[..])));
        assert_eq!(lines.next_line().unwrap(), Some((2, &b"cd"[..])));
        let err = lines.next_line().unwrap_err();
        assert!(
            matches!(err, LineError::PastBudget { line: 3, budget: 6 }),
            "{err:?}"
        );
        // Exactly the budget is fine.
        let mut lines = Lines::new(&b"ab\ncd\n"[..], None);
        lines.set_budget(6);
        assert_eq!(lines.next_line().unwrap().unwrap().0, 1);
        assert_eq!(lines.next_line().unwrap().unwrap().0, 2);
        assert_eq!(lines.next_line().unwrap(), None);
    }

    #[test]
    fn first_bytes_reads_no_more_than_asked_and_the_lines_follow() {
        let mut lines = Lines::new(&b"%%Matrix\nnext"[..], None);
        assert_eq!(lines.first_bytes(4).unwrap(), b"%%Ma");
        assert_eq!(lines.taken, 4);
        assert_eq!(lines.next_line().unwrap(), Some((1, &b"%%Matrix"[..])));
        assert_eq!(lines.next_line().unwrap(), Some((2, &b"next"[..])));
        assert_eq!(Lines::new(&b"ab"[..], None).first_bytes(4).unwrap(), b"ab");
    }
}
