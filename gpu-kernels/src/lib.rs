//! Code shared by every spmx engine: the semirings (what "add" and "multiply"
//! mean), and later the GPU kernel bodies.
//!
//! The crate is `#![no_std]` so that the same definitions compile for the host
//! (an ordinary dependency of `spmx`) and for `nvptx64-nvidia-cuda` (PTX
//! kernels). One definition of a semiring serves the serial oracle, the rayon
//! engine, the GPU and MPI alike.
#![no_std]

pub mod semiring;

pub use semiring::{Float, MaxPlus, MaxTimes, MinMax, MinPlus, OrAnd, PlusTimes, Semiring};
