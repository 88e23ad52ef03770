//! Kernel arguments: the `#[repr(C)]` structs the host fills and every GPU
//! kernel receives, one definition for both sides.
//!
//! Conventions, so that the host can launch any kernel the same way:
//! - a kernel takes exactly one parameter, an argument struct passed by
//!   value (PTX: `.param .align 8 .b8 name[size]`); the host passes a pointer
//!   to the struct's bytes;
//! - device memory appears as [`DevPtr`] / [`DevPtrMut`], a 64-bit device
//!   address (what the driver API calls a `CUdeviceptr`), never as a host
//!   pointer type;
//! - structs have no padding (checked below), so their bytes are fully
//!   initialised when the host copies them;
//! - `T` is the semiring's value type: `f32`, `f64` or `bool`. A `bool` is
//!   one byte on the device as on the host, `0` or `1`, so a host `&[bool]`
//!   uploads as it is;
//! - every index array is `u32` (row pointers included): the host narrows
//!   its `usize` offsets and refuses a matrix whose offsets do not fit.
//!
//! | struct               | kernel families                          | bytes |
//! |----------------------|------------------------------------------|-------|
//! | [`SpmvCsrArgs`]      | `spmv_csr_scalar`, `spmv_csr_vector`     | 56    |
//! | [`SpmvCsrMergeArgs`] | `spmv_csr_merge`, `spmv_csr_merge_fixup` | 80    |
//! | [`SpmvCsrAdaptiveArgs`] | `spmv_csr_adaptive`                   | 72    |
//! | [`SpmvCooArgs`]      | `spmv_coo_atomic`                        | 48    |
//! | [`SpmvEllArgs`]      | `spmv_ell`                               | 40    |
//! | [`SpmvEllNearArgs`]  | `spmv_ell_near`                          | 40    |
//! | [`SpmvSellArgs`]     | `spmv_sell`                              | 72    |
//! | [`SpmvBsrArgs`]      | `spmv_bsr`                               | 64    |
//! | [`SpmmFixupArgs`]    | `spmm_csr_fixup`                         | 40    |
//! | [`SpmmCsrThreadArgs`] | `spmm_csr_thread`                       | 64    |
//! | [`SpmmBlockArgs`]    | `spmm_csr_block`, `spmm_csr_block_vec` (and `_fused`) | 88 |
//! | [`SpgemmRowsArgs`]   | `spgemm_copy`, `spgemm_warp`, `spgemm_short`, `spgemm_hash`, `spgemm_block`, `spgemm_dense` | 160 |
//! | [`SpgemmReplayArgs`] | `spgemm_replay_4`, `_8` (and `_staged`), `spgemm_replay_long_4`, `_8` | 104 |
//! | [`SpgemmGiantArgs`]  | `spgemm_giant_columns`, `spgemm_giant_rows` | 128 |
//! | [`SpgemmClassifyArgs`] | `spgemm_long_rows`, `spgemm_long_products`, `spgemm_classify`, `spgemm_bin` (utility) | 168 |
//! | [`SpgemmTransposeArgs`] | `spgemm_transpose_count`, `_scatter`, `_sort` (utility) | 56 |
//! | [`SpgemmGatherArgs`] | `spgemm_giant_gather` (utility)          | 48    |
//! | [`TransposeArgs`]    | `transpose_1`, `transpose_4`, `transpose_8` (utility) | 24 |
//! | [`CsrToEllArgs`]     | `csr_to_ell_1`, `_4`, `_8`, `csr_to_ell_near_1`, `_4`, `_8` (utility) | 48 |
//! | [`ScanArgs`]         | `scan_tiles`, `scan_tile_sums`, `scan_add` (utility) | 32 |
//!
//! Launch contracts (block and grid shape, what `y` must hold) are in each
//! kernel's documentation in the `spmv` and `spmm` modules and in `GUIDE.md`.

use core::marker::PhantomData;

/// A device address of read-only `T` elements.
#[repr(transparent)]
pub struct DevPtr<T> {
    addr: u64,
    _elem: PhantomData<fn() -> T>,
}

/// A device address of `T` elements the kernel writes.
#[repr(transparent)]
pub struct DevPtrMut<T> {
    addr: u64,
    _elem: PhantomData<fn() -> T>,
}

macro_rules! dev_ptr_common {
    ($name:ident) => {
        impl<T> $name<T> {
            /// Wraps a device address (a `CUdeviceptr`).
            ///
            /// # Safety
            /// `addr` is in a live device allocation of the context the
            /// kernel runs on, holding at least the elements of `T` a kernel
            /// given this pointer will touch, for as long as it runs. (The
            /// host's `Gpu::ptr` makes one from a buffer instead.)
            pub const unsafe fn new(addr: u64) -> Self {
                Self {
                    addr,
                    _elem: PhantomData,
                }
            }
            /// No address: for a buffer the kernel does not touch under the
            /// other arguments given with it (a flag off, a count of zero).
            pub const fn null() -> Self {
                Self {
                    addr: 0,
                    _elem: PhantomData,
                }
            }
            /// The same address, its elements read as `U` (a kernel that
            /// moves 4-byte words of any 4-byte value type).
            pub const fn cast<U>(self) -> $name<U> {
                $name {
                    addr: self.addr,
                    _elem: PhantomData,
                }
            }
            /// The device address.
            pub const fn addr(self) -> u64 {
                self.addr
            }
        }
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T> core::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({:#x})", stringify!($name), self.addr)
            }
        }
    };
}
dev_ptr_common!(DevPtr);
dev_ptr_common!(DevPtrMut);

impl<T> DevPtr<T> {
    /// The address as a pointer (meaningful on the device only).
    #[inline(always)]
    pub fn as_ptr(self) -> *const T {
        self.addr as *const T
    }
}

