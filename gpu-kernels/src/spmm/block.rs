//! The block kernels (row-major operands): a group of lanes a block of
//! A's entries and a tile of columns, the entries staged through shared
//! memory, B's rows read whole (see [`super`]).

use crate::args::{SPMM_BLOCK_STAGE, SPMM_LOCAL_PIECE, SpmmBlockArgs};
use crate::device::shared;
use crate::device::thread::{
    GridStride, WARP_SIZE, block_dim_x, global_warp_id, grid_warps, lane_id, require, warp_id,
};
use crate::device::warp::{self, FULL_MASK, Shuffle};
use crate::semiring::Semiring;

use super::chunk::{Chunk, One, Packed, Vec16, mul_add};
use super::fixup::combine_if_last;

/// Row-major CSR SpMM over nnz-balanced blocks ([`SpmmBlockArgs`]), one
/// value per load: any `k`. A group streams its block's entries through
/// shared memory and keeps `UNROLL` entries' loads of B in flight across
/// row boundaries, writing each row as the next begins: a block of many
/// short rows costs one chain of latencies (descriptor, entries, B), not
/// one per row as a warp per row pays.
///
/// Sum order, for floating-point `+`: each row (or piece) in entry order;
/// the pieces of a long row are combined in order by `spmm_csr_fixup`, a
/// row's local pieces by a butterfly across their groups. Deterministic.
///
/// Launch: 1D, block size a multiple of 32 (else `trap`), any grid
/// (`⌈n_blocks · tiles / (32 / lanes)⌉` warps cover the work once), dynamic
/// shared memory `block · (32 / lanes) · (8 + size_of::<T>())` bytes.
/// `n_blocks · tiles + 32` must not pass `u32::MAX`.
///
/// # Safety
/// `a` describes blocks over a valid coordinate form of A (`col_idx < n`,
/// `rows` sorted and each entry's row in its block's rows; `blocks`
/// 16-byte aligned; with `local`, end rows below 2³¹ and local pieces in
/// runs aligned as [`SpmmBlockArgs`] says, tile by tile if several tiles),
/// B with `n` rows, C with the blocks' rows and `partial` with `n_pieces`
/// rows of `k` values in device memory.
#[inline(always)]
pub unsafe fn spmm_csr_block<S: Semiring>(a: SpmmBlockArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's contract.
    unsafe { block_body::<S, One<S::Value>, 4, false>(a) }
}

/// [`spmm_csr_block`] with 16-byte loads of B (4 `f32`, 2 `f64`): a tile
/// of up to 128 `f32` columns a group.
///
/// # Safety
/// As [`spmm_csr_block`], and `k · size_of::<T>()` a multiple of 16 with B
/// and C 16-byte aligned.
#[inline(always)]
pub unsafe fn spmm_csr_block_vec<S: Semiring>(a: SpmmBlockArgs<S::Value>)
where
    S::Value: Packed + Shuffle,
{
    // SAFETY: the caller's contract.
    unsafe { block_body::<S, <S::Value as Packed>::Vec16, 4, false>(a) }
}

/// [`spmm_csr_block`] with the pieces of long rows combined by the last of
/// each row's pieces to finish ([`SpmmBlockArgs`]: `_fused` pieces), not
/// by a second launch.
///
/// # Safety
/// As [`spmm_csr_block`], with `long_first` holding the long rows' runs of
/// pieces and `done` a count, 0, per long row and tile, in device memory.
#[inline(always)]
pub unsafe fn spmm_csr_block_fused<S: Semiring>(a: SpmmBlockArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's contract.
    unsafe { block_body::<S, One<S::Value>, 4, true>(a) }
}

/// [`spmm_csr_block_vec`] with the pieces combined as in
/// [`spmm_csr_block_fused`].
///
/// # Safety
/// As both.
#[inline(always)]
pub unsafe fn spmm_csr_block_vec_fused<S: Semiring>(a: SpmmBlockArgs<S::Value>)
where
    S::Value: Packed + Shuffle,
{
    // SAFETY: the caller's contract.
    unsafe { block_body::<S, <S::Value as Packed>::Vec16, 4, true>(a) }
}

/// The body of the block kernels, for chunks `P` of `P::N` values and
/// `UNROLL` entries whose loads of B are issued together; `FUSED`: the
/// last piece of a long row combines its pieces.
#[inline(always)]
unsafe fn block_body<
    S: Semiring,
    P: Chunk<Elem = S::Value>,
    const UNROLL: usize,
    const FUSED: bool,
