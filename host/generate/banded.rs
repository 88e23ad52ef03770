//! Banded matrices: every entry within a fixed distance of the diagonal is
//! stored, with a random value.

use std::ops::Range;

use super::check_dim;
use super::rows::{RowPattern, csr_with_random_values, rows_of};
use crate::error::{Error, Result};
use crate::format::Csr;

const KIND: &str = "banded";

/// An `n × n` matrix holding every `(i, j)` with `i − lower ≤ j ≤ i + upper`,
/// values uniform on (0, 1] (see the [module docs](super)).
///
/// Errors: `n` zero or too large, or a bandwidth of `n` or more (wider than
/// the matrix).
pub fn banded(n: usize, lower: usize, upper: usize, seed: u64) -> Result<Csr<f64>> {
    check_dim(KIND, "n", n)?;
    if lower >= n || upper >= n {
        return Err(Error::invalid(
            KIND,
            format!("bandwidths lower = {lower} and upper = {upper} must be below n = {n}"),
        ));
    }
    csr_with_random_values(n, n, &Band { n, lower, upper }, seed)
}

struct Band {
    n: usize,
    lower: usize,
    upper: usize,
}

impl Band {
    /// The columns of row `i`.
    fn columns(&self, i: usize) -> Range<usize> {
        i.saturating_sub(self.lower)..(i + self.upper + 1).min(self.n)
    }
}

impl RowPattern for Band {
    fn row_lengths(&self, _chunk: usize, rows: Range<usize>, lens: &mut [usize]) {
        for (i, len) in rows.zip(lens) {
            *len = self.columns(i).len();
        }
    }

    fn row_columns(&self, _chunk: usize, rows: Range<usize>, ptr: &[usize], cols: &mut [u32]) {
        for (i, cols) in rows_of(rows, ptr, cols) {
            for (slot, c) in cols.iter_mut().zip(self.columns(i)) {
                *slot = c as u32;
            }
        }
    }
}
