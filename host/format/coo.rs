//! COO (coordinate / triplet) format: parallel arrays of row, column and
//! value, in any order, duplicates allowed. It is what readers and generators
//! produce; [`Coo::to_csr`] turns it into canonical CSR.

use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM, try_filled};
use crate::scalar::Scalar;

/// A coordinate-format matrix. Entries may be unsorted and repeated.
#[derive(Clone, Debug, PartialEq)]
pub struct Coo<T> {
    nrows: usize,
    ncols: usize,
    rows: Vec<u32>,
    cols: Vec<u32>,
    values: Vec<T>,
}

impl<T: Scalar> Coo<T> {
    /// An empty `nrows × ncols` matrix.
    pub fn new(nrows: usize, ncols: usize) -> Result<Self> {
        check_shape(nrows, ncols)?;
        Ok(Coo {
            nrows,
            ncols,
            rows: Vec::new(),
            cols: Vec::new(),
            values: Vec::new(),
        })
    }

    /// Builds a COO matrix from triplet arrays, checking lengths and ranges.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        rows: Vec<u32>,
        cols: Vec<u32>,
        values: Vec<T>,
    ) -> Result<Self> {
        check_shape(nrows, ncols)?;
        if rows.len() != cols.len() || rows.len() != values.len() {
            return Err(Error::invalid(
                "COO",
                format!(
                    "{} rows, {} columns and {} values: lengths differ",
                    rows.len(),
                    cols.len(),
                    values.len()
                ),
            ));
        }
        for (k, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
            if r as usize >= nrows || c as usize >= ncols {
                return Err(Error::invalid(
                    "COO",
                    format!("entry {k} at ({r}, {c}) is outside the {nrows}×{ncols} shape"),
                ));
            }
        }
        Ok(Self::from_parts_unchecked(nrows, ncols, rows, cols, values))
    }

    /// Builds a COO matrix from parts the caller guarantees are consistent.
    pub fn from_parts_unchecked(
        nrows: usize,
        ncols: usize,
        rows: Vec<u32>,
        cols: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        debug_assert!(rows.len() == cols.len() && cols.len() == values.len());
        Coo {
            nrows,
            ncols,
            rows,
            cols,
            values,
        }
    }

    /// Reserves room for `additional` more entries; room that cannot be
    /// had is [`Error::TooLarge`].
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        fn room<E>(v: &mut Vec<E>, what: &str, additional: usize) -> Result<()> {
            v.try_reserve(additional).map_err(|_| {
                super::too_large(
                    what,
                    additional,
                    size_of::<E>(),
                    "which cannot be allocated",
                )
            })
        }
        room(&mut self.rows, "COO rows", additional)?;
        room(&mut self.cols, "COO columns", additional)?;
        room(&mut self.values, "COO values", additional)
    }

    /// Appends an entry; out-of-range coordinates are an error.
    pub fn push(&mut self, row: usize, col: usize, value: T) -> Result<()> {
        if row >= self.nrows || col >= self.ncols {
            return Err(Error::invalid(
                "COO",
                format!(
                    "entry at ({row}, {col}) is outside the {}×{} shape",
                    self.nrows, self.ncols
                ),
            ));
        }
        self.push_unchecked(row as u32, col as u32, value);
        Ok(())
    }

    /// Appends an entry the caller has range-checked.
    #[inline]
    pub fn push_unchecked(&mut self, row: u32, col: u32, value: T) {
        debug_assert!((row as usize) < self.nrows && (col as usize) < self.ncols);
        self.rows.push(row);
        self.cols.push(col);
        self.values.push(value);
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
    /// Stored entries, duplicates counted separately.
    pub fn nnz(&self) -> usize {
        self.rows.len()
    }
    /// Each entry's row.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }
    /// Each entry's column.
    pub fn cols(&self) -> &[u32] {
        &self.cols
    }
    /// Each entry's value.
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// `(nrows, ncols, rows, cols, values)`.
    pub fn into_parts(self) -> (usize, usize, Vec<u32>, Vec<u32>, Vec<T>) {
        (self.nrows, self.ncols, self.rows, self.cols, self.values)
    }

    /// Converts to canonical CSR. **Duplicate coordinates are summed**
    /// ([`Scalar::sum_duplicates`]: `+` for numbers, `or` for `bool`), in the
    /// order they appear here, so the result is deterministic. Explicit zeros
    /// are kept as entries.
    ///
    /// # Panics
    /// When memory for the CSR arrays cannot be had; [`Coo::try_to_csr`]
    /// returns that as an error (for matrices whose shape came from input).
    pub fn to_csr(&self) -> Csr<T> {
        self.to_csr_with(T::sum_duplicates)
    }

    /// Converts to canonical CSR, combining duplicates with `combine`
    /// (applied left to right in storage order).
    ///
    /// # Panics
    /// As [`Coo::to_csr`].
    pub fn to_csr_with(&self, combine: impl Fn(T, T) -> T) -> Csr<T> {
        self.try_to_csr_with(combine)
            .unwrap_or_else(|e| panic!("Coo::to_csr: {e}"))
    }

    /// [`Coo::to_csr`], or [`Error::TooLarge`] with the numbers when the
    /// row pointers (`nrows + 1` of them, however few the entries) or the
    /// entries do not fit in memory.
    pub fn try_to_csr(&self) -> Result<Csr<T>> {
        self.try_to_csr_with(T::sum_duplicates)
    }

    fn try_to_csr_with(&self, combine: impl Fn(T, T) -> T) -> Result<Csr<T>> {
        let (n, nnz) = (self.nrows, self.nnz());
        // Counting sort by row; stable, so each row keeps storage order.
        // Row r's count goes to row_ptr[r + 2], so that after the prefix
        // sum row_ptr[r + 1] is where row r starts, and it is where row r
        // ends once its entries are placed.
        let mut row_ptr = try_filled("CSR row pointers", n + 1, 0usize)?;
        for &r in &self.rows {
            if let Some(count) = row_ptr.get_mut(r as usize + 2) {
                *count += 1;
            }
        }
        for i in 1..n {
            row_ptr[i + 1] += row_ptr[i];
        }
        let mut col_idx = try_filled("CSR column indices", nnz, 0u32)?;
        let mut values = try_filled("CSR values", nnz, T::ZERO)?;
        for k in 0..nnz {
            let dst = &mut row_ptr[self.rows[k] as usize + 1];
            col_idx[*dst] = self.cols[k];
            values[*dst] = self.values[k];
            *dst += 1;
        }
        // Sort each row by column (stable) and fold duplicates, compacting
        // in place: `out` trails the read position. Sorted in the arrays
        // themselves (a row out of order through a copy of that row alone),
        // so no array of (column, value) pairs is held beside them.
        let (mut start, mut out) = (0, 0);
        let mut pairs = Vec::new();
        for i in 0..n {
            let end = row_ptr[i + 1];
            if !col_idx[start..end].is_sorted() {
                pairs.clear();
                pairs.extend(
                    col_idx[start..end]
                        .iter()
                        .copied()
                        .zip(values[start..end].iter().copied()),
                );
                pairs.sort_by_key(|e: &(u32, T)| e.0);
                for (k, &(c, v)) in pairs.iter().enumerate() {
                    col_idx[start + k] = c;
                    values[start + k] = v;
                }
            }
            let first = out;
            for k in start..end {
                if out > first && col_idx[out - 1] == col_idx[k] {
                    values[out - 1] = combine(values[out - 1], values[k]);
                } else {
                    col_idx[out] = col_idx[k];
                    values[out] = values[k];
                    out += 1;
                }
            }
            start = end;
            row_ptr[i + 1] = out;
        }
        col_idx.truncate(out);
        values.truncate(out);
        Ok(Csr::from_parts_unchecked(
            n, self.ncols, row_ptr, col_idx, values,
        ))
    }
}

