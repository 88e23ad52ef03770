//! Masked products (GraphBLAS's `C⟨M⟩ = A ⊗ B` and `y⟨m⟩ = A ⊗ x`), the
//! entries the mask rules out never computed: SpGEMM as a dot product an
//! entry of M (`spgemm_masked_dot`: A's row merged with Bᵀ's row, the
//! method GraphBLAS calls dot3, which pays where M is sparser than A·B,
//! as in triangle counting's `L·L⟨L⟩`), and SpMV a thread a row
//! (`spmv_csr_masked`). Each sums in the order the CPU engines do, so the
//! bits are theirs. Triangle counting's `L·Lᵀ⟨L⟩` summed over plus-pair
//! is `triangle_count`: the dot products counted on the device, nothing
//! formed and no Bᵀ (Lᵀ's rows are L's); L itself is made on the device
//! from a graph with a symmetric pattern (`triangle_symmetric` checks it,
//! `triangle_lower_lengths` and `triangle_lower_fill` filter its rows).
//! A breadth-first search's level, the or-and product of the frontier
//! with A under the complement of the visited set, is `bfs_push`.

use crate::args::{
    BfsPushArgs, SpgemmMaskedDotArgs, SpmvCsrMaskedArgs, TriangleCountArgs, TriangleLowerArgs,
    TriangleSymmetricArgs,
};
use crate::device::atomic::{atomic_add_u32, atomic_add_u64, atomic_max_u64};
use crate::device::thread::{WARP_SIZE, grid_stride, grid_stride_warps, lane_id};
use crate::device::warp;
use crate::semiring::{PlusTimes, Semiring};

/// `C⟨M⟩ = A ⊗ B`, a thread an entry of M (grid-stride): the two sorted
/// column lists merged, the products where they meet summed in column
/// order, the first product taken as it is (as the CPU's masked rows
/// take it; `0 + -0` would lose the sign).
///
/// Launch: 1D, any block size, any grid. Every `values[e]` and
/// `formed[e]` is written.
///
/// # Safety
/// `a` describes valid CSRs of A and Bᵀ in device memory (offsets
/// non-decreasing, a row's columns increasing), each mask entry's row a
/// row of A and its column a row of Bᵀ, and `values`, `formed` of
/// `mask_nnz` elements.
#[inline(always)]
pub unsafe fn spgemm_masked_dot<S: Semiring>(a: SpgemmMaskedDotArgs<S::Value>) {
    let (a_ptr, a_col, a_val) = (
        a.a_row_ptr.as_ptr(),
        a.a_col_idx.as_ptr(),
        a.a_values.as_ptr(),
    );
    let (b_ptr, b_col, b_val) = (
        a.bt_row_ptr.as_ptr(),
        a.bt_col_idx.as_ptr(),
        a.bt_values.as_ptr(),
    );
    let (rows, cols) = (a.mask_rows.as_ptr(), a.mask_cols.as_ptr());
    let (values, formed) = (a.values.as_mut_ptr(), a.formed.as_mut_ptr());
    for e in grid_stride(a.mask_nnz) {
        let e = e as usize;
        // SAFETY: the caller's contract: every index is in bounds.
        unsafe {
            let (i, j) = (*rows.add(e) as usize, *cols.add(e) as usize);
            let (mut p, p_end) = (*a_ptr.add(i), *a_ptr.add(i + 1));
            let (mut q, q_end) = (*b_ptr.add(j), *b_ptr.add(j + 1));
            let mut acc = S::zero();
            let mut any = false;
            while p < p_end && q < q_end {
                let (ka, kb) = (*a_col.add(p as usize), *b_col.add(q as usize));
                if ka < kb {
                    p += 1;
                } else if kb < ka {
                    q += 1;
                } else {
                    let product = S::mul(*a_val.add(p as usize), *b_val.add(q as usize));
                    acc = if any { S::add(acc, product) } else { product };
                    any = true;
                    p += 1;
                    q += 1;
                }
            }
            *values.add(e) = acc;
            *formed.add(e) = u32::from(any);
        }
    }
}

/// `y⟨m⟩ = A ⊗ x`, a thread a row (grid-stride): an allowed row summed in
/// row order from the semiring zero, as `spmv_csr_scalar` and the CPU
/// engines sum it.
///
/// Launch: 1D, any block size, any grid.
///
/// # Safety
/// `a` describes a valid CSR matrix, `x` of its column count, `y` and
/// `allowed` of its row count, in device memory.
#[inline(always)]
pub unsafe fn spmv_csr_masked<S: Semiring>(a: SpmvCsrMaskedArgs<S::Value>) {
    let (row_ptr, col_idx, values, x, y, allowed) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
        a.allowed.as_ptr(),
    );
    let complement = a.complement != 0;
    for row in grid_stride(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: every index is in bounds.
        unsafe {
            if *allowed.add(row) != complement {
                let (start, end) = (*row_ptr.add(row) as usize, *row_ptr.add(row + 1) as usize);
                let mut acc = S::zero();
                for k in start..end {
                    acc = S::add(
                        acc,
                        S::mul(*values.add(k), *x.add(*col_idx.add(k) as usize)),
                    );
                }
                *y.add(row) = acc;
            } else if a.replace != 0 {
                *y.add(row) = S::zero();
            }
        }
    }
}

