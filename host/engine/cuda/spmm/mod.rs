//! SpMM on the GPU: `C = A ⊗ B` with A sparse (CSR, m × n) and B, C dense
//! (n × k, m × k), row-major or column-major, with the kernels of
//! `gpu_kernels::spmm`.
//!
//! An [`SpmmPlan`] holds A on the device with everything its kernel needs
//! (for `block-rows`, A's entries cut into nnz-balanced blocks, each
//! entry's row, and scratch for the pieces of long rows) and queues the
//! product on any B and C already there: build it once, run it many times
//! (what `spmx bench spmm` times). [`spmm`] is the one-shot host call
//! behind `ops::spmm` on the cuda engine.
//!
//! Column-major operands go through `transposed`: B transposed to
//! row-major on the device (`gpu_kernels::util`'s `transpose_*`), the
//! row-major kernel, C transposed back, all in one [`SpmmPlan::run`].
//!
//! [`SpmmKernel::Auto`] picks from the layout (`choose`); the row-length
//! statistics shape the blocks, and `k` the lanes a block's group takes
//! (`BlockShape::for_k`), halved where most entries would otherwise be
//! in pieces summed through partial rows (`BlockShape::narrow`).
//!
//! The map across the two crates (kernel → where its host side lives →
//! argument struct in `gpu_kernels::args` → entry points in
//! `gpu_kernels::spmm`, stamped per semiring, or `gpu_kernels::util`):
//!
//! | `--kernel` | host side | arguments | entry points |
//! |---|---|---|---|
//! | `block-rows`, `block-rows-fused` | `partition` (blocks cut on the host), `blocks` (on the device, launches) | `SpmmBlockArgs`, `SpmmFixupArgs` | `spmm_csr_block`, `spmm_csr_block_vec` (16-byte loads), their `_fused` forms, `spmm_csr_fixup` |
//! | `thread-row` | [`SpmmPlan::run`] | `SpmmCsrThreadArgs` | `spmm_csr_thread` |
//! | `transposed` | [`SpmmPlan::run`], `transpose` | `TransposeArgs`, then `block-rows`' | `transpose_1`, `transpose_4`, `transpose_8` (`util`), then `block-rows`' |

mod blocks;
mod partition;

use blocks::Blocks;
use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{SPMM_THREAD_COLS, SpmmCsrThreadArgs, TRANSPOSE_THREADS, TransposeArgs};
use gpu_kernels::kernels::{family, utility};

use std::sync::Arc;

use super::Gpu;
use super::matrix::{DevCsr, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::{Csr, Dense};

/// How a dense operand is stored on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenseLayout {
    /// Element `(i, j)` at `i · cols + j` (the host's [`Dense`]).
    RowMajor,
    /// Element `(i, j)` at `j · rows + i` (cuBLAS's and Fortran's).
    ColMajor,
}

impl DenseLayout {
    /// Every layout.
    pub const ALL: [DenseLayout; 2] = [DenseLayout::RowMajor, DenseLayout::ColMajor];

    /// Its name on the command line (`row-major`, `col-major`).
    pub fn name(self) -> &'static str {
        match self {
            DenseLayout::RowMajor => "row-major",
            DenseLayout::ColMajor => "col-major",
        }
    }
}

parse_by_name!(DenseLayout, "layout");

/// A GPU SpMM kernel, named as on the command line (`--kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmmKernel {
    /// Chosen by `choose`.
    Auto,
    /// Row-major: nnz-balanced blocks of whole rows (rows longer than a
    /// block cut into pieces, combined in order by a second launch), a
    /// group of lanes per block and tile of columns, streaming the block's
    /// entries across row boundaries.
    BlockRows,
    /// `block-rows` with each long row's pieces combined by the last of
    /// them to finish, in the same order: one launch, an atomic count a
    /// piece (`auto` takes it where no long row has many pieces).
    BlockRowsFused,
    /// Any layout: a thread per row and 8 columns, summing in row order
    /// (the serial engine's bits).
    ThreadRow,
    /// Column-major: B transposed to row-major on the device, `block-rows`
    /// (fused as `auto` chooses), C transposed back; both transposes are
    /// part of the run. The kernel `auto` takes for column-major operands.
    Transposed,
}

