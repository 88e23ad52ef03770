//! SpMV on every format × {serial, cpu} × every semiring, against a dense
//! reference computed with the semiring by a plain loop, and cpu against
//! serial.
//!
//! - Small random cases (proptest, values small integers so that plus-times
//!   is exact in any order): every format and engine equals the reference bit
//!   for bit (COO and CSC's chunked parallel path, forced with tiny
//!   chunks, is checked against the one-thread kernels in the crate's unit
//!   tests).
//! - Large generated cases (above the cpu engine's thresholds, so its
//!   parallel paths run): row-split formats give the serial bits, COO and CSC
//!   give them for order-independent semirings and agree to rounding for
//!   plus-times; every format gives the same bits on 1 and 3 threads.
//! - Odd shapes and the wrong-length-x panic.

mod common;

use common::{TestScalar, arb_shape, reference};
use proptest::prelude::*;
use spmx::engine::cpu::spmv::SERIAL_BELOW_WORK;
use spmx::engine::serial::spmv as serial;
use spmx::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use spmx::ops::{self, SpmvFormat};
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

fn bits<T: TestScalar>(y: &[T]) -> Vec<u64> {
    y.iter().map(|&v| v.bits()).collect()
}

/// Bits, with `-0.0` read as `0.0`: for results summed in another order
/// than the reference, since `min` and `max` may return either zero of
/// `min(0.0, -0.0)` (order-independent only up to the sign of zero).
fn bits_any_zero<T: TestScalar>(y: &[T]) -> Vec<u64> {
    y.iter()
        .map(|&v| if v.to_f64() == 0.0 { 0 } else { v.bits() })
        .collect()
}

/// The rows of `a` as COO in a scrambled order (a fixed shuffle from `seed`).
fn shuffled_coo<T: Scalar>(a: &Csr<T>, seed: u64) -> Coo<T> {
    let (m, n, rows, cols, vals) = a.to_coo().into_parts();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut s = seed | 1;
    for i in (1..order.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        order.swap(i, (s % (i as u64 + 1)) as usize);
    }
    Coo::try_new(
        m,
        n,
        order.iter().map(|&k| rows[k]).collect(),
        order.iter().map(|&k| cols[k]).collect(),
        order.iter().map(|&k| vals[k]).collect(),
    )
    .unwrap()
}

/// Format parameters: SELL's `C` and σ (`C · sigma_mult`, or `nrows` for
/// 0), BSR's block size, a forced HYB width, a COO shuffle.
#[derive(Clone, Copy, Debug)]
struct Params {
    c: usize,
    sigma_mult: usize,
    b: usize,
    hyb_k: usize,
    seed: u64,
}

fn arb_params() -> impl Strategy<Value = Params> {
    (1..=5usize, 0..=3usize, 1..=8usize, 0..=5usize, any::<u64>()).prop_map(
        |(c, sigma_mult, b, hyb_k, seed)| Params {
            c,
            sigma_mult,
            b,
            hyb_k,
            seed,
        },
    )
}

/// `a` in every format, each with its SpMV on a given engine.
struct AllFormats<T: Scalar> {
    csr: Csr<T>,
    coo: Coo<T>,
    coo_shuffled: Coo<T>,
    csc: Csc<T>,
    ell: Ell<T>,
    hyb: Hyb<T>,
    hyb_k: Hyb<T>,
    sell: Sell<T>,
    jds: Sell<T>,
    bsr: Bsr<T>,
    dense: Dense<T>,
}

impl<T: Scalar> AllFormats<T> {
    /// `dense_fill` is the semiring zero: what an absent entry means.
    fn new(a: &Csr<T>, p: Params, dense_fill: T) -> Self {
        let sigma = if p.sigma_mult == 0 {
            a.nrows()
        } else {
            p.c * p.sigma_mult
        };
        AllFormats {
            csr: a.clone(),
            coo: a.to_coo(),
            coo_shuffled: shuffled_coo(a, p.seed),
            csc: Csc::from_csr(a),
            ell: Ell::from_csr(a).unwrap(),
            hyb: Hyb::from_csr(a),
            hyb_k: Hyb::from_csr_with_width(a, p.hyb_k).unwrap(),
            sell: Sell::from_csr(a, p.c, sigma).unwrap(),
            jds: Sell::jds(a),
            bsr: Bsr::from_csr(a, p.b).unwrap(),
            dense: Dense::from_csr(a, dense_fill).unwrap(),
        }
    }

