//! Serial SpGEMM, C = A ⊗ B over a semiring: Gustavson's row-by-row method
//! with a symbolic phase (exact size of every row of C) and a numeric phase.
//!
//! Each row of C is formed in an accumulator: a dense one (a value and a
//! presence bit per column of B, plus the list of columns touched) when B is
//! narrow enough that those arrays stay in cache, a hash table (open
//! addressing, sized from the row's flop count) when B is wide. Either way
//! products are added in the same order — A's row left to right, each row of
//! B left to right — so every engine that uses [`accumulate_row`] produces the
//! same bits. Products are kept structurally: an entry of C exists wherever
//! some A(i,k) and B(k,j) are both stored, even if its value is the semiring
//! zero (GraphBLAS semantics; scipy drops numeric zeros instead).

use super::accumulator::{Accumulator, AccumulatorUser, with_accumulator};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// Multiplies `a` by `b` over semiring `S`, one row at a time.
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    check_shapes(a, b);
    struct Serial<'m, S: Semiring>(&'m Csr<S::Value>, &'m Csr<S::Value>);
    impl<S: Semiring> AccumulatorUser<S::Value, Csr<S::Value>> for Serial<'_, S>
    where
        S::Value: Scalar,
    {
        fn run<A: Accumulator<S::Value> + Clone + Send + Sync>(self, acc: A) -> Csr<S::Value> {
            spgemm_rows::<S, A>(self.0, self.1, acc)
        }
    }
    with_accumulator(b.ncols(), Serial::<S>(a, b))
}

fn spgemm_rows<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mut acc: A,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    // Symbolic: exact row sizes, then their prefix sum.
    let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
    row_ptr.push(0usize);
    for i in 0..a.nrows() {
        let len = symbolic_row(a, b, i, &mut acc);
        row_ptr.push(row_ptr[i] + len);
    }
    // Numeric: each row written into its exact slot.
    let nnz = row_ptr[a.nrows()];
    let mut col_idx = vec![0u32; nnz];
    let mut values = vec![S::zero(); nnz];
    for i in 0..a.nrows() {
        let slot = row_ptr[i]..row_ptr[i + 1];
        accumulate_row::<S, A>(a, b, i, &mut acc);
        debug_assert_eq!(acc.row_len(), slot.len());
        acc.drain_sorted(&mut col_idx[slot.clone()], &mut values[slot]);
    }
    Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, col_idx, values)
}

/// Panics unless `a.ncols() == b.nrows()`.
#[track_caller]
pub fn check_shapes<T, U>(a: &Csr<T>, b: &Csr<U>)
where
    T: Scalar,
    U: Scalar,
{
    assert!(
        a.ncols() == b.nrows(),
        "spgemm: A.ncols() != B.nrows() ({}×{} times {}×{})",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
}

/// Number of products row `i` of A·B computes: Σ over A(i,k) of |B(k,:)|.
/// Engines split work by it.
#[inline]
pub fn row_flops<T: Scalar>(a: &Csr<T>, b: &Csr<T>, i: usize) -> usize {
    a.row(i).0.iter().map(|&k| b.row_len(k as usize)).sum()
}

/// Number of distinct columns in row `i` of A·B.
pub fn symbolic_row<T: Scalar, A: Accumulator<T>>(
    a: &Csr<T>,
    b: &Csr<T>,
    i: usize,
    acc: &mut A,
) -> usize {
    acc.start_row(row_flops(a, b, i));
    for &k in a.row(i).0 {
        for &j in b.row(k as usize).0 {
            acc.touch(j);
        }
    }
    acc.row_len()
}

/// Sums row `i` of A·B into `acc` (products in A's order, then B's).
#[inline]
pub fn accumulate_row<S: Semiring, A: Accumulator<S::Value>>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    i: usize,
    acc: &mut A,
) where
    S::Value: Scalar,
{
    acc.start_row(row_flops(a, b, i));
    let (a_cols, a_vals) = a.row(i);
    for (&k, &a_ik) in a_cols.iter().zip(a_vals) {
        let (b_cols, b_vals) = b.row(k as usize);
        for (&j, &b_kj) in b_cols.iter().zip(b_vals) {
            acc.accumulate::<S>(j, S::mul(a_ik, b_kj));
        }
    }
}
