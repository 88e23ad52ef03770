//! Applications built on the operations: all-pairs shortest paths (min-plus),
//! triangle counting (a masked SpGEMM) and breadth-first search (masked SpMV).

pub mod apsp;
pub mod bfs;
pub mod triangles;

pub use apsp::{Apsp, apsp};
#[cfg(feature = "mpi")]
pub use apsp::{DistApsp, apsp_mpi};
pub use bfs::{Bfs, bfs};
pub use triangles::{TriangleOrder, Triangles, triangles};
