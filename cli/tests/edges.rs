//! The `spmx` binary at the edges, each test named after what it holds: a
//! product or a shape larger than memory (under 4 GiB and 8 GiB
//! address-space caps), options that cannot apply, names and bytes a
//! terminal must not see raw, outputs checked before the work, hints that
//! lead to the fix, pipes (`-`), the summary on standard error, dense
//! results as MatrixMarket arrays, and progress on a terminal.

#[path = "../../tests/common/mod.rs"]
mod common;
mod run;

use run::{CAP_4_GIB, CAP_8_GIB, limited, run, run_with_input, s, spmx, tempdir};
use spmx::io::{ReadOptions, read_mtx};
use spmx::{Csr, Engine, PlusTimes, ops};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `text` written to `dir/name`; the path.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const HEADER: &str = "%%MatrixMarket matrix coordinate real general\n";

fn read_csr(path: &Path) -> Csr<f64> {
    read_mtx::<f64>(path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .coo
        .to_csr()
}

/// A small matrix: `[[1, 2, 0], [0, 0, 3], [4, 0, 5]]`.
fn small(dir: &Path) -> PathBuf {
    file(
        dir,
        "a.mtx",
        &format!("{HEADER}3 3 5\n1 1 1\n1 2 2\n2 3 3\n3 1 4\n3 3 5\n"),
    )
}

/// A power-law graph of `rows` rows that `spmx gen` writes to `dir/name`.
fn graph(dir: &Path, name: &str, rows: usize) -> PathBuf {
    let path = dir.join(name);
    let rows = rows.to_string();
    let args = [
        "gen",
        "power-law",
        "--rows",
        &rows,
        "--mean",
        "12",
        "--seed",
        "3",
    ];
    spmx(dir, &[&args[..], &["-o", s(&path)]].concat()).success();
    path
}

/// Issue item 1: C = A·A larger than the memory C may take (`--memory`)
/// is computed in row blocks, each written as it finishes: the file holds
/// the whole product, bit for bit, and the summary says how many blocks.
#[test]
fn a_product_larger_than_its_memory_is_written_in_row_blocks() {
    let dir = tempdir();
    let g = graph(dir.path(), "g.mtx", 20_000);
    let a = read_csr(&g);
    let want = ops::spgemm::<PlusTimes<f64>>(&a, &a, Engine::Serial).unwrap();
    let out = dir.path().join("c.mtx");
    for engine in ["cpu", "serial"] {
        let args = [
            "spgemm",
            s(&g),
            "--engine",
            engine,
            "--memory",
            "8M",
            "-o",
            s(&out),
        ];
        let r = spmx(dir.path(), &args).success();
        assert!(
            r.stderr.contains("row blocks, each written as it finished"),
            "{}",
            r.stderr
        );
        assert!(
            read_csr(&out).same_bits(&want),
            "{engine}: the blocks differ from the product"
        );
    }
}

/// Issue item 1: the same where the limit is the process's own (an
/// address-space cap of 100 MB against a C of 95 MB, so that C, A and the
/// process cannot fit together): the product completes in row blocks,
/// counted and let go, instead of aborting as it did.
#[cfg(unix)]
#[test]
fn a_product_larger_than_memory_under_a_cap_is_computed_in_row_blocks() {
    let dir = tempdir();
    let g = graph(dir.path(), "g.mtx", 60_000);
    let a = read_csr(&g);
    let want = ops::spgemm::<PlusTimes<f64>>(&a, &a, Engine::Cpu).unwrap();
    assert!(
        want.nnz() * 12 > 90_000_000,
        "C has only {} entries",
        want.nnz()
    );
    let mut command = limited(100_000);
    command.env("MALLOC_ARENA_MAX", "1");
    let r = run(command, dir.path(), &["spgemm", s(&g), "--engine", "cpu"]).success();
    assert!(r.stderr.contains("row blocks"), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{} entries", want.nnz())),
        "{}",
        r.stderr
    );
}

/// Issue item 2: shapes whose row pointers are gigabytes, one entry, under
/// 4 GiB and 8 GiB caps: every command gives the answer or a `too large`
/// error naming the bytes, never an abort (the runner fails a killed run).
#[cfg(unix)]
#[test]
fn copies_of_a_huge_shape_are_answers_or_errors_never_aborts() {
    let dir = tempdir();
    let out = dir.path().join("out.mtx");
    for (name, size, cap) in [
        ("300m.mtx", "300000000 300000000 1", CAP_4_GIB),
        ("1g.mtx", "1000000000 1000000000 1", CAP_8_GIB),
        ("wide.mtx", "1 1000000000 1", CAP_4_GIB),
    ] {
        let f = file(dir.path(), name, &format!("{HEADER}{size}\n1 1 2\n"));
        let cases: [&[&str]; 5] = [
            &["convert", s(&f), s(&out)],
            &["spgemm", s(&f), "--engine", "cpu"],
            &["spgemm", s(&f), "--transpose-b", "--engine", "cpu"],
            &["spgemm", s(&f), "--engine", "serial"],
            &["apsp", s(&f), "--engine", "cpu"],
        ];
        for args in cases {
            let r = run(limited(cap), dir.path(), args);
            if !r.ok {
                let e = &r.stderr;
                let clear = e.contains("too large: ") && e.contains(" bytes")
                    || e.contains("square")
                    || e.contains("cannot multiply");
                assert!(clear, "{}: {e}", r.args);
                assert!(!e.contains("panicked"), "{}: {e}", r.args);
            }
        }
    }
}

/// Size lines whose row or column pointers alone are gigabytes, run under
/// a 4 GB address-space limit so that the result does not depend on the
/// machine: no command aborts; those that need the pointers (`info` sizes
/// CSC, so all three) fail with the file, what is too large and the bytes,
/// and `info` prints nothing of its report.
#[cfg(unix)]
#[test]
fn huge_dimensions_is_error_not_abort() {
    let dir = tempdir();
    for (name, size) in [
        ("rows.mtx", "4294967295 1 1"),
        ("cols.mtx", "1 4294967295 1"),
        ("square.mtx", "1000000000 1000000000 1"),
    ] {
        let file = file(dir.path(), name, &format!("{HEADER}{size}\n1 1 1\n"));
        let out = dir.path().join("out.mtx");
        let must_fail: [&[&str]; 3] = [
            &["info", s(&file)],
            &["convert", s(&file), s(&out), "--format", "csc"],
            &["spmv", s(&file), "--engine", "cpu", "--format", "csc"],
        ];
        for args in must_fail {
            let r = run(limited(4_000_000), dir.path(), args).failure();
            assert!(r.stderr.contains(name), "{}: {}", r.args, r.stderr);
            assert!(r.stderr.contains("too large: "), "{}: {}", r.args, r.stderr);
            assert!(r.stderr.contains(" bytes"), "{}: {}", r.args, r.stderr);
            assert_eq!(r.stdout, "", "{}", r.args);
        }
        // These may fail for other reasons (shapes), but never abort.
        let never_abort: [&[&str]; 4] = [
            &["convert", s(&file), s(&out), "--format", "sell"],
            &["convert", s(&file), s(&out), "--format", "hyb"],
            &["spgemm", s(&file), "--engine", "cpu"],
            &["apsp", s(&file), "--engine", "cpu"],
        ];
        for args in never_abort {
            run(limited(4_000_000), dir.path(), args);
        }
    }
}

/// Issue item 4: `--threads` past 8 a core is refused at once, naming the
/// most; 0 too.
#[test]
fn threads_past_eight_per_core_are_refused() {
    let dir = tempdir();
    let a = small(dir.path());
    for n in ["100000", "0"] {
        let r = spmx(
            dir.path(),
            &["spgemm", s(&a), "--engine", "cpu", "--threads", n],
        );
        let r = r.failure();
        assert!(r.stderr.contains("--threads"), "{}", r.stderr);
    }
    let r = spmx(
        dir.path(),
        &["spgemm", s(&a), "--engine", "cpu", "--threads", "100000"],
    );
    assert!(r.stderr.contains("per core"), "{}", r.stderr);
}

/// Issue item 6: an option that does not apply to the engine that runs is
/// an error, not ignored.
#[test]
fn options_that_do_not_apply_to_the_engine_are_errors() {
    let dir = tempdir();
    let a = small(dir.path());
    let r = spmx(dir.path(), &["spmv", s(&a), "--rank-engine", "cpu"]).failure();
    assert!(
        r.stderr.contains("--rank-engine") && r.stderr.contains("--engine mpi"),
        "{}",
        r.stderr
    );
    let r = spmx(
        dir.path(),
        &["spgemm", s(&a), "--engine", "serial", "--threads", "2"],
    );
    let r = r.failure();
    assert!(
        r.stderr.contains("--threads sizes the cpu engine"),
        "{}",
        r.stderr
    );
    spmx(
        dir.path(),
        &["spgemm", s(&a), "--engine", "cpu", "--threads", "2"],
    )
    .success();
}

/// Issue item 6: control bytes from a file name or a file's line are
/// escaped in messages: an `ESC ]0;…BEL` title sequence does not reach the
/// terminal raw.
#[test]
fn control_bytes_in_names_and_lines_are_escaped() {
    let dir = tempdir();
    let evil = "x\u{1b}]0;owned\u{7}.mtx";
    let bad = file(
        dir.path(),
        evil,
        &format!("{HEADER}2 2 1\n1 1 \u{1b}]0;owned\u{7}\n"),
    );
    let r = spmx(dir.path(), &["info", s(&bad)]).failure();
    assert!(
        !r.stderr.contains('\u{1b}') && !r.stderr.contains('\u{7}'),
        "{:?}",
        r.stderr
    );
    assert!(r.stderr.contains("\\x1b"), "{:?}", r.stderr);
    let missing = dir.path().join("gone\u{1b}[2J.mtx");
    let r = spmx(dir.path(), &["info", s(&missing)]).failure();
    assert!(!r.stderr.contains('\u{1b}'), "{:?}", r.stderr);
}

/// Issue item 6: a 251-character output name works, and replacing an
/// output keeps its mode.
#[cfg(unix)]
#[test]
fn long_output_names_work_and_replacing_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let a = small(dir.path());
    let long = dir.path().join(format!("{}.mtx", "c".repeat(247)));
    spmx(dir.path(), &["spgemm", s(&a), "-o", s(&long)]).success();
    assert_eq!(read_csr(&long).nnz(), 8);
    let out = dir.path().join("kept.mtx");
    std::fs::write(&out, "old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    spmx(dir.path(), &["spgemm", s(&a), "-o", s(&out)]).success();
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// Issue item 7: an output that cannot be written fails before the work
/// starts, naming the directory, with no summary of work done.
#[test]
fn an_output_that_cannot_be_written_fails_before_the_work() {
    let dir = tempdir();
    let a = small(dir.path());
    for args in [
        &["spgemm", "-o", "/nonexistent/C.mtx"][..],
        &["spmv", s(&a), "-o", "/nonexistent/y.mtx"],
        &["spmm", s(&a), "-o", "/nonexistent/C.mtx"],
        &["convert", s(&a), "/nonexistent/b.mtx"],
        &["apsp", s(&a), "-o", "/nonexistent/D.mtx"],
        &["spgemm", s(&a), "--json", "/nonexistent/s.json"],
    ] {
        let r = spmx(dir.path(), args).failure();
        assert!(
            r.stderr.contains("/nonexistent"),
            "{}: {}",
            r.args,
            r.stderr
        );
        assert!(!r.stderr.contains("multiply"), "{}: {}", r.args, r.stderr);
    }
}

/// Issue item 8: a 0-based file's error leads to `--index-base 0`, not to
/// `--drop-invalid`; bench without a GPU does not offer `--engine`; the
/// help says what bench races.
#[test]
fn hints_lead_to_the_fix() {
    let dir = tempdir();
    let zero = file(
        dir.path(),
        "zero.mtx",
        &format!("{HEADER}2 2 2\n0 0 1\n1 1 2\n"),
    );
    let r = spmx(dir.path(), &["info", s(&zero)]).failure();
    assert!(r.stderr.contains("--index-base 0"), "{}", r.stderr);
    if Engine::Cuda.resolve(spmx::engine::Op::Spmv).is_err() {
        let r = spmx(dir.path(), &["bench", "spmv", "--suite", "gpu-default"]).failure();
        assert!(!r.stderr.contains("; use --engine cpu"), "{}", r.stderr);
        assert!(r.stderr.contains("needs an NVIDIA GPU"), "{}", r.stderr);
    }
    let r = spmx(dir.path(), &["--help"]).success();
    assert!(
        r.stdout.contains("spgemm); needs an NVIDIA GPU"),
        "{}",
        r.stdout
    );
}

/// Issue item 9: `-` is standard input and output; the summary goes to
/// standard error, so `-o -` writes the matrix alone; `--quiet` and
/// `--json` say where the summary goes.
#[test]
fn dash_is_standard_input_and_output_and_the_summary_is_apart() {
    let dir = tempdir();
    let a = small(dir.path());
    let text = std::fs::read(&a).unwrap();
    let spmx_bin = || Command::new(env!("CARGO_BIN_EXE_spmx"));
    let r = run_with_input(spmx_bin(), dir.path(), &["info", "-"], Some(&text)).success();
    assert!(r.stdout.contains("3 × 3"), "{}", r.stdout);
    let r = run_with_input(
        spmx_bin(),
        dir.path(),
        &["spgemm", "-", "-o", "-"],
        Some(&text),
    );
    let r = r.success();
    assert!(r.stdout.starts_with("%%MatrixMarket"), "{}", r.stdout);
    assert!(r.stderr.contains("spgemm: "), "{}", r.stderr);
    let c = file(dir.path(), "c.mtx", &r.stdout);
    assert_eq!(read_csr(&c).nnz(), 8);
    let r = run_with_input(spmx_bin(), dir.path(), &["convert", "-", "-"], Some(&text)).success();
    assert_eq!(read_csr(&file(dir.path(), "b.mtx", &r.stdout)).nnz(), 5);
    let json = dir.path().join("s.json");
    let r = spmx(
        dir.path(),
        &["spgemm", s(&a), "--quiet", "--json", s(&json)],
    )
    .success();
    assert_eq!(r.stderr, "");
    assert_eq!(r.stdout, "");
    let json = std::fs::read_to_string(&json).unwrap();
    assert!(json.contains("[\"C\", \"3 × 3, 8 entries\"]"), "{json}");
}

/// Issue item 9: SpMV's y and SpMM's C are written as MatrixMarket arrays.
#[test]
fn dense_results_are_matrixmarket_arrays() {
    let dir = tempdir();
    let a = small(dir.path());
    let y = dir.path().join("y.mtx");
    spmx(dir.path(), &["spmv", s(&a), "-o", s(&y)]).success();
    let text = std::fs::read_to_string(&y).unwrap();
    assert!(
        text.starts_with("%%MatrixMarket matrix array real general\n3 1\n"),
        "{text}"
    );
    let c = dir.path().join("c.mtx");
    spmx(dir.path(), &["spmm", s(&a), "--k", "2", "-o", s(&c)]).success();
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(
        text.starts_with("%%MatrixMarket matrix array real general\n3 2\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2 + 6);
}

/// Issue item 7: a long product shows its progress on a terminal (under
/// `script`, which gives it one), and none without.
#[cfg(unix)]
#[test]
fn a_long_product_shows_progress_on_a_terminal_only() {
    let dir = tempdir();
    if Command::new("script").arg("--version").output().is_err() {
        println!("skipping: no script(1) to give spmx a terminal");
        return;
    }
    let g = dir.path().join("r15.mtx");
    spmx(dir.path(), &["gen", "rmat", "--scale", "15", "-o", s(&g)]).success();
    let command = format!(
        "{} spgemm {} --engine cpu",
        env!("CARGO_BIN_EXE_spmx"),
        s(&g)
    );
    let out = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("multiplying"), "{text}");
    let r = spmx(dir.path(), &["spgemm", s(&g), "--engine", "cpu"]).success();
    assert!(!r.stderr.contains("multiplying"), "{}", r.stderr);
}
