//! Kernels that are not sparse algebra: helpers for the host's benchmarks
//! and for keeping matrices on the device (offsets narrowed, buffers
//! compared, dense operands transposed, CSR made ELL).
//! They are entry points of their own, not stamped per semiring; the host
//! finds them in [`crate::kernels::UTILITY_KERNELS`].

use crate::args::{
    CompareArgs, CsrToEllArgs, ELL_NEAR_BIAS, ELL_NEAR_PAD, ELL_PAD, NarrowArgs, SpinArgs,
    TRANSPOSE_THREADS, TransposeArgs, ell_near_slot,
};
use crate::device::shared;
use crate::device::thread::{
    block_dim_x, block_idx_x, grid_dim_x, grid_size_1d, index_1d, require, sync_threads,
    thread_idx_x,
};
use core::arch::asm;

/// Holds its stream for `ns` nanoseconds: one thread reads the GPU's global
/// timer until that much time has passed. A benchmark queues it first, then
/// queues its timed runs while it spins, so that the runs start back to
/// back instead of waiting on the host to queue each one.
///
/// Launch: one block of one thread.
///
/// # Safety
/// Always sound; `unsafe` only as every entry point is.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spin_ns(a: SpinArgs) {
    let start = global_timer();
    while global_timer().wrapping_sub(start) < a.ns {}
}

/// `%globaltimer`: nanoseconds, the same clock for every SM.
#[inline(always)]
fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack)) };
    t
}

/// `u64` offsets narrowed to `u32` ([`NarrowArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// `input` and `output` hold `n` values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn narrow_offsets(a: NarrowArgs) {
    let mut i = u64::from(index_1d());
    while i < a.n {
        // SAFETY: `i < n`.
        unsafe {
            *a.output.as_mut_ptr().add(i as usize) = *a.input.as_ptr().add(i as usize) as u32
        };
        i += u64::from(grid_size_1d());
    }
}

/// Flags whether two buffers of `n` words differ ([`CompareArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// `a` and `b` hold `n` words; `differ` one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn words_differ(a: CompareArgs) {
    let mut i = u64::from(index_1d());
    while i < a.n {
        // SAFETY: `i < n`.
        unsafe {
            if *a.a.as_ptr().add(i as usize) != *a.b.as_ptr().add(i as usize) {
                *a.differ.as_mut_ptr() = 1;
            }
        }
        i += u64::from(grid_size_1d());
    }
}

/// Side of a tile of [`transpose`].
const TILE: u32 = 32;

/// A `rows × cols` row-major matrix of `W` written transposed
/// ([`TransposeArgs`]), a 32 × 32 tile at a time through shared memory, so
/// that a warp reads a row of the tile and writes a row of its transpose:
/// both coalesced. The tile's rows are padded to 33 values, so that a
/// column of it falls in 32 banks.
///
/// Launch: 1D, [`TRANSPOSE_THREADS`] threads a block, any grid,
/// `32 · 33 · size_of::<W>()` bytes of dynamic shared memory.
///
/// # Safety
/// `input` holds `rows · cols` values of `W`, `output` as many.
#[inline(always)]
unsafe fn transpose<W: Copy>(a: TransposeArgs) {
    require(block_dim_x() == TRANSPOSE_THREADS);
    let tile = shared::dynamic::<W>();
    let (x, y0) = (thread_idx_x() % TILE, thread_idx_x() / TILE);
    let step = TRANSPOSE_THREADS / TILE;
    let (rows, cols) = (u64::from(a.rows), u64::from(a.cols));
    let (input, output) = (
        a.input.as_ptr().cast::<W>(),
        a.output.as_mut_ptr().cast::<W>(),
    );
    let across = a.cols.div_ceil(TILE);
    let tiles = u64::from(across) * u64::from(a.rows.div_ceil(TILE));
    let mut t = u64::from(block_idx_x());
    while t < tiles {
        let r0 = t / u64::from(across) * u64::from(TILE);
        let c0 = t % u64::from(across) * u64::from(TILE);
        // SAFETY: indices checked against the shape; every thread of the
        // block reaches both barriers (`t` is the block's).
        unsafe {
            let mut y = y0;
            while y < TILE {
                let (r, c) = (r0 + u64::from(y), c0 + u64::from(x));
                if r < rows && c < cols {
                    *tile.add((y * (TILE + 1) + x) as usize) = *input.add((r * cols + c) as usize);
                }
                y += step;
            }
            sync_threads();
            let mut y = y0;
            while y < TILE {
                let (c, r) = (c0 + u64::from(y), r0 + u64::from(x));
                if c < cols && r < rows {
                    *output.add((c * rows + r) as usize) = *tile.add((x * (TILE + 1) + y) as usize);
                }
                y += step;
            }
            sync_threads();
        }
        t += u64::from(grid_dim_x());
    }
}

/// [`transpose`] of 1-byte values (`bool`).
///
/// # Safety
/// As [`transpose`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_1(a: TransposeArgs) {
    // SAFETY: the caller's.
    unsafe { transpose::<u8>(a) }
}

