//! MatrixMarket text out: general coordinate files, 1-based, row-major,
//! with values that read back bit-identical, whole ([`write_mtx`],
//! [`write_mtx_to`]) or a block of rows at a time ([`MtxWriter`], for a
//! product larger than memory); dense matrices as `array` files
//! ([`write_dense_mtx`]). Where the text goes (standard output, gzip, a
//! temporary file renamed over the target) is the `output` module's.

use std::io::{self, Write};
use std::path::Path;

use super::Field;
use super::output::{Output, Spool};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;

/// Output is formatted into a buffer and handed to the writer this size at
/// a time: few large writes, and a bounded buffer whatever the matrix.
const FLUSH_BYTES: usize = 1 << 20;

/// Writes `m` to `path` as a general coordinate file with values of
/// `field`: [`MtxWriter::create`], one [`MtxWriter::write_rows`] and
/// [`MtxWriter::finish`]. `-` is standard output; a `.gz` name is written
/// gzip; an existing file is replaced whole, keeping its permissions, only
/// once the new text is complete and synced; a symbolic link is written
/// through to the file it names (which need not exist yet), and stays a
/// link; devices and FIFOs are written in place. An error names `path` and
/// the reason it cannot be written.
pub fn write_mtx<T: Scalar>(path: impl AsRef<Path>, m: &Csr<T>, field: Field) -> Result<()> {
    let mut writer = MtxWriter::create(path, m.nrows(), m.ncols(), m.nnz(), field)?;
    writer.write_rows(m)?;
    writer.finish()
}

/// Writes `m` as MatrixMarket text: `%%MatrixMarket matrix coordinate
/// <field> general`, the size line, then `row col [value]` lines, 1-based,
/// row-major. Reals print in the shortest form that reads back as the same
/// bits; `integer` requires integral values (an `InvalidInput` error names
/// the first that is not); `pattern` prints no values. An integer value
/// type (`i64`, …) prints its values exactly under either `real` or
/// `integer`; give it `integer` for the header that says what they are
/// (`T::INTEGER` tells).
pub fn write_mtx_to<T: Scalar, W: Write>(mut w: W, m: &Csr<T>, field: Field) -> io::Result<()> {
    let mut text = CoordinateText::start(m.nrows(), m.ncols(), Some(m.nnz()), field);
    text.rows(m, &mut w)?;
    text.end(&mut w)
}

/// A general coordinate file written a block of rows at a time, as
/// [`write_mtx`] writes one (the same text, destinations and replacement).
/// The entry count is given up front ([`create`](MtxWriter::create)) and
/// checked at [`finish`](MtxWriter::finish), or written at the end
/// ([`create_uncounted`](MtxWriter::create_uncounted)), for rows whose
/// entries are not known until computed. Dropped unfinished, or after an
/// error, it removes its temporary files and leaves the target as it was
/// (standard output and devices keep what they got).
pub struct MtxWriter {
    output: Output,
    text: CoordinateText,
    /// Where the size line goes when the entries are counted as written.
    uncounted: Option<SizeLineLater>,
    /// A write failed part-way: the text is incomplete, and stays so.
    broken: bool,
}

/// How an uncounted [`MtxWriter`] puts its size line before the entries.
enum SizeLineLater {
    /// Over a blank region left after the banner ([`Output::write_at`]):
    /// a comment padded to fill what the size line does not.
    Over { at: u64, len: usize },
    /// The entry lines are held back in a temporary file, and follow the
    /// banner and size line at the end (standard output, gzip, devices).
    Spooled(Spool),
}

impl MtxWriter {
    /// Opens `path` for a `nrows` × `ncols` matrix of `nnz` entries with
    /// values of `field`, and starts the text with its banner and size line.
    pub fn create(
        path: impl AsRef<Path>,
        nrows: usize,
        ncols: usize,
        nnz: usize,
        field: Field,
    ) -> Result<MtxWriter> {
        Ok(MtxWriter {
            output: Output::create(path.as_ref())?,
            text: CoordinateText::start(nrows, ncols, Some(nnz), field),
            uncounted: None,
            broken: false,
        })
    }

