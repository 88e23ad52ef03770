//! Operands from scipy's three arrays, read in place where they can be: a
//! canonical CSR's values, its `int32` column indices and its `int64` row
//! pointers become spmx [`Lent`] buffers that keep the numpy arrays alive,
//! so that `spmx.asarray(A)` copies none of A's entries. An array of
//! another dtype (`int64` column indices, `int32` row pointers: `nrows + 1`
//! values), not C-contiguous or misaligned is copied and converted instead,
//! as everything is when the caller asks for a copy. Either way the matrix
//! is checked once, here.
//!
//! numpy cannot forbid writes to an array it lent: the package's docs ask
//! that A's arrays not be written while a matrix made from them lives
//! (`copy=True` otherwise), as scipy does of a `csr_array(..., copy=False)`.

use std::any::Any;
use std::sync::Arc;

use numpy::{
    Element, PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmx::Csr;
use spmx::format::{Buffer, Lent};

use crate::errors::to_py;
use crate::values::Value;

/// A numpy array held for as long as spmx reads it in place.
struct Pinned(#[allow(dead_code)] Py<PyAny>);

/// `array`'s elements, of numpy type `E`, lent as `U` (of the same size and
/// alignment) when `array` is 1-D of exactly that dtype, C-contiguous and
/// aligned; else `None`.
fn lend<E: Element, U>(array: &Bound<'_, PyUntypedArray>) -> Option<Lent<U>> {
    debug_assert!(size_of::<E>() == size_of::<U>() && align_of::<E>() == align_of::<U>());
    let typed = array.cast::<PyArray1<E>>().ok()?;
    let ptr = typed.data().cast_const();
    if !typed.is_c_contiguous() || !(ptr as usize).is_multiple_of(align_of::<U>()) {
        return None;
    }
    let owner: Arc<dyn Any + Send + Sync> = Arc::new(Pinned(typed.clone().into_any().unbind()));
    // SAFETY: `ptr` is the first of `typed.len()` contiguous, aligned,
    // initialised `E`s, read as `U`s of the same size and alignment whose
    // every bit pattern callers check (values: any bits are a value of the
    // type, numpy's bool bytes are 0 or 1; indices: checked by
    // `Csr::try_from_buffers`). `owner` holds the array, and so its memory;
    // that nothing writes it while spmx reads it is the package's stated
    // rule (module docs), which numpy cannot enforce.
    Some(unsafe { Lent::new(ptr.cast::<U>(), typed.len(), owner) })
}

/// `array` (1-D, of integer dtype `int32` or `int64`) copied as a `Vec` of
/// `U`, each converted, or a `ValueError` naming `what` and the first index
/// that does not convert (negative, or too large).
fn index_vec<U: TryFrom<i64>>(array: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<Vec<U>> {
    fn convert<I: Copy + Into<i64> + Element, U: TryFrom<i64>>(
        array: &Bound<'_, PyUntypedArray>,
        what: &str,
    ) -> PyResult<Vec<U>> {
        let array = array.cast::<PyArray1<I>>()?.readonly();
        let view = array.as_array();
        let converted = view.iter().enumerate().map(|(at, &v)| {
            U::try_from(v.into()).map_err(|_| {
                PyValueError::new_err(format!(
                    "{what}[{at}] = {} is not a valid index here",
                    v.into()
                ))
            })
        });
        converted.collect()
    }
    let dtype = array.dtype();
    let py = array.py();
    if dtype.is_equiv_to(&numpy::dtype::<i32>(py)) {
        convert::<i32, U>(array, what)
    } else if dtype.is_equiv_to(&numpy::dtype::<i64>(py)) {
        convert::<i64, U>(array, what)
    } else {
        Err(PyValueError::new_err(format!(
            "{what} has dtype {dtype}; spmx takes int32 or int64 indices"
        )))
    }
}

/// The CSR matrix of scipy's arrays, of value type `T` (`data`'s dtype),
/// read in place where the module docs say, or copied throughout when
/// `copy`; checked either way, a broken one a `ValueError` naming the row
/// or entry.
pub fn csr_from_parts<T: Value>(
    py: Python<'_>,
    shape: (usize, usize),
    indptr: &Bound<'_, PyUntypedArray>,
    indices: &Bound<'_, PyUntypedArray>,
    data: &Bound<'_, PyUntypedArray>,
    copy: bool,
) -> PyResult<Csr<T>> {
    let (nrows, ncols) = shape;
    if !copy {
        // `int32` columns read as `u32`: a negative one reads as 2³¹ or
        // more, past the last column when there are at most 2³¹ columns
        // (scipy's own limit for `int32` indices), so the check rejects it.
        let col_idx = (ncols <= 1 << 31)
            .then(|| lend::<i32, u32>(indices))
            .flatten();
        let row_ptr = const { size_of::<usize>() == size_of::<i64>() }
            .then(|| lend::<i64, usize>(indptr))
            .flatten();
        let values = lend::<T, T>(data);
        if col_idx.is_some() || row_ptr.is_some() || values.is_some() {
            let row_ptr = match row_ptr {
                Some(lent) => Buffer::from(lent),
                None => index_vec::<usize>(indptr, "indptr")?.into(),
            };
            let col_idx = match col_idx {
                Some(lent) => Buffer::from(lent),
                None => index_vec::<u32>(indices, "indices")?.into(),
            };
            let values = match values {
                Some(lent) => Buffer::from(lent),
                None => copied_values::<T>(data)?.into(),
            };
            // A broken matrix is checked again below, through the copies,
            // whose errors name a negative index as such.
            if let Ok(c) = Csr::try_from_buffers(nrows, ncols, row_ptr, col_idx, values) {
                return Ok(c);
            }
        }
    }
    let row_ptr = index_vec::<usize>(indptr, "indptr")?;
    let col_idx = index_vec::<u32>(indices, "indices")?;
    Csr::try_new(nrows, ncols, row_ptr, col_idx, copied_values::<T>(data)?)
        .map_err(|e| to_py(py, e))
}

/// `data` (1-D, of `T`'s dtype) copied.
fn copied_values<T: Value>(data: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<T>> {
    Ok(data.cast::<PyArray1<T>>()?.readonly().as_array().to_vec())
}
