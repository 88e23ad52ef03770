//! Kernel arguments: the `#[repr(C)]` structs the host fills and every GPU
//! kernel receives, one definition for both sides.
//!
//! Conventions, so that the host can launch any kernel the same way:
//! - a kernel takes exactly one parameter, an argument struct passed by
//!   value (PTX: `.param .align 8 .b8 name[size]`); the host passes a pointer
//!   to the struct's bytes;
//! - device memory appears as [`DevPtr`] / [`DevPtrMut`], a 64-bit device
//!   address (what the driver API calls a `CUdeviceptr`), never as a host
//!   pointer type;
//! - structs have no padding (checked below), so their bytes are fully
//!   initialised when the host copies them;
//! - `T` is the semiring's value type: `f32`, `f64` or `bool`. A `bool` is
//!   one byte on the device as on the host, `0` or `1`, so a host `&[bool]`
//!   uploads as it is.

use core::marker::PhantomData;

/// A device address of read-only `T` elements.
#[repr(transparent)]
pub struct DevPtr<T> {
    addr: u64,
    _elem: PhantomData<fn() -> T>,
}

/// A device address of `T` elements the kernel writes.
#[repr(transparent)]
pub struct DevPtrMut<T> {
    addr: u64,
    _elem: PhantomData<fn() -> T>,
}

macro_rules! dev_ptr_common {
    ($name:ident) => {
        impl<T> $name<T> {
            /// Wraps a device address (a `CUdeviceptr`).
            pub const fn new(addr: u64) -> Self {
                Self {
                    addr,
                    _elem: PhantomData,
                }
            }
            /// The device address.
            pub const fn addr(self) -> u64 {
                self.addr
            }
        }
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T> core::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({:#x})", stringify!($name), self.addr)
            }
        }
    };
}
dev_ptr_common!(DevPtr);
dev_ptr_common!(DevPtrMut);

impl<T> DevPtr<T> {
    /// The address as a pointer (meaningful on the device only).
    #[inline(always)]
    pub fn as_ptr(self) -> *const T {
        self.addr as *const T
    }
}

impl<T> DevPtrMut<T> {
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
pub unsafe trait KernelArgs: Copy + 'static {}

/// SpMV over CSR: `y[i] = ⊕ₖ values[k] ⊗ x[col_idx[k]]` for `k` in
/// `row_ptr[i]..row_ptr[i+1]`, each row starting from the semiring zero
/// (`y` is overwritten, never read). Row offsets are `u32`: the matrix has
/// at most 2³² − 64 stored entries (so a warp's `k + 32` cannot wrap).
#[repr(C)]
pub struct SpmvCsrArgs<T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<u32>,
    /// Column of each stored entry, sorted within a row.
    pub col_idx: DevPtr<u32>,
    /// Value of each stored entry.
    pub values: DevPtr<T>,
    /// The dense input vector, `n_cols` entries.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries.
    pub y: DevPtrMut<T>,
    pub n_rows: u32,
    /// Length of `x`; the kernels do not read it (it keeps the struct free of
    /// padding and lets a debugging kernel check column indices).
    pub n_cols: u32,
}

impl<T> Clone for SpmvCsrArgs<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SpmvCsrArgs<T> {}

// SAFETY: repr(C), five 8-byte addresses then two u32: 48 bytes, no padding.
unsafe impl<T: 'static> KernelArgs for SpmvCsrArgs<T> {}
const _: () = assert!(core::mem::size_of::<SpmvCsrArgs<f64>>() == 48);
const _: () = assert!(core::mem::size_of::<SpmvCsrArgs<bool>>() == 48);

/// SpMV over COO with atomics: for every stored entry `k`,
/// `y[row_idx[k]] ⊕= values[k] ⊗ x[col_idx[k]]`, each `⊕` done atomically.
/// `y` is read and updated: the host fills it with the semiring zero first
/// (or passes an earlier `y` to accumulate into). Entries may come in any
/// order, duplicates included.
#[repr(C)]
pub struct SpmvCooArgs<T> {
    /// Row of each stored entry.
    pub row_idx: DevPtr<u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<u32>,
    /// Value of each stored entry.
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, updated in place.
    pub y: DevPtrMut<T>,
    /// Number of stored entries.
    pub nnz: u32,
    pub n_rows: u32,
}

impl<T> Clone for SpmvCooArgs<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SpmvCooArgs<T> {}

// SAFETY: repr(C), five 8-byte addresses then two u32: 48 bytes, no padding.
unsafe impl<T: 'static> KernelArgs for SpmvCooArgs<T> {}
const _: () = assert!(core::mem::size_of::<SpmvCooArgs<f64>>() == 48);
