//! spmx: sparse-matrix multiplication (SpMV, SpMM, SpGEMM) over any semiring,
//! with sparse formats, MatrixMarket I/O and matrix generators.
//!
//! Semirings come from the `no_std` crate `gpu_kernels`, shared with the GPU
//! kernels, and are re-exported here.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---------|---------|--------------|
//! | `gpu` | yes | the cuda engine (PTX kernels built from `gpu-kernels`, shipped prebuilt) |
//! | `mpi` | no | the MPI engine (needs a system MPI) |
//! | `sprs` | no | [`interop`]: sprs `CsMatI<T, u32, usize>` ⇄ [`Csr`], [`Csc`](format::Csc) |
//! | `nalgebra` | no | [`interop`]: nalgebra-sparse `CsrMatrix<T>` ⇄ [`Csr`], `CscMatrix<T>` ⇄ [`Csc`](format::Csc) |
//! | `ndarray` | no | [`interop`]: ndarray `Array2<T>` ⇄ [`Dense`](format::Dense), `Array1<T>` for SpMV |

pub mod app;
pub mod engine;
pub mod error;
pub mod format;
pub mod generate;
pub mod interop;
pub mod io;
pub mod memory;
pub mod ops;
pub mod scalar;

pub use engine::Engine;
pub use error::{Error, Result};
pub use format::{Coo, Csr};
pub use gpu_kernels::semiring::{self, *};
pub use gpu_kernels::{for_each_integer_semiring, for_each_semiring};
pub use ops::DefaultSemiring;
pub use scalar::Scalar;
