//! Multicore SpMV, y = A ⊗ x, for every format. Below [`SERIAL_BELOW_WORK`]
//! stored slots the serial engine runs instead.
//!
//! **Row formats** (CSR, ELL, HYB, SELL, BSR, dense) split their rows — or
//! slices, or block rows — into chunks of equal work (stored slots, padding
//! included, since a kernel reads it) and compute each chunk with the shared
//! `*_into` function of its format: every row is summed exactly as the serial
//! engine sums it, so the bits are the serial engine's whatever the thread
//! count. SELL computes in sorted order and then scatters through the
//! permutation, window by window (a row never leaves its window of σ rows).
//!
//! **COO and CSC** have no row split: any entry may land in any row. Their
//! entries are cut, in storage order, into chunks of a fixed length that
//! depends on the matrix alone ([`entry_chunk_len`]), never on the thread
//! count. Each chunk sums its products into a dense partial vector starting
//! from `S::zero()`, and the partials are added into y in chunk order, each
//! over just the rows it touched (its lowest to highest row). So the
//! result is the same for any number of threads, and the serial result for
//! semirings whose `add` is order-independent (min, max, or) — up to the
//! sign of a zero: `min(0.0, -0.0)` may give either. For plus-times a row
//! whose entries fall in two or more chunks is summed in another grouping
//! than the serial loop, and its bits may differ from the serial engine's
//! by rounding.

use crate::engine::shared::partition::{balanced_row_chunks, split_rows_mut};
use crate::engine::shared::spmv::{
    self as one_thread, bsr_block_rows_into, check_x_len, csr_row_dot, dense_rows_into,
    ell_rows_into, hyb_rows_into, sell_slices_into,
};
use crate::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;
use std::ops::Range;

/// Stored slots (entries plus padding) under which the serial loop runs:
/// below it, waking threads costs more than they save.
pub const SERIAL_BELOW_WORK: usize = 100_000;

/// Fewest entries in a COO or CSC chunk.
pub const ENTRY_CHUNK_MIN: usize = 1 << 16;

/// Rows per task when COO and CSC partials are added into y.
const COMBINE_ROWS: usize = 1 << 14;

/// Entries per COO or CSC chunk: [`ENTRY_CHUNK_MIN`], or `2 · nrows` when
/// that is more. A chunk may touch every row, and adding its partial into y
/// costs up to `nrows`; at twice that many entries the overhead stays a
/// fraction of the chunk's own work; longer chunks add less but leave fewer
/// to share among threads.
pub fn entry_chunk_len(nrows: usize) -> usize {
    ENTRY_CHUNK_MIN.max(2 * nrows)
}

/// y = A ⊗ x for CSR.
#[track_caller]
pub fn spmv_csr<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.nnz() < SERIAL_BELOW_WORK {
        return one_thread::spmv_csr::<S>(a, x);
    }
    let fill = |rows: Range<usize>, out: &mut [S::Value]| {
        for (i, yi) in rows.zip(out) {
            let (cols, vals) = a.row(i);
            *yi = csr_row_dot::<S>(cols, vals, x);
        }
    };
    split_by_work(a.row_ptr(), 1, a.nrows(), fill)
}

/// y = A ⊗ x for ELL.
#[track_caller]
pub fn spmv_ell<S: Semiring>(a: &Ell<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.col_idx().len() < SERIAL_BELOW_WORK {
        return one_thread::spmv_ell::<S>(a, x);
    }
    // Every row holds `width` slots: equal rows are equal work.
    let prefix: Vec<usize> = (0..=a.nrows()).collect();
    let fill = |rows, out: &mut [S::Value]| ell_rows_into::<S>(a, x, rows, out);
    split_by_work(&prefix, 1, a.nrows(), fill)
}

/// y = A ⊗ x for HYB: each chunk of rows does its ELL part, then its run of
/// the overflow.
#[track_caller]
pub fn spmv_hyb<S: Semiring>(a: &Hyb<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let n = a.nrows();
    if a.ell().col_idx().len() + a.overflow().nnz() < SERIAL_BELOW_WORK {
        return one_thread::spmv_hyb::<S>(a, x);
    }
    // Row i costs its `width` ELL slots plus its overflow entries.
    let mut prefix = vec![0usize; n + 1];
    for &r in a.overflow().rows() {
        prefix[r as usize + 1] += 1;
    }
    for i in 0..n {
        prefix[i + 1] += prefix[i] + a.width();
    }
    let fill = |rows, out: &mut [S::Value]| hyb_rows_into::<S>(a, x, rows, out);
    split_by_work(&prefix, 1, n, fill)
}

