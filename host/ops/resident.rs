//! [`Resident`]: a matrix kept where its engine multiplies, for chains of
//! products that stay on the engine between steps (APSP's squarings).

use crate::engine::shared::spgemm::product_shapes_agree;
use crate::engine::{Engine, Op};
use crate::error::Result;
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// A matrix kept where an engine multiplies: on the host for serial and
/// cpu, in device memory for cuda. A chain of products of resident
/// matrices moves nothing between the host and the device until
/// [`into_csr`](Self::into_csr).
pub struct Resident<T: Scalar> {
    engine: Engine,
    /// `(nrows, ncols)`, wherever the matrix is kept.
    shape: (usize, usize),
    kept: Kept<T>,
}

/// The error for two resident matrices kept on different engines (only
/// cuda keeps them apart: serial and cpu both keep them on the host).
#[cfg(feature = "gpu")]
fn different_engines(op: &'static str, a: Engine, b: Engine) -> crate::Error {
    crate::Error::mismatch(
        op,
        format!("operands kept on different engines ({a} and {b})"),
    )
}

enum Kept<T: Scalar> {
    Host(Csr<T>),
    #[cfg(feature = "gpu")]
    Device(std::sync::Arc<crate::engine::cuda::matrix::DevCsr<T>>),
}

impl<T: Scalar> Resident<T> {
    /// `a` kept for SpGEMM on `engine` (resolved: auto is cuda where a GPU
    /// is present), uploaded for cuda.
    pub fn new(a: Csr<T>, engine: Engine) -> Result<Self> {
        // Values the GPU has no kernels for stay on the cpu engine (a
        // semiring without kernels over stamped values, max-times over
        // integers, is refused by `spgemm` on cuda, naming it).
        let engine = match engine {
            Engine::Auto if !gpu_kernels::kernels::stamped_value::<T>() => Engine::Cpu,
            _ => engine.resolve(Op::Spgemm)?,
        };
        let shape = a.shape();
        let kept = match engine {
            #[cfg(feature = "gpu")]
            Engine::Cuda => {
                use crate::engine::cuda::{Gpu, matrix::DevCsr};
                Kept::Device(std::sync::Arc::new(DevCsr::upload(Gpu::get()?, &a)?))
            }
            _ => Kept::Host(a),
        };
        Ok(Resident {
            engine,
            shape,
            kept,
        })
    }

    /// The engine the matrix is kept on (resolved: never auto).
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// `a`, already on the device, kept for the cuda engine (as from
    /// [`DevCsr::from_foreign`](crate::engine::cuda::matrix::DevCsr::from_foreign)
    /// or a product's [`device`](Self::device) arrays).
    #[cfg(feature = "gpu")]
    pub fn from_device(a: crate::engine::cuda::matrix::DevCsr<T>) -> Self {
        Resident {
            engine: Engine::Cuda,
            shape: (a.n_rows as usize, a.n_cols as usize),
            kept: Kept::Device(std::sync::Arc::new(a)),
        }
    }

    /// The device arrays of a matrix kept by the cuda engine (`None` for
    /// one kept on the host). Their work is queued on spmx's stream: call
    /// [`Gpu::sync`](crate::engine::cuda::Gpu::sync) before another stream
    /// or library reads them (the results of [`spgemm`](Self::spgemm) are
    /// not synchronized).
    #[cfg(feature = "gpu")]
    pub fn device(&self) -> Option<&crate::engine::cuda::matrix::DevCsr<T>> {
        match &self.kept {
            Kept::Device(a) => Some(a.as_ref()),
            Kept::Host(_) => None,
        }
    }

    /// The device arrays of a matrix kept by the cuda engine, shared: for
    /// plans of other products over it
    /// ([`SpmvPlan::on_device`](crate::engine::cuda::SpmvPlan::on_device),
    /// [`SpmmPlan::on_device`](crate::engine::cuda::SpmmPlan::on_device)),
    /// which keep it alive. `None` for one kept on the host.
    #[cfg(feature = "gpu")]
    pub fn device_shared(&self) -> Option<std::sync::Arc<crate::engine::cuda::matrix::DevCsr<T>>> {
        match &self.kept {
            Kept::Device(a) => Some(std::sync::Arc::clone(a)),
            Kept::Host(_) => None,
        }
    }

    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// `self ⊗ b` over `S`, kept on the same engine; `None` when the cuda
    /// engine has no room for it beside its operands. `b` kept on another
    /// engine, or of a shape that does not fit, is
    /// [`Error::Mismatch`](crate::Error).
    pub fn spgemm<S: Semiring<Value = T>>(&self, b: &Resident<T>) -> Result<Option<Self>> {
        product_shapes_agree("spgemm", self.shape, b.shape)?;
        let kept = match (&self.kept, &b.kept) {
            (Kept::Host(a), Kept::Host(b)) => {
                super::spgemm_blocks::check_c_fits(a, b)?;
                Some(Kept::Host(super::dispatch::spgemm::<S>(a, b, self.engine)?))
            }
            #[cfg(feature = "gpu")]
            (Kept::Device(a), Kept::Device(b)) => {
                use crate::engine::cuda::{Gpu, spgemm::spgemm_device};
                let gpu = Gpu::get()?;
                match spgemm_device::<S>(gpu, a, b)? {
                    Some(c) => Some(Kept::Device(std::sync::Arc::new(c.into_dev_csr(gpu)?))),
                    None => None,
                }
            }
            #[cfg(feature = "gpu")]
            _ => return Err(different_engines("spgemm", self.engine, b.engine)),
        };
        Ok(kept.map(|kept| Resident {
            engine: self.engine,
            shape: (self.shape.0, b.shape.1),
            kept,
        }))
    }

    /// Whether `self` and `other` have the same pattern and the same value
    /// bits (`-0.0` and `0.0` differ), compared where they are kept. `other`
    /// kept on another engine is [`Error::Mismatch`](crate::Error).
    pub fn same_bits(&self, other: &Resident<T>) -> Result<bool> {
        match (&self.kept, &other.kept) {
            (Kept::Host(a), Kept::Host(b)) => Ok(a.same_bits(b)),
            #[cfg(feature = "gpu")]
            (Kept::Device(a), Kept::Device(b)) => {
                let gpu = crate::engine::cuda::Gpu::get()?;
                if size_of::<T>().is_multiple_of(4) {
                    a.same_as(gpu, b)
                } else {
                    Ok(a.download(gpu)?.same_bits(&b.download(gpu)?))
                }
            }
            #[cfg(feature = "gpu")]
            _ => Err(different_engines("same_bits", self.engine, other.engine)),
        }
    }

    /// The matrix, on the host (downloaded from the device for cuda).
    pub fn into_csr(self) -> Result<Csr<T>> {
        match self.kept {
            Kept::Host(a) => Ok(a),
            #[cfg(feature = "gpu")]
            Kept::Device(a) => a.download(crate::engine::cuda::Gpu::get()?),
        }
    }
}
