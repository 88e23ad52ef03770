//! The dense class: rows of more than [`SPGEMM_BLOCK_MAX`](crate::args::SPGEMM_BLOCK_MAX) products, and
//! fewer over a narrow span ([`SPGEMM_DENSE_SPAN_PER_PRODUCT`](crate::args::SPGEMM_DENSE_SPAN_PER_PRODUCT)
//! columns a product at most), a block a row, through a bitmap of the
//! row's span.
//!
//! `spgemm_dense` gives a block a row, and each of its 8 warps a part of
//! the row's span (whole words of 32 columns; even parts, unless sampled
//! products crowd into a few columns), which it alone touches: it
//! walks the row's products in the serial order as the table does,
//! keeping those in its columns (found by two searches side by side in
//! each row of B), with the loads of four steps of 32 products in flight
//! at once, and sets a bit for each column met. When a value for every
//! column of the span fits shared memory, that walk also sums them there,
//! and the bitmap read out gives the row in column order. A span beyond
//! shared memory (R-MAT's dense rows meet most of B's columns, a few
//! percent of them each) would need a value for every column in global
//! memory, scattered and slow; instead its first walk only sets bits, the
//! block's scan of the words' counts gives each column's rank among the
//! row's, and a second walk sums each value at its rank, a second bitmap
//! marking the entries begun. The bitmaps take 4 bytes every 32 columns,
//! so B's whole width fits shared memory up to hundreds of thousands of
//! columns.

use crate::args::{SPGEMM_DENSE_SHARED, spgemm_dense_arrays};
use crate::device::atomic::{atomic_add_u32, atomic_max_u32, atomic_min_u32, atomic_or_u32};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, require, sync_threads, thread_idx_x, warp_id,
};
use crate::device::warp::Shuffle;
use crate::semiring::Semiring;

use super::row::{EMPTY, Rows, RowsArgs, a_row, accumulate, c_start, walk_products};
use super::scan::block_exclusive_scan;

/// Steps of a walk by entry whose loads `spgemm_dense` issues together: a
/// dense row's warp walks thousands of steps, each waiting on its loads of
/// B when taken alone; four in flight hide most of that for 8 registers
/// (16 in `f64`), within the 64 that keep four blocks an SM. Tried
/// `prefetch.global.L1` before the walk: 0.94×, as the kernel's shared
/// memory leaves little L1 for the lines.
const DENSE_WALK_IN_FLIGHT: usize = 4;

