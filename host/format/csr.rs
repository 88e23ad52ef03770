//! CSR (compressed sparse row): the hub format. Every other format converts
//! to and from it, and every engine computes on it.
//!
//! Layout: `row_ptr` (`nrows + 1` offsets, `usize`), `col_idx` (`u32`),
//! `values`. Row `i` holds entries `row_ptr[i]..row_ptr[i + 1]`.
//!
//! Index widths: column indices are `u32` (dimensions up to 2³² − 1), which
//! halves index traffic against `usize`. Row pointers are `usize` so that a
//! matrix may hold more than 2³² entries (large SpGEMM outputs do); the GPU
//! engine narrows them to `u32` on upload when `nnz` fits.
//!
//! A [`Csr`] is always *canonical*: row pointers start at 0 and never
//! decrease, columns are strictly increasing within a row (sorted, no
//! duplicates) and in range. [`Csr::try_new`] checks this;
//! [`Csr::from_parts_unchecked`] trusts the caller (checked in debug builds).
//! Explicit zeros are entries like any other and are kept.
//!
//! Each array is a [`Buffer`]: spmx's own `Vec`, or another library's
//! array read in place ([`Csr::try_from_buffers`] with a
//! [`Lent`](super::Lent) one), which a write copies first.

use crate::error::Result;
use crate::format::buffer::Buffer;
use crate::format::compressed::{self, Axes, CSR_AXES};
use crate::format::{Coo, MAX_DIM, try_filled, try_with_capacity};
use crate::scalar::Scalar;
use rayon::prelude::*;

/// A canonical compressed-sparse-row matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr<T> {
    nrows: usize,
    ncols: usize,
    row_ptr: Buffer<usize>,
    col_idx: Buffer<u32>,
    values: Buffer<T>,
}

