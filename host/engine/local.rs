//! One process's engines (serial, cpu, cuda) behind one call per operation:
//! what `ops` runs once it has checked its arguments, what each MPI rank
//! runs on its blocks, and [`Resident`] matrices for chains of products
//! that stay on the engine between steps (APSP's squarings).
//!
//! [`Engine::Auto`] is resolved here; [`Engine::Mpi`] is refused with an
//! error saying where its entry points are (whole matrices are not split
//! across ranks here).

use super::{Engine, Op, cpu, serial};
use crate::error::Result;
use crate::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// C = A ⊗ B over `S` on `engine`; a C larger than the memory available
/// is [`Error::TooLarge`](crate::Error) before any of it is made (see
/// [`spgemm_blocks`](super::spgemm_blocks)).
#[track_caller]
pub fn spgemm<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    let engine = engine.resolve(Op::Spgemm)?;
    super::spgemm_blocks::check_c_fits(a, b)?;
    spgemm_unchecked::<S>(a, b, engine)
}

/// [`spgemm`] without the check that C fits: for a product already sized.
#[track_caller]
pub(super) fn spgemm_unchecked<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine.resolve(Op::Spgemm)? {
        Engine::Serial => serial::spgemm::<S>(a, b),
        #[cfg(feature = "gpu")]
        Engine::Cuda => super::cuda::spgemm::spgemm::<S>(a, b)?,
        _ => cpu::spgemm::<S>(a, b),
    })
}

/// C = A ⊗ B over `S` on `engine`: A sparse (CSR), B and C dense.
#[track_caller]
pub fn spmm<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    engine: Engine,
) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    match engine.resolve(Op::Spmm)? {
        Engine::Serial => serial::spmm::<S>(a, b),
        #[cfg(feature = "gpu")]
        Engine::Cuda => super::cuda::spmm::spmm::<S>(a, b),
        _ => cpu::spmm::<S>(a, b),
    }
}

/// y = A ⊗ x over `S` on `engine`, for any format.
#[track_caller]
pub fn spmv<S: Semiring>(
    a: &impl SpmvFormat<S::Value>,
    x: &[S::Value],
    engine: Engine,
) -> Result<Vec<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine.resolve(Op::Spmv)? {
        Engine::Serial => a.spmv_serial::<S>(x),
        #[cfg(feature = "gpu")]
        Engine::Cuda => a.spmv_cuda::<S>(x)?,
        _ => a.spmv_cpu::<S>(x),
    })
}

/// C = A ⊕ B over `S` on `engine`: the union of the patterns (serial or
/// cpu; the cuda engine has no element-wise add, so auto is cpu).
#[track_caller]
pub fn ewise_add<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine.resolve(Op::EwiseAdd)? {
        Engine::Serial => serial::ewise::ewise_add::<S>(a, b),
        _ => cpu::ewise::ewise_add::<S>(a, b),
    })
}

/// Aᵀ on `engine` (serial or cpu).
pub fn transpose<T: Scalar>(a: &Csr<T>, engine: Engine) -> Result<Csr<T>> {
    Ok(match engine.resolve(Op::Transpose)? {
        Engine::Serial => a.try_transpose()?,
        _ => cpu::transpose::transpose(a)?,
    })
}

/// A matrix format SpMV runs on directly: one implementation per engine.
/// Implemented for every format in [`crate::format`]; [`spmv`] dispatches
/// on the engine, so a new engine is added here once for all formats.
pub trait SpmvFormat<T: Scalar> {
    /// y = A ⊗ x on the serial engine.
    fn spmv_serial<S: Semiring<Value = T>>(&self, x: &[T]) -> Vec<T>;
    /// y = A ⊗ x on the cpu engine.
    fn spmv_cpu<S: Semiring<Value = T>>(&self, x: &[T]) -> Vec<T>;
    /// y = A ⊗ x on the GPU, with the kernel for this format (CSR: the
    /// automatic choice; CSC and dense: converted to CSR first).
    #[cfg(feature = "gpu")]
    fn spmv_cuda<S: Semiring<Value = T>>(&self, x: &[T]) -> Result<Vec<T>>;
}

/// Each format's [`SpmvFormat`]: its serial and cpu functions, and how the
/// cuda engine plans it.
macro_rules! spmv_format {
    ($($format:ident => $kernel:ident, $cuda:expr;)*) => {$(
        impl<T: Scalar> SpmvFormat<T> for $format<T> {
            #[cfg(feature = "gpu")]
            #[track_caller]
            fn spmv_cuda<S: Semiring<Value = T>>(&self, x: &[T]) -> Result<Vec<T>> {
                use super::cuda::{Gpu, SpmvPlan, spmv};
                let plan: fn(&Gpu, &Self) -> Result<SpmvPlan<T>> = $cuda;
                let mut plan = plan(Gpu::get()?, self)?;
                spmv::run_once::<S>(&mut plan, x)
            }
            #[track_caller]
            fn spmv_serial<S: Semiring<Value = T>>(&self, x: &[T]) -> Vec<T> {
                serial::spmv::$kernel::<S>(self, x)
            }
            #[track_caller]
            fn spmv_cpu<S: Semiring<Value = T>>(&self, x: &[T]) -> Vec<T> {
                cpu::spmv::$kernel::<S>(self, x)
            }
        }
    )*};
}

