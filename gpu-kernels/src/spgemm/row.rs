//! What the row kernels share: their view of each phase's argument
//! struct, A's and C's rows, the sort key of a product, the walk over a
//! row's products in the serial order, and the warp's sum of a batch of
//! products onto its slots (a table's, a bitmap's).

use crate::args::{
    DevPtr, DevPtrMut, SpgemmNumericArgs, SpgemmPhase, SpgemmStageArgs, SpgemmSymbolicArgs,
};
use crate::device::thread::{WARP_SIZE, lane_id};
use crate::device::warp::{self, FULL_MASK, Shuffle, lane_mask_gt, lane_mask_lt};
use crate::semiring::Semiring;

use super::scan::warp_inclusive_scan;

/// The argument struct of one phase of the row kernels (symbolic,
/// numeric, staging), which the kernels read through [`Rows`]: one body
/// per class serves every phase, and each phase's entry point is compiled
/// with its phase a constant, so that it carries no other phase's code.
pub trait RowsArgs<'a, T>: Copy {
    /// The struct as the kernels read it.
    fn rows(self) -> Rows<'a, T>;
}

/// What a row kernel reads in any phase: the phase's argument struct, the
/// fields that phase lacks null or zero (never read in it, the phase
/// being [`Rows::phase`]), and the phase, a constant of the entry point.
#[derive(Clone, Copy)]
pub struct Rows<'a, T> {
    /// The phase: never [`SpgemmPhase::Unstage`], whose kernels read
    /// their struct as it is.
    pub phase: SpgemmPhase,
    pub(super) a_row_ptr: DevPtr<'a, u32>,
    pub(super) a_col_idx: DevPtr<'a, u32>,
    pub(super) a_values: DevPtr<'a, T>,
    pub(super) b_row_ptr: DevPtr<'a, u32>,
    pub(super) b_col_idx: DevPtr<'a, u32>,
    pub(super) b_values: DevPtr<'a, T>,
    pub(super) rows: DevPtr<'a, u32>,
    pub(super) row_len: DevPtrMut<'a, u32>,
    pub(super) c_row_ptr: DevPtr<'a, u64>,
    pub(super) c_col_idx: DevPtrMut<'a, u32>,
    pub(super) c_values: DevPtrMut<'a, T>,
    pub(super) scratch_flags: DevPtrMut<'a, u32>,
    pub(super) scratch_values: DevPtrMut<'a, T>,
    pub(super) c_base: u64,
    pub(super) n_rows: u32,
    pub(super) slot_words: u32,
    pub(super) table_slots: u32,
    pub(super) shared_words: u32,
    pub(super) shared_values: u32,
}

impl<'a, T> RowsArgs<'a, T> for SpgemmSymbolicArgs<'a, T> {
    #[inline(always)]
    fn rows(self) -> Rows<'a, T> {
        Rows {
            phase: SpgemmPhase::Symbolic,
            a_row_ptr: self.a_row_ptr,
            a_col_idx: self.a_col_idx,
            a_values: DevPtr::null(),
            b_row_ptr: self.b_row_ptr,
            b_col_idx: self.b_col_idx,
            b_values: DevPtr::null(),
            rows: self.rows,
            row_len: self.row_len,
            c_row_ptr: DevPtr::null(),
            c_col_idx: DevPtrMut::null(),
            c_values: DevPtrMut::null(),
            scratch_flags: self.scratch_flags,
            scratch_values: DevPtrMut::null(),
            c_base: 0,
            n_rows: self.n_rows,
            slot_words: self.slot_words,
            table_slots: self.table_slots,
            shared_words: self.shared_words,
            shared_values: 0,
        }
    }
}

