//! SpMM's argument structs (`spmm_csr_*` kernels) and their constants.

use super::{DevPtr, DevPtrMut};

kernel_args! {
    SpmmFixupArgs = 40;
    SpmmCsrThreadArgs = 64;
    SpmmBlockArgs = 88;
}

/// SpMM over CSR with row-major dense operands, in nnz-balanced *blocks*
/// (the host's partition): block `w` is
/// `blocks[4w .. 4w + 4] = (first row, end row, first entry, end entry)`,
/// the entries `first entry .. end entry` of A, all in rows
/// `first row .. end row`; every row of such a block is written to C,
/// empty rows included (as the semiring zero).
///
/// Blocks `w < n_pieces` are *pieces* of a long row: each sums its entries
/// into `partial[w·k ..][..k]`. In `spmm_csr_block` and `_vec` a piece is
/// `(row, row + 1, first entry, end entry)` and [`SpmmFixupArgs`] combines
/// the pieces afterwards. In the `_fused` kernels a piece is
/// `(row, l, first entry, end entry)` for the `l`-th long row: the last of
/// its pieces to finish a tile (counted in `done[l · tiles + tile]`, which
/// wraps back to 0 on the last) combines the partial rows of pieces
/// `long_first[l] .. long_first[l + 1]` in that order into the row of C,
/// so the sum order is the same whichever finishes last.
///
/// With `local` set, a block whose end row has [`SPMM_LOCAL_PIECE`] set is
/// a *local piece*:
/// `(row, SPMM_LOCAL_PIECE | width, first entry, end entry)`, one of
/// `width` (a power of two) pieces of a row that lie side by side in one
/// warp, the first at an item a multiple of `width`; the row's groups sum
/// their parts by shuffles and the first writes the row of C. A width of 0
/// pads: no entries, nothing written. Local pieces come after the other
/// pieces, from a multiple of the groups in a warp, and the blocks after
/// them, padded to a multiple too; with several tiles, local pieces need
/// `tile_major` (so that a warp's groups share a tile).
///
/// Each block's columns are cut into tiles of `lanes · V` columns (`V`
/// values a load: 1, or 16 bytes' worth in the `_vec` kernels); a *group*
/// of `lanes` lanes computes one (block, tile), a lane owning `V` columns.
/// Item `i` is block `i / tiles`, tile `i % tiles` (the groups of a warp,
/// and warps next to each other, take the tiles of one block together), or,
/// with `tile_major`, tile `i / n_blocks`, block `i % n_blocks` (every
/// block's first tile, then every block's second: B's rows are read one
/// tile wide at a time, so twice as many of them fit in L2).
#[repr(C)]
#[derive(Debug)]
pub struct SpmmBlockArgs<'a, T> {
    /// `4 · n_blocks` values, as above; pieces first. 16-byte aligned (a
    /// block's four are one vector load).
    pub blocks: DevPtr<'a, u32>,
    /// The row of each entry of A (A in coordinate form, rows sorted).
    pub rows: DevPtr<'a, u32>,
    pub col_idx: DevPtr<'a, u32>,
    pub values: DevPtr<'a, T>,
    /// B, row-major, `k` values a row (16-byte aligned rows in `_vec`).
    pub b: DevPtr<'a, T>,
    /// C, row-major `m × k`.
    pub c: DevPtrMut<'a, T>,
    /// `n_pieces · k` partial sums (unused when there are no pieces).
    pub partial: DevPtrMut<'a, T>,
    /// `_fused`: `n_long + 1` offsets into the pieces, a run a long row.
    pub long_first: DevPtr<'a, u32>,
    /// `_fused`: `n_long · tiles` counts of finished pieces, all 0 between
    /// launches.
    pub done: DevPtrMut<'a, u32>,
    pub n_blocks: u32,
    pub n_pieces: u32,
    pub k: u32,
    /// Lanes per group: 1, 2, 4, 8, 16 or 32 (another value counts as 32).
    pub lanes: u8,
    /// 1: the blocks include local pieces (and every end row is below
    /// 2³¹); 0: none, and no end row is read as a flag.
    pub local: u8,
    /// 1: items tile by tile (see above); 0: block by block.
    pub tile_major: u16,
}

/// The flag of a local piece in its block's end row ([`SpmmBlockArgs`]).
pub const SPMM_LOCAL_PIECE: u32 = 1 << 31;

/// Entries of A a group of `spmm_csr_block` stages in shared memory at a
/// time: the launch gives each group `SPMM_BLOCK_STAGE · (8 + size_of T)`
/// bytes (column, row and value of each).
pub const SPMM_BLOCK_STAGE: u32 = 32;

/// The last step of a split SpMM: the partial rows of each long row's
/// pieces combined, in piece order, into its row of C (row-major):
/// `C[long_rows[l], c] = partial[f, c] ⊕ … ⊕ partial[e − 1, c]` for
/// `f = long_first[l]`, `e = long_first[l + 1]`.
#[repr(C)]
#[derive(Debug)]
pub struct SpmmFixupArgs<'a, T> {
    /// `n_pieces · k` partial sums, row-major.
    pub partial: DevPtr<'a, T>,
    /// C, row-major `m × k`.
    pub c: DevPtrMut<'a, T>,
    /// The long rows, `n_long` values.
    pub long_rows: DevPtr<'a, u32>,
    /// `n_long + 1` offsets into the pieces.
    pub long_first: DevPtr<'a, u32>,
    pub n_long: u32,
    pub k: u32,
}

/// SpMM over CSR, a thread per (row, tile of `SPMM_THREAD_COLS` columns),
/// for dense operands in any layout: element `(j, c)` of B is at
/// `j·b_row_stride + c·b_col_stride`, element `(i, c)` of C at
/// `i·c_row_stride + c·c_col_stride` (row-major: `(k, 1)`; column-major:
/// `(1, rows)`). Threads next to each other take rows next to each other,
/// so column-major C is written coalesced. Each value of C is summed in
/// row order, as the serial engine sums.
#[repr(C)]
#[derive(Debug)]
pub struct SpmmCsrThreadArgs<'a, T> {
    pub row_ptr: DevPtr<'a, u32>,
    pub col_idx: DevPtr<'a, u32>,
    pub values: DevPtr<'a, T>,
    pub b: DevPtr<'a, T>,
    pub c: DevPtrMut<'a, T>,
    pub n_rows: u32,
    pub k: u32,
    pub b_row_stride: u32,
    pub b_col_stride: u32,
    pub c_row_stride: u32,
    pub c_col_stride: u32,
}

/// Columns one thread of `spmm_csr_thread` computes at a time.
pub const SPMM_THREAD_COLS: u32 = 8;
