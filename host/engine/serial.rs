//! The serial engine: every operation on the calling thread alone, each
//! row formed by the kernels of [`shared`] that the cpu
//! engine runs on its chunks of rows, so the two give the same bits. Like
//! every engine, it is tested against the plain reference in
//! `tests/common/reference.rs`.

use super::shared;
use crate::error::Result;
use crate::format::{Csr, Dense};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// C = A ⊗ B over `S`, one row at a time (Gustavson; see
/// [`shared::spgemm`]).
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    shared::spgemm::spgemm_one_thread::<S>(a, b, None)
}

/// C = A ⊗ B over `S`, A sparse, B and C dense (row-major). A C too large
/// to allocate is [`Error::TooLarge`](crate::Error).
#[track_caller]
pub fn spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    shared::spmm::spmm_one_thread::<S>(a, b)
}

/// C = A ⊕ B over `S`: the union of the patterns.
#[track_caller]
pub fn ewise_add<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    shared::ewise::ewise_add_one_thread::<S>(a, b)
}

/// Aᵀ (as CSR).
pub fn transpose<T: Scalar>(a: &Csr<T>) -> Result<Csr<T>> {
    a.try_transpose()
}

/// y = A ⊗ x over `S`, one function per format, each on its own layout.
pub mod spmv {
    pub use super::shared::spmv::{
        spmv_bsr, spmv_coo, spmv_csc, spmv_csr, spmv_dense, spmv_ell, spmv_hyb, spmv_sell,
    };
}
