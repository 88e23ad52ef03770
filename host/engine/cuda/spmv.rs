//! SpMV on the GPU: `y = A ⊗ x` with one of the kernel family in
//! `gpu_kernels::spmv`, each on its own format.
//!
//! An [`SpmvPlan`] holds A on the device in the format its kernel reads and
//! queues the kernel on any `x` and `y` already there: build it once, run
//! it many times (what `spmx bench` times). [`run_once`] is the one-shot host
//! call: upload, run, download.
//!
//! [`SpmvKernel::Auto`] picks from A's size and row lengths ([`choose`]
//! says how and why; the races behind it are in BENCHMARKS.md and, for
//! older ones, in the git history of `docs/`).
//!
//! The map across the two crates (kernel → the format [`SpmvPlan`] holds →
//! argument struct in `gpu_kernels::args` → entry points in
//! `gpu_kernels::spmv`, each stamped per semiring):
//!
//! | `--kernel` | format on the device | arguments | entry points |
//! |---|---|---|---|
//! | `csr-scalar`, `csr-vector` | `DevCsr` | `SpmvCsrArgs` | `spmv_csr_scalar`, `spmv_csr_vector` |
//! | `csr-merge` | `DevCsr` and a carry a part | `SpmvCsrMergeArgs` | `spmv_csr_merge`, `spmv_csr_merge_fixup` (search and walk in `gpu_kernels::merge_path`) |
//! | `csr-adaptive` | `DevCsr`, row blocks, a partial sum and a count a block | `SpmvCsrAdaptiveArgs` | `spmv_csr_adaptive` |
//! | `coo` | `DevCoo` | `SpmvCooArgs` | `spmv_coo_atomic` (the semiring's `AtomicAdd`) |
//! | `ell`, `hyb` | `DevEll` (`ell`: made from `DevCsr` by `csr_to_ell_*`, or `csr_to_ell_near_*` where every entry is near the diagonal; `hyb`: and `DevCoo`) | `SpmvEllArgs` or `SpmvEllNearArgs` (and `SpmvCooArgs`) | `spmv_ell` or `spmv_ell_near` (and `spmv_coo_atomic`) |
//! | `sell` | `DevSell` | `SpmvSellArgs` | `spmv_sell` |
//! | `bsr` | `DevBsr` | `SpmvBsrArgs` | `spmv_bsr` |

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    SpmvBsrArgs, SpmvCooArgs, SpmvCsrAdaptiveArgs, SpmvCsrArgs, SpmvCsrMergeArgs, SpmvEllArgs,
    SpmvEllNearArgs, SpmvSellArgs,
};
use gpu_kernels::kernels::family;
use gpu_kernels::merge_path;