impl<'a, T> RowsArgs<'a, T> for SpgemmNumericArgs<'a, T> {
    #[inline(always)]
    fn rows(self) -> Rows<'a, T> {
        Rows {
            phase: SpgemmPhase::Numeric,
            a_row_ptr: self.a_row_ptr,
            a_col_idx: self.a_col_idx,
            a_values: self.a_values,
            b_row_ptr: self.b_row_ptr,
            b_col_idx: self.b_col_idx,
            b_values: self.b_values,
            rows: self.rows,
            row_len: DevPtrMut::null(),
            c_row_ptr: self.c_row_ptr,
            c_col_idx: self.c_col_idx,
            c_values: self.c_values,
            scratch_flags: self.scratch_flags,
            scratch_values: self.scratch_values,
            c_base: self.c_base,
            n_rows: self.n_rows,
            slot_words: self.slot_words,
            table_slots: self.table_slots,
            shared_words: self.shared_words,
            shared_values: self.shared_values,
        }
    }
}

impl<'a, T> RowsArgs<'a, T> for SpgemmStageArgs<'a, T> {
    #[inline(always)]
    fn rows(self) -> Rows<'a, T> {
        Rows {
            phase: SpgemmPhase::Stage,
            row_len: self.row_len,
            ..self.entries.rows()
        }
    }
}

/// Key of a product: its column above, its number (A's order, then B's)
/// below; sorting keys orders a row's products by column, ties in order.
#[inline(always)]
pub(super) fn key(col: u32, product: u32) -> u64 {
    (u64::from(col) << 32) | u64::from(product)
}

#[inline(always)]
pub(super) fn key_col(k: u64) -> u32 {
    (k >> 32) as u32
}

/// A's row `row`: its first entry and length.
///
/// # Safety
/// `row` is a row of A.
#[inline(always)]
pub(super) unsafe fn a_row<T>(a: &Rows<T>, row: u32) -> (u32, u32) {
    // SAFETY: the caller's contract.
    unsafe {
        let p = a.a_row_ptr.as_ptr().add(row as usize);
        (*p, *p.add(1) - *p)
    }
}

/// Where row `row` of C starts in `c_col_idx` / `c_values`.
///
/// # Safety
/// Numeric phase, `row` a row of C.
#[inline(always)]
pub(super) unsafe fn c_start<T>(a: &Rows<T>, row: u32) -> usize {
    // SAFETY: the caller's contract.
    (unsafe { *a.c_row_ptr.as_ptr().add(row as usize) } - a.c_base) as usize
}

/// A key slot no column takes.
pub(super) const EMPTY: u32 = u32::MAX;

