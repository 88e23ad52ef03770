//! SpGEMM's row kernels, C = A ⊗ B over a semiring: Gustavson's row-by-row method,
//! in one pass for a small C (each row formed once and appended to C's
//! arrays, made for C's estimated size) or in two for a large one (a
//! symbolic pass sizes every row of C, then the numeric pass forms each in
//! place): see [`Passes`].
//!
//! Each row of C is formed in an accumulator: a dense one (a value and a
//! presence flag per column of B, plus the list of columns touched) when B
//! is narrow enough that those arrays stay in cache; when B is wide, a hash
//! table (open addressing, sized from the row's flop count) for rows whose
//! columns scatter, the dense one for rows whose columns lie close together
//! (bands, stencils) or that compute many products. Either way
//! products are added in the same order — A's row left to right, each row of
//! B left to right — so every engine that uses [`rows_in_one_pass`] or
//! [`symbolic_rows`] and [`numeric_rows`] produces the same bits. A row of
//! A with one entry is a scaled row of B and skips the accumulator; one
//! with two entries, where B is wider than 2¹⁶ columns, merges its two rows
//! of B instead. Products
//! are kept structurally: an entry of C exists wherever
//! some A(i,k) and B(k,j) are both stored, even if its value is the semiring
//! zero (GraphBLAS semantics; scipy drops numeric zeros instead).

use super::accumulator::{Accumulator, AccumulatorUser, RowShape, with_accumulator};
use super::fresh::{self, Filling};
use super::workspace::{KEEP_BUFFERS_MAX_BYTES, Workspace, keep, take_kept};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;
use std::ops::Range;

/// C = A ⊗ B over `S` on the calling thread, in the given number of
/// passes or (`None`) as many as [`Passes::for_product`] chooses: the
/// serial engine, and the cpu engine's product too small to share (tests
/// compare the two ways).
#[track_caller]
pub(crate) fn spgemm_one_thread<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    passes: Option<Passes>,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    struct Serial<'m, S: Semiring>(&'m Csr<S::Value>, &'m Csr<S::Value>, Option<Passes>);
    impl<S: Semiring> AccumulatorUser<S::Value, Csr<S::Value>> for Serial<'_, S>
    where
        S::Value: Scalar,
    {
        fn run<A: Accumulator<S::Value> + Send + 'static>(
            self,
            make: &(dyn Fn() -> A + Sync),
        ) -> Csr<S::Value> {
            let (a, b) = (self.0, self.1);
            let mut taken = take_kept(1, b.ncols(), make);
            let ws = &mut taken[0];
            let n = a.nrows();
            let mut row_ptr = vec![0usize; n + 1];
            let (passes, entries) = match self.2 {
                Some(Passes::Two) => (Passes::Two, 0),
                forced => {
                    let products = a.col_idx().iter().map(|&k| b.row_len(k as usize)).sum();
                    let (passes, entries) = Passes::choose(a, b, products, &mut ws.acc);
                    (forced.unwrap_or(passes), entries)
                }
            };
            let (col_idx, values) = match passes {
                Passes::One => {
                    // Rows formed straight into C's arrays, sized by the
                    // estimate (the thread's kept buffers set aside): no copy.
                    let kept = (
                        std::mem::replace(&mut ws.cols, fresh::room(entries)),
                        std::mem::replace(&mut ws.vals, fresh::room(entries)),
                    );
                    rows_in_one_pass::<S, A>(a, b, 0..n, ws, &mut row_ptr[1..]);
                    prefix_sum(&mut row_ptr);
                    let c = (
                        std::mem::replace(&mut ws.cols, kept.0),
                        std::mem::replace(&mut ws.vals, kept.1),
                    );
                    (fresh::fit(c.0), fresh::fit(c.1))
                }
                Passes::Two => {
                    // Symbolic: exact row sizes, then their offsets.
                    symbolic_rows(a, b, 0..n, mostly_runs(b), &mut ws.acc, &mut row_ptr[1..]);
                    prefix_sum(&mut row_ptr);
                    // Numeric: each row written into its exact slot.
                    let nnz = row_ptr[n];
                    let (mut col_idx, mut values) = (Filling::new(nnz), Filling::new(nnz));
                    numeric_rows::<S, A>(
                        a,
                        b,
                        0..n,
                        &mut ws.acc,
                        &row_ptr,
                        col_idx.whole().zero_filled(),
                        values.whole().zero_filled(),
                    );
                    (col_idx.into_vec(), values.into_vec())
                }
            };
            keep(taken);
            Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values)
        }
    }
    with_accumulator(b.ncols(), Serial::<S>(a, b, passes))
}

