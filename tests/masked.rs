//! Masked products on every engine against a plain reference, for every
//! semiring: `C⟨M⟩ = A ⊗ B` with a structural mask and its complement,
//! `C⟨M⟩ = T` merging and replacing, `y⟨m⟩ = A ⊗ x`; random shapes (0×0,
//! empty rows, rectangular) and generated inputs big enough for the cpu
//! engine to split rows across threads, whose bits do not depend on the
//! thread count.
//!
//! The reference is the unmasked reference product, then the entries the
//! mask rules out dropped: a masked product must have the unmasked bits
//! where the mask allows.

mod common;

use common::{TestScalar, arb_csr_shaped, assert_identical, in_pool, reference};
use proptest::prelude::*;
use spmx::ops::{self, Mask, VectorMask};
use spmx::{Csr, Engine, Error, Scalar, Semiring, generate};

const ENGINES: [Engine; 3] = [Engine::Serial, Engine::Cpu, Engine::Auto];

/// GraphBLAS's `C⟨M⟩ = T` written out entry by entry over a dense grid.
fn assign_reference<T: Scalar, M: Scalar>(
    c: &Csr<T>,
    t: &Csr<T>,
    mask: &Csr<M>,
    complement: bool,
    replace: bool,
) -> Csr<T> {
    let mut row_ptr = vec![0];
    let (mut cols, mut vals) = (vec![], vec![]);
    for i in 0..c.nrows() {
        for j in 0..c.ncols() {
            let allowed = mask.get(i, j).is_some() != complement;
            let v = if allowed {
                t.get(i, j)
            } else if replace {
                None
            } else {
                c.get(i, j)
            };
            if let Some(v) = v {
                cols.push(j as u32);
                vals.push(v);
            }
        }
        row_ptr.push(cols.len());
    }
    Csr::try_new(c.nrows(), c.ncols(), row_ptr, cols, vals).unwrap()
}

fn check_spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, mask: &Csr<bool>)
where
    S::Value: TestScalar,
{
    let full = reference::spgemm::<S>(a, b);
    for complement in [false, true] {
        let want = reference::keep_allowed(&full, mask, complement);
        let m = Mask {
            pattern: mask,
            complement,
        };
        for engine in ENGINES {
            assert_identical(
                &ops::spgemm_masked::<S, bool>(a, b, m, engine).unwrap(),
                &want,
            );
        }
        // The assignment through the same mask, onto the full product.
        for replace in [false, true] {
            let want = assign_reference(&full, &want, mask, complement, replace);
            let got = ops::assign_masked(&full, &want, m, replace, Engine::Cpu).unwrap();
            assert_identical(&got, &want);
            let serial = ops::assign_masked(&full, &want, m, replace, Engine::Serial).unwrap();
            assert_identical(&serial, &want);
        }
    }
}

fn check_spmv<S: Semiring>(a: &Csr<S::Value>, allowed: &[bool])
where
    S::Value: TestScalar,
{
    let x: Vec<S::Value> = (0..a.ncols())
        .map(|j| common::in_domain::<S>(S::Value::from_f64(j as f64 * 0.5 - 3.0)))
        .collect();
    let full = reference::spmv::<S>(a, &x);
    let before: Vec<S::Value> = (0..a.nrows())
        .map(|i| S::Value::from_f64(i as f64 + 0.25))
        .collect();
    for complement in [false, true] {
        for replace in [false, true] {
            let mask = VectorMask {
                allowed,
                complement,
            };
            let want: Vec<S::Value> = (0..a.nrows())
                .map(|i| {
                    if mask.allows(i) {
                        full[i]
                    } else if replace {
                        S::zero()
                    } else {
                        before[i]
                    }
                })
                .collect();
            for engine in ENGINES {
                let mut y = before.clone();
                ops::spmv_masked::<S>(a, &x, &mut y, mask, replace, engine).unwrap();
                let bits = |v: &[S::Value]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&y),
                    bits(&want),
                    "{engine:?} complement {complement} replace {replace}"
                );
            }
        }
    }
}

