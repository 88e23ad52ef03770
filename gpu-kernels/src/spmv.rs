//! SpMV kernel bodies, `y = A ⊗ x` over a semiring, one generic function per
//! format and strategy; [`crate::kernels`] stamps their entry points. All
//! launches are one-dimensional, and every kernel is a grid-stride loop, so
//! any grid size is correct and the host picks one for occupancy (a few
//! blocks per SM, or enough to cover the work once).
//!
//! | family                 | one … per           | block size     | `y` before        | float `+` order         |
//! |------------------------|---------------------|----------------|-------------------|-------------------------|
//! | `spmv_csr_scalar`      | thread per row      | any            | anything          | row order (= serial)    |
//! | `spmv_csr_vector`      | `lanes` lanes / row | multiple of 32 | anything          | strided, then a tree    |
//! | `spmv_csr_merge`       | warp per part       | multiple of 32 | anything          | see [`spmv_csr_merge`]  |
//! | `spmv_csr_merge_fixup` | warp per part       | multiple of 32 | the merge's `y`   | carries, then `y`       |
//! | `spmv_csr_adaptive`    | block per row block | multiple of 32 | anything          | see [`spmv_csr_adaptive`] |
//! | `spmv_coo_atomic`      | thread per entry    | any            | zero, or a sum    | the atomics' (varies)   |
//! | `spmv_ell`             | thread per row      | any            | anything          | row order (= serial)    |
//! | `spmv_ell_near`        | thread per row      | any            | anything          | row order (= serial)    |
//! | `spmv_sell`            | thread per position | any            | anything          | row order (= serial)    |
//! | `spmv_bsr`             | thread per row      | any            | anything          | row order (= serial)    |
//!
//! "Row order" is increasing column, as the serial engine sums: the same
//! bits for every semiring. The order-independent semirings (min, max, or:
//! [`Semiring::ORDER_INDEPENDENT`]) give the serial engine's bits in every
//! kernel; only plus-times may differ, in the last bits, where the order
//! differs.
//!
//! HYB has no kernel of its own: the host runs `spmv_ell` on the ELL part
//! (which writes every `y[i]`), then `spmv_coo_atomic` on the overflow (which
//! reads and updates `y`) on the same stream.
//!
//! A launch that breaks its contract in a way that would give a wrong `y`
//! (a block size that is not a multiple of 32 where warps cooperate,
//! `items_per_part` not a positive multiple of 32, `c = 0`, `b` outside
//! `1..=8`) stops with `trap`: the host sees a launch error. A `lanes` out of
//! range counts as 32, which is still correct.

use crate::args::{
    ELL_NEAR_BIAS, ELL_NEAR_PAD, ELL_NEAR_SLICE, ELL_PAD, SpmvBsrArgs, SpmvCooArgs,
    SpmvCsrAdaptiveArgs, SpmvCsrArgs, SpmvCsrMergeArgs, SpmvEllArgs, SpmvEllNearArgs, SpmvSellArgs,
    ell_near_slot,
};
use crate::device::atomic::{AtomicAdd, atomic_add, atomic_add_u32, atomic_inc_release_u32};
use crate::device::memory::{fence_gpu, load_from_l2, load_readonly, load_streaming};
use crate::device::shared;
use crate::device::thread::{
    GridStride, WARP_SIZE, block_dim_x, block_idx_x, global_warp_id, grid_dim_x, grid_stride,
    grid_stride_warps, grid_warps, lane_id, require, sync_threads, thread_idx_x, warp_id,
};
use crate::device::warp::{self, Shuffle};
use crate::merge_path;
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