/// How a product forms C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passes {
    /// Each row formed once and appended to buffers: on one thread, C's
    /// own arrays; on several, each thread's (kept between calls: see
    /// [`Workspace`]), then copied into C. This saves the symbolic pass,
    /// which costs a fifth to a third of a product's time, for that copy,
    /// which costs less while C is small enough to stay in the caches and
    /// the buffers mapped.
    One,
    /// A symbolic pass sizes every row, then the numeric pass writes each
    /// into its place in C: C is written once, and held once.
    Two,
}

impl Passes {
    /// One pass where the copy of C costs less than the symbolic pass it
    /// saves: where C (estimated) fits `SMALL_C_BYTES` (8 MiB), or fits
    /// [`KEEP_BUFFERS_MAX_BYTES`] and has at least `PRODUCTS_PER_ENTRY`
    /// (1.5) products an entry. Otherwise two: a larger C is copied at memory
    /// speed, and where nearly every product makes an entry (circuit
    /// matrices) the symbolic pass costs no more than that copy. C's size
    /// is estimated from the symbolic pass over a sample of rows; `acc` is
    /// the accumulator that pass uses.
    pub fn for_product<T: Scalar, A: Accumulator<T>>(
        a: &Csr<T>,
        b: &Csr<T>,
        products: usize,
        acc: &mut A,
    ) -> Passes {
        Passes::choose(a, b, products, acc).0
    }

    /// [`Passes::for_product`], and C's entries as estimated (its
    /// `products` where those fit `SMALL_C_BYTES`: the room a one-pass
    /// product reserves, at most `products`).
    pub fn choose<T: Scalar, A: Accumulator<T>>(
        a: &Csr<T>,
        b: &Csr<T>,
        products: usize,
        acc: &mut A,
    ) -> (Passes, usize) {
        let entry = (size_of::<u32>() + size_of::<T>()) as f64;
        if products as f64 * entry <= SMALL_C_BYTES as f64 {
            return (Passes::One, products);
        }
        let n = a.nrows();
        let (mut flops, mut len) = (0, 0);
        for i in (0..n).step_by((n / SAMPLED_ROWS).max(SAMPLE_EVERY_MIN)) {
            flops += row_flops(a, b, i);
            len += symbolic_row(a, b, i, false, acc);
        }
        // Sampled rows of no products leave C's size unknown: assume the bound.
        let entries = if flops == 0 {
            products as f64
        } else {
            products as f64 * len as f64 / flops as f64
        };
        let bytes = entries * entry;
        let passes = if bytes <= SMALL_C_BYTES as f64
            || (bytes <= KEEP_BUFFERS_MAX_BYTES as f64
                && products as f64 >= PRODUCTS_PER_ENTRY * entries)
        {
            Passes::One
        } else {
            Passes::Two
        };
        // A sample's estimate may fall short: room for a quarter more.
        (passes, ((entries * 1.25) as usize).min(products))
    }
}

/// A C that [`Passes::One`] copies within the shared cache (a quarter of
/// the development machine's L3, leaving room for the buffers, A and B).
const SMALL_C_BYTES: usize = 1 << 23;

/// Products an entry from which a C beyond [`SMALL_C_BYTES`] is formed in
/// one pass.
const PRODUCTS_PER_ENTRY: f64 = 1.5;

/// Rows of A whose symbolic pass estimates C's size for
/// [`Passes::for_product`], spread evenly over A...
const SAMPLED_ROWS: usize = 1024;
/// ...but at most one row in this many: the sample runs on one thread,
/// and on a product of few long rows it must cost little beside the
/// symbolic pass it may save.
const SAMPLE_EVERY_MIN: usize = 32;

/// Turns row lengths in `row_ptr[1..]` (with `row_ptr[0]` = 0) into offsets.
pub(crate) fn prefix_sum(row_ptr: &mut [usize]) {
    for i in 1..row_ptr.len() {
        row_ptr[i] += row_ptr[i - 1];
    }
}