/// Rows of any length, a block each, through a presence bitmap of the
/// row's span (`spgemm_dense_symbolic`, `_numeric`, `_stage`): see the module
/// documentation. When the span fits `shared_words` words, the bitmap
/// (and in the numeric phase a second bitmap of the entries begun and the
/// words' running counts) is in shared memory, and the values sum there
/// by column when the span fits `shared_values`, else by rank (in shared
/// memory when the row's length fits, else in place in C). A span beyond
/// `shared_words` takes block `b`'s slot of the scratch (`slot_words` words, whose bits
/// must start zeroed and are left so, and a value per column). Staging
/// ([`SpgemmPhase::Stage`](crate::args::SpgemmPhase::Stage)) is the
/// numeric phase into the staging area, writing the rows' lengths too;
/// `spgemm_unstage_dense` copies the rows to C, a block a row. Tried
/// summing dense rows by columns of C through Bᵀ: 0.27–0.51×, as a thread
/// walking down a column waits on each load.
///
/// Launch: 1D, block size a multiple of 32 (at most 1024), a grid of at
/// most as many blocks as scratch slots (any grid when every span fits
/// shared memory), [`crate::args::spgemm_dense_shared_bytes`] of dynamic
/// shared memory for the phase's `shared_words` and `shared_values` (the
/// numeric layout for staging).
///
/// # Safety
/// The phase's struct valid; listed rows have ≥ 1 product;
/// `slot_words ≥ ⌈B's columns / 32⌉ + 1`, the slots' words zero.
#[inline(always)]
pub unsafe fn spgemm_dense<'a, S: Semiring>(args: impl RowsArgs<'a, S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let a = args.rows();
    let (tid, wid) = (thread_idx_x(), warp_id());
    let warps = block_dim_x() / WARP_SIZE;
    let threads = block_dim_x();
    let numeric = a.phase.entries();
    let arrays = spgemm_dense_arrays(numeric) as usize;
    let (words, shared_words) = (a.slot_words as usize, a.shared_words as usize);
    // Slot `b` of the scratch is this block's (none is given when every
    // span fits shared memory: it is then never used).
    let slot = block_idx_x() as usize * words;
    let (slot_bits, slot_vals) = (
        a.scratch_flags.as_mut_ptr().wrapping_add(slot),
        a.scratch_values.as_mut_ptr().wrapping_add(32 * slot),
    );
    // Shared: [0] lowest column, [1] highest, [2] the row's products
    // (numeric); the scan's 33 slots; where each warp's part of a heavy
    // row's span begins (and the last ends); then the arrays of words
    // (bitmap, begun, counts), then the values.
    let small = shared::dynamic::<u32>();
    // SAFETY: within the launch's shared memory (see `spgemm_dense_shared_bytes`).
    let (warp_sums, cuts, shared_bits, begun, counts, shared_vals) = unsafe {
        let bits = shared::dynamic::<u8>()
            .add(SPGEMM_DENSE_SHARED as usize)
            .cast::<u32>();
        (
            small.add(4).cast::<u64>(),
            small.add(4 + 2 * (WARP_SIZE as usize + 1)),
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
                *small.add(2) = 0;
            }
            sync_threads();
            let mut j = tid;
            while j < len_a {
                let k = *ac.add(j as usize) as usize;
                let (s, e) = (*bp.add(k), *bp.add(k + 1));
                if e > s {
                    atomic_min_u32(small, *bc.add(s as usize));
                    atomic_max_u32(small.add(1), *bc.add(e as usize - 1));
                    if numeric {
                        atomic_add_u32(small.add(2), e - s);
                    }
                }
                j += threads;
            }
            sync_threads();
            let (lo, hi, products) = (*small, *small.add(1), *small.add(2));
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
            // This warp's columns: whole words, the span split in `warps`
            // parts (evenly, or by sampled products: `split_span`); no
            // other warp touches them. Tried 2–4 parts a warp: R-MAT and
            // MIT8 lost 19–42%, every part walking A's row again.
            // Only heavy rows sample (the flag is block-uniform): the
            // sampling and its barriers cost rows of a few thousand
            // products more than any split gains them.
            let per = n_words.div_ceil(warps);
            let (from, to) = if numeric && in_shared && products >= SPLIT_MIN_PRODUCTS {
                let span = (w0, n_words, per);
                split_span(&a, (start, len_a), span, counts, warp_sums, cuts);
                sync_threads();
                (*cuts.add(wid as usize), *cuts.add(wid as usize + 1))
            } else {
                (even_cut(wid, per, n_words), even_cut(wid + 1, per, n_words))
            };
            let mine = ((w0 + from) * 32, (w0 + to) * 32);
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
            if a.phase.lengths() && tid == 0 {
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

/// Samples a row of B takes in [`split_span`]: with 8, the busiest part
/// of an even split over the mean comes out within 10% of its count on
/// Groebner's, rajat01's and ego-Facebook's dense rows (worked out on the
/// CPU), for a tenth of the walk's loads where B's rows hold about 70
/// entries.
const SPLIT_SAMPLES: u32 = 8;

/// How much more than its share the busiest warp's part of an even split
/// must hold, by the samples, for the split to follow the samples
/// instead: their cuts are rougher than an even split where the products
/// spread evenly (MIT8's rows, 1.12 → 1.47 the mean on the busiest warp),
/// and far better where they crowd into a few columns (Groebner's, 5.65 →
/// 1.68).
const SPLIT_SKEW: u32 = 2;

/// Products a dense row needs for [`split_span`] to run: rows of 8,192 or
/// more hold 81–88% of Groebner's and MIT8's dense products and none of
/// bcsstk16's (3,600 a row). On an H100 (f64, ncu) bcsstk16's dense
/// kernel took 195 µs unsplit, 229 µs with every row sampled, 206 µs so;
/// Groebner's 696, 445 and 438 µs.
const SPLIT_MIN_PRODUCTS: u32 = 8192;

/// Where part `p` of a span of `n_words` words begins in an even split of
/// `per` words a part (the last parts may be short or empty).
#[inline(always)]
fn even_cut(p: u32, per: u32, n_words: u32) -> u32 {
    (p * per).min(n_words)
}

/// Where each warp's part of a row's span begins, in words from the span's
/// first (`cuts[w]`, and `cuts[warps]` = `n_words`), for the numeric walk
/// of a heavy row's span in shared memory: an even split of `per` words a
/// part, unless the products crowd into a few columns. Each entry of A
/// adds its row of B's length to the words of up to [`SPLIT_SAMPLES`] of
/// its columns, spread along it, in `hist` (the `counts` array, free until
/// the walk ends); a block scan turns those into running totals; the
/// parts cut the total evenly when the even split's busiest part would
/// hold over [`SPLIT_SKEW`] times its share. The parts are whole words, in
/// order, and cover the span whatever the samples, so only the speed
/// depends on them.
///
/// # Safety
/// The whole block calls with the same row; `hist` holds `n_words` words,
/// `cuts` a word per warp and one more, `warp_sums` the scan's slots.
/// Not inlined: inlined, it took the numeric kernels from 64 registers to
/// 72 (ptxas, sm_90), three blocks an SM instead of four.
#[inline(never)]
unsafe fn split_span<T>(
    a: &Rows<T>,
    (start, len_a): (u32, u32),
    (w0, n_words, per): (u32, u32, u32),
    hist: *mut u32,
    warp_sums: *mut u64,
    cuts: *mut u32,
) {
    let (tid, threads) = (thread_idx_x(), block_dim_x());
    let warps = threads / WARP_SIZE;
    // SAFETY: the caller's contract; every barrier is reached by the whole
    // block.
    unsafe {
        let mut w = tid;
        while w < n_words {
            *hist.add(w as usize) = 0;
            w += threads;
        }
        sync_threads();
        let (ac, bp, bc) = (
            a.a_col_idx.as_ptr().add(start as usize),
            a.b_row_ptr.as_ptr(),
            a.b_col_idx.as_ptr(),
        );
        let mut j = tid;
        while j < len_a {
            let k = *ac.add(j as usize) as usize;
            let (s, n) = (*bp.add(k), *bp.add(k + 1) - *bp.add(k));
            let samples = n.min(SPLIT_SAMPLES);
            for q in 0..samples {
                // Sample q stands for the entries from q·n/samples on; the
                // weights add up to n.
                let (from, to) = (q * n / samples, (q + 1) * n / samples);
                let col = *bc.add((s + from) as usize);
                atomic_add_u32(hist.add((col / 32 - w0) as usize), to - from);
            }
            j += threads;
        }
        sync_threads();
        // Running totals, each thread over a run of words.
        let run = n_words.div_ceil(threads);
        let (first, last) = ((tid * run).min(n_words), ((tid + 1) * run).min(n_words));
        let mut sum = 0u64;
        for w in first..last {
            sum += u64::from(*hist.add(w as usize));
        }
        let (before, total) = block_exclusive_scan(sum, warp_sums);
        let mut at = before;
        for w in first..last {
            at += u64::from(*hist.add(w as usize));
            *hist.add(w as usize) = at.min(u64::from(u32::MAX)) as u32;
        }
        sync_threads();
        // Products before word `x` of the span.
        let upto = |x: u32| {
            if x == 0 {
                0
            } else {
                u64::from(*hist.add(x as usize - 1))
            }
        };
        let even = |p: u32| even_cut(p, per, n_words);
        if tid <= warps {
            let busiest = (0..warps)
                .map(|p| upto(even(p + 1)) - upto(even(p)))
                .max()
                .unwrap_or(0);
            let cut = if busiest * u64::from(warps) > u64::from(SPLIT_SKEW) * total {
                // The first word by whose end the parts before this one
                // hold their share: a search of the running totals.
                let share = total * u64::from(tid) / u64::from(warps);
                let (mut lo, mut hi) = (0u32, n_words);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if upto(mid) < share {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                if tid == warps { n_words } else { lo }
            } else {
                even(tid)
            };
            *cuts.add(tid as usize) = cut;
        }
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
    a: &Rows<S::Value>,
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
