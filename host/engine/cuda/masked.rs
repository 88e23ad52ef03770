//! Masked products on the GPU (`gpu_kernels::masked`): `C⟨M⟩ = A ⊗ B` by
//! a dot product an entry of a structural mask (`spgemm_masked_dot`, Bᵀ
//! made on the host) and `y⟨m⟩ = A ⊗ x` a thread a row
//! (`spmv_csr_masked`). One-shot host calls behind `ops::spgemm_masked`
//! and `ops::spmv_masked` on the cuda engine: upload, run, download. The
//! bits are the CPU engines'.
//!
//! A complemented mask allows most of A·B: its product is the unmasked
//! one filtered, which the CPU engines do row by row without forming the
//! rest; the GPU has no kernel for it ([`Error::Unavailable`]).

use gpu_kernels::Semiring;
use gpu_kernels::args::{SpgemmMaskedDotArgs, SpmvCsrMaskedArgs};
use gpu_kernels::kernels::family;

use super::Gpu;
use super::matrix::{DevCsr, index};
use crate::Scalar;
use crate::engine::shared::masked::{Mask, VectorMask};
use crate::error::{Error, Result};
use crate::format::Csr;

/// `C⟨M⟩ = A ⊗ B` on the GPU, shapes already checked: each entry of M a
/// thread, which merges A's row with Bᵀ's; the entries formed come back
/// and make C, in M's order.
pub fn spgemm_masked<S: Semiring, M: Scalar>(
    gpu: &Gpu,
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mask: Mask<'_, M>,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    if mask.complement {
        return Err(Error::Unavailable {
            engine: "cuda",
            reason: "the GPU has masked SpGEMM for a structural mask, not its complement; \
                     use --engine cpu"
                .into(),
        });
    }
    let m = mask.pattern;
    let n = index(m.nnz(), "the mask's stored entries")?;
    let (da, dbt) = (
        DevCsr::upload(gpu, a)?,
        DevCsr::upload(gpu, &b.transpose())?,
    );
    let (rows, cols) = (gpu.upload(&m.entry_rows())?, gpu.upload(m.col_idx())?);
    let mut values = gpu.output::<S::Value>(m.nnz())?;
    let mut formed = gpu.output::<u32>(m.nnz())?;
    let args = SpgemmMaskedDotArgs {
        a_row_ptr: gpu.ptr(&da.row_ptr),
        a_col_idx: gpu.ptr(&da.col_idx),
        a_values: gpu.ptr(&da.values),
        bt_row_ptr: gpu.ptr(&dbt.row_ptr),
        bt_col_idx: gpu.ptr(&dbt.col_idx),
        bt_values: gpu.ptr(&dbt.values),
        mask_rows: gpu.ptr(&rows),
        mask_cols: gpu.ptr(&cols),
        values: gpu.ptr_mut(&mut values),
        formed: gpu.ptr_mut(&mut formed),
        mask_nnz: n,
        _pad: 0,
    };
    // SAFETY: A and Bᵀ uploaded from checked matrices; M's entries are
    // rows of A and columns of B (the caller checked M against A·B's
    // shape), `values` and `formed` one an entry of M; grid-stride.
    unsafe { gpu.launch_threads(family::spgemm_masked_dot::<S>(), n.into(), args)? };
    let (values, formed) = (gpu.download(&values)?, gpu.download(&formed)?);
    let mut row_ptr = Vec::with_capacity(m.nrows() + 1);
    let (mut c_cols, mut c_vals) = (Vec::new(), Vec::new());
    row_ptr.push(0);
    for i in 0..m.nrows() {
        let span = m.row_ptr()[i]..m.row_ptr()[i + 1];
        for e in span.filter(|&e| formed[e] != 0) {
            c_cols.push(m.col_idx()[e]);
            c_vals.push(values[e]);
        }
        row_ptr.push(c_cols.len());
    }
    Csr::try_new(m.nrows(), m.ncols(), row_ptr, c_cols, c_vals)
}

/// `y⟨m⟩ = A ⊗ x` on the GPU, in place, lengths already checked: the
/// allowed rows computed, the others kept or (`replace`) set to the zero.
pub fn spmv_masked<S: Semiring>(
    gpu: &Gpu,
    a: &Csr<S::Value>,
    x: &[S::Value],
    y: &mut [S::Value],
    mask: VectorMask<'_>,
    replace: bool,
) -> Result<()>
where
    S::Value: Scalar,
{
    let da = DevCsr::upload(gpu, a)?;
    let (dx, allowed) = (gpu.upload(x)?, gpu.upload(mask.allowed)?);
    let mut dy = gpu.upload(y)?;
    let args = SpmvCsrMaskedArgs {
        row_ptr: gpu.ptr(&da.row_ptr),
        col_idx: gpu.ptr(&da.col_idx),
        values: gpu.ptr(&da.values),
        x: gpu.ptr(&dx),
        y: gpu.ptr_mut(&mut dy),
        allowed: gpu.ptr(&allowed),
        n_rows: da.n_rows,
        complement: u32::from(mask.complement),
        replace: u32::from(replace),
        _pad: 0,
    };
    // SAFETY: A uploaded from a checked matrix, `x` of its columns, `y`
    // and the flags of its rows (the caller checked); grid-stride.
    unsafe { gpu.launch_threads(family::spmv_csr_masked::<S>(), da.n_rows.into(), args)? };
    y.copy_from_slice(&gpu.download(&dy)?);
    Ok(())
}
