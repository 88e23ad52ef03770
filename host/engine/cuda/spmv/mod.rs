//! SpMV on the GPU: `y = A ⊗ x` with one of the kernel family in
//! `gpu_kernels::spmv`, each on its own format.
//!
//! An [`SpmvPlan`] holds A on the device in the format its kernel reads and
//! queues the kernel on any `x` and `y` already there: build it once, run
//! it many times (what `spmx bench` times). [`run_once`] is the one-shot host
//! call: upload, run, download.
//!
//! [`SpmvKernel::Auto`] picks from A's size and row lengths (`choose`
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
//!
//! | host step | module | arguments | entry points |
//! |---|---|---|---|
//! | the plan: A uploaded in its kernel's format, the scratch made | [`SpmvPlan::new`] (here), `balance` (the adaptive kernel's row blocks, the merge kernel's parts) | — | `csr_to_ell_*`, `csr_to_ell_near_*` (`util`, through `DevEll::from_dev_csr`) |
//! | the automatic choice | `choice` | — | — |
//! | the launches | `launch` ([`SpmvPlan::run`]) | the table's above | the table's above |

mod balance;
mod choice;
mod launch;

use std::sync::Arc;

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::SpmvCsrMergeArgs;
use gpu_kernels::merge_path;

use super::Gpu;
use super::matrix::{DevBsr, DevCoo, DevCsr, DevEll, DevEllColumns, DevSell, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::{Bsr, Coo, Csr, Ell, Hyb, RowStats, Sell};
use balance::{AdaptiveBlocks, MergeCarry, adaptive_block_nnz, adaptive_row_blocks, merge_items};
use choice::choose;
use choice::vector_lanes;

/// SELL slice height and sorting window, and BSR block size, when a plan
/// converts from CSR (a SELL slice is one warp).
const SELL_C: usize = 32;
const SELL_SIGMA: usize = 256;
const BSR_BLOCK: usize = 4;

/// A GPU SpMV kernel, named as on the command line (`--kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmvKernel {
    /// Chosen from the row lengths by `choose`.
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
    /// Every choice, `Auto` first.
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

    /// Its name on the command line (`--kernel`).
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

/// A on the device, in the format its kernel reads.
enum DevMatrix<T> {
    /// Shared with the matrix a plan [`on_device`](SpmvPlan::on_device)
    /// was made over.
    Csr(Arc<DevCsr<T>>),
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
    /// on the host first. `Auto` is resolved by `choose`; where it picks
    /// ELL and the slots do not fit, csr-adaptive runs on the CSR instead.
    pub fn new<S: Semiring<Value = T>>(gpu: &Gpu, a: &Csr<T>, kernel: SpmvKernel) -> Result<Self> {
        match kernel {
            SpmvKernel::Coo => Self::from_coo::<S>(gpu, &a.to_coo()),
            SpmvKernel::Hyb => Self::from_hyb(gpu, &Hyb::from_csr(a)),
            SpmvKernel::Sell => Self::from_sell(gpu, &Sell::from_csr(a, SELL_C, SELL_SIGMA)?),
            SpmvKernel::Bsr => Self::from_bsr(gpu, &Bsr::from_csr(a, BSR_BLOCK)?),
            // The upload checks that the entries fit the kernels' `u32`.
            _ => {
                let dev = Arc::new(DevCsr::upload(gpu, a)?);
                Self::on_csr(gpu, dev, a.row_ptr(), || a.bandwidth(), kernel)
            }
        }
    }

    /// A plan over `a`, already on the device and shared with its owner
    /// (a matrix CuPy handed over, or a product kept there): only its row
    /// offsets come to the host, to choose the kernel and cut its work.
    /// The kernels that read CSR (and ELL, made on the device) run so;
    /// those of the formats converted on the host are
    /// [`Error::Unavailable`]. ELL here never takes the near-diagonal
    /// 16-bit columns: telling them apart would read every column index.
    pub fn on_device(gpu: &Gpu, a: Arc<DevCsr<T>>, kernel: SpmvKernel) -> Result<Self> {
        if matches!(
            kernel,
            SpmvKernel::Coo | SpmvKernel::Hyb | SpmvKernel::Sell | SpmvKernel::Bsr
        ) {
            return Err(Error::Unavailable {
                engine: "cuda",
                reason: format!(
                    "SpMV kernel {} converts the matrix on the host; a matrix kept on the \
                     device runs the CSR and ELL kernels (or auto)",
                    kernel.name()
                ),
            });
        }
        let row_ptr = a.row_offsets(gpu)?;
        Self::on_csr(gpu, a, &row_ptr, || usize::MAX, kernel)
    }

    /// The plan of a kernel that reads CSR or ELL over `csr`, whose row
    /// offsets are `row_ptr` and whose farthest entry from the diagonal is
    /// at most `bandwidth()` (asked only for ELL).
    fn on_csr(
        gpu: &Gpu,
        csr: Arc<DevCsr<T>>,
        row_ptr: &[usize],
        bandwidth: impl FnOnce() -> usize,
        kernel: SpmvKernel,
    ) -> Result<Self> {
        let stats = RowStats::of_offsets(row_ptr);
        let nnz = csr.nnz as usize;
        let n_cols = csr.n_cols as usize;
        let auto = kernel == SpmvKernel::Auto;
        let (kernel, lanes) = match kernel {
            SpmvKernel::Auto => choose(&stats, nnz),
            SpmvKernel::CsrVector => (SpmvKernel::CsrVector, vector_lanes(stats.mean)),
            k => (k, 1),
        };
        match kernel {
            SpmvKernel::CsrMerge => Self::merge(gpu, csr, row_ptr, stats.max),
            SpmvKernel::CsrAdaptive => Self::adaptive(gpu, row_ptr, csr),
            SpmvKernel::Ell => {
                // Tried ELL built on the host, its padding uploaded: the cold
                // call took 2–3× as long, 10–20 ms of it a serial `Csr::bandwidth`.
                // SAFETY: `stats.max` is the longest row of `csr` (whose
                // offsets `row_ptr` are), and `bandwidth` at least its
                // farthest entry from the diagonal (the caller's word).
                match unsafe { DevEll::from_dev_csr(gpu, &csr, stats.max, bandwidth()) } {
                    Ok(ell) => Self::with(SpmvKernel::Ell, 1, n_cols, DevMatrix::Ell(ell)),
                    // `auto` took ELL for speed; where its slots do not fit
                    // beside the CSR, the kernel it takes for other large
                    // matrices runs instead.
                    Err(Error::TooLarge(_)) if auto => Self::adaptive(gpu, row_ptr, csr),
                    Err(e) => Err(e),
                }
            }
            _ => Self::with(kernel, lanes, n_cols, DevMatrix::Csr(csr)),
        }
    }

    /// The adaptive kernel's plan over `m` (on the device, its row offsets
    /// `row_ptr`): its row blocks found on the host.
    fn adaptive(gpu: &Gpu, row_ptr: &[usize], m: Arc<DevCsr<T>>) -> Result<Self> {
        let block_nnz = adaptive_block_nnz(m.nnz as usize);
        let bounds = adaptive_row_blocks(row_ptr, block_nnz as usize);
        let n_blocks = bounds.len() / 2 - 1;
        let blocks = AdaptiveBlocks {
            block_nnz,
            bounds: gpu.upload(&bounds)?,
            partial: gpu.zeros::<T>(n_blocks)?,
            done: gpu.zeros::<u32>(n_blocks)?,
        };
        let n_cols = m.n_cols as usize;
        let mut plan = Self::with(SpmvKernel::CsrAdaptive, 1, n_cols, DevMatrix::Csr(m))?;
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

    fn merge(gpu: &Gpu, m: Arc<DevCsr<T>>, row_ptr: &[usize], max_row: usize) -> Result<Self> {
        let items_per_part = merge_items(m.n_rows, m.nnz, max_row, gpu.sm_count());
        let parts = SpmvCsrMergeArgs::<()>::parts(m.n_rows, m.nnz, items_per_part)
            .expect("merge_items gives a multiple of 32")
            .max(1);
        // Each part's first row, found once here rather than by every run.
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
        let n_cols = m.n_cols as usize;
        let mut plan = Self::with(SpmvKernel::CsrMerge, 1, n_cols, DevMatrix::Csr(m))?;
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
}

/// `y = A ⊗ x` on the GPU for a matrix already planned: uploads `x`, runs,
/// downloads `y`.
pub fn run_once<S: Semiring>(plan: &mut SpmvPlan<S::Value>, x: &[S::Value]) -> Result<Vec<S::Value>>
where
    S::Value: Scalar,
{
    let gpu = Gpu::get()?;
    let (m, n) = plan.shape();
    crate::engine::shared::spmv::x_len_agrees((m, n), x.len())?;
    let xd = gpu.upload(x)?;
    let mut yd = gpu.zeros::<S::Value>(m)?;
    plan.run::<S>(gpu, &xd, &mut yd)?;
    gpu.download(&yd)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::balance::*;
    use super::choice::*;
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
            let flat = adaptive_row_blocks(a.row_ptr(), piece);
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
