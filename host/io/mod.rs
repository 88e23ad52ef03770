//! MatrixMarket reading and writing: streaming, validated, exact.
//!
//! [`read_mtx`] / [`read_mtx_from`] read coordinate and array files with
//! real, integer or pattern values and general, symmetric or skew-symmetric
//! storage, expanding symmetric storage into a [`Coo`] in file order (a
//! mirrored entry right after its original; duplicates kept, for COO → CSR
//! to sum). gzip input is recognised by its magic bytes. Every malformed line
//! is an [`Error::Parse`](crate::Error::Parse) naming the file, the line and
//! the reason; the only lenient paths are the explicit [`ReadOptions`].
//! What the reader had to change or met on the way (values out of the value
//! type's range, NaN, bytes after the gzip data) is counted in
//! [`MtxMatrix::notes`] for the caller to report. What one read may buffer
//! is bounded: no line past [`MAX_LINE_BYTES`], no stream past what its size
//! line declares (see [`read_mtx_from`]), and input that cannot begin with
//! the banner is refused within its first bytes.
//!
//! [`write_mtx`] / [`write_mtx_to`] write general coordinate files, row-major,
//! with values that read back bit-identical, through a temporary file that is
//! renamed into place only once complete; a `.gz` name is written gzip, `-`
//! is standard output. [`MtxWriter`] writes the same file a block of rows at
//! a time, [`write_dense_mtx`] a dense matrix as an `array` file, and
//! [`check_output`] says beforehand whether a path can be written.
//!
//! Integer value types (`i32`, `i64`, `u32`, `u64`) are read and written
//! exactly, never through `f64`: `integer` files, `pattern` files (as 1),
//! and `real` files whose values are written as integers (`3`, not `3.0`;
//! any other value is an error naming its line); a value outside the
//! type's range is an error naming its line, as is a skew-symmetric
//! mirror the type cannot hold (`-v` of an unsigned `v`). Floats read an
//! `integer` file's values only where `f64` holds them exactly.
//!
//! Messages that quote a file's text or a name escape control characters
//! with [`printable`], so a file cannot drive the terminal that shows them.
//!
//! | module | what |
//! |--------|------|
//! | `header` | banner and size line |
//! | `lines`  | chunked, bounded line reader; gzip detection, members and trailing bytes |
//! | `fields` | per-line tokenizing and number parsing |
//! | `read`   | the entry loop: ranges, counts, symmetric expansion |
//! | `write`  | MatrixMarket text: coordinate (whole or by row blocks) and array |
//! | `output` | where it goes: stdout, a device in place, or a temporary file renamed over the target; [`PartedFile`], one file written at offsets by several processes |
//! | `parts`  | a coordinate file read in parts by byte ranges ([`mtx_layout`], [`read_mtx_part`]) |

mod fields;
mod header;
mod lines;
mod output;
mod parts;
mod read;
mod write;

use std::borrow::Cow;
use std::fmt;
use std::fmt::Write as _;

use crate::format::Coo;

pub use lines::MAX_LINE_BYTES;
pub use output::{PartedFile, check_output, remove_unfinished_outputs};
pub use parts::{
    MtxLayout, MtxPart, PartError, after_lines, check_parts, mtx_layout, read_mtx_part,
};
pub use read::{
    STREAM_BYTES_PER_ENTRY, STREAM_SLACK_BYTES, read_mtx, read_mtx_from, read_mtx_sized,
};
pub use write::{
    MtxWriter, coordinate_header, write_coordinate_rows, write_dense_mtx, write_mtx, write_mtx_to,
};

/// `text` with the characters that could drive a terminal escaped: C0
/// controls (tab and newline included), DEL and C1 controls as `\x1b` or
/// `\u{9b}`, and the bidirectional embedding, override and isolate
/// controls (U+202A–202E, U+2066–2069) as `\u{202e}`. Borrowed when nothing
/// needs escaping. For quoting file content and names in messages: a line
/// holding `ESC ]0;title BEL` then prints as text instead of retitling the
/// terminal.
pub fn printable(text: &str) -> Cow<'_, str> {
    let escaped =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !escaped(c) => out.push(c),
            '\0'..='\x7f' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// How row and column indices are counted in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexBase {
    /// 0-based, as some course generators write.
    Zero,
    /// 1-based: the MatrixMarket standard.
    #[default]
    One,
}