impl<T> DevPtrMut<T> {
    /// The address as a pointer (meaningful on the device only).
    #[inline(always)]
    pub fn as_mut_ptr(self) -> *mut T {
        self.addr as *mut T
    }
}

/// A kernel argument struct: plain data, `#[repr(C)]`, no padding, so that
/// copying its bytes to the device as a kernel parameter is sound. The host
/// engine can implement its launch traits for every `KernelArgs` at once.
///
/// # Safety
/// Implement only for `#[repr(C)]` structs of integers, floats and device
/// pointers, with no padding bytes.
pub unsafe trait KernelArgs: Copy + 'static {}

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

/// Implements `Clone`, `Copy` and [`KernelArgs`] for an argument struct and
/// checks its size (so that it has no padding) for every value type.
macro_rules! kernel_args {
    ($($name:ident = $bytes:literal;)*) => {$(
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        // SAFETY: repr(C) of 8-byte device addresses followed by u32s, whose
        // sizes add up to the size asserted below: no padding.
        unsafe impl<T: 'static> KernelArgs for $name<T> {}
        const _: () = assert!(core::mem::size_of::<$name<f32>>() == $bytes);
        const _: () = assert!(core::mem::size_of::<$name<f64>>() == $bytes);
        const _: () = assert!(core::mem::size_of::<$name<bool>>() == $bytes);
    )*};
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
    SpmmFixupArgs = 40;
    SpmmCsrThreadArgs = 64;
    SpmmBlockArgs = 88;
    SpgemmRowsArgs = 160;
    SpgemmReplayArgs = 104;
    SpgemmGiantArgs = 128;
}

/// SpMV over CSR: `y[i] = ⊕ₖ values[k] ⊗ x[col_idx[k]]` for `k` in
/// `row_ptr[i]..row_ptr[i+1]`, each row starting from the semiring zero
/// (`y` is overwritten, never read). Row offsets are `u32`: the matrix has
/// at most 2³² − 64 stored entries (so a warp's `k + 32` cannot wrap).
#[repr(C)]
#[derive(Debug)]
pub struct SpmvCsrArgs<T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<u32>,
    /// Column of each stored entry, sorted within a row.
    pub col_idx: DevPtr<u32>,
    /// Value of each stored entry.
    pub values: DevPtr<T>,
    /// The dense input vector, `n_cols` entries.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries.
    pub y: DevPtrMut<T>,
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
pub struct SpmvCsrAdaptiveArgs<T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<u32>,
    /// Value of each stored entry.
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<T>,
    /// `n_blocks + 1` bounds, each two words: a row and the entry the
    /// block starts at (the row's first, except inside a long row), from
    /// `0, 0` to `n_rows, nnz`.
    pub blocks: DevPtr<u32>,
    /// A partial sum for each block that is a piece of a long row.
    pub partial: DevPtrMut<T>,
    /// A count for each long row, at the slot of its first piece: zero
    /// before the launch, and again after it.
    pub done: DevPtrMut<u32>,
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
pub struct SpmvCsrMergeArgs<T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<u32>,
    /// Value of each stored entry.
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<T>,
    /// `n_parts` slots: the row each part left unfinished, or `n_rows`.
    pub carry_row: DevPtrMut<u32>,
    /// `n_parts` slots: each part's partial sum of its unfinished row.
    pub carry_val: DevPtrMut<T>,
    /// `n_parts + 1` rows: that of each part's first item (diagonal
    /// `p · items_per_part`, [`crate::merge_path::search`]), found once
    /// when the matrix is planned; the last is `n_rows`.
    pub part_rows: DevPtr<u32>,
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

