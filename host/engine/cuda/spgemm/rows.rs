//! SpGEMM's row classes ([`RowClass`]): each class's kernel launched over
//! the class's rows for one phase ([`SpgemmPhase`]), with that phase's
//! argument struct and entry point (`{family}_{phase}`), so that a struct
//! of another phase does not compile.

use std::marker::PhantomData;

use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtrMut, SPGEMM_BLOCK_MAX, SPGEMM_CLASS_BLOCK, SPGEMM_CLASS_COPY, SPGEMM_CLASS_DENSE,
    SPGEMM_CLASS_GIANT, SPGEMM_CLASS_HASH, SPGEMM_CLASS_SHORT, SPGEMM_CLASS_WARP,
    SPGEMM_CLASS_WIDE, SPGEMM_GIANT_BATCH, SPGEMM_HASH_SLOTS, SPGEMM_THREADS, SPGEMM_WIDE_SLOTS,
    SpgemmNumericArgs, SpgemmPhase, SpgemmStageArgs, SpgemmSymbolicArgs, SpgemmUnstageArgs,
    spgemm_hash_table_bytes, spgemm_hash_warps, spgemm_sort_shared_bytes,
};
use gpu_kernels::kernels::{Family, family};

use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::DevCsr;

use super::classify::Binned;
use super::symbolic::Product;
use crate::Scalar;
use crate::error::Result;

/// A class of rows of C, by the kernel that computes them (classify's
/// `SPGEMM_CLASS_*`, by which its counts and bins are indexed:
/// [`RowClass::index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RowClass {
    /// At most one entry of A, or no products: B's row scaled
    /// (`spgemm_copy`, numeric only: classify wrote the lengths).
    Copy,
    /// Up to 32 products, sorted in a warp's registers (`spgemm_warp_*`).
    Warp,
    /// Up to 128 products over a span beyond a table indexed by column,
    /// sorted in a warp's registers (`spgemm_short_*`).
    Short,
    /// Rows that fit a warp's table (`spgemm_hash_*`).
    Hash,
    /// The wide class: `spgemm_hash_*` with tables of
    /// `SPGEMM_WIDE_SLOTS`, fewer warps a block.
    Wide,
    /// Up to 1024 products over a span of more than 32 columns a product,
    /// sorted in a block's shared memory (`spgemm_block_*`).
    Block,
    /// The dense rows (more products, or up to 1024 over a narrower span),
    /// through a bitmap of their span (`spgemm_dense_*`).
    Dense,
    /// The giant rows, through Bᵀ (`Giant::launch`).
    Giant,
}

impl RowClass {
    /// The classes of the row kernels, in classify's order: all but the
    /// giant rows.
    pub(super) const ROW_KERNELS: [RowClass; 7] = [
        RowClass::Copy,
        RowClass::Warp,
        RowClass::Short,
        RowClass::Hash,
        RowClass::Wide,
        RowClass::Block,
        RowClass::Dense,
    ];

    /// Its place in classify's counts and bins.
    pub(super) const fn index(self) -> usize {
        match self {
            RowClass::Copy => SPGEMM_CLASS_COPY,
            RowClass::Warp => SPGEMM_CLASS_WARP,
            RowClass::Short => SPGEMM_CLASS_SHORT,
            RowClass::Hash => SPGEMM_CLASS_HASH,
            RowClass::Wide => SPGEMM_CLASS_WIDE,
            RowClass::Block => SPGEMM_CLASS_BLOCK,
            RowClass::Dense => SPGEMM_CLASS_DENSE,
            RowClass::Giant => SPGEMM_CLASS_GIANT,
        }
    }

    /// Slots of a warp's table (`spgemm_hash_*`; no other kernel reads
    /// them).
    fn table_slots(self) -> u32 {
        if self == RowClass::Wide {
            SPGEMM_WIDE_SLOTS
        } else {
            SPGEMM_HASH_SLOTS
        }
    }
}

/// The symbolic phase's kernel of `class`, if it has one (the copied
/// rows' lengths come from classify; the giant rows go through Bᵀ).
fn symbolic_kernel<S: Semiring>(
    class: RowClass,
) -> Option<Family<S, SpgemmSymbolicArgs<'static, S::Value>>> {
    Some(match class {
        RowClass::Warp => family::spgemm_warp_symbolic(),
        RowClass::Short => family::spgemm_short_symbolic(),
        RowClass::Hash | RowClass::Wide => family::spgemm_hash_symbolic(),
        RowClass::Block => family::spgemm_block_symbolic(),
        RowClass::Dense => family::spgemm_dense_symbolic(),
        RowClass::Copy | RowClass::Giant => return None,
    })
}

