//! CSR a row at a time: a thread a row (`spmv_csr_scalar`), or a group of
//! `lanes` lanes a row (`spmv_csr_vector`); and the loads of products the
//! CSR kernels share.

use crate::args::SpmvCsrArgs;
use crate::device::memory::{load_readonly, load_streaming};
use crate::device::thread::{
    GridStride, WARP_SIZE, block_dim_x, global_warp_id, grid_stride, grid_warps, lane_id, require,
};
use crate::device::warp::{self, Shuffle};
use crate::semiring::Semiring;

/// CSR, one thread per row: each thread walks its row in column order, as
/// the serial engine does (same bits for floating-point `+`), and stops early
/// when the sum reaches the semiring's terminal value (or-and: `true`).
/// Best for short rows (mean length below 4). `lanes` is ignored.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `y` is overwritten.
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
            let (start, end) = (*row_ptr.add(row) as usize, *row_ptr.add(row + 1) as usize);
            let mut acc = S::zero();
            // Four entries' loads in flight (their columns and values, then
            // their gathers of x), summed in row order; a terminal sum stays
            // terminal, so stopping after a group of four changes nothing.
            let mut k = start;
            while k + 4 <= end && !S::is_terminal(acc) {
                let cols = [0, 1, 2, 3].map(|u| *col_idx.add(k + u));
                let vals = [0, 1, 2, 3].map(|u| *values.add(k + u));
                let xs = cols.map(|c| *x.add(c as usize));
                for u in 0..4 {
                    acc = S::add(acc, S::mul(vals[u], xs[u]));
                }
                k += 4;
            }
            while k < end && !S::is_terminal(acc) {
                acc = S::add(
                    acc,
                    S::mul(*values.add(k), *x.add(*col_idx.add(k) as usize)),
                );
                k += 1;
            }
            *y.add(row) = acc;
        }
    }
}

/// CSR, `lanes` threads per row (1, 2, 4, 8, 16 or 32; another value counts
/// as 32): a warp is `32 / lanes` groups of `lanes` consecutive lanes, each
/// group one row at a time (grid-stride over rows). The lanes of a group take
/// every `lanes`-th entry of the row (coalesced loads), then
/// [`warp::reduce`] combines their partial sums within the group and its
/// first lane writes `y`. Floating-point `+` is summed in that order (each
/// lane's strided entries, then a tree), not the row's: plus-times may differ
/// from the serial engine in the last bits.
///
/// Pick `lanes` from the mean row length: the power of two nearest it,
/// between 2 and 32 (rows of 32 entries or more: 32).
///
/// Launch: 1D, block size a multiple of 32 (else `trap`), any grid
/// (`⌈n_rows · lanes / block⌉` blocks cover the rows once). `y` is
/// overwritten.
///
/// # Safety
/// As [`spmv_csr_scalar`].
#[inline(always)]
pub unsafe fn spmv_csr_vector<S: Semiring>(a: SpmvCsrArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (row_ptr, col_idx, values, x, y) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let lanes = if a.lanes.is_power_of_two() && a.lanes <= WARP_SIZE {
        a.lanes
    } else {
        WARP_SIZE
    };
    let groups = WARP_SIZE / lanes;
    let (group, lane) = (lane_id() / lanes, lane_id() % lanes);
    // Warp-uniform loop over the first row of each warp's groups: every lane
    // stays until the warp's last group is done, so the shuffles of
    // `warp::reduce` always have the whole warp.
    for first in GridStride::new(global_warp_id() * groups, a.n_rows, grid_warps() * groups) {
        let active = group < a.n_rows - first;
        let row = (first + group) as usize;
        let mut acc = S::zero();
        if active {
            // SAFETY: the caller's contract: every index is in bounds; the
            // last entry is below 2³² − 64, so `k + lanes` does not wrap.
            unsafe {
                let (start, end) = (*row_ptr.add(row), *row_ptr.add(row + 1));
                let mut k = start + lane;
                // Four entries a step, their loads issued before any is
                // used: a short matrix is latency-bound, and this keeps four
                // gathers of x in flight per lane instead of one. The sum
                // order is the same as one entry a step.
                let step = lanes as usize;
                // (`end - k > 3·lanes` rather than `k + 3·lanes < end`,
                // which could wrap near 2³².)
                while k < end && end - k > 3 * lanes {
                    let k0 = k as usize;
                    let c = [
                        load_streaming(col_idx.add(k0)),
                        load_streaming(col_idx.add(k0 + step)),
                        load_streaming(col_idx.add(k0 + 2 * step)),
                        load_streaming(col_idx.add(k0 + 3 * step)),
                    ];
                    let v = [
                        load_streaming(values.add(k0)),
                        load_streaming(values.add(k0 + step)),
                        load_streaming(values.add(k0 + 2 * step)),
                        load_streaming(values.add(k0 + 3 * step)),
                    ];
                    let xs = c.map(|c| load_readonly(x.add(c as usize)));
                    for (v, xk) in v.into_iter().zip(xs) {
                        acc = S::add(acc, S::mul(v, xk));
                    }
                    k += 4 * lanes;
                }
                while k < end {
                    acc = S::add(acc, streamed_product::<S>((col_idx, values, x), k as usize));
                    k += lanes;
                }
            }
        }
        // SAFETY: all 32 lanes reach this call together (uniform loop).
        let acc = unsafe { warp::reduce::<S>(acc, lanes) };
        if active && lane == 0 {
            // SAFETY: `row < n_rows`.
            unsafe { *y.add(row) = acc };
        }
    }
}

