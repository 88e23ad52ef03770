//! Engines: one implementation of each operation per engine, all sharing the
//! formats in `crate::format` and the semirings in `gpu_kernels`.

pub mod cpu;
pub mod serial;