/// Triangles from L ([`TriangleCountArgs`]), a thread an entry of L
/// (grid-stride): the two rows merged, their meetings counted, the counts
/// of a warp summed and added to `count` with one atomic.
///
/// Launch: 1D, blocks a multiple of 32 threads, any grid; `count` zeroed.
///
/// # Safety
/// `a` describes L's pattern in device memory: `row_ptr` of n + 1
/// non-decreasing offsets, each row's columns increasing and each below
/// n, `entry_rows` the row of each of the `nnz` entries; `count` one
/// `u64`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn triangle_count(a: TriangleCountArgs) {
    let (ptr, col, rows) = (
        a.row_ptr.as_ptr(),
        a.col_idx.as_ptr(),
        a.entry_rows.as_ptr(),
    );
    let mut found = 0u64;
    for e in grid_stride(a.nnz) {
        let e = e as usize;
        // SAFETY: the caller's contract: every index is in bounds.
        unsafe {
            let (i, j) = (*rows.add(e) as usize, *col.add(e) as usize);
            let (mut p, p_end) = (*ptr.add(i), *ptr.add(i + 1));
            let (mut q, q_end) = (*ptr.add(j), *ptr.add(j + 1));
            while p < p_end && q < q_end {
                let (kp, kq) = (*col.add(p as usize), *col.add(q as usize));
                found += u64::from(kp == kq);
                p += u64::from(kp <= kq);
                q += u64::from(kq <= kp);
            }
        }
    }
    // SAFETY: every lane leaves the loop and reaches this (blocks are
    // whole warps).
    let total = unsafe { warp::reduce::<PlusTimes<u64>>(found, 32) };
    if lane_id() == 0 && total != 0 {
        // SAFETY: `count` is one u64 of device memory.
        unsafe { atomic_add_u64(a.count.as_mut_ptr(), total) };
    }
}

/// Flags a pattern that is not symmetric ([`TriangleSymmetricArgs`]), a
/// warp a row (grid-stride over warps; a hub row's entries spread over the
/// lanes, which a thread a row left to one): each entry's mirror searched
/// for by bisection in its column's row.
///
/// Launch: 1D, blocks a multiple of 32 threads, any grid; `asymmetric`
/// zeroed.
///
/// # Safety
/// `a` describes a square CSR pattern of `n` rows in device memory
/// (offsets non-decreasing, a row's columns increasing and below `n`);
/// `asymmetric` one `u32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn triangle_symmetric(a: TriangleSymmetricArgs) {
    let (ptr, col) = (a.row_ptr.as_ptr(), a.col_idx.as_ptr());
    for i in grid_stride_warps(a.n) {
        // SAFETY: the caller's contract: every index is in bounds.
        unsafe {
            let end = *ptr.add(i as usize + 1);
            let mut k = *ptr.add(i as usize) + lane_id();
            while k < end {
                let j = *col.add(k as usize) as usize;
                let (mut lo, mut hi) = (*ptr.add(j), *ptr.add(j + 1));
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if *col.add(mid as usize) < i {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                if lo == *ptr.add(j + 1) || *col.add(lo as usize) != i {
                    *a.asymmetric.as_mut_ptr() = 1;
                }
                k += WARP_SIZE;
            }
        }
    }
}

/// Whether `w` comes before `v` in L's order: by number, or by degree
/// then number (see [`TriangleLowerArgs`]).
///
/// # Safety
/// `v` and `w` are rows of the CSR whose offsets `ptr` points to.
#[inline(always)]
unsafe fn before(ptr: *const u32, by_degree: bool, w: u32, v: u32) -> bool {
    if !by_degree {
        return w < v;
    }
    // SAFETY: the caller's contract.
    let degree = |x: u32| unsafe { *ptr.add(x as usize + 1) - *ptr.add(x as usize) };
    let (dw, dv) = (degree(w), degree(v));
    dw < dv || (dw == dv && w < v)
}

/// L's row lengths ([`TriangleLowerArgs`]), a warp a row (grid-stride
/// over warps): the lanes count their share of the row's entries, summed
/// across the warp.
///
/// Launch: 1D, blocks a multiple of 32 threads, any grid.
///
/// # Safety
/// `a` describes a square CSR pattern of `n` rows in device memory (as
/// [`triangle_symmetric`]'s), `lengths` of `n`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn triangle_lower_lengths(a: TriangleLowerArgs) {
    let (ptr, col) = (a.row_ptr.as_ptr(), a.col_idx.as_ptr());
    let by_degree = a.by_degree != 0;
    for v in grid_stride_warps(a.n) {
        // SAFETY: the caller's contract: every index is in bounds; every
        // lane of the warp takes the same rows (warp-uniform loop).
        unsafe {
            let end = *ptr.add(v as usize + 1);
            let mut kept = 0u32;
            let mut k = *ptr.add(v as usize) + lane_id();
            while k < end {
                kept += u32::from(before(ptr, by_degree, *col.add(k as usize), v));
                k += WARP_SIZE;
            }
            let kept = warp::reduce::<PlusTimes<u32>>(kept, WARP_SIZE);
            if lane_id() == 0 {
                *a.lengths.as_mut_ptr().add(v as usize) = kept;
            }
        }
    }
}

