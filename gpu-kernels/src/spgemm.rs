//! SpGEMM kernel bodies, `C = A ⊗ B` over a semiring with A, B and C in
//! CSR; [`crate::kernels`] stamps the row kernels per semiring, and the
//! classification, binning and scan kernels are utility entry points.
//!
//! The host runs two phases over the same row kernels: *symbolic* (the
//! exact length of every row of C), a prefix sum of the lengths (C's row
//! offsets), then *numeric* (the entries). Rows are classed by their
//! product count, Σ over A(i,k) of |B(k,:)|, and the span of their
//! columns (lowest to highest column of the B rows they meet):
//!
//! | family         | rows                                         | one … per row | how                                  |
//! |----------------|----------------------------------------------|---------------|--------------------------------------|
//! | `spgemm_copy`  | ≤ 1 entry of A, or no products               | warp          | a scaled copy of B's row             |
//! | `spgemm_warp`  | ≤ `SPGEMM_WARP_MAX` (32) products            | warp          | symbolic: distinct columns by `match.any`; numeric: sort the products in registers |
//! | `spgemm_short` | ≤ 32 entries of A, ≤ `SPGEMM_SHORT_MAX` (128) products, a span wider than the table | warp | sort the products in registers, 2 or 4 a lane |
//! | `spgemm_hash`  | fit a table of `SPGEMM_HASH_SLOTS` (512)     | warp          | a table in the warp's shared memory  |
//! | `spgemm_hash`, wide | ≤ `SPGEMM_BLOCK_MAX` (1024) products, a span ≤ `SPGEMM_WIDE_SLOTS` (2048) | warp | a table indexed by column, fewer warps a block |
//! | `spgemm_block` | ≤ `SPGEMM_BLOCK_MAX` (1024) products         | block         | sort the products in shared memory   |
//! | `spgemm_dense` | more                                         | block         | a bitmap of the span, values by rank |
//! | giant (`crate::spgemm_long`) | ≥ `giant_len` entries of A and a share of B's entries in products | lane, 32 rows a batch | column by column of Bᵀ |
//!
//! Every kernel sums each entry of C in the serial engine's order, so the
//! result has the serial bits for every semiring, plus-times included, on
//! every run, with no atomics on values.
//!
//! **Sorting (ESC).** The sort kernels gather a row's products with the
//! key `(column, product number)` — products numbered in A's order, then
//! B's — and sort the keys (bitonic). Equal columns are then adjacent and
//! in the serial order, and each column's first product sums its run. A
//! sort costs `log² products` steps, cheap for the up to 128 keys a warp
//! sorts in its registers by shuffles, and for the middle rows a block
//! holds; in a warp's shared memory it loses to the table.
//!
//! **Sorting in registers.** A row of at most 32 entries of A and 128
//! products (`register_row`) needs no shared memory: each lane computes
//! up to four products, the warp sorts their keys by shuffles (4-byte keys,
//! the product number in the low bits, when the row's columns leave room,
//! else 8-byte), and each column's first key sums its run from the lanes
//! holding the next ones.
//! It takes every row of up to 32 products (`spgemm_warp`) and the short
//! rows whose span no table indexed by column holds (`spgemm_short`):
//! random short rows, with few repeated columns, where clearing, probing
//! and gathering a table cost more than the sort, and where a table's
//! shared memory would bound the warps at once. A row with many repeated
//! columns pays for sorting its repeats (a 7-point stencil squared, 49
//! products on 25 columns, still gains: no table, more warps at once).
//!
//! **A warp's table.** A row that fits the table (its span, or twice its
//! products: `args::spgemm_hash_fits`) is one warp's. The warp walks the
//! row's products in the serial order, 32 at a time (A's entries scanned,
//! each lane finding its entry by a search over the warp's counts, so
//! short rows of B pack a batch as densely as long ones). Lanes holding
//! the same column find each other (`match.any`); the first of them
//! inserts the column — at `column − lowest` when the span fits, else by a
//! multiplicative hash with linear probing — and adds its own and the
//! others' products in lane order. A direct table is read out in column
//! order; a hashed one (the least power of two of slots that holds twice
//! the row's products, or its columns once they are known) is gathered
//! and sorted: up to 64 columns in registers (each key with its place in
//! the table), more by a bitonic network in the table. The wide class's
//! rows (up to 1024 products in a span of up to 2048 columns) go through
//! the same kernel with tables of 2048 slots, always indexed directly:
//! a warp a row, where a block sorting the row waits on many barriers.
//!
//! **Staging.** When a product has many short, hashed or long rows, walking
//! each row's products twice (symbolic, then numeric) is most of its time.
//! The host then has classify bound each row's length, lays out a staging
//! area by those bounds, and runs the class's numeric phase in the
//! symbolic one ([`crate::args::SPGEMM_STAGE`]: the entries into the
//! staging area, the lengths to `row_len`); the numeric phase copies the
//! rows to C ([`crate::args::SPGEMM_UNSTAGE`]).
//!
//! **Long rows.** `spgemm_dense` gives a block a row, and each of its 8
//! warps a part of the row's span (whole words of 32 columns), which it
//! alone touches: it walks the row's products in the serial order as the
//! table does, keeping those in its columns (found by two searches side by
//! side in each row of B), with the loads of four steps of 32 products in
//! flight at once, and sets a bit for each column met. When a value for every
//! column of the span fits shared memory, that walk also sums them there,
//! and the bitmap read out gives the row in column order. A wider span
//! (R-MAT's long rows meet most of B's columns, a few percent of them
//! each) would need a value for every column in global memory, scattered
//! and slow; instead its first walk only sets bits, a block-wide scan of
//! the words' counts gives each column's rank among the row's, and a
//! second walk sums each value at its rank, a second bitmap marking the
//! entries begun. The bitmaps take 4 bytes every 32 columns, so B's whole
//! width fits shared memory up to hundreds of thousands of columns.
//!
//! **Replaying a plan.** A plan (the host's `SpgemmPlan`) that has listed
//! each entry's products in the serial order recomputes C's values with
//! `spgemm_replay_4` or `_8`: the lists lie end to end in tiles, a warp's,
//! 4 or 8 products a lane; each lane folds the lists that begin among its
//! products, and a list that runs on from the lanes before waits for
//! their sum, passed by shuffles. No row is walked, searched or sorted again,
//! and every lane computes its products at once however the lists'
//! lengths vary (a thread an entry idled most lanes of a warp, on lists
//! of unequal lengths).

use core::cell::Cell;

use crate::args::{
    REPLAY_LONG_BLOCK, REPLAY_LONG_TILE, REPLAY_NARROW_LANE, REPLAY_RUNS_ON, REPLAY_WIDE_LANE,
    REPLAY_WIDE_TILE, SCAN_TILE, SPGEMM_BLOCK_MAX, SPGEMM_CLASS_BLOCK, SPGEMM_CLASS_COPY,
    SPGEMM_CLASS_DENSE, SPGEMM_CLASS_GIANT, SPGEMM_CLASS_HASH, SPGEMM_CLASS_SHORT,
    SPGEMM_CLASS_WARP, SPGEMM_CLASS_WIDE, SPGEMM_CLASSES, SPGEMM_DENSE_SHARED, SPGEMM_HASH_SLOTS,
    SPGEMM_LANE_MAX, SPGEMM_NUMERIC, SPGEMM_SHORT_MAX, SPGEMM_STAGE, SPGEMM_SYMBOLIC,
    SPGEMM_UNSTAGE, SPGEMM_WARP_MAX, SPGEMM_WIDE_SLOTS, ScanArgs, SpgemmClassifyArgs,
    SpgemmReplayArgs, SpgemmRowsArgs, replay_before, replay_bounds, replay_entry, replay_real,
    spgemm_dense_arrays, spgemm_hash_fits,
};
use crate::device::atomic::{
    atomic_add_u32, atomic_add_u64, atomic_cas_shared_u32, atomic_max_u32, atomic_min_u32,
    atomic_or_u32,
};
use crate::device::memory::{load_readonly, load_streaming};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, global_warp_id, grid_dim_x, grid_size_1d, grid_warps,
    grid_warps_reread, index_1d, lane_id, require, sync_threads, thread_idx_x, warp_id,
};
use crate::device::warp::{self, FULL_MASK, Shuffle, lane_mask_gt, lane_mask_lt};
use crate::semiring::Semiring;

/// Key of a product: its column above, its number (A's order, then B's)
/// below; sorting keys orders a row's products by column, ties in order.
#[inline(always)]
fn key(col: u32, product: u32) -> u64 {
    (u64::from(col) << 32) | u64::from(product)
}

#[inline(always)]
fn key_col(k: u64) -> u32 {
    (k >> 32) as u32
}

/// The warp's inclusive prefix sum of `v` (`u32` or `u64`).
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub(crate) unsafe fn warp_inclusive_scan<T: Shuffle + core::ops::AddAssign>(mut v: T) -> T {
    let lane = lane_id();
    let mut d = 1;
    while d < WARP_SIZE {
        // SAFETY: the caller's contract.
        let t = unsafe { warp::shuffle_up(v, d) };
        if lane >= d {
            v += t;
        }
        d *= 2;
    }
    v
}

/// The block's exclusive prefix sum of `v` and the block's total, through
/// `warp_sums` (a shared word per warp, 32 at most).
///
/// # Safety
/// Every thread of the block must make this call together; block size a
/// multiple of 32.
#[inline(always)]
pub(crate) unsafe fn block_exclusive_scan(v: u64, warp_sums: *mut u64) -> (u64, u64) {
    let (lane, wid, warps) = (lane_id(), warp_id(), block_dim_x() / WARP_SIZE);
    // SAFETY: the caller's contract; `warp_sums` has a slot per warp.
    unsafe {
        let incl = warp_inclusive_scan(v);
        if lane == WARP_SIZE - 1 {
            *warp_sums.add(wid as usize) = incl;
        }
        sync_threads();
        if wid == 0 {
            let t = if lane < warps {
                *warp_sums.add(lane as usize)
            } else {
                0
            };
            let s = warp_inclusive_scan(t);
            if lane < warps {
                *warp_sums.add(lane as usize) = s - t;
            }
            if lane == WARP_SIZE - 1 {
                *warp_sums.add(WARP_SIZE as usize) = s;
            }
        }
        sync_threads();
        let before = *warp_sums.add(wid as usize);
        let total = *warp_sums.add(WARP_SIZE as usize);
        sync_threads();
        (before + incl - v, total)
    }
}

// ---------------------------------------------------------------------------
// Classification, binning and the prefix sum (utility kernels).
// ---------------------------------------------------------------------------

/// A's row `i` (the `r`-th of the range): its length, its product count
/// and the span of its products' columns (0 when it has none). A row
/// longer than [`SPGEMM_LANE_MAX`] was summed by `spgemm_long_products`.
///
/// # Safety
/// `i` is a row of A; A and B valid with `col_idx < B's rows`; the long
/// rows summed.
#[inline(always)]
unsafe fn row_products(a: &SpgemmClassifyArgs, i: u32, r: u32) -> (u32, u64, u64) {
    // SAFETY: the caller's contract.
    unsafe {
        let (ap, ac, bp, bc) = (
            a.a_row_ptr.as_ptr(),
            a.a_col_idx.as_ptr(),
            a.b_row_ptr.as_ptr(),
            a.b_col_idx.as_ptr(),
        );
        let (s, e) = (*ap.add(i as usize), *ap.add(i as usize + 1));
        let (products, lo, hi) = if e - s > SPGEMM_LANE_MAX {
            let span = a.long_span.as_mut_ptr().add(2 * r as usize);
            (
                *a.long_products.as_mut_ptr().add(r as usize),
                !*span,
                *span.add(1),
            )
        } else {
            let mut products = 0u64;
            let (mut lo, mut hi) = (u32::MAX, 0u32);
            for q in s..e {
                let k = *ac.add(q as usize) as usize;
                let (bs, be) = (*bp.add(k), *bp.add(k + 1));
                if be > bs {
                    products += u64::from(be - bs);
                    lo = lo.min(*bc.add(bs as usize));
                    hi = hi.max(*bc.add(be as usize - 1));
                }
            }
            (products, lo, hi)
        };
        let span = if products == 0 {
            0
        } else {
            u64::from(hi - lo) + 1
        };
        (e - s, products, span)
    }
}

/// The class of a row with `len_a` entries, `products` products and a
/// span of `span` columns (see `args::SPGEMM_CLASSES`; a sorting group
/// holds both the products and A's entries, so the larger decides).
#[inline(always)]
fn class_of(a: &SpgemmClassifyArgs, len_a: u32, products: u64, span: u64) -> u32 {
    let size = products.max(u64::from(len_a));
    let class = if len_a <= 1 || products == 0 {
        SPGEMM_CLASS_COPY
    } else if len_a >= a.giant_len && products >= a.giant_products {
        SPGEMM_CLASS_GIANT
    } else if size <= u64::from(SPGEMM_WARP_MAX) {
        SPGEMM_CLASS_WARP
    } else if len_a <= SPGEMM_WARP_MAX
        && products <= u64::from(SPGEMM_SHORT_MAX)
        && span > u64::from(SPGEMM_HASH_SLOTS)
    {
        SPGEMM_CLASS_SHORT
    } else if spgemm_hash_fits(SPGEMM_HASH_SLOTS, products, span) {
        SPGEMM_CLASS_HASH
    } else if size <= u64::from(SPGEMM_BLOCK_MAX) {
        if span <= u64::from(SPGEMM_WIDE_SLOTS) {
            SPGEMM_CLASS_WIDE
        } else {
            SPGEMM_CLASS_BLOCK
        }
    } else {
        SPGEMM_CLASS_DENSE
    };
    class as u32
}

