//! SpGEMM's giant rows: which rows are giant, Bᵀ built on the device,
//! and each batch of giant rows gathered, folded over B's columns and
//! written out (`gpu_kernels::spgemm::giant`).

use std::marker::PhantomData;

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, DevPtrMut, SCAN_SHARED, SPGEMM_THREADS, SpgemmGatherArgs, SpgemmGiantNumericArgs,
    SpgemmGiantSymbolicArgs, SpgemmTransposeArgs,
};
use gpu_kernels::kernels::{family, utility};

use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::DevCsr;

use super::RESERVE;
use super::classify::exclusive_scan;
use crate::Scalar;
use crate::error::Result;

/// Entries of A a row needs to be giant (`gpu_kernels::spgemm::classify`): a
/// block of `spgemm_dense` walks a row's entries 32 a step of dependent
/// loads, so a row of 4096 takes 128 steps, about as long as a whole
/// product of the middle size; shorter walks cost less than a pass over
/// Bᵀ. Tried 256: 0.42–0.47×, as a batch of 32 giant rows costs four
/// launches and a pass over Bᵀ.
pub(super) const GIANT_MIN_LEN: u32 = 4096;

/// B's entries over the products a row needs to be giant: each batch
/// reads all of Bᵀ once, so its rows must do at least that much work
/// between them (a full batch of 32, at one 32nd each, does it once).
pub(super) const GIANT_SHARE: u64 = 32;

/// Part of the free device memory the giant rows' scratch (Bᵀ, a batch's
/// rows spread over B's rows and its columns) may take; beyond it, long
/// rows stay with `spgemm_dense`.
pub(super) const GIANT_MEMORY_SHARE: usize = 4;

impl<T: Scalar> Giant<T> {
    /// Queues one phase of the giant rows of a product whose C has offsets
    /// `c_row_ptr` (numeric) or row lengths `row_len` (symbolic), a batch
    /// at a time: `batches` holds each batch's list of rows (at most
    /// `SPGEMM_GIANT_BATCH`) and its length.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch<S: Semiring<Value = T>>(
        &mut self,
        gpu: &Gpu,
        (a, b): (&DevCsr<T>, &DevCsr<T>),
        (c_row_ptr, row_len): (&CudaSlice<u64>, &mut CudaSlice<u32>),
        batches: &[(DevPtr<u32>, u32)],
        numeric: bool,
        (c_col_idx, c_values): (DevPtrMut<u32>, DevPtrMut<T>),
        c_base: u64,
    ) -> Result<()> {
        let giant = self;
        let sms = gpu.sm_count();
        let warps = SPGEMM_THREADS / 32;
        for &(rows, n_batch) in batches {
            // The gather, then the same launch clearing what it set.
            macro_rules! gather {
                ($clear:expr) => {
                    SpgemmGatherArgs {
                        a_row_ptr: gpu.ptr(&a.row_ptr),
                        a_col_idx: gpu.ptr(&a.col_idx),
                        rows,
                        x_mask: gpu.ptr_mut(&mut giant.x_mask),
                        x_pos: gpu.ptr_mut(&mut giant.x_pos),
                        n_batch,
                        clear: $clear,
                    }
                };
            }
            let gather_kernel = utility::spgemm_giant_gather();
            // SAFETY: A's offsets and columns, `n_batch` rows listed at
            // `rows`, and the batch's spread of B's rows (`Giant::new`'s
            // sizes). A grid-stride kernel.
            unsafe { gpu.launch(gather_kernel, sms * 8, SPGEMM_THREADS, 0, gather!(0))? };
            let grid = b.n_cols.div_ceil(warps).clamp(1, sms * 64);
            // SAFETY: the gathered batch, Bᵀ of B (`Giant::new`), its
            // fold over B's `n_cols` columns into `out_*` (sized for them),
            // and C's arrays as in `launch_rows`. Warps over columns, then a
            // block of `GIANT_ROW_THREADS` a row with the scan's shared
            // memory, as the kernels require.
            unsafe {
                if numeric {
                    let args = SpgemmGiantNumericArgs {
                        a_values: gpu.ptr(&a.values),
                        b_values: gpu.ptr(&b.values),
                        bt_ptr: gpu.ptr(&giant.bt_ptr),
                        bt_keys: gpu.ptr(&giant.bt_keys),
                        x_mask: gpu.ptr(&giant.x_mask),
                        x_pos: gpu.ptr(&giant.x_pos),
                        rows,
                        out_mask: gpu.ptr_mut(&mut giant.out_mask),
                        out_values: gpu.ptr_mut(&mut giant.out_values),
                        c_row_ptr: gpu.ptr(c_row_ptr),
                        c_col_idx,
                        c_values,
                        c_base,
                        n_cols: b.n_cols,
                        pad: 0,
                    };
                    let columns = family::spgemm_giant_columns_numeric::<S>();
                    gpu.launch(columns, grid, SPGEMM_THREADS, 0, args)?;
                    let rows = family::spgemm_giant_rows_numeric::<S>();
                    gpu.launch(rows, n_batch, GIANT_ROW_THREADS, SCAN_SHARED, args)?;
                } else {
                    let args = SpgemmGiantSymbolicArgs {
                        bt_ptr: gpu.ptr(&giant.bt_ptr),
                        bt_keys: gpu.ptr(&giant.bt_keys),
                        x_mask: gpu.ptr(&giant.x_mask),
                        rows,
                        out_mask: gpu.ptr_mut(&mut giant.out_mask),
                        row_len: gpu.ptr_mut(row_len),
                        n_cols: b.n_cols,
                        pad: 0,
                        values: PhantomData,
                    };
                    let columns = family::spgemm_giant_columns_symbolic::<S>();
                    gpu.launch(columns, grid, SPGEMM_THREADS, 0, args)?;
                    let rows = family::spgemm_giant_rows_symbolic::<S>();
                    gpu.launch(rows, n_batch, GIANT_ROW_THREADS, SCAN_SHARED, args)?;
                }
                gpu.launch(gather_kernel, sms * 8, SPGEMM_THREADS, 0, gather!(1))?;
            }
        }
        Ok(())
    }
}

