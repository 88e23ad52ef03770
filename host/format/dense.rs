//! Dense row-major matrices: the `B` and `C` of SpMM, and the reference
//! products that small tests compare against.
//!
//! Element `(i, j)` is `data[i · ncols + j]`. A dense matrix stores no
//! pattern, so converting from CSR needs a `fill` for absent entries — the
//! semiring's zero, which is +∞ for min-plus, not 0 — and converting back
//! keeps the elements that differ from a given `absent` value. An entry
//! stored with the fill value therefore does not come back: this is the one
//! conversion that is not exact on explicit zeros.

use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM, slot_count, try_filled};
use crate::scalar::Scalar;

/// A dense row-major matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense<T> {
    nrows: usize,
    ncols: usize,
    data: Vec<T>,
}

impl<T: Scalar> Dense<T> {
    /// Wraps row-major `data`, which must hold `nrows × ncols` values.
    pub fn try_new(nrows: usize, ncols: usize, data: Vec<T>) -> Result<Self> {
        check_shape(nrows, ncols)?;
        if Some(data.len()) != nrows.checked_mul(ncols) {
            return Err(Error::invalid(
                "dense",
                format!("{} values for a {nrows}×{ncols} matrix", data.len()),
            ));
        }
        Ok(Dense { nrows, ncols, data })
    }

    /// An `nrows × ncols` matrix with every element `value`.
    pub fn filled(nrows: usize, ncols: usize, value: T) -> Result<Self> {
        check_shape(nrows, ncols)?;
        let len = slot_count("dense", nrows, ncols)?;
        let data = try_filled("dense", len, value)?;
        Ok(Dense { nrows, ncols, data })
    }

    /// `a` with absent entries set to `fill`.
    pub fn from_csr(a: &Csr<T>, fill: T) -> Result<Self> {
        let mut d = Self::filled(a.nrows(), a.ncols(), fill)?;
        for i in 0..a.nrows() {
            let row = &mut d.data[i * a.ncols()..(i + 1) * a.ncols()];
            let (cols, vals) = a.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                row[c as usize] = v;
            }
        }
        Ok(d)
    }

    /// The elements that differ from `absent`, as CSR.
    pub fn to_csr(&self, absent: T) -> Csr<T> {
        let mut row_ptr = Vec::with_capacity(self.nrows + 1);
        row_ptr.push(0);
        let (mut col_idx, mut values) = (Vec::new(), Vec::new());
        for i in 0..self.nrows {
            for (j, &v) in self.row(i).iter().enumerate() {
                if v != absent {
                    col_idx.push(j as u32);
                    values.push(v);
                }
            }
            row_ptr.push(col_idx.len());
        }
        Csr::from_parts_unchecked(self.nrows, self.ncols, row_ptr, col_idx, values)
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
    /// Element `(i, j)`.
    ///
    /// # Panics
    /// When `(i, j)` lies outside the matrix, as a slice would.
    #[inline]
    #[track_caller]
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(
            i < self.nrows && j < self.ncols,
            "Dense::get: ({i}, {j}) outside {}×{}",
            self.nrows,
            self.ncols
        );
        self.data[i * self.ncols + j]
    }
    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.ncols..(i + 1) * self.ncols]
    }
    /// All elements, row-major.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    /// All elements, row-major, to write into (an SpMM output).
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    /// All elements, row-major, moved out (no copy).
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
    /// Bytes held by the elements.
    pub fn storage_bytes(&self) -> usize {
        size_of_val(self.data.as_slice())
    }
}

fn check_shape(nrows: usize, ncols: usize) -> Result<()> {
    if nrows > MAX_DIM || ncols > MAX_DIM {
        return Err(Error::invalid(
            "dense",
            format!("shape {nrows}×{ncols} exceeds the largest dimension {MAX_DIM}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_the_semirings_zero_and_absent_entries_come_back_absent() {
        let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 0.0, 3.0]).unwrap();
        let d = Dense::from_csr(&a, f64::INFINITY).unwrap();
        assert_eq!(d.row(0), &[1.0, f64::INFINITY, 0.0]);
        assert_eq!(d.get(1, 1), 3.0);
        assert_eq!(d.to_csr(f64::INFINITY), a);
        // With fill 0 the explicit zero at (0, 2) cannot be told from absence.
        let z = Dense::from_csr(&a, 0.0).unwrap().to_csr(0.0);
        assert_eq!(z.nnz(), 2);
        assert_eq!(z.get(0, 2), None);
    }

    #[test]
    fn a_huge_shape_is_an_error_not_an_abort() {
        let e = Dense::filled(MAX_DIM, MAX_DIM, 0.0).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e}");
    }
}
