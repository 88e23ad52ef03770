//! Multicore SpGEMM: Gustavson over rayon, rows split into chunks of equal
//! flops. Below [`SERIAL_BELOW_FLOPS`] products the product runs on the
//! calling thread, as the serial engine's (threads cost more than they save).
//!
//! In one pass or two, as in the serial engine ([`Passes`] says which),
//! parallel over the same chunks; each thread holds one [`Workspace`] (its
//! accumulator and row buffers, kept between calls) and takes chunks from
//! a shared counter until none is left. One pass: each chunk's rows are
//! formed and appended to its thread's buffers, then the threads copy the
//! chunks into C. Two: a symbolic pass gives every row's exact length, a
//! prefix sum places each row, and the numeric pass writes each chunk
//! straight into its own slice of C. Either way a chunk's slice of C is
//! mapped by the thread that fills it, and C's arrays, the flop prefix
//! (which becomes C's `row_ptr`) and the workspaces are made as
//! [`fresh`] says, on huge pages where a process's first product would
//! otherwise fault them in a small page at a time. Rows are formed by the
//! shared row kernels [`rows_in_one_pass`], [`symbolic_rows`] and
//! [`numeric_rows`] (each row by its class: a scaled copy of a row of B
//! when A's row has one entry, a merge of two rows of B when it has two
//! and B is wider than 2¹⁶ columns, else the dense accumulator, or for B
//! wider than 2¹⁸ columns a hash table for rows whose columns scatter and
//! the dense accumulator for the others), so every bit matches the serial
//! engine whatever the thread count.
//!
//! [`CpuSpgemmPlan`] keeps a product's patterns to recompute its values alone.

use crate::engine::shared::accumulator::{Accumulator, AccumulatorUser, with_accumulator};
use crate::engine::shared::fresh::{self, Filling};
use crate::engine::shared::partition::{balanced_row_chunks, for_each_chunk, split_rows_mut};
use crate::engine::shared::spgemm::{
    Passes, check_shapes, mostly_runs, numeric_rows, prefix_sum, rows_in_one_pass,
    spgemm_one_thread, symbolic_rows,
};
use crate::engine::shared::spgemm::{check_new_values, flops_prefix};
use crate::engine::shared::workspace::{Workspace, keep, take_kept};
use crate::error::Result;
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;
use std::ops::Range;

/// Total products under which the serial engine is used. A product this
/// size takes about 0.2 ms on one core of the machine in BENCHMARKS.md;
/// waking a second thread costs tens of µs.
pub const SERIAL_BELOW_FLOPS: usize = 30_000;

/// Whether A·B computes fewer than `limit` products; stops counting at the
/// limit, so a big product costs no more than a small one to rule out.
fn ops_products_below<T: Scalar>(a: &Csr<T>, b: &Csr<T>, limit: usize) -> bool {
    let mut products = 0;
    for &k in a.col_idx() {
        products += b.row_len(k as usize);
        if products >= limit {
            return false;
        }
    }
    true
}

// Tried: a first product of its size in two passes, so that no fresh
// one-pass buffers are faulted in: no gain beyond the noise (the symbolic
// pass costs about what those pages do).

/// Multiplies `a` by `b` over semiring `S` on all rayon threads.
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    spgemm_in::<S>(a, b, None)
}

/// [`spgemm`] in the given number of passes, or (`None`) as many as
/// [`Passes::for_product`] chooses: the tests compare the two ways.
#[track_caller]
pub(crate) fn spgemm_in<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    passes: Option<Passes>,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    if rayon::current_num_threads() == 1 || ops_products_below(a, b, SERIAL_BELOW_FLOPS) {
        return spgemm_one_thread::<S>(a, b, passes);
    }
    let prefix = flops_prefix(a, b);
    let chunks = balanced_row_chunks(&prefix);
    spgemm_by_products::<S>(a, b, prefix, &chunks, passes)
}