/// Walks the products of A's row (`len_a` entries from `start`) in the
/// serial engine's order, keeping of each B row only its columns in
/// `cols` (all: `0..u32::MAX`). A's entries are taken 32 at a time, a lane
/// each; their products are then visited in one of two ways:
///
/// - *packed*, when B's rows are short: 32 products at a time, each lane
///   finding its entry by a search over the warp's running counts, so
///   that short rows fill a batch; `batch(col, value)` is called by the
///   whole warp for each batch, with [`EMPTY`] in the lanes past the end,
///   and must put products of one column in lane order itself;
/// - *by entry*, when `by_entry` is given and the 32 rows hold at least
///   [`BY_ENTRY_MEAN`] products each on average: one entry after another,
///   lanes on consecutive columns of its row (distinct, so no two lanes
///   meet), `by_entry(col, value)` per lane and product, the warp's
///   barrier between entries; it costs no search and no matching. The
///   loads of `IN_FLIGHT` steps of 32 products go out before the first
///   of them is summed.
///
/// `value` is the product's when `numeric`, else zero (no value is read).
///
/// # Safety
/// The whole warp calls with the same arguments; `start + len_a` within A.
#[inline(always)]
pub(super) unsafe fn walk_products<S: Semiring, const IN_FLIGHT: usize>(
    a: &Rows<S::Value>,
    numeric: bool,
    (start, len_a): (u32, u32),
    cols: (u32, u32),
    mut batch: impl FnMut(u32, S::Value),
    mut by_entry: Option<impl FnMut(u32, S::Value)>,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let whole = cols == (0, u32::MAX);
    // SAFETY: indices within A and B by the contract; shuffles reached by
    // the whole warp (loop bounds are warp-uniform).
    unsafe {
        let (ac, bp, bc, bv) = (
            a.a_col_idx.as_ptr().add(start as usize),
            a.b_row_ptr.as_ptr(),
            a.b_col_idx.as_ptr(),
            a.b_values.as_ptr(),
        );
        let mut j0 = 0;
        while j0 < len_a {
            let j = j0 + lane;
            let (mut s, mut n, mut x) = (0u32, 0u32, S::zero());
            if j < len_a {
                let k = *ac.add(j as usize) as usize;
                let (mut bs, mut be) = (*bp.add(k), *bp.add(k + 1));
                if !whole {
                    (bs, be) = lower_bounds(bc, bs, be, cols);
                }
                s = bs;
                n = be - bs;
                if numeric {
                    x = *a.a_values.as_ptr().add((start + j) as usize);
                }
            }
            let incl = warp_inclusive_scan(n);
            let total = warp::shuffle_idx(incl, WARP_SIZE - 1);
            let mut ready = warp::ballot(n > 0);
            if let Some(f) = by_entry.as_mut()
                && total >= BY_ENTRY_MEAN * ready.count_ones()
            {
                if IN_FLIGHT == 1 {
                    // One entry at a time, each lane on every 32nd of its
                    // products, each load awaited before its product is
                    // summed.
                    while ready != 0 {
                        let t = ready.trailing_zeros();
                        ready &= ready - 1;
                        let (st, et) = (warp::shuffle_idx(s, t), warp::shuffle_idx(s + n, t));
                        let xt = warp::shuffle_idx(x, t);
                        let mut q = st + lane;
                        while q < et {
                            let v = if numeric {
                                S::mul(xt, *bv.add(q as usize))
                            } else {
                                S::zero()
                            };
                            f(*bc.add(q as usize), v);
                            q += WARP_SIZE;
                        }
                        warp::sync_warp(FULL_MASK);
                    }
                    j0 += WARP_SIZE;
                    continue;
                }
                // Steps of up to 32 products, an entry's row of B a warp's
                // width at a time, in the serial order. The loads of
                // `IN_FLIGHT` steps go out before the first is summed, so
                // a dense row waits one load latency per `IN_FLIGHT` steps.
                // The warp's barrier follows each entry's last step (bit
                // `u` of `ends`), before another entry may meet its columns.
                let (mut q, mut left, mut xt) = (0u32, 0u32, S::zero());
                while left > 0 || ready != 0 {
                    let mut col = [EMPTY; IN_FLIGHT];
                    let mut b = [S::zero(); IN_FLIGHT];
                    let mut xs = [S::zero(); IN_FLIGHT];
                    let mut ends = 0u32;
                    for u in 0..IN_FLIGHT {
                        if left == 0 && ready != 0 {
                            let t = ready.trailing_zeros();
                            ready &= ready - 1;
                            q = warp::shuffle_idx(s, t);
                            left = warp::shuffle_idx(n, t);
                            xt = warp::shuffle_idx(x, t);
                        }
                        if left > lane {
                            col[u] = *bc.add((q + lane) as usize);
                            if numeric {
                                b[u] = *bv.add((q + lane) as usize);
                            }
                        }
                        xs[u] = xt;
                        if left > WARP_SIZE {
                            (q, left) = (q + WARP_SIZE, left - WARP_SIZE);
                        } else {
                            ends |= u32::from(left > 0) << u;
                            left = 0;
                        }
                    }
                    for u in 0..IN_FLIGHT {
                        if col[u] != EMPTY {
                            f(
                                col[u],
                                if numeric {
                                    S::mul(xs[u], b[u])
                                } else {
                                    S::zero()
                                },
                            );
                        }
                        if ends & (1 << u) != 0 {
                            warp::sync_warp(FULL_MASK);
                        }
                    }
                }
                j0 += WARP_SIZE;
                continue;
            }
            let mut p0 = 0;
            while p0 < total {
                let p = p0 + lane;
                let l = entry_of(incl, p);
                let (sl, nl, il) = (
                    warp::shuffle_idx(s, l),
                    warp::shuffle_idx(n, l),
                    warp::shuffle_idx(incl, l),
                );
                let xl = warp::shuffle_idx(x, l);
                let (mut col, mut v) = (EMPTY, S::zero());
                if p < total {
                    let q = (sl + nl + p - il) as usize;
                    col = *bc.add(q);
                    if numeric {
                        v = S::mul(xl, *bv.add(q));
                    }
                }
                batch(col, v);
                p0 += WARP_SIZE;
            }
            j0 += WARP_SIZE;
        }
    }
}

