//! ELL (ELLPACK): every row padded to one width and stored column-major, so
//! that the `k`-th entries of consecutive rows are adjacent — a GPU thread
//! per row then reads memory that coalesces across the warp.
//!
//! Layout: `col_idx` and `values` hold `width × nrows` slots; entry `k` of
//! row `i` is at `k * nrows + i`. A row's entries come first, sorted by
//! column; its remaining slots are padding: column [`ELL_PAD`], value
//! `T::ZERO`. Kernels skip a slot by its column, so padding contributes
//! nothing under any semiring, and a stored zero stays an entry.
//!
//! The width is the longest row unless given. ELL suits rows of similar
//! length: one long row pads every other row to its length ([`Hyb`] and
//! [`Sell`] exist for the rest).
//!
//! [`Hyb`]: crate::format::Hyb
//! [`Sell`]: crate::format::Sell

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM, slot_count, try_filled};
use crate::scalar::Scalar;

/// Rows a task converts from CSR: its pieces of the stripes (one per
/// stripe, this many slots each) stay in cache while it reads its rows.
const ELL_ROW_BLOCK: usize = 4096;

/// Column index of a padding slot in ELL, HYB and SELL. Never a real column:
/// columns are below `ncols ≤ u32::MAX`.
pub const ELL_PAD: u32 = u32::MAX;

/// An ELLPACK matrix, column-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Ell<T> {
    nrows: usize,
    ncols: usize,
    width: usize,
    nnz: usize,
    col_idx: Vec<u32>,
    values: Vec<T>,
}

