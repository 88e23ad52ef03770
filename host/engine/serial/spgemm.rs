//! Serial SpGEMM, C = A ⊗ B over a semiring: Gustavson's row-by-row method
//! with a symbolic phase (exact size of every row of C) and a numeric phase.
//!
//! Each row of C is formed in an accumulator: a dense one (a value and a
//! presence flag per column of B, plus the list of columns touched) when B
//! is narrow enough that those arrays stay in cache; when B is wide, a hash
//! table (open addressing, sized from the row's flop count) for rows whose
//! columns scatter, the dense one for rows whose columns lie close together
//! (bands, stencils) or that compute many products. Either way
//! products are added in the same order — A's row left to right, each row of
//! B left to right — so every engine that uses [`symbolic_rows`] and
//! [`numeric_rows`] produces the same bits. A row of A with one entry is a
//! scaled row of B and skips the accumulator; one with two entries, where B
//! is wider than 2¹⁶ columns, merges its two rows of B instead. Products
//! are kept structurally: an entry of C exists wherever
//! some A(i,k) and B(k,j) are both stored, even if its value is the semiring
//! zero (GraphBLAS semantics; scipy drops numeric zeros instead).

use super::accumulator::{Accumulator, AccumulatorUser, RowShape, with_accumulator};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use std::ops::Range;

/// Multiplies `a` by `b` over semiring `S`, one row at a time.
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    struct Serial<'m, S: Semiring>(&'m Csr<S::Value>, &'m Csr<S::Value>);
    impl<S: Semiring> AccumulatorUser<S::Value, Csr<S::Value>> for Serial<'_, S>
    where
        S::Value: Scalar,
    {
        fn run<A: Accumulator<S::Value> + Send + 'static>(
            self,
            make: &(dyn Fn() -> A + Sync),
        ) -> Csr<S::Value> {
            spgemm_rows::<S, A>(self.0, self.1, make())
        }
    }
    with_accumulator(b.ncols(), Serial::<S>(a, b))
}

fn spgemm_rows<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mut acc: A,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    // Symbolic: exact row sizes, then their prefix sum.
    let n = a.nrows();
    let mut row_ptr = vec![0usize; n + 1];
    symbolic_rows(a, b, 0..n, &mut acc, &mut row_ptr[1..]);
    for i in 0..n {
        row_ptr[i + 1] += row_ptr[i];
    }
    // Numeric: each row written into its exact slot.
    let nnz = row_ptr[n];
    let mut col_idx = vec![0u32; nnz];
    let mut values = vec![S::zero(); nnz];
    map_pages_now(&mut col_idx);
    map_pages_now(&mut values);
    numeric_rows::<S, A>(a, b, 0..n, &mut acc, &row_ptr, &mut col_idx, &mut values);
    Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values)
}

