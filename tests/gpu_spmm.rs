//! Every GPU SpMM kernel against the serial engine, for every semiring the
//! GPU has, in both dense layouts: random matrices of every odd shape
//! (proptest) with `k ∈ {1, 3, 32, 33, 128, 257}`, large skewed matrices
//! (rows longer than a tile, a row long enough to be split across warps,
//! empty rows, rectangular shapes), and the real set. C is poisoned before
//! each run, so a value a kernel forgets fails.
//!
//! Exact semirings must match serial bit for bit; plus-times may sum in
//! another order, so each value must match within a few ulps of
//! `Σ |a_il · b_lj|`.
//!
//! Without a GPU the GPU tests print why and pass; the error a user gets is
//! tested instead.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::{GpuValue, agrees, every_third_false, gpu, order_bound, skewed, x_for};
use common::{TestScalar, arb_csr};
use proptest::prelude::*;
use spmx::engine::cuda::{DenseLayout, Gpu, SpmmKernel, SpmmPlan};
use spmx::engine::{Engine, Op};
use spmx::format::{Csr, Dense};
use spmx::{MaxPlus, MinPlus, OrAnd, PlusPair, PlusTimes, Semiring, ops};

/// The column counts every kernel is tried with: one column, fewer than a
/// 16-byte load, a warp's worth, one more (no vector loads), four warps'
/// worth, and more than one tile.
const KS: [usize; 6] = [1, 3, 32, 33, 128, 257];

/// `d`'s values in `layout`.
fn laid_out<T: spmx::Scalar>(d: &Dense<T>, layout: DenseLayout) -> Vec<T> {
    match layout {
        DenseLayout::RowMajor => d.as_slice().to_vec(),
        DenseLayout::ColMajor => (0..d.ncols())
            .flat_map(|j| (0..d.nrows()).map(move |i| (i, j)))
            .map(|(i, j)| d.as_slice()[i * d.ncols() + j])
            .collect(),
    }
}

/// Element `(i, j)` of an `m × k` matrix stored in `layout`.
fn at<T: Copy>(v: &[T], layout: DenseLayout, (m, k): (usize, usize), i: usize, j: usize) -> T {
    match layout {
        DenseLayout::RowMajor => v[i * k + j],
        DenseLayout::ColMajor => v[j * m + i],
    }
}

/// The kernels that read operands in `layout`.
fn kernels_for(layout: DenseLayout) -> Vec<SpmmKernel> {
    match layout {
        DenseLayout::RowMajor => vec![
            SpmmKernel::Auto,
            SpmmKernel::BlockRows,
            SpmmKernel::BlockRowsFused,
            SpmmKernel::ThreadRow,
        ],
        DenseLayout::ColMajor => vec![
            SpmmKernel::Auto,
            SpmmKernel::ThreadRow,
            SpmmKernel::Transposed,
        ],
    }
}

/// Checks every kernel in both layouts on `a ⊗ b` against the serial
/// engine.
fn check_kernels<S: Semiring>(gpu: &Gpu, a: &Csr<S::Value>, b: &Dense<S::Value>, what: &str)
where
    S::Value: GpuValue,
{
    let want = ops::spmm::<S>(a, b, Engine::Serial).unwrap();
    let (m, k) = (a.nrows(), b.ncols());
    // Per value: the bound on rounding in another summation order.
    let bound = |i: usize, j: usize| {
        let (cols, vals) = a.row(i);
        let sum: f64 = cols
            .iter()
            .zip(vals)
            .map(|(&c, &v)| v.magnitude() * b.get(c as usize, j).magnitude())
            .sum();
        order_bound::<S::Value>(sum, cols.len())
    };
    for layout in DenseLayout::ALL {
        let bd = gpu.upload(&laid_out(b, layout)).unwrap();
        // The row-blocks kernels' results: the same bits, fused or not.
        let mut block_rows: Vec<(String, Vec<S::Value>)> = Vec::new();
        for kernel in kernels_for(layout) {
            let mut plan = SpmmPlan::new::<S>(gpu, a, k, layout, kernel).unwrap();
            // Twice on one plan: a second run must not see the first's
            // state (the fused kernel's counts).
            let mut got = Vec::new();
            for _ in 0..2 {
                let mut cd = gpu.upload(&vec![S::Value::POISON; m * k]).unwrap();
                plan.run::<S>(gpu, &bd, &mut cd).unwrap();
                got = gpu.download(&cd).unwrap();
            }
            let label = plan.label();
            if kernel != SpmmKernel::ThreadRow && layout == DenseLayout::RowMajor {
                block_rows.push((label.clone(), got.clone()));
            }
            for i in 0..m {
                for j in 0..k {
                    let (g, w) = (at(&got, layout, (m, k), i, j), want.get(i, j));
                    assert!(
                        agrees(g, w, S::ORDER_INDEPENDENT, bound(i, j)),
                        "{what}: {} {label} k={k}: C[{i}, {j}] of {m} × {k}: GPU {g:?}, \
                         serial {w:?}",
                        S::NAME
                    );
                }
            }
        }
        for (label, got) in block_rows.iter().skip(1) {
            let (first, want) = &block_rows[0];
            assert!(
                got.iter().zip(want).all(|(g, w)| g.bits() == w.bits()),
                "{what}: {} k={k}: {label} and {first} differ in bits",
                S::NAME
            );
        }
    }
}