/// The numeric phase's kernel of `class`, if it has one (the giant rows
/// go through Bᵀ).
fn numeric_kernel<S: Semiring>(
    class: RowClass,
) -> Option<Family<S, SpgemmNumericArgs<'static, S::Value>>> {
    Some(match class {
        RowClass::Copy => family::spgemm_copy(),
        RowClass::Warp => family::spgemm_warp_numeric(),
        RowClass::Short => family::spgemm_short_numeric(),
        RowClass::Hash | RowClass::Wide => family::spgemm_hash_numeric(),
        RowClass::Block => family::spgemm_block_numeric(),
        RowClass::Dense => family::spgemm_dense_numeric(),
        RowClass::Giant => return None,
    })
}

/// The kernels that stage the rows of `class` and copy them to C, for the
/// classes that can be staged (short, hash, dense).
#[allow(clippy::type_complexity)]
fn staging_kernels<S: Semiring>(
    class: RowClass,
) -> Option<(
    Family<S, SpgemmStageArgs<'static, S::Value>>,
    Family<S, SpgemmUnstageArgs<'static, S::Value>>,
)> {
    match class {
        RowClass::Short => Some((family::spgemm_short_stage(), family::spgemm_unstage())),
        RowClass::Hash => Some((family::spgemm_hash_stage(), family::spgemm_unstage())),
        RowClass::Dense => Some((family::spgemm_dense_stage(), family::spgemm_unstage_dense())),
        _ => None,
    }
}

