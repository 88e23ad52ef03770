//! HYB (hybrid, after Bell & Garland 2009): an [`Ell`] part of width `K`
//! holding the first `K` entries of every row, and a [`Coo`] overflow holding
//! the rest. Regular rows run at ELL speed; a few long rows no longer pad
//! the whole matrix.
//!
//! Invariants: the overflow is sorted by row, then column, without
//! duplicates; a row has overflow only if its ELL part is full (all `K`
//! slots), and its overflow columns come after its last ELL column. So each
//! row reads as its ELL entries followed by its overflow entries, in
//! increasing column order, and [`Hyb::to_csr`] is a plain merge.
//!
//! # Choosing `K` ([`Hyb::choose_width`])
//!
//! `K` is the largest `k` such that at least a third of the rows have `k`
//! or more entries: every ELL column is then at least ⅓ full, so the ELL
//! part holds at most `3 · nnz` slots whatever the matrix. The ⅓ is Bell &
//! Garland's: an ELL slot, filled or not, costs about a third of a COO entry
//! on a GPU (no row index to read, no segmented reduction), so a column pays
//! for itself once a third of it is filled. Their rule also required 4096
//! rows to reach `K` (`max(4096, nrows/3)`), an occupancy threshold for
//! 2008 GPUs that makes every matrix under 4096 rows pure COO; it is left
//! out here, since on matrices that small the split costs nothing either way
//! and HYB should still mean ELL + overflow. Use
//! [`Hyb::from_csr_with_width`] to force `K`.

use crate::error::{Error, Result};
use crate::format::{Coo, Csr, ELL_PAD, Ell};
use crate::scalar::Scalar;

/// A hybrid ELL + COO matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Hyb<T> {
    ell: Ell<T>,
    overflow: Coo<T>,
}

impl<T: Scalar> Hyb<T> {
    /// Builds a HYB matrix from its two parts, checking that they fit
    /// together (see the module docs).
    pub fn try_new(ell: Ell<T>, overflow: Coo<T>) -> Result<Self> {
        validate(&ell, &overflow)?;
        Ok(Hyb { ell, overflow })
    }

    /// Builds a HYB matrix from parts the caller guarantees fit together.
    /// Debug builds still check.
    pub fn from_parts_unchecked(ell: Ell<T>, overflow: Coo<T>) -> Self {
        if cfg!(debug_assertions)
            && let Err(e) = validate(&ell, &overflow)
        {
            panic!("Hyb::from_parts_unchecked: {e}");
        }
        Hyb { ell, overflow }
    }

    /// HYB of `a` with `K` from [`Hyb::choose_width`].
    ///
    /// # Panics
    /// When memory for it cannot be had (its ELL part holds at most
    /// `3 · nnz` slots, but there are `nrows` of them even for one entry);
    /// [`Hyb::try_from_csr`] returns that as an error.
    pub fn from_csr(a: &Csr<T>) -> Self {
        Self::try_from_csr(a).unwrap_or_else(|e| panic!("Hyb::from_csr: {e}"))
    }

    /// [`Hyb::from_csr`], or [`Error::TooLarge`] when it does not fit in
    /// memory.
    pub fn try_from_csr(a: &Csr<T>) -> Result<Self> {
        Self::from_csr_with_width(a, Self::choose_width(a))
    }

    /// HYB of `a` with a given `K` (0 makes it all COO, the longest row all
    /// ELL). Only a `K × nrows` too large to allocate is an error.
    pub fn from_csr_with_width(a: &Csr<T>, width: usize) -> Result<Self> {
        let ell = Ell::from_csr_truncated(a, width)?;
        let spill = a.nnz() - ell.nnz();
        let mut rows = Vec::with_capacity(spill);
        let mut cols = Vec::with_capacity(spill);
        let mut vals = Vec::with_capacity(spill);
        for i in 0..a.nrows() {
            let (c, v) = a.row(i);
            if c.len() > width {
                rows.extend(std::iter::repeat_n(i as u32, c.len() - width));
                cols.extend_from_slice(&c[width..]);
                vals.extend_from_slice(&v[width..]);
            }
        }
        let overflow = Coo::from_parts_unchecked(a.nrows(), a.ncols(), rows, cols, vals);
        Ok(Hyb { ell, overflow })
    }

    /// The ELL width `K` for `a`: the largest `k` such that at least a third
    /// of the rows have `≥ k` entries (0 for a matrix without rows). See the
    /// module docs for why. O(nrows + longest row).
    pub fn choose_width(a: &Csr<T>) -> usize {
        let n = a.nrows();
        let mut hist = vec![0usize; a.row_stats().max + 1];
        for i in 0..n {
            hist[a.row_len(i)] += 1;
        }
        // `at_least` = rows with ≥ k entries; it only shrinks as k grows.
        let mut at_least = n;
        let mut k = 0;
        while k + 1 < hist.len() {
            at_least -= hist[k];
            if 3 * at_least < n {
                break;
            }
            k += 1;
        }
        k
    }