use super::Gpu;
use super::matrix::{DevBsr, DevCoo, DevCsr, DevEll, DevEllColumns, DevSell, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::{Bsr, Coo, Csr, Ell, Hyb, RowStats, Sell};

/// Threads per block of the adaptive kernel (the others take
/// [`Gpu::launch_threads`]'s).
const BLOCK: u32 = 256;
/// SELL slice height and sorting window, and BSR block size, when a plan
/// converts from CSR (a SELL slice is one warp).
const SELL_C: usize = 32;
const SELL_SIGMA: usize = 256;
const BSR_BLOCK: usize = 4;
/// Entries a row block may hold in the adaptive kernel (its shared-memory
/// staging area: 8 KiB of f32, 16 KiB of f64), and the length of a long
/// row's pieces: eight per thread, so that the staging loads keep many
/// requests in flight. A small matrix takes fewer ([`adaptive_block_nnz`]).
const ADAPTIVE_NNZ: u32 = 8 * BLOCK;
/// Row blocks the adaptive kernel's blocks shrink for on a small matrix,
/// down to a thread's entry each: four for each SM of a 132-SM GPU. A
/// small matrix is bound by the latency of its loads, which more warps an
/// SM hide better than more loads a thread. A fixed count, not the
/// device's: the row blocks fix the order of a sum, so the bits of `y`
/// then do not depend on the GPU.
const ADAPTIVE_MIN_BLOCKS: usize = 512;
/// Merge-path items (row ends plus entries) per warp of the merge kernel,
/// at most: 8 per lane, enough to amortize the binary search that starts
/// each lane. Small matrices take fewer (down to 1 per lane) so that their
/// parts still fill the GPU: there, latency is the cost.
const MERGE_ITEMS: u32 = 256;

/// A GPU SpMV kernel, named as on the command line (`--kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmvKernel {
    /// Chosen from the row lengths by [`choose`].
    Auto,
    /// CSR, a thread per row.
    CsrScalar,
    /// CSR, a group of 2–32 lanes per row (width from the mean row length).
    CsrVector,
    /// CSR, equal shares of rows + entries per warp (merge path), for
    /// skewed rows.
    CsrMerge,
    /// CSR by row blocks (CSR-Adaptive): short rows packed into blocks and
    /// staged through shared memory, long rows cut into pieces of a block
    /// each.
    CsrAdaptive,
    /// COO, a thread per entry, atomics into `y`.
    Coo,
    /// ELL, a thread per row, column-major.
    Ell,
    /// HYB: ELL for the first K entries of each row, COO for the rest.
    Hyb,
    /// SELL-32-256, a thread per row, a warp per slice.
    Sell,
    /// BSR with 4 × 4 blocks.
    Bsr,
}

impl SpmvKernel {
    pub const ALL: [SpmvKernel; 10] = [
        SpmvKernel::Auto,
        SpmvKernel::CsrScalar,
        SpmvKernel::CsrVector,
        SpmvKernel::CsrMerge,
        SpmvKernel::CsrAdaptive,
        SpmvKernel::Coo,
        SpmvKernel::Ell,
        SpmvKernel::Hyb,
        SpmvKernel::Sell,
        SpmvKernel::Bsr,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SpmvKernel::Auto => "auto",
            SpmvKernel::CsrScalar => "csr-scalar",
            SpmvKernel::CsrVector => "csr-vector",
            SpmvKernel::CsrMerge => "csr-merge",
            SpmvKernel::CsrAdaptive => "csr-adaptive",
            SpmvKernel::Coo => "coo",
            SpmvKernel::Ell => "ell",
            SpmvKernel::Hyb => "hyb",
            SpmvKernel::Sell => "sell",
            SpmvKernel::Bsr => "bsr",
        }
    }
}

parse_by_name!(SpmvKernel, "SpMV kernel");

/// Entries from which a matrix counts as large: enough work to fill the
/// GPU many times over, so that the kernels' bandwidth matters more than
/// their latency.
const LARGE_NNZ: usize = 2_000_000;

/// Spread of row lengths (coefficient of variation) below which rows
/// count as nearly equal: a stencil's boundary rows alone (Poisson: under
/// 0.1), not rows of random lengths.
const EQUAL_ROWS_CV: f64 = 0.2;

/// Longest row, over the mean, above which a small matrix takes the
/// adaptive kernel: a group of lanes a row waits on its longest row, while
/// the adaptive kernel's blocks stage every entry at once.
const SMALL_SPREAD_OVER_MEAN: f64 = 3.0;

/// Longest row, over the mean, up to which rows of nearly equal lengths
/// take ELL: its padding then reads at most an eighth more than CSR's
/// entries (a band's or a stencil's boundary rows pad a few slots).
const ELL_MAX_OVER_MEAN: f64 = 1.125;

