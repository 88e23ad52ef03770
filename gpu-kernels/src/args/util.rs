//! The utility kernels' argument structs (`crate::util`: spin, offsets
//! narrowed, buffers compared, dense transposes, CSR to ELL), not stamped
//! per semiring.

use super::{DevPtr, DevPtrMut, KernelArgs};

/// `narrow_offsets`: `output[i] = input[i]` for `i < n`, `u64` offsets
/// narrowed to `u32` (the host has checked that the last fits).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NarrowArgs {
    pub input: DevPtr<u64>,
    pub output: DevPtrMut<u32>,
    pub n: u64,
}

/// `words_differ`: sets `*differ` to 1 if `a[i] != b[i]` for some `i < n`
/// (and leaves it alone otherwise): equality of two device buffers.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CompareArgs {
    pub a: DevPtr<u32>,
    pub b: DevPtr<u32>,
    pub differ: DevPtrMut<u32>,
    pub n: u64,
}

/// A dense `rows × cols` row-major matrix of 1-, 4- or 8-byte values
/// (`transpose_1`, `_4`, `_8`) written transposed, `cols × rows`, to
/// `output`: a column-major operand to row-major and back.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TransposeArgs {
    pub input: DevPtr<u8>,
    pub output: DevPtrMut<u8>,
    pub rows: u32,
    pub cols: u32,
}

/// CSR of 1-, 4- or 8-byte values (`csr_to_ell_1`, `_4`, `_8`) written as
/// ELL of `width` (at least the longest row): slot `k` of row `r` at `k ·
/// n_rows + r`, its column and value the row's `k`-th entry's, or
/// `ELL_PAD` and zero bits past the row's end. `csr_to_ell_near_*` write
/// near-diagonal ELL instead ([`SpmvEllNearArgs`]: biased `u16` offsets,
/// [`ELL_NEAR_PAD`], slots at [`ell_near_slot`]), for a CSR whose every
/// entry lies within [`ELL_NEAR_REACH`] of the diagonal. The slots fit a
/// `u32`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CsrToEllArgs {
    pub row_ptr: DevPtr<u32>,
    pub col_idx: DevPtr<u32>,
    pub values: DevPtr<u8>,
    /// `u32` columns (`csr_to_ell_*`) or `u16` offsets (`csr_to_ell_near_*`).
    pub ell_columns: DevPtrMut<u8>,
    pub ell_values: DevPtrMut<u8>,
    pub n_rows: u32,
    pub width: u32,
}

/// Threads of a block of the `transpose_*` kernels: a 32 × 32 tile, 8
/// rows of it at a time.
pub const TRANSPOSE_THREADS: u32 = 256;

// SAFETY: repr(C): two 8-byte addresses and two u32: no padding.
unsafe impl KernelArgs for TransposeArgs {}
const _: () = assert!(core::mem::size_of::<TransposeArgs>() == 24);
// SAFETY: repr(C): five 8-byte addresses and two u32: no padding.
unsafe impl KernelArgs for CsrToEllArgs {}
const _: () = assert!(core::mem::size_of::<CsrToEllArgs>() == 48);
// SAFETY: repr(C) of 8-byte fields: no padding.
unsafe impl KernelArgs for NarrowArgs {}
const _: () = assert!(core::mem::size_of::<NarrowArgs>() == 24);
// SAFETY: repr(C) of 8-byte fields: no padding.
unsafe impl KernelArgs for CompareArgs {}
const _: () = assert!(core::mem::size_of::<CompareArgs>() == 32);

/// The argument of the `spin_ns` utility kernel: how long to hold the
/// stream, in nanoseconds of the GPU's global timer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpinArgs {
    pub ns: u64,
}

// SAFETY: repr(C), one u64: no padding.
unsafe impl KernelArgs for SpinArgs {}