impl<'g, T: Scalar> Product<'g, T> {
    /// Queues each class's row kernel for one phase, over the rows of
    /// `binned` (all rows: `None`): symbolic (`numeric` false) or numeric,
    /// a class whose rows are staged staging or unstaging instead.
    pub(super) fn launch_rows<S: Semiring<Value = T>>(
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
        let row_len = gpu.ptr_mut(&mut self.row_len);
        let scratch = (
            gpu.ptr_mut(&mut self.scratch_flags),
            gpu.ptr_mut(&mut self.scratch_values),
        );
        let c_row_ptr = gpu.ptr(&self.row_ptr);
        for class in RowClass::ROW_KERNELS {
            let count = counts[class.index()];
            if count == 0 {
                continue;
            }
            let rows = gpu.ptr_at(&binned.rows, offsets[class.index()] as usize);
            let staged = (self.staged.as_mut())
                .filter(|s| s.holds(class))
                .zip(staging_kernels::<S>(class));
            let phase = match (numeric, staged.is_some()) {
                (false, false) => SpgemmPhase::Symbolic,
                (true, false) => SpgemmPhase::Numeric,
                (false, true) => SpgemmPhase::Stage,
                (true, true) => SpgemmPhase::Unstage,
            };
            let dense = self.dense_shared[usize::from(phase != SpgemmPhase::Symbolic)];
            let table_slots = class.table_slots();
            // The numeric phase's arguments, into C or (staging) into the
            // staging area.
            let entries = |c_row_ptr, (c_col_idx, c_values), c_base| SpgemmNumericArgs {
                a_row_ptr: gpu.ptr(&a.row_ptr),
                a_col_idx: gpu.ptr(&a.col_idx),
                a_values: gpu.ptr(&a.values),
                b_row_ptr: gpu.ptr(&b.row_ptr),
                b_col_idx: gpu.ptr(&b.col_idx),
                b_values: gpu.ptr(&b.values),
                rows,
                c_row_ptr,
                c_col_idx,
                c_values,
                scratch_flags: scratch.0,
                scratch_values: scratch.1,
                c_base,
                n_rows: count,
                slot_words: self.slot_words,
                table_slots,
                shared_words: dense.words,
                shared_values: dense.values,
                pad: 0,
            };
            let warps = SPGEMM_THREADS / 32;
            let (grid, block, shared) = match class {
                // Copying staged rows needs no table: more warps run at once.
                RowClass::Short | RowClass::Hash if phase == SpgemmPhase::Unstage => (
                    count.div_ceil(SPGEMM_THREADS).min(sms * 64),
                    SPGEMM_THREADS,
                    0,
                ),
                RowClass::Copy | RowClass::Warp | RowClass::Short => {
                    (count.div_ceil(warps).min(sms * 64), SPGEMM_THREADS, 0)
                }
                RowClass::Hash | RowClass::Wide => {
                    let warps = if class == RowClass::Wide {
                        wide_warps(gpu, size)
                    } else {
                        spgemm_hash_warps(SPGEMM_HASH_SLOTS, size)
                    };
                    (
                        count.div_ceil(warps).min(sms * 64),
                        32 * warps,
                        warps * spgemm_hash_table_bytes(table_slots, size),
                    )
                }
                RowClass::Block => (
                    count.min(sms * 16),
                    SPGEMM_THREADS,
                    spgemm_sort_shared_bytes(SPGEMM_BLOCK_MAX, size),
                ),
                // A block copies a staged dense row.
                _ if phase == SpgemmPhase::Unstage => (count.min(sms * 16), SPGEMM_THREADS, 0),
                _ => (
                    count.min(self.dense_blocks as u32),
                    SPGEMM_THREADS,
                    dense.bytes,
                ),
            };
            // SAFETY (each launch below): A's and B's arrays, `count` rows
            // of the class listed at `rows`, their lengths (symbolic,
            // staging) or C's offsets (numeric, unstaging) for the whole
            // product, C's arrays large enough for the rows from `c_base`
            // (the caller's), the staging area laid out by the bounds
            // classify wrote (`Staged::new`), the scratch sized for the
            // class at `Product::symbolic`, and the class's block, grid and
            // shared memory above.
            match staged {
                None if numeric => {
                    if let Some(kernel) = numeric_kernel::<S>(class) {
                        let args = entries(c_row_ptr, (c_col_idx, c_values), c_base);
                        unsafe { gpu.launch(kernel, grid, block, shared, args)? };
                    }
                }
                None => {
                    if let Some(kernel) = symbolic_kernel::<S>(class) {
                        let args = SpgemmSymbolicArgs {
                            a_row_ptr: gpu.ptr(&a.row_ptr),
                            a_col_idx: gpu.ptr(&a.col_idx),
                            b_row_ptr: gpu.ptr(&b.row_ptr),
                            b_col_idx: gpu.ptr(&b.col_idx),
                            rows,
                            row_len,
                            scratch_flags: scratch.0,
                            n_rows: count,
                            slot_words: self.slot_words,
                            table_slots,
                            shared_words: dense.words,
                            values: PhantomData,
                        };
                        unsafe { gpu.launch(kernel, grid, block, shared, args)? };
                    }
                }
                Some((st, (_, unstage))) if numeric => {
                    let args = SpgemmUnstageArgs {
                        rows,
                        stage_ptr: gpu.ptr(&st.ptr),
                        stage_col_idx: gpu.ptr(&st.col_idx),
                        stage_values: gpu.ptr(&st.values),
                        c_row_ptr,
                        c_col_idx,
                        c_values,
                        c_base,
                        n_rows: count,
                        pad: 0,
                    };
                    unsafe { gpu.launch(unstage, grid, block, shared, args)? };
                }
                Some((st, (stage, _))) => {
                    // Staging writes its rows as a numeric phase would C's.
                    let into = (gpu.ptr_mut(&mut st.col_idx), gpu.ptr_mut(&mut st.values));
                    let args = SpgemmStageArgs {
                        entries: entries(gpu.ptr(&st.ptr), into, 0),
                        row_len,
                    };
                    unsafe { gpu.launch(stage, grid, block, shared, args)? };
                }
            }
        }
        let giant = RowClass::Giant.index();
        let first = offsets[giant];
        let batches: Vec<_> = (0..counts[giant])
            .step_by(SPGEMM_GIANT_BATCH as usize)
            .map(|batch| {
                let n = (counts[giant] - batch).min(SPGEMM_GIANT_BATCH);
                (gpu.ptr_at(&binned.rows, (first + batch) as usize), n)
            })
            .collect();
        if batches.is_empty() {
            return Ok(());
        }
        let giant = self
            .giant
            .as_mut()
            .expect("a product with giant rows has their scratch");
        giant.launch::<S>(
            gpu,
            (a, b),
            (&self.row_ptr, &mut self.row_len),
            &batches,
            numeric,
            (c_col_idx, c_values),
            c_base,
        )
    }
}

/// Warps a block of the wide class: blocks of at most 8 warps, as many
/// of them an SM as give it the most tables of `SPGEMM_WIDE_SLOTS` at once
/// (a table is 16 KB in `f32`, 24 KB in `f64`).
pub(super) fn wide_warps(gpu: &Gpu, value_size: u32) -> u32 {
    let table = spgemm_hash_table_bytes(SPGEMM_WIDE_SLOTS, value_size);
    (1..=4)
        .map(|blocks| (blocks, (gpu.shared_per_block(blocks) / table).clamp(1, 8)))
        .max_by_key(|&(blocks, warps)| blocks * warps)
        .map_or(1, |(_, warps)| warps)
}
