//! Giant rows: a row of C whose row of A is long and whose products are
//! a large share of B's entries (class [`SPGEMM_CLASS_GIANT`]; a row of A
//! with every column is the extreme: its row of C is `Bᵀ·x`) is computed
//! column by column of Bᵀ instead of walking its products: a block on
//! such a row walks all of A's entries in order, and that walk, not the
//! products, sets the product's time. Up to [`SPGEMM_GIANT_BATCH`] giant
//! rows go at once: `spgemm_giant_gather` spreads their entries of A over
//! B's rows (a bit a row in `x_mask[k]`, the entry's position in
//! `x_pos`), then `spgemm_giant_columns` gives each column `j` of Bᵀ a
//! warp, a lane a row, and folds the column's entries in row order — the
//! serial engine's order for column `j` of every row of C, so the bits
//! are the serial ones; `spgemm_giant_rows` counts or writes each row in
//! column order. Both have an entry point per phase
//! (`spgemm_giant_{columns,rows}_{symbolic,numeric}`), each body reading
//! its phase's struct through [`Giant`]. Bᵀ is built once a product (`spgemm_transpose_*`:
//! counts, a scan, a scatter, then each column's keys sorted, since the
//! scatter's atomics place them in any order).
//!
//! [`SPGEMM_CLASS_GIANT`]: crate::args::SPGEMM_CLASS_GIANT
//! [`SPGEMM_GIANT_BATCH`]: crate::args::SPGEMM_GIANT_BATCH

use crate::args::{
    DevPtr, DevPtrMut, SpgemmGatherArgs, SpgemmGiantNumericArgs, SpgemmGiantSymbolicArgs,
    SpgemmPhase, SpgemmTransposeArgs,
};
use crate::device::atomic::{atomic_add_u32, atomic_or_u32};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, global_warp_id, grid_dim_x, grid_size_1d, grid_warps,
    index_1d, lane_id, sync_threads, thread_idx_x,
};
use crate::device::warp::{self, Shuffle};
use crate::semiring::Semiring;

use super::register::warp_sort;
use super::scan::block_exclusive_scan;

/// The argument struct of one phase of the giant rows' kernels
/// ([`SpgemmGiantSymbolicArgs`], [`SpgemmGiantNumericArgs`]), which they
/// read through [`Giant`], each entry point compiled for its phase.
pub trait GiantArgs<'a, T>: Copy {
    /// The struct as the kernels read it.
    fn giant(self) -> Giant<'a, T>;
}

/// What the giant rows' kernels read in either phase: the phase's
/// struct, the fields it lacks null or zero (never read in it), and the
/// phase, a constant of the entry point.
#[derive(Clone, Copy)]
pub struct Giant<'a, T> {
    /// [`SpgemmPhase::Symbolic`] or [`SpgemmPhase::Numeric`].
    pub phase: SpgemmPhase,
    a_values: DevPtr<'a, T>,
    b_values: DevPtr<'a, T>,
    bt_ptr: DevPtr<'a, u64>,
    bt_keys: DevPtr<'a, u64>,
    x_mask: DevPtr<'a, u32>,
    x_pos: DevPtr<'a, u32>,
    rows: DevPtr<'a, u32>,
    out_mask: DevPtrMut<'a, u32>,
    out_values: DevPtrMut<'a, T>,
    row_len: DevPtrMut<'a, u32>,
    c_row_ptr: DevPtr<'a, u64>,
    c_col_idx: DevPtrMut<'a, u32>,
    c_values: DevPtrMut<'a, T>,
    c_base: u64,
    n_cols: u32,
}

impl<'a, T> GiantArgs<'a, T> for SpgemmGiantSymbolicArgs<'a, T> {
    #[inline(always)]
    fn giant(self) -> Giant<'a, T> {
        Giant {
            phase: SpgemmPhase::Symbolic,
            a_values: DevPtr::null(),
            b_values: DevPtr::null(),
            bt_ptr: self.bt_ptr,
            bt_keys: self.bt_keys,
            x_mask: self.x_mask,
            x_pos: DevPtr::null(),
            rows: self.rows,
            out_mask: self.out_mask,
            out_values: DevPtrMut::null(),
            row_len: self.row_len,
            c_row_ptr: DevPtr::null(),
            c_col_idx: DevPtrMut::null(),
            c_values: DevPtrMut::null(),
            c_base: 0,
            n_cols: self.n_cols,
        }
    }
}