/// The kernel [`SpmvKernel::Auto`] runs for a matrix of `nnz` entries
/// whose rows have `stats`, and its lanes per row:
///
/// - Skewed rows (the longest over 8 × the mean + 64): the adaptive
///   kernel, whatever the size. It packs the short rows and cuts each long
///   row into pieces that spread over the GPU, where a thread or warp per
///   row would leave most lanes waiting on the long rows; on every skewed
///   matrix of the tuning suites it beat the merge path, whose search and
///   carries cost more than the pieces' sums.
/// - Regular rows, large matrix: rows of nearly equal lengths (bands,
///   stencils), the longest within `ELL_MAX_OVER_MEAN` of the mean, as
///   ELL, a thread per row: column-major slots make every load of a warp
///   one contiguous run, with no row pointers and no staging; CSR a
///   thread a row reads each warp's rows as separate runs, which stops
///   paying once rows pass a few entries. Where every entry lies near the
///   diagonal, as in bands and stencils, the plan stores each slot's
///   column as a 16-bit offset from its row (see `DevEllColumns`): the
///   kernel is bound by the bytes it streams, and that is a quarter of
///   them in f32. Otherwise the adaptive kernel:
///   a warp of threads, a row each, waits on its longest row, so short
///   rows of spread lengths (the tuning suite's short uniform rows) run
///   faster packed into row blocks.
/// - Regular rows, small matrix (latency-bound): a group of lanes per row
///   as wide as the mean row fills, four loads in flight per lane; but
///   the adaptive kernel, in blocks small enough to spread over the GPU
///   (`adaptive_block_nnz`), where the longest row passes
///   `SMALL_SPREAD_OVER_MEAN` × the mean: a group waits on its longest
///   row.
pub(crate) fn choose(stats: &RowStats, nnz: usize) -> (SpmvKernel, u32) {
    let large = nnz >= LARGE_NNZ;
    let skewed = stats.max as f64 > 8.0 * stats.mean + 64.0;
    if skewed {
        return (SpmvKernel::CsrAdaptive, 1);
    }
    let equal = stats.cv < EQUAL_ROWS_CV && stats.max as f64 <= ELL_MAX_OVER_MEAN * stats.mean;
    match (large, equal) {
        (true, true) => (SpmvKernel::Ell, 1),
        (true, false) => (SpmvKernel::CsrAdaptive, 1),
        (false, _) if stats.max as f64 > SMALL_SPREAD_OVER_MEAN * stats.mean => {
            (SpmvKernel::CsrAdaptive, 1)
        }
        (false, _) => (SpmvKernel::CsrVector, vector_lanes(stats.mean)),
    }
}

/// Lanes per row for the vector kernel: the largest power of two (2..=32)
/// not above the mean row length.
fn vector_lanes(mean: f64) -> u32 {
    let mut lanes = 2;
    while lanes < 32 && f64::from(lanes * 2) <= mean {
        lanes *= 2;
    }
    lanes
}

/// Entries a row block of the adaptive kernel holds at most for a matrix
/// of `nnz` entries: `ADAPTIVE_NNZ`, or a smaller power of two (at least
/// `BLOCK`) where that leaves fewer than `ADAPTIVE_MIN_BLOCKS` blocks.
fn adaptive_block_nnz(nnz: usize) -> u32 {
    let per_block = nnz / ADAPTIVE_MIN_BLOCKS;
    (per_block.next_power_of_two() as u32).clamp(BLOCK, ADAPTIVE_NNZ)
}

/// Cuts `a`'s entries into the adaptive kernel's row blocks: consecutive
/// rows while they number at most `BLOCK` and hold at most `piece`
/// entries together; a longer row in pieces of `piece` entries. Returns
/// the `n_blocks + 1` bounds, each a row and its starting entry,
/// flattened.
fn adaptive_row_blocks<T: Scalar>(a: &Csr<T>, piece: usize) -> Vec<u32> {
    let row_ptr = a.row_ptr();
    let mut bounds = vec![0u32, 0];
    let mut first = 0;
    while first < a.nrows() {
        let mut last = first + 1;
        if a.row_len(first) <= piece {
            let limit = row_ptr[first] + piece;
            while last < a.nrows() && last - first < BLOCK as usize && row_ptr[last + 1] <= limit {
                last += 1;
            }
        } else {
            for start in (row_ptr[first] + piece..row_ptr[last]).step_by(piece) {
                bounds.extend([first as u32, start as u32]);
            }
        }
        bounds.extend([last as u32, row_ptr[last] as u32]);
        first = last;
    }
    bounds
}

