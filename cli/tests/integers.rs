//! `--type i32|i64|u32|u64` on the command line: MatrixMarket `integer`
//! files read as integers (values past 2⁵³ exactly, where `f64` would
//! refuse them), multiplied with plus-times, plus-pair, min-plus and
//! max-plus (`+` and `×` wrapping) by `spgemm`, `spmv` and `spmm` on every
//! engine here (`auto`: cuda where there is a GPU), each result written as
//! an `integer` file that equals the serial library's product on the same
//! values; plus-pair's default type (i64); and the combinations refused,
//! each naming the fix.

#[path = "../../tests/common/mod.rs"]
mod common;
mod run;

use common::{TestScalar, assert_identical};
use run::{s, spmx, tempdir};
use spmx::format::Dense;
use spmx::io::{Field, ReadOptions, read_mtx, write_dense_mtx, write_mtx};
use spmx::{Csr, Engine, MaxPlus, MinPlus, PlusPair, PlusTimes, Scalar, Semiring, ops};
use std::path::{Path, PathBuf};

/// The engines the CLI tests run on.
const ENGINES: [&str; 3] = ["serial", "cpu", "auto"];

/// A `m × n` matrix of about `per_row` entries a row (a dense first row,
/// an empty last one), values from `value(i, j)`.
fn matrix<T: Scalar>(
    m: usize,
    n: usize,
    per_row: usize,
    value: impl Fn(usize, usize) -> T,
) -> Csr<T> {
    let mut coo = spmx::Coo::new(m, n).unwrap();
    for i in 0..m.saturating_sub(1) {
        let cols: Vec<usize> = if i == 0 {
            (0..n).collect()
        } else {
            (0..per_row).map(|k| (i * 7 + k * 13) % n).collect()
        };
        let mut cols = cols;
        cols.sort_unstable();
        cols.dedup();
        for j in cols {
            coo.push(i, j, value(i, j)).unwrap();
        }
    }
    coo.to_csr()
}

/// `m` written as a MatrixMarket `integer` file `name` in `dir`.
fn write<T: Scalar>(dir: &Path, name: &str, m: &Csr<T>) -> PathBuf {
    let path = dir.join(name);
    write_mtx(&path, m, Field::Integer).unwrap();
    path
}

/// A file read as `T` (the library's reader), as CSR.
fn read<T: Scalar>(path: &Path) -> Csr<T> {
    read_mtx::<T>(path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .coo
        .to_csr()
}

/// Signed values around ±2⁴⁰ and small ones: products wrap past 2⁶³,
/// and every value is beyond what `f64` holds exactly or small.
fn big_i64(i: usize, j: usize) -> i64 {
    let k = (i * 31 + j * 17) as i64;
    match k % 4 {
        0 => (1 << 40) + k,
        1 => -(1 << 53) - 1 - k,
        _ => k % 9 - 4,
    }
}

/// `spmx spgemm A B -o C --semiring NAME --type TYPE` on every engine
/// equals the serial library's `S` product of the files read as `T`.
fn spgemm_matches<S: Semiring>(dir: &Path, a: &Path, b: &Path, ty: &str)
where
    S::Value: TestScalar,
{
    let want = ops::spgemm::<S>(&read(a), &read(b), Engine::Serial).unwrap();
    let out = dir.join("c.mtx");
    for engine in ENGINES {
        spmx(
            dir,
            &[
                "spgemm",
                s(a),
                s(b),
                "-o",
                s(&out),
                "--semiring",
                S::NAME,
                "--type",
                ty,
                "--engine",
                engine,
            ],
        )
        .success();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.starts_with("%%MatrixMarket matrix coordinate integer general"),
            "{}",
            &text[..60.min(text.len())]
        );
        assert_identical(&read::<S::Value>(&out), &want);
    }
}

#[test]
fn spgemm_of_integer_files_matches_the_library() {
    let dir = tempdir();
    let a = write(dir.path(), "a.mtx", &matrix(40, 30, 6, big_i64));
    let b = write(
        dir.path(),
        "b.mtx",
        &matrix(30, 25, 5, |i, j| big_i64(j, i)),
    );
    spgemm_matches::<PlusTimes<i64>>(dir.path(), &a, &b, "i64");
    spgemm_matches::<PlusPair<i64>>(dir.path(), &a, &b, "i64");
    spgemm_matches::<MinPlus<i64>>(dir.path(), &a, &b, "i64");
    spgemm_matches::<MaxPlus<i64>>(dir.path(), &a, &b, "i64");
    // Unsigned and 32-bit: values that fit, products that wrap.
    let small = |i: usize, j: usize| ((i * 2_654_435_761 + j * 40_503) % 4_000_000_000) as u32;
    let a = write(dir.path(), "a32.mtx", &matrix(33, 20, 4, small));
    let b = write(
        dir.path(),
        "b32.mtx",
        &matrix(20, 33, 7, |i, j| small(j, i)),
    );
    spgemm_matches::<PlusTimes<u32>>(dir.path(), &a, &b, "u32");
    spgemm_matches::<PlusPair<u32>>(dir.path(), &a, &b, "u32");
    spgemm_matches::<MinPlus<u64>>(dir.path(), &a, &b, "u64");
    let a = write(
        dir.path(),
        "ai.mtx",
        &matrix(25, 25, 5, |i, j| (i * j) as i32 % 11 - 5),
    );
    spgemm_matches::<PlusTimes<i32>>(dir.path(), &a, &a, "i32");
    spgemm_matches::<MaxPlus<i32>>(dir.path(), &a, &a, "i32");
}

