//! SpMV's argument structs (`spmv_*` kernels) and the ELL layouts' constants.

use super::{DevPtr, DevPtrMut};

/// The column index of an ELL, HYB or SELL padding slot. Kernels skip a
/// slot by its column, never by its value (a semiring's zero is not always
/// 0). The host's `spmx::format::ELL_PAD` is the same value.
pub const ELL_PAD: u32 = u32::MAX;

/// What near-diagonal ELL ([`SpmvEllNearArgs`]) adds to a slot's column
/// less its row, so that the difference fits a `u16`.
pub const ELL_NEAR_BIAS: u32 = 1 << 15;

/// The offset of a near-diagonal ELL padding slot (as [`ELL_PAD`]).
pub const ELL_NEAR_PAD: u16 = u16::MAX;

/// The farthest a column may lie from its row, either way, in
/// near-diagonal ELL: the biased offsets then run from 2 to 65534, clear
/// of [`ELL_NEAR_PAD`].
pub const ELL_NEAR_REACH: u32 = ELL_NEAR_BIAS - 2;

/// Rows of a slice of near-diagonal ELL: a warp's, whose loads of a slot
/// are then one run of 64 bytes of offsets, and of the row's slots one
/// run of `64 · width`.
pub const ELL_NEAR_SLICE: usize = 32;

/// Where slot `k` of row `row` lies in near-diagonal ELL of `width` slots
/// a row: slices of [`ELL_NEAR_SLICE`] rows, `ELL_NEAR_SLICE · width` slots
/// each, slot `k` of the slice's rows side by side. The slots of `n_rows`
/// rows span `⌈n_rows / ELL_NEAR_SLICE⌉ · ELL_NEAR_SLICE · width`.
#[inline(always)]
pub const fn ell_near_slot(row: usize, k: usize, width: usize) -> usize {
    let (slice, lane) = (row / ELL_NEAR_SLICE, row % ELL_NEAR_SLICE);
    (slice * width + k) * ELL_NEAR_SLICE + lane
}

kernel_args! {
    SpmvCsrArgs = 56;
    SpmvCsrMergeArgs = 80;
    SpmvCsrAdaptiveArgs = 72;
    SpmvCooArgs = 48;
    SpmvEllArgs = 40;
    SpmvEllNearArgs = 40;
    SpmvSellArgs = 72;
    SpmvBsrArgs = 64;
}

/// SpMV over CSR: `y[i] = ⊕ₖ values[k] ⊗ x[col_idx[k]]` for `k` in
/// `row_ptr[i]..row_ptr[i+1]`, each row starting from the semiring zero
/// (`y` is overwritten, never read). Row offsets are `u32`: the matrix has
/// at most 2³² − 64 stored entries (so a warp's `k + 32` cannot wrap).
#[repr(C)]
#[derive(Debug)]
pub struct SpmvCsrArgs<'a, T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<'a, u32>,
    /// Column of each stored entry, sorted within a row.
    pub col_idx: DevPtr<'a, u32>,
    /// Value of each stored entry.
    pub values: DevPtr<'a, T>,
    /// The dense input vector, `n_cols` entries.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries.
    pub y: DevPtrMut<'a, T>,
    pub n_rows: u32,
    /// Length of `x`; the kernels do not read it (it lets a debugging kernel
    /// check column indices).
    pub n_cols: u32,
    /// Threads that share one row in `spmv_csr_vector`: 1, 2, 4, 8, 16 or 32
    /// (another value counts as 32). `spmv_csr_scalar` ignores it. A good
    /// choice is the power of two nearest the mean row length, capped at 32.
    pub lanes: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}

