//! SpMM on the GPU: `C = A ⊗ B` with A sparse (CSR, m × n) and B, C dense
//! (n × k, m × k), row-major or column-major, with the kernels of
//! `gpu_kernels::spmm`.
//!
//! An [`SpmmPlan`] holds A on the device with everything its kernel needs
//! (for long rows, the pieces they are cut into and the scratch for their
//! partial rows) and queues the product on any B and C already there: build
//! it once, run it many times (what `spmx bench spmm` times). [`spmm`] is the
//! one-shot host call behind `ops::spmm` on the cuda engine.
//!
//! [`SpmmKernel::Auto`] picks from the layout, `k` and A's row lengths
//! ([`choose`] says how and why).

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, SPMM_THREAD_COLS, SPMM_WARP_CHUNKS, SpmmCsrArgs, SpmmCsrThreadArgs, SpmmFixupArgs,
};

use super::Gpu;
use super::matrix::{DevCsr, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::{Csr, Dense, RowStats};

/// Entries of a long row each warp takes in `split-rows`: enough that a
/// piece's partial row (k values written, then read by the fix-up) costs
/// little next to its 256 rows of B; and short enough that R-MAT 22's
/// thousands of long rows do not hold their warps long after the rest.
const PIECE: u32 = 256;
/// Rows longer than this are cut into pieces by `split-rows` (and make
/// `auto` choose it): at four pieces, a long row no longer holds its warp
/// much longer than the matrix's other warps take.
const LONG_ROW: u32 = 4 * PIECE;
/// `auto` packs several rows into a warp when a row's columns take less
/// than a warp and the rows are short (mean below this many entries a
/// group) and even (longest below `PACK_MAX_SKEW` × the mean + 32).
const PACK_MEAN_PER_GROUP: f64 = 8.0;
const PACK_MAX_SKEW: f64 = 4.0;

/// How a dense operand is stored on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenseLayout {
    /// Element `(i, j)` at `i · cols + j` (the host's [`Dense`]).
    RowMajor,
    /// Element `(i, j)` at `j · rows + i` (cuBLAS's and Fortran's).
    ColMajor,
}

impl DenseLayout {
    pub const ALL: [DenseLayout; 2] = [DenseLayout::RowMajor, DenseLayout::ColMajor];

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
    /// Chosen by [`choose`].
    Auto,
    /// Row-major: a warp per row; when a row's columns take less than a
    /// warp, its groups of lanes split the row's entries.
    WarpRow,
    /// Row-major: a group of lanes per row, several short rows per warp.
    PackedRows,
    /// Row-major: rows longer than 1024 entries cut into pieces of 256
    /// that warps compute side by side, then combined in order; the other
    /// rows as `auto` would do them.
    SplitRows,
    /// Any layout: a thread per row and 8 columns, summing in row order
    /// (the serial engine's bits). The kernel for column-major operands.
    ThreadRow,
}

impl SpmmKernel {
    pub const ALL: [SpmmKernel; 5] = [
        SpmmKernel::Auto,
        SpmmKernel::WarpRow,
        SpmmKernel::PackedRows,
        SpmmKernel::SplitRows,
        SpmmKernel::ThreadRow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SpmmKernel::Auto => "auto",
            SpmmKernel::WarpRow => "warp-row",
            SpmmKernel::PackedRows => "packed-rows",
            SpmmKernel::SplitRows => "split-rows",
            SpmmKernel::ThreadRow => "thread-row",
        }
    }
}

parse_by_name!(SpmmKernel, "SpMM kernel");

/// How the warp kernels cover `k` columns: 16-byte loads or single
/// values, lanes per group, loads per lane per entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpShape {
    /// `spmm_csr_warp_vec` (16-byte loads) rather than `spmm_csr_warp`.
    pub vec: bool,
    /// Lanes per group: a power of two up to 32.
    pub lanes: u32,
    /// Loads per lane per entry of A.
    pub chunks: u32,
}

