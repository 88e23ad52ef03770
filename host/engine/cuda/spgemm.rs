//! SpGEMM on the GPU: `C = A ⊗ B`, all three CSR, with the kernels of
//! `gpu_kernels::spgemm` (why a warp's hash table in the serial order, and how long rows go
//! through a bitmap of their span, is written there) and `gpu_kernels::spgemm_long`
//! (rows of A too long for one thread, and giant rows through Bᵀ).
//!
//! The pipeline, all on the device but for a few counts read back:
//!
//! 1. *classify* every row of C by its product count (rows of A over
//!    `SPGEMM_LANE_MAX` entries summed first by warps), and *bin* the rows
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
//! `gpu_kernels::args` → entry points, in `gpu_kernels::spgemm` unless
//! named `spgemm_long`):
//!
//! | step (this module) | arguments | kernels |
//! |---|---|---|
//! | classify, bin (`classify`) | `SpgemmClassifyArgs` | `spgemm_long_rows`, `spgemm_long_products` (`spgemm_long`), `spgemm_classify`, `spgemm_bin` |
//! | Bᵀ for giant rows (`Giant`) | `SpgemmTransposeArgs` | `spgemm_transpose_count`, `_scatter`, `_sort` (`spgemm_long`) |
//! | symbolic and numeric, classes 0–6 (`launch_rows`) | `SpgemmRowsArgs` | `spgemm_copy`, `spgemm_warp`, `spgemm_short`, `spgemm_hash` (twice: its own class and the wide one), `spgemm_block`, `spgemm_dense` (stamped per semiring) |
//! | giant rows, batch by batch (`launch_giant`) | `SpgemmGatherArgs`, `SpgemmGiantArgs` | `spgemm_giant_gather`, `spgemm_giant_columns`, `spgemm_giant_rows` (`spgemm_long`; the last two stamped) |
//! | row offsets (`exclusive_scan`) | `ScanArgs` | `scan_tiles`, `scan_tile_sums`, `scan_add` |
//! | a product kept on the device ([`DevProduct::into_dev_csr`]) | `NarrowArgs` | `narrow_offsets` (`gpu_kernels::util`) |
//! | the plan's numeric phase ([`spgemm_plan`](super::spgemm_plan)) | `SpgemmReplayArgs` | `spgemm_replay_4`, `spgemm_replay_8`, their `_staged`, and `spgemm_replay_long_4`, `_8` beside them (stamped) |

use std::ops::Range;

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, DevPtrMut, NarrowArgs, SCAN_SHARED, SCAN_THREADS, SCAN_TILE, SHARED_DEFAULT_MAX,
    SPGEMM_BLOCK_MAX, SPGEMM_CLASS_BLOCK, SPGEMM_CLASS_COPY, SPGEMM_CLASS_DENSE,
    SPGEMM_CLASS_GIANT, SPGEMM_CLASS_HASH, SPGEMM_CLASS_SHORT, SPGEMM_CLASS_WARP,
    SPGEMM_CLASS_WIDE, SPGEMM_CLASSES, SPGEMM_DENSE_SHARED, SPGEMM_GIANT_BATCH, SPGEMM_HASH_SLOTS,
    SPGEMM_LANE_MAX, SPGEMM_LONG_CHUNK, SPGEMM_NUMERIC, SPGEMM_STAGE, SPGEMM_SYMBOLIC,
    SPGEMM_THREADS, SPGEMM_UNSTAGE, SPGEMM_WIDE_SLOTS, ScanArgs, SpgemmClassifyArgs,
    SpgemmGatherArgs, SpgemmGiantArgs, SpgemmRowsArgs, SpgemmTransposeArgs, spgemm_dense_arrays,
    spgemm_dense_shared_bytes, spgemm_hash_table_bytes, spgemm_hash_warps,
    spgemm_sort_shared_bytes,
};
use gpu_kernels::kernels::{Family, family, utility};

