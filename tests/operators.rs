//! The operators of `spmx::ops::operators` against the functions they stand
//! for: `&a * &b` (SpGEMM), `&a * &x` (SpMV, slice and `Vec`), `&a * &b`
//! with B dense (SpMM) and `&a + &b` (element-wise add), bit for bit, for
//! every default semiring (plus-times on `f64` and `f32`, or-and on `bool`);
//! and the panic of each on shapes that do not fit, whose message is the
//! text of the error the function returns.
//!
//! Values are small integers (and ±0), so that every summation order gives
//! the same bits and the comparison holds on whichever engine `Auto`
//! picks here.

mod common;

use common::{TestScalar, arb_csr_shaped};
use proptest::prelude::*;
use spmx::format::{Csr, Dense};
use spmx::{DefaultSemiring, Engine, ops};

/// `v` squeezed to a small integer of its type (its sign kept for zeros).
fn small<T: TestScalar>(v: T) -> T {
    let f = v.to_f64();
    let f = if f == 0.0 { f } else { (f % 9.0).trunc() };
    T::from_f64(if f.is_nan() { 1.0 } else { f })
}

/// A of `m × k` and B of `k × n`, small values.
fn arb_pair<T: TestScalar>() -> impl Strategy<Value = (Csr<T>, Csr<T>)> {
    (0..=12usize, 0..=12usize, 0..=12usize).prop_flat_map(|(m, k, n)| {
        (arb_csr_shaped::<T>(m, k), arb_csr_shaped::<T>(k, n))
            .prop_map(|(a, b)| (a.map(small), b.map(small)))
    })
}

/// A and B of one shape, small values.
fn arb_same_shape<T: TestScalar>() -> impl Strategy<Value = (Csr<T>, Csr<T>)> {
    (0..=12usize, 0..=12usize).prop_flat_map(|(m, n)| {
        (arb_csr_shaped::<T>(m, n), arb_csr_shaped::<T>(m, n))
            .prop_map(|(a, b)| (a.map(small), b.map(small)))
    })
}

/// A of `m × k`, a vector of `k` and a dense `k × n`, small values.
fn arb_dense_operands<T: TestScalar>() -> impl Strategy<Value = (Csr<T>, Vec<T>, Dense<T>)> {
    (0..=12usize, 0..=12usize, 0..=6usize).prop_flat_map(|(m, k, n)| {
        (
            arb_csr_shaped::<T>(m, k),
            prop::collection::vec(T::arb(), k),
            prop::collection::vec(T::arb(), k * n),
        )
            .prop_map(move |(a, x, b)| {
                let x = x.into_iter().map(small).collect();
                let b = Dense::try_new(k, n, b.into_iter().map(small).collect()).unwrap();
                (a.map(small), x, b)
            })
    })
}

fn bits<T: TestScalar>(v: &[T]) -> Vec<u64> {
    v.iter().map(|&x| x.bits()).collect()
}

/// Every operator equals its function, bit for bit, for the value type `T`.
fn check_products<T: TestScalar + DefaultSemiring>(a: &Csr<T>, b: &Csr<T>) {
    let want = ops::spgemm::<T::Semiring>(a, b, Engine::Auto).unwrap();
    common::assert_identical(&(a * b), &want);
    common::assert_identical(&a.spgemm(b).unwrap(), &want);
}

fn check_sum<T: TestScalar + DefaultSemiring>(a: &Csr<T>, b: &Csr<T>) {
    let want = ops::ewise_add::<T::Semiring>(a, b, Engine::Auto).unwrap();
    common::assert_identical(&(a + b), &want);
}

fn check_dense<T: TestScalar + DefaultSemiring>(a: &Csr<T>, x: &Vec<T>, b: &Dense<T>) {
    let y = ops::spmv::<T::Semiring>(a, x, Engine::Auto).unwrap();
    assert_eq!(bits(&(a * x)), bits(&y), "&a * &Vec");
    assert_eq!(bits(&(a * x.as_slice())), bits(&y), "&a * &[T]");
    assert_eq!(bits(&a.spmv(x).unwrap()), bits(&y), "a.spmv");
    let c = ops::spmm::<T::Semiring>(a, b, Engine::Auto).unwrap();
    let got = a * b;
    assert_eq!(got.shape(), c.shape(), "SpMM shape");
    assert_eq!(bits(got.as_slice()), bits(c.as_slice()), "&a * &Dense");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn spgemm_operator_is_spgemm_f64((a, b) in arb_pair::<f64>()) { check_products(&a, &b); }
    #[test]
    fn spgemm_operator_is_spgemm_f32((a, b) in arb_pair::<f32>()) { check_products(&a, &b); }
    #[test]
    fn spgemm_operator_is_spgemm_bool((a, b) in arb_pair::<bool>()) { check_products(&a, &b); }

    #[test]
    fn add_operator_is_ewise_add_f64((a, b) in arb_same_shape::<f64>()) { check_sum(&a, &b); }
    #[test]
    fn add_operator_is_ewise_add_f32((a, b) in arb_same_shape::<f32>()) { check_sum(&a, &b); }
    #[test]
    fn add_operator_is_ewise_add_bool((a, b) in arb_same_shape::<bool>()) { check_sum(&a, &b); }

    #[test]
    fn dense_operators_are_spmv_and_spmm_f64((a, x, b) in arb_dense_operands::<f64>()) {
        check_dense(&a, &x, &b);
    }
    #[test]
    fn dense_operators_are_spmv_and_spmm_f32((a, x, b) in arb_dense_operands::<f32>()) {
        check_dense(&a, &x, &b);
    }
    #[test]
    fn dense_operators_are_spmv_and_spmm_bool((a, x, b) in arb_dense_operands::<bool>()) {
        check_dense(&a, &x, &b);
    }
}