/// [`spgemm`] on every thread, rows in `chunks` of equal products by
/// `prefix` (from [`flops_prefix`], reused as C's `row_ptr`), in the given
/// number of passes or as many as [`Passes::for_product`] chooses.
fn spgemm_by_products<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    prefix: Vec<usize>,
    chunks: &[Range<usize>],
    passes: Option<Passes>,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    struct Parallel<'m, S: Semiring>(
        &'m Csr<S::Value>,
        &'m Csr<S::Value>,
        Vec<usize>,
        &'m [Range<usize>],
        Option<Passes>,
    );
    impl<S: Semiring> AccumulatorUser<S::Value, Csr<S::Value>> for Parallel<'_, S>
    where
        S::Value: Scalar,
    {
        fn run<A: Accumulator<S::Value> + Send + 'static>(
            self,
            make: &(dyn Fn() -> A + Sync),
        ) -> Csr<S::Value> {
            let Parallel(a, b, mut row_ptr, chunks, passes) = self;
            let threads = rayon::current_num_threads().min(chunks.len());
            let mut taken = take_kept(threads, b.ncols(), make);
            let products = row_ptr[a.nrows()];
            let (passes, entries) = match passes {
                Some(Passes::Two) => (Passes::Two, 0),
                forced => {
                    let (passes, entries) = Passes::choose(a, b, products, &mut taken[0].acc);
                    (forced.unwrap_or(passes), entries)
                }
            };
            // From here on `row_ptr` (the prefix, which starts at 0) holds
            // C's row lengths, then their offsets.
            let (col_idx, values) = match passes {
                Passes::One => one_pass::<S, A>(a, b, chunks, &mut taken, entries, &mut row_ptr),
                Passes::Two => two_passes::<S, A>(a, b, chunks, &mut taken, &mut row_ptr),
            };
            keep(taken);
            Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values)
        }
    }
    with_accumulator(b.ncols(), Parallel::<S>(a, b, prefix, chunks, passes))
}

/// C's `col_idx` and `values`.
type CsrEntries<T> = (Vec<u32>, Vec<T>);

/// C's `col_idx` and `values` for `row_ptr`, to be written chunk by chunk
/// (each part's pages mapped by the thread that fills it), and each
/// chunk's range of entries.
fn new_c<T: Scalar>(
    row_ptr: &[usize],
    chunks: &[Range<usize>],
) -> (Filling<u32>, Filling<T>, Vec<Range<usize>>) {
    let nnz = row_ptr[row_ptr.len() - 1];
    let entry_chunks = chunks
        .iter()
        .map(|r| row_ptr[r.start]..row_ptr[r.end])
        .collect();
    (Filling::new(nnz), Filling::new(nnz), entry_chunks)
}

/// C = A·B by [`Passes::One`]: every chunk of rows appended to the buffers
/// of the thread that takes it, then C's arrays filled from them, chunk by
/// chunk, by all threads (each thread maps the pages it fills).
fn one_pass<S: Semiring, A: Accumulator<S::Value> + Send>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    chunks: &[Range<usize>],
    taken: &mut [Workspace<A, S::Value>],
    entries: usize,
    row_ptr: &mut [usize],
) -> CsrEntries<S::Value>
where
    S::Value: Scalar,
{
    // Fresh buffers get room for a thread's share of C as estimated and
    // half as much again (taking chunks as they come, a thread may take
    // more than its share); made on the pool's threads side by side, and a
    // product that finds them made starts no threads for it.
    if taken.iter().any(|ws| ws.cols.capacity() == 0) {
        let share = (entries + entries / 2).div_ceil(taken.len()).min(entries);
        taken
            .par_iter_mut()
            .filter(|ws| ws.cols.capacity() == 0)
            .for_each(|ws| {
                ws.cols = fresh::kept_room(share);
                ws.vals = fresh::kept_room(share);
            });
    }
    // Where each chunk's entries went: (thread, range in its buffers).
    let mut placed = vec![(0, 0..0); chunks.len()];
    let parts = split_rows_mut(&mut row_ptr[1..], chunks, 1)
        .into_iter()
        .zip(placed.iter_mut())
        .collect();
    let mut threads: Vec<_> = taken.iter_mut().enumerate().collect();
    for_each_chunk(&mut threads, parts, |(t, ws), c, (lens, place)| {
        let start = ws.cols.len();
        rows_in_one_pass::<S, A>(a, b, chunks[c].clone(), ws, lens);
        *place = (*t, start..ws.cols.len());
    });
    prefix_sum(row_ptr);
    let (mut col_idx, mut values, entry_chunks) = new_c(row_ptr, chunks);
    let buffers: Vec<(&[u32], &[S::Value])> = taken
        .iter()
        .map(|ws| (&ws.cols[..], &ws.vals[..]))
        .collect();
    col_idx
        .parts(&entry_chunks)
        .into_par_iter()
        .zip(values.parts(&entry_chunks))
        .zip(&placed)
        .for_each(|((cols, vals), (t, range))| {
            cols.copy_from(&buffers[*t].0[range.clone()]);
            vals.copy_from(&buffers[*t].1[range.clone()]);
        });
    (col_idx.into_vec(), values.into_vec())
}

