//! SpGEMM kernel bodies, `C = A ⊗ B` over a semiring with A, B and C in
//! CSR; [`crate::kernels`] stamps the row kernels per semiring, and the
//! classification, binning and scan kernels are utility entry points.
//!
//! The host runs two phases over the same row kernels: *symbolic* (the
//! exact length of every row of C), a prefix sum of the lengths (C's row
//! offsets), then *numeric* (the entries). Rows are binned by their
//! product count, Σ over A(i,k) of |B(k,:)|:
//!
//! | family         | rows                              | one … per row | how                                   |
//! |----------------|-----------------------------------|---------------|---------------------------------------|
//! | `spgemm_copy`  | ≤ 1 entry of A, or no products    | warp          | a scaled copy of B's row              |
//! | `spgemm_warp`  | ≤ `SPGEMM_WARP_MAX` products      | warp          | sort the products by (column, order)  |
//! | `spgemm_block` | ≤ `SPGEMM_BLOCK_MAX` products     | block         | the same, in a block's shared memory  |
//! | `spgemm_dense` | more                              | block         | dense accumulator in global memory    |
//!
//! **Why sort, not merge or hash.** The sort path gathers a row's products
//! into shared memory with the key `(column, product number)` — products
//! numbered in A's order, then B's — and sorts the keys (bitonic: in
//! registers up to 32, in shared memory beyond). Equal columns are then
//! adjacent *and in the serial engine's order*, so each entry of C is
//! summed exactly as the serial engine sums it: the same bits for every
//! semiring, plus-times included, on every run, with no atomics on values.
//! A hash table would need a sort afterwards anyway (C's rows are sorted)
//! and atomics, whose order varies from run to run; the iterative row merge
//! of Gremse et al. needs a pass per 32 entries of A and sums in a tree.
//!
//! **Long rows.** A row with more products than a block can sort goes to
//! `spgemm_dense`: a dense accumulator, a presence bit and a value for
//! every column of the row's span — in shared memory when the span fits
//! (about 12K columns in `f32`), else in a slot of global memory as wide
//! as B that the block owns — whose 8 warps split the span between them. Each warp walks A's row in order and, for each
//! entry, the part of B's row inside its columns (lanes on consecutive
//! entries: distinct columns, so no two lanes touch one value), so again
//! each value is summed in the serial order. The row is then read out in
//! column order by a scan of the presence words.

