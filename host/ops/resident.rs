//! [`Resident`]: a matrix kept where its engine multiplies, for chains of
//! products that stay on the engine between steps (APSP's squarings).

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
    kept: Kept<T>,
}

enum Kept<T: Scalar> {
    Host(Csr<T>),
    #[cfg(feature = "gpu")]
    Device(crate::engine::cuda::matrix::DevCsr<T>),
}

impl<T: Scalar> Resident<T> {
    /// `a` kept for SpGEMM on `engine` (resolved: auto is cuda where a GPU
    /// is present), uploaded for cuda.
    pub fn new(a: Csr<T>, engine: Engine) -> Result<Self> {
        let engine = engine.resolve(Op::Spgemm)?;
        let kept = match engine {
            #[cfg(feature = "gpu")]
            Engine::Cuda => {
                use crate::engine::cuda::{Gpu, matrix::DevCsr};
                Kept::Device(DevCsr::upload(Gpu::get()?, &a)?)
            }
            _ => Kept::Host(a),
        };
        Ok(Resident { engine, kept })
    }

    /// The engine the matrix is kept on (resolved: never auto).
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// `self ⊗ b` over `S`, kept on the same engine; `None` when the cuda
    /// engine has no room for it beside its operands. `b` must be kept on
    /// the same engine.
    pub fn spgemm<S: Semiring<Value = T>>(&self, b: &Resident<T>) -> Result<Option<Self>> {
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
                let gpu = crate::engine::cuda::Gpu::get()?;
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
            Kept::Device(a) => a.download(crate::engine::cuda::Gpu::get()?),
        }
    }
}
