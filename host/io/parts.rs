//! A MatrixMarket coordinate file read in parts by byte ranges, for
//! processes that each read their own part of one file (the mpi engine):
//! [`mtx_layout`] reads the header once and says where the entry lines
//! begin; [`read_mtx_part`] reads the entry lines that *start* in a byte
//! range (a line crossing the range's end is read whole; one crossing its
//! start is the previous part's), with the whole-file reader's checks and
//! messages. Parts that cover the entry bytes without gaps read every line
//! exactly once, in file order. Writing in parts is
//! [`write_coordinate_rows`](super::write_coordinate_rows) and
//! [`PartedFile`](super::PartedFile).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use super::lines::{Lines, decompressed};
use super::read::{EntryReader, line_error, read_header};
use super::{Header, Layout, ReadNotes, ReadOptions, printable};
use crate::error::{Error, Result};
use crate::format::Coo;
use crate::scalar::Scalar;

/// Where a plain coordinate file's entry lines are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtxLayout {
    /// The banner and size line.
    pub header: Header,
    /// The byte where the line after the size line starts.
    pub entries_at: u64,
    /// Lines up to and including the size line.
    pub header_lines: u64,
    /// The file's length in bytes.
    pub len: u64,
}

impl MtxLayout {
    /// The entry bytes cut into `parts` ranges of about equal length, in
    /// file order: part `k`'s.
    pub fn part(&self, k: usize, parts: usize) -> Range<u64> {
        let bytes = self.len - self.entries_at;
        let at = |k: usize| self.entries_at + (bytes as u128 * k as u128 / parts as u128) as u64;
        at(k)..at(k + 1)
    }
}

/// The entry lines of one part of a file, as [`read_mtx_part`] read them.
#[derive(Clone, Debug, PartialEq)]
pub struct MtxPart<T> {
    /// Entries in file order, symmetric storage expanded, duplicates kept.
    pub coo: Coo<T>,
    /// Lines the part holds (those that start in its range).
    pub lines: u64,
    /// Entry lines among them (comments and blank lines left out), dropped
    /// ones included.
    pub entries: usize,
    /// Entry lines skipped by [`ReadOptions::drop_invalid`].
    pub dropped: usize,
    /// What reading changed; `first_nan` counts lines from the part's first.
    pub notes: ReadNotes,
}

/// The header of the MatrixMarket file at `path` and where its entries
/// begin, or `None` where the file cannot be read in parts: gzip (a stream
/// has no byte to start at but its first), an `array` file (its entries'
/// places are their line numbers), or not a regular file.
pub fn mtx_layout(path: impl AsRef<Path>) -> Result<Option<MtxLayout>> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let name = &*printable(&shown);
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Ok(None);
    }
    let source = decompressed(file).map_err(io_err)?;
    if source.is_gzip() {
        return Ok(None);
    }
    let mut lines = Lines::new(source, Some(meta.len()));
    let header = read_header(&mut lines, name)?;
    Ok((header.layout == Layout::Coordinate).then(|| MtxLayout {
        header,
        entries_at: lines.consumed(),
        header_lines: lines.line(),
        len: meta.len(),
    }))
}

/// Reads the entry lines of `path` (laid out as `layout` says) that start
/// in `bytes`, refusing the entry after the first `allowed` of the part as
/// one too many (the caller knows how many the parts before it hold; pass
/// `usize::MAX` when it does not). Errors are the whole-file reader's, but
/// an [`Error::Parse`] counts lines from the part's first (line 1): the
/// caller adds the lines before the part. The part's entry count is not
/// checked against the size line: the caller adds up the parts'.
pub fn read_mtx_part<T: Scalar>(
    path: impl AsRef<Path>,
    layout: &MtxLayout,
    bytes: Range<u64>,
    opts: &ReadOptions,
    allowed: usize,
) -> Result<MtxPart<T>> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let name = &*printable(&shown);
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let header = layout.header;
    let mut coo = Coo::new(header.nrows, header.ncols)?;
    let start = bytes.start.max(layout.entries_at);
    let end = bytes.end.min(layout.len);
    if start >= end {
        return Ok(MtxPart {
            coo,
            lines: 0,
            entries: 0,
            dropped: 0,
            notes: ReadNotes::default(),
        });
    }
    let mut file = File::open(path).map_err(io_err)?;
    // A line starts at `start` when it is the first entry byte or follows
    // a newline; else the line under way is the previous part's.
    let mut before = [b'\n'];
    if start > layout.entries_at {
        file.seek(SeekFrom::Start(start - 1)).map_err(io_err)?;
        file.read_exact(&mut before).map_err(io_err)?;
    } else {
        file.seek(SeekFrom::Start(start)).map_err(io_err)?;
    }
    let mut lines = Lines::new(file, Some(layout.len - start));
    if before[0] != b'\n' {
        lines.next_line().map_err(|e| line_error(name, e))?;
    }
    let skipped = lines.line();
    let reader = EntryReader { name, opts, header };
    let shortest = reader.shortest_entry_line();
    reader.reserve(&mut coo, Some(end - start), shortest)?;
    let mut notes = ReadNotes::default();
    let read = reader.entry_lines(&mut lines, &mut coo, &mut notes, allowed, end - start);
    let (entries, dropped) = read.map_err(|e| match e {
        Error::Parse { file, line, reason } => Error::Parse {
            file,
            line: line.saturating_sub(skipped),
            reason,
        },
        e => e,
    })?;
    notes.first_nan = notes.first_nan.map(|line| line - skipped);
    Ok(MtxPart {
        coo,
        lines: lines.line() - skipped,
        entries,
        dropped,
        notes,
    })
}

