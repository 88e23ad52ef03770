//! SpMM kernel bodies, `C = A ⊗ B` over a semiring with A sparse (CSR) and
//! B, C dense; [`crate::kernels`] stamps their entry points.
//!
//! | family              | one … per                          | layouts      | float `+` order            |
//! |---------------------|------------------------------------|--------------|----------------------------|
//! | `spmm_csr_warp`     | group of lanes per (item, tile)    | row-major    | see [`spmm_csr_warp`]      |
//! | `spmm_csr_warp_vec` | the same, 16-byte loads of B       | row-major    | as `spmm_csr_warp`         |
//! | `spmm_csr_fixup`    | thread per (long row, column)      | row-major    | pieces in order            |
//! | `spmm_csr_thread`   | thread per (row, 8 columns)        | any (strides)| row order (= serial)       |
//!
//! The warp kernels are the fast path for row-major operands. A warp stages
//! a tile of A's row (32 column indices and values) through shared memory
//! with one coalesced load, then every lane of a group reads the staged
//! entries (a broadcast) and, for each, loads the `chunks · V` values of
//! B's row it owns — consecutive lanes, consecutive columns: coalesced —
//! and accumulates them in registers. So A is read once per tile of
//! columns, B's rows are read whole, and C is written once, coalesced.
//! Very long rows are cut into pieces that warps compute side by side
//! (`pieces` mode of [`SpmmCsrArgs`]); `spmm_csr_fixup` then combines each
//! long row's partial rows in a fixed order, so the result is the same bits
//! on every run (no atomics).
//!
//! All launches are one-dimensional grid-stride loops: any grid is correct.

use crate::args::{
    SPMM_THREAD_COLS, SPMM_WARP_CHUNKS, SpmmCsrArgs, SpmmCsrThreadArgs, SpmmFixupArgs,
};
use crate::device::shared;
use crate::device::thread::{
    GridStride, WARP_SIZE, block_dim_x, global_warp_id, grid_stride, grid_warps, lane_id, warp_id,
};
use crate::device::warp::{self, FULL_MASK, Shuffle};
use crate::semiring::Semiring;

/// Stops the kernel (the host sees a launch error) unless `ok`.
#[inline(always)]
fn require(ok: bool) {
    if !ok {
        // SAFETY: `trap` aborts the kernel; always sound.
        unsafe { core::arch::nvptx::trap() }
    }
}

/// The values one lane loads, accumulates and stores as a unit.
pub trait Chunk: Copy {
    type Elem: Copy;
    /// Values in the chunk.
    const N: usize;
    fn splat(v: Self::Elem) -> Self;
    fn get(&self, i: usize) -> Self::Elem;
    fn set(&mut self, i: usize, v: Self::Elem);
}

/// One value: plain loads and stores.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct One<T>(T);

/// 16 bytes of values, 16-byte aligned, so that LLVM loads and stores it
/// with one vector instruction (`ld.global.v4.f32`, `.v2.f64`).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vec16<A>(A);

impl<T: Copy> Chunk for One<T> {
    type Elem = T;
    const N: usize = 1;
    #[inline(always)]
    fn splat(v: T) -> Self {
        One(v)
    }
    #[inline(always)]
    fn get(&self, _: usize) -> T {
        self.0
    }
    #[inline(always)]
    fn set(&mut self, _: usize, v: T) {
        self.0 = v;
    }
}

impl<T: Copy, const M: usize> Chunk for Vec16<[T; M]> {
    type Elem = T;
    const N: usize = M;
    #[inline(always)]
    fn splat(v: T) -> Self {
        Vec16([v; M])
    }
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        self.0[i]
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: T) {
        self.0[i] = v;
    }
}

/// A value type with a 16-byte chunk: 4 `f32`, 2 `f64`, 16 `bool`.
pub trait Packed: Copy {
    type Vec16: Chunk<Elem = Self>;
}
impl Packed for f32 {
    type Vec16 = Vec16<[f32; 4]>;
}
impl Packed for f64 {
    type Vec16 = Vec16<[f64; 2]>;
}
impl Packed for bool {
    type Vec16 = Vec16<[bool; 16]>;
}