/// SpMV over CSR by row blocks (CSR-Adaptive, Greathouse & Daga 2014): the
/// entries are cut into blocks at `blocks[b] .. blocks[b + 1]`, each bound a
/// (row, entry) pair: a block of whole rows (at most `block_dim` rows and
/// `block_nnz` entries together), or one row's entries — a row longer than
/// `block_nnz` is cut into pieces of `block_nnz` entries (the last one
/// shorter), each a block. One thread block per row block: a block of
/// several rows stages all its products in shared memory with coalesced
/// loads, then reduces each row from there with as many threads per row as
/// the block's rows leave; a one-row block reduces its entries with every
/// thread, a tree in each warp and the warps' sums in order, and the last
/// of a long row's pieces to finish sums their partial sums, in a fixed
/// order. `y` is overwritten.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvCsrAdaptiveArgs<'a, T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<'a, u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<'a, u32>,
    /// Value of each stored entry.
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<'a, T>,
    /// `n_blocks + 1` bounds, each two words: a row and the entry the
    /// block starts at (the row's first, except inside a long row), from
    /// `0, 0` to `n_rows, nnz`.
    pub blocks: DevPtr<'a, u32>,
    /// A partial sum for each block that is a piece of a long row.
    pub partial: DevPtrMut<'a, T>,
    /// A count for each long row, at the slot of its first piece: zero
    /// before the launch, and again after it.
    pub done: DevPtrMut<'a, u32>,
    pub n_blocks: u32,
    /// Entries a block may hold, and the length of a long row's pieces: the
    /// shared-memory staging area is `block_nnz` values (and at least
    /// `block_dim / 32`), then `block_dim + 1` words.
    pub block_nnz: u32,
}

/// Load-balanced SpMV over CSR by merge path (Merrill & Garland, SC 2016),
/// for matrices whose row lengths vary wildly (power-law graphs): the
/// `n_rows + nnz` items of the merge of the row ends with the entries are
/// split into parts of `items_per_part` items, whatever the rows. No
/// floating-point atomics: the result is the same bits on every run.
///
/// Two kernels, launched one after the other on the same stream, both with
/// one warp per part (block size a multiple of 32; `⌈n_parts · 32 / block⌉`
/// blocks cover the parts once, and any grid is correct):
/// 1. `spmv_csr_merge` writes `y[i]` for every row `i` exactly once, with
///    the entries of row `i` that lie in the part *completing* the row
///    (empty rows get the semiring zero), and one carry per part:
///    `carry_row[p]`, the row part `p` left unfinished (`n_rows` when none),
///    and `carry_val[p]`, the part's sum of that row's entries;
/// 2. `spmv_csr_merge_fixup` adds the carries of earlier parts: for each run
///    of parts `p, p+1, …, q` carrying one row `r` (such parts are always
///    consecutive), `y[r] = (carry_val[p] ⊕ … ⊕ carry_val[q]) ⊕ y[r]`, done by
///    the warp of part `p` alone. Then `y[r]` is the full row sum.
///
/// `spmv_csr_merge` also takes [`SpmvCsrMergeArgs::stage_bytes`] bytes of
/// dynamic shared memory per warp (the launch's block size / 32 times).
///
/// The host allocates `n_parts` slots in each of `carry_row` and
/// `carry_val` (their contents before the launch do not matter), with
/// `n_parts ≥ ⌈(n_rows + nnz) / items_per_part⌉`
/// ([`SpmvCsrMergeArgs::parts`]; extra parts do nothing). `y`'s contents
/// before the launch do not matter either.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvCsrMergeArgs<'a, T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<'a, u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<'a, u32>,
    /// Value of each stored entry.
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<'a, T>,
    /// `n_parts` slots: the row each part left unfinished, or `n_rows`.
    pub carry_row: DevPtrMut<'a, u32>,
    /// `n_parts` slots: each part's partial sum of its unfinished row.
    pub carry_val: DevPtrMut<'a, T>,
    /// `n_parts + 1` rows: that of each part's first item (diagonal
    /// `p · items_per_part`, [`crate::merge_path::search`]), found once
    /// when the matrix is planned; the last is `n_rows`.
    pub part_rows: DevPtr<'a, u32>,
    pub n_rows: u32,
    /// Stored entries: `row_ptr[n_rows]`.
    pub nnz: u32,
    /// Parts, each done by one warp; at least
    /// [`parts(n_rows, nnz, items_per_part)`](SpmvCsrMergeArgs::parts).
    pub n_parts: u32,
    /// Merge items (row ends plus entries) per part: a positive multiple
    /// of 32 (each lane of the part's warp takes `items_per_part / 32`
    /// consecutive items). 256 to 1024 suit most matrices.
    pub items_per_part: u32,
}