impl WarpShape {
    /// The shape for `k` columns of `value_bytes`-byte values: 16-byte
    /// loads when `k` is a multiple of their width (so every row of B and C
    /// stays 16-byte aligned); as few lanes as cover the columns when they
    /// take less than a warp (the rest of the warp then takes other entries
    /// or rows); otherwise 32 lanes and as many loads each as split the
    /// columns into the fewest, evenly filled tiles.
    pub fn for_k(k: usize, value_bytes: usize) -> WarpShape {
        let width = 16 / value_bytes;
        let vec = k.is_multiple_of(width);
        let (per_load, max_chunks) = match vec {
            true => (width, 1),
            false => (1, SPMM_WARP_CHUNKS as usize),
        };
        let loads = k.div_ceil(per_load).max(1);
        if loads <= 32 {
            return WarpShape {
                vec,
                lanes: loads.next_power_of_two() as u32,
                chunks: 1,
            };
        }
        let tiles = loads.div_ceil(32 * max_chunks);
        WarpShape {
            vec,
            lanes: 32,
            chunks: loads.div_ceil(32 * tiles) as u32,
        }
    }

    /// Values one load brings.
    fn per_load(self, value_bytes: usize) -> usize {
        if self.vec { 16 / value_bytes } else { 1 }
    }

    /// Columns one group covers at once.
    fn tile(self, value_bytes: usize) -> usize {
        self.lanes as usize * self.chunks as usize * self.per_load(value_bytes)
    }

    /// Groups in a warp.
    fn groups(self) -> u32 {
        32 / self.lanes
    }

    fn family(self) -> &'static str {
        if self.vec {
            "spmm_csr_warp_vec"
        } else {
            "spmm_csr_warp"
        }
    }
}

/// The kernel [`SpmmKernel::Auto`] runs, and whether it packs rows:
///
/// - column-major operands: `thread-row`, the one kernel that reads them;
/// - a row longer than `LONG_ROW` entries: `split-rows`, so that no warp
///   walks a huge row alone while the rest of the GPU idles;
/// - rows short and even, and columns that leave a warp several groups:
///   `packed-rows`, a group per row, no reduction between groups;
/// - otherwise `warp-row`.
pub fn choose(layout: DenseLayout, stats: &RowStats, shape: WarpShape) -> (SpmmKernel, bool) {
    if layout == DenseLayout::ColMajor {
        return (SpmmKernel::ThreadRow, false);
    }
    let pack = pack_rows(stats, shape);
    if stats.max > LONG_ROW as usize {
        return (SpmmKernel::SplitRows, pack);
    }
    match pack {
        true => (SpmmKernel::PackedRows, true),
        false => (SpmmKernel::WarpRow, false),
    }
}

/// Whether rows of these lengths go a group each (see [`choose`]).
fn pack_rows(stats: &RowStats, shape: WarpShape) -> bool {
    let groups = f64::from(shape.groups());
    shape.groups() > 1
        && stats.mean < PACK_MEAN_PER_GROUP * groups
        && (stats.max as f64) < PACK_MAX_SKEW * stats.mean + 32.0
}

/// The long rows of a `split-rows` plan, cut into pieces.
struct Split<T> {
    /// (row, first entry) of each piece.
    pieces: CudaSlice<u32>,
    n_pieces: u32,
    long_rows: CudaSlice<u32>,
    /// `n_long + 1` offsets into the pieces.
    long_first: CudaSlice<u32>,
    n_long: u32,
    /// A partial row of C per piece.
    partial: CudaSlice<T>,
}

/// The pieces of the rows of `a` longer than `LONG_ROW`: the flattened
/// (row, first entry) pairs, the long rows, and each long row's first piece.
fn cut_long_rows<T: Scalar>(a: &Csr<T>) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut pieces, mut long_rows, mut long_first) = (Vec::new(), Vec::new(), vec![0u32]);
    for row in 0..a.nrows() {
        if a.row_len(row) > LONG_ROW as usize {
            let (start, end) = (a.row_ptr()[row], a.row_ptr()[row + 1]);
            for first in (start..end).step_by(PIECE as usize) {
                pieces.extend([row as u32, first as u32]);
            }
            long_rows.push(row as u32);
            long_first.push((pieces.len() / 2) as u32);
        }
    }
    (pieces, long_rows, long_first)
}