    /// [`MtxWriter::create`] for as many entries as the blocks written
    /// hold, counted at [`finish`](MtxWriter::finish). A regular file gets
    /// its size line written into a blank region left after the banner,
    /// whose rest becomes a comment line of spaces. Standard output, a
    /// `.gz` file or a device gets the entry lines held back in a temporary
    /// file (beside the target, or in the system's temporary directory)
    /// and copied after the size line at the end. In both cases memory
    /// stays bounded whatever the matrix.
    pub fn create_uncounted(
        path: impl AsRef<Path>,
        nrows: usize,
        ncols: usize,
        field: Field,
    ) -> Result<MtxWriter> {
        let mut output = Output::create(path.as_ref())?;
        let uncounted = if output.can_write_at() {
            let banner = coordinate_banner(field);
            let len = size_line_room(nrows, ncols);
            let mut blank = banner.clone().into_bytes();
            blank.resize(banner.len() + len, b' ');
            output.write_all(&blank).map_err(|e| output.error(e))?;
            SizeLineLater::Over {
                at: banner.len() as u64,
                len,
            }
        } else {
            SizeLineLater::Spooled(output.spool()?)
        };
        Ok(MtxWriter {
            output,
            text: CoordinateText::start(nrows, ncols, None, field),
            uncounted: Some(uncounted),
            broken: false,
        })
    }

    /// Appends the rows of `block`, which follow those written so far (its
    /// row `i` is the matrix's row `rows written + i`). An error if its
    /// column count is not the matrix's, if it goes past the rows or entries
    /// declared, or if a value does not fit the field; after an error the
    /// writer refuses further writes and can only be dropped.
    pub fn write_rows<T: Scalar>(&mut self, block: &Csr<T>) -> Result<()> {
        if self.broken {
            return Err(self.broken_error());
        }
        let written = match &mut self.uncounted {
            Some(SizeLineLater::Spooled(spool)) => self
                .text
                .rows(block, spool)
                .map_err(|e| spool_error(spool, e)),
            _ => (self.text.rows(block, &mut self.output)).map_err(|e| self.output.error(e)),
        };
        self.broken = written.is_err();
        written
    }

    /// Entries written so far.
    pub fn entries(&self) -> usize {
        self.text.entries
    }

    fn broken_error(&self) -> Error {
        self.output.error(io::Error::other(
            "an earlier write to this output failed: its text is incomplete",
        ))
    }

    /// Completes the file: an error, leaving the target as it was, unless
    /// exactly the declared rows (and, where counted up front, entries)
    /// were written; else the text is flushed, synced and renamed into
    /// place.
    pub fn finish(mut self) -> Result<()> {
        if self.broken {
            return Err(self.broken_error());
        }
        let (nrows, ncols, nnz) = (self.text.nrows, self.text.ncols, self.text.entries);
        match self.uncounted.take() {
            None => (self.text.end(&mut self.output)).map_err(|e| self.output.error(e))?,
            Some(SizeLineLater::Over { at, len }) => {
                let size = size_line(nrows, ncols, nnz);
                let mut region = vec![b' '; len];
                region[0] = b'%';
                region[len - size.len() - 1] = b'\n';
                region[len - size.len()..].copy_from_slice(size.as_bytes());
                (self.text.end(&mut self.output))
                    .and_then(|()| self.output.write_at(at, &region))
                    .map_err(|e| self.output.error(e))?;
            }
            Some(SizeLineLater::Spooled(mut spool)) => {
                (self.text.end(&mut spool)).map_err(|e| spool_error(&spool, e))?;
                let header = coordinate_header(nrows, ncols, nnz, self.text.field);
                (self.output.write_all(header.as_bytes()))
                    .and_then(|()| spool.copy_to(&mut self.output))
                    .map_err(|e| self.output.error(e))?;
            }
        }
        self.output.finish()
    }
}

/// `e`, met writing the entry lines held back in `spool`, naming it.
fn spool_error(spool: &Spool, e: io::Error) -> Error {
    Error::Io {
        path: spool.path().to_path_buf(),
        source: e,
    }
}

/// Writes a dense `nrows` × `ncols` matrix, given row-major, to `path` as
/// `%%MatrixMarket matrix array <field> general`: the size line `nrows
/// ncols`, then one value a line in column-major order, as the format
/// requires. `field` is `real` (shortest exact form) or `integer` (values
/// must be integral, as for 0/1 or-and results); `pattern` is refused, as an
/// array holds values. The destinations and the replacement are
/// [`write_mtx`]'s.
pub fn write_dense_mtx<T: Scalar>(
    path: impl AsRef<Path>,
    nrows: usize,
    ncols: usize,
    row_major: &[T],
    field: Field,
) -> Result<()> {
    let path = path.as_ref();
    let invalid = |reason: String| Error::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidInput, reason),
    };
    if field == Field::Pattern {
        return Err(invalid(
            "a pattern matrix cannot be stored as an array: write it as real or integer".into(),
        ));
    }
    if nrows.checked_mul(ncols) != Some(row_major.len()) {
        return Err(invalid(format!(
            "{} values given for a {nrows} × {ncols} dense matrix",
            row_major.len()
        )));
    }
    let mut output = Output::create(path)?;
    write_array(&mut output, nrows, ncols, row_major, field).map_err(|e| output.error(e))?;
    output.finish()
}