/// y = A ⊗ x for SELL-C-σ (and JDS): chunks of slices in sorted order, then
/// a scatter through the permutation, one window of σ rows per task.
#[track_caller]
pub fn spmv_sell<S: Semiring>(a: &Sell<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.col_idx().len() < SERIAL_BELOW_WORK {
        return one_thread::spmv_sell::<S>(a, x);
    }
    let (n, c) = (a.nrows(), a.slice_height());
    // A slice costs its slots, and slice_ptr is their prefix sum.
    let fill = |slices, out: &mut [S::Value]| sell_slices_into::<S>(a, x, slices, out);
    let mut sorted = split_by_work(a.slice_ptr(), c, a.nslices() * c, fill);
    sorted.truncate(n);
    // Positions w·σ.. hold exactly the rows w·σ.., permuted: each window
    // scatters into its own part of y.
    let sigma = a.sigma().max(1);
    let mut y = vec![S::zero(); n];
    y.par_chunks_mut(sigma)
        .zip(sorted.par_chunks(sigma).zip(a.perm().par_chunks(sigma)))
        .enumerate()
        .for_each(|(w, (y_w, (sorted_w, perm_w)))| {
            for (&row, &v) in perm_w.iter().zip(sorted_w) {
                y_w[row as usize - w * sigma] = v;
            }
        });
    y
}

/// y = A ⊗ x for BSR, chunks of block rows.
#[track_caller]
pub fn spmv_bsr<S: Semiring>(a: &Bsr<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.values().len() < SERIAL_BELOW_WORK {
        return one_thread::spmv_bsr::<S>(a, x);
    }
    let b = a.block_size();
    let nblock_rows = a.block_row_ptr().len() - 1;
    // A block row costs its blocks (b² slots each): block_row_ptr is the prefix.
    let fill = |block_rows, out: &mut [S::Value]| bsr_block_rows_into::<S>(a, x, block_rows, out);
    let mut y = split_by_work(a.block_row_ptr(), b, nblock_rows * b, fill);
    y.truncate(a.nrows());
    y
}

/// y = A ⊗ x for a dense matrix, rows in equal chunks.
#[track_caller]
pub fn spmv_dense<S: Semiring>(a: &Dense<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.as_slice().len() < SERIAL_BELOW_WORK {
        return one_thread::spmv_dense::<S>(a, x);
    }
    let prefix: Vec<usize> = (0..=a.nrows()).collect();
    let fill = |rows, out: &mut [S::Value]| dense_rows_into::<S>(a, x, rows, out);
    split_by_work(&prefix, 1, a.nrows(), fill)
}

/// y = A ⊗ x for COO in chunks of [`entry_chunk_len`] entries (see the
/// module docs for what that means for the bits).
#[track_caller]
pub fn spmv_coo<S: Semiring>(a: &Coo<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.nnz() < SERIAL_BELOW_WORK {
        return one_thread::spmv_coo::<S>(a, x);
    }
    spmv_coo_chunked::<S>(a, x, entry_chunk_len(a.nrows()))
}

/// The parallel COO path with a given chunk length, whatever the size
/// (the tests below use small chunks to exercise it on small matrices).
#[track_caller]
fn spmv_coo_chunked<S: Semiring>(
    a: &Coo<S::Value>,
    x: &[S::Value],
    chunk_len: usize,
) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let partial = |entries: Range<usize>, sums: &mut Span<S>| {
        let rows = &a.rows()[entries.clone()];
        let (cols, vals) = (&a.cols()[entries.clone()], &a.values()[entries]);
        for ((&r, &c), &v) in rows.iter().zip(cols).zip(vals) {
            sums.add(r, S::mul(v, x[c as usize]));
        }
    };
    combine_chunks::<S>(a.nrows(), a.nnz(), chunk_len, partial)
}

