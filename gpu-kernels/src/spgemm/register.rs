//! The warp and short classes: a row of at most 32 entries of A and 128
//! products sorted in the warp's registers, with no shared memory.
//!
//! Each lane computes up to four products, the warp sorts their keys by
//! shuffles (4-byte keys, the product number in the low bits, when the
//! row's columns leave room, else 8-byte), and each column's first key
//! sums its run from the lanes holding the next ones. It takes every row
//! of up to 32 products (`spgemm_warp`) and the short rows whose span
//! lies beyond any table indexed by column (`spgemm_short`): random short
//! rows, with few repeated columns, where clearing, probing and gathering
//! a table cost more than the sort, and where a table's shared memory
//! would bound the warps at once. A row with many repeated columns pays
//! for sorting its repeats (a 7-point stencil squared, 49 products on 25
//! columns, still gains: no table, more warps at once).

use crate::args::{SPGEMM_SHORT_MAX, SPGEMM_WARP_MAX};
use crate::device::thread::{WARP_SIZE, global_warp_id, grid_warps, lane_id};
use crate::device::warp::{self, Shuffle, lane_mask_lt};
use crate::semiring::Semiring;

use super::row::{EMPTY, Rows, RowsArgs, a_row, c_start, entry_of, key, key_col};
use super::scan::warp_inclusive_scan;

/// A row of at most 32 entries of A held a lane an entry: where the
/// entry's row of B starts, that row's length and the entry's value (zero
/// when no value is read), with the warp's running count of products.
#[derive(Clone, Copy)]
struct LaneEntries<T> {
    b_start: u32,
    b_len: u32,
    value: T,
    /// Products of this lane's entry and the lanes below it.
    incl: u32,
    /// Products of the whole row.
    total: u32,
}

/// Which of the warp's sorted columns (position `r · 32 + lane` in
/// `col[r]`, [`EMPTY`] past the end) differ from the one before: the
/// first of each column.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
unsafe fn column_heads<const R: usize>(col: &[u32; R]) -> [bool; R] {
    let lane = lane_id();
    let mut head = [false; R];
    // Lane 0's predecessor is lane 31 of the register before.
    let mut last = EMPTY;
    for r in 0..R {
        // SAFETY: the caller's contract.
        let t = unsafe { warp::shuffle_idx(col[r], (lane + WARP_SIZE - 1) % WARP_SIZE) };
        let prev = if lane == 0 { last } else { t };
        last = t;
        head[r] = col[r] != EMPTY && col[r] != prev;
    }
    head
}

