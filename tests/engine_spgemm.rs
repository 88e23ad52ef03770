//! SpGEMM on every engine against a reference, for every semiring: random
//! shapes (0×0, empty rows, a dense row, rectangular), generated inputs big
//! enough for the cpu engine to go parallel, both accumulators (narrow and
//! wide B), C formed in one pass and in two (chosen by C's size; the forced
//! ways are compared in the crate's unit tests), and thread-count
//! independence. The cpu engine's `CpuSpgemmPlan` is checked against the
//! reference with new values.
//!
//! The reference (`common::reference::spgemm`) forms each row of C in a
//! `BTreeMap`, adding products in the order Gustavson does (A's row left to
//! right): for any one entry of C the products therefore arrive in
//! increasing k, so even floating-point plus-times must match bit for bit.

mod common;

use common::{TestScalar, arb_csr_shaped, assert_identical, in_pool, reference};
use proptest::prelude::*;
use spmx::engine::cpu::spgemm::CpuSpgemmPlan;
use spmx::engine::shared::accumulator::DENSE_ACCUMULATOR_MAX_COLS;
use spmx::engine::shared::spgemm::Passes;
use spmx::engine::{Engine, cpu, serial};
use spmx::generate;
use spmx::{Csr, MaxPlus, MinPlus, OrAnd, PlusTimes, Scalar, Semiring};

/// Every engine here agrees with the reference, bit for bit.
fn check_all_engines<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>)
where
    S::Value: TestScalar,
{
    let want = reference::spgemm::<S>(a, b);
    assert_identical(&serial::spgemm::<S>(a, b), &want);
    assert_identical(&cpu::spgemm::<S>(a, b), &want);
    for engine in [Engine::Auto, Engine::Serial, Engine::Cpu] {
        assert_identical(&a.spgemm_with::<S>(b, engine).unwrap(), &want);
    }
}

/// A pair (m×k, k×n) with random shapes, values mapped through `f`.
fn arb_pair<T: TestScalar>(f: fn(T) -> T) -> impl Strategy<Value = (Csr<T>, Csr<T>)> {
    (0usize..20, 0usize..20, 0usize..20).prop_flat_map(move |(m, k, n)| {
        (arb_csr_shaped::<T>(m, k), arb_csr_shaped::<T>(k, n))
            .prop_map(move |(a, b)| (a.map(f), b.map(f)))
    })
}

fn same<T>(v: T) -> T {
    v
}

/// `m` with its values replaced by `values` (same pattern).
fn with_values<T: Scalar>(m: &Csr<T>, values: &[T]) -> Csr<T> {
    let (nrows, ncols) = m.shape();
    Csr::try_new(
        nrows,
        ncols,
        m.row_ptr().to_vec(),
        m.col_idx().to_vec(),
        values.to_vec(),
    )
    .unwrap()
}

/// A plan for A·B gives the reference product, then the reference for new
/// values of both, then for the first values again (its workspaces
/// reused), bit for bit.
fn check_plan<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, a2: &[S::Value], b2: &[S::Value])
where
    S::Value: TestScalar,
{
    let mut plan = CpuSpgemmPlan::<S>::new(a, b);
    assert_identical(plan.product(), &reference::spgemm::<S>(a, b));
    let want = reference::spgemm::<S>(&with_values(a, a2), &with_values(b, b2));
    assert_identical(plan.numeric(a2, b2).unwrap(), &want);
    assert_identical(plan.product(), &want);
    let want = reference::spgemm::<S>(a, b);
    assert_identical(plan.numeric(a.values(), b.values()).unwrap(), &want);
}

/// A pair as [`arb_pair`] makes, and new values for each.
fn arb_plan_case<T: TestScalar>(
    f: fn(T) -> T,
) -> impl Strategy<Value = (Csr<T>, Csr<T>, Vec<T>, Vec<T>)> {
    arb_pair::<T>(f).prop_flat_map(move |(a, b)| {
        let values = |n| {
            prop::collection::vec(T::arb(), n).prop_map(move |v| v.into_iter().map(f).collect())
        };
        (
            Just(a.clone()),
            Just(b.clone()),
            values(a.nnz()),
            values(b.nnz()),
        )
    })
}

/// New values for `m`'s pattern, from `seed`: `f` of small integers and
/// fractions with long mantissas, so that a sum in another order would show.
fn new_values<T: Scalar>(m: &Csr<T>, seed: u64, f: fn(T) -> T) -> Vec<T> {
    (0..m.nnz() as u64)
        .map(|k| {
            let x = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed) >> 40;
            f(T::from_f64((x % 17) as f64 / 7.0 - 1.1))
        })
        .collect()
}