/// Maps the whole pages of `s` (fresh zeroed memory for C) now, in one
/// call, instead of one fault a page as the numeric phase first writes
/// them: a large C spends much of its time in those faults, and one call
/// costs the kernel less than a trap a page. Slices under
/// [`MAP_NOW_MIN_BYTES`] are left alone. Linux 5.14 and later; elsewhere,
/// or if the kernel refuses, the faults happen as before.
pub(crate) fn map_pages_now<T>(s: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = s.as_mut_ptr() as usize;
        let (lo, hi) = (
            start.next_multiple_of(PAGE),
            (start + size_of_val(s)) / PAGE * PAGE,
        );
        if hi >= lo + MAP_NOW_MIN_BYTES {
            // SAFETY: the range lies within `s`, which the caller holds
            // mutably; populating changes no byte of it.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_POPULATE_WRITE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = s;
}

/// Smallest slice [`map_pages_now`] maps: smaller arrays of C often come
/// from memory the allocator zeroed itself (mapped already, so the call
/// would only walk the pages), and their faults are few.
const MAP_NOW_MIN_BYTES: usize = 1 << 22;

/// Panics unless `a.ncols() == b.nrows()`.
#[track_caller]
pub fn check_shapes<T, U>(a: &Csr<T>, b: &Csr<U>)
where
    T: Scalar,
    U: Scalar,
{
    assert!(
        a.ncols() == b.nrows(),
        "spgemm: A.ncols() != B.nrows() ({}×{} times {}×{})",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
}

/// Number of products row `i` of A·B computes: Σ over A(i,k) of |B(k,:)|.
/// Engines split work by it.
#[inline]
pub fn row_flops<T: Scalar>(a: &Csr<T>, b: &Csr<T>, i: usize) -> usize {
    a.row(i).0.iter().map(|&k| b.row_len(k as usize)).sum()
}

/// Row `i` of A·B as its accumulator `A` needs to know it before its
/// products arrive; `len`, its length if known.
#[inline(always)]
fn row_shape<T: Scalar, A: Accumulator<T>>(
    a: &Csr<T>,
    b: &Csr<T>,
    i: usize,
    len: Option<usize>,
) -> RowShape {
    if !A::USES_SPAN {
        let flops = row_flops(a, b, i);
        return RowShape {
            flops,
            span: 0,
            len,
        };
    }
    let (ptr, cols) = (b.row_ptr(), b.col_idx());
    let (mut flops, mut lo, mut hi) = (0, u32::MAX, 0);
    for &k in a.row(i).0 {
        let row = ptr[k as usize]..ptr[k as usize + 1];
        if !row.is_empty() {
            flops += row.len();
            // B's rows are sorted: their ends are their first and last columns.
            lo = lo.min(cols[row.start]);
            hi = hi.max(cols[row.end - 1]);
        }
    }
    let span = if flops == 0 {
        0
    } else {
        (hi - lo) as usize + 1
    };
    RowShape { flops, span, len }
}

/// Symbolic phase for rows `rows` of A·B: their lengths into `lens`.
pub fn symbolic_rows<T: Scalar, A: Accumulator<T>>(
    a: &Csr<T>,
    b: &Csr<T>,
    rows: Range<usize>,
    acc: &mut A,
    lens: &mut [usize],
) {
    for (len, i) in lens.iter_mut().zip(rows) {
        prefetch_b_rows(a, b, i + PREFETCH_ROWS_AHEAD);
        *len = symbolic_row(a, b, i, acc);
    }
}

/// How many rows of A ahead the rows of B they use are prefetched. Rows of
/// B are read in A's column order, at random, so when B outgrows the L2
/// cache each short row costs two waits on memory (its start in `row_ptr`,
/// then its entries); fetching a few rows ahead overlaps them.
const PREFETCH_ROWS_AHEAD: usize = 4;

/// Asks the cache for the first entries of the rows of B that row `i` of A
/// uses (nothing past A's last row).
#[inline(always)]
fn prefetch_b_rows<T: Scalar>(a: &Csr<T>, b: &Csr<T>, i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < a.nrows() {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for &k in a.row(i).0 {
            let start = b.row_ptr()[k as usize];
            // SAFETY: SSE is part of x86_64, and a prefetch reads nothing
            // (an address past the end is not dereferenced).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(b.col_idx().as_ptr().wrapping_add(start).cast());
                _mm_prefetch::<_MM_HINT_T0>(b.values().as_ptr().wrapping_add(start).cast());
            }
        }
    }
}

/// Numeric phase for rows `rows` of A·B, given C's `row_ptr`: `cols` and
/// `vals` hold C's entries from the first of these rows on.
pub fn numeric_rows<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    rows: Range<usize>,
    acc: &mut A,
    row_ptr: &[usize],
    cols: &mut [u32],
    vals: &mut [S::Value],
) where
    S::Value: Scalar,
{
    let base = row_ptr[rows.start];
    for i in rows {
        prefetch_b_rows(a, b, i + PREFETCH_ROWS_AHEAD);
        let slot = row_ptr[i] - base..row_ptr[i + 1] - base;
        numeric_row::<S, A>(a, b, i, acc, &mut cols[slot.clone()], &mut vals[slot]);
    }
}

/// Number of distinct columns in row `i` of A·B.
#[inline(always)]
fn symbolic_row<T: Scalar, A: Accumulator<T>>(
    a: &Csr<T>,
    b: &Csr<T>,
    i: usize,
    acc: &mut A,
) -> usize {
    let a_cols = a.row(i).0;
    match a_cols {
        [] => return 0,
        // One entry of A: the row is a scaled row of B, no column repeats.
        &[k] => return b.row_len(k as usize),
        &[k1, k2] if b.ncols() > MERGE_TWO_MIN_COLS => {
            return union_len(b.row(k1 as usize).0, b.row(k2 as usize).0);
        }
        _ => {}
    }
    acc.start_row(row_shape::<T, A>(a, b, i, None));
    for &k in a_cols {
        acc.touch_all(b.row(k as usize).0);
    }
    acc.row_len()
}

