//! CSR by row blocks (CSR-Adaptive): a thread block a row block, several
//! short rows at once or one long row in pieces (`spmv_csr_adaptive`).

use crate::args::SpmvCsrAdaptiveArgs;
use crate::device::atomic::{atomic_add_u32, atomic_inc_release_u32};
use crate::device::memory::{fence_gpu, load_from_l2};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, lane_id, require, sync_threads, thread_idx_x,
};
use crate::device::warp::{self, Shuffle};
use crate::semiring::Semiring;

use super::csr::stage_products;

/// Steps of its group past which a row of a several-row block goes to a
/// whole warp instead: the block waits for its slowest row, and a hub among
/// short rows would hold it for hundreds of dependent steps.
const ADAPTIVE_LONG_STEPS: u32 = 16;

/// CSR by row blocks (CSR-Adaptive): one thread block per row block of
/// [`SpmvCsrAdaptiveArgs`], grid-stride over the row blocks.
///
/// - A block of several rows (at most `block_dim` rows and `block_nnz`
///   entries): the threads compute every product of the block's entries
///   into shared memory, thread `t` taking entries `t, t + block_dim, …`
///   (coalesced loads of `col_idx`, `values`, and all lanes busy whatever
///   the row lengths); then each row is summed from shared memory by a group
///   of `g` consecutive threads, `g` the largest power of two (≤ 32) with
///   `g · rows ≤ block_dim`, each taking every `g`-th product, then a
///   [`warp::reduce`] over the group; a row longer than
///   [`ADAPTIVE_LONG_STEPS`]` · g` is summed instead by a whole warp, after
///   the others (every 32nd product a lane, then a tree). With `g = 1` a
///   short row is summed in row order, as serial.
/// - A block of one row's entries (a lone row, or a piece of a row longer
///   than `block_nnz`): every thread sums every `block_dim`-th entry, then
///   a warp tree and a sum over the warps in order. A whole row is written
///   to `y`; a piece stores its sum in `partial`, and the last of its row's
///   pieces to count itself in `done` sums the pieces' partial sums (a warp:
///   every 32nd piece a lane, then a tree) into `y`. A long row is then as
///   fast as the GPU's spare blocks, not one block's walk.
///
/// Suits every row-length distribution: short rows are packed, long rows
/// spread over as many blocks as their length asks; the row blocks are cut
/// once, on the host. Floating-point `+` is summed in a fixed order, the
/// same bits every run and any grid.
///
/// Launch: 1D, block size a multiple of 32 (else `trap`) and at least the
/// rows of any row block, any grid (`n_blocks` blocks cover the row blocks
/// once). Dynamic shared memory: `max(block_nnz, block_dim / 32)` values,
/// then `block_dim + 1` words (the long rows). `y` is overwritten.
///
/// # Safety
/// As [`spmv_csr_scalar`](super::spmv_csr_scalar), and `blocks` holds `n_blocks + 1` bounds cut as
/// above, `partial` and `done` `n_blocks` slots each, `done` all zero.
#[inline(always)]
pub unsafe fn spmv_csr_adaptive<S: Semiring>(a: SpmvCsrAdaptiveArgs<S::Value>)
where
    S::Value: Shuffle,
{
    let threads = block_dim_x();
    require(threads.is_multiple_of(WARP_SIZE));
    let (row_ptr, col_idx, values, x, y, blocks) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
        a.blocks.as_ptr(),
    );
    let staged = shared::dynamic::<S::Value>();
    let (t, lane) = (thread_idx_x(), lane_id());
    let mut block = block_idx_x();
    // Block-uniform loop: every thread of a block takes the same row blocks
    // and the same branches, so all reach each barrier.
    while block < a.n_blocks {
        // SAFETY: the caller's contract: `block < n_blocks`, rows within
        // `0..=n_rows`, entries within `0..nnz`, columns within `x`; staged
        // slots below `block_nnz` (several rows) or `threads / 32` (one row),
        // which the launch's shared memory covers.
        unsafe {
            let bound = blocks.add(2 * block as usize);
            let (first, start, last, end) = (*bound, *bound.add(1), *bound.add(2), *bound.add(3));
            let rows = last - first;
            if rows > 1 {
                // After the products: a count and a list of the block's
                // long rows.
                let long_count = staged.add(a.block_nnz as usize).cast::<u32>();
                let long_rows = long_count.add(1);
                if t == 0 {
                    *long_count = 0;
                }
                stage_products::<S>(
                    (col_idx, values, x),
                    start,
                    (t, threads, end - start),
                    |k, p| *staged.add(k as usize) = p,
                );
                sync_threads();
                let mut group = WARP_SIZE;
                while group > 1 && group * rows > threads {
                    group /= 2;
                }
                let row = first + t / group;
                let mut acc = S::zero();
                let mut long = false;
                if row < last {
                    let (rs, re) = (*row_ptr.add(row as usize), *row_ptr.add(row as usize + 1));
                    long = group < WARP_SIZE && re - rs > ADAPTIVE_LONG_STEPS * group;
                    if !long {
                        let mut k = rs + t % group;
                        while k < re {
                            acc = S::add(acc, *staged.add((k - start) as usize));
                            k += group;
                        }
                    } else if t % group == 0 {
                        *long_rows.add(atomic_add_u32(long_count, 1) as usize) = row;
                    }
                }
                // All 32 lanes of every warp reach the shuffles (`group` is
                // block-uniform).
                let acc = warp::reduce::<S>(acc, group);
                if row < last && !long && t % group == 0 {
                    *y.add(row as usize) = acc;
                }
                sync_threads();
                // The long rows, a warp each (any warp: each row's sum is
                // the same whichever sums it).
                let n_long = *long_count;
                let mut i = t / WARP_SIZE;
                while i < n_long {
                    let row = *long_rows.add(i as usize);
                    let (rs, re) = (*row_ptr.add(row as usize), *row_ptr.add(row as usize + 1));
                    let mut acc = S::zero();
                    let mut k = rs + lane;
                    while k < re {
                        acc = S::add(acc, *staged.add((k - start) as usize));
                        k += WARP_SIZE;
                    }
                    let acc = warp::reduce::<S>(acc, WARP_SIZE);
                    if lane == 0 {
                        *y.add(row as usize) = acc;
                    }
                    i += threads / WARP_SIZE;
                }
            } else {
                // Entries `start..end` of row `first`: all of it, or a piece.
                let mut acc = S::zero();
                stage_products::<S>(
                    (col_idx, values, x),
                    start,
                    (t, threads, end - start),
                    |_, p| acc = S::add(acc, p),
                );
                let acc = warp::reduce::<S>(acc, WARP_SIZE);
                if lane == 0 {
                    *staged.add((t / WARP_SIZE) as usize) = acc;
                }
                sync_threads();
                if t < WARP_SIZE {
                    sum_row_or_piece::<S>(&a, block, (first, start, end), staged);
                }
            }
            // Before the next row block overwrites the staging area.
            sync_threads();
        }
        block += grid_dim_x();
    }
}

