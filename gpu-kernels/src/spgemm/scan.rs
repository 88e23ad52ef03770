//! Prefix sums: the warp's and the block's (the row kernels' and Bᵀ's
//! helpers), and the three utility kernels that turn the rows' lengths
//! into C's row offsets ([`ScanArgs`]).

use crate::args::{SCAN_TILE, ScanArgs};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, grid_size_1d, index_1d, lane_id, require, sync_threads,
    thread_idx_x, warp_id,
};
use crate::device::warp::{self, Shuffle};

/// The warp's inclusive prefix sum of `v` (`u32` or `u64`).
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub(super) unsafe fn warp_inclusive_scan<T: Shuffle + core::ops::AddAssign>(mut v: T) -> T {
    let lane = lane_id();
    let mut d = 1;
    while d < WARP_SIZE {
        // SAFETY: the caller's contract.
        let t = unsafe { warp::shuffle_up(v, d) };
        if lane >= d {
            v += t;
        }
        d *= 2;
    }
    v
}

/// The block's exclusive prefix sum of `v` and the block's total, through
/// `warp_sums` (a shared word per warp, 32 at most).
///
/// # Safety
/// Every thread of the block must make this call together; block size a
/// multiple of 32.
#[inline(always)]
pub(super) unsafe fn block_exclusive_scan(v: u64, warp_sums: *mut u64) -> (u64, u64) {
    let (lane, wid, warps) = (lane_id(), warp_id(), block_dim_x() / WARP_SIZE);
    // SAFETY: the caller's contract; `warp_sums` has a slot per warp.
    unsafe {
        let incl = warp_inclusive_scan(v);
        if lane == WARP_SIZE - 1 {
            *warp_sums.add(wid as usize) = incl;
        }
        sync_threads();
        if wid == 0 {
            let t = if lane < warps {
                *warp_sums.add(lane as usize)
            } else {
                0
            };
            let s = warp_inclusive_scan(t);
            if lane < warps {
                *warp_sums.add(lane as usize) = s - t;
            }
            if lane == WARP_SIZE - 1 {
                *warp_sums.add(WARP_SIZE as usize) = s;
            }
        }
        sync_threads();
        let before = *warp_sums.add(wid as usize);
        let total = *warp_sums.add(WARP_SIZE as usize);
        sync_threads();
        (before + incl - v, total)
    }
}

/// Scans each tile of [`SCAN_TILE`] values ([`ScanArgs`]): offsets within
/// the tile to `output`, the tile's sum to `tile_sums`.
///
/// Launch: one block of [`crate::args::SCAN_THREADS`] threads a tile,
/// `8 · 33` bytes of dynamic shared memory.
///
/// # Safety
/// `input` holds `n` values, `output` `n + 1`, `tile_sums` `n_tiles`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scan_tiles(a: ScanArgs) {
    const PER: u32 = 8;
    require(block_dim_x() * PER == SCAN_TILE);
    let tile = block_idx_x();
    let first = tile * SCAN_TILE + thread_idx_x() * PER;
    let mut vals = [0u32; PER as usize];
    let mut sum = 0u64;
    for (t, v) in vals.iter_mut().enumerate() {
        let i = first + t as u32;
        if i < a.n {
            // SAFETY: `i < n`.
            *v = unsafe { *a.input.as_ptr().add(i as usize) };
            sum += u64::from(*v);
        }
    }
    // SAFETY: every thread calls; shared memory as the launch gives.
    let (before, total) = unsafe { block_exclusive_scan(sum, shared::dynamic::<u64>()) };
    let mut run = before;
    for (t, v) in vals.iter().enumerate() {
        let i = first + t as u32;
        if i < a.n {
            // SAFETY: `i < n`.
            unsafe { *a.output.as_mut_ptr().add(i as usize) = run };
            run += u64::from(*v);
        }
    }
    if thread_idx_x() == 0 {
        // SAFETY: `tile < n_tiles`.
        unsafe { *a.tile_sums.as_mut_ptr().add(tile as usize) = total };
    }
}

/// Scans the tiles' sums in place (exclusive) and writes the grand total to
/// `output[n]` ([`ScanArgs`]).
///
/// Launch: one block of [`crate::args::SCAN_THREADS`] threads, `8·33`
/// bytes of dynamic shared memory.
///
/// # Safety
/// As [`scan_tiles`], after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scan_tile_sums(a: ScanArgs) {
    let sums = a.tile_sums.as_mut_ptr();
    let mut carry = 0u64;
    let mut base = 0;
    while base < a.n_tiles {
        let i = base + thread_idx_x();
        // SAFETY: `i < n_tiles` where read; every thread calls the scan.
        unsafe {
            let v = if i < a.n_tiles {
                *sums.add(i as usize)
            } else {
                0
            };
            let (before, total) = block_exclusive_scan(v, shared::dynamic::<u64>());
            if i < a.n_tiles {
                *sums.add(i as usize) = carry + before;
            }
            carry += total;
        }
        base += block_dim_x();
    }
    if thread_idx_x() == 0 {
        // SAFETY: `output` holds `n + 1` values.
        unsafe { *a.output.as_mut_ptr().add(a.n as usize) = carry };
    }
}

/// Adds each tile's start to its offsets ([`ScanArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// As [`scan_tiles`], after [`scan_tile_sums`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scan_add(a: ScanArgs) {
    let mut i = index_1d();
    while i < a.n {
        // SAFETY: `i < n`, its tile `< n_tiles`.
        unsafe {
            *a.output.as_mut_ptr().add(i as usize) +=
                *a.tile_sums.as_mut_ptr().add((i / SCAN_TILE) as usize);
        }
        i = i.saturating_add(grid_size_1d());
    }
}
