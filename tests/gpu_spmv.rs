//! Every GPU SpMV kernel against the serial engine, for every semiring the
//! GPU has: random matrices of every odd shape (proptest), skewed matrices
//! large enough to spread the merge kernel over many threads, and the real
//! set. `y` is poisoned before each run, so a row a kernel forgets fails.
//!
//! Exact semirings (every one but plus-times: their `add` is min, max or
//! or) must match serial bit for bit; plus-times may sum in another order,
//! so it must match within a few ulps of `Σ |a_ij · x_j|` per row, and
//! float atomics (COO, HYB) may flush a subnormal sum to zero.
//!
//! The integer semirings (`random_integers`) must match bit for bit too
//! (wrapping `+` is exact in any order); those without GPU kernels must be
//! refused by the cuda engine.
//!
//! Without a GPU (or without feature `gpu`) the GPU tests print why and
//! pass; the error a user gets is tested instead.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::{GpuValue, agrees, every_third_false, gpu, order_bound, skewed, x_for};
use common::{TestScalar, arb_csr};
use gpu_kernels::args::{ELL_NEAR_BIAS, ELL_NEAR_PAD, ELL_NEAR_REACH, ell_near_slot};
use proptest::prelude::*;
use spmx::engine::cuda::matrix::{DevCsr, DevEll, DevEllColumns};
use spmx::engine::cuda::{Gpu, SpmvKernel, SpmvPlan};
use spmx::engine::{Engine, Op};
use spmx::format::{Coo, Csr, ELL_PAD, Ell};
use spmx::{MaxPlus, MinMax, MinPlus, OrAnd, PlusPair, PlusTimes, Scalar, Semiring, ops};

/// Runs `kernel` on `a`, `x` with a poisoned `y`, and returns `y`.
fn run_gpu<S: Semiring>(
    gpu: &Gpu,
    a: &Csr<S::Value>,
    x: &[S::Value],
    kernel: SpmvKernel,
) -> (Vec<S::Value>, String)
where
    S::Value: GpuValue,
{
    let mut plan = SpmvPlan::new::<S>(gpu, a, kernel).unwrap();
    let xd = gpu.upload(x).unwrap();
    let mut yd = gpu.upload(&vec![S::Value::POISON; a.nrows()]).unwrap();
    plan.run::<S>(gpu, &xd, &mut yd).unwrap();
    gpu.sync().unwrap();
    (gpu.download(&yd).unwrap(), plan.label())
}

/// Checks every kernel on `a` (with `x`) against the serial engine.
fn check_kernels<S: Semiring>(gpu: &Gpu, a: &Csr<S::Value>, x: &[S::Value], what: &str)
where
    S::Value: GpuValue,
{
    let check = serial_check::<S>(a, x);
    for kernel in SpmvKernel::ALL {
        let (got, label) = run_gpu::<S>(gpu, a, x, kernel);
        check(&got, &format!("{what}: {} {label}", S::NAME));
    }
}

/// A check of a GPU `y` for `a ⊗ x` against the serial engine's: the same
/// bits for the exact semirings, else within a bound on the rounding of
/// each row's sum in any order.
fn serial_check<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value]) -> impl Fn(&[S::Value], &str)
where
    S::Value: GpuValue,
{
    let want = ops::spmv::<S>(a, x, Engine::Serial).unwrap();
    let bound: Vec<f64> = (0..a.nrows())
        .map(|i| {
            let (cols, vals) = a.row(i);
            let sum: f64 = cols
                .iter()
                .zip(vals)
                .map(|(&c, &v)| v.magnitude() * x[c as usize].magnitude())
                .sum();
            order_bound::<S::Value>(sum, cols.len())
        })
        .collect();
    move |got, what| {
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert!(
                agrees(g, w, S::ORDER_INDEPENDENT, bound[i]),
                "{what}: row {i} of {}: GPU {g:?}, serial {w:?}",
                want.len()
            );
        }
    }
}

/// A random x of `n` values drawn like the matrix values.
fn arb_x<T: TestScalar>(n: usize) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(T::arb(), n)
}

