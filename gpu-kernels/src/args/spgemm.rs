//! SpGEMM's argument structs and constants: the row kernels of each class
//! and phase, the replay of a plan's product lists, the classification
//! and binning, the long and giant rows (Bᵀ, gather) and the prefix sum.

use core::marker::PhantomData;

use super::{DevPtr, DevPtrMut, SHARED_DEFAULT_MAX};

kernel_args! {
    SpgemmSymbolicArgs = 72;
    SpgemmNumericArgs = 128;
    SpgemmStageArgs = 136;
    SpgemmUnstageArgs = 72;
    SpgemmReplayArgs = 104;
    SpgemmGiantSymbolicArgs = 56;
    SpgemmGiantNumericArgs = 112;
}

/// The phases of the row kernels of C = A ⊗ B (classes 0–6), each with
/// entry points and an argument struct of its own, so that a kernel
/// compiled for one phase carries no other phase's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpgemmPhase {
    /// Each row's exact length to `row_len` ([`SpgemmSymbolicArgs`]).
    Symbolic,
    /// Each row's entries to C, sorted by column and without duplicates
    /// ([`SpgemmNumericArgs`]).
    Numeric,
    /// `spgemm_short`, `spgemm_hash` and `spgemm_dense` only: both phases
    /// at once, each row's entries to a staging area whose offsets are
    /// bounds (`SpgemmClassifyArgs::stage_len`), and its length to
    /// `row_len` ([`SpgemmStageArgs`]). A row costs one walk of its
    /// products instead of two (two instead of three for a dense row
    /// summed by rank).
    Stage,
    /// The staged rows copied to their places in C
    /// ([`SpgemmUnstageArgs`]: `spgemm_unstage`, `spgemm_unstage_dense`).
    Unstage,
}

impl SpgemmPhase {
    /// Whether the phase writes rows' entries (numeric, staging).
    pub const fn entries(self) -> bool {
        matches!(self, Self::Numeric | Self::Stage)
    }

    /// Whether the phase writes rows' lengths (symbolic, staging).
    pub const fn lengths(self) -> bool {
        matches!(self, Self::Symbolic | Self::Stage)
    }
}

/// The symbolic phase of one class of rows of C = A ⊗ B
/// (`spgemm_{warp,short,hash,block,dense}_symbolic`): the rows listed in
/// `rows` (the host's binning), each one's exact length to
/// `row_len[row]`. Only A's and B's patterns are read. A's and B's offsets
/// are `u32` (at most 2³² − 64 entries each).
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmSymbolicArgs<'a, T> {
    pub a_row_ptr: DevPtr<'a, u32>,
    pub a_col_idx: DevPtr<'a, u32>,
    pub b_row_ptr: DevPtr<'a, u32>,
    pub b_col_idx: DevPtr<'a, u32>,
    /// The rows of this class, `n_rows` values.
    pub rows: DevPtr<'a, u32>,
    /// The length of each row of C (indexed by row).
    pub row_len: DevPtrMut<'a, u32>,
    /// `spgemm_dense_symbolic`: a slot of `slot_words` presence words for
    /// each block of the grid, zero (and left so), for spans wider than
    /// its shared memory; none when every span fits.
    pub scratch_flags: DevPtrMut<'a, u32>,
    pub n_rows: u32,
    /// `spgemm_dense_symbolic`: words of each slot.
    pub slot_words: u32,
    /// `spgemm_hash_symbolic`: slots of each warp's table (a power of
    /// two). (At an offset of a multiple of 8, as in every phase: as the
    /// upper half of an 8-byte word, its load cost the kernel 6
    /// registers.)
    pub table_slots: u32,
    /// `spgemm_dense_symbolic`: words of the bitmap in shared memory (a
    /// row whose column span fits uses it instead of its slot).
    pub shared_words: u32,
    /// The values' type, whose size lays out the hash kernel's table;
    /// no value is read.
    pub values: PhantomData<fn() -> T>,
}

