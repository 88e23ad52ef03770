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
//! [`MtxMatrix::notes`] for the caller to report.
//!
//! [`write_mtx`] / [`write_mtx_to`] write general coordinate files, row-major,
//! with values that read back bit-identical, through a temporary file that is
//! renamed into place only once complete; a `.gz` name is written gzip.
//!
//! | module | what |
//! |--------|------|
//! | `header` | banner and size line |
//! | `lines`  | chunked line reader; gzip detection, members and trailing bytes |
//! | `fields` | per-line tokenizing and number parsing |
//! | `read`   | the entry loop: ranges, counts, symmetric expansion |
//! | `write`  | writer and atomic replace |

mod fields;
mod header;
mod lines;
mod read;
mod write;

use std::fmt;

use crate::format::Coo;

pub use read::{read_mtx, read_mtx_from};
pub use write::{remove_unfinished_outputs, write_mtx, write_mtx_to};

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
    pub index_base: IndexBase,
    /// Skip entries whose row or column is out of range, counting them in
    /// [`MtxMatrix::dropped`], instead of failing.
    pub drop_invalid: bool,
}

/// `coordinate` (sparse triplets) or `array` (dense, column-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Coordinate,
    Array,
}

/// The value type a file declares. `complex` is rejected as unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Real,
    Integer,
    /// No values: every stored entry reads as one.
    Pattern,
}

/// The storage scheme a file declares. `hermitian` is rejected as unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
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
    pub layout: Layout,
    pub field: Field,
    pub symmetry: Symmetry,
    pub nrows: usize,
    pub ncols: usize,
    /// Entry lines the file holds: the size line's count for coordinate
    /// files, the stored triangle or the whole matrix for array files.
    pub declared_entries: usize,
}

/// A matrix as read from a MatrixMarket file.
#[derive(Clone, Debug, PartialEq)]
pub struct MtxMatrix<T> {
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