/// `acc ⊕= a ⊗ b`, value by value.
#[inline(always)]
fn mul_add<S: Semiring, P: Chunk<Elem = S::Value>>(acc: &mut P, a: S::Value, b: &P) {
    for i in 0..P::N {
        acc.set(i, S::add(acc.get(i), S::mul(a, b.get(i))));
    }
}

/// The largest `v` over the warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
unsafe fn warp_max(mut v: u32) -> u32 {
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        // SAFETY: the caller's contract.
        v = v.max(unsafe { warp::shuffle_xor(v, offset) });
        offset /= 2;
    }
    v
}

/// Row-major CSR SpMM, one value per load: any `k`. See
/// [`SpmmCsrArgs`] for items, tiles and groups, and [`spmm_csr_warp_vec`]
/// for the same with 16-byte loads.
///
/// Sum order, for floating-point `+`: with `pack = 1`, a group sums its
/// item's entries in row order (the serial engine's bits); with `pack = 0`,
/// group `g` of `G` sums entries `g, g + G, …` of each staged tile of 32,
/// and the groups' sums are combined by a tree. Deterministic either way.
///
/// Launch: 1D, block size a multiple of 32 (else `trap`), any grid
/// (`⌈items · tiles / (32 / lanes if pack else 1)⌉` warps cover the work
/// once), dynamic shared memory `block · (4 + size_of::<T>())` bytes.
/// `chunks` at most [`SPMM_WARP_CHUNKS`]; `n_items · tiles + 32` must not
/// pass `u32::MAX`.
///
/// # Safety
/// `a` describes a valid CSR matrix (`col_idx < n`), B with `n` rows and C
/// (or `partial`) with `n_items` rows of `k` values in device memory, and,
/// in pieces mode, pieces whose rows are rows of A and whose first entries
/// lie in their rows.
#[inline(always)]
pub unsafe fn spmm_csr_warp<S: Semiring>(a: SpmmCsrArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's contract.
    unsafe { warp_body::<S, One<S::Value>, { SPMM_WARP_CHUNKS as usize }, 4>(a) }
}

/// [`spmm_csr_warp`] with each lane loading 16 bytes of B's row at a time
/// (4 `f32`, 2 `f64`), for `k` a multiple of those: a quarter (half) of
/// the load instructions. One load a lane per entry (`chunks` is 1: up to
/// 128 `f32` columns a tile), so few registers and many warps per SM, and
/// four entries' loads in flight a lane: 48 registers for `f32`, so
/// that an SM holds 40 warps. (Eight entries in flight, 52 registers,
/// measured 19% slower on 2D Poisson at k = 32 on an H100.)
///
/// # Safety
/// As [`spmm_csr_warp`], and `k · size_of::<T>()` a multiple of 16 with B
/// and the output 16-byte aligned.
#[inline(always)]
pub unsafe fn spmm_csr_warp_vec<S: Semiring>(a: SpmmCsrArgs<S::Value>)
where
    S::Value: Shuffle + Packed,
{
    // SAFETY: the caller's contract.
    unsafe { warp_body::<S, <S::Value as Packed>::Vec16, 1, 4>(a) }
}

/// The body of the warp kernels, for chunks `P` of `P::N` values, at most
/// `RMAX` chunks a lane, and `UNROLL` entries of A processed together
/// (their loads of B all issued before any is used: `UNROLL · chunks`
/// loads in flight a lane). Registers grow with `RMAX · UNROLL`, and the
/// warps an SM holds shrink with them: the kernels keep it near 32.
#[inline(always)]
unsafe fn warp_body<
    S: Semiring,
    P: Chunk<Elem = S::Value>,
    const RMAX: usize,
    const UNROLL: usize,
