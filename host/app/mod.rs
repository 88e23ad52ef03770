//! Applications built on the operations: all-pairs shortest paths (min-plus).

pub mod apsp;

pub use apsp::{Apsp, apsp};
#[cfg(feature = "mpi")]
pub use apsp::{DistApsp, apsp_mpi};