impl<T> SpmvCsrMergeArgs<T> {
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
pub struct SpmvCooArgs<T> {
    /// Row of each stored entry.
    pub row_idx: DevPtr<u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<u32>,
    /// Value of each stored entry.
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, updated in place.
    pub y: DevPtrMut<T>,
    /// Number of stored entries.
    pub nnz: u32,
    pub n_rows: u32,
}

/// SpMV over ELL (ELLPACK), stored column-major: slot `k` of row `i` is at
/// `k * n_rows + i`, for `k < width`. A padding slot has column [`ELL_PAD`]
/// (its value is never read). `y` is overwritten.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvEllArgs<T> {
    /// `width * n_rows` columns, column-major.
    pub col_idx: DevPtr<u32>,
    /// `width * n_rows` values, column-major.
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<T>,
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
pub struct SpmvEllNearArgs<T> {
    /// Biased column offsets, at [`ell_near_slot`].
    pub offsets: DevPtr<u16>,
    /// Values, at [`ell_near_slot`].
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<T>,
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
pub struct SpmvSellArgs<T> {
    /// `n_rows` entries: `perm[p]` is the original row at sorted position `p`.
    pub perm: DevPtr<u32>,
    /// `n_slices + 1` offsets into `col_idx` and `values`.
    pub slice_ptr: DevPtr<u32>,
    /// `n_slices` widths: slots per row in each slice.
    pub slice_width: DevPtr<u32>,
    /// Columns, slice by slice, each slice column-major.
    pub col_idx: DevPtr<u32>,
    /// Values, laid out as `col_idx`.
    pub values: DevPtr<T>,
    /// The dense input vector.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries (original order), overwritten.
    pub y: DevPtrMut<T>,
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
pub struct SpmvBsrArgs<T> {
    /// `⌈n_rows / b⌉ + 1` offsets into `block_col` and `masks` (in blocks).
    pub block_row_ptr: DevPtr<u32>,
    /// Block column of each block, increasing within a block row.
    pub block_col: DevPtr<u32>,
    /// `b * b` values per block, row-major.
    pub values: DevPtr<T>,
    /// One occupancy mask per block.
    pub masks: DevPtr<u64>,
    /// The dense input vector, `n_cols` entries.
    pub x: DevPtr<T>,
    /// The dense output vector, `n_rows` entries, overwritten.
    pub y: DevPtrMut<T>,
    pub n_rows: u32,
    pub n_cols: u32,
    /// Block size, `1 ..= 8`.
    pub b: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
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
pub struct SpmmBlockArgs<T> {
    /// `4 · n_blocks` values, as above; pieces first. 16-byte aligned (a
    /// block's four are one vector load).
    pub blocks: DevPtr<u32>,
    /// The row of each entry of A (A in coordinate form, rows sorted).
    pub rows: DevPtr<u32>,
    pub col_idx: DevPtr<u32>,
    pub values: DevPtr<T>,
    /// B, row-major, `k` values a row (16-byte aligned rows in `_vec`).
    pub b: DevPtr<T>,
    /// C, row-major `m × k`.
    pub c: DevPtrMut<T>,
    /// `n_pieces · k` partial sums (unused when there are no pieces).
    pub partial: DevPtrMut<T>,
    /// `_fused`: `n_long + 1` offsets into the pieces, a run a long row.
    pub long_first: DevPtr<u32>,
    /// `_fused`: `n_long · tiles` counts of finished pieces, all 0 between
    /// launches.
    pub done: DevPtrMut<u32>,
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
pub struct SpmmFixupArgs<T> {
    /// `n_pieces · k` partial sums, row-major.
    pub partial: DevPtr<T>,
    /// C, row-major `m × k`.
    pub c: DevPtrMut<T>,
    /// The long rows, `n_long` values.
    pub long_rows: DevPtr<u32>,
    /// `n_long + 1` offsets into the pieces.
    pub long_first: DevPtr<u32>,
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
pub struct SpmmCsrThreadArgs<T> {
    pub row_ptr: DevPtr<u32>,
    pub col_idx: DevPtr<u32>,
    pub values: DevPtr<T>,
    pub b: DevPtr<T>,
    pub c: DevPtrMut<T>,
    pub n_rows: u32,
    pub k: u32,
    pub b_row_stride: u32,
    pub b_col_stride: u32,
    pub c_row_stride: u32,
    pub c_col_stride: u32,
}

/// Columns one thread of `spmm_csr_thread` computes at a time.
pub const SPMM_THREAD_COLS: u32 = 8;

/// One class of rows of C = A ⊗ B, symbolic or numeric phase. The kernels
/// of one class take the rows listed in `rows` (the host's binning) and,
/// in the symbolic phase (`numeric == 0`), write each row's exact length
/// to `row_len[row]`; in the numeric phase they write the row's entries,
/// sorted by column and without duplicates, at `c_row_ptr[row] − c_base`
/// in `c_col_idx` / `c_values` (so that a block of rows of C can live in a
/// buffer of its own). A, B and C's offsets are `u32` for A and B (at most
/// 2³² − 64 entries each), `u64` for C.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmRowsArgs<T> {
    pub a_row_ptr: DevPtr<u32>,
    pub a_col_idx: DevPtr<u32>,
    pub a_values: DevPtr<T>,
    pub b_row_ptr: DevPtr<u32>,
    pub b_col_idx: DevPtr<u32>,
    pub b_values: DevPtr<T>,
    /// The rows of this class, `n_rows` values.
    pub rows: DevPtr<u32>,
    /// Symbolic: the length of each row of C (indexed by row).
    pub row_len: DevPtrMut<u32>,
    /// Numeric: C's `n + 1` offsets.
    pub c_row_ptr: DevPtr<u64>,
    pub c_col_idx: DevPtrMut<u32>,
    pub c_values: DevPtrMut<T>,
    /// `spgemm_dense`: a slot of `slot_words` presence words, zero between
    /// rows (and `32 · slot_words` values), for each block of the grid,
    /// for spans wider than its shared memory; none when every span fits.
    pub scratch_flags: DevPtrMut<u32>,
    pub scratch_values: DevPtrMut<T>,
    /// `spgemm_short`, `spgemm_hash` and `spgemm_dense`, phase
    /// [`SPGEMM_UNSTAGE`]: where the staged rows lie (`stage_ptr[row]`
    /// into `stage_col_idx` / `stage_values`).
    pub stage_ptr: DevPtr<u64>,
    pub stage_col_idx: DevPtr<u32>,
    pub stage_values: DevPtr<T>,
    /// The offset in C of `c_col_idx[0]`.
    pub c_base: u64,
    pub n_rows: u32,
    /// [`SPGEMM_SYMBOLIC`] or [`SPGEMM_NUMERIC`]; `spgemm_short`,
    /// `spgemm_hash` and `spgemm_dense` also [`SPGEMM_STAGE`] and
    /// [`SPGEMM_UNSTAGE`].
    pub numeric: u32,
    pub slot_words: u32,
    /// `spgemm_dense`: words of each of the phase's arrays in shared
    /// memory (a row whose column span fits uses them instead of its
    /// slot).
    pub shared_words: u32,
    /// `spgemm_hash`: slots of each warp's table (a power of two); a
    /// hashed row takes the least power of two of them that holds twice
    /// its products. (At an offset of a multiple of 8: as the upper half
    /// of an 8-byte word, its load cost the kernel 6 registers.)
    pub table_slots: u32,
    /// `spgemm_dense`: values in shared memory after the arrays (see the
    /// kernel).
    pub shared_values: u32,
}

/// [`SpgemmRowsArgs::numeric`]: each row's length to `row_len`.
pub const SPGEMM_SYMBOLIC: u32 = 0;
/// [`SpgemmRowsArgs::numeric`]: each row's entries to C.
pub const SPGEMM_NUMERIC: u32 = 1;
/// [`SpgemmRowsArgs::numeric`], `spgemm_short`, `spgemm_hash` and
/// `spgemm_dense` only: both phases at once, each row's entries to
/// `c_row_ptr[row]` of a staging area whose offsets are bounds
/// (`SpgemmClassifyArgs::stage_len`), and its length to `row_len`. A row costs one walk of its products
/// instead of two (two instead of three for a long row summed by rank).
pub const SPGEMM_STAGE: u32 = 2;
/// [`SpgemmRowsArgs::numeric`], `spgemm_short`, `spgemm_hash` and
/// `spgemm_dense` only: the staged rows copied to their places in C.
pub const SPGEMM_UNSTAGE: u32 = 3;

/// The numeric phase of a planned product C = A ⊗ B (`spgemm_replay_4`,
/// `spgemm_replay_8`), whose products the plan has listed per entry of C,
/// in C's order and each entry's in the serial order, as one stream of
/// `u32` words cut into tiles of [`replay_tile`]`(lane)` products, a
/// warp's work, `lane` (4 or 8, the kernel's) a lane. A word holds an
/// offset of A's position above B's position in the low `b_bits`;
/// [`REPLAY_PAD`] words fill the tiles' ends, after the count
/// [`replay_real`] gives. A product's A position is its tile's `tile_a`
/// plus the word's offset, 4 bytes a product; in a tile whose A positions
/// span too far for the offset's bits, marked [`REPLAY_WIDE_TILE`], the
/// offset is 0 and `wide_a` holds the positions instead, 8 bytes a
/// product. Where each lane's entries begin is in `lane_flags`, 2 bytes a
/// lane. A list of at most [`replay_short`]`(lane)` products lies in one
/// tile; a longer one may run on through the next tiles.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmReplayArgs<T> {
    pub a_values: DevPtr<T>,
    pub b_values: DevPtr<T>,
    /// `n_tiles × replay_tile(lane)` words.
    pub words: DevPtr<u32>,
    /// Per tile: the number of entries whose lists start before it (the
    /// entry of its first flag, [`replay_entry`]) and its words before its
    /// pads ([`replay_real`]), with [`REPLAY_LONG_TILE`] set on the
    /// tiles listed in `long_tiles`, [`REPLAY_RUNS_ON`] on those whose
    /// last list runs on into the next tile and [`REPLAY_WIDE_TILE`] on
    /// those whose A positions are in `wide_a`.
    pub tile_entry: DevPtr<u64>,
    /// Per tile: its lowest A position, or, in a wide tile, its place
    /// among the wide tiles.
    pub tile_a: DevPtr<u32>,
    /// The wide tiles' A positions, `replay_tile(lane)` each (a pad's 0).
    pub wide_a: DevPtr<u32>,
    /// Per tile, 32: each lane's [`replay_bounds`] and [`replay_before`].
    /// The host finds them once; the replay, finding them itself from a
    /// flag bit in each word, spent a seventh of its instructions on them.
    pub lane_flags: DevPtr<u16>,
    /// The tiles whose last list runs on through more than
    /// [`REPLAY_LONG_TILES`] tiles (`n_long`), replayed first, or by a
    /// kernel of their own (`spgemm_replay_long_4`) beside the others.
    pub long_tiles: DevPtr<u32>,
    /// C's values, `n_entries` of them, overwritten.
    pub c_values: DevPtrMut<T>,
    pub n_entries: u64,
    pub n_tiles: u64,
    pub n_long: u64,
    /// Bits of B's position in a word, 1 to 31.
    pub b_bits: u32,
    /// A warp replays 2^`tile_run_shift` tiles in a row (0 to 4) after the
    /// long tiles (one a warp each): its start is paid once for them.
    pub tile_run_shift: u32,
}

/// Products in a tile of a plan's lists ([`SpgemmReplayArgs`]) for
/// `lane` products a lane (4 or 8): a warp's, read in 16-byte loads and
/// folded in registers.
pub const fn replay_tile(lane: u64) -> u64 {
    32 * lane
}

/// The longest list that never crosses a tile of `lane` products a lane
/// ([`SpgemmReplayArgs`]; the tile's end is padded instead): a list that
/// crosses is finished by its first tile's warp after its own tile, one
/// more round of loads, which a list of more products pays for. A quarter
/// of a tile, so that padding stays under a third of the products.
pub const fn replay_short(lane: u64) -> u64 {
    replay_tile(lane) / 4
}

/// Products a lane of a plan's replay computes where its lists hold
/// fewer than [`REPLAY_NARROW_BELOW`] products an entry on average
/// (`spgemm_replay_4`), else [`REPLAY_WIDE_LANE`] (`spgemm_replay_8`).
pub const REPLAY_NARROW_LANE: u64 = 4;
/// See [`REPLAY_NARROW_LANE`].
pub const REPLAY_WIDE_LANE: u64 = 8;
/// The mean list length below which a plan replays 4 products a lane:
/// lists of one or two products then fill twice the warps, in fewer
/// registers; longer lists at 8 a lane pad less and pass fewer sums from
/// lane to lane. Tried 2: slower on tune (R-MAT 0.86–0.93×).
pub const REPLAY_NARROW_BELOW: u64 = 3;

/// Tiles past its own through which a tile's last list may run before
/// that tile is replayed first ([`SpgemmReplayArgs::long_tiles`]): its
/// warp then walks the list alone, and started last it would be the
/// launch's tail.
pub const REPLAY_LONG_TILES: u64 = 2;

/// A bound on a plan's tiles ([`SpgemmReplayArgs::n_tiles`]): the replay
/// numbers tiles and warps in `u32`, which keeps its loop's state in
/// fewer registers, and a warp's number plus the grid's stays below 2³².
pub const REPLAY_MAX_TILES: u64 = 1 << 31;

/// Threads in a block of the replay. A multiprocessor's registers hold 36
/// warps of `spgemm_replay_8` in f64 (56 a thread): 9 blocks of 128
/// threads, but only 4 of 256; at 40 registers (`spgemm_replay_4`) or 48
/// (`spgemm_replay_8` in f32) blocks of either size fill the same warps.
pub const REPLAY_BLOCK: u32 = 128;

/// Threads in a block of `spgemm_replay_long_4` and `_8`, which read a
/// tile a warp at once: 16 tiles, so that most long lists end in the
/// first round (a circuit's ground node: 11 tiles of 128 products).
pub const REPLAY_LONG_BLOCK: u32 = 512;

/// A word of [`SpgemmReplayArgs::words`] that is no product, after its
/// tile's [`replay_real`] words: flagged in [`replay_bounds`], so that it
/// ends the sum before it, and of positions within A's and B's values
/// (the tile's lowest or `wide_a`'s 0, and B's first), so that the replay
/// reads it as it reads a product, with no test.
pub const REPLAY_PAD: u32 = 0;

/// The lowest bit, in a lane's [`SpgemmReplayArgs::lane_flags`], of
/// [`replay_before`]; [`replay_bounds`] lie below.
pub const REPLAY_BEFORE_SHIFT: u32 = 8;

/// A lane's words that begin an entry's list or are pads, word `u` at bit
/// `u`: where the sum before them ends. From its
/// [`SpgemmReplayArgs::lane_flags`].
pub const fn replay_bounds(flags: u16) -> u32 {
    (flags & ((1 << REPLAY_BEFORE_SHIFT) - 1)) as u32
}

/// The entries whose lists begin in a tile's lanes before a lane (at most
/// `31 × 8`), from the lane's [`SpgemmReplayArgs::lane_flags`].
pub const fn replay_before(flags: u16) -> u32 {
    (flags >> REPLAY_BEFORE_SHIFT) as u32
}

/// The mark, in [`SpgemmReplayArgs::tile_entry`], of a tile replayed first.
pub const REPLAY_LONG_TILE: u64 = 1 << 63;

/// The mark, in [`SpgemmReplayArgs::tile_entry`], of a tile whose last list
/// runs on into the next tile (so that no warp reads ahead to find out).
pub const REPLAY_RUNS_ON: u64 = 1 << 62;

/// The mark, in [`SpgemmReplayArgs::tile_entry`], of a tile whose A
/// positions are in [`SpgemmReplayArgs::wide_a`].
pub const REPLAY_WIDE_TILE: u64 = 1 << 61;

/// The lowest bit, in [`SpgemmReplayArgs::tile_entry`], of the 9 that
/// count a tile's words before its pads (1 to 256); the entry is below.
pub const REPLAY_REAL_SHIFT: u32 = 52;

/// The entry of a tile's first flag, from its
/// [`SpgemmReplayArgs::tile_entry`] word.
pub const fn replay_entry(info: u64) -> u64 {
    info & ((1 << REPLAY_REAL_SHIFT) - 1)
}

/// A tile's words before its pads, from its
/// [`SpgemmReplayArgs::tile_entry`] word.
pub const fn replay_real(info: u64) -> u32 {
    (info >> REPLAY_REAL_SHIFT) as u32 & 0x1ff
}

/// Products (and entries of A) a row may have for one warp to sort them
/// in registers (`spgemm_warp`): the shortest rows, where a sort of 32
/// keys by shuffles costs less than clearing and reading out a table.
pub const SPGEMM_WARP_MAX: u32 = 32;
/// Products a row of at most [`SPGEMM_WARP_MAX`] entries of A may have for
/// one warp to sort them in registers (`spgemm_short`, four a lane) when
/// its span is too wide for a table indexed by column: random short rows,
/// whose products are mostly distinct, where a table's clearing, probes
/// and gathering cost more than a wider sort.
pub const SPGEMM_SHORT_MAX: u32 = 128;
/// Slots of `spgemm_hash`'s table, one a warp in shared memory (6 KB in
/// `f64`, so 8 warps a block fit the default 48 KB): rows up to 256
/// products, or any row whose span fits, which is a band or a stencil's.
pub const SPGEMM_HASH_SLOTS: u32 = 512;
/// Slots of the wide class's table, one a warp (`spgemm_hash` launched
/// with fewer warps a block): rows of up to [`SPGEMM_BLOCK_MAX`] products
/// whose span fits it, indexed by column, so read out in order with no
/// sort (a FEM matrix's). A warp walking such a row alone waits on no
/// barrier, where a block sorting it waits on many. Rows whose span does
/// not fit stay with the block's sort (a warp sorting up to 1024 hashed
/// columns is slower), and longer rows with the dense kernel's 8 warps (a
/// warp alone on thousands of products is slower).
pub const SPGEMM_WIDE_SLOTS: u32 = 2048;
/// Products (and entries of A) a row may have for one block to sort them
/// in shared memory (`spgemm_block`): the middle rows, too many products
/// for a warp's table, too few to pay a dense accumulator's readout.
pub const SPGEMM_BLOCK_MAX: u32 = 1024;
/// Threads of a block of every SpGEMM row kernel but `spgemm_hash` (see
/// [`spgemm_hash_warps`]).
pub const SPGEMM_THREADS: u32 = 256;
/// Row classes of [`SpgemmClassifyArgs`] (`SPGEMM_CLASS_*`), one for each
/// row kernel in order, then the giant rows.
pub const SPGEMM_CLASSES: usize = 8;
/// At most one entry of A, or no products: `spgemm_copy`.
pub const SPGEMM_CLASS_COPY: usize = 0;
/// Up to [`SPGEMM_WARP_MAX`] products: `spgemm_warp`.
pub const SPGEMM_CLASS_WARP: usize = 1;
/// Up to [`SPGEMM_SHORT_MAX`] products of at most [`SPGEMM_WARP_MAX`]
/// entries of A over a span wider than [`SPGEMM_HASH_SLOTS`]:
/// `spgemm_short`.
pub const SPGEMM_CLASS_SHORT: usize = 2;
/// Rows that fit [`SPGEMM_HASH_SLOTS`] ([`spgemm_hash_fits`]):
/// `spgemm_hash`.
pub const SPGEMM_CLASS_HASH: usize = 3;
/// Up to [`SPGEMM_BLOCK_MAX`] products over a span of at most
/// [`SPGEMM_WIDE_SLOTS`]: `spgemm_hash` with the wide table.
pub const SPGEMM_CLASS_WIDE: usize = 4;
/// The other rows of up to [`SPGEMM_BLOCK_MAX`] products: `spgemm_block`.
pub const SPGEMM_CLASS_BLOCK: usize = 5;
/// The rest, the last class of the row kernels: `spgemm_dense`.
pub const SPGEMM_CLASS_DENSE: usize = 6;

/// Shared memory a group sorting up to `capacity` products needs: the
/// products' keys (8 bytes) and values, and per entry of A its first
/// product and where its row of B starts (4 + 4 bytes, one offset more).
pub const fn spgemm_sort_shared_bytes(capacity: u32, value_size: u32) -> u32 {
    let bytes = capacity * (8 + 4 + 4 + value_size) + 16;
    bytes.div_ceil(8) * 8
}

/// Whether a row with `products` products whose columns lie in a span of
/// `span` columns fits a table of `slots`: indexed directly by column when
/// the span fits (and the products are not too many for one warp), else
/// hashed at most half full (C's row has at most `products` entries), so
/// that probes stay short.
pub const fn spgemm_hash_fits(slots: u32, products: u64, span: u64) -> bool {
    let slots = slots as u64;
    (span <= slots && products <= SPGEMM_HASH_DIRECT_MAX * slots) || 2 * products <= slots
}

/// Products a row indexed directly may have, per slot of the table: a row
/// with more is work enough for a block, and a warp alone on it would
/// leave the device idle when such rows are few.
pub const SPGEMM_HASH_DIRECT_MAX: u64 = 8;

/// Bytes of a hash table of `slots` for values of `value_size` bytes: a
/// column and a value a slot.
pub const fn spgemm_hash_table_bytes(slots: u32, value_size: u32) -> u32 {
    slots * (4 + value_size)
}

/// Warps a block of `spgemm_hash` with tables of `slots`: as many tables
/// as fit [`SHARED_DEFAULT_MAX`], at most 8.
pub const fn spgemm_hash_warps(slots: u32, value_size: u32) -> u32 {
    let fit = SHARED_DEFAULT_MAX / spgemm_hash_table_bytes(slots, value_size);
    if fit > 8 { 8 } else { fit }
}

/// Shared memory of `spgemm_dense` before its accumulator: two scalars,
/// then 33 `u64` slots of a block-wide scan (rounded up to 8 bytes).
pub const SPGEMM_DENSE_SHARED: u32 = 288;

/// Shared memory a block may take without asking the driver for more.
pub const SHARED_DEFAULT_MAX: u32 = 48 * 1024;

/// Arrays of words `spgemm_dense` keeps a row: its bitmap (symbolic); the
/// bitmap, a second of the entries begun and the words' running counts
/// (numeric).
pub const fn spgemm_dense_arrays(numeric: bool) -> u32 {
    if numeric { 3 } else { 1 }
}

/// Bytes of dynamic shared memory of `spgemm_dense` with arrays of `words`
/// words (an even number, so that the values stay 8-byte aligned) and
/// `values` values of `value_size` bytes.
pub const fn spgemm_dense_shared_bytes(
    numeric: bool,
    words: u32,
    values: u32,
    value_size: u32,
) -> u32 {
    SPGEMM_DENSE_SHARED + spgemm_dense_arrays(numeric) * words * 4 + values * value_size
}

/// Shared memory of the scan kernels: 33 `u64` slots.
pub const SCAN_SHARED: u32 = 8 * 33;

/// The row classification of C = A ⊗ B (`spgemm_classify`) and the
/// binning of rows by class (`spgemm_bin`), for rows
/// `row_start..row_end`. Classify writes each row's class (`class[row −
/// row_start]`), the lengths of class-0 rows (`row_len[row]`: its
/// products), adds the class sizes to `counts` and the products to
/// `products`. Bin lists the rows of class `c` from `rows[offsets[c]]` on
/// (in no particular order), counting in `cursors` (zeroed).
///
/// Rows of A longer than [`SPGEMM_LANE_MAX`] are summed before classify:
/// `spgemm_long_rows` lists their chunks of [`SPGEMM_LONG_CHUNK`] entries
/// (`long_chunks`, `row − row_start` above, the chunk below; counted in
/// `long_count`), and `spgemm_long_products` adds each chunk's products to
/// `long_products[row − row_start]` and its span to `long_span` (two words
/// a row: the lowest column inverted, `!lo`, and the highest; zeroed by
/// `spgemm_long_rows`). Without long rows neither runs, and these three
/// are never read.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmClassifyArgs {
    pub a_row_ptr: DevPtr<u32>,
    pub a_col_idx: DevPtr<u32>,
    pub b_row_ptr: DevPtr<u32>,
    pub b_col_idx: DevPtr<u32>,
    pub class: DevPtrMut<u8>,
    pub row_len: DevPtrMut<u32>,
    /// [`SPGEMM_CLASSES`] counters (classify) or cursors (bin).
    pub counts: DevPtrMut<u32>,
    /// Classify: total products; bin: the row list.
    pub products: DevPtrMut<u64>,
    pub rows: DevPtrMut<u32>,
    pub long_chunks: DevPtrMut<u64>,
    pub long_count: DevPtrMut<u32>,
    pub long_products: DevPtrMut<u64>,
    pub long_span: DevPtrMut<u32>,
    /// Classify, unless null: for each row, a bound on its length when it
    /// is `spgemm_short`'s, `spgemm_hash`'s or `spgemm_dense`'s (the fewer
    /// of its products and its span), else 0.
    pub stage_len: DevPtrMut<u32>,
    /// A row is giant (class [`SPGEMM_CLASS_GIANT`]) with at least
    /// `giant_products` products and `giant_len` entries of A.
    pub giant_products: u64,
    pub row_start: u32,
    pub row_end: u32,
    pub giant_len: u32,
    /// Bin: where each class's rows start in `rows`, and where the last
    /// ends.
    pub offsets: [u32; SPGEMM_CLASSES + 1],
}

/// Entries of A's row a lane of `spgemm_classify` walks alone. A longer
/// row is summed first by warps, a chunk of [`SPGEMM_LONG_CHUNK`] each:
/// one lane walking a row of a million entries would hold up the product.
pub const SPGEMM_LANE_MAX: u32 = 256;
/// Entries of A a warp of `spgemm_long_products` sums: 64 a lane, so
/// that a row of a million entries spreads over the whole device.
pub const SPGEMM_LONG_CHUNK: u32 = 2048;

/// The class of giant rows, after the seven of the row kernels: rows of C
/// computed a batch at a time column by column of Bᵀ (see
/// [`SpgemmGiantArgs`]).
pub const SPGEMM_CLASS_GIANT: usize = 7;
/// Rows of C a giant pass takes at once: one a lane.
pub const SPGEMM_GIANT_BATCH: u32 = 32;

/// The transpose of B, for the giant rows: `spgemm_transpose_count` counts
/// each column's entries into `col_count` (zeroed); the host scans them
/// into `col_ptr`; `spgemm_transpose_scatter` writes each entry of B to
/// its column as `row << 32 | position in B`, counting `col_count` back
/// down to zero; `spgemm_transpose_sort` sorts each column's keys (so by
/// row): columns of up to 32 entries a warp each when `long == 0`, the
/// longer ones a block each when `long == 1`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpgemmTransposeArgs {
    pub b_row_ptr: DevPtr<u32>,
    pub b_col_idx: DevPtr<u32>,
    pub col_count: DevPtrMut<u32>,
    /// `n_cols + 1` offsets of Bᵀ.
    pub col_ptr: DevPtr<u64>,
    /// B's entries in column order, `nnz(B)` of them.
    pub keys: DevPtrMut<u64>,
    pub n_rows: u32,
    pub n_cols: u32,
    pub long: u32,
    pub pad: u32,
}

/// A batch of giant rows spread over B's rows (`spgemm_giant_gather`):
/// for the `r`-th of `rows[..n_batch]`, each entry `q` of A's row, at
/// column `k`, sets bit `r` of `x_mask[k]` and `x_pos[32·k + r] = q`; with
/// `clear == 1` it zeroes those `x_mask` words again.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpgemmGatherArgs {
    pub a_row_ptr: DevPtr<u32>,
    pub a_col_idx: DevPtr<u32>,
    pub rows: DevPtr<u32>,
    pub x_mask: DevPtrMut<u32>,
    pub x_pos: DevPtrMut<u32>,
    pub n_batch: u32,
    pub clear: u32,
}

/// A batch of up to [`SPGEMM_GIANT_BATCH`] giant rows of C, spread by
/// `spgemm_giant_gather` into `x_mask` / `x_pos`, against Bᵀ (`bt_ptr`,
/// `bt_keys` from [`SpgemmTransposeArgs`]). `spgemm_giant_columns` folds
/// each column `j` of Bᵀ in row order — the serial order of column `j` of
/// every row of the batch — writing `out_mask[j]` (bit `r`: row `r` has
/// column `j`) and, numeric, `out_values[32·j + r]`. `spgemm_giant_rows`
/// then counts each row (symbolic: `row_len[row]`) or writes it in column
/// order (numeric: at `c_row_ptr[row] − c_base` in `c_col_idx` /
/// `c_values`).
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmGiantArgs<T> {
    pub a_values: DevPtr<T>,
    pub b_values: DevPtr<T>,
    pub bt_ptr: DevPtr<u64>,
    pub bt_keys: DevPtr<u64>,
    pub x_mask: DevPtr<u32>,
    pub x_pos: DevPtr<u32>,
    /// The batch's rows, `n_batch` of them.
    pub rows: DevPtr<u32>,
    pub out_mask: DevPtrMut<u32>,
    pub out_values: DevPtrMut<T>,
    pub row_len: DevPtrMut<u32>,
    pub c_row_ptr: DevPtr<u64>,
    pub c_col_idx: DevPtrMut<u32>,
    pub c_values: DevPtrMut<T>,
    pub c_base: u64,
    /// B's columns.
    pub n_cols: u32,
    pub n_batch: u32,
    /// 0: symbolic phase; 1: numeric.
    pub numeric: u32,
    pub pad: u32,
}

/// An exclusive prefix sum of `n` `u32` values into `n + 1` `u64` offsets,
/// in three launches: `scan_tiles` (a block per tile of
/// [`SCAN_TILE`] values: offsets within the tile and the tile's sum),
/// `scan_tile_sums` (one block: the tiles' sums scanned in place, the total
/// written to `output[n]`), `scan_add` (each offset plus its tile's start).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ScanArgs {
    pub input: DevPtr<u32>,
    pub output: DevPtrMut<u64>,
    pub tile_sums: DevPtrMut<u64>,
    pub n: u32,
    pub n_tiles: u32,
}

