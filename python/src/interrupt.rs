//! SpGEMM that Ctrl-C can stop: a product of many products on the cpu or
//! serial engine is computed in blocks of rows of A (cut by products,
//! `spmx::ops::spgemm_blocks::rows_by_products`), with the GIL released
//! during each block and Python's signal handlers run between blocks, so
//! that `KeyboardInterrupt` comes within a block's time rather than after
//! the whole product. The blocks are then joined into one C (a copy of C,
//! which is why small products are not cut). Each block is a full
//! `ops::spgemm` of its rows, with its checks; its rows have the bits of
//! the whole product's.

use crate::errors::to_py;
use crate::values::Value;
use pyo3::prelude::*;
use spmx::engine::Op;
use spmx::ops::{self, spgemm_blocks};
use spmx::{Csr, Engine, Semiring};

/// Products from which a product is cut into blocks: below it a product
/// takes about a second at most on one core (about 25 ns a product), short
/// enough to wait out, and joining the blocks (a copy of C) would cost
/// more than being interruptible earns.
const INTERRUPTIBLE_FROM: usize = 1 << 26;

/// Products a block: a few tenths of a second on one core, the time
/// Ctrl-C may wait; the copy that joins the blocks stays a small share.
const BLOCK_PRODUCTS: usize = 1 << 24;

/// C = A ⊗ B over `S` on `engine`, with the GIL released: in blocks with
/// Python's signals checked between them where the product is large and
/// runs on the CPU, else in one call.
pub fn spgemm<S: Semiring>(
    py: Python<'_>,
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> PyResult<Csr<S::Value>>
where
    S::Value: Value,
{
    let whole = |py: Python<'_>| {
        py.detach(|| ops::spgemm::<S>(a, b, engine))
            .map_err(|e| to_py(py, e))
    };
    if a.ncols() != b.nrows() {
        return whole(py); // the crate's error names both shapes
    }
    let products = ops::spgemm_products(a, b);
    let resolved = engine
        .resolve_for::<S>(Op::Spgemm)
        .map_err(|e| to_py(py, e))?;
    if products < INTERRUPTIBLE_FROM || !matches!(resolved, Engine::Cpu | Engine::Serial) {
        return whole(py);
    }
    spgemm_blocks::check_c_fits(a, b).map_err(|e| to_py(py, e))?;
    let blocks = spgemm_blocks::rows_by_products(a, b, products.div_ceil(BLOCK_PRODUCTS))
        .map_err(|e| to_py(py, e))?;
    let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
    row_ptr.push(0);
    let (mut col_idx, mut values) = (Vec::new(), Vec::new());
    for rows in blocks {
        py.check_signals()?;
        let block = py.detach(|| {
            let a_rows = spgemm_blocks::rows_of(a, rows)?;
            ops::spgemm::<S>(&a_rows, b, resolved)
        });
        let block = block.map_err(|e| to_py(py, e))?;
        reserve(py, &mut col_idx, block.nnz())?;
        reserve(py, &mut values, block.nnz())?;
        let offset = col_idx.len();
        row_ptr.extend(block.row_ptr()[1..].iter().map(|p| p + offset));
        col_idx.extend_from_slice(block.col_idx());
        values.extend_from_slice(block.values());
    }
    py.check_signals()?;
    // Every block is canonical, and the rows follow one another.
    Ok(Csr::from_parts_unchecked(
        a.nrows(),
        b.ncols(),
        row_ptr,
        col_idx,
        values,
    ))
}

/// Room for `more` elements in `v`, or [`OutOfMemoryError`] instead of an
/// abort where the joined C does not fit.
///
/// [`OutOfMemoryError`]: crate::errors::OutOfMemoryError
fn reserve<T>(py: Python<'_>, v: &mut Vec<T>, more: usize) -> PyResult<()> {
    v.try_reserve(more).map_err(|_| {
        let bytes = (v.len() + more).saturating_mul(size_of::<T>());
        to_py(
            py,
            spmx::Error::TooLarge(format!(
                "joining C's row blocks: an array of {} elements ({bytes} bytes) \
                 cannot be allocated",
                v.len() + more
            )),
        )
    })
}