/// An SpMM ready to run: A on the device, the kernel and its shape.
pub struct SpmmPlan<T> {
    kernel: SpmmKernel,
    layout: DenseLayout,
    k: u32,
    a: DevCsr<T>,
    shape: WarpShape,
    pack: bool,
    split: Option<Split<T>>,
}

impl<T: Scalar> SpmmPlan<T> {
    /// Uploads A for products with `k`-column operands in `layout`.
    /// `Auto` is resolved by [`choose`]; a warp kernel with column-major
    /// operands is refused, naming the kernels that read them.
    pub fn new<S: Semiring<Value = T>>(
        gpu: &Gpu,
        a: &Csr<T>,
        k: usize,
        layout: DenseLayout,
        kernel: SpmmKernel,
    ) -> Result<Self> {
        let value_bytes = size_of::<T>();
        let shape = WarpShape::for_k(k, value_bytes);
        let stats = a.row_stats();
        let (kernel, pack) = match kernel {
            SpmmKernel::Auto => choose(layout, &stats, shape),
            SpmmKernel::PackedRows => (SpmmKernel::PackedRows, shape.groups() > 1),
            SpmmKernel::SplitRows => (SpmmKernel::SplitRows, pack_rows(&stats, shape)),
            other => (other, false),
        };
        if layout == DenseLayout::ColMajor && kernel != SpmmKernel::ThreadRow {
            return Err(Error::Unavailable {
                engine: "cuda",
                reason: format!(
                    "SpMM kernel {kernel} reads row-major operands; for col-major use \
                     thread-row (or auto)"
                ),
            });
        }
        // Every kernel's work items must be counted in u32.
        let k32 = index(k, "k (columns of B)")?;
        let rows = a.nrows() as u64;
        let work = match kernel {
            SpmmKernel::ThreadRow => rows * k.div_ceil(SPMM_THREAD_COLS as usize) as u64,
            _ => rows * k.div_ceil(shape.tile(value_bytes)) as u64 + 32,
        };
        index(work as usize, "the SpMM's work items (rows × column tiles)")?;
        let split = match kernel {
            SpmmKernel::SplitRows => Self::split(gpu, a, k)?,
            _ => None,
        };
        Ok(SpmmPlan {
            kernel,
            layout,
            k: k32,
            a: DevCsr::upload(gpu, a)?,
            shape,
            pack,
            split,
        })
    }

    /// The pieces of A's long rows on the device, and scratch for their
    /// partial rows; `None` when no row is long.
    fn split(gpu: &Gpu, a: &Csr<T>, k: usize) -> Result<Option<Split<T>>> {
        let (pieces, long_rows, long_first) = cut_long_rows(a);
        if long_rows.is_empty() {
            return Ok(None);
        }
        let n_pieces = pieces.len() / 2;
        index(
            long_rows.len() * k,
            "the long rows' columns (fix-up threads)",
        )?;
        Ok(Some(Split {
            pieces: gpu.upload(&pieces)?,
            n_pieces: n_pieces as u32,
            n_long: long_rows.len() as u32,
            long_rows: gpu.upload(&long_rows)?,
            long_first: gpu.upload(&long_first)?,
            partial: gpu.zeros::<T>(n_pieces * k)?,
        }))
    }

    /// The kernel this plan runs (never `Auto`).
    pub fn kernel(&self) -> SpmmKernel {
        self.kernel
    }

    /// The kernel and its shape: `warp-row(vec16, 8 lanes × 1)`,
    /// `split-rows(…, 3 long rows)`.
    pub fn label(&self) -> String {
        if self.kernel == SpmmKernel::ThreadRow {
            return format!("thread-row({})", self.layout);
        }
        let s = self.shape;
        let load = if s.vec { "vec16" } else { "scalar" };
        let mut label = format!("{}({load}, {} lanes × {}", self.kernel, s.lanes, s.chunks);
        if self.kernel == SpmmKernel::SplitRows {
            label += if self.pack { ", packed" } else { ", warp" };
            let long = self.split.as_ref().map_or(0, |s| s.n_long);
            label += &format!(", {long} long rows");
        }
        label + ")"
    }

