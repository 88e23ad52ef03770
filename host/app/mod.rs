//! Applications built on the operations: all-pairs shortest paths (Dijkstra
//! from every vertex, or min-plus squaring), shortest paths from chosen
//! sources (Dijkstra, or Bellman–Ford where a weight is negative), triangle
//! counting (a masked SpGEMM) and breadth-first search (masked SpMV).

pub mod apsp;
pub mod bfs;
pub mod sssp;
pub mod triangles;

pub use apsp::{Apsp, ApspMethod, apsp};
#[cfg(feature = "mpi")]
pub use apsp::{DistApsp, apsp_mpi};
pub use bfs::{Bfs, bfs};
pub use sssp::sssp;
pub use triangles::{TriangleOrder, Triangles, triangles};