/// y = A ⊗ x for CSC in chunks of [`entry_chunk_len`] entries (see the
/// module docs for what that means for the bits).
#[track_caller]
pub fn spmv_csc<S: Semiring>(a: &Csc<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    if a.nnz() < SERIAL_BELOW_WORK {
        return one_thread::spmv_csc::<S>(a, x);
    }
    spmv_csc_chunked::<S>(a, x, entry_chunk_len(a.nrows()))
}

/// The parallel CSC path with a given chunk length, whatever the size. A
/// chunk may start or end inside a column.
#[track_caller]
fn spmv_csc_chunked<S: Semiring>(
    a: &Csc<S::Value>,
    x: &[S::Value],
    chunk_len: usize,
) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let col_ptr = a.col_ptr();
    let partial = |entries: Range<usize>, sums: &mut Span<S>| {
        // The column holding the chunk's first entry.
        let mut j = col_ptr.partition_point(|&e| e <= entries.start) - 1;
        let mut e = entries.start;
        while e < entries.end {
            let end = col_ptr[j + 1].min(entries.end);
            let xj = x[j];
            for (&r, &v) in a.row_idx()[e..end].iter().zip(&a.values()[e..end]) {
                sums.add(r, S::mul(v, xj));
            }
            (e, j) = (end, j + 1);
        }
    };
    combine_chunks::<S>(a.nrows(), a.nnz(), chunk_len, partial)
}

/// Splits `len` outputs into chunks of about equal work — `work_prefix` has
/// one more entry than there are units (rows, slices, block rows), each unit
/// owning `per_unit` outputs — and fills each chunk's outputs on a rayon
/// thread with `fill(units, out)`.
fn split_by_work<V: Scalar>(
    work_prefix: &[usize],
    per_unit: usize,
    len: usize,
    fill: impl Fn(Range<usize>, &mut [V]) + Sync,
) -> Vec<V> {
    let mut y = vec![V::ZERO; len];
    let chunks = balanced_row_chunks(work_prefix);
    split_rows_mut(&mut y, &chunks, per_unit)
        .into_par_iter()
        .zip(chunks.into_par_iter())
        .for_each(|(out, units)| fill(units, out));
    y
}

/// One COO or CSC chunk's sums: a buffer of `nrows`, zero outside `rows`
/// (the rows the chunk touched). Reused from chunk to chunk: only the rows
/// the last chunk touched are zeroed again.
struct Partial<S: Semiring> {
    sums: Vec<S::Value>,
    rows: Range<usize>,
}

/// A partial being summed into, with the span of rows touched so far.
struct Span<'p, S: Semiring> {
    sums: &'p mut [S::Value],
    lo: usize,
    hi: usize,
}

impl<S: Semiring> Span<'_, S> {
    #[inline(always)]
    fn add(&mut self, row: u32, product: S::Value) {
        let r = row as usize;
        self.sums[r] = S::add(self.sums[r], product);
        self.lo = self.lo.min(r);
        self.hi = self.hi.max(r + 1);
    }
}

impl<S: Semiring> Partial<S> {
    /// Zeroes the buffer and sums `fill`'s products into it.
    fn accumulate(&mut self, nrows: usize, fill: impl FnOnce(&mut Span<S>)) {
        if self.sums.len() == nrows {
            self.sums[self.rows.clone()].fill(S::zero());
        } else {
            self.sums = vec![S::zero(); nrows];
        }
        let mut span = Span {
            sums: &mut self.sums,
            lo: usize::MAX,
            hi: 0,
        };
        fill(&mut span);
        self.rows = span.lo.min(span.hi)..span.hi;
    }
}