/// Lenient-reading switches; the default is the strict standard reader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The index of the first row and column in the file (1 in the standard).
    pub index_base: IndexBase,
    /// Skip entries whose row or column is out of range, counting them in
    /// [`MtxMatrix::dropped`], instead of failing.
    pub drop_invalid: bool,
}

/// `coordinate` (sparse triplets) or `array` (dense, column-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Sparse: one line per stored entry.
    Coordinate,
    /// Dense: every element, column after column.
    Array,
}

/// The value type a file declares. `complex` is rejected as unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Floating-point values.
    Real,
    /// Integer values (read into the value type).
    Integer,
    /// No values: every stored entry reads as one.
    Pattern,
}

/// The storage scheme a file declares. `hermitian` is rejected as unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry stored as it is.
    General,
    /// Lower triangle stored; `(i, j)` also stands for `(j, i)`. An entry
    /// above the diagonal is mirrored the same way (as scipy does), so a
    /// file that stores both triangles reads as duplicates, summed by COO → CSR.
    Symmetric,
    /// Strictly lower triangle stored; `(i, j, v)` also stands for `(j, i, -v)`.
    SkewSymmetric,
}

/// What a file's banner and size line declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Sparse or dense.
    pub layout: Layout,
    /// The value type.
    pub field: Field,
    /// The storage scheme.
    pub symmetry: Symmetry,
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Entry lines the file holds: the size line's count for coordinate
    /// files, the stored triangle or the whole matrix for array files.
    pub declared_entries: usize,
}

/// A matrix as read from a MatrixMarket file.
#[derive(Clone, Debug, PartialEq)]
pub struct MtxMatrix<T> {
    /// The file's banner and size line.
    pub header: Header,
    /// Entries in file order, symmetric storage expanded, duplicates kept.
    pub coo: Coo<T>,
    /// Entry lines skipped by [`ReadOptions::drop_invalid`] (a symmetric
    /// entry counts once).
    pub dropped: usize,
    /// What the reader changed or met, for the caller to report.
    pub notes: ReadNotes,
}

/// What reading changed or met that the matrix alone does not show. Each
/// value line counts once (a symmetric entry's mirror is not counted again).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadNotes {
    /// Finite values too large for the value type, read as ±∞ (`1e400`).
    pub overflowed: usize,
    /// Nonzero values too small for the value type, read as ±0 (`1e-400`).
    pub underflowed: usize,
    /// The line of the first NaN value, if any.
    pub first_nan: Option<u64>,
    /// Bytes after the end of gzip data that start no further gzip member:
    /// ignored, as gzip(1) ignores them ("trailing garbage ignored").
    pub ignored_trailing_bytes: u64,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::Coordinate => "coordinate",
            Layout::Array => "array",
        })
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Pattern => "pattern",
        })
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_may_be_given_as_str_string_or_path_buf() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.mtx");
        let a = crate::Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![1.5, -0.0]).unwrap();
        check_output(path.to_str().unwrap()).unwrap();
        write_mtx(path.to_str().unwrap(), &a, Field::Real).unwrap();
        let opts = ReadOptions::default();
        let back = read_mtx::<f64>(path.to_string_lossy().into_owned(), &opts).unwrap();
        assert!(back.coo.to_csr().identical(&a));
        assert!(
            read_mtx::<f64>(&path, &opts)
                .unwrap()
                .coo
                .to_csr()
                .identical(&a)
        );
        let dense = path.with_extension("dense.mtx");
        write_dense_mtx(dense.clone(), 1, 2, &[1.0f64, 2.0], Field::Real).unwrap();
        let mut w = MtxWriter::create(dense, 2, 2, 2, Field::Real).unwrap();
        w.write_rows(&a).unwrap();
        w.finish().unwrap();
    }

    #[test]
    fn printable_escapes_controls_and_bidi_and_borrows_clean_text() {
        assert!(matches!(printable("a b/ü…"), Cow::Borrowed("a b/ü…")));
        assert_eq!(
            printable("\x1b]0;title\x07\t\n\x7f\u{9b}x"),
            "\\x1b]0;title\\x07\\x09\\x0a\\x7f\\u{9b}x"
        );
        assert_eq!(
            printable("\u{202a}\u{202e}\u{2066}\u{2069}\u{2029}"),
            "\\u{202a}\\u{202e}\\u{2066}\\u{2069}\u{2029}"
        );
    }
}
