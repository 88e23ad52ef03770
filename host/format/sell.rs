//! SELL-C-σ (sliced ELLPACK, Kreutzer et al. 2014), and JDS as its `C = 1`
//! case: ELL cut into slices of `C` rows, each padded only to its own longest
//! row, with rows sorted by length so that rows of a slice are alike.
//!
//! Layout:
//! - `perm[p]` is the original row at sorted position `p`. Positions are
//!   grouped in windows of `σ` rows (`p / σ`); within a window, rows are in
//!   decreasing length (ties in increasing original row), and a row never
//!   leaves its window. `σ` is a positive multiple of `C`, or `nrows` (one
//!   window: a global sort). `σ = C` sorts within slices only, which leaves
//!   the padding as it was.
//! - Slice `s` holds positions `s·C .. s·C + C`. It is a `C × w_s` block
//!   stored column-major: entry `k` of local row `r` is at
//!   `slice_ptr[s] + k·C + r`, so `slice_ptr[s + 1] − slice_ptr[s] = C · w_s`
//!   with `w_s = slice_width[s]` its longest row. The last slice is padded
//!   to `C` rows, so a kernel's stride is always `C`.
//! - Padding is as in ELL: column [`ELL_PAD`], value `T::ZERO`; entries come
//!   first in each row, sorted by column.
//!
//! # JDS ([`Sell::jds`])
//!
//! `C = 1, σ = nrows`: rows sorted by decreasing length over the whole
//! matrix, each row its own slice of width = its length, so there is no
//! padding at all and `slice_ptr` is the row pointer of the permuted matrix:
//! the rows, longest first, stored one after another (a permuted CSR).
//! Classic jagged-diagonal storage (Saad) holds the same entries under the
//! same permutation, but transposed: it stores the *k-th entries* of all
//! sorted rows together (the k-th jagged diagonal, of length "rows with more
//! than k entries"), with a pointer per diagonal instead of per row. Both
//! need no padding; classic JDS is what SELL-`nrows`-`nrows` would be
//! without its padding. Here row-major order was kept so that JDS is exactly
//! one point of the SELL family and every SELL kernel runs on it.

use crate::error::{Error, Result};
use crate::format::ell::check_padded_row;
use crate::format::{Csr, ELL_PAD, MAX_DIM, slot_count, try_filled, try_with_capacity};
use crate::scalar::Scalar;

/// A SELL-C-σ matrix (JDS when `C = 1, σ = nrows`).
#[derive(Clone, Debug, PartialEq)]
pub struct Sell<T> {
    nrows: usize,
    ncols: usize,
    c: usize,
    sigma: usize,
    nnz: usize,
    perm: Vec<u32>,
    slice_ptr: Vec<usize>,
    slice_width: Vec<u32>,
    col_idx: Vec<u32>,
    values: Vec<T>,
}

/// The arrays of a [`Sell`], as [`Sell::try_new`] takes them.
#[derive(Clone, Debug, PartialEq)]
pub struct SellParts<T> {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Rows per slice, `C ≥ 1`.
    pub c: usize,
    /// Rows per sorting window, `σ`.
    pub sigma: usize,
    /// `perm[sorted position] = original row`.
    pub perm: Vec<u32>,
    /// `nslices + 1` offsets into `col_idx` and `values`.
    pub slice_ptr: Vec<usize>,
    /// Longest row of each slice.
    pub slice_width: Vec<u32>,
    /// Each slot's column, slice after slice, column-major within a slice
    /// ([`ELL_PAD`] where padded).
    pub col_idx: Vec<u32>,
    /// Each slot's value, in the order of `col_idx`.
    pub values: Vec<T>,
}

impl<T: Scalar> Sell<T> {
    /// Builds a SELL matrix from its parts, checking every invariant.
    pub fn try_new(parts: SellParts<T>) -> Result<Self> {
        let nnz = validate(&parts)?;
        Ok(Self::assemble(parts, nnz))
    }

    /// Builds a SELL matrix from parts the caller guarantees are valid.
    /// Debug builds still check.
    pub fn from_parts_unchecked(parts: SellParts<T>) -> Self {
        if cfg!(debug_assertions)
            && let Err(e) = validate(&parts)
        {
            panic!("Sell::from_parts_unchecked: {e}");
        }
        let nnz = parts.col_idx.iter().filter(|&&c| c != ELL_PAD).count();
        Self::assemble(parts, nnz)
    }

