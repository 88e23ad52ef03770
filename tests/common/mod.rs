//! Proptest strategies and checks shared by the integration tests: the
//! random matrices every format and engine test draws from.
//!
//! - [`arb_csr::<T>(max_rows, max_cols)`](arb_csr): a canonical CSR of a
//!   random shape up to `max_rows × max_cols`. About one case in eleven each
//!   is `0×0`, `0×n` or `m×0`; the rest are `m×n` with `m, n ≥ 1`, square or
//!   not.
//! - [`arb_csr_shaped::<T>(nrows, ncols)`](arb_csr_shaped): the same for a
//!   fixed shape — for products, draw the shapes first and `prop_flat_map`
//!   (`(m, k, n)` → `(arb_csr_shaped(m, k), arb_csr_shaped(k, n))`).
//!   Up to `3 (m + n)` random entries (so from empty to fully dense on small
//!   shapes, with empty rows common), plus, in 15% of cases, one fully
//!   dense row. Duplicate coordinates keep their first value, so
//!   explicit zeros survive.
//! - [`TestScalar::arb`]: values per type. `f64`/`f32`: small integers in
//!   `-8..=8` (exact under any summation order), `0.0` and `-0.0` (explicit
//!   zeros, often), and arbitrary finite floats (normal and subnormal); never
//!   NaN or ±∞. `bool`: either, so `false` is an explicit zero. `i32`,
//!   `i64`, `u32`, `u64`: small values, the whole range and the extremes,
//!   so products and sums wrap often.
//! - [`assert_identical`]: two CSR matrices with the same pattern and the
//!   same values bit for bit (`-0.0` and `0.0` differ here, unlike `==`).
//!
//! - Issue 20's examples, shared by the regression tests of every engine:
//!   [`or_and_stored_zero`] (and what its products must be),
//!   [`neg_inf_cycle_graph`] and [`inf_meets_neg_inf_graph`].
//! - [`real_data_dir`]: the folder of real-world matrices,
//!   `../shared/bench-data/real` or `$SPMX_REAL_DATA`.
//! - [`reference`]: the plain SpMV, SpMM, SpGEMM and element-wise addition
//!   every engine is tested against.
//! - [`gpu`] (feature `gpu`): the GPU tests' helpers.
//!
//! Sizes stay small (tens of rows): shrinking is quick and hundreds of cases
//! run in well under a second.
#![allow(dead_code)] // each test binary uses a subset

#[cfg(feature = "gpu")]
pub mod gpu;
pub mod reference;
#[cfg(feature = "gpu")]
pub mod spgemm_cases;

use proptest::prelude::*;
use spmx::format::{Coo, Csr};
use spmx::scalar::Scalar;
use std::path::PathBuf;

/// A value type the strategies can draw, and compare bit for bit.
pub trait TestScalar: Scalar {
    /// A strategy for one value (see the module docs).
    fn arb() -> BoxedStrategy<Self>;
    /// The value's bits, to compare without `==`'s forgiveness (`-0.0`).
    fn bits(self) -> u64;
}

