//! spmx: sparse-matrix multiplication (SpMV, SpMM, SpGEMM) over any semiring,
//! with sparse formats, MatrixMarket I/O and matrix generators.
//!
//! Semirings come from the `no_std` crate `gpu_kernels`, shared with the GPU
//! kernels, and are re-exported here.
//!
//! The common case is an operator ([`ops::operators`]): the value type's
//! default semiring (plus-times for numbers, or-and for `bool`) on the
//! best engine here. Each operation also has a method returning a
//! [`Result`] (`a.spgemm(&b)`), and a function in [`ops`] that names the
//! semiring and the [`Engine`] (`ops::spgemm::<MinPlus<f64>>(&a, &b,
//! Engine::Cpu)`); [`ops`] has the table of operations, formats and engines.
//!
//! # Examples
//!
//! SpMV, y = A·x:
//!
//! ```
//! use spmx::Csr;
//! // A = [[1, 2], [0, 3]]
//! let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0])?;
//! let x = vec![1.0, 10.0];
//! assert_eq!(&a * &x, vec![21.0, 30.0]);
//! assert_eq!(a.spmv(&x)?, vec![21.0, 30.0]);
//! # Ok::<(), spmx::Error>(())
//! ```
//!
//! SpMM, C = A·B with B and C dense (row-major):
//!
//! ```
//! use spmx::{Csr, format::Dense};
//! let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0])?;
//! let b = Dense::try_new(2, 2, vec![1.0, 0.0, 0.0, 1.0])?; // the identity
//! assert_eq!((&a * &b).as_slice(), &[1.0, 2.0, 0.0, 3.0]);
//! assert_eq!(a.spmm(&b)?.as_slice(), &[1.0, 2.0, 0.0, 3.0]);
//! # Ok::<(), spmx::Error>(())
//! ```
//!
//! SpGEMM, C = A·B with all three sparse:
//!
//! ```
//! use spmx::{Csr, Engine, PlusTimes};
//! let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0])?;
//! let c = &a * &a; // [[1, 8], [0, 9]]
//! assert_eq!((c.row_ptr(), c.col_idx(), c.values()), (&[0, 2, 3][..], &[0, 1, 1][..], &[1.0, 8.0, 9.0][..]));
//! assert!(a.spgemm_with::<PlusTimes<f64>>(&a, Engine::Serial)?.same_bits(&c));
//! # Ok::<(), spmx::Error>(())
//! ```
//!
//! Element-wise addition, the union of the patterns:
//!
//! ```
//! use spmx::Csr;
//! let a = Csr::try_new(2, 2, vec![0, 1, 1], vec![0], vec![1.0])?;
//! let b = Csr::try_new(2, 2, vec![0, 1, 2], vec![0, 1], vec![2.0, 5.0])?;
//! let c = &a + &b; // [[3, 0], [0, 5]]
//! assert_eq!((c.col_idx(), c.values()), (&[0, 1][..], &[3.0, 5.0][..]));
//! # Ok::<(), spmx::Error>(())
//! ```
//!
//! Another semiring: min-plus, whose product of a graph's edge weights
//! with themselves is the shortest path of at most two hops:
//!
//! ```
//! use spmx::{Csr, Engine, MinPlus};
//! // 0 → 1 (weight 1), 1 → 2 (weight 2), 0 → 2 (weight 5).
//! let w = Csr::try_new(3, 3, vec![0, 2, 3, 3], vec![1, 2, 2], vec![1.0, 5.0, 2.0])?;
//! let two_hops = w.spgemm_with::<MinPlus<f64>>(&w, Engine::Auto)?;
//! assert_eq!(two_hops.get(0, 2), Some(3.0)); // 0 → 1 → 2
//! # Ok::<(), spmx::Error>(())
//! ```
//!
//! Reading a MatrixMarket file from any reader (here a string; a path:
//! [`io::read_mtx`]):
//!
//! ```
//! use spmx::io::{ReadOptions, read_mtx_from};
//! let text = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.0\n1 2 2.0\n2 2 3.0\n";
//! let m = read_mtx_from::<f64, _>(text.as_bytes(), "example", &ReadOptions::default())?;
//! let a = m.coo.try_to_csr()?;
//! assert_eq!(&a * &[1.0, 1.0][..], vec![3.0, 3.0]);
//! # Ok::<(), spmx::Error>(())
//! ```
//!
//! # Errors
//!
//! One policy, after sprs' guidelines but with a `Result` wherever a
//! function can return one:
//!
//! - Every public function that returns a [`Result`] returns its failures
//!   as an [`Error`]: bad *data* (a file, parts handed to a constructor, a
//!   value outside a semiring's domain), a size that cannot be met, an
//!   engine that cannot run here, and a broken *contract*: operands whose
//!   shapes do not fit (a 2×3 times a 4×2, an `x` of the wrong length) are
//!   an [`Error::Mismatch`] naming the check and both shapes, e.g.
//!   `spgemm: A.ncols() != B.nrows() (2×3 times 4×2)`. The functions of
//!   [`ops`] check shapes before anything else.
//! - What cannot return a `Result` panics, with `#[track_caller]` and a
//!   `# Panics` section: the operators of [`ops::operators`] (with the
//!   very text of the error the named function returns), counts such as
//!   [`ops::spgemm_products`], and the infallible conveniences that have a
//!   fallible twin (`to_csr` / `try_to_csr`, `transpose` / `try_transpose`)
//!   or an index to stay within (`Dense::get`, `Csr::rows`), as slices do.
//! - The engines' own functions ([`engine::serial`], [`engine::cpu`], ...)
//!   are the layer below [`ops`]: they take operands that `ops` has
//!   checked, and assert the shapes again as an invariant (a panic names
//!   the same check), never as the way to report a caller's mistake.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---------|---------|--------------|
//! | `gpu` | yes | the cuda engine (PTX kernels built from `gpu-kernels`, shipped prebuilt) |
//! | `mpi` | no | the MPI engine (needs a system MPI) |
//! | `sprs` | no | [`interop`]: sprs `CsMatI<T, u32, usize>` ⇄ [`Csr`], [`Csc`](format::Csc) |
//! | `nalgebra` | no | [`interop`]: nalgebra-sparse `CsrMatrix<T>` ⇄ [`Csr`], `CscMatrix<T>` ⇄ [`Csc`](format::Csc) |
//! | `ndarray` | no | [`interop`]: ndarray `Array2<T>` ⇄ [`Dense`], `Array1<T>` for SpMV |

#![warn(missing_docs)]

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
pub use format::{Coo, Csr, Dense};
pub use gpu_kernels::semiring::{self, *};
pub use gpu_kernels::{
    for_each_gpu_integer_semiring, for_each_integer_semiring, for_each_semiring,
};
pub use ops::DefaultSemiring;
pub use scalar::Scalar;
