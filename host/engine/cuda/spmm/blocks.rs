//! The blocks of a `block-rows` SpMM plan on the device: the partition
//! uploaded with each entry's row and scratch for the pieces of long rows,
//! and the launches that run it (the block kernel, then the fix-up that
//! combines long rows' pieces unless the `_fused` kernel does).

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{SPMM_BLOCK_STAGE, SPMM_LOCAL_PIECE, SpmmBlockArgs, SpmmFixupArgs};
use gpu_kernels::kernels::family;

use super::partition::{BlockShape, Partition, auto_fuses, partition_in_waves};
use crate::Scalar;
use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::{DevCsr, index};
use crate::error::Result;
use crate::format::csr::entry_rows;

/// The blocks of a `block-rows` plan on the device.
pub(super) struct Blocks<T> {
    pub(super) shape: BlockShape,
    /// `(first row, end row, first entry, end entry)` per block, pieces
    /// first, then local pieces, then whole rows (as [`SpmmBlockArgs`] has
    /// them for the kernel `fused` picks).
    pub(super) blocks: CudaSlice<u32>,
    pub(super) n_blocks: u32,
    pub(super) n_pieces: u32,
    /// Rows cut into local pieces (summed within a warp).
    pub(super) n_local_rows: usize,
    /// The row of each entry of A.
    rows: CudaSlice<u32>,
    long_rows: CudaSlice<u32>,
    /// `n_long + 1` offsets into the pieces.
    long_first: CudaSlice<u32>,
    pub(super) n_long: u32,
    /// A partial row of C per piece (one value when there are none).
    partial: CudaSlice<T>,
    /// The `_fused` kernel: the last piece of a long row combines the
    /// row's pieces (no fix-up launch). `auto` takes it where rows were cut
    /// into at most `FUSED_MAX_PIECES` pieces each: it saves the fix-up
    /// launch and its partial rows' trip. Where a row has more (a hub of
    /// R-MAT or power-law, arrow's dense row), one group summing them all
    /// takes longer than the fix-up.
    pub(super) fused: bool,
    /// `_fused`: a count of finished pieces per long row and tile, 0
    /// between runs.
    done: CudaSlice<u32>,
}

impl<T: Scalar> Blocks<T> {
    /// Cuts A (its row offsets) into blocks for `k` columns in the shape [`BlockShape::for_k`]
    /// gives, or in groups of half the lanes where that leaves most entries
    /// in pieces of a warp's one group ([`BlockShape::narrow`]); `fused`:
    /// the `_fused` kernel or not, or (`None`) as `auto` chooses
    /// (`fused`).
    pub(super) fn new(gpu: &Gpu, row_ptr: &[usize], k: usize, fused: Option<bool>) -> Result<Self> {
        let (nrows, nnz) = (row_ptr.len() - 1, row_ptr[row_ptr.len() - 1]);
        // Local pieces need the flag bit free in row numbers.
        let local_ok = nrows < SPMM_LOCAL_PIECE as usize;
        let cut = |shape: BlockShape| {
            let tiles = shape.tiles(k, size_of::<T>());
            let groups = shape.groups() as usize;
            let local = if local_ok { groups } else { 1 };
            let sm_count = gpu.sm_count() as usize;
            (
                shape,
                tiles,
                partition_in_waves(row_ptr, tiles, groups, local, sm_count),
            )
        };
        let (mut shape, mut tiles, mut partition) = cut(BlockShape::for_k(k, size_of::<T>()));
        let in_pieces = partition.piece_entries();
        if let Some(narrow) = shape.narrow()
            && local_ok
            && in_pieces > 0
            && 2 * in_pieces >= nnz
        {
            (shape, tiles, partition) = cut(narrow);
        }
        let Partition {
            mut blocks,
            n_pieces,
            n_local_rows,
            long_rows,
            long_first,
        } = partition;
        let n_blocks = blocks.len() / 4;
        let n_long = long_rows.len();
        index(
            n_blocks * tiles + 32,
            "the SpMM's work items (blocks × column tiles)",
        )?;
        let fused = fused.unwrap_or_else(|| auto_fuses(&long_first));
        if fused {
            // A fused piece names its long row where a block names its
            // end row.
            for (l, run) in long_first.windows(2).enumerate() {
                for p in run[0] as usize..run[1] as usize {
                    blocks[4 * p + 1] = l as u32;
                }
            }
        } else {
            index(n_long * k, "the long rows' columns (fix-up threads)")?;
        }
        let counts = if fused { n_long * tiles } else { 0 };
        Ok(Blocks {
            shape,
            blocks: gpu.upload(&blocks)?,
            n_blocks: n_blocks as u32,
            n_pieces: n_pieces as u32,
            n_local_rows,
            rows: gpu.upload(&entry_rows(row_ptr))?,
            n_long: n_long as u32,
            long_rows: gpu.upload(&long_rows)?,
            long_first: gpu.upload(&long_first)?,
            partial: gpu.zeros::<T>((n_pieces * k).max(1))?,
            fused,
            done: gpu.zeros::<u32>(counts.max(1))?,
        })
    }