/// An `n × k` B drawn like the matrix values.
fn arb_b<T: TestScalar>(n: usize, k: usize) -> impl Strategy<Value = Dense<T>> {
    prop::collection::vec(T::arb(), n * k).prop_map(move |v| Dense::try_new(n, k, v).unwrap())
}

/// Random matrices of every odd shape, with a `k` from [`KS`], every
/// kernel, both layouts, semiring `S`.
fn random_cases<S: Semiring>(test: &str)
where
    S::Value: GpuValue,
{
    let Some(gpu) = gpu(test) else { return };
    let strategy = (
        arb_csr::<S::Value>(60, 60),
        prop::sample::select(KS.to_vec()),
    )
        .prop_flat_map(|(a, k)| {
            let n = a.ncols();
            (Just(a), arb_b::<S::Value>(n, k))
        });
    let config = ProptestConfig {
        cases: 36,
        ..ProptestConfig::default()
    };
    proptest!(config, |((a, b) in strategy)| {
        let a = a.map(common::in_domain::<S>);
        let b_values = b.as_slice().iter().map(|&v| common::in_domain::<S>(v)).collect();
        let b = Dense::try_new(b.nrows(), b.ncols(), b_values).unwrap();
        check_kernels::<S>(gpu, &a, &b, "random");
    });
}

common::gpu::every_gpu_semiring!(random, random_cases);
common::gpu::every_gpu_semiring!(integers: random_integers, random_cases);

/// A deterministic `n × k` B.
fn b_for<T: spmx::Scalar>(n: usize, k: usize, seed: u64) -> Dense<T> {
    Dense::try_new(n, k, x_for::<T>(n * k, seed)).unwrap()
}

/// Shapes that stress the mapping of rows and columns to lanes, for every
/// `k` in [`KS`]: a power-law spread of row lengths, one row cut into
/// many pieces (50 000 entries), rows around the length where pieces grow
/// past a block (64² entries), rows of 32 and 33 entries (a staging
/// round), rows around a block's work (64), mostly empty rows, a wide and
/// a tall rectangle.
fn big_cases<S: Semiring>(test: &str)
where
    S::Value: GpuValue,
{
    let Some(gpu) = gpu(test) else { return };
    let cases: Vec<(&str, Csr<S::Value>)> = vec![
        (
            "power-law",
            skewed(3_000, 3_000, |i| 1 + 6_000 / (i + 1), 1),
        ),
        (
            "one long row",
            skewed(2_000, 60_000, |i| if i == 17 { 50_000 } else { i % 5 }, 2),
        ),
        (
            "where pieces grow",
            skewed(40, 5_000, |i| 4_086 + i % 20, 3),
        ),
        ("rows of 32 and 33", skewed(500, 700, |i| 32 + i % 2, 4)),
        ("around a block", skewed(300, 1_000, |i| 62 + i % 5, 9)),
        (
            "mostly empty",
            skewed(5_000, 300, |i| if i % 97 == 0 { 9 } else { 0 }, 5),
        ),
        ("wide", skewed(20, 9_000, |i| 100 * i, 6)),
        ("tall", skewed(9_000, 20, |i| i % 7, 7)),
    ];
    for (name, a) in &cases {
        for k in KS {
            let b = b_for::<S::Value>(a.ncols(), k, 8);
            check_kernels::<S>(gpu, a, &b, name);
        }
    }
}

common::gpu::every_gpu_semiring!(big, big_cases;
    plus_times_f32 => PlusTimes<f32>,
    plus_times_f64 => PlusTimes<f64>,
    min_plus_f64 => MinPlus<f64>,
    max_plus_f32 => MaxPlus<f32>,
    or_and => OrAnd,
    plus_times_i32 => PlusTimes<i32>,
    plus_pair_i64 => PlusPair<i64>,
    min_plus_u64 => MinPlus<u64>,
    max_plus_i64 => MaxPlus<i64>,
);