/// Classifies rows `row_start..row_end` ([`SpgemmClassifyArgs`]). Counts
/// are added a warp at a time (one atomic per class a warp, not a row).
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// A and B valid CSR on the device, A's columns < B's rows; `class` holds
/// `row_end − row_start` bytes, `row_len` A's rows, `counts` zeroed
/// counters, `products` one zeroed `u64`; `spgemm_long_products` run.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_classify(a: SpgemmClassifyArgs) {
    let lane = lane_id();
    let n = a.row_end - a.row_start;
    let mut base = global_warp_id() * WARP_SIZE;
    while base < n {
        let r = base + lane;
        let (class, products) = if r < n {
            let i = a.row_start + r;
            // SAFETY: `i` is a row of A, the long rows summed.
            let (len_a, products, span) = unsafe { row_products(&a, i, r) };
            let class = class_of(&a, len_a, products, span);
            // SAFETY: in bounds by the launch contract.
            unsafe {
                *a.class.as_mut_ptr().add(r as usize) = class as u8;
                if a.stage_len.addr() != 0 {
                    // The staged classes: short, hashed and long rows.
                    let staged = [SPGEMM_CLASS_SHORT, SPGEMM_CLASS_HASH, SPGEMM_CLASS_DENSE];
                    let bound = if staged.map(|c| c as u32).contains(&class) {
                        products.min(span)
                    } else {
                        0
                    };
                    *a.stage_len.as_mut_ptr().add(i as usize) = bound as u32;
                }
                if class == SPGEMM_CLASS_COPY as u32 {
                    // A copied row's products are distinct columns (fewer
                    // than B's columns, so they fit a u32).
                    *a.row_len.as_mut_ptr().add(i as usize) = products as u32;
                }
            }
            (class, products)
        } else {
            (u32::MAX, 0)
        };
        // SAFETY: the loop is warp-uniform (`base` is the warp's).
        unsafe {
            for c in 0..SPGEMM_CLASSES as u32 {
                let votes = warp::ballot(class == c);
                if lane == 0 && votes != 0 {
                    atomic_add_u32(a.counts.as_mut_ptr().add(c as usize), votes.count_ones());
                }
            }
            let total = warp_inclusive_scan(products);
            if lane == WARP_SIZE - 1 && total != 0 {
                atomic_add_u64(a.products.as_mut_ptr(), total);
            }
        }
        base += grid_warps() * WARP_SIZE;
    }
}

/// Lists rows `row_start..row_end` by class ([`SpgemmClassifyArgs`]): a
/// warp claims room for its rows of a class with one atomic.
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// `class` as [`spgemm_classify`] wrote it; `counts` four zeroed cursors;
/// `rows` room for every row at `offsets` from the classify counts.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_bin(a: SpgemmClassifyArgs) {
    let lane = lane_id();
    let n = a.row_end - a.row_start;
    let mut base = global_warp_id() * WARP_SIZE;
    while base < n {
        let r = base + lane;
        let class = if r < n {
            // SAFETY: in bounds by the launch contract.
            u32::from(unsafe { *a.class.as_mut_ptr().add(r as usize) })
        } else {
            u32::MAX
        };
        // SAFETY: warp-uniform loop; indices in bounds by the contract.
        unsafe {
            for c in 0..SPGEMM_CLASSES as u32 {
                let votes = warp::ballot(class == c);
                if votes == 0 {
                    continue;
                }
                let leader = votes.trailing_zeros();
                let mut start = 0;
                if lane == leader {
                    start =
                        atomic_add_u32(a.counts.as_mut_ptr().add(c as usize), votes.count_ones());
                }
                start = warp::shuffle_idx(start, leader);
                if class == c {
                    let at = a.offsets[c as usize] + start + (votes & lane_mask_lt()).count_ones();
                    *a.rows.as_mut_ptr().add(at as usize) = a.row_start + r;
                }
            }
        }
        base += grid_warps() * WARP_SIZE;
    }
}

/// Scans each tile of [`SCAN_TILE`] values ([`ScanArgs`]): offsets within
/// the tile to `output`, the tile's sum to `tile_sums`.
///
/// Launch: one block of [`crate::args::SCAN_THREADS`] threads a tile,
/// `8 · 33` bytes of dynamic shared memory.
///
/// # Safety
/// `input` holds `n` values, `output` `n + 1`, `tile_sums` `n_tiles`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scan_tiles(a: ScanArgs) {
    const PER: u32 = 8;
    require(block_dim_x() * PER == SCAN_TILE);
    let tile = block_idx_x();
    let first = tile * SCAN_TILE + thread_idx_x() * PER;
    let mut vals = [0u32; PER as usize];
    let mut sum = 0u64;
    for (t, v) in vals.iter_mut().enumerate() {
        let i = first + t as u32;
        if i < a.n {
            // SAFETY: `i < n`.
            *v = unsafe { *a.input.as_ptr().add(i as usize) };
            sum += u64::from(*v);
        }
    }
    // SAFETY: every thread calls; shared memory as the launch gives.
    let (before, total) = unsafe { block_exclusive_scan(sum, shared::dynamic::<u64>()) };
    let mut run = before;
    for (t, v) in vals.iter().enumerate() {
        let i = first + t as u32;
        if i < a.n {
            // SAFETY: `i < n`.
            unsafe { *a.output.as_mut_ptr().add(i as usize) = run };
            run += u64::from(*v);
        }
    }
    if thread_idx_x() == 0 {
        // SAFETY: `tile < n_tiles`.
        unsafe { *a.tile_sums.as_mut_ptr().add(tile as usize) = total };
    }
}

/// Scans the tiles' sums in place (exclusive) and writes the grand total to
/// `output[n]` ([`ScanArgs`]).
///
/// Launch: one block of [`crate::args::SCAN_THREADS`] threads, `8·33`
/// bytes of dynamic shared memory.
///
/// # Safety
/// As [`scan_tiles`], after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scan_tile_sums(a: ScanArgs) {
    let sums = a.tile_sums.as_mut_ptr();
    let mut carry = 0u64;
    let mut base = 0;
    while base < a.n_tiles {
        let i = base + thread_idx_x();
        // SAFETY: `i < n_tiles` where read; every thread calls the scan.
        unsafe {
            let v = if i < a.n_tiles {
                *sums.add(i as usize)
            } else {
                0
            };
            let (before, total) = block_exclusive_scan(v, shared::dynamic::<u64>());
            if i < a.n_tiles {
                *sums.add(i as usize) = carry + before;
            }
            carry += total;
        }
        base += block_dim_x();
    }
    if thread_idx_x() == 0 {
        // SAFETY: `output` holds `n + 1` values.
        unsafe { *a.output.as_mut_ptr().add(a.n as usize) = carry };
    }
}

/// Adds each tile's start to its offsets ([`ScanArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// As [`scan_tiles`], after [`scan_tile_sums`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scan_add(a: ScanArgs) {
    let mut i = index_1d();
    while i < a.n {
        // SAFETY: `i < n`, its tile `< n_tiles`.
        unsafe {
            *a.output.as_mut_ptr().add(i as usize) +=
                *a.tile_sums.as_mut_ptr().add((i / SCAN_TILE) as usize);
        }
        i = i.saturating_add(grid_size_1d());
    }
}

// ---------------------------------------------------------------------------
// Row kernels.
// ---------------------------------------------------------------------------

/// A's row `row`: its first entry and length.
///
/// # Safety
/// `row` is a row of A.
#[inline(always)]
unsafe fn a_row<T>(a: &SpgemmRowsArgs<T>, row: u32) -> (u32, u32) {
    // SAFETY: the caller's contract.
    unsafe {
        let p = a.a_row_ptr.as_ptr().add(row as usize);
        (*p, *p.add(1) - *p)
    }
}

/// Where row `row` of C starts in `c_col_idx` / `c_values`.
///
/// # Safety
/// Numeric phase, `row` a row of C.
#[inline(always)]
unsafe fn c_start<T>(a: &SpgemmRowsArgs<T>, row: u32) -> usize {
    // SAFETY: the caller's contract.
    (unsafe { *a.c_row_ptr.as_ptr().add(row as usize) } - a.c_base) as usize
}

/// Rows with at most one entry of A (or no products): C's row is B's row
/// scaled, in B's order. Numeric phase only (classify wrote the lengths).
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the numeric phase.
#[inline(always)]
pub unsafe fn spgemm_copy<S: Semiring>(a: SpgemmRowsArgs<S::Value>) {
    let lane = lane_id();
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: rows, A, B and C valid by the contract.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            let (start, len_a) = a_row(&a, row);
            if len_a == 1 {
                let k = *a.a_col_idx.as_ptr().add(start as usize) as usize;
                let x = *a.a_values.as_ptr().add(start as usize);
                let bp = a.b_row_ptr.as_ptr();
                let (s, e) = (*bp.add(k), *bp.add(k + 1));
                let out = c_start(&a, row);
                let mut q = s + lane;
                while q < e {
                    let at = out + (q - s) as usize;
                    *a.c_col_idx.as_mut_ptr().add(at) = *a.b_col_idx.as_ptr().add(q as usize);
                    *a.c_values.as_mut_ptr().add(at) =
                        S::mul(x, *a.b_values.as_ptr().add(q as usize));
                    q += WARP_SIZE;
                }
            }
        }
        w += grid_warps();
    }
}

/// A key slot no column takes.
const EMPTY: u32 = u32::MAX;

/// Walks the products of A's row (`len_a` entries from `start`) in the
/// serial engine's order, keeping of each B row only its columns in
/// `cols` (all: `0..u32::MAX`). A's entries are taken 32 at a time, a lane
/// each; their products are then visited in one of two ways:
///
/// - *packed*, when B's rows are short: 32 products at a time, each lane
///   finding its entry by a search over the warp's running counts, so
///   that short rows fill a batch; `batch(col, value)` is called by the
///   whole warp for each batch, with [`EMPTY`] in the lanes past the end,
///   and must put products of one column in lane order itself;
/// - *by entry*, when `by_entry` is given and the 32 rows hold at least
///   [`BY_ENTRY_MEAN`] products each on average: one entry after another,
///   lanes on consecutive columns of its row (distinct, so no two lanes
///   meet), `by_entry(col, value)` per lane and product, the warp's
///   barrier between entries; it costs no search and no matching. The
///   loads of `IN_FLIGHT` steps of 32 products go out before the first
///   of them is summed.
///
/// `value` is the product's when `numeric`, else zero (no value is read).
///
/// # Safety
/// The whole warp calls with the same arguments; `start + len_a` within A.
#[inline(always)]
unsafe fn walk_products<S: Semiring, const IN_FLIGHT: usize>(
    a: &SpgemmRowsArgs<S::Value>,
    numeric: bool,
    (start, len_a): (u32, u32),
    cols: (u32, u32),
    mut batch: impl FnMut(u32, S::Value),
    mut by_entry: Option<impl FnMut(u32, S::Value)>,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let whole = cols == (0, u32::MAX);
    // SAFETY: indices within A and B by the contract; shuffles reached by
    // the whole warp (loop bounds are warp-uniform).
    unsafe {
        let (ac, bp, bc, bv) = (
            a.a_col_idx.as_ptr().add(start as usize),
            a.b_row_ptr.as_ptr(),
            a.b_col_idx.as_ptr(),
            a.b_values.as_ptr(),
        );
        let mut j0 = 0;
        while j0 < len_a {
            let j = j0 + lane;
            let (mut s, mut n, mut x) = (0u32, 0u32, S::zero());
            if j < len_a {
                let k = *ac.add(j as usize) as usize;
                let (mut bs, mut be) = (*bp.add(k), *bp.add(k + 1));
                if !whole {
                    (bs, be) = lower_bounds(bc, bs, be, cols);
                }
                s = bs;
                n = be - bs;
                if numeric {
                    x = *a.a_values.as_ptr().add((start + j) as usize);
                }
            }
            let incl = warp_inclusive_scan(n);
            let total = warp::shuffle_idx(incl, WARP_SIZE - 1);
            let mut ready = warp::ballot(n > 0);
            if let Some(f) = by_entry.as_mut()
                && total >= BY_ENTRY_MEAN * ready.count_ones()
            {
                if IN_FLIGHT == 1 {
                    // One entry at a time, each lane on every 32nd of its
                    // products, each load awaited before its product is
                    // summed.
                    while ready != 0 {
                        let t = ready.trailing_zeros();
                        ready &= ready - 1;
                        let (st, et) = (warp::shuffle_idx(s, t), warp::shuffle_idx(s + n, t));
                        let xt = warp::shuffle_idx(x, t);
                        let mut q = st + lane;
                        while q < et {
                            let v = if numeric {
                                S::mul(xt, *bv.add(q as usize))
                            } else {
                                S::zero()
                            };
                            f(*bc.add(q as usize), v);
                            q += WARP_SIZE;
                        }
                        warp::sync_warp(FULL_MASK);
                    }
                    j0 += WARP_SIZE;
                    continue;
                }
                // Steps of up to 32 products, an entry's row of B a warp's
                // width at a time, in the serial order. The loads of
                // `IN_FLIGHT` steps go out before the first is summed, so
                // a long row waits one load latency per `IN_FLIGHT` steps.
                // The warp's barrier follows each entry's last step (bit
                // `u` of `ends`), before another entry may meet its columns.
                let (mut q, mut left, mut xt) = (0u32, 0u32, S::zero());
                while left > 0 || ready != 0 {
                    let mut col = [EMPTY; IN_FLIGHT];
                    let mut b = [S::zero(); IN_FLIGHT];
                    let mut xs = [S::zero(); IN_FLIGHT];
                    let mut ends = 0u32;
                    for u in 0..IN_FLIGHT {
                        if left == 0 && ready != 0 {
                            let t = ready.trailing_zeros();
                            ready &= ready - 1;
                            q = warp::shuffle_idx(s, t);
                            left = warp::shuffle_idx(n, t);
                            xt = warp::shuffle_idx(x, t);
                        }
                        if left > lane {
                            col[u] = *bc.add((q + lane) as usize);
                            if numeric {
                                b[u] = *bv.add((q + lane) as usize);
                            }
                        }
                        xs[u] = xt;
                        if left > WARP_SIZE {
                            (q, left) = (q + WARP_SIZE, left - WARP_SIZE);
                        } else {
                            ends |= u32::from(left > 0) << u;
                            left = 0;
                        }
                    }
                    for u in 0..IN_FLIGHT {
                        if col[u] != EMPTY {
                            f(
                                col[u],
                                if numeric {
                                    S::mul(xs[u], b[u])
                                } else {
                                    S::zero()
                                },
                            );
                        }
                        if ends & (1 << u) != 0 {
                            warp::sync_warp(FULL_MASK);
                        }
                    }
                }
                j0 += WARP_SIZE;
                continue;
            }
            let mut p0 = 0;
            while p0 < total {
                let p = p0 + lane;
                let l = entry_of(incl, p);
                let (sl, nl, il) = (
                    warp::shuffle_idx(s, l),
                    warp::shuffle_idx(n, l),
                    warp::shuffle_idx(incl, l),
                );
                let xl = warp::shuffle_idx(x, l);
                let (mut col, mut v) = (EMPTY, S::zero());
                if p < total {
                    let q = (sl + nl + p - il) as usize;
                    col = *bc.add(q);
                    if numeric {
                        v = S::mul(xl, *bv.add(q));
                    }
                }
                batch(col, v);
                p0 += WARP_SIZE;
            }
            j0 += WARP_SIZE;
        }
    }
}

