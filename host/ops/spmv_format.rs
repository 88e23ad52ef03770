//! [`SpmvFormat`]: the formats SpMV runs on directly, each with its
//! function on every engine, so that [`spmv`](super::spmv) takes any of
//! them and a new engine is added once for all formats.

use crate::engine::{cpu, serial};
#[cfg(feature = "gpu")]
use crate::error::Result;
use crate::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// A matrix format SpMV runs on directly: one implementation per engine.
/// Implemented for every format in [`crate::format`]; [`spmv`](super::spmv) dispatches
/// on the engine, so a new engine is added here once for all formats.
///
/// The `spmv_*` methods take an `x` whose length [`spmv`](super::spmv)
/// has checked against [`shape`](Self::shape) (returning the mismatch as
/// an error); called directly with another length, they panic.
pub trait SpmvFormat<T: Scalar> {
    /// `(nrows, ncols)`: `x` takes one entry per column, `y` gives one per
    /// row.
    fn shape(&self) -> (usize, usize);
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
            fn shape(&self) -> (usize, usize) {
                $format::shape(self)
            }
            #[cfg(feature = "gpu")]
            #[track_caller]
            fn spmv_cuda<S: Semiring<Value = T>>(&self, x: &[T]) -> Result<Vec<T>> {
                use crate::engine::cuda::{Gpu, SpmvPlan, spmv};
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
    Csr => spmv_csr, |gpu, a| SpmvPlan::new::<S>(gpu, a, crate::engine::cuda::SpmvKernel::Auto);
    Csc => spmv_csc, |gpu, a| SpmvPlan::new::<S>(gpu, &a.to_csr(), crate::engine::cuda::SpmvKernel::Auto);
    Ell => spmv_ell, SpmvPlan::from_ell;
    Hyb => spmv_hyb, SpmvPlan::from_hyb;
    Sell => spmv_sell, SpmvPlan::from_sell;
    Bsr => spmv_bsr, SpmvPlan::from_bsr;
    Dense => spmv_dense, |gpu, a| SpmvPlan::new::<S>(gpu, &a.to_csr(S::zero()), crate::engine::cuda::SpmvKernel::Auto);
}
