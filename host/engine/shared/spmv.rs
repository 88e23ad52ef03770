//! SpMV's kernels, y = A ⊗ x over a semiring, for every format, each computed
//! directly on its own layout (no conversion), so each format's traversal is
//! checked against the others.
//!
//! Every `y[i]` starts at `S::zero()` and takes `S::add(y[i], S::mul(a_ij, x_j))`
//! one stored entry at a time. Padding (ELL, HYB, SELL: column [`ELL_PAD`];
//! BSR: a clear mask bit) is skipped, never multiplied: a semiring's zero is
//! not always 0.
//!
//! Order of the sums. The row formats (CSR, ELL, HYB, SELL, BSR) and CSC
//! visit each row's entries in increasing column order, so they give the
//! same bits as CSR even for floating-point `+`; dense adds the semiring zero
//! for absent entries, which changes nothing for finite `x` (but every
//! element of a dense matrix is an entry: under plus-pair it counts, and
//! under integer min-plus its zero, `MAX`, wraps when added to). COO adds in
//! storage order. The `spmv_*` functions compute all rows on the calling
//! thread (the serial engine, and the cpu engine on a matrix too small to
//! share); the `*_into` functions compute a range of rows (or slices, or
//! block rows) into a slice, and are what the cpu engine runs on each of
//! its chunks, so its results match these bit for bit.

use crate::error::{Error, Result};
use crate::format::{Bsr, Coo, Csc, Csr, Dense, ELL_PAD, Ell, Hyb, Sell};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use std::ops::Range;

/// Ok when `x` has one entry per column of A (`shape`), else
/// [`Error::Mismatch`] naming both (`spmv: A.ncols() != x.len() (2×3 times
/// a vector of 4)`): what every public SpMV function of [`ops`](crate::ops)
/// returns before any work.
pub fn x_len_agrees((nrows, ncols): (usize, usize), x_len: usize) -> Result<()> {
    if ncols == x_len {
        return Ok(());
    }
    Err(Error::mismatch(
        "spmv",
        format!("A.ncols() != x.len() ({nrows}×{ncols} times a vector of {x_len})"),
    ))
}

/// Panics unless `x` has one entry per column of A: the kernels'
/// invariant, which [`ops`](crate::ops) has checked already (and returned
/// as an error, [`x_len_agrees`]).
#[track_caller]
pub fn check_x_len(ncols: usize, x_len: usize) {
    assert!(
        ncols == x_len,
        "spmv: A.ncols() != x.len() ({ncols} and {x_len})"
    );
}

/// One row of CSR times x: ⊕ₖ A(i,k) ⊗ x(k), starting from the semiring zero.
#[inline]
pub fn csr_row_dot<S: Semiring>(cols: &[u32], vals: &[S::Value], x: &[S::Value]) -> S::Value {
    let mut acc = S::zero();
    for (&c, &v) in cols.iter().zip(vals) {
        acc = S::add(acc, S::mul(v, x[c as usize]));
    }
    acc
}

/// y = A ⊗ x for CSR.
#[track_caller]
pub fn spmv_csr<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    (0..a.nrows())
        .map(|i| {
            let (cols, vals) = a.row(i);
            csr_row_dot::<S>(cols, vals, x)
        })
        .collect()
}

/// y = A ⊗ x for COO, entries added in storage order (duplicates included:
/// each is a product of its own).
#[track_caller]
pub fn spmv_coo<S: Semiring>(a: &Coo<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut y = vec![S::zero(); a.nrows()];
    for ((&r, &c), &v) in a.rows().iter().zip(a.cols()).zip(a.values()) {
        let yr = &mut y[r as usize];
        *yr = S::add(*yr, S::mul(v, x[c as usize]));
    }
    y
}

/// y = A ⊗ x for CSC: column by column, each `x_j` scattered down its
/// column. Rows receive their products in increasing column order.
#[track_caller]
pub fn spmv_csc<S: Semiring>(a: &Csc<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut y = vec![S::zero(); a.nrows()];
    for (j, &xj) in x.iter().enumerate() {
        let (rows, vals) = a.col(j);
        for (&r, &v) in rows.iter().zip(vals) {
            let yr = &mut y[r as usize];
            *yr = S::add(*yr, S::mul(v, xj));
        }
    }
    y
}

/// y = A ⊗ x for ELL.
#[track_caller]
pub fn spmv_ell<S: Semiring>(a: &Ell<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut y = vec![S::zero(); a.nrows()];
    ell_rows_into::<S>(a, x, 0..a.nrows(), &mut y);
    y
}

/// Rows `rows` of an ELL times x into `out` (one value per row), slot
/// column by slot column: the layout's order, so reads are contiguous.
pub fn ell_rows_into<S: Semiring>(
    a: &Ell<S::Value>,
    x: &[S::Value],
    rows: Range<usize>,
    out: &mut [S::Value],
) where
    S::Value: Scalar,
{
    debug_assert_eq!(out.len(), rows.len());
    out.fill(S::zero());
    let n = a.nrows();
    for k in 0..a.width() {
        let slots = k * n + rows.start..k * n + rows.end;
        let (cols, vals) = (&a.col_idx()[slots.clone()], &a.values()[slots]);
        for ((yi, &c), &v) in out.iter_mut().zip(cols).zip(vals) {
            if c != ELL_PAD {
                *yi = S::add(*yi, S::mul(v, x[c as usize]));
            }
        }
    }
}