/// The lane whose entry holds product `p` (below the warp's total), given
/// each lane's running count of products `incl`: the first lane whose
/// count passes `p`, found in five halving steps.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
unsafe fn entry_of(incl: u32, p: u32) -> u32 {
    let mut l = 0u32;
    let mut step = WARP_SIZE / 2;
    while step > 0 {
        // SAFETY: the caller's contract.
        if unsafe { warp::shuffle_idx(incl, l + step - 1) } <= p {
            l += step;
        }
        step /= 2;
    }
    l
}

/// Steps of a walk by entry whose loads `spgemm_hash` issues together:
/// one, since its rows of B are short (a band's take two steps an entry)
/// and batching their steps costs more than the latency it would hide
/// (four cost bands 12–19%; `spgemm_dense` keeps them).
const HASH_WALK_IN_FLIGHT: usize = 1;

/// Steps of a walk by entry whose loads `spgemm_dense` issues together: a
/// long row's warp walks thousands of steps, each waiting on its loads of
/// B when taken alone; four in flight hide most of that for 8 registers
/// (16 in `f64`), within the 64 that keep four blocks an SM. Tried
/// `prefetch.global.L1` before the walk: 0.94×, as the kernel's shared
/// memory leaves little L1 for the lines.
const DENSE_WALK_IN_FLIGHT: usize = 4;

/// Products a row of B must hold on average (within the walk's columns)
/// for [`walk_products`] to go entry by entry: there a lane costs a shuffle
/// and a store a product, where packing costs a search, a match and the
/// summing of peers a batch, which pays only when rows leave most lanes
/// of an entry idle.
const BY_ENTRY_MEAN: u32 = 8;

/// Adds one batch of products to an accumulator, in lane order: lanes with
/// the same column find each other (`match.any`), and the first of them
/// claims the column's slot with `claim(col) → (slot, fresh)` and sums its
/// own product and the others', in lane order, onto the slot's value (the
/// product alone when the slot is fresh). Returns 1 in each lane that
/// claimed a fresh slot. Ends with the warp's barrier.
///
/// # Safety
/// The whole warp calls; `claim` gives distinct columns distinct slots of
/// `vals`, which the warp alone writes meanwhile.
#[inline(always)]
unsafe fn accumulate<S: Semiring>(
    col: u32,
    v: S::Value,
    numeric: bool,
    vals: *mut S::Value,
    mut claim: impl FnMut(u32) -> (u32, bool),
) -> u32
where
    S::Value: Shuffle,
{
    let lane = lane_id();
    // SAFETY: the caller's contract.
    unsafe {
        let peers = warp::match_any(col);
        let leader = col != EMPTY && peers & lane_mask_lt() == 0;
        let (slot, fresh) = if leader { claim(col) } else { (0, false) };
        if numeric {
            let mut sum = if leader && !fresh {
                S::add(*vals.add(slot as usize), v)
            } else {
                v
            };
            let mut rest = if leader { peers & lane_mask_gt() } else { 0 };
            while warp::any(rest != 0) {
                let from = if rest != 0 {
                    rest.trailing_zeros()
                } else {
                    lane
                };
                let other = warp::shuffle_idx(v, from);
                if rest != 0 {
                    sum = S::add(sum, other);
                    rest &= rest - 1;
                }
            }
            if leader {
                *vals.add(slot as usize) = sum;
            }
        }
        warp::sync_warp(FULL_MASK);
        u32::from(fresh)
    }
}

/// Rows that fit a warp's table of `table_slots` ([`crate::args::spgemm_hash_fits`]),
/// a warp each (symbolic or numeric, [`SpgemmRowsArgs`]): see the module
/// documentation.
///
/// Tried a branch here for short rows of wide span: registers 40 → 53
/// (hence `spgemm_short`); and the wide table for every hashed row of up
/// to 1024 products: it lost to `spgemm_block`'s sort (0.69–0.82×).
///
/// Launch: 1D, block size a multiple of 32, any grid, dynamic shared memory
/// `warps a block · spgemm_hash_table_bytes(table_slots, size)`.
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the phase; the listed rows have ≥ 2
/// entries of A and fit the table.
#[inline(always)]
pub unsafe fn spgemm_hash<S: Semiring>(a: SpgemmRowsArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    if a.numeric == SPGEMM_UNSTAGE {
        // SAFETY: the contract.
        unsafe { unstage(&a) };
        return;
    }
    let slots = a.table_slots;
    let bytes = crate::args::spgemm_hash_table_bytes(slots, size_of::<S::Value>() as u32);
    // SAFETY: the launch gives each warp `bytes`: its columns, then values.
    let (keys, vals) = unsafe {
        let base = shared::dynamic::<u8>().add((warp_id() * bytes) as usize);
        (
            base.cast::<u32>(),
            base.add(4 * slots as usize).cast::<S::Value>(),
        )
    };
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract; `w` is warp-uniform.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            hash_row::<S>(&a, row, keys, vals);
        }
        w += grid_warps();
    }
}

/// Where staged row `b` of the list lies: `(from, to, len)`, its offset in
/// the staging area, its offset in C and its length.
///
/// # Safety
/// `b` within the list; the rows staged ([`SPGEMM_STAGE`]) and C's offsets
/// computed from the lengths staging wrote.
#[inline(always)]
unsafe fn staged_row<T>(a: &SpgemmRowsArgs<T>, b: u32) -> (usize, usize, usize) {
    // SAFETY: the contract.
    unsafe {
        let row = *a.rows.as_ptr().add(b as usize) as usize;
        let p = a.c_row_ptr.as_ptr().add(row);
        (
            *a.stage_ptr.as_ptr().add(row) as usize,
            (*p - a.c_base) as usize,
            (*p.add(1) - *p) as usize,
        )
    }
}

/// Copies a staged row `(from, to, len)` to C, the thread's entries
/// `first`, `first + step`, ….
///
/// # Safety
/// As [`staged_row`], which gave the row.
#[inline(always)]
unsafe fn copy_staged<T: Copy>(
    a: &SpgemmRowsArgs<T>,
    (from, to, len): (usize, usize, usize),
    first: usize,
    step: usize,
) {
    let mut e = first;
    while e < len {
        // SAFETY: within the staged row and C's row by the contract.
        unsafe {
            *a.c_col_idx.as_mut_ptr().add(to + e) = *a.stage_col_idx.as_ptr().add(from + e);
            *a.c_values.as_mut_ptr().add(to + e) = *a.stage_values.as_ptr().add(from + e);
        }
        e += step;
    }
}

/// Copies each listed row from the staging area to C ([`SPGEMM_UNSTAGE`]):
/// a warp takes 32 rows, each lane looking up one row's places at once,
/// then copies them a row after another, a lane an entry. Looked up a row
/// at a time, the rows' three dependent loads left the copy latency-bound.
///
/// # Safety
/// As [`staged_row`] for every listed row.
#[inline(always)]
unsafe fn unstage<T: Copy + Shuffle>(a: &SpgemmRowsArgs<T>) {
    let lane = lane_id();
    let mut base = global_warp_id() * WARP_SIZE;
    while base < a.n_rows {
        // SAFETY: the contract; the shuffles are reached by the whole warp
        // (`base` is the warp's).
        unsafe {
            let (mut from, mut to, mut len) = (0u64, 0u64, 0u32);
            if base + lane < a.n_rows {
                let (f, t, n) = staged_row(a, base + lane);
                (from, to, len) = (f as u64, t as u64, n as u32);
            }
            for r in 0..(a.n_rows - base).min(WARP_SIZE) {
                let row = (
                    warp::shuffle_idx(from, r) as usize,
                    warp::shuffle_idx(to, r) as usize,
                    warp::shuffle_idx(len, r) as usize,
                );
                copy_staged(a, row, lane as usize, WARP_SIZE as usize);
            }
        }
        base += grid_warps() * WARP_SIZE;
    }
}

/// One row of C through the warp's table (`keys`, `vals`, `table_slots`
/// each).
///
/// # Safety
/// The whole warp calls with the same `row`, which fits the table; the
/// table is the warp's own.
#[inline(always)]
unsafe fn hash_row<S: Semiring>(
    a: &SpgemmRowsArgs<S::Value>,
    row: u32,
    keys: *mut u32,
    vals: *mut S::Value,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let slots = a.table_slots;
    // SAFETY: indices within A, B, C and the table by the contract; every
    // shuffle, vote and barrier is reached by the whole warp (the loops'
    // bounds are warp-uniform).
    unsafe {
        let (start, len_a) = a_row(a, row);
        let (ac, bp, bc) = (
            a.a_col_idx.as_ptr().add(start as usize),
            a.b_row_ptr.as_ptr(),
            a.b_col_idx.as_ptr(),
        );
        // The span of the row's columns and its products: a span that fits
        // is indexed directly (and read out sorted); a wider one is hashed.
        let (mut lo, mut hi, mut products) = (u32::MAX, 0u32, 0u32);
        let mut j = lane;
        while j < len_a {
            let k = *ac.add(j as usize) as usize;
            let (s, e) = (*bp.add(k), *bp.add(k + 1));
            if e > s {
                lo = lo.min(*bc.add(s as usize));
                hi = hi.max(*bc.add(e as usize - 1));
                products += e - s;
            }
            j += WARP_SIZE;
        }
        let mut d = 16;
        while d > 0 {
            lo = lo.min(warp::shuffle_xor(lo, d));
            hi = hi.max(warp::shuffle_xor(hi, d));
            products += warp::shuffle_xor(products, d);
            d /= 2;
        }
        if hi - lo < slots {
            table_row::<S, true>(a, row, (start, len_a), keys, vals, lo, hi - lo + 1);
            return;
        }
        // A hashed row takes the least power of two of slots that holds
        // twice its columns (in the numeric phase C's offsets give their
        // number, or a bound when staging; before, the products bound it),
        // so a short row clears and gathers a short table.
        let columns = if a.numeric != 0 {
            let p = a.c_row_ptr.as_ptr().add(row as usize);
            (*p.add(1) - *p) as u32
        } else {
            products
        };
        let used = (2 * columns).next_power_of_two().clamp(WARP_SIZE, slots);
        table_row::<S, false>(a, row, (start, len_a), keys, vals, 0, used);
    }
}