/// The adaptive kernel's row blocks, and the scratch of its long rows'
/// pieces.
struct AdaptiveBlocks<T> {
    /// Entries a block holds at most ([`adaptive_block_nnz`]).
    block_nnz: u32,
    /// Pairs (row, entry): `n_blocks + 1` bounds.
    bounds: CudaSlice<u32>,
    /// A partial sum per block (read for pieces only).
    partial: CudaSlice<T>,
    /// A count per block, zero between launches (the kernel leaves it so).
    done: CudaSlice<u32>,
}

/// The merge kernel's parts: their size, and a carry slot (row and partial
/// sum) for each.
struct MergeCarry<T> {
    items_per_part: u32,
    rows: CudaSlice<u32>,
    sums: CudaSlice<T>,
    /// `parts + 1`: the row of each part's first item.
    part_rows: CudaSlice<u32>,
}

/// A on the device, in the format its kernel reads.
enum DevMatrix<T> {
    Csr(DevCsr<T>),
    Coo(DevCoo<T>),
    Ell(DevEll<T>),
    Hyb(DevEll<T>, DevCoo<T>),
    Sell(DevSell<T>),
    Bsr(DevBsr<T>),
}

/// A SpMV ready to run: A on the device, the kernel and its launch shape,
/// and the scratch the kernel needs.
pub struct SpmvPlan<T> {
    kernel: SpmvKernel,
    lanes: u32,
    n_rows: u32,
    n_cols: u32,
    matrix: DevMatrix<T>,
    /// Merge kernel: a row index and a partial sum per part (warp).
    carry: Option<MergeCarry<T>>,
    /// COO kernel: `y` starts as the semiring zero, copied from here.
    zero_y: Option<CudaSlice<T>>,
    /// Adaptive kernel: the row blocks and their pieces' scratch.
    adaptive: Option<AdaptiveBlocks<T>>,
}

impl<T: Scalar> SpmvPlan<T> {
    /// Uploads `a` in the format `kernel` reads: ELL made on the device
    /// from the uploaded CSR (`csr_to_ell_*`), the other formats converted
    /// on the host first. `Auto` is resolved by [`choose`]; where it picks
    /// ELL and the slots do not fit, csr-adaptive runs on the CSR instead.
    pub fn new<S: Semiring<Value = T>>(gpu: &Gpu, a: &Csr<T>, kernel: SpmvKernel) -> Result<Self> {
        let stats = a.row_stats();
        let auto = kernel == SpmvKernel::Auto;
        let (kernel, lanes) = match kernel {
            SpmvKernel::Auto => choose(&stats, a.nnz()),
            SpmvKernel::CsrVector => (SpmvKernel::CsrVector, vector_lanes(stats.mean)),
            k => (k, 1),
        };
        match kernel {
            SpmvKernel::Auto | SpmvKernel::CsrScalar | SpmvKernel::CsrVector => Self::with(
                kernel,
                lanes,
                a.ncols(),
                DevMatrix::Csr(DevCsr::upload(gpu, a)?),
            ),
            SpmvKernel::CsrMerge => Self::merge(gpu, a, stats.max),
            // First: the upload checks that the entries fit the bounds' `u32`.
            SpmvKernel::CsrAdaptive => Self::adaptive(gpu, a, DevCsr::upload(gpu, a)?),
            SpmvKernel::Coo => Self::from_coo::<S>(gpu, &a.to_coo()),
            SpmvKernel::Ell => {
                // Tried ELL built on the host, its padding uploaded: the cold
                // call took 2–3× as long, 10–20 ms of it a serial `Csr::bandwidth`.
                let csr = DevCsr::upload(gpu, a)?;
                // SAFETY: `stats.max` is `a`'s longest row, and
                // `Csr::bandwidth` its farthest entry from the diagonal.
                match unsafe { DevEll::from_dev_csr(gpu, &csr, stats.max, a.bandwidth()) } {
                    Ok(ell) => Self::with(SpmvKernel::Ell, 1, a.ncols(), DevMatrix::Ell(ell)),
                    // `auto` took ELL for speed; where its slots do not fit
                    // beside the CSR, the kernel it takes for other large
                    // matrices runs instead.
                    Err(Error::TooLarge(_)) if auto => Self::adaptive(gpu, a, csr),
                    Err(e) => Err(e),
                }
            }
            SpmvKernel::Hyb => Self::from_hyb(gpu, &Hyb::from_csr(a)),
            SpmvKernel::Sell => Self::from_sell(gpu, &Sell::from_csr(a, SELL_C, SELL_SIGMA)?),
            SpmvKernel::Bsr => Self::from_bsr(gpu, &Bsr::from_csr(a, BSR_BLOCK)?),
        }
    }

