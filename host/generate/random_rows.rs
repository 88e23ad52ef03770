//! Rows of random length holding distinct, uniformly random columns: the
//! [`uniform`] generator, and the row machinery the power-law generator
//! shares with it.

use std::ops::Range;

use rand_chacha::ChaCha8Rng;

use super::check_dim;
use super::rows::{RowPattern, csr_with_random_values, rows_of};
use super::stream::{Purpose, below, chunk_rng};
use crate::error::{Error, Result};
use crate::format::Csr;

const KIND: &str = "uniform random";

/// An `nrows × ncols` matrix whose rows have lengths uniform on
/// `min_per_row..=max_per_row`, each row's columns a uniformly random subset
/// of that size (every subset equally likely), and values uniform on (0, 1]
/// (see the [module docs](super)).
///
/// Errors: a zero or too large dimension, `min_per_row > max_per_row`, or
/// `max_per_row > ncols` (a row cannot hold more distinct columns than the
/// matrix has; lengths are not silently clamped).
pub fn uniform(
    nrows: usize,
    ncols: usize,
    min_per_row: usize,
    max_per_row: usize,
    seed: u64,
) -> Result<Csr<f64>> {
    check_dim(KIND, "nrows", nrows)?;
    check_dim(KIND, "ncols", ncols)?;
    if min_per_row > max_per_row {
        return Err(Error::invalid(
            KIND,
            format!("min_per_row ({min_per_row}) exceeds max_per_row ({max_per_row})"),
        ));
    }
    if max_per_row > ncols {
        return Err(Error::invalid(
            KIND,
            format!(
                "max_per_row ({max_per_row}) exceeds ncols ({ncols}): \
                 a row cannot hold more distinct columns than the matrix has"
            ),
        ));
    }
    // At most ncols + 1 ≤ 2³² choices, which `below` covers.
    let choices = (max_per_row - min_per_row + 1) as u64;
    let rows = RandomRows {
        seed,
        ncols,
        length: |rng: &mut ChaCha8Rng| min_per_row + below(rng, choices) as usize,
    };
    csr_with_random_values(nrows, ncols, &rows, seed)
}

/// Rows whose lengths `length` draws (at most `ncols`) from each chunk's
/// row-length stream, and whose columns are uniformly random subsets.
pub(super) struct RandomRows<L> {
    pub seed: u64,
    pub ncols: usize,
    pub length: L,
}

impl<L: Fn(&mut ChaCha8Rng) -> usize + Sync> RowPattern for RandomRows<L> {
    fn row_lengths(&self, chunk: usize, _rows: Range<usize>, lens: &mut [usize]) {
        let mut rng = chunk_rng(self.seed, Purpose::RowLengths, chunk);
        lens.iter_mut()
            .for_each(|len| *len = (self.length)(&mut rng));
    }

    fn row_columns(&self, chunk: usize, rows: Range<usize>, ptr: &[usize], cols: &mut [u32]) {
        let mut rng = chunk_rng(self.seed, Purpose::Columns, chunk);
        let mut left_out = Vec::new();
        for (_, row) in rows_of(rows, ptr, cols) {
            random_subset(&mut rng, self.ncols, row, &mut left_out);
        }
    }
}

/// Fills `out` with a uniformly random subset of `0..ncols`, sorted. A row
/// of more than half the columns is made by choosing the columns to leave
/// out (in `left_out`, scratch space), so the draws stay few.
fn random_subset(rng: &mut ChaCha8Rng, ncols: usize, out: &mut [u32], left_out: &mut Vec<u32>) {
    if 2 * out.len() <= ncols {
        draw_distinct(rng, ncols, out);
        return;
    }
    left_out.resize(ncols - out.len(), 0);
    draw_distinct(rng, ncols, left_out);
    let mut skip = left_out.iter().copied().peekable();
    let kept = (0..ncols as u32).filter(|&c| skip.next_if_eq(&c).is_none());
    for (slot, c) in out.iter_mut().zip(kept) {
        *slot = c;
    }
}

/// Fills `out` with distinct columns below `ncols`, sorted, by drawing
/// uniformly and discarding repeats until `out` is full. Every subset is
/// equally likely, since the procedure treats all columns alike. Meant for
/// `2 · out.len() ≤ ncols`, where fewer than 1.4 draws per entry are needed
/// on average.
fn draw_distinct(rng: &mut ChaCha8Rng, ncols: usize, out: &mut [u32]) {
    let mut distinct = 0;
    while distinct < out.len() {
        for slot in &mut out[distinct..] {
            *slot = below(rng, ncols as u64) as u32;
        }
        out.sort_unstable();
        distinct = dedup_sorted(out);
    }
}

/// Moves the distinct values of sorted `v` to its front, returning how many.
fn dedup_sorted(v: &mut [u32]) -> usize {
    let mut kept = 0;
    for i in 0..v.len() {
        if kept == 0 || v[i] != v[kept - 1] {
            v[kept] = v[i];
            kept += 1;
        }
    }
    kept
}
