//! The cuda engine: Rust kernels from `gpu-kernels`, compiled to PTX by
//! `build.rs`, launched through the CUDA driver (loaded at run time by
//! cudarc, so building needs no CUDA).
//!
//! | module      | what                                                       |
//! |-------------|------------------------------------------------------------|
//! | [`context`] | the process's [`Gpu`]: context, stream, module cache, launches, buffers |
//! | [`matrix`]  | device copies of every format                              |
//! | [`spmv`]    | SpMV: the kernel family, [`SpmvPlan`], automatic choice     |
//! | [`spgemm`]  | SpGEMM: rows classified and binned, symbolic, prefix sum, numeric; row blocks when C does not fit; [`spgemm::plan`]: planned once, every entry's products listed, the numeric phase replayed for new values |
//! | [`spmm`]    | SpMM: warp-tiled and thread-per-row kernels, [`SpmmPlan`], automatic choice |
//! | [`masked`]  | masked SpGEMM and SpMV, triangle counting (L made on the device) |
//! | [`bfs`]     | breadth-first search, a level a launch, batches of levels queued |
//! | [`sssp`]    | shortest paths from a batch of sources: Bellman–Ford as min-plus SpMM rounds |
//! | [`ptx`]     | the embedded PTX and its table of entry points            |

pub mod bfs;
pub mod context;
pub mod masked;
pub mod matrix;
pub mod ptx;
pub mod spgemm;
pub mod spmm;
pub mod spmv;
pub mod sssp;

pub use context::Gpu;
/// The device buffer type of the plans' `run` and [`Gpu`]'s uploads
/// (cudarc's), for dependents that hold their own.
pub use cudarc::driver::CudaSlice;
pub use spmm::{DenseLayout, SpmmKernel, SpmmPlan};
pub use spmv::{SpmvKernel, SpmvPlan};
