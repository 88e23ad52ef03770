//! Conversions between spmx's matrices and those of other Rust crates, each
//! module behind the cargo feature of the same name, so that a default
//! build compiles none of them.
//!
//! | feature | module | conversions | copies |
//! |---------|--------|-------------|--------|
//! | `sprs` | `interop::sprs` | sprs `CsMatI<T, u32, usize>` ⇄ [`Csr`](crate::Csr), [`Csc`](crate::format::Csc); any `CsMatViewI` → `Csr`, `Csc` | none where the storage order matches; one transpose where it does not; views are copied |
//! | `nalgebra` | `interop::nalgebra` | nalgebra-sparse `CsrMatrix<T>` ⇄ `Csr`, `CscMatrix<T>` ⇄ `Csc` | the indices (`usize` ⇄ `u32`, narrowing checked); pointers and values move |
//! | `ndarray` | `interop::ndarray` | `Array2<T>` ⇄ [`Dense`](crate::format::Dense) (B and C of SpMM); `Array1<T>` as x and y of SpMV | none for row-major (standard layout) arrays; one for column-major or strided ones |
//!
//! Every conversion keeps every stored entry bit for bit, explicit zeros
//! included, for each [`Scalar`](crate::Scalar) (`f32`, `f64`, `bool`).
//! Into spmx they are `TryFrom` with [`Error`](crate::Error): a foreign
//! matrix may exceed spmx's dimensions (`u32` indices) or, where a copy or
//! transpose is needed, the memory available. Out of spmx they are `From`:
//! a canonical [`Csr`](crate::Csr) meets every invariant of the other
//! crates, whose checked constructors still verify them (one read of the
//! indices, no copy), so that a matrix built wrongly through
//! `from_parts_unchecked` panics there rather than reaching their unchecked
//! code.

#[cfg(feature = "nalgebra")]
pub mod nalgebra;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "sprs")]
pub mod sprs;