impl SpmmKernel {
    /// Every choice, `Auto` first.
    pub const ALL: [SpmmKernel; 5] = [
        SpmmKernel::Auto,
        SpmmKernel::BlockRows,
        SpmmKernel::BlockRowsFused,
        SpmmKernel::ThreadRow,
        SpmmKernel::Transposed,
    ];

    /// Its name on the command line (`--kernel`).
    pub fn name(self) -> &'static str {
        match self {
            SpmmKernel::Auto => "auto",
            SpmmKernel::BlockRows => "block-rows",
            SpmmKernel::BlockRowsFused => "block-rows-fused",
            SpmmKernel::ThreadRow => "thread-row",
            SpmmKernel::Transposed => "transposed",
        }
    }
}

parse_by_name!(SpmmKernel, "SpMM kernel");

/// The kernel [`SpmmKernel::Auto`] runs: `block-rows`, fused where rows
/// were cut into few pieces (`Blocks::fused`), for row-major operands;
/// for column-major ones the same behind two transposes (`transposed`):
/// a transpose streams B and C once at copy bandwidth, while `thread-row`
/// leaves a long row to one thread and reads B a column at a time.
pub(crate) fn choose(layout: DenseLayout) -> SpmmKernel {
    match layout {
        DenseLayout::ColMajor => SpmmKernel::Transposed,
        DenseLayout::RowMajor => SpmmKernel::BlockRows,
    }
}

/// An SpMM ready to run: A on the device, the kernel and its shape.
pub struct SpmmPlan<T> {
    kernel: SpmmKernel,
    layout: DenseLayout,
    k: u32,
    a: Arc<DevCsr<T>>,
    /// `block-rows`' blocks (`None` for `thread-row`).
    blocks: Option<Blocks<T>>,
    /// `transposed`: B and C in row-major order.
    row_major: Option<(CudaSlice<T>, CudaSlice<T>)>,
}

impl<T: Scalar> SpmmPlan<T> {
    /// Uploads A for products with `k`-column operands in `layout`.
    /// `Auto` is resolved by `choose`; a kernel for the other layout is
    /// refused, naming the kernels that read this one.
    pub fn new<S: Semiring<Value = T>>(
        gpu: &Gpu,
        a: &Csr<T>,
        k: usize,
        layout: DenseLayout,
        kernel: SpmmKernel,
    ) -> Result<Self> {
        let dev = Arc::new(DevCsr::upload(gpu, a)?);
        Self::with_offsets(gpu, dev, a.row_ptr(), k, layout, kernel)
    }

    /// A plan over `a`, already on the device and shared with its owner
    /// (a matrix CuPy handed over, or a product kept there): only its row
    /// offsets come to the host, to cut the blocks. As [`new`](Self::new)
    /// otherwise.
    pub fn on_device(
        gpu: &Gpu,
        a: Arc<DevCsr<T>>,
        k: usize,
        layout: DenseLayout,
        kernel: SpmmKernel,
    ) -> Result<Self> {
        let row_ptr = a.row_offsets(gpu)?;
        Self::with_offsets(gpu, a, &row_ptr, k, layout, kernel)
    }

    /// The plan over `dev`, whose row offsets are `row_ptr`.
    fn with_offsets(
        gpu: &Gpu,
        dev: Arc<DevCsr<T>>,
        row_ptr: &[usize],
        k: usize,
        layout: DenseLayout,
        kernel: SpmmKernel,
    ) -> Result<Self> {
        let (nrows, ncols) = (dev.n_rows as usize, dev.n_cols as usize);
        let requested = kernel;
        let kernel = match kernel {
            SpmmKernel::Auto => choose(layout),
            other => other,
        };
        let reads: &[SpmmKernel] = match layout {
            DenseLayout::ColMajor => &[SpmmKernel::Transposed, SpmmKernel::ThreadRow],
            DenseLayout::RowMajor => &[
                SpmmKernel::BlockRows,
                SpmmKernel::BlockRowsFused,
                SpmmKernel::ThreadRow,
            ],
        };
        if !reads.contains(&kernel) {
            let names: Vec<_> = reads.iter().map(|k| k.name()).collect();
            return Err(Error::Unavailable {
                engine: "cuda",
                reason: format!(
                    "SpMM kernel {kernel} does not read {layout} operands; for {layout} use {} \
                     (or auto)",
                    names.join(", ")
                ),
            });
        }
        let k32 = index(k, "k (columns of B)")?;
        let blocks = match kernel {
            SpmmKernel::BlockRows | SpmmKernel::BlockRowsFused | SpmmKernel::Transposed => {
                let fused = match requested {
                    SpmmKernel::BlockRows | SpmmKernel::BlockRowsFused => {
                        Some(requested == SpmmKernel::BlockRowsFused)
                    }
                    _ => None,
                };
                Some(Blocks::new(gpu, row_ptr, k, fused)?)
            }
            _ => {
                // A thread per row and column tile, counted in u32.
                let threads = nrows * k.div_ceil(SPMM_THREAD_COLS as usize);
                index(threads, "the SpMM's work items (rows × column tiles)")?;
                None
            }
        };
        let row_major = match kernel {
            SpmmKernel::Transposed => Some((
                gpu.output::<T>((ncols * k).max(1))?,
                gpu.output::<T>((nrows * k).max(1))?,
            )),
            _ => None,
        };
        let kernel = match &blocks {
            Some(b) if b.fused && kernel == SpmmKernel::BlockRows => SpmmKernel::BlockRowsFused,
            _ => kernel,
        };
        Ok(SpmmPlan {
            kernel,
            layout,
            k: k32,
            a: dev,
            blocks,
            row_major,
        })
    }

