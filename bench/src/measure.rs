//! The numbers a bench derives from a matrix and a list of times: the bytes
//! an SpMV or SpMM must move and the flops of an SpMM, the spread of the
//! row lengths, medians, and how many copies of the inputs to rotate
//! through so that repeats do not run from the cache.

use serde::Serialize;

use spmx::Scalar;
use spmx::format::Csr;

/// Most rotation sets (copies of the matrix and of `x`, `y`) per timing.
pub const MAX_SETS: usize = 64;

/// The fewest bytes a CSR SpMV with `u32` indices moves through device
/// memory: values and column indices once, `m + 1` row pointers, `x` and
/// `y` once each; `value_bytes` is 4 for `f32`, 8 for `f64`.
pub fn spmv_bytes(rows: usize, cols: usize, nnz: usize, value_bytes: usize) -> u64 {
    let (m, n, nnz, v) = (rows as u64, cols as u64, nnz as u64, value_bytes as u64);
    (v + 4) * nnz + 4 * (m + 1) + v * m + v * n
}

/// The fewest bytes a CSR SpMM `C = A ⊗ B` with `u32` indices moves
/// through device memory: A once (values, column indices, `m + 1` row
/// pointers), B (`n × k`) and C (`m × k`) once each; `value_bytes` is 4
/// for `f32`, 8 for `f64`.
pub fn spmm_bytes(rows: usize, cols: usize, nnz: usize, k: usize, value_bytes: usize) -> u64 {
    let (m, n, nnz, k, v) = (
        rows as u64,
        cols as u64,
        nnz as u64,
        k as u64,
        value_bytes as u64,
    );
    (v + 4) * nnz + 4 * (m + 1) + v * n * k + v * m * k
}

/// The flops of an SpMM: a multiply and an add per entry of A and column
/// of B.
pub fn spmm_flops(nnz: usize, k: usize) -> u64 {
    2 * nnz as u64 * k as u64
}

/// `count` (bytes, flops) in `ms` milliseconds, in 10⁹ a second: GB/s,
/// GFLOP/s.
pub fn giga_per_s(count: u64, ms: f64) -> f64 {
    count as f64 / (ms * 1e6)
}

/// How unevenly the rows of a matrix are filled.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RowSpread {
    pub min: usize,
    pub max: usize,
    pub mean: f64,
    /// Coefficient of variation: standard deviation over mean (0 when
    /// every row has the same length, or there are no entries).
    pub cv: f64,
}

impl RowSpread {
    pub fn of<T: Scalar>(a: &Csr<T>) -> RowSpread {
        let stats = a.row_stats();
        RowSpread {
            min: stats.min,
            max: stats.max,
            mean: stats.mean,
            cv: stats.cv,
        }
    }

    /// Longest row over the mean (1 for equal rows; at least 1 unless the
    /// matrix is empty), the spread the charts plot against.
    pub fn max_over_mean(&self) -> f64 {
        if self.mean > 0.0 {
            self.max as f64 / self.mean
        } else {
            1.0
        }
    }
}

/// Median, least and greatest of some times (milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Times {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Times {
    /// Panics on an empty list (a bench always times at least one run).
    pub fn of(times: &[f64]) -> Times {
        assert!(!times.is_empty(), "no times to take the median of");
        let mut t = times.to_vec();
        t.sort_by(f64::total_cmp);
        let n = t.len();
        let median = if n % 2 == 1 {
            t[n / 2]
        } else {
            (t[n / 2 - 1] + t[n / 2]) / 2.0
        };
        Times {
            median,
            min: t[0],
            max: t[n - 1],
        }
    }
}

/// How many sets of inputs to rotate through so that a run never finds
/// the previous run's data in a cache of `cache_bytes`: enough sets of
/// `set_bytes` each (a matrix copy with its `x` and `y`) to fill three
/// times the cache, at least 1 and at most [`MAX_SETS`]. A matrix much
/// larger than the cache needs one.
pub fn rotation_sets(set_bytes: usize, cache_bytes: usize) -> usize {
    (3 * cache_bytes)
        .div_ceil(set_bytes.max(1))
        .clamp(1, MAX_SETS)
}

/// The geometric mean of positive numbers (`None` for none).
pub fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let log_sum: f64 = values.iter().map(|v| v.ln()).sum();
    Some((log_sum / values.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_count_values_indices_pointers_and_both_vectors() {
        // f32: 8·nnz + 4·(m+1) + 4·m + 4·n.
        assert_eq!(spmv_bytes(10, 20, 100, 4), 800 + 44 + 40 + 80);
        // f64: 12·nnz + 4·(m+1) + 8·m + 8·n.
        assert_eq!(spmv_bytes(10, 20, 100, 8), 1200 + 44 + 80 + 160);
        assert!((giga_per_s(2_000_000, 1.0) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn spmm_moves_a_b_and_c_once_and_does_two_flops_per_product() {
        // f32, k = 32: 8·nnz + 4·(m+1) + 4·n·k + 4·m·k.
        assert_eq!(
            spmm_bytes(10, 20, 100, 32, 4),
            800 + 44 + 4 * 20 * 32 + 4 * 10 * 32
        );
        // k = 1 is an SpMV.
        assert_eq!(spmm_bytes(10, 20, 100, 1, 8), spmv_bytes(10, 20, 100, 8));
        assert_eq!(spmm_flops(100, 64), 12_800);
        // No overflow past 2³² entries.
        assert_eq!(spmm_flops(3 << 30, 256), 3 << 39);
    }

    #[test]
    fn spread_of_equal_and_unequal_rows() {
        let equal = spmx::generate::poisson2d(1).unwrap();
        let s = RowSpread::of(&equal);
        assert_eq!((s.min, s.max, s.mean, s.cv), (1, 1, 1.0, 0.0));
        // Rows of 1 and 3 entries: mean 2, deviation 1.
        let a = Csr::try_new(
            2,
            3,
            vec![0, 1, 4],
            vec![0, 0, 1, 2],
            vec![1.0f32, 2.0, 3.0, 4.0],
        )
        .unwrap();
        let s = RowSpread::of(&a);
        assert_eq!((s.min, s.max, s.mean), (1, 3, 2.0));
        assert!((s.cv - 0.5).abs() < 1e-12);
        assert!((s.max_over_mean() - 1.5).abs() < 1e-12);
        let empty = Csr::<f32>::empty(3, 3);
        assert_eq!(RowSpread::of(&empty).cv, 0.0);
        assert_eq!(RowSpread::of(&empty).max_over_mean(), 1.0);
    }

    #[test]
    fn times_take_the_median() {
        let t = Times::of(&[3.0, 1.0, 2.0]);
        assert_eq!((t.median, t.min, t.max), (2.0, 1.0, 3.0));
        assert_eq!(Times::of(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
    }

    #[test]
    fn rotation_fills_three_caches_within_limits() {
        let l2 = 50 << 20;
        assert_eq!(rotation_sets(4 << 30, l2), 1);
        assert_eq!(rotation_sets(50 << 20, l2), 3);
        assert_eq!(rotation_sets(40 << 20, l2), 4);
        assert_eq!(rotation_sets(1000, l2), MAX_SETS);
        assert_eq!(rotation_sets(0, l2), MAX_SETS);
    }

    #[test]
    fn geomean_of_ratios() {
        assert_eq!(geomean(&[]), None);
        assert!((geomean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
    }
}