    /// Every format's y on `engine`, named.
    fn spmv<S: Semiring<Value = T>>(&self, x: &[T], engine: Engine) -> Vec<(&'static str, Vec<T>)> {
        fn run<S: Semiring, A: SpmvFormat<S::Value>>(
            a: &A,
            x: &[S::Value],
            e: Engine,
        ) -> Vec<S::Value>
        where
            S::Value: Scalar,
        {
            ops::spmv::<S>(a, x, e).unwrap()
        }
        vec![
            ("csr", run::<S, _>(&self.csr, x, engine)),
            ("coo", run::<S, _>(&self.coo, x, engine)),
            ("coo shuffled", run::<S, _>(&self.coo_shuffled, x, engine)),
            ("csc", run::<S, _>(&self.csc, x, engine)),
            ("ell", run::<S, _>(&self.ell, x, engine)),
            ("hyb", run::<S, _>(&self.hyb, x, engine)),
            ("hyb forced width", run::<S, _>(&self.hyb_k, x, engine)),
            ("sell", run::<S, _>(&self.sell, x, engine)),
            ("jds", run::<S, _>(&self.jds, x, engine)),
            ("bsr", run::<S, _>(&self.bsr, x, engine)),
            ("dense", run::<S, _>(&self.dense, x, engine)),
        ]
    }
}

/// Every format on both engines equals the dense reference bit for bit.
/// Values must be
/// small integers (exact sums).
fn check_against_reference<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value], p: Params)
where
    S::Value: TestScalar,
{
    let reference = reference::spmv::<S>(a, x);
    let (want, want_any_zero) = (bits(&reference), bits_any_zero(&reference));
    let formats = AllFormats::new(a, p, S::zero());
    for engine in [Engine::Serial, Engine::Cpu] {
        for (name, y) in formats.spmv::<S>(x, engine) {
            // Every format but the scrambled COO sums in the reference's order.
            if name == "coo shuffled" {
                assert_eq!(
                    bits_any_zero(&y),
                    want_any_zero,
                    "{} {name} on {engine}",
                    S::NAME
                );
            } else {
                assert_eq!(bits(&y), want, "{} {name} on {engine}", S::NAME);
            }
        }
    }
}

/// A small random case: a matrix (from `common`'s strategy, squeezed to
/// small integers), an x and format parameters.
fn arb_case<T: TestScalar>(map: fn(T) -> T) -> impl Strategy<Value = (Csr<T>, Vec<T>, Params)> {
    arb_shape(24, 24).prop_flat_map(move |(m, n)| {
        (
            common::arb_csr_shaped::<T>(m, n),
            prop::collection::vec(T::arb(), n),
            arb_params(),
        )
            .prop_map(move |(a, x, p)| {
                let squeeze = |v| map(small(v));
                (a.map(squeeze), x.into_iter().map(squeeze).collect(), p)
            })
    })
}

/// COO with duplicate coordinates, in any order: each duplicate is a product
/// of its own, on every engine.
fn check_coo_duplicates<S: Semiring>(coo: &Coo<S::Value>, x: &[S::Value])
where
    S::Value: TestScalar,
{
    let mut want = vec![S::zero(); coo.nrows()];
    for ((&r, &c), &v) in coo.rows().iter().zip(coo.cols()).zip(coo.values()) {
        want[r as usize] = S::add(want[r as usize], S::mul(v, x[c as usize]));
    }
    for engine in [Engine::Serial, Engine::Cpu] {
        assert_eq!(bits(&coo.spmv_with::<S>(x, engine).unwrap()), bits(&want));
    }
}

fn arb_coo_with_duplicates<T: TestScalar>(
    map: fn(T) -> T,
) -> impl Strategy<Value = (Coo<T>, Vec<T>)> {
    (1..=12usize, 1..=12usize).prop_flat_map(move |(m, n)| {
        let entry = (0..m as u32, 0..n as u32, T::arb());
        (
            prop::collection::vec(entry, 0..=40),
            prop::collection::vec(T::arb(), n),
        )
            .prop_map(move |(entries, x)| {
                let mut coo = Coo::new(m, n).unwrap();
                for (r, c, v) in entries {
                    coo.push_unchecked(r, c, map(small(v)));
                }
                (coo, x.into_iter().map(|v| map(small(v))).collect())
            })
    })
}