macro_rules! semiring_tests {
    ($name:ident, $S:ty, $T:ty, $f:expr) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(96))]
                #[test]
                fn random_shapes_match_reference((a, b) in arb_pair::<$T>($f)) {
                    check_all_engines::<$S>(&a, &b);
                }

                #[test]
                fn plan_matches_fresh_products((a, b, a2, b2) in arb_plan_case::<$T>($f)) {
                    check_plan::<$S>(&a, &b, &a2, &b2);
                }
            }

            /// Big enough for the cpu engine to split rows across threads,
            /// with power-law rows so chunks are uneven.
            #[test]
            fn generated_inputs_match_and_ignore_thread_count() {
                let a = generate::power_law(3000, 2000, 12.0, 2.2, 7).unwrap();
                let b = generate::uniform(2000, 2500, 0, 30, 8).unwrap();
                let (a, b) = (
                    a.map(|v| ($f)(<$T>::from_f64(v))),
                    b.map(|v| ($f)(<$T>::from_f64(v))),
                );
                check_all_engines::<$S>(&a, &b);
                let one = in_pool(1, || cpu::spgemm::<$S>(&a, &b));
                let three = in_pool(3, || cpu::spgemm::<$S>(&a, &b));
                assert_identical(&one, &three);
                let (a2, b2) = (new_values(&a, 1, $f), new_values(&b, 2, $f));
                for threads in [1, 3] {
                    in_pool(threads, || check_plan::<$S>(&a, &b, &a2, &b2));
                }
            }
        }
    };
}

/// `semiring_tests!` for every instance of [`spmx::for_each_semiring!`].
macro_rules! every_semiring {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $($( semiring_tests!($test, $S, $t, common::in_domain::<$S>); )+)*
    };
}
spmx::for_each_semiring!(every_semiring! {});

/// Issue 20: a stored `false` is false in or-and (`0 ∧ 1 = 0`), and the
/// false entry it makes is kept, on every engine here.
#[test]
fn or_and_stored_zero_is_false_spgemm() {
    let a = common::or_and_stored_zero();
    let want = common::or_and_stored_zero_squared();
    assert_identical(&reference::spgemm::<OrAnd>(&a, &a), &want);
    check_all_engines::<OrAnd>(&a, &a);
}

/// B wider than the dense accumulator's limit: the hash accumulator runs.
#[test]
fn wide_b_uses_hash_accumulator_and_matches_reference() {
    let wide = DENSE_ACCUMULATOR_MAX_COLS + 1000;
    let a = generate::uniform(400, 300, 0, 40, 3).unwrap();
    let b = generate::uniform(300, wide, 0, 60, 4).unwrap();
    check_all_engines::<PlusTimes<f64>>(&a, &b);
    check_all_engines::<MinPlus<f64>>(&a, &b);
}

/// B wider than the dense accumulator's limit, with rows of A long enough
/// (products ≥ a sixteenth of B's columns) for the wide accumulator to
/// take them dense.
#[test]
fn wide_b_long_rows_go_dense_and_match_reference() {
    let wide = DENSE_ACCUMULATOR_MAX_COLS + 1000;
    let a = generate::uniform(50, 300, 0, 300, 5).unwrap();
    let b = generate::uniform(300, wide, 60, 120, 6).unwrap();
    check_all_engines::<PlusTimes<f64>>(&a, &b);
    check_all_engines::<MinPlus<f64>>(&a, &b);
    let (a2, b2) = (new_values(&a, 6, same), new_values(&b, 7, same));
    check_plan::<PlusTimes<f64>>(&a, &b, &a2, &b2);
}

/// B wider than the dense accumulator's limit, a band: rows of A that use
/// neighbouring rows of B (their columns within a few of each other) go to
/// the wide accumulator's dense one, rows that also use a far row of B to
/// its hash table, switching row by row within each thread's rows.
#[test]
fn wide_b_local_and_scattered_rows_match_reference() {
    let n = DENSE_ACCUMULATOR_MAX_COLS + 1000;
    let mut b = spmx::Coo::new(n, n).unwrap();
    for i in 0..n {
        for j in i.saturating_sub(2)..(i + 3).min(n) {
            b.push(i, j, 1.0 + ((i * 7 + j) % 13) as f64 * 0.25)
                .unwrap();
        }
    }
    let rows = 3000;
    let mut a = spmx::Coo::new(rows, n).unwrap();
    for r in 0..rows {
        let k = r * 80;
        for d in 0..(r % 4 + 2) {
            a.push(r, k + d, 0.5 - d as f64).unwrap();
        }
        if r % 5 == 0 {
            a.push(r, (k + n / 2) % n, -1.5).unwrap();
        }
    }
    let (a, b) = (a.to_csr(), b.to_csr());
    check_all_engines::<PlusTimes<f64>>(&a, &b);
    check_all_engines::<MinPlus<f64>>(&a, &b);
    let (a2, b2) = (new_values(&a, 8, same), new_values(&b, 9, same));
    check_plan::<PlusTimes<f64>>(&a, &b, &a2, &b2);
}

