//! Building a CSR matrix row by row, in parallel over fixed chunks of
//! [`ROW_CHUNK`] rows: first every row's length, then, once a prefix sum has
//! given the row pointers, each chunk writes its rows' columns in place. No
//! global sort, and a chunk's output depends on its index alone.

use std::ops::Range;

use rayon::prelude::*;

use super::stream::{Purpose, chunk_rng, unit_value};
use super::zeroed;
use crate::error::{Error, Result};
use crate::format::Csr;

/// Rows per chunk: the unit of parallel work and of random streams. Fixed,
/// so that the output never depends on the number of threads.
pub(super) const ROW_CHUNK: usize = 4096;

/// A sparsity pattern produced one chunk of rows at a time.
pub(super) trait RowPattern: Sync {
    /// Writes the lengths of `rows`, chunk number `chunk`, into `lens`.
    fn row_lengths(&self, chunk: usize, rows: Range<usize>, lens: &mut [usize]);

    /// Writes the sorted, distinct columns of `rows`: `ptr` holds their row
    /// pointers (`rows.len() + 1` of them) and `cols` their entries.
    fn row_columns(&self, chunk: usize, rows: Range<usize>, ptr: &[usize], cols: &mut [u32]);
}

/// The `nrows × ncols` matrix with `pattern`'s entries, each holding a random
/// value (see [`random_values`]).
pub(super) fn csr_with_random_values(
    nrows: usize,
    ncols: usize,
    pattern: &impl RowPattern,
    seed: u64,
) -> Result<Csr<f64>> {
    let (row_ptr, col_idx) = pattern_by_rows(nrows, pattern)?;
    let values = random_values(seed, &row_ptr)?;
    Ok(Csr::from_parts_unchecked(
        nrows, ncols, row_ptr, col_idx, values,
    ))
}

/// The row pointers and column indices of `pattern` over `nrows` rows.
pub(super) fn pattern_by_rows(
    nrows: usize,
    pattern: &impl RowPattern,
) -> Result<(Vec<usize>, Vec<u32>)> {
    let mut row_ptr = zeroed::<usize>(nrows + 1, "row pointers")?;
    row_ptr[1..]
        .par_chunks_mut(ROW_CHUNK)
        .enumerate()
        .for_each(|(chunk, lens)| {
            let first = chunk * ROW_CHUNK;
            pattern.row_lengths(chunk, first..first + lens.len(), lens);
        });
    for i in 0..nrows {
        row_ptr[i + 1] = row_ptr[i].checked_add(row_ptr[i + 1]).ok_or_else(|| {
            Error::TooLarge(format!(
                "the entries of the first {} rows overflow usize",
                i + 1
            ))
        })?;
    }
    let mut col_idx = zeroed::<u32>(row_ptr[nrows], "column indices")?;
    par_row_chunks(&row_ptr, &mut col_idx, |chunk, rows, ptr, cols| {
        pattern.row_columns(chunk, rows, ptr, cols)
    });
    Ok((row_ptr, col_idx))
}

/// One random value per entry of a matrix with row pointers `row_ptr`
/// ([`unit_value`]: uniform on (0, 1]), in CSR order. The values of chunk `k`
/// of rows come from its own stream, so they depend on the seed and the
/// pattern alone.
pub(super) fn random_values(seed: u64, row_ptr: &[usize]) -> Result<Vec<f64>> {
    let mut values = zeroed::<f64>(row_ptr[row_ptr.len() - 1], "values")?;
    par_row_chunks(row_ptr, &mut values, |chunk, _, _, vals| {
        let mut rng = chunk_rng(seed, Purpose::Values, chunk);
        vals.iter_mut().for_each(|v| *v = unit_value(&mut rng));
    });
    Ok(values)
}

/// Cuts `entries` (stored in CSR order under `row_ptr`) at every
/// [`ROW_CHUNK`]-th row and calls `f(chunk, rows, ptr, entries)` on the
/// chunks in parallel; `ptr` is the chunk's window of `row_ptr`.
pub(super) fn par_row_chunks<T: Send>(
    row_ptr: &[usize],
    entries: &mut [T],
    f: impl Fn(usize, Range<usize>, &[usize], &mut [T]) + Sync + Send,
) {
    let nrows = row_ptr.len() - 1;
    let mut pieces = Vec::with_capacity(nrows.div_ceil(ROW_CHUNK));
    let mut rest = entries;
    for first in (0..nrows).step_by(ROW_CHUNK) {
        let rows = first..(first + ROW_CHUNK).min(nrows);
        let ptr = &row_ptr[rows.start..=rows.end];
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(ptr[ptr.len() - 1] - ptr[0]);
        rest = tail;
        pieces.push((rows, ptr, piece));
    }
    pieces
        .into_par_iter()
        .enumerate()
        .for_each(|(chunk, (rows, ptr, piece))| f(chunk, rows, ptr, piece));
}

/// The rows of one chunk, each with its slice of the chunk's entries.
pub(super) fn rows_of<'a, T>(
    rows: Range<usize>,
    ptr: &'a [usize],
    mut entries: &'a mut [T],
) -> impl Iterator<Item = (usize, &'a mut [T])> {
    rows.zip(ptr.windows(2)).map(move |(row, bounds)| {
        let (mine, rest) = std::mem::take(&mut entries).split_at_mut(bounds[1] - bounds[0]);
        entries = rest;
        (row, mine)
    })
}