    /// The arrays, for [`Sell::try_new`] after a change.
    pub fn into_parts(self) -> SellParts<T> {
        SellParts {
            nrows: self.nrows,
            ncols: self.ncols,
            c: self.c,
            sigma: self.sigma,
            perm: self.perm,
            slice_ptr: self.slice_ptr,
            slice_width: self.slice_width,
            col_idx: self.col_idx,
            values: self.values,
        }
    }

    fn assemble(p: SellParts<T>, nnz: usize) -> Self {
        Sell {
            nrows: p.nrows,
            ncols: p.ncols,
            c: p.c,
            sigma: p.sigma,
            nnz,
            perm: p.perm,
            slice_ptr: p.slice_ptr,
            slice_width: p.slice_width,
            col_idx: p.col_idx,
            values: p.values,
        }
    }

    /// SELL-`c`-`sigma` of `a`. `c ≥ 1`; `sigma` a positive multiple of `c`,
    /// or `a.nrows()`.
    pub fn from_csr(a: &Csr<T>, c: usize, sigma: usize) -> Result<Self> {
        let n = a.nrows();
        check_params(n, c, sigma)?;
        // Sort (row length descending, row ascending) within each window:
        // one u64 key per row, the length complemented in the high half.
        let mut keys = try_with_capacity("SELL sort keys", n)?;
        keys.extend((0..n).map(|i| (u64::from(u32::MAX - a.row_len(i) as u32) << 32) | i as u64));
        if sigma > 0 {
            for window in keys.chunks_mut(sigma) {
                window.sort_unstable();
            }
        }
        let mut perm = try_with_capacity("SELL row permutation", n)?;
        perm.extend(keys.iter().map(|&k| k as u32));
        drop(keys);

        let nslices = n.div_ceil(c);
        let mut slice_width = try_with_capacity("SELL slice widths", nslices)?;
        let mut slice_ptr = try_with_capacity("SELL slice pointers", nslices + 1)?;
        slice_ptr.push(0usize);
        for rows in perm.chunks(c) {
            // Rows are sorted within windows that align with slices (or the
            // window is everything), so the first row is the longest.
            let w = a.row_len(rows[0] as usize);
            let end = slot_count("SELL", c, w)?
                .checked_add(slice_ptr[slice_ptr.len() - 1])
                .ok_or_else(|| Error::TooLarge("SELL: slots overflow usize".into()))?;
            slice_width.push(w as u32);
            slice_ptr.push(end);
        }
        let slots = slice_ptr[nslices];
        let mut col_idx = try_filled("SELL", slots, ELL_PAD)?;
        let mut values = try_filled("SELL", slots, T::ZERO)?;
        for (s, rows) in perm.chunks(c).enumerate() {
            for (r, &row) in rows.iter().enumerate() {
                let (cols, vals) = a.row(row as usize);
                for k in 0..cols.len() {
                    col_idx[slice_ptr[s] + k * c + r] = cols[k];
                    values[slice_ptr[s] + k * c + r] = vals[k];
                }
            }
        }
        Ok(Sell {
            nrows: n,
            ncols: a.ncols(),
            c,
            sigma,
            nnz: a.nnz(),
            perm,
            slice_ptr,
            slice_width,
            col_idx,
            values,
        })
    }

    /// JDS of `a`: SELL-1-`nrows` (see the module docs for the layout and
    /// how it relates to classic jagged-diagonal storage). No padding.
    pub fn jds(a: &Csr<T>) -> Self {
        Self::from_csr(a, 1, a.nrows()).expect("C = 1 has no padding: JDS holds nnz slots")
    }

    /// Back to CSR, rows in their original order; every stored entry,
    /// explicit zeros included.
    ///
    /// # Panics
    /// When memory for the CSR cannot be had; [`Sell::try_to_csr`] returns
    /// that as an error.
    pub fn to_csr(&self) -> Csr<T> {
        self.try_to_csr()
            .unwrap_or_else(|e| panic!("Sell::to_csr: {e}"))
    }

