//! `--semiring` on the command line (issue 20): or-and reads a stored 0 as
//! false and writes 0/1 values, a false entry of an SpGEMM result kept as
//! SpGEMM keeps its structural pattern, on every engine here (`auto`: cuda
//! where there is a GPU); max-min is offered under its `NAME` and agrees
//! with the library; max-times refuses a negative value, naming it; `spmx
//! apsp` takes the lightest of parallel edges, with a warning.

#[path = "../../tests/common/mod.rs"]
mod common;

use spmx::engine::Engine;
use spmx::format::Dense;
use spmx::io::{ReadOptions, read_mtx};
use spmx::{Csr, MaxMin, Semiring, ops};
use std::path::Path;
use std::process::Command;

/// The engines the CLI tests run on.
const ENGINES: [&str; 3] = ["serial", "cpu", "auto"];

/// Issue 20's A: `1 2 0` and `2 2 1`.
const A: &str = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0\n2 2 1\n";

/// `text` written as `name` in `dir`; its path.
fn file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Runs `spmx args…`, which must succeed; its standard error.
fn spmx(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_spmx"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "spmx {args:?}: {stderr}");
    stderr
}

/// Runs `spmx args…`, which must fail; its standard error.
fn spmx_fails(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_spmx"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "spmx {args:?} succeeded: {stderr}");
    stderr
}

/// A result file's entries as (row, column, value), 0-based, row by row
/// (a dense result is an `array` file, written column by column).
fn entries(path: &str) -> Vec<(u32, u32, f64)> {
    let coo = read_mtx::<f64>(Path::new(path), &ReadOptions::default())
        .unwrap()
        .coo;
    let mut entries: Vec<_> = (0..coo.nnz())
        .map(|e| (coo.rows()[e], coo.cols()[e], coo.values()[e]))
        .collect();
    entries.sort_by_key(|&(i, j, _)| (i, j));
    entries
}

/// A dense array file of `rows` rows, column by column.
fn array(rows: usize, columns: &[&[bool]]) -> String {
    let mut text = format!(
        "%%MatrixMarket matrix array real general\n{rows} {}\n",
        columns.len()
    );
    for v in columns.iter().flat_map(|c| c.iter()) {
        text.push_str(if *v { "1\n" } else { "0\n" });
    }
    text
}

/// `spmx op inputs… -o out --semiring semiring --engine engine`.
fn run(op: &str, inputs: &[&str], out: &str, semiring: &str, engine: &str) {
    let mut args = vec![op];
    args.extend(inputs);
    args.extend(["-o", out, "--semiring", semiring, "--engine", engine]);
    spmx(&args);
}

#[test]
fn or_and_stored_zero_is_false_cli_spgemm() {
    let dir = tempfile::tempdir().unwrap();
    let (a, c) = (file(dir.path(), "a.mtx", A), file(dir.path(), "c.mtx", ""));
    for engine in ENGINES {
        run("spgemm", &[&a], &c, "or-and", engine);
        // C(1,2) = 0 ∧ 1 is false, kept; C(2,2) = 1 ∧ 1.
        assert_eq!(entries(&c), [(0, 1, 0.0), (1, 1, 1.0)], "{engine}");
        let text = std::fs::read_to_string(&c).unwrap();
        assert!(text.contains("coordinate integer"), "{engine}: {text}");
    }
}

/// 1 or 0, as the CLI writes or-and values.
fn number(v: bool) -> f64 {
    f64::from(u8::from(v))
}

#[test]
fn or_and_stored_zero_is_false_cli_spmv() {
    let dir = tempfile::tempdir().unwrap();
    let (a, y) = (file(dir.path(), "a.mtx", A), file(dir.path(), "y.mtx", ""));
    for (x, want) in common::OR_AND_STORED_ZERO_SPMV {
        let x_path = file(dir.path(), "x.mtx", &array(2, &[&x]));
        let want = [(0, 0, number(want[0])), (1, 0, number(want[1]))];
        for engine in ENGINES {
            run("spmv", &[&a, &x_path], &y, "or-and", engine);
            assert_eq!(entries(&y), want, "{engine}, x = {x:?}");
        }
    }
}

#[test]
fn or_and_stored_zero_is_false_cli_spmm() {
    let dir = tempfile::tempdir().unwrap();
    let (a, c) = (file(dir.path(), "a.mtx", A), file(dir.path(), "c.mtx", ""));
    let [(x0, y0), (x1, y1)] = common::OR_AND_STORED_ZERO_SPMV;
    let b = file(dir.path(), "b.mtx", &array(2, &[&x0, &x1]));
    let want = [
        (0, 0, number(y0[0])),
        (0, 1, number(y1[0])),
        (1, 0, number(y0[1])),
        (1, 1, number(y1[1])),
    ];
    for engine in ENGINES {
        run("spmm", &[&a, &b], &c, "or-and", engine);
        assert_eq!(entries(&c), want, "{engine}");
    }
}

/// Every element of a dense result, row by row, as a result file lists it.
fn dense_entries(d: &Dense<f64>) -> Vec<(u32, u32, f64)> {
    let (m, k) = d.shape();
    (0..m)
        .flat_map(|i| (0..k).map(move |j| (i as u32, j as u32, d.get(i, j))))
        .collect()
}