impl<T: Scalar> Csr<T> {
    /// Builds a CSR matrix from its parts, checking every invariant.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Result<Self> {
        Self::try_from_buffers(nrows, ncols, row_ptr, col_idx, values)
    }

    /// [`Csr::try_new`] over arrays that may be lent: a matrix that reads
    /// another library's arrays in place, checked here once.
    pub fn try_from_buffers(
        nrows: usize,
        ncols: usize,
        row_ptr: impl Into<Buffer<usize>>,
        col_idx: impl Into<Buffer<u32>>,
        values: impl Into<Buffer<T>>,
    ) -> Result<Self> {
        let (row_ptr, col_idx, values) = (row_ptr.into(), col_idx.into(), values.into());
        validate(nrows, ncols, &row_ptr, &col_idx, values.len())?;
        Ok(Csr {
            nrows,
            ncols,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// Builds a CSR matrix from parts the caller guarantees are canonical
    /// (the hot paths of engines that produce sorted rows). Debug builds
    /// still check.
    pub fn from_parts_unchecked(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        debug_assert!(
            validate(nrows, ncols, &row_ptr, &col_idx, values.len()).is_ok(),
            "from_parts_unchecked: {:?}",
            validate(nrows, ncols, &row_ptr, &col_idx, values.len()).err()
        );
        Csr {
            nrows,
            ncols,
            row_ptr: row_ptr.into(),
            col_idx: col_idx.into(),
            values: values.into(),
        }
    }

    /// An `nrows × ncols` matrix with no entries.
    ///
    /// # Panics
    /// When a dimension exceeds [`MAX_DIM`].
    #[track_caller]
    pub fn empty(nrows: usize, ncols: usize) -> Self {
        assert!(
            nrows <= MAX_DIM && ncols <= MAX_DIM,
            "Csr::empty: {nrows}×{ncols} exceeds the largest dimension {MAX_DIM}"
        );
        Csr {
            nrows,
            ncols,
            row_ptr: vec![0; nrows + 1].into(),
            col_idx: Vec::new().into(),
            values: Vec::new().into(),
        }
    }

    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows, self.ncols)
    }
    /// Rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Stored entries, explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }
    /// `nrows + 1` offsets: row `i`'s entries are at `row_ptr[i]..row_ptr[i + 1]`.
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }
    /// Each entry's column, increasing within a row.
    pub fn col_idx(&self) -> &[u32] {
        &self.col_idx
    }
    /// Each entry's value, in the order of `col_idx`.
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Values may change freely; the pattern may not. Lent values are
    /// copied into spmx's own first.
    pub fn values_mut(&mut self) -> &mut [T] {
        self.values.make_mut()
    }
    /// Whether any of the three arrays is another library's, read in place.
    pub fn is_lent(&self) -> bool {
        self.row_ptr.is_lent() || self.col_idx.is_lent() || self.values.is_lent()
    }
    /// Column indices and values of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[T]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.values[r])
    }
    /// Number of entries in row `i`.
    #[inline]
    pub fn row_len(&self, i: usize) -> usize {
        self.row_ptr[i + 1] - self.row_ptr[i]
    }
    /// The stored value at `(i, j)`, if any (binary search in row `i`).
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        let (cols, vals) = self.row(i);
        let j = u32::try_from(j).ok()?;
        cols.binary_search(&j).ok().map(|k| vals[k])
    }
    /// `(nrows, ncols, row_ptr, col_idx, values)`: spmx's own arrays moved,
    /// lent ones copied.
    pub fn into_parts(self) -> (usize, usize, Vec<usize>, Vec<u32>, Vec<T>) {
        (
            self.nrows,
            self.ncols,
            self.row_ptr.into_vec(),
            self.col_idx.into_vec(),
            self.values.into_vec(),
        )
    }

    /// Rows `rows` as a matrix of their own (same columns), copied.
    ///
    /// # Panics
    /// When `rows` is not within `0..nrows`, as a slice would.
    #[track_caller]
    pub fn rows(&self, rows: std::ops::Range<usize>) -> Csr<T> {
        assert!(
            rows.start <= rows.end && rows.end <= self.nrows,
            "rows {rows:?} of {} rows",
            self.nrows
        );
        let (first, last) = (self.row_ptr[rows.start], self.row_ptr[rows.end]);
        Csr {
            nrows: rows.len(),
            ncols: self.ncols,
            row_ptr: self.row_ptr[rows.start..=rows.end]
                .iter()
                .map(|p| p - first)
                .collect::<Vec<_>>()
                .into(),
            col_idx: self.col_idx[first..last].to_vec().into(),
            values: self.values[first..last].to_vec().into(),
        }
    }

    /// The same pattern with every value mapped through `f`.
    pub fn map<U: Scalar>(&self, f: impl Fn(T) -> U) -> Csr<U> {
        Csr {
            nrows: self.nrows,
            ncols: self.ncols,
            row_ptr: self.row_ptr.clone(),
            col_idx: self.col_idx.clone(),
            values: self.values.iter().map(|&v| f(v)).collect::<Vec<_>>().into(),
        }
    }

    /// The same pattern (its arrays moved, not copied) with every value
    /// mapped through `f`, or [`Error::TooLarge`](crate::Error) when the
    /// new values do not fit in memory.
    pub fn try_map_values<U: Scalar>(self, f: impl Fn(T) -> U) -> Result<Csr<U>> {
        let mut values = try_with_capacity("CSR values", self.nnz())?;
        values.extend(self.values.iter().map(|&v| f(v)));
        Ok(Csr {
            nrows: self.nrows,
            ncols: self.ncols,
            row_ptr: self.row_ptr,
            col_idx: self.col_idx,
            values: values.into(),
        })
    }

    /// The row of each stored entry, in storage order (COO's row array).
    pub fn entry_rows(&self) -> Vec<u32> {
        entry_rows(self.row_ptr())
    }

    /// Entries in row-major order as COO, or
    /// [`Error::TooLarge`](crate::Error) when they do not fit in memory.
    pub fn try_to_coo(&self) -> Result<Coo<T>> {
        let mut rows = try_with_capacity("COO row indices", self.nnz())?;
        for i in 0..self.nrows {
            rows.extend(std::iter::repeat_n(i as u32, self.row_len(i)));
        }
        let mut cols = try_with_capacity("COO column indices", self.nnz())?;
        cols.extend_from_slice(&self.col_idx);
        let mut values = try_with_capacity("COO values", self.nnz())?;
        values.extend_from_slice(&self.values);
        Ok(Coo::from_parts_unchecked(
            self.nrows, self.ncols, rows, cols, values,
        ))
    }

    /// Entries in row-major order as COO.
    pub fn to_coo(&self) -> Coo<T> {
        Coo::from_parts_unchecked(
            self.nrows,
            self.ncols,
            self.entry_rows(),
            self.col_idx.to_vec(),
            self.values.to_vec(),
        )
    }

    /// Whether `self` and `other` have the same shape, pattern and value
    /// bits (`-0.0` and `0.0` differ here, unlike `==`).
    pub fn same_bits(&self, other: &Csr<T>) -> bool {
        self.shape() == other.shape()
            && self.row_ptr() == other.row_ptr()
            && self.col_idx() == other.col_idx()
            && self
                .values()
                .iter()
                .zip(other.values())
                .all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// The transpose, by a counting sort on columns; the result is canonical
    /// because rows are visited in increasing order. This is also CSR → CSC:
    /// the transpose's CSR arrays are the original's CSC arrays.
    ///
    /// # Panics
    /// When memory for the result cannot be had; [`Csr::try_transpose`]
    /// returns that as an error.
    pub fn transpose(&self) -> Csr<T> {
        self.try_transpose()
            .unwrap_or_else(|e| panic!("Csr::transpose: {e}"))
    }

    /// [`Csr::transpose`], or [`Error::TooLarge`](crate::Error::TooLarge)
    /// with the numbers when its row pointers (`ncols + 1` of them) or
    /// entries do not fit in memory.
    pub fn try_transpose(&self) -> Result<Csr<T>> {
        self.transpose_as(&CSR_AXES)
    }

    /// The transpose, as the arrays of `axes`' format: the transpose's CSR
    /// arrays are the original's CSC arrays. `axes` names them in errors.
    pub(super) fn transpose_as(&self, axes: &Axes) -> Result<Csr<T>> {
        let nnz = self.nnz();
        let name = |what: &str| format!("{} {what}", axes.format);
        // Column c's count goes to row_ptr[c + 2], so that after the prefix
        // sum row_ptr[c + 1] is where column c starts, and it is where it
        // ends once its entries are placed (as in `Coo::try_to_csr`).
        let pointers = name(&format!("{} pointers", axes.major));
        let mut row_ptr = try_filled(&pointers, self.ncols + 1, 0usize)?;
        for &c in self.col_idx.iter() {
            if let Some(count) = row_ptr.get_mut(c as usize + 2) {
                *count += 1;
            }
        }
        for j in 1..self.ncols {
            row_ptr[j + 1] += row_ptr[j];
        }
        let indices = name(&format!("{} indices", axes.minor));
        let mut col_idx = try_filled(&indices, nnz, 0u32)?;
        let mut values = try_filled(&name("values"), nnz, T::ZERO)?;
        for i in 0..self.nrows {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                let dst = &mut row_ptr[c as usize + 1];
                col_idx[*dst] = i as u32;
                values[*dst] = v;
                *dst += 1;
            }
        }
        Ok(Csr {
            nrows: self.ncols,
            ncols: self.nrows,
            row_ptr: row_ptr.into(),
            col_idx: col_idx.into(),
            values: values.into(),
        })
    }

    /// Whether `other` has the same shape, pattern and values bit for bit.
    /// Unlike `==`, which compares values as numbers, a NaN equals the same
    /// NaN and 0 differs from −0: this is the test that a conversion or a
    /// round trip through a file changed nothing.
    pub fn identical(&self, other: &Csr<T>) -> bool {
        let bits = |v: &T| v.to_bits();
        self.shape() == other.shape()
            && self.row_ptr == other.row_ptr
            && self.col_idx == other.col_idx
            && self
                .values
                .iter()
                .map(bits)
                .eq(other.values.iter().map(bits))
    }

    /// Bytes the three arrays occupy.
    pub fn storage_bytes(&self) -> usize {
        self.row_ptr.len() * size_of::<usize>() + self.nnz() * (size_of::<u32>() + size_of::<T>())
    }

    /// The farthest any entry lies from the diagonal, `max |j − i|` over
    /// the stored entries `(i, j)`; 0 without entries. Columns are sorted,
    /// so each row's first and last entry decide; rows in parallel, as
    /// reading two entries a row from a large matrix is a pass over
    /// memory.
    pub fn bandwidth(&self) -> usize {
        (0..self.nrows)
            .into_par_iter()
            .with_min_len(1 << 14)
            .filter(|&i| self.row_len(i) > 0)
            .map(|i| {
                let (first, last) = (
                    self.col_idx[self.row_ptr[i]] as usize,
                    self.col_idx[self.row_ptr[i + 1] - 1] as usize,
                );
                i.saturating_sub(first).max(last.saturating_sub(i))
            })
            .max()
            .unwrap_or(0)
    }

    /// Row-length statistics, used by `spmx info` and by kernel selection.
    pub fn row_stats(&self) -> RowStats {
        RowStats::of_offsets(self.row_ptr())
    }
}