/// The numeric phase of one class of rows of C = A ⊗ B (`spgemm_copy`,
/// `spgemm_{warp,short,hash,block,dense}_numeric`): the rows listed in
/// `rows`, each one's entries, sorted by column and without duplicates,
/// at `c_row_ptr[row] − c_base` in `c_col_idx` / `c_values` (so that a
/// block of rows of C can live in a buffer of its own). A's and B's
/// offsets are `u32`, C's `u64`.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmNumericArgs<'a, T> {
    pub a_row_ptr: DevPtr<'a, u32>,
    pub a_col_idx: DevPtr<'a, u32>,
    pub a_values: DevPtr<'a, T>,
    pub b_row_ptr: DevPtr<'a, u32>,
    pub b_col_idx: DevPtr<'a, u32>,
    pub b_values: DevPtr<'a, T>,
    /// The rows of this class, `n_rows` values.
    pub rows: DevPtr<'a, u32>,
    /// C's `n + 1` offsets.
    pub c_row_ptr: DevPtr<'a, u64>,
    pub c_col_idx: DevPtrMut<'a, u32>,
    pub c_values: DevPtrMut<'a, T>,
    /// `spgemm_dense_numeric`: a slot of `slot_words` presence words, zero
    /// between rows (and `32 · slot_words` values), for each block of the
    /// grid, for spans wider than its shared memory; none when every span
    /// fits.
    pub scratch_flags: DevPtrMut<'a, u32>,
    pub scratch_values: DevPtrMut<'a, T>,
    /// The offset in C of `c_col_idx[0]`.
    pub c_base: u64,
    pub n_rows: u32,
    /// `spgemm_dense_numeric`: words of each slot.
    pub slot_words: u32,
    /// `spgemm_hash_numeric`: slots of each warp's table (a power of two);
    /// a hashed row takes the least power of two of them that holds twice
    /// its entries.
    pub table_slots: u32,
    /// `spgemm_dense_numeric`: words of each of the phase's arrays in
    /// shared memory (a row whose column span fits uses them instead of
    /// its slot).
    pub shared_words: u32,
    /// `spgemm_dense_numeric`: values in shared memory after the arrays
    /// (see the kernel).
    pub shared_values: u32,
    pub pad: u32,
}

/// The staging phase of the short, hash or dense class
/// (`spgemm_{short,hash,dense}_stage`, [`SpgemmPhase::Stage`]): the
/// numeric phase into the staging area, and each row's length.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmStageArgs<'a, T> {
    /// The numeric phase's arguments, C's being the staging area's: its
    /// offsets (bounds on the rows' lengths) in `c_row_ptr`, its entries
    /// in `c_col_idx` / `c_values`, `c_base` 0.
    pub entries: SpgemmNumericArgs<'a, T>,
    /// The length of each row of C (indexed by row).
    pub row_len: DevPtrMut<'a, u32>,
}

