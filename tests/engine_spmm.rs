//! SpMM, C = A ⊗ B (A CSR, B and C dense), on {serial, cpu} × every
//! semiring, against a dense reference computed with the semiring by a plain
//! triple loop, and cpu against serial.
//!
//! - Small random cases (proptest, small-integer values so plus-times is
//!   exact), `k ∈ {0, 1, 3, 32, 33, 70}`: both engines equal the reference
//!   bit for bit.
//! - Large generated cases (above the cpu threshold): cpu gives the serial
//!   bits, on 1 and 3 threads, for every semiring.
//! - Odd shapes and the shape-mismatch panic.

mod common;

use common::{TestScalar, arb_csr_shaped, reference};
use proptest::prelude::*;
use spmx::engine::cpu::spmm::SERIAL_BELOW_WORK;
use spmx::format::{Csr, Dense};
use spmx::ops;
use spmx::{
    Engine, MaxMin, MaxPlus, MaxTimes, MinMax, MinPlus, OrAnd, PlusTimes, Scalar, Semiring,
};

/// A value squeezed into the small integers `-8..=8` (kept if it is one
/// already, so `0.0` and `-0.0` survive): sums of them are exact.
fn small<T: Scalar>(v: T) -> T {
    let f = v.to_f64();
    if f.abs() <= 8.0 && f.fract() == 0.0 {
        v
    } else {
        T::from_f64((f.to_bits() % 17) as f64 - 8.0)
    }
}

#[track_caller]
fn assert_same_bits<T: TestScalar>(got: &Dense<T>, want: &Dense<T>, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let bits = |d: &Dense<T>| d.as_slice().iter().map(|&v| v.bits()).collect::<Vec<_>>();
    assert_eq!(bits(got), bits(want), "{what}: value bits");
}

/// A small random case: A (m×n) and B (n×k), values squeezed to small
/// integers and passed through `map`.
fn arb_case<T: TestScalar>(map: fn(T) -> T) -> impl Strategy<Value = (Csr<T>, Dense<T>)> {
    let k = prop::sample::select(vec![0usize, 1, 3, 32, 33, 70]);
    (0..=20usize, 0..=20usize, k).prop_flat_map(move |(m, n, k)| {
        (
            arb_csr_shaped::<T>(m, n),
            prop::collection::vec(T::arb(), n * k),
        )
            .prop_map(move |(a, b)| {
                let squeeze = |v| map(small(v));
                let b = Dense::try_new(n, k, b.into_iter().map(squeeze).collect()).unwrap();
                (a.map(squeeze), b)
            })
    })
}

fn check_against_reference<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>)
where
    S::Value: TestScalar,
{
    let want = reference::spmm::<S>(a, b);
    for engine in [Engine::Serial, Engine::Cpu] {
        let got = ops::spmm::<S>(a, b, engine).unwrap();
        assert_same_bits(&got, &want, &format!("{} on {engine}", S::NAME));
        let got = a.spmm_with::<S>(b, engine).unwrap();
        assert_same_bits(&got, &want, &format!("{} spmm_with on {engine}", S::NAME));
    }
}

macro_rules! small_cases {
    ($($name:ident: $s:ty, $map:expr;)*) => {$(
        mod $name {
            use super::*;
            type S = $s;
            proptest! {
                #[test]
                fn both_engines_equal_the_dense_reference(
                    (a, b) in arb_case::<<S as Semiring>::Value>($map)
                ) {
                    check_against_reference::<S>(&a, &b);
                }
            }
        }
    )*};
}

/// `small_cases!` for every instance of [`spmx::for_each_semiring!`].
macro_rules! every_semiring {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        small_cases! { $($($test: $S, common::in_domain::<$S>;)+)* }
    };
}
spmx::for_each_semiring!(every_semiring! {});

/// Issue 20: a stored `false` is false in or-and, on both engines: B's
/// columns are the x's of the SpMV example.
#[test]
fn or_and_stored_zero_is_false_spmm() {
    let a = common::or_and_stored_zero();
    let [(x0, y0), (x1, y1)] = common::OR_AND_STORED_ZERO_SPMV;
    let b = Dense::try_new(2, 2, vec![x0[0], x1[0], x0[1], x1[1]]).unwrap();
    let want = Dense::try_new(2, 2, vec![y0[0], y1[0], y0[1], y1[1]]).unwrap();
    assert_same_bits(&reference::spmm::<OrAnd>(&a, &b), &want, "reference");
    check_against_reference::<OrAnd>(&a, &b);
}

