//! The hash class, and the wide class through the same kernel: a row a
//! warp, through a table in the warp's shared memory.
//!
//! A row that fits the table (its span, or twice its products:
//! `args::spgemm_hash_fits`) is one warp's. The warp walks the row's
//! products in the serial order, 32 at a time (A's entries scanned, each
//! lane finding its entry by a search over the warp's counts, so short
//! rows of B pack a batch as densely as long ones). Lanes holding the same
//! column find each other (`match.any`); the first of them inserts the
//! column — at `column − lowest` when the span fits, else by a
//! multiplicative hash with linear probing — and adds its own and the
//! others' products in lane order. A direct table is read out in column
//! order; a hashed one (the least power of two of slots that holds twice
//! the row's products, or its columns once they are known) is gathered
//! and sorted: up to 64 columns in registers (each key with its place in
//! the table), more by a bitonic network in the table. The wide class's
//! rows (up to 1024 products in a span of up to 2048 columns) go through
//! the same kernel with tables of 2048 slots, always indexed directly:
//! a warp a row, where a block sorting the row waits on many barriers.

use core::cell::Cell;

use crate::device::atomic::atomic_cas_shared_u32;
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, global_warp_id, grid_warps, lane_id, require, warp_id,
};
use crate::device::warp::{self, FULL_MASK, Shuffle, lane_mask_lt};
use crate::semiring::Semiring;

use super::register::warp_sort_regs;
use super::row::{EMPTY, Rows, RowsArgs, a_row, accumulate, c_start, walk_products};
use super::scan::warp_inclusive_scan;

/// Steps of a walk by entry whose loads `spgemm_hash` issues together:
/// one, since its rows of B are short (a band's take two steps an entry)
/// and batching their steps costs more than the latency it would hide
/// (four cost bands 12–19%; `spgemm_dense` keeps them).
const HASH_WALK_IN_FLIGHT: usize = 1;

/// Rows that fit a warp's table of `table_slots` ([`crate::args::spgemm_hash_fits`]),
/// a warp each (`spgemm_hash_symbolic`, `_numeric`, `_stage`; the staged
/// rows copied by `spgemm_unstage`): see the module documentation.
///
/// Tried a branch here for short rows of a span beyond the table:
/// registers 40 → 53 (hence `spgemm_short`); and the wide class's table
/// for every hashed row of up to 1024 products: it lost to `spgemm_block`'s sort (0.69–0.82×).
///
/// Launch: 1D, block size a multiple of 32, any grid, dynamic shared memory
/// `warps a block · spgemm_hash_table_bytes(table_slots, size)`.
///
/// # Safety
/// The phase's struct valid; the listed rows have ≥ 2 entries of A and
/// fit the table.
#[inline(always)]
pub unsafe fn spgemm_hash<'a, S: Semiring>(args: impl RowsArgs<'a, S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let a = args.rows();
    let slots = a.table_slots;
    let bytes = crate::args::spgemm_hash_table_bytes(slots, size_of::<S::Value>() as u32);
    // SAFETY: the launch gives each warp `bytes`: its columns, then values.
    let (keys, vals) = unsafe {
        let base = shared::dynamic::<u8>().add((warp_id() * bytes) as usize);
        (
            base.cast::<u32>(),
            base.add(4 * slots as usize).cast::<S::Value>(),
        )
    };
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract; `w` is warp-uniform.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            hash_row::<S>(&a, row, keys, vals);
        }
        w += grid_warps();
    }
}