/// [`write_dense_mtx`]'s text, to `w`.
fn write_array<T: Scalar, W: Write>(
    w: &mut W,
    nrows: usize,
    ncols: usize,
    row_major: &[T],
    field: Field,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(FLUSH_BYTES + 4096);
    writeln!(out, "%%MatrixMarket matrix array {field} general")?;
    writeln!(out, "{nrows} {ncols}")?;
    for j in 0..ncols {
        for i in 0..nrows {
            push_value(&mut out, row_major[i * ncols + j], field, i, j as u64)?;
            out.push(b'\n');
            spill(&mut out, w)?;
        }
    }
    w.write_all(&out)?;
    w.flush()
}

/// The coordinate text of one matrix, formatted into a buffer handed on
/// [`FLUSH_BYTES`] at a time, with the rows and entries written so far
/// kept to check against the size line.
struct CoordinateText {
    field: Field,
    nrows: usize,
    ncols: usize,
    /// The entries declared up front; `None` where they are counted.
    nnz: Option<usize>,
    /// Rows and entries formatted so far.
    rows: usize,
    entries: usize,
    out: Vec<u8>,
}

impl CoordinateText {
    /// The text's banner and size line where `nnz` is declared; else
    /// nothing yet (the caller puts them first).
    fn start(nrows: usize, ncols: usize, nnz: Option<usize>, field: Field) -> CoordinateText {
        let mut out = Vec::with_capacity(FLUSH_BYTES + 4096);
        if let Some(nnz) = nnz {
            out.extend_from_slice(coordinate_header(nrows, ncols, nnz, field).as_bytes());
        }
        CoordinateText {
            field,
            nrows,
            ncols,
            nnz,
            rows: 0,
            entries: 0,
            out,
        }
    }

    /// Formats the rows of `block` as the next rows, handing full buffers
    /// to `w`; refused (nothing written) if `block` does not fit the shape
    /// and counts declared.
    fn rows<T: Scalar, W: Write>(&mut self, block: &Csr<T>, w: &mut W) -> io::Result<()> {
        let refuse = |what: String| Err(io::Error::new(io::ErrorKind::InvalidInput, what));
        if block.ncols() != self.ncols {
            return refuse(format!(
                "a block of rows has {} columns, the matrix {}",
                block.ncols(),
                self.ncols
            ));
        }
        if block.nrows() > self.nrows - self.rows {
            return refuse(format!(
                "a block of {} rows after {} goes past the {} rows declared",
                block.nrows(),
                self.rows,
                self.nrows
            ));
        }
        if let Some(nnz) = self.nnz
            && block.nnz() > nnz - self.entries
        {
            return refuse(format!(
                "a block of {} entries after {} goes past the {nnz} entries declared",
                block.nnz(),
                self.entries,
            ));
        }
        format_rows(&mut self.out, block, self.rows, self.field, w)?;
        self.rows += block.nrows();
        self.entries += block.nnz();
        Ok(())
    }

    /// Hands the rest of the text to `w` and flushes it, if the rows and
    /// entries written are those declared.
    fn end<W: Write>(&mut self, w: &mut W) -> io::Result<()> {
        let incomplete = |what| Err(io::Error::new(io::ErrorKind::InvalidInput, what));
        match self.nnz {
            Some(nnz) if (self.rows, self.entries) != (self.nrows, nnz) => {
                return incomplete(format!(
                    "incomplete: {} of the {} rows and {} of the {nnz} entries declared were \
                     written",
                    self.rows, self.nrows, self.entries
                ));
            }
            None if self.rows != self.nrows => {
                return incomplete(format!(
                    "incomplete: {} of the {} rows declared were written",
                    self.rows, self.nrows
                ));
            }
            _ => {}
        }
        w.write_all(&self.out)?;
        self.out.clear();
        w.flush()
    }
}

/// The banner and size line that begin the general coordinate file of an
/// `nrows` × `ncols` matrix of `nnz` entries with values of `field`, as
/// [`write_mtx`] writes it.
pub fn coordinate_header(nrows: usize, ncols: usize, nnz: usize, field: Field) -> String {
    coordinate_banner(field) + &size_line(nrows, ncols, nnz)
}

/// The first line of a general coordinate file.
fn coordinate_banner(field: Field) -> String {
    format!("%%MatrixMarket matrix coordinate {field} general\n")
}

