//! The SpMV launches: a plan's matrix, `x` and `y` as the argument struct
//! of its kernel (`gpu_kernels::args::Spmv*Args`), queued through the
//! kernel's typed handle.

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, DevPtrMut, SpmvBsrArgs, SpmvCooArgs, SpmvCsrAdaptiveArgs, SpmvCsrArgs,
    SpmvCsrMergeArgs, SpmvEllArgs, SpmvEllNearArgs, SpmvSellArgs,
};
use gpu_kernels::kernels::family;

use super::balance::BLOCK;
use super::{DevMatrix, SpmvKernel, SpmvPlan};
use crate::Scalar;
use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::{DevCoo, DevEll, DevEllColumns};
use crate::error::Result;

impl<T: Scalar> SpmvPlan<T> {
    /// Queues `y = A ⊗ x` on the GPU's stream (`x` has A's column count
    /// of entries, `y` its row count). Every entry of `y` is written.
    pub fn run<S: Semiring<Value = T>>(
        &mut self,
        gpu: &Gpu,
        x: &CudaSlice<T>,
        y: &mut CudaSlice<T>,
    ) -> Result<()> {
        assert_eq!(x.len(), self.n_cols as usize, "x.len() != A.ncols()");
        assert_eq!(y.len(), self.n_rows as usize, "y.len() != A.nrows()");
        let (xp, yp) = (gpu.ptr(x), gpu.ptr_mut(y));
        // SAFETY (every launch below): the plan's matrix, uploaded from a
        // checked host matrix of this shape, or a `DevCsr` on the device,
        // whose offsets were checked and whose indices its maker vouched
        // for (`DevCsr::from_foreign`'s contract): its arrays, indices in range,
        // `x` of `A.ncols()` and `y` of `A.nrows()` values (checked above),
        // the plan's scratch sized for its matrix at `new`, and the
        // geometry each kernel documents: grid-stride threads (a row, a
        // `lanes` group a row, a slice's row, a block row, an entry), a
        // block of `BLOCK` threads a row block with its staging for the
        // adaptive kernel, a warp a part with its staging for the merge.
        match &self.matrix {
            DevMatrix::Csr(m) => {
                let args = SpmvCsrArgs {
                    row_ptr: gpu.ptr(&m.row_ptr),
                    col_idx: gpu.ptr(&m.col_idx),
                    values: gpu.ptr(&m.values),
                    x: xp,
                    y: yp,
                    n_rows: m.n_rows,
                    n_cols: m.n_cols,
                    lanes: self.lanes,
                    _pad: 0,
                };
                match self.kernel {
                    SpmvKernel::CsrScalar => unsafe {
                        gpu.launch_threads(family::spmv_csr_scalar::<S>(), m.n_rows.into(), args)
                    },
                    SpmvKernel::CsrVector => {
                        let threads = u64::from(m.n_rows) * u64::from(self.lanes);
                        unsafe { gpu.launch_threads(family::spmv_csr_vector::<S>(), threads, args) }
                    }
                    SpmvKernel::CsrAdaptive => {
                        let blocks = self
                            .adaptive
                            .as_mut()
                            .expect("adaptive plan has row blocks");
                        let n_blocks = (blocks.bounds.len() / 2 - 1) as u32;
                        let args = SpmvCsrAdaptiveArgs {
                            row_ptr: args.row_ptr,
                            col_idx: args.col_idx,
                            values: args.values,
                            x: xp,
                            y: yp,
                            blocks: gpu.ptr(&blocks.bounds),
                            partial: gpu.ptr_mut(&mut blocks.partial),
                            done: gpu.ptr_mut(&mut blocks.done),
                            n_blocks,
                            block_nnz: blocks.block_nnz,
                        };
                        let shared = blocks.block_nnz * size_of::<T>() as u32 + (BLOCK + 1) * 4;
                        let kernel = family::spmv_csr_adaptive::<S>();
                        unsafe { gpu.launch(kernel, n_blocks, BLOCK, shared, args) }
                    }
                    _ => {
                        let carry = self.carry.as_mut().expect("merge plan has carries");
                        let parts = carry.rows.len() as u32;
                        let args = SpmvCsrMergeArgs {
                            row_ptr: args.row_ptr,
                            col_idx: args.col_idx,
                            values: args.values,
                            x: xp,
                            y: yp,
                            carry_row: gpu.ptr_mut(&mut carry.rows),
                            carry_val: gpu.ptr_mut(&mut carry.sums),
                            part_rows: gpu.ptr(&carry.part_rows),
                            n_rows: m.n_rows,
                            nnz: m.nnz,
                            n_parts: parts,
                            items_per_part: carry.items_per_part,
                        };
                        let threads = u64::from(parts) * 32;
                        let stage = SpmvCsrMergeArgs::<T>::stage_bytes(
                            carry.items_per_part,
                            size_of::<T>() as u32,
                        ) / 32;
                        unsafe {
                            let merge = family::spmv_csr_merge::<S>();
                            gpu.launch_threads_shared(merge, threads, stage, args)?;
                            gpu.launch_threads(family::spmv_csr_merge_fixup::<S>(), threads, args)
                        }
                    }
                }
            }
            DevMatrix::Coo(m) => {
                let zero = self.zero_y.as_ref().expect("COO plan has a zero y");
                gpu.copy_device(zero, y)?;
                unsafe { coo_atomic::<S, T>(gpu, m, xp, gpu.ptr_mut(y)) }
            }
            DevMatrix::Ell(e) => unsafe { ell::<S, T>(gpu, e, xp, yp) },
            DevMatrix::Hyb(e, c) => unsafe {
                ell::<S, T>(gpu, e, xp, yp)?;
                coo_atomic::<S, T>(gpu, c, xp, yp)
            },
            DevMatrix::Sell(m) => {
                let args = SpmvSellArgs {
                    perm: gpu.ptr(&m.perm),
                    slice_ptr: gpu.ptr(&m.slice_ptr),
                    slice_width: gpu.ptr(&m.slice_width),
                    col_idx: gpu.ptr(&m.col_idx),
                    values: gpu.ptr(&m.values),
                    x: xp,
                    y: yp,
                    n_rows: m.n_rows,
                    c: m.c,
                    n_slices: m.n_slices,
                    _pad: 0,
                };
                let threads = u64::from(m.n_slices) * u64::from(m.c);
                unsafe { gpu.launch_threads(family::spmv_sell::<S>(), threads, args) }
            }
            DevMatrix::Bsr(m) => {
                let args = SpmvBsrArgs {
                    block_row_ptr: gpu.ptr(&m.block_row_ptr),
                    block_col: gpu.ptr(&m.block_col),
                    values: gpu.ptr(&m.values),
                    masks: gpu.ptr(&m.masks),
                    x: xp,
                    y: yp,
                    n_rows: m.n_rows,
                    n_cols: m.n_cols,
                    b: m.b,
                    _pad: 0,
                };
                unsafe { gpu.launch_threads(family::spmv_bsr::<S>(), m.n_rows.into(), args) }
            }
        }
    }
}

