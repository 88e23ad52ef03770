//! Multicore masked products (`C⟨M⟩ = A ⊗ B`, `C⟨M⟩ = T`, `y⟨m⟩ = A ⊗ x`):
//! rows split by work into chunks, each chunk formed by the row kernels of
//! [`shared::masked`](crate::engine::shared::masked), the chunks joined in
//! row order, so the bits are the serial engine's.

use crate::engine::shared::masked::{
    Mask, MaskedRows, VectorMask, assign_row, spgemm_masked_one_thread, spmv_masked_rows,
};
use crate::engine::shared::partition::{balanced_row_chunks, split_rows_mut};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use rayon::prelude::*;
use std::ops::Range;

/// Entries (of the operands together) under which the serial loop runs:
/// below it the split costs more than the threads save.
pub const SERIAL_BELOW_NNZ: usize = 100_000;

/// One chunk's rows: their lengths, then their entries.
type ChunkRows<T> = (Vec<usize>, Vec<u32>, Vec<T>);

/// Rows of an `nrows × ncols` result formed chunk by chunk on all threads
/// (`form(i, cols, vals)` appends row `i`), chunks cut by `work` (a prefix
/// of per-row work, `nrows + 1` long), then joined in row order.
fn rows_in_chunks<T: Scalar, W: Send>(
    nrows: usize,
    ncols: usize,
    work: &[usize],
    init: impl Fn() -> W + Sync + Send,
    form: impl Fn(&mut W, usize, &mut Vec<u32>, &mut Vec<T>) + Sync + Send,
) -> Csr<T> {
    let chunks: Vec<ChunkRows<T>> = balanced_row_chunks(work)
        .into_par_iter()
        .map_init(init, |w, rows: Range<usize>| {
            let (mut lens, mut cols, mut vals) = (Vec::with_capacity(rows.len()), vec![], vec![]);
            for i in rows {
                let before = cols.len();
                form(w, i, &mut cols, &mut vals);
                lens.push(cols.len() - before);
            }
            (lens, cols, vals)
        })
        .collect();
    let nnz = chunks.iter().map(|c| c.1.len()).sum();
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0);
    let (mut col_idx, mut values) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (lens, cols, vals) in chunks {
        for len in lens {
            row_ptr.push(row_ptr.last().unwrap() + len);
        }
        col_idx.extend_from_slice(&cols);
        values.extend_from_slice(&vals);
    }
    Csr::from_parts_unchecked(nrows, ncols, row_ptr, col_idx, values)
}

/// `C⟨M⟩ = A ⊗ B` on all threads; shapes already checked.
pub fn spgemm_masked<S: Semiring, M: Scalar>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mask: Mask<'_, M>,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    if a.nnz() + b.nnz() + mask.pattern.nnz() < SERIAL_BELOW_NNZ {
        return spgemm_masked_one_thread::<S, M>(a, b, mask);
    }
    // A row's work: its entries of A (each a row of B to walk) and of M.
    let work: Vec<usize> = a
        .row_ptr()
        .iter()
        .zip(mask.pattern.row_ptr())
        .map(|(p, q)| p + q)
        .collect();
    rows_in_chunks(
        a.nrows(),
        b.ncols(),
        &work,
        || MaskedRows::new(b.ncols()),
        |w, i, cols, vals| w.row::<S, M>(i, a, b, mask, cols, vals),
    )
}

/// `C⟨M⟩ = T` or `C⟨M, replace⟩ = T` on all threads (see
/// [`assign_row`]); shapes already checked.
pub fn assign_masked<T: Scalar, M: Scalar>(
    c: &Csr<T>,
    t: &Csr<T>,
    mask: Mask<'_, M>,
    replace: bool,
) -> Csr<T> {
    let work: Vec<usize> = (c.row_ptr().iter().zip(t.row_ptr()))
        .zip(mask.pattern.row_ptr())
        .map(|((p, q), r)| p + q + r)
        .collect();
    rows_in_chunks(
        c.nrows(),
        c.ncols(),
        &work,
        || (),
        |(), i, cols, vals| assign_row(i, c, t, mask, replace, cols, vals),
    )
}

/// `y⟨m⟩ = A ⊗ x` on all threads (see [`spmv_masked_rows`]); lengths
/// already checked.
pub fn spmv_masked<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    y: &mut [S::Value],
    mask: VectorMask<'_>,
    replace: bool,
) where
    S::Value: Scalar,
{
    if a.nnz() < SERIAL_BELOW_NNZ {
        return spmv_masked_rows::<S>(a, x, 0..a.nrows(), y, mask, replace);
    }
    let chunks = balanced_row_chunks(a.row_ptr());
    let parts = split_rows_mut(y, &chunks, 1);
    chunks
        .into_par_iter()
        .zip(parts)
        .for_each(|(rows, y_rows)| spmv_masked_rows::<S>(a, x, rows, y_rows, mask, replace));
}
