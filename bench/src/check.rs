//! The answer every timed implementation must give before its time counts:
//! `y = A ⊗ x` ([`Reference`]) or `C = A ⊗ B` ([`SpmmReference`]) from the
//! serial engine (the oracle), and how far a result may stray from it.
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
//! passes. SpMM is SpMV per column of B: entry `(i, j)` of C has
//! `s_ij = Σ_l |a_il · b_lj|` and the same `k` as row `i`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use spmx::error::Result;
use spmx::format::{Csr, Dense};
use spmx::{Engine, Scalar, Semiring, ops};

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

/// The oracle's `C` (row-major) and the tolerance of each of its entries.
pub struct SpmmReference<T> {
    c: Dense<T>,
    /// Per entry, row-major; `None` where results must be equal.
    tolerance: Option<Vec<f64>>,
}

/// A result that differs from the reference: the first bad entry (its row,
/// and its column in a matrix result) and how many entries are bad.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub row: usize,
    /// `None` for a vector result.
    pub column: Option<usize>,
    pub got: f64,
    pub want: f64,
    pub tolerance: f64,
    pub bad: usize,
    pub entries: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (result, at) = match self.column {
            None => ("y", format!("y[{}]", self.row)),
            Some(j) => ("C", format!("C[{}, {j}]", self.row)),
        };
        write!(
            f,
            "{} of {} entries of {result} wrong; first {at} = {:e}, expected {:e}",
            self.bad, self.entries, self.got, self.want
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
        let tolerance = (!S::ORDER_INDEPENDENT).then(|| rounding_tolerance(a, x, 1));
        Ok(Reference { y, tolerance })
    }

    /// The reference `y`.
    pub fn y(&self) -> &[T] {
        &self.y
    }

    /// Checks `got` against the reference.
    pub fn check(&self, got: &[T]) -> std::result::Result<(), Mismatch> {
        assert_eq!(got.len(), self.y.len(), "result length != rows of A");
        let tolerance = self.tolerance.as_deref();
        match wrong_entries(&self.y, tolerance, |i| got[i]) {
            None => Ok(()),
            Some((row, bad)) => Err(Mismatch {
                row,
                column: None,
                got: got[row].to_f64(),
                want: self.y[row].to_f64(),
                tolerance: tolerance.map_or(0.0, |t| t[row]),
                bad,
                entries: got.len(),
            }),
        }
    }
}

impl<T: BenchValue> SpmmReference<T> {
    /// `C = A ⊗ B` over `S` by the cpu engine (the serial engine's bits,
    /// on every core: a large case is tens of GFLOP), with tolerances.
    pub fn new<S: Semiring<Value = T>>(a: &Csr<T>, b: &Dense<T>) -> Result<SpmmReference<T>> {
        let c = ops::spmm::<S>(a, b, Engine::Cpu)?;
        let tolerance =
            (!S::ORDER_INDEPENDENT).then(|| rounding_tolerance(a, b.as_slice(), b.ncols()));
        Ok(SpmmReference { c, tolerance })
    }

    /// The reference `C`.
    pub fn c(&self) -> &Dense<T> {
        &self.c
    }

    /// Checks `got`, an `m × k` C stored row-major (element `(i, j)` at
    /// `i·k + j`) or, if `column_major`, column-major (at `j·m + i`).
    pub fn check(&self, got: &[T], column_major: bool) -> std::result::Result<(), Mismatch> {
        let (m, k) = self.c.shape();
        assert_eq!(got.len(), m * k, "result length != rows of A × k");
        let at = |e: usize| {
            if column_major {
                got[(e % k) * m + e / k]
            } else {
                got[e]
            }
        };
        let tolerance = self.tolerance.as_deref();
        match wrong_entries(self.c.as_slice(), tolerance, at) {
            None => Ok(()),
            Some((e, bad)) => Err(Mismatch {
                row: e / k,
                column: Some(e % k),
                got: at(e).to_f64(),
                want: self.c.as_slice()[e].to_f64(),
                tolerance: tolerance.map_or(0.0, |t| t[e]),
                bad,
                entries: got.len(),
            }),
        }
    }
}

/// The entries of a result, `got(e)` for entry `e` of `want`, that differ
/// from `want`: by more than `tolerance[e]`, or at all (bit for bit, a NaN
/// matching a NaN) without tolerances. The first and how many, if any.
fn wrong_entries<T: BenchValue>(
    want: &[T],
    tolerance: Option<&[f64]>,
    got: impl Fn(usize) -> T + Sync,
) -> Option<(usize, usize)> {
    let ok = |e: usize| {
        let (g, w) = (got(e).to_f64(), want[e].to_f64());
        match tolerance {
            None => g == w || (g.is_nan() && w.is_nan()),
            // NaN fails both comparisons.
            Some(t) => (g - w).abs() <= t[e],
        }
    };
    let (first, bad) = (0..want.len())
        .into_par_iter()
        .filter(|&e| !ok(e))
        .map(|e| (e, 1))
        .reduce(|| (usize::MAX, 0), |a, b| (a.0.min(b.0), a.1 + b.1));
    (bad > 0).then_some((first, bad))
}

