//! The vendor side of `spmx bench` and the races themselves on the GPU:
//! cuSPARSE's SpMV (every algorithm) and SpMM (every algorithm, both
//! layouts of B and C) against the serial engine, and the SpMV, SpMM and
//! SpGEMM races end to end: every implementation checked, timed warm and
//! cold, its case placed in its set.
//!
//! An SpMM algorithm may refuse a layout: that must be an error naming the
//! call (the bench skips the algorithm, saying why), never a crash.
//!
//! Without a GPU or libcusparse (or without feature `gpu`) the tests print
//! why and pass.
#![cfg(feature = "gpu")]

use spmx::engine::cuda::matrix::DevCsr;
use spmx::engine::cuda::spmm::{DenseLayout, SpmmKernel};
use spmx::engine::cuda::{Gpu, SpmvKernel};
use spmx::format::{Csr, Dense};
use spmx::{Error, PlusTimes, generate};
use spmx_bench::check::{Reference, SpmmReference, random_x};
use spmx_bench::cusparse::{Cusparse, CusparseSpmm, CusparseSpmv, SpmmAlg, SpmvAlg};
use spmx_bench::report::{CaseId, MatrixResult, Status};
use spmx_bench::spgemm::{
    OURS, OURS_NUMERIC, SpgemmBench, SpgemmBenchOptions, VENDOR, VENDOR_NUMERIC,
};
use spmx_bench::spmm::{SpmmBench, SpmmBenchOptions};
use spmx_bench::spmv::{SpmvBench, SpmvBenchOptions};

/// The GPU and cuSPARSE, or `None` after printing why these tests do not
/// run here.
fn gpu_and_cusparse(test: &str) -> Option<(&'static Gpu, Cusparse)> {
    let started = Gpu::get().and_then(|gpu| Ok((gpu, Cusparse::new(gpu)?)));
    match started {
        Ok(both) => Some(both),
        Err(e) => {
            println!("skipping {test}: {e}");
            None
        }
    }
}

/// The case every race here runs, in the validate set.
fn case_id() -> CaseId {
    CaseId {
        name: "pl".into(),
        source: "power-law".into(),
        set: "validate".into(),
    }
}

/// Skewed rows, more rows than columns.
fn matrix() -> Csr<f32> {
    generate::power_law(3000, 2000, 12.0, 2.5, 7)
        .unwrap()
        .map(|v| v as f32)
}

#[test]
fn cusparse_spmv_matches_serial() {
    let Some((gpu, lib)) = gpu_and_cusparse("cusparse_spmv_matches_serial") else {
        return;
    };
    let a = matrix();
    let x = random_x::<f32>(a.ncols(), 1);
    let reference = Reference::new::<PlusTimes<f32>>(&a, &x).unwrap();
    let xd = gpu.upload(&x).unwrap();
    for alg in SpmvAlg::ALL {
        let mut y = gpu.upload(&vec![f32::NAN; a.nrows()]).unwrap();
        let matrix = DevCsr::upload(gpu, &a).unwrap();
        let mut spmv = CusparseSpmv::new(&lib, gpu, matrix, alg, &xd, &mut y).unwrap();
        spmv.run(&lib, gpu, &xd, &mut y).unwrap();
        let got = gpu.download(&y).unwrap();
        assert_eq!(reference.check(&got), Ok(()), "{}", spmv.label());
    }
}

#[test]
fn cusparse_spmm_matches_serial_in_both_layouts_or_refuses() {
    let Some((gpu, lib)) = gpu_and_cusparse("cusparse_spmm_matches_serial") else {
        return;
    };
    let a = matrix();
    let (m, n) = a.shape();
    for k in [1, 32, 33] {
        let b = Dense::try_new(n, k, random_x::<f32>(n * k, 2)).unwrap();
        let reference = SpmmReference::new::<PlusTimes<f32>>(&a, &b).unwrap();
        for layout in DenseLayout::ALL {
            let column_major = layout == DenseLayout::ColMajor;
            let values: Vec<f32> = match column_major {
                true => (0..n * k).map(|e| b.get(e % n, e / n)).collect(),
                false => b.as_slice().to_vec(),
            };
            let bd = gpu.upload(&values).unwrap();
            let mut ran = Vec::new();
            for alg in SpmmAlg::ALL {
                let mut c = gpu.upload(&vec![f32::NAN; m * k]).unwrap();
                let matrix = DevCsr::upload(gpu, &a).unwrap();
                let spmm = CusparseSpmm::new(&lib, gpu, matrix, alg, k, layout, &bd, &mut c)
                    .and_then(|mut spmm| spmm.run(&lib, gpu, &bd, &mut c).map(|()| spmm));
                match spmm {
                    Ok(spmm) => {
                        let got = gpu.download(&c).unwrap();
                        let label = spmm.label();
                        assert_eq!(
                            reference.check(&got, column_major),
                            Ok(()),
                            "{label}, {layout}, k = {k}"
                        );
                        ran.push(label);
                    }
                    Err(e) => {
                        let why = e.to_string();
                        assert!(why.contains("cuSPARSE"), "{why}");
                        println!("{} refuses {layout}, k = {k}: {why}", alg.name());
                    }
                }
            }
            assert!(!ran.is_empty(), "no algorithm takes {layout}, k = {k}");
        }
    }
}

