//! Matrices whose row lengths follow a power law: many short rows and a few
//! very long ones, like the adjacency matrix of a social or GNN graph.
//!
//! A row's length is `L = min(ncols, ⌈X⌉)`, where `X` is Pareto with tail
//! `P(X > t) = (x_min / t)^(γ−1)` for `t ≥ x_min` (density ∝ `t^−γ`, `γ` the
//! exponent), drawn by inversion: `X = x_min · U^(−1/(γ−1))` with `U` uniform
//! on (0, 1]. Hence `P(L = k)` falls off like `k^−γ`, no row holds fewer
//! than `⌈x_min⌉ ≥ 1` entries, and none more than `ncols`. The scale `x_min` is the
//! one that makes the mean exact:
//!
//! `E[L] = 1 + Σ_{j=1}^{ncols−1} min(1, (x_min / j)^(γ−1)) = mean_row_len`,
//!
//! solved by bisection (the sum: its first terms exactly, the rest by
//! Euler–Maclaurin). For `γ ≤ 2` an untruncated Pareto has no mean; the cap
//! at `ncols` gives it one, so `x_min` then depends strongly on `ncols`.
//!
//! `pow`, `log` and `expm1` come from `libm` (pure Rust), not the platform's
//! math library, so that the same seed gives the same lengths everywhere.

use super::check_dim;
use super::random_rows::RandomRows;
use super::rows::csr_with_random_values;
use super::stream::open_unit;
use crate::error::{Error, Result};
use crate::format::Csr;

const KIND: &str = "power-law";

/// An `nrows × ncols` matrix with power-law row lengths of mean
/// `mean_row_len` and exponent `exponent` (see the module docs for the exact
/// distribution), each row's columns a uniformly random subset, values
/// uniform on (0, 1]. Row lengths are independent of one another; columns
/// are uniform, so column counts are not skewed.
///
/// Errors: a zero or too large dimension, `exponent` not above 1, or
/// `mean_row_len` outside `[1, ncols]`.
pub fn power_law(
    nrows: usize,
    ncols: usize,
    mean_row_len: f64,
    exponent: f64,
    seed: u64,
) -> Result<Csr<f64>> {
    check_dim(KIND, "nrows", nrows)?;
    check_dim(KIND, "ncols", ncols)?;
    if !(exponent.is_finite() && exponent > 1.0) {
        return Err(Error::invalid(
            KIND,
            format!("exponent {exponent} must be a finite number above 1"),
        ));
    }
    if !(1.0..=ncols as f64).contains(&mean_row_len) {
        return Err(Error::invalid(
            KIND,
            format!("mean_row_len {mean_row_len} must lie in [1, ncols = {ncols}]"),
        ));
    }
    let alpha = exponent - 1.0;
    let x_min = scale_for_mean(mean_row_len, alpha, ncols);
    let power = -1.0 / alpha;
    let rows = RandomRows {
        seed,
        ncols,
        length: |rng: &mut _| {
            let x = x_min * libm::pow(open_unit(rng), power);
            if x >= ncols as f64 {
                ncols
            } else {
                x.ceil() as usize
            }
        },
    };
    csr_with_random_values(nrows, ncols, &rows, seed)
}

/// The `x_min` whose row lengths have mean `mean`, by bisection on
/// `[0, ncols]`, over which the mean rises from 1 to `ncols`.
fn scale_for_mean(mean: f64, alpha: f64, ncols: usize) -> f64 {
    let (mut lo, mut hi) = (0.0, ncols as f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mean_length(mid, alpha, ncols) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// `E[L] = 1 + Σ_{j=1}^{ncols−1} min(1, (x_min / j)^α)`: the terms with
/// `j ≤ x_min` are 1, the rest `x_min^α · j^−α`.
fn mean_length(x_min: f64, alpha: f64, ncols: usize) -> f64 {
    let last = (ncols - 1) as f64;
    let ones = x_min.floor().min(last);
    1.0 + ones + libm::pow(x_min, alpha) * power_sum(alpha, ones + 1.0, last)
}

/// `Σ_{j=a}^{b} j^−α` for whole numbers `a ≥ 1` (0 when `a > b`): the first
/// terms summed exactly, the tail from `A` by Euler–Maclaurin,
/// `∫_A^b x^−α dx + (f(A) + f(b)) / 2 + (f′(b) − f′(A)) / 12`, whose error,
/// about `f‴(A) / 720`, is negligible once `A` exceeds a thousand.
fn power_sum(alpha: f64, a: f64, b: f64) -> f64 {
    const EXACT_TERMS: f64 = 1024.0;
    let f = |x: f64| libm::pow(x, -alpha);
    let df = |x: f64| -alpha * libm::pow(x, -alpha - 1.0);
    let mut sum = 0.0;
    let mut j = a;
    while j <= b && j < a + EXACT_TERMS {
        sum += f(j);
        j += 1.0;
    }
    if j > b {
        return sum;
    }
    // ∫_j^b x^−α dx = j^ε (e^{ε ln(b/j)} − 1) / ε with ε = 1 − α, written
    // with expm1 so that it stays exact as ε approaches 0.
    let eps = 1.0 - alpha;
    let log_ratio = libm::log(b / j);
    let integral = if eps == 0.0 {
        log_ratio
    } else {
        libm::pow(j, eps) * libm::expm1(eps * log_ratio) / eps
    };
    sum + integral + (f(j) + f(b)) / 2.0 + (df(b) - df(j)) / 12.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_sum_matches_direct_summation() {
        for alpha in [0.3, 1.0, 1.5, 2.0] {
            let direct: f64 = (3..=200_000).map(|j| (j as f64).powf(-alpha)).sum();
            let fast = power_sum(alpha, 3.0, 200_000.0);
            assert!(
                (fast - direct).abs() <= 1e-12 * direct,
                "α = {alpha}: {fast} vs {direct}"
            );
        }
        assert_eq!(power_sum(1.5, 10.0, 9.0), 0.0);
    }

    #[test]
    fn scale_reproduces_the_mean_at_both_ends() {
        for (mean, alpha, ncols) in [(16.0, 1.5, 1 << 20), (1.0, 1.0, 100), (100.0, 0.5, 100)] {
            let x_min = scale_for_mean(mean, alpha, ncols);
            let got = mean_length(x_min, alpha, ncols);
            assert!((got - mean).abs() <= 1e-9 * mean, "{mean}: got {got}");
        }
    }
}