impl<'a, T> GiantArgs<'a, T> for SpgemmGiantNumericArgs<'a, T> {
    #[inline(always)]
    fn giant(self) -> Giant<'a, T> {
        Giant {
            phase: SpgemmPhase::Numeric,
            a_values: self.a_values,
            b_values: self.b_values,
            bt_ptr: self.bt_ptr,
            bt_keys: self.bt_keys,
            x_mask: self.x_mask,
            x_pos: self.x_pos,
            rows: self.rows,
            out_mask: self.out_mask,
            out_values: self.out_values,
            row_len: DevPtrMut::null(),
            c_row_ptr: self.c_row_ptr,
            c_col_idx: self.c_col_idx,
            c_values: self.c_values,
            c_base: self.c_base,
            n_cols: self.n_cols,
        }
    }
}

/// Counts each column's entries of B ([`SpgemmTransposeArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// B valid CSR with `n_rows` rows and columns < `n_cols`; `col_count`
/// `n_cols` zeroed words.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_transpose_count(a: SpgemmTransposeArgs) {
    // SAFETY: the contract; `p < nnz(B)`.
    unsafe {
        let nnz = *a.b_row_ptr.as_ptr().add(a.n_rows as usize);
        let mut p = index_1d();
        while p < nnz {
            let j = *a.b_col_idx.as_ptr().add(p as usize);
            atomic_add_u32(a.col_count.as_mut_ptr().add(j as usize), 1);
            p = p.saturating_add(grid_size_1d());
        }
    }
}

/// Writes each entry of B to its column of Bᵀ, a warp a row of B, counting
/// the columns down ([`SpgemmTransposeArgs`]).
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// After [`spgemm_transpose_count`], `col_ptr` the scan of its counts;
/// `keys` `nnz(B)` words.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_transpose_scatter(a: SpgemmTransposeArgs) {
    let mut k = global_warp_id();
    while k < a.n_rows {
        // SAFETY: the contract: each column's slots are counted, and a
        // count taken down from `c` hands out `c − 1 … 0` once each.
        unsafe {
            let bp = a.b_row_ptr.as_ptr();
            let (s, e) = (*bp.add(k as usize), *bp.add(k as usize + 1));
            let mut p = s + lane_id();
            while p < e {
                let j = *a.b_col_idx.as_ptr().add(p as usize) as usize;
                let left = atomic_add_u32(a.col_count.as_mut_ptr().add(j), u32::MAX);
                let at = *a.col_ptr.as_ptr().add(j) + u64::from(left) - 1;
                *a.keys.as_mut_ptr().add(at as usize) = (u64::from(k) << 32) | u64::from(p);
                p += WARP_SIZE;
            }
        }
        k += grid_warps();
    }
}

/// Sorts the keys of each column of Bᵀ ([`SpgemmTransposeArgs`]): with
/// `long == 0` the columns of 2 to 32 entries, a warp each in registers;
/// with `long == 1` the longer ones, a block each in place.
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// After [`spgemm_transpose_scatter`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_transpose_sort(a: SpgemmTransposeArgs) {
    let ptr = a.col_ptr.as_ptr();
    let keys = a.keys.as_mut_ptr();
    let lane = lane_id();
    if a.long == 0 {
        let mut j = global_warp_id();
        while j < a.n_cols {
            // SAFETY: the column's keys are `s..e`; warp-uniform branches.
            unsafe {
                let (s, e) = (*ptr.add(j as usize), *ptr.add(j as usize + 1));
                let len = (e - s) as u32;
                if (2..=WARP_SIZE).contains(&len) {
                    let mine = keys.add(s as usize + lane as usize);
                    let k = warp_sort(if lane < len { *mine } else { u64::MAX });
                    if lane < len {
                        *mine = k;
                    }
                }
            }
            j += grid_warps();
        }
    } else {
        let mut j = block_idx_x();
        while j < a.n_cols {
            // SAFETY: the column's keys are `s..e`; block-uniform branch.
            unsafe {
                let (s, e) = (*ptr.add(j as usize), *ptr.add(j as usize + 1));
                if e - s > u64::from(WARP_SIZE) {
                    sort_in_place(keys.add(s as usize), (e - s) as u32);
                }
            }
            j += grid_dim_x();
        }
    }
}

