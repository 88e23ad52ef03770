//! sprs (feature `sprs`): `CsMatI<T, u32, usize>` ⇄ [`Csr`] and [`Csc`].
//!
//! sprs keeps CSR and CSC in one type, `CsMatI<T, I, Iptr>`, with the
//! storage order a run-time value and the index types parameters.
//! `CsMatI<T, u32, usize>` has spmx's layout (`usize` pointers, `u32`
//! indices), so:
//!
//! - `Csr::try_from(m)` moves a CSR-stored `m`'s three arrays (no copy);
//!   a CSC-stored `m` holds `mᵀ`'s CSR arrays and is transposed once into
//!   new arrays. `Csc::try_from(m)` is the mirror: CSC-stored moves,
//!   CSR-stored is transposed.
//! - `CsMatI::from(csr)` and `CsMatI::from(csc)` move the arrays into a
//!   CSR- or CSC-stored matrix (sprs checks their order once, no copy).
//! - Any view, `CsMatViewI<T, I, Iptr>` of any index types (`m.view()` of
//!   the common `CsMat<T>`, whose indices are `usize`), converts by copy,
//!   each index narrowed to `u32` with a check.
//!
//! The conversions into spmx fail with [`Error::Invalid`] where the matrix
//! exceeds spmx's dimensions (more than [`MAX_DIM`](crate::format::MAX_DIM)
//! rows or columns, an index past `u32`), and [`Error::TooLarge`] where a
//! copy or a transpose does not fit in memory. sprs allows a pointer array
//! that starts past 0 (a matrix cut out of a larger one): it is shifted to
//! start at 0, in place.

use ::sprs::{CompressedStorage, CsMatI, CsMatViewI, SpIndex};

use crate::error::{Error, Result};
use crate::format::{Csc, Csr, try_with_capacity};
use crate::scalar::Scalar;

/// A compressed matrix's arrays as spmx stores them (pointers from 0),
/// with its shape and sprs's storage order.
struct Arrays<T> {
    storage: CompressedStorage,
    shape: (usize, usize),
    ptr: Vec<usize>,
    idx: Vec<u32>,
    values: Vec<T>,
}

impl<T: Scalar> Arrays<T> {
    /// `m`'s own arrays, moved.
    fn moved(m: CsMatI<T, u32, usize>) -> Self {
        let (storage, shape) = (m.storage(), m.shape());
        let (mut ptr, idx, values) = m.into_raw_storage();
        let first = ptr.first().copied().unwrap_or(0);
        if first != 0 {
            ptr.iter_mut().for_each(|p| *p -= first);
        }
        Arrays {
            storage,
            shape,
            ptr,
            idx,
            values,
        }
    }

    /// `m`'s arrays copied, indices narrowed to `u32`.
    fn copied<I: SpIndex, Iptr: SpIndex>(m: &CsMatViewI<'_, T, I, Iptr>) -> Result<Self> {
        let format = match m.storage() {
            CompressedStorage::CSR => "CSR",
            CompressedStorage::CSC => "CSC",
        };
        let indptr = m.indptr();
        let raw_ptr = indptr.raw_storage();
        let first = raw_ptr.first().map_or(0, |p| p.index());
        let mut ptr = try_with_capacity("sprs pointers", raw_ptr.len())?;
        ptr.extend(raw_ptr.iter().map(|p| p.index() - first));
        let mut idx = try_with_capacity("sprs indices", m.nnz())?;
        for &i in m.indices() {
            let i = u32::try_from(i.index()).map_err(|_| {
                Error::invalid(
                    format,
                    format!("sprs index {} does not fit spmx's u32 indices", i.index()),
                )
            })?;
            idx.push(i);
        }
        let mut values = try_with_capacity("sprs values", m.nnz())?;
        values.extend_from_slice(m.data());
        Ok(Arrays {
            storage: m.storage(),
            shape: m.shape(),
            ptr,
            idx,
            values,
        })
    }

