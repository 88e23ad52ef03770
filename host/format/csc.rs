//! CSC (compressed sparse column): CSR's mirror, for kernels that walk
//! columns (a column-oriented SpMV, the `Aᵀ` side of a product).
//!
//! Layout: `col_ptr` (`ncols + 1` offsets, `usize`), `row_idx` (`u32`),
//! `values`; column `j` holds entries `col_ptr[j]..col_ptr[j + 1]`. These are
//! exactly the CSR arrays of the transpose, so conversions go through
//! [`Csr::transpose`] and [`Csc::into_transpose`] is free. Canonical like
//! CSR: rows strictly increasing within a column, in range; explicit zeros
//! are entries.

use crate::error::Result;
use crate::format::Csr;
use crate::format::compressed::{self, CSC_AXES};
use crate::scalar::Scalar;

/// A canonical compressed-sparse-column matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Csc<T> {
    nrows: usize,
    ncols: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<u32>,
    values: Vec<T>,
}

impl<T: Scalar> Csc<T> {
    /// Builds a CSC matrix from its parts, checking every invariant.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<usize>,
        row_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Result<Self> {
        validate(nrows, ncols, &col_ptr, &row_idx, values.len())?;
        Ok(Csc {
            nrows,
            ncols,
            col_ptr,
            row_idx,
            values,
        })
    }

    /// Builds a CSC matrix from parts the caller guarantees are canonical.
    /// Debug builds still check.
    pub fn from_parts_unchecked(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<usize>,
        row_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        if cfg!(debug_assertions)
            && let Err(e) = validate(nrows, ncols, &col_ptr, &row_idx, values.len())
        {
            panic!("Csc::from_parts_unchecked: {e}");
        }
        Csc {
            nrows,
            ncols,
            col_ptr,
            row_idx,
            values,
        }
    }

    /// The CSC form of `a` (one transpose).
    ///
    /// # Panics
    /// When memory for it cannot be had; [`Csc::try_from_csr`] returns that
    /// as an error.
    pub fn from_csr(a: &Csr<T>) -> Self {
        Self::try_from_csr(a).unwrap_or_else(|e| panic!("Csc::from_csr: {e}"))
    }

    /// [`Csc::from_csr`], or [`Error::TooLarge`](crate::Error::TooLarge)
    /// when the column pointers (`ncols + 1`) or entries do not fit in memory.
    pub fn try_from_csr(a: &Csr<T>) -> Result<Self> {
        let (_, _, col_ptr, row_idx, values) = a.transpose_as(&CSC_AXES)?.into_parts();
        Ok(Csc {
            nrows: a.nrows(),
            ncols: a.ncols(),
            col_ptr,
            row_idx,
            values,
        })
    }

    /// Back to CSR (copies the arrays, then one transpose).
    ///
    /// # Panics
    /// As [`Csc::into_csr`].
    pub fn to_csr(&self) -> Csr<T> {
        self.clone().into_csr()
    }

    /// Back to CSR, reusing this matrix's arrays (one transpose, no copy).
    ///
    /// # Panics
    /// When memory for the CSR cannot be had; [`Csc::try_into_csr`] returns
    /// that as an error.
    pub fn into_csr(self) -> Csr<T> {
        self.try_into_csr()
            .unwrap_or_else(|e| panic!("Csc::into_csr: {e}"))
    }

    /// [`Csc::into_csr`], or [`Error::TooLarge`](crate::Error::TooLarge)
    /// when the row pointers (`nrows + 1`) or entries do not fit in memory.
    pub fn try_into_csr(self) -> Result<Csr<T>> {
        self.into_transpose().try_transpose()
    }

    /// `Aᵀ` as CSR: the same arrays under another name, no work.
    pub fn into_transpose(self) -> Csr<T> {
        Csr::from_parts_unchecked(
            self.ncols,
            self.nrows,
            self.col_ptr,
            self.row_idx,
            self.values,
        )
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
        self.row_idx.len()
    }
    /// `ncols + 1` offsets: column `j`'s entries are at `col_ptr[j]..col_ptr[j + 1]`.
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }
    /// Each entry's row, increasing within a column.
    pub fn row_idx(&self) -> &[u32] {
        &self.row_idx
    }
    /// Each entry's value, in the order of `row_idx`.
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Row indices and values of column `j`.
    #[inline]
    pub fn col(&self, j: usize) -> (&[u32], &[T]) {
        let r = self.col_ptr[j]..self.col_ptr[j + 1];
        (&self.row_idx[r.clone()], &self.values[r])
    }
    /// Bytes held by the arrays.
    pub fn storage_bytes(&self) -> usize {
        size_of_val(self.col_ptr.as_slice())
            + size_of_val(self.row_idx.as_slice())
            + size_of_val(self.values.as_slice())
    }
}

/// Checks the canonical-CSC invariants, naming the first broken one.
fn validate(
    nrows: usize,
    ncols: usize,
    col_ptr: &[usize],
    row_idx: &[u32],
    nvalues: usize,
) -> Result<()> {
    compressed::validate(
        &CSC_AXES,
        (nrows, ncols),
        ncols,
        nrows,
        col_ptr,
        row_idx,
        nvalues,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_csr_gives_the_transposes_arrays() {
        // [1 0 2]
        // [0 3 0]
        let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]).unwrap();
        let c = Csc::from_csr(&a);
        assert_eq!(c.shape(), (2, 3));
        assert_eq!(c.col_ptr(), &[0, 1, 2, 3]);
        assert_eq!(c.row_idx(), &[0, 1, 0]);
        assert_eq!(c.values(), &[1.0, 3.0, 2.0]);
        assert_eq!(c.col(2), (&[0u32][..], &[2.0][..]));
        assert_eq!(c.clone().into_transpose(), a.transpose());
        assert_eq!(c.into_csr(), a);
    }
}