impl<T> SpmvCsrMergeArgs<'_, T> {
    /// The number of parts (warps, carry slots) that cover the merge of a
    /// CSR with `n_rows` rows and `nnz` entries: `⌈(n_rows + nnz) / items_per_part⌉`,
    /// or `None` when `items_per_part` is not a positive multiple of 32.
    pub const fn parts(n_rows: u32, nnz: u32, items_per_part: u32) -> Option<u32> {
        if items_per_part == 0 || !items_per_part.is_multiple_of(32) {
            return None;
        }
        let items = n_rows as u64 + nnz as u64;
        // At most 2³³ / 32 = 2²⁸ parts: always a u32.
        Some(items.div_ceil(items_per_part as u64) as u32)
    }

    /// Slots of a warp's stage of row ends: its part's rows (at most
    /// `items_per_part + 1`), in whole rows of 32 slots, so that the
    /// products after them are aligned for any value type.
    pub const fn stage_row_slots(items_per_part: u32) -> u32 {
        (items_per_part + 1).div_ceil(32) * 32
    }

    /// Slots of a warp's stage of products: its part's entries (at most
    /// `items_per_part`), one slot in 33 left empty so that lanes reading
    /// runs `items_per_part / 32` apart hit different banks; whole rows of
    /// 32 slots.
    pub const fn stage_product_slots(items_per_part: u32) -> u32 {
        (items_per_part + items_per_part / 32).div_ceil(32) * 32
    }

    /// Bytes of a warp's stage for `value_bytes`-byte values: the row ends
    /// (`u32`), then the products.
    pub const fn stage_bytes(items_per_part: u32, value_bytes: u32) -> u32 {
        Self::stage_row_slots(items_per_part) * 4
            + Self::stage_product_slots(items_per_part) * value_bytes
    }
}

/// SpMV over COO with atomics: for every stored entry `k`,
/// `y[row_idx[k]] ⊕= values[k] ⊗ x[col_idx[k]]`, each `⊕` done atomically.
/// `y` is read and updated: the host fills it with the semiring zero first
/// (or passes an earlier `y` to accumulate into: HYB's overflow). Entries may
/// come in any order, duplicates included.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvCooArgs<'a, T> {
    /// Row of each stored entry.
    pub row_idx: DevPtr<'a, u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<'a, u32>,
    /// Value of each stored entry.
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, updated in place.
    pub y: DevPtrMut<'a, T>,
    /// Number of stored entries.
    pub nnz: u32,
    pub n_rows: u32,
}

/// SpMV over ELL (ELLPACK), stored column-major: slot `k` of row `i` is at
/// `k * n_rows + i`, for `k < width`. A padding slot has column [`ELL_PAD`]
/// (its value is never read). `y` is overwritten.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvEllArgs<'a, T> {
    /// `width * n_rows` columns, column-major.
    pub col_idx: DevPtr<'a, u32>,
    /// `width * n_rows` values, column-major.
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<'a, T>,
    pub n_rows: u32,
    /// Slots per row: the longest row's length.
    pub width: u32,
}