/// The staged rows of one class copied to C ([`SpgemmPhase::Unstage`]):
/// `spgemm_unstage` (a warp 32 rows: the short and hash classes) and
/// `spgemm_unstage_dense` (a block a row). Row `row` lies at
/// `stage_ptr[row]` in `stage_col_idx` / `stage_values`, and goes to
/// `c_row_ptr[row] − c_base` in `c_col_idx` / `c_values`, its length
/// C's.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmUnstageArgs<'a, T> {
    /// The rows of this class, `n_rows` values.
    pub rows: DevPtr<'a, u32>,
    pub stage_ptr: DevPtr<'a, u64>,
    pub stage_col_idx: DevPtr<'a, u32>,
    pub stage_values: DevPtr<'a, T>,
    /// C's `n + 1` offsets.
    pub c_row_ptr: DevPtr<'a, u64>,
    pub c_col_idx: DevPtrMut<'a, u32>,
    pub c_values: DevPtrMut<'a, T>,
    /// The offset in C of `c_col_idx[0]`.
    pub c_base: u64,
    pub n_rows: u32,
    pub pad: u32,
}

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
pub struct SpgemmReplayArgs<'a, T> {
    pub a_values: DevPtr<'a, T>,
    pub b_values: DevPtr<'a, T>,
    /// `n_tiles × replay_tile(lane)` words.
    pub words: DevPtr<'a, u32>,
    /// Per tile: the number of entries whose lists start before it (the
    /// entry of its first flag, [`replay_entry`]) and its words before its
    /// pads ([`replay_real`]), with [`REPLAY_LONG_TILE`] set on the
    /// tiles listed in `long_tiles`, [`REPLAY_RUNS_ON`] on those whose
    /// last list runs on into the next tile and [`REPLAY_WIDE_TILE`] on
    /// those whose A positions are in `wide_a`.
    pub tile_entry: DevPtr<'a, u64>,
    /// Per tile: its lowest A position, or, in a wide tile, its place
    /// among the wide tiles.
    pub tile_a: DevPtr<'a, u32>,
    /// The wide tiles' A positions, `replay_tile(lane)` each (a pad's 0).
    pub wide_a: DevPtr<'a, u32>,
    /// Per tile, 32: each lane's [`replay_bounds`] and [`replay_before`].
    /// The host finds them once; the replay, finding them itself from a
    /// flag bit in each word, spent a seventh of its instructions on them.
    pub lane_flags: DevPtr<'a, u16>,
    /// The tiles whose last list runs on through more than
    /// [`REPLAY_LONG_TILES`] tiles (`n_long`), replayed first, or by a
    /// kernel of their own (`spgemm_replay_long_4`) beside the others.
    pub long_tiles: DevPtr<'a, u32>,
    /// C's values, `n_entries` of them, overwritten.
    pub c_values: DevPtrMut<'a, T>,
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
/// for a warp's table, too few to pay a dense accumulator's readout
/// unless their span is narrow ([`SPGEMM_DENSE_SPAN_PER_PRODUCT`]).
pub const SPGEMM_BLOCK_MAX: u32 = 1024;
/// Columns of span a product of a middle row (up to [`SPGEMM_BLOCK_MAX`]
/// products, a span beyond [`SPGEMM_WIDE_SLOTS`]) may have for the row to
/// go to `spgemm_dense` rather than a block's sort, where B's width fits
/// that kernel's shared bitmaps ([`SpgemmClassifyArgs::dense_middle`]):
/// then its bitmap has no more words than it has products, and reading them
/// out costs less than the sort's barriers. On an H100, against the sort:
/// the built-in 8191² pair (rows of about 520 products over 8191 columns)
/// 1.64× (`f64`) and 2.0× (`f32`), the tuning suite 1.04× and 1.08×; 8 a
/// product (the pair left to the sort) 0.98× and 1.03×; every middle row to
/// the dense kernel 1.05× and 1.09×, within the runs' spread of 32's. The
/// bound keeps a few hundred products over a wide B (a span of up to B's
/// width) with the sort, whose cost does not grow with the span.
pub const SPGEMM_DENSE_SPAN_PER_PRODUCT: u32 = 32;
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
/// The other rows of up to [`SPGEMM_BLOCK_MAX`] products (whose span
/// passes [`SPGEMM_DENSE_SPAN_PER_PRODUCT`] columns a product, or all of
/// them where B is wider than `spgemm_dense`'s shared bitmaps):
/// `spgemm_block`.
pub const SPGEMM_CLASS_BLOCK: usize = 5;
/// The rest (longer rows, and middle rows of a narrow span), the last
/// class of the row kernels: `spgemm_dense`.
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