/// One row of C through the warp's table (`keys`, `vals`, `table_slots`
/// each).
///
/// # Safety
/// The whole warp calls with the same `row`, which fits the table; the
/// table is the warp's own.
#[inline(always)]
unsafe fn hash_row<S: Semiring>(a: &Rows<S::Value>, row: u32, keys: *mut u32, vals: *mut S::Value)
where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let slots = a.table_slots;
    // SAFETY: indices within A, B, C and the table by the contract; every
    // shuffle, vote and barrier is reached by the whole warp (the loops'
    // bounds are warp-uniform).
    unsafe {
        let (start, len_a) = a_row(a, row);
        let (ac, bp, bc) = (
            a.a_col_idx.as_ptr().add(start as usize),
            a.b_row_ptr.as_ptr(),
            a.b_col_idx.as_ptr(),
        );
        // The span of the row's columns and its products: a span that fits
        // is indexed directly (and read out sorted); one beyond the table is hashed.
        let (mut lo, mut hi, mut products) = (u32::MAX, 0u32, 0u32);
        let mut j = lane;
        while j < len_a {
            let k = *ac.add(j as usize) as usize;
            let (s, e) = (*bp.add(k), *bp.add(k + 1));
            if e > s {
                lo = lo.min(*bc.add(s as usize));
                hi = hi.max(*bc.add(e as usize - 1));
                products += e - s;
            }
            j += WARP_SIZE;
        }
        let mut d = 16;
        while d > 0 {
            lo = lo.min(warp::shuffle_xor(lo, d));
            hi = hi.max(warp::shuffle_xor(hi, d));
            products += warp::shuffle_xor(products, d);
            d /= 2;
        }
        if hi - lo < slots {
            table_row::<S, true>(a, row, (start, len_a), keys, vals, lo, hi - lo + 1);
            return;
        }
        // A hashed row takes the least power of two of slots that holds
        // twice its columns (in the numeric phase C's offsets give their
        // number, or a bound when staging; before, the products bound it),
        // so a short row clears and gathers a short table.
        let columns = if a.phase.entries() {
            let p = a.c_row_ptr.as_ptr().add(row as usize);
            (*p.add(1) - *p) as u32
        } else {
            products
        };
        let used = (2 * columns).next_power_of_two().clamp(WARP_SIZE, slots);
        table_row::<S, false>(a, row, (start, len_a), keys, vals, 0, used);
    }
}

/// One row of C through the warp's table of `used` slots: indexed by
/// `column − lo` when `DIRECT` (the row's span fits), else hashed (`used`
/// a power of two). Each kind is its own code, so neither carries the
/// other's registers.
///
/// # Safety
/// As [`hash_row`]; `(start, len_a)` A's row; its columns fit the table
/// so.
#[inline(always)]
unsafe fn table_row<S: Semiring, const DIRECT: bool>(
    a: &Rows<S::Value>,
    row: u32,
    (start, len_a): (u32, u32),
    keys: *mut u32,
    vals: *mut S::Value,
    lo: u32,
    used: u32,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let numeric = a.phase.entries();
    // SAFETY: as in `hash_row`.
    unsafe {
        let bits = used.trailing_zeros();
        let mut t = lane;
        while t < used {
            *keys.add(t as usize) = EMPTY;
            t += WARP_SIZE;
        }
        warp::sync_warp(FULL_MASK);

        let claim = |col: u32| {
            if DIRECT {
                let slot = col - lo;
                let fresh = *keys.add(slot as usize) == EMPTY;
                *keys.add(slot as usize) = col;
                return (slot, fresh);
            }
            let mut slot = col.wrapping_mul(0x9e37_79b1) >> (32 - bits);
            loop {
                let was = atomic_cas_shared_u32(keys.add(slot as usize), EMPTY, col);
                if was == EMPTY || was == col {
                    return (slot, was == EMPTY);
                }
                slot = (slot + 1) & (used - 1);
            }
        };
        let inserted = Cell::new(0u32);
        walk_products::<S, HASH_WALK_IN_FLIGHT>(
            a,
            numeric,
            (start, len_a),
            (0, u32::MAX),
            |col, v| {
                inserted.set(inserted.get() + accumulate::<S>(col, v, numeric, vals, claim));
            },
            Some(|col, p| {
                let (slot, fresh) = claim(col);
                inserted.set(inserted.get() + u32::from(fresh));
                if numeric {
                    let v = vals.add(slot as usize);
                    *v = if fresh { p } else { S::add(*v, p) };
                }
            }),
        );
        let inserted = inserted.get();
        if !numeric {
            let total = warp_inclusive_scan(inserted);
            if lane == WARP_SIZE - 1 {
                *a.row_len.as_mut_ptr().add(row as usize) = total;
            }
            return;
        }

        // Gather the filled slots to the front, in slot order; a direct
        // table is then sorted already, a hashed one is sorted here.
        let mut filled = 0u32;
        let mut t0 = 0;
        while t0 < used {
            let t = t0 + lane;
            let (k, v) = if t < used {
                (*keys.add(t as usize), *vals.add(t as usize))
            } else {
                (EMPTY, S::zero())
            };
            warp::sync_warp(FULL_MASK);
            let full = warp::ballot(k != EMPTY);
            if k != EMPTY {
                let at = (filled + (full & lane_mask_lt()).count_ones()) as usize;
                *keys.add(at) = k;
                *vals.add(at) = v;
            }
            filled += full.count_ones();
            warp::sync_warp(FULL_MASK);
            t0 += WARP_SIZE;
        }
        if a.phase.lengths() && lane == 0 {
            *a.row_len.as_mut_ptr().add(row as usize) = filled;
        }
        let out = c_start(a, row);
        if !DIRECT {
            if filled <= WARP_SIZE {
                write_sorted::<S::Value, 1>(a, out, keys, vals, filled);
                return;
            }
            if filled <= 2 * WARP_SIZE {
                write_sorted::<S::Value, 2>(a, out, keys, vals, filled);
                return;
            }
            sort_pairs::<S::Value>(keys, vals, filled);
        }
        let mut t = lane;
        while t < filled {
            *a.c_col_idx.as_mut_ptr().add(out + t as usize) = *keys.add(t as usize);
            *a.c_values.as_mut_ptr().add(out + t as usize) = *vals.add(t as usize);
            t += WARP_SIZE;
        }
        warp::sync_warp(FULL_MASK);
    }
}