/// [`transpose`] of 4-byte values (`f32`).
///
/// # Safety
/// As [`transpose`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_4(a: TransposeArgs) {
    // SAFETY: the caller's.
    unsafe { transpose::<u32>(a) }
}

/// [`transpose`] of 8-byte values (`f64`).
///
/// # Safety
/// As [`transpose`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_8(a: TransposeArgs) {
    // SAFETY: the caller's.
    unsafe { transpose::<u64>(a) }
}

/// ELL from CSR on the device ([`CsrToEllArgs`]), values of `W`, slot `k`
/// of row `r` at `slot_of(r, k)`, its column written as `column(col, r)`
/// (padding: `pad`): a thread a row, so that a warp's writes of a slot are
/// 32 neighbouring slots.
///
/// Launch: 1D, any block size and grid.
///
/// # Safety
/// [`CsrToEllArgs`] valid: `row_ptr` of `n_rows + 1` offsets, every row at
/// most `width` entries, `ell_columns` (of `C`) and `ell_values` holding
/// every slot `slot_of` gives for `r < n_rows`, `k < width`.
#[inline(always)]
unsafe fn csr_to_ell<W: Copy + From<u8>, C: Copy>(
    a: CsrToEllArgs,
    slot_of: impl Fn(usize, usize) -> usize,
    column: impl Fn(u32, usize) -> C,
    pad: C,
) {
    let (cols, vals) = (a.col_idx.as_ptr(), a.values.as_ptr().cast::<W>());
    let (ell_cols, ell_vals) = (
        a.ell_columns.as_mut_ptr().cast::<C>(),
        a.ell_values.as_mut_ptr().cast::<W>(),
    );
    let n = a.n_rows as usize;
    let mut r = index_1d() as usize;
    while r < n {
        // SAFETY: `r < n_rows`; the row's entries and its slots as the
        // contract says.
        unsafe {
            let (start, end) = (*a.row_ptr.as_ptr().add(r), *a.row_ptr.as_ptr().add(r + 1));
            let len = (end - start) as usize;
            for k in 0..a.width as usize {
                let slot = slot_of(r, k);
                if k < len {
                    *ell_cols.add(slot) = column(*cols.add(start as usize + k), r);
                    *ell_vals.add(slot) = *vals.add(start as usize + k);
                } else {
                    *ell_cols.add(slot) = pad;
                    *ell_vals.add(slot) = W::from(0);
                }
            }
        }
        r += grid_size_1d() as usize;
    }
}

/// [`csr_to_ell`] with `u32` columns as they are.
///
/// # Safety
/// As [`csr_to_ell`].
#[inline(always)]
unsafe fn csr_to_ell_wide<W: Copy + From<u8>>(a: CsrToEllArgs) {
    let n = a.n_rows as usize;
    // SAFETY: the caller's.
    unsafe { csr_to_ell::<W, u32>(a, |r, k| k * n + r, |col, _| col, ELL_PAD) }
}

/// [`csr_to_ell`] with each column as its biased `u16` offset from the row
/// (near-diagonal ELL).
///
/// # Safety
/// As [`csr_to_ell`], and every entry lies within
/// [`ELL_NEAR_REACH`](crate::args::ELL_NEAR_REACH) of the
/// diagonal (else its offset wraps to another column).
#[inline(always)]
unsafe fn csr_to_ell_near<W: Copy + From<u8>>(a: CsrToEllArgs) {
    let offset =
        |col: u32, row: usize| col.wrapping_add(ELL_NEAR_BIAS).wrapping_sub(row as u32) as u16;
    let width = a.width as usize;
    let slot_of = |r, k| ell_near_slot(r, k, width);
    // SAFETY: the caller's.
    unsafe { csr_to_ell::<W, u16>(a, slot_of, offset, ELL_NEAR_PAD) }
}

/// Stamps the conversions' entry points for 1-, 4- and 8-byte values
/// (`bool`, `f32`, `f64`).
macro_rules! csr_to_ell_entries {
    ($($name:ident => $body:ident::<$w:ty>, $doc:literal;)*) => {$(
        #[doc = $doc]
        ///
        /// # Safety
        /// As its body's.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(a: CsrToEllArgs) {
            // SAFETY: the caller's.
            unsafe { $body::<$w>(a) }
        }
    )*};
}

csr_to_ell_entries! {
    csr_to_ell_1 => csr_to_ell_wide::<u8>, "ELL of 1-byte values (`bool`).";
    csr_to_ell_4 => csr_to_ell_wide::<u32>, "ELL of 4-byte values (`f32`).";
    csr_to_ell_8 => csr_to_ell_wide::<u64>, "ELL of 8-byte values (`f64`).";
    csr_to_ell_near_1 => csr_to_ell_near::<u8>, "Near-diagonal ELL of 1-byte values.";
    csr_to_ell_near_4 => csr_to_ell_near::<u32>, "Near-diagonal ELL of 4-byte values.";
    csr_to_ell_near_8 => csr_to_ell_near::<u64>, "Near-diagonal ELL of 8-byte values.";
}
