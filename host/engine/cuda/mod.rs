//! The cuda engine: Rust kernels from `gpu-kernels`, compiled to PTX by
//! `build.rs`, launched through the CUDA driver.

pub mod ptx;