/// One module per semiring: the reference checks on random small cases.
macro_rules! small_cases {
    ($($name:ident: $s:ty, $map:expr;)*) => {$(
        mod $name {
            use super::*;
            type S = $s;
            type V = <S as Semiring>::Value;
            proptest! {
                #[test]
                fn every_format_and_engine_equals_the_dense_reference(
                    (a, x, p) in arb_case::<V>($map)
                ) {
                    check_against_reference::<S>(&a, &x, p);
                }

                #[test]
                fn coo_duplicates_are_separate_products(
                    (coo, x) in arb_coo_with_duplicates::<V>($map)
                ) {
                    check_coo_duplicates::<S>(&coo, &x);
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

/// Issue 20: a stored `false` is false in or-and (the CLI took every
/// stored entry as true: y = [1, 1] for x = [0, 0]), on every format and
/// engine here.
#[test]
fn or_and_stored_zero_is_false_spmv() {
    let a = common::or_and_stored_zero();
    let p = Params {
        c: 1,
        sigma_mult: 1,
        b: 2,
        hyb_k: 1,
        seed: 1,
    };
    let formats = AllFormats::new(&a, p, false);
    for (x, want) in common::OR_AND_STORED_ZERO_SPMV {
        assert_eq!(
            reference::spmv::<OrAnd>(&a, &x),
            want,
            "reference, x = {x:?}"
        );
        for engine in [Engine::Serial, Engine::Cpu] {
            for (name, y) in formats.spmv::<OrAnd>(&x, engine) {
                assert_eq!(y, want, "{name} on {engine}, x = {x:?}");
            }
        }
        check_against_reference::<OrAnd>(&a, &x, p);
    }
}

// ---- large inputs: the cpu engine's parallel paths ----

/// Runs `f` on a rayon pool of `threads` threads.
fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// How a format's cpu result relates to the serial ones.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    /// Rows split: cpu gives the serial bits, which are serial CSR's.
    RowSplit,
    /// COO in row-major order, CSC: serial gives serial CSR's bits; cpu
    /// sums in entry chunks (exact only for order-independent semirings).
    Chunked,
    /// Scrambled COO: even serial sums in another order than CSR.
    Scrambled,
}

/// One format's SpMV on a given engine.
type Run<'a, T> = Box<dyn Fn(Engine) -> Vec<T> + Sync + 'a>;

/// `got` within rounding of `want`: relative to the larger of |want| and 1,
/// `1e-12` for f64 and `1e-3` for f32 (rows of hundreds of entries).
fn assert_close<T: Scalar>(got: &[T], want: &[T], what: &str) {
    let tol = if size_of::<T>() == 4 { 1e-3 } else { 1e-12 };
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g.to_f64(), w.to_f64());
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}: row {i}: {g} vs {w}"
        );
    }
}

/// On a large matrix (every format above the cpu engine's threshold, so its
/// parallel paths run): cpu gives the same bits on 1 and 3 threads;
/// row-split formats give the serial bits; COO and CSC give them for
/// order-independent semirings and agree within rounding for plus-times.
/// `skewed` leaves out the formats a skewed matrix blows up (ELL pads every
/// row to the longest; BSR and dense).
fn check_large<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value], p: Params, skewed: bool)
where
    S::Value: TestScalar,
{
    fn run<'a, S: Semiring, A: SpmvFormat<S::Value> + Sync>(
        a: &'a A,
        x: &'a [S::Value],
    ) -> Run<'a, S::Value>
    where
        S::Value: Scalar,
    {
        Box::new(move |e| ops::spmv::<S>(a, x, e).unwrap())
    }
    let (coo, shuffled, csc) = (a.to_coo(), shuffled_coo(a, p.seed), Csc::from_csr(a));
    let (hyb, hyb_k) = (
        Hyb::from_csr(a),
        Hyb::from_csr_with_width(a, p.hyb_k).unwrap(),
    );
    let sell = Sell::from_csr(a, p.c, p.c * p.sigma_mult).unwrap();
    let jds = Sell::jds(a);
    let hyb_slots = |h: &Hyb<S::Value>| h.ell().col_idx().len() + h.overflow().nnz();
    let (ell, bsr, dense);
    let mut formats: Vec<(&str, usize, Run<S::Value>, Order)> = vec![
        ("csr", a.nnz(), run::<S, _>(a, x), Order::RowSplit),
        ("coo", coo.nnz(), run::<S, _>(&coo, x), Order::Chunked),
        (
            "coo shuffled",
            shuffled.nnz(),
            run::<S, _>(&shuffled, x),
            Order::Scrambled,
        ),
        ("csc", csc.nnz(), run::<S, _>(&csc, x), Order::Chunked),
        (
            "hyb",
            hyb_slots(&hyb),
            run::<S, _>(&hyb, x),
            Order::RowSplit,
        ),
        (
            "hyb forced width",
            hyb_slots(&hyb_k),
            run::<S, _>(&hyb_k, x),
            Order::RowSplit,
        ),
        (
            "sell",
            sell.col_idx().len(),
            run::<S, _>(&sell, x),
            Order::RowSplit,
        ),
        (
            "jds",
            jds.col_idx().len(),
            run::<S, _>(&jds, x),
            Order::RowSplit,
        ),
    ];
    if !skewed {
        (ell, bsr) = (Ell::from_csr(a).unwrap(), Bsr::from_csr(a, p.b).unwrap());
        dense = Dense::from_csr(a, S::zero()).unwrap();
        formats.extend([
            (
                "ell",
                ell.col_idx().len(),
                run::<S, _>(&ell, x),
                Order::RowSplit,
            ),
            (
                "bsr",
                bsr.values().len(),
                run::<S, _>(&bsr, x),
                Order::RowSplit,
            ),
            (
                "dense",
                dense.as_slice().len(),
                run::<S, _>(&dense, x),
                Order::RowSplit,
            ),
        ]);
    }
    let csr_serial = serial::spmv_csr::<S>(a, x);
    for (name, slots, spmv, order) in &formats {
        let what = format!("{} {name}", S::NAME);
        assert!(
            *slots >= SERIAL_BELOW_WORK,
            "{what}: {slots} slots stay serial"
        );
        let serial = spmv(Engine::Serial);
        if *order != Order::Scrambled {
            assert_eq!(bits(&serial), bits(&csr_serial), "{what}: serial vs CSR");
        } else if S::ORDER_INDEPENDENT {
            let (s, c) = (bits_any_zero(&serial), bits_any_zero(&csr_serial));
            assert_eq!(s, c, "{what}: serial vs CSR");
        } else {
            assert_close(&serial, &csr_serial, &format!("{what}: serial vs CSR"));
        }
        let one = on_threads(1, || spmv(Engine::Cpu));
        let three = on_threads(3, || spmv(Engine::Cpu));
        assert_eq!(bits(&one), bits(&three), "{what}: 1 vs 3 threads");
        if *order == Order::RowSplit {
            assert_eq!(bits(&one), bits(&serial), "{what}: cpu vs serial");
        } else if S::ORDER_INDEPENDENT {
            let (o, s) = (bits_any_zero(&one), bits_any_zero(&serial));
            assert_eq!(o, s, "{what}: cpu vs serial");
        } else {
            assert_close(&one, &serial, &format!("{what}: cpu vs serial"));
        }
    }
}