/// Random matrices of every odd shape, every kernel, semiring `S`.
fn random_cases<S: Semiring>(test: &str)
where
    S::Value: GpuValue,
{
    let Some(gpu) = gpu(test) else { return };
    let strategy = arb_csr::<S::Value>(70, 70).prop_flat_map(|a| {
        let n = a.ncols();
        (Just(a), arb_x::<S::Value>(n))
    });
    let config = ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    };
    proptest!(config, |((a, x) in strategy)| {
        let a = a.map(common::in_domain::<S>);
        let x: Vec<_> = x.into_iter().map(common::in_domain::<S>).collect();
        check_kernels::<S>(gpu, &a, &x, "random");
    });
}

common::gpu::every_gpu_semiring!(random, random_cases);
common::gpu::every_gpu_semiring!(integers: random_integers, random_cases);

/// Shapes that stress the mapping of rows to threads: a power-law row
/// length distribution, one row holding most entries, rows of exactly 32
/// and 33 entries, many empty rows, a single row, a single column.
fn big_cases<S: Semiring>(test: &str)
where
    S::Value: GpuValue,
{
    let Some(gpu) = gpu(test) else { return };
    let cases: Vec<(&str, Csr<S::Value>)> = vec![
        (
            "power-law 20000²",
            skewed(20_000, 20_000, |i| 2 + 40_000 / (i + 1), 1),
        ),
        (
            "one long row",
            skewed(5_000, 60_000, |i| if i == 17 { 50_000 } else { i % 5 }, 2),
        ),
        ("rows of 32 and 33", skewed(3_000, 4_000, |i| 32 + i % 2, 3)),
        (
            "mostly empty",
            skewed(40_000, 300, |i| if i % 97 == 0 { 9 } else { 0 }, 4),
        ),
        ("one row", skewed(1, 100_000, |_| 70_000, 5)),
        ("one column", skewed(10_000, 1, |i| i % 2, 6)),
    ];
    for (name, a) in &cases {
        let x = x_for::<S::Value>(a.ncols(), 7);
        check_kernels::<S>(gpu, a, &x, name);
    }
}

common::gpu::every_gpu_semiring!(big, big_cases;
    plus_times_f32 => PlusTimes<f32>,
    plus_times_f64 => PlusTimes<f64>,
    min_plus_f32 => MinPlus<f32>,
    max_plus_f64 => MaxPlus<f64>,
    or_and => OrAnd,
    min_max_f32 => MinMax<f32>,
    plus_times_i64 => PlusTimes<i64>,
    plus_pair_u32 => PlusPair<u32>,
    min_plus_i32 => MinPlus<i32>,
    max_plus_u64 => MaxPlus<u64>,
);

/// ELL made on the device from CSR (what `ell` and `auto` upload) holds the
/// slots the host's conversion gives: columns, values' bits and padding,
/// for values of each width; with 16-bit offsets from the row where every
/// entry is near the diagonal, and with `u32` columns always.
fn ell_on_device_cases<S: Semiring>(test: &str)
where
    S::Value: GpuValue,
{
    let Some(gpu) = gpu(test) else { return };
    let check = |a: &Csr<S::Value>| {
        let host = Ell::from_csr(a).unwrap();
        let csr = DevCsr::upload(gpu, a).unwrap();
        let near = a.bandwidth() <= ELL_NEAR_REACH as usize;
        let (n, width) = (a.nrows(), host.width());
        // Host ELL's order, `k · n + r`: the device slot each stands for.
        let host_order = |near: bool| -> Vec<usize> {
            let slot = |i: usize| {
                let (r, k) = (i % n, i / n);
                if near { ell_near_slot(r, k, width) } else { i }
            };
            (0..n * width).map(slot).collect()
        };
        for bandwidth in [a.bandwidth(), usize::MAX] {
            // SAFETY: `width` is `a`'s longest row and `bandwidth` at least
            // its farthest entry from the diagonal.
            let dev = unsafe { DevEll::from_dev_csr(gpu, &csr, width, bandwidth) }.unwrap();
            let wide = matches!(dev.columns(), DevEllColumns::Wide(_));
            assert_eq!(wide, bandwidth == usize::MAX || !near);
            let order = host_order(!wide);
            let columns: Vec<u32> = match &dev.columns() {
                DevEllColumns::Wide(c) => gpu.download(c).unwrap(),
                DevEllColumns::Near(offsets) => {
                    let offsets = gpu.download(offsets).unwrap();
                    (order.iter().enumerate())
                        .map(|(i, &slot)| match offsets[slot] {
                            ELL_NEAR_PAD => ELL_PAD,
                            o => ((i % n) as u32 + u32::from(o)) - ELL_NEAR_BIAS,
                        })
                        .collect()
                }
            };
            assert_eq!(columns, host.col_idx());
            let values = gpu.download(dev.values()).unwrap();
            let got: Vec<_> = order.iter().map(|&slot| values[slot].bits()).collect();
            let want: Vec<_> = host.values().iter().map(|v| v.bits()).collect();
            assert_eq!(got, want);
        }
    };
    let config = ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    };
    proptest!(config, |(a in arb_csr::<S::Value>(70, 70))| check(&a));
    check(&skewed(3_000, 4_000, |i| 32 + i % 2, 3));
    check(&skewed(40_000, 300, |i| if i % 97 == 0 { 9 } else { 0 }, 4));
    // Entries at the reach of 16-bit offsets, and one beyond it.
    let reach = ELL_NEAR_REACH as usize;
    for far in [reach, reach + 1] {
        let mut coo = Coo::new(far + 2, far + 2).unwrap();
        for (i, j) in [(0, far), (1, 1), (far, 0), (far + 1, far + 1)] {
            coo.push(i, j, S::Value::from_f64(2.0)).unwrap();
        }
        check(&coo.to_csr());
    }
}

