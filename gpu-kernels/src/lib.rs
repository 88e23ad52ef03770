//! Code shared by every spmx engine: the semirings (what "add" and "multiply"
//! mean), the `#[repr(C)]` kernel argument structs, and the GPU kernels.
//!
//! The crate is `#![no_std]` so that the same definitions compile for the host
//! (an ordinary dependency of `spmx`) and for `nvptx64-nvidia-cuda` (PTX
//! kernels, built by spmx's `build.rs` with feature `gpu`). One definition of
//! a semiring serves the serial oracle, the rayon engine, the GPU and MPI
//! alike.
//!
//! | module       | built for  | what                                          |
//! |--------------|------------|-----------------------------------------------|
//! | [`semiring`] | all        | the `Semiring` trait and the provided semirings |
//! | [`args`]     | all        | kernel argument structs, device pointers      |
//! | [`kernels`]  | all        | entry-point stamping and the table of kernels |
//! | [`merge_path`] | all      | merge-path search, walk and fix-up of the load-balanced CSR SpMV |
//! | `device`     | nvptx64    | thread indices, warp shuffles and votes, shared memory, atomics |
//! | `spmv/`      | nvptx64    | SpMV kernel bodies, a module per format and strategy: CSR (scalar, vector, merge path, adaptive), COO, ELL, SELL, BSR |
//! | `spgemm/`    | nvptx64    | SpGEMM: classification and binning, prefix sums, a module per row class, giant rows through Bᵀ, the plan's replay; its `mod.rs` maps host steps to entry points |
//! | `spmm/`      | nvptx64    | SpMM kernel bodies: CSR × dense, block kernels (row-major) with their fix-up, and thread per row (any layout) |
//! | `masked`     | nvptx64    | masked products: SpGEMM a dot product an entry of the mask, SpMV a thread a row |
//!
//! `GUIDE.md` (beside `Cargo.toml`) shows how to write a kernel or add a
//! semiring and run it on the GPU.
//!
//! On the device a `bool` (or-and) is one byte holding 0 or 1, as on the host.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        link_llvm_intrinsics,
        stdarch_nvptx
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

#[cfg(test)]
extern crate std;

pub mod args;
pub mod kernels;
pub mod merge_path;
pub mod semiring;

#[cfg(target_arch = "nvptx64")]
pub mod device;
#[cfg(target_arch = "nvptx64")]
pub mod masked;
#[cfg(target_arch = "nvptx64")]
pub mod spgemm;
#[cfg(target_arch = "nvptx64")]
pub mod spmm;
#[cfg(target_arch = "nvptx64")]
pub mod spmv;
#[cfg(target_arch = "nvptx64")]
pub mod util;

/// Every semiring, the [`Semiring`] trait and [`Float`], at the crate root.
pub use semiring::*;

/// A panic on the device (a bug: kernels index with raw pointers and do not
/// panic on their own) stops the kernel with `trap`; the host sees a launch
/// error.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; always sound.
    unsafe { core::arch::nvptx::trap() }
}