/// Shared memory of `spgemm_dense` before its accumulator: four words
/// (three used), 33 `u64` slots of a block-wide scan, then the 33 words
/// where the warps' parts of a span begin (rounded up to 8 bytes).
pub const SPGEMM_DENSE_SHARED: u32 = 416;

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
/// Rows of A longer than [`SPGEMM_CLASSIFY_MAX`] are summed before classify:
/// `spgemm_long_rows` lists their chunks of [`SPGEMM_LONG_CHUNK`] entries
/// (`long_chunks`, `row − row_start` above, the chunk below; counted in
/// `long_count`), and `spgemm_long_products` adds each chunk's products to
/// `long_products[row − row_start]` and its span to `long_span` (two words
/// a row: the lowest column inverted, `!lo`, and the highest; zeroed by
/// `spgemm_long_rows`). Without long rows neither runs, and these three
/// are never read.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmClassifyArgs<'a> {
    pub a_row_ptr: DevPtr<'a, u32>,
    pub a_col_idx: DevPtr<'a, u32>,
    pub b_row_ptr: DevPtr<'a, u32>,
    pub b_col_idx: DevPtr<'a, u32>,
    pub class: DevPtrMut<'a, u8>,
    pub row_len: DevPtrMut<'a, u32>,
    /// [`SPGEMM_CLASSES`] counters (classify) or cursors (bin).
    pub counts: DevPtrMut<'a, u32>,
    /// Classify: total products; bin: the row list.
    pub products: DevPtrMut<'a, u64>,
    pub rows: DevPtrMut<'a, u32>,
    pub long_chunks: DevPtrMut<'a, u64>,
    pub long_count: DevPtrMut<'a, u32>,
    pub long_products: DevPtrMut<'a, u64>,
    pub long_span: DevPtrMut<'a, u32>,
    /// Classify, unless null: for each row, a bound on its length when it
    /// is `spgemm_short`'s, `spgemm_hash`'s or `spgemm_dense`'s (the fewer
    /// of its products and its span), else 0.
    pub stage_len: DevPtrMut<'a, u32>,
    /// A row is giant (class [`SPGEMM_CLASS_GIANT`]) with at least
    /// `giant_products` products and `giant_len` entries of A.
    pub giant_products: u64,
    pub row_start: u32,
    pub row_end: u32,
    pub giant_len: u32,
    /// Classify: 1 when a middle row of a narrow span goes to
    /// `spgemm_dense` ([`SPGEMM_DENSE_SPAN_PER_PRODUCT`]), which the host
    /// allows when B's whole width fits the kernel's shared bitmaps (no
    /// global scratch, sized by B's width, for such rows); else 0.
    pub dense_middle: u32,
    /// Bin: where each class's rows start in `rows`, and where the last
    /// ends.
    pub offsets: [u32; SPGEMM_CLASSES + 1],
    pub pad: u32,
}

/// Entries of A's row `spgemm_classify` sums in one warp. A longer row is
/// summed first by warps, a chunk of [`SPGEMM_LONG_CHUNK`] each: one warp
/// walking a row of a million entries would hold up the product.
pub const SPGEMM_CLASSIFY_MAX: u32 = 256;
/// Entries of A a warp of `spgemm_long_products` sums: 64 a lane, so
/// that a row of a million entries spreads over the whole device.
pub const SPGEMM_LONG_CHUNK: u32 = 2048;

/// The class of giant rows, after the seven of the row kernels: rows of C
/// computed a batch at a time column by column of Bᵀ (see
/// [`SpgemmGiantNumericArgs`]).
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
pub struct SpgemmTransposeArgs<'a> {
    pub b_row_ptr: DevPtr<'a, u32>,
    pub b_col_idx: DevPtr<'a, u32>,
    pub col_count: DevPtrMut<'a, u32>,
    /// `n_cols + 1` offsets of Bᵀ.
    pub col_ptr: DevPtr<'a, u64>,
    /// B's entries in column order, `nnz(B)` of them.
    pub keys: DevPtrMut<'a, u64>,
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
pub struct SpgemmGatherArgs<'a> {
    pub a_row_ptr: DevPtr<'a, u32>,
    pub a_col_idx: DevPtr<'a, u32>,
    pub rows: DevPtr<'a, u32>,
    pub x_mask: DevPtrMut<'a, u32>,
    pub x_pos: DevPtrMut<'a, u32>,
    pub n_batch: u32,
    pub clear: u32,
}

