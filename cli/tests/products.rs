//! The `spmx` binary's products end to end, run as a user runs them (in a
//! temporary directory): `spgemm`, `spmv` and `spmm` against the library
//! for every semiring and engine, `apsp` against the known answer, and
//! `sssp` (and `apsp --sources`) against the library.

#[path = "../../tests/common/mod.rs"]
mod common;
#[macro_use]
mod library;
mod run;

use common::assert_identical;
use library::*;
use run::{s, spmx, tempdir};
use spmx::format::{Bsr, Csc, Ell, Hyb, Sell};
use spmx::io::{Field, write_mtx};
use spmx::ops::{self, SpmvFormat};
use spmx::{Csr, Engine, PlusTimes, Scalar, Semiring};
use std::path::Path;

// ---- spgemm ----

/// The serial library's C = A ⊗ B as the CLI writes it.
fn spgemm_oracle<S: Semiring>(a: &Csr<f64>, b: &Csr<f64>) -> Csr<f64>
where
    S::Value: CliSide,
{
    let c = ops::spgemm::<S>(&CliSide::input(a), &CliSide::input(b), Engine::Serial).unwrap();
    to_cli(&c)
}

/// `spmx spgemm A B -o C` for every semiring and engine equals the serial
/// library's product.
fn spgemm_matches_the_library(dir: &Path, a_path: &Path, b_path: &Path) {
    let out = dir.join("c.mtx");
    for semiring in SEMIRINGS {
        let (a_path, b_path) = (
            &in_domain(semiring, a_path, dir),
            &in_domain(semiring, b_path, dir),
        );
        let (a, b) = (read_csr(a_path), read_csr(b_path));
        let want = with_semiring!(semiring, |S| spgemm_oracle::<S>(&a, &b));
        for engine in ["serial", "cpu", "auto"] {
            let args = [
                "spgemm",
                s(a_path),
                s(b_path),
                "-o",
                s(&out),
                "--semiring",
                semiring,
                "--engine",
                engine,
            ];
            spmx(dir, &args).success();
            assert_identical(&read_csr(&out), &want);
        }
    }
}

#[test]
fn spgemm_square_matches_the_library() {
    let Some(a) = real("bcsstk13.mtx.gz") else {
        return;
    };
    spgemm_matches_the_library(tempdir().path(), &a, &a);
}

#[test]
fn spgemm_rectangular_matches_the_library() {
    let Some(g) = real("Groebner_id2003_aug.mtx.gz") else {
        return;
    };
    let dir = tempdir();
    let gt = dir.path().join("gt.mtx");
    write_mtx(&gt, &read_csr(&g).transpose(), Field::Integer).unwrap();
    spgemm_matches_the_library(dir.path(), &g, &gt);
}

/// `--transpose-b` with A alone multiplies A by its transpose, as the bench
/// does for a rectangular A; without it, such an A is refused by name.
#[test]
fn spgemm_times_the_transpose() {
    let Some(g) = real("Groebner_id2003_aug.mtx.gz") else {
        return;
    };
    let dir = tempdir();
    let out = dir.path().join("c.mtx");
    let a = read_csr(&g);
    let want = spgemm_oracle::<PlusTimes<f64>>(&a, &a.transpose());
    for engine in ["serial", "cpu"] {
        let args = [
            "spgemm",
            s(&g),
            "--transpose-b",
            "-o",
            s(&out),
            "--engine",
            engine,
        ];
        spmx(dir.path(), &args).success();
        assert_identical(&read_csr(&out), &want);
    }
    let run = spmx(dir.path(), &["spgemm", s(&g)]).failure();
    assert!(
        run.stderr.contains("4967×2456") && run.stderr.contains("--transpose-b"),
        "{}",
        run.stderr
    );
}