use crate::args::{
    SCAN_TILE, SPGEMM_BLOCK_MAX, SPGEMM_CLASSES, SPGEMM_DENSE_SHARED, SPGEMM_WARP_MAX, ScanArgs,
    SpgemmClassifyArgs, SpgemmRowsArgs,
};
use crate::device::atomic::{
    atomic_add_u32, atomic_add_u64, atomic_max_u32, atomic_min_u32, atomic_or_u32,
};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, global_warp_id, grid_dim_x, grid_size_1d, grid_warps,
    index_1d, lane_id, require, sync_threads, thread_idx_x, warp_id,
};
use crate::device::warp::{self, FULL_MASK, Shuffle, lane_mask_lt};
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
unsafe fn warp_inclusive_scan<T: Shuffle + core::ops::AddAssign>(mut v: T) -> T {
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
unsafe fn block_exclusive_scan(v: u64, warp_sums: *mut u64) -> (u64, u64) {
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

/// A's row `i` (start, length) and its product count.
///
/// # Safety
/// `i` is a row of A; A and B valid with `col_idx < B's rows`.
#[inline(always)]
unsafe fn row_products(a: &SpgemmClassifyArgs, i: u32) -> (u32, u64) {
    // SAFETY: the caller's contract.
    unsafe {
        let (ap, ac, bp) = (
            a.a_row_ptr.as_ptr(),
            a.a_col_idx.as_ptr(),
            a.b_row_ptr.as_ptr(),
        );
        let (s, e) = (*ap.add(i as usize), *ap.add(i as usize + 1));
        let mut products = 0u64;
        for q in s..e {
            let k = *ac.add(q as usize) as usize;
            products += u64::from(*bp.add(k + 1) - *bp.add(k));
        }
        (e - s, products)
    }
}

/// The class of a row with `len_a` entries and `products` products (a
/// sorting group holds both, so the larger decides).
#[inline(always)]
fn class_of(len_a: u32, products: u64) -> u32 {
    let size = products.max(u64::from(len_a));
    if len_a <= 1 || products == 0 {
        0
    } else if size <= u64::from(SPGEMM_WARP_MAX) {
        1
    } else if size <= u64::from(SPGEMM_BLOCK_MAX) {
        2
    } else {
        3
    }
}

/// Classifies rows `row_start..row_end` ([`SpgemmClassifyArgs`]). Counts
/// are added a warp at a time (one atomic per class a warp, not a row).
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// A and B valid CSR on the device, A's columns < B's rows; `class` holds
/// `row_end − row_start` bytes, `row_len` A's rows, `counts` four zeroed
/// counters, `products` one zeroed `u64`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_classify(a: SpgemmClassifyArgs) {
    let lane = lane_id();
    let n = a.row_end - a.row_start;
    let mut base = global_warp_id() * WARP_SIZE;
    while base < n {
        let r = base + lane;
        let (class, products) = if r < n {
            let i = a.row_start + r;
            // SAFETY: `i` is a row of A.
            let (len_a, products) = unsafe { row_products(&a, i) };
            let class = class_of(len_a, products);
            // SAFETY: in bounds by the launch contract.
            unsafe {
                *a.class.as_mut_ptr().add(r as usize) = class as u8;
                if class == 0 {
                    // A class-0 row's products are distinct columns (fewer
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

/// How a group of threads that shares one row synchronises.
trait Group {
    /// This thread's rank in the group.
    fn rank() -> u32;
    /// Threads in the group.
    fn size() -> u32;
    /// The group's barrier (and memory fence for its shared memory).
    unsafe fn sync();
}

/// A warp.
struct Warp;
impl Group for Warp {
    #[inline(always)]
    fn rank() -> u32 {
        lane_id()
    }
    #[inline(always)]
    fn size() -> u32 {
        WARP_SIZE
    }
    #[inline(always)]
    unsafe fn sync() {
        // SAFETY: the caller's contract: the whole warp calls.
        unsafe { warp::sync_warp(FULL_MASK) }
    }
}

/// A block.
struct Block;
impl Group for Block {
    #[inline(always)]
    fn rank() -> u32 {
        thread_idx_x()
    }
    #[inline(always)]
    fn size() -> u32 {
        block_dim_x()
    }
    #[inline(always)]
    unsafe fn sync() {
        // SAFETY: the caller's contract: the whole block calls.
        unsafe { sync_threads() }
    }
}

/// A group's shared memory for sorting up to `capacity` products: see
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

/// One row of C by sorting its products (`spgemm_warp`, `spgemm_block`):
/// see the module documentation. `capacity` bounds the row's products.
///
/// # Safety
/// Every thread of the group calls with the same `row`; the row has at
/// least 2 entries of A and at most `capacity` products; `space` is the
/// group's own.
#[inline(always)]
unsafe fn sort_row<S: Semiring, G: Group>(
    a: &SpgemmRowsArgs<S::Value>,
    row: u32,
    space: &SortSpace<S::Value>,
    capacity: u32,
) {
    let (rank, size) = (G::rank(), G::size());
    let lane = lane_id();
    let numeric = a.numeric != 0;
    // SAFETY: indices within A, B, C and `space` by the contract; barriers
    // reached by the whole group (every branch below is group-uniform, or
    // taken by the group's first warp as a whole).
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
        G::sync();
        let products = *space.first.add(len_a as usize);
        require(products <= capacity);
        let m = products.next_power_of_two();
        // Gather: product p comes from the last entry j with first[j] ≤ p.
        let mut p = rank;
        while p < m {
            let mut k = u64::MAX;
            if p < products {
                let (mut lo, mut hi) = (0u32, len_a);
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    if *space.first.add(mid as usize) <= p {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let q =
                    (*space.b_start.add(lo as usize) + p - *space.first.add(lo as usize)) as usize;
                k = key(*a.b_col_idx.as_ptr().add(q), p);
                if numeric {
                    let x = *a.a_values.as_ptr().add((start + lo) as usize);
                    *space.values.add(p as usize) = S::mul(x, *a.b_values.as_ptr().add(q));
                }
            }
            *space.keys.add(p as usize) = k;
            p += size;
        }
        G::sync();
        sort_keys::<G>(space.keys, m);
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
        G::sync();
    }
}

/// Sorts `keys[..m]` (`m` a power of two) ascending, by the group: a
/// bitonic network, in registers when the group is a warp and `m ≤ 32`.
///
/// # Safety
/// Every thread of the group calls; `keys` holds `m` values and is the
/// group's own.
#[inline(always)]
unsafe fn sort_keys<G: Group>(keys: *mut u64, m: u32) {
    let rank = G::rank();
    // SAFETY: indices below `m`; barriers reached by the whole group.
    unsafe {
        if G::size() == WARP_SIZE && m <= WARP_SIZE {
            let lane = lane_id();
            let mut k = if lane < m {
                *keys.add(lane as usize)
            } else {
                u64::MAX
            };
            let mut size = 2;
            while size <= WARP_SIZE {
                let mut stride = size / 2;
                while stride > 0 {
                    let other = warp::shuffle_xor(k, stride);
                    let keep_min = (lane & stride == 0) == (lane & size == 0);
                    k = if keep_min { k.min(other) } else { k.max(other) };
                    stride /= 2;
                }
                size *= 2;
            }
            if lane < m {
                *keys.add(lane as usize) = k;
            }
            G::sync();
            return;
        }
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
                    t += G::size();
                }
                G::sync();
                stride /= 2;
            }
            size *= 2;
        }
    }
}

/// Rows of up to [`SPGEMM_WARP_MAX`] products, a warp each, sorted in the
/// warp's shared memory (symbolic or numeric, [`SpgemmRowsArgs`]).
///
/// Launch: 1D, block size a multiple of 32, any grid, dynamic shared
/// memory `warps a block · spgemm_sort_shared_bytes(SPGEMM_WARP_MAX, size)`.
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the phase; the listed rows have ≥ 2
/// entries of A and at most [`SPGEMM_WARP_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_warp<S: Semiring>(a: SpgemmRowsArgs<S::Value>) {
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let bytes =
        crate::args::spgemm_sort_shared_bytes(SPGEMM_WARP_MAX, size_of::<S::Value>() as u32);
    // SAFETY: the launch gives each warp `bytes`.
    let space = SortSpace::at(
        unsafe { shared::dynamic::<u8>().add((warp_id() * bytes) as usize) },
        SPGEMM_WARP_MAX,
    );
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: the contract; `w` is warp-uniform.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            sort_row::<S, Warp>(&a, row, &space, SPGEMM_WARP_MAX);
        }
        w += grid_warps();
    }
}