/// One row of C through the warp's table of `used` slots: indexed by
/// `column − lo` when `DIRECT` (the row's span fits), else hashed (`used`
/// a power of two). Each kind is its own code, so neither carries the
/// other's registers.
///
/// # Safety
/// As [`hash_row`]; `(start, len_a)` A's row; its columns fit the table
/// so.
#[inline(always)]
unsafe fn table_row<S: Semiring, const DIRECT: bool>(
    a: &SpgemmRowsArgs<S::Value>,
    row: u32,
    (start, len_a): (u32, u32),
    keys: *mut u32,
    vals: *mut S::Value,
    lo: u32,
    used: u32,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let numeric = a.numeric != 0;
    // SAFETY: as in `hash_row`.
    unsafe {
        let bits = used.trailing_zeros();
        let mut t = lane;
        while t < used {
            *keys.add(t as usize) = EMPTY;
            t += WARP_SIZE;
        }
        warp::sync_warp(FULL_MASK);

        let claim = |col: u32| {
            if DIRECT {
                let slot = col - lo;
                let fresh = *keys.add(slot as usize) == EMPTY;
                *keys.add(slot as usize) = col;
                return (slot, fresh);
            }
            let mut slot = col.wrapping_mul(0x9e37_79b1) >> (32 - bits);
            loop {
                let was = atomic_cas_shared_u32(keys.add(slot as usize), EMPTY, col);
                if was == EMPTY || was == col {
                    return (slot, was == EMPTY);
                }
                slot = (slot + 1) & (used - 1);
            }
        };
        let inserted = Cell::new(0u32);
        walk_products::<S, HASH_WALK_IN_FLIGHT>(
            a,
            numeric,
            (start, len_a),
            (0, u32::MAX),
            |col, v| {
                inserted.set(inserted.get() + accumulate::<S>(col, v, numeric, vals, claim));
            },
            Some(|col, p| {
                let (slot, fresh) = claim(col);
                inserted.set(inserted.get() + u32::from(fresh));
                if numeric {
                    let v = vals.add(slot as usize);
                    *v = if fresh { p } else { S::add(*v, p) };
                }
            }),
        );
        let inserted = inserted.get();
        if !numeric {
            let total = warp_inclusive_scan(inserted);
            if lane == WARP_SIZE - 1 {
                *a.row_len.as_mut_ptr().add(row as usize) = total;
            }
            return;
        }

        // Gather the filled slots to the front, in slot order; a direct
        // table is then sorted already, a hashed one is sorted here.
        let mut filled = 0u32;
        let mut t0 = 0;
        while t0 < used {
            let t = t0 + lane;
            let (k, v) = if t < used {
                (*keys.add(t as usize), *vals.add(t as usize))
            } else {
                (EMPTY, S::zero())
            };
            warp::sync_warp(FULL_MASK);
            let full = warp::ballot(k != EMPTY);
            if k != EMPTY {
                let at = (filled + (full & lane_mask_lt()).count_ones()) as usize;
                *keys.add(at) = k;
                *vals.add(at) = v;
            }
            filled += full.count_ones();
            warp::sync_warp(FULL_MASK);
            t0 += WARP_SIZE;
        }
        if a.numeric == SPGEMM_STAGE && lane == 0 {
            *a.row_len.as_mut_ptr().add(row as usize) = filled;
        }
        let out = c_start(a, row);
        if !DIRECT {
            if filled <= WARP_SIZE {
                write_sorted::<S::Value, 1>(a, out, keys, vals, filled);
                return;
            }
            if filled <= 2 * WARP_SIZE {
                write_sorted::<S::Value, 2>(a, out, keys, vals, filled);
                return;
            }
            sort_pairs::<S::Value>(keys, vals, filled);
        }
        let mut t = lane;
        while t < filled {
            *a.c_col_idx.as_mut_ptr().add(out + t as usize) = *keys.add(t as usize);
            *a.c_values.as_mut_ptr().add(out + t as usize) = *vals.add(t as usize);
            t += WARP_SIZE;
        }
        warp::sync_warp(FULL_MASK);
    }
}

/// Writes the warp's `n ≤ 32 · R` gathered pairs `(keys, vals)` to C at
/// `out`, sorted by key (distinct): the keys sorted in registers with their
/// positions below them ([`warp_sort_regs`]), each value then read from its
/// position, in far fewer steps than a network over shared memory.
///
/// # Safety
/// The whole warp calls; `keys` and `vals` hold `n` pairs, the warp's own;
/// C has room for `n` entries at `out`.
#[inline(always)]
unsafe fn write_sorted<T: Copy, const R: usize>(
    a: &SpgemmRowsArgs<T>,
    out: usize,
    keys: *const u32,
    vals: *const T,
    n: u32,
) {
    let lane = lane_id();
    // SAFETY: positions below `n`; the whole warp sorts.
    unsafe {
        let mut k = [u64::MAX; R];
        for (r, kr) in k.iter_mut().enumerate() {
            let t = r as u32 * WARP_SIZE + lane;
            if t < n {
                *kr = u64::from(*keys.add(t as usize)) << 32 | u64::from(t);
            }
        }
        warp_sort_regs(&mut k);
        for (r, kr) in k.iter().enumerate() {
            let t = r as u32 * WARP_SIZE + lane;
            if t < n {
                let at = out + t as usize;
                *a.c_col_idx.as_mut_ptr().add(at) = (*kr >> 32) as u32;
                *a.c_values.as_mut_ptr().add(at) = *vals.add(*kr as u32 as usize);
            }
        }
        warp::sync_warp(FULL_MASK);
    }
}

/// A row of at most 32 entries of A held a lane an entry: where the
/// entry's row of B starts, that row's length and the entry's value (zero
/// when no value is read), with the warp's running count of products.
#[derive(Clone, Copy)]
struct ShortRow<T> {
    b_start: u32,
    b_len: u32,
    value: T,
    /// Products of this lane's entry and the lanes below it.
    incl: u32,
    /// Products of the whole row.
    total: u32,
}

/// Which of the warp's sorted columns (position `r · 32 + lane` in
/// `col[r]`, [`EMPTY`] past the end) differ from the one before: the
/// first of each column.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
unsafe fn column_heads<const R: usize>(col: &[u32; R]) -> [bool; R] {
    let lane = lane_id();
    let mut head = [false; R];
    // Lane 0's predecessor is lane 31 of the register before.
    let mut last = EMPTY;
    for r in 0..R {
        // SAFETY: the caller's contract.
        let t = unsafe { warp::shuffle_idx(col[r], (lane + WARP_SIZE - 1) % WARP_SIZE) };
        let prev = if lane == 0 { last } else { t };
        last = t;
        head[r] = col[r] != EMPTY && col[r] != prev;
    }
    head
}

/// One row of at most 32 entries of A and `32 · R` products, sorted in the
/// warp's registers with no shared memory (ESC): product `r · 32 + lane`
/// is computed in `k[r]` (its entry found as in [`walk_products`]), the
/// keys `(column, product)` are sorted by shuffles ([`warp_sort_regs`]),
/// and the first key of each column (a head) sums its run in order, each
/// step fetching the next sorted value from the lane holding it; runs are
/// as long as the entries of A that meet the column, usually one or two.
/// Heads are C's row, in column order: the entries to C (numeric,
/// staging) and their count to `row_len` (staging). The symbolic phase
/// needs only the columns: lanes holding one column find each other
/// (`match.any`) when a lane holds one, else the columns alone are sorted
/// (4-byte keys, half the shuffles) and their heads counted.
///
/// # Safety
/// The whole warp calls with the same `row`, whose entries `e` hold
/// ([`short_row`]; `value`s read when the phase is not symbolic) and
/// whose products are at most `32 · R`.
#[inline(always)]
unsafe fn register_row<S: Semiring, const R: usize>(
    a: &SpgemmRowsArgs<S::Value>,
    row: u32,
    e: ShortRow<S::Value>,
) where
    S::Value: Shuffle,
{
    let lane = lane_id();
    let numeric = a.numeric != SPGEMM_SYMBOLIC;
    // SAFETY: indices within B and C by the contract; every shuffle and
    // vote is reached by the whole warp (`R` is fixed, and the run loop's
    // condition is a vote).
    unsafe {
        let (bc, bv) = (a.b_col_idx.as_ptr(), a.b_values.as_ptr());
        let mut k = [u64::MAX; R];
        let mut v = [S::zero(); R];
        for r in 0..R {
            let p = r as u32 * WARP_SIZE + lane;
            let l = entry_of(e.incl, p);
            let (sl, nl, il) = (
                warp::shuffle_idx(e.b_start, l),
                warp::shuffle_idx(e.b_len, l),
                warp::shuffle_idx(e.incl, l),
            );
            let xl = warp::shuffle_idx(e.value, l);
            if p < e.total {
                let q = (sl + nl + p - il) as usize;
                k[r] = key(*bc.add(q), p);
                if numeric {
                    v[r] = S::mul(xl, *bv.add(q));
                }
            }
        }
        if !numeric {
            let mut col = k.map(key_col);
            let distinct = if R == 1 {
                let peers = warp::match_any(col[0]);
                warp::ballot(col[0] != EMPTY && peers & lane_mask_lt() == 0).count_ones()
            } else {
                warp_sort_regs(&mut col);
                column_heads(&col)
                    .iter()
                    .map(|&h| warp::ballot(h).count_ones())
                    .sum()
            };
            if lane == 0 {
                *a.row_len.as_mut_ptr().add(row as usize) = distinct;
            }
            return;
        }
        // Sorted position `r · 32 + lane`: its column (EMPTY past the
        // products) and product number (u32::MAX past them). When every
        // column leaves room for the product number in 4 bytes, the keys
        // sort as u32: half the shuffles of u64 keys.
        let bits = (WARP_SIZE * R as u32).trailing_zeros();
        // (Below the top column that fits, so that no key is the pad.)
        let fits = (1u32 << (32 - bits)) - 1;
        let narrow = warp::all(k.iter().all(|&kr| kr == u64::MAX || key_col(kr) < fits));
        let (col, prod) = if narrow {
            let mut k32 = k.map(|kr| {
                if kr == u64::MAX {
                    u32::MAX
                } else {
                    key_col(kr) << bits | kr as u32
                }
            });
            warp_sort_regs(&mut k32);
            (
                k32.map(|x| if x == u32::MAX { EMPTY } else { x >> bits }),
                k32.map(|x| {
                    if x == u32::MAX {
                        u32::MAX
                    } else {
                        x & ((1 << bits) - 1)
                    }
                }),
            )
        } else {
            warp_sort_regs(&mut k);
            (k.map(key_col), k.map(|kr| kr as u32))
        };
        let head = column_heads(&col);
        let mut sum = [S::zero(); R];
        for r in 0..R {
            let p = prod[r];
            for (rr, &vr) in v.iter().enumerate() {
                let t = warp::shuffle_idx(vr, p % WARP_SIZE);
                if p / WARP_SIZE == rr as u32 {
                    sum[r] = t;
                }
            }
        }
        // Each head adds the values after it while their column is its
        // own: position `q + d` is lane `lane + d` of the same register,
        // or of the next one past lane 31.
        let val = sum;
        let mut open = head;
        let mut d = 1;
        while warp::any(open.iter().any(|&o| o)) {
            let from = (lane + d) % WARP_SIZE;
            let next = lane + d >= WARP_SIZE;
            let cols = col.map(|c| warp::shuffle_idx(c, from));
            let vals = val.map(|x| warp::shuffle_idx(x, from));
            for r in 0..R {
                let at = r + usize::from(next);
                let (c, x) = if at < R {
                    (cols[at], vals[at])
                } else {
                    (EMPTY, S::zero())
                };
                if open[r] {
                    if c == col[r] {
                        sum[r] = S::add(sum[r], x);
                    } else {
                        open[r] = false;
                    }
                }
            }
            d += 1;
        }
        let out = c_start(a, row);
        let mut written = 0u32;
        for r in 0..R {
            let heads = warp::ballot(head[r]);
            if head[r] {
                let at = out + (written + (heads & lane_mask_lt()).count_ones()) as usize;
                *a.c_col_idx.as_mut_ptr().add(at) = col[r];
                *a.c_values.as_mut_ptr().add(at) = sum[r];
            }
            written += heads.count_ones();
        }
        if a.numeric == SPGEMM_STAGE && lane == 0 {
            *a.row_len.as_mut_ptr().add(row as usize) = written;
        }
    }
}

/// Sorts the warp's `n` pairs `(keys, vals)` by key, ascending (distinct
/// keys): a bitonic network over the next power of two, the pad keys
/// [`EMPTY`] (room for them is the caller's).
///
/// # Safety
/// The whole warp calls; `keys` and `vals` hold `n.next_power_of_two()`
/// entries and are the warp's own.
#[inline(always)]
unsafe fn sort_pairs<T: Copy>(keys: *mut u32, vals: *mut T, n: u32) {
    let m = n.next_power_of_two();
    let lane = lane_id();
    // SAFETY: indices below `m`; barriers reached by the whole warp.
    unsafe {
        let mut t = n + lane;
        while t < m {
            *keys.add(t as usize) = EMPTY;
            t += WARP_SIZE;
        }
        warp::sync_warp(FULL_MASK);
        let mut size = 2;
        while size <= m {
            let mut stride = size / 2;
            while stride > 0 {
                let mut t = lane;
                while t < m / 2 {
                    let lo = (2 * t - (t & (stride - 1))) as usize;
                    let hi = lo + stride as usize;
                    let (x, y) = (*keys.add(lo), *keys.add(hi));
                    if (x > y) == (lo as u32 & size == 0) {
                        *keys.add(lo) = y;
                        *keys.add(hi) = x;
                        let v = *vals.add(lo);
                        *vals.add(lo) = *vals.add(hi);
                        *vals.add(hi) = v;
                    }
                    t += WARP_SIZE;
                }
                warp::sync_warp(FULL_MASK);
                stride /= 2;
            }
            size *= 2;
        }
    }
}

