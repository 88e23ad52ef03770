//! The MatrixMarket reader at its limits: input that is not MatrixMarket is
//! refused within its first bytes, no line is buffered past
//! `MAX_LINE_BYTES`, a stream is held to what its size line declares, gzip
//! comes through a pipe, and messages escape the control characters a file
//! or its name holds. The inputs are endless readers and small gzip bombs
//! made here, so the tests themselves allocate little.

use std::io::{self, Read, Write};
use std::path::Path;

use spmx::Error;
use spmx::io::{MAX_LINE_BYTES, ReadOptions, read_mtx, read_mtx_from};

const COORD_REAL: &str = "%%MatrixMarket matrix coordinate real general\n";

/// A reader that counts the bytes it gives.
struct Counting<R> {
    inner: R,
    taken: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken += n as u64;
        Ok(n)
    }
}

fn counting<R: Read>(inner: R) -> Counting<R> {
    Counting { inner, taken: 0 }
}

/// Reads `reader` as a stream named `name`; the error it must give.
fn refused<R: Read>(reader: R, name: &str) -> Error {
    read_mtx_from::<f64, _>(reader, name, &ReadOptions::default()).unwrap_err()
}

/// `err` is a parse error at `line` whose message contains `reason`.
fn assert_parse(err: &Error, line: u64, reason: &str) {
    let msg = err.to_string();
    assert!(
        matches!(err, Error::Parse { line: l, .. } if *l == line),
        "{msg}: expected a parse error at line {line}"
    );
    assert!(msg.contains(reason), "{msg:?} lacks {reason:?}");
}

/// `prefix` and `len` bytes of `byte`, gzip-compressed as they are made (a
/// gzip bomb of about len / 1000 bytes).
fn gzip_of_repeated(prefix: &[u8], byte: u8, len: u64) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(prefix).unwrap();
    io::copy(&mut io::repeat(byte).take(len), &mut gz).unwrap();
    gz.finish().unwrap()
}

// ---- refused at the banner ----

#[test]
fn a_file_of_nul_bytes_is_refused_at_the_banner() {
    let mut zeros = counting(io::repeat(0));
    let err = refused(&mut zeros, "zeros");
    assert_parse(&err, 1, "bad banner: the file starts with `\\x00\\x00");
    assert!(zeros.taken <= 64, "read {} bytes", zeros.taken);
    // A 3 GB file of NUL bytes (sparse: it takes no disk).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zeros.mtx");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let err = read_mtx::<f64>(&path, &ReadOptions::default()).unwrap_err();
    assert_parse(&err, 1, "bad banner");
}

#[cfg(unix)]
#[test]
fn dev_zero_is_refused_at_the_banner() {
    let err = read_mtx::<f64>(Path::new("/dev/zero"), &ReadOptions::default()).unwrap_err();
    assert_parse(&err, 1, "bad banner: the file starts with `\\x00");
    assert!(err.to_string().starts_with("/dev/zero:1: "), "{err}");
}

#[test]
fn a_gzip_of_zeros_is_refused_at_the_banner() {
    let bomb = gzip_of_repeated(b"", 0, 64 << 20);
    let mut compressed = counting(&bomb[..]);
    let err = refused(&mut compressed, "zeros.gz");
    assert_parse(&err, 1, "bad banner: the file starts with `\\x00");
    // One buffer of compressed input at most, not the 64 MiB it inflates to.
    assert!(
        compressed.taken <= 1 << 17,
        "read {} bytes",
        compressed.taken
    );
}

// ---- no line past the limit ----

#[test]
fn a_line_longer_than_the_limit_is_refused_with_its_number_and_the_limit() {
    let limit = format!("line longer than the limit of {MAX_LINE_BYTES} bytes");
    // An endless comment in the header, an endless value among the entries.
    let cases: [(String, u64); 2] = [
        (format!("{COORD_REAL}% "), 2),
        (format!("{COORD_REAL}2 2 2\n1 1 1\n1 2 1"), 4),
    ];
    for (head, line) in cases {
        let mut endless = counting(head.as_bytes().chain(io::repeat(b'0')));
        let err = refused(&mut endless, "long");
        assert_parse(&err, line, &limit);
        // What was read is at most the header, one line's limit and a byte.
        let most = (head.len() + MAX_LINE_BYTES + 1) as u64;
        assert!(endless.taken <= most, "read {} bytes", endless.taken);
    }
}

#[test]
fn a_comment_of_the_limit_is_read() {
    let comment = "%".repeat(MAX_LINE_BYTES);
    // In the header, among the entries (within a stream's slack) and last.
    let text = format!("{COORD_REAL}{comment}\n1 1 1\n{comment}\n1 1 2.5\n");
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "long", &ReadOptions::default()).unwrap();
    assert_eq!(m.coo.values(), [2.5]);
    let text = format!("{COORD_REAL}{comment}\n1 1 1\n1 1 2.5\n{comment}");
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "long", &ReadOptions::default()).unwrap();
    assert_eq!(m.coo.values(), [2.5]);
}

// ---- a stream is held to its size line ----

/// `COORD_REAL`, a size line of 2 entries, the entries.
const TWO_ENTRIES: &str = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n";

