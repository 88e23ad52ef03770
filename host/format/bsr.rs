//! BSR (block sparse row): CSR whose entries are dense `b×b` blocks, for
//! matrices with small dense sub-blocks (finite elements with several
//! unknowns per node), where one index per block replaces `b²` indices and
//! a kernel multiplies small dense blocks.
//!
//! Layout: block row `I` covers rows `I·b .. I·b + b` and holds blocks
//! `block_row_ptr[I] .. block_row_ptr[I + 1]`; block `k` sits at block column
//! `block_col[k]` (strictly increasing within a block row), its `b²` values
//! at `values[k·b² ..]`, row-major. `1 ≤ b ≤ 8`. A shape that is not a
//! multiple of `b` leaves the last block row and column partly outside the
//! matrix; those slots are padding.
//!
//! Exactness: block `k`'s `masks[k]` has bit `r·b + c` set when slot
//! `(r, c)` holds a stored entry. Slots outside the mask hold `T::ZERO` and
//! are not entries, so a stored zero survives the round trip and [`Bsr::to_csr`]
//! gives back exactly the original pattern. Kernels for a semiring whose
//! zero is not 0 must consult the mask. A stored block holds at least one
//! entry.

use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM, slot_count, try_filled, try_with_capacity};
use crate::scalar::Scalar;

/// Largest block size: a block's occupancy mask is one `u64`.
pub const BSR_MAX_BLOCK: usize = 8;

/// A block-sparse-row matrix with square `b×b` blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct Bsr<T> {
    nrows: usize,
    ncols: usize,
    b: usize,
    nnz: usize,
    block_row_ptr: Vec<usize>,
    block_col: Vec<u32>,
    values: Vec<T>,
    masks: Vec<u64>,
}

