//! The error policy (crate docs, "Errors"): every public fallible
//! operation given operands whose shapes do not fit returns
//! `Error::Mismatch` naming the check and both shapes, on every engine,
//! and never panics.
//!
//! Shapes are checked before the engine is resolved, so the error is the
//! same on every engine, cuda and mpi included, whether or not it can run
//! here; where a GPU is present the cuda calls go through the cuda engine's
//! entry points, and the test checks the same.

use spmx::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use spmx::ops::{self, Resident, SpgemmPlan, SpmvFormat, spgemm_blocks};
use spmx::{Engine, Error, MinPlus, PlusTimes};

/// Every engine a caller may name.
const ENGINES: [Engine; 5] = [
    Engine::Auto,
    Engine::Serial,
    Engine::Cpu,
    Engine::Cuda,
    Engine::Mpi,
];

/// Asserts `result` is `Error::Mismatch` of `op` whose message is `want`.
#[track_caller]
fn assert_mismatch<R>(result: spmx::Result<R>, op: &str, want: &str, what: &str) {
    match result {
        Ok(_) => panic!("{what}: expected an error"),
        Err(e @ Error::Mismatch { op: got, .. }) => {
            assert_eq!(got, op, "{what}");
            assert_eq!(e.to_string(), want, "{what}");
        }
        Err(e) => panic!("{what}: expected a mismatch, got {e}"),
    }
}

/// A = [[1, 0, 2], [0, 3, 0]] (2×3).
fn a() -> Csr<f64> {
    Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]).unwrap()
}

#[test]
fn spgemm_of_mismatched_shapes_is_an_error_everywhere() {
    let (a, b) = (a(), Csr::<f64>::empty(4, 2));
    let want = "spgemm: A.ncols() != B.nrows() (2×3 times 4×2)";
    assert_mismatch(a.spgemm(&b), "spgemm", want, "Csr::spgemm");
    for engine in ENGINES {
        let what = format!("on {engine}");
        assert_mismatch(
            ops::spgemm::<PlusTimes<f64>>(&a, &b, engine),
            "spgemm",
            want,
            &what,
        );
        assert_mismatch(
            a.spgemm_with::<MinPlus<f64>>(&b, engine),
            "spgemm",
            want,
            &what,
        );
        assert_mismatch(
            SpgemmPlan::<PlusTimes<f64>>::new(&a, &b, engine),
            "spgemm",
            want,
            &what,
        );
        let rows = [0..1, 1..2];
        let blocks =
            spgemm_blocks::multiply_rows::<PlusTimes<f64>>(&a, &b, &rows, engine, |_, _| Ok(()));
        assert_mismatch(blocks, "spgemm", want, &what);
    }
    assert_mismatch(
        spgemm_blocks::check_c_fits(&a, &b),
        "spgemm",
        want,
        "check_c_fits",
    );
    assert_mismatch(
        spgemm_blocks::RowBlocks::plan(&a, &b, 1 << 20),
        "spgemm",
        want,
        "RowBlocks",
    );
    assert_mismatch(
        spgemm_blocks::rows_by_products(&a, &b, 4),
        "spgemm",
        want,
        "rows_by_products",
    );
    // The cuda engine's own entry points check shapes before they look for
    // a GPU, so the answer is the same with or without one.
    #[cfg(feature = "gpu")]
    {
        use spmx::engine::cuda::spgemm as cuda;
        assert_mismatch(
            cuda::spgemm::<PlusTimes<f64>>(&a, &b),
            "spgemm",
            want,
            "cuda::spgemm",
        );
        assert_mismatch(
            cuda::spgemm_with::<MinPlus<f64>>(&a, &b, Default::default()),
            "spgemm",
            want,
            "cuda::spgemm_with",
        );
    }
}

#[test]
fn resident_spgemm_of_mismatched_shapes_is_an_error() {
    let want = "spgemm: A.ncols() != B.nrows() (2×3 times 2×3)";
    for engine in [Engine::Serial, Engine::Cpu, Engine::Auto] {
        let r = Resident::new(a(), engine).unwrap();
        assert_mismatch(
            r.spgemm::<MinPlus<f64>>(&r),
            "spgemm",
            want,
            &format!("on {engine}"),
        );
    }
}