#[test]
fn spgemm_default_pair_has_about_4_2m_entries() {
    let run = spmx(Path::new("."), &["spgemm"]).success();
    let line = run
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("C "))
        .unwrap_or_else(|| panic!("no C line in\n{}", run.stderr));
    let entries: usize = line
        .split(", ")
        .nth(1)
        .and_then(|e| e.strip_suffix(" entries"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("cannot read the entries in {line:?}"));
    assert!(line.contains("8191 × 8191"), "{line}");
    assert!((4_100_000..=4_300_000).contains(&entries), "{line}");
    assert!(run.stderr.contains("GFLOP/s"), "{}", run.stderr);
}

/// (With feature `mpi`, `--engine mpi` outside mpirun runs on one rank.)
#[cfg(not(feature = "mpi"))]
#[test]
fn an_engine_that_is_not_built_in_says_what_to_use() {
    let run = spmx(Path::new("."), &["spgemm", "--engine", "mpi"]).failure();
    assert!(run.stderr.contains("--engine cpu"), "{}", run.stderr);
}

// ---- apsp ----

#[test]
fn apsp_gives_the_known_distances_exactly() {
    let (Some(input), Some(output)) = (real("apsp_input.mtx.gz"), real("apsp_output.mtx.gz"))
    else {
        return;
    };
    let dir = tempdir();
    let d = dir.path().join("d.mtx");
    spmx(dir.path(), &["apsp", s(&input), "-o", s(&d)]).success();
    assert_identical(&read_csr(&d), &read_csr(&output));
}

/// `spmx apsp` on the files: an error naming the negative cycle,
/// a non-zero exit, no output written.
#[test]
fn apsp_negative_cycle_through_neg_inf_cli() {
    let dir = tempfile::tempdir().unwrap();
    let eight = "%%MatrixMarket matrix coordinate real general\n\
                 8 8 3\n1 2 -inf\n2 1 1\n1 3 1\n";
    // Issue 20: the skew-symmetric file's cycle 1 → 2 → 3 → 1 weighs −∞.
    let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n\
                3 3 3\n2 1 inf\n3 1 -1\n3 2 1\n";
    for (name, text) in [("eight.mtx", eight), ("skew.mtx", skew)] {
        let (input, output) = (dir.path().join(name), dir.path().join("d.mtx"));
        std::fs::write(&input, text).unwrap();
        for engine in ["serial", "cpu", "auto"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_spmx"))
                .arg("apsp")
                .arg(&input)
                .arg("-o")
                .arg(&output)
                .args(["--engine", engine])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && stderr.contains("negative cycle"),
                "{name} on {engine}: {stderr}"
            );
            assert!(!output.exists(), "{name} on {engine}: no output");
        }
    }
}

// ---- sssp ----

/// A graph of 6 vertices: a weighted path 0 → 1 → 2 → 3 with a shortcut,
/// vertex 4 reaching 0, vertex 5 alone; `negative` makes 1 → 2 weigh −1.
fn small_graph(dir: &Path, negative: bool) -> (std::path::PathBuf, Csr<f64>) {
    let w12 = if negative { "-1" } else { "1.5" };
    let text = format!(
        "%%MatrixMarket matrix coordinate real general\n\
         6 6 5\n1 2 0.25\n2 3 {w12}\n3 4 2\n1 4 9\n5 1 0\n"
    );
    let path = dir.join(if negative { "neg.mtx" } else { "g.mtx" });
    std::fs::write(&path, text).unwrap();
    let g = read_csr(&path);
    (path, g)
}

/// `spmx sssp G --source …` and `spmx apsp G --sources …` write the
/// library's rows on every engine, and say the method.
#[test]
fn sssp_writes_the_librarys_rows() {
    let dir = tempdir();
    let d = dir.path().join("d.mtx");
    for negative in [false, true] {
        let (g, graph) = small_graph(dir.path(), negative);
        let want = spmx::app::sssp(&graph, &[4, 0, 5, 4], Engine::Serial).unwrap();
        let method = if negative {
            "Bellman–Ford"
        } else {
            "Dijkstra"
        };
        for engine in ["serial", "cpu", "auto"] {
            let sources = ["--source", "4", "--source", "0", "--source", "5"];
            let mut args = vec!["sssp", s(&g), "-o", s(&d), "--engine", engine];
            args.extend(sources.iter().chain(&["--source", "4"]));
            let run = spmx(dir.path(), &args).success();
            assert_identical(&read_csr(&d), &want);
            assert!(run.stderr.contains(method), "{}", run.stderr);
            assert!(run.stderr.contains("sources"), "{}", run.stderr);
            let args = ["apsp", s(&g), "--sources", "4,0,5,4", "-o", s(&d)];
            spmx(dir.path(), &[&args[..], &["--engine", engine]].concat()).success();
            assert_identical(&read_csr(&d), &want);
        }
    }
}