    /// The kernel this plan runs (never `Auto`).
    pub fn kernel(&self) -> SpmmKernel {
        self.kernel
    }

    /// The kernel and its shape: `block-rows(vec16, 8 lanes, 76748 blocks,
    /// 8636 rows in local pieces, 34063 pieces of 3973 long rows)` (blocks
    /// counting padding), `thread-row(col-major)`.
    pub fn label(&self) -> String {
        match &self.blocks {
            None => format!("{}({})", self.kernel, self.layout),
            Some(b) => {
                let load = if b.shape.vec { "vec16" } else { "scalar" };
                let fused = if b.fused { "fused, " } else { "" };
                format!(
                    "{}({fused}{load}, {} lanes, {} blocks, {} rows in local pieces, {} pieces \
                     of {} long rows)",
                    self.kernel, b.shape.lanes, b.n_blocks, b.n_local_rows, b.n_pieces, b.n_long
                )
            }
        }
    }

    /// Rows of A, columns of A (rows of B), and `k`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (
            self.a.n_rows as usize,
            self.a.n_cols as usize,
            self.k as usize,
        )
    }

    /// Bytes A and the plan's blocks and scratch occupy on the device.
    pub fn matrix_bytes(&self) -> usize {
        let row_major = self
            .row_major
            .as_ref()
            .map_or(0, |(b, c)| (b.len() + c.len()) * size_of::<T>());
        self.a.bytes() + self.blocks.as_ref().map_or(0, Blocks::bytes) + row_major
    }

    /// Queues `C = A ⊗ B` on the GPU's stream. `b` holds `n · k` values and
    /// `c` `m · k`, both in the plan's layout; every value of C is written.
    pub fn run<S: Semiring<Value = T>>(
        &mut self,
        gpu: &Gpu,
        b: &CudaSlice<T>,
        c: &mut CudaSlice<T>,
    ) -> Result<()> {
        let (m, n, k) = self.shape();
        if b.len() != n * k || c.len() != m * k {
            return Err(Error::mismatch(
                "spmm",
                format!(
                    "a plan for {m}×{n} times {n}×{k} needs B of {} and C of {} values, \
                     not {} and {}",
                    n * k,
                    m * k,
                    b.len(),
                    c.len()
                ),
            ));
        }
        let a = &self.a;
        if let Some((b_rows, c_rows)) = self.row_major.as_mut() {
            let blocks = self.blocks.as_mut().expect("transposed runs block-rows");
            transpose(gpu, b, b_rows, self.k, a.n_cols)?;
            blocks.run::<S>(gpu, a, self.k, b_rows, c_rows)?;
            return transpose(gpu, c_rows, c, a.n_rows, self.k);
        }
        if let Some(blocks) = self.blocks.as_mut() {
            return blocks.run::<S>(gpu, a, self.k, b, c);
        }
        let ((b_rs, b_cs), (c_rs, c_cs)) = match self.layout {
            DenseLayout::RowMajor => ((self.k, 1), (self.k, 1)),
            DenseLayout::ColMajor => ((1, a.n_cols), (1, a.n_rows)),
        };
        let args = SpmmCsrThreadArgs {
            row_ptr: gpu.ptr(&a.row_ptr),
            col_idx: gpu.ptr(&a.col_idx),
            values: gpu.ptr(&a.values),
            b: gpu.ptr(b),
            c: gpu.ptr_mut(c),
            n_rows: a.n_rows,
            k: self.k,
            b_row_stride: b_rs,
            b_col_stride: b_cs,
            c_row_stride: c_rs,
            c_col_stride: c_cs,
        };
        let threads = u64::from(a.n_rows) * u64::from(self.k.div_ceil(SPMM_THREAD_COLS));
        // SAFETY: A's arrays, B of `A.ncols() × k` and C of `A.nrows() × k`
        // values (checked above) at the layout's strides; a grid-stride
        // kernel, a thread for `SPMM_THREAD_COLS` columns of a row.
        unsafe { gpu.launch_threads(family::spmm_csr_thread::<S>(), threads, args) }
    }
}

