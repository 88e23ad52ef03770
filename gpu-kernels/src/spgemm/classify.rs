//! SpGEMM's first step, utility kernels over [`SpgemmClassifyArgs`]:
//! every row of C classed by its product count and span
//! (`spgemm_classify`), then listed by class (`spgemm_bin`), the lists
//! sizing each class's launch.
//!
//! `spgemm_classify` gives a lane each row; a row of more than
//! `CLASSIFY_LANE_MAX` entries its warp sums together. A *long row* of A,
//! longer than [`SPGEMM_CLASSIFY_MAX`] entries, is summed before it, a warp a chunk
//! of [`SPGEMM_LONG_CHUNK`] entries (`spgemm_long_rows` lists the chunks,
//! `spgemm_long_products` sums them with integer atomics, so the sums are
//! exact whatever the order).

use crate::args::{
    SPGEMM_BLOCK_MAX, SPGEMM_CLASS_BLOCK, SPGEMM_CLASS_COPY, SPGEMM_CLASS_DENSE,
    SPGEMM_CLASS_GIANT, SPGEMM_CLASS_HASH, SPGEMM_CLASS_SHORT, SPGEMM_CLASS_WARP,
    SPGEMM_CLASS_WIDE, SPGEMM_CLASSES, SPGEMM_CLASSIFY_MAX, SPGEMM_DENSE_SPAN_PER_PRODUCT,
    SPGEMM_HASH_SLOTS, SPGEMM_LONG_CHUNK, SPGEMM_SHORT_MAX, SPGEMM_WARP_MAX, SPGEMM_WIDE_SLOTS,
    SpgemmClassifyArgs, spgemm_hash_fits,
};
use crate::device::atomic::{atomic_add_u32, atomic_add_u64, atomic_max_u32};
use crate::device::thread::{
    WARP_SIZE, global_warp_id, grid_size_1d, grid_warps, index_1d, lane_id,
};
use crate::device::warp::{self, lane_mask_lt};

use super::scan::warp_inclusive_scan;

/// Entries of A's row a lane of `spgemm_classify` walks alone; its warp
/// walks a longer row together, a lane every 32nd entry. A lane's walk is
/// a chain of dependent loads an entry, and the warp waits for its longest:
/// PGPgiantcompo's rows of up to 205 entries held `spgemm_classify` 36 µs.
const CLASSIFY_LANE_MAX: u32 = 32;

/// The products of A's entries `q, q + step, …` below `end` and the span
/// of their columns (`u32::MAX, 0` when they have none).
///
/// # Safety
/// A and B valid, A's columns < B's rows, `end` within A's entries.
#[inline(always)]
unsafe fn products_of(a: &SpgemmClassifyArgs, mut q: u32, end: u32, step: u32) -> (u64, u32, u32) {
    let (ac, bp, bc) = (
        a.a_col_idx.as_ptr(),
        a.b_row_ptr.as_ptr(),
        a.b_col_idx.as_ptr(),
    );
    let mut products = 0u64;
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    while q < end {
        // SAFETY: the caller's contract.
        unsafe {
            let k = *ac.add(q as usize) as usize;
            let (bs, be) = (*bp.add(k), *bp.add(k + 1));
            if be > bs {
                products += u64::from(be - bs);
                lo = lo.min(*bc.add(bs as usize));
                hi = hi.max(*bc.add(be as usize - 1));
            }
        }
        q += step;
    }
    (products, lo, hi)
}

/// The warp's sums of its lanes' [`products_of`], in every lane.
///
/// # Safety
/// Called by the whole warp (warp-uniform control flow).
#[inline(always)]
unsafe fn warp_products(mut sums: (u64, u32, u32)) -> (u64, u32, u32) {
    let mut d = 1;
    while d < WARP_SIZE {
        // SAFETY: the caller's contract.
        unsafe {
            sums.0 += warp::shuffle_xor(sums.0, d);
            sums.1 = sums.1.min(warp::shuffle_xor(sums.1, d));
            sums.2 = sums.2.max(warp::shuffle_xor(sums.2, d));
        }
        d *= 2;
    }
    sums
}