#[test]
fn operators_chain() {
    // A = [[1, 2], [0, 3]]: (A + A)·A·x for x = (1, 1).
    let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0]).unwrap();
    let y = &(&(&a + &a) * &a) * &vec![1.0, 1.0];
    assert_eq!(y, vec![18.0, 18.0]);
}

/// The message of the error that `result` holds.
fn message<R>(result: spmx::Result<R>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn each_panic_message_is_the_functions_error() {
    let (a, b) = (Csr::<f64>::empty(2, 3), Csr::<f64>::empty(4, 2));
    let dense = Dense::filled(4, 5, 0.0).unwrap();
    let caught = |f: &dyn Fn()| -> String {
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        payload
            .downcast_ref::<String>()
            .expect("a formatted message")
            .clone()
    };
    let auto = Engine::Auto;
    assert_eq!(
        caught(&|| drop(&a * &b)),
        message(ops::spgemm::<<f64 as DefaultSemiring>::Semiring>(
            &a, &b, auto
        ))
    );
    assert_eq!(caught(&|| drop(&a * &dense)), message(a.spmm(&dense)));
    assert_eq!(
        caught(&|| drop(&a * &vec![1.0; 4])),
        message(a.spmv(&[1.0; 4]))
    );
    assert_eq!(
        caught(&|| drop(&a * &[1.0; 2][..])),
        message(a.spmv(&[1.0; 2]))
    );
    assert_eq!(
        caught(&|| drop(&a + &b)),
        message(ops::ewise_add::<<f64 as DefaultSemiring>::Semiring>(
            &a, &b, auto
        ))
    );
}

#[test]
#[should_panic(expected = "spgemm: A.ncols() != B.nrows() (2×3 times 4×2)")]
fn spgemm_operator_panics_naming_both_shapes() {
    let _ = &Csr::<f64>::empty(2, 3) * &Csr::<f64>::empty(4, 2);
}

#[test]
#[should_panic(expected = "spmv: A.ncols() != x.len() (2×3 times a vector of 4)")]
fn spmv_operator_panics_naming_both_shapes() {
    let _ = &Csr::<f64>::empty(2, 3) * &vec![1.0; 4];
}

#[test]
#[should_panic(expected = "spmv: A.ncols() != x.len() (2×3 times a vector of 2)")]
fn spmv_operator_on_a_slice_panics_naming_both_shapes() {
    let _ = &Csr::<f32>::empty(2, 3) * &[1.0f32; 2][..];
}

#[test]
#[should_panic(expected = "spmm: A.ncols() != B.nrows() (2×3 times 4×5)")]
fn spmm_operator_panics_naming_both_shapes() {
    let _ = &Csr::<f64>::empty(2, 3) * &Dense::filled(4, 5, 0.0).unwrap();
}

#[test]
#[should_panic(expected = "ewise_add: A.shape() != B.shape() (2×3 and 3×2)")]
fn add_operator_panics_naming_both_shapes() {
    let _ = &Csr::<bool>::empty(2, 3) + &Csr::<bool>::empty(3, 2);
}

#[test]
fn a_panic_points_at_the_callers_line() {
    use std::sync::{Arc, Mutex};
    // The hook is global: it records the panic of the thread named here
    // and hands every other one to the hook it replaced.
    let seen = Arc::new(Mutex::new(None));
    let record = Arc::clone(&seen);
    let previous = Arc::new(std::panic::take_hook());
    let forward = Arc::clone(&previous);
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("operator-panic") {
            *record.lock().unwrap() = info.location().map(|l| (l.file().to_owned(), l.line()));
        } else {
            forward(info);
        }
    }));
    let line = line!() + 3;
    let worker = std::thread::Builder::new().name("operator-panic".into());
    let joined = worker
        .spawn(|| drop(&Csr::<f64>::empty(2, 3) * &Csr::<f64>::empty(2, 3)))
        .unwrap()
        .join();
    drop(std::panic::take_hook());
    std::panic::set_hook(Box::new(move |info| previous(info)));
    assert!(joined.is_err(), "the product panicked");
    let (file, at) = seen.lock().unwrap().clone().expect("a location");
    assert_eq!((file.as_str(), at), (file!(), line));
}