    /// The adaptive kernel's plan over `m` (`a` on the device): its row
    /// blocks found on the host.
    fn adaptive(gpu: &Gpu, a: &Csr<T>, m: DevCsr<T>) -> Result<Self> {
        let block_nnz = adaptive_block_nnz(a.nnz());
        let bounds = adaptive_row_blocks(a, block_nnz as usize);
        let n_blocks = bounds.len() / 2 - 1;
        let blocks = AdaptiveBlocks {
            block_nnz,
            bounds: gpu.upload(&bounds)?,
            partial: gpu.zeros::<T>(n_blocks)?,
            done: gpu.zeros::<u32>(n_blocks)?,
        };
        let matrix = DevMatrix::Csr(m);
        let mut plan = Self::with(SpmvKernel::CsrAdaptive, 1, a.ncols(), matrix)?;
        plan.adaptive = Some(blocks);
        Ok(plan)
    }

    fn with(kernel: SpmvKernel, lanes: u32, n_cols: usize, matrix: DevMatrix<T>) -> Result<Self> {
        let n_rows = match &matrix {
            DevMatrix::Csr(m) => m.n_rows,
            DevMatrix::Coo(m) => m.n_rows,
            DevMatrix::Ell(m) | DevMatrix::Hyb(m, _) => m.n_rows,
            DevMatrix::Sell(m) => m.n_rows,
            DevMatrix::Bsr(m) => m.n_rows,
        };
        Ok(SpmvPlan {
            kernel,
            lanes,
            n_rows,
            n_cols: index(n_cols, "the number of columns")?,
            matrix,
            carry: None,
            zero_y: None,
            adaptive: None,
        })
    }

    fn merge(gpu: &Gpu, a: &Csr<T>, max_row: usize) -> Result<Self> {
        let m = DevCsr::upload(gpu, a)?;
        let items_per_part = merge_items(m.n_rows, m.nnz, max_row, gpu.sm_count());
        let parts = SpmvCsrMergeArgs::<()>::parts(m.n_rows, m.nnz, items_per_part)
            .expect("merge_items gives a multiple of 32")
            .max(1);
        // Each part's first row, found once here rather than by every run.
        let row_ptr = a.row_ptr();
        let part_rows: Vec<u32> = (0..=u64::from(parts))
            .map(|p| {
                let diagonal = p * u64::from(items_per_part);
                merge_path::search(diagonal, m.n_rows, m.nnz, |i| {
                    row_ptr[i as usize + 1] as u32
                })
                .0
            })
            .collect();
        let carry = MergeCarry {
            items_per_part,
            rows: gpu.zeros::<u32>(parts as usize)?,
            sums: gpu.zeros::<T>(parts as usize)?,
            part_rows: gpu.upload(&part_rows)?,
        };
        let mut plan = Self::with(SpmvKernel::CsrMerge, 1, a.ncols(), DevMatrix::Csr(m))?;
        plan.carry = Some(carry);
        Ok(plan)
    }