#[test]
fn a_gzip_stream_past_its_size_line_is_refused() {
    let bomb_reason = "refused as an endless stream or a decompression bomb";
    // 16 MiB of blank lines or comments after the entries, in a few kB.
    for fill in [&b"\n"[..], b"%\n"] {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(TWO_ENTRIES.as_bytes()).unwrap();
        for _ in 0..(16 << 20) / (fill.len() << 12) {
            gz.write_all(&fill.repeat(1 << 12)).unwrap();
        }
        let bomb = gz.finish().unwrap();
        assert!(bomb.len() < 1 << 16, "{} bytes", bomb.len());
        let err = refused(&bomb[..], "bomb.gz");
        let msg = err.to_string();
        assert!(
            matches!(err, Error::Parse { .. }) && msg.contains(bomb_reason),
            "{msg}"
        );
        assert!(msg.starts_with("bomb.gz:"), "{msg}");
    }
    // The same text with room to spare is read.
    let fine = gzip_of_repeated(TWO_ENTRIES.as_bytes(), b'\n', 1 << 19);
    let m = read_mtx_from::<f64, _>(&fine[..], "fine.gz", &ReadOptions::default()).unwrap();
    assert_eq!(m.coo.nnz(), 2);
}

#[test]
fn an_endless_pipe_of_blank_lines_is_refused() {
    let mut endless = counting(TWO_ENTRIES.as_bytes().chain(io::repeat(b'\n')));
    let err = refused(&mut endless, "pipe");
    assert!(err.to_string().contains("decompression bomb"), "{err}");
    // The budget: header, 1 KiB an entry, 1 MiB of slack, and a byte.
    let budget = 2 * 1024 + (MAX_LINE_BYTES as u64) + 52;
    assert!(endless.taken <= budget + 1, "read {} bytes", endless.taken);
}

#[test]
fn a_regular_file_is_not_held_to_the_stream_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blank.mtx");
    let text = format!("{TWO_ENTRIES}{}", "\n".repeat(2 * MAX_LINE_BYTES));
    std::fs::write(&path, &text).unwrap();
    let m = read_mtx::<f64>(&path, &ReadOptions::default()).unwrap();
    assert_eq!(m.coo.nnz(), 2);
    // The same bytes as a stream of unknown length are past its budget.
    let file = std::fs::File::open(&path).unwrap();
    assert!(read_mtx_from::<f64, _>(file, "stream", &ReadOptions::default()).is_err());
}

// ---- gzip through a pipe ----

/// A reader that cannot seek and gives a few bytes at a time, as a pipe
/// may.
struct Trickle<'a> {
    bytes: &'a [u8],
    reads: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        let n = (1 + self.reads % 7).min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

#[test]
fn gzip_is_read_from_a_pipe_like_reader() {
    let text = format!("{COORD_REAL}% made here\n3 3 4\n1 1 1.5\n2 3 -2\n3 1 1e-300\n3 3 7\n");
    let plain = read_mtx_from::<f64, _>(text.as_bytes(), "plain", &ReadOptions::default())
        .unwrap()
        .coo;
    // Two gzip members, as bgzip writes, each made from half the text.
    let (head, tail) = text.split_at(text.len() / 2);
    let mut gz = gzip_of_repeated(head.as_bytes(), b'\n', 0);
    gz.extend(gzip_of_repeated(tail.as_bytes(), b'\n', 0));
    for bytes in [&gz[..], text.as_bytes()] {
        let pipe = Trickle { bytes, reads: 0 };
        let m = read_mtx_from::<f64, _>(pipe, "-", &ReadOptions::default()).unwrap();
        assert_eq!(m.coo, plain);
        assert_eq!(m.notes.ignored_trailing_bytes, 0);
    }
}

// ---- control characters in messages ----

#[test]
fn a_terminal_title_sequence_on_a_bad_line_is_escaped() {
    let cases = [
        // A bad value, a bad index, a banner word, a bidi override.
        (
            format!("{COORD_REAL}1 1 1\n1 1 \x1b]0;pwned\x07\n"),
            3,
            "`\\x1b]0;pwned\\x07` is not a real number",
        ),
        (
            format!("{COORD_REAL}1 1 1\n\x1b[2J 1 1\n"),
            3,
            "`\\x1b[2J` is not an integer",
        ),
        (
            "%%MatrixMarket matrix \x1b[31mred real general\n".to_string(),
            1,
            "unknown format `\\x1b[31mred`",
        ),
        (
            format!("{COORD_REAL}1 1 1\n1 1 \u{202e}1\n"),
            3,
            "`\\u{202e}1`",
        ),
        (
            "\x1b]0;pwned\x07 matrix\n".to_string(),
            1,
            "starts with `\\x1b]0;pwned\\x07 matrix`",
        ),
    ];
    for (text, line, quoted) in cases {
        let err = refused(text.as_bytes(), "x");
        assert_parse(&err, line, quoted);
        let msg = err.to_string();
        assert!(!msg.contains(['\x1b', '\x07', '\u{202e}']), "{msg:?}");
    }
}

#[test]
fn a_source_name_with_control_characters_is_escaped_in_errors() {
    let bad = format!("{COORD_REAL}1 1 1\n1 x 1\n");
    let err = refused(bad.as_bytes(), "evil\x1b]0;t\x07.mtx");
    let Error::Parse { file, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(file, "evil\\x1b]0;t\\x07.mtx");
    // A file whose name holds a newline, read by path.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two\nlines.mtx");
    std::fs::write(&path, &bad).unwrap();
    let err = read_mtx::<f64>(&path, &ReadOptions::default()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("two\\x0alines.mtx:3: "), "{msg}");
    assert!(!msg.contains('\n'), "{msg:?}");
}
