//! Masked products on the GPU (`gpu_kernels::masked`): `C⟨M⟩ = A ⊗ B` by
//! a dot product an entry of a structural mask (`spgemm_masked_dot`, Bᵀ
//! made on the host) and `y⟨m⟩ = A ⊗ x` a thread a row
//! (`spmv_csr_masked`). One-shot host calls behind `ops::spgemm_masked`
//! and `ops::spmv_masked` on the cuda engine: upload, run, download. The
//! bits are the CPU engines'. Triangle counting's `L·Lᵀ⟨L⟩` summed
//! ([`count_triangles`], `triangle_count`) needs no values, no Bᵀ and no
//! C: one count comes back; [`count_triangles_on_device`] makes L on the
//! device too, from a matrix kept there whose pattern is symmetric.
//!
//! A complemented mask allows most of A·B: its product is the unmasked
//! one filtered, which the CPU engines do row by row without forming the
//! rest; the GPU has no kernel for it ([`Error::Unavailable`]).

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, DevPtrMut, SpgemmMaskedDotArgs, SpmvCsrMaskedArgs, TriangleCountArgs,
    TriangleLowerArgs, TriangleSymmetricArgs,
};
use gpu_kernels::kernels::{family, utility};

use super::Gpu;
use super::matrix::{DevCsr, index};
use super::spgemm::exclusive_scan;
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

/// The triangles of the graph whose strictly lower triangle is L, given
/// by its `row_ptr` and `col_idx` (a row's columns increasing, each below
/// its row): each entry `(i, j)` a thread, which counts where L's rows `i`
/// and `j` meet.
pub fn count_triangles(gpu: &Gpu, row_ptr: &[usize], col_idx: &[u32]) -> Result<u64> {
    let offsets: Vec<u64> = row_ptr.iter().map(|&p| p as u64).collect();
    let rows: Vec<u32> = (row_ptr.windows(2).enumerate())
        .flat_map(|(i, span)| std::iter::repeat_n(i as u32, span[1] - span[0]))
        .collect();
    let l = LowerOnDevice {
        row_ptr: gpu.upload(&offsets)?,
        col_idx: gpu.upload(col_idx)?,
        rows: gpu.upload(&rows)?,
    };
    l.count(gpu)
}

/// The triangles and the undirected edges of the graph of `a`'s pattern
/// (square), L made on the device with its vertices ordered by number or
/// `by_degree`: `None` where the pattern is not symmetric (checked on the
/// device first), for the caller to make L on the host. Counts and edges
/// are those of `app::triangles` on the same graph.
pub fn count_triangles_on_device<T>(
    gpu: &Gpu,
    a: &DevCsr<T>,
    by_degree: bool,
) -> Result<Option<(u64, usize)>> {
    let n = a.n_rows;
    if a.nnz == 0 {
        return Ok(Some((0, 0)));
    }
    let mut asymmetric = gpu.zeros::<u32>(1)?;
    let args = TriangleSymmetricArgs {
        row_ptr: gpu.ptr(&a.row_ptr),
        col_idx: gpu.ptr(&a.col_idx),
        asymmetric: gpu.ptr_mut(&mut asymmetric),
        n,
        _pad: 0,
    };
    // A warp a row.
    let warps = u64::from(n) * 32;
    // SAFETY: a square DevCsr (checked offsets and columns) of `n` rows,
    // one zeroed flag; grid-stride over warps, blocks of whole warps.
    unsafe { gpu.launch_threads(utility::triangle_symmetric(), warps, args)? };
    if gpu.download(&asymmetric)?[0] != 0 {
        return Ok(None);
    }
    let mut lengths = gpu.output::<u32>(n as usize)?;
    // The struct of each pass (lengths, then L's fill), which borrows the
    // buffers for its launch only: L's arrays exist from the second on.
    macro_rules! args {
        ($l_row_ptr:expr, $l_col_idx:expr, $l_rows:expr) => {
            TriangleLowerArgs {
                row_ptr: gpu.ptr(&a.row_ptr),
                col_idx: gpu.ptr(&a.col_idx),
                lengths: gpu.ptr_mut(&mut lengths),
                l_row_ptr: $l_row_ptr,
                l_col_idx: $l_col_idx,
                l_rows: $l_rows,
                n,
                by_degree: u32::from(by_degree),
            }
        };
    }
    let args = args!(DevPtr::null(), DevPtrMut::null(), DevPtrMut::null());
    // SAFETY: as above, `lengths` one a row.
    unsafe { gpu.launch_threads(utility::triangle_lower_lengths(), warps, args)? };
    let row_ptr = exclusive_scan(gpu, &lengths, n)?;
    let mut edges = [0u64];
    gpu.download_into(&row_ptr, n as usize..n as usize + 1, &mut edges)?;
    let edges = edges[0] as usize;
    if edges == 0 {
        return Ok(Some((0, 0)));
    }
    let (mut col_idx, mut rows) = (gpu.output::<u32>(edges)?, gpu.output::<u32>(edges)?);
    let args = args!(
        gpu.ptr(&row_ptr),
        gpu.ptr_mut(&mut col_idx),
        gpu.ptr_mut(&mut rows)
    );
    // SAFETY: as above, `row_ptr` the exclusive scan of the lengths just
    // written, `col_idx` and `rows` of its total; a warp a row.
    unsafe { gpu.launch_threads(utility::triangle_lower_fill(), warps, args)? };
    let l = LowerOnDevice {
        row_ptr,
        col_idx,
        rows,
    };
    Ok(Some((l.count(gpu)?, edges)))
}

/// L (a strictly lower triangle's pattern) on the device: `n + 1`
/// offsets, each entry's column (increasing in a row, below the row) and
/// row.
struct LowerOnDevice {
    row_ptr: CudaSlice<u64>,
    col_idx: CudaSlice<u32>,
    rows: CudaSlice<u32>,
}

impl LowerOnDevice {
    /// The triangles: `triangle_count`, one u64 back.
    fn count(&self, gpu: &Gpu) -> Result<u64> {
        let nnz = index(self.col_idx.len(), "the lower triangle's entries")?;
        let mut count = gpu.zeros::<u64>(1)?;
        let args = TriangleCountArgs {
            row_ptr: gpu.ptr(&self.row_ptr),
            col_idx: gpu.ptr(&self.col_idx),
            entry_rows: gpu.ptr(&self.rows),
            count: gpu.ptr_mut(&mut count),
            nnz,
            _pad: 0,
        };
        // SAFETY: L's offsets, columns (increasing, each a row of L below
        // its own) and entry rows, its `nnz` fitting u32; `count` one
        // zeroed u64; blocks of `Gpu::BLOCK` threads, whole warps.
        unsafe { gpu.launch_threads(utility::triangle_count(), nnz.into(), args)? };
        Ok(gpu.download(&count)?[0])
    }
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
