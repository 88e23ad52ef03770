//! The utility kernels' argument structs (`crate::util`: spin, offsets
//! narrowed, buffers compared, dense transposes, CSR to ELL), not stamped
//! per semiring.

use core::marker::PhantomData;

use super::{DevPtr, DevPtrMut};

/// `narrow_offsets`: `output[i] = input[i]` for `i < n`, `u64` offsets
/// narrowed to `u32` (the host has checked that the last fits).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NarrowArgs<'a> {
    pub input: DevPtr<'a, u64>,
    pub output: DevPtrMut<'a, u32>,
    pub n: u64,
}

/// `words_differ`: sets `*differ` to 1 if `a[i] != b[i]` for some `i < n`
/// (and leaves it alone otherwise): equality of two device buffers.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CompareArgs<'a> {
    pub a: DevPtr<'a, u32>,
    pub b: DevPtr<'a, u32>,
    pub differ: DevPtrMut<'a, u32>,
    pub n: u64,
}

/// A dense `rows × cols` row-major matrix of 1-, 4- or 8-byte values
/// (`transpose_1`, `_4`, `_8`) written transposed, `cols × rows`, to
/// `output`: a column-major operand to row-major and back.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TransposeArgs<'a> {
    pub input: DevPtr<'a, u8>,
    pub output: DevPtrMut<'a, u8>,
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
pub struct CsrToEllArgs<'a> {
    pub row_ptr: DevPtr<'a, u32>,
    pub col_idx: DevPtr<'a, u32>,
    pub values: DevPtr<'a, u8>,
    /// `u32` columns (`csr_to_ell_*`) or `u16` offsets (`csr_to_ell_near_*`).
    pub ell_columns: DevPtrMut<'a, u8>,
    pub ell_values: DevPtrMut<'a, u8>,
    pub n_rows: u32,
    pub width: u32,
}

/// Threads of a block of the `transpose_*` kernels: a 32 × 32 tile, 8
/// rows of it at a time.
pub const TRANSPOSE_THREADS: u32 = 256;

utility_kernel_args! {
    TransposeArgs = 24;
    CsrToEllArgs = 48;
    NarrowArgs = 24;
    CompareArgs = 32;
    SpinArgs = 8;
}

/// The argument of the `spin_ns` utility kernel: how long to hold the
/// stream, in nanoseconds of the GPU's global timer. It borrows nothing;
/// the lifetime is every argument struct's, for the handles.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpinArgs<'a> {
    pub ns: u64,
    pub borrows: PhantomData<&'a ()>,
}

impl SpinArgs<'_> {
    /// Holds the stream `ns` nanoseconds.
    pub const fn new(ns: u64) -> Self {
        SpinArgs {
            ns,
            borrows: PhantomData,
        }
    }
}
