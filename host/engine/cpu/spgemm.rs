//! Multicore SpGEMM: Gustavson over rayon, rows split into chunks of equal
//! flops. Below [`SERIAL_BELOW_FLOPS`] products the serial engine runs
//! instead (threads cost more than they save).
//!
//! Two phases, as in the serial engine, both parallel over the same chunks:
//! a symbolic pass gives every row's exact length, a prefix sum places each
//! row, and the numeric pass writes each chunk straight into its own slice
//! of C (first touched by the thread that fills it). Rows use the serial engine's
//! [`accumulate_row`](crate::engine::serial::spgemm::accumulate_row) procedure,
//! so every bit matches the serial engine whatever the thread count.

use crate::engine::serial;
use crate::engine::serial::accumulator::{Accumulator, AccumulatorUser, with_accumulator};
use crate::engine::serial::spgemm::{accumulate_row, check_shapes, row_flops, symbolic_row};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;

/// Total products under which the serial engine is used.
pub const SERIAL_BELOW_FLOPS: usize = 200_000;

/// Multiplies `a` by `b` over semiring `S` on all rayon threads.
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    let flops: Vec<usize> = (0..a.nrows())
        .into_par_iter()
        .map(|i| row_flops(a, b, i))
        .collect();
    let mut prefix = Vec::with_capacity(a.nrows() + 1);
    prefix.push(0usize);
    for (i, f) in flops.iter().enumerate() {
        prefix.push(prefix[i] + f);
    }
    if prefix[a.nrows()] < SERIAL_BELOW_FLOPS || rayon::current_num_threads() == 1 {
        return serial::spgemm::<S>(a, b);
    }
    struct Parallel<'m, S: Semiring>(&'m Csr<S::Value>, &'m Csr<S::Value>, &'m [usize]);
    impl<S: Semiring> AccumulatorUser<S::Value, Csr<S::Value>> for Parallel<'_, S>
    where
        S::Value: Scalar,
    {
        fn run<A: Accumulator<S::Value> + Clone + Send + Sync>(self, acc: A) -> Csr<S::Value> {
            let (a, b, flops) = (self.0, self.1, self.2);
            let chunks = super::balanced_row_chunks(flops);
            // Symbolic: exact row lengths, chunk by chunk.
            let mut row_len = vec![0usize; a.nrows()];
            super::split_rows_mut(&mut row_len, &chunks, 1)
                .into_par_iter()
                .zip(chunks.par_iter())
                .for_each_with(acc.clone(), |acc, (lens, rows)| {
                    for (len, i) in lens.iter_mut().zip(rows.clone()) {
                        *len = symbolic_row(a, b, i, acc);
                    }
                });
            let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
            row_ptr.push(0usize);
            for (i, len) in row_len.iter().enumerate() {
                row_ptr.push(row_ptr[i] + len);
            }
            // Numeric: every chunk writes its own slice of C's arrays.
            let nnz = row_ptr[a.nrows()];
            let mut col_idx = vec![0u32; nnz];
            let mut values = vec![S::zero(); nnz];
            let entry_chunks: Vec<_> = chunks
                .iter()
                .map(|r| row_ptr[r.start]..row_ptr[r.end])
                .collect();
            super::split_rows_mut(&mut col_idx, &entry_chunks, 1)
                .into_par_iter()
                .zip(super::split_rows_mut(&mut values, &entry_chunks, 1))
                .zip(chunks.par_iter())
                .for_each_with(acc, |acc, ((cols, vals), rows)| {
                    let base = row_ptr[rows.start];
                    for i in rows.clone() {
                        let slot = row_ptr[i] - base..row_ptr[i + 1] - base;
                        accumulate_row::<S, A>(a, b, i, acc);
                        acc.drain_sorted(&mut cols[slot.clone()], &mut vals[slot]);
                    }
                });
            Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values)
        }
    }
    with_accumulator(b.ncols(), Parallel::<S>(a, b, &prefix))
}