fn check_shape(nrows: usize, ncols: usize) -> Result<()> {
    if nrows > MAX_DIM || ncols > MAX_DIM {
        return Err(Error::invalid(
            "COO",
            format!("shape {nrows}×{ncols} exceeds the largest dimension {MAX_DIM}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_csr_sorts_sums_duplicates_and_keeps_zeros() {
        let coo = Coo::try_new(
            3,
            3,
            vec![2, 0, 2, 0, 1],
            vec![1, 2, 1, 0, 1],
            vec![1.0, 2.0, 4.0, 0.0, 5.0],
        )
        .unwrap();
        let csr = coo.to_csr();
        assert_eq!(csr.row_ptr(), &[0, 2, 3, 4]);
        assert_eq!(csr.col_idx(), &[0, 2, 1, 1]);
        assert_eq!(csr.values(), &[0.0, 2.0, 5.0, 5.0]);
    }

    /// Random triplets, duplicates and rows out of order among them, give
    /// each (row, column) its values folded in storage order.
    #[test]
    fn to_csr_folds_duplicates_in_storage_order() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % below
        };
        for case in 0..200 {
            let (m, n) = (next(9) as usize + 1, next(9) as usize + 1);
            let mut coo = Coo::new(m, n).unwrap();
            let mut want = std::collections::BTreeMap::new();
            for _ in 0..next(60) {
                let (r, c) = (next(m as u64) as u32, next(n as u64) as u32);
                let v = next(1000) as f64 / 7.0 - 50.0;
                coo.push_unchecked(r, c, v);
                want.entry((r, c))
                    .and_modify(|w: &mut f64| *w = f64::sum_duplicates(*w, v))
                    .or_insert(v);
            }
            let csr = coo.try_to_csr().unwrap();
            let got: Vec<_> = (0..m)
                .flat_map(|i| {
                    let (cols, vals) = csr.row(i);
                    cols.iter()
                        .zip(vals)
                        .map(move |(&c, &v)| ((i as u32, c), v.to_bits()))
                })
                .collect();
            let want: Vec<_> = want.into_iter().map(|(k, v)| (k, v.to_bits())).collect();
            assert_eq!(got, want, "case {case}");
        }
    }

    #[test]
    fn try_new_rejects_out_of_range_and_length_mismatch() {
        let e = Coo::try_new(2, 2, vec![0, 2], vec![0, 0], vec![1.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("entry 1 at (2, 0)"), "{e}");
        let e = Coo::<f64>::try_new(2, 2, vec![0], vec![0, 1], vec![1.0]).unwrap_err();
        assert!(e.to_string().contains("lengths differ"), "{e}");
    }
}
