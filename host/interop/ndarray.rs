//! ndarray (feature `ndarray`): `Array2<T>` ⇄ [`Dense`], the B and C of
//! SpMM, and [`spmv`] with `Array1<T>` as x and y.
//!
//! [`Dense`] is row-major, which is ndarray's standard layout:
//!
//! - `Dense::try_from(b)` of an `Array2` in standard layout moves its
//!   buffer (no copy; an array sliced in place first shifts its elements to
//!   the front of the buffer). A column-major (`.f()`) or strided array is
//!   copied into row-major order, as is any `ArrayView2`.
//! - `Array2::from(c)` moves a [`Dense`]'s buffer (no copy), and
//!   `ArrayView2::from(&c)` borrows it.
//!
//! SpMM with ndarray operands, then, is
//! `Array2::from(a.spmm(&Dense::try_from(b)?)?)`, with no copy for a
//! row-major `b`.

use ::ndarray::{Array1, Array2, ArrayView1, ArrayView2};

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::format::{Dense, try_with_capacity};
use crate::ops;
use crate::ops::SpmvFormat;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

impl<T: Scalar> TryFrom<Array2<T>> for Dense<T> {
    type Error = Error;
    /// Moves `b`'s buffer when it is in standard (row-major) layout; copies
    /// otherwise.
    fn try_from(b: Array2<T>) -> Result<Self> {
        if !b.is_standard_layout() {
            return Dense::try_from(b.view());
        }
        let ((nrows, ncols), len) = (b.dim(), b.len());
        // In standard layout the elements are `data[first..first + len]`,
        // in order; `first` is None for an empty array.
        let (mut data, first) = b.into_raw_vec_and_offset();
        let first = first.unwrap_or(0);
        data.truncate(first + len);
        data.drain(..first);
        Dense::try_new(nrows, ncols, data)
    }
}

impl<T: Scalar> TryFrom<ArrayView2<'_, T>> for Dense<T> {
    type Error = Error;
    /// Copies `b` into row-major order, whatever its layout.
    fn try_from(b: ArrayView2<'_, T>) -> Result<Self> {
        let (nrows, ncols) = b.dim();
        let mut data = try_with_capacity("dense", b.len())?;
        data.extend(b.iter().copied());
        Dense::try_new(nrows, ncols, data)
    }
}

impl<T: Scalar> From<Dense<T>> for Array2<T> {
    /// Moves `c`'s buffer: a standard-layout array.
    fn from(c: Dense<T>) -> Self {
        let shape = c.shape();
        Array2::from_shape_vec(shape, c.into_vec())
            .unwrap_or_else(|e| panic!("Array2::from(Dense): {e}"))
    }
}

impl<'a, T: Scalar> From<&'a Dense<T>> for ArrayView2<'a, T> {
    /// Borrows `c`'s elements.
    fn from(c: &'a Dense<T>) -> Self {
        ArrayView2::from_shape(c.shape(), c.as_slice())
            .unwrap_or_else(|e| panic!("ArrayView2::from(&Dense): {e}"))
    }
}

/// y = A ⊗ x over `S` on `engine` ([`ops::spmv`]), with ndarray vectors:
/// `x` is read in place when contiguous (copied when strided), and `y` is
/// the result's buffer, moved.
#[track_caller]
pub fn spmv<S: Semiring>(
    a: &impl SpmvFormat<S::Value>,
    x: ArrayView1<'_, S::Value>,
    engine: Engine,
) -> Result<Array1<S::Value>>
where
    S::Value: Scalar,
{
    let y = match x.as_slice() {
        Some(x) => ops::spmv::<S>(a, x, engine)?,
        None => ops::spmv::<S>(a, &x.to_vec(), engine)?,
    };
    Ok(Array1::from_vec(y))
}
