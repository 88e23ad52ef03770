//! Inputs of the GPU SpGEMM tests shared by the product's and the plan's
//! (`tests/gpu_spgemm.rs`, `tests/gpu_spgemm_plan.rs`): random pairs, bands,
//! and rows enough to be staged.

use super::gpu::skewed;
use super::{TestScalar, arb_csr_shaped};
use proptest::prelude::*;
use spmx::format::Csr;

/// A pair `A (m × n)`, `B (n × p)` of random shapes, empty ones included.
pub fn arb_pair<T: TestScalar>() -> impl Strategy<Value = (Csr<T>, Csr<T>)> {
    (0usize..50, 0usize..50, 0usize..50)
        .prop_flat_map(|(m, n, p)| (arb_csr_shaped::<T>(m, n), arb_csr_shaped::<T>(n, p)))
}

/// Rows of the products that test staging: above the 2¹⁶ hashed rows from
/// which the hash class computes its rows in the symbolic phase.
pub const STAGED_ROWS: usize = 70_000;

/// Products with [`STAGED_ROWS`] short rows (A squared: 6 to 9 entries a
/// row, 36 to 81 products of random columns) and hashed rows (A·B: 14 to
/// 20 entries a row times 9 to 12, 126 to 240 products), seeded from
/// `seed`: `(short, hashed_a, hashed_b)`.
pub fn staged_rows<T: spmx::Scalar>(seed: u64) -> (Csr<T>, Csr<T>, Csr<T>) {
    (
        skewed(STAGED_ROWS, STAGED_ROWS, |i| 6 + i % 4, seed),
        skewed(STAGED_ROWS, STAGED_ROWS, |i| 14 + i % 7, seed + 100),
        skewed(STAGED_ROWS, STAGED_ROWS, |i| 9 + i % 4, seed + 200),
    )
}

/// Long rows (over 1024 products) of the products that test their staging:
/// above the 256 from which the dense class is staged.
pub const LONG_STAGED: usize = 300;

/// A band: row `i` has columns `i − half ..= i + half` (clipped); values
/// with long fractions, so that a sum in another order rounds otherwise.
pub fn banded<T: spmx::Scalar>(n: usize, half: usize) -> Csr<T> {
    let mut coo = spmx::Coo::new(n, n).unwrap();
    for i in 0..n {
        for j in i.saturating_sub(half)..(i + half + 1).min(n) {
            let v = ((7 * i + 13 * j) % 17) as f64 / 7.0 - 1.1;
            coo.push(i, j, T::from_f64(v)).unwrap();
        }
    }
    coo.to_csr()
}
