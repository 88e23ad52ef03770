//! Multicore SpGEMM: Gustavson over rayon, rows split into chunks of equal
//! flops. Below [`SERIAL_BELOW_FLOPS`] products the serial engine runs
//! instead (threads cost more than they save).
//!
//! Each chunk forms its rows in one pass into chunk-local buffers (no
//! separate symbolic pass: on a CPU, copying the finished rows once is
//! cheaper than computing every row's pattern twice); the chunks are then
//! concatenated in row order. Rows use the serial engine's
//! [`accumulate_row`](crate::engine::serial::spgemm::accumulate_row) procedure,
//! so every bit matches the serial engine whatever the thread count.

use crate::engine::serial;
use crate::engine::serial::accumulator::{Accumulator, AccumulatorUser, with_accumulator};
use crate::engine::serial::spgemm::{check_shapes, row_flops};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;
use std::ops::Range;

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
            let (a, b, prefix) = (self.0, self.1, self.2);
            let chunks: Vec<ChunkRows<S::Value>> = super::balanced_row_chunks(prefix)
                .into_par_iter()
                .map(|rows| chunk_rows::<S, A>(a, b, rows, acc.clone()))
                .collect();
            concatenate(a.nrows(), b.ncols(), chunks)
        }
    }
    with_accumulator(b.ncols(), Parallel::<S>(a, b, &prefix))
}

/// The rows of C for one chunk of rows of A.
struct ChunkRows<T> {
    row_lens: Vec<usize>,
    col_idx: Vec<u32>,
    values: Vec<T>,
}

fn chunk_rows<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    rows: Range<usize>,
    mut acc: A,
) -> ChunkRows<S::Value>
where
    S::Value: Scalar,
{
    let mut out = ChunkRows {
        row_lens: Vec::with_capacity(rows.len()),
        col_idx: Vec::new(),
        values: Vec::new(),
    };
    for i in rows {
        let start = out.col_idx.len();
        serial::spgemm::accumulate_row::<S, A>(a, b, i, &mut acc);
        let len = acc.row_len();
        out.col_idx.resize(start + len, 0);
        out.values.resize(start + len, S::zero());
        acc.drain_sorted(&mut out.col_idx[start..], &mut out.values[start..]);
        out.row_lens.push(len);
    }
    out
}

fn concatenate<T: Scalar>(nrows: usize, ncols: usize, chunks: Vec<ChunkRows<T>>) -> Csr<T> {
    let nnz: usize = chunks.iter().map(|c| c.col_idx.len()).sum();
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0usize);
    let mut col_idx = Vec::with_capacity(nnz);
    let mut values = Vec::with_capacity(nnz);
    for chunk in chunks {
        for len in chunk.row_lens {
            row_ptr.push(row_ptr.last().unwrap() + len);
        }
        col_idx.extend_from_slice(&chunk.col_idx);
        values.extend_from_slice(&chunk.values);
    }
    Csr::from_parts_unchecked(nrows, ncols, row_ptr, col_idx, values)
}