/// C = A·B by [`Passes::Two`]: the symbolic pass over the chunks, C's
/// arrays made, then the numeric pass, each chunk writing its own slice of
/// them (the pages mapped by the thread that fills them).
fn two_passes<S: Semiring, A: Accumulator<S::Value> + Send>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    chunks: &[Range<usize>],
    taken: &mut [Workspace<A, S::Value>],
    row_ptr: &mut [usize],
) -> CsrEntries<S::Value>
where
    S::Value: Scalar,
{
    let mut accs: Vec<&mut A> = taken.iter_mut().map(|ws| &mut ws.acc).collect();
    // Symbolic: exact row lengths, chunk by chunk.
    let parts = split_rows_mut(&mut row_ptr[1..], chunks, 1);
    let b_runs = mostly_runs(b);
    for_each_chunk(&mut accs, parts, |acc, c, lens| {
        symbolic_rows(a, b, chunks[c].clone(), b_runs, *acc, lens);
    });
    prefix_sum(row_ptr);
    // Numeric: every chunk writes its own slice of C's arrays.
    let (mut col_idx, mut values, entry_chunks) = new_c(row_ptr, chunks);
    let parts = col_idx
        .parts(&entry_chunks)
        .into_iter()
        .zip(values.parts(&entry_chunks))
        .collect();
    let row_ptr = &*row_ptr;
    for_each_chunk(&mut accs, parts, |acc, c, (cols, vals)| {
        let (cols, vals) = (cols.zero_filled(), vals.zero_filled());
        numeric_rows::<S, A>(a, b, chunks[c].clone(), *acc, row_ptr, cols, vals);
    });
    (col_idx.into_vec(), values.into_vec())
}

/// A product C = A·B whose patterns are fixed and whose values change
/// (AMG setup, iterative methods): the symbolic phase runs once, in
/// [`CpuSpgemmPlan::new`], and [`CpuSpgemmPlan::numeric`] recomputes C's values
/// from new values of A and B. Knowing C's pattern, a row needs no
/// accumulator and no sort: each thread maps the row's columns to their
/// positions in C and adds every product straight into its slot, in the
/// serial engine's order, so C has the same bits as a fresh product.
pub struct CpuSpgemmPlan<S: Semiring>
where
    S::Value: Scalar,
{
    a_row_ptr: Vec<usize>,
    a_col_idx: Vec<u32>,
    b_row_ptr: Vec<usize>,
    b_col_idx: Vec<u32>,
    c: Csr<S::Value>,
    /// Rows of C in chunks of about equal products (one chunk when the
    /// product is too small to split).
    chunks: Vec<Range<usize>>,
    /// One per thread, kept between calls.
    workspaces: Vec<PlanWorkspace<S::Value>>,
}

/// A thread's workspace for [`CpuSpgemmPlan::numeric`].
struct PlanWorkspace<T> {
    /// Column of B → its position in the current row of C.
    position: Vec<u32>,
    /// Whether a position of the row has had no product yet.
    fresh: Vec<bool>,
    /// The row's sums, plus a spare slot last: see [`numeric_row_planned`].
    sums: Vec<T>,
}