>(
    a: SpmmBlockArgs<S::Value>,
) where
    S::Value: Shuffle,
{
    const STAGE: u32 = SPMM_BLOCK_STAGE;
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (rows, col_idx, values, b) = (
        a.rows.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.b.as_ptr(),
    );
    let k = a.k as usize;
    let lanes = u32::from(a.lanes);
    let lanes = if lanes.is_power_of_two() && lanes <= WARP_SIZE {
        lanes
    } else {
        WARP_SIZE
    };
    // Powers of two: shifts and masks, not divisions (a division by a
    // value known only at run time is a subroutine of dozens of
    // instructions, on every item's critical path).
    let shift = lanes.trailing_zeros();
    let groups = WARP_SIZE >> shift;
    let (group, glane) = (lane_id() >> shift, lane_id() & (lanes - 1));
    let tile = lanes as usize * P::N;
    let n_tiles = ((u64::from(a.k) + tile as u64 - 1) >> (shift + P::N.trailing_zeros())) as u32;
    let total = a.n_blocks * n_tiles;

    // This group's STAGE slots in each of the three arrays (columns, rows,
    // values), after the block's earlier groups' slots.
    let slots = (block_dim_x() / WARP_SIZE * groups * STAGE) as usize;
    let stage_cols = shared::dynamic::<u32>();
    // SAFETY: the launch gives `slots · (8 + size_of::<T>())` bytes; the
    // values start at `8 · slots` bytes, a multiple of 256.
    let (stage_rows, stage_vals) = unsafe {
        (
            stage_cols.add(slots),
            stage_cols.add(2 * slots).cast::<S::Value>(),
        )
    };
    let base = ((warp_id() * groups + group) * STAGE) as usize;

    // Warp-uniform loop: every lane stays until the warp's last group is
    // done, so the `sync_warp`s always have all lanes.
    for first in GridStride::new(global_warp_id() * groups, total, grid_warps() * groups) {
        let my = first + group;
        let active = my < total;
        let (w, t) = if n_tiles == 1 {
            (my, 0)
        } else if a.tile_major != 0 {
            (my % a.n_blocks.max(1), my / a.n_blocks.max(1))
        } else {
            (my / n_tiles.max(1), my % n_tiles.max(1))
        };
        let (r0, r1, e0, e1) = if active {
            // SAFETY: block `w < n_blocks`, 16 bytes at a multiple of 16
            // (one vector load).
            let Vec16([r0, r1, e0, e1]) = unsafe {
                *a.blocks
                    .as_ptr()
                    .add(4 * w as usize)
                    .cast::<Vec16<[u32; 4]>>()
            };
            (r0, r1, e0, e1)
        } else {
            (0, 0, 0, 0)
        };
        let len = e1 - e0;
        let piece = active && w < a.n_pieces;
        // A fused piece's descriptor holds its long row where a block's
        // holds its end row.
        let r1 = if FUSED && piece { r0 + 1 } else { r1 };
        // This lane's columns of the tile, and where row `r`'s go.
        let col = t as usize * tile + glane as usize * P::N;
        let live = active && col < k;
        let out = |r: u32| -> *mut P {
            // SAFETY: a piece's partial row, or row `r` of C (the caller's
            // contract); `col + N ≤ k`.
            unsafe {
                match piece {
                    true => a.partial.as_mut_ptr().add(w as usize * k + col),
                    false => a.c.as_mut_ptr().add(r as usize * k + col),
                }
                .cast::<P>()
            }
        };
        // Writes `acc` to row `cur` and the semiring zero to the empty
        // rows after it, up to `next`.
        let finish = |cur: u32, next: u32, acc: P| {
            if live {
                // SAFETY: rows of this block (`out`).
                unsafe {
                    *out(cur) = acc;
                    for r in cur + 1..next {
                        *out(r) = P::splat(S::zero());
                    }
                }
            }
        };

        let mut acc = P::splat(S::zero());
        let mut cur = r0;
        // Lanes past `k` load column 0 (valid, never stored): no predicate
        // on the loads of B.
        let b_col = if live { col } else { 0 };
        let mut off = 0;
        // SAFETY: all 32 lanes (uniform loop).
        while unsafe { warp::any(off < len) } {
            // SAFETY: entries `e0 + off + j < e1` are the block's; the
            // slots `base + j < base + STAGE` are this group's.
            unsafe {
                stage::<S::Value>(
                    (col_idx, rows, values),
                    (stage_cols, stage_rows, stage_vals),
                    (e0 + off, len - len.min(off)),
                    base,
                    glane,
                    lanes,
                )
            };
            // SAFETY: all 32 lanes (uniform loop).
            unsafe { warp::sync_warp(FULL_MASK) };
            let here = STAGE.min(len.saturating_sub(off)) as usize;
            // Reads `n` staged entries from slot `s` and issues their loads
            // of B, all before the first is used.
            let round = |s: usize, n: usize| {
                let mut row = [0u32; UNROLL];
                let mut val = [S::zero(); UNROLL];
                let mut loaded = [P::splat(S::zero()); UNROLL];
                for u in 0..UNROLL {
                    if u < n {
                        // SAFETY: slots this group wrote above; a row of B,
                        // `b_col + N ≤ k`.
                        unsafe {
                            let slot = base + s + u;
                            let b_row = *stage_cols.add(slot) as usize * k;
                            row[u] = *stage_rows.add(slot);
                            val[u] = *stage_vals.add(slot);
                            loaded[u] = *b.add(b_row + b_col).cast::<P>();
                        }
                    }
                }
                (row, val, loaded)
            };
            let mut s = 0;
            // Full rounds: when the last entry is in the current row (rows
            // ascend in a block), so are all, and no row ends.
            while s + UNROLL <= here {
                let (row, val, loaded) = round(s, UNROLL);
                if row[UNROLL - 1] == cur {
                    for u in 0..UNROLL {
                        mul_add::<S, P>(&mut acc, val[u], &loaded[u]);
                    }
                } else {
                    for u in 0..UNROLL {
                        if row[u] != cur {
                            finish(cur, row[u], acc);
                            acc = P::splat(S::zero());
                            cur = row[u];
                        }
                        mul_add::<S, P>(&mut acc, val[u], &loaded[u]);
                    }
                }
                s += UNROLL;
            }
            if s < here {
                let n = here - s;
                let (row, val, loaded) = round(s, n);
                for u in 0..UNROLL {
                    if u < n {
                        if row[u] != cur {
                            finish(cur, row[u], acc);
                            acc = P::splat(S::zero());
                            cur = row[u];
                        }
                        mul_add::<S, P>(&mut acc, val[u], &loaded[u]);
                    }
                }
            }
            // SAFETY: all 32 lanes; the slots are rewritten only after it.
            unsafe { warp::sync_warp(FULL_MASK) };
            off += STAGE;
        }
        // A local piece's row (`cur`, its one row): the sum of its run of
        // groups' parts. (With `local`, rows are below 2³¹: no flag in an
        // inactive item's 0, a block's end row nor a fused piece's
        // `r0 + 1`.)
        let local = a.local != 0 && r1 & SPMM_LOCAL_PIECE != 0;
        let width = if local { r1 & !SPMM_LOCAL_PIECE } else { 1 };
        // SAFETY: all 32 lanes (uniform loop; `a.local` is the launch's).
        if a.local != 0 && unsafe { warp::any(local) } {
            // SAFETY: all 32 lanes (a warp-uniform branch).
            acc = unsafe { sum_across_groups::<S, P>(acc, lanes, width) };
        }
        if !local {
            finish(cur, r1, acc);
        } else if live && width > 0 && group & (width - 1) == 0 {
            // SAFETY: the local piece's row of C; `col + N ≤ k`.
            unsafe { *a.c.as_mut_ptr().add(cur as usize * k + col).cast::<P>() = acc };
        }
        if FUSED {
            // SAFETY: all 32 lanes (uniform loop); block `w`'s item.
            unsafe { combine_if_last::<S, P>(&a, piece, live, w, t, n_tiles, group, lanes, col) };
        }
    }
}

