//! Multicore masked products (`C⟨M⟩ = A ⊗ B`, `C⟨M⟩ = T`, `y⟨m⟩ = A ⊗ x`):
//! rows split by work into chunks, each chunk formed by the row kernels of
//! [`shared::masked`](crate::engine::shared::masked), the chunks joined in
//! row order, so the bits are the serial engine's.

use crate::engine::shared::masked::{
    Mask, MaskedRows, VectorMask, assign_row, spgemm_masked_one_thread, spmv_masked_rows,
};
use crate::engine::shared::partition::{balanced_row_chunks, csr_by_rows, split_rows_mut};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;

/// Entries (of the operands together) under which the serial loop runs:
/// below it the split costs more than the threads save.
pub const SERIAL_BELOW_NNZ: usize = 100_000;

/// `C⟨M⟩ = A ⊗ B` on all threads; shapes already checked.
pub fn spgemm_masked<S: Semiring, M: Scalar>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mask: Mask<'_, M>,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    if a.nnz() + b.nnz() + mask.pattern.nnz() < SERIAL_BELOW_NNZ {
        return spgemm_masked_one_thread::<S, M>(a, b, mask);
    }
    // A row's work: its entries of A (each a row of B to walk) and of M.
    let work: Vec<usize> = a
        .row_ptr()
        .iter()
        .zip(mask.pattern.row_ptr())
        .map(|(p, q)| p + q)
        .collect();
    csr_by_rows(
        a.nrows(),
        b.ncols(),
        Some(&work),
        || MaskedRows::new(b.ncols()),
        |w, i, cols, vals| w.row::<S, M>(i, a, b, mask, cols, vals),
    )
}

/// `C⟨M⟩ = T` or `C⟨M, replace⟩ = T` on all threads (see
/// [`assign_row`]); shapes already checked.
pub fn assign_masked<T: Scalar, M: Scalar>(
    c: &Csr<T>,
    t: &Csr<T>,
    mask: Mask<'_, M>,
    replace: bool,
) -> Csr<T> {
    let work: Vec<usize> = (c.row_ptr().iter().zip(t.row_ptr()))
        .zip(mask.pattern.row_ptr())
        .map(|((p, q), r)| p + q + r)
        .collect();
    csr_by_rows(
        c.nrows(),
        c.ncols(),
        Some(&work),
        || (),
        |(), i, cols, vals| assign_row(i, c, t, mask, replace, cols, vals),
    )
}

/// `y⟨m⟩ = A ⊗ x` on all threads (see [`spmv_masked_rows`]); lengths
/// already checked.
pub fn spmv_masked<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    y: &mut [S::Value],
    mask: VectorMask<'_>,
    replace: bool,
) where
    S::Value: Scalar,
{
    if a.nnz() < SERIAL_BELOW_NNZ {
        return spmv_masked_rows::<S>(a, x, 0..a.nrows(), y, mask, replace);
    }
    let chunks = balanced_row_chunks(a.row_ptr());
    let parts = split_rows_mut(y, &chunks, 1);
    chunks
        .into_par_iter()
        .zip(parts)
        .for_each(|(rows, y_rows)| spmv_masked_rows::<S>(a, x, rows, y_rows, mask, replace));
}