common::gpu::every_gpu_semiring!(ell_on_device, ell_on_device_cases;
    plus_times_f32 => PlusTimes<f32>,
    plus_times_f64 => PlusTimes<f64>,
    or_and => OrAnd,
);

/// The adaptive kernel's long rows, cut into pieces whose last one sums
/// them: one plan run again and again (the pieces' counts must be back at
/// zero after each run), on two x in turn, gives the same bits each time,
/// within rounding of serial. Rows of one piece, one piece and one entry,
/// exact multiples of a piece, and a row of 200 pieces.
#[test]
fn adaptive_pieces_same_bits_every_run() {
    let Some(gpu) = gpu("adaptive_pieces_same_bits_every_run") else {
        return;
    };
    type S = PlusTimes<f32>;
    let lens = [2048, 2049, 4096, 3, 0, 6000];
    let len = |i: usize| match i {
        1500 => 409_600,
        _ => lens.get(i % 97).copied().unwrap_or(i % 7),
    };
    // Distinct columns (37 is prime to the width), so each row keeps
    // exactly its length.
    let n = 500_000;
    let mut coo = Coo::new(3000, n).unwrap();
    for i in 0..3000 {
        for j in 0..len(i) {
            let v = ((i * 7 + j * 13) % 17) as f32 - 7.75;
            coo.push(i, (j * 37 + i * 101) % n, v).unwrap();
        }
    }
    let a = coo.to_csr();
    assert_eq!(
        (a.row_len(0), a.row_len(1), a.row_len(2)),
        (2048, 2049, 4096)
    );
    assert_eq!(a.row_len(1500), 200 * 2048);
    let xs = [x_for::<f32>(a.ncols(), 1), x_for::<f32>(a.ncols(), 2)];
    let mut plan = SpmvPlan::new::<S>(gpu, &a, SpmvKernel::CsrAdaptive).unwrap();
    let mut yd = gpu.upload(&vec![f32::NAN; a.nrows()]).unwrap();
    let mut first: Vec<Option<Vec<f32>>> = vec![None, None];
    for run in 0..6 {
        let x = &xs[run % 2];
        let xd = gpu.upload(x).unwrap();
        plan.run::<S>(gpu, &xd, &mut yd).unwrap();
        gpu.sync().unwrap();
        let got = gpu.download(&yd).unwrap();
        let same = |want: &[f32]| {
            got.iter()
                .zip(want)
                .all(|(g, w)| g.to_bits() == w.to_bits())
        };
        match &first[run % 2] {
            None => {
                serial_check::<S>(&a, x)(&got, &format!("adaptive pieces, run {run}"));
                first[run % 2] = Some(got);
            }
            Some(want) => assert!(
                same(want),
                "run {run}: bits differ from the first run on this x"
            ),
        }
    }
}

/// Every kernel on every real matrix, plus-times f32 and min-plus f64.
#[test]
fn real_matrices() {
    let Some(gpu) = gpu("real_matrices") else {
        return;
    };
    for (name, a) in common::real_matrices("real_matrices") {
        let x = x_for::<f64>(a.ncols(), 11);
        check_kernels::<MinPlus<f64>>(gpu, &a, &x, &name);
        let a32 = a.map(|v| v as f32);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        check_kernels::<PlusTimes<f32>>(gpu, &a32, &x32, &name);
    }
}

