//! SpGEMM on the GPU: `C = A ⊗ B`, all three CSR, with the kernels of
//! `gpu_kernels::spgemm` (why a warp's hash table in the serial order, and
//! how long rows go through a bitmap of their span, is written there; rows
//! of A too long for one warp in its `classify`, giant rows through Bᵀ in
//! its `giant`).
//!
//! The pipeline, all on the device but for a few counts read back:
//!
//! 1. *classify* every row of C by its product count (rows of A over
//!    `SPGEMM_CLASSIFY_MAX` entries summed first by warps), and *bin* the rows
//!    by class (the class sizes come back: they size the launches); when
//!    some rows are giant, build Bᵀ;
//! 2. *symbolic*: each class's kernel writes its rows' exact lengths;
//!    with `STAGE_MIN_ROWS` short or hashed rows or more
//!    (`STAGE_MIN_LONG_ROWS` long rows), the class computes its rows whole into a staging area
//!    instead (laid out by bounds from classify), writing their lengths
//!    too;
//! 3. a prefix sum gives C's row offsets; the total comes back;
//! 4. *numeric*: each class's kernel writes its rows, sorted, in place
//!    (the staged rows copied).
//!
//! Memory is planned before C is allocated. When C's entries do not fit
//! the budget (free device memory, or [`SpgemmOptions::memory_budget`]),
//! A's rows are cut into blocks whose part of C fits, and each block is
//! multiplied, copied to the host and its buffers reused: a C larger than
//! the device completes ([`spgemm_with`] assembles it; [`spgemm_blocks`]
//! hands each block on, so C need not fit the host either). A single row of C that does not fit is an
//! [`Error::TooLarge`] with the numbers; C is never empty or truncated.
//!
//! Every row is summed in the serial engine's order, so the result has the
//! serial bits for every semiring (plus-times included) on every run.
//!
//! The map across the two crates (host step → argument struct in
//! `gpu_kernels::args` → entry points, in `gpu_kernels::spgemm`'s modules
//! as named):
//!
//! | step (this module) | arguments | kernels |
//! |---|---|---|
//! | classify, bin (`classify`) | `SpgemmClassifyArgs` | `spgemm_long_rows`, `spgemm_long_products`, `spgemm_classify`, `spgemm_bin` (`classify`) |
//! | Bᵀ for giant rows (`Giant`) | `SpgemmTransposeArgs` | `spgemm_transpose_count`, `_scatter`, `_sort` (`giant`) |
//! | symbolic phase, classes 1–6 (`launch_rows`, by `RowClass`) | `SpgemmSymbolicArgs` | `spgemm_{warp,short,hash,block,dense}_symbolic` (`spgemm_hash_*` twice: its own class and the wide one; stamped per semiring) |
//! | numeric phase, classes 0–6 (the same) | `SpgemmNumericArgs` | `spgemm_copy`, `spgemm_{warp,short,hash,block,dense}_numeric` |
//! | staging many short, hash or dense rows, in the symbolic phase (the same) | `SpgemmStageArgs` | `spgemm_{short,hash,dense}_stage` |
//! | their copy to C, in the numeric phase (the same) | `SpgemmUnstageArgs` | `spgemm_unstage` (short, hash), `spgemm_unstage_dense` |
//! | giant rows, batch by batch (`Giant::launch`) | `SpgemmGatherArgs`, `SpgemmGiantSymbolicArgs` or `SpgemmGiantNumericArgs` | `spgemm_giant_gather`, `spgemm_giant_columns_{symbolic,numeric}`, `spgemm_giant_rows_{symbolic,numeric}` (`giant`; the last four stamped) |
//! | row offsets (`exclusive_scan`) | `ScanArgs` | `scan_tiles`, `scan_tile_sums`, `scan_add` |
//! | a product kept on the device ([`DevProduct::into_dev_csr`]) | `NarrowArgs` | `narrow_offsets` (`gpu_kernels::util`) |
//! | the plan's numeric phase ([`plan`]) | `SpgemmReplayArgs` | `spgemm_replay_4`, `spgemm_replay_8`, their `_staged`, and `spgemm_replay_long_4`, `_8` beside them (stamped) |
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the entry points ([`spgemm`], [`spgemm_with`], [`spgemm_blocks`], [`spgemm_device`]) and the memory budget: A's rows cut into blocks whose C fits |
//! | `classify` | classify, bin, prefix sum |
//! | `symbolic` | the `Product` between its phases: symbolic and numeric over the classes, the dense kernel's memory, staging |
//! | `rows` | the row classes (`RowClass`) and their launches, a struct and entry point per phase |
//! | `giant` | the giant rows: Bᵀ, gather, fold |
//! | [`plan`] | the planned product: product lists built on the host (`lists`), replayed on the device (`replay`) |