/// Sorts `keys[..n]` ascending, by the block: a bitonic network whose
/// every comparator puts the smaller key first (each merge starts by
/// comparing mirrored pairs), so the missing keys past `n` act as +∞ and
/// are never touched.
///
/// # Safety
/// Every thread of the block calls; `keys[..n]` the block's alone.
unsafe fn sort_in_place(keys: *mut u64, n: u32) {
    let m = n.next_power_of_two();
    let (rank, threads) = (thread_idx_x(), block_dim_x());
    // SAFETY: both indices of a comparator are below `n` when it swaps;
    // every barrier is reached by the whole block.
    unsafe {
        let exchange = |lo: u32, hi: u32| {
            if hi < n {
                let (x, y) = (*keys.add(lo as usize), *keys.add(hi as usize));
                if x > y {
                    *keys.add(lo as usize) = y;
                    *keys.add(hi as usize) = x;
                }
            }
        };
        let mut size = 2;
        while size <= m {
            let half = size / 2;
            let mut t = rank;
            while t < m / 2 {
                let base = t / half * size;
                exchange(base + t % half, base + size - 1 - t % half);
                t += threads;
            }
            sync_threads();
            let mut stride = half / 2;
            while stride > 0 {
                let mut t = rank;
                while t < m / 2 {
                    let lo = 2 * t - (t & (stride - 1));
                    exchange(lo, lo + stride);
                    t += threads;
                }
                sync_threads();
                stride /= 2;
            }
            size *= 2;
        }
    }
}

/// Spreads a batch of giant rows over B's rows, or clears them again
/// ([`SpgemmGatherArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// A valid CSR, `rows[..n_batch]` rows of A, `n_batch ≤ 32`; `x_mask` a
/// word per row of B (zero but for this batch's bits), `x_pos` 32 words.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_giant_gather(a: SpgemmGatherArgs) {
    for r in 0..a.n_batch {
        // SAFETY: the contract; `q` within the row.
        unsafe {
            let row = *a.rows.as_ptr().add(r as usize) as usize;
            let ap = a.a_row_ptr.as_ptr();
            let (s, e) = (*ap.add(row), *ap.add(row + 1));
            let mut q = s.saturating_add(index_1d());
            while q < e {
                let k = *a.a_col_idx.as_ptr().add(q as usize) as usize;
                if a.clear != 0 {
                    *a.x_mask.as_mut_ptr().add(k) = 0;
                } else {
                    atomic_or_u32(a.x_mask.as_mut_ptr().add(k), 1 << r);
                    *a.x_pos.as_mut_ptr().add(32 * k + r as usize) = q;
                }
                q = q.saturating_add(grid_size_1d());
            }
        }
    }
}

