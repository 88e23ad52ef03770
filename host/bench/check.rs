//! The answer every timed implementation must give before its time counts:
//! `y = A ⊗ x` from the serial engine (the oracle), and how far a result
//! may stray from it.
//!
//! Semirings whose addition is exact in any order (min, max: see
//! `Semiring::ORDER_INDEPENDENT`) must match bit for bit. Plus-times sums in
//! an order of the kernel's choosing, so both the GPU's `y_i` and the
//! oracle's carry rounding error; each is at most `γ_k · s_i` with
//! `s_i = Σ_j |a_ij · x_j|` (computed in `f64`), `k` the row's length plus
//! one and `γ_k = k·u / (1 − k·u)` for the unit roundoff `u` of the value
//! type, in any order of summation (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, §3.1). That bound grows with `k`, while real
//! rounding errors behave like a random walk and stay near `u·√k · s_i`, so
//! the tolerance is the smaller of `γ_k` and `u·(1 + 16·√k)`, times two (two
//! results each off by rounding), times `s_i`, plus the type's smallest
//! normal number (for rows whose `s_i` is 0). A poisoned (NaN) entry never
//! passes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::error::Result;
use crate::format::Csr;
use crate::{Engine, Scalar, Semiring, ops};

/// The value types a bench runs on: `f32` and `f64`.
pub trait BenchValue: Scalar {
    /// `f32`, `f64`.
    const NAME: &'static str;
    /// Half the gap between 1 and the next value: 2⁻²⁴, 2⁻⁵³.
    const UNIT_ROUNDOFF: f64;
    /// The smallest positive normal value.
    const TINY: f64;
    /// A NaN, to poison outputs with before a run.
    const NAN: Self;
}

impl BenchValue for f32 {
    const NAME: &'static str = "f32";
    const UNIT_ROUNDOFF: f64 = f32::EPSILON as f64 / 2.0;
    const TINY: f64 = f32::MIN_POSITIVE as f64;
    const NAN: f32 = f32::NAN;
}

impl BenchValue for f64 {
    const NAME: &'static str = "f64";
    const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
    const TINY: f64 = f64::MIN_POSITIVE;
    const NAN: f64 = f64::NAN;
}

/// `n` values uniform on (0, 1] from `seed`, exact in `f32`: `k / 2²⁴` with
/// `k` uniform on `1..=2²⁴` (the generators' values; never zero, so no
/// product vanishes and no unwritten output hides behind a zero).
pub fn random_x<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    const STEP: f64 = 1.0 / (1u64 << 24) as f64;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| T::from_f64(f64::from((rng.next_u32() >> 8) + 1) * STEP))
        .collect()
}

/// The oracle's `y` and the tolerance of each of its entries.
pub struct Reference<T> {
    y: Vec<T>,
    /// Per row; `None` where results must be equal.
    tolerance: Option<Vec<f64>>,
}

/// A result that differs from the reference: the first bad row and how
/// many rows are bad.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub row: usize,
    pub got: f64,
    pub want: f64,
    pub tolerance: f64,
    pub bad_rows: usize,
    pub rows: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} entries of y wrong; first y[{}] = {:e}, expected {:e}",
            self.bad_rows, self.rows, self.row, self.got, self.want
        )?;
        if self.tolerance > 0.0 {
            write!(f, " ± {:.1e}", self.tolerance)?;
        }
        Ok(())
    }
}

impl<T: BenchValue> Reference<T> {
    /// `y = A ⊗ x` over `S` by the serial engine, with tolerances.
    pub fn new<S: Semiring<Value = T>>(a: &Csr<T>, x: &[T]) -> Result<Reference<T>> {
        let y = ops::spmv::<S>(a, x, Engine::Serial)?;
        let tolerance = (!S::ORDER_INDEPENDENT).then(|| rounding_tolerance(a, x));
        Ok(Reference { y, tolerance })
    }

    /// The reference `y`.
    pub fn y(&self) -> &[T] {
        &self.y
    }

    /// Checks `got` against the reference.
    pub fn check(&self, got: &[T]) -> std::result::Result<(), Mismatch> {
        assert_eq!(got.len(), self.y.len(), "result length != rows of A");
        let tol = |i: usize| self.tolerance.as_ref().map_or(0.0, |t| t[i]);
        let ok = |i: usize| {
            let (g, w) = (got[i].to_f64(), self.y[i].to_f64());
            match &self.tolerance {
                None => g == w || (g.is_nan() && w.is_nan()),
                // NaN fails both comparisons.
                Some(t) => (g - w).abs() <= t[i],
            }
        };
        let bad: Vec<usize> = (0..got.len()).into_par_iter().filter(|&i| !ok(i)).collect();
        match bad.first() {
            None => Ok(()),
            Some(&row) => Err(Mismatch {
                row,
                got: got[row].to_f64(),
                want: self.y[row].to_f64(),
                tolerance: tol(row),
                bad_rows: bad.len(),
                rows: got.len(),
            }),
        }
    }
}