mod classify;
pub(super) use classify::exclusive_scan;
mod giant;
pub mod plan;
mod rows;
mod symbolic;

use std::ops::Range;

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{NarrowArgs, SPGEMM_CLASSES};
use gpu_kernels::kernels::utility;

use super::Gpu;
use super::matrix::{DevCsr, download_csr, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::Csr;
use symbolic::Product;

/// Device memory left alone when the budget is the free memory: room for
/// the driver, the kernels' modules and the allocator's rounding.
const RESERVE: usize = 256 << 20;

/// How a GPU product may use memory.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpgemmOptions {
    /// Bytes of C's entries (columns and values) held on the device at
    /// once; `None`: what is free after everything else. A smaller budget
    /// cuts A's rows into more blocks (tests use one to exercise them).
    pub memory_budget: Option<usize>,
}

/// A product and how it was computed.
#[derive(Clone, Debug)]
pub struct SpgemmRun<T> {
    /// The product.
    pub c: Csr<T>,
    /// How it was computed: row classes, row blocks, times.
    pub stats: SpgemmStats,
}

/// C = A ⊗ B over `S` on the GPU (the cuda engine's `ops::spgemm`).
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    Ok(spgemm_with::<S>(a, b, SpgemmOptions::default())?.c)
}

/// C = A ⊗ B over `S` on the GPU, with `options`, and how it ran.
pub fn spgemm_with<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    options: SpgemmOptions,
) -> Result<SpgemmRun<S::Value>>
where
    S::Value: Scalar,
{
    let (mut row_ptr, mut col_idx, mut values) = (vec![0usize], Vec::new(), Vec::new());
    let stats = spgemm_blocks::<S>(a, b, options, &mut |_, block| {
        let base = *row_ptr.last().expect("starts with 0");
        let (_, _, ptr, cols, vals) = block.into_parts();
        row_ptr.extend(ptr[1..].iter().map(|p| p + base));
        col_idx.extend(cols);
        values.extend(vals);
        Ok(())
    })?;
    Ok(SpgemmRun {
        c: Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values),
        stats,
    })
}

/// How a product in row blocks ran.
#[derive(Clone, Copy, Debug)]
pub struct SpgemmStats {
    /// Products computed (Σ over A(i,k) of |B(k,:)|).
    pub products: u64,
    /// Entries of C.
    pub nnz: u64,
    /// Row blocks C was computed in (1 when it fit at once).
    pub row_blocks: usize,
    /// Rows of each class: copy, warp-sorted, short (sorted in registers),
    /// hashed, wide (a warp's table of 2048 columns), block-sorted, dense,
    /// giant.
    pub classes: [u32; SPGEMM_CLASSES],
}