/// Cuts `0..nnz` into chunks of `chunk_len` and adds their partials into y
/// in chunk order. Chunks run a batch at a time, one per thread, in buffers
/// reused from batch to batch (a fresh zeroed buffer per chunk costs page
/// faults); the batch size cannot change the result, since partials are
/// still made independently and added in chunk order. The adding runs in
/// parallel over blocks of rows, each block taking the partials in order.
fn combine_chunks<S: Semiring>(
    nrows: usize,
    nnz: usize,
    chunk_len: usize,
    partial: impl Fn(Range<usize>, &mut Span<S>) + Sync,
) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    assert!(chunk_len > 0, "spmv: entry chunks must be non-empty");
    let nchunks = nnz.div_ceil(chunk_len);
    let batch = rayon::current_num_threads().clamp(1, nchunks.max(1));
    let mut partials: Vec<Partial<S>> = (0..batch)
        .map(|_| Partial {
            sums: Vec::new(),
            rows: 0..0,
        })
        .collect();
    let mut y = vec![S::zero(); nrows];
    for first_chunk in (0..nchunks).step_by(batch) {
        let batch = &mut partials[..batch.min(nchunks - first_chunk)];
        batch.par_iter_mut().enumerate().for_each(|(c, p)| {
            let start = (first_chunk + c) * chunk_len;
            let entries = start..(start + chunk_len).min(nnz);
            p.accumulate(nrows, |sums| partial(entries, sums));
        });
        add_in_order(&mut y, batch);
    }
    y
}

/// y ⊕= each partial, in order.
fn add_in_order<S: Semiring>(y: &mut [S::Value], partials: &[Partial<S>])
where
    S::Value: Scalar,
{
    y.par_chunks_mut(COMBINE_ROWS)
        .enumerate()
        .for_each(|(block, y_b)| {
            let rows = block * COMBINE_ROWS..block * COMBINE_ROWS + y_b.len();
            for p in partials {
                let lo = rows.start.max(p.rows.start);
                let hi = rows.end.min(p.rows.end);
                for i in lo..hi {
                    let yi = &mut y_b[i - rows.start];
                    *yi = S::add(*yi, p.sums[i]);
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_kernels::{MinPlus, OrAnd, PlusTimes};
    use proptest::prelude::*;

    /// A COO of up to 12×12 with duplicates in any order, values small
    /// integers (so plus-times is exact in any order), an x, and a chunk
    /// length.
    fn arb_case() -> impl Strategy<Value = (Coo<f64>, Vec<f64>, usize)> {
        (1..=12usize, 1..=12usize).prop_flat_map(|(m, n)| {
            let entry = (0..m as u32, 0..n as u32, -8i8..=8);
            (
                prop::collection::vec(entry, 0..=40),
                prop::collection::vec(-8i8..=8, n),
                1..=7usize,
            )
                .prop_map(move |(entries, x, chunk)| {
                    let mut coo = Coo::new(m, n).unwrap();
                    for (r, c, v) in entries {
                        coo.push_unchecked(r, c, f64::from(v));
                    }
                    (coo, x.into_iter().map(f64::from).collect(), chunk)
                })
        })
    }

    /// COO and CSC in chunks of `chunk` entries give what the one-thread
    /// kernels give (which the engine tests hold against the reference),
    /// up to the sign of a zero.
    fn chunks_agree<S: Semiring>(coo: &Coo<S::Value>, x: &[S::Value], chunk: usize)
    where
        S::Value: Scalar,
    {
        let want = one_thread::spmv_coo::<S>(coo, x);
        assert_eq!(
            spmv_coo_chunked::<S>(coo, x, chunk),
            want,
            "COO, chunks of {chunk}"
        );
        let csc = Csc::from_csr(&coo.to_csr_with(S::add));
        let want = one_thread::spmv_csc::<S>(&csc, x);
        assert_eq!(
            spmv_csc_chunked::<S>(&csc, x, chunk),
            want,
            "CSC, chunks of {chunk}"
        );
    }

    proptest! {
        #[test]
        fn chunked_coo_and_csc_agree_with_one_thread((coo, x, chunk) in arb_case()) {
            chunks_agree::<PlusTimes<f64>>(&coo, &x, chunk);
            chunks_agree::<MinPlus<f64>>(&coo, &x, chunk);
            let mut bools = Coo::new(coo.nrows(), coo.ncols()).unwrap();
            for ((&r, &c), &v) in coo.rows().iter().zip(coo.cols()).zip(coo.values()) {
                bools.push_unchecked(r, c, v > 0.0);
            }
            let x: Vec<bool> = x.iter().map(|&v| v > 0.0).collect();
            chunks_agree::<OrAnd>(&bools, &x, chunk);
        }
    }
}
