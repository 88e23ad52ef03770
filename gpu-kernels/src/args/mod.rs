//! Kernel arguments: the `#[repr(C)]` structs the host fills and every GPU
//! kernel receives, one definition for both sides.
//!
//! Conventions, so that the host can launch any kernel the same way:
//! - a kernel takes exactly one parameter, an argument struct passed by
//!   value (PTX: `.param .align 8 .b8 name[size]`); the host passes a pointer
//!   to the struct's bytes;
//! - device memory appears as [`DevPtr`] / [`DevPtrMut`], a 64-bit device
//!   address (what the driver API calls a `CUdeviceptr`), never as a host
//!   pointer type; on the host each borrows its buffer for the struct's
//!   lifetime `'a` (shared or exclusive), so the buffer outlives the launch's
//!   queuing;
//! - structs have no padding (checked by `kernel_args!` or beside the
//!   struct), so their bytes are fully initialised when the host copies them;
//! - `T` is the semiring's value type: `f32`, `f64` or `bool`. A `bool` is
//!   one byte on the device as on the host, `0` or `1`, so a host `&[bool]`
//!   uploads as it is;
//! - every index array is `u32` (row pointers included): the host narrows
//!   its `usize` offsets and refuses a matrix whose offsets do not fit.
//!
//! | struct               | kernel families                          | bytes |
//! |----------------------|------------------------------------------|-------|
//! | [`SpmvCsrArgs`]      | `spmv_csr_scalar`, `spmv_csr_vector`     | 56    |
//! | [`SpmvCsrMergeArgs`] | `spmv_csr_merge`, `spmv_csr_merge_fixup` | 80    |
//! | [`SpmvCsrAdaptiveArgs`] | `spmv_csr_adaptive`                   | 72    |
//! | [`SpmvCooArgs`]      | `spmv_coo_atomic`                        | 48    |
//! | [`SpmvEllArgs`]      | `spmv_ell`                               | 40    |
//! | [`SpmvEllNearArgs`]  | `spmv_ell_near`                          | 40    |
//! | [`SpmvSellArgs`]     | `spmv_sell`                              | 72    |
//! | [`SpmvBsrArgs`]      | `spmv_bsr`                               | 64    |
//! | [`SpmmFixupArgs`]    | `spmm_csr_fixup`                         | 40    |
//! | [`SpmmCsrThreadArgs`] | `spmm_csr_thread`                       | 64    |
//! | [`SpmmBlockArgs`]    | `spmm_csr_block`, `spmm_csr_block_vec` (and `_fused`) | 88 |
//! | [`SpgemmSymbolicArgs`] | `spgemm_{warp,short,hash,block,dense}_symbolic` | 72 |
//! | [`SpgemmNumericArgs`] | `spgemm_copy`, `spgemm_{warp,short,hash,block,dense}_numeric` | 128 |
//! | [`SpgemmStageArgs`]  | `spgemm_{short,hash,dense}_stage`        | 136   |
//! | [`SpgemmUnstageArgs`] | `spgemm_unstage`, `spgemm_unstage_dense` | 72   |
//! | [`SpgemmReplayArgs`] | `spgemm_replay_4`, `_8` (and `_staged`), `spgemm_replay_long_4`, `_8` | 104 |
//! | [`SpgemmGiantSymbolicArgs`] | `spgemm_giant_columns_symbolic`, `spgemm_giant_rows_symbolic` | 56 |
//! | [`SpgemmGiantNumericArgs`] | `spgemm_giant_columns_numeric`, `spgemm_giant_rows_numeric` | 112 |
//! | [`SpgemmClassifyArgs`] | `spgemm_long_rows`, `spgemm_long_products`, `spgemm_classify`, `spgemm_bin` (utility) | 168 |
//! | [`SpgemmTransposeArgs`] | `spgemm_transpose_count`, `_scatter`, `_sort` (utility) | 56 |
//! | [`SpgemmGatherArgs`] | `spgemm_giant_gather` (utility)          | 48    |
//! | [`TransposeArgs`]    | `transpose_1`, `transpose_4`, `transpose_8` (utility) | 24 |
//! | [`CsrToEllArgs`]     | `csr_to_ell_1`, `_4`, `_8`, `csr_to_ell_near_1`, `_4`, `_8` (utility) | 48 |
//! | [`ScanArgs`]         | `scan_tiles`, `scan_tile_sums`, `scan_add` (utility) | 32 |
//! | [`SpgemmMaskedDotArgs`] | `spgemm_masked_dot`                    | 88    |
//! | [`SpmvCsrMaskedArgs`] | `spmv_csr_masked`                       | 64    |
//! | [`TriangleCountArgs`] | `triangle_count` (utility)             | 40    |
//! | [`TriangleSymmetricArgs`] | `triangle_symmetric` (utility)     | 32    |
//! | [`TriangleLowerArgs`] | `triangle_lower_lengths`, `triangle_lower_fill` (utility) | 56 |
//! | [`BfsPushArgs`]      | `bfs_push` (utility)                     | 56    |
//!
//! The structs live by operation, as the kernels do: [`spmv`], [`spmm`], [`masked`],
//! [`spgemm`] (its row classes, a struct per phase ([`SpgemmPhase`]), replay, long and giant rows, scan), and
//! [`util`] (the utility kernels': spin, narrowing, comparison, transposes,
//! CSR to ELL). Each is re-exported here, so `crate::args::Name` names
//! every one.
//!
//! Launch contracts (block and grid shape, what `y` must hold) are in each
//! kernel's documentation in the kernel modules and in `GUIDE.md`.

