//! Element-wise addition and transpose on every engine against the serial
//! engine and a plain reference, on random shapes and on inputs big enough
//! for the cpu engine to split work, for 1 and 3 threads.

mod common;

use common::{TestScalar, arb_csr_shaped, assert_identical, in_pool, reference};
use proptest::prelude::*;
use spmx::engine::Engine;
use spmx::{Csr, MinPlus, OrAnd, PlusTimes, Semiring, generate, ops};

fn check_add<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>)
where
    S::Value: TestScalar,
{
    let want = reference::ewise_add::<S>(a, b);
    for engine in [Engine::Serial, Engine::Cpu, Engine::Auto] {
        assert_identical(&ops::ewise_add::<S>(a, b, engine).unwrap(), &want);
    }
}

fn check_transpose<T: TestScalar>(a: &Csr<T>) {
    let want = a.to_coo();
    let (_, _, rows, cols, vals) = want.into_parts();
    let swapped = spmx::Coo::try_new(a.ncols(), a.nrows(), cols, rows, vals)
        .unwrap()
        .to_csr();
    for engine in [Engine::Serial, Engine::Cpu] {
        assert_identical(&ops::transpose(a, engine).unwrap(), &swapped);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn add_matches_reference((a, b) in (0usize..20, 0usize..20).prop_flat_map(|(m, n)| (arb_csr_shaped::<f64>(m, n), arb_csr_shaped::<f64>(m, n)))) {
        check_add::<PlusTimes<f64>>(&a, &b);
        check_add::<MinPlus<f64>>(&a, &b);
        let (pa, pb) = (a.map(|v| v != 0.0), b.map(|v| v != 0.0));
        check_add::<OrAnd>(&pa, &pb);
    }

    #[test]
    fn transpose_matches_reference(a in common::arb_csr::<f64>(24, 24)) {
        check_transpose(&a);
    }
}

#[test]
fn big_inputs_split_across_threads_give_serial_bits() {
    let a = generate::power_law(20_000, 3_000, 20.0, 2.1, 1).unwrap();
    let b = generate::uniform(20_000, 3_000, 0, 12, 2).unwrap();
    check_add::<PlusTimes<f64>>(&a, &b);
    check_transpose(&a);
    let one = in_pool(1, || ops::transpose(&a, Engine::Cpu).unwrap());
    let three = in_pool(3, || ops::transpose(&a, Engine::Cpu).unwrap());
    assert_identical(&one, &three);
    let one = in_pool(1, || {
        ops::ewise_add::<PlusTimes<f64>>(&a, &b, Engine::Cpu).unwrap()
    });
    let three = in_pool(3, || {
        ops::ewise_add::<PlusTimes<f64>>(&a, &b, Engine::Cpu).unwrap()
    });
    assert_identical(&one, &three);
}

#[test]
fn add_of_different_shapes_is_an_error_naming_both() {
    for engine in [Engine::Serial, Engine::Cpu] {
        let e = ops::ewise_add::<PlusTimes<f64>>(&Csr::empty(2, 3), &Csr::empty(3, 2), engine)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "ewise_add: A.shape() != B.shape() (2×3 and 3×2)"
        );
    }
}