/// Ok when `a.ncols() == b.nrows()`, else [`Error::Mismatch`] naming both
/// shapes (`spgemm: A.ncols() != B.nrows() (2×3 times 4×2)`): what every
/// public SpGEMM function of [`ops`](crate::ops) returns before any work.
pub fn shapes_agree<T: Scalar, U: Scalar>(a: &Csr<T>, b: &Csr<U>) -> Result<()> {
    product_shapes_agree("spgemm", a.shape(), b.shape())
}

/// Ok when A's columns are B's rows (shapes `(nrows, ncols)`), else
/// [`Error::Mismatch`] of `op` naming both: the check of every product.
pub fn product_shapes_agree(op: &'static str, a: (usize, usize), b: (usize, usize)) -> Result<()> {
    if a.1 == b.0 {
        return Ok(());
    }
    Err(Error::mismatch(
        op,
        format!(
            "A.ncols() != B.nrows() ({}×{} times {}×{})",
            a.0, a.1, b.0, b.1
        ),
    ))
}

/// Panics with [`shapes_agree`]'s message unless the shapes agree: the
/// engines' invariant, which [`ops`](crate::ops) has checked already (and
/// returned as an error).
#[track_caller]
pub fn check_shapes<T: Scalar, U: Scalar>(a: &Csr<T>, b: &Csr<U>) {
    if let Err(e) = shapes_agree(a, b) {
        panic!("{e}");
    }
}

/// Number of products row `i` of A·B computes: Σ over A(i,k) of |B(k,:)|.
/// Engines split work by it.
#[inline]
pub fn row_flops<T: Scalar>(a: &Csr<T>, b: &Csr<T>, i: usize) -> usize {
    a.row(i).0.iter().map(|&k| b.row_len(k as usize)).sum()
}

/// `prefix[i]`: the products of rows `0..i` of A·B, for every `i` in `0..=m`.
/// One array, written on all threads (it becomes C's `row_ptr`).
pub fn flops_prefix<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> Vec<usize> {
    /// Rows a task counts: a row's count is a few loads.
    const ROWS_PER_TASK: usize = 1 << 12;
    let m = a.nrows();
    let mut prefix = Filling::new(m + 1);
    // prefix[0], then rows 0..m at 1..=m.
    let ranges: Vec<Range<usize>> = std::iter::once(0..1)
        .chain(
            (1..=m)
                .step_by(ROWS_PER_TASK)
                .map(|s| s..(s + ROWS_PER_TASK).min(m + 1)),
        )
        .collect();
    prefix
        .parts(&ranges)
        .into_par_iter()
        .zip(ranges.par_iter())
        .for_each(|(part, r)| match r.start {
            0 => part.fill_with(|_| 0),
            s => part.fill_with(|k| row_flops(a, b, s - 1 + k)),
        });
    let mut prefix = prefix.into_vec();
    prefix_sum(&mut prefix);
    prefix
}