/// Where reading a file in parts went wrong, if it did, given each
/// part's [`MtxPart::lines`] and [`MtxPart::entries`] in file order
/// (`None` for a part whose read failed): `Ok` when every part was read
/// and the entries are those the size line declares; else the error the
/// whole-file reader gives first. That is a part's own error, or the
/// entry after the declared count (which a part read with `usize::MAX`
/// allowed cannot see): then `Err(Reread)` names the part to read again
/// with the entries it is allowed. Too few entries is an error here.
pub fn check_parts(
    path: impl AsRef<Path>,
    layout: &MtxLayout,
    parts: &[Option<(u64, usize)>],
) -> std::result::Result<(), PartError> {
    let declared = layout.header.declared_entries;
    let (mut lines, mut entries) = (layout.header_lines, 0usize);
    for (k, part) in parts.iter().enumerate() {
        match part {
            Some((l, e)) if entries + e <= declared => {
                lines += l;
                entries += e;
            }
            _ => {
                return Err(PartError::Reread {
                    part: k,
                    allowed: declared - entries,
                    lines_before: lines,
                });
            }
        }
    }
    if entries < declared {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let opts = ReadOptions::default();
        let reader = EntryReader {
            name: &printable(&shown),
            opts: &opts,
            header: layout.header,
        };
        return Err(PartError::Whole(
            reader.error(lines + 1, reader.too_few(entries)),
        ));
    }
    Ok(())
}

/// What [`check_parts`] found wrong.
#[derive(Debug)]
pub enum PartError {
    /// Part `part`, read again with `allowed` entries, fails with the
    /// file's first error, its line counted after `lines_before` lines
    /// (pass the error through [`after_lines`]).
    Reread {
        /// The part, in file order.
        part: usize,
        /// Entries the size line leaves for it.
        allowed: usize,
        /// Lines of the file before the part's first.
        lines_before: u64,
    },
    /// The error of the whole file.
    Whole(Error),
}

/// `error` of a part whose first line follows `lines_before` lines of the
/// file: a parse error's line counted in the whole file.
pub fn after_lines(error: Error, lines_before: u64) -> Error {
    match error {
        Error::Parse { file, line, reason } => Error::Parse {
            file,
            line: line + lines_before,
            reason,
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{read_mtx, write_mtx};

    /// Every way of cutting a file in parts, from one byte a part up,
    /// reads its entries once each, in file order, and counts its lines.
    #[test]
    fn parts_read_every_line_once_in_file_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.mtx");
        let text = "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 4\n\
                    1 1 1.5\n\n2 1 -2\n% mid\n3 2 3e-1\n3 3 4";
        std::fs::write(&path, text).unwrap();
        let whole = read_mtx::<f64>(&path, &ReadOptions::default()).unwrap();
        let layout = mtx_layout(&path).unwrap().unwrap();
        assert_eq!((layout.header_lines, layout.len), (3, text.len() as u64));
        for parts in 1..=text.len() {
            let mut coo = Coo::<f64>::new(3, 3).unwrap();
            let (mut lines, mut entries) = (layout.header_lines, 0);
            for k in 0..parts {
                let part = read_mtx_part::<f64>(
                    &path,
                    &layout,
                    layout.part(k, parts),
                    &ReadOptions::default(),
                    usize::MAX,
                )
                .unwrap();
                for e in 0..part.coo.nnz() {
                    let (r, c) = (part.coo.rows()[e], part.coo.cols()[e]);
                    coo.push_unchecked(r, c, part.coo.values()[e]);
                }
                lines += part.lines;
                entries += part.entries;
            }
            assert_eq!(coo, whole.coo, "{parts} parts");
            assert_eq!((lines, entries), (9, 4), "{parts} parts");
        }
    }

    #[test]
    fn a_bad_line_is_named_from_the_parts_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.mtx");
        let a = crate::Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![1.0, 2.0]).unwrap();
        write_mtx(&path, &a, crate::io::Field::Real).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("2 x 1\n");
        std::fs::write(&path, &text).unwrap();
        let layout = mtx_layout(&path).unwrap().unwrap();
        let opts = ReadOptions::default();
        let last = layout.len - 6..layout.len;
        match read_mtx_part::<f64>(&path, &layout, last, &opts, usize::MAX) {
            Err(Error::Parse { line, reason, .. }) => {
                assert_eq!(line, 1);
                assert!(reason.contains("`x`"), "{reason}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        let all = layout.entries_at..layout.len;
        match read_mtx_part::<f64>(&path, &layout, all, &opts, 2) {
            Err(Error::Parse { line, reason, .. }) => {
                assert_eq!(line, 3);
                assert!(reason.contains("too many"), "{reason}");
            }
            other => panic!("expected too many entries, got {other:?}"),
        }
        let gz = dir.path().join("a.mtx.gz");
        write_mtx(&gz, &a, crate::io::Field::Real).unwrap();
        assert_eq!(mtx_layout(&gz).unwrap(), None);
    }
}