/// (A m×k, B k×n, mask m×n) with random shapes.
fn arb_case<T: TestScalar>(f: fn(T) -> T) -> impl Strategy<Value = (Csr<T>, Csr<T>, Csr<bool>)> {
    (0usize..16, 0usize..16, 0usize..16).prop_flat_map(move |(m, k, n)| {
        (
            arb_csr_shaped::<T>(m, k),
            arb_csr_shaped::<T>(k, n),
            arb_csr_shaped::<bool>(m, n),
        )
            .prop_map(move |(a, b, mask)| (a.map(f), b.map(f), mask))
    })
}

macro_rules! semiring_tests {
    ($name:ident, $S:ty, $T:ty, $f:expr) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(48))]
                #[test]
                fn random_shapes_match_reference((a, b, mask) in arb_case::<$T>($f)) {
                    check_spgemm::<$S>(&a, &b, &mask);
                    let allowed: Vec<bool> = (0..a.nrows()).map(|i| mask.row_len(i) % 2 == 0).collect();
                    check_spmv::<$S>(&a, &allowed);
                }
            }

            /// Big enough for the cpu engine to split rows across threads.
            #[test]
            fn generated_inputs_match_and_ignore_thread_count() {
                let a = generate::power_law(2000, 1500, 12.0, 2.2, 7).unwrap();
                let b = generate::uniform(1500, 1800, 0, 40, 8).unwrap();
                let mask = generate::uniform(2000, 1800, 0, 60, 9).unwrap().map(|_| true);
                let (a, b) = (
                    a.map(|v| ($f)(<$T>::from_f64(v))),
                    b.map(|v| ($f)(<$T>::from_f64(v))),
                );
                check_spgemm::<$S>(&a, &b, &mask);
                let allowed: Vec<bool> = (0..a.nrows()).map(|i| i % 3 != 0).collect();
                check_spmv::<$S>(&a, &allowed);
                let m = Mask::complement(&mask);
                let one = in_pool(1, || ops::spgemm_masked::<$S, bool>(&a, &b, m, Engine::Cpu).unwrap());
                let three = in_pool(3, || ops::spgemm_masked::<$S, bool>(&a, &b, m, Engine::Cpu).unwrap());
                assert_identical(&one, &three);
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
/// The same for every integer instance of
/// [`spmx::for_each_integer_semiring!`].
macro_rules! every_integer_semiring {
    ($($name:ident $sr:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $($( semiring_tests!($test, $S, $t, common::in_domain::<$S>); )+)*
    };
}
spmx::for_each_semiring!(every_semiring! {});
spmx::for_each_integer_semiring!(every_integer_semiring! {});

#[test]
fn shapes_that_do_not_fit_are_mismatches() {
    let a = Csr::<f64>::empty(2, 3);
    let b = Csr::<f64>::empty(3, 4);
    let wrong = Csr::<bool>::empty(2, 3);
    let e = ops::spgemm_masked::<spmx::PlusTimes<f64>, bool>(
        &a,
        &b,
        Mask::structural(&wrong),
        Engine::Cpu,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Mismatch { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "spgemm_masked: the mask is 2×3, the result 2×4"
    );
    let mut y = vec![0.0; 3];
    let e = ops::spmv_masked::<spmx::PlusTimes<f64>>(
        &a,
        &[0.0; 3],
        &mut y,
        VectorMask {
            allowed: &[true; 2],
            complement: false,
        },
        false,
        Engine::Serial,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "spmv_masked: y has 3 entries, A 2 rows");
    let e = ops::assign_masked(
        &a,
        &Csr::empty(3, 2),
        Mask::structural(&wrong),
        true,
        Engine::Cpu,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "assign_masked: C is 2×3, T 3×2");
    let cuda = ops::spgemm_masked::<spmx::PlusTimes<f64>, bool>(
        &a,
        &a.transpose(),
        Mask::complement(&Csr::<bool>::empty(2, 2)),
        Engine::Cuda,
    );
    assert!(matches!(cuda, Err(Error::Unavailable { .. })), "{cuda:?}");
}