impl<T: Scalar> Bsr<T> {
    /// Builds a BSR matrix from its parts, checking every invariant.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        b: usize,
        block_row_ptr: Vec<usize>,
        block_col: Vec<u32>,
        values: Vec<T>,
        masks: Vec<u64>,
    ) -> Result<Self> {
        let nnz = validate(nrows, ncols, b, &block_row_ptr, &block_col, &values, &masks)?;
        Ok(Bsr {
            nrows,
            ncols,
            b,
            nnz,
            block_row_ptr,
            block_col,
            values,
            masks,
        })
    }

    /// Builds a BSR matrix from parts the caller guarantees are valid.
    /// Debug builds still check.
    pub fn from_parts_unchecked(
        nrows: usize,
        ncols: usize,
        b: usize,
        block_row_ptr: Vec<usize>,
        block_col: Vec<u32>,
        values: Vec<T>,
        masks: Vec<u64>,
    ) -> Self {
        if cfg!(debug_assertions)
            && let Err(e) = validate(nrows, ncols, b, &block_row_ptr, &block_col, &values, &masks)
        {
            panic!("Bsr::from_parts_unchecked: {e}");
        }
        let nnz = masks.iter().map(|m| m.count_ones() as usize).sum();
        Bsr {
            nrows,
            ncols,
            b,
            nnz,
            block_row_ptr,
            block_col,
            values,
            masks,
        }
    }

    /// BSR of `a` with `b×b` blocks, `1 ≤ b ≤ 8`. Two passes: the block
    /// columns of each block row come from a merge of its `b` rows' sorted
    /// columns (sorted with no search), then every entry finds its block by
    /// walking that row's blocks alongside its columns. O(nnz + blocks · b²).
    pub fn from_csr(a: &Csr<T>, b: usize) -> Result<Self> {
        check_block_size(b)?;
        let (m, n) = a.shape();
        let (rp, ci) = (a.row_ptr(), a.col_idx());
        let mut block_row_ptr = try_with_capacity("BSR block row pointers", m.div_ceil(b) + 1)?;
        block_row_ptr.push(0);
        let mut block_col = Vec::new();
        // cursor[r]..end[r]: what is left of local row r.
        let (mut cursor, mut end) = ([0usize; BSR_MAX_BLOCK], [0usize; BSR_MAX_BLOCK]);
        for first_row in (0..m).step_by(b) {
            let h = b.min(m - first_row);
            cursor[..h].copy_from_slice(&rp[first_row..first_row + h]);
            end[..h].copy_from_slice(&rp[first_row + 1..first_row + h + 1]);
            loop {
                let next = (0..h)
                    .filter(|&r| cursor[r] < end[r])
                    .map(|r| ci[cursor[r]] as usize / b)
                    .min();
                let Some(bc) = next else { break };
                block_col.push(bc as u32);
                for r in 0..h {
                    while cursor[r] < end[r] && ci[cursor[r]] as usize / b == bc {
                        cursor[r] += 1;
                    }
                }
            }
            block_row_ptr.push(block_col.len());
        }
        let nblocks = block_col.len();
        let mut values = try_filled("BSR", slot_count("BSR", nblocks, b * b)?, T::ZERO)?;
        let mut masks = try_filled("BSR masks", nblocks, 0u64)?;
        for (bi, first_row) in (0..m).step_by(b).enumerate() {
            for r in 0..b.min(m - first_row) {
                let mut k = block_row_ptr[bi];
                let (cols, vals) = a.row(first_row + r);
                for (&c, &v) in cols.iter().zip(vals) {
                    let (bc, cc) = (c as usize / b, c as usize % b);
                    while block_col[k] as usize != bc {
                        k += 1;
                    }
                    values[k * b * b + r * b + cc] = v;
                    masks[k] |= 1 << (r * b + cc);
                }
            }
        }
        Ok(Bsr {
            nrows: m,
            ncols: n,
            b,
            nnz: a.nnz(),
            block_row_ptr,
            block_col,
            values,
            masks,
        })
    }

    /// Back to CSR: exactly the entries the masks mark, explicit zeros
    /// included. O(nnz + blocks · b).
    ///
    /// # Panics
    /// When memory for the CSR cannot be had; [`Bsr::try_to_csr`] returns
    /// that as an error.
    pub fn to_csr(&self) -> Csr<T> {
        self.try_to_csr()
            .unwrap_or_else(|e| panic!("Bsr::to_csr: {e}"))
    }

    /// [`Bsr::to_csr`], or [`Error::TooLarge`] when its row pointers or
    /// entries do not fit in memory.
    pub fn try_to_csr(&self) -> Result<Csr<T>> {
        let b = self.b;
        let row_bits = (1u64 << b) - 1;
        let mut row_ptr = try_with_capacity("CSR row pointers", self.nrows + 1)?;
        row_ptr.push(0);
        let mut col_idx = try_with_capacity("CSR column indices", self.nnz)?;
        let mut values = try_with_capacity("CSR values", self.nnz)?;
        for (bi, first_row) in (0..self.nrows).step_by(b).enumerate() {
            let blocks = self.block_row_ptr[bi]..self.block_row_ptr[bi + 1];
            for r in 0..b.min(self.nrows - first_row) {
                for k in blocks.clone() {
                    let mut bits = (self.masks[k] >> (r * b)) & row_bits;
                    while bits != 0 {
                        let c = bits.trailing_zeros() as usize;
                        col_idx.push(self.block_col[k] * b as u32 + c as u32);
                        values.push(self.values[k * b * b + r * b + c]);
                        bits &= bits - 1;
                    }
                }
                row_ptr.push(col_idx.len());
            }
        }
        Ok(Csr::from_parts_unchecked(
            self.nrows, self.ncols, row_ptr, col_idx, values,
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
    /// Block size `b`.
    pub fn block_size(&self) -> usize {
        self.b
    }
    /// Stored entries (mask bits set), explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// Stored blocks.
    pub fn nblocks(&self) -> usize {
        self.block_col.len()
    }
    /// `ceil(nrows / b) + 1` offsets into the blocks.
    pub fn block_row_ptr(&self) -> &[usize] {
        &self.block_row_ptr
    }
    /// Block column of each block.
    pub fn block_col(&self) -> &[u32] {
        &self.block_col
    }
    /// `b²` values per block, row-major; `T::ZERO` outside the mask.
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Occupancy of each block: bit `r·b + c` for a stored slot `(r, c)`.
    pub fn masks(&self) -> &[u64] {
        &self.masks
    }
    /// Bytes held by the arrays, padding and masks included.
    pub fn storage_bytes(&self) -> usize {
        size_of_val(self.block_row_ptr.as_slice())
            + size_of_val(self.block_col.as_slice())
            + size_of_val(self.values.as_slice())
            + size_of_val(self.masks.as_slice())
    }
}

fn check_block_size(b: usize) -> Result<()> {
    if !(1..=BSR_MAX_BLOCK).contains(&b) {
        return Err(Error::invalid(
            "BSR",
            format!("block size {b} is outside 1..={BSR_MAX_BLOCK}"),
        ));
    }
    Ok(())
}

/// Checks the BSR invariants, naming the first broken one; returns nnz.
fn validate<T: Scalar>(
    nrows: usize,
    ncols: usize,
    b: usize,
    block_row_ptr: &[usize],
    block_col: &[u32],
    values: &[T],
    masks: &[u64],
) -> Result<usize> {
    let bad = |reason: String| Err(Error::invalid("BSR", reason));
    if nrows > MAX_DIM || ncols > MAX_DIM {
        return bad(format!(
            "shape {nrows}×{ncols} exceeds the largest dimension {MAX_DIM}"
        ));
    }
    check_block_size(b)?;
    let (nbrows, nbcols) = (nrows.div_ceil(b), ncols.div_ceil(b));
    if block_row_ptr.len() != nbrows + 1 {
        return bad(format!(
            "block_row_ptr has {} entries, expected ceil(nrows / b) + 1 = {}",
            block_row_ptr.len(),
            nbrows + 1
        ));
    }
    if block_row_ptr[0] != 0 {
        return bad(format!(
            "block_row_ptr[0] is {}, expected 0",
            block_row_ptr[0]
        ));
    }
    let nblocks = block_col.len();
    if block_row_ptr[nbrows] != nblocks {
        return bad(format!(
            "block_row_ptr[{nbrows}] is {} but there are {nblocks} blocks",
            block_row_ptr[nbrows]
        ));
    }
    if masks.len() != nblocks || Some(values.len()) != nblocks.checked_mul(b * b) {
        return bad(format!(
            "{nblocks} blocks need {nblocks} masks and {nblocks} × {} values, got {} and {}",
            b * b,
            masks.len(),
            values.len()
        ));
    }
    let mut nnz = 0;
    for bi in 0..nbrows {
        let (start, end) = (block_row_ptr[bi], block_row_ptr[bi + 1]);
        if end < start || end > nblocks {
            return bad(format!(
                "block_row_ptr is not monotone within 0..={nblocks} at block row {bi} \
                 ({start} then {end})"
            ));
        }
        let rows_in = b.min(nrows - bi * b);
        for k in start..end {
            let bc = block_col[k] as usize;
            let place = format!("block row {bi}, block {k} (block column {bc})");
            if bc >= nbcols {
                return bad(format!(
                    "{place}: block column out of range ({nbcols} block columns)"
                ));
            }
            if k > start && block_col[k - 1] as usize >= bc {
                let what = if block_col[k - 1] as usize == bc {
                    "duplicate block column"
                } else {
                    "block columns not sorted"
                };
                return bad(format!("{place}: {what} ({} then {bc})", block_col[k - 1]));
            }
            let mask = masks[k];
            if mask == 0 {
                return bad(format!(
                    "{place}: empty mask (a stored block holds an entry)"
                ));
            }
            if b * b < 64 && mask >> (b * b) != 0 {
                return bad(format!(
                    "{place}: mask {mask:#x} has bits beyond the b² = {} slots",
                    b * b
                ));
            }
            let inside = inside_mask(b, rows_in, b.min(ncols - bc * b));
            if mask & !inside != 0 {
                return bad(format!(
                    "{place}: mask {mask:#x} marks slots past the matrix edge \
                     ({nrows}×{ncols}; in-range slots {inside:#x})"
                ));
            }
            for (slot, &v) in values[k * b * b..(k + 1) * b * b].iter().enumerate() {
                if mask & (1 << slot) == 0 && v != T::ZERO {
                    return bad(format!(
                        "{place}: slot ({}, {}) is not in the mask but holds {v:?}, expected {:?}",
                        slot / b,
                        slot % b,
                        T::ZERO
                    ));
                }
            }
            nnz += mask.count_ones() as usize;
        }
    }
    Ok(nnz)
}

/// The mask of a block's first `rows` rows and `cols` columns.
fn inside_mask(b: usize, rows: usize, cols: usize) -> u64 {
    let row = (1u64 << cols) - 1;
    (0..rows).fold(0, |m, r| m | (row << (r * b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_explicit_zeros_and_pad_the_edges() {
        // [1 0 | 2]
        // [0 0 | 0]      b = 2 on a 3×3 matrix: 2×2 block rows and columns.
        // [---------]
        // [0 3 | 0ₑ]     0ₑ: an explicit zero
        let a = Csr::try_new(
            3,
            3,
            vec![0, 2, 2, 4],
            vec![0, 2, 1, 2],
            vec![1.0, 2.0, 3.0, 0.0],
        )
        .unwrap();
        let s = Bsr::from_csr(&a, 2).unwrap();
        assert_eq!(s.block_row_ptr(), &[0, 2, 4]);
        assert_eq!(s.block_col(), &[0, 1, 0, 1]);
        assert_eq!(s.masks(), &[0b0001, 0b0001, 0b0010, 0b0001]);
        assert_eq!(&s.values()[8..12], &[0.0, 3.0, 0.0, 0.0]);
        assert_eq!(s.nnz(), 4);
        assert_eq!(s.to_csr(), a);
    }

    #[test]
    fn inside_mask_covers_the_in_range_corner() {
        assert_eq!(inside_mask(3, 2, 1), 0b001_001);
        assert_eq!(inside_mask(8, 8, 8), u64::MAX);
    }
}