/// Writes the warp's `n ≤ 32 · R` gathered pairs `(keys, vals)` to C at
/// `out`, sorted by key (distinct): the keys sorted in registers with their
/// positions below them ([`warp_sort_regs`]), each value then read from its
/// position, in far fewer steps than a network over shared memory.
///
/// # Safety
/// The whole warp calls; `keys` and `vals` hold `n` pairs, the warp's own;
/// C has room for `n` entries at `out`.
#[inline(always)]
unsafe fn write_sorted<T: Copy, const R: usize>(
    a: &Rows<T>,
    out: usize,
    keys: *const u32,
    vals: *const T,
    n: u32,
) {
    let lane = lane_id();
    // SAFETY: positions below `n`; the whole warp sorts.
    unsafe {
        let mut k = [u64::MAX; R];
        for (r, kr) in k.iter_mut().enumerate() {
            let t = r as u32 * WARP_SIZE + lane;
            if t < n {
                *kr = u64::from(*keys.add(t as usize)) << 32 | u64::from(t);
            }
        }
        warp_sort_regs(&mut k);
        for (r, kr) in k.iter().enumerate() {
            let t = r as u32 * WARP_SIZE + lane;
            if t < n {
                let at = out + t as usize;
                *a.c_col_idx.as_mut_ptr().add(at) = (*kr >> 32) as u32;
                *a.c_values.as_mut_ptr().add(at) = *vals.add(*kr as u32 as usize);
            }
        }
        warp::sync_warp(FULL_MASK);
    }
}

/// Sorts the warp's `n` pairs `(keys, vals)` by key, ascending (distinct
/// keys): a bitonic network over the next power of two, the pad keys
/// [`EMPTY`] (room for them is the caller's).
///
/// # Safety
/// The whole warp calls; `keys` and `vals` hold `n.next_power_of_two()`
/// entries and are the warp's own.
#[inline(always)]
unsafe fn sort_pairs<T: Copy>(keys: *mut u32, vals: *mut T, n: u32) {
    let m = n.next_power_of_two();
    let lane = lane_id();
    // SAFETY: indices below `m`; barriers reached by the whole warp.
    unsafe {
        let mut t = n + lane;
        while t < m {
            *keys.add(t as usize) = EMPTY;
            t += WARP_SIZE;
        }
        warp::sync_warp(FULL_MASK);
        let mut size = 2;
        while size <= m {
            let mut stride = size / 2;
            while stride > 0 {
                let mut t = lane;
                while t < m / 2 {
                    let lo = (2 * t - (t & (stride - 1))) as usize;
                    let hi = lo + stride as usize;
                    let (x, y) = (*keys.add(lo), *keys.add(hi));
                    if (x > y) == (lo as u32 & size == 0) {
                        *keys.add(lo) = y;
                        *keys.add(hi) = x;
                        let v = *vals.add(lo);
                        *vals.add(lo) = *vals.add(hi);
                        *vals.add(hi) = v;
                    }
                    t += WARP_SIZE;
                }
                warp::sync_warp(FULL_MASK);
                stride /= 2;
            }
            size *= 2;
        }
    }
}