/// A power-law matrix (long rows and empty rows both), values in (0, 1].
fn power_law<T: Scalar>(map: impl Fn(f64) -> T) -> Csr<T> {
    spmx::generate::power_law(4000, 3000, 32.0, 2.2, 7)
        .unwrap()
        .map(map)
}

/// A uniform matrix, narrow enough that its dense form stays small.
fn uniform<T: Scalar>(map: impl Fn(f64) -> T) -> Csr<T> {
    spmx::generate::uniform(4000, 400, 20, 40, 11)
        .unwrap()
        .map(map)
}

fn x_for<T: Scalar>(n: usize, map: impl Fn(f64) -> T) -> Vec<T> {
    (0..n)
        .map(|j| map(((j * 7919) % 1000) as f64 / 997.0))
        .collect()
}

const LARGE: Params = Params {
    c: 8,
    sigma_mult: 4,
    b: 4,
    hyb_k: 3,
    seed: 5,
};

#[test]
fn large_plus_times() {
    let a = uniform(|v| v);
    check_large::<PlusTimes<f64>>(&a, &x_for(a.ncols(), |v| v - 0.5), LARGE, false);
    let a = power_law(|v| v as f32);
    check_large::<PlusTimes<f32>>(&a, &x_for(a.ncols(), |v| v as f32), LARGE, true);
}