impl TestScalar for f64 {
    fn arb() -> BoxedStrategy<Self> {
        use proptest::num::f64::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
        prop_oneof![
            4 => (-8i8..=8).prop_map(f64::from),
            1 => Just(0.0),
            1 => Just(-0.0),
            2 => POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO,
        ]
        .boxed()
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl TestScalar for f32 {
    fn arb() -> BoxedStrategy<Self> {
        use proptest::num::f32::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
        prop_oneof![
            4 => (-8i8..=8).prop_map(f32::from),
            1 => Just(0.0),
            1 => Just(-0.0),
            2 => POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO,
        ]
        .boxed()
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl TestScalar for bool {
    fn arb() -> BoxedStrategy<Self> {
        any::<bool>().boxed()
    }
    fn bits(self) -> u64 {
        u64::from(self)
    }
}

macro_rules! int_test_scalar {
    ($($t:ident),*) => {$(
        impl TestScalar for $t {
            fn arb() -> BoxedStrategy<Self> {
                prop_oneof![
                    4 => (-8i8..=8).prop_map(|v| <$t>::try_from(v).unwrap_or(v.unsigned_abs() as $t)),
                    3 => any::<$t>(),
                    1 => Just($t::MIN),
                    1 => Just($t::MAX),
                ]
                .boxed()
            }
            fn bits(self) -> u64 {
                self.to_bits()
            }
        }
    )*};
}
int_test_scalar!(i32, i64, u32, u64);

/// A shape up to `max_rows × max_cols`, empty dimensions included.
pub fn arb_shape(max_rows: usize, max_cols: usize) -> impl Strategy<Value = (usize, usize)> {
    assert!(
        max_rows >= 1 && max_cols >= 1,
        "arb_shape: maxima must be ≥ 1"
    );
    prop_oneof![
        1 => Just((0, 0)),
        1 => (1..=max_cols).prop_map(|n| (0, n)),
        1 => (1..=max_rows).prop_map(|m| (m, 0)),
        8 => (1..=max_rows, 1..=max_cols),
    ]
}

/// A canonical CSR of a random shape up to `max_rows × max_cols`.
pub fn arb_csr<T: TestScalar>(max_rows: usize, max_cols: usize) -> impl Strategy<Value = Csr<T>> {
    arb_shape(max_rows, max_cols).prop_flat_map(|(m, n)| arb_csr_shaped::<T>(m, n))
}

/// A canonical CSR of shape `nrows × ncols` (see the module docs).
pub fn arb_csr_shaped<T: TestScalar>(nrows: usize, ncols: usize) -> BoxedStrategy<Csr<T>> {
    if nrows == 0 || ncols == 0 {
        return Just(Csr::empty(nrows, ncols)).boxed();
    }
    let (m, n) = (nrows as u32, ncols as u32);
    let most = (nrows * ncols).min(3 * (nrows + ncols));
    let entries = prop::collection::vec((0..m, 0..n, T::arb()), 0..=most);
    let dense_row = prop::option::weighted(0.15, (0..m, prop::collection::vec(T::arb(), ncols)));
    (entries, dense_row)
        .prop_map(move |(entries, dense_row)| {
            let mut coo = Coo::new(nrows, ncols).unwrap();
            // The dense row goes first so that its values win duplicates.
            if let Some((r, vals)) = dense_row {
                for (c, v) in vals.into_iter().enumerate() {
                    coo.push_unchecked(r, c as u32, v);
                }
            }
            for (r, c, v) in entries {
                coo.push_unchecked(r, c, v);
            }
            coo.to_csr_with(|first, _| first)
        })
        .boxed()
}

/// Asserts `got` and `want` have the same shape, pattern and value bits.
#[track_caller]
pub fn assert_identical<T: TestScalar>(got: &Csr<T>, want: &Csr<T>) {
    assert_eq!(got.shape(), want.shape(), "shape");
    assert_eq!(got.row_ptr(), want.row_ptr(), "row_ptr");
    assert_eq!(got.col_idx(), want.col_idx(), "col_idx");
    let bits = |a: &Csr<T>| a.values().iter().map(|&v| v.bits()).collect::<Vec<_>>();
    assert_eq!(bits(got), bits(want), "value bits");
}

/// Issue 20's or-and example as `bool`: A (2×2) with `1 2 0` and `2 2 1`,
/// so A(0,1) is a stored `false` and A(1,1) is `true`.
pub fn or_and_stored_zero() -> Csr<bool> {
    Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 1], vec![false, true]).unwrap()
}

/// A ⊗ A over or-and for [`or_and_stored_zero`]: (0,1) is `0 ∧ 1`, kept as
/// a stored `false` (SpGEMM keeps the structural pattern), (1,1) `true`.
pub fn or_and_stored_zero_squared() -> Csr<bool> {
    Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 1], vec![false, true]).unwrap()
}

/// y = A ⊗ x over or-and for [`or_and_stored_zero`], for each x: all
/// false gives all false; all true still gives `false` in row 0, whose
/// only entry is a stored `false`.
pub const OR_AND_STORED_ZERO_SPMV: [([bool; 2], [bool; 2]); 2] = [
    ([false, false], [false, false]),
    ([true, true], [false, true]),
];

/// Issue 20's APSP graph: 8 vertices, edges `1 2 -inf`, `2 1 1`, `1 3 1`
/// (1-based): the cycle 1 → 2 → 1 weighs −∞.
pub fn neg_inf_cycle_graph() -> Csr<f64> {
    Coo::try_new(
        8,
        8,
        vec![0, 1, 0],
        vec![1, 0, 2],
        vec![f64::NEG_INFINITY, 1.0, 1.0],
    )
    .unwrap()
    .to_csr()
}