/// The size line of a coordinate file.
fn size_line(nrows: usize, ncols: usize, nnz: usize) -> String {
    format!("{nrows} {ncols} {nnz}\n")
}

/// Bytes an uncounted [`MtxWriter`] leaves after the banner: room for the
/// size line with the longest count (20 digits), and for a comment line
/// of at least `%` and a newline before it.
fn size_line_room(nrows: usize, ncols: usize) -> usize {
    size_line(nrows, ncols, 0).len() - 1 + u64::MAX.to_string().len() + 2
}

/// The entry lines of `block` as [`write_mtx`] writes them, its row `i`
/// being the matrix's row `first_row + i`: the text of a part of a file
/// whose other parts (the header, [`coordinate_header`], and the other
/// rows) are written by others. Handed to `w` a megabyte at a time.
pub fn write_coordinate_rows<T: Scalar, W: Write>(
    w: &mut W,
    block: &Csr<T>,
    first_row: usize,
    field: Field,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(FLUSH_BYTES + 4096);
    format_rows(&mut out, block, first_row, field, w)?;
    w.write_all(&out)
}

/// Formats the entry lines of `block`, its row `i` numbered
/// `first_row + i`, into `out`, handing it to `w` whenever it is full.
fn format_rows<T: Scalar, W: Write>(
    out: &mut Vec<u8>,
    block: &Csr<T>,
    first_row: usize,
    field: Field,
    w: &mut W,
) -> io::Result<()> {
    let mut digits = itoa::Buffer::new();
    let mut row_prefix = Vec::new();
    for local in 0..block.nrows() {
        let (cols, vals) = block.row(local);
        if cols.is_empty() {
            continue;
        }
        let i = first_row + local;
        row_prefix.clear();
        row_prefix.extend_from_slice(digits.format(i + 1).as_bytes());
        row_prefix.push(b' ');
        for (&c, &v) in cols.iter().zip(vals) {
            out.extend_from_slice(&row_prefix);
            out.extend_from_slice(digits.format(u64::from(c) + 1).as_bytes());
            if field != Field::Pattern {
                out.push(b' ');
                push_value(out, v, field, i, u64::from(c))?;
            }
            out.push(b'\n');
            spill(out, w)?;
        }
    }
    Ok(())
}

/// Hands `out` to `w` once it holds [`FLUSH_BYTES`].
#[inline]
fn spill<W: Write>(out: &mut Vec<u8>, w: &mut W) -> io::Result<()> {
    if out.len() >= FLUSH_BYTES {
        w.write_all(out)?;
        out.clear();
    }
    Ok(())
}

/// Appends `v` as `field` prints it: the shortest exact real, or a decimal
/// integer; a value that is not an integer is an `InvalidInput` error
/// naming its row and column (given 0-based, printed 1-based). Nothing for
/// `pattern`.
#[inline]
fn push_value<T: Scalar>(
    out: &mut Vec<u8>,
    v: T,
    field: Field,
    row: usize,
    col: u64,
) -> io::Result<()> {
    match field {
        Field::Real => v.write_real(out),
        Field::Integer => {
            if !v.write_integer(out) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "integer field: the value {} at row {}, column {} is not an integer",
                        v.to_f64(),
                        row + 1,
                        col + 1
                    ),
                ));
            }
        }
        Field::Pattern => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinate_text_refuses_blocks_past_the_size_line() {
        let block = Csr::try_new(1, 2, vec![0, 1], vec![1], vec![3.0]).unwrap();
        let mut text = CoordinateText::start(2, 2, Some(1), Field::Real);
        let mut sink = Vec::new();
        text.rows(&block, &mut sink).unwrap();
        // A second entry, a wrong width: refused, nothing written.
        let err = text.rows(&block, &mut sink).unwrap_err();
        assert!(
            err.to_string().contains("past the 1 entries declared"),
            "{err}"
        );
        let wide = Csr::<f64>::empty(1, 3);
        let err = text.rows(&wide, &mut sink).unwrap_err();
        assert!(err.to_string().contains("3 columns, the matrix 2"), "{err}");
        let err = text.end(&mut sink).unwrap_err();
        assert!(
            err.to_string()
                .contains("1 of the 2 rows and 1 of the 1 entries"),
            "{err}"
        );
        text.rows(&Csr::<f64>::empty(1, 2), &mut sink).unwrap();
        let err = text.rows(&Csr::<f64>::empty(1, 2), &mut sink).unwrap_err();
        assert!(
            err.to_string().contains("past the 2 rows declared"),
            "{err}"
        );
        text.end(&mut sink).unwrap();
        assert_eq!(
            String::from_utf8(sink).unwrap(),
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3\n"
        );
    }
}