/// Ok when a plan's new values number as many as its operands' entries:
/// `a` and `b` are (values given, entries), `call` names the plan's method
/// in the error (an [`Error::Invalid`] naming the operand and both counts).
pub fn check_new_values(call: &str, a: (usize, usize), b: (usize, usize)) -> Result<()> {
    for (name, (got, want)) in [("A", a), ("B", b)] {
        if got != want {
            return Err(Error::Invalid {
                format: "CSR",
                reason: format!(
                    "{call}: {got} values for {name}, whose pattern has {want} entries"
                ),
            });
        }
    }
    Ok(())
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

/// Symbolic phase for rows `rows` of A·B: their lengths into `lens`;
/// `b_runs`, whether to try counting each row from the ends of B's rows
/// first (see [`mostly_runs`]).
pub fn symbolic_rows<T: Scalar, A: Accumulator<T>>(
    a: &Csr<T>,
    b: &Csr<T>,
    rows: Range<usize>,
    b_runs: bool,
    acc: &mut A,
    lens: &mut [usize],
) {
    for (len, i) in lens.iter_mut().zip(rows) {
        prefetch_b_rows(a, b, i + PREFETCH_ROWS_AHEAD);
        *len = symbolic_row(a, b, i, b_runs, acc);
    }
}

/// Whether nearly all of B's rows (all but a sixteenth) are runs of
/// consecutive columns, as a band's are: only then does the symbolic phase
/// try, row by row, to count a row of C from the ends of its rows of B,
/// since elsewhere trying (reading the ends of rows of B that are then
/// read again) costs more than it finds.
pub fn mostly_runs<T: Scalar>(b: &Csr<T>) -> bool {
    let (ptr, cols) = (b.row_ptr(), b.col_idx());
    let not_runs = ptr
        .windows(2)
        .filter(|r| r[0] < r[1] && (cols[r[1] - 1] - cols[r[0]]) as usize + 1 != r[1] - r[0])
        .count();
    not_runs * 16 <= b.nrows()
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
    let mut out = Presized { cols, vals };
    for i in rows {
        prefetch_b_rows(a, b, i + PREFETCH_ROWS_AHEAD);
        let len = row_ptr[i + 1] - row_ptr[i];
        form_row::<S, A, _>(a, b, i, acc, Some(len), &mut out);
    }
}

/// Rows `rows` of A·B in one pass: each row formed, then appended to
/// `ws`'s buffers, its length written to `lens`.
pub fn rows_in_one_pass<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    rows: Range<usize>,
    ws: &mut Workspace<A, S::Value>,
    lens: &mut [usize],
) where
    S::Value: Scalar,
{
    let mut out = Appended {
        cols: &mut ws.cols,
        vals: &mut ws.vals,
    };
    for (len, i) in lens.iter_mut().zip(rows) {
        prefetch_b_rows(a, b, i + PREFETCH_ROWS_AHEAD);
        *len = form_row::<S, A, _>(a, b, i, &mut ws.acc, None, &mut out);
    }
}

/// Where rows of C go as they are formed, in order.
trait RowSink<T> {
    /// Room for the next row, of `len` entries.
    fn next_row(&mut self, len: usize) -> (&mut [u32], &mut [T]);
    /// Returns the last `unused` entries of the room just taken.
    fn give_back(&mut self, unused: usize);
}

/// C's arrays sized by the symbolic phase: each row takes the next `len`
/// entries.
struct Presized<'c, T> {
    cols: &'c mut [u32],
    vals: &'c mut [T],
}

impl<T> RowSink<T> for Presized<'_, T> {
    #[inline(always)]
    fn next_row(&mut self, len: usize) -> (&mut [u32], &mut [T]) {
        let (cols, rest) = std::mem::take(&mut self.cols).split_at_mut(len);
        self.cols = rest;
        let (vals, rest) = std::mem::take(&mut self.vals).split_at_mut(len);
        self.vals = rest;
        (cols, vals)
    }
    fn give_back(&mut self, unused: usize) {
        debug_assert_eq!(unused, 0, "rows are sized exactly");
    }
}

/// C's arrays growing a row at a time (one pass).
struct Appended<'c, T> {
    cols: &'c mut Vec<u32>,
    vals: &'c mut Vec<T>,
}

impl<T: Scalar> RowSink<T> for Appended<'_, T> {
    #[inline(always)]
    fn next_row(&mut self, len: usize) -> (&mut [u32], &mut [T]) {
        let start = self.cols.len();
        self.cols.resize(start + len, 0);
        self.vals.resize(start + len, T::ZERO);
        (&mut self.cols[start..], &mut self.vals[start..])
    }
    #[inline(always)]
    fn give_back(&mut self, unused: usize) {
        self.cols.truncate(self.cols.len() - unused);
        self.vals.truncate(self.vals.len() - unused);
    }
}

/// Number of distinct columns in row `i` of A·B.
#[inline(always)]
fn symbolic_row<T: Scalar, A: Accumulator<T>>(
    a: &Csr<T>,
    b: &Csr<T>,
    i: usize,
    b_runs: bool,
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
    if b_runs && let Some(len) = runs_union_len(b, a_cols) {
        return len;
    }
    acc.start_row(row_shape::<T, A>(a, b, i, None));
    for &k in a_cols {
        acc.touch_all(b.row(k as usize).0);
    }
    acc.row_len()
}

