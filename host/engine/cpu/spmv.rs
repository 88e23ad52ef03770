//! Multicore SpMV: rows split into chunks of equal nonzeros, each row
//! computed as the serial engine computes it (same bits).

use crate::engine::serial::spmv::{check_x_len, csr_row_dot};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;

/// Nonzeros under which the serial loop runs instead.
pub const SERIAL_BELOW_NNZ: usize = 100_000;

/// y = A ⊗ x for CSR on all rayon threads.
#[track_caller]
pub fn spmv_csr<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut y = vec![S::zero(); a.nrows()];
    if a.nnz() < SERIAL_BELOW_NNZ {
        fill_rows::<S>(a, x, 0, &mut y);
        return y;
    }
    let chunks = super::balanced_row_chunks(a.row_ptr());
    super::split_rows_mut(&mut y, &chunks, 1)
        .into_par_iter()
        .zip(chunks.par_iter())
        .for_each(|(out, rows)| fill_rows::<S>(a, x, rows.start, out));
    y
}

fn fill_rows<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value], first_row: usize, out: &mut [S::Value])
where
    S::Value: Scalar,
{
    for (k, yi) in out.iter_mut().enumerate() {
        let (cols, vals) = a.row(first_row + k);
        *yi = csr_row_dot::<S>(cols, vals, x);
    }
}
