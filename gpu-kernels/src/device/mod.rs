//! Device helpers for kernel authors, with the names a `cuda_std` user knows:
//!
//! | module     | what                                                           |
//! |------------|----------------------------------------------------------------|
//! | [`thread`] | `thread_idx_x`, `block_idx_x`, …, `index_1d`, `lane_id`, `warp_id`, `sync_threads`, grid-stride loops |
//! | [`warp`]   | `shuffle_down` / `_up` / `_xor` / `_idx`, `ballot`, `all`, `any`, lane masks, `sync_warp`, semiring `reduce` |
//! | [`shared`] | `dynamic::<T>()`: the launch-sized shared memory               |
//! | [`memory`] | `fence_gpu`, `load_from_l2`: results passed between blocks of a running kernel; `load_streaming`, `load_readonly`: cache hints |
//! | [`atomic`] | add (u32, i32, u64, i64, f32, f64), min/max (integers and floats), and/or, exchange, wrapping increment, CAS, and `atomic_add::<S>`: a semiring's add done atomically |
//!
//! Compiled for `nvptx64` only. Warp-collective operations and barriers are
//! `unsafe`: every thread they name must reach the same call, or the kernel
//! hangs or reads garbage. Shuffles and votes are LLVM's NVVM intrinsics,
//! which LLVM knows to be convergent (never moved into divergent code); the
//! atomics are inline PTX with CUDA's semantics (relaxed, GPU scope, generic
//! addresses, so they work on global and shared memory alike).

pub mod atomic;
mod llvm;
pub mod memory;
pub mod shared;
pub mod thread;
pub mod warp;