// ---- large inputs: the cpu engine's parallel path ----

fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// A power-law A of 3000 rows (long and empty rows), values in (0, 1], and
/// a B of `k` columns, mapped to `T`.
fn large<T: Scalar>(k: usize, map: impl Fn(f64) -> T) -> (Csr<T>, Dense<T>) {
    let a = spmx::generate::power_law(3000, 2000, 40.0, 2.2, 3).unwrap();
    let b = (0..a.ncols() * k)
        .map(|e| map(((e * 7919) % 1000) as f64 / 997.0 - 0.25))
        .collect();
    (a.map(&map), Dense::try_new(a.ncols(), k, b).unwrap())
}

/// cpu on 1 and 3 threads gives the serial bits, for each k.
fn check_large<S: Semiring>(map: impl Fn(f64) -> S::Value)
where
    S::Value: TestScalar,
{
    for k in [1, 3, 33, 70] {
        let (a, b) = large(k, &map);
        assert!(
            a.nnz() >= SERIAL_BELOW_WORK,
            "{} entries stay serial",
            a.nnz()
        );
        let serial = ops::spmm::<S>(&a, &b, Engine::Serial).unwrap();
        for threads in [1, 3] {
            let cpu = on_threads(threads, || ops::spmm::<S>(&a, &b, Engine::Cpu).unwrap());
            let what = format!("{} k = {k} on {threads} threads", S::NAME);
            assert_same_bits(&cpu, &serial, &what);
        }
        // Column t of C is A ⊗ (column t of B): SpMV's answer, bit for bit.
        for t in [0, k - 1] {
            let x: Vec<_> = (0..b.nrows()).map(|j| b.get(j, t)).collect();
            let y = ops::spmv::<S>(&a, &x, Engine::Serial).unwrap();
            let col: Vec<_> = (0..a.nrows()).map(|i| serial.get(i, t).bits()).collect();
            assert_eq!(col, y.iter().map(|v| v.bits()).collect::<Vec<_>>());
        }
    }
}

#[test]
fn large_plus_times() {
    check_large::<PlusTimes<f64>>(|v| v);
    check_large::<PlusTimes<f32>>(|v| v as f32);
}

#[test]
fn large_min_plus_max_plus_or_and() {
    check_large::<MinPlus<f64>>(|v| v);
    check_large::<MaxPlus<f64>>(|v| v);
    check_large::<OrAnd>(|v| v > 0.5);
}

#[test]
fn large_max_times_min_max_max_min() {
    check_large::<MaxTimes<f64>>(|v| v.abs());
    check_large::<MinMax<f32>>(|v| v as f32);
    check_large::<MaxMin<f64>>(|v| v);
}

// ---- odd shapes and broken contracts ----

#[test]
fn odd_shapes() {
    let dense_row = Csr::try_new(1, 50, vec![0, 50], (0..50).collect(), vec![1.0; 50]).unwrap();
    let empty_rows = Csr::try_new(4, 3, vec![0, 0, 2, 2, 2], vec![0, 2], vec![2.0, -1.0]).unwrap();
    let cases = [
        Csr::<f64>::empty(0, 0),
        Csr::empty(0, 5),
        Csr::empty(5, 0),
        Csr::empty(3, 4),
        dense_row,
        empty_rows,
    ];
    for a in &cases {
        for k in [0, 1, 17, 33] {
            let b: Vec<f64> = (0..a.ncols() * k).map(|e| (e % 5) as f64 - 2.0).collect();
            let b = Dense::try_new(a.ncols(), k, b).unwrap();
            check_against_reference::<PlusTimes<f64>>(a, &b);
            check_against_reference::<MinPlus<f64>>(a, &b);
        }
    }
}

#[test]
fn default_semiring_method() {
    // [1 0 2]   [1 2]   [11 14]
    // [0 3 0] · [3 4] = [ 9 12]
    //           [5 6]
    let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]).unwrap();
    let b = Dense::try_new(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!(a.spmm(&b).unwrap().as_slice(), &[11.0, 14.0, 9.0, 12.0]);
}

#[test]
fn a_shape_mismatch_is_an_error_naming_both_shapes() {
    let a = Csr::<f64>::empty(2, 3);
    let b = Dense::filled(4, 5, 0.0).unwrap();
    for engine in [Engine::Serial, Engine::Cpu] {
        let e = a.spmm_with::<PlusTimes<f64>>(&b, engine).unwrap_err();
        assert_eq!(
            e.to_string(),
            "spmm: A.ncols() != B.nrows() (2×3 times 4×5)"
        );
    }
}
