//! The serial engine: plain single-threaded Rust, written for clarity. It is
//! the oracle every other engine is tested against.

pub mod accumulator;
pub mod ewise;
pub mod fresh;
pub mod spgemm;
pub mod spmm;
pub mod spmv;
pub mod workspace;

pub use spgemm::spgemm;
pub use spmm::spmm;