#[test]
fn spmm_of_mismatched_shapes_is_an_error_everywhere() {
    let (a, b) = (a(), Dense::filled(4, 5, 0.0).unwrap());
    let want = "spmm: A.ncols() != B.nrows() (2×3 times 4×5)";
    assert_mismatch(a.spmm(&b), "spmm", want, "Csr::spmm");
    for engine in ENGINES {
        let what = format!("on {engine}");
        assert_mismatch(
            ops::spmm::<PlusTimes<f64>>(&a, &b, engine),
            "spmm",
            want,
            &what,
        );
        assert_mismatch(a.spmm_with::<MinPlus<f64>>(&b, engine), "spmm", want, &what);
    }
    #[cfg(feature = "gpu")]
    assert_mismatch(
        ops::spmm_kernel::<PlusTimes<f64>>(&a, &b, ops::SpmmKernel::Auto),
        "spmm",
        want,
        "spmm_kernel",
    );
    #[cfg(feature = "gpu")]
    assert_mismatch(
        spmx::engine::cuda::spmm::spmm::<PlusTimes<f64>>(&a, &b),
        "spmm",
        want,
        "cuda::spmm",
    );
}

/// SpMV of every format with an `x` of `len` on every engine.
fn check_spmv(format: &str, m: &impl SpmvFormat<f64>, len: usize) {
    let want = format!("spmv: A.ncols() != x.len() (2×3 times a vector of {len})");
    let x = vec![1.0; len];
    for engine in ENGINES {
        let what = format!("{format} on {engine}");
        assert_mismatch(
            ops::spmv::<PlusTimes<f64>>(m, &x, engine),
            "spmv",
            &want,
            &what,
        );
        assert_mismatch(
            ops::spmv::<MinPlus<f64>>(m, &x, engine),
            "spmv",
            &want,
            &what,
        );
    }
}

#[test]
fn spmv_with_x_of_the_wrong_length_is_an_error_everywhere() {
    let a = a();
    for len in [0, 2, 4] {
        check_spmv("csr", &a, len);
        check_spmv("coo", &a.to_coo(), len);
        check_spmv("csc", &Csc::from_csr(&a), len);
        check_spmv("ell", &Ell::from_csr(&a).unwrap(), len);
        check_spmv("hyb", &Hyb::from_csr(&a), len);
        check_spmv("sell", &Sell::from_csr(&a, 2, 2).unwrap(), len);
        check_spmv("bsr", &Bsr::from_csr(&a, 2).unwrap(), len);
        check_spmv("dense", &Dense::from_csr(&a, 0.0).unwrap(), len);
        let want = format!("spmv: A.ncols() != x.len() (2×3 times a vector of {len})");
        let x = vec![1.0; len];
        assert_mismatch(a.spmv(&x), "spmv", &want, "Csr::spmv");
        assert_mismatch(a.to_coo().spmv(&x), "spmv", &want, "Coo::spmv");
        for engine in ENGINES {
            assert_mismatch(
                a.spmv_with::<PlusTimes<f64>>(&x, engine),
                "spmv",
                &want,
                "spmv_with",
            );
        }
        #[cfg(feature = "gpu")]
        assert_mismatch(
            ops::spmv_kernel::<PlusTimes<f64>>(&a, &x, ops::SpmvKernel::Auto),
            "spmv",
            &want,
            "spmv_kernel",
        );
    }
}

#[test]
fn ewise_add_of_different_shapes_is_an_error_everywhere() {
    let (a, b) = (a(), Csr::<f64>::empty(3, 2));
    let want = "ewise_add: A.shape() != B.shape() (2×3 and 3×2)";
    for engine in ENGINES {
        let what = format!("on {engine}");
        assert_mismatch(
            ops::ewise_add::<PlusTimes<f64>>(&a, &b, engine),
            "ewise_add",
            want,
            &what,
        );
        assert_mismatch(
            a.ewise_add_with::<MinPlus<f64>>(&b, engine),
            "ewise_add",
            want,
            &what,
        );
    }
}

#[test]
fn shapes_are_checked_before_the_semirings_domain() {
    // A value outside max-times' domain and shapes that do not fit: the
    // shapes are named, the first broken contract.
    let neg = Csr::try_new(1, 1, vec![0, 1], vec![0], vec![-1.0]).unwrap();
    let b = Csr::<f64>::empty(2, 2);
    let e = ops::spgemm::<spmx::MaxTimes<f64>>(&neg, &b, Engine::Serial).unwrap_err();
    assert!(matches!(e, Error::Mismatch { .. }), "{e}");
}

#[test]
fn a_coo_of_any_shape_reports_its_own() {
    let coo = Coo::<f64>::new(5, 7).unwrap();
    let e = coo.spmv(&[1.0; 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "spmv: A.ncols() != x.len() (5×7 times a vector of 3)"
    );
}