    fn into_csr(self) -> Result<Csr<T>> {
        let Arrays {
            storage,
            shape: (nrows, ncols),
            ptr,
            idx,
            values,
        } = self;
        match storage {
            CompressedStorage::CSR => Csr::try_new(nrows, ncols, ptr, idx, values),
            CompressedStorage::CSC => Csc::try_new(nrows, ncols, ptr, idx, values)?.try_into_csr(),
        }
    }

    fn into_csc(self) -> Result<Csc<T>> {
        let Arrays {
            storage,
            shape: (nrows, ncols),
            ptr,
            idx,
            values,
        } = self;
        match storage {
            CompressedStorage::CSC => Csc::try_new(nrows, ncols, ptr, idx, values),
            CompressedStorage::CSR => {
                Csc::try_from_csr(&Csr::try_new(nrows, ncols, ptr, idx, values)?)
            }
        }
    }
}

impl<T: Scalar> TryFrom<CsMatI<T, u32, usize>> for Csr<T> {
    type Error = Error;
    /// Moves a CSR-stored `m`'s arrays; transposes a CSC-stored one.
    fn try_from(m: CsMatI<T, u32, usize>) -> Result<Self> {
        Arrays::moved(m).into_csr()
    }
}

impl<T: Scalar> TryFrom<CsMatI<T, u32, usize>> for Csc<T> {
    type Error = Error;
    /// Moves a CSC-stored `m`'s arrays; transposes a CSR-stored one.
    fn try_from(m: CsMatI<T, u32, usize>) -> Result<Self> {
        Arrays::moved(m).into_csc()
    }
}

impl<T: Scalar, I: SpIndex, Iptr: SpIndex> TryFrom<CsMatViewI<'_, T, I, Iptr>> for Csr<T> {
    type Error = Error;
    /// Copies `m`, narrowing its indices; a CSC-stored `m` is transposed.
    fn try_from(m: CsMatViewI<'_, T, I, Iptr>) -> Result<Self> {
        Arrays::copied(&m)?.into_csr()
    }
}

impl<T: Scalar, I: SpIndex, Iptr: SpIndex> TryFrom<CsMatViewI<'_, T, I, Iptr>> for Csc<T> {
    type Error = Error;
    /// Copies `m`, narrowing its indices; a CSR-stored `m` is transposed.
    fn try_from(m: CsMatViewI<'_, T, I, Iptr>) -> Result<Self> {
        Arrays::copied(&m)?.into_csc()
    }
}

impl<T: Scalar> From<Csr<T>> for CsMatI<T, u32, usize> {
    /// A CSR-stored matrix on `a`'s arrays, moved.
    ///
    /// # Panics
    /// When `a` is not canonical (built through
    /// [`Csr::from_parts_unchecked`] from parts that were not), which sprs's
    /// check finds.
    fn from(a: Csr<T>) -> Self {
        let (nrows, ncols, row_ptr, col_idx, values) = a.into_parts();
        CsMatI::try_new((nrows, ncols), row_ptr, col_idx, values)
            .unwrap_or_else(|(.., e)| panic!("CsMatI::from(Csr): sprs refuses the CSR: {e}"))
    }
}

impl<T: Scalar> From<Csc<T>> for CsMatI<T, u32, usize> {
    /// A CSC-stored matrix on `a`'s arrays, moved.
    ///
    /// # Panics
    /// When `a` is not canonical (built through
    /// [`Csc::from_parts_unchecked`] from parts that were not), which sprs's
    /// check finds.
    fn from(a: Csc<T>) -> Self {
        let (ncols, nrows, col_ptr, row_idx, values) = a.into_transpose().into_parts();
        CsMatI::try_new_csc((nrows, ncols), col_ptr, row_idx, values)
            .unwrap_or_else(|(.., e)| panic!("CsMatI::from(Csc): sprs refuses the CSC: {e}"))
    }
}
