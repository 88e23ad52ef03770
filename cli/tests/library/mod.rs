//! The library's side of the CLI's tests: reading the files the CLI reads
//! and writes, the test data and real matrices, and each semiring's values
//! as the CLI takes and gives them (`f64`, `bool` as 0 or 1).
#![allow(dead_code)] // each test binary uses a subset

use crate::common::{self, real_data_dir};
use crate::run::s;
use spmx::format::Dense;
use spmx::io::{Field, ReadOptions, read_mtx, write_mtx};
use spmx::{Csr, Scalar, Semiring};
use std::path::{Path, PathBuf};

pub fn read_csr(path: &Path) -> Csr<f64> {
    read_mtx::<f64>(path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .coo
        .to_csr()
}

pub fn test_data(name: &str) -> PathBuf {
    common::repository().join("tests/data").join(name)
}

/// `name` in the real-matrix folder, or `None` (having said why) when the
/// folder is absent.
pub fn real(name: &str) -> Option<PathBuf> {
    let dir = real_data_dir();
    if !dir.join("MANIFEST.tsv").exists() {
        println!(
            "skipping: no MANIFEST.tsv in {} (set SPMX_REAL_DATA to the real-matrix folder)",
            dir.display()
        );
        return None;
    }
    Some(dir.join(name))
}

/// Every matrix in the real-matrix folder, or `None` (having said why).
pub fn real_matrices() -> Option<Vec<PathBuf>> {
    let dir = real("")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| s(p).ends_with(".mtx.gz") || s(p).ends_with(".mtx"))
        .collect();
    files.sort();
    Some(files)
}

// ---- semirings on the test side: the CLI's f64 ↔ the semiring's values ----

/// Runs `$body` with `$S` the semiring the CLI names `$name`, in the
/// instance the CLI computes in (`f64`, or the only one: or-and's `bool`);
/// or lists the names of [`spmx::for_each_semiring!`] (`names!()`).
macro_rules! with_semiring {
    ($name:expr, |$S:ident| $body:expr) => {
        spmx::for_each_semiring!(with_semiring! { @run $name, $S, $body; })
    };
    (names) => {
        spmx::for_each_semiring!(with_semiring! { @names })
    };
    (@run $name:expr, $S:ident, $body:expr;
     $($n:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {{
        let name: &str = $name;
        'found: {
            $(if name == <with_semiring!(@cli $($t => $T),+) as Semiring>::NAME {
                type $S = with_semiring!(@cli $($t => $T),+);
                break 'found $body;
            })*
            panic!("unknown semiring {name}")
        }
    }};
    (@names $($n:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {
        [$(<with_semiring!(@cli $($t => $T),+) as Semiring>::NAME),*]
    };
    (@cli f64 => $T:ty $(, $($rest:tt)*)?) => { $T };
    (@cli $t:ident => $T:ty) => { $T };
    (@cli $t:ident => $T:ty, $($rest:tt)*) => { with_semiring!(@cli $($rest)*) };
}

pub const SEMIRINGS: &[&str] = &with_semiring!(names);

/// `path` as `semiring` may take it: for max-times, defined on values ≥ 0,
/// a copy in `dir` holding the values' magnitudes; for the others, `path`
/// itself.
pub fn in_domain(semiring: &str, path: &Path, dir: &Path) -> PathBuf {
    if semiring != "max-times" {
        return path.to_path_buf();
    }
    let mut m = read_csr(path);
    m.values_mut().iter_mut().for_each(|v| *v = v.abs());
    let name = path.file_name().unwrap().to_str().unwrap();
    let copy = dir.join(format!("nonnegative-{name}"));
    write_mtx(&copy, &m, Field::Real).unwrap();
    copy
}

/// What the CLI documents: numeric semirings use the values, or-and takes
/// nonzero as true and 0 as false; results come back as `f64` (`bool` as 0
/// or 1).
pub trait CliSide: Scalar {
    fn input(m: &Csr<f64>) -> Csr<Self>;
}
impl CliSide for f64 {
    fn input(m: &Csr<f64>) -> Csr<f64> {
        m.clone()
    }
}
impl CliSide for bool {
    fn input(m: &Csr<f64>) -> Csr<bool> {
        m.map(|v| v != 0.0)
    }
}

pub fn to_cli<T: Scalar>(m: &Csr<T>) -> Csr<f64> {
    m.map(T::to_f64)
}

/// `x` (stored entries) as the dense operand the CLI makes of it.
pub fn dense<S: Semiring>(x: &Csr<f64>) -> Dense<S::Value>
where
    S::Value: CliSide,
{
    Dense::from_csr(&CliSide::input(x), S::zero()).unwrap()
}

/// The values of a dense result file, which must list every element.
pub fn dense_values(path: &Path, shape: (usize, usize)) -> Vec<u64> {
    let m = read_csr(path);
    assert_eq!(m.shape(), shape, "{}", path.display());
    assert_eq!(
        m.nnz(),
        shape.0 * shape.1,
        "{} lists every entry",
        path.display()
    );
    m.values().iter().map(|v| v.to_bits()).collect()
}

pub fn bits<T: Scalar>(values: &[T]) -> Vec<u64> {
    values.iter().map(|v| v.to_f64().to_bits()).collect()
}

pub const FORMATS: [&str; 7] = ["csr", "coo", "csc", "ell", "hyb", "sell", "bsr"];

/// A small matrix with negative values and an explicit zero, written to
/// `dir/a.mtx`.
pub fn small_matrix(dir: &Path) -> (PathBuf, Csr<f64>) {
    let mut a = spmx::generate::uniform(70, 50, 0, 9, 3).unwrap();
    for (k, v) in a.values_mut().iter_mut().enumerate() {
        *v = if k % 5 == 0 { -*v } else { *v * 4.0 };
    }
    if let Some(v) = a.values_mut().get_mut(3) {
        *v = 0.0;
    }
    let path = dir.join("a.mtx");
    write_mtx(&path, &a, Field::Real).unwrap();
    (path, a)
}