    /// SpMV on a COO matrix as it is.
    pub fn from_coo<S: Semiring<Value = T>>(gpu: &Gpu, a: &Coo<T>) -> Result<Self> {
        let zero = gpu.upload(&vec![S::zero(); a.nrows()])?;
        let mut plan = Self::with(
            SpmvKernel::Coo,
            1,
            a.ncols(),
            DevMatrix::Coo(DevCoo::upload(gpu, a)?),
        )?;
        plan.zero_y = Some(zero);
        Ok(plan)
    }

    /// SpMV on an ELL matrix as it is.
    pub fn from_ell(gpu: &Gpu, a: &Ell<T>) -> Result<Self> {
        Self::with(
            SpmvKernel::Ell,
            1,
            a.ncols(),
            DevMatrix::Ell(DevEll::upload(gpu, a)?),
        )
    }

    /// SpMV on a HYB matrix as it is: ELL part, then COO overflow.
    pub fn from_hyb(gpu: &Gpu, a: &Hyb<T>) -> Result<Self> {
        let ell = DevEll::upload(gpu, a.ell())?;
        let coo = DevCoo::upload(gpu, a.overflow())?;
        Self::with(SpmvKernel::Hyb, 1, a.ncols(), DevMatrix::Hyb(ell, coo))
    }

    /// SpMV on a SELL-C-σ (or JDS) matrix as it is.
    pub fn from_sell(gpu: &Gpu, a: &Sell<T>) -> Result<Self> {
        Self::with(
            SpmvKernel::Sell,
            1,
            a.ncols(),
            DevMatrix::Sell(DevSell::upload(gpu, a)?),
        )
    }

    /// SpMV on a BSR matrix as it is.
    pub fn from_bsr(gpu: &Gpu, a: &Bsr<T>) -> Result<Self> {
        Self::with(
            SpmvKernel::Bsr,
            1,
            a.ncols(),
            DevMatrix::Bsr(DevBsr::upload(gpu, a)?),
        )
    }

    /// The kernel this plan runs (never `Auto`).
    pub fn kernel(&self) -> SpmvKernel {
        self.kernel
    }

    /// The kernel and its shape, e.g. `csr-vector(8 lanes)`, or
    /// `ell(16-bit offsets)` for near-diagonal ELL.
    pub fn label(&self) -> String {
        match (self.kernel, &self.matrix) {
            (SpmvKernel::CsrVector, _) => format!("csr-vector({} lanes)", self.lanes),
            (SpmvKernel::Ell, DevMatrix::Ell(e)) if matches!(e.columns, DevEllColumns::Near(_)) => {
                "ell(16-bit offsets)".to_string()
            }
            (k, _) => k.name().to_string(),
        }
    }

    /// Rows and columns of A.
    pub fn shape(&self) -> (usize, usize) {
        (self.n_rows as usize, self.n_cols as usize)
    }