/// The length, product count and span (0 when it has no products) of A's
/// row `row_start + r` for lane `r % 32` of the warp whose rows start at
/// `base`, or zeros past the range. A row of up to [`CLASSIFY_LANE_MAX`]
/// entries is its lane's walk; one of up to [`SPGEMM_CLASSIFY_MAX`] the
/// warp's, taken in turn; a longer row was summed by
/// `spgemm_long_products`.
///
/// # Safety
/// Called by the whole warp; A and B valid with `col_idx < B's rows`; the
/// long rows summed.
#[inline(always)]
unsafe fn row_products(a: &SpgemmClassifyArgs, base: u32) -> (u32, u64, u64) {
    let r = base + lane_id();
    let ap = a.a_row_ptr.as_ptr();
    let (mut s, mut e) = (0, 0);
    if r < a.row_end - a.row_start {
        let i = (a.row_start + r) as usize;
        // SAFETY: `i` is a row of A.
        (s, e) = unsafe { (*ap.add(i), *ap.add(i + 1)) };
    }
    let len_a = e - s;
    let (mut products, mut lo, mut hi) = if len_a > SPGEMM_CLASSIFY_MAX {
        // SAFETY: summed by `spgemm_long_products` at `r`.
        unsafe {
            let span = a.long_span.as_mut_ptr().add(2 * r as usize);
            (
                *a.long_products.as_mut_ptr().add(r as usize),
                !*span,
                *span.add(1),
            )
        }
    } else if len_a <= CLASSIFY_LANE_MAX {
        // SAFETY: the caller's contract.
        unsafe { products_of(a, s, e, 1) }
    } else {
        (0, u32::MAX, 0)
    };
    // SAFETY: warp-uniform (the ballot's mask is).
    unsafe {
        let mut shared = warp::ballot(len_a > CLASSIFY_LANE_MAX && len_a <= SPGEMM_CLASSIFY_MAX);
        while shared != 0 {
            let owner = shared.trailing_zeros();
            shared &= shared - 1;
            let (os, oe) = (warp::shuffle_idx(s, owner), warp::shuffle_idx(e, owner));
            let sums = warp_products(products_of(a, os + lane_id(), oe, WARP_SIZE));
            if lane_id() == owner {
                (products, lo, hi) = sums;
            }
        }
    }
    let span = if products == 0 {
        0
    } else {
        u64::from(hi - lo) + 1
    };
    (len_a, products, span)
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
        } else if a.dense_middle != 0 && span <= u64::from(SPGEMM_DENSE_SPAN_PER_PRODUCT) * products
        {
            SPGEMM_CLASS_DENSE
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
        // SAFETY: the loop is warp-uniform; the long rows were summed.
        let (len_a, products, span) = unsafe { row_products(&a, base) };
        let (class, products) = if r < n {
            let i = a.row_start + r;
            let class = class_of(&a, len_a, products, span);
            // SAFETY: in bounds by the launch contract.
            unsafe {
                *a.class.as_mut_ptr().add(r as usize) = class as u8;
                if a.stage_len.addr() != 0 {
                    // The staged classes: short, hash and dense rows.
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

/// Lists the chunks of the rows of `row_start..row_end` longer than
/// [`SPGEMM_CLASSIFY_MAX`] ([`SpgemmClassifyArgs`]).
///
/// Launch: 1D, any grid.
///
/// It zeroes the long rows' `long_products` and `long_span`.
///
/// # Safety
/// A valid CSR; `long_count` zeroed; `long_chunks` room for every chunk
/// (`Σ ⌈len / SPGEMM_LONG_CHUNK⌉` over the long rows).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_long_rows(a: SpgemmClassifyArgs) {
    let n = a.row_end - a.row_start;
    let mut r = index_1d();
    while r < n {
        let i = (a.row_start + r) as usize;
        // SAFETY: `i` is a row of A; the chunks fit by the contract.
        unsafe {
            let ap = a.a_row_ptr.as_ptr();
            let len = *ap.add(i + 1) - *ap.add(i);
            if len > SPGEMM_CLASSIFY_MAX {
                *a.long_products.as_mut_ptr().add(r as usize) = 0;
                *a.long_span.as_mut_ptr().add(2 * r as usize) = 0;
                *a.long_span.as_mut_ptr().add(2 * r as usize + 1) = 0;
                let chunks = len.div_ceil(SPGEMM_LONG_CHUNK);
                let at = atomic_add_u32(a.long_count.as_mut_ptr(), chunks);
                for c in 0..chunks {
                    *a.long_chunks.as_mut_ptr().add((at + c) as usize) =
                        (u64::from(r) << 32) | u64::from(c);
                }
            }
        }
        r = r.saturating_add(grid_size_1d());
    }
}

/// Sums the products and span of each listed chunk into its row's
/// `long_products` and `long_span` ([`SpgemmClassifyArgs`]), a warp a
/// chunk.
///
/// Launch: 1D, block size a multiple of 32, any grid.
///
/// # Safety
/// After [`spgemm_long_rows`]; A and B valid, A's columns < B's rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spgemm_long_products(a: SpgemmClassifyArgs) {
    let lane = lane_id();
    // SAFETY: written by `spgemm_long_rows` before this launch.
    let count = unsafe { *a.long_count.as_mut_ptr() };
    let mut w = global_warp_id();
    while w < count {
        // SAFETY: `w` < the chunks listed; rows and entries in range; the
        // loop and the shuffles are warp-uniform.
        unsafe {
            let chunk = *a.long_chunks.as_mut_ptr().add(w as usize);
            let r = (chunk >> 32) as u32;
            let i = (a.row_start + r) as usize;
            let ap = a.a_row_ptr.as_ptr();
            let s = *ap.add(i) + chunk as u32 * SPGEMM_LONG_CHUNK;
            let e = (*ap.add(i + 1)).min(s + SPGEMM_LONG_CHUNK);
            let (products, lo, hi) = warp_products(products_of(&a, s + lane, e, WARP_SIZE));
            if lane == 0 && products != 0 {
                atomic_add_u64(a.long_products.as_mut_ptr().add(r as usize), products);
                let span = a.long_span.as_mut_ptr().add(2 * r as usize);
                atomic_max_u32(span, !lo);
                atomic_max_u32(span.add(1), hi);
            }
        }
        w += grid_warps();
    }
}