#[test]
fn large_min_plus_max_plus_or_and() {
    let a = uniform(|v| v);
    check_large::<MinPlus<f64>>(&a, &x_for(a.ncols(), |v| v), LARGE, false);
    let a = power_law(|v| v);
    check_large::<MaxPlus<f64>>(&a, &x_for(a.ncols(), |v| v), LARGE, true);
    let b = uniform(|v| v > 0.5);
    check_large::<OrAnd>(&b, &x_for(b.ncols(), |v| v > 0.9), LARGE, false);
}

#[test]
fn large_max_times_min_max_max_min() {
    let a = power_law(|v| v);
    check_large::<MaxTimes<f64>>(&a, &x_for(a.ncols(), |v| v), LARGE, true);
    let a = uniform(|v| v);
    check_large::<MinMax<f64>>(&a, &x_for(a.ncols(), |v| v), LARGE, false);
    let a = power_law(|v| v as f32);
    check_large::<MaxMin<f32>>(&a, &x_for(a.ncols(), |v| v as f32), LARGE, true);
}

// ---- odd shapes and broken contracts ----

#[test]
fn odd_shapes_on_every_format() {
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
    let p = Params {
        c: 3,
        sigma_mult: 1,
        b: 3,
        hyb_k: 1,
        seed: 1,
    };
    for a in &cases {
        let x: Vec<f64> = (0..a.ncols()).map(|j| j as f64 - 1.0).collect();
        check_against_reference::<PlusTimes<f64>>(a, &x, p);
        check_against_reference::<MinPlus<f64>>(a, &x, p);
    }
}

#[test]
fn default_semiring_methods() {
    let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]).unwrap();
    assert_eq!(a.spmv(&[1.0, 10.0, 100.0]).unwrap(), vec![201.0, 30.0]);
    assert_eq!(
        Ell::from_csr(&a)
            .unwrap()
            .spmv(&[1.0, 10.0, 100.0])
            .unwrap(),
        vec![201.0, 30.0]
    );
    let b = a.map(|v| v > 1.5);
    assert_eq!(
        Csc::from_csr(&b).spmv(&[true, false, false]).unwrap(),
        vec![false, false]
    );
    assert_eq!(
        b.to_coo().spmv(&[false, true, false]).unwrap(),
        vec![false, true]
    );
    // Min-plus: absent is +∞, an explicit 0 is an entry of weight 0.
    let g = Csr::try_new(2, 2, vec![0, 1, 1], vec![1], vec![0.0]).unwrap();
    let y = Bsr::from_csr(&g, 2)
        .unwrap()
        .spmv_with::<MinPlus<f64>>(&[5.0, 7.0], Engine::Serial)
        .unwrap();
    assert_eq!(y, vec![7.0, f64::INFINITY]);
}

#[test]
fn an_engine_that_cannot_run_is_an_error() {
    let a = Csr::<f64>::empty(2, 2);
    // (The cuda engine's errors are in tests/gpu_spmv.rs: on a GPU it runs.)
    let e = a
        .spmv_with::<PlusTimes<f64>>(&[0.0, 0.0], Engine::Mpi)
        .unwrap_err();
    assert!(e.to_string().contains("mpi"), "{e}");
}

#[test]
fn a_wrong_length_x_is_an_error_naming_both_shapes() {
    let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]).unwrap();
    let p = Params {
        c: 2,
        sigma_mult: 0,
        b: 2,
        hyb_k: 1,
        seed: 1,
    };
    let formats = AllFormats::new(&a, p, 0.0);
    // Each format checks on its own, on both engines.
    type Spmv<'a> = &'a dyn Fn(&[f64], Engine) -> spmx::Result<Vec<f64>>;
    let each: [Spmv; 8] = [
        &|x, e| formats.coo.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.csr.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.csc.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.ell.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.hyb.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.sell.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.bsr.spmv_with::<PlusTimes<f64>>(x, e),
        &|x, e| formats.dense.spmv_with::<PlusTimes<f64>>(x, e),
    ];
    for (k, f) in each.iter().enumerate() {
        for engine in [Engine::Serial, Engine::Cpu] {
            for len in [2, 4] {
                let e = f(&vec![1.0; len], engine).expect_err("x of the wrong length");
                let want = format!("spmv: A.ncols() != x.len() (2×3 times a vector of {len})");
                assert_eq!(e.to_string(), want, "format {k}");
            }
        }
    }
}