>(
    a: SpmmCsrArgs<S::Value>,
) where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let pieces = a.pieces.addr() != 0;
    require(!pieces || a.split_len > 0);
    let (row_ptr, col_idx, values, b, c) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.b.as_ptr(),
        a.c.as_mut_ptr(),
    );
    let k = a.k as usize;
    let lanes = if a.lanes.is_power_of_two() && a.lanes <= WARP_SIZE {
        a.lanes
    } else {
        WARP_SIZE
    };
    let groups = WARP_SIZE / lanes;
    let (group, glane) = (lane_id() / lanes, lane_id() % lanes);
    let chunks = a.chunks.clamp(1, RMAX as u32) as usize;
    let tile = lanes as usize * chunks * P::N;
    let n_tiles = k.div_ceil(tile) as u32;
    let pack = a.pack != 0 && groups > 1;
    let per_step = if pack { groups } else { 1 };
    let total = a.n_items * n_tiles;

    // This warp's 32 staging slots: columns after the block's other warps'
    // columns, values after all the columns. A packed group owns `lanes`
    // of them, an unpacked warp all 32.
    let stage_cols = shared::dynamic::<u32>();
    // SAFETY: the launch gives `block · (4 + size_of::<T>())` bytes; the
    // values start after `block` columns, a multiple of 128 bytes.
    let stage_vals = unsafe { stage_cols.add(block_dim_x() as usize) }.cast::<S::Value>();
    let warp_slots = (warp_id() * WARP_SIZE) as usize;
    let (stage_base, stage_len, my_slot) = if pack {
        (warp_slots + (group * lanes) as usize, lanes, glane)
    } else {
        (warp_slots, WARP_SIZE, lane_id())
    };

    // Warp-uniform loop: every lane stays until the warp's last group is
    // done, so the warp's shuffles and `sync_warp`s always have all lanes.
    for first in GridStride::new(global_warp_id() * per_step, total, grid_warps() * per_step) {
        let my = if pack { first + group } else { first };
        let (item, t) = (my / n_tiles.max(1), (my % n_tiles.max(1)) as usize);
        // The item's entries and its output row (`len = 0` when idle).
        let (start, len, out_row) = if my >= total {
            (0, 0, 0)
        } else if pieces {
            // SAFETY: piece `item < n_items`, its row a row of A.
            unsafe {
                let row = *a.pieces.as_ptr().add(2 * item as usize) as usize;
                let start = *a.pieces.as_ptr().add(2 * item as usize + 1);
                let end = (*row_ptr.add(row + 1)).min(start.saturating_add(a.split_len));
                (start, end - start, item)
            }
        } else {
            // SAFETY: row `item < n_rows`.
            let (start, end) =
                unsafe { (*row_ptr.add(item as usize), *row_ptr.add(item as usize + 1)) };
            match end - start <= a.split_len {
                true => (start, end - start, item),
                false => (0, 0, u32::MAX),
            }
        };
        let written = my < total && out_row != u32::MAX;
        // Chunk `r` of this lane: columns `col(r) .. col(r) + N` of C's row.
        let col = |r: usize| t * tile + (r * lanes as usize + glane as usize) * P::N;

        let mut acc = [P::splat(S::zero()); RMAX];
        // SAFETY: all 32 lanes (uniform loop).
        let warp_len = if pack { unsafe { warp_max(len) } } else { len };
        let mut off = 0;
        while off < warp_len {
            let e = off + my_slot;
            if e < len {
                // SAFETY: entry `start + e` lies in the item's range; the
                // slot is this warp's.
                unsafe {
                    let src = (start + e) as usize;
                    let slot = stage_base + my_slot as usize;
                    *stage_cols.add(slot) = *col_idx.add(src);
                    *stage_vals.add(slot) = *values.add(src);
                }
            }
            // SAFETY: all 32 lanes (uniform loop).
            unsafe { warp::sync_warp(FULL_MASK) };
            let here = stage_len.min(len.saturating_sub(off)) as usize;
            // Slots `first_slot + s·step` for `s < count` are this group's.
            let (first_slot, step, count) = if pack {
                (stage_base, 1, here)
            } else {
                let g = group as usize;
                let n = here.saturating_sub(g).div_ceil(groups as usize);
                (stage_base + g, groups as usize, n)
            };
            let mut s = 0;
            while s < count {
                let n = UNROLL.min(count - s);
                let mut rows = [0usize; UNROLL];
                let mut vals = [S::zero(); UNROLL];
                let mut loaded = [[P::splat(S::zero()); RMAX]; UNROLL];
                for u in 0..UNROLL {
                    if u < n {
                        let slot = first_slot + (s + u) * step;
                        // SAFETY: a slot written above by this warp.
                        unsafe {
                            rows[u] = *stage_cols.add(slot) as usize * k;
                            vals[u] = *stage_vals.add(slot);
                        }
                    }
                }
                for u in 0..UNROLL {
                    for r in 0..RMAX {
                        if u < n && r < chunks && col(r) < k {
                            // SAFETY: a row of B, and `col(r) + N ≤ k`
                            // (N divides k for vector chunks).
                            loaded[u][r] = unsafe { *b.add(rows[u] + col(r)).cast::<P>() };
                        }
                    }
                }
                for u in 0..UNROLL {
                    for r in 0..RMAX {
                        if u < n && r < chunks {
                            mul_add::<S, P>(&mut acc[r], vals[u], &loaded[u][r]);
                        }
                    }
                }
                s += n;
            }
            // SAFETY: all 32 lanes; the slots are rewritten only after it.
            unsafe { warp::sync_warp(FULL_MASK) };
            off += stage_len;
        }

        // (Loops over `0..RMAX` with a test, not over `0..chunks`: a
        // constant trip count is unrolled, which keeps `acc` in registers.)
        if !pack && groups > 1 {
            // The groups split the entries: combine their sums.
            for r in 0..RMAX {
                if r < chunks {
                    for i in 0..P::N {
                        let mut v = acc[r].get(i);
                        let mut offset = lanes;
                        while offset < WARP_SIZE {
                            // SAFETY: all 32 lanes (uniform loop and counts).
                            v = S::add(v, unsafe { warp::shuffle_xor(v, offset) });
                            offset *= 2;
                        }
                        acc[r].set(i, v);
                    }
                }
            }
        }
        if written && (pack || group == 0) {
            let out = out_row as usize * k;
            for r in 0..RMAX {
                if r < chunks && col(r) < k {
                    // SAFETY: row `out_row` of the output, `col(r) + N ≤ k`.
                    unsafe { *c.add(out + col(r)).cast::<P>() = acc[r] };
                }
            }
        }
    }
}