/// Queues `output = inputᵀ` for a `rows × cols` row-major `input` (a
/// column-major `cols × rows` matrix read as row-major).
fn transpose<T: Scalar>(
    gpu: &Gpu,
    input: &CudaSlice<T>,
    output: &mut CudaSlice<T>,
    rows: u32,
    cols: u32,
) -> Result<()> {
    let size = size_of::<T>();
    let kernel = match size {
        1 => utility::transpose_1(),
        4 => utility::transpose_4(),
        _ => utility::transpose_8(),
    };
    // Pool buffers may hold more than asked for: at least the matrix each.
    let len = rows as usize * cols as usize;
    assert!(
        input.len() >= len && output.len() >= len,
        "transpose: {rows} × {cols} values, buffers of {} and {}",
        input.len(),
        output.len()
    );
    let args = TransposeArgs {
        input: gpu.ptr(input).cast(),
        output: gpu.ptr_mut(output).cast(),
        rows,
        cols,
    };
    let tiles = u64::from(rows.div_ceil(32)) * u64::from(cols.div_ceil(32));
    let grid = tiles.clamp(1, u64::from(gpu.sm_count()) * 16) as u32;
    let shared = (32 * 33 * size) as u32;
    // SAFETY: `rows × cols` values of `size` bytes in and out (checked),
    // distinct buffers; blocks of `TRANSPOSE_THREADS` with a 32 × 33 tile
    // of shared memory, as the kernel requires.
    unsafe { gpu.launch(kernel, grid, TRANSPOSE_THREADS, shared, args) }
}

/// `C = A ⊗ B` on the GPU with row-major host operands and the automatic
/// kernel: what `ops::spmm` runs on the cuda engine.
pub fn spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    crate::engine::shared::spmm::shapes_agree(a, b)?;
    let gpu = Gpu::get()?;
    let mut plan = SpmmPlan::new::<S>(gpu, a, b.ncols(), DenseLayout::RowMajor, SpmmKernel::Auto)?;
    run_once::<S>(&mut plan, b)
}

/// `C = A ⊗ B` with a row-major plan of A: uploads B, runs, downloads C.
/// Out of device memory is [`Error::TooLarge`] with the numbers; a B that
/// is not `A.ncols() × k` for the plan's `k`, or a plan that is not
/// row-major, is [`Error::Mismatch`].
pub fn run_once<S: Semiring>(
    plan: &mut SpmmPlan<S::Value>,
    b: &Dense<S::Value>,
) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    let (m, n, k) = plan.shape();
    if (b.nrows(), b.ncols()) != (n, k) || plan.layout != DenseLayout::RowMajor {
        return Err(Error::mismatch(
            "spmm",
            format!(
                "a {:?} plan for {m}×{n} times {n}×{k} takes a row-major {n}×{k} B, not {}×{}",
                plan.layout,
                b.nrows(),
                b.ncols()
            ),
        ));
    }
    let gpu = Gpu::get()?;
    let bd = gpu.upload(b.as_slice())?;
    let mut cd = gpu.zeros::<S::Value>(m * k)?;
    plan.run::<S>(gpu, &bd, &mut cd)?;
    Dense::try_new(m, k, gpu.download(&cd)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_follows_the_layout() {
        assert_eq!(choose(DenseLayout::ColMajor), SpmmKernel::Transposed);
        assert_eq!(choose(DenseLayout::RowMajor), SpmmKernel::BlockRows);
    }
}