impl<T: Scalar> Ell<T> {
    /// Builds an ELL matrix from its parts, checking every invariant.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Result<Self> {
        let nnz = validate(nrows, ncols, width, &col_idx, &values)?;
        Ok(Ell {
            nrows,
            ncols,
            width,
            nnz,
            col_idx,
            values,
        })
    }

    /// Builds an ELL matrix from parts the caller guarantees are valid.
    /// Debug builds still check.
    pub fn from_parts_unchecked(
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        if cfg!(debug_assertions)
            && let Err(e) = validate(nrows, ncols, width, &col_idx, &values)
        {
            panic!("Ell::from_parts_unchecked: {e}");
        }
        let nnz = col_idx.iter().filter(|&&c| c != ELL_PAD).count();
        Ell {
            nrows,
            ncols,
            width,
            nnz,
            col_idx,
            values,
        }
    }

    /// ELL of `a` with width = its longest row.
    pub fn from_csr(a: &Csr<T>) -> Result<Self> {
        Self::from_csr_truncated(a, a.row_stats().max)
    }

    /// ELL of `a` with a given width, which must be at least the longest row.
    pub fn from_csr_with_width(a: &Csr<T>, width: usize) -> Result<Self> {
        let longest = a.row_stats().max;
        if width < longest {
            return Err(Error::invalid(
                "ELL",
                format!("width {width} is less than the longest row ({longest} entries)"),
            ));
        }
        Self::from_csr_truncated(a, width)
    }

    /// The first `min(len, width)` entries of each row of `a`, as ELL of
    /// `width`: all of `a` when `width` covers every row, and HYB's ELL part
    /// otherwise.
    pub(super) fn from_csr_truncated(a: &Csr<T>, width: usize) -> Result<Self> {
        let n = a.nrows();
        let slots = slot_count("ELL", width, n)?;
        let mut col_idx = try_filled("ELL", slots, ELL_PAD)?;
        let mut values = try_filled("ELL", slots, T::ZERO)?;
        // Rows in blocks, a task each: it reads its rows once, in order,
        // and fills its piece of every stripe (the `k`-th entries).
        if n > 0 {
            let cols = stripe_pieces(&mut col_idx, n);
            let vals = stripe_pieces(&mut values, n);
            cols.into_par_iter()
                .zip(vals)
                .enumerate()
                .for_each(|(block, (mut c, mut v))| {
                    let first = block * ELL_ROW_BLOCK;
                    for (r, i) in (first..n.min(first + ELL_ROW_BLOCK)).enumerate() {
                        let (cols, vals) = a.row(i);
                        for k in 0..cols.len().min(width) {
                            c[k][r] = cols[k];
                            v[k][r] = vals[k];
                        }
                    }
                });
        }
        let row_ptr = a.row_ptr();
        let nnz = (0..n)
            .map(|i| (row_ptr[i + 1] - row_ptr[i]).min(width))
            .sum();
        Ok(Ell {
            nrows: n,
            ncols: a.ncols(),
            width,
            nnz,
            col_idx,
            values,
        })
    }

    /// Back to CSR; every stored entry, explicit zeros included.
    ///
    /// # Panics
    /// When memory for the CSR cannot be had; [`Ell::try_to_csr`] returns
    /// that as an error.
    pub fn to_csr(&self) -> Csr<T> {
        self.try_to_csr()
            .unwrap_or_else(|e| panic!("Ell::to_csr: {e}"))
    }

    /// [`Ell::to_csr`], or [`Error::TooLarge`] when its row pointers or
    /// entries do not fit in memory.
    pub fn try_to_csr(&self) -> Result<Csr<T>> {
        self.to_csr_appending(&[], &[], &[])
    }

    /// CSR of this ELL with extra entries appended to their rows: `rows`,
    /// `cols`, `vals` sorted by row, and each row's extra columns after its
    /// ELL columns (HYB's overflow). O(slots + extra).
    pub(super) fn to_csr_appending(
        &self,
        rows: &[u32],
        cols: &[u32],
        vals: &[T],
    ) -> Result<Csr<T>> {
        let n = self.nrows;
        // Row lengths, reading the slots in storage order. Padding is only
        // at a row's tail, so counting entries gives each row's prefix.
        let mut next = try_filled("CSR row lengths", n, 0usize)?;
        if n > 0 {
            for slab in self.col_idx.chunks_exact(n) {
                for (len, &c) in next.iter_mut().zip(slab) {
                    *len += usize::from(c != ELL_PAD);
                }
            }
        }
        let mut row_ptr = try_filled("CSR row pointers", n + 1, 0usize)?;
        for &r in rows {
            row_ptr[r as usize + 1] += 1;
        }
        for i in 0..n {
            row_ptr[i + 1] += row_ptr[i] + next[i];
        }
        let nnz = row_ptr[n];
        let mut col_idx = try_filled("CSR column indices", nnz, 0u32)?;
        let mut values = try_filled("CSR values", nnz, T::ZERO)?;
        if n > 0 {
            let slabs = self
                .col_idx
                .chunks_exact(n)
                .zip(self.values.chunks_exact(n));
            for (k, (slab_c, slab_v)) in slabs.enumerate() {
                for (i, (&c, &v)) in slab_c.iter().zip(slab_v).enumerate() {
                    if c != ELL_PAD {
                        col_idx[row_ptr[i] + k] = c;
                        values[row_ptr[i] + k] = v;
                    }
                }
            }
        }
        // Extra entries go after each row's ELL part, in the order given.
        for (i, len) in next.iter_mut().enumerate() {
            *len += row_ptr[i];
        }
        for ((&r, &c), &v) in rows.iter().zip(cols).zip(vals) {
            let dst = &mut next[r as usize];
            col_idx[*dst] = c;
            values[*dst] = v;
            *dst += 1;
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
    /// Slots per row.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Stored entries (slots that are not padding), explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// `width × nrows` columns, column-major; [`ELL_PAD`] marks padding.
    pub fn col_idx(&self) -> &[u32] {
        &self.col_idx
    }
    /// `width × nrows` values, column-major; `T::ZERO` in padding.
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Bytes held by the arrays, padding included.
    pub fn storage_bytes(&self) -> usize {
        size_of_val(self.col_idx.as_slice()) + size_of_val(self.values.as_slice())
    }
}

/// Checks the ELL invariants, naming the first broken one; returns nnz.
fn validate<T: Scalar>(
    nrows: usize,
    ncols: usize,
    width: usize,
    col_idx: &[u32],
    values: &[T],
) -> Result<usize> {
    let bad = |reason: String| Err(Error::invalid("ELL", reason));
    if nrows > MAX_DIM || ncols > MAX_DIM {
        return bad(format!(
            "shape {nrows}×{ncols} exceeds the largest dimension {MAX_DIM}"
        ));
    }
    let Some(slots) = width.checked_mul(nrows) else {
        return bad(format!("width {width} × nrows {nrows} overflows usize"));
    };
    if col_idx.len() != slots || values.len() != slots {
        return bad(format!(
            "{} column indices and {} values, expected width × nrows = {slots}",
            col_idx.len(),
            values.len()
        ));
    }
    let mut nnz = 0;
    for i in 0..nrows {
        let slot = |k: usize| (col_idx[k * nrows + i], values[k * nrows + i]);
        nnz += check_padded_row("ELL", &|| format!("row {i}"), ncols, width, slot)?;
    }
    Ok(nnz)
}

/// Checks one padded row of ELL or SELL — slots `slot(0)..slot(width)` — and
/// returns its length: entries first (columns in range, strictly
/// increasing), then padding ([`ELL_PAD`] with `T::ZERO`) to the end.
/// `place` names the row in a message.
pub(super) fn check_padded_row<T: Scalar>(
    format: &'static str,
    place: &dyn Fn() -> String,
    ncols: usize,
    width: usize,
    slot: impl Fn(usize) -> (u32, T),
) -> Result<usize> {
    let bad = |reason: String| Err(Error::invalid(format, format!("{}, {reason}", place())));
    let mut len = None;
    let mut prev = None;
    for k in 0..width {
        let (c, v) = slot(k);
        if c == ELL_PAD {
            if v != T::ZERO {
                return bad(format!(
                    "slot {k}: padding holds {v:?}, expected {:?}",
                    T::ZERO
                ));
            }
            len.get_or_insert(k);
            continue;
        }
        if let Some(first_pad) = len {
            return bad(format!(
                "slot {k}: column {c} after padding at slot {first_pad} \
                 (padding must fill the row's tail)"
            ));
        }
        if c as usize >= ncols {
            return bad(format!(
                "slot {k}: column {c} out of range (ncols = {ncols})"
            ));
        }
        if let Some(p) = prev
            && p >= c
        {
            let what = if p == c {
                "duplicate column"
            } else {
                "columns not sorted"
            };
            return bad(format!("slot {k}: {what} ({p} then {c})"));
        }
        prev = Some(c);
    }
    Ok(len.unwrap_or(width))
}

/// `slots` (stripes of `n`) cut at every [`ELL_ROW_BLOCK`] rows: for each
/// block of rows, its piece of every stripe.
fn stripe_pieces<E>(slots: &mut [E], n: usize) -> Vec<Vec<&mut [E]>> {
    let mut blocks: Vec<Vec<&mut [E]>> =
        (0..n.div_ceil(ELL_ROW_BLOCK)).map(|_| Vec::new()).collect();
    for stripe in slots.chunks_mut(n) {
        for (block, piece) in stripe.chunks_mut(ELL_ROW_BLOCK).enumerate() {
            blocks[block].push(piece);
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_column_major_with_tail_padding() {
        // [1 0 2]
        // [0 0 0]
        // [0 3 0]
        let a = Csr::try_new(3, 3, vec![0, 2, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]).unwrap();
        let e = Ell::from_csr(&a).unwrap();
        assert_eq!(e.width(), 2);
        assert_eq!(e.nnz(), 3);
        assert_eq!(e.col_idx(), &[0, ELL_PAD, 1, 2, ELL_PAD, ELL_PAD]);
        assert_eq!(e.values(), &[1.0, 0.0, 3.0, 2.0, 0.0, 0.0]);
        assert_eq!(e.to_csr(), a);
        let wide = Ell::from_csr_with_width(&a, 4).unwrap();
        assert_eq!(wide.col_idx().len(), 12);
        assert_eq!(wide.to_csr(), a);
        let e = Ell::from_csr_with_width(&a, 1).unwrap_err();
        assert!(e.to_string().contains("longest row (2 entries)"), "{e}");
    }

    #[test]
    fn a_width_past_usize_is_too_large_not_a_panic() {
        let a = Csr::<f32>::empty(4, 4);
        let e = Ell::from_csr_with_width(&a, usize::MAX / 2).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e}");
    }
}
