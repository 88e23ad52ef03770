//! The check that every input value lies in the semiring's domain
//! ([`Semiring::in_domain`]), naming the first one outside it: the operand,
//! its place (counted from 0, as the library counts) and the value. Only a
//! semiring with a restricted domain (max-times) costs a pass over its
//! operands; for the others every check is empty.

use super::SpmvFormat;
use crate::error::{Error, Result};
use crate::format::{Csr, Dense};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use std::marker::PhantomData;

/// The error for `v`, at `place` of `operand`.
fn outside<S: Semiring>(operand: &str, place: String, v: S::Value) -> Error {
    Error::invalid(
        S::NAME,
        format!(
            "{operand} holds {v:?} at {place} (counted from 0), but {} is only defined \
             on {}",
            S::NAME,
            S::DOMAIN
        ),
    )
}

/// The first of `values` outside `S`'s domain, with its index.
fn first_outside<S: Semiring>(values: &[S::Value]) -> Option<(usize, S::Value)> {
    if !S::NON_NEGATIVE {
        return None;
    }
    let k = values.iter().position(|&v| !S::in_domain(v))?;
    Some((k, values[k]))
}

/// Ok when every value of `m`, the operand called `operand`, is in
/// `S`'s domain.
pub(crate) fn check_csr<S: Semiring>(operand: &str, m: &Csr<S::Value>) -> Result<()>
where
    S::Value: Scalar,
{
    check_csr_block::<S>(operand, m, 0, |j| j as usize)
}

/// [`check_csr`] for A and B of a product or a sum.
pub(crate) fn check_operands<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<()>
where
    S::Value: Scalar,
{
    check_csr::<S>("A", a)?;
    check_csr::<S>("B", b)
}

/// [`check_csr`] for A and [`check_dense`] for B of an SpMM.
pub(crate) fn check_spmm_operands<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Result<()>
where
    S::Value: Scalar,
{
    check_csr::<S>("A", a)?;
    check_dense::<S>("B", b.as_slice(), b.ncols(), 0)
}

/// [`check_csr`] for a block of a larger matrix (an MPI rank's): its
/// rows numbered from `first_row`, its column `j` being `column(j)`.
pub(crate) fn check_csr_block<S: Semiring>(
    operand: &str,
    m: &Csr<S::Value>,
    first_row: usize,
    column: impl Fn(u32) -> usize,
) -> Result<()>
where
    S::Value: Scalar,
{
    let Some((k, v)) = first_outside::<S>(m.values()) else {
        return Ok(());
    };
    let row = m.row_ptr().partition_point(|&p| p <= k) - 1;
    let place = format!("row {}, column {}", first_row + row, column(m.col_idx()[k]));
    Err(outside::<S>(operand, place, v))
}

/// Ok when every value of the row-major `values` (`ncols` a row, rows
/// numbered from `first_row`), the operand called `operand`, is in
/// `S`'s domain.
pub(crate) fn check_dense<S: Semiring>(
    operand: &str,
    values: &[S::Value],
    ncols: usize,
    first_row: usize,
) -> Result<()> {
    let Some((k, v)) = first_outside::<S>(values) else {
        return Ok(());
    };
    let place = format!("row {}, column {}", first_row + k / ncols, k % ncols);
    Err(outside::<S>(operand, place, v))
}

/// Ok when every element of the vector `values` (numbered from
/// `first`), the operand called `operand`, is in `S`'s domain.
pub(crate) fn check_vector<S: Semiring>(
    operand: &str,
    values: &[S::Value],
    first: usize,
) -> Result<()> {
    let Some((k, v)) = first_outside::<S>(values) else {
        return Ok(());
    };
    Err(outside::<S>(operand, format!("element {}", first + k), v))
}

/// Ok when every stored value of `a`, an SpMV operand of any format
/// with `ncols` columns, is in `S`'s domain. [`SpmvFormat`] offers no
/// walk over its values but its SpMV, so the check is one SpMV on the
/// cpu engine over [`OutsideDomain`]; only when that finds a row does
/// it bisect the columns with more, to name the place.
pub(crate) fn check_spmv_operand<S: Semiring>(
    a: &impl SpmvFormat<S::Value>,
    ncols: usize,
) -> Result<()>
where
    S::Value: Scalar,
{
    if !S::NON_NEGATIVE {
        return Ok(());
    }
    // Row `row`'s least value outside the domain among `columns`.
    let least = |columns: std::ops::Range<usize>, row: Option<usize>| {
        let x: Vec<S::Value> = (0..ncols)
            .map(|j| {
                let on = columns.contains(&j);
                S::Value::from_f64(if on { 0.0 } else { f64::INFINITY })
            })
            .collect();
        let y = a.spmv_cpu::<OutsideDomain<S>>(&x);
        let found = |&v: &S::Value| v != OutsideDomain::<S>::zero();
        match row {
            Some(i) => found(&y[i]).then_some((i, y[i])),
            None => y.iter().position(found).map(|i| (i, y[i])),
        }
    };
    let Some((row, _)) = least(0..ncols, None) else {
        return Ok(());
    };
    let (mut lo, mut hi) = (0, ncols);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if least(lo..mid, Some(row)).is_some() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (_, v) = least(lo..hi, Some(row)).expect("the bisection keeps the column");
    Err(outside::<S>("A", format!("row {row}, column {lo}"), v))
}

/// Not a semiring but the walk of one, for [`check_spmv_operand`]:
/// `a ⊗ x` is `a` where `a` is outside `S`'s domain and `x` is finite
/// (its column is looked at), else +∞, and `⊕` keeps the smaller, so
/// `y[i]` is row `i`'s least value outside the domain among the columns
/// looked at (+∞ where there is none; values outside a domain of values
/// ≥ 0 are below 0).
#[derive(Clone, Copy, Default, Debug)]
struct OutsideDomain<S>(PhantomData<S>);

impl<S: Semiring> Semiring for OutsideDomain<S>
where
    S::Value: Scalar,
{
    type Value = S::Value;
    const NAME: &'static str = "outside-domain";
    const ORDER_INDEPENDENT: bool = true;
    fn zero() -> S::Value {
        S::Value::from_f64(f64::INFINITY)
    }
    /// Unused by SpMV: the walk has no identity of `⊗`.
    fn one() -> S::Value {
        S::Value::from_f64(0.0)
    }
    fn add(a: S::Value, b: S::Value) -> S::Value {
        if b < a { b } else { a }
    }
    fn mul(a: S::Value, x: S::Value) -> S::Value {
        if S::in_domain(a) || x == Self::zero() {
            Self::zero()
        } else {
            a
        }
    }
}