/// The row of each entry of a CSR pattern given by its `nrows + 1` row
/// offsets, in storage order (COO's row array).
pub fn entry_rows(row_ptr: &[usize]) -> Vec<u32> {
    let mut rows = Vec::with_capacity(row_ptr.last().copied().unwrap_or(0));
    for (i, span) in row_ptr.windows(2).enumerate() {
        rows.extend(std::iter::repeat_n(i as u32, span[1] - span[0]));
    }
    rows
}

/// Row-length statistics of a CSR matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowStats {
    /// Entries of the shortest row.
    pub min: usize,
    /// Entries of the longest row.
    pub max: usize,
    /// Entries per row, on average.
    pub mean: f64,
    /// Coefficient of variation: standard deviation over mean (0 when
    /// every row has the same length, or there are no entries).
    pub cv: f64,
    /// Rows without entries.
    pub empty_rows: usize,
}

impl RowStats {
    /// The statistics of the rows a CSR's `nrows + 1` row offsets give
    /// (what a device matrix's plan reads back, without its entries).
    pub fn of_offsets(row_ptr: &[usize]) -> RowStats {
        let nrows = row_ptr.len().saturating_sub(1);
        let mut stats = RowStats {
            min: if nrows == 0 { 0 } else { usize::MAX },
            max: 0,
            mean: 0.0,
            cv: 0.0,
            empty_rows: 0,
        };
        // Lengths are integers: their sum of squares is exact, so one pass
        // gives the variance as the mean square less the squared mean.
        let mut sum_sq = 0u128;
        for span in row_ptr.windows(2) {
            let len = span[1] - span[0];
            stats.min = stats.min.min(len);
            stats.max = stats.max.max(len);
            stats.empty_rows += usize::from(len == 0);
            sum_sq += (len as u128).pow(2);
        }
        if nrows > 0 {
            stats.mean = row_ptr[nrows] as f64 / nrows as f64;
        }
        if stats.mean > 0.0 {
            let var = sum_sq as f64 / nrows as f64 - stats.mean.powi(2);
            stats.cv = var.max(0.0).sqrt() / stats.mean;
        }
        stats
    }
}