/// Forms row `i` of A·B into `cols` and `vals`, whose length
/// [`symbolic_row`] gave: products summed in A's order, then B's, the first
/// product of each column stored as it is.
#[inline(always)]
fn numeric_row<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    i: usize,
    acc: &mut A,
    cols: &mut [u32],
    vals: &mut [S::Value],
) where
    S::Value: Scalar,
{
    if cols.is_empty() {
        return;
    }
    let (a_cols, a_vals) = a.row(i);
    if let (&[k], &[a_ik]) = (a_cols, a_vals) {
        let (b_cols, b_vals) = b.row(k as usize);
        cols.copy_from_slice(b_cols);
        for (v, &b_kj) in vals.iter_mut().zip(b_vals) {
            *v = S::mul(a_ik, b_kj);
        }
        return;
    }
    if let (&[k1, k2], &[a1, a2]) = (a_cols, a_vals)
        && b.ncols() > MERGE_TWO_MIN_COLS
    {
        merge_two::<S>(
            (a1, b.row(k1 as usize)),
            (a2, b.row(k2 as usize)),
            cols,
            vals,
        );
        return;
    }
    acc.start_row(row_shape::<S::Value, A>(a, b, i, Some(cols.len())));
    for (&k, &a_ik) in a_cols.iter().zip(a_vals) {
        let (b_cols, b_vals) = b.row(k as usize);
        acc.accumulate_all::<S>(a_ik, b_cols, b_vals);
    }
    debug_assert_eq!(acc.row_len(), cols.len());
    acc.drain_sorted(cols, vals);
}

/// Widest B whose rows of A with two entries still go through the
/// accumulator: up to 2¹⁶ columns its arrays (0.8 MiB at f64) stay in a
/// core's L2 cache and its branch-free loops beat a merge's unpredictable
/// branches; wider, each product risks a miss (a road network's rows
/// reach far apart) and merging the two rows of B wins.
const MERGE_TWO_MIN_COLS: usize = 1 << 16;

/// Distinct columns of two sorted rows of B together: a row of A with two
/// entries (road networks, paths) needs no accumulator, only a walk along
/// both.
#[inline]
fn union_len(x: &[u32], y: &[u32]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        let (p, q) = (x[i], y[j]);
        i += usize::from(p <= q);
        j += usize::from(q <= p);
        common += usize::from(p == q);
    }
    x.len() + y.len() - common
}

/// An entry of A and the row of B it scales: (value, (columns, values)).
type ScaledRow<'m, T> = (T, (&'m [u32], &'m [T]));

/// Row of C for a row of A with two entries, `a1·B(k1,:) + a2·B(k2,:)`, by
/// merging the two rows of B: a column in both gets `a1·b1 ⊕ a2·b2`, the
/// sum the accumulators form (first product stored, the second added),
/// so the bits are theirs.
#[inline]
fn merge_two<S: Semiring>(
    (a1, (c1, v1)): ScaledRow<S::Value>,
    (a2, (c2, v2)): ScaledRow<S::Value>,
    cols: &mut [u32],
    vals: &mut [S::Value],
) where
    S::Value: Scalar,
{
    let (mut i, mut j, mut o) = (0, 0, 0);
    while i < c1.len() && j < c2.len() {
        let (p, q) = (c1[i], c2[j]);
        cols[o] = p.min(q);
        vals[o] = if p < q {
            S::mul(a1, v1[i])
        } else if q < p {
            S::mul(a2, v2[j])
        } else {
            S::add(S::mul(a1, v1[i]), S::mul(a2, v2[j]))
        };
        i += usize::from(p <= q);
        j += usize::from(q <= p);
        o += 1;
    }
    for (k, (&c, &v)) in c1[i..].iter().zip(&v1[i..]).enumerate() {
        cols[o + k] = c;
        vals[o + k] = S::mul(a1, v);
    }
    o += c1.len() - i;
    for (k, (&c, &v)) in c2[j..].iter().zip(&v2[j..]).enumerate() {
        cols[o + k] = c;
        vals[o + k] = S::mul(a2, v);
    }
}