use core::marker::PhantomData;

/// A device address of read-only `T` elements, borrowing the buffer it
/// points into for `'a` (the host's `Gpu::ptr` makes one from a buffer
/// borrowed so), so that the buffer outlives every argument struct holding
/// it, until the launch is queued. Plain data on the device.
#[repr(transparent)]
pub struct DevPtr<'a, T> {
    addr: u64,
    _borrow: PhantomData<&'a ()>,
    _elem: PhantomData<fn() -> T>,
}

/// A device address of `T` elements the kernel writes, borrowing its
/// buffer exclusively for `'a` (the host's `Gpu::ptr_mut` makes one from
/// `&'a mut`), so that no other pointer of the launch reads or writes the
/// buffer unless its maker says so by an `unsafe` alias.
#[repr(transparent)]
pub struct DevPtrMut<'a, T> {
    addr: u64,
    _borrow: PhantomData<&'a mut ()>,
    _elem: PhantomData<fn() -> T>,
}

macro_rules! dev_ptr_common {
    ($name:ident) => {
        impl<'a, T> $name<'a, T> {
            /// Wraps a device address (a `CUdeviceptr`), borrowing nothing.
            ///
            /// # Safety
            /// `addr` is in a device allocation of the context the kernel
            /// runs on, holding at least the elements of `T` a kernel given
            /// this pointer will touch, alive for `'a` and until the kernel
            /// has run. (The host's `Gpu::ptr` makes one from a buffer
            /// instead, borrowing it.)
            pub const unsafe fn new(addr: u64) -> Self {
                Self {
                    addr,
                    _borrow: PhantomData,
                    _elem: PhantomData,
                }
            }
            /// No address: for a buffer the kernel does not touch under the
            /// other arguments given with it (a flag off, a count of zero).
            pub const fn null() -> Self {
                Self {
                    addr: 0,
                    _borrow: PhantomData,
                    _elem: PhantomData,
                }
            }
            /// The same address, its elements read as `U` (a kernel that
            /// moves 4-byte words of any 4-byte value type).
            pub const fn cast<U>(self) -> $name<'a, U> {
                $name {
                    addr: self.addr,
                    _borrow: PhantomData,
                    _elem: PhantomData,
                }
            }
            /// The device address.
            pub const fn addr(self) -> u64 {
                self.addr
            }
        }
        impl<T> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<'_, T> {}
        impl<T> core::fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({:#x})", stringify!($name), self.addr)
            }
        }
    };
}
dev_ptr_common!(DevPtr);
dev_ptr_common!(DevPtrMut);

impl<T> DevPtr<'_, T> {
    /// The address as a pointer (meaningful on the device only).
    #[inline(always)]
    pub fn as_ptr(self) -> *const T {
        self.addr as *const T
    }
}

impl<T> DevPtrMut<'_, T> {
    /// The address as a pointer (meaningful on the device only).
    #[inline(always)]
    pub fn as_mut_ptr(self) -> *mut T {
        self.addr as *mut T
    }
}

/// A kernel argument struct: plain data, `#[repr(C)]`, no padding, so that
/// copying its bytes to the device as a kernel parameter is sound. The host
/// engine can implement its launch traits for every `KernelArgs` at once.
///
/// # Safety
/// Implement only for `#[repr(C)]` structs of integers, floats and device
/// pointers, with no padding bytes.
pub unsafe trait KernelArgs: Copy {
    /// The same struct borrowing its buffers for `'b` (a typed kernel
    /// handle names the struct at `'static` and launches it at any `'b`).
    type At<'b>: KernelArgs;
}

/// Shared memory a block may take without asking the driver for more.
pub const SHARED_DEFAULT_MAX: u32 = 48 * 1024;

/// Implements `Clone`, `Copy` and [`KernelArgs`] for an argument struct and
/// checks its size (so that it has no padding) for every value type.
macro_rules! kernel_args {
    ($($name:ident = $bytes:literal;)*) => {$(
        impl<T> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<'_, T> {}
        // SAFETY: repr(C) of 8-byte device addresses and u64s (or a struct
        // of them made here) followed by u32s (and a zero-sized marker),
        // whose sizes add up to the size asserted below: no padding.
        unsafe impl<T> $crate::args::KernelArgs for $name<'_, T> {
            type At<'b> = $name<'b, T>;
        }
        const _: () = assert!(core::mem::size_of::<$name<'static, f32>>() == $bytes);
        const _: () = assert!(core::mem::size_of::<$name<'static, f64>>() == $bytes);
        const _: () = assert!(core::mem::size_of::<$name<'static, bool>>() == $bytes);
    )*};
}

/// Implements [`KernelArgs`] for an argument struct that is not generic
/// over the value type (a utility kernel's, deriving `Clone` and `Copy`)
/// and checks its size, so that it has no padding.
macro_rules! utility_kernel_args {
    ($($name:ident = $bytes:literal;)*) => {$(
        // SAFETY: repr(C) of 8-byte device addresses and u64s, then u32s,
        // whose sizes add up to the size asserted below: no padding.
        unsafe impl $crate::args::KernelArgs for $name<'_> {
            type At<'b> = $name<'b>;
        }
        const _: () = assert!(core::mem::size_of::<$name<'static>>() == $bytes);
    )*};
}

pub mod masked;
pub mod spgemm;
pub mod spmm;
pub mod spmv;
pub mod util;

pub use masked::*;
pub use spgemm::*;
pub use spmm::*;
pub use spmv::*;
pub use util::*;