    pub(super) fn bytes(&self) -> usize {
        4 * (self.blocks.len()
            + self.rows.len()
            + self.long_rows.len()
            + self.long_first.len()
            + self.done.len())
            + self.partial.len() * size_of::<T>()
    }

    /// Queues the blocks' product, then, when long rows were cut and the
    /// kernel is not `_fused`, the fix-up that combines their pieces.
    pub(super) fn run<S: Semiring<Value = T>>(
        &mut self,
        gpu: &Gpu,
        a: &DevCsr<T>,
        k: u32,
        b: &CudaSlice<T>,
        c: &mut CudaSlice<T>,
    ) -> Result<()> {
        let (shape, value_bytes) = (self.shape, size_of::<T>());
        let tiles = shape.tiles(k as usize, value_bytes) as u64;
        let args = SpmmBlockArgs {
            blocks: gpu.ptr(&self.blocks),
            rows: gpu.ptr(&self.rows),
            col_idx: gpu.ptr(&a.col_idx),
            values: gpu.ptr(&a.values),
            b: gpu.ptr(b),
            c: gpu.ptr_mut(c),
            partial: gpu.ptr_mut(&mut self.partial),
            long_first: gpu.ptr(&self.long_first),
            done: gpu.ptr_mut(&mut self.done),
            n_blocks: self.n_blocks,
            n_pieces: self.n_pieces,
            k,
            lanes: shape.lanes as u8,
            local: u8::from(self.n_local_rows > 0),
            // Tile by tile: B's rows read one tile wide at a time, so more
            // of them stay in L1 and L2.
            tile_major: u16::from(tiles > 1),
        };
        let warps = (u64::from(self.n_blocks) * tiles).div_ceil(u64::from(shape.groups()));
        // A thread's share of its warp's staging: `groups · STAGE` entries.
        let stage = shape.groups() * SPMM_BLOCK_STAGE * (8 + value_bytes as u32) / 32;
        // SAFETY: A's columns and values, the blocks and rows of
        // `partition_in_waves` for A, B of `A.ncols() × k` and C of
        // `A.nrows() × k` values (`SpmmPlan::run` checks), the long rows'
        // partial sums sized for their pieces; warps of `groups` row
        // groups, each thread with its share of the staging.
        unsafe {
            let kernel = shape.kernel::<S>(self.fused);
            gpu.launch_threads_shared(kernel, warps * 32, stage, args)?;
        }
        if self.n_long > 0 && !self.fused {
            let fixup = SpmmFixupArgs {
                partial: gpu.ptr(&self.partial),
                c: gpu.ptr_mut(c),
                long_rows: gpu.ptr(&self.long_rows),
                long_first: gpu.ptr(&self.long_first),
                n_long: self.n_long,
                k,
            };
            let threads = u64::from(self.n_long) * u64::from(k);
            // SAFETY: the `n_long` long rows' pieces and partial sums
            // above, C of `A.nrows() × k`; a grid-stride kernel.
            unsafe { gpu.launch_threads(family::spmm_csr_fixup::<S>(), threads, fixup)? };
        }
        Ok(())
    }
}
