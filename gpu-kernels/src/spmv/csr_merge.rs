//! CSR load-balanced by merge path: `spmv_csr_merge` over equal parts of
//! rows and entries, then `spmv_csr_merge_fixup` adding the carries of
//! rows that cross parts (the search and walk in [`crate::merge_path`]).

use crate::args::SpmvCsrMergeArgs;
use crate::device::shared;
use crate::device::thread::{WARP_SIZE, block_dim_x, grid_stride_warps, lane_id, require, warp_id};
use crate::device::warp::{self, Shuffle};
use crate::merge_path;
use crate::semiring::Semiring;

use super::csr::stage_products;

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
/// As [`spmv_csr_scalar`](super::spmv_csr_scalar), with `nnz == row_ptr[n_rows]`.
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
    type M<T> = SpmvCsrMergeArgs<'static, T>;
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