/// y = A ⊗ x for HYB: the ELL part, then the overflow.
#[track_caller]
pub fn spmv_hyb<S: Semiring>(a: &Hyb<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut y = vec![S::zero(); a.nrows()];
    hyb_rows_into::<S>(a, x, 0..a.nrows(), &mut y);
    y
}

/// Rows `rows` of a HYB times x into `out`: each row's ELL entries, then its
/// overflow entries (which follow them in column order).
pub fn hyb_rows_into<S: Semiring>(
    a: &Hyb<S::Value>,
    x: &[S::Value],
    rows: Range<usize>,
    out: &mut [S::Value],
) where
    S::Value: Scalar,
{
    ell_rows_into::<S>(a.ell(), x, rows.clone(), out);
    let o = a.overflow();
    // The overflow is sorted by row: the rows in range are one run of it.
    let first = o.rows().partition_point(|&r| (r as usize) < rows.start);
    let last = first + o.rows()[first..].partition_point(|&r| (r as usize) < rows.end);
    let entries = o.rows()[first..last]
        .iter()
        .zip(&o.cols()[first..last])
        .zip(&o.values()[first..last]);
    for ((&r, &c), &v) in entries {
        let yi = &mut out[r as usize - rows.start];
        *yi = S::add(*yi, S::mul(v, x[c as usize]));
    }
}

/// y = A ⊗ x for SELL-C-σ (and JDS): slices computed in sorted order, then
/// each result moved to its original row through the permutation.
#[track_caller]
pub fn spmv_sell<S: Semiring>(a: &Sell<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut sorted = vec![S::zero(); a.nslices() * a.slice_height()];
    sell_slices_into::<S>(a, x, 0..a.nslices(), &mut sorted);
    let mut y = vec![S::zero(); a.nrows()];
    for (&row, &v) in a.perm().iter().zip(&sorted) {
        y[row as usize] = v;
    }
    y
}

/// Slices `slices` of a SELL times x into `out`, in sorted (permuted) row
/// order: `C` values per slice, the last slice's rows past `nrows` included
/// (they hold only padding, so they stay zero).
pub fn sell_slices_into<S: Semiring>(
    a: &Sell<S::Value>,
    x: &[S::Value],
    slices: Range<usize>,
    out: &mut [S::Value],
) where
    S::Value: Scalar,
{
    let c = a.slice_height();
    debug_assert_eq!(out.len(), slices.len() * c);
    out.fill(S::zero());
    for (s, acc) in slices.zip(out.chunks_exact_mut(c)) {
        let base = a.slice_ptr()[s];
        for k in 0..a.slice_width()[s] as usize {
            let slots = base + k * c..base + (k + 1) * c;
            let (cols, vals) = (&a.col_idx()[slots.clone()], &a.values()[slots]);
            for ((yr, &col), &v) in acc.iter_mut().zip(cols).zip(vals) {
                if col != ELL_PAD {
                    *yr = S::add(*yr, S::mul(v, x[col as usize]));
                }
            }
        }
    }
}

/// y = A ⊗ x for BSR: only the slots a block's mask marks are multiplied.
#[track_caller]
pub fn spmv_bsr<S: Semiring>(a: &Bsr<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let nblock_rows = a.block_row_ptr().len() - 1;
    let mut y = vec![S::zero(); nblock_rows * a.block_size()];
    bsr_block_rows_into::<S>(a, x, 0..nblock_rows, &mut y);
    y.truncate(a.nrows());
    y
}

/// Block rows `block_rows` of a BSR times x into `out`: `b` values per block
/// row, the last block row's rows past `nrows` included (they stay zero).
pub fn bsr_block_rows_into<S: Semiring>(
    a: &Bsr<S::Value>,
    x: &[S::Value],
    block_rows: Range<usize>,
    out: &mut [S::Value],
) where
    S::Value: Scalar,
{
    let b = a.block_size();
    debug_assert_eq!(out.len(), block_rows.len() * b);
    out.fill(S::zero());
    let row_bits = (1u64 << b) - 1;
    for (bi, acc) in block_rows.zip(out.chunks_exact_mut(b)) {
        for k in a.block_row_ptr()[bi]..a.block_row_ptr()[bi + 1] {
            let first_col = a.block_col()[k] as usize * b;
            let block = &a.values()[k * b * b..(k + 1) * b * b];
            let mask = a.masks()[k];
            for (r, yr) in acc.iter_mut().enumerate() {
                let mut bits = (mask >> (r * b)) & row_bits;
                while bits != 0 {
                    let c = bits.trailing_zeros() as usize;
                    *yr = S::add(*yr, S::mul(block[r * b + c], x[first_col + c]));
                    bits &= bits - 1;
                }
            }
        }
    }
}

/// y = A ⊗ x for a dense matrix: every element is an entry.
#[track_caller]
pub fn spmv_dense<S: Semiring>(a: &Dense<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    check_x_len(a.ncols(), x.len());
    let mut y = vec![S::zero(); a.nrows()];
    dense_rows_into::<S>(a, x, 0..a.nrows(), &mut y);
    y
}

/// Rows `rows` of a dense matrix times x into `out`.
pub fn dense_rows_into<S: Semiring>(
    a: &Dense<S::Value>,
    x: &[S::Value],
    rows: Range<usize>,
    out: &mut [S::Value],
) where
    S::Value: Scalar,
{
    debug_assert_eq!(out.len(), rows.len());
    for (i, yi) in rows.zip(out) {
        *yi = a
            .row(i)
            .iter()
            .zip(x)
            .fold(S::zero(), |acc, (&v, &xj)| S::add(acc, S::mul(v, xj)));
    }
}