/// One row of at most 32 entries of A and `32 · R` products, sorted in the
/// warp's registers with no shared memory (ESC): product `r · 32 + lane`
/// is computed in `k[r]` (its entry found as in [`walk_products`](super::row::walk_products)), the
/// keys `(column, product)` are sorted by shuffles ([`warp_sort_regs`]),
/// and the first key of each column (a head) sums its run in order, each
/// step fetching the next sorted value from the lane holding it; runs are
/// as long as the entries of A that meet the column, usually one or two.
/// Heads are C's row, in column order: the entries to C (numeric,
/// staging) and their count to `row_len` (staging). The symbolic phase
/// needs only the columns: lanes holding one column find each other
/// (`match.any`) when a lane holds one, else the columns alone are sorted
/// (4-byte keys, half the shuffles) and their heads counted.
///
/// # Safety
/// The whole warp calls with the same `row`, whose entries `e` hold
/// ([`lane_entries`]; `value`s read when the phase is not symbolic) and
/// whose products are at most `32 · R`.
#[inline(always)]
unsafe fn register_row<S: Semiring, const R: usize>(
    a: &Rows<S::Value>,
    row: u32,
    e: LaneEntries<S::Value>,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let numeric = a.phase.entries();
    // SAFETY: indices within B and C by the contract; every shuffle and
    // vote is reached by the whole warp (`R` is fixed, and the run loop's
    // condition is a vote).
    unsafe {
        let (bc, bv) = (a.b_col_idx.as_ptr(), a.b_values.as_ptr());
        let mut k = [u64::MAX; R];
        let mut v = [S::zero(); R];
        for r in 0..R {
            let p = r as u32 * WARP_SIZE + lane;
            let l = entry_of(e.incl, p);
            let (sl, nl, il) = (
                warp::shuffle_idx(e.b_start, l),
                warp::shuffle_idx(e.b_len, l),
                warp::shuffle_idx(e.incl, l),
            );
            let xl = warp::shuffle_idx(e.value, l);
            if p < e.total {
                let q = (sl + nl + p - il) as usize;
                k[r] = key(*bc.add(q), p);
                if numeric {
                    v[r] = S::mul(xl, *bv.add(q));
                }
            }
        }
        if !numeric {
            let mut col = k.map(key_col);
            let distinct = if R == 1 {
                let peers = warp::match_any(col[0]);
                warp::ballot(col[0] != EMPTY && peers & lane_mask_lt() == 0).count_ones()
            } else {
                warp_sort_regs(&mut col);
                column_heads(&col)
                    .iter()
                    .map(|&h| warp::ballot(h).count_ones())
                    .sum()
            };
            if lane == 0 {
                *a.row_len.as_mut_ptr().add(row as usize) = distinct;
            }
            return;
        }
        // Sorted position `r · 32 + lane`: its column (EMPTY past the
        // products) and product number (u32::MAX past them). When every
        // column leaves room for the product number in 4 bytes, the keys
        // sort as u32: half the shuffles of u64 keys.
        let bits = (WARP_SIZE * R as u32).trailing_zeros();
        // (Below the top column that fits, so that no key is the pad.)
        let fits = (1u32 << (32 - bits)) - 1;
        let u32_keys = warp::all(k.iter().all(|&kr| kr == u64::MAX || key_col(kr) < fits));
        let (col, prod) = if u32_keys {
            let mut k32 = k.map(|kr| {
                if kr == u64::MAX {
                    u32::MAX
                } else {
                    key_col(kr) << bits | kr as u32
                }
            });
            warp_sort_regs(&mut k32);
            (
                k32.map(|x| if x == u32::MAX { EMPTY } else { x >> bits }),
                k32.map(|x| {
                    if x == u32::MAX {
                        u32::MAX
                    } else {
                        x & ((1 << bits) - 1)
                    }
                }),
            )
        } else {
            warp_sort_regs(&mut k);
            (k.map(key_col), k.map(|kr| kr as u32))
        };
        let head = column_heads(&col);
        let mut sum = [S::zero(); R];
        for r in 0..R {
            let p = prod[r];
            for (rr, &vr) in v.iter().enumerate() {
                let t = warp::shuffle_idx(vr, p % WARP_SIZE);
                if p / WARP_SIZE == rr as u32 {
                    sum[r] = t;
                }
            }
        }
        // Each head adds the values after it while their column is its
        // own: position `q + d` is lane `lane + d` of the same register,
        // or of the next one past lane 31.
        let val = sum;
        let mut open = head;
        let mut d = 1;
        while warp::any(open.iter().any(|&o| o)) {
            let from = (lane + d) % WARP_SIZE;
            let next = lane + d >= WARP_SIZE;
            let cols = col.map(|c| warp::shuffle_idx(c, from));
            let vals = val.map(|x| warp::shuffle_idx(x, from));
            for r in 0..R {
                let at = r + usize::from(next);
                let (c, x) = if at < R {
                    (cols[at], vals[at])
                } else {
                    (EMPTY, S::zero())
                };
                if open[r] {
                    if c == col[r] {
                        sum[r] = S::add(sum[r], x);
                    } else {
                        open[r] = false;
                    }
                }
            }
            d += 1;
        }
        let out = c_start(a, row);
        let mut written = 0u32;
        for r in 0..R {
            let heads = warp::ballot(head[r]);
            if head[r] {
                let at = out + (written + (heads & lane_mask_lt()).count_ones()) as usize;
                *a.c_col_idx.as_mut_ptr().add(at) = col[r];
                *a.c_values.as_mut_ptr().add(at) = sum[r];
            }
            written += heads.count_ones();
        }
        if a.phase.lengths() && lane == 0 {
            *a.row_len.as_mut_ptr().add(row as usize) = written;
        }
    }
}

/// The warp's keys sorted ascending across its lanes (lane 0 the
/// smallest): a bitonic network by shuffles.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub(super) unsafe fn warp_sort(k: u64) -> u64 {
    let mut k = [k];
    // SAFETY: the caller's contract.
    unsafe { warp_sort_regs(&mut k) };
    k[0]
}

