//! A long row's pieces combined, in a fixed order: by the last piece to
//! finish (the `_fused` kernels) or by `spmm_csr_fixup` after them.

use crate::args::{SpmmBlockArgs, SpmmFixupArgs};
use crate::device::atomic::atomic_inc_release_u32;
use crate::device::memory::{fence_gpu, load_from_l2};
use crate::device::thread::{grid_stride, lane_id};
use crate::device::warp::{self, FULL_MASK};
use crate::semiring::Semiring;

use super::chunk::Chunk;

/// The end of a `_fused` item: a piece counts itself done, and the last of
/// its long row's pieces (for tile `t`) sums their partial rows, in order,
/// into the row of C, each lane its columns from `col`.
///
/// # Safety
/// All 32 lanes, after every lane stored its part of the item; `w` the
/// item's block, a piece if `piece`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn combine_if_last<S: Semiring, P: Chunk<Elem = S::Value>>(
    a: &SpmmBlockArgs<S::Value>,
    piece: bool,
    live: bool,
    w: u32,
    t: u32,
    n_tiles: u32,
    group: u32,
    lanes: u32,
    col: usize,
) {
    // The group's partial row, stored by all its lanes, before the
    // leader's releasing count.
    // SAFETY: all 32 lanes (the caller's contract).
    unsafe { warp::sync_warp(FULL_MASK) };
    // Read again rather than kept through the item (registers).
    let (row, l, first, end) = match piece {
        // SAFETY: piece `w` of long row `l` (the caller's contract).
        true => unsafe {
            let d = a.blocks.as_ptr().add(4 * w as usize);
            let (row, l) = (*d, *d.add(1));
            let f = a.long_first.as_ptr().add(l as usize);
            (row, l, *f, *f.add(1))
        },
        false => (0, 0, 0, 0),
    };
    let mut last = false;
    if piece && lane_id() & (lanes - 1) == 0 {
        // SAFETY: the long row's count for this tile; it wraps to 0 on the
        // row's last piece, ready for the next launch.
        unsafe {
            let count = a.done.as_mut_ptr().add((l * n_tiles + t) as usize);
            last = atomic_inc_release_u32(count, end - first - 1) == end - first - 1;
        }
        if last {
            // The other pieces' partial rows, released with their counts,
            // before this group's loads (through the barrier below).
            fence_gpu();
        }
    }
    // SAFETY: all 32 lanes.
    let last = unsafe { warp::shuffle_idx(last, group * lanes) };
    // SAFETY: all 32 lanes.
    unsafe { warp::sync_warp(FULL_MASK) };
    if last && live {
        let k = a.k as usize;
        // Four pieces' loads issued before any is summed (one latency, not
        // four), summed in piece order.
        const BATCH: u32 = 4;
        let mut sum = P::splat(S::zero());
        let mut p = first;
        while p < end {
            let mut parts = [P::splat(S::zero()); BATCH as usize];
            for (b, part) in parts.iter_mut().enumerate() {
                if p + (b as u32) < end {
                    let q = (p + b as u32) as usize;
                    // SAFETY: piece `q`'s partial row, released by its
                    // count.
                    *part = unsafe {
                        load_from_l2(a.partial.as_mut_ptr().add(q * k + col).cast::<P>())
                    };
                }
            }
            for (b, part) in parts.iter().enumerate() {
                if p + (b as u32) < end {
                    for i in 0..P::N {
                        sum.set(i, S::add(sum.get(i), part.get(i)));
                    }
                }
            }
            p += BATCH;
        }
        // SAFETY: the long row of C; `col + N ≤ k`.
        unsafe { *a.c.as_mut_ptr().add(row as usize * k + col).cast::<P>() = sum };
    }
}

/// The last step of a split SpMM ([`SpmmFixupArgs`]): a thread per (long
/// row, column), summing the row's pieces in order.
///
/// Launch: 1D, any block size and grid (`⌈n_long · k / block⌉` blocks
/// cover the work once), after the pieces' `spmm_csr_block` on the same
/// stream. `n_long · k` at most `u32::MAX`.
///
/// # Safety
/// `a` describes `partial` with `long_first[n_long]` rows of `k` values and
/// C with the long rows among its rows, in device memory.
#[inline(always)]
pub unsafe fn spmm_csr_fixup<S: Semiring>(a: SpmmFixupArgs<S::Value>) {
    let k = a.k as usize;
    let (partial, c) = (a.partial.as_ptr(), a.c.as_mut_ptr());
    for i in grid_stride(a.n_long * a.k) {
        let (l, col) = ((i / a.k) as usize, (i % a.k) as usize);
        // SAFETY: the caller's contract.
        unsafe {
            let row = *a.long_rows.as_ptr().add(l) as usize;
            let (first, end) = (
                *a.long_first.as_ptr().add(l) as usize,
                *a.long_first.as_ptr().add(l + 1) as usize,
            );
            let mut acc = S::zero();
            for p in first..end {
                acc = S::add(acc, *partial.add(p * k + col));
            }
            *c.add(row * k + col) = acc;
        }
    }
}
