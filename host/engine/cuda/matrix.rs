//! Device copies of the sparse formats: the same layouts as the host
//! formats in `crate::format`, uploaded as they are, with `usize` offsets
//! narrowed to the `u32` the kernels index with. A matrix whose offsets or
//! dimensions do not fit is refused with [`Error::TooLarge`] naming the
//! number, never truncated.

use cudarc::driver::{CudaSlice, DeviceRepr};
use gpu_kernels::args::{
    CompareArgs, CsrToEllArgs, DevPtr, ELL_NEAR_REACH, ELL_NEAR_SLICE, NarrowArgs,
};
use gpu_kernels::kernels::utility;

use super::Gpu;
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::{Bsr, Coo, Csr, Ell, Sell};

/// Largest count the kernels index: `u32`, less a warp, so that a lane's
/// `k + 32` never wraps.
pub(crate) const MAX_INDEX: usize = u32::MAX as usize - 64;

/// `n` as a kernel index, or an error naming `what`.
pub(crate) fn index(n: usize, what: &str) -> Result<u32> {
    if n <= MAX_INDEX {
        Ok(n as u32)
    } else {
        Err(Error::TooLarge(format!(
            "{what} is {n}; the GPU kernels index with u32 (at most {MAX_INDEX})"
        )))
    }
}

/// Offsets narrowed to `u32`, checked (the last offset is the largest).
fn offsets(ptr: &[usize], what: &str) -> Result<Vec<u32>> {
    index(ptr.last().copied().unwrap_or(0), what)?;
    Ok(ptr.iter().map(|&p| p as u32).collect())
}

/// A CSR matrix's arrays on the device brought back as a host [`Csr`] of
/// `shape`: offsets of any unsigned type, the first `nnz` columns and
/// values (the buffers may be longer).
pub fn download_csr<T: Scalar, P: DeviceRepr + Into<u64>>(
    gpu: &Gpu,
    (n_rows, n_cols): (usize, usize),
    row_ptr: &CudaSlice<P>,
    col_idx: &CudaSlice<u32>,
    values: &CudaSlice<T>,
    nnz: usize,
) -> Result<Csr<T>> {
    let row_ptr = gpu.download(row_ptr)?;
    let mut cols = vec![0u32; nnz];
    let mut vals = vec![T::ZERO; nnz];
    gpu.download_into(col_idx, 0..nnz, &mut cols)?;
    gpu.download_into(values, 0..nnz, &mut vals)?;
    let row_ptr = row_ptr.into_iter().map(|p| p.into() as usize).collect();
    Ok(Csr::from_parts_unchecked(
        n_rows, n_cols, row_ptr, cols, vals,
    ))
}

/// The integer type of an index array another library holds on the
/// device (CuPy's and PyTorch's `int32` and `int64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForeignIndex {
    /// Signed 32-bit: copied as the kernels' `u32` bits.
    I32,
    /// Signed 64-bit: narrowed to `u32` on the device.
    I64,
}

impl ForeignIndex {
    /// Bytes of one index.
    pub fn bytes(self) -> usize {
        match self {
            ForeignIndex::I32 => 4,
            ForeignIndex::I64 => 8,
        }
    }
}

/// A CSR matrix's three arrays held by another library on the device, by
/// address: what [`DevCsr::from_foreign`] copies.
#[derive(Clone, Copy, Debug)]
pub struct ForeignCsr {
    /// `(nrows, ncols)`.
    pub shape: (usize, usize),
    /// Address of the `nrows + 1` row offsets.
    pub indptr: u64,
    /// Their integer type.
    pub indptr_type: ForeignIndex,
    /// Address of the `nnz` column indices.
    pub indices: u64,
    /// Their integer type.
    pub indices_type: ForeignIndex,
    /// Address of the `nnz` values, of the matrix's value type.
    pub data: u64,
    /// Stored entries (the length of `indices` and `data`).
    pub nnz: usize,
}

