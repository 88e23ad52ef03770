//! Each semiring's domain, enforced: max-times is defined on values ≥ 0,
//! so a negative input value is an error naming the operand, its place
//! and the value, in every operation (SpGEMM, its plan, SpMV on every
//! format, SpMM, element-wise add) on every engine here (cuda where there
//! is a GPU); the other semirings take any value. `−0` counts as 0 under
//! max-times, and SpMV, SpMM and SpGEMM then give the same bits.

use spmx::engine::{Engine, Op};
use spmx::format::{Bsr, Csc, Dense, Ell, Hyb, Sell};
use spmx::ops::{self, SpgemmPlan, SpmvFormat};
use spmx::{Coo, Csr, Float, MaxTimes, MinPlus, Scalar, Semiring};

/// The engines here that run `op`: serial, cpu, and cuda where a GPU is
/// present (said when it is not).
fn engines(op: Op) -> Vec<Engine> {
    let mut engines = vec![Engine::Serial, Engine::Cpu];
    match Engine::Cuda.resolve(op) {
        Ok(cuda) => engines.push(cuda),
        Err(e) => println!("not on cuda: {e}"),
    }
    engines
}

/// 2×3, entries (0,0) = 1, (0,2) = 2, (1,1) = 3, (1,2) = 4; `bad` replaces
/// the value at `(row, column)` when given.
fn a<T: Scalar>(bad: Option<(usize, usize, f64)>) -> Csr<T> {
    let mut coo = Coo::new(2, 3).unwrap();
    for (i, j, v) in [(0, 0, 1.0), (0, 2, 2.0), (1, 1, 3.0), (1, 2, 4.0)] {
        let v = match bad {
            Some((bi, bj, b)) if (bi, bj) == (i, j) => b,
            _ => v,
        };
        coo.push(i, j, T::from_f64(v)).unwrap();
    }
    coo.to_csr()
}

/// Asserts that `result` is the domain error for `value` at `place` of
/// `operand` under `S`.
#[track_caller]
fn refused<S: Semiring, R>(result: spmx::Result<R>, operand: &str, place: &str, value: &str) {
    let Err(e) = result else {
        panic!("{}: {operand} at {place} was accepted", S::NAME)
    };
    let e = e.to_string();
    assert!(
        e.contains(&format!(
            "{operand} holds {value} at {place} (counted from 0)"
        )) && e.contains("max-times is only defined on values ≥ 0"),
        "{e}"
    );
}

/// Every operation refuses a negative value in each of its operands, on
/// every engine and both value types.
#[test]
fn max_times_negative_is_refused_on_every_op_and_engine() {
    fn check<T: Scalar + Float>() {
        type S<T> = MaxTimes<T>;
        let good: Csr<T> = a(None);
        let bad: Csr<T> = a(Some((1, 2, -2.0)));
        let b_good = good.transpose();
        let b_bad = a::<T>(Some((0, 2, -0.5))).transpose();
        let x = vec![T::from_f64(1.0); 3];
        let mut x_bad = x.clone();
        x_bad[1] = T::from_f64(-3.0);
        let dense = |m: &Csr<T>| Dense::from_csr(m, T::from_f64(0.0)).unwrap();
        let (v, v_b) = (
            format!("{:?}", T::from_f64(-2.0)),
            format!("{:?}", T::from_f64(-0.5)),
        );
        for engine in engines(Op::Spgemm) {
            refused::<S<T>, _>(
                ops::spgemm::<S<T>>(&bad, &b_good, engine),
                "A",
                "row 1, column 2",
                &v,
            );
            refused::<S<T>, _>(
                ops::spgemm::<S<T>>(&good, &b_bad, engine),
                "B",
                "row 2, column 0",
                &v_b,
            );
            let plan = SpgemmPlan::<S<T>>::new(&bad, &b_good, engine);
            refused::<S<T>, _>(plan, "A", "row 1, column 2", &v);
            let plan = SpgemmPlan::<S<T>>::new(&good, &b_bad, engine);
            refused::<S<T>, _>(plan, "B", "row 2, column 0", &v_b);
            let mut plan = SpgemmPlan::<S<T>>::new(&good, &b_good, engine).unwrap();
            let numeric = plan.numeric(bad.values(), b_good.values()).map(|_| ());
            refused::<S<T>, _>(numeric, "A's new values", "element 3", &v);
            let numeric = plan.numeric(good.values(), b_bad.values()).map(|_| ());
            refused::<S<T>, _>(numeric, "B's new values", "element 2", &v_b);
        }
        for engine in engines(Op::Spmm) {
            refused::<S<T>, _>(
                ops::spmm::<S<T>>(&bad, &dense(&b_good), engine),
                "A",
                "row 1, column 2",
                &v,
            );
            refused::<S<T>, _>(
                ops::spmm::<S<T>>(&good, &dense(&b_bad), engine),
                "B",
                "row 2, column 0",
                &v_b,
            );
        }
        for engine in engines(Op::Spmv) {
            spmv_refused_on_every_format::<T>(&bad, &x, engine, &v);
            refused::<S<T>, _>(
                ops::spmv::<S<T>>(&good, &x_bad, engine),
                "x",
                "element 1",
                &format!("{:?}", x_bad[1]),
            );
        }
        for engine in engines(Op::EwiseAdd) {
            refused::<S<T>, _>(
                ops::ewise_add::<S<T>>(&bad, &good, engine),
                "A",
                "row 1, column 2",
                &v,
            );
            refused::<S<T>, _>(
                ops::ewise_add::<S<T>>(&good, &bad, engine),
                "B",
                "row 1, column 2",
                &v,
            );
        }
    }
    check::<f64>();
    check::<f32>();
}