/// Every kernel on every real matrix: plus-times f32 with k = 32 and
/// min-plus f64 with k = 33.
#[test]
fn real_matrices() {
    let Some(gpu) = gpu("real_matrices") else {
        return;
    };
    for (name, a) in common::real_matrices("real_matrices") {
        check_kernels::<MinPlus<f64>>(gpu, &a, &b_for(a.ncols(), 33, 11), &name);
        let a32 = a.map(|v| v as f32);
        check_kernels::<PlusTimes<f32>>(gpu, &a32, &b_for(a.ncols(), 32, 12), &name);
    }
}

/// `ops::spmm` on the cuda engine (and on auto, with a GPU) agrees with
/// serial, including the empty shapes.
#[test]
fn through_ops() {
    let Some(_) = gpu("through_ops") else {
        return;
    };
    type S = MinPlus<f64>;
    assert_eq!(Engine::Auto.resolve(Op::Spmm).unwrap(), Engine::Cuda);
    for (m, n, k) in [(700, 500, 40), (0, 0, 3), (5, 0, 2), (0, 4, 2), (6, 7, 0)] {
        let a: Csr<f64> = skewed(m, n.max(1), |i| i % 40, 9);
        let a = if n == 0 {
            Csr::try_new(m, 0, vec![0; m + 1], vec![], vec![]).unwrap()
        } else {
            a
        };
        let b = b_for::<f64>(n, k, 3);
        let want = ops::spmm::<S>(&a, &b, Engine::Serial).unwrap();
        assert_eq!(
            ops::spmm::<S>(&a, &b, Engine::Cuda).unwrap(),
            want,
            "{m}×{n}, k={k}"
        );
        assert_eq!(a.spmm_with::<S>(&b, Engine::Auto).unwrap(), want);
    }
}

/// Issue 20: a stored `false` is false in or-and on every GPU kernel and
/// layout: the example (B's columns are the SpMV example's x's),
/// then power-law rows with every third value false against serial.
#[test]
fn or_and_stored_zero_is_false_spmm() {
    let Some(gpu) = gpu("or_and_stored_zero_is_false_spmm") else {
        return;
    };
    let a = common::or_and_stored_zero();
    let [(x0, y0), (x1, y1)] = common::OR_AND_STORED_ZERO_SPMV;
    let b = Dense::try_new(2, 2, vec![x0[0], x1[0], x0[1], x1[1]]).unwrap();
    let c = ops::spmm::<OrAnd>(&a, &b, Engine::Cuda).unwrap();
    assert_eq!(c.as_slice(), [y0[0], y1[0], y0[1], y1[1]]);
    check_kernels::<OrAnd>(gpu, &a, &b, "issue 20's example");
    let big = every_third_false(skewed(3_000, 3_000, |i| 1 + 6_000 / (i + 1), 1));
    for k in KS {
        let b = b_for::<bool>(big.ncols(), k, 8);
        check_kernels::<OrAnd>(gpu, &big, &b, "power-law, every third value false");
    }
}

/// A kernel asked for operands in the layout it does not read says which
/// kernels read them.
#[test]
fn a_kernel_of_the_other_layout_is_refused() {
    let Some(gpu) = gpu("a_kernel_of_the_other_layout_is_refused") else {
        return;
    };
    let a: Csr<f32> = skewed(10, 10, |_| 3, 1);
    for (layout, kernel, named) in [
        (DenseLayout::ColMajor, SpmmKernel::BlockRows, "transposed"),
        (DenseLayout::RowMajor, SpmmKernel::Transposed, "block-rows"),
    ] {
        let e = SpmmPlan::new::<PlusTimes<f32>>(gpu, &a, 8, layout, kernel)
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains(named) && e.contains(kernel.name()), "{e}");
    }
}

/// Without a GPU, SpMM on the cuda engine is an error that says what is
/// missing; `auto` falls back to cpu.
#[test]
fn without_a_gpu_cuda_spmm_is_a_clear_error() {
    if Gpu::present() {
        println!("skipping without_a_gpu_cuda_spmm_is_a_clear_error: a GPU is present");
        return;
    }
    let e = Engine::Cuda.resolve(Op::Spmm).unwrap_err().to_string();
    assert!(e.contains("cuda engine is not available"), "{e}");
    assert_eq!(Engine::Auto.resolve(Op::Spmm).unwrap(), Engine::Cpu);
}