/// Stores `S::mul(values[j], x[col_idx[j]])` for the entries `j = first +
/// i`, `i = start, start + stride, …` below `count`, as `store(i, product)`:
/// four entries' loads in flight a round (their columns and values, then
/// the four gathers of `x`), where one at a time would wait two memory
/// latencies an entry.
///
/// # Safety
/// Every such `j` is an entry (`< nnz`), and its column indexes `x`.
#[inline(always)]
pub(super) unsafe fn stage_products<S: Semiring>(
    (col_idx, values, x): (*const u32, *const S::Value, *const S::Value),
    first: u32,
    (start, stride, count): (u32, u32, u32),
    mut store: impl FnMut(u32, S::Value),
) {
    let mut i = start;
    // SAFETY (all loads): the caller's contract.
    while i + 3 * stride < count {
        let j = [0, 1, 2, 3].map(|u| (first + i + u * stride) as usize);
        let cols = j.map(|j| unsafe { load_streaming(col_idx.add(j)) });
        let vals = j.map(|j| unsafe { load_streaming(values.add(j)) });
        let xs = cols.map(|c| unsafe { load_readonly(x.add(c as usize)) });
        for u in 0..4 {
            store(i + u as u32 * stride, S::mul(vals[u], xs[u]));
        }
        i += 4 * stride;
    }
    while i < count {
        let j = (first + i) as usize;
        store(i, unsafe { streamed_product::<S>((col_idx, values, x), j) });
        i += stride;
    }
}

/// `values[j] ⊗ x[col_idx[j]]`, A's entry read as streamed (evict first)
/// and `x` through the read-only path. Tried `x` with an L2 `evict_last`
/// policy (`ld.global.nc.L2::cache_hint`): no change on the graph suites
/// (0.999× the time, H100): `x` already stays in L2, and the gathers'
/// 32-byte sectors for 4-byte values are what bounds them.
///
/// # Safety
/// `j` an entry; its column indexes `x`.
#[inline(always)]
pub(super) unsafe fn streamed_product<S: Semiring>(
    (col_idx, values, x): (*const u32, *const S::Value, *const S::Value),
    j: usize,
) -> S::Value {
    // SAFETY: the caller's contract.
    unsafe {
        S::mul(
            load_streaming(values.add(j)),
            load_readonly(x.add(load_streaming(col_idx.add(j)) as usize)),
        )
    }
}