/// CSR on the device.
pub struct DevCsr<T> {
    /// Rows.
    pub n_rows: u32,
    /// Columns.
    pub n_cols: u32,
    /// Stored entries.
    pub nnz: u32,
    /// Entries of the longest row; `u32::MAX` when not known (a product
    /// built on the device): SpGEMM skips what only long rows need.
    pub longest_row: u32,
    /// Row offsets, `n_rows + 1` of them.
    pub row_ptr: CudaSlice<u32>,
    /// Column of each entry, sorted within a row.
    pub col_idx: CudaSlice<u32>,
    /// Value of each entry.
    pub values: CudaSlice<T>,
}

impl<T: Scalar> DevCsr<T> {
    /// `a` copied to the device; a size past `u32` is an error.
    pub fn upload(gpu: &Gpu, a: &Csr<T>) -> Result<Self> {
        Ok(DevCsr {
            n_rows: index(a.nrows(), "the number of rows")?,
            n_cols: index(a.ncols(), "the number of columns")?,
            nnz: index(a.nnz(), "the number of stored entries")?,
            longest_row: (0..a.nrows()).map(|i| a.row_len(i)).max().unwrap_or(0) as u32,
            row_ptr: gpu.upload(&offsets(a.row_ptr(), "the number of stored entries")?)?,
            col_idx: gpu.upload(a.col_idx())?,
            values: gpu.upload(a.values())?,
        })
    }

    /// Bytes the three arrays occupy on the device.
    pub fn bytes(&self) -> usize {
        4 * (self.n_rows as usize + 1) + (4 + size_of::<T>()) * self.nnz as usize
    }

