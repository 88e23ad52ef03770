//! Sparse and dense matrix formats. CSR is the hub: each format converts to
//! and from [`Csr`], and engines compute on CSR unless a kernel is specific
//! to another format.
//!
//! | format | module | layout |
//! |--------|--------|--------|
//! | COO    | [`coo`] | triplets, any order, duplicates allowed |
//! | CSR    | [`csr`] | row pointers (`usize`), sorted `u32` columns |

pub mod coo;
pub mod csr;

pub use coo::Coo;
pub use csr::{Csr, RowStats};

/// Largest number of rows or columns: indices are `u32`.
pub const MAX_DIM: usize = u32::MAX as usize;