/// SpMV on each format names the place of A's negative value, found by
/// the format's own walk.
fn spmv_refused_on_every_format<T: Scalar + Float>(bad: &Csr<T>, x: &[T], engine: Engine, v: &str) {
    fn on<T: Scalar + Float>(
        a: &impl SpmvFormat<T>,
        x: &[T],
        engine: Engine,
        v: &str,
        format: &str,
    ) {
        let y = ops::spmv::<MaxTimes<T>>(a, x, engine);
        let place = "row 1, column 2";
        let Err(e) = y else {
            panic!("{format} on {engine}: accepted")
        };
        let e = e.to_string();
        assert!(
            e.contains(&format!("A holds {v} at {place}")),
            "{format} on {engine}: {e}"
        );
    }
    on(bad, x, engine, v, "csr");
    on(&bad.to_coo(), x, engine, v, "coo");
    on(&Csc::from_csr(bad), x, engine, v, "csc");
    on(&Ell::from_csr(bad).unwrap(), x, engine, v, "ell");
    on(
        &Hyb::from_csr_with_width(bad, 1).unwrap(),
        x,
        engine,
        v,
        "hyb",
    );
    on(&Sell::from_csr(bad, 2, 2).unwrap(), x, engine, v, "sell");
    on(&Bsr::from_csr(bad, 2).unwrap(), x, engine, v, "bsr");
    on(
        &Dense::from_csr(bad, T::from_f64(0.0)).unwrap(),
        x,
        engine,
        v,
        "dense",
    );
}

/// With the GPU kernel chosen by name, the same refusals.
#[cfg(feature = "gpu")]
#[test]
fn max_times_negative_is_refused_by_the_cuda_kernels() {
    use spmx::ops::{SpmmKernel, SpmvKernel};
    type S = MaxTimes<f64>;
    let (good, bad) = (a::<f64>(None), a::<f64>(Some((1, 2, -2.0))));
    let b = Dense::from_csr(&good.transpose(), 0.0).unwrap();
    let x = [1.0, -3.0, 1.0];
    // Refused before the GPU is asked for: no device needed.
    let run = ops::spmv_kernel::<S>(&bad, &[1.0; 3], SpmvKernel::Auto).map(|_| ());
    refused::<S, _>(run, "A", "row 1, column 2", "-2.0");
    let run = ops::spmv_kernel::<S>(&good, &x, SpmvKernel::Auto).map(|_| ());
    refused::<S, _>(run, "x", "element 1", "-3.0");
    let run = ops::spmm_kernel::<S>(&bad, &b, SpmmKernel::Auto).map(|_| ());
    refused::<S, _>(run, "A", "row 1, column 2", "-2.0");
}

/// Only max-times restricts its values: min-plus multiplies the same
/// negative operands.
#[test]
fn other_semirings_take_negative_values() {
    let bad = a::<f64>(Some((1, 2, -2.0)));
    for engine in [Engine::Serial, Engine::Cpu] {
        let c = ops::spgemm::<MinPlus<f64>>(&bad, &bad.transpose(), engine).unwrap();
        assert_eq!(c.get(1, 1), Some(-4.0), "{engine}");
        let y = ops::spmv::<MinPlus<f64>>(&bad.to_coo(), &[0.0, -1.0, 0.0], engine).unwrap();
        assert_eq!(y, [1.0, -2.0], "{engine}");
    }
}

/// Under max-times `−0` is 0: in A and in x it is accepted, and SpMV, SpMM
/// and SpGEMM (x as a sparse column with every entry stored) give the
/// same bits, +0 where a row's products are all zeros.
#[test]
fn max_times_negative_zero_reads_as_zero_with_the_same_bits() {
    type S = MaxTimes<f64>;
    // Row 0: −0 and 2·(−0); row 1: 0·1 and −0·(−0); row 2: 3·1.
    let a = Csr::try_new(
        3,
        2,
        vec![0, 2, 4, 5],
        vec![0, 1, 0, 1, 0],
        vec![-0.0, 2.0, 0.0, -0.0, 3.0],
    )
    .unwrap();
    let x = [1.0, -0.0];
    let x_csr = Csr::try_new(2, 1, vec![0, 1, 2], vec![0, 0], x.to_vec()).unwrap();
    let x_dense = Dense::try_new(2, 1, x.to_vec()).unwrap();
    for engine in engines(Op::Spgemm) {
        let y = ops::spmv::<S>(&a, &x, engine).unwrap();
        let c = ops::spmm::<S>(&a, &x_dense, engine).unwrap();
        let g = ops::spgemm::<S>(&a, &x_csr, engine).unwrap();
        for (i, &yi) in y.iter().enumerate() {
            assert_eq!(
                yi.to_bits(),
                c.get(i, 0).to_bits(),
                "SpMM row {i} on {engine}"
            );
            assert_eq!(
                yi.to_bits(),
                g.get(i, 0).unwrap().to_bits(),
                "SpGEMM row {i} on {engine}"
            );
        }
        let bits: Vec<u64> = y.iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, [0.0f64, 0.0, 3.0].map(f64::to_bits), "{engine}");
    }
}