/// L's columns and entry rows ([`TriangleLowerArgs`]) at the offsets
/// scanned from [`triangle_lower_lengths`]', a warp a row (grid-stride
/// over warps): 32 entries at a time, each lane's kept entry placed after
/// those of the lanes below it (a ballot), so the columns stay in order.
///
/// Launch: 1D, blocks a multiple of 32 threads, any grid.
///
/// # Safety
/// As [`triangle_lower_lengths`]; `l_row_ptr` the exclusive scan of its
/// lengths (`n + 1`), `l_col_idx` and `l_rows` of `l_row_ptr[n]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn triangle_lower_fill(a: TriangleLowerArgs) {
    let (ptr, col) = (a.row_ptr.as_ptr(), a.col_idx.as_ptr());
    let by_degree = a.by_degree != 0;
    for v in grid_stride_warps(a.n) {
        // SAFETY: the caller's contract: every index is in bounds; the
        // loop over a row's chunks is warp-uniform, so every lane votes.
        unsafe {
            let (start, end) = (*ptr.add(v as usize), *ptr.add(v as usize + 1));
            let mut at = *a.l_row_ptr.as_ptr().add(v as usize) as usize;
            let mut chunk = start;
            while chunk < end {
                let k = chunk + lane_id();
                let w = if k < end { *col.add(k as usize) } else { 0 };
                let keep = k < end && before(ptr, by_degree, w, v);
                let votes = warp::ballot(keep);
                if keep {
                    let place = at + (votes & warp::lane_mask_lt()).count_ones() as usize;
                    *a.l_col_idx.as_mut_ptr().add(place) = w;
                    *a.l_rows.as_mut_ptr().add(place) = v;
                }
                at += votes.count_ones() as usize;
                chunk += WARP_SIZE;
            }
        }
    }
}

/// One level of a breadth-first search ([`BfsPushArgs`]), a warp a vertex
/// of the frontier (grid-stride over warps): 32 out-edges at a time, each
/// lane claims its head by an atomic max of the packed word, skipped
/// where the word already packs as high (reached at an earlier level, or
/// by a lower parent); the heads found unreached are appended to `next`
/// at one atomic add a warp and chunk, each lane's place by ballot. The
/// words are the same whatever the order of the claims; `next`'s order is
/// not, and nothing depends on it. The frontier's length is read from
/// `counts`, so levels queue back to back without the host reading it; a
/// level past the last (an empty frontier) does nothing.
///
/// Launch: 1D, blocks a multiple of 32 threads, any grid.
///
/// # Safety
/// `a` describes a square CSR pattern of `n` rows in device memory
/// (offsets non-decreasing, columns below `n`); `frontier` holds
/// `counts[level - 1]` rows, `next` room for every vertex not yet reached,
/// `words` `n` and `counts` `level + 1` elements, `counts[level]` zeroed;
/// `level` ≥ 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn bfs_push(a: BfsPushArgs) {
    let (ptr, col) = (a.row_ptr.as_ptr(), a.col_idx.as_ptr());
    let words = a.words.as_mut_ptr();
    // SAFETY: the caller's contract: `counts` holds `level + 1` counts.
    let (found, here) = unsafe {
        let counts = a.counts.as_mut_ptr();
        (
            counts.add(a.level as usize),
            *counts.add(a.level as usize - 1),
        )
    };
    for w in grid_stride_warps(here) {
        // SAFETY: the caller's contract: every index is in bounds; the
        // loop over a row's chunks is warp-uniform, so every lane votes.
        unsafe {
            let u = *a.frontier.as_ptr().add(w as usize);
            let claim = !((u64::from(a.level) << 32) | u64::from(u));
            let (mut chunk, end) = (*ptr.add(u as usize), *ptr.add(u as usize + 1));
            while chunk < end {
                let k = chunk + lane_id();
                let v = if k < end { *col.add(k as usize) } else { 0 };
                let word = words.add(v as usize);
                let new = k < end
                    && core::ptr::read_volatile(word) < claim
                    && atomic_max_u64(word, claim) == 0;
                let votes = warp::ballot(new);
                if votes != 0 {
                    let mut at = 0;
                    if lane_id() == 0 {
                        at = atomic_add_u32(found, votes.count_ones());
                    }
                    let at = warp::shuffle_idx(at, 0);
                    if new {
                        let place = at + (votes & warp::lane_mask_lt()).count_ones();
                        *a.next.as_mut_ptr().add(place as usize) = v;
                    }
                }
                chunk += WARP_SIZE;
            }
        }
    }
}
