//! SpMM's row kernels, C = A ⊗ B over a semiring, with A sparse (CSR, m×n) and B
//! dense (n×k, row-major); C is dense (m×k, row-major).
//!
//! Row `i` of C is ⊕ over A's row `i` of `A(i,j) ⊗ B(j,:)`: a semiring axpy
//! of B's row `j` into C's row `i`, A's entries taken left to right, starting
//! from `S::zero()`. C's row is formed in tiles of [`TILE`] columns (the
//! remainder in tiles of 8, 4, 2, 1) held in a local array that stays in
//! registers, so each product costs one load of B and no load or store of
//! C. Measured on one core (f64, 20k rows, k from 1 to 128), that is up to
//! 2× a plain axpy into C's row for plus-times and 1.1–1.6× for min-plus,
//! most at small k, and even once B's rows miss the cache. Every element of
//! C sums its products in A's row order whatever the tiling, so the cpu
//! engine, which calls [`spmm_rows_into`] on chunks of rows, gives the same
//! bits.

use crate::error::Result;
use crate::format::{Csr, Dense};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use std::ops::Range;

/// Columns of C accumulated together in registers.
pub const TILE: usize = 16;

/// Ok when `a.ncols() == b.nrows()`, else [`Error::Mismatch`](crate::Error::Mismatch) naming both
/// shapes (`spmm: A.ncols() != B.nrows() (2×3 times 4×5)`): what every
/// public SpMM function of [`ops`](crate::ops) returns before any work.
pub fn shapes_agree<T: Scalar>(a: &Csr<T>, b: &Dense<T>) -> Result<()> {
    super::spgemm::product_shapes_agree("spmm", a.shape(), b.shape())
}

/// Panics with [`shapes_agree`]'s message unless the shapes agree: the
/// engines' invariant, which [`ops`](crate::ops) has checked already (and
/// returned as an error).
#[track_caller]
pub fn check_shapes<T: Scalar>(a: &Csr<T>, b: &Dense<T>) {
    if let Err(e) = shapes_agree(a, b) {
        panic!("{e}");
    }
}

/// C = A ⊗ B on the calling thread: the serial engine, and the cpu
/// engine's product too small to share. A C too large to allocate is
/// [`Error::TooLarge`](crate::Error).
#[track_caller]
pub fn spmm_one_thread<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    let mut c = Dense::filled(a.nrows(), b.ncols(), S::zero())?;
    spmm_rows_into::<S>(a, b, 0..a.nrows(), c.as_mut_slice());
    Ok(c)
}

/// Rows `rows` of A ⊗ B into `out` (`rows.len() × b.ncols()`, row-major).
pub fn spmm_rows_into<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    rows: Range<usize>,
    out: &mut [S::Value],
) where
    S::Value: Scalar,
{
    let k = b.ncols();
    debug_assert_eq!(out.len(), rows.len() * k);
    if k == 0 {
        return;
    }
    for (i, c_row) in rows.zip(out.chunks_exact_mut(k)) {
        let (cols, vals) = a.row(i);
        spmm_row::<S>(cols, vals, b.as_slice(), c_row);
    }
}

/// One row of C (`c_row`, k values) from one row of A and all of B
/// (row-major with `k = c_row.len()` columns): tiles of [`TILE`] columns,
/// then one tile each of 8, 4, 2 and 1 columns as the remainder needs.
#[inline]
fn spmm_row<S: Semiring>(cols: &[u32], vals: &[S::Value], b: &[S::Value], c_row: &mut [S::Value]) {
    let k = c_row.len();
    let mut first = 0;
    while k - first >= TILE {
        spmm_tile::<S, TILE>(cols, vals, b, first, c_row);
        first += TILE;
    }
    if k - first >= 8 {
        spmm_tile::<S, 8>(cols, vals, b, first, c_row);
        first += 8;
    }
    if k - first >= 4 {
        spmm_tile::<S, 4>(cols, vals, b, first, c_row);
        first += 4;
    }
    if k - first >= 2 {
        spmm_tile::<S, 2>(cols, vals, b, first, c_row);
        first += 2;
    }
    if k - first == 1 {
        spmm_tile::<S, 1>(cols, vals, b, first, c_row);
    }
}

/// Columns `first..first + W` of one row of C, summed in a local array
/// that the compiler keeps in registers.
#[inline(always)]
fn spmm_tile<S: Semiring, const W: usize>(
    cols: &[u32],
    vals: &[S::Value],
    b: &[S::Value],
    first: usize,
    c_row: &mut [S::Value],
) {
    let k = c_row.len();
    let mut acc = [S::zero(); W];
    for (&j, &a) in cols.iter().zip(vals) {
        let b_row: &[S::Value; W] = b[j as usize * k + first..][..W]
            .try_into()
            .expect("a slice of W elements");
        for (c, &bv) in acc.iter_mut().zip(b_row) {
            *c = S::add(*c, S::mul(a, bv));
        }
    }
    c_row[first..first + W].copy_from_slice(&acc);
}