    /// [`Sell::to_csr`], or [`Error::TooLarge`] when its row pointers or
    /// entries do not fit in memory.
    pub fn try_to_csr(&self) -> Result<Csr<T>> {
        let (n, c) = (self.nrows, self.c);
        // Row lengths by original row: entries are a prefix of each row.
        let mut row_ptr = try_filled("CSR row pointers", n + 1, 0usize)?;
        for (p, &row) in self.perm.iter().enumerate() {
            let (base, w) = (
                self.slice_ptr[p / c] + p % c,
                self.slice_width[p / c] as usize,
            );
            row_ptr[row as usize + 1] = (0..w)
                .take_while(|&k| self.col_idx[base + k * c] != ELL_PAD)
                .count();
        }
        for i in 0..n {
            row_ptr[i + 1] += row_ptr[i];
        }
        let mut col_idx = try_filled("CSR column indices", self.nnz, 0u32)?;
        let mut values = try_filled("CSR values", self.nnz, T::ZERO)?;
        for (p, &row) in self.perm.iter().enumerate() {
            let base = self.slice_ptr[p / c] + p % c;
            let (start, end) = (row_ptr[row as usize], row_ptr[row as usize + 1]);
            for (k, dst) in (start..end).enumerate() {
                col_idx[dst] = self.col_idx[base + k * c];
                values[dst] = self.values[base + k * c];
            }
        }
        Ok(Csr::from_parts_unchecked(
            n, self.ncols, row_ptr, col_idx, values,
        ))
    }

    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows, self.ncols)
    }
    /// Rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Stored entries (slots that are not padding), explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// Rows per slice, `C`.
    pub fn slice_height(&self) -> usize {
        self.c
    }
    /// Rows per sorting window, `σ`.
    pub fn sigma(&self) -> usize {
        self.sigma
    }
    /// Slices: `ceil(nrows / C)`.
    pub fn nslices(&self) -> usize {
        self.slice_width.len()
    }
    /// `perm[sorted position] = original row`.
    pub fn perm(&self) -> &[u32] {
        &self.perm
    }
    /// `nslices + 1` offsets into [`Sell::col_idx`] and [`Sell::values`].
    pub fn slice_ptr(&self) -> &[usize] {
        &self.slice_ptr
    }
    /// Width (longest row) of each slice.
    pub fn slice_width(&self) -> &[u32] {
        &self.slice_width
    }
    /// Each slot's column, slice after slice, column-major within a slice
    /// ([`ELL_PAD`] where padded).
    pub fn col_idx(&self) -> &[u32] {
        &self.col_idx
    }
    /// Each slot's value, in the order of [`Sell::col_idx`].
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Bytes held by the arrays, padding and permutation included.
    pub fn storage_bytes(&self) -> usize {
        size_of_val(self.perm.as_slice())
            + size_of_val(self.slice_ptr.as_slice())
            + size_of_val(self.slice_width.as_slice())
            + size_of_val(self.col_idx.as_slice())
            + size_of_val(self.values.as_slice())
    }
}

/// Checks `C` and `σ` against the row count.
fn check_params(nrows: usize, c: usize, sigma: usize) -> Result<()> {
    if c == 0 {
        return Err(Error::invalid("SELL", "slice height C is 0"));
    }
    if sigma != nrows && (sigma == 0 || !sigma.is_multiple_of(c)) {
        return Err(Error::invalid(
            "SELL",
            format!("σ = {sigma} is neither a positive multiple of C = {c} nor nrows = {nrows}"),
        ));
    }
    Ok(())
}