/// Three vertices, edges 1 → 2 of −∞ and 2 → 3 of +∞: no cycle. An edge
/// of +∞ is no edge, so the path 1 → 3 is not ∞ − ∞ = NaN (which never
/// converged and was reported as a negative cycle).
pub fn inf_meets_neg_inf_graph() -> Csr<f64> {
    Csr::try_new(
        3,
        3,
        vec![0, 1, 2, 2],
        vec![1, 2],
        vec![f64::NEG_INFINITY, f64::INFINITY],
    )
    .unwrap()
}

/// `v` kept to the values `S` is defined on: its magnitude for a semiring
/// on values ≥ 0 (max-times), else `v` itself.
pub fn in_domain<S: spmx::Semiring>(v: S::Value) -> S::Value
where
    S::Value: Scalar,
{
    if S::NON_NEGATIVE {
        S::Value::from_f64(v.to_f64().abs())
    } else {
        v
    }
}

/// The real-world matrices: `$SPMX_REAL_DATA`, else
/// `../shared/bench-data/real` beside the repository (the folder `spmx
/// bench` reads). Tests that need it skip, saying why, when it has no
/// `MANIFEST.tsv`.
pub fn real_data_dir() -> PathBuf {
    std::env::var_os("SPMX_REAL_DATA").map_or_else(
        || repository().join("../shared/bench-data/real"),
        PathBuf::from,
    )
}

/// The repository's root: the folder of `Cargo.lock`, above the crate
/// whose tests include this module (the library's, or the cli's).
pub fn repository() -> PathBuf {
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .ancestors()
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(crate_dir)
        .to_path_buf()
}

/// Every matrix of the real set as (file name, A in CSR, f64), in name
/// order; empty, after saying that `test` skips, when the folder has no
/// `MANIFEST.tsv`.
pub fn real_matrices(test: &str) -> Vec<(String, spmx::Csr<f64>)> {
    let dir = real_data_dir();
    if !dir.join("MANIFEST.tsv").exists() {
        println!("skipping {test}: no MANIFEST.tsv in {}", dir.display());
        return Vec::new();
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".mtx.gz"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let read = spmx::io::read_mtx::<f64>(&path, &Default::default()).unwrap();
            (name, read.coo.to_csr())
        })
        .collect()
}

/// `f` run on a rayon pool of `threads` threads: results must not depend
/// on the thread count.
pub fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// A deterministic pseudo-random stream (splitmix64): the tests need no
/// statistics, only the same draws every run.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Draws from [`mix`]'s stream, seeded.
pub struct Rng(pub u64);

impl Rng {
    /// The next draw.
    pub fn next(&mut self) -> u64 {
        let z = mix(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z
    }

    /// A draw below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random graph of `n` vertices and about `n · degree` edges, through
/// `graph_from_coo` (so parallel edges are combined), with self-loops and
/// integer weights (sums exact, so any order of summing agrees), some 0,
/// −0 or +∞; each vertex's weights shifted by a potential (`w + p(u) −
/// p(v)`: every cycle keeps its weight ≥ 0) where `negative`.
pub fn random_graph(rng: &mut Rng, n: usize, degree: usize, negative: bool) -> Csr<f64> {
    let potential: Vec<f64> = (0..n).map(|_| rng.below(20) as f64).collect();
    let (mut rows, mut cols, mut weights) = (vec![], vec![], vec![]);
    for _ in 0..n * degree {
        let (u, v) = (rng.below(n), rng.below(n));
        let w = match rng.below(10) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::INFINITY,
            _ => rng.below(50) as f64,
        };
        let shift = if negative && w.is_finite() {
            potential[u] - potential[v]
        } else {
            0.0
        };
        rows.push(u as u32);
        cols.push(v as u32);
        weights.push(w + shift);
    }
    let coo = Coo::try_new(n, n, rows, cols, weights).unwrap();
    spmx::app::apsp::graph_from_coo(&coo).unwrap().edges
}

/// `a`'s pattern stored both ways (an undirected graph), self loops kept.
pub fn both_ways(a: &Csr<f64>) -> Csr<f64> {
    let mut coo = spmx::format::Coo::new(a.nrows(), a.ncols()).unwrap();
    for i in 0..a.nrows() {
        for &j in a.row(i).0 {
            coo.push(i, j as usize, 1.0).unwrap();
            coo.push(j as usize, i, 1.0).unwrap();
        }
    }
    coo.to_csr()
}