/// The warp's `32 · R` keys sorted ascending, `R` (1, 2 or 4) a lane: key
/// `r · 32 + lane` in `k[r]`. A bitonic network: a merge of runs of `size`
/// keys sorts a run ascending when bit `size` of its position is clear;
/// steps of a stride under 32 exchange with another lane by a shuffle,
/// wider ones between a lane's own registers.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub(super) unsafe fn warp_sort_regs<K: Shuffle + Ord, const R: usize>(k: &mut [K; R]) {
    const { assert!(R == 1 || R == 2 || R == 4) };
    // Read here, not hoisted: a lane known outside the caller's loop lets
    // the compiler keep each step's choice in a register of its own.
    let lane: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(nostack)) };
    let mut size = 2;
    while size <= WARP_SIZE * R as u32 {
        let mut stride = size / 2;
        while stride > 0 {
            for r in 0..R {
                let ascending = (r as u32 * WARP_SIZE + lane) & size == 0;
                if stride < WARP_SIZE {
                    // SAFETY: the caller's contract.
                    let other = unsafe { warp::shuffle_xor(k[r], stride) };
                    let lower = lane & stride == 0;
                    k[r] = if lower == ascending {
                        Ord::min(k[r], other)
                    } else {
                        Ord::max(k[r], other)
                    };
                } else {
                    let hop = (stride / WARP_SIZE) as usize;
                    if r & hop == 0 {
                        let (x, y) = (k[r], k[r + hop]);
                        let (lo, hi) = (Ord::min(x, y), Ord::max(x, y));
                        (k[r], k[r + hop]) = if ascending { (lo, hi) } else { (hi, lo) };
                    }
                }
            }
            stride /= 2;
        }
        size *= 2;
    }
}

/// A row of at most 32 entries of A, a lane an entry ([`LaneEntries`]; the
/// values read unless the phase is symbolic).
///
/// # Safety
/// The whole warp calls with the same `row`, a row of A of at most 32
/// entries.
#[inline(always)]
unsafe fn lane_entries<S: Semiring>(a: &Rows<S::Value>, row: u32) -> LaneEntries<S::Value>
where
    S::Value: Shuffle,
{
    let lane = lane_id();
    // SAFETY: the contract; A's columns are rows of B; the shuffles are
    // reached by the whole warp.
    unsafe {
        let (start, len_a) = a_row(a, row);
        let (mut b_start, mut b_len, mut value) = (0u32, 0u32, S::zero());
        if lane < len_a {
            let k = *a.a_col_idx.as_ptr().add((start + lane) as usize) as usize;
            let bp = a.b_row_ptr.as_ptr();
            b_start = *bp.add(k);
            b_len = *bp.add(k + 1) - b_start;
            if a.phase.entries() {
                value = *a.a_values.as_ptr().add((start + lane) as usize);
            }
        }
        let incl = warp_inclusive_scan(b_len);
        LaneEntries {
            b_start,
            b_len,
            value,
            incl,
            total: warp::shuffle_idx(incl, WARP_SIZE - 1),
        }
    }
}

/// Rows of up to [`SPGEMM_WARP_MAX`] products, a warp each, sorted in the
/// warp's registers ([`register_row`]; symbolic or numeric:
/// `spgemm_warp_symbolic`, `spgemm_warp_numeric`). Tried staging this
/// class through the symbolic phase: slower than counting its columns by
/// `match.any`.
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// The phase's struct valid; the listed rows have ≥ 2 entries of A and
/// at most [`SPGEMM_WARP_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_warp<'a, S: Semiring>(args: impl RowsArgs<'a, S::Value>)
where
    S::Value: Shuffle,
{
    const { assert!(SPGEMM_WARP_MAX == WARP_SIZE) };
    let a = args.rows();
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract (a row of at most 32 products has at most
        // 32 entries of A); `w` is warp-uniform.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            register_row::<S, 1>(&a, row, lane_entries::<S>(&a, row));
        }
        w += grid_warps();
    }
}

/// Rows of at most 32 entries of A and [`SPGEMM_SHORT_MAX`] products whose
/// span lies beyond a table indexed by column, a warp each, sorted in
/// the warp's registers ([`register_row`], two or four products a lane):
/// random short rows, whose products are mostly distinct columns, cost a
/// sort with no table to clear, fill and gather, and no shared memory
/// to bound the warps at once. Symbolic, numeric, or staged like
/// `spgemm_hash` (`spgemm_short_symbolic`, `_numeric`, `_stage`; the
/// staged rows copied by `spgemm_unstage`).
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// The phase's struct valid; the listed rows have at most 32 entries of
/// A and [`SPGEMM_SHORT_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_short<'a, S: Semiring>(args: impl RowsArgs<'a, S::Value>)
where
    S::Value: Shuffle,
{
    const { assert!(SPGEMM_SHORT_MAX == 4 * WARP_SIZE) };
    let a = args.rows();
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract; `w` is warp-uniform, and so is the row's
        // total.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            let e = lane_entries::<S>(&a, row);
            if e.total <= 2 * WARP_SIZE {
                register_row::<S, 2>(&a, row, e);
            } else {
                register_row::<S, 4>(&a, row, e);
            }
        }
        w += grid_warps();
    }
}