/// Threads of a block of `spgemm_giant_rows`: a giant row is read out by
/// one block over all of B's columns, so it takes the most a block has.
pub(super) const GIANT_ROW_THREADS: u32 = 1024;

/// The least products and entries of A of a giant row for A ⊗ B; none is
/// giant when no row of A is long enough, or when the giant rows' scratch
/// would not fit its share of the free memory.
pub(super) fn giant_rule<T: Scalar>(gpu: &Gpu, a: &DevCsr<T>, b: &DevCsr<T>) -> Result<(u64, u32)> {
    if a.longest_row < GIANT_MIN_LEN {
        return Ok((u64::MAX, u32::MAX));
    }
    let free = gpu.memory()?.0.saturating_sub(RESERVE);
    Ok(if Giant::<T>::bytes(b) <= free / GIANT_MEMORY_SHARE {
        ((u64::from(b.nnz) / GIANT_SHARE).max(1), GIANT_MIN_LEN)
    } else {
        (u64::MAX, u32::MAX)
    })
}

/// What the giant rows of a product keep on the device: Bᵀ, and a batch's
/// rows spread over B's rows and folded over its columns.
pub(super) struct Giant<T> {
    pub(super) bt_ptr: CudaSlice<u64>,
    pub(super) bt_keys: CudaSlice<u64>,
    /// Zero between batches.
    pub(super) x_mask: CudaSlice<u32>,
    pub(super) x_pos: CudaSlice<u32>,
    pub(super) out_mask: CudaSlice<u32>,
    pub(super) out_values: CudaSlice<T>,
}

impl<T: Scalar> Giant<T> {
    /// Device bytes of the scratch for B (the transpose's counts included).
    pub(super) fn bytes(b: &DevCsr<T>) -> usize {
        let (rows, cols, nnz) = (b.n_rows as usize, b.n_cols as usize, b.nnz as usize);
        rows * (4 + 4 * 32) + cols * (4 + 32 * size_of::<T>() + 8 + 4) + nnz * 8
    }

    /// Bᵀ built on the device, and the batch's buffers.
    pub(super) fn new(gpu: &Gpu, b: &DevCsr<T>) -> Result<Self> {
        let (rows, cols) = (b.n_rows, b.n_cols);
        let sms = gpu.sm_count();
        let warps = SPGEMM_THREADS / 32;
        let mut col_count = gpu.zeros::<u32>(cols.max(1) as usize)?;
        let mut bt_keys = gpu.output::<u64>((b.nnz as usize).max(1))?;
        // The struct of each step, which borrows the buffers for its
        // launches only: B's offsets `col_ptr` (once scanned) and whether
        // the sort takes the long columns vary.
        macro_rules! args {
            ($col_ptr:expr, $long:expr) => {
                SpgemmTransposeArgs {
                    b_row_ptr: gpu.ptr(&b.row_ptr),
                    b_col_idx: gpu.ptr(&b.col_idx),
                    col_count: gpu.ptr_mut(&mut col_count),
                    col_ptr: $col_ptr,
                    keys: gpu.ptr_mut(&mut bt_keys),
                    n_rows: rows,
                    n_cols: cols,
                    long: $long,
                    pad: 0,
                }
            };
        }
        let args = args!(DevPtr::null(), 0);
        let grid = b.nnz.div_ceil(SPGEMM_THREADS).clamp(1, sms * 32);
        // SAFETY (the four launches): B's arrays, `cols` counts, `nnz`
        // keys, and from the scatter on `cols + 1` offsets; grid-stride
        // kernels over entries, rows (a warp each), columns (a warp, then a
        // block each).
        unsafe {
            let kernel = utility::spgemm_transpose_count();
            gpu.launch(kernel, grid, SPGEMM_THREADS, 0, args)?;
        }
        let bt_ptr = exclusive_scan(gpu, &col_count, cols)?;
        let args = args!(gpu.ptr(&bt_ptr), 0);
        let grid = rows.div_ceil(warps).clamp(1, sms * 64);
        unsafe {
            let kernel = utility::spgemm_transpose_scatter();
            gpu.launch(kernel, grid, SPGEMM_THREADS, 0, args)?;
        }
        let grid = cols.div_ceil(warps).clamp(1, sms * 64);
        let sort = utility::spgemm_transpose_sort();
        unsafe { gpu.launch(sort, grid, SPGEMM_THREADS, 0, args)? };
        let args = args!(gpu.ptr(&bt_ptr), 1);
        let grid = cols.clamp(1, sms * 16);
        unsafe { gpu.launch(sort, grid, SPGEMM_THREADS, 0, args)? };
        Ok(Giant {
            bt_ptr,
            bt_keys,
            x_mask: gpu.zeros::<u32>(rows.max(1) as usize)?,
            x_pos: gpu.output::<u32>(32 * rows.max(1) as usize)?,
            out_mask: gpu.output::<u32>(cols.max(1) as usize)?,
            out_values: gpu.output::<T>(32 * cols.max(1) as usize)?,
        })
    }
}
