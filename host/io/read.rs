//! The MatrixMarket reader: header, then one pass over the entry lines that
//! checks every index against the declared shape and the entry count
//! against the size line, expanding symmetric storage as it goes.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::fields::{Fields, data_fields, parse_unsigned, show};
use super::header::{BANNER_WINDOW, check_banner_start, parse_banner, parse_size};
use super::lines::{LineError, Lines, MAX_LINE_BYTES, decompressed};
use super::{
    Field, Header, IndexBase, Layout, MtxMatrix, ReadNotes, ReadOptions, Symmetry, printable,
};
use crate::error::{Error, Result};
use crate::format::Coo;
use crate::scalar::{IntegerTextError, Scalar};

/// Entries reserved up front when the input's size is unknown (a stream,
/// gzip): a lying size line must not allocate, so larger matrices grow.
const UNKNOWN_SIZE_RESERVE: u64 = 1 << 20;

/// Text bytes allowed per declared entry in a stream of unknown length (a
/// pipe, gzip). An entry line takes 10–60 bytes (two indices, a value in
/// its shortest exact form); 1 KiB leaves room for padding and long value
/// forms while bounding what a small gzip bomb may inflate to.
pub const STREAM_BYTES_PER_ENTRY: u64 = 1 << 10;

/// Text bytes allowed in such a stream beyond its header and entries, for
/// blank lines and comments among or after the entries: one longest line.
pub const STREAM_SLACK_BYTES: u64 = MAX_LINE_BYTES as u64;