/// Checks the SELL-C-σ invariants, naming the first broken one; returns nnz.
fn validate<T: Scalar>(p: &SellParts<T>) -> Result<usize> {
    let bad = |reason: String| Err(Error::invalid("SELL", reason));
    let (n, c, sigma) = (p.nrows, p.c, p.sigma);
    if n > MAX_DIM || p.ncols > MAX_DIM {
        return bad(format!(
            "shape {n}×{} exceeds the largest dimension {MAX_DIM}",
            p.ncols
        ));
    }
    check_params(n, c, sigma)?;
    if p.perm.len() != n {
        return bad(format!(
            "perm has {} entries, expected nrows = {n}",
            p.perm.len()
        ));
    }
    let mut seen = vec![false; n];
    for (pos, &row) in p.perm.iter().enumerate() {
        let row = row as usize;
        if row >= n {
            return bad(format!("perm[{pos}] = {row} is not a row (nrows = {n})"));
        }
        if std::mem::replace(&mut seen[row], true) {
            return bad(format!(
                "perm[{pos}] = {row} repeats a row: perm is not a permutation"
            ));
        }
        if row / sigma != pos / sigma {
            return bad(format!(
                "perm[{pos}] = {row} moves row {row} out of its window {} (σ = {sigma})",
                row / sigma
            ));
        }
    }
    let nslices = n.div_ceil(c);
    if p.slice_width.len() != nslices || p.slice_ptr.len() != nslices + 1 {
        return bad(format!(
            "{} slice widths and {} slice pointers, expected {nslices} and {} \
             ({nslices} slices of C = {c} rows)",
            p.slice_width.len(),
            p.slice_ptr.len(),
            nslices + 1
        ));
    }
    if p.slice_ptr[0] != 0 {
        return bad(format!("slice_ptr[0] is {}, expected 0", p.slice_ptr[0]));
    }
    if p.col_idx.len() != p.values.len() || p.slice_ptr[nslices] != p.col_idx.len() {
        return bad(format!(
            "{} column indices and {} values, but slice_ptr[{nslices}] is {}",
            p.col_idx.len(),
            p.values.len(),
            p.slice_ptr[nslices]
        ));
    }
    for s in 0..nslices {
        let w = p.slice_width[s] as usize;
        let (start, end) = (p.slice_ptr[s], p.slice_ptr[s + 1]);
        let span = end.checked_sub(start);
        if span.is_none() || span != c.checked_mul(w) {
            return bad(format!(
                "slice {s} spans slice_ptr {start}..{end}, expected C × width = {c} × {w} slots"
            ));
        }
    }
    let mut nnz = 0;
    let mut prev_len = 0;
    for s in 0..nslices {
        let (base, w) = (p.slice_ptr[s], p.slice_width[s] as usize);
        let mut longest = 0;
        for r in 0..c {
            let pos = s * c + r;
            let slot = |k: usize| (p.col_idx[base + k * c + r], p.values[base + k * c + r]);
            if pos >= n {
                let place = || format!("slice {s}, local row {r} (past the last row)");
                if check_padded_row("SELL", &place, p.ncols, w, slot)? > 0 {
                    return bad(format!("{}: holds entries, expected padding", place()));
                }
                continue;
            }
            let row = p.perm[pos];
            let place = || format!("slice {s}, row {row} (position {pos})");
            let len = check_padded_row("SELL", &place, p.ncols, w, slot)?;
            if pos % sigma != 0 && len > prev_len {
                return bad(format!(
                    "{}: {len} entries, more than position {}'s {prev_len} \
                     (rows must be sorted by decreasing length within windows of σ = {sigma})",
                    place(),
                    pos - 1
                ));
            }
            prev_len = len;
            longest = longest.max(len);
            nnz += len;
        }
        if longest != w {
            return bad(format!(
                "slice {s} has width {w} but its longest row has {longest} entries"
            ));
        }
    }
    Ok(nnz)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;

    /// The order of positions within a window: longer rows first, then
    /// lower row numbers.
    fn order_key(a: &Csr<f64>, row: u32) -> (Reverse<usize>, u32) {
        (Reverse(a.row_len(row as usize)), row)
    }

    /// Rows of lengths 1, 3, 0, 2, 2 (columns from 0).
    fn sample() -> Csr<f64> {
        let lens = [1usize, 3, 0, 2, 2];
        let mut row_ptr = vec![0];
        let mut col_idx = Vec::new();
        for len in lens {
            col_idx.extend(0..len as u32);
            row_ptr.push(col_idx.len());
        }
        let values = (0..col_idx.len()).map(|v| v as f64).collect();
        Csr::try_new(5, 3, row_ptr, col_idx, values).unwrap()
    }

    #[test]
    fn slices_are_column_major_and_padded_to_c_rows() {
        let a = sample();
        let s = Sell::from_csr(&a, 2, 4).unwrap();
        // Window 0 (rows 0..4) sorted: 1 (3), 3 (2), 0 (1), 2 (0); window 1: 4.
        assert_eq!(s.perm(), &[1, 3, 0, 2, 4]);
        assert!(s.perm()[..4].is_sorted_by_key(|&r| order_key(&a, r)));
        assert_eq!(s.slice_width(), &[3, 1, 2]);
        assert_eq!(s.slice_ptr(), &[0, 6, 8, 12]);
        let p = ELL_PAD;
        assert_eq!(s.col_idx(), &[0, 0, 1, 1, 2, p, 0, p, 0, p, 1, p]);
        assert_eq!(s.to_csr(), a);
    }

    #[test]
    fn jds_is_a_permuted_csr_without_padding() {
        let a = sample();
        let j = Sell::jds(&a);
        assert_eq!(j.perm(), &[1, 3, 4, 0, 2]);
        assert_eq!(j.slice_ptr(), &[0, 3, 5, 7, 8, 8]);
        assert_eq!(j.col_idx(), &[0, 1, 2, 0, 1, 0, 1, 0]);
        assert_eq!(j.col_idx().len(), a.nnz());
        assert_eq!(j.to_csr(), a);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let a = sample();
        assert!(
            Sell::from_csr(&a, 0, 5)
                .unwrap_err()
                .to_string()
                .contains("C is 0")
        );
        let e = Sell::from_csr(&a, 2, 3).unwrap_err().to_string();
        assert!(
            e.contains("neither a positive multiple of C = 2 nor nrows = 5"),
            "{e}"
        );
        assert!(Sell::from_csr(&a, 2, 5).is_ok());
    }
}