/// The lane whose entry holds product `p` (below the warp's total), given
/// each lane's running count of products `incl`: the first lane whose
/// count passes `p`, found in five halving steps.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub(super) unsafe fn entry_of(incl: u32, p: u32) -> u32 {
    let mut l = 0u32;
    let mut step = WARP_SIZE / 2;
    while step > 0 {
        // SAFETY: the caller's contract.
        if unsafe { warp::shuffle_idx(incl, l + step - 1) } <= p {
            l += step;
        }
        step /= 2;
    }
    l
}

/// Products a row of B must hold on average (within the walk's columns)
/// for [`walk_products`] to go entry by entry: there a lane costs a shuffle
/// and a store a product, where packing costs a search, a match and the
/// summing of peers a batch, which pays only when rows leave most lanes
/// of an entry idle.
const BY_ENTRY_MEAN: u32 = 8;

/// Adds one batch of products to an accumulator, in lane order: lanes with
/// the same column find each other (`match.any`), and the first of them
/// claims the column's slot with `claim(col) → (slot, fresh)` and sums its
/// own product and the others', in lane order, onto the slot's value (the
/// product alone when the slot is fresh). Returns 1 in each lane that
/// claimed a fresh slot. Ends with the warp's barrier.
///
/// # Safety
/// The whole warp calls; `claim` gives distinct columns distinct slots of
/// `vals`, which the warp alone writes meanwhile.
#[inline(always)]
pub(super) unsafe fn accumulate<S: Semiring>(
    col: u32,
    v: S::Value,
    numeric: bool,
    vals: *mut S::Value,
    mut claim: impl FnMut(u32) -> (u32, bool),
) -> u32
where
    S::Value: Shuffle,
{
    let lane = lane_id();
    // SAFETY: the caller's contract.
    unsafe {
        let peers = warp::match_any(col);
        let leader = col != EMPTY && peers & lane_mask_lt() == 0;
        let (slot, fresh) = if leader { claim(col) } else { (0, false) };
        if numeric {
            let mut sum = if leader && !fresh {
                S::add(*vals.add(slot as usize), v)
            } else {
                v
            };
            let mut rest = if leader { peers & lane_mask_gt() } else { 0 };
            while warp::any(rest != 0) {
                let from = if rest != 0 {
                    rest.trailing_zeros()
                } else {
                    lane
                };
                let other = warp::shuffle_idx(v, from);
                if rest != 0 {
                    sum = S::add(sum, other);
                    rest &= rest - 1;
                }
            }
            if leader {
                *vals.add(slot as usize) = sum;
            }
        }
        warp::sync_warp(FULL_MASK);
        u32::from(fresh)
    }
}

/// The first positions in `s..e` of the sorted `cols` whose column is at
/// least `c.0`, and at least `c.1`: two searches side by side, so that
/// each step waits on one load latency for both.
///
/// # Safety
/// `cols[s..e]` readable.
#[inline(always)]
unsafe fn lower_bounds(cols: *const u32, s: u32, e: u32, c: (u32, u32)) -> (u32, u32) {
    let ((mut s0, mut e0), (mut s1, mut e1)) = ((s, e), (s, e));
    while s0 < e0 || s1 < e1 {
        let (m0, m1) = (s0 + (e0 - s0) / 2, s1 + (e1 - s1) / 2);
        // SAFETY: `s ≤ m < e` for each search still open.
        let (v0, v1) = unsafe {
            (
                if s0 < e0 { *cols.add(m0 as usize) } else { 0 },
                if s1 < e1 { *cols.add(m1 as usize) } else { 0 },
            )
        };
        if s0 < e0 {
            (s0, e0) = if v0 < c.0 { (m0 + 1, e0) } else { (s0, m0) };
        }
        if s1 < e1 {
            (s1, e1) = if v1 < c.1 { (m1 + 1, e1) } else { (s1, m1) };
        }
    }
    (s0, s1)
}