/// The semiring sum of `acc` over each run of `width` groups of `lanes`
/// lanes (runs aligned to `width`; a power of two, 1 for none), by
/// butterfly: every group of a run ends with the same bits. A lane's
/// `width` is its own run's; all 32 lanes shuffle.
///
/// # Safety
/// All 32 lanes, `width · lanes ≤ 32`.
#[inline(always)]
unsafe fn sum_across_groups<S: Semiring, P: Chunk<Elem = S::Value>>(
    mut acc: P,
    lanes: u32,
    width: u32,
) -> P
where
    S::Value: Shuffle,
{
    let mut offset = lanes;
    while offset < WARP_SIZE {
        for i in 0..P::N {
            // SAFETY: all 32 lanes (the caller's contract).
            let other = unsafe { warp::shuffle_xor(acc.get(i), offset) };
            if offset < width * lanes {
                acc.set(i, S::add(acc.get(i), other));
            }
        }
        offset <<= 1;
    }
    acc
}

/// Stages a group's next entries in shared memory: the `len` (at most
/// [`SPMM_BLOCK_STAGE`] are taken) from entry `e`, each entry's column, row
/// and value into slot `base + j` of the three arrays. A lane takes every
/// `lanes`-th entry from `glane`, issuing up to four entries' loads before
/// storing any, so that they cost one latency, not four.
///
/// # Safety
/// Entries `e .. e + min(len, STAGE)` valid in the three sources; slots
/// `base .. base + STAGE` in the three destinations.
#[inline(always)]
unsafe fn stage<T: Copy>(
    (cols, rows, vals): (*const u32, *const u32, *const T),
    (stage_cols, stage_rows, stage_vals): (*mut u32, *mut u32, *mut T),
    (e, len): (u32, u32),
    base: usize,
    glane: u32,
    lanes: u32,
) {
    const BATCH: usize = 4;
    let take = len.min(SPMM_BLOCK_STAGE);
    let mut j = glane;
    while j < take {
        let mut got = [(0u32, 0u32, None::<T>); BATCH];
        for (c, g) in got.iter_mut().enumerate() {
            let jc = j + c as u32 * lanes;
            if jc < take {
                let src = (e + jc) as usize;
                // SAFETY: the caller's contract.
                *g = unsafe { (*cols.add(src), *rows.add(src), Some(*vals.add(src))) };
            }
        }
        for (c, &(col, row, val)) in got.iter().enumerate() {
            if let Some(val) = val {
                let slot = base + (j + c as u32 * lanes) as usize;
                // SAFETY: the caller's contract.
                unsafe {
                    *stage_cols.add(slot) = col;
                    *stage_rows.add(slot) = row;
                    *stage_vals.add(slot) = val;
                }
            }
        }
        j += BATCH as u32 * lanes;
    }
}