/// Queues `y = A ⊗ x` for ELL `e`.
///
/// # Safety
/// `x` and `y` address buffers of `e`'s columns and rows that live until
/// the launch is queued.
unsafe fn ell<S, T: Scalar>(gpu: &Gpu, e: &DevEll<T>, x: DevPtr<T>, y: DevPtrMut<T>) -> Result<()>
where
    S: Semiring<Value = T>,
{
    let (values, n_rows, width) = (gpu.ptr(&e.values), e.n_rows, e.width);
    match &e.columns {
        DevEllColumns::Wide(cols) => {
            let col_idx = gpu.ptr(cols);
            let args = SpmvEllArgs {
                col_idx,
                values,
                x,
                y,
                n_rows,
                width,
            };
            // SAFETY: `e`'s slots, a thread a row; `x` and `y` the caller's.
            unsafe { gpu.launch_threads(family::spmv_ell::<S>(), n_rows.into(), args) }
        }
        DevEllColumns::Near(offsets) => {
            let offsets = gpu.ptr(offsets);
            let args = SpmvEllNearArgs {
                offsets,
                values,
                x,
                y,
                n_rows,
                width,
            };
            // SAFETY: as `spmv_ell`, every offset within `ELL_NEAR_REACH`.
            unsafe { gpu.launch_threads(family::spmv_ell_near::<S>(), n_rows.into(), args) }
        }
    }
}

/// Queues `y ⊕= A ⊗ x` for COO `c`.
///
/// # Safety
/// As [`ell`].
unsafe fn coo_atomic<S, T: Scalar>(
    gpu: &Gpu,
    c: &DevCoo<T>,
    x: DevPtr<T>,
    y: DevPtrMut<T>,
) -> Result<()>
where
    S: Semiring<Value = T>,
{
    let args = SpmvCooArgs {
        row_idx: gpu.ptr(&c.row_idx),
        col_idx: gpu.ptr(&c.col_idx),
        values: gpu.ptr(&c.values),
        x,
        y,
        nnz: c.nnz,
        n_rows: c.n_rows,
    };
    // SAFETY: `c`'s entries, a thread each; `x` and `y` the caller's.
    unsafe { gpu.launch_threads(family::spmv_coo_atomic::<S>(), c.nnz.into(), args) }
}
