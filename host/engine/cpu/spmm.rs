//! Multicore SpMM, C = A ⊗ B (A CSR, B and C dense): rows of A split into
//! chunks of equal nonzeros, each chunk computed by the shared row kernel
//! [`spmm_rows_into`] into its own rows of C, so the bits are the serial
//! engine's whatever the thread count. Below [`SERIAL_BELOW_WORK`] products
//! the serial loop runs instead.

use crate::engine::shared::partition::{balanced_row_chunks, split_rows_mut};
use crate::engine::shared::spmm::{check_shapes, spmm_rows_into};
use crate::error::Result;
use crate::format::{Csr, Dense};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;

/// Products (`nnz(A) · k`) under which the serial loop runs.
pub const SERIAL_BELOW_WORK: usize = 100_000;

/// C = A ⊗ B on all rayon threads. A C too large to allocate is
/// [`Error::TooLarge`](crate::Error).
#[track_caller]
pub fn spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    let k = b.ncols();
    let mut c = Dense::filled(a.nrows(), k, S::zero())?;
    if a.nnz().saturating_mul(k) < SERIAL_BELOW_WORK {
        spmm_rows_into::<S>(a, b, 0..a.nrows(), c.as_mut_slice());
        return Ok(c);
    }
    let chunks = balanced_row_chunks(a.row_ptr());
    split_rows_mut(c.as_mut_slice(), &chunks, k)
        .into_par_iter()
        .zip(chunks.into_par_iter())
        .for_each(|(out, rows)| spmm_rows_into::<S>(a, b, rows, out));
    Ok(c)
}
