//! SpGEMM's symbolic phase and its memory plan: the [`Product`] between
//! its phases (rows classified and binned, their lengths, C's offsets),
//! the dense kernel's shared memory and global slots, and the staging
//! area of rows computed whole in the symbolic phase.

use std::ops::Range;

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    SHARED_DEFAULT_MAX, SPGEMM_DENSE_SHARED, spgemm_dense_arrays, spgemm_dense_shared_bytes,
};

use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::DevCsr;

use super::RESERVE;
use super::classify::{Binned, classify, exclusive_scan};
use super::giant::{Giant, giant_rule};
use super::rows::RowClass;
use crate::Scalar;
use crate::error::{Error, Result};

/// Rows of the short or the hash class from which they are staged (both
/// phases in one walk, `gpu_kernels::args::SpgemmPhase::Stage`): fewer rows walk
/// twice in less time than the staging offsets' scan and its count
/// brought back take.
pub(super) const STAGE_MIN_ROWS: u32 = 1 << 16;

/// Rows of the dense class from which they are staged: each has over
/// 1024 products, so these many walk for longer than the scan and its
/// count brought back take. Tried 128 (PGPgiantcompo's 185 dense rows
/// staged): its kernels 312 → 302 µs on an H100, its whole call no faster.
pub(super) const STAGE_MIN_LONG_ROWS: u32 = 256;

/// Part of the free device memory the staging area may take, so that C
/// (about as large when most rows are hashed) still fits beside it.
pub(super) const STAGE_SHARE: usize = 4;

/// Blocks of `spgemm_dense` a multiprocessor when its spans need global
/// scratch (a slot as wide as B a block): its rows wait on memory, and
/// four blocks hide more of that than two, for slots of `4 + 32 · value`
/// bytes every 32 columns of B (half the free memory at most).
pub(super) const DENSE_SLOTS_PER_SM: usize = 4;

/// Blocks of `spgemm_dense` a multiprocessor when no block needs a slot:
/// more than run at once, so that a block that finishes early finds the
/// next waiting.
pub(super) const DENSE_BLOCKS_PER_SM: usize = 8;

/// Blocks of `spgemm_dense` that share a multiprocessor's shared memory
/// when its values sum by column: a value for every column of B, for B up
/// to about 26K columns (`f32`), in one walk of the products.
pub(super) const DENSE_BY_COLUMN_RESIDENT: u32 = 2;

/// Blocks of `spgemm_dense` that share a multiprocessor's shared memory
/// otherwise: each holds the numeric phase's arrays for a span of 2¹⁷
/// columns (48 KiB), and the rows' walks, bound by the latency of their
/// loads, gain more from 32 warps an SM than from room for longer rows'
/// values.
pub(super) const DENSE_RESIDENT: u32 = 4;

/// A product between its phases: row lengths and offsets of C, and the
/// scratch of the dense kernel and of the giant rows.
pub(super) struct Product<'g, T> {
    pub(super) gpu: &'g Gpu,
    /// Every row binned (reused by a numeric phase over all rows).
    pub(super) binned: Binned,
    pub(super) row_len: CudaSlice<u32>,
    pub(super) row_ptr: CudaSlice<u64>,
    pub(super) nnz: u64,
    /// Blocks of the dense kernel: its scratch slots, or as many as run
    /// at once when every span fits its shared accumulator.
    pub(super) dense_blocks: usize,
    pub(super) slot_words: u32,
    pub(super) scratch_flags: CudaSlice<u32>,
    pub(super) scratch_values: CudaSlice<T>,
    /// `spgemm_dense`'s shared memory in each phase (symbolic, numeric).
    pub(super) dense_shared: [DenseShared; 2],
    /// The least products and entries of A of a giant row.
    pub(super) giant_rule: (u64, u32),
    /// The giant rows' scratch, when there are any.
    pub(super) giant: Option<Giant<T>>,
    /// The hashed rows, computed in the symbolic phase, when they were
    /// staged.
    pub(super) staged: Option<Staged<T>>,
}

