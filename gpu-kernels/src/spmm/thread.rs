//! A thread per (row, tile of columns), any layout: `spmm_csr_thread`.

use crate::args::{SPMM_THREAD_COLS, SpmmCsrThreadArgs};
use crate::device::thread::grid_stride;
use crate::semiring::Semiring;

/// SpMM with dense operands in any layout ([`SpmmCsrThreadArgs`]): a thread
/// per (row, tile of [`SPMM_THREAD_COLS`] columns), rows fastest. Each
/// value of C is summed in row order, as the serial engine sums (the same
/// bits for every semiring).
///
/// Launch: 1D, any block size and grid (`⌈n_rows · ⌈k / 8⌉ / block⌉`
/// blocks cover the work once). `n_rows · ⌈k / 8⌉` at most `u32::MAX`.
///
/// # Safety
/// `a` describes a valid CSR matrix and B, C of the strides given, in
/// device memory.
#[inline(always)]
pub unsafe fn spmm_csr_thread<S: Semiring>(a: SpmmCsrThreadArgs<S::Value>) {
    const W: usize = SPMM_THREAD_COLS as usize;
    let (row_ptr, col_idx, values, b, c) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.b.as_ptr(),
        a.c.as_mut_ptr(),
    );
    let k = a.k as usize;
    let (b_rs, b_cs) = (a.b_row_stride as usize, a.b_col_stride as usize);
    let (c_rs, c_cs) = (a.c_row_stride as usize, a.c_col_stride as usize);
    let n_tiles = a.k.div_ceil(SPMM_THREAD_COLS);
    for i in grid_stride(a.n_rows * n_tiles) {
        let (row, c0) = ((i % a.n_rows) as usize, (i / a.n_rows) as usize * W);
        let mut acc = [S::zero(); W];
        // SAFETY: the caller's contract.
        unsafe {
            let (start, end) = (*row_ptr.add(row) as usize, *row_ptr.add(row + 1) as usize);
            for e in start..end {
                let b_row = b.add(*col_idx.add(e) as usize * b_rs);
                let v = *values.add(e);
                for r in 0..W {
                    if c0 + r < k {
                        acc[r] = S::add(acc[r], S::mul(v, *b_row.add((c0 + r) * b_cs)));
                    }
                }
            }
            for r in 0..W {
                if c0 + r < k {
                    *c.add(row * c_rs + (c0 + r) * c_cs) = acc[r];
                }
            }
        }
    }
}