/// Each column of Bᵀ folded for a batch of giant rows, a warp a column and
/// a lane a row (`spgemm_giant_columns_symbolic`, `_numeric`). The warp
/// reads 32 of the column's
/// keys at once and skips those of rows of B no row of the batch meets.
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// After [`spgemm_giant_gather`] of this batch; Bᵀ sorted; `out_mask`
/// `n_cols` words, `out_values` `32 · n_cols` values.
#[inline(always)]
pub unsafe fn spgemm_giant_columns<'a, S: Semiring>(args: impl GiantArgs<'a, S::Value>)
where
    S::Value: Shuffle,
{
    let a = args.giant();
    let lane = lane_id();
    let numeric = a.phase.entries();
    let (ptr, keys) = (a.bt_ptr.as_ptr(), a.bt_keys.as_ptr());
    let (mask, pos) = (a.x_mask.as_ptr(), a.x_pos.as_ptr());
    let mut j = global_warp_id();
    while j < a.n_cols {
        // SAFETY: the contract; every loop and shuffle is warp-uniform
        // (`j`, `base`, `numeric` and `hits` are the warp's).
        unsafe {
            let (s, e) = (*ptr.add(j as usize), *ptr.add(j as usize + 1));
            let (mut acc, mut have, mut seen) = (S::zero(), false, 0u32);
            let mut base = s;
            while base < e {
                let at = base + u64::from(lane);
                let (key, m) = if at < e {
                    let key = *keys.add(at as usize);
                    (key, *mask.add((key >> 32) as usize))
                } else {
                    (0, 0)
                };
                base += u64::from(WARP_SIZE);
                if !numeric {
                    seen |= m;
                    continue;
                }
                let b = if m != 0 {
                    *a.b_values.as_ptr().add(key as u32 as usize)
                } else {
                    S::zero()
                };
                let mut hits = warp::ballot(m != 0);
                while hits != 0 {
                    let t = hits.trailing_zeros();
                    hits &= hits - 1;
                    let mt = warp::shuffle_idx(m, t);
                    let kt = warp::shuffle_idx((key >> 32) as u32, t);
                    let bt = warp::shuffle_idx(b, t);
                    if (mt >> lane) & 1 != 0 {
                        let q = *pos.add(32 * kt as usize + lane as usize);
                        let p = S::mul(*a.a_values.as_ptr().add(q as usize), bt);
                        acc = if have { S::add(acc, p) } else { p };
                        have = true;
                    }
                }
            }
            let out = if numeric {
                warp::ballot(have)
            } else {
                let mut d = 1;
                while d < WARP_SIZE {
                    seen |= warp::shuffle_xor(seen, d);
                    d *= 2;
                }
                seen
            };
            if lane == 0 {
                *a.out_mask.as_mut_ptr().add(j as usize) = out;
            }
            if have {
                *a.out_values
                    .as_mut_ptr()
                    .add(32 * j as usize + lane as usize) = acc;
            }
        }
        j += grid_warps();
    }
}

/// Each row of a giant batch counted (symbolic) or written in column
/// order (numeric), a block a row (`spgemm_giant_rows_symbolic`,
/// `_numeric`): each thread takes
/// a run of columns, one scan places the runs.
///
/// Launch: `n_batch` blocks, block size a multiple of 32 (at most 1024),
/// `8 · 33` bytes of dynamic shared memory.
///
/// # Safety
/// After [`spgemm_giant_columns`] of this batch and phase.
#[inline(always)]
pub unsafe fn spgemm_giant_rows<'a, S: Semiring>(args: impl GiantArgs<'a, S::Value>) {
    let a = args.giant();
    let (r, tid) = (block_idx_x(), thread_idx_x());
    let n = a.n_cols;
    let run = n.div_ceil(block_dim_x());
    let (first, last) = ((tid * run).min(n), (tid * run).saturating_add(run).min(n));
    let bit = 1u32 << r;
    let mask = a.out_mask.as_mut_ptr();
    // SAFETY: the contract; `first..last` within B's columns; every thread
    // reaches the scan.
    unsafe {
        let row = *a.rows.as_ptr().add(r as usize) as usize;
        let mut mine = 0u64;
        for j in first..last {
            mine += u64::from(*mask.add(j as usize) & bit != 0);
        }
        let (before, total) = block_exclusive_scan(mine, shared::dynamic::<u64>());
        if a.phase.entries() {
            let mut at = (*a.c_row_ptr.as_ptr().add(row) - a.c_base + before) as usize;
            for j in first..last {
                if *mask.add(j as usize) & bit != 0 {
                    *a.c_col_idx.as_mut_ptr().add(at) = j;
                    *a.c_values.as_mut_ptr().add(at) =
                        *a.out_values.as_mut_ptr().add(32 * j as usize + r as usize);
                    at += 1;
                }
            }
        } else if tid == 0 {
            *a.row_len.as_mut_ptr().add(row) = total as u32;
        }
    }
}