/// `spmx apsp` says which method it took: Dijkstra for a sparse graph
/// without negative weights, squaring for one with a negative weight; the
/// distances are the library's.
#[test]
fn apsp_says_its_method() {
    let dir = tempdir();
    let d = dir.path().join("d.mtx");
    for (negative, method) in [
        (false, "Dijkstra from every vertex"),
        (true, "min-plus squaring"),
    ] {
        let (g, graph) = small_graph(dir.path(), negative);
        let want = spmx::app::apsp(&graph, Engine::Serial).unwrap().distances;
        let run = spmx(dir.path(), &["apsp", s(&g), "-o", s(&d), "--engine", "cpu"]).success();
        assert!(run.stderr.contains(method), "{}", run.stderr);
        assert_eq!(run.stderr.contains("squarings"), negative, "{}", run.stderr);
        assert_identical(&read_csr(&d), &want);
        // To standard output, the rows held back in a temporary file until
        // the count is known: the same matrix, and no file left behind.
        let spool = tempdir();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_spmx"));
        command.env("TMPDIR", spool.path());
        let args = ["apsp", s(&g), "-o", "-", "--engine", "cpu"];
        let run = run::run(command, dir.path(), &args).success();
        let piped = dir.path().join("piped.mtx");
        std::fs::write(&piped, &run.stdout).unwrap();
        assert_identical(&read_csr(&piped), &want);
        let left: Vec<_> = std::fs::read_dir(spool.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}

/// A source out of range, a negative cycle and the cuda engine (no SSSP
/// kernels) are errors that say so, with no output written.
#[test]
fn sssp_errors_say_what_is_wrong() {
    let dir = tempdir();
    let d = dir.path().join("d.mtx");
    let (g, _) = small_graph(dir.path(), false);
    let run = spmx(dir.path(), &["sssp", s(&g), "--source", "6", "-o", s(&d)]).failure();
    assert!(
        run.stderr
            .contains("source 6 (number 1 of the sources) is out of range"),
        "{}",
        run.stderr
    );
    // A negative weight: the GPU's SSSP refuses it (without a GPU, the
    // engine is not available); either way the error points to the cpu.
    let (negative, _) = small_graph(dir.path(), true);
    let run = spmx(
        dir.path(),
        &["sssp", s(&negative), "--source", "0", "--engine", "cuda"],
    )
    .failure();
    assert!(run.stderr.contains("--engine cpu"), "{}", run.stderr);
    let cycle = dir.path().join("cycle.mtx");
    std::fs::write(
        &cycle,
        "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n2 3 -2\n3 2 1\n",
    )
    .unwrap();
    for command in [
        &["sssp", s(&cycle), "--source", "0"][..],
        &["apsp", s(&cycle), "--sources", "0"],
    ] {
        let run = spmx(dir.path(), &[command, &["-o", s(&d)]].concat()).failure();
        assert!(
            run.stderr.contains("negative cycle") && run.stderr.contains("reachable from source 0"),
            "{}",
            run.stderr
        );
    }
    assert!(!d.exists(), "no output");
}

// ---- spmv and spmm ----

/// The serial or cpu library's y = A ⊗ x on `format` (the CLI's SELL and
/// BSR parameters).
fn spmv_oracle<S: Semiring>(a: &Csr<f64>, x: &Csr<f64>, format: &str, engine: Engine) -> Vec<u64>
where
    S::Value: CliSide,
{
    fn on<S: Semiring, F: SpmvFormat<S::Value>>(m: &F, x: &[S::Value], e: Engine) -> Vec<u64>
    where
        S::Value: Scalar,
    {
        bits(&ops::spmv::<S>(m, x, e).unwrap())
    }
    let a: Csr<S::Value> = CliSide::input(a);
    let x = dense::<S>(x);
    let x = x.as_slice();
    match format {
        "csr" => on::<S, _>(&a, x, engine),
        "coo" => on::<S, _>(&a.to_coo(), x, engine),
        "csc" => on::<S, _>(&Csc::from_csr(&a), x, engine),
        "ell" => on::<S, _>(&Ell::from_csr(&a).unwrap(), x, engine),
        "hyb" => on::<S, _>(&Hyb::from_csr(&a), x, engine),
        "sell" => on::<S, _>(&Sell::from_csr(&a, 32, 256).unwrap(), x, engine),
        "bsr" => on::<S, _>(&Bsr::from_csr(&a, 4).unwrap(), x, engine),
        other => panic!("unknown format {other}"),
    }
}

/// `x` as a MatrixMarket array file.
fn write_array(path: &Path, column: &[f64]) {
    let mut text = format!(
        "%%MatrixMarket matrix array real general\n{} 1\n",
        column.len()
    );
    for v in column {
        text += &format!("{v:e}\n");
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn spmv_matches_the_library_on_every_format_semiring_and_engine() {
    let dir = tempdir();
    let (a_path, a) = small_matrix(dir.path());
    let column: Vec<f64> = (0..a.ncols()).map(|j| j as f64 * 0.25 - 3.0).collect();
    let x_path = dir.path().join("x.mtx");
    write_array(&x_path, &column);
    let y_path = dir.path().join("y.mtx");
    for semiring in SEMIRINGS {
        let (a_path, x_path) = (
            in_domain(semiring, &a_path, dir.path()),
            in_domain(semiring, &x_path, dir.path()),
        );
        let (a, x) = (read_csr(&a_path), read_csr(&x_path));
        for format in FORMATS {
            for engine in ["serial", "cpu"] {
                let args = [
                    "spmv",
                    s(&a_path),
                    s(&x_path),
                    "-o",
                    s(&y_path),
                    "--semiring",
                    semiring,
                    "--format",
                    format,
                    "--engine",
                    engine,
                ];
                let run = spmx(dir.path(), &args).success();
                assert!(run.stderr.contains("GB/s"), "{}", run.stderr);
                let e = if engine == "cpu" {
                    Engine::Cpu
                } else {
                    Engine::Serial
                };
                let want = with_semiring!(semiring, |S| spmv_oracle::<S>(&a, &x, format, e));
                let got = dense_values(&y_path, (a.nrows(), 1));
                assert_eq!(got, want, "{semiring} on {format}, {engine}");
            }
        }
    }
}

#[test]
fn spmv_absent_entries_of_a_coordinate_x_are_the_semirings_zero() {
    let dir = tempdir();
    let (a_path, a) = small_matrix(dir.path());
    let x_path = dir.path().join("x.mtx");
    std::fs::write(
        &x_path,
        "%%MatrixMarket matrix coordinate real general\n50 1 3\n1 1 2\n7 1 -1\n50 1 0.5\n",
    )
    .unwrap();
    let x = read_csr(&x_path);
    let y_path = dir.path().join("y.mtx");
    for semiring in ["plus-times", "min-plus", "max-plus"] {
        let args = [
            "spmv",
            s(&a_path),
            s(&x_path),
            "-o",
            s(&y_path),
            "--semiring",
            semiring,
            // The engine that gives the oracle's bits on any machine (auto
            // is the GPU where there is one, which may round plus-times
            // differently).
            "--engine",
            "cpu",
        ];
        spmx(dir.path(), &args).success();
        let want = with_semiring!(semiring, |S| spmv_oracle::<S>(&a, &x, "csr", Engine::Cpu));
        assert_eq!(dense_values(&y_path, (70, 1)), want, "{semiring}");
    }
}

#[test]
fn spmv_random_x_is_reproducible_and_x_must_fit() {
    let dir = tempdir();
    let (a_path, _) = small_matrix(dir.path());
    let run_with = |seed: &str, out: &str| {
        let args = ["spmv", s(&a_path), "--seed", seed, "-o", out];
        spmx(dir.path(), &args).success();
        std::fs::read(dir.path().join(out)).unwrap()
    };
    let first = run_with("5", "y1.mtx");
    assert_eq!(first, run_with("5", "y2.mtx"));
    assert_ne!(first, run_with("6", "y3.mtx"));

    let wrong = dir.path().join("x.mtx");
    write_array(&wrong, &[1.0; 49]);
    let run = spmx(dir.path(), &["spmv", s(&a_path), s(&wrong)]).failure();
    assert!(run.stderr.contains("must have 50 rows"), "{}", run.stderr);
}

/// The library's C = A ⊗ B as bits of the dense result.
fn spmm_oracle<S: Semiring>(a: &Csr<f64>, b: &Csr<f64>, engine: Engine) -> Vec<u64>
where
    S::Value: CliSide,
{
    let c = ops::spmm::<S>(&CliSide::input(a), &dense::<S>(b), engine).unwrap();
    bits(c.as_slice())
}

#[test]
fn spmm_matches_the_library_for_every_semiring_and_engine() {
    let dir = tempdir();
    let (a_path, _) = small_matrix(dir.path());
    // B: 50 × 3, coordinate with a few absent entries.
    let b_path = dir.path().join("b.mtx");
    let mut text = String::from("%%MatrixMarket matrix coordinate real general\n50 3 140\n");
    let mut listed = 0;
    for i in 0..50 {
        for j in 0..3 {
            if (i + j) % 15 != 0 {
                text += &format!("{} {} {}\n", i + 1, j + 1, (i * 3 + j) as f64 * 0.5 - 30.0);
                listed += 1;
            }
        }
    }
    assert_eq!(listed, 140);
    std::fs::write(&b_path, text).unwrap();
    let c_path = dir.path().join("c.mtx");
    for semiring in SEMIRINGS {
        let (a_path, b_path) = (
            in_domain(semiring, &a_path, dir.path()),
            in_domain(semiring, &b_path, dir.path()),
        );
        let (a, b) = (read_csr(&a_path), read_csr(&b_path));
        for engine in ["serial", "cpu"] {
            let args = [
                "spmm",
                s(&a_path),
                s(&b_path),
                "-o",
                s(&c_path),
                "--semiring",
                semiring,
                "--engine",
                engine,
            ];
            let run = spmx(dir.path(), &args).success();
            assert!(run.stderr.contains("GFLOP/s"), "{}", run.stderr);
            let e = if engine == "cpu" {
                Engine::Cpu
            } else {
                Engine::Serial
            };
            let want = with_semiring!(semiring, |S| spmm_oracle::<S>(&a, &b, e));
            assert_eq!(dense_values(&c_path, (70, 3)), want, "{semiring}, {engine}");
        }
    }
}

#[test]
fn spmm_random_b_has_k_columns() {
    let dir = tempdir();
    let (a_path, _) = small_matrix(dir.path());
    let c_path = dir.path().join("c.mtx");
    let run = spmx(
        dir.path(),
        &["spmm", s(&a_path), "--k", "4", "-o", s(&c_path)],
    )
    .success();
    assert!(run.stderr.contains("50 × 4 dense"), "{}", run.stderr);
    dense_values(&c_path, (70, 4));
    let b_path = dir.path().join("b.mtx");
    std::fs::write(&b_path, "%%MatrixMarket matrix array real general\n50 1\n").unwrap();
    spmx(dir.path(), &["spmm", s(&a_path), s(&b_path), "--k", "4"]).failure();
}
