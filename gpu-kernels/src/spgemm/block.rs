//! The block class: rows of up to [`SPGEMM_BLOCK_MAX`] products, a block
//! a row, sorted in the block's shared memory (see the sorting in
//! [`super`]).

use crate::args::SPGEMM_BLOCK_MAX;
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, lane_id, require, sync_threads, thread_idx_x,
};
use crate::device::warp::{self, lane_mask_lt};
use crate::semiring::Semiring;

use super::row::{Rows, RowsArgs, a_row, c_start, key, key_col};
use super::scan::warp_inclusive_scan;

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
    a: &Rows<S::Value>,
    row: u32,
    space: &SortSpace<S::Value>,
    capacity: u32,
) {
    let (rank, size) = (thread_idx_x(), block_dim_x());
    let lane = lane_id();
    let numeric = a.phase.entries();
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
            if a.phase.lengths() && lane == 0 {
                *a.row_len.as_mut_ptr().add(row as usize) = written;
            }
        }
        sync_threads();
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

/// Rows of up to [`SPGEMM_BLOCK_MAX`] products, a block each, sorted in
/// the block's shared memory (`spgemm_block_symbolic`, `_numeric`).
/// Tried a bitonic sort with the keys in registers: less L1, yet slower,
/// as 40 registers against 29 hold 6 blocks an SM instead of 8, and the
/// kernel waits on barriers and latency.
///
/// Launch: 1D, block size a multiple of 32, any grid, dynamic shared
/// memory `spgemm_sort_shared_bytes(SPGEMM_BLOCK_MAX, size)`.
///
/// # Safety
/// As [`spgemm_warp`](super::spgemm_warp), with at most [`SPGEMM_BLOCK_MAX`] products.
#[inline(always)]
pub unsafe fn spgemm_block<'a, S: Semiring>(args: impl RowsArgs<'a, S::Value>) {
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let a = args.rows();
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