    /// Back to CSR: each row's ELL entries, then its overflow entries.
    ///
    /// # Panics
    /// When memory for the CSR cannot be had; [`Hyb::try_to_csr`] returns
    /// that as an error.
    pub fn to_csr(&self) -> Csr<T> {
        self.try_to_csr()
            .unwrap_or_else(|e| panic!("Hyb::to_csr: {e}"))
    }

    /// [`Hyb::to_csr`], or [`Error::TooLarge`] when its row pointers or
    /// entries do not fit in memory.
    pub fn try_to_csr(&self) -> Result<Csr<T>> {
        let o = &self.overflow;
        self.ell.to_csr_appending(o.rows(), o.cols(), o.values())
    }

    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        self.ell.shape()
    }
    /// Rows.
    pub fn nrows(&self) -> usize {
        self.ell.nrows()
    }
    /// Columns.
    pub fn ncols(&self) -> usize {
        self.ell.ncols()
    }
    /// The ELL width `K`.
    pub fn width(&self) -> usize {
        self.ell.width()
    }
    /// Stored entries in both parts, explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.ell.nnz() + self.overflow.nnz()
    }
    /// The first `K` entries of every row.
    pub fn ell(&self) -> &Ell<T> {
        &self.ell
    }
    /// Entries past the `K`-th of their row, sorted by row, then column.
    pub fn overflow(&self) -> &Coo<T> {
        &self.overflow
    }
    /// Bytes held by the arrays of both parts.
    pub fn storage_bytes(&self) -> usize {
        let o = &self.overflow;
        self.ell.storage_bytes()
            + size_of_val(o.rows())
            + size_of_val(o.cols())
            + size_of_val(o.values())
    }
}

/// Checks that an ELL part and an overflow fit together, naming the first
/// broken invariant. Each part is valid on its own already.
fn validate<T: Scalar>(ell: &Ell<T>, overflow: &Coo<T>) -> Result<()> {
    let bad = |reason: String| Err(Error::invalid("HYB", reason));
    if ell.shape() != overflow.shape() {
        let ((m, n), (p, q)) = (ell.shape(), overflow.shape());
        return bad(format!("ELL part is {m}×{n} but the overflow is {p}×{q}"));
    }
    let (n, width) = (ell.nrows(), ell.width());
    let (rows, cols) = (overflow.rows(), overflow.cols());
    for k in 0..rows.len() {
        let (r, c) = (rows[k], cols[k]);
        if k > 0 && (rows[k - 1], cols[k - 1]) >= (r, c) {
            return bad(format!(
                "overflow entry {k} at ({r}, {c}) does not follow entry {} at ({}, {}) \
                 (the overflow must be sorted by row, then column, without duplicates)",
                k - 1,
                rows[k - 1],
                cols[k - 1]
            ));
        }
        if k > 0 && rows[k - 1] == r {
            continue;
        }
        // First overflow entry of row r: the row's ELL part must be full and
        // end before column c.
        let last = match width {
            0 => continue,
            w => ell.col_idx()[(w - 1) * n + r as usize],
        };
        if last == ELL_PAD {
            return bad(format!(
                "row {r} has overflow but its ELL part is not full (slot {} of {width} is padding)",
                width - 1
            ));
        }
        if last >= c {
            return bad(format!(
                "row {r}: overflow column {c} does not come after the ELL part's last column {last}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CSR whose row `i` has `lens[i]` entries in columns `0..lens[i]`.
    fn with_row_lengths(lens: &[usize]) -> Csr<f64> {
        let ncols = lens.iter().copied().max().unwrap_or(0);
        let mut row_ptr = vec![0];
        let mut col_idx = Vec::new();
        for &len in lens {
            col_idx.extend(0..len as u32);
            row_ptr.push(col_idx.len());
        }
        let values = vec![1.0; col_idx.len()];
        Csr::try_new(lens.len(), ncols, row_ptr, col_idx, values).unwrap()
    }

    #[test]
    fn width_is_the_largest_k_reached_by_a_third_of_the_rows() {
        assert_eq!(Hyb::choose_width(&with_row_lengths(&[])), 0);
        assert_eq!(Hyb::choose_width(&with_row_lengths(&[0, 0, 0])), 0);
        assert_eq!(Hyb::choose_width(&with_row_lengths(&[3, 3, 3])), 3);
        // Two of six rows (a third) reach 4; only one reaches 5.
        assert_eq!(Hyb::choose_width(&with_row_lengths(&[1, 2, 2, 4, 9, 0])), 4);
        // One of four rows is less than a third.
        assert_eq!(Hyb::choose_width(&with_row_lengths(&[2, 2, 2, 50])), 2);
    }

    #[test]
    fn long_rows_spill_into_the_overflow_in_order() {
        let a = with_row_lengths(&[1, 5, 2]);
        let h = Hyb::from_csr_with_width(&a, 2).unwrap();
        assert_eq!(h.ell().nnz(), 5);
        assert_eq!(h.overflow().rows(), &[1, 1, 1]);
        assert_eq!(h.overflow().cols(), &[2, 3, 4]);
        assert_eq!(h.nnz(), a.nnz());
        assert_eq!(h.to_csr(), a);
    }
}