/// A block's shared memory for sorting up to `capacity` products: see
/// [`crate::args::spgemm_sort_shared_bytes`].
struct SortSpace<T> {
    keys: *mut u64,
    values: *mut T,
    /// Per entry of A (and one more): its first product.
    first: *mut u32,
    /// Per entry of A: where its row of B starts.
    b_start: *mut u32,
}

impl<T> SortSpace<T> {
    /// The space at `base` for `capacity` products.
    #[inline(always)]
    fn at(base: *mut u8, capacity: u32) -> Self {
        let c = capacity as usize;
        // SAFETY: offsets within the region the launch sized.
        unsafe {
            let keys = base as *mut u64;
            let values = base.add(8 * c) as *mut T;
            let first = base.add(8 * c + size_of::<T>() * c).cast::<u32>();
            // 16 spare bytes: `first` has one entry more than A's row.
            let b_start = first.add(c + 2);
            SortSpace {
                keys,
                values,
                first,
                b_start,
            }
        }
    }
}

/// One row of C by sorting its products in shared memory (`spgemm_block`):
/// see the module documentation. `capacity` bounds the row's products.
///
/// # Safety
/// Every thread of the block calls with the same `row`; the row has at
/// least 2 entries of A and at most `capacity` products; `space` is the
/// block's own.
#[inline(always)]
unsafe fn sort_row<S: Semiring>(
    a: &SpgemmRowsArgs<S::Value>,
    row: u32,
    space: &SortSpace<S::Value>,
    capacity: u32,
) {
    let (rank, size) = (thread_idx_x(), block_dim_x());
    let lane = lane_id();
    let numeric = a.numeric != 0;
    // SAFETY: indices within A, B, C and `space` by the contract; barriers
    // reached by the whole block (every branch below is block-uniform, or
    // taken by the block's first warp as a whole).
    unsafe {
        let (start, len_a) = a_row(a, row);
        // Each entry's first product and B-row start, by the first warp.
        if rank < WARP_SIZE {
            let mut carry = 0u32;
            let mut j0 = 0;
            while j0 < len_a {
                let j = j0 + lane;
                let (s, n) = if j < len_a {
                    let k = *a.a_col_idx.as_ptr().add((start + j) as usize) as usize;
                    let bp = a.b_row_ptr.as_ptr();
                    (*bp.add(k), *bp.add(k + 1) - *bp.add(k))
                } else {
                    (0, 0)
                };
                let incl = warp_inclusive_scan(n);
                if j < len_a {
                    *space.first.add(j as usize) = carry + incl - n;
                    *space.b_start.add(j as usize) = s;
                }
                carry += warp::shuffle_idx(incl, WARP_SIZE - 1);
                j0 += WARP_SIZE;
            }
            if lane == 0 {
                *space.first.add(len_a as usize) = carry;
            }
        }
        sync_threads();
        let products = *space.first.add(len_a as usize);
        require(products <= capacity);
        // Product p comes from the last entry j with first[j] ≤ p: that
        // entry, and the product's position in B.
        let source = |p: u32| {
            let (mut lo, mut hi) = (0u32, len_a);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if *space.first.add(mid as usize) <= p {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            (
                lo,
                (*space.b_start.add(lo as usize) + p - *space.first.add(lo as usize)) as usize,
            )
        };
        let m = products.next_power_of_two();
        let mut p = rank;
        while p < m {
            let mut k = u64::MAX;
            if p < products {
                let (lo, q) = source(p);
                k = key(*a.b_col_idx.as_ptr().add(q), p);
                if numeric {
                    let x = *a.a_values.as_ptr().add((start + lo) as usize);
                    *space.values.add(p as usize) = S::mul(x, *a.b_values.as_ptr().add(q));
                }
            }
            *space.keys.add(p as usize) = k;
            p += size;
        }
        sync_threads();
        sort_keys(space.keys, m);
        // Read out by the first warp, 32 sorted products at a time: each
        // column's first product (a head) sums its run, in order.
        if rank < WARP_SIZE {
            let out = if numeric { c_start(a, row) } else { 0 };
            let mut written = 0u32;
            let mut q0 = 0;
            while q0 < products {
                let q = q0 + lane;
                let kq = if q < products {
                    *space.keys.add(q as usize)
                } else {
                    u64::MAX
                };
                let col = key_col(kq);
                let head =
                    q < products && (q == 0 || key_col(*space.keys.add(q as usize - 1)) != col);
                let heads = warp::ballot(head);
                if head && numeric {
                    let mut v = *space.values.add(kq as u32 as usize);
                    let mut r = q + 1;
                    while r < products {
                        let kr = *space.keys.add(r as usize);
                        if key_col(kr) != col {
                            break;
                        }
                        v = S::add(v, *space.values.add(kr as u32 as usize));
                        r += 1;
                    }
                    let at = out + (written + (heads & lane_mask_lt()).count_ones()) as usize;
                    *a.c_col_idx.as_mut_ptr().add(at) = col;
                    *a.c_values.as_mut_ptr().add(at) = v;
                }
                written += heads.count_ones();
                q0 += WARP_SIZE;
            }
            if !numeric && lane == 0 {
                *a.row_len.as_mut_ptr().add(row as usize) = written;
            }
        }
        sync_threads();
    }
}

/// The warp's keys sorted ascending across its lanes (lane 0 the
/// smallest): a bitonic network by shuffles.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub(crate) unsafe fn warp_sort(k: u64) -> u64 {
    let mut k = [k];
    // SAFETY: the caller's contract.
    unsafe { warp_sort_regs(&mut k) };
    k[0]
}

/// The warp's `32 · R` keys sorted ascending, `R` (1, 2 or 4) a lane: key
/// `r · 32 + lane` in `k[r]`. A bitonic network: a merge of runs of `size`
/// keys sorts a run ascending when bit `size` of its position is clear;
/// steps of a stride under 32 exchange with another lane by a shuffle,
/// wider ones between a lane's own registers.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
unsafe fn warp_sort_regs<K: Shuffle + Ord, const R: usize>(k: &mut [K; R]) {
    const { assert!(R == 1 || R == 2 || R == 4) };
    // Read here, not hoisted: a lane known outside the caller's loop lets
    // the compiler keep each step's choice in a register of its own.
    let lane: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(nostack)) };
    let mut size = 2;
    while size <= WARP_SIZE * R as u32 {
        let mut stride = size / 2;
        while stride > 0 {
            for r in 0..R {
                let ascending = (r as u32 * WARP_SIZE + lane) & size == 0;
                if stride < WARP_SIZE {
                    // SAFETY: the caller's contract.
                    let other = unsafe { warp::shuffle_xor(k[r], stride) };
                    let lower = lane & stride == 0;
                    k[r] = if lower == ascending {
                        Ord::min(k[r], other)
                    } else {
                        Ord::max(k[r], other)
                    };
                } else {
                    let hop = (stride / WARP_SIZE) as usize;
                    if r & hop == 0 {
                        let (x, y) = (k[r], k[r + hop]);
                        let (lo, hi) = (Ord::min(x, y), Ord::max(x, y));
                        (k[r], k[r + hop]) = if ascending { (lo, hi) } else { (hi, lo) };
                    }
                }
            }
            stride /= 2;
        }
        size *= 2;
    }
}

/// Sorts `keys[..m]` (`m` a power of two) ascending, by the block: a
/// bitonic network in shared memory.
///
/// # Safety
/// Every thread of the block calls; `keys` holds `m` values and is the
/// block's own.
#[inline(always)]
unsafe fn sort_keys(keys: *mut u64, m: u32) {
    let rank = thread_idx_x();
    // SAFETY: indices below `m`; barriers reached by the whole block.
    unsafe {
        let mut size = 2;
        while size <= m {
            let mut stride = size / 2;
            while stride > 0 {
                let mut t = rank;
                while t < m / 2 {
                    let lo = 2 * t - (t & (stride - 1));
                    let hi = lo + stride;
                    let (x, y) = (*keys.add(lo as usize), *keys.add(hi as usize));
                    if (x > y) == (lo & size == 0) {
                        *keys.add(lo as usize) = y;
                        *keys.add(hi as usize) = x;
                    }
                    t += block_dim_x();
                }
                sync_threads();
                stride /= 2;
            }
            size *= 2;
        }
    }
}

/// A row of at most 32 entries of A, a lane an entry ([`ShortRow`]; the
/// values read unless the phase is symbolic).
///
/// # Safety
/// The whole warp calls with the same `row`, a row of A of at most 32
/// entries.
#[inline(always)]
unsafe fn short_row<S: Semiring>(a: &SpgemmRowsArgs<S::Value>, row: u32) -> ShortRow<S::Value>
where
    S::Value: Shuffle,
{
    let lane = lane_id();
    // SAFETY: the contract; A's columns are rows of B; the shuffles are
    // reached by the whole warp.
    unsafe {
        let (start, len_a) = a_row(a, row);
        let (mut b_start, mut b_len, mut value) = (0u32, 0u32, S::zero());
        if lane < len_a {
            let k = *a.a_col_idx.as_ptr().add((start + lane) as usize) as usize;
            let bp = a.b_row_ptr.as_ptr();
            b_start = *bp.add(k);
            b_len = *bp.add(k + 1) - b_start;
            if a.numeric != SPGEMM_SYMBOLIC {
                value = *a.a_values.as_ptr().add((start + lane) as usize);
            }
        }
        let incl = warp_inclusive_scan(b_len);
        ShortRow {
            b_start,
            b_len,
            value,
            incl,
            total: warp::shuffle_idx(incl, WARP_SIZE - 1),
        }
    }
}

/// Rows of up to [`SPGEMM_WARP_MAX`] products, a warp each, sorted in the
/// warp's registers ([`register_row`]; symbolic or numeric,
/// [`SpgemmRowsArgs`]). Tried staging this class through the symbolic
/// phase: slower than counting its columns by `match.any`.
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the phase; the listed rows have ≥ 2
/// entries of A and at most [`SPGEMM_WARP_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_warp<S: Semiring>(a: SpgemmRowsArgs<S::Value>)
where
    S::Value: Shuffle,
{
    const { assert!(SPGEMM_WARP_MAX == WARP_SIZE) };
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract (a row of at most 32 products has at most
        // 32 entries of A); `w` is warp-uniform.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            register_row::<S, 1>(&a, row, short_row::<S>(&a, row));
        }
        w += grid_warps();
    }
}

/// Rows of at most 32 entries of A and [`SPGEMM_SHORT_MAX`] products whose
/// span is too wide for a table indexed by column, a warp each, sorted in
/// the warp's registers ([`register_row`], two or four products a lane):
/// random short rows, whose products are mostly distinct columns, cost a
/// sort with no table to clear, fill and gather, and no shared memory
/// to bound the warps at once. Symbolic, numeric, or staged like
/// `spgemm_hash` ([`SPGEMM_STAGE`], [`SPGEMM_UNSTAGE`]).
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the phase; the listed rows have at most
/// 32 entries of A and [`SPGEMM_SHORT_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_short<S: Semiring>(a: SpgemmRowsArgs<S::Value>)
where
    S::Value: Shuffle,
{
    const { assert!(SPGEMM_SHORT_MAX == 4 * WARP_SIZE) };
    if a.numeric == SPGEMM_UNSTAGE {
        // SAFETY: the contract.
        unsafe { unstage(&a) };
        return;
    }
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract; `w` is warp-uniform, and so is the row's
        // total.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            let e = short_row::<S>(&a, row);
            if e.total <= 2 * WARP_SIZE {
                register_row::<S, 2>(&a, row, e);
            } else {
                register_row::<S, 4>(&a, row, e);
            }
        }
        w += grid_warps();
    }
}

/// Rows of up to [`SPGEMM_BLOCK_MAX`] products, a block each, sorted in
/// the block's shared memory (symbolic or numeric, [`SpgemmRowsArgs`]).
/// Tried a bitonic sort with the keys in registers: less L1, yet slower,
/// as 40 registers against 29 hold 6 blocks an SM instead of 8, and the
/// kernel waits on barriers and latency.
///
/// Launch: 1D, block size a multiple of 32, any grid, dynamic shared
/// memory `spgemm_sort_shared_bytes(SPGEMM_BLOCK_MAX, size)`.
///
/// # Safety
/// As [`spgemm_warp`], with at most [`SPGEMM_BLOCK_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_block<S: Semiring>(a: SpgemmRowsArgs<S::Value>) {
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let space = SortSpace::at(shared::dynamic::<u8>(), SPGEMM_BLOCK_MAX);
    let mut b = block_idx_x();
    while b < a.n_rows {
        // SAFETY: the contract; `b` is block-uniform.
        unsafe {
            let row = *a.rows.as_ptr().add(b as usize);
            sort_row::<S>(&a, row, &space, SPGEMM_BLOCK_MAX);
        }
        b += grid_dim_x();
    }
}