/// The ops entry point on every format runs on the GPU and agrees.
#[test]
fn every_format_through_ops() {
    let Some(_) = gpu("every_format_through_ops") else {
        return;
    };
    type S = MinPlus<f64>;
    let a: Csr<f64> = skewed(700, 500, |i| i % 40, 9);
    let x = x_for::<f64>(500, 3);
    let want = ops::spmv::<S>(&a, &x, Engine::Serial).unwrap();
    let mut got = vec![ops::spmv::<S>(&a, &x, Engine::Cuda).unwrap()];
    got.extend(spmv_other_formats::<S>(&a, &x, 3, f64::INFINITY));
    for (k, y) in got.iter().enumerate() {
        assert_eq!(y, &want, "format #{k}");
    }
}

/// y = A ⊗ x on the cuda engine through every format but CSR: COO, CSC,
/// ELL, HYB, SELL, JDS, BSR with blocks of `bsr_block`, and dense with
/// `dense_zero` where A has no entry.
fn spmv_other_formats<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    bsr_block: usize,
    dense_zero: S::Value,
) -> Vec<Vec<S::Value>>
where
    S::Value: GpuValue,
{
    use spmx::format::{Bsr, Csc, Dense, Ell, Hyb, Sell};
    vec![
        ops::spmv::<S>(&a.to_coo(), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Csc::from_csr(a), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Ell::from_csr(a).unwrap(), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Hyb::from_csr(a), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Sell::from_csr(a, 32, 256).unwrap(), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Sell::jds(a), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Bsr::from_csr(a, bsr_block).unwrap(), x, Engine::Cuda).unwrap(),
        ops::spmv::<S>(&Dense::from_csr(a, dense_zero).unwrap(), x, Engine::Cuda).unwrap(),
    ]
}

/// Issue 20: a stored `false` is false in or-and on every GPU kernel and
/// format: the example with each x, then power-law rows with
/// every third value false against the serial engine.
#[test]
fn or_and_stored_zero_is_false_spmv() {
    let Some(gpu) = gpu("or_and_stored_zero_is_false_spmv") else {
        return;
    };
    type S = OrAnd;
    let a = common::or_and_stored_zero();
    for (x, want) in common::OR_AND_STORED_ZERO_SPMV {
        for kernel in SpmvKernel::ALL {
            let (y, label) = run_gpu::<S>(gpu, &a, &x, kernel);
            assert_eq!(y, want, "{label}, x = {x:?}");
        }
        let formats = spmv_other_formats::<S>(&a, &x, 2, false);
        for (k, y) in formats.iter().enumerate() {
            assert_eq!(y, &want, "format #{k}, x = {x:?}");
        }
    }
    let big = every_third_false(skewed(20_000, 20_000, |i| 2 + 40_000 / (i + 1), 1));
    let x: Vec<bool> = (0..big.ncols()).map(|j| j % 5 != 0).collect();
    check_kernels::<S>(gpu, &big, &x, "power-law, every third value false");
}

/// Without a GPU, asking for the cuda engine is an error that says what
/// is missing and what to use instead; `auto` falls back to cpu.
#[test]
fn without_a_gpu_cuda_is_a_clear_error() {
    if Gpu::present() {
        println!("skipping without_a_gpu_cuda_is_a_clear_error: a GPU is present");
        return;
    }
    let e = Engine::Cuda.resolve(Op::Spmv).unwrap_err().to_string();
    assert!(e.contains("cuda engine is not available"), "{e}");
    assert!(e.contains("--engine cpu"), "{e}");
    assert_eq!(Engine::Auto.resolve(Op::Spmv).unwrap(), Engine::Cpu);
}

/// The cuda engine has no element-wise add yet: asking for it says so,
/// with or without a GPU, and `auto` takes the cpu engine.
#[test]
fn cuda_ewise_add_is_not_there_yet() {
    let e = Engine::Cuda.resolve(Op::EwiseAdd).unwrap_err().to_string();
    assert!(e.contains("no element-wise add"), "{e}");
    assert_eq!(Engine::Auto.resolve(Op::EwiseAdd).unwrap(), Engine::Cpu);
}