    /// Rows of A, columns of A (rows of B), and `k`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (
            self.a.n_rows as usize,
            self.a.n_cols as usize,
            self.k as usize,
        )
    }

    /// Bytes A and the plan's scratch occupy on the device.
    pub fn matrix_bytes(&self) -> usize {
        let split = self.split.as_ref().map_or(0, |s| {
            4 * (s.pieces.len() + s.long_rows.len() + s.long_first.len())
                + s.partial.len() * size_of::<T>()
        });
        self.a.bytes() + split
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
        assert_eq!(b.len(), n * k, "B must hold A.ncols() × k values");
        assert_eq!(c.len(), m * k, "C must hold A.nrows() × k values");
        let a = &self.a;
        if self.kernel == SpmmKernel::ThreadRow {
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
            return gpu.launch_threads::<S, _>("spmm_csr_thread", threads, args);
        }

        let shape = self.shape;
        let value_bytes = size_of::<T>();
        let tiles = k.div_ceil(shape.tile(value_bytes)) as u64;
        let stage = (4 + value_bytes) as u32;
        let rows = SpmmCsrArgs {
            row_ptr: gpu.ptr(&a.row_ptr),
            col_idx: gpu.ptr(&a.col_idx),
            values: gpu.ptr(&a.values),
            b: gpu.ptr(b),
            c: gpu.ptr_mut(c),
            pieces: DevPtr::new(0),
            n_items: a.n_rows,
            k: self.k,
            lanes: shape.lanes,
            chunks: shape.chunks,
            pack: u32::from(self.pack),
            split_len: self.split.as_ref().map_or(u32::MAX, |_| LONG_ROW),
        };
        let per_warp = if self.pack {
            u64::from(shape.groups())
        } else {
            1
        };
        let warps = (u64::from(a.n_rows) * tiles).div_ceil(per_warp);
        gpu.launch_threads_shared::<S, _>(shape.family(), warps * 32, stage, rows)?;

        if let Some(split) = self.split.as_mut() {
            let pieces = SpmmCsrArgs {
                c: gpu.ptr_mut(&mut split.partial),
                pieces: gpu.ptr(&split.pieces),
                n_items: split.n_pieces,
                pack: 0,
                split_len: PIECE,
                ..rows
            };
            let warps = u64::from(split.n_pieces) * tiles;
            gpu.launch_threads_shared::<S, _>(shape.family(), warps * 32, stage, pieces)?;
            let fixup = SpmmFixupArgs {
                partial: gpu.ptr(&split.partial),
                c: gpu.ptr_mut(c),
                long_rows: gpu.ptr(&split.long_rows),
                long_first: gpu.ptr(&split.long_first),
                n_long: split.n_long,
                k: self.k,
            };
            let threads = u64::from(split.n_long) * u64::from(self.k);
            gpu.launch_threads::<S, _>("spmm_csr_fixup", threads, fixup)?;
        }
        Ok(())
    }
}

/// `C = A ⊗ B` on the GPU with row-major host operands and the automatic
/// kernel: what `ops::spmm` runs on the cuda engine.
pub fn spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    run_once::<S>(a, b, SpmmKernel::Auto).map(|(c, _)| c)
}

