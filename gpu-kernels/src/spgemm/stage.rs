//! Staging: when a product has many short, hash or dense rows, walking
//! each row's products twice (symbolic, then numeric) is most of its
//! time. The host then has classify bound each row's length, lays out a
//! staging area by those bounds, and runs the class's numeric phase in
//! the symbolic one ([`SpgemmPhase::Stage`](crate::args::SpgemmPhase::Stage),
//! `spgemm_{short,hash,dense}_stage`: the entries into the staging area,
//! the lengths to `row_len`); the numeric phase copies the rows to C with
//! the kernels here ([`SpgemmPhase::Unstage`](crate::args::SpgemmPhase::Unstage)).

use crate::args::SpgemmUnstageArgs;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, global_warp_id, grid_dim_x, grid_warps, lane_id,
    thread_idx_x,
};
use crate::device::warp::{self, Shuffle};
use crate::semiring::Semiring;

/// The staged rows of the short and hash classes copied to C: see
/// [`unstage`].
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// [`SpgemmUnstageArgs`] valid: the listed rows staged and C's offsets
/// computed from the lengths staging wrote.
#[inline(always)]
pub unsafe fn spgemm_unstage<S: Semiring>(a: SpgemmUnstageArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the contract.
    unsafe { unstage(&a) }
}

/// The staged rows of the dense class copied to C, a block a row: see
/// [`unstage_rows`].
///
/// Launch: 1D, any block size, any grid; no shared memory.
///
/// # Safety
/// As [`spgemm_unstage`].
#[inline(always)]
pub unsafe fn spgemm_unstage_dense<S: Semiring>(a: SpgemmUnstageArgs<S::Value>) {
    // SAFETY: the contract.
    unsafe { unstage_rows(&a) }
}

/// Where staged row `b` of the list lies: `(from, to, len)`, its offset in
/// the staging area, its offset in C and its length.
///
/// # Safety
/// `b` within the list; the rows staged and C's offsets computed from
/// the lengths staging wrote.
#[inline(always)]
unsafe fn staged_row<T>(a: &SpgemmUnstageArgs<T>, b: u32) -> (usize, usize, usize) {
    // SAFETY: the contract.
    unsafe {
        let row = *a.rows.as_ptr().add(b as usize) as usize;
        let p = a.c_row_ptr.as_ptr().add(row);
        (
            *a.stage_ptr.as_ptr().add(row) as usize,
            (*p - a.c_base) as usize,
            (*p.add(1) - *p) as usize,
        )
    }
}

/// Copies a staged row `(from, to, len)` to C, the thread's entries
/// `first`, `first + step`, ….
///
/// # Safety
/// As [`staged_row`], which gave the row.
#[inline(always)]
unsafe fn copy_staged<T: Copy>(
    a: &SpgemmUnstageArgs<T>,
    (from, to, len): (usize, usize, usize),
    first: usize,
    step: usize,
) {
    let mut e = first;
    while e < len {
        // SAFETY: within the staged row and C's row by the contract.
        unsafe {
            *a.c_col_idx.as_mut_ptr().add(to + e) = *a.stage_col_idx.as_ptr().add(from + e);
            *a.c_values.as_mut_ptr().add(to + e) = *a.stage_values.as_ptr().add(from + e);
        }
        e += step;
    }
}

/// Copies each listed row from the staging area to C: a warp takes 32 rows, each lane looking up one row's places at once,
/// then copies them a row after another, a lane an entry. Looked up a row
/// at a time, the rows' three dependent loads left the copy latency-bound.
///
/// # Safety
/// As [`staged_row`] for every listed row.
#[inline(always)]
unsafe fn unstage<T: Copy + Shuffle>(a: &SpgemmUnstageArgs<T>) {
    let lane = lane_id();
    let mut base = global_warp_id() * WARP_SIZE;
    while base < a.n_rows {
        // SAFETY: the contract; the shuffles are reached by the whole warp
        // (`base` is the warp's).
        unsafe {
            let (mut from, mut to, mut len) = (0u64, 0u64, 0u32);
            if base + lane < a.n_rows {
                let (f, t, n) = staged_row(a, base + lane);
                (from, to, len) = (f as u64, t as u64, n as u32);
            }
            for r in 0..(a.n_rows - base).min(WARP_SIZE) {
                let row = (
                    warp::shuffle_idx(from, r) as usize,
                    warp::shuffle_idx(to, r) as usize,
                    warp::shuffle_idx(len, r) as usize,
                );
                copy_staged(a, row, lane as usize, WARP_SIZE as usize);
            }
        }
        base += grid_warps() * WARP_SIZE;
    }
}

/// Copies each listed row from the staging area to C, a block a row: dense rows, each as much copying as a block can share.
///
/// # Safety
/// As [`unstage`].
#[inline(always)]
unsafe fn unstage_rows<T: Copy>(a: &SpgemmUnstageArgs<T>) {
    let mut b = block_idx_x();
    while b < a.n_rows {
        // SAFETY: the contract.
        unsafe {
            let row = staged_row(a, b);
            copy_staged(a, row, thread_idx_x() as usize, block_dim_x() as usize);
        }
        b += grid_dim_x();
    }
}