/// Per entry `(i, j)` of `A ⊗ B`, with B `n × k` row-major (`x` is
/// `n × 1`): 2 · min(γ_r, u·(1 + 16·√r)) · Σ_l |a_il · b_lj| + TINY, with
/// r the length of row `i` plus one (see the module docs). Row-major.
fn rounding_tolerance<T: BenchValue>(a: &Csr<T>, b: &[T], k: usize) -> Vec<f64> {
    let u = T::UNIT_ROUNDOFF;
    let mut tolerance = vec![0.0; a.nrows() * k];
    tolerance
        .par_chunks_mut(k.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            let (cols, vals) = a.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                let b_row = &b[c as usize * k..][..k];
                for (s, &bv) in row.iter_mut().zip(b_row) {
                    *s += (v.to_f64() * bv.to_f64()).abs();
                }
            }
            let r = (cols.len() + 1) as f64;
            let gamma = if r * u < 0.5 {
                r * u / (1.0 - r * u)
            } else {
                1.0
            };
            let walk = u * (1.0 + 16.0 * r.sqrt());
            for s in row {
                *s = 2.0 * gamma.min(walk) * *s + T::TINY;
            }
        });
    tolerance
}

#[cfg(test)]
mod tests {
    use super::*;
    use spmx::generate;
    use spmx::{MinPlus, PlusTimes};

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
        assert_eq!((m.row, m.column, m.bad, m.entries), (7, None, 1, 2000));
        // An unwritten entry.
        let mut poisoned = reversed;
        poisoned[1999] = f32::NAN;
        poisoned[3] = f32::NAN;
        let m = r.check(&poisoned).unwrap_err();
        assert_eq!((m.row, m.bad), (3, 2));
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
        let t = rounding_tolerance(&a, &vec![1.0f32; n], 1)[0];
        let u = f32::EPSILON as f64 / 2.0;
        let walk = 2.0 * u * (1.0 + 16.0 * ((n + 1) as f64).sqrt()) * n as f64;
        assert!((t - walk).abs() < 1e-9 * walk);
        // Short rows get the rigorous bound, which is smaller there.
        let b = Csr::try_new(1, 4, vec![0, 4], vec![0, 1, 2, 3], vec![1.0f32; 4]).unwrap();
        let t = rounding_tolerance(&b, &[1.0f32; 4], 1)[0];
        assert!(t < 2.0 * 5.0 * u * 4.0 * 1.0001 + f32::MIN_POSITIVE as f64);
    }

    /// `a` times a random `k`-column B.
    fn spmm_operands(a: &Csr<f32>, k: usize, seed: u64) -> Dense<f32> {
        Dense::try_new(a.ncols(), k, random_x(a.ncols() * k, seed)).unwrap()
    }

    /// `c` (row-major) stored column-major.
    fn column_major(c: &Dense<f32>) -> Vec<f32> {
        let (m, k) = c.shape();
        (0..m * k).map(|e| c.get(e % m, e / m)).collect()
    }

    #[test]
    fn spmm_with_an_exact_semiring_must_match_bit_for_bit() {
        let a = matrix();
        let b = spmm_operands(&a, 8, 3);
        let r = SpmmReference::new::<MinPlus<f32>>(&a, &b).unwrap();
        let mut c = r.c().as_slice().to_vec();
        assert_eq!(r.check(&c, false), Ok(()));
        let e = 5 * 8 + 3;
        c[e] = f32::from_bits(c[e].to_bits() + 1);
        let m = r.check(&c, false).unwrap_err();
        assert_eq!((m.row, m.column, m.tolerance, m.bad), (5, Some(3), 0.0, 1));
    }

    #[test]
    fn spmm_plus_times_passes_within_tolerance_and_fails_beyond() {
        let a = matrix();
        let k = 6;
        let b = spmm_operands(&a, k, 4);
        let r = SpmmReference::new::<PlusTimes<f32>>(&a, &b).unwrap();
        // Each entry summed backwards, in f32: another order, other roundings.
        let reversed: Vec<f32> = (0..a.nrows() * k)
            .map(|e| {
                let (cols, vals) = a.row(e / k);
                cols.iter()
                    .zip(vals)
                    .rev()
                    .fold(0.0f32, |s, (&c, &v)| s + v * b.get(c as usize, e % k))
            })
            .collect();
        assert_eq!(r.check(&reversed, false), Ok(()));
        // One product too many in C[7, 2].
        let mut wrong = reversed.clone();
        let (cols, vals) = a.row(7);
        wrong[7 * k + 2] += vals[0] * b.get(cols[0] as usize, 2);
        let m = r.check(&wrong, false).unwrap_err();
        assert_eq!(
            (m.row, m.column, m.bad, m.entries),
            (7, Some(2), 1, 2000 * k)
        );
        assert!(m.tolerance > 0.0);
    }

    #[test]
    fn spmm_poisoned_entries_fail_and_are_counted() {
        let a = matrix();
        let b = spmm_operands(&a, 4, 5);
        let r = SpmmReference::new::<PlusTimes<f32>>(&a, &b).unwrap();
        let mut c = r.c().as_slice().to_vec();
        c[1999 * 4 + 3] = f32::NAN;
        c[10 * 4 + 1] = f32::NAN;
        let m = r.check(&c, false).unwrap_err();
        assert_eq!((m.row, m.column, m.bad), (10, Some(1), 2));
        assert!(
            m.to_string()
                .starts_with("2 of 8000 entries of C wrong; first C[10, 1] = NaN"),
            "{m}"
        );
    }

    #[test]
    fn spmm_reads_a_column_major_c() {
        let a = matrix();
        let b = spmm_operands(&a, 5, 6);
        let r = SpmmReference::new::<MinPlus<f32>>(&a, &b).unwrap();
        let mut c = column_major(r.c());
        assert_eq!(r.check(&c, true), Ok(()));
        assert!(r.check(&c, false).is_err(), "read row-major, it is wrong");
        // C[9, 4] is at 4·m + 9 column-major.
        c[4 * 2000 + 9] = f32::NAN;
        let m = r.check(&c, true).unwrap_err();
        assert_eq!((m.row, m.column, m.bad), (9, Some(4), 1));
    }
}
