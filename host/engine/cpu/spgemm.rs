//! Multicore SpGEMM: Gustavson over rayon, rows split into chunks of equal
//! flops. Below [`SERIAL_BELOW_FLOPS`] products the serial engine runs
//! instead (threads cost more than they save).
//!
//! Two phases, as in the serial engine, both parallel over the same chunks:
//! a symbolic pass gives every row's exact length, a prefix sum places each
//! row, and the numeric pass writes each chunk straight into its own slice
//! of C (first touched by the thread that fills it, on huge pages where
//! Linux offers them: see [`output_vec`](super::output_vec)). Each thread
//! makes one accumulator and takes chunks from a shared counter until none
//! is left. Rows are formed by the serial engine's own
//! [`symbolic_rows`] and
//! [`numeric_rows`], so every
//! bit matches the serial engine whatever the thread count.

use crate::engine::serial;
use crate::engine::serial::accumulator::{Accumulator, AccumulatorUser, with_accumulator};
use crate::engine::serial::spgemm::{check_shapes, numeric_rows, row_flops, symbolic_rows};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;

/// Total products under which the serial engine is used. A product this
/// size takes about 0.2 ms on one core of the machine in BENCHMARKS.md;
/// waking a second thread costs tens of µs. (Measured: 101k and 127k
/// products, 1.1 and 0.9 ms serial, ran 1.65× and 1.43× faster on 2 cores.)
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

/// Multiplies `a` by `b` over semiring `S` on all rayon threads.
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    if rayon::current_num_threads() == 1 || ops_products_below(a, b, SERIAL_BELOW_FLOPS) {
        return serial::spgemm::<S>(a, b);
    }
    let flops: Vec<usize> = (0..a.nrows())
        .into_par_iter()
        .map(|i| row_flops(a, b, i))
        .collect();
    let mut prefix = Vec::with_capacity(a.nrows() + 1);
    prefix.push(0usize);
    for (i, f) in flops.iter().enumerate() {
        prefix.push(prefix[i] + f);
    }
    struct Parallel<'m, S: Semiring>(&'m Csr<S::Value>, &'m Csr<S::Value>, &'m [usize]);
    impl<S: Semiring> AccumulatorUser<S::Value, Csr<S::Value>> for Parallel<'_, S>
    where
        S::Value: Scalar,
    {
        fn run<A: Accumulator<S::Value> + Send>(
            self,
            make: &(dyn Fn() -> A + Sync),
        ) -> Csr<S::Value> {
            let (a, b, flops) = (self.0, self.1, self.2);
            let chunks = super::balanced_row_chunks(flops);
            let mut accs: Vec<A> = (0..rayon::current_num_threads().min(chunks.len()))
                .map(|_| make())
                .collect();
            // Symbolic: exact row lengths, chunk by chunk.
            let mut row_len = vec![0usize; a.nrows()];
            let parts = super::split_rows_mut(&mut row_len, &chunks, 1);
            super::for_each_chunk(&mut accs, parts, |acc, c, lens| {
                symbolic_rows(a, b, chunks[c].clone(), acc, lens);
            });
            let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
            row_ptr.push(0usize);
            for (i, len) in row_len.iter().enumerate() {
                row_ptr.push(row_ptr[i] + len);
            }
            // Numeric: every chunk writes its own slice of C's arrays.
            let nnz = row_ptr[a.nrows()];
            let mut col_idx = super::output_vec(nnz, 0u32);
            let mut values = super::output_vec(nnz, S::Value::ZERO);
            let entry_chunks: Vec<_> = chunks
                .iter()
                .map(|r| row_ptr[r.start]..row_ptr[r.end])
                .collect();
            let parts = super::split_rows_mut(&mut col_idx, &entry_chunks, 1)
                .into_iter()
                .zip(super::split_rows_mut(&mut values, &entry_chunks, 1))
                .collect();
            super::for_each_chunk(&mut accs, parts, |acc, c, (cols, vals)| {
                numeric_rows::<S, A>(a, b, chunks[c].clone(), acc, &row_ptr, cols, vals);
            });
            Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values)
        }
    }
    with_accumulator(b.ncols(), Parallel::<S>(a, b, &prefix))
}