/// The symbolic phase of a batch of up to [`SPGEMM_GIANT_BATCH`] giant
/// rows of C, spread by `spgemm_giant_gather` into `x_mask`, against Bᵀ
/// (`bt_ptr`, `bt_keys` from [`SpgemmTransposeArgs`]):
/// `spgemm_giant_columns_symbolic` marks each column `j` of Bᵀ met by a
/// row of the batch (`out_mask[j]`, bit `r`: row `r` has column `j`),
/// `spgemm_giant_rows_symbolic` counts each row to `row_len[row]`. No
/// value is read.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmGiantSymbolicArgs<'a, T> {
    pub bt_ptr: DevPtr<'a, u64>,
    pub bt_keys: DevPtr<'a, u64>,
    pub x_mask: DevPtr<'a, u32>,
    /// The batch's rows, `n_batch` of them.
    pub rows: DevPtr<'a, u32>,
    pub out_mask: DevPtrMut<'a, u32>,
    pub row_len: DevPtrMut<'a, u32>,
    /// B's columns.
    pub n_cols: u32,
    pub pad: u32,
    /// The values' type (no value is read).
    pub values: PhantomData<fn() -> T>,
}

/// The numeric phase of a batch of giant rows (see
/// [`SpgemmGiantSymbolicArgs`]): `spgemm_giant_columns_numeric` folds each
/// column `j` of Bᵀ in row order — the serial order of column `j` of
/// every row of the batch — writing `out_mask[j]` and `out_values[32·j +
/// r]`; `spgemm_giant_rows_numeric` writes each row in column order at
/// `c_row_ptr[row] − c_base` in `c_col_idx` / `c_values`.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmGiantNumericArgs<'a, T> {
    pub a_values: DevPtr<'a, T>,
    pub b_values: DevPtr<'a, T>,
    pub bt_ptr: DevPtr<'a, u64>,
    pub bt_keys: DevPtr<'a, u64>,
    pub x_mask: DevPtr<'a, u32>,
    pub x_pos: DevPtr<'a, u32>,
    /// The batch's rows, `n_batch` of them.
    pub rows: DevPtr<'a, u32>,
    pub out_mask: DevPtrMut<'a, u32>,
    pub out_values: DevPtrMut<'a, T>,
    pub c_row_ptr: DevPtr<'a, u64>,
    pub c_col_idx: DevPtrMut<'a, u32>,
    pub c_values: DevPtrMut<'a, T>,
    pub c_base: u64,
    /// B's columns.
    pub n_cols: u32,
    pub pad: u32,
}

/// An exclusive prefix sum of `n` `u32` values into `n + 1` `u64` offsets,
/// in three launches: `scan_tiles` (a block per tile of
/// [`SCAN_TILE`] values: offsets within the tile and the tile's sum),
/// `scan_tile_sums` (one block: the tiles' sums scanned in place, the total
/// written to `output[n]`), `scan_add` (each offset plus its tile's start).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ScanArgs<'a> {
    pub input: DevPtr<'a, u32>,
    pub output: DevPtrMut<'a, u64>,
    pub tile_sums: DevPtrMut<'a, u64>,
    pub n: u32,
    pub n_tiles: u32,
}

/// Values a block of `scan_tiles` (256 threads, 8 values a thread) scans.
pub const SCAN_TILE: u32 = 2048;
/// Threads of a block of the scan kernels.
pub const SCAN_THREADS: u32 = 256;

impl Clone for SpgemmClassifyArgs<'_> {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for SpgemmClassifyArgs<'_> {}
utility_kernel_args! {
    SpgemmClassifyArgs = 176;
    SpgemmTransposeArgs = 56;
    SpgemmGatherArgs = 48;
    ScanArgs = 32;
}