/// `--semiring max-min` (the kernel guide's worked example) runs SpGEMM,
/// SpMV and SpMM and gives the library's result.
#[test]
fn max_min_on_the_command_line() {
    type S = MaxMin<f64>;
    assert_eq!(S::NAME, "max-min");
    let dir = tempfile::tempdir().unwrap();
    let a_text = "%%MatrixMarket matrix coordinate real general\n3 3 5\n\
                  1 1 4\n1 2 -1.5\n2 3 7\n3 1 2\n3 3 0\n";
    let a_path = file(dir.path(), "a.mtx", a_text);
    let x_text = "%%MatrixMarket matrix array real general\n3 1\n1\n5\n-2\n";
    let x_path = file(dir.path(), "x.mtx", x_text);
    let b_text = "%%MatrixMarket matrix array real general\n3 2\n1\n5\n-2\n0.5\n9\n3\n";
    let b_path = file(dir.path(), "b.mtx", b_text);
    let out = file(dir.path(), "out.mtx", "");

    let a: Csr<f64> = read_mtx(Path::new(&a_path), &ReadOptions::default())
        .unwrap()
        .coo
        .to_csr();
    let read_dense = |path: &str| {
        let m = read_mtx::<f64>(Path::new(path), &ReadOptions::default())
            .unwrap()
            .coo
            .to_csr();
        Dense::from_csr(&m, S::zero()).unwrap()
    };
    let (x, b) = (read_dense(&x_path), read_dense(&b_path));
    let c = ops::spgemm::<S>(&a, &a, Engine::Serial).unwrap();
    let want_c: Vec<_> = c
        .to_coo()
        .rows()
        .iter()
        .zip(c.col_idx())
        .zip(c.values())
        .map(|((&i, &j), &v)| (i, j, v))
        .collect();
    let y = ops::spmv::<S>(&a, x.as_slice(), Engine::Serial).unwrap();
    let want_y = dense_entries(&Dense::try_new(3, 1, y).unwrap());
    let want_mm = dense_entries(&ops::spmm::<S>(&a, &b, Engine::Serial).unwrap());
    for engine in ENGINES {
        run("spgemm", &[&a_path], &out, "max-min", engine);
        assert_eq!(entries(&out), want_c, "spgemm on {engine}");
        run("spmv", &[&a_path, &x_path], &out, "max-min", engine);
        assert_eq!(entries(&out), want_y, "spmv on {engine}");
        run("spmm", &[&a_path, &b_path], &out, "max-min", engine);
        assert_eq!(entries(&out), want_mm, "spmm on {engine}");
    }
}

/// `--semiring max-times` with a negative value in A, B or x: an error
/// naming the operand, the place and the value, from every operation on
/// every engine (max-times is defined on values ≥ 0).
#[test]
fn max_times_negative_is_refused_cli() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(
        dir.path(),
        "a.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2\n1 2 -3\n2 2 1\n",
    );
    let good = file(
        dir.path(),
        "good.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 2\n2 2 1\n",
    );
    let x = file(
        dir.path(),
        "x.mtx",
        "%%MatrixMarket matrix array real general\n2 1\n1\n-0.5\n",
    );
    let out = file(dir.path(), "out.mtx", "");
    let refused = |args: &[&str], engine: &str, named: &str| {
        let mut args = args.to_vec();
        args.extend(["-o", &out, "--semiring", "max-times", "--engine", engine]);
        let stderr = spmx_fails(&args);
        assert!(
            stderr.contains(named) && stderr.contains("max-times is only defined on values ≥ 0"),
            "{args:?}: {stderr}"
        );
    };
    let in_a = "A holds -3.0 at row 0, column 1 (counted from 0)";
    for engine in ENGINES {
        refused(&["spgemm", &a, &good], engine, in_a);
        refused(
            &["spgemm", &good, &a],
            engine,
            "B holds -3.0 at row 0, column 1",
        );
        refused(&["spmv", &a, &x], engine, "holds -");
        refused(&["spmv", &good, &x], engine, "x holds -0.5 at element 1");
        refused(&["spmm", &a, &x], engine, in_a);
        refused(
            &["spmm", &good, &x],
            engine,
            "B holds -0.5 at row 1, column 0",
        );
    }
    for format in ["coo", "ell", "bsr"] {
        refused(&["spmv", &a, "--format", format], "cpu", in_a);
    }
}

/// `spmx apsp` takes the lightest of parallel edges (1 → 2 by 5 or 2, and
/// 2 → 3 by 4 or 1), where COO → CSR would sum them, and warns how many
/// it combined.
#[test]
fn apsp_parallel_edges_take_the_lightest_cli() {
    let dir = tempfile::tempdir().unwrap();
    let g = file(
        dir.path(),
        "g.mtx",
        "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 5\n2 3 4\n1 2 2\n2 3 1\n",
    );
    let d = file(dir.path(), "d.mtx", "");
    for engine in ENGINES {
        let stderr = spmx(&["apsp", &g, "-o", &d, "--engine", engine]);
        assert!(
            stderr.contains(
                "g.mtx: combined 2 parallel edges (the same source and target) into the lightest"
            ),
            "{engine}: {stderr}"
        );
        let want = [
            (0, 0, 0.0),
            (0, 1, 2.0),
            (0, 2, 3.0),
            (1, 1, 0.0),
            (1, 2, 1.0),
            (2, 2, 0.0),
        ];
        assert_eq!(entries(&d), want, "{engine}");
    }
}