/// Checks the canonical-CSR invariants, naming the first broken one.
fn validate(
    nrows: usize,
    ncols: usize,
    row_ptr: &[usize],
    col_idx: &[u32],
    nvalues: usize,
) -> Result<()> {
    compressed::validate(
        &CSR_AXES,
        (nrows, ncols),
        nrows,
        ncols,
        row_ptr,
        col_idx,
        nvalues,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_new_names_each_broken_invariant() {
        let err = |r: Result<Csr<f64>>| r.unwrap_err().to_string();
        assert!(err(Csr::try_new(2, 2, vec![0, 1], vec![0], vec![1.0])).contains("nrows + 1"));
        assert!(err(Csr::try_new(1, 2, vec![1, 1], vec![0], vec![1.0])).contains("row_ptr[0]"));
        assert!(
            err(Csr::try_new(
                3,
                2,
                vec![0, 2, 1, 2],
                vec![0, 1],
                vec![1.0, 2.0]
            ))
            .contains("decreases at row 1")
        );
        assert!(err(Csr::try_new(1, 2, vec![0, 1], vec![2], vec![1.0])).contains("out of range"));
        assert!(
            err(Csr::try_new(1, 3, vec![0, 2], vec![1, 1], vec![1.0, 1.0]))
                .contains("duplicate column")
        );
        assert!(
            err(Csr::try_new(1, 3, vec![0, 2], vec![2, 1], vec![1.0, 1.0])).contains("not sorted")
        );
        assert!(err(Csr::try_new(1, 3, vec![0, 1], vec![0], vec![])).contains("values"));
    }

    #[test]
    fn bandwidth_is_the_farthest_entry_from_the_diagonal() {
        let a = |rows, cols, ptr: Vec<usize>, idx: Vec<u32>| {
            let n = idx.len();
            Csr::try_new(rows, cols, ptr, idx, vec![1.0f64; n]).unwrap()
        };
        assert_eq!(a(0, 0, vec![0], vec![]).bandwidth(), 0);
        assert_eq!(a(3, 3, vec![0, 0, 0, 0], vec![]).bandwidth(), 0);
        // Below the diagonal in row 2, above it in row 0.
        let m = a(3, 9, vec![0, 2, 2, 3], vec![1, 4, 0]);
        assert_eq!(m.bandwidth(), 4);
        assert_eq!(a(4, 2, vec![0, 1, 1, 1, 2], vec![0, 0]).bandwidth(), 3);
    }

    #[test]
    fn transpose_twice_is_identity_and_keeps_explicit_zeros() {
        let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 0.0, 3.0]).unwrap();
        let t = a.transpose();
        assert_eq!(t.shape(), (3, 2));
        assert_eq!(t.get(2, 0), Some(0.0));
        assert_eq!(t.transpose(), a);
    }
}