/// `narrow_offsets`: `output[i] = input[i]` for `i < n`, `u64` offsets
/// narrowed to `u32` (the host has checked that the last fits).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NarrowArgs {
    pub input: DevPtr<u64>,
    pub output: DevPtrMut<u32>,
    pub n: u64,
}

/// `words_differ`: sets `*differ` to 1 if `a[i] != b[i]` for some `i < n`
/// (and leaves it alone otherwise): equality of two device buffers.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CompareArgs {
    pub a: DevPtr<u32>,
    pub b: DevPtr<u32>,
    pub differ: DevPtrMut<u32>,
    pub n: u64,
}

/// A dense `rows × cols` row-major matrix of 1-, 4- or 8-byte values
/// (`transpose_1`, `_4`, `_8`) written transposed, `cols × rows`, to
/// `output`: a column-major operand to row-major and back.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TransposeArgs {
    pub input: DevPtr<u8>,
    pub output: DevPtrMut<u8>,
    pub rows: u32,
    pub cols: u32,
}

/// CSR of 1-, 4- or 8-byte values (`csr_to_ell_1`, `_4`, `_8`) written as
/// ELL of `width` (at least the longest row): slot `k` of row `r` at `k ·
/// n_rows + r`, its column and value the row's `k`-th entry's, or
/// `ELL_PAD` and zero bits past the row's end. `csr_to_ell_near_*` write
/// near-diagonal ELL instead ([`SpmvEllNearArgs`]: biased `u16` offsets,
/// [`ELL_NEAR_PAD`], slots at [`ell_near_slot`]), for a CSR whose every
/// entry lies within [`ELL_NEAR_REACH`] of the diagonal. The slots fit a
/// `u32`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CsrToEllArgs {
    pub row_ptr: DevPtr<u32>,
    pub col_idx: DevPtr<u32>,
    pub values: DevPtr<u8>,
    /// `u32` columns (`csr_to_ell_*`) or `u16` offsets (`csr_to_ell_near_*`).
    pub ell_columns: DevPtrMut<u8>,
    pub ell_values: DevPtrMut<u8>,
    pub n_rows: u32,
    pub width: u32,
}