/// The last step of a split SpMM ([`SpmmFixupArgs`]): a thread per (long
/// row, column), summing the row's pieces in order.
///
/// Launch: 1D, any block size and grid (`⌈n_long · k / block⌉` blocks
/// cover the work once), after the pieces' `spmm_csr_warp` on the same
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

/// SpMM with dense operands in any layout ([`SpmmCsrThreadArgs`]): a thread
/// per (row, tile of [`SPMM_THREAD_COLS`] columns), rows fastest. Each
/// value of C is summed in row order, as the serial engine sums (the same
/// bits for every semiring).
///
/// Launch: 1D, any block size and grid (`⌈n_rows · ⌈k / 8⌉ / block⌉`
/// blocks cover the work once). `n_rows · ⌈k / 8⌉` at most `u32::MAX`.
///
/// # Safety
/// `a` describes a valid CSR matrix and B, C of the strides given, in
/// device memory.
#[inline(always)]
pub unsafe fn spmm_csr_thread<S: Semiring>(a: SpmmCsrThreadArgs<S::Value>) {
    const W: usize = SPMM_THREAD_COLS as usize;
    let (row_ptr, col_idx, values, b, c) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.b.as_ptr(),
        a.c.as_mut_ptr(),
    );
    let k = a.k as usize;
    let (b_rs, b_cs) = (a.b_row_stride as usize, a.b_col_stride as usize);
    let (c_rs, c_cs) = (a.c_row_stride as usize, a.c_col_stride as usize);
    let n_tiles = a.k.div_ceil(SPMM_THREAD_COLS);
    for i in grid_stride(a.n_rows * n_tiles) {
        let (row, c0) = ((i % a.n_rows) as usize, (i / a.n_rows) as usize * W);
        let mut acc = [S::zero(); W];
        // SAFETY: the caller's contract.
        unsafe {
            let (start, end) = (*row_ptr.add(row) as usize, *row_ptr.add(row + 1) as usize);
            for e in start..end {
                let b_row = b.add(*col_idx.add(e) as usize * b_rs);
                let v = *values.add(e);
                for r in 0..W {
                    if c0 + r < k {
                        acc[r] = S::add(acc[r], S::mul(v, *b_row.add((c0 + r) * b_cs)));
                    }
                }
            }
            for r in 0..W {
                if c0 + r < k {
                    *c.add(row * c_rs + (c0 + r) * c_cs) = acc[r];
                }
            }
        }
    }
}