/// Plus-pair counts in i64 when `--type` is left out: A·A counts the
/// paths of length two, whatever the values.
#[test]
fn plus_pair_counts_in_i64_by_default() {
    let dir = tempdir();
    let a = write(dir.path(), "a.mtx", &matrix(30, 30, 4, big_i64));
    let out = dir.path().join("c.mtx");
    let run = spmx(
        dir.path(),
        &["spgemm", s(&a), "-o", s(&out), "--semiring", "plus-pair"],
    )
    .success();
    assert!(run.stderr.contains("plus-pair on i64"), "{}", run.stderr);
    let pattern = read::<i64>(&a).map(|_| 1i64);
    let want = ops::spgemm::<PlusTimes<i64>>(&pattern, &pattern, Engine::Serial).unwrap();
    assert_identical(&read::<i64>(&out), &want);
}

/// `spmx spmv A x -o y` and `spmx spmm A B -o C` on integers equal the
/// serial library's, x and B read from integer `array` files.
#[test]
fn spmv_and_spmm_of_integer_files_match_the_library() {
    fn check<S: Semiring>(dir: &Path, a: &Path, ty: &str)
    where
        S::Value: Scalar,
    {
        let a_csr = read::<S::Value>(a);
        let n = a_csr.ncols();
        let x: Vec<S::Value> = (0..n).map(|j| S::Value::from_f64((j % 7) as f64)).collect();
        let x_path = dir.join("x.mtx");
        write_dense_mtx(&x_path, n, 1, &x, Field::Integer).unwrap();
        let b = Dense::try_new(
            n,
            3,
            (0..3 * n)
                .map(|k| a_csr.values()[k % a_csr.nnz()])
                .collect(),
        )
        .unwrap();
        let b_path = dir.join("b.mtx");
        write_dense_mtx(&b_path, n, 3, b.as_slice(), Field::Integer).unwrap();
        let y_want = ops::spmv::<S>(&a_csr, &x, Engine::Serial).unwrap();
        let c_want = ops::spmm::<S>(&a_csr, &b, Engine::Serial).unwrap();
        let out = dir.join("out.mtx");
        for engine in ENGINES {
            let common = ["--semiring", S::NAME, "--type", ty, "--engine", engine];
            let mut args = vec!["spmv", s(a), s(&x_path), "-o", s(&out)];
            args.extend(common);
            spmx(dir, &args).success();
            let y = read_mtx::<S::Value>(&out, &ReadOptions::default()).unwrap();
            assert_eq!(
                y.coo.values(),
                &y_want[..],
                "spmv {} {ty} {engine}",
                S::NAME
            );
            let mut args = vec!["spmm", s(a), s(&b_path), "-o", s(&out)];
            args.extend(common);
            spmx(dir, &args).success();
            let c = Dense::from_csr(&read::<S::Value>(&out), S::Value::ZERO).unwrap();
            assert_eq!(
                c.as_slice(),
                c_want.as_slice(),
                "spmm {} {ty} {engine}",
                S::NAME
            );
        }
    }
    let dir = tempdir();
    let a = write(dir.path(), "a.mtx", &matrix(35, 28, 5, big_i64));
    check::<PlusTimes<i64>>(dir.path(), &a, "i64");
    check::<PlusPair<i64>>(dir.path(), &a, "i64");
    check::<MinPlus<i64>>(dir.path(), &a, "i64");
    let a = write(
        dir.path(),
        "a32.mtx",
        &matrix(35, 28, 5, |i, j| (i * 977 + j) as u32),
    );
    check::<PlusTimes<u32>>(dir.path(), &a, "u32");
    check::<MaxPlus<u32>>(dir.path(), &a, "u32");
}

/// An integer file past 2⁵³ is read as integers under `--type i64`; read
/// as f64 (no `--type`), it is refused, naming the line, never rounded.
#[test]
fn integers_past_2_53_are_read_exactly_or_refused() {
    let dir = tempdir();
    let a = write(
        dir.path(),
        "a.mtx",
        &Csr::try_new(1, 1, vec![0, 1], vec![0], vec![(1i64 << 53) + 1]).unwrap(),
    );
    let out = dir.path().join("c.mtx");
    spmx(
        dir.path(),
        &["spgemm", s(&a), "-o", s(&out), "--type", "i64"],
    )
    .success();
    let c = read::<i64>(&out);
    assert_eq!(
        c.values(),
        &[((1i64 << 53) + 1).wrapping_mul((1 << 53) + 1)]
    );
    let run = spmx(dir.path(), &["spgemm", s(&a), "-o", s(&out)]).failure();
    assert!(run.stderr.contains("a.mtx:3"), "{}", run.stderr);
}

/// The combinations the command line has no instance for are refused
/// before any work, each saying what to give instead.
#[test]
fn integer_combinations_refused_say_why() {
    let dir = tempdir();
    let a = write(dir.path(), "a.mtx", &matrix(4, 4, 2, |i, j| (i + j) as i64));
    for (args, says) in [
        (
            vec!["--semiring", "plus-pair", "--type", "f64"],
            "--type i64",
        ),
        (vec!["--semiring", "or-and", "--type", "i32"], "bool"),
        (
            vec!["--semiring", "max-times", "--type", "u64"],
            "plus-pair",
        ),
        (vec!["--semiring", "plus-times", "--type", "bool"], "or-and"),
    ] {
        for op in ["spgemm", "spmv", "spmm"] {
            let mut all = vec![op, s(&a)];
            all.extend(&args);
            let run = spmx(dir.path(), &all).failure();
            assert!(run.stderr.contains(says), "{all:?}: {}", run.stderr);
        }
    }
}