/// Distinct columns of the rows `ks` of B together, counted from the rows'
/// ends alone when each is a run of consecutive columns and the runs start
/// in order (a band's rows: its square's symbolic pass then costs a step a
/// row of B, not a step a product); `None` at the first row that is not.
/// Each run adds what it reaches beyond the runs before it: those all
/// start at or before it, so the one reaching furthest covers it up to
/// there.
#[inline(always)]
fn runs_union_len<T: Scalar>(b: &Csr<T>, ks: &[u32]) -> Option<usize> {
    let (ptr, cols) = (b.row_ptr(), b.col_idx());
    let (mut len, mut start, mut reach) = (0, 0, 0);
    for &k in ks {
        let row = ptr[k as usize]..ptr[k as usize + 1];
        if row.is_empty() {
            continue;
        }
        let (first, last) = (cols[row.start] as usize, cols[row.end - 1] as usize);
        if last - first + 1 != row.len() || first < start {
            return None;
        }
        start = first;
        len += (last + 1).saturating_sub(first.max(reach));
        reach = reach.max(last + 1);
    }
    Some(len)
}

/// Forms row `i` of A·B into `out` and returns its length, which is `len`
/// where [`symbolic_row`] gave it: products summed in A's order, then B's,
/// the first product of each column stored as it is.
#[inline(always)]
fn form_row<S: Semiring, A: Accumulator<S::Value>, O: RowSink<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    i: usize,
    acc: &mut A,
    len: Option<usize>,
    out: &mut O,
) -> usize
where
    S::Value: Scalar,
{
    let (a_cols, a_vals) = a.row(i);
    if len == Some(0) || a_cols.is_empty() {
        return 0;
    }
    if let (&[k], &[a_ik]) = (a_cols, a_vals) {
        let (b_cols, b_vals) = b.row(k as usize);
        let (cols, vals) = out.next_row(b_cols.len());
        cols.copy_from_slice(b_cols);
        for (v, &b_kj) in vals.iter_mut().zip(b_vals) {
            *v = S::mul(a_ik, b_kj);
        }
        return b_cols.len();
    }
    if let (&[k1, k2], &[a1, a2]) = (a_cols, a_vals)
        && b.ncols() > MERGE_TWO_MIN_COLS
    {
        // Unknown, the length is found by the merge, in room for both rows.
        let (r1, r2) = (b.row(k1 as usize), b.row(k2 as usize));
        let room = len.unwrap_or(r1.0.len() + r2.0.len());
        let (cols, vals) = out.next_row(room);
        let len = merge_two::<S>((a1, r1), (a2, r2), cols, vals);
        out.give_back(room - len);
        return len;
    }
    acc.start_row(row_shape::<S::Value, A>(a, b, i, len));
    for (&k, &a_ik) in a_cols.iter().zip(a_vals) {
        let (b_cols, b_vals) = b.row(k as usize);
        acc.accumulate_all::<S>(a_ik, b_cols, b_vals);
    }
    let n = acc.row_len();
    debug_assert!(len.is_none_or(|len| len == n));
    let (cols, vals) = out.next_row(n);
    acc.drain_sorted(cols, vals);
    n
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
/// so the bits are theirs. Returns the row's length; `cols` and `vals`
/// may be longer.
#[inline]
fn merge_two<S: Semiring>(
    (a1, (c1, v1)): ScaledRow<S::Value>,
    (a2, (c2, v2)): ScaledRow<S::Value>,
    cols: &mut [u32],
    vals: &mut [S::Value],
) -> usize
where
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
    o + c2.len() - j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_union_len_counts_runs_from_their_ends_and_declines_the_rest() {
        // Rows of B: [0, 3], [2, 5], [3, 4] (inside the others), empty,
        // [9, 10] (after a gap), {1, 3} (not a run).
        let b = Csr::try_new(
            6,
            12,
            vec![0, 4, 8, 10, 10, 12, 14],
            vec![0, 1, 2, 3, 2, 3, 4, 5, 3, 4, 9, 10, 1, 3],
            vec![1.0; 14],
        )
        .unwrap();
        assert_eq!(runs_union_len(&b, &[0, 1, 2, 3, 4]), Some(6 + 2));
        assert_eq!(runs_union_len(&b, &[3]), Some(0));
        assert_eq!(runs_union_len(&b, &[1, 0]), None, "starts out of order");
        assert_eq!(runs_union_len(&b, &[0, 5]), None, "not a run");
    }
}