    /// A device CSR copied on the device from arrays another library (CuPy,
    /// PyTorch) holds there, with no trip through the host but for the row
    /// offsets (`nrows + 1` of them), which come back to be checked as
    /// [`Csr::try_new`] checks them: the first 0, none decreasing, the last
    /// `nnz`. Column indices are copied (`int32`) or narrowed on the device
    /// (`int64`), values copied, all on spmx's stream, which is synchronized
    /// before the call returns: the caller's arrays are free to change once
    /// it has.
    ///
    /// # Safety
    /// - `parts.indptr`, `parts.indices` and `parts.data` are device
    ///   addresses in the primary CUDA context of `gpu`'s device (the one
    ///   CuPy and the runtime API use), valid for `nrows + 1` indices,
    ///   `nnz` indices and `nnz` values of `T` respectively;
    /// - no work that writes them is queued or running (CuPy's current
    ///   stream synchronized), and nothing writes them until the call
    ///   returns;
    /// - every column index is in `0..ncols` and a row's indices increase
    ///   (not checked here: the kernels read `x` and `B` at them). The
    ///   Python package checks this on the device with CuPy first.
    pub unsafe fn from_foreign(gpu: &Gpu, parts: ForeignCsr) -> Result<Self> {
        let (n_rows, n_cols) = parts.shape;
        let nnz = index(parts.nnz, "the number of stored entries")?;
        let dims = (
            index(n_rows, "the number of rows")?,
            index(n_cols, "the number of columns")?,
        );
        let ctx = gpu.context();
        let driver = |what: &str, e| gpu.run_error(what, e);
        ctx.bind_to_thread()
            .map_err(|e| driver("binding the context", e))?;
        // Row offsets: to the host, checked, narrowed, and up again.
        let width = parts.indptr_type.bytes();
        let mut raw = vec![0u8; (n_rows + 1) * width];
        // SAFETY: `indptr` holds `nrows + 1` indices of `width` bytes (the
        // contract); the host buffer as many bytes. A synchronous copy.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut raw, parts.indptr) }
            .map_err(|e| driver("copying the row offsets", e))?;
        let row_ptr: Vec<i64> = match parts.indptr_type {
            ForeignIndex::I32 => raw
                .chunks_exact(4)
                .map(|b| i64::from(i32::from_ne_bytes(b.try_into().expect("4 bytes"))))
                .collect(),
            ForeignIndex::I64 => raw
                .chunks_exact(8)
                .map(|b| i64::from_ne_bytes(b.try_into().expect("8 bytes")))
                .collect(),
        };
        let row_ptr = foreign_offsets(&row_ptr, parts.nnz)?;
        let longest_row = row_ptr.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let row_ptr = gpu.upload(&row_ptr)?;
        // SAFETY: `data` holds `nnz` values of `T`, unwritten (the contract).
        let values = unsafe { gpu.copy_foreign::<T>(parts.data, parts.nnz)? };
        let col_idx = match parts.indices_type {
            // SAFETY: `indices` holds `nnz` 32-bit indices (the contract),
            // copied as the kernels' `u32` bits.
            ForeignIndex::I32 => unsafe { gpu.copy_foreign::<u32>(parts.indices, parts.nnz)? },
            ForeignIndex::I64 => {
                let mut col_idx = gpu.output::<u32>(parts.nnz)?;
                if parts.nnz > 0 {
                    let n = parts.nnz as u64;
                    let args = NarrowArgs {
                        // SAFETY: `indices` holds `nnz` 64-bit indices in
                        // this context (the contract), each below `ncols`.
                        input: unsafe { DevPtr::new(parts.indices) },
                        output: gpu.ptr_mut(&mut col_idx),
                        n,
                    };
                    let grid = n
                        .div_ceil(u64::from(Gpu::BLOCK))
                        .clamp(1, u64::from(gpu.sm_count()) * 32);
                    // SAFETY: `nnz` indices in and out; a grid-stride kernel.
                    unsafe {
                        gpu.launch(utility::narrow_offsets(), grid as u32, Gpu::BLOCK, 0, args)?
                    };
                }
                col_idx
            }
        };
        gpu.sync()?;
        Ok(DevCsr {
            n_rows: dims.0,
            n_cols: dims.1,
            nnz,
            longest_row,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// The row offsets, `n_rows + 1` of them, copied to the host (what a
    /// plan over a matrix already on the device reads to cut its work).
    pub fn row_offsets(&self, gpu: &Gpu) -> Result<Vec<usize>> {
        let offsets = gpu.download(&self.row_ptr)?;
        Ok(offsets[..=self.n_rows as usize]
            .iter()
            .map(|&o| o as usize)
            .collect())
    }

    /// The matrix on the host.
    pub fn download(&self, gpu: &Gpu) -> Result<Csr<T>> {
        let shape = (self.n_rows as usize, self.n_cols as usize);
        let nnz = self.nnz as usize;
        download_csr(gpu, shape, &self.row_ptr, &self.col_idx, &self.values, nnz)
    }

    /// Whether `self` and `other` hold the same matrix, bit for bit,
    /// compared on the device (one flag comes back). Values of 4 or 8 bytes.
    pub fn same_as(&self, gpu: &Gpu, other: &DevCsr<T>) -> Result<bool> {
        assert!(
            size_of::<T>().is_multiple_of(4),
            "same_as compares values as 32-bit words"
        );
        if (self.n_rows, self.n_cols, self.nnz) != (other.n_rows, other.n_cols, other.nnz) {
            return Ok(false);
        }
        let mut differ = gpu.zeros::<u32>(1)?;
        let nnz = u64::from(self.nnz);
        let words = size_of::<T>() as u64 / 4;
        let pairs = [
            (
                gpu.ptr(&self.row_ptr),
                gpu.ptr(&other.row_ptr),
                u64::from(self.n_rows) + 1,
            ),
            (gpu.ptr(&self.col_idx), gpu.ptr(&other.col_idx), nnz),
            (
                gpu.ptr(&self.values).cast(),
                gpu.ptr(&other.values).cast(),
                nnz * words,
            ),
        ];
        for (a, b, n) in pairs {
            // SAFETY: `a` and `b` are the same array of two matrices of one
            // shape and `nnz`, `n` words each.
            unsafe { queue_words_differ(gpu, a, b, n, &mut differ)? };
        }
        Ok(gpu.download(&differ)?[0] == 0)
    }
}

/// Queues the comparison of `n` 4-byte words at `a` and `b`, setting
/// `differ[0]` to 1 where any differs (left as it is otherwise).
///
/// # Safety
/// `a` and `b` address `n` words each of live buffers of `gpu`.
pub(crate) unsafe fn queue_words_differ(
    gpu: &Gpu,
    a: DevPtr<u32>,
    b: DevPtr<u32>,
    n: u64,
    differ: &mut CudaSlice<u32>,
) -> Result<()> {
    let args = CompareArgs {
        a,
        b,
        differ: gpu.ptr_mut(differ),
        n,
    };
    let grid = n
        .div_ceil(u64::from(Gpu::BLOCK))
        .clamp(1, u64::from(gpu.sm_count()) * 32);
    // SAFETY: the caller's `a`, `b` and `n`; `differ` one word at least. A
    // grid-stride kernel.
    unsafe { gpu.launch(utility::words_differ(), grid as u32, Gpu::BLOCK, 0, args) }
}

/// Row offsets read from another library checked as [`Csr::try_new`]
/// checks them (the first 0, none decreasing, the last `nnz`) and narrowed
/// to the kernels' `u32`.
fn foreign_offsets(row_ptr: &[i64], nnz: usize) -> Result<Vec<u32>> {
    let bad = |reason: String| Error::invalid("CSR", reason);
    if row_ptr.first() != Some(&0) {
        return Err(bad(format!("indptr[0] is {:?}, not 0", row_ptr.first())));
    }
    if let Some(i) = row_ptr.windows(2).position(|w| w[1] < w[0]) {
        return Err(bad(format!(
            "indptr decreases at row {i} ({} then {})",
            row_ptr[i],
            row_ptr[i + 1]
        )));
    }
    let last = *row_ptr.last().expect("indptr has nrows + 1 entries");
    if last != nnz as i64 {
        return Err(bad(format!(
            "indptr ends at {last}, but there are {nnz} stored entries"
        )));
    }
    // Increasing from 0 to `nnz`, which `index` checked fits u32.
    Ok(row_ptr.iter().map(|&p| p as u32).collect())
}

/// COO on the device (any entry order).
pub(crate) struct DevCoo<T> {
    pub(crate) n_rows: u32,
    pub(crate) nnz: u32,
    pub(crate) row_idx: CudaSlice<u32>,
    pub(crate) col_idx: CudaSlice<u32>,
    pub(crate) values: CudaSlice<T>,
}

impl<T: Scalar> DevCoo<T> {
    pub(crate) fn upload(gpu: &Gpu, a: &Coo<T>) -> Result<Self> {
        index(a.ncols(), "the number of columns")?;
        Ok(DevCoo {
            n_rows: index(a.nrows(), "the number of rows")?,
            nnz: index(a.nnz(), "the number of stored entries")?,
            row_idx: gpu.upload(a.rows())?,
            col_idx: gpu.upload(a.cols())?,
            values: gpu.upload(a.values())?,
        })
    }

    pub(crate) fn bytes(&self) -> usize {
        (8 + size_of::<T>()) * self.nnz as usize
    }
}

/// ELL on the device, column-major, padding slots marked by column.
pub struct DevEll<T> {
    pub(crate) n_rows: u32,
    pub(crate) width: u32,
    pub(crate) columns: DevEllColumns,
    pub(crate) values: CudaSlice<T>,
}

/// How a device ELL holds its slots' columns.
pub enum DevEllColumns {
    /// The column itself, [`ELL_PAD`](crate::format::ELL_PAD) for padding
    /// (kernel `spmv_ell`).
    Wide(CudaSlice<u32>),
    /// The column less the row plus `ELL_NEAR_BIAS`, in 16 bits,
    /// `ELL_NEAR_PAD` for padding, in slices of a warp's rows (kernel
    /// `spmv_ell_near`; see `gpu_kernels::args::SpmvEllNearArgs` and
    /// `ell_near_slot`): every entry within `ELL_NEAR_REACH` of the
    /// diagonal. Half the index bytes of `Wide`.
    Near(CudaSlice<u16>),
}

impl<T> DevEll<T> {
    /// The slots' columns.
    pub fn columns(&self) -> &DevEllColumns {
        &self.columns
    }

    /// The slots' values.
    pub fn values(&self) -> &CudaSlice<T> {
        &self.values
    }
}

impl<T: Scalar> DevEll<T> {
    /// `a` copied to the device, its columns as 16-bit offsets where they
    /// fit; a size past `u32` is an error.
    pub fn upload(gpu: &Gpu, a: &Ell<T>) -> Result<Self> {
        index(a.ncols(), "the number of columns")?;
        index(a.col_idx().len(), "the number of ELL slots")?;
        Ok(DevEll {
            n_rows: index(a.nrows(), "the number of rows")?,
            width: index(a.width(), "the ELL width")?,
            columns: DevEllColumns::Wide(gpu.upload(a.col_idx())?),
            values: gpu.upload(a.values())?,
        })
    }

    /// ELL of `width` (at least `a`'s longest row) made on the device from
    /// `a`, without converting on the host and uploading the padding.
    /// `bandwidth` is at least the farthest any entry of `a` lies from the
    /// diagonal ([`Csr::bandwidth`]). Where it is within `ELL_NEAR_REACH`,
    /// the slots hold the entries of [`Ell::from_csr_with_width`] as
    /// [`DevEllColumns::Near`] (16-bit offsets, slices of 32 rows);
    /// otherwise they are the very slots [`upload`](Self::upload) of it
    /// gives.
    ///
    /// # Safety
    /// `width` is at least `a`'s longest row (the conversion writes a row's
    /// entries in its `width` slots) and `bandwidth` at least the farthest
    /// entry from the diagonal (near-diagonal slots hold 16-bit offsets,
    /// which SpMV follows into `x`).
    pub unsafe fn from_dev_csr(
        gpu: &Gpu,
        a: &DevCsr<T>,
        width: usize,
        bandwidth: usize,
    ) -> Result<Self> {
        let n = a.n_rows as usize;
        let near = bandwidth <= ELL_NEAR_REACH as usize;
        let rows = if near {
            n.next_multiple_of(ELL_NEAR_SLICE)
        } else {
            n
        };
        let slots = rows.saturating_mul(width);
        index(slots, "the number of ELL slots")?;
        let mut values = gpu.output::<T>(slots)?;
        let mut columns = if near {
            DevEllColumns::Near(gpu.output::<u16>(slots)?)
        } else {
            DevEllColumns::Wide(gpu.output::<u32>(slots)?)
        };
        let ell_columns = match &mut columns {
            DevEllColumns::Wide(c) => gpu.ptr_mut(c).cast(),
            DevEllColumns::Near(c) => gpu.ptr_mut(c).cast(),
        };
        let args = CsrToEllArgs {
            row_ptr: gpu.ptr(&a.row_ptr),
            col_idx: gpu.ptr(&a.col_idx),
            values: gpu.ptr(&a.values).cast(),
            ell_columns,
            ell_values: gpu.ptr_mut(&mut values).cast(),
            n_rows: a.n_rows,
            width: index(width, "the ELL width")?,
        };
        let kernel = match (near, size_of::<T>()) {
            (false, 1) => utility::csr_to_ell_1(),
            (false, 4) => utility::csr_to_ell_4(),
            (false, _) => utility::csr_to_ell_8(),
            (true, 1) => utility::csr_to_ell_near_1(),
            (true, 4) => utility::csr_to_ell_near_4(),
            (true, _) => utility::csr_to_ell_near_8(),
        };
        if n > 0 {
            let grid = n
                .div_ceil(Gpu::BLOCK as usize)
                .min(gpu.sm_count() as usize * 32) as u32;
            // SAFETY: `a`'s arrays; `slots` = `rows · width` slots of
            // columns and values, `width` at least `a`'s longest row (the
            // caller's `width`, as documented), and the entry's value size
            // `T`'s. A grid-stride kernel.
            unsafe { gpu.launch(kernel, grid, Gpu::BLOCK, 0, args)? };
        }
        Ok(DevEll {
            n_rows: a.n_rows,
            width: args.width,
            columns,
            values,
        })
    }

    /// Device bytes the matrix takes (columns and values).
    pub fn bytes(&self) -> usize {
        let index_bytes = match &self.columns {
            DevEllColumns::Wide(_) => 4,
            DevEllColumns::Near(_) => 2,
        };
        (index_bytes + size_of::<T>()) * self.values.len()
    }
}

/// SELL-C-σ on the device.
pub(crate) struct DevSell<T> {
    pub(crate) n_rows: u32,
    pub(crate) c: u32,
    pub(crate) n_slices: u32,
    pub(crate) perm: CudaSlice<u32>,
    pub(crate) slice_ptr: CudaSlice<u32>,
    pub(crate) slice_width: CudaSlice<u32>,
    pub(crate) col_idx: CudaSlice<u32>,
    pub(crate) values: CudaSlice<T>,
}

impl<T: Scalar> DevSell<T> {
    pub(crate) fn upload(gpu: &Gpu, a: &Sell<T>) -> Result<Self> {
        index(a.ncols(), "the number of columns")?;
        Ok(DevSell {
            n_rows: index(a.nrows(), "the number of rows")?,
            c: index(a.slice_height(), "the slice height")?,
            n_slices: index(a.nslices(), "the number of slices")?,
            perm: gpu.upload(a.perm())?,
            slice_ptr: gpu.upload(&offsets(a.slice_ptr(), "the number of SELL slots")?)?,
            slice_width: gpu.upload(a.slice_width())?,
            col_idx: gpu.upload(a.col_idx())?,
            values: gpu.upload(a.values())?,
        })
    }

    pub(crate) fn bytes(&self) -> usize {
        4 * (self.perm.len() + self.slice_ptr.len() + self.slice_width.len())
            + (4 + size_of::<T>()) * self.col_idx.len()
    }
}

/// BSR on the device, with each block's occupancy mask.
pub(crate) struct DevBsr<T> {
    pub(crate) n_rows: u32,
    pub(crate) n_cols: u32,
    pub(crate) b: u32,
    pub(crate) block_row_ptr: CudaSlice<u32>,
    pub(crate) block_col: CudaSlice<u32>,
    pub(crate) values: CudaSlice<T>,
    pub(crate) masks: CudaSlice<u64>,
}

impl<T: Scalar> DevBsr<T> {
    pub(crate) fn upload(gpu: &Gpu, a: &Bsr<T>) -> Result<Self> {
        index(a.values().len(), "the number of BSR slots")?;
        Ok(DevBsr {
            n_rows: index(a.nrows(), "the number of rows")?,
            n_cols: index(a.ncols(), "the number of columns")?,
            b: a.block_size() as u32,
            block_row_ptr: gpu.upload(&offsets(a.block_row_ptr(), "the number of blocks")?)?,
            block_col: gpu.upload(a.block_col())?,
            values: gpu.upload(a.values())?,
            masks: gpu.upload(a.masks())?,
        })
    }

    pub(crate) fn bytes(&self) -> usize {
        4 * (self.block_row_ptr.len() + self.block_col.len())
            + size_of::<T>() * self.values.len()
            + 8 * self.masks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::foreign_offsets;

    #[test]
    fn foreign_offsets_are_checked_as_csr_checks_them() {
        assert_eq!(foreign_offsets(&[0, 2, 2, 5], 5).unwrap(), vec![0, 2, 2, 5]);
        assert_eq!(foreign_offsets(&[0], 0).unwrap(), vec![0]);
        for (ptr, nnz, says) in [
            (&[1, 2][..], 2, "indptr[0]"),
            (&[0, 3, 2][..], 3, "decreases at row 1"),
            (&[0, 2][..], 3, "ends at 2"),
        ] {
            let e = foreign_offsets(ptr, nnz).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