/// No implementation wrong, at least one timed, and the fastest vendor
/// algorithm named where cuSPARSE ran.
fn assert_raced(case: &MatrixResult, vendor_algorithms: usize) {
    let statuses: Vec<_> = case.results.iter().map(|o| o.status).collect();
    assert!(!statuses.contains(&Status::Wrong), "{:?}", case.results);
    assert!(statuses.contains(&Status::Ok), "{:?}", case.results);
    let vendors = case.results.iter().filter(|o| o.vendor).count();
    assert_eq!(vendors, vendor_algorithms);
    assert!(case.fastest_vendor.is_some());
    assert_eq!(case.set, "validate");
    assert!(
        case.results
            .iter()
            .all(|o| o.ms.is_none() || o.cold_ms.is_some_and(|c| c > 0.0)),
        "every timed implementation has its cold call: {:?}",
        case.results
    );
    assert!(
        case.results
            .iter()
            .all(|o| o.ms.is_none() || o.gb_per_s.is_some())
    );
}

#[test]
fn spmv_bench_races_auto_and_cusparse() {
    let Some(_) = gpu_and_cusparse("spmv_bench_races_auto_and_cusparse") else {
        return;
    };
    let mut bench = SpmvBench::start(SpmvBenchOptions {
        kernels: vec![SpmvKernel::Auto, SpmvKernel::CsrScalar],
        reps: 5,
        warmup: 1,
        seed: 1,
        cusparse: true,
    })
    .unwrap();
    let a = matrix();
    let case = bench
        .run::<PlusTimes<f32>>(&case_id(), &a, &mut |_| {})
        .unwrap();
    assert_raced(&case, SpmvAlg::ALL.len());
    assert_eq!(case.results.len(), 2 + SpmvAlg::ALL.len());
}

#[test]
fn spmm_bench_races_cusparse_in_both_layouts_and_refuses_what_does_not_fit() {
    let Some((gpu, _)) = gpu_and_cusparse("spmm_bench_races_cusparse") else {
        return;
    };
    let a = matrix();
    for layout in DenseLayout::ALL {
        let mut bench = SpmmBench::start(SpmmBenchOptions {
            kernels: vec![SpmmKernel::Auto],
            layout,
            reps: 5,
            warmup: 1,
            seed: 1,
            cusparse: true,
        })
        .unwrap();
        let case = bench
            .run::<PlusTimes<f32>>(&case_id(), &a, 16, &mut |_| {})
            .unwrap();
        assert_eq!(case.name, "pl k=16");
        assert_raced(&case, SpmmAlg::ALL.len());
        let ours = &case.results[0];
        assert!(!ours.vendor && ours.status == Status::Ok, "{ours:?}");
        assert!(
            case.results
                .iter()
                .all(|o| o.ms.is_none() || o.gflop_per_s.is_some())
        );
        // A B wider than the device's memory: refused before allocating.
        let free = gpu.memory().unwrap().0;
        let k = free / (size_of::<f32>() * a.ncols()) + 1;
        let refused = bench.run::<PlusTimes<f32>>(&case_id(), &a, k, &mut |_| {});
        assert!(
            matches!(refused, Err(Error::TooLarge(_))),
            "{:?}",
            refused.err()
        );
    }
}

/// `A·Aᵀ` for the test matrix raced by a SpGEMM bench (numeric phase alone
/// or whole products), after both checks every race passes; the
/// implementations' names in order.
fn spgemm_race(numeric: bool) -> (MatrixResult, Vec<String>) {
    let mut bench = SpgemmBench::start(SpgemmBenchOptions {
        reps: 3,
        warmup: 1,
        cusparse: true,
        numeric,
    })
    .unwrap();
    let a = matrix();
    let case = bench
        .run::<PlusTimes<f32>>(&case_id(), &a, &a.transpose())
        .unwrap();
    assert_raced(&case, 1);
    assert!(case.results[0].vs_cusparse.is_some());
    let names = case
        .results
        .iter()
        .map(|o| o.implementation.clone())
        .collect();
    (case, names)
}

#[test]
fn spgemm_bench_races_cusparse_warm_and_cold() {
    let Some(_) = gpu_and_cusparse("spgemm_bench_races_cusparse_warm_and_cold") else {
        return;
    };
    let (case, names) = spgemm_race(false);
    assert_eq!(names, [OURS, VENDOR]);
    let a = matrix();
    assert_eq!(
        case.nnz,
        spmx::ops::spgemm::<PlusTimes<f32>>(&a, &a.transpose(), spmx::Engine::Serial)
            .unwrap()
            .nnz()
    );
    assert!(case.results.iter().all(|o| o.gflop_per_s.is_some()));
}

/// The numeric-only race: both plans made once, their numeric phases
/// (ours and `cusparseSpGEMMreuse_compute`) timed and checked.
#[test]
fn spgemm_bench_races_the_numeric_phase() {
    let Some(_) = gpu_and_cusparse("spgemm_bench_races_the_numeric_phase") else {
        return;
    };
    let (_, names) = spgemm_race(true);
    assert_eq!(names, [OURS_NUMERIC, VENDOR_NUMERIC]);
}
