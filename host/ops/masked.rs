//! Masked products, as GraphBLAS defines them: `C⟨M⟩ = A ⊕.⊗ B`
//! ([`spgemm_masked`]), `y⟨m⟩ = A ⊕.⊗ x` ([`spmv_masked`]) and the
//! assignment `C⟨M⟩ = T`, merging or replacing ([`assign_masked`]). A mask
//! is structural — the entries M stores, whatever their values
//! ([`Mask::structural`]) — or their complement ([`Mask::complement`]); the
//! entries it rules out are never computed (see
//! [`shared::masked`](crate::engine::shared::masked)). This is how graph
//! algorithms are written (triangles: `L·L⟨L⟩`; BFS: `q⟨¬visited⟩ = Aᵀ q`),
//! and what cuSPARSE does not have.
//!
//! Engines: serial, cpu and cuda, with the same bits, which are the
//! unmasked product's where the mask allows. The cuda engine's kernels
//! (`engine::cuda::masked`) are one-shot calls that move their operands
//! each time, and take a structural mask only (a complemented one is
//! [`Error::Unavailable`](crate::Error)): `Auto` runs the cpu engine
//! ([`Op::auto_on_cuda`]); ask for cuda by name.
//!
//! ```
//! use spmx::{Csr, Engine, PlusTimes, ops};
//! use spmx::ops::Mask;
//! // A = [[1, 2], [3, 4]]; A·A = [[7, 10], [15, 22]]; keep the diagonal.
//! let a = Csr::try_new(2, 2, vec![0, 2, 4], vec![0, 1, 0, 1], vec![1.0, 2.0, 3.0, 4.0])?;
//! let eye = Csr::try_new(2, 2, vec![0, 1, 2], vec![0, 1], vec![true, true])?;
//! let c = ops::spgemm_masked::<PlusTimes<f64>, _>(&a, &a, Mask::structural(&eye), Engine::Cpu)?;
//! assert_eq!((c.get(0, 0), c.get(0, 1), c.get(1, 1)), (Some(7.0), None, Some(22.0)));
//! let off = ops::spgemm_masked::<PlusTimes<f64>, _>(&a, &a, Mask::complement(&eye), Engine::Cpu)?;
//! assert_eq!((off.get(0, 1), off.get(1, 0), off.nnz()), (Some(10.0), Some(15.0), 2));
//! # Ok::<(), spmx::Error>(())
//! ```

pub use crate::engine::shared::masked::{Mask, VectorMask};

use super::domain;
#[cfg(feature = "gpu")]
use crate::engine::cuda::Gpu;
use crate::engine::shared::masked::{
    assign_row, mask_fits, spgemm_masked_one_thread, spmv_masked_rows,
};
use crate::engine::shared::partition::csr_by_rows;
use crate::engine::shared::{spgemm::shapes_agree, spmv::x_len_agrees};
use crate::engine::{Engine, Op, cpu};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// `C⟨M⟩ = A ⊗ B` over `S` on `engine`: the entries of A·B that `mask`
/// allows, each with the bits the unmasked product gives it. Shapes that
/// do not fit (A·B, or the mask against C) are [`Error::Mismatch`].
pub fn spgemm_masked<S: Semiring, M: Scalar>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mask: Mask<'_, M>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    shapes_agree(a, b)?;
    mask_fits("spgemm_masked", (a.nrows(), b.ncols()), mask.pattern)?;
    domain::check_operands::<S>(a, b)?;
    Ok(match engine.resolve_for::<S>(Op::MaskedSpgemm)? {
        Engine::Serial => spgemm_masked_one_thread::<S, M>(a, b, mask),
        #[cfg(feature = "gpu")]
        Engine::Cuda => {
            crate::engine::cuda::masked::spgemm_masked::<S, M>(Gpu::get()?, a, b, mask)?
        }
        _ => cpu::masked::spgemm_masked::<S, M>(a, b, mask),
    })
}

/// GraphBLAS's `C⟨M⟩ = T` (`replace` false: entries of C the mask rules
/// out are kept) or `C⟨M, replace⟩ = T` (they are deleted); where the mask
/// allows, C takes T's entries and loses those T does not have. C, T and
/// the mask have one shape, else [`Error::Mismatch`].
pub fn assign_masked<T: Scalar, M: Scalar>(
    c: &Csr<T>,
    t: &Csr<T>,
    mask: Mask<'_, M>,
    replace: bool,
    engine: Engine,
) -> Result<Csr<T>> {
    mask_fits("assign_masked", c.shape(), mask.pattern)?;
    if t.shape() != c.shape() {
        let ((m, n), (p, q)) = (c.shape(), t.shape());
        return Err(Error::mismatch(
            "assign_masked",
            format!("C is {m}×{n}, T {p}×{q}"),
        ));
    }
    Ok(match engine.resolve(Op::MaskedAssign)? {
        Engine::Serial => csr_by_rows(
            c.nrows(),
            c.ncols(),
            None,
            || (),
            |(), i, cols, vals| assign_row(i, c, t, mask, replace, cols, vals),
        ),
        _ => cpu::masked::assign_masked(c, t, mask, replace),
    })
}

/// `y⟨m⟩ = A ⊗ x` over `S` on `engine`, in place: the rows `mask` allows
/// computed (as [`spmv`](super::spmv) computes them), the others kept, or
/// (`replace`) set to the semiring's zero — a dense vector's "no entry".
/// `x` of A's column count and `y` and the mask of its row count, else
/// [`Error::Mismatch`].
pub fn spmv_masked<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    y: &mut [S::Value],
    mask: VectorMask<'_>,
    replace: bool,
    engine: Engine,
) -> Result<()>
where
    S::Value: Scalar,
{
    x_len_agrees(a.shape(), x.len())?;
    for (what, len) in [("y", y.len()), ("the mask", mask.allowed.len())] {
        if len != a.nrows() {
            return Err(Error::mismatch(
                "spmv_masked",
                format!("{what} has {len} entries, A {} rows", a.nrows()),
            ));
        }
    }
    domain::check_csr::<S>("A", a)?;
    match engine.resolve_for::<S>(Op::MaskedSpmv)? {
        Engine::Serial => spmv_masked_rows::<S>(a, x, 0..a.nrows(), y, mask, replace),
        #[cfg(feature = "gpu")]
        Engine::Cuda => {
            crate::engine::cuda::masked::spmv_masked::<S>(Gpu::get()?, a, x, y, mask, replace)?
        }
        _ => cpu::masked::spmv_masked::<S>(a, x, y, mask, replace),
    }
    Ok(())
}