/// Per row: 2 · min(γ_k, u·(1 + 16·√k)) · Σ_j |a_ij · x_j| + TINY, with k
/// the row length plus one (see the module docs).
fn rounding_tolerance<T: BenchValue>(a: &Csr<T>, x: &[T]) -> Vec<f64> {
    let u = T::UNIT_ROUNDOFF;
    (0..a.nrows())
        .into_par_iter()
        .map(|i| {
            let (cols, vals) = a.row(i);
            let scale: f64 = cols
                .iter()
                .zip(vals)
                .map(|(&c, &v)| (v.to_f64() * x[c as usize].to_f64()).abs())
                .sum();
            let k = (cols.len() + 1) as f64;
            let gamma = if k * u < 0.5 {
                k * u / (1.0 - k * u)
            } else {
                1.0
            };
            let walk = u * (1.0 + 16.0 * k.sqrt());
            2.0 * gamma.min(walk) * scale + T::TINY
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::{MinPlus, PlusTimes};

    fn matrix() -> Csr<f32> {
        generate::power_law(2000, 2000, 20.0, 2.0, 5)
            .unwrap()
            .map(|v| v as f32)
    }

    #[test]
    fn random_x_is_reproducible_in_range_and_exact_in_f32() {
        let x: Vec<f64> = random_x(1000, 3);
        assert_eq!(x, random_x::<f64>(1000, 3));
        assert_ne!(x, random_x::<f64>(1000, 4));
        assert!(
            x.iter()
                .all(|&v| v > 0.0 && v <= 1.0 && v as f32 as f64 == v)
        );
    }

    #[test]
    fn a_differently_ordered_sum_passes_and_a_wrong_one_fails() {
        let a = matrix();
        let x = random_x::<f32>(a.ncols(), 1);
        let r = Reference::new::<PlusTimes<f32>>(&a, &x).unwrap();
        // Each row summed backwards, in f32: another order, other roundings.
        let reversed: Vec<f32> = (0..a.nrows())
            .map(|i| {
                let (cols, vals) = a.row(i);
                cols.iter()
                    .zip(vals)
                    .rev()
                    .fold(0.0f32, |s, (&c, &v)| s + v * x[c as usize])
            })
            .collect();
        assert_eq!(r.check(&reversed), Ok(()));
        // One product too many in row 7 (a duplicated entry).
        let mut wrong = reversed.clone();
        let (cols, vals) = a.row(7);
        wrong[7] += vals[0] * x[cols[0] as usize];
        let m = r.check(&wrong).unwrap_err();
        assert_eq!((m.row, m.bad_rows, m.rows), (7, 1, 2000));
        // An unwritten entry.
        let mut poisoned = reversed;
        poisoned[1999] = f32::NAN;
        poisoned[3] = f32::NAN;
        let m = r.check(&poisoned).unwrap_err();
        assert_eq!((m.row, m.bad_rows), (3, 2));
        assert!(
            m.to_string()
                .starts_with("2 of 2000 entries of y wrong; first y[3] = NaN")
        );
    }

    #[test]
    fn order_independent_semirings_must_match_exactly() {
        let a = matrix();
        let x = random_x::<f32>(a.ncols(), 2);
        let r = Reference::new::<MinPlus<f32>>(&a, &x).unwrap();
        let mut y = r.y().to_vec();
        assert_eq!(r.check(&y), Ok(()));
        let i = y.iter().position(|v| v.is_finite()).unwrap();
        y[i] = f32::from_bits(y[i].to_bits() + 1);
        let m = r.check(&y).unwrap_err();
        assert_eq!((m.row, m.tolerance), (i, 0.0));
    }

    #[test]
    fn tolerance_grows_slower_than_the_worst_case_for_long_rows() {
        // One row of 10⁶ ones times x = 1: s = 10⁶.
        let n = 1_000_000;
        let a = Csr::try_new(1, n, vec![0, n], (0..n as u32).collect(), vec![1.0f32; n]).unwrap();
        let t = rounding_tolerance(&a, &vec![1.0f32; n])[0];
        let u = f32::EPSILON as f64 / 2.0;
        let walk = 2.0 * u * (1.0 + 16.0 * ((n + 1) as f64).sqrt()) * n as f64;
        assert!((t - walk).abs() < 1e-9 * walk);
        // Short rows get the rigorous bound, which is smaller there.
        let b = Csr::try_new(1, 4, vec![0, 4], vec![0, 1, 2, 3], vec![1.0f32; 4]).unwrap();
        let t = rounding_tolerance(&b, &[1.0f32; 4])[0];
        assert!(t < 2.0 * 5.0 * u * 4.0 * 1.0001 + f32::MIN_POSITIVE as f64);
    }
}