impl<S: Semiring> CpuSpgemmPlan<S>
where
    S::Value: Scalar,
{
    /// Symbolic phase (C's pattern) and a first numeric phase with a's and b's values.
    #[track_caller]
    pub fn new(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Self {
        check_shapes(a, b);
        let (c, chunks) = if ops_products_below(a, b, SERIAL_BELOW_FLOPS) {
            let rows = std::iter::once(0..a.nrows()).filter(|r| !r.is_empty());
            (spgemm_one_thread::<S>(a, b, None), rows.collect())
        } else {
            let prefix = flops_prefix(a, b);
            let chunks = balanced_row_chunks(&prefix);
            let c = match rayon::current_num_threads() {
                1 => spgemm_one_thread::<S>(a, b, None),
                _ => spgemm_by_products::<S>(a, b, prefix, &chunks, None),
            };
            (c, chunks)
        };
        CpuSpgemmPlan {
            a_row_ptr: a.row_ptr().to_vec(),
            a_col_idx: a.col_idx().to_vec(),
            b_row_ptr: b.row_ptr().to_vec(),
            b_col_idx: b.col_idx().to_vec(),
            c,
            chunks,
            workspaces: Vec::new(),
        }
    }

    /// C's values for new values of A and B (the plan's patterns, values in CSR order),
    /// written into the plan's C in place; the same bits as a fresh serial product.
    /// A slice of the wrong length is `Error::Invalid { format: "CSR", reason }` naming which operand and both lengths.
    pub fn numeric(
        &mut self,
        a_values: &[S::Value],
        b_values: &[S::Value],
    ) -> Result<&Csr<S::Value>> {
        check_new_values(
            "SpgemmPlan::numeric",
            (a_values.len(), self.a_col_idx.len()),
            (b_values.len(), self.b_col_idx.len()),
        )?;
        let (m, n, c_row_ptr, c_col_idx, mut c_values) =
            std::mem::replace(&mut self.c, Csr::empty(0, 0)).into_parts();
        let threads = rayon::current_num_threads().min(self.chunks.len());
        let max_row = (0..m).map(|i| c_row_ptr[i + 1] - c_row_ptr[i]).max();
        self.workspaces.truncate(threads);
        while self.workspaces.len() < threads {
            self.workspaces.push(PlanWorkspace {
                position: vec![0; n],
                fresh: Vec::new(),
                sums: Vec::new(),
            });
        }
        for ws in &mut self.workspaces {
            let len = max_row.unwrap_or(0) + 1;
            ws.fresh.resize(len, true);
            ws.sums.resize(len, S::zero());
        }
        let entry_chunks: Vec<_> = self
            .chunks
            .iter()
            .map(|r| c_row_ptr[r.start]..c_row_ptr[r.end])
            .collect();
        let parts = split_rows_mut(&mut c_values, &entry_chunks, 1);
        let (a, b) = (
            (&self.a_row_ptr[..], &self.a_col_idx[..], a_values),
            (&self.b_row_ptr[..], &self.b_col_idx[..], b_values),
        );
        let (chunks, c_row_ptr_ref, c_col_idx_ref) = (&self.chunks, &c_row_ptr, &c_col_idx);
        for_each_chunk(&mut self.workspaces, parts, |ws, c, vals| {
            let base = c_row_ptr_ref[chunks[c].start];
            for i in chunks[c].clone() {
                let slot = c_row_ptr_ref[i]..c_row_ptr_ref[i + 1];
                let c_cols = &c_col_idx_ref[slot.clone()];
                let c_vals = &mut vals[slot.start - base..slot.end - base];
                numeric_row_planned::<S>(a, b, i, c_cols, c_vals, ws);
            }
        });
        self.c = Csr::from_parts_unchecked(m, n, c_row_ptr, c_col_idx, c_values);
        Ok(&self.c)
    }

    /// The product as last computed.
    pub fn product(&self) -> &Csr<S::Value> {
        &self.c
    }
}

/// A matrix as `(row_ptr, col_idx, values)`.
type CsrSlices<'m, T> = (&'m [usize], &'m [u32], &'m [T]);