/// Rows of any length, a block each, through a presence bitmap of the
/// row's span (symbolic or numeric, [`SpgemmRowsArgs`]): see the module
/// documentation. When the span fits `shared_words` words, the bitmap
/// (and in the numeric phase a second bitmap of the entries begun and the
/// words' running counts) is in shared memory, and the values sum there
/// by column when the span fits `shared_values`, else by rank (in shared
/// memory when the row's length fits, else in place in C). A wider span
/// takes block `b`'s slot of the scratch (`slot_words` words, whose bits
/// must start zeroed and are left so, and a value per column). Phase
/// [`SPGEMM_STAGE`] is the numeric one into the staging area, writing the
/// rows' lengths too; [`SPGEMM_UNSTAGE`] copies the rows to C, a block a
/// row. Tried summing long rows by columns of C through Bᵀ: 0.27–0.51×,
/// as a thread walking down a column waits on each load.
///
/// Launch: 1D, block size a multiple of 32 (at most 1024), a grid of at
/// most as many blocks as scratch slots (any grid when every span fits
/// shared memory), [`crate::args::spgemm_dense_shared_bytes`] of dynamic
/// shared memory for the phase's `shared_words` and `shared_values` (the
/// numeric layout for [`SPGEMM_STAGE`]; none for [`SPGEMM_UNSTAGE`]).
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the phase; listed rows have ≥ 1 product;
/// `slot_words ≥ ⌈B's columns / 32⌉ + 1`, the slots' words zero.
#[inline(always)]
pub unsafe fn spgemm_dense<S: Semiring>(a: SpgemmRowsArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (tid, wid) = (thread_idx_x(), warp_id());
    let warps = block_dim_x() / WARP_SIZE;
    let threads = block_dim_x();
    if a.numeric == SPGEMM_UNSTAGE {
        // SAFETY: the contract of the phase.
        unsafe { unstage_rows(&a) };
        return;
    }
    let numeric = a.numeric != 0;
    let arrays = spgemm_dense_arrays(numeric) as usize;
    let (words, shared_words) = (a.slot_words as usize, a.shared_words as usize);
    // Slot `b` of the scratch is this block's (none is given when every
    // span fits shared memory: it is then never used).
    let slot = block_idx_x() as usize * words;
    let (slot_bits, slot_vals) = (
        a.scratch_flags.as_mut_ptr().wrapping_add(slot),
        a.scratch_values.as_mut_ptr().wrapping_add(32 * slot),
    );
    // Shared: [0] lowest column, [1] highest; the scan's 33 slots; then
    // the arrays of words (bitmap, begun, counts), then the values.
    let small = shared::dynamic::<u32>();
    // SAFETY: within the launch's shared memory (see `spgemm_dense_shared_bytes`).
    let (warp_sums, shared_bits, begun, counts, shared_vals) = unsafe {
        let bits = shared::dynamic::<u8>()
            .add(SPGEMM_DENSE_SHARED as usize)
            .cast::<u32>();
        (
            small.add(4).cast::<u64>(),
            bits,
            bits.add(shared_words),
            bits.add(2 * shared_words),
            bits.add(arrays * shared_words).cast::<S::Value>(),
        )
    };
    // The shared bitmaps start zeroed, and each row leaves them so.
    let mut w = tid as usize;
    while w < arrays.min(2) * shared_words {
        // SAFETY: within the shared words.
        unsafe { *shared_bits.add(w) = 0 };
        w += threads as usize;
    }
    let mut b = block_idx_x();
    while b < a.n_rows {
        // SAFETY: the contract; every barrier is reached by the whole block
        // (`b` is block-uniform).
        unsafe {
            let row = *a.rows.as_ptr().add(b as usize);
            let (start, len_a) = a_row(&a, row);
            let (ac, bp, bc) = (
                a.a_col_idx.as_ptr().add(start as usize),
                a.b_row_ptr.as_ptr(),
                a.b_col_idx.as_ptr(),
            );
            if tid == 0 {
                *small = u32::MAX;
                *small.add(1) = 0;
            }
            sync_threads();
            let mut j = tid;
            while j < len_a {
                let k = *ac.add(j as usize) as usize;
                let (s, e) = (*bp.add(k), *bp.add(k + 1));
                if e > s {
                    atomic_min_u32(small, *bc.add(s as usize));
                    atomic_max_u32(small.add(1), *bc.add(e as usize - 1));
                }
                j += threads;
            }
            sync_threads();
            let (lo, hi) = (*small, *small.add(1));
            let w0 = lo / 32;
            let n_words = hi / 32 - w0 + 1;
            let in_shared = n_words as usize <= shared_words;
            let (bits, by_column) = if in_shared {
                (shared_bits, shared_vals)
            } else {
                (slot_bits, slot_vals)
            };
            // Values by column when the span's fit (always in the slot),
            // else by rank (the bitmap read before they are summed).
            let direct = numeric && (!in_shared || 32 * n_words <= a.shared_values);
            // This warp's columns: whole words, the span split in `warps`;
            // no other warp touches them. Tried 2–4 parts a warp: R-MAT and
            // MIT8 lost 19–42%, every part walking A's row again; parts
            // balanced by sampled products gained nothing for 8 registers.
            let per = n_words.div_ceil(warps);
            let mine = (
                (w0 + (wid * per).min(n_words)) * 32,
                (w0 + ((wid + 1) * per).min(n_words)) * 32,
            );
            let word_bit = |col: u32| {
                let idx = col - w0 * 32;
                ((idx / 32) as usize, 1u32 << (idx % 32))
            };
            if mine.0 < mine.1 && direct {
                let claim = |col: u32| {
                    let (w, bit) = word_bit(col);
                    let old = atomic_or_u32(bits.add(w), bit);
                    (col - w0 * 32, old & bit == 0)
                };
                sum_products::<S>(&a, (start, len_a), mine, by_column, claim);
            } else if mine.0 < mine.1 {
                let mark = |col: u32, _| {
                    if col != EMPTY {
                        let (w, bit) = word_bit(col);
                        atomic_or_u32(bits.add(w), bit);
                    }
                };
                walk_products::<S, DENSE_WALK_IN_FLIGHT>(
                    &a,
                    false,
                    (start, len_a),
                    mine,
                    mark,
                    Some(mark),
                );
            }
            sync_threads();
            // Each thread counts a run of words; one scan places the runs.
            let run = n_words.div_ceil(threads);
            let (first, last) = ((tid * run).min(n_words), ((tid + 1) * run).min(n_words));
            let mut before = 0u64;
            for w in first..last {
                before += u64::from((*bits.add(w as usize)).count_ones());
            }
            let (before, total) = block_exclusive_scan(before, warp_sums);
            if a.numeric != SPGEMM_NUMERIC && tid == 0 {
                *a.row_len.as_mut_ptr().add(row as usize) = total as u32;
            }
            if !numeric {
                for w in first..last {
                    *bits.add(w as usize) = 0;
                }
                sync_threads();
                b += grid_dim_x();
                continue;
            }
            let out = c_start(&a, row);
            if !direct {
                // By rank: a second walk sums each value at its column's
                // rank (in shared memory when the row's length fits, else
                // in C), the first product to reach it marking it begun.
                let len = total as usize;
                let in_c = len > a.shared_values as usize;
                let by_rank = if in_c {
                    a.c_values.as_mut_ptr().add(out)
                } else {
                    shared_vals
                };
                let mut at = before as u32;
                for w in first..last {
                    *counts.add(w as usize) = at;
                    at += (*bits.add(w as usize)).count_ones();
                }
                sync_threads();
                if mine.0 < mine.1 {
                    let claim = |col: u32| {
                        let (w, bit) = word_bit(col);
                        let old = atomic_or_u32(begun.add(w), bit);
                        let rank = *counts.add(w) + (*bits.add(w) & (bit - 1)).count_ones();
                        (rank, old & bit == 0)
                    };
                    sum_products::<S>(&a, (start, len_a), mine, by_rank, claim);
                }
                sync_threads();
                if !in_c {
                    let mut r = tid as usize;
                    while r < len {
                        *a.c_values.as_mut_ptr().add(out + r) = *shared_vals.add(r);
                        r += threads as usize;
                    }
                }
            }
            // Columns in order (and values summed by column), the bitmaps
            // cleared for the next row.
            let mut at = out + before as usize;
            for w in first..last {
                let word = *bits.add(w as usize);
                if word == 0 {
                    continue;
                }
                *bits.add(w as usize) = 0;
                if !direct {
                    *begun.add(w as usize) = 0;
                }
                let mut left = word;
                while left != 0 {
                    let idx = w * 32 + left.trailing_zeros();
                    *a.c_col_idx.as_mut_ptr().add(at) = w0 * 32 + idx;
                    if direct {
                        *a.c_values.as_mut_ptr().add(at) = *by_column.add(idx as usize);
                    }
                    at += 1;
                    left &= left - 1;
                }
            }
            sync_threads();
        }
        b += grid_dim_x();
    }
}

/// Copies each listed row from the staging area to C ([`SPGEMM_UNSTAGE`]),
/// a block a row: long rows, each as much copying as a block can share.
///
/// # Safety
/// As [`unstage`].
#[inline(always)]
unsafe fn unstage_rows<T: Copy>(a: &SpgemmRowsArgs<T>) {
    let mut b = block_idx_x();
    while b < a.n_rows {
        // SAFETY: the contract.
        unsafe {
            let row = staged_row(a, b);
            copy_staged(a, row, thread_idx_x() as usize, block_dim_x() as usize);
        }
        b += grid_dim_x();
    }
}

/// The numeric walk of `spgemm_dense` over a warp's columns `cols`:
/// each product summed onto `vals[slot]`, `claim(col) → (slot, fresh)`
/// as [`accumulate`] takes it.
///
/// # Safety
/// As [`walk_products`] and [`accumulate`].
#[inline(always)]
unsafe fn sum_products<S: Semiring>(
    a: &SpgemmRowsArgs<S::Value>,
    row: (u32, u32),
    cols: (u32, u32),
    vals: *mut S::Value,
    claim: impl FnMut(u32) -> (u32, bool) + Copy,
) where
    S::Value: Shuffle,
{
    // SAFETY: the caller's contract.
    unsafe {
        walk_products::<S, DENSE_WALK_IN_FLIGHT>(
            a,
            true,
            row,
            cols,
            |col, v| {
                accumulate::<S>(col, v, true, vals, claim);
            },
            Some(|col, p| {
                let (slot, fresh) = { claim }(col);
                let v = vals.add(slot as usize);
                *v = if fresh { p } else { S::add(*v, p) };
            }),
        );
    }
}

/// The first positions in `s..e` of the sorted `cols` whose column is at
/// least `c.0`, and at least `c.1`: two searches side by side, so that
/// each step waits on one load latency for both.
///
/// # Safety
/// `cols[s..e]` readable.
#[inline(always)]
unsafe fn lower_bounds(cols: *const u32, s: u32, e: u32, c: (u32, u32)) -> (u32, u32) {
    let ((mut s0, mut e0), (mut s1, mut e1)) = ((s, e), (s, e));
    while s0 < e0 || s1 < e1 {
        let (m0, m1) = (s0 + (e0 - s0) / 2, s1 + (e1 - s1) / 2);
        // SAFETY: `s ≤ m < e` for each search still open.
        let (v0, v1) = unsafe {
            (
                if s0 < e0 { *cols.add(m0 as usize) } else { 0 },
                if s1 < e1 { *cols.add(m1 as usize) } else { 0 },
            )
        };
        if s0 < e0 {
            (s0, e0) = if v0 < c.0 { (m0 + 1, e0) } else { (s0, m0) };
        }
        if s1 < e1 {
            (s1, e1) = if v1 < c.1 { (m1 + 1, e1) } else { (s1, m1) };
        }
    }
    (s0, s1)
}

/// 16 bytes of words, one vector load.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Words16([u32; 4]);

/// `N` words from `p` (a multiple of 4) of a 16-byte aligned global
/// buffer read once, in 16-byte loads (`ld.global.cs.v4`: a plain read
/// of a `Words16` compiles to four 4-byte loads).
///
/// # Safety
/// `p + N` within the buffer.
#[inline(always)]
unsafe fn read_words<const N: usize>(words: *const u32, p: usize) -> [u32; N] {
    const { assert!(N % 4 == 0) };
    let mut ws = [0; N];
    for (q, chunk) in ws.chunks_exact_mut(4).enumerate() {
        // SAFETY: the caller's; `p` a multiple of 4 keeps every load
        // 16-byte aligned.
        let w: Words16 = unsafe { load_streaming(words.cast::<Words16>().add(p / 4 + q)) };
        chunk.copy_from_slice(&w.0);
    }
    ws
}

/// A plan's lists as the replay reads them.
struct ReplayLists<T> {
    a: SpgemmReplayArgs<T>,
}

