//! Each operation on an engine already resolved (serial, cpu or cuda):
//! what the functions of [`ops`](super) run once they have checked their
//! arguments and resolved the engine, and what each MPI rank runs on its
//! blocks (its engine resolved when the ranks start). Nothing here checks
//! or resolves again.

use super::SpmvFormat;
use crate::engine::{Engine, cpu, serial};
use crate::error::Result;
use crate::format::{Csr, Dense};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// C = A ⊗ B over `S` on the resolved `engine`, without the check that C
/// fits (see [`check_c_fits`](super::spgemm_blocks::check_c_fits)).
#[track_caller]
pub(crate) fn spgemm<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine {
        Engine::Serial => serial::spgemm::<S>(a, b),
        #[cfg(feature = "gpu")]
        Engine::Cuda => crate::engine::cuda::spgemm::spgemm::<S>(a, b)?,
        _ => cpu::spgemm::<S>(a, b),
    })
}

/// C = A ⊗ B over `S` on the resolved `engine`: A sparse, B and C dense.
#[track_caller]
pub(crate) fn spmm<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    engine: Engine,
) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    match engine {
        Engine::Serial => serial::spmm::<S>(a, b),
        #[cfg(feature = "gpu")]
        Engine::Cuda => crate::engine::cuda::spmm::spmm::<S>(a, b),
        _ => cpu::spmm::<S>(a, b),
    }
}

/// y = A ⊗ x over `S` on the resolved `engine`, for any format.
#[track_caller]
pub(crate) fn spmv<S: Semiring>(
    a: &impl SpmvFormat<S::Value>,
    x: &[S::Value],
    engine: Engine,
) -> Result<Vec<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine {
        Engine::Serial => a.spmv_serial::<S>(x),
        #[cfg(feature = "gpu")]
        Engine::Cuda => a.spmv_cuda::<S>(x)?,
        _ => a.spmv_cpu::<S>(x),
    })
}

/// C = A ⊕ B over `S` on the resolved `engine` (serial or cpu).
#[track_caller]
pub(crate) fn ewise_add<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    match engine {
        Engine::Serial => serial::ewise_add::<S>(a, b),
        _ => cpu::ewise::ewise_add::<S>(a, b),
    }
}

/// Aᵀ on the resolved `engine` (serial or cpu).
pub(crate) fn transpose<T: Scalar>(a: &Csr<T>, engine: Engine) -> Result<Csr<T>> {
    match engine {
        Engine::Serial => serial::transpose(a),
        _ => cpu::transpose::transpose(a),
    }
}