/// Row `i` of A·B into `c_vals`, C's pattern for the row being `c_cols`:
/// products added in A's order, then B's, the first of each column stored
/// as it is, as the serial engine does.
#[inline]
fn numeric_row_planned<S: Semiring>(
    (a_ptr, a_cols, a_vals): CsrSlices<S::Value>,
    (b_ptr, b_cols, b_vals): CsrSlices<S::Value>,
    i: usize,
    c_cols: &[u32],
    c_vals: &mut [S::Value],
    ws: &mut PlanWorkspace<S::Value>,
) where
    S::Value: Scalar,
{
    let a_row = a_ptr[i]..a_ptr[i + 1];
    if a_row.len() == 1 {
        // A scaled row of B: C's row has B's pattern.
        let (k, a_ik) = (a_cols[a_row.start] as usize, a_vals[a_row.start]);
        for (v, &b_kj) in c_vals.iter_mut().zip(&b_vals[b_ptr[k]..b_ptr[k + 1]]) {
            *v = S::mul(a_ik, b_kj);
        }
        return;
    }
    let len = c_cols.len();
    for (p, &j) in c_cols.iter().enumerate() {
        ws.position[j as usize] = p as u32;
    }
    ws.fresh[..len].fill(true);
    // As in the dense accumulator, no branch on whether a slot is fresh: the
    // sum is stored, then the product over it if the slot is fresh, else
    // into the spare slot.
    let spare = ws.sums.len() - 1;
    for (&k, &a_ik) in a_cols[a_row.clone()].iter().zip(&a_vals[a_row]) {
        let b_row = b_ptr[k as usize]..b_ptr[k as usize + 1];
        for (&j, &b_kj) in b_cols[b_row.clone()].iter().zip(&b_vals[b_row]) {
            let product = S::mul(a_ik, b_kj);
            let slot = ws.position[j as usize] as usize;
            let fresh = std::mem::replace(&mut ws.fresh[slot], false);
            ws.sums[slot] = S::add(ws.sums[slot], product);
            ws.sums[std::hint::select_unpredictable(fresh, slot, spare)] = product;
        }
    }
    c_vals.copy_from_slice(&ws.sums[..len]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_kernels::{MinPlus, PlusTimes};

    /// Each way of forming C, forced, on one thread and on several, gives
    /// the bits of the product as chosen (which the integration tests hold
    /// against the reference).
    fn forced_passes_agree<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>)
    where
        S::Value: Scalar,
    {
        let want = spgemm::<S>(a, b);
        let same = |c: &Csr<S::Value>| c.same_bits(&want);
        for passes in [Passes::One, Passes::Two] {
            assert!(
                same(&spgemm_one_thread::<S>(a, b, Some(passes))),
                "{passes:?}, one thread"
            );
            assert!(
                same(&spgemm_in::<S>(a, b, Some(passes))),
                "{passes:?}, every thread"
            );
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap();
            let three = pool.install(|| spgemm_in::<S>(a, b, Some(passes)));
            assert!(same(&three), "{passes:?}, three threads");
        }
    }

    #[test]
    fn one_pass_and_two_passes_give_the_same_bits() {
        let a = crate::generate::power_law(3000, 2000, 12.0, 2.2, 7).unwrap();
        let b = crate::generate::uniform(2000, 2500, 0, 30, 8).unwrap();
        forced_passes_agree::<PlusTimes<f64>>(&a, &b);
        forced_passes_agree::<MinPlus<f64>>(&a, &b);
        let wide = crate::engine::shared::accumulator::DENSE_ACCUMULATOR_MAX_COLS + 1000;
        let b = crate::generate::uniform(2000, wide, 0, 60, 4).unwrap();
        forced_passes_agree::<PlusTimes<f64>>(&a, &b);
    }
}
