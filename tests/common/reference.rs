//! The reference every engine is tested against: SpMV, SpMM, SpGEMM and
//! element-wise addition over any semiring, written as plainly as possible
//! (a loop over each row's entries, or a `BTreeMap` per row), apart from
//! the tuned engines.
//!
//! Only stored entries take part, as in the engines: an absent entry is
//! no product (under plus-pair, or integer min-plus, whose `+` wraps,
//! `zero ⊗ x` is not the zero, so a loop over the dense form of A would
//! differ).
//!
//! Sums follow the order the engines promise for one entry: SpMV and SpMM
//! add A's row left to right; SpGEMM adds, for each entry of C, its
//! products in increasing k (A's row left to right, as Gustavson does), so
//! an engine that keeps that order must match bit for bit, even for
//! floating-point plus-times.

use spmx::format::{Coo, Csr, Dense};
use spmx::{Scalar, Semiring};
use std::collections::BTreeMap;

/// y = A ⊗ x by a plain loop over each row's stored entries, from
/// `S::zero()`.
pub fn spmv<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value]) -> Vec<S::Value>
where
    S::Value: Scalar,
{
    (0..a.nrows())
        .map(|i| {
            let (cols, vals) = a.row(i);
            let mut acc = S::zero();
            for (&j, &aij) in cols.iter().zip(vals) {
                acc = S::add(acc, S::mul(aij, x[j as usize]));
            }
            acc
        })
        .collect()
}

/// C = A ⊗ B by a plain loop over each row's stored entries for every
/// column of B.
pub fn spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Dense<S::Value>
where
    S::Value: Scalar,
{
    let (m, k) = (a.nrows(), b.ncols());
    let mut c = Vec::with_capacity(m * k);
    for i in 0..m {
        let (cols, vals) = a.row(i);
        for t in 0..k {
            let mut acc = S::zero();
            for (&j, &aij) in cols.iter().zip(vals) {
                acc = S::add(acc, S::mul(aij, b.get(j as usize, t)));
            }
            c.push(acc);
        }
    }
    Dense::try_new(m, k, c).unwrap()
}

/// `c` without the entries `mask` rules out: the plain meaning of a mask.
pub fn keep_allowed<T: Scalar, M: Scalar>(c: &Csr<T>, mask: &Csr<M>, complement: bool) -> Csr<T> {
    let mut row_ptr = vec![0];
    let (mut cols, mut vals) = (vec![], vec![]);
    for i in 0..c.nrows() {
        let (cc, cv) = c.row(i);
        for (&j, &v) in cc.iter().zip(cv) {
            if mask.get(i, j as usize).is_some() != complement {
                cols.push(j);
                vals.push(v);
            }
        }
        row_ptr.push(cols.len());
    }
    Csr::try_new(c.nrows(), c.ncols(), row_ptr, cols, vals).unwrap()
}

/// C = A ⊗ B, each row of C summed in a `BTreeMap` by column; an entry
/// exists wherever some product does, even if its value is the zero.
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    let mut row_ptr = vec![0];
    let (mut cols, mut vals) = (Vec::new(), Vec::new());
    for i in 0..a.nrows() {
        let mut row: BTreeMap<u32, S::Value> = BTreeMap::new();
        let (ac, av) = a.row(i);
        for (&k, &aik) in ac.iter().zip(av) {
            let (bc, bv) = b.row(k as usize);
            for (&j, &bkj) in bc.iter().zip(bv) {
                let p = S::mul(aik, bkj);
                row.entry(j).and_modify(|v| *v = S::add(*v, p)).or_insert(p);
            }
        }
        cols.extend(row.keys());
        vals.extend(row.values());
        row_ptr.push(cols.len());
    }
    Csr::try_new(a.nrows(), b.ncols(), row_ptr, cols, vals).unwrap()
}

/// C = A ⊕ B: the union of the patterns, each row in a `BTreeMap`, an
/// entry of both combined as `S::add(a, b)`.
pub fn ewise_add<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    let mut coo = Coo::new(a.nrows(), a.ncols()).unwrap();
    for i in 0..a.nrows() {
        let mut row = BTreeMap::new();
        for m in [a, b] {
            let (cols, vals) = m.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                row.entry(c).and_modify(|x| *x = S::add(*x, v)).or_insert(v);
            }
        }
        for (c, v) in row {
            coo.push(i, c as usize, v).unwrap();
        }
    }
    coo.to_csr()
}

/// All-pairs shortest paths by dense Floyd–Warshall over the edges as
/// `apsp` and `sssp` read them (−0 is 0, +∞ is
/// no edge, a parallel edge the lightest); `None` is "unreachable".
pub fn floyd_warshall(g: &Csr<f64>) -> Vec<Vec<Option<f64>>> {
    let n = g.nrows();
    let mut d = vec![vec![None; n]; n];
    for (i, row) in d.iter_mut().enumerate() {
        row[i] = Some(0.0);
        let (cols, vals) = g.row(i);
        for (&j, &w) in cols.iter().zip(vals) {
            if w != f64::INFINITY {
                let cur = row[j as usize].unwrap_or(f64::INFINITY);
                row[j as usize] = Some(cur.min(w + 0.0));
            }
        }
    }
    for k in 0..n {
        let via_k = d[k].clone();
        for row in d.iter_mut() {
            let Some(dik) = row[k] else { continue };
            for (dij, dkj) in row.iter_mut().zip(&via_k) {
                if let Some(dkj) = dkj {
                    let via = dik + dkj;
                    if dij.is_none_or(|cur| via < cur) {
                        *dij = Some(via);
                    }
                }
            }
        }
    }
    d
}
