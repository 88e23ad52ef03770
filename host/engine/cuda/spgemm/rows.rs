//! SpGEMM's row classes: each class's kernel (`SpgemmRowsArgs`, phase in
//! its `numeric` field) launched over the class's rows, for one phase.

use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, DevPtrMut, SPGEMM_BLOCK_MAX, SPGEMM_CLASS_BLOCK, SPGEMM_CLASS_COPY, SPGEMM_CLASS_DENSE,
    SPGEMM_CLASS_GIANT, SPGEMM_CLASS_HASH, SPGEMM_CLASS_SHORT, SPGEMM_CLASS_WARP,
    SPGEMM_CLASS_WIDE, SPGEMM_GIANT_BATCH, SPGEMM_HASH_SLOTS, SPGEMM_NUMERIC, SPGEMM_STAGE,
    SPGEMM_SYMBOLIC, SPGEMM_THREADS, SPGEMM_UNSTAGE, SPGEMM_WIDE_SLOTS, SpgemmRowsArgs,
    spgemm_hash_table_bytes, spgemm_hash_warps, spgemm_sort_shared_bytes,
};
use gpu_kernels::kernels::{Family, family};

use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::DevCsr;

use super::classify::Binned;
use super::symbolic::Product;
use crate::Scalar;
use crate::error::Result;

/// The row kernels for `S`, by class (see `gpu_kernels::args::SPGEMM_CLASSES`;
/// the giant rows, the last class, go through Bᵀ instead).
pub(super) fn row_kernels<S: Semiring>()
-> [Family<S, SpgemmRowsArgs<S::Value>>; SPGEMM_CLASS_DENSE + 1] {
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

impl<'g, T: Scalar> Product<'g, T> {
    /// Queues each class's row kernel for one phase, over the rows of
    /// `binned` (all rows: `None`).
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
