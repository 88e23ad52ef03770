//! Element-wise addition C = A ⊕ B under a semiring's `add`: the union of
//! the two patterns, entries present in both combined with `S::add`.

use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// `A ⊕ B` on the calling thread (the serial engine, and the cpu engine's
/// sum too small to share); panics unless the shapes agree
/// ([`check_same_shape`]: [`ops::ewise_add`](crate::ops::ewise_add) has
/// checked them already).
#[track_caller]
pub fn ewise_add_one_thread<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_same_shape(a, b);
    let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
    row_ptr.push(0);
    let mut col_idx = Vec::with_capacity(a.nnz().max(b.nnz()));
    let mut values = Vec::with_capacity(a.nnz().max(b.nnz()));
    for i in 0..a.nrows() {
        merge_row::<S>(a.row(i), b.row(i), &mut col_idx, &mut values);
        row_ptr.push(col_idx.len());
    }
    Csr::from_parts_unchecked(a.nrows(), a.ncols(), row_ptr, col_idx, values)
}

/// Ok when A and B have the same shape, else [`Error::Mismatch`] naming
/// both (`ewise_add: A.shape() != B.shape() (2×3 and 3×2)`): what
/// [`ops::ewise_add`](crate::ops::ewise_add) returns before any work.
pub fn same_shape<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> Result<()> {
    if a.shape() == b.shape() {
        return Ok(());
    }
    Err(Error::mismatch(
        "ewise_add",
        format!(
            "A.shape() != B.shape() ({}×{} and {}×{})",
            a.nrows(),
            a.ncols(),
            b.nrows(),
            b.ncols()
        ),
    ))
}

/// Panics with [`same_shape`]'s message unless A and B have the same
/// shape: the engines' invariant, which
/// [`ops::ewise_add`](crate::ops::ewise_add) has checked already (and
/// returned as an error).
#[track_caller]
pub fn check_same_shape<T: Scalar>(a: &Csr<T>, b: &Csr<T>) {
    if let Err(e) = same_shape(a, b) {
        panic!("{e}");
    }
}

/// Appends the sorted union of two sorted rows.
pub fn merge_row<S: Semiring>(
    (ac, av): (&[u32], &[S::Value]),
    (bc, bv): (&[u32], &[S::Value]),
    cols: &mut Vec<u32>,
    vals: &mut Vec<S::Value>,
) {
    let (mut p, mut q) = (0, 0);
    while p < ac.len() && q < bc.len() {
        if ac[p] < bc[q] {
            cols.push(ac[p]);
            vals.push(av[p]);
            p += 1;
        } else if bc[q] < ac[p] {
            cols.push(bc[q]);
            vals.push(bv[q]);
            q += 1;
        } else {
            cols.push(ac[p]);
            vals.push(S::add(av[p], bv[q]));
            p += 1;
            q += 1;
        }
    }
    cols.extend_from_slice(&ac[p..]);
    vals.extend_from_slice(&av[p..]);
    cols.extend_from_slice(&bc[q..]);
    vals.extend_from_slice(&bv[q..]);
}