impl<T: Copy> ReplayLists<T> {
    /// The A positions of a lane's words `ws`, its `N` from word `p` of a
    /// tile (of `32 × N`) whose `tile_entry` is `info` and `tile_a` `base`:
    /// `base` plus the offset packed in each word, or, in a
    /// [`REPLAY_WIDE_TILE`], `wide_a`'s (`base` the tile's place among the
    /// wide tiles).
    ///
    /// # Safety
    /// `p` a multiple of 4 below the tile's end, the lists as
    /// [`SpgemmReplayArgs`] says.
    #[inline(always)]
    unsafe fn a_positions<const N: usize>(
        &self,
        ws: &[u32; N],
        p: usize,
        info: u64,
        base: u32,
    ) -> [u32; N] {
        if info & REPLAY_WIDE_TILE != 0 {
            let from = WARP_SIZE as usize * N * base as usize + p;
            // SAFETY: each wide tile has `32 × N` positions in `wide_a`.
            unsafe { read_words::<N>(self.a.wide_a.as_ptr(), from) }
        } else {
            core::array::from_fn(|u| base + (ws[u] >> self.a.b_bits))
        }
    }

    /// The lane's words, its `N` from word `p` of tile `t`, with their A
    /// positions, the tile's `tile_entry` and the lane's `lane_flags`: the
    /// loads go out together.
    ///
    /// # Safety
    /// `t < n_tiles`, `p` a multiple of 4 below the tile's end, `p / N`
    /// the calling lane's.
    #[inline(always)]
    unsafe fn lane<const N: usize>(&self, t: usize, p: usize) -> ([u32; N], [u32; N], u64, u16) {
        // SAFETY: the caller's; the lists are read-only to the replay.
        unsafe {
            let ws = read_words::<N>(self.a.words.as_ptr(), WARP_SIZE as usize * N * t + p);
            let info = load_readonly(self.a.tile_entry.as_ptr().add(t));
            let base = load_readonly(self.a.tile_a.as_ptr().add(t));
            let flags = self
                .a
                .lane_flags
                .as_ptr()
                .add(WARP_SIZE as usize * t + p / N);
            let flags = load_readonly(flags);
            (ws, self.a_positions(&ws, p, info, base), info, flags)
        }
    }

    /// The products of a lane's words `ws` at A positions `at`, or the
    /// semiring's zero for each where `skip`: their loads issue together.
    ///
    /// Tried tiles sorted by B's position: half the data sectors read, yet
    /// 0.87×, as the replay is not bound by sectors and the added stores,
    /// warp barrier and loads back lengthen each tile's chain of waits.
    /// Tried `ld.global.cs` here: it evicts first what other lanes read
    /// again (banded 0.45×); streaming loads only for data read once.
    ///
    /// # Safety
    /// `ws` and `at` the lists', as [`Self::lane`] gives them.
    #[inline(always)]
    unsafe fn products<S: Semiring<Value = T>, const N: usize>(
        &self,
        ws: &[u32; N],
        at: &[u32; N],
        skip: bool,
    ) -> [T; N] {
        if skip {
            return [S::zero(); N];
        }
        let b_mask = (1u32 << self.a.b_bits) - 1;
        // SAFETY: the caller's: the lists' positions, a pad's too, lie
        // within A's and B's values, which no thread writes while the
        // replay runs.
        core::array::from_fn(|u| unsafe {
            S::mul(
                load_readonly(self.a.a_values.as_ptr().add(at[u] as usize)),
                load_readonly(self.a.b_values.as_ptr().add((ws[u] & b_mask) as usize)),
            )
        })
    }
}

/// C's values from a plan's tiled lists ([`SpgemmReplayArgs`]), each
/// entry's products added in the listed (serial) order, the first taken
/// as it is, as the serial engine does. A warp a tile, 4 products a lane
/// (`spgemm_replay_4`) or 8 (`spgemm_replay_8`): every lane reads its words
/// in 16-byte loads and computes its products at once, however the lists
/// fall, then folds the sums that begin among them; a sum that runs on
/// from the lanes before waits for theirs, passed lane to lane by shuffles
/// (one round where lists are short). The warp that begins a list
/// finishes it: a list that runs past its tile, the warp reads on, a tile
/// a round, adding them in order: every lane all of them at 4 a lane
/// (`fold_prefix`), lane by lane at 8 (`relay_prefix`). The tiles in
/// `long_tiles` go first.
///
/// A lane's stores of C's entries, a few words apart, write each sector of
/// C in parts; `spgemm_replay_4_staged` and `_8_staged` stage a tile's
/// entries in shared memory and copy them out whole, which pays where L2's
/// traffic bounds the replay (many entries of few products).
///
/// Launch: 1D, block size a multiple of 32, any grid; the staged kernels
/// `32 × 4` values of dynamic shared memory a warp (`32 × 8` for
/// `spgemm_replay_8_staged`).
///
/// # Safety
/// [`SpgemmReplayArgs`] valid for tiles of 32 × 4 products: every list
/// non-empty, every position within A's and B's values, `words` and
/// `wide_a` 16-byte aligned, `b_bits` from 1 to 31, `n_tiles` below
/// [`REPLAY_MAX_TILES`](crate::args::REPLAY_MAX_TILES); when staging, the
/// shared memory above.
#[inline(always)]
pub unsafe fn spgemm_replay_4<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_NARROW_LANE as usize }, false>(a) }
}

/// [`spgemm_replay_4`], each tile's entries staged in shared memory.
///
/// # Safety
/// [`spgemm_replay_4`]'s, with its shared memory.
#[inline(always)]
pub unsafe fn spgemm_replay_4_staged<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_NARROW_LANE as usize }, true>(a) }
}

/// [`spgemm_replay_4`] with 8 products a lane, tiles of 32 × 8.
///
/// # Safety
/// [`spgemm_replay_4`]'s, for tiles of 32 × 8 products.
#[inline(always)]
pub unsafe fn spgemm_replay_8<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_WIDE_LANE as usize }, false>(a) }
}

/// [`spgemm_replay_8`], each tile's entries staged in shared memory.
///
/// # Safety
/// [`spgemm_replay_4`]'s, for tiles of 32 × 8 products, with its shared
/// memory.
#[inline(always)]
pub unsafe fn spgemm_replay_8_staged<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_WIDE_LANE as usize }, true>(a) }
}

/// [`spgemm_replay_4`] and [`spgemm_replay_8`], `N` products a lane,
/// staging each tile's entries where `STAGE`.
///
/// # Safety
/// Theirs.
#[inline(always)]
unsafe fn spgemm_replay<S: Semiring, const N: usize, const STAGE: bool>(
    a: SpgemmReplayArgs<S::Value>,
) where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (n_long, n_tiles) = (a.n_long as u32, a.n_tiles as u32);
    let shift = a.tile_run_shift;
    let tiles_a_warp = 1 << shift;
    let long_tiles = a.long_tiles.as_ptr();
    let lists = ReplayLists { a };
    let p = N * lane_id() as usize;
    // A warp's share: a long tile, or `tiles_a_warp` tiles in a row (the
    // `i`th now), one tile a round so that the tile's code is inlined
    // once. Tiles are counted in `u32` (fewer than `REPLAY_MAX_TILES`).
    let shares = n_long + ((n_tiles + tiles_a_warp - 1) >> shift);
    let mut w = global_warp_id();
    let mut i = 0;
    // Warp-uniform: a warp's lanes share the tile.
    while w < shares {
        let (t, first, last_of_share) = if w < n_long {
            // SAFETY: `w < n_long` entries are listed, read-only.
            (
                unsafe { load_readonly(long_tiles.add(w as usize)) } as usize,
                true,
                true,
            )
        } else {
            let t = ((w - n_long) << shift) + i;
            (t as usize, false, i + 1 == tiles_a_warp || t + 1 == n_tiles)
        };
        // SAFETY: `t` is a listed long tile or below `n_tiles`: its words
        // and entry are readable; the lists as the contract says.
        unsafe {
            let (ws, at, info, flags) = lists.lane::<N>(t, p);
            if first || info & REPLAY_LONG_TILE == 0 {
                replay_tile::<S, N, STAGE, true>(&lists, t, &ws, &at, info, flags);
            }
        }
        if last_of_share {
            // LLVM hoists the stride out of the loop; f64's kernels, short
            // of registers, spilled it, so they read it again here. f32's
            // hold it in a register, where reading it again cost them 1–3%
            // on the largest products.
            w += if size_of::<S::Value>() > 4 {
                grid_warps_reread()
            } else {
                grid_warps()
            };
            i = 0;
        } else {
            i += 1;
        }
    }
}

/// The products of the list run on into tile `t` from the tiles before,
/// those before the tile's first flag (all of them where it has none): the
/// lane's `N` (the semiring's zero past the list) and their count.
///
/// # Safety
/// `t < n_tiles`; the lists as [`SpgemmReplayArgs`] says; the whole warp
/// calls it.
#[inline(always)]
unsafe fn run_on_products<S: Semiring, const N: usize>(
    lists: &ReplayLists<S::Value>,
    t: usize,
) -> ([S::Value; N], u32)
where
    S::Value: Shuffle,
{
    let p = N as u32 * lane_id();
    // SAFETY: the caller's; the shuffle and vote are the whole warp's.
    unsafe {
        let (ws, at, _, flags) = lists.lane::<N>(t, p as usize);
        let bounds = replay_bounds(flags);
        let bounded = warp::ballot(bounds != 0);
        let stop = if bounded == 0 {
            WARP_SIZE * N as u32
        } else {
            let l = bounded.trailing_zeros();
            N as u32 * l + warp::shuffle_idx(bounds.trailing_zeros(), l)
        };
        (lists.products::<S, N>(&ws, &at, p >= stop), stop)
    }
}

/// `sum` plus the warp's first `stop` products `x` of a run-on list, in
/// order: every lane adds them all at 4 a lane ([`fold_prefix`], as many
/// a step as registers allow), lane by lane at 8 ([`relay_prefix`]).
///
/// # Safety
/// The whole warp calls it with the same `stop`, at most `32·N`.
#[inline(always)]
unsafe fn fold_run_on<S: Semiring, const N: usize>(
    sum: S::Value,
    x: &[S::Value; N],
    stop: u32,
) -> S::Value
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe {
        if N == REPLAY_NARROW_LANE as usize {
            if size_of::<S::Value>() <= 4 {
                fold_prefix::<S, N, 8>(sum, x, stop)
            } else {
                fold_prefix::<S, N, 4>(sum, x, stop)
            }
        } else {
            relay_prefix::<S, N>(sum, x, stop)
        }
    }
}

/// The long tiles of a plan's lists ([`SpgemmReplayArgs::long_tiles`]),
/// a block each, where the plan runs them beside [`spgemm_replay_4`] (which
/// is then launched with `n_long` 0, and skips them). A long tile's last
/// list runs on through a chain of tiles that one warp would read one
/// after another, two trips to memory each (words, then products), while
/// the rest of the replay has long finished: here its block's warps read
/// a tile each at once. Warp 0 replays the tile, while the others compute
/// the list's products in the tiles after it into their slots of shared
/// memory; then warp 0 folds the slots in order (the same sums, in the
/// serial order) while the others wait (a chain of adds runs fastest with
/// no other warp issuing), and the next 16 tiles are read, until the list
/// ends. Warp 0 stores the sum.
///
/// Launch: 1D, blocks of [`REPLAY_LONG_BLOCK`] threads, any grid; dynamic
/// shared memory: `32 × 4` values and 4 bytes a warp, and one value more
/// (16 bytes in all, for any value's alignment).
///
/// # Safety
/// [`spgemm_replay_4`]'s, each long tile's last list running on into the
/// tiles after it, and the shared memory above.
#[inline(always)]
pub unsafe fn spgemm_replay_long_4<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { replay_long_tiles::<S, { REPLAY_NARROW_LANE as usize }>(a) }
}

/// [`spgemm_replay_long_4`] for tiles of 32 × 8 products
/// ([`spgemm_replay_8`]'s), `32 × 8` values a warp.
///
/// # Safety
/// [`spgemm_replay_long_4`]'s, for tiles of 32 × 8 products.
#[inline(always)]
pub unsafe fn spgemm_replay_long_8<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { replay_long_tiles::<S, { REPLAY_WIDE_LANE as usize }>(a) }
}

/// [`spgemm_replay_long_4`] and `_8`, `N` products a lane.
///
/// # Safety
/// Theirs.
#[inline(always)]
unsafe fn replay_long_tiles<S: Semiring, const N: usize>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x() == REPLAY_LONG_BLOCK);
    let (n_long, long_tiles) = (a.n_long as u32, a.long_tiles.as_ptr());
    let lists = ReplayLists { a };
    let mut b = block_idx_x();
    // Block-uniform.
    while b < n_long {
        // SAFETY: `b < n_long` tiles are listed, read-only; the whole block
        // is here, with its shared memory.
        unsafe {
            let t = load_readonly(long_tiles.add(b as usize));
            replay_long::<S, N>(&lists, t as usize);
        }
        b += grid_dim_x();
    }
}

