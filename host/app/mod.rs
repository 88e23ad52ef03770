//! Applications built on the operations: all-pairs shortest paths (Dijkstra
//! from every vertex, or min-plus squaring), and shortest paths from chosen
//! sources (Dijkstra, or Bellman–Ford where a weight is negative).

pub mod apsp;
pub mod sssp;

pub use apsp::{Apsp, ApspMethod, apsp};
#[cfg(feature = "mpi")]
pub use apsp::{DistApsp, apsp_mpi};
pub use sssp::sssp;