/// Products too many for their bound on C to decide: a small C (rows of
/// B repeating their columns) is formed in one pass, a large one in two;
/// either way as the reference forms it.
#[test]
fn products_choose_their_passes_by_the_estimated_size_of_c() {
    use spmx::engine::shared::accumulator::DenseAccumulator;
    let a = generate::uniform(1000, 500, 80, 120, 10).unwrap();
    let b = generate::uniform(500, 500, 80, 120, 11).unwrap();
    let products =
        |a: &Csr<f64>, b: &Csr<f64>| a.col_idx().iter().map(|&k| b.row_len(k as usize)).sum();
    let mut acc = DenseAccumulator::new(b.ncols());
    assert_eq!(
        Passes::for_product(&a, &b, products(&a, &b), &mut acc),
        Passes::One
    );
    check_all_engines::<PlusTimes<f64>>(&a, &b);
    let a = generate::uniform(4000, 100_000, 25, 35, 12).unwrap();
    let b = generate::uniform(100_000, 100_000, 25, 35, 13).unwrap();
    let mut acc = DenseAccumulator::new(b.ncols());
    assert_eq!(
        Passes::for_product(&a, &b, products(&a, &b), &mut acc),
        Passes::Two
    );
    check_all_engines::<PlusTimes<f64>>(&a, &b);
}

/// One row of A touching every row of B (an "arrow" row).
#[test]
fn one_dense_row_of_a() {
    let n = 3000;
    let mut coo = spmx::Coo::new(n, n).unwrap();
    for j in 0..n {
        coo.push(0, j, 1.0 + j as f64).unwrap();
        coo.push(j, 0, 2.0).unwrap();
    }
    let a = coo.to_csr();
    check_all_engines::<PlusTimes<f64>>(&a, &a);
    check_all_engines::<MaxPlus<f64>>(&a, &a);
    let a2 = new_values(&a, 3, same);
    check_plan::<PlusTimes<f64>>(&a, &a, &a2, &a2);
}

/// Wide B (the hash accumulator in the fresh product) through a plan.
#[test]
fn plan_with_wide_b_matches_fresh_products() {
    let wide = DENSE_ACCUMULATOR_MAX_COLS + 1000;
    let a = generate::uniform(400, 300, 0, 40, 3).unwrap();
    let b = generate::uniform(300, wide, 0, 60, 4).unwrap();
    let (a2, b2) = (new_values(&a, 4, same), new_values(&b, 5, same));
    check_plan::<PlusTimes<f64>>(&a, &b, &a2, &b2);
}

#[test]
fn plan_rejects_values_of_the_wrong_length_naming_the_operand() {
    let a = generate::uniform(30, 20, 1, 4, 1).unwrap();
    let b = generate::uniform(20, 10, 1, 4, 2).unwrap();
    let mut plan = CpuSpgemmPlan::<PlusTimes<f64>>::new(&a, &b);
    let before = plan.product().clone();
    let short = vec![1.0; a.nnz() - 1];
    let err = plan.numeric(&short, b.values()).unwrap_err();
    let want = format!(
        "invalid CSR matrix: SpgemmPlan::numeric: {} values for A, whose pattern has {} entries",
        a.nnz() - 1,
        a.nnz()
    );
    assert!(matches!(err, spmx::Error::Invalid { format: "CSR", .. }));
    assert_eq!(err.to_string(), want);
    let long = vec![1.0; b.nnz() + 2];
    let err = plan.numeric(a.values(), &long).unwrap_err();
    assert!(err.to_string().contains(&format!(
        "{} values for B, whose pattern has {} entries",
        b.nnz() + 2,
        b.nnz()
    )));
    assert_identical(plan.product(), &before);
}

#[test]
fn mismatched_shapes_are_an_error_naming_both() {
    let a = Csr::<f64>::empty(2, 3);
    let b = Csr::<f64>::empty(4, 2);
    let e = a.spgemm(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "spgemm: A.ncols() != B.nrows() (2×3 times 4×2)"
    );
}

#[test]
fn unavailable_engines_say_why() {
    let a = Csr::<f64>::empty(2, 2);
    // Without feature gpu or a GPU, cuda is missing and says so; with one,
    // it multiplies.
    match a.spgemm_with::<PlusTimes<f64>>(&a, Engine::Cuda) {
        Ok(c) => assert_eq!(
            c,
            a.spgemm_with::<PlusTimes<f64>>(&a, Engine::Serial).unwrap()
        ),
        Err(err) => assert!(
            err.to_string().contains("cuda engine is not available"),
            "{err}"
        ),
    }
    // Without feature mpi there is no mpi engine; with it, the engine takes
    // matrices split across ranks, not whole ones: either way an error
    // that says what to do.
    let err = a
        .spgemm_with::<PlusTimes<f64>>(&a, Engine::Mpi)
        .unwrap_err();
    let advice = if cfg!(feature = "mpi") {
        "mpirun"
    } else {
        "--features mpi"
    };
    assert!(
        err.to_string().contains("mpi engine is not available") && err.to_string().contains(advice),
        "{err}"
    );
}