/// C = A ⊗ B over `S` on the GPU, handed to `sink` one row block at a time,
/// in order (the rows, and those rows of C as a matrix of their own): C
/// never needs to fit the device, nor the host when `sink` writes or checks
/// each block and lets it go. A `sink` error stops the product and is
/// returned.
pub fn spgemm_blocks<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    options: SpgemmOptions,
    sink: &mut dyn FnMut(Range<usize>, Csr<S::Value>) -> Result<()>,
) -> Result<SpgemmStats>
where
    S::Value: Scalar,
{
    crate::engine::shared::spgemm::shapes_agree(a, b)?;
    let gpu = Gpu::get()?;
    let (da, db) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
    let mut product = Product::symbolic::<S>(gpu, &da, &db)?;
    let n = a.nrows();
    let entry = 4 + size_of::<S::Value>();
    let budget = match options.memory_budget {
        Some(b) => b,
        None => gpu.memory()?.0.saturating_sub(RESERVE),
    };
    let mut row_ptr = vec![0u64; n + 1];
    gpu.download_into(&product.row_ptr, 0..n + 1, &mut row_ptr)?;
    let blocks = row_blocks(&row_ptr, budget / entry, entry)?;
    let largest = blocks
        .iter()
        .map(|r| (row_ptr[r.end] - row_ptr[r.start]) as usize)
        .max()
        .unwrap_or(0);
    let mut c_cols = gpu.output::<u32>(largest.max(1))?;
    let mut c_vals = gpu.output::<S::Value>(largest.max(1))?;
    for rows in &blocks {
        let (first, last) = (row_ptr[rows.start], row_ptr[rows.end]);
        let len = (last - first) as usize;
        product.numeric::<S>(&da, &db, rows.clone(), first, &mut c_cols, &mut c_vals)?;
        let mut col_idx = vec![0u32; len];
        let mut values = vec![S::zero(); len];
        gpu.download_into(&c_cols, 0..len, &mut col_idx)?;
        gpu.download_into(&c_vals, 0..len, &mut values)?;
        let ptr = row_ptr[rows.start..=rows.end]
            .iter()
            .map(|&p| (p - first) as usize)
            .collect();
        let block = Csr::from_parts_unchecked(rows.len(), b.ncols(), ptr, col_idx, values);
        sink(rows.clone(), block)?;
    }
    Ok(SpgemmStats {
        products: product.binned.products,
        nnz: row_ptr[n],
        row_blocks: blocks.len(),
        classes: product.binned.counts,
    })
}

/// C = A ⊗ B kept on the device (`u64` row offsets).
///
/// Its shape, offsets and entries are the crate's alone: `into_dev_csr`
/// launches a kernel over them, which a product of another shape than its
/// buffers would send out of bounds.
pub struct DevProduct<T> {
    pub(crate) n_rows: usize,
    pub(crate) n_cols: usize,
    pub(crate) row_ptr: CudaSlice<u64>,
    pub(crate) col_idx: CudaSlice<u32>,
    pub(crate) values: CudaSlice<T>,
    pub(crate) nnz: usize,
    /// Products computed.
    pub products: u64,
    /// Rows of each class: copy, warp-sorted, short (sorted in registers),
    /// hashed, wide (a warp's table of 2048 columns), block-sorted, dense,
    /// giant.
    pub classes: [u32; SPGEMM_CLASSES],
}

impl<T: Scalar> DevProduct<T> {
    /// C as a [`DevCsr`] (offsets narrowed to `u32` on the device), to
    /// multiply again without leaving the device; a C with more entries
    /// than the kernels index is [`Error::TooLarge`].
    pub fn into_dev_csr(self, gpu: &Gpu) -> Result<DevCsr<T>> {
        let nnz = index(self.nnz, "the number of entries of the product")?;
        let mut row_ptr = gpu.output::<u32>(self.n_rows + 1)?;
        let n = self.n_rows as u64 + 1;
        let args = NarrowArgs {
            input: gpu.ptr(&self.row_ptr),
            output: gpu.ptr_mut(&mut row_ptr),
            n,
        };
        let grid = n
            .div_ceil(u64::from(Gpu::BLOCK))
            .clamp(1, u64::from(gpu.sm_count()) * 32);
        // SAFETY: `n` offsets in and out; a grid-stride kernel.
        unsafe { gpu.launch(utility::narrow_offsets(), grid as u32, Gpu::BLOCK, 0, args)? };
        Ok(DevCsr {
            n_rows: index(self.n_rows, "the number of rows")?,
            n_cols: index(self.n_cols, "the number of columns")?,
            nnz,
            longest_row: u32::MAX,
            row_ptr,
            col_idx: self.col_idx,
            values: self.values,
        })
    }

    /// C on the host.
    pub fn download(&self, gpu: &Gpu) -> Result<Csr<T>> {
        let shape = (self.n_rows, self.n_cols);
        download_csr(
            gpu,
            shape,
            &self.row_ptr,
            &self.col_idx,
            &self.values,
            self.nnz,
        )
    }
}

