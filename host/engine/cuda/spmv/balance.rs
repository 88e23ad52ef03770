//! The load-balanced CSR kernels' precomputation: the adaptive kernel's
//! row blocks (`spmv_csr_adaptive`) and the merge kernel's parts
//! (`spmv_csr_merge`), their sizes and scratch.

use cudarc::driver::CudaSlice;

/// Threads per block of the adaptive kernel (the others take
/// [`Gpu::launch_threads`]'s).
pub(super) const BLOCK: u32 = 256;
/// Entries a row block may hold in the adaptive kernel (its shared-memory
/// staging area: 8 KiB of f32, 16 KiB of f64), and the length of a long
/// row's pieces: eight per thread, so that the staging loads keep many
/// requests in flight. A small matrix takes fewer ([`adaptive_block_nnz`]).
pub(super) const ADAPTIVE_NNZ: u32 = 8 * BLOCK;
/// Row blocks the adaptive kernel's blocks shrink for on a small matrix,
/// down to a thread's entry each: four for each SM of a 132-SM GPU. A
/// small matrix is bound by the latency of its loads, which more warps an
/// SM hide better than more loads a thread. A fixed count, not the
/// device's: the row blocks fix the order of a sum, so the bits of `y`
/// then do not depend on the GPU.
pub(super) const ADAPTIVE_MIN_BLOCKS: usize = 512;
/// Merge-path items (row ends plus entries) per warp of the merge kernel,
/// at most: 8 per lane, enough to amortize the binary search that starts
/// each lane. Small matrices take fewer (down to 1 per lane) so that their
/// parts still fill the GPU: there, latency is the cost.
pub(super) const MERGE_ITEMS: u32 = 256;

/// Entries a row block of the adaptive kernel holds at most for a matrix
/// of `nnz` entries: `ADAPTIVE_NNZ`, or a smaller power of two (at least
/// `BLOCK`) where that leaves fewer than `ADAPTIVE_MIN_BLOCKS` blocks.
pub(super) fn adaptive_block_nnz(nnz: usize) -> u32 {
    let per_block = nnz / ADAPTIVE_MIN_BLOCKS;
    (per_block.next_power_of_two() as u32).clamp(BLOCK, ADAPTIVE_NNZ)
}

/// Cuts the entries of a CSR with row offsets `row_ptr` into the adaptive
/// kernel's row blocks: consecutive
/// rows while they number at most `BLOCK` and hold at most `piece`
/// entries together; a longer row in pieces of `piece` entries. Returns
/// the `n_blocks + 1` bounds, each a row and its starting entry,
/// flattened.
pub(super) fn adaptive_row_blocks(row_ptr: &[usize], piece: usize) -> Vec<u32> {
    let nrows = row_ptr.len() - 1;
    let mut bounds = vec![0u32, 0];
    let mut first = 0;
    while first < nrows {
        let mut last = first + 1;
        if row_ptr[first + 1] - row_ptr[first] <= piece {
            let limit = row_ptr[first] + piece;
            while last < nrows && last - first < BLOCK as usize && row_ptr[last + 1] <= limit {
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
pub(super) struct AdaptiveBlocks<T> {
    /// Entries a block holds at most ([`adaptive_block_nnz`]).
    pub(super) block_nnz: u32,
    /// Pairs (row, entry): `n_blocks + 1` bounds.
    pub(super) bounds: CudaSlice<u32>,
    /// A partial sum per block (read for pieces only).
    pub(super) partial: CudaSlice<T>,
    /// A count per block, zero between launches (the kernel leaves it so).
    pub(super) done: CudaSlice<u32>,
}

/// The merge kernel's parts: their size, and a carry slot (row and partial
/// sum) for each.
pub(super) struct MergeCarry<T> {
    pub(super) items_per_part: u32,
    pub(super) rows: CudaSlice<u32>,
    pub(super) sums: CudaSlice<T>,
    /// `parts + 1`: the row of each part's first item.
    pub(super) part_rows: CudaSlice<u32>,
}

/// Merge-path items per part (warp) for a CSR of `n_rows` rows, `nnz`
/// entries and longest row `max_row`: `MERGE_ITEMS`, or fewer (a multiple
/// of 32, at least 64) when that would leave fewer than 16 warps for each
/// of the `sm_count` multiprocessors — but never so few that the longest
/// row spans more than 128 parts, whose carries the fix-up sums one warp
/// step per 32.
pub(super) fn merge_items(n_rows: u32, nnz: u32, max_row: usize, sm_count: u32) -> u32 {
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
