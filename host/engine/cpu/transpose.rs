//! Multicore transpose (CSR → CSR of Aᵀ, equivalently CSR → CSC).
//!
//! Rows of A are split into chunks by entries; each chunk counts its
//! entries per column, the counts give every (column, chunk) its own output
//! range, and the chunks scatter in parallel. Within a column the chunks'
//! ranges are in row order and each chunk visits its rows in order, so the
//! result is canonical and equal to the serial [`Csr::transpose`].

use crate::engine::shared::partition::balanced_row_chunks;
use crate::error::Result;
use crate::format::{Csr, try_filled};
use crate::scalar::Scalar;
use rayon::prelude::*;

/// Entries under which the serial transpose runs.
pub const SERIAL_BELOW_NNZ: usize = 200_000;

/// Aᵀ on all rayon threads, or [`Error::TooLarge`](crate::Error) with the
/// numbers when it does not fit in memory.
pub fn transpose<T: Scalar>(a: &Csr<T>) -> Result<Csr<T>> {
    // Per-chunk column counts cost chunks × ncols words: worth it only when
    // that is small against the entries.
    let chunks = balanced_row_chunks(a.row_ptr());
    if a.nnz() < SERIAL_BELOW_NNZ || chunks.len() < 2 || chunks.len() * a.ncols() > a.nnz() {
        return a.try_transpose();
    }
    let counts: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|rows| {
            let mut count = vec![0usize; a.ncols()];
            for &c in &a.col_idx()[a.row_ptr()[rows.start]..a.row_ptr()[rows.end]] {
                count[c as usize] += 1;
            }
            count
        })
        .collect();
    // Exclusive scan, column-major over (column, chunk): `starts[k][j]` is
    // where chunk k writes its first entry of column j.
    let mut row_ptr = Vec::with_capacity(a.ncols() + 1);
    let mut starts = vec![vec![0usize; a.ncols()]; chunks.len()];
    let mut next = 0usize;
    for j in 0..a.ncols() {
        row_ptr.push(next);
        for (k, count) in counts.iter().enumerate() {
            starts[k][j] = next;
            next += count[j];
        }
    }
    row_ptr.push(next);
    let mut col_idx = try_filled("CSR column indices of the transpose", a.nnz(), 0u32)?;
    let mut values = try_filled("CSR values of the transpose", a.nnz(), T::ZERO)?;
    let out = (
        SharedOut(col_idx.as_mut_ptr()),
        SharedOut(values.as_mut_ptr()),
    );
    chunks.par_iter().zip(starts).for_each(|(rows, mut pos)| {
        let out = &out;
        for i in rows.clone() {
            let (cols, vals) = a.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                let p = &mut pos[c as usize];
                // SAFETY: the scan gave each (column, chunk) pair a range of
                // its own, sized by that chunk's count for the column, inside
                // 0..nnz; so every write goes to a distinct, in-bounds slot.
                unsafe {
                    *out.0.0.add(*p) = i as u32;
                    *out.1.0.add(*p) = v;
                }
                *p += 1;
            }
        }
    });
    Ok(Csr::from_parts_unchecked(
        a.ncols(),
        a.nrows(),
        row_ptr,
        col_idx,
        values,
    ))
}

/// An output pointer shared by chunks that write disjoint slots.
struct SharedOut<T>(*mut T);
// SAFETY: only used for the disjoint writes described above.
unsafe impl<T: Send> Sync for SharedOut<T> {}