    /// Bytes A occupies on the device in this plan's format.
    pub fn matrix_bytes(&self) -> usize {
        match &self.matrix {
            DevMatrix::Csr(m) => m.bytes(),
            DevMatrix::Coo(m) => m.bytes(),
            DevMatrix::Ell(m) => m.bytes(),
            DevMatrix::Hyb(e, c) => e.bytes() + c.bytes(),
            DevMatrix::Sell(m) => m.bytes(),
            DevMatrix::Bsr(m) => m.bytes(),
        }
    }

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
        // checked host matrix of this shape (its arrays, indices in range),
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
                unsafe { coo_atomic::<S, T>(gpu, m, xp, yp) }
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

/// Merge-path items per part (warp) for a CSR of `n_rows` rows, `nnz`
/// entries and longest row `max_row`: `MERGE_ITEMS`, or fewer (a multiple
/// of 32, at least 64) when that would leave fewer than 16 warps for each
/// of the `sm_count` multiprocessors — but never so few that the longest
/// row spans more than 128 parts, whose carries the fix-up sums one warp
/// step per 32.
fn merge_items(n_rows: u32, nnz: u32, max_row: usize, sm_count: u32) -> u32 {
    let items = u64::from(n_rows) + u64::from(nnz);
    let wanted_parts = 16 * u64::from(sm_count.max(1));
    let floor = (max_row as u64).div_ceil(128).max(64);
    let mut per_part = MERGE_ITEMS;
    while per_part > 64
        && u64::from(per_part / 2) >= floor
        && items / u64::from(per_part) < wanted_parts
    {
        per_part /= 2;
    }
    per_part
}

/// Queues `y = A ⊗ x` for ELL `e`.
///
/// # Safety
/// `x` and `y` address buffers of `e`'s columns and rows that live until
/// the launch is queued.
unsafe fn ell<S, T: Scalar>(
    gpu: &Gpu,
    e: &DevEll<T>,
    x: gpu_kernels::args::DevPtr<T>,
    y: gpu_kernels::args::DevPtrMut<T>,
) -> Result<()>
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
    x: gpu_kernels::args::DevPtr<T>,
    y: gpu_kernels::args::DevPtrMut<T>,
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

/// `y = A ⊗ x` on the GPU for a matrix already planned: uploads `x`, runs,
/// downloads `y`.
pub fn run_once<S: Semiring>(plan: &mut SpmvPlan<S::Value>, x: &[S::Value]) -> Result<Vec<S::Value>>
where
    S::Value: Scalar,
{
    let gpu = Gpu::get()?;
    let (m, n) = plan.shape();
    assert_eq!(x.len(), n, "x.len() != A.ncols()");
    let xd = gpu.upload(x)?;
    let mut yd = gpu.zeros::<S::Value>(m)?;
    plan.run::<S>(gpu, &xd, &mut yd)?;
    gpu.download(&yd)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::Coo;

    /// Rows of the given lengths, all in column 0..len (also the SpMM
    /// plan's tests' matrices).
    pub(crate) fn with_rows(lens: &[usize]) -> Csr<f32> {
        let n = lens.iter().copied().max().unwrap_or(0).max(1);
        let mut coo = Coo::new(lens.len(), n).unwrap();
        for (i, &len) in lens.iter().enumerate() {
            for c in 0..len {
                coo.push(i, c, 1.0).unwrap();
            }
        }
        coo.to_csr()
    }

    #[test]
    fn adaptive_row_blocks_cover_every_entry_within_their_limits() {
        let mut lens = vec![0; 300]; // more empty rows than a block takes
        lens.extend([5; 700]); // short rows, packed
        lens.push(10_000); // a long row, in pieces
        lens.extend([3000, 1, 2, 2100, 2048, 2048]);
        let a = with_rows(&lens);
        let row_ptr = a.row_ptr();
        for piece in [ADAPTIVE_NNZ as usize, BLOCK as usize] {
            let flat = adaptive_row_blocks(&a, piece);
            let bounds: Vec<(usize, usize)> = flat
                .chunks(2)
                .map(|b| (b[0] as usize, b[1] as usize))
                .collect();
            assert_eq!(bounds.first(), Some(&(0, 0)));
            assert_eq!(bounds.last(), Some(&(lens.len(), a.nnz())));
            for w in bounds.windows(2) {
                let ((first, start), (last, end)) = (w[0], w[1]);
                assert!(start < end || first < last, "empty block at row {first}");
                assert!(
                    end - start <= piece,
                    "block at {first} has {} entries",
                    end - start
                );
                if last - first > 1 {
                    assert!(
                        last - first <= BLOCK as usize,
                        "block at {first} has {} rows",
                        last - first
                    );
                    assert_eq!((start, end), (row_ptr[first], row_ptr[last]), "whole rows");
                } else {
                    // One row's entries: the whole row, or a piece of a long
                    // one starting a multiple of the piece length into it.
                    assert_eq!((start - row_ptr[first]) % piece, 0, "piece of row {first}");
                    assert!(end <= row_ptr[first + 1]);
                }
            }
            let pieces = |row| {
                bounds
                    .windows(2)
                    .filter(|w| w[0].0 == row && w[1].1 - w[0].1 > 0)
                    .count()
            };
            assert_eq!(pieces(1000), 10_000usize.div_ceil(piece), "10 000 entries");
            assert_eq!(pieces(1004), 2100usize.div_ceil(piece), "2100 entries");
            assert_eq!(pieces(1005), 2048usize.div_ceil(piece), "2048 entries");
        }
    }

    #[test]
    fn adaptive_blocks_shrink_to_fill_small_matrices() {
        assert_eq!(adaptive_block_nnz(60_000_000), ADAPTIVE_NNZ);
        assert_eq!(adaptive_block_nnz(ADAPTIVE_MIN_BLOCKS * 2048), ADAPTIVE_NNZ);
        assert_eq!(adaptive_block_nnz(242_502), 512);
        assert_eq!(adaptive_block_nnz(50_000), BLOCK);
        assert_eq!(adaptive_block_nnz(0), BLOCK);
    }

    #[test]
    fn merge_parts_shrink_to_fill_small_matrices() {
        assert_eq!(merge_items(4_000_000, 60_000_000, 90_000, 132), MERGE_ITEMS);
        assert_eq!(merge_items(8_000, 7_000, 500, 132), 64);
        let mid = merge_items(50_000, 150_000, 900, 132);
        assert!(
            mid.is_multiple_of(32) && (64..MERGE_ITEMS).contains(&mid),
            "{mid}"
        );
        // arrow: one row of 46500 keeps the parts large.
        assert_eq!(merge_items(46_500, 139_498, 46_500, 132), MERGE_ITEMS);
    }

    #[test]
    fn auto_takes_adaptive_for_skewed_rows_at_any_size_and_ell_for_equal_ones() {
        let stats = |lens: &[usize]| with_rows(lens).row_stats();
        let mut lens = vec![2; 100];
        lens.push(1000);
        let hub = stats(&lens);
        assert_eq!(choose(&hub, 1200).0, SpmvKernel::CsrAdaptive);
        assert_eq!(choose(&hub, LARGE_NNZ).0, SpmvKernel::CsrAdaptive);
        let short = stats(&[5; 8]);
        assert_eq!(choose(&short, LARGE_NNZ).0, SpmvKernel::Ell);
        let spread = stats(&[2, 12, 4, 9, 7, 3, 11, 6]);
        assert_eq!(choose(&spread, LARGE_NNZ).0, SpmvKernel::CsrAdaptive);
        assert_eq!(choose(&short, 40), (SpmvKernel::CsrVector, 4));
        // Small: lanes a row while the longest row is at most 3 × the mean.
        let small_spread = stats(&[2, 2, 2, 2, 2, 2, 2, 12]);
        assert_eq!(choose(&small_spread, 40).0, SpmvKernel::CsrAdaptive);
        assert_eq!(choose(&spread, 40), (SpmvKernel::CsrVector, 4));
        let long = stats(&[40; 8]);
        assert_eq!(choose(&long, LARGE_NNZ).0, SpmvKernel::Ell);
        // Nearly equal, but the longest pads every row by a quarter.
        let padded = stats(&[[40; 15].as_slice(), &[50]].concat());
        assert_eq!(choose(&padded, LARGE_NNZ).0, SpmvKernel::CsrAdaptive);
    }

    #[test]
    fn vector_lanes_follow_the_mean_row_length() {
        assert_eq!(vector_lanes(0.5), 2);
        assert_eq!(vector_lanes(5.0), 4);
        assert_eq!(vector_lanes(8.0), 8);
        assert_eq!(vector_lanes(31.9), 16);
        assert_eq!(vector_lanes(500.0), 32);
    }
}