spmv_format! {
    Coo => spmv_coo, |gpu, a| SpmvPlan::from_coo::<S>(gpu, a);
    Csr => spmv_csr, |gpu, a| SpmvPlan::new::<S>(gpu, a, super::cuda::SpmvKernel::Auto);
    Csc => spmv_csc, |gpu, a| SpmvPlan::new::<S>(gpu, &a.to_csr(), super::cuda::SpmvKernel::Auto);
    Ell => spmv_ell, SpmvPlan::from_ell;
    Hyb => spmv_hyb, SpmvPlan::from_hyb;
    Sell => spmv_sell, SpmvPlan::from_sell;
    Bsr => spmv_bsr, SpmvPlan::from_bsr;
    Dense => spmv_dense, |gpu, a| SpmvPlan::new::<S>(gpu, &a.to_csr(S::zero()), super::cuda::SpmvKernel::Auto);
}

/// A matrix kept where an engine multiplies: on the host for serial and
/// cpu, in device memory for cuda. A chain of products of resident
/// matrices moves nothing between the host and the device until
/// [`into_csr`](Self::into_csr).
pub struct Resident<T: Scalar> {
    engine: Engine,
    kept: Kept<T>,
}

enum Kept<T: Scalar> {
    Host(Csr<T>),
    #[cfg(feature = "gpu")]
    Device(super::cuda::matrix::DevCsr<T>),
}

impl<T: Scalar> Resident<T> {
    /// `a` kept for SpGEMM on `engine` (resolved: auto is cuda where a GPU
    /// is present), uploaded for cuda.
    pub fn new(a: Csr<T>, engine: Engine) -> Result<Self> {
        let engine = engine.resolve(Op::Spgemm)?;
        let kept = match engine {
            #[cfg(feature = "gpu")]
            Engine::Cuda => {
                use super::cuda::{Gpu, matrix::DevCsr};
                Kept::Device(DevCsr::upload(Gpu::get()?, &a)?)
            }
            _ => Kept::Host(a),
        };
        Ok(Resident { engine, kept })
    }

    /// `self ⊗ b` over `S`, kept on the same engine; `None` when the cuda
    /// engine has no room for it beside its operands. `b` must be kept on
    /// the same engine.
    pub fn spgemm<S: Semiring<Value = T>>(&self, b: &Resident<T>) -> Result<Option<Self>> {
        let kept = match (&self.kept, &b.kept) {
            (Kept::Host(a), Kept::Host(b)) => Some(Kept::Host(spgemm::<S>(a, b, self.engine)?)),
            #[cfg(feature = "gpu")]
            (Kept::Device(a), Kept::Device(b)) => {
                use super::cuda::{Gpu, spgemm::spgemm_device};
                let gpu = Gpu::get()?;
                match spgemm_device::<S>(gpu, a, b)? {
                    Some(c) => Some(Kept::Device(c.into_dev_csr(gpu)?)),
                    None => None,
                }
            }
            #[cfg(feature = "gpu")]
            _ => panic!("Resident::spgemm: operands kept on different engines"),
        };
        Ok(kept.map(|kept| Resident {
            engine: self.engine,
            kept,
        }))
    }

    /// Whether `self` and `other` have the same pattern and the same value
    /// bits (`-0.0` and `0.0` differ), compared where they are kept. `other`
    /// must be kept on the same engine.
    pub fn same_bits(&self, other: &Resident<T>) -> Result<bool> {
        match (&self.kept, &other.kept) {
            (Kept::Host(a), Kept::Host(b)) => Ok(a.same_bits(b)),
            #[cfg(feature = "gpu")]
            (Kept::Device(a), Kept::Device(b)) => {
                let gpu = super::cuda::Gpu::get()?;
                if size_of::<T>().is_multiple_of(4) {
                    a.same_as(gpu, b)
                } else {
                    Ok(a.download(gpu)?.same_bits(&b.download(gpu)?))
                }
            }
            #[cfg(feature = "gpu")]
            _ => panic!("Resident::same_bits: operands kept on different engines"),
        }
    }

    /// The matrix, on the host (downloaded from the device for cuda).
    pub fn into_csr(self) -> Result<Csr<T>> {
        match self.kept {
            Kept::Host(a) => Ok(a),
            #[cfg(feature = "gpu")]
            Kept::Device(a) => a.download(super::cuda::Gpu::get()?),
        }
    }
}