/// Threads of a block of the `transpose_*` kernels: a 32 × 32 tile, 8
/// rows of it at a time.
pub const TRANSPOSE_THREADS: u32 = 256;

// SAFETY: repr(C): two 8-byte addresses and two u32: no padding.
unsafe impl KernelArgs for TransposeArgs {}
const _: () = assert!(core::mem::size_of::<TransposeArgs>() == 24);
// SAFETY: repr(C): five 8-byte addresses and two u32: no padding.
unsafe impl KernelArgs for CsrToEllArgs {}
const _: () = assert!(core::mem::size_of::<CsrToEllArgs>() == 48);
// SAFETY: repr(C) of 8-byte fields: no padding.
unsafe impl KernelArgs for NarrowArgs {}
const _: () = assert!(core::mem::size_of::<NarrowArgs>() == 24);
// SAFETY: repr(C) of 8-byte fields: no padding.
unsafe impl KernelArgs for CompareArgs {}
const _: () = assert!(core::mem::size_of::<CompareArgs>() == 32);

/// Values a block of `scan_tiles` (256 threads, 8 values a thread) scans.
pub const SCAN_TILE: u32 = 2048;
/// Threads of a block of the scan kernels.
pub const SCAN_THREADS: u32 = 256;

impl Clone for SpgemmClassifyArgs {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for SpgemmClassifyArgs {}
// SAFETY: repr(C): fourteen 8-byte device addresses and a u64, then twelve
// u32 (48 bytes, a multiple of 8): no padding, as the size check shows.
unsafe impl KernelArgs for SpgemmClassifyArgs {}
const _: () = assert!(core::mem::size_of::<SpgemmClassifyArgs>() == 168);
// SAFETY: repr(C): five 8-byte device addresses and four u32: no padding.
unsafe impl KernelArgs for SpgemmTransposeArgs {}
const _: () = assert!(core::mem::size_of::<SpgemmTransposeArgs>() == 56);
// SAFETY: repr(C): five 8-byte device addresses and two u32: no padding.
unsafe impl KernelArgs for SpgemmGatherArgs {}
const _: () = assert!(core::mem::size_of::<SpgemmGatherArgs>() == 48);
// SAFETY: repr(C): three 8-byte addresses and two u32: no padding.
unsafe impl KernelArgs for ScanArgs {}
const _: () = assert!(core::mem::size_of::<ScanArgs>() == 32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_parts_cover_every_item() {
        type A = SpmvCsrMergeArgs<f32>;
        assert_eq!(A::parts(0, 0, 256), Some(0));
        assert_eq!(A::parts(1, 0, 256), Some(1));
        assert_eq!(A::parts(100, 156, 256), Some(1));
        assert_eq!(A::parts(100, 157, 256), Some(2));
        assert_eq!(A::parts(u32::MAX, u32::MAX, 32), Some(1 << 28));
        assert_eq!(A::parts(10, 10, 0), None);
        assert_eq!(A::parts(10, 10, 48), None);
    }
}

/// The argument of the `spin_ns` utility kernel: how long to hold the
/// stream, in nanoseconds of the GPU's global timer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpinArgs {
    pub ns: u64,
}

// SAFETY: repr(C), one u64: no padding.
unsafe impl KernelArgs for SpinArgs {}