/// CSR, load-balanced by merge path (Merrill & Garland 2016), for rows of
/// wildly different lengths; deterministic (no atomics). See
/// [`merge_path`] for the merge and [`SpmvCsrMergeArgs`] for the two-kernel
/// scheme.
///
/// One warp per part: part `p` is the items `p · items_per_part ..` of the
/// merge, and lane `l` of its warp walks `items_per_part / 32` consecutive
/// items of it, from its own binary search. A lane writes `y` for every row
/// it starts and completes; the first row it completes started before it, so
/// it adds the partial sums that earlier lanes of the warp carried into that
/// row (a segmented scan over the lanes) and writes that. The last lane's
/// carry, summed over the lanes ending in the same row, is the part's carry:
/// `carry_row[p]` (`n_rows` when no row is unfinished) and `carry_val[p]`.
/// Each row is written exactly once: by the lane that completes it, with the
/// sum of its entries in that part; [`spmv_csr_merge_fixup`] adds the
/// earlier parts' share.
///
/// Sum order, for floating-point `+`: entries in row order within a lane;
/// lanes of a part combined by a tree (Hillis–Steele); earlier parts' carries
/// summed by one warp (every 32nd part per lane, then a tree), then added in
/// front of `y`. Deterministic (same bits every run, any grid), but
/// plus-times may differ from the serial engine in the last bits.
///
/// Launch: 1D, block size a multiple of 32, any grid (one part per warp per
/// step; `⌈n_parts · 32 / block⌉` blocks cover the parts once), with
/// [`SpmvCsrMergeArgs::stage_bytes`] of dynamic shared memory a warp: a
/// part's products are staged there by coalesced loads before its lanes
/// walk their runs. `items_per_part` a positive multiple of 32 (else `trap`); `n_parts ≥
/// ⌈(n_rows + nnz) / items_per_part⌉` ([`SpmvCsrMergeArgs::parts`]), and
/// `carry_row` and `carry_val` hold `n_parts` slots each. `y` is overwritten;
/// it is complete only after [`spmv_csr_merge_fixup`].
///
/// # Safety
/// As [`spmv_csr_scalar`], with `nnz == row_ptr[n_rows]`.
#[inline(always)]
pub unsafe fn spmv_csr_merge<S: Semiring>(a: SpmvCsrMergeArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    require(a.items_per_part != 0 && a.items_per_part.is_multiple_of(WARP_SIZE));
    let (row_ptr, col_idx, values, x, y) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let (n_rows, nnz) = (a.n_rows, a.nnz);
    let per_lane = a.items_per_part / WARP_SIZE;
    let lane = lane_id();
    // This warp's stage: its part's row ends, slot `i - lo` for row `i`,
    // then the products of its entries, slot `k + k/32` for its `k`th.
    type M<T> = SpmvCsrMergeArgs<T>;
    let bytes = M::<S::Value>::stage_bytes(a.items_per_part, size_of::<S::Value>() as u32);
    let row_slots = M::<S::Value>::stage_row_slots(a.items_per_part) as usize;
    // SAFETY: the launch gives `stage_bytes` a warp; the products start
    // `4 · row_slots` bytes in, a multiple of 128.
    let (stage_rows, stage) = unsafe {
        let rows = shared::dynamic::<u8>()
            .add(warp_id() as usize * bytes as usize)
            .cast::<u32>();
        (rows, rows.add(row_slots).cast::<S::Value>())
    };
    let skew = |k: u32| (k + k / WARP_SIZE) as usize;
    for part in grid_stride_warps(a.n_parts) {
        // The part's first row, and that of the next part (which this one
        // may end in), from the plan.
        let part_start = u64::from(part) * u64::from(a.items_per_part);
        let d0 = part_start.min(u64::from(n_rows) + u64::from(nnz));
        // SAFETY: `part + 1 ≤ n_parts`, within `part_rows`.
        let (lo, hi) = unsafe {
            let rows = a.part_rows.as_ptr().add(part as usize);
            (*rows, *rows.add(1))
        };
        // The part's entries start at `first` (its first row, `lo`, takes
        // the diagonal's other items) and number at most `items_per_part`;
        // it reads the ends of rows `lo..end_rows`.
        let first = (d0 - u64::from(lo)) as u32;
        let staged = a.items_per_part.min(nnz - first);
        let end_rows = hi.saturating_add(1).min(n_rows);
        // SAFETY: all 32 lanes reach it (the loop over parts is
        // warp-uniform); the previous part's walk has read its stage.
        unsafe { warp::sync_warp(u32::MAX) };
        // Row ends and products staged by coalesced loads (lane `l` takes
        // the part's `l`th, `l + 32`th, …), where each lane walking its own
        // run would touch 32 lines a load and search `row_ptr` in memory.
        let mut k = lane;
        while lo + k < end_rows {
            // SAFETY: row `lo + k < n_rows`; the slot is in the stage.
            unsafe { *stage_rows.add(k as usize) = *row_ptr.add((lo + k) as usize + 1) };
            k += WARP_SIZE;
        }
        // SAFETY: the part's entries are entries; the slots are in this
        // warp's stage.
        unsafe {
            stage_products::<S>(
                (col_idx, values, x),
                first,
                (lane, WARP_SIZE, staged),
                |k, p| *stage.add(skew(k)) = p,
            );
        }
        // SAFETY: as above; the stage is written before any lane reads it.
        unsafe { warp::sync_warp(u32::MAX) };
        // SAFETY: the search and the walk ask for rows `lo ≤ i < end_rows` and
        // entries `first ≤ j < first + staged`, all staged.
        let row_end = |i: u32| unsafe { *stage_rows.add((i - lo) as usize) };
        let product = |j: u32| unsafe { *stage.add(skew(j - first)) };
        let offset = lane * per_lane;
        let diagonal = part_start + u64::from(offset);
        let reach = (lo, lo.saturating_add(offset).min(hi));
        let (start_row, start_entry) =
            merge_path::search_in(diagonal, reach, n_rows, nnz, &row_end);
        let walked = merge_path::walk::<S>(
            (start_row, start_entry),
            per_lane,
            n_rows,
            row_end,
            product,
            // SAFETY: `row < n_rows`; no other lane writes it.
            |row, sum| unsafe { *y.add(row as usize) = sum },
        );

        // Inclusive segmented scan of the carries over the lanes: lanes
        // ending in the same row are consecutive (rows never decrease along
        // the path), so equal rows at distance `offset` mean one segment.
        let (row, mut sum) = (walked.carry_row, walked.carry);
        let mut offset = 1;
        while offset < WARP_SIZE {
            // SAFETY: all 32 lanes reach the shuffles together (the loop
            // over parts is warp-uniform).
            let (up_row, up_sum) =
                unsafe { (warp::shuffle_up(row, offset), warp::shuffle_up(sum, offset)) };
            if lane >= offset && up_row == row {
                sum = S::add(up_sum, sum);
            }
            offset *= 2;
        }
        // The previous lane ends where this one starts: its scanned carry is
        // what the earlier lanes hold of this lane's first row.
        // SAFETY: as above.
        let (prev_row, prev_sum) = unsafe { (warp::shuffle_up(row, 1), warp::shuffle_up(sum, 1)) };
        if let Some(first) = walked.first {
            let total = if lane > 0 && prev_row == start_row {
                S::add(prev_sum, first)
            } else {
                first
            };
            // SAFETY: `start_row < n_rows` (this lane completed it).
            unsafe { *y.add(start_row as usize) = total };
        }
        if lane == WARP_SIZE - 1 {
            // SAFETY: `part < n_parts`, the carry arrays' length.
            unsafe {
                *a.carry_row.as_mut_ptr().add(part as usize) = row;
                *a.carry_val.as_mut_ptr().add(part as usize) = sum;
            }
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
unsafe fn stage_products<S: Semiring>(
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
/// and `x` through the read-only path.
///
/// # Safety
/// `j` an entry; its column indexes `x`.
#[inline(always)]
unsafe fn streamed_product<S: Semiring>(
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

/// Steps of 32 parts the fix-up reads at once.
const FIXUP_STEPS: usize = 8;

/// The second step of [`spmv_csr_merge`]: adds the carries into `y`, one
/// warp per part. The parts carrying one row are consecutive; the warp of
/// the first of them ([`merge_path::run_head`]) sums the run's carries, 32
/// parts at a time (lane `l` takes parts `p + l, p + l + 32, …`, then a
/// tree), and its lane 0 sets `y[row] = sum ⊕ y[row]`. No two warps touch one
/// row, so no atomics are needed and the result is the same bits every run.
/// A row spread over `m` parts costs its warp `⌈m / 256⌉` rounds of
/// loads (eight steps' at once).
///
/// Launch: 1D, block size a multiple of 32 (else `trap`), any grid
/// (`⌈n_parts · 32 / block⌉` blocks cover the parts once), after
/// `spmv_csr_merge` with the same arguments, on the same stream.
///
/// # Safety
/// As [`spmv_csr_merge`], after which it runs.
#[inline(always)]
pub unsafe fn spmv_csr_merge_fixup<S: Semiring>(a: SpmvCsrMergeArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (carry_row, carry_val, y) = (
        a.carry_row.as_mut_ptr().cast_const(),
        a.carry_val.as_mut_ptr().cast_const(),
        a.y.as_mut_ptr(),
    );
    let lane = lane_id();
    // SAFETY: read for parts below `n_parts` only.
    let carry_row_of = |p: u32| unsafe { *carry_row.add(p as usize) };
    // Warp-uniform: every lane of a warp has the same part, reads the same
    // carry rows, and so takes the same branches down to the shuffles.
    for part in grid_stride_warps(a.n_parts) {
        let Some(row) = merge_path::run_head(part, a.n_rows, carry_row_of) else {
            continue;
        };
        let mut sum = S::zero();
        let mut first = part;
        loop {
            // FIXUP_STEPS steps' rows read at once, so that a long run has
            // that many loads in flight a lane; a part past the run carries
            // a later row and adds nothing, so the sums are those of one
            // step at a time, in the same order.
            let mut rows = [a.n_rows; FIXUP_STEPS];
            for (u, r) in rows.iter_mut().enumerate() {
                let p = first.saturating_add(lane + WARP_SIZE * u as u32);
                if p < a.n_parts {
                    *r = carry_row_of(p);
                }
            }
            let mut whole = true;
            for (u, &r) in rows.iter().enumerate() {
                if r == row {
                    let p = first + lane + WARP_SIZE * u as u32;
                    // SAFETY: `p < n_parts` (its row was read).
                    sum = S::add(sum, unsafe { *carry_val.add(p as usize) });
                } else {
                    whole = false;
                }
            }
            // SAFETY: all 32 lanes vote together (uniform loop).
            if !unsafe { warp::all(whole) } {
                break;
            }
            first = first.saturating_add(WARP_SIZE * FIXUP_STEPS as u32);
        }
        // SAFETY: all 32 lanes reach the reduction together.
        let sum = unsafe { warp::reduce::<S>(sum, WARP_SIZE) };
        if lane == 0 {
            // SAFETY: `row < n_rows`, and only this warp fixes it up.
            unsafe {
                let yr = y.add(row as usize);
                *yr = S::add(sum, *yr);
            }
        }
    }
}

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
/// As [`spmv_csr_scalar`], and `blocks` holds `n_blocks + 1` bounds cut as
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

/// ELL (column-major), one thread per row: thread `i` reads slots
/// `k · n_rows + i` for `k < width` (neighbouring threads, neighbouring
/// addresses: coalesced), skips padding by its column ([`ELL_PAD`]), and
/// stops early at the semiring's terminal value. Sums in row order.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid ELL matrix and vectors in device memory
/// (`width · n_rows` slots, columns below `x`'s length or [`ELL_PAD`]).
#[inline(always)]
pub unsafe fn spmv_ell<S: Semiring>(a: SpmvEllArgs<S::Value>) {
    let (col_idx, values, x, y) = (
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let n_rows = a.n_rows as usize;
    for row in grid_stride(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: slots `row + k · n_rows` for
        // `k < width` are in bounds, a column other than ELL_PAD indexes
        // `x`, and `row < n_rows`.
        unsafe {
            let acc = sum_padded_row::<S, u32>(
                col_idx,
                wide_column,
                values,
                x,
                row,
                n_rows,
                a.width as usize,
            );
            *y.add(row) = acc;
        }
    }
}

/// Near-diagonal ELL ([`SpmvEllNearArgs`]), one thread per row: as
/// [`spmv_ell`], each slot's column its row plus its biased 16-bit offset
/// (padding: [`ELL_NEAR_PAD`]), the slots of a warp's rows one contiguous
/// slice ([`ell_near_slot`]). Sums in row order.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid near-diagonal ELL matrix and vectors in device
/// memory (the slots [`ell_near_slot`] gives for `n_rows` rows of `width`,
/// each offset other than [`ELL_NEAR_PAD`] giving a column below `x`'s
/// length).
#[inline(always)]
pub unsafe fn spmv_ell_near<S: Semiring>(a: SpmvEllNearArgs<S::Value>) {
    let (offsets, values, x, y) = (
        a.offsets.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let width = a.width as usize;
    for row in grid_stride(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: the row's slots are in bounds, an
        // offset other than ELL_NEAR_PAD gives a column of `x`, and
        // `row < n_rows`.
        unsafe {
            let column = |offset: u16| {
                (offset != ELL_NEAR_PAD).then(|| row + offset as usize - ELL_NEAR_BIAS as usize)
            };
            let first = ell_near_slot(row, 0, width);
            let acc =
                sum_padded_row::<S, u16>(offsets, column, values, x, first, ELL_NEAR_SLICE, width);
            *y.add(row) = acc;
        }
    }
}

/// The column a `u32` slot of ELL or SELL holds, `None` for padding
/// ([`ELL_PAD`]).
#[inline(always)]
fn wide_column(col: u32) -> Option<usize> {
    (col != ELL_PAD).then_some(col as usize)
}

/// Slots of a padded row whose index and value [`sum_padded_row`] loads
/// before it sums any of them: a thread then has that many loads in
/// flight, not one index and then its value at a time.
const SLOTS_IN_FLIGHT: usize = 4;

/// The sum of a padded row of ELL or SELL: slots `first + k · stride` for
/// `k < width`, in order, each slot's column `column(index[slot])` (`None`
/// for padding, skipped), stopping early at the semiring's terminal value.
///
/// # Safety
/// Every slot is in bounds of `index` and `values`, and every column
/// `column` gives indexes `x`.
#[inline(always)]
unsafe fn sum_padded_row<S: Semiring, I: Copy>(
    index: *const I,
    column: impl Fn(I) -> Option<usize>,
    values: *const S::Value,
    x: *const S::Value,
    first: usize,
    stride: usize,
    width: usize,
) -> S::Value {
    let mut acc = S::zero();
    // Streaming loads: A is read once, and the compiler may not sink them
    // into the branches below, one behind another.
    // SAFETY: the caller's contract.
    let load = |k: usize| unsafe {
        let slot = first + k * stride;
        (
            load_streaming(index.add(slot)),
            load_streaming(values.add(slot)),
        )
    };
    // Adds a slot to `acc`; true once `acc` is terminal.
    let mut add = |(i, v): (I, S::Value)| {
        if let Some(col) = column(i) {
            // SAFETY: the caller's contract.
            acc = S::add(acc, S::mul(v, unsafe { *x.add(col) }));
            return S::is_terminal(acc);
        }
        false
    };
    let whole = width - width % SLOTS_IN_FLIGHT;
    let mut k = 0;
    while k < whole {
        let slots: [(I, S::Value); SLOTS_IN_FLIGHT] = core::array::from_fn(|j| load(k + j));
        if slots.into_iter().any(&mut add) {
            return acc;
        }
        k += SLOTS_IN_FLIGHT;
    }
    while k < width {
        if add(load(k)) {
            break;
        }
        k += 1;
    }
    acc
}

/// SELL-C-σ (and JDS, `c = 1`), one thread per sorted position `p`: it
/// walks local row `p mod c` of slice `p / c` (slots `slice_ptr[s] + k·c + r`,
/// coalesced across the threads of a slice when `c` is 32 or a multiple),
/// skips padding by its column ([`ELL_PAD`]), and writes `y[perm[p]]`.
/// Positions `≥ n_rows` (the last slice's padding rows) are never visited.
/// Sums in row order.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the positions once). `c ≥ 1` (else `trap`). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid SELL matrix and vectors in device memory (`perm` a
/// permutation of `0..n_rows`, `n_slices · c ≥ n_rows`, columns below
/// `x`'s length or [`ELL_PAD`]).
#[inline(always)]
pub unsafe fn spmv_sell<S: Semiring>(a: SpmvSellArgs<S::Value>) {
    require(a.c != 0);
    let (perm, slice_ptr, slice_width, col_idx, values, x, y) = (
        a.perm.as_ptr(),
        a.slice_ptr.as_ptr(),
        a.slice_width.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let c = a.c as usize;
    for p in grid_stride(a.n_rows) {
        let (slice, r) = ((p / a.c) as usize, (p % a.c) as usize);
        // SAFETY: the caller's contract: `slice < n_slices`, every slot of
        // the slice is in bounds, a column other than ELL_PAD indexes `x`,
        // and `perm[p] < n_rows`.
        unsafe {
            let first = *slice_ptr.add(slice) as usize + r;
            let width = *slice_width.add(slice) as usize;
            let acc = sum_padded_row::<S, u32>(col_idx, wide_column, values, x, first, c, width);
            *y.add(*perm.add(p as usize) as usize) = acc;
        }
    }
}

/// BSR, one thread per matrix row: thread `i` walks the blocks of block row
/// `i / b`, reading row `i mod b` of each (the `b` threads of a block row read
/// each block's index and mask together, and its `b` rows side by side), and
/// multiplies only the slots its mask marks, in column order. Columns past
/// `n_cols` are never read, rows past `n_rows` never written. Sums in row
/// order. A thread per row suits the small blocks BSR is for (`b ≤ 8`).
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `1 ≤ b ≤ 8` (else `trap`). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid BSR matrix and vectors in device memory
/// (`⌈n_rows / b⌉ + 1` block-row offsets, `b²` values and one mask per block,
/// `x` of `n_cols` entries).
#[inline(always)]
pub unsafe fn spmv_bsr<S: Semiring>(a: SpmvBsrArgs<S::Value>) {
    require(a.b != 0 && a.b <= 8);
    let (block_row_ptr, block_col, values, masks, x, y) = (
        a.block_row_ptr.as_ptr(),
        a.block_col.as_ptr(),
        a.values.as_ptr(),
        a.masks.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let b = a.b as usize;
    let row_bits = (1u64 << b) - 1;
    for row in grid_stride(a.n_rows) {
        let (block_row, r) = ((row / a.b) as usize, (row % a.b) as usize);
        let mut acc = S::zero();
        // SAFETY: the caller's contract: every block of the block row is in
        // bounds, and the column check keeps `x` reads below `n_cols`.
        unsafe {
            let (first, last) = (
                *block_row_ptr.add(block_row),
                *block_row_ptr.add(block_row + 1),
            );
            'blocks: for k in first as usize..last as usize {
                let first_col = *block_col.add(k) as usize * b;
                let mut bits = (*masks.add(k) >> (r * b)) & row_bits;
                let inside = (a.n_cols as usize).saturating_sub(first_col);
                if inside < b {
                    bits &= (1u64 << inside) - 1;
                }
                let row_values = values.add(k * b * b + r * b);
                while bits != 0 {
                    let c = bits.trailing_zeros() as usize;
                    let product = S::mul(*row_values.add(c), *x.add(first_col + c));
                    acc = S::add(acc, product);
                    if S::is_terminal(acc) {
                        break 'blocks;
                    }
                    bits &= bits - 1;
                }
            }
            *y.add(row as usize) = acc;
        }
    }
}