use super::Gpu;
use super::matrix::{DevCsr, download_csr, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::Csr;

/// The row kernels for `S`, by class (see `gpu_kernels::args::SPGEMM_CLASSES`;
/// the giant rows, the last class, go through Bᵀ instead).
fn row_kernels<S: Semiring>() -> [Family<S, SpgemmRowsArgs<S::Value>>; SPGEMM_CLASS_DENSE + 1] {
    [
        family::spgemm_copy(),
        family::spgemm_warp(),
        family::spgemm_short(),
        family::spgemm_hash(),
        family::spgemm_hash(),
        family::spgemm_block(),
        family::spgemm_dense(),
    ]
}

/// Rows of the short or the hash class from which they are staged (both
/// phases in one walk, `gpu_kernels::args::SPGEMM_STAGE`): fewer rows walk
/// twice in less time than the staging offsets' scan and its count
/// brought back take.
const STAGE_MIN_ROWS: u32 = 1 << 16;

/// Rows of the dense class from which they are staged: each has over
/// 1024 products, so these many walk for longer than the scan and its
/// count brought back take.
const STAGE_MIN_LONG_ROWS: u32 = 256;

/// Part of the free device memory the staging area may take, so that C
/// (about as large when most rows are hashed) still fits beside it.
const STAGE_SHARE: usize = 4;

/// Entries of A a row needs to be giant (`gpu_kernels::spgemm_long`): a
/// block of `spgemm_dense` walks a row's entries 32 a step of dependent
/// loads, so a row of 4096 takes 128 steps, about as long as a whole
/// product of the middle size; shorter walks cost less than a pass over
/// Bᵀ. Tried 256: 0.42–0.47×, as a batch of 32 giant rows costs four
/// launches and a pass over Bᵀ.
const GIANT_MIN_LEN: u32 = 4096;

/// B's entries over the products a row needs to be giant: each batch
/// reads all of Bᵀ once, so its rows must do at least that much work
/// between them (a full batch of 32, at one 32nd each, does it once).
const GIANT_SHARE: u64 = 32;

/// Part of the free device memory the giant rows' scratch (Bᵀ, a batch's
/// rows spread over B's rows and its columns) may take; beyond it, long
/// rows stay with `spgemm_dense`.
const GIANT_MEMORY_SHARE: usize = 4;

/// Device memory left alone when the budget is the free memory: room for
/// the driver, the kernels' modules and the allocator's rounding.
const RESERVE: usize = 256 << 20;

/// Blocks of `spgemm_dense` a multiprocessor when its spans need global
/// scratch (a slot as wide as B a block): its rows wait on memory, and
/// four blocks hide more of that than two, for slots of `4 + 32 · value`
/// bytes every 32 columns of B (half the free memory at most).
const DENSE_SLOTS_PER_SM: usize = 4;

/// Blocks of `spgemm_dense` a multiprocessor when no block needs a slot:
/// more than run at once, so that a block that finishes early finds the
/// next waiting.
const DENSE_BLOCKS_PER_SM: usize = 8;

/// Blocks of `spgemm_dense` that share a multiprocessor's shared memory
/// when its values sum by column: a value for every column of B, for B up
/// to about 26K columns (`f32`), in one walk of the products.
const DENSE_BY_COLUMN_RESIDENT: u32 = 2;

/// Blocks of `spgemm_dense` that share a multiprocessor's shared memory
/// otherwise: each holds the numeric phase's arrays for a span of 2¹⁷
/// columns (48 KiB), and the rows' walks, bound by the latency of their
/// loads, gain more from 32 warps an SM than from room for longer rows'
/// values.
const DENSE_RESIDENT: u32 = 4;

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
    pub c: Csr<T>,
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
    crate::engine::serial::spgemm::check_shapes(a, b);
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
pub struct DevProduct<T> {
    pub n_rows: usize,
    pub n_cols: usize,
    pub row_ptr: CudaSlice<u64>,
    pub col_idx: CudaSlice<u32>,
    pub values: CudaSlice<T>,
    pub nnz: usize,
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
pub(super) fn whole<'g, S: Semiring>(
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
    assert_eq!(a.n_cols, b.n_rows, "spgemm: A's columns != B's rows");
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

/// Rows of C listed by class, for one range of rows.
pub(super) struct Binned {
    counts: [u32; SPGEMM_CLASSES],
    offsets: [u32; SPGEMM_CLASSES + 1],
    rows: CudaSlice<u32>,
    pub(super) products: u64,
}

/// A product between its phases: row lengths and offsets of C, and the
/// scratch of the dense kernel and of the giant rows.
pub(super) struct Product<'g, T> {
    pub(super) gpu: &'g Gpu,
    /// Every row binned (reused by a numeric phase over all rows).
    pub(super) binned: Binned,
    row_len: CudaSlice<u32>,
    pub(super) row_ptr: CudaSlice<u64>,
    pub(super) nnz: u64,
    /// Blocks of the dense kernel: its scratch slots, or as many as run
    /// at once when every span fits its shared accumulator.
    dense_blocks: usize,
    slot_words: u32,
    scratch_flags: CudaSlice<u32>,
    scratch_values: CudaSlice<T>,
    /// `spgemm_dense`'s shared memory in each phase (symbolic, numeric).
    dense_shared: [DenseShared; 2],
    /// The least products and entries of A of a giant row.
    giant_rule: (u64, u32),
    /// The giant rows' scratch, when there are any.
    giant: Option<Giant<T>>,
    /// The hashed rows, computed in the symbolic phase, when they were
    /// staged.
    staged: Option<Staged<T>>,
}

/// `spgemm_dense`'s shared memory in one phase: the words of each of its
/// arrays (as many as a span of B's width needs, when they fit), the
/// values beside them, and the bytes of it all.
#[derive(Clone, Copy, Debug)]
struct DenseShared {
    words: u32,
    values: u32,
    bytes: u32,
}

impl DenseShared {
    fn new<T>(gpu: &Gpu, b: &DevCsr<T>, numeric: bool) -> Self {
        let size = size_of::<T>() as u32;
        let array_bytes = 4 * spgemm_dense_arrays(numeric);
        let budget = |resident| {
            gpu.shared_per_block(resident)
                .saturating_sub(SPGEMM_DENSE_SHARED)
        };
        // Words for a span of B's width (an even count keeps the values
        // 8-byte aligned), and a value for each of its columns.
        let b_words = (b.n_cols / 32 + 2).next_multiple_of(2);
        let (words, values) =
            if numeric && b_words * (array_bytes + 32 * size) <= budget(DENSE_BY_COLUMN_RESIDENT) {
                (b_words, 32 * b_words)
            } else if b_words * array_bytes <= budget(DENSE_RESIDENT) {
                let values = (budget(DENSE_RESIDENT) - b_words * array_bytes) / size;
                (b_words, if numeric { values } else { 0 })
            } else {
                // Wide spans will take the global slots, whose scattered
                // accesses need the L1 cache that a larger share of shared
                // memory would take from them.
                let budget = SHARED_DEFAULT_MAX - SPGEMM_DENSE_SHARED;
                let words = budget / array_bytes / 2 * 2;
                let values = if numeric {
                    (budget - words * array_bytes) / size
                } else {
                    0
                };
                (words, values)
            };
        DenseShared {
            words,
            values,
            bytes: spgemm_dense_shared_bytes(numeric, words, values, size),
        }
    }
}

/// The short, the hash or the dense class's rows of C (or several
/// classes') computed whole in the symbolic phase (`SPGEMM_STAGE`): row `i` at
/// `ptr[i]` (offsets of bounds on the rows' lengths), copied to C by the
/// numeric phase.
struct Staged<T> {
    /// Whether the short rows are staged, the hashed rows, the long rows.
    classes: [bool; 3],
    ptr: CudaSlice<u64>,
    col_idx: CudaSlice<u32>,
    values: CudaSlice<T>,
}

impl<'g, T: Scalar> Product<'g, T> {
    /// Classifies and bins every row, runs the symbolic phase and the
    /// prefix sum: C's row offsets and size, nothing of C allocated.
    fn symbolic<S: Semiring<Value = T>>(
        gpu: &'g Gpu,
        a: &DevCsr<T>,
        b: &DevCsr<T>,
    ) -> Result<Self> {
        let n = a.n_rows;
        let mut row_len = gpu.zeros::<u32>(n as usize + 1)?;
        let mut stage_len = gpu.output::<u32>(n as usize + 1)?;
        let giant_rule = giant_rule(gpu, a, b)?;
        let binned = classify(
            gpu,
            a,
            b,
            0..n,
            &mut row_len,
            Some(&mut stage_len),
            giant_rule,
        )?;
        let giant = match binned.counts[SPGEMM_CLASS_GIANT] {
            0 => None,
            _ => Some(Giant::new(gpu, b)?),
        };
        let slot_words = b.n_cols / 32 + 2;
        let slot_bytes = slot_words as usize * (4 + 32 * size_of::<T>());
        let dense_rows = binned.counts[SPGEMM_CLASS_DENSE] as usize;
        let sms = gpu.sm_count() as usize;
        let dense_shared = [false, true].map(|numeric| DenseShared::new::<T>(gpu, b, numeric));
        // When every span fits the dense kernel's shared memory, its blocks
        // need no scratch and as many run as fit the device.
        let global = dense_shared.iter().any(|s| s.words < slot_words);
        let want = dense_rows.min(if global {
            DENSE_SLOTS_PER_SM * sms
        } else {
            DENSE_BLOCKS_PER_SM * sms
        });
        let free = gpu.memory()?.0.saturating_sub(RESERVE);
        // The dense kernel's scratch may take up to half of what is free.
        let slots = want.min(free / 2 / slot_bytes.max(1));
        if global && want > 0 && slots == 0 {
            return Err(Error::TooLarge(format!(
                "the long rows of this product need {slot_bytes} bytes of GPU scratch each \
                 (B has {} columns); {free} bytes are free",
                b.n_cols
            )));
        }
        let global_slots = if global { slots } else { 0 };
        let staged_classes = [
            binned.counts[SPGEMM_CLASS_SHORT] >= STAGE_MIN_ROWS,
            binned.counts[SPGEMM_CLASS_HASH] >= STAGE_MIN_ROWS,
            binned.counts[SPGEMM_CLASS_DENSE] >= STAGE_MIN_LONG_ROWS,
        ];
        let staged = match staged_classes {
            [false, false, false] => None,
            classes => Staged::new(gpu, &stage_len, n, free / STAGE_SHARE, classes)?,
        };
        let mut product = Product {
            gpu,
            binned,
            row_len,
            row_ptr: gpu.zeros::<u64>(1)?,
            nnz: 0,
            dense_blocks: if global { slots } else { want },
            slot_words,
            // The dense kernel needs its bitmaps zeroed, and leaves them so.
            scratch_flags: gpu.zeros::<u32>((global_slots * slot_words as usize).max(1))?,
            scratch_values: gpu.output::<T>((global_slots * 32 * slot_words as usize).max(1))?,
            dense_shared,
            giant_rule,
            giant,
            staged,
        };
        product.launch_rows::<S>(a, b, None, false, None, 0)?;
        product.row_ptr = exclusive_scan(gpu, &product.row_len, n)?;
        let mut nnz = [0u64];
        gpu.download_into(&product.row_ptr, n as usize..n as usize + 1, &mut nnz)?;
        product.nnz = nnz[0];
        Ok(product)
    }

    /// The numeric phase for `rows`, whose entries of C start at `c_base`,
    /// into `c_cols` / `c_vals` (large enough).
    pub(super) fn numeric<S: Semiring<Value = T>>(
        &mut self,
        a: &DevCsr<T>,
        b: &DevCsr<T>,
        rows: Range<usize>,
        c_base: u64,
        c_cols: &mut CudaSlice<u32>,
        c_vals: &mut CudaSlice<T>,
    ) -> Result<()> {
        let gpu = self.gpu;
        let out = (gpu.ptr_mut(c_cols), gpu.ptr_mut(c_vals));
        if rows == (0..a.n_rows as usize) {
            return self.launch_rows::<S>(a, b, None, true, Some(out), c_base);
        }
        let binned = classify(
            gpu,
            a,
            b,
            rows.start as u32..rows.end as u32,
            &mut self.row_len,
            None,
            self.giant_rule,
        )?;
        self.launch_rows::<S>(a, b, Some(&binned), true, Some(out), c_base)
    }

    /// Queues each class's row kernel for one phase, over the rows of
    /// `binned` (all rows: `None`).
    fn launch_rows<S: Semiring<Value = T>>(
        &mut self,
        a: &DevCsr<T>,
        b: &DevCsr<T>,
        binned: Option<&Binned>,
        numeric: bool,
        out: Option<(DevPtrMut<u32>, DevPtrMut<T>)>,
        c_base: u64,
    ) -> Result<()> {
        let gpu = self.gpu;
        let binned = binned.unwrap_or(&self.binned);
        let (counts, offsets) = (binned.counts, binned.offsets);
        let (c_col_idx, c_values) = out.unwrap_or((DevPtrMut::null(), DevPtrMut::null()));
        let size = size_of::<T>() as u32;
        let sms = gpu.sm_count();
        for class in 0..=SPGEMM_CLASS_DENSE {
            let count = counts[class];
            // The copied rows' lengths came from classify: they have only a
            // numeric phase.
            if count == 0 || (class == SPGEMM_CLASS_COPY && !numeric) {
                continue;
            }
            let staged = self.staged.as_mut().filter(|s| s.holds(class));
            let phase = match (numeric, staged.is_some()) {
                (false, false) => SPGEMM_SYMBOLIC,
                (true, false) => SPGEMM_NUMERIC,
                (false, true) => SPGEMM_STAGE,
                (true, true) => SPGEMM_UNSTAGE,
            };
            let dense = self.dense_shared[usize::from(phase != SPGEMM_SYMBOLIC)];
            let mut args = SpgemmRowsArgs {
                a_row_ptr: gpu.ptr(&a.row_ptr),
                a_col_idx: gpu.ptr(&a.col_idx),
                a_values: gpu.ptr(&a.values),
                b_row_ptr: gpu.ptr(&b.row_ptr),
                b_col_idx: gpu.ptr(&b.col_idx),
                b_values: gpu.ptr(&b.values),
                rows: gpu.ptr_at(&binned.rows, offsets[class] as usize),
                row_len: gpu.ptr_mut(&mut self.row_len),
                c_row_ptr: gpu.ptr(&self.row_ptr),
                c_col_idx,
                c_values,
                scratch_flags: gpu.ptr_mut(&mut self.scratch_flags),
                scratch_values: gpu.ptr_mut(&mut self.scratch_values),
                stage_ptr: DevPtr::null(),
                stage_col_idx: DevPtr::null(),
                stage_values: DevPtr::null(),
                c_base,
                n_rows: count,
                numeric: phase,
                slot_words: self.slot_words,
                shared_words: dense.words,
                shared_values: dense.values,
                table_slots: if class == SPGEMM_CLASS_WIDE {
                    SPGEMM_WIDE_SLOTS
                } else {
                    SPGEMM_HASH_SLOTS
                },
            };
            if let Some(st) = staged {
                if numeric {
                    args.stage_ptr = gpu.ptr(&st.ptr);
                    args.stage_col_idx = gpu.ptr(&st.col_idx);
                    args.stage_values = gpu.ptr(&st.values);
                } else {
                    // Staging writes its rows as a numeric phase would C's.
                    args.c_row_ptr = gpu.ptr(&st.ptr);
                    args.c_col_idx = gpu.ptr_mut(&mut st.col_idx);
                    args.c_values = gpu.ptr_mut(&mut st.values);
                    args.c_base = 0;
                }
            }
            let warps = SPGEMM_THREADS / 32;
            let (grid, block, shared) = match class {
                // Copying staged rows needs no table: more warps run at once.
                SPGEMM_CLASS_SHORT | SPGEMM_CLASS_HASH if phase == SPGEMM_UNSTAGE => (
                    count.div_ceil(SPGEMM_THREADS).min(sms * 64),
                    SPGEMM_THREADS,
                    0,
                ),
                SPGEMM_CLASS_COPY | SPGEMM_CLASS_WARP | SPGEMM_CLASS_SHORT => {
                    (count.div_ceil(warps).min(sms * 64), SPGEMM_THREADS, 0)
                }
                SPGEMM_CLASS_HASH | SPGEMM_CLASS_WIDE => {
                    let warps = if class == SPGEMM_CLASS_WIDE {
                        wide_warps(gpu, size)
                    } else {
                        spgemm_hash_warps(SPGEMM_HASH_SLOTS, size)
                    };
                    (
                        count.div_ceil(warps).min(sms * 64),
                        32 * warps,
                        warps * spgemm_hash_table_bytes(args.table_slots, size),
                    )
                }
                SPGEMM_CLASS_BLOCK => (
                    count.min(sms * 16),
                    SPGEMM_THREADS,
                    spgemm_sort_shared_bytes(SPGEMM_BLOCK_MAX, size),
                ),
                // A block copies a staged long row.
                _ if phase == SPGEMM_UNSTAGE => (count.min(sms * 16), SPGEMM_THREADS, 0),
                _ => (
                    count.min(self.dense_blocks as u32),
                    SPGEMM_THREADS,
                    dense.bytes,
                ),
            };
            // SAFETY: A's and B's arrays, `count` rows of the class listed
            // at `rows`, their lengths (symbolic) or C's offsets (numeric)
            // for the whole product, C's arrays large enough for the rows
            // from `c_base` (the caller's), the scratch sized for the class
            // at `new`, and the class's block, grid and shared memory above.
            unsafe { gpu.launch(row_kernels::<S>()[class], grid, block, shared, args)? };
        }
        let first = offsets[SPGEMM_CLASS_GIANT];
        let batches: Vec<_> = (0..counts[SPGEMM_CLASS_GIANT])
            .step_by(SPGEMM_GIANT_BATCH as usize)
            .map(|batch| {
                let n = (counts[SPGEMM_CLASS_GIANT] - batch).min(SPGEMM_GIANT_BATCH);
                (gpu.ptr_at(&binned.rows, (first + batch) as usize), n)
            })
            .collect();
        self.launch_giant::<S>(a, b, &batches, numeric, (c_col_idx, c_values), c_base)
    }

    /// Queues one phase of the giant rows, a batch at a time: `batches`
    /// holds each batch's list of rows (at most `SPGEMM_GIANT_BATCH`) and
    /// its length.
    fn launch_giant<S: Semiring<Value = T>>(
        &mut self,
        a: &DevCsr<T>,
        b: &DevCsr<T>,
        batches: &[(DevPtr<u32>, u32)],
        numeric: bool,
        (c_col_idx, c_values): (DevPtrMut<u32>, DevPtrMut<T>),
        c_base: u64,
    ) -> Result<()> {
        if batches.is_empty() {
            return Ok(());
        }
        let gpu = self.gpu;
        let giant = self
            .giant
            .as_mut()
            .expect("a product with giant rows has their scratch");
        let sms = gpu.sm_count();
        let warps = SPGEMM_THREADS / 32;
        for &(rows, n_batch) in batches {
            let mut gather = SpgemmGatherArgs {
                a_row_ptr: gpu.ptr(&a.row_ptr),
                a_col_idx: gpu.ptr(&a.col_idx),
                rows,
                x_mask: gpu.ptr_mut(&mut giant.x_mask),
                x_pos: gpu.ptr_mut(&mut giant.x_pos),
                n_batch,
                clear: 0,
            };
            let gather_kernel = utility::spgemm_giant_gather();
            // SAFETY: A's offsets and columns, `n_batch` rows listed at
            // `rows`, and the batch's spread of B's rows (`Giant::new`'s
            // sizes). A grid-stride kernel.
            unsafe { gpu.launch(gather_kernel, sms * 8, SPGEMM_THREADS, 0, gather)? };
            let args = SpgemmGiantArgs {
                a_values: gpu.ptr(&a.values),
                b_values: gpu.ptr(&b.values),
                bt_ptr: gpu.ptr(&giant.bt_ptr),
                bt_keys: gpu.ptr(&giant.bt_keys),
                x_mask: gpu.ptr(&giant.x_mask),
                x_pos: gpu.ptr(&giant.x_pos),
                rows,
                out_mask: gpu.ptr_mut(&mut giant.out_mask),
                out_values: gpu.ptr_mut(&mut giant.out_values),
                row_len: gpu.ptr_mut(&mut self.row_len),
                c_row_ptr: gpu.ptr(&self.row_ptr),
                c_col_idx,
                c_values,
                c_base,
                n_cols: b.n_cols,
                n_batch,
                numeric: u32::from(numeric),
                pad: 0,
            };
            let grid = b.n_cols.div_ceil(warps).clamp(1, sms * 64);
            // SAFETY: the gathered batch, Bᵀ of B (`Giant::new`), its
            // fold over B's `n_cols` columns into `out_*` (sized for them),
            // and C's arrays as in `launch_rows`. Warps over columns, then a
            // block of `GIANT_ROW_THREADS` a row with the scan's shared
            // memory, as the kernels require.
            unsafe {
                let columns = family::spgemm_giant_columns::<S>();
                gpu.launch(columns, grid, SPGEMM_THREADS, 0, args)?;
                let rows = family::spgemm_giant_rows::<S>();
                gpu.launch(rows, n_batch, GIANT_ROW_THREADS, SCAN_SHARED, args)?;
                gather.clear = 1;
                gpu.launch(gather_kernel, sms * 8, SPGEMM_THREADS, 0, gather)?;
            }
        }
        Ok(())
    }
}

/// Threads of a block of `spgemm_giant_rows`: a giant row is read out by
/// one block over all of B's columns, so it takes the most a block has.
const GIANT_ROW_THREADS: u32 = 1024;

/// The least products and entries of A of a giant row for A ⊗ B; none is
/// giant when no row of A is long enough, or when the giant rows' scratch
/// would not fit its share of the free memory.
fn giant_rule<T: Scalar>(gpu: &Gpu, a: &DevCsr<T>, b: &DevCsr<T>) -> Result<(u64, u32)> {
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
struct Giant<T> {
    bt_ptr: CudaSlice<u64>,
    bt_keys: CudaSlice<u64>,
    /// Zero between batches.
    x_mask: CudaSlice<u32>,
    x_pos: CudaSlice<u32>,
    out_mask: CudaSlice<u32>,
    out_values: CudaSlice<T>,
}

impl<T: Scalar> Giant<T> {
    /// Device bytes of the scratch for B (the transpose's counts included).
    fn bytes(b: &DevCsr<T>) -> usize {
        let (rows, cols, nnz) = (b.n_rows as usize, b.n_cols as usize, b.nnz as usize);
        rows * (4 + 4 * 32) + cols * (4 + 32 * size_of::<T>() + 8 + 4) + nnz * 8
    }

    /// Bᵀ built on the device, and the batch's buffers.
    fn new(gpu: &Gpu, b: &DevCsr<T>) -> Result<Self> {
        let (rows, cols) = (b.n_rows, b.n_cols);
        let sms = gpu.sm_count();
        let warps = SPGEMM_THREADS / 32;
        let mut col_count = gpu.zeros::<u32>(cols.max(1) as usize)?;
        let mut bt_keys = gpu.output::<u64>((b.nnz as usize).max(1))?;
        let mut args = SpgemmTransposeArgs {
            b_row_ptr: gpu.ptr(&b.row_ptr),
            b_col_idx: gpu.ptr(&b.col_idx),
            col_count: gpu.ptr_mut(&mut col_count),
            col_ptr: DevPtr::null(),
            keys: gpu.ptr_mut(&mut bt_keys),
            n_rows: rows,
            n_cols: cols,
            long: 0,
            pad: 0,
        };
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
        args.col_ptr = gpu.ptr(&bt_ptr);
        let grid = rows.div_ceil(warps).clamp(1, sms * 64);
        unsafe {
            let kernel = utility::spgemm_transpose_scatter();
            gpu.launch(kernel, grid, SPGEMM_THREADS, 0, args)?;
        }
        let grid = cols.div_ceil(warps).clamp(1, sms * 64);
        let sort = utility::spgemm_transpose_sort();
        unsafe { gpu.launch(sort, grid, SPGEMM_THREADS, 0, args)? };
        args.long = 1;
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

impl<T: Scalar> Staged<T> {
    /// Whether the rows of `class` are staged.
    fn holds(&self, class: usize) -> bool {
        match class {
            SPGEMM_CLASS_SHORT => self.classes[0],
            SPGEMM_CLASS_HASH => self.classes[1],
            SPGEMM_CLASS_DENSE => self.classes[2],
            _ => false,
        }
    }

    /// The staging area for the short, hashed and long rows whose length
    /// bounds classify wrote to `stage_len` (rows `0..n`), for the classes
    /// named (short, hashed, long), or `None` when it would take more than
    /// `room` bytes.
    /// It is laid out by every bound, so a class not staged keeps room it
    /// does not use (at most its rows' products).
    fn new(
        gpu: &Gpu,
        stage_len: &CudaSlice<u32>,
        n: u32,
        room: usize,
        classes: [bool; 3],
    ) -> Result<Option<Self>> {
        let ptr = exclusive_scan(gpu, stage_len, n)?;
        let mut total = [0u64];
        gpu.download_into(&ptr, n as usize..n as usize + 1, &mut total)?;
        let entries = total[0] as usize;
        if entries.saturating_mul(4 + size_of::<T>()) > room {
            return Ok(None);
        }
        Ok(Some(Staged {
            classes,
            ptr,
            col_idx: gpu.output::<u32>(entries.max(1))?,
            values: gpu.output::<T>(entries.max(1))?,
        }))
    }
}

/// Warps a block of the wide class: blocks of at most 8 warps, as many
/// of them an SM as give it the most tables of `SPGEMM_WIDE_SLOTS` at once
/// (a table is 16 KB in `f32`, 24 KB in `f64`).
fn wide_warps(gpu: &Gpu, value_size: u32) -> u32 {
    let table = spgemm_hash_table_bytes(SPGEMM_WIDE_SLOTS, value_size);
    (1..=4)
        .map(|blocks| (blocks, (gpu.shared_per_block(blocks) / table).clamp(1, 8)))
        .max_by_key(|&(blocks, warps)| blocks * warps)
        .map_or(1, |(_, warps)| warps)
}

/// Classifies rows `rows` of A ⊗ B and lists them by class (the lengths of
/// class-0 rows go to `row_len`, and to `stage_len` bounds on the short,
/// hashed and long rows' lengths, 0 for the others); `giant` is the least
/// products and entries of A of a giant row.
fn classify<T: Scalar>(
    gpu: &Gpu,
    a: &DevCsr<T>,
    b: &DevCsr<T>,
    rows: Range<u32>,
    row_len: &mut CudaSlice<u32>,
    stage_len: Option<&mut CudaSlice<u32>>,
    giant: (u64, u32),
) -> Result<Binned> {
    let n = rows.end - rows.start;
    let mut class = gpu.output::<u8>(n.max(1) as usize)?;
    // The class counts, then the long rows' chunks.
    let mut counts = gpu.zeros::<u32>(SPGEMM_CLASSES + 1)?;
    let mut products = gpu.zeros::<u64>(1)?;
    let mut list = gpu.output::<u32>(n.max(1) as usize)?;
    // Chunks of the long rows: at most one a row over the lane's limit,
    // plus one per full chunk.
    let chunks =
        a.nnz as usize / SPGEMM_LANE_MAX as usize + a.nnz as usize / SPGEMM_LONG_CHUNK as usize + 1;
    let long = a.longest_row > SPGEMM_LANE_MAX;
    let mut long_chunks = gpu.output::<u64>(if long { chunks } else { 1 })?;
    let mut long_products = gpu.output::<u64>(if long { n.max(1) as usize } else { 1 })?;
    let mut long_span = gpu.output::<u32>(if long { 2 * n.max(1) as usize } else { 1 })?;
    let (giant_products, giant_len) = giant;
    let mut args = SpgemmClassifyArgs {
        a_row_ptr: gpu.ptr(&a.row_ptr),
        a_col_idx: gpu.ptr(&a.col_idx),
        b_row_ptr: gpu.ptr(&b.row_ptr),
        b_col_idx: gpu.ptr(&b.col_idx),
        class: gpu.ptr_mut(&mut class),
        row_len: gpu.ptr_mut(row_len),
        counts: gpu.ptr_mut(&mut counts),
        products: gpu.ptr_mut(&mut products),
        rows: gpu.ptr_mut(&mut list),
        long_chunks: gpu.ptr_mut(&mut long_chunks),
        long_count: gpu.ptr_mut_at(&mut counts, SPGEMM_CLASSES),
        long_products: gpu.ptr_mut(&mut long_products),
        long_span: gpu.ptr_mut(&mut long_span),
        stage_len: stage_len.map_or(DevPtrMut::null(), |s| gpu.ptr_mut(s)),
        giant_products,
        row_start: rows.start,
        row_end: rows.end,
        giant_len,
        offsets: [0; SPGEMM_CLASSES + 1],
    };
    let sms = gpu.sm_count();
    let grid = n.div_ceil(SPGEMM_THREADS).clamp(1, sms * 32);
    // SAFETY (the classification's launches): A's and B's arrays, `n`
    // rows' classes, lengths and list, the counts, and the long rows'
    // buffers sized above for A's entries when A has long rows (the long
    // kernels run only then); grid-stride kernels.
    if long {
        unsafe {
            gpu.launch(utility::spgemm_long_rows(), grid, SPGEMM_THREADS, 0, args)?;
            let products = utility::spgemm_long_products();
            gpu.launch(products, sms * 8, SPGEMM_THREADS, 0, args)?;
        }
    }
    unsafe { gpu.launch(utility::spgemm_classify(), grid, SPGEMM_THREADS, 0, args)? };
    let counts_host: [u32; SPGEMM_CLASSES] = gpu.download(&counts)?[..SPGEMM_CLASSES]
        .try_into()
        .expect("a count a class");
    let products_host = gpu.download(&products)?[0];
    let mut offsets = [0u32; SPGEMM_CLASSES + 1];
    for c in 1..=SPGEMM_CLASSES {
        offsets[c] = offsets[c - 1] + counts_host[c - 1];
    }
    let mut cursors = gpu.zeros::<u32>(SPGEMM_CLASSES)?;
    args.counts = gpu.ptr_mut(&mut cursors);
    args.offsets = offsets;
    // SAFETY: as the classification, the cursors `SPGEMM_CLASSES` counts.
    unsafe { gpu.launch(utility::spgemm_bin(), grid, SPGEMM_THREADS, 0, args)? };
    Ok(Binned {
        counts: counts_host,
        offsets,
        rows: list,
        products: products_host,
    })
}

/// The exclusive prefix sum of `input[..n]`: `n + 1` offsets, the last the
/// total.
fn exclusive_scan(gpu: &Gpu, input: &CudaSlice<u32>, n: u32) -> Result<CudaSlice<u64>> {
    let n_tiles = n.div_ceil(SCAN_TILE).max(1);
    let mut output = gpu.output::<u64>(n as usize + 1)?;
    let mut tile_sums = gpu.output::<u64>(n_tiles as usize)?;
    let args = ScanArgs {
        input: gpu.ptr(input),
        output: gpu.ptr_mut(&mut output),
        tile_sums: gpu.ptr_mut(&mut tile_sums),
        n,
        n_tiles,
    };
    let grid = n.div_ceil(SCAN_THREADS).clamp(1, gpu.sm_count() * 32);
    // SAFETY: `n` values in, `n + 1` offsets out, `n_tiles` tile sums; a
    // block a tile, then one block, with the scan's shared memory, then a
    // grid-stride add.
    unsafe {
        gpu.launch(
            utility::scan_tiles(),
            n_tiles,
            SCAN_THREADS,
            SCAN_SHARED,
            args,
        )?;
        gpu.launch(
            utility::scan_tile_sums(),
            1,
            SCAN_THREADS,
            SCAN_SHARED,
            args,
        )?;
        gpu.launch(utility::scan_add(), grid, SCAN_THREADS, 0, args)?;
    }
    Ok(output)
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
