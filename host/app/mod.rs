//! Applications built on the operations: all-pairs shortest paths (min-plus
//! squaring, or many-source SSSP on sparse graphs), and shortest paths from
//! chosen sources (Dijkstra, or Bellman–Ford with negative weights).

pub mod apsp;
pub mod sssp;

pub use apsp::{Apsp, ApspMethod, apsp};
#[cfg(feature = "mpi")]
pub use apsp::{DistApsp, apsp_mpi};
pub use sssp::sssp;