/// SpMV over near-diagonal ELL: each slot holds its column less its row
/// plus [`ELL_NEAR_BIAS`] in 16 bits (a padding slot [`ELL_NEAR_PAD`]),
/// for matrices whose every entry lies within [`ELL_NEAR_REACH`] of the
/// diagonal (bands, stencils): a slot streams 2 bytes of index instead of
/// 4. Slots lie in slices of a warp's rows ([`ell_near_slot`]). `y` is
/// overwritten.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvEllNearArgs<'a, T> {
    /// Biased column offsets, at [`ell_near_slot`].
    pub offsets: DevPtr<'a, u16>,
    /// Values, at [`ell_near_slot`].
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<'a, T>,
    pub n_rows: u32,
    /// Slots per row: the longest row's length.
    pub width: u32,
}

/// SpMV over SELL-C-σ (sliced ELL; JDS is `c = 1`). Rows are stored in a
/// sorted order: position `p` holds original row `perm[p]`. Slice `s` holds
/// positions `s*c .. s*c + c` as a column-major `c × slice_width[s]` block:
/// slot `k` of local row `r` is at `slice_ptr[s] + k*c + r`. The last slice is
/// padded to `c` rows; positions `≥ n_rows` are padding. Padding slots have
/// column [`ELL_PAD`]. `y` is overwritten.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvSellArgs<'a, T> {
    /// `n_rows` entries: `perm[p]` is the original row at sorted position `p`.
    pub perm: DevPtr<'a, u32>,
    /// `n_slices + 1` offsets into `col_idx` and `values`.
    pub slice_ptr: DevPtr<'a, u32>,
    /// `n_slices` widths: slots per row in each slice.
    pub slice_width: DevPtr<'a, u32>,
    /// Columns, slice by slice, each slice column-major.
    pub col_idx: DevPtr<'a, u32>,
    /// Values, laid out as `col_idx`.
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries (original order), overwritten.
    pub y: DevPtrMut<'a, T>,
    pub n_rows: u32,
    /// Slice height `C ≥ 1`.
    pub c: u32,
    /// `⌈n_rows / c⌉`.
    pub n_slices: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}

/// SpMV over BSR with square `b × b` blocks (`1 ≤ b ≤ 8`). Block row `I`
/// covers rows `I*b .. I*b + b` and holds blocks
/// `block_row_ptr[I] .. block_row_ptr[I+1]`; block `k` sits at block column
/// `block_col[k]`, its values at `values[k*b*b ..]`, row-major. Bit `r*b + c`
/// of `masks[k]` is set when slot `(r, c)` is a stored entry; other slots are
/// skipped (their `0.0` is not every semiring's zero). The last block row and
/// column may reach past the matrix: those slots are never entries, and the
/// kernel never reads `x` past `n_cols` nor writes `y` past `n_rows`. `y` is
/// overwritten.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvBsrArgs<'a, T> {
    /// `⌈n_rows / b⌉ + 1` offsets into `block_col` and `masks` (in blocks).
    pub block_row_ptr: DevPtr<'a, u32>,
    /// Block column of each block, increasing within a block row.
    pub block_col: DevPtr<'a, u32>,
    /// `b * b` values per block, row-major.
    pub values: DevPtr<'a, T>,
    /// One occupancy mask per block.
    pub masks: DevPtr<'a, u64>,
    /// The dense input vector, `n_cols` entries.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<'a, T>,
    pub n_rows: u32,
    pub n_cols: u32,
    /// Block size, `1 ..= 8`.
    pub b: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_parts_cover_every_item() {
        type A = SpmvCsrMergeArgs<'static, f32>;
        assert_eq!(A::parts(0, 0, 256), Some(0));
        assert_eq!(A::parts(1, 0, 256), Some(1));
        assert_eq!(A::parts(100, 156, 256), Some(1));
        assert_eq!(A::parts(100, 157, 256), Some(2));
        assert_eq!(A::parts(u32::MAX, u32::MAX, 32), Some(1 << 28));
        assert_eq!(A::parts(10, 10, 0), None);
        assert_eq!(A::parts(10, 10, 48), None);
    }
}
