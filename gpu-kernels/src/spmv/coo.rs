//! COO, a thread an entry, summed into `y` by the semiring's atomics
//! (`spmv_coo_atomic`; also HYB's overflow).

use crate::args::SpmvCooArgs;
use crate::device::atomic::{AtomicAdd, atomic_add};
use crate::device::thread::grid_stride;

/// COO, one thread per stored entry: `y[r] ⊕= v ⊗ x[c]` by
/// [`atomic_add::<S>`](atomic_add). Any entry order; the order of the
/// floating-point sums is whatever the atomics make it (not reproducible
/// run to run; the exact semirings do not care). Also HYB's second step.
/// PTX's `atom.add.f32` flushes subnormal results to zero, so an f32
/// plus-times row whose sum is subnormal may come out as 0.
///
/// Launch: 1D, any block size, any grid (`⌈nnz / block⌉` blocks cover the
/// entries once). `y` must hold the semiring zero, or a sum to add to.
///
/// # Safety
/// `a` describes valid COO arrays and vectors in device memory
/// (`row_idx < n_rows`, `col_idx` within `x`).
#[inline(always)]
pub unsafe fn spmv_coo_atomic<S: AtomicAdd>(a: SpmvCooArgs<S::Value>) {
    let (row_idx, col_idx, values, x, y) = (
        a.row_idx.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    for k in grid_stride(a.nnz) {
        let k = k as usize;
        // SAFETY: the caller's contract: every index is in bounds.
        unsafe {
            let xk = *x.add(*col_idx.add(k) as usize);
            let product = S::mul(*values.add(k), xk);
            atomic_add::<S>(y.add(*row_idx.add(k) as usize), product);
        }
    }
}