/// Rows of up to [`SPGEMM_BLOCK_MAX`] products, a block each, sorted in
/// the block's shared memory (symbolic or numeric, [`SpgemmRowsArgs`]).
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
            sort_row::<S, Block>(&a, row, &space, SPGEMM_BLOCK_MAX);
        }
        b += grid_dim_x();
    }
}

/// Rows of any length, a block each, through a dense accumulator in global
/// memory (symbolic or numeric, [`SpgemmRowsArgs`]): see the module
/// documentation. Block `b` uses slot `b` of the scratch.
///
/// Launch: 1D, block size a multiple of 32 (at most 1024), a grid of at
/// most as many blocks as scratch slots,
/// [`crate::args::spgemm_dense_shared_bytes`] of dynamic shared memory.
///
/// # Safety
/// [`SpgemmRowsArgs`] valid for the phase; listed rows have ≥ 1 product;
/// `slot_words ≥ ⌈B's columns / 32⌉ + 1`.
#[inline(always)]
pub unsafe fn spgemm_dense<S: Semiring>(a: SpgemmRowsArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (tid, lane, wid) = (thread_idx_x(), lane_id(), warp_id());
    let warps = block_dim_x() / WARP_SIZE;
    let numeric = a.numeric != 0;
    let slot = block_idx_x() as usize;
    let words = a.slot_words as usize;
    // SAFETY: slot `b` of the scratch is this block's.
    let (slot_flags, slot_vals) = unsafe {
        (
            a.scratch_flags.as_mut_ptr().add(slot * words),
            a.scratch_values.as_mut_ptr().add(slot * words * 32),
        )
    };
    // Shared: [0] lowest column, [1] highest; the scan's 33 slots; then the
    // shared accumulator, `shared_words` words and their values.
    let small = shared::dynamic::<u32>();
    // SAFETY: within the launch's shared memory (see `spgemm_dense_shared_bytes`).
    let (warp_sums, shared_flags, shared_vals) = unsafe {
        let base = shared::dynamic::<u8>();
        let flags = base.add(SPGEMM_DENSE_SHARED as usize).cast::<u32>();
        (
            small.add(4).cast::<u64>(),
            flags,
            flags.add(a.shared_words as usize).cast::<S::Value>(),
        )
    };
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
                j += block_dim_x();
            }
            sync_threads();
            let (lo, hi) = (*small, *small.add(1));
            let w0 = lo / 32;
            let n_words = hi / 32 - w0 + 1;
            // A span that fits accumulates in shared memory.
            let (flags, vals) = if n_words <= a.shared_words {
                (shared_flags, shared_vals)
            } else {
                (slot_flags, slot_vals)
            };
            let mut w = tid;
            while w < n_words {
                *flags.add(w as usize) = 0;
                w += block_dim_x();
            }
            sync_threads();
            // This warp's columns: whole words, the span split in `warps`.
            let per = n_words.div_ceil(warps);
            let my_lo = (w0 + (wid * per).min(n_words)) * 32;
            let my_hi = (w0 + ((wid + 1) * per).min(n_words)) * 32;
            let mut j0 = 0;
            while my_lo < my_hi && j0 < len_a {
                // Lane t finds, for entry j0 + t, its entries in my columns.
                let j = j0 + lane;
                let (mut qs, mut qe, mut x) = (0u32, 0u32, S::zero());
                if j < len_a {
                    let k = *ac.add(j as usize) as usize;
                    let (s, e) = (*bp.add(k), *bp.add(k + 1));
                    qs = lower_bound(bc, s, e, my_lo);
                    qe = lower_bound(bc, qs, e, my_hi);
                    if numeric {
                        x = *a.a_values.as_ptr().add((start + j) as usize);
                    }
                }
                let batch = (len_a - j0).min(WARP_SIZE);
                for t in 0..batch {
                    let s = warp::shuffle_idx(qs, t);
                    let e = warp::shuffle_idx(qe, t);
                    let x = if numeric { warp::shuffle_idx(x, t) } else { x };
                    let mut q = s + lane;
                    while q < e {
                        let idx = *bc.add(q as usize) - w0 * 32;
                        let bit = 1u32 << (idx % 32);
                        let old = atomic_or_u32(flags.add((idx / 32) as usize), bit);
                        if numeric {
                            let p = S::mul(x, *a.b_values.as_ptr().add(q as usize));
                            let v = vals.add(idx as usize);
                            *v = if old & bit == 0 { p } else { S::add(*v, p) };
                        }
                        q += WARP_SIZE;
                    }
                    // The next entry's products see this one's.
                    warp::sync_warp(FULL_MASK);
                }
                j0 += WARP_SIZE;
            }
            sync_threads();
            // Read out in column order.
            let out = if numeric { c_start(&a, row) } else { 0 };
            let mut written = 0u64;
            let mut base = 0;
            while base < n_words {
                let w = base + tid;
                let word = if w < n_words {
                    *flags.add(w as usize)
                } else {
                    0
                };
                let (before, total) = block_exclusive_scan(u64::from(word.count_ones()), warp_sums);
                if numeric {
                    let mut at = out + (written + before) as usize;
                    let mut bits = word;
                    while bits != 0 {
                        let bit = bits.trailing_zeros();
                        let idx = w * 32 + bit;
                        *a.c_col_idx.as_mut_ptr().add(at) = w0 * 32 + idx;
                        *a.c_values.as_mut_ptr().add(at) = *vals.add(idx as usize);
                        at += 1;
                        bits &= bits - 1;
                    }
                }
                written += total;
                base += block_dim_x();
            }
            if !numeric && tid == 0 {
                *a.row_len.as_mut_ptr().add(row as usize) = written as u32;
            }
            sync_threads();
        }
        b += grid_dim_x();
    }
}

/// The first position in `s..e` of the sorted `cols` whose column is at
/// least `c`.
///
/// # Safety
/// `cols[s..e]` readable.
#[inline(always)]
unsafe fn lower_bound(cols: *const u32, mut s: u32, mut e: u32, c: u32) -> u32 {
    while s < e {
        let mid = s + (e - s) / 2;
        // SAFETY: `s ≤ mid < e`.
        if unsafe { *cols.add(mid as usize) } < c {
            s = mid + 1;
        } else {
            e = mid;
        }
    }
    s
}