/// Words of a slot of the dense kernel's global scratch: B's width, and
/// one more word as a span may start mid-word.
fn slot_words<T>(b: &DevCsr<T>) -> u32 {
    b.n_cols / 32 + 2
}

/// `spgemm_dense`'s shared memory over B in each phase (symbolic,
/// numeric), and whether a span of B's width passes it in either, so that
/// a dense row may need the global scratch.
pub(super) fn dense_shared<T>(gpu: &Gpu, b: &DevCsr<T>) -> ([DenseShared; 2], bool) {
    let shared = [false, true].map(|numeric| DenseShared::new::<T>(gpu, b, numeric));
    let global = shared.iter().any(|s| s.words < slot_words(b));
    (shared, global)
}

/// `spgemm_dense`'s shared memory in one phase: the words of each of its
/// arrays (as many as a span of B's width needs, when they fit), the
/// values beside them, and the bytes of it all.
#[derive(Clone, Copy, Debug)]
pub(super) struct DenseShared {
    pub(super) words: u32,
    pub(super) values: u32,
    pub(super) bytes: u32,
}

impl DenseShared {
    pub(super) fn new<T>(gpu: &Gpu, b: &DevCsr<T>, numeric: bool) -> Self {
        let size = size_of::<T>() as u32;
        let array_bytes = 4 * spgemm_dense_arrays(numeric);
        let budget = |resident| {
            gpu.shared_per_block(resident)
                .saturating_sub(SPGEMM_DENSE_SHARED)
        };
        // Words for a span of B's width (an even count keeps the values
        // 8-byte aligned), and a value for each of its columns.
        let b_words = slot_words(b).next_multiple_of(2);
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
/// classes') computed whole in the symbolic phase (`SpgemmPhase::Stage`): row `i` at
/// `ptr[i]` (offsets of bounds on the rows' lengths), copied to C by the
/// numeric phase.
pub(super) struct Staged<T> {
    /// Whether the short rows are staged, the hashed rows, the long rows.
    pub(super) classes: [bool; 3],
    pub(super) ptr: CudaSlice<u64>,
    pub(super) col_idx: CudaSlice<u32>,
    pub(super) values: CudaSlice<T>,
}

impl<'g, T: Scalar> Product<'g, T> {
    /// Classifies and bins every row, runs the symbolic phase and the
    /// prefix sum: C's row offsets and size, nothing of C allocated.
    pub(super) fn symbolic<S: Semiring<Value = T>>(
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
        let giant = match binned.counts[RowClass::Giant.index()] {
            0 => None,
            _ => Some(Giant::new(gpu, b)?),
        };
        let (dense_shared, global) = dense_shared::<T>(gpu, b);
        let slot_words = slot_words(b);
        let slot_bytes = slot_words as usize * (4 + 32 * size_of::<T>());
        let dense_rows = binned.counts[RowClass::Dense.index()] as usize;
        let sms = gpu.sm_count() as usize;
        // When every span fits the dense kernel's shared memory, its blocks
        // need no scratch and as many run as fit the device.
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
            binned.counts[RowClass::Short.index()] >= STAGE_MIN_ROWS,
            binned.counts[RowClass::Hash.index()] >= STAGE_MIN_ROWS,
            binned.counts[RowClass::Dense.index()] >= STAGE_MIN_LONG_ROWS,
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
}

impl<T: Scalar> Staged<T> {
    /// Whether the rows of `class` are staged.
    pub(super) fn holds(&self, class: RowClass) -> bool {
        match class {
            RowClass::Short => self.classes[0],
            RowClass::Hash => self.classes[1],
            RowClass::Dense => self.classes[2],
            _ => false,
        }
    }

    /// The staging area for the short, hashed and long rows whose length
    /// bounds classify wrote to `stage_len` (rows `0..n`), for the classes
    /// named (short, hashed, long), or `None` when it would take more than
    /// `room` bytes.
    /// It is laid out by every bound, so a class not staged keeps room it
    /// does not use (at most its rows' products).
    pub(super) fn new(
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