/// Reads a MatrixMarket file (gzip-compressed or not) into COO. A regular
/// file's text is as long as the file; anything else (a device, a FIFO) is
/// held to the budget of a stream (see [`read_mtx_from`]).
pub fn read_mtx<T: Scalar>(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<MtxMatrix<T>> {
    let path = path.as_ref();
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    let size_hint = meta.is_file().then_some(meta.len());
    read_source(file, size_hint, &path.display().to_string(), opts)
}

/// Reads MatrixMarket text (gzip-compressed or not, told by its first
/// bytes, so `reader` need not seek: standard input works) from `reader`;
/// `name` stands for the source in error messages, its control characters
/// escaped by [`printable`].
///
/// The length of a stream is bounded by what its size line declares: text
/// past the header read so far plus [`STREAM_BYTES_PER_ENTRY`] a declared
/// entry plus [`STREAM_SLACK_BYTES`] is refused (an endless pipe of blank
/// lines, a gzip bomb). No line may be longer than
/// [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES), and input whose first bytes
/// cannot begin the `%%MatrixMarket` banner is refused after reading a few
/// dozen of them.
pub fn read_mtx_from<T: Scalar, R: Read>(
    reader: R,
    name: &str,
    opts: &ReadOptions,
) -> Result<MtxMatrix<T>> {
    read_source(reader, None, name, opts)
}

/// [`read_mtx_from`] for a reader of a regular file of `len` bytes (one
/// that [`read_mtx`] would open, wrapped, say, by a progress display): its
/// length is known, so it is not held to the stream budget.
pub fn read_mtx_sized<T: Scalar, R: Read>(
    reader: R,
    len: u64,
    name: &str,
    opts: &ReadOptions,
) -> Result<MtxMatrix<T>> {
    read_source(reader, Some(len), name, opts)
}

/// The text bytes a stream of unknown length may hold, given the bytes of
/// its header and the entries its size line declares.
fn stream_budget(header_bytes: u64, declared_entries: usize) -> u64 {
    (declared_entries as u64)
        .saturating_mul(STREAM_BYTES_PER_ENTRY)
        .saturating_add(header_bytes)
        .saturating_add(STREAM_SLACK_BYTES)
}

fn read_source<T: Scalar, R: Read>(
    reader: R,
    size_hint: Option<u64>,
    name: &str,
    opts: &ReadOptions,
) -> Result<MtxMatrix<T>> {
    let name = &*printable(name);
    let source = decompressed(reader).map_err(|e| line_error(name, e.into()))?;
    // A compressed file's length says nothing about the text's.
    let size_hint = size_hint.filter(|_| !source.is_gzip());
    let mut lines = Lines::new(source, size_hint);
    let header = read_header(&mut lines, name)?;
    if size_hint.is_none() {
        lines.set_budget(stream_budget(lines.consumed(), header.declared_entries));
    }
    fits_in_memory::<T>(&header, crate::memory::total_bytes())
        .map_err(|reason| Error::TooLarge(format!("{name}:{}: {reason}", lines.line())))?;
    let reader = EntryReader { name, opts, header };
    let mut notes = ReadNotes::default();
    let (coo, dropped) = match reader.header.layout {
        Layout::Coordinate => reader.coordinate(&mut lines, &mut notes)?,
        Layout::Array => reader.array(&mut lines, &mut notes)?,
    };
    notes.ignored_trailing_bytes = lines.source().ignored_trailing_bytes();
    Ok(MtxMatrix {
        header: reader.header,
        coo,
        dropped,
        notes,
    })
}

fn parse_error(name: &str, line: u64, reason: impl Into<String>) -> Error {
    Error::Parse {
        file: name.to_string(),
        line,
        reason: reason.into(),
    }
}

/// The error for a line that could not be read from source `name`.
pub(super) fn line_error(name: &str, error: LineError) -> Error {
    match error {
        LineError::Io(source) => Error::Io {
            path: PathBuf::from(name),
            source,
        },
        LineError::TooLong { line } => parse_error(
            name,
            line,
            format!("line longer than the limit of {MAX_LINE_BYTES} bytes"),
        ),
        LineError::PastBudget { line, budget } => parse_error(
            name,
            line,
            format!(
                "the text goes on past {budget} bytes, more than its header and the entries \
                 its size line declares can take ({STREAM_BYTES_PER_ENTRY} bytes an entry, \
                 {STREAM_SLACK_BYTES} for blank lines and comments): refused as an endless \
                 stream or a decompression bomb"
            ),
        ),
    }
}

/// Ok when the entries `header` declares (symmetric storage counted twice,
/// as it may expand) fit in `memory` bytes as COO (row, column and value
/// each); else why not, with the numbers. Checked before anything is
/// allocated, so a size line that claims too much fails at once.
fn fits_in_memory<T>(header: &Header, memory: Option<u64>) -> Result<(), String> {
    let Some(memory) = memory else {
        return Ok(());
    };
    let stored = header.declared_entries as u64;
    let entries = match header.symmetry {
        Symmetry::General => stored,
        _ => stored.saturating_mul(2),
    };
    let per_entry = (8 + size_of::<T>()) as u64;
    let bytes = entries.saturating_mul(per_entry);
    if bytes <= memory {
        return Ok(());
    }
    let gb = |b: u64| b as f64 / 1e9;
    Err(format!(
        "the size line declares {stored} entries ({entries} once expanded): holding them takes \
         {bytes} bytes ({:.1} GB at {per_entry} bytes an entry), more than this machine's \
         {memory} bytes ({:.1} GB) of memory",
        gb(bytes),
        gb(memory)
    ))
}

/// Banner, comments and blank lines, size line.
pub(super) fn read_header<R: Read>(lines: &mut Lines<R>, name: &str) -> Result<Header> {
    let io_err = |e| line_error(name, e);
    let start = lines
        .first_bytes(BANNER_WINDOW)
        .map_err(|e| io_err(e.into()))?;
    check_banner_start(start).map_err(|reason| parse_error(name, 1, reason))?;
    let Some((no, first)) = lines.next_line().map_err(io_err)? else {
        return Err(parse_error(
            name,
            1,
            "empty file: expected the `%%MatrixMarket` banner",
        ));
    };
    let banner = parse_banner(first).map_err(|reason| parse_error(name, no, reason))?;
    while let Some((no, line)) = lines.next_line().map_err(io_err)? {
        if data_fields(line).is_some() {
            return parse_size(line, banner).map_err(|reason| parse_error(name, no, reason));
        }
    }
    Err(parse_error(
        name,
        lines.line() + 1,
        "missing size line: the file ends after the banner and comments",
    ))
}

/// Why an entry line was refused: only an out-of-range index may be
/// skipped (by `drop_invalid`).
enum BadLine {
    Malformed(String),
    OutOfRange(String),
}

/// A row or column index as written in the file. A negative one (`-1`,
/// which some generators write) is out of range for any matrix: it reads as
/// `u64::MAX`, to be refused or dropped like any other out-of-range index.
#[inline]
fn index(what: &str, text: &[u8]) -> Result<u64, BadLine> {
    let (negative, digits) = match text.strip_prefix(b"-") {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    match parse_unsigned(digits) {
        Some(v) if negative && v != 0 => Ok(u64::MAX),
        Some(v) => Ok(v),
        None => Err(BadLine::Malformed(format!(
            "{what} index `{}` is not an integer",
            show(text)
        ))),
    }
}

/// Counts in `notes` what reading `text` as `value` changed (a finite
/// number that became ±∞, a nonzero one that became 0) and where the first
/// NaN is. Cheap for the usual value: finite and nonzero.
#[inline]
fn note_value<T: Scalar>(value: T, text: &[u8], line: u64, notes: &mut ReadNotes) {
    if T::INTEGER {
        // Read exactly or refused: nothing to note.
        return;
    }
    let v = value.to_f64();
    if v != 0.0 && v.is_finite() {
        return;
    }
    if v.is_nan() {
        notes.first_nan.get_or_insert(line);
    } else if v.is_infinite() {
        // `inf` and `infinity` name it; any other text was a finite number.
        if !text.iter().any(|b| b.eq_ignore_ascii_case(&b'i')) {
            notes.overflowed += 1;
        }
    } else {
        let mantissa = text.split(|&b| b == b'e' || b == b'E').next();
        if mantissa.is_some_and(|m| m.iter().any(|b| (b'1'..=b'9').contains(b))) {
            notes.underflowed += 1;
        }
    }
}

/// The value `text` of a `real` or `integer` file as a `T`, or why not
/// (the caller names the line). An integer type reads integer text in
/// either (a `real` file only where its values are written as integers:
/// `3`, not `3.0`); a float reads a real, or an integer `f64` holds
/// exactly.
#[inline]
fn parse_value<T: Scalar>(field: Field, text: &[u8]) -> Result<T, String> {
    if field == Field::Real && !T::INTEGER {
        return T::parse_real(text).ok_or_else(|| format!("`{}` is not a real number", show(text)));
    }
    T::parse_integer(text).map_err(|e| {
        let (text, ty) = (show(text), std::any::type_name::<T>());
        match e {
            IntegerTextError::NotInteger if field == Field::Real => format!(
                "`{text}` is not an integer: a real file is read as {ty} only where its values \
                 are written as integers"
            ),
            IntegerTextError::NotInteger => format!("`{text}` is not an integer"),
            IntegerTextError::Inexact => format!(
                "`{text}` is an integer f64 cannot hold exactly (more than 53 significant bits)"
            ),
            IntegerTextError::OutOfRange { min, max } => {
                format!("`{text}` is outside {ty}'s range {min}..={max}")
            }
        }
    })
}

/// The entry pass, with what every line is checked against.
pub(super) struct EntryReader<'a> {
    pub(super) name: &'a str,
    pub(super) opts: &'a ReadOptions,
    pub(super) header: Header,
}

impl EntryReader<'_> {
    pub(super) fn error(&self, line: u64, reason: impl Into<String>) -> Error {
        parse_error(self.name, line, reason)
    }

    fn line_error(&self, error: LineError) -> Error {
        line_error(self.name, error)
    }

    /// Room for the expanded entries: what the header declares, but never
    /// more than `remaining` bytes of input (when known) could hold at
    /// `min_line_bytes` an entry.
    pub(super) fn reserve<T: Scalar>(
        &self,
        coo: &mut Coo<T>,
        remaining: Option<u64>,
        min_line_bytes: u64,
    ) -> Result<()> {
        let by_input = remaining.map_or(UNKNOWN_SIZE_RESERVE, |b| b / min_line_bytes + 1);
        let entries = (self.header.declared_entries as u64).min(by_input);
        let per_entry = if self.header.symmetry == Symmetry::General {
            1
        } else {
            2
        };
        coo.try_reserve((entries * per_entry) as usize)
            .map_err(|e| match e {
                Error::TooLarge(why) => Error::TooLarge(format!("{}: {why}", self.name)),
                e => e,
            })
    }

    fn coordinate<T: Scalar, R: Read>(
        &self,
        lines: &mut Lines<R>,
        notes: &mut ReadNotes,
    ) -> Result<(Coo<T>, usize)> {
        let h = self.header;
        let mut coo = Coo::new(h.nrows, h.ncols)?;
        self.reserve(
            &mut coo,
            lines.remaining_bytes(),
            self.shortest_entry_line(),
        )?;
        let (seen, dropped) =
            self.entry_lines(lines, &mut coo, notes, h.declared_entries, u64::MAX)?;
        if seen < h.declared_entries {
            return Err(self.error(lines.line() + 1, self.too_few(seen)));
        }
        Ok((coo, dropped))
    }

    /// The fewest bytes an entry line takes: `1 1\n`, `1 1 1\n`.
    pub(super) fn shortest_entry_line(&self) -> u64 {
        if self.header.field == Field::Pattern {
            4
        } else {
            6
        }
    }

    /// Reads coordinate entry lines into `coo` until the input ends or the
    /// next line would start at or past byte `end` of it, refusing the
    /// entry after the first `allowed` as one too many; gives the entry
    /// lines seen and those dropped ([`ReadOptions::drop_invalid`]).
    pub(super) fn entry_lines<T: Scalar, R: Read>(
        &self,
        lines: &mut Lines<R>,
        coo: &mut Coo<T>,
        notes: &mut ReadNotes,
        allowed: usize,
        end: u64,
    ) -> Result<(usize, usize)> {
        let (mut seen, mut dropped) = (0usize, 0usize);
        while lines.consumed() < end {
            let Some((no, line)) = lines.next_line().map_err(|e| self.line_error(e))? else {
                break;
            };
            let Some((first, fields)) = data_fields(line) else {
                continue;
            };
            if seen == allowed {
                return Err(self.error(no, self.too_many()));
            }
            seen += 1;
            match self.coordinate_entry::<T>(no, line, first, fields, notes) {
                Ok((i, j, value)) => self
                    .push_expanded(coo, i, j, value)
                    .map_err(|reason| self.error(no, reason))?,
                Err(BadLine::OutOfRange(_)) if self.opts.drop_invalid => dropped += 1,
                Err(BadLine::OutOfRange(reason) | BadLine::Malformed(reason)) => {
                    return Err(self.error(no, reason));
                }
            }
        }
        Ok((seen, dropped))
    }

    /// 0-based row and column and the value of coordinate line `no`, given
    /// its first field and the rest; what reading the value changed goes
    /// into `notes` (for an entry that is kept).
    #[inline]
    fn coordinate_entry<T: Scalar>(
        &self,
        no: u64,
        line: &[u8],
        row_text: &[u8],
        mut fields: Fields<'_>,
        notes: &mut ReadNotes,
    ) -> Result<(u32, u32, T), BadLine> {
        let h = &self.header;
        let wrong_count = || {
            let expected = match h.field {
                Field::Pattern => "2 fields (row column)",
                _ => "3 fields (row column value)",
            };
            BadLine::Malformed(format!(
                "expected {expected} for a {} matrix, found {}",
                h.field,
                Fields::new(line).count()
            ))
        };
        let col_text = fields.next().ok_or_else(wrong_count)?;
        let row = index("row", row_text)?;
        let col = index("column", col_text)?;
        let (value, value_text) = match h.field {
            Field::Pattern => (T::from_f64(1.0), &b"1"[..]),
            Field::Real | Field::Integer => {
                let text = fields.next().ok_or_else(wrong_count)?;
                let v = parse_value::<T>(h.field, text)
                    .map_err(|reason| BadLine::Malformed(format!("value {reason}")))?;
                (v, text)
            }
        };
        if fields.next().is_some() {
            return Err(wrong_count());
        }
        // Range last: a malformed line is an error even under drop_invalid.
        let i = self
            .in_range(row, h.nrows)
            .ok_or_else(|| BadLine::OutOfRange(self.out_of_range("row", row_text, h.nrows)))?;
        let j = self
            .in_range(col, h.ncols)
            .ok_or_else(|| BadLine::OutOfRange(self.out_of_range("column", col_text, h.ncols)))?;
        note_value(value, value_text, no, notes);
        Ok((i, j, value))
    }

    /// A file index as 0-based, `None` when outside `0..dim`.
    #[inline]
    fn in_range(&self, index: u64, dim: usize) -> Option<u32> {
        let v = match self.opts.index_base {
            IndexBase::One => index.wrapping_sub(1),
            IndexBase::Zero => index,
        };
        // dim ≤ u32::MAX, so v fits.
        (v < dim as u64).then_some(v as u32)
    }

    fn out_of_range(&self, what: &str, text: &[u8], dim: usize) -> String {
        let (base, first) = match self.opts.index_base {
            IndexBase::One => ("1-based", 1),
            IndexBase::Zero => ("0-based", 0),
        };
        let bound = if dim == 0 {
            format!("the matrix has no {what}s")
        } else {
            format!("{base} {what}s run {first}..={}", dim - 1 + first)
        };
        // A 0 in a 1-based file is a 0-based file far more often than a
        // bad entry: point to the option that reads it.
        let hint = if first == 1 && text.iter().all(|&b| b == b'0') {
            "the file may be 0-based: --index-base 0 reads it so"
        } else {
            "--drop-invalid skips such entries"
        };
        format!("{what} index {} out of range: {bound} ({hint})", show(text))
    }

    fn too_many(&self) -> String {
        format!(
            "too many entries: the size line declares {}",
            self.header.declared_entries
        )
    }

    pub(super) fn too_few(&self, seen: usize) -> String {
        format!(
            "too few entries: the file ends after {seen} of the {} the size line declares",
            self.header.declared_entries
        )
    }

    /// Pushes `(i, j, v)` and, for symmetric storage, its mirror.
    #[inline]
    fn push_expanded<T: Scalar>(
        &self,
        coo: &mut Coo<T>,
        i: u32,
        j: u32,
        v: T,
    ) -> Result<(), String> {
        coo.push_unchecked(i, j, v);
        match self.header.symmetry {
            Symmetry::General => {}
            Symmetry::Symmetric if i != j => coo.push_unchecked(j, i, v),
            Symmetry::Symmetric => {}
            Symmetry::SkewSymmetric if i != j => {
                let mirror = v.negated().ok_or_else(|| {
                    format!(
                        "the skew-symmetric mirror of {v:?} is its negation, which {} cannot hold",
                        std::any::type_name::<T>()
                    )
                })?;
                coo.push_unchecked(j, i, mirror);
            }
            Symmetry::SkewSymmetric => {
                let base = u32::from(self.opts.index_base == IndexBase::One);
                return Err(format!(
                    "diagonal entry ({}, {}) in a skew-symmetric matrix (its diagonal is zero)",
                    i + base,
                    j + base
                ));
            }
        }
        Ok(())
    }

    /// Dense column-major values; symmetric storage holds the lower
    /// triangle (strictly lower for skew-symmetric) column by column.
    fn array<T: Scalar, R: Read>(
        &self,
        lines: &mut Lines<R>,
        notes: &mut ReadNotes,
    ) -> Result<(Coo<T>, usize)> {
        let h = self.header;
        let mut coo = Coo::new(h.nrows, h.ncols)?;
        self.reserve(&mut coo, lines.remaining_bytes(), 2)?;
        let first_row = |j: usize| match h.symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric => j,
            Symmetry::SkewSymmetric => j + 1,
        };
        let (mut i, mut j) = (first_row(0), 0);
        let mut seen = 0usize;
        while let Some((no, line)) = lines.next_line().map_err(|e| self.line_error(e))? {
            let Some((text, mut fields)) = data_fields(line) else {
                continue;
            };
            if seen == h.declared_entries {
                return Err(self.error(no, self.too_many()));
            }
            seen += 1;
            if fields.next().is_some() {
                return Err(self.error(
                    no,
                    format!(
                        "expected 1 field (value) in an array file, found {}",
                        Fields::new(line).count()
                    ),
                ));
            }
            let value = parse_value::<T>(h.field, text)
                .map_err(|reason| self.error(no, format!("value {reason}")))?;
            note_value(value, text, no, notes);
            // i < nrows ≤ u32::MAX while entries remain.
            self.push_expanded(&mut coo, i as u32, j as u32, value)
                .map_err(|reason| self.error(no, reason))?;
            i += 1;
            while i >= h.nrows && j < h.ncols {
                j += 1;
                i = first_row(j);
            }
        }
        if seen < h.declared_entries {
            return Err(self.error(lines.line() + 1, self.too_few(seen)));
        }
        Ok((coo, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(symmetry: Symmetry, declared_entries: usize) -> Header {
        Header {
            layout: Layout::Coordinate,
            field: Field::Real,
            symmetry,
            nrows: 1 << 20,
            ncols: 1 << 20,
            declared_entries,
        }
    }

    #[test]
    fn a_size_line_larger_than_memory_is_refused_with_the_numbers() {
        let gib = Some(1u64 << 30);
        // 2³³ entries of f64: 137 GB.
        let why = fits_in_memory::<f64>(&header(Symmetry::General, 1 << 33), gib).unwrap_err();
        assert!(why.contains("8589934592 entries"), "{why}");
        assert!(why.contains("137438953472 bytes"), "{why}");
        assert!(why.contains("1073741824 bytes"), "{why}");
        // Symmetric storage counts twice; f32 takes 12 bytes an entry.
        let half = (1usize << 30) / 24 + 1;
        assert!(fits_in_memory::<f64>(&header(Symmetry::Symmetric, half), gib).is_err());
        assert!(fits_in_memory::<f32>(&header(Symmetry::General, half), gib).is_ok());
        // Unknown memory: no check.
        assert!(fits_in_memory::<f64>(&header(Symmetry::General, usize::MAX), None).is_ok());
    }
}