/// `C = A ⊗ B` with `kernel`: uploads A and B (row-major), runs,
/// downloads C; also gives the plan's label. Out of device memory is
/// [`Error::TooLarge`] with the numbers.
pub fn run_once<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    kernel: SpmmKernel,
) -> Result<(Dense<S::Value>, String)>
where
    S::Value: Scalar,
{
    crate::engine::serial::spmm::check_shapes(a, b);
    let gpu = Gpu::get()?;
    let k = b.ncols();
    let mut plan = SpmmPlan::new::<S>(gpu, a, k, DenseLayout::RowMajor, kernel)?;
    let bd = gpu.upload(b.as_slice())?;
    let mut cd = gpu.zeros::<S::Value>(a.nrows() * k)?;
    plan.run::<S>(gpu, &bd, &mut cd)?;
    let c = Dense::try_new(a.nrows(), k, gpu.download(&cd)?)?;
    Ok((c, plan.label()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cuda::spmv::tests::with_rows;

    #[test]
    fn warp_shapes_cover_k_with_the_fewest_lanes_and_even_tiles() {
        let shape = |k, bytes| {
            let s = WarpShape::for_k(k, bytes);
            (s.vec, s.lanes, s.chunks)
        };
        assert_eq!(shape(32, 4), (true, 8, 1));
        assert_eq!(shape(64, 4), (true, 16, 1));
        assert_eq!(shape(128, 4), (true, 32, 1));
        assert_eq!(shape(256, 4), (true, 32, 1));
        assert_eq!(shape(32, 8), (true, 16, 1));
        assert_eq!(shape(1, 4), (false, 1, 1));
        assert_eq!(shape(3, 8), (false, 4, 1));
        assert_eq!(shape(33, 4), (false, 32, 2));
        // 257 single loads: three tiles of 3 × 32 = 96 columns.
        assert_eq!(shape(257, 4), (false, 32, 3));
        assert_eq!(shape(1024, 4), (true, 32, 1));
        for k in 1..600 {
            for bytes in [1, 4, 8] {
                let s = WarpShape::for_k(k, bytes);
                let max = if s.vec { 1 } else { SPMM_WARP_CHUNKS };
                assert!(s.lanes.is_power_of_two() && s.lanes <= 32, "{k}");
                assert!((1..=max).contains(&s.chunks), "{k}");
                if s.vec {
                    assert!(k.is_multiple_of(16 / bytes), "{k}");
                }
                // Every column is some lane's; no tile is all idle.
                let tile = s.tile(bytes);
                let tiles = k.div_ceil(tile);
                assert!((tiles - 1) * tile < k && tiles * tile >= k, "{k}");
            }
        }
    }

    #[test]
    fn long_rows_are_cut_into_pieces_in_order() {
        let long = LONG_ROW as usize;
        let lens = [3, long + 1, 0, long, 5000];
        let a = with_rows(&lens);
        let (pieces, long_rows, long_first) = cut_long_rows(&a);
        assert_eq!(long_rows, [1, 4]);
        let first_row_pieces = (long + 1).div_ceil(PIECE as usize) as u32;
        let last_row_pieces = 5000u32.div_ceil(PIECE);
        assert_eq!(
            long_first,
            [0, first_row_pieces, first_row_pieces + last_row_pieces]
        );
        let starts: Vec<_> = pieces.chunks(2).map(|p| (p[0], p[1])).collect();
        assert_eq!(starts[0], (1, 3));
        assert_eq!(starts[1], (1, 3 + PIECE));
        let row4 = a.row_ptr()[4] as u32;
        let first4 = first_row_pieces as usize;
        assert_eq!(starts[first4], (4, row4));
        assert_eq!(
            starts.last(),
            Some(&(4, row4 + (last_row_pieces - 1) * PIECE))
        );
    }

    #[test]
    fn auto_follows_layout_row_lengths_and_k() {
        let stats = |lens: &[usize]| with_rows(lens).row_stats();
        let k32 = WarpShape::for_k(32, 4);
        let k128 = WarpShape::for_k(128, 4);
        let short = stats(&[5; 100]);
        assert_eq!(
            choose(DenseLayout::ColMajor, &short, k32),
            (SpmmKernel::ThreadRow, false)
        );
        assert_eq!(
            choose(DenseLayout::RowMajor, &short, k32),
            (SpmmKernel::PackedRows, true)
        );
        assert_eq!(
            choose(DenseLayout::RowMajor, &short, k128),
            (SpmmKernel::WarpRow, false)
        );
        let mut lens = vec![5; 100];
        lens.push(LONG_ROW as usize + 1);
        assert_eq!(
            choose(DenseLayout::RowMajor, &stats(&lens), k32).0,
            SpmmKernel::SplitRows
        );
    }
}
