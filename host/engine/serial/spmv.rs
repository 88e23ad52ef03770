//! Serial SpMV, y = A ⊗ x over a semiring, for every sparse format, each
//! computed directly on its own layout (no conversion), so each format's
//! traversal is checked against the others.

use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// Panics unless `x` has one entry per column of A.
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