/// The end of [`spmv_csr_adaptive`]'s one-row block `block`, entries
/// `start..end` of `row`, for the first warp: the warps' sums in `staged`
/// added in order; the whole row written to `y`, or a piece's sum stored,
/// counted, and the row summed from every piece by the warp of the last.
///
/// # Safety
/// All 32 lanes of the block's first warp, after the block's warps stored
/// their sums in `staged` and a barrier; `a` and `block` as the kernel's.
#[inline(always)]
unsafe fn sum_row_or_piece<S: Semiring>(
    a: &SpmvCsrAdaptiveArgs<S::Value>,
    block: u32,
    (row, start, end): (u32, u32, u32),
    staged: *const S::Value,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    // SAFETY (all accesses): the caller's contract; `row < n_rows`, pieces
    // `first_piece .. first_piece + n_pieces` are blocks of this row.
    unsafe {
        let (rs, re) = (
            *a.row_ptr.as_ptr().add(row as usize),
            *a.row_ptr.as_ptr().add(row as usize + 1),
        );
        let y = a.y.as_mut_ptr().add(row as usize);
        let n_pieces = (re - rs).div_ceil(a.block_nnz);
        let first_piece = block - (start - rs) / a.block_nnz;
        let mut last = false;
        if lane == 0 {
            let mut total = S::zero();
            for w in 0..block_dim_x() / WARP_SIZE {
                total = S::add(total, *staged.add(w as usize));
            }
            if start == rs && end == re {
                *y = total;
            } else {
                *a.partial.as_mut_ptr().add(block as usize) = total;
                // Wraps to 0 on the row's last piece, ready for the next
                // launch.
                let done = a.done.as_mut_ptr().add(first_piece as usize);
                last = atomic_inc_release_u32(done, n_pieces - 1) == n_pieces - 1;
                if last {
                    // The other pieces' sums, released with their counts,
                    // before this warp's loads (through the sync below).
                    fence_gpu();
                }
            }
        }
        if !warp::shuffle_idx(last, 0) {
            return;
        }
        warp::sync_warp(u32::MAX);
        let partial = a.partial.as_mut_ptr().cast_const();
        // Four pieces' loads a lane in flight; every 32nd piece a lane, in
        // order, then a tree.
        let mut sum = S::zero();
        let mut p = lane;
        while p < n_pieces {
            let q = [0, 1, 2, 3].map(|u| p + u * WARP_SIZE);
            let parts = q.map(|q| {
                (q < n_pieces).then(|| load_from_l2(partial.add((first_piece + q) as usize)))
            });
            for part in parts.into_iter().flatten() {
                sum = S::add(sum, part);
            }
            p += 4 * WARP_SIZE;
        }
        let sum = warp::reduce::<S>(sum, WARP_SIZE);
        if lane == 0 {
            *y = sum;
        }
    }
}
