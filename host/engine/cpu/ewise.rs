//! Multicore element-wise addition C = A ⊕ B: rows split by the entries
//! of both operands, each chunk merging its rows with the shared
//! [`merge_row`], the chunks then joined in row order (same bits as serial).

use crate::engine::shared::ewise::{check_same_shape, ewise_add_one_thread, merge_row};
use crate::engine::shared::partition::balanced_row_chunks;
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;

/// Entries (of A and B together) under which the serial loop runs.
pub const SERIAL_BELOW_NNZ: usize = 200_000;

/// `A ⊕ B` on all rayon threads; panics unless the shapes agree.
#[track_caller]
pub fn ewise_add<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_same_shape(a, b);
    if a.nnz() + b.nnz() < SERIAL_BELOW_NNZ {
        return ewise_add_one_thread::<S>(a, b);
    }
    let work: Vec<usize> = a
        .row_ptr()
        .iter()
        .zip(b.row_ptr())
        .map(|(p, q)| p + q)
        .collect();
    let chunks: Vec<MergedRows<S::Value>> = balanced_row_chunks(&work)
        .into_par_iter()
        .map(|rows| {
            let (mut lens, mut cols, mut vals) =
                (Vec::with_capacity(rows.len()), Vec::new(), Vec::new());
            for i in rows {
                let before = cols.len();
                merge_row::<S>(a.row(i), b.row(i), &mut cols, &mut vals);
                lens.push(cols.len() - before);
            }
            (lens, cols, vals)
        })
        .collect();
    let nnz = chunks.iter().map(|c| c.1.len()).sum();
    let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
    row_ptr.push(0);
    let (mut col_idx, mut values) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (lens, cols, vals) in chunks {
        for len in lens {
            row_ptr.push(row_ptr.last().unwrap() + len);
        }
        col_idx.extend_from_slice(&cols);
        values.extend_from_slice(&vals);
    }
    Csr::from_parts_unchecked(a.nrows(), a.ncols(), row_ptr, col_idx, values)
}

/// One chunk's merged rows: their lengths, then their entries.
type MergedRows<T> = (Vec<usize>, Vec<u32>, Vec<T>);
