//! Applications built on the operations: all-pairs shortest paths (min-plus).

pub mod apsp;

pub use apsp::{Apsp, apsp};