/// Long tile `t` by the whole block (see [`spgemm_replay_long_4`]).
///
/// # Safety
/// `t < n_tiles`; the lists as [`SpgemmReplayArgs`] says; the whole block
/// calls it, with the shared memory [`spgemm_replay_long_4`] says.
#[inline(always)]
unsafe fn replay_long<S: Semiring, const N: usize>(lists: &ReplayLists<S::Value>, t: usize)
where
    S::Value: Shuffle,
{
    let (tile, warps) = (WARP_SIZE * N as u32, REPLAY_LONG_BLOCK / WARP_SIZE);
    let (lane, k) = (lane_id(), warp_id());
    let p = (N as u32 * lane) as usize;
    let n_tiles = lists.a.n_tiles as usize;
    // Each warp's slot of `tile` values, then each slot's count of the
    // list's products, then the sum open at `t`'s end (aligned for any
    // value after the counts, which follow whole slots).
    let slots = shared::dynamic::<S::Value>();
    // SAFETY (whole body): the shared memory holds the slots, the sum and
    // the counts; tiles below `n_tiles` are readable; every barrier,
    // shuffle and vote is reached by the whole block or warp (the branches
    // around them are on `k`, or on values every warp computes alike).
    unsafe {
        let counts = slots.add((warps * tile) as usize).cast::<u32>();
        let open_at = counts.add(warps as usize).cast::<S::Value>();
        // The sum open at `t`'s end, and that entry's place in C: warp 0's.
        let mut open = None;
        if k == 0 {
            let (ws, at, info, flags) = lists.lane::<N>(t, p);
            open = replay_tile::<S, N, false, false>(lists, t, &ws, &at, info, flags);
        }
        let info = load_readonly(lists.a.tile_entry.as_ptr().add(t));
        if replay_real(info) < tile || info & REPLAY_RUNS_ON == 0 {
            // No list runs on (the host marks no such tile long).
            if let Some((open, last)) = open
                && lane == 0
            {
                *lists.a.c_values.as_mut_ptr().add(last) = open;
            }
            return;
        }
        // A round reads tiles `from` to `from + warps - 1`, slot `k` warp
        // `k`'s (in the first, slot 0 is `t`, replayed); `s` is the slot
        // folded next, `warps` where a round is to be read. One fold is
        // written, so that its code is inlined once.
        let (mut from, mut s, mut sum) = (t, warps, S::zero());
        loop {
            if s == warps {
                let j = from + k as usize;
                if j == t {
                    if let Some((open, _)) = open
                        && lane == 0
                    {
                        *open_at = open;
                    }
                } else {
                    let count = if j < n_tiles {
                        let (x, count) = run_on_products::<S, N>(lists, j);
                        let slot = slots.add((k * tile) as usize + p);
                        for (u, &v) in x.iter().enumerate() {
                            *slot.add(u) = v;
                        }
                        count
                    } else {
                        0
                    };
                    if lane == 0 {
                        *counts.add(k as usize) = count;
                    }
                }
                sync_threads();
                s = 0;
                if from == t {
                    sum = *open_at;
                    s = 1;
                }
            }
            // Warp 0 folds slot `s`; the list ends in the tile where it
            // has fewer products than the tile.
            let count = *counts.add(s as usize);
            if k == 0 {
                let slot = slots.add((s * tile) as usize + p);
                let x: [S::Value; N] = core::array::from_fn(|u| *slot.add(u));
                sum = fold_run_on::<S, N>(sum, &x, count);
            }
            s += 1;
            if count < tile || s == warps {
                // The slots are free for the next round, or the block's
                // next tile.
                sync_threads();
                if count < tile {
                    break;
                }
                from += warps as usize;
            }
        }
        if let Some((_, last)) = open
            && lane == 0
        {
            *lists.a.c_values.as_mut_ptr().add(last) = sum;
        }
    }
}

/// `sum` plus the warp's first `stop` products, in order: lane `l`'s
/// `x[u]` is product `N·l + u`. Every lane returns the same sum. The
/// products come to every lane by shuffles, `K` a step, and each
/// product's shuffle for the next step is asked for as soon as this
/// step's product in its register is added: the adds, which must follow
/// one another, then seldom wait for a shuffle. `K` is what registers
/// allow: 8 of 4 bytes or 4 of 8 (2 of 8, a step of half a lane's, left
/// the adds waiting on shuffles: long lists in f64 took twice f32's time).
///
/// # Safety
/// The whole warp calls it with the same `stop`, at most `32·N`.
#[inline(always)]
unsafe fn fold_prefix<S: Semiring, const N: usize, const K: usize>(
    mut sum: S::Value,
    x: &[S::Value; N],
    stop: u32,
) -> S::Value
where
    S::Value: Shuffle,
{
    const { assert!(K % N == 0 || N % K == 0) };
    // Product `K·s + k`, from lane `(K·s + k) / N`. Where a step is part
    // of a lane's products (`K < N`), selects pick the part: an index into
    // `x` that is not a constant would put it in local memory.
    let product = |s: u32, k: usize| -> S::Value {
        let i = K * s as usize + k;
        let mut v = x[k % N];
        if K < N {
            for part in 1..N / K {
                if (i % N) / K == part {
                    v = x[part * K + k];
                }
            }
        }
        // SAFETY: the whole warp calls with the same `s` (the caller's).
        unsafe { warp::shuffle_idx(v, (i / N) as u32) }
    };
    let steps = stop.div_ceil(K as u32);
    if steps == 0 {
        return sum;
    }
    let mut ys: [S::Value; K] = core::array::from_fn(|k| product(0, k));
    // Every step but the last adds all its products; the last asks for
    // no more shuffles.
    let mut s = 0;
    while s + 1 < steps {
        for (k, y) in ys.iter_mut().enumerate() {
            sum = S::add(sum, *y);
            *y = product(s + 1, k);
        }
        s += 1;
    }
    for (k, &y) in ys.iter().enumerate() {
        if K as u32 * s + (k as u32) < stop {
            sum = S::add(sum, y);
        }
    }
    sum
}

/// [`fold_prefix`]'s sum by a relay: lane by lane, lane `l` adds its
/// products to the sum so far and one shuffle passes the result to all
/// (the other lanes' adds are thrown away, so none needs a test but the
/// last lane's, which adds only those below `stop`). `N` adds and one
/// shuffle a lane, where `fold_prefix` takes a shuffle and an add a
/// product; the adds of a lane wait for the shuffle before them.
///
/// # Safety
/// The whole warp calls it with the same `stop`, at most `32·N`.
#[inline(always)]
unsafe fn relay_prefix<S: Semiring, const N: usize>(
    mut sum: S::Value,
    x: &[S::Value; N],
    stop: u32,
) -> S::Value
where
    S::Value: Shuffle,
{
    let (whole, rest) = (stop / N as u32, stop % N as u32);
    for l in 0..whole {
        let s = x.iter().fold(sum, |s, &y| S::add(s, y));
        // SAFETY: the whole warp calls with the same `l` (the caller's).
        sum = unsafe { warp::shuffle_idx(s, l) };
    }
    if rest > 0 {
        // SAFETY: as above.
        sum = unsafe { warp::shuffle_idx(add_first::<S, N>(sum, x, rest), whole) };
    }
    sum
}

/// `s` plus the first `k` of `x`, in order.
#[inline(always)]
fn add_first<S: Semiring, const N: usize>(mut s: S::Value, x: &[S::Value; N], k: u32) -> S::Value {
    for (u, &y) in x.iter().enumerate() {
        if (u as u32) < k {
            s = S::add(s, y);
        }
    }
    s
}

/// One warp's tile `t` of [`spgemm_replay`]: the lane's words `ws`, their
/// A positions `at`, the tile's `tile_entry` word `info` and the lane's
/// `lane_flags`. Stores the entries that end in the tile, and where `WALK`
/// the entry whose list runs on, read on by the warp. Where it does not
/// walk and the tile has no pads, returns the sum open at its end (every
/// lane's) and that entry's place in C.
///
/// # Safety
/// `t < n_tiles`; the lists as [`SpgemmReplayArgs`] says; the whole warp
/// calls it.
#[inline(always)]
unsafe fn replay_tile<S: Semiring, const N: usize, const STAGE: bool, const WALK: bool>(
    lists: &ReplayLists<S::Value>,
    t: usize,
    ws: &[u32; N],
    at: &[u32; N],
    info: u64,
    flags: u16,
) -> Option<(S::Value, usize)>
where
    S::Value: Shuffle,
{
    let tile = WARP_SIZE * N as u32;
    let c = lists.a.c_values.as_mut_ptr();
    let lane = lane_id();
    let (entry, real) = (replay_entry(info), replay_real(info));
    // The lane's first word in the tile; its words before the pads.
    let p = N as u32 * lane;
    let real_mask = (1u32 << real.saturating_sub(p).min(N as u32)) - 1;
    // SAFETY (whole body): the tile's words are readable (`t < n_tiles`),
    // a flagged word's entry is below `n_entries`, a tile's entries number
    // at most `tile` (the staging slots'), and every shuffle, vote and
    // warp barrier is reached by the whole warp (the branches on them are
    // warp-uniform).
    unsafe {
        let bounds = replay_bounds(flags);
        let starts = bounds & real_mask;
        let bounded = warp::ballot(bounds != 0);
        if bounded == 0 {
            // Within one long list, its first warp's.
            return None;
        }
        // The lanes before the first flag hold the end of a list begun
        // in an earlier tile, another warp's.
        let first_lane = bounded.trailing_zeros();
        let x = lists.products::<S, N>(ws, at, lane < first_lane);
        let count = starts.count_ones();
        let before = replay_before(flags);
        // The tile's entries, from its first; a tile holds at most
        // `32·N` of them, so they are counted from there in `u32`.
        let c = c.add(entry as usize);
        // Where the lanes write the tile's entries: C, or the warp's slots
        // in shared memory (the launch gives it `tile` values there) when
        // staging.
        let out = if STAGE {
            shared::dynamic::<S::Value>().add((warp_id() * tile) as usize)
        } else {
            c
        };
        // The lane's own sums, each from its flag to the next. A flag ends
        // the sum begun at the flag before it in the lane where the word
        // before it is no pad (pads only follow pads, so that flag began
        // an entry); that entry is the lane's starts so far, counted from
        // `before`. The sum open before the lane's first flag is the next
        // lanes' to finish, so the first word needs no add.
        let ends = bounds & bounds.wrapping_sub(1) & real_mask << 1;
        let mut open = x[0];
        for u in 1..N {
            if ends >> u & 1 != 0 {
                let e = before + (starts & ((1 << u) - 1)).count_ones();
                *out.add(e as usize - 1) = open;
            }
            open = if bounds >> u & 1 != 0 {
                x[u]
            } else {
                S::add(open, x[u])
            };
        }
        // A lane with no flag after the first adds its products to the sum
        // open at the lane before once that is final: `d` rounds after the
        // last lane before it with a flag. Rounds run while a run of lanes
        // with no flag is longer than the rounds so far (`run`).
        let flagged_before = bounded & lane_mask_lt();
        let d = if bounds == 0 && flagged_before != 0 {
            lane - (31 - flagged_before.leading_zeros())
        } else {
            0
        };
        let mut run = !bounded & u32::MAX << first_lane;
        let mut round = 1;
        while run != 0 {
            let carried = warp::shuffle_up(open, 1);
            if d == round {
                open = x.iter().fold(carried, |s, &y| S::add(s, y));
            }
            run &= run << 1;
            round += 1;
        }
        // A lane with a flag ends the sum open at the lane before, an
        // entry's where that lane's last word is no pad (pads only follow
        // pads), adding its words before the flag.
        let carried = warp::shuffle_up(open, 1);
        if bounds != 0 && lane > first_lane && p <= real {
            let head = add_first::<S, N>(carried, &x, bounds.trailing_zeros());
            *out.add(before as usize - 1) = head;
        }
        // Staged entries go to C a sector at a time. Where the tile has no
        // pads, the last entry is the sum open at its end, which runs on
        // into the next tiles where `info` says.
        // The tile's entries: asked for only where needed (a shuffle, and
        // a register held across the stores).
        let total = || warp::shuffle_idx(before + count, WARP_SIZE - 1);
        let staged_total = STAGE.then(total);
        if let Some(total) = staged_total {
            let done = if real < tile { total } else { total - 1 };
            warp::sync_warp(FULL_MASK);
            let mut r = lane;
            while r < done {
                *c.add(r as usize) = *out.add(r as usize);
                r += WARP_SIZE;
            }
            // The slots are free for the warp's next tile.
            warp::sync_warp(FULL_MASK);
        }
        if real < tile {
            return None;
        }
        let mut sum = warp::shuffle_idx(open, WARP_SIZE - 1);
        let last = staged_total.unwrap_or_else(total) as usize - 1;
        if !WALK {
            return Some((sum, entry as usize + last));
        }
        let n_tiles = lists.a.n_tiles as usize;
        let mut next = t + 1;
        while info & REPLAY_RUNS_ON != 0 && next < n_tiles {
            let (x, stop) = run_on_products::<S, N>(lists, next);
            sum = fold_run_on::<S, N>(sum, &x, stop);
            if stop < tile {
                break;
            }
            next += 1;
        }
        if lane == 0 {
            *c.add(last) = sum;
        }
        None
    }
}
