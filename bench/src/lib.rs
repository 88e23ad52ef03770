//! The race harness behind `spmx bench` and every performance claim, a
//! crate of its own so that the `spmx` library carries none of its
//! dependencies (cuSPARSE bindings, JSON, charts).
//!
//! Our GPU kernels and the vendor library (cuSPARSE) run in one process,
//! on one device, over the same matrices; each result is checked against
//! the serial engine before its time counts; times are medians of
//! device-event timings over inputs rotated so that repeats do not run
//! from the cache; figures are GB/s, the fraction of the device's measured
//! copy bandwidth (and GFLOP/s for SpMM) and the ratio to cuSPARSE's
//! fastest algorithm.
//!
//! | module | what |
//! |--------|------|
//! | [`suite`] | inputs: the suites of `bench-data/`, the real set, files |
//! | [`check`] | the serial engine's answer and the tolerance of each entry |
//! | [`measure`] | bytes moved, SpMM flops, row-length spread, medians, rotation sets |
//! | [`report`] | results, the printed table and summary, JSON |
//! | [`plot`] | SVG and PNG charts of a report |
//! | `cusparse` | (feature `gpu`) the vendor's CSR SpMV, SpMM and SpGEMM (and its reuse), loaded at run time |
//! | `timer` | (feature `gpu`) what every race shares: the device, rotated operands, checking and timing one implementation |
//! | `spmv` | (feature `gpu`) the SpMV race on the device |
//! | `spmm` | (feature `gpu`) the SpMM race on the device, per matrix and width of B |
//! | `spgemm` | (feature `gpu`) the SpGEMM race on the device: whole products, host-timed, checked against the cpu engine |
//!
//! Everything but `timer`, `spmv`, `spmm` and `spgemm` is host code, tested without
//! a GPU.

pub mod check;
#[cfg(feature = "gpu")]
pub mod cusparse;
pub mod measure;
pub mod plot;
pub mod report;
#[cfg(feature = "gpu")]
pub mod spgemm;
#[cfg(feature = "gpu")]
pub mod spmm;
#[cfg(feature = "gpu")]
pub mod spmv;
pub mod suite;
#[cfg(feature = "gpu")]
mod timer;