/// C = A ⊗ B with A, B and C on the device: the whole product at once, or
/// `None` when C's entries do not fit in the free memory (then
/// [`spgemm_with`] computes it in row blocks to the host).
pub fn spgemm_device<S: Semiring>(
    gpu: &Gpu,
    a: &DevCsr<S::Value>,
    b: &DevCsr<S::Value>,
) -> Result<Option<DevProduct<S::Value>>>
where
    S::Value: Scalar,
{
    crate::engine::shared::spgemm::product_shapes_agree(
        "spgemm",
        (a.n_rows as usize, a.n_cols as usize),
        (b.n_rows as usize, b.n_cols as usize),
    )?;
    let (product, c) = whole::<S>(gpu, a, b)?;
    Ok(c.map(|(col_idx, values)| DevProduct {
        n_rows: a.n_rows as usize,
        n_cols: b.n_cols as usize,
        nnz: product.nnz as usize,
        row_ptr: product.row_ptr,
        col_idx,
        values,
        products: product.binned.products,
        classes: product.binned.counts,
    }))
}

/// Both phases over every row, C allocated between them: the product
/// between its phases, and C's columns and values (`None` when they do
/// not fit in the free memory).
#[allow(clippy::type_complexity)]
fn whole<'g, S: Semiring>(
    gpu: &'g Gpu,
    a: &DevCsr<S::Value>,
    b: &DevCsr<S::Value>,
) -> Result<(
    Product<'g, S::Value>,
    Option<(CudaSlice<u32>, CudaSlice<S::Value>)>,
)>
where
    S::Value: Scalar,
{
    debug_assert_eq!(a.n_cols, b.n_rows, "the callers check the shapes");
    let mut product = Product::symbolic::<S>(gpu, a, b)?;
    let nnz = product.nnz as usize;
    let entry = 4 + size_of::<S::Value>();
    if nnz.saturating_mul(entry) > gpu.memory()?.0.saturating_sub(RESERVE) {
        return Ok((product, None));
    }
    let mut col_idx = gpu.output::<u32>(nnz.max(1))?;
    let mut values = gpu.output::<S::Value>(nnz.max(1))?;
    product.numeric::<S>(a, b, 0..a.n_rows as usize, 0, &mut col_idx, &mut values)?;
    // Staged rows hold these values of A and B only: a later numeric phase
    // (a plan's, with new values) recomputes them.
    product.staged = None;
    Ok((product, Some((col_idx, values))))
}

/// A's rows cut into consecutive blocks whose entries of C (`row_ptr`
/// offsets) number at most `fit` each; empty blocks are never made. One
/// row with more entries than fit is an error naming it.
fn row_blocks(row_ptr: &[u64], fit: usize, entry: usize) -> Result<Vec<Range<usize>>> {
    let n = row_ptr.len() - 1;
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start;
        // The furthest `end` with row_ptr[end] − row_ptr[start] ≤ fit.
        let limit = row_ptr[start] + fit as u64;
        end += row_ptr[start..=n].partition_point(|&p| p <= limit) - 1;
        if end == start {
            let len = row_ptr[start + 1] - row_ptr[start];
            return Err(Error::TooLarge(format!(
                "row {start} of the product has {len} entries ({} bytes); the GPU memory \
                 budget holds {fit} entries ({} bytes)",
                len as usize * entry,
                fit * entry
            )));
        }
        blocks.push(start..end);
        start = end;
    }
    if blocks.is_empty() {
        blocks.push(0..0);
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_blocks_fit_the_budget_and_cover_every_row() {
        // Rows of 3, 0, 5, 2, 4 entries.
        let ptr = [0u64, 3, 3, 8, 10, 14];
        assert_eq!(row_blocks(&ptr, 100, 8).unwrap(), vec![0..5]);
        assert_eq!(
            row_blocks(&ptr, 5, 8).unwrap(),
            vec![0..2, 2..3, 3..4, 4..5]
        );
        assert_eq!(row_blocks(&ptr, 6, 8).unwrap(), vec![0..2, 2..3, 3..5]);
        let err = row_blocks(&ptr, 4, 8).unwrap_err().to_string();
        assert!(err.contains("row 2") && err.contains("5 entries"), "{err}");
        assert_eq!(row_blocks(&[0], 4, 8).unwrap(), vec![0..0]);
        assert_eq!(row_blocks(&[0, 0, 0], 0, 8).unwrap(), vec![0..2]);
    }
}
