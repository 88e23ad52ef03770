//! Multicore element-wise addition C = A ⊕ B: rows split by the entries
//! of both operands, each chunk merging its rows with the shared
//! [`merge_row`], the chunks then joined in row order (same bits as serial).

use crate::engine::shared::ewise::{check_same_shape, ewise_add_one_thread, merge_row};
use crate::engine::shared::partition::csr_by_rows;
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// Entries (of A and B together) under which the serial loop runs.
pub const SERIAL_BELOW_NNZ: usize = 200_000;

/// `A ⊕ B` on all rayon threads; panics unless the shapes agree.
#[track_caller]
pub fn ewise_add<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_same_shape(a, b);
    if a.nnz() + b.nnz() < SERIAL_BELOW_NNZ {
        return ewise_add_one_thread::<S>(a, b);
    }
    let work: Vec<usize> = a
        .row_ptr()
        .iter()
        .zip(b.row_ptr())
        .map(|(p, q)| p + q)
        .collect();
    csr_by_rows(
        a.nrows(),
        a.ncols(),
        Some(&work),
        || (),
        |(), i, cols, vals| merge_row::<S>(a.row(i), b.row(i), cols, vals),
    )
}
