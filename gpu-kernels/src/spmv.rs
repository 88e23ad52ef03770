//! SpMV kernel bodies, generic over the semiring; [`crate::kernels`] stamps
//! their entry points. Each documents its launch: block and grid shape and
//! dynamic shared memory. All are grid-stride loops, so any grid size is
//! correct and the host picks one for occupancy.

use crate::args::{SpmvCooArgs, SpmvCsrArgs};
use crate::device::atomic::{AtomicAdd, atomic_add};
use crate::device::thread::{WARP_SIZE, grid_stride, grid_stride_warps, lane_id};
use crate::device::warp::{self, Shuffle};
use crate::semiring::Semiring;

/// CSR, one thread per row: each thread walks its row in column order, as
/// the serial engine does (same bits for floating-point `+`), and stops early
/// when the sum reaches the semiring's terminal value (or-and: `true`).
/// Best for short rows. Launch: 1D, any block size, any grid.
///
/// # Safety
/// `a` describes a valid CSR matrix and vectors in device memory
/// (`row_ptr` non-decreasing, `col_idx < n_cols`).
#[inline(always)]
pub unsafe fn spmv_csr_scalar<S: Semiring>(a: SpmvCsrArgs<S::Value>) {
    let (row_ptr, col_idx, values, x, y) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    for row in grid_stride(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: every index is in bounds.
        unsafe {
            let (start, end) = (*row_ptr.add(row), *row_ptr.add(row + 1));
            let mut acc = S::zero();
            for k in start as usize..end as usize {
                let xk = *x.add(*col_idx.add(k) as usize);
                acc = S::add(acc, S::mul(*values.add(k), xk));
                if S::is_terminal(acc) {
                    break;
                }
            }
            *y.add(row) = acc;
        }
    }
}

/// CSR, one warp per row: lanes take every 32nd entry of the row
/// (coalesced loads), then a butterfly [`warp::reduce`] combines the 32
/// partial sums and lane 0 writes `y`. Floating-point `+` is summed in that
/// order, not the row's: results may differ from the serial engine's in the
/// last bits. Best for rows of 32 entries or more. Launch: 1D, block size a
/// multiple of 32, any grid (one row per warp per step).
///
/// # Safety
/// As [`spmv_csr_scalar`], and the block size is a multiple of 32.
#[inline(always)]
pub unsafe fn spmv_csr_vector<S: Semiring>(a: SpmvCsrArgs<S::Value>)
where
    S::Value: Shuffle,
{
    let (row_ptr, col_idx, values, x, y) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let lane = lane_id();
    // Warp-uniform loop: every lane of a warp handles the same rows.
    for row in grid_stride_warps(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: every index is in bounds, and all
        // 32 lanes reach the reduction together.
        unsafe {
            let (start, end) = (*row_ptr.add(row), *row_ptr.add(row + 1));
            let mut acc = S::zero();
            let mut k = start + lane;
            while k < end {
                let xk = *x.add(*col_idx.add(k as usize) as usize);
                acc = S::add(acc, S::mul(*values.add(k as usize), xk));
                k += WARP_SIZE;
            }
            let acc = warp::reduce::<S>(acc, WARP_SIZE);
            if lane == 0 {
                *y.add(row) = acc;
            }
        }
    }
}

/// COO, one thread per stored entry: `y[r] ⊕= v ⊗ x[c]` by
/// [`atomic_add::<S>`](atomic_add). Any entry order; the order of the
/// floating-point sums is whatever the atomics make it (not reproducible
/// run to run). `y` must hold the semiring zero (or a sum to add to).
/// Launch: 1D, any block size, any grid.
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
