//! nalgebra-sparse (feature `nalgebra`): `CsrMatrix<T>` ⇄ [`Csr`] and
//! `CscMatrix<T>` ⇄ [`Csc`].
//!
//! nalgebra-sparse stores the same canonical layout (offsets from 0, sorted
//! indices without duplicates) but with `usize` indices where spmx keeps
//! `u32`. The offsets and values therefore move; the indices are copied,
//! widened out of spmx and narrowed into it with a check: an index past
//! `u32` is [`Error::Invalid`], as is a shape past
//! [`MAX_DIM`](crate::format::MAX_DIM), and an index array that does not
//! fit in memory is [`Error::TooLarge`].

use ::nalgebra_sparse::{CscMatrix, CsrMatrix};

use crate::error::{Error, Result};
use crate::format::{Csc, Csr, try_with_capacity};
use crate::scalar::Scalar;

/// `indices` as `u32`, or [`Error::Invalid`] for `format` naming the first
/// that does not fit.
fn narrowed(format: &'static str, indices: &[usize]) -> Result<Vec<u32>> {
    let mut out = try_with_capacity(&format!("{format} indices"), indices.len())?;
    for &i in indices {
        let i = u32::try_from(i).map_err(|_| {
            Error::invalid(
                format,
                format!("nalgebra-sparse index {i} does not fit spmx's u32 indices"),
            )
        })?;
        out.push(i);
    }
    Ok(out)
}

/// `indices` as `usize`.
fn widened(indices: &[u32]) -> Vec<usize> {
    indices.iter().map(|&i| i as usize).collect()
}

impl<T: Scalar> TryFrom<CsrMatrix<T>> for Csr<T> {
    type Error = Error;
    /// Moves the offsets and values; copies the column indices, narrowed.
    fn try_from(m: CsrMatrix<T>) -> Result<Self> {
        let (nrows, ncols) = (m.nrows(), m.ncols());
        let (row_ptr, col_idx, values) = m.disassemble();
        Csr::try_new(nrows, ncols, row_ptr, narrowed("CSR", &col_idx)?, values)
    }
}

impl<T: Scalar> TryFrom<CscMatrix<T>> for Csc<T> {
    type Error = Error;
    /// Moves the offsets and values; copies the row indices, narrowed.
    fn try_from(m: CscMatrix<T>) -> Result<Self> {
        let (nrows, ncols) = (m.nrows(), m.ncols());
        let (col_ptr, row_idx, values) = m.disassemble();
        Csc::try_new(nrows, ncols, col_ptr, narrowed("CSC", &row_idx)?, values)
    }
}

impl<T: Scalar> From<Csr<T>> for CsrMatrix<T> {
    /// Moves the row pointers and values; copies the column indices, widened.
    ///
    /// # Panics
    /// When `a` is not canonical (built through
    /// [`Csr::from_parts_unchecked`] from parts that were not), which
    /// nalgebra-sparse's check finds.
    fn from(a: Csr<T>) -> Self {
        let (nrows, ncols, row_ptr, col_idx, values) = a.into_parts();
        CsrMatrix::try_from_csr_data(nrows, ncols, row_ptr, widened(&col_idx), values)
            .unwrap_or_else(|e| {
                panic!("CsrMatrix::from(Csr): nalgebra-sparse refuses the CSR: {e}")
            })
    }
}

impl<T: Scalar> From<Csc<T>> for CscMatrix<T> {
    /// Moves the column pointers and values; copies the row indices, widened.
    ///
    /// # Panics
    /// When `a` is not canonical (built through
    /// [`Csc::from_parts_unchecked`] from parts that were not), which
    /// nalgebra-sparse's check finds.
    fn from(a: Csc<T>) -> Self {
        let (ncols, nrows, col_ptr, row_idx, values) = a.into_transpose().into_parts();
        CscMatrix::try_from_csc_data(nrows, ncols, col_ptr, widened(&row_idx), values)
            .unwrap_or_else(|e| {
                panic!("CscMatrix::from(Csc): nalgebra-sparse refuses the CSC: {e}")
            })
    }
}
