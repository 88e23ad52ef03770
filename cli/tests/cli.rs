//! The `spmx` binary end to end, run as a user runs it (in a temporary
//! directory): `info` on a real matrix and on bad input, `convert` through
//! every format on every real matrix, `gen` reproducibility, failed writes
//! that leave nothing behind, and issue 20's first-contact cases. The
//! products (`spgemm`, `spmv`, `spmm`, `apsp`) are in `products.rs`. Tests
//! that need `../shared/bench-data/real` (or `$SPMX_REAL_DATA`) skip,
//! saying why, when it is absent.

#[path = "../../tests/common/mod.rs"]
mod common;
#[macro_use]
mod library;
mod run;

use common::assert_identical;
use library::*;
use run::{run, s, spmx, tempdir};
use spmx::Csr;
use spmx::io::{Field, write_mtx};
use std::path::{Path, PathBuf};
use std::process::Command;

// ---- info and bad input ----

#[test]
fn info_reports_the_expanded_shape_and_entries() {
    let Some(file) = real("bcsstk16.mtx.gz") else {
        return;
    };
    let run = spmx(Path::new("."), &["info", s(&file)]).success();
    assert!(run.stdout.contains("4884 × 4884"), "{}", run.stdout);
    assert!(run.stdout.contains("290378"), "{}", run.stdout);
}

#[test]
fn bad_input_fails_naming_the_file_and_line() {
    let dir = tempdir();
    let real_general = "%%MatrixMarket matrix coordinate real general\n";
    let cases = [
        (
            "nan.mtx",
            format!("{real_general}2 2 2\n1 1 1.5\n2 2 x\n"),
            4,
        ),
        (
            "short.mtx",
            format!("{real_general}3 3 3\n1 1 1\n2 2 2\n"),
            5,
        ),
        (
            "header.mtx",
            "%%MatrixMarket matrix sparse real general\n1 1 0\n".into(),
            1,
        ),
        ("range.mtx", format!("{real_general}2 2 1\n3 1 1\n"), 3),
    ];
    for (name, text, line) in cases {
        std::fs::write(dir.path().join(name), text).unwrap();
        let run = spmx(dir.path(), &["info", name]).failure();
        assert!(
            run.stderr.contains(&format!("{name}:{line}:")),
            "{name}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

#[test]
fn drop_invalid_reads_an_out_of_range_file_and_says_how_much_it_dropped() {
    let file = test_data("out_of_range.mtx");
    let run = spmx(Path::new("."), &["info", s(&file)]).failure();
    assert!(run.stderr.contains("out_of_range.mtx:4:"), "{}", run.stderr);
    let run = spmx(Path::new("."), &["info", "--drop-invalid", s(&file)]).success();
    assert!(
        run.stderr.contains("dropped 2 out-of-range entries"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("3 × 3"), "{}", run.stdout);
}

#[test]
fn index_base_zero_reads_a_zero_based_file() {
    let file = test_data("zero_based.mtx");
    spmx(Path::new("."), &["info", s(&file)]).failure();
    let run = spmx(Path::new("."), &["info", "--index-base", "0", s(&file)]).success();
    assert!(run.stdout.contains("2 × 2"), "{}", run.stdout);
}

// ---- convert ----

/// Formats whose padded layout would exceed this many slots (12 bytes
/// each) are not built: ELL of `arrow` would take 26 GB.
const MAX_PADDED_SLOTS: usize = 100_000_000;

/// `spmx convert X out.mtx --format F` reads back equal to X, bit for bit,
/// for every real matrix.
fn convert_round_trips(format: &str) {
    let Some(files) = real_matrices() else {
        return;
    };
    let dir = tempdir();
    let out = dir.path().join("out.mtx");
    for file in files {
        let want = read_csr(&file);
        let slots = want.nrows() * want.row_stats().max;
        if format == "ell" && slots > MAX_PADDED_SLOTS {
            println!("skipping ELL of {}: {slots} padded slots", file.display());
            continue;
        }
        spmx(
            dir.path(),
            &["convert", s(&file), s(&out), "--format", format],
        )
        .success();
        assert_identical(&read_csr(&out), &want);
    }
}

macro_rules! convert_tests {
    ($($name:ident => $format:literal),*) => {$(
        #[test]
        fn $name() {
            convert_round_trips($format);
        }
    )*};
}

convert_tests!(
    convert_csr => "csr",
    convert_coo => "coo",
    convert_csc => "csc",
    convert_ell => "ell",
    convert_hyb => "hyb",
    convert_sell => "sell",
    convert_bsr => "bsr"
);

// ---- gen ----

#[test]
fn gen_is_reproducible_from_the_seed() {
    let kinds: [(&str, &[&str], bool); 6] = [
        (
            "uniform",
            &["--rows", "200", "--min-per-row", "1", "--max-per-row", "5"],
            true,
        ),
        ("rmat", &["--scale", "8", "--edge-factor", "4"], true),
        ("poisson2d", &["--n", "10"], false),
        ("poisson3d", &["--n", "5"], false),
        (
            "banded",
            &["--n", "100", "--lower", "2", "--upper", "3"],
            true,
        ),
        ("power-law", &["--rows", "200", "--mean", "4"], true),
    ];
    let dir = tempdir();
    for (kind, params, seeded) in kinds {
        let generate = |seed: &str, name: &str| {
            let mut args = vec!["gen", kind];
            args.extend_from_slice(params);
            args.extend_from_slice(&["--seed", seed, "-o", name]);
            spmx(dir.path(), &args).success();
            std::fs::read(dir.path().join(name)).unwrap()
        };
        let first = generate("7", "a.mtx");
        assert!(first.starts_with(b"%%MatrixMarket"), "{kind}");
        assert_eq!(first, generate("7", "b.mtx"), "{kind}: same seed");
        let other = generate("8", "c.mtx");
        if seeded {
            assert_ne!(first, other, "{kind}: different seed");
        } else {
            assert_eq!(first, other, "{kind} ignores the seed");
        }
    }
}

// ---- failed writes ----

#[test]
fn a_failed_write_fails_and_leaves_nothing() {
    let dir = tempdir();
    let (a_path, _) = small_matrix(dir.path());
    let square = dir.path().join("square.mtx");
    let sq = spmx::generate::uniform(30, 30, 1, 4, 9).unwrap();
    write_mtx(&square, &sq, Field::Real).unwrap();
    let before = std::fs::read_dir(dir.path()).unwrap().count();
    let missing = dir.path().join("missing/x.mtx");
    let commands: [&[&str]; 5] = [
        &["spgemm", s(&square), "-o"],
        &["spmv", s(&a_path), "-o"],
        &["spmm", s(&a_path), "-o"],
        &["convert", s(&a_path)],
        &["gen", "banded", "--n", "10", "-o"],
    ];
    for command in commands {
        for target in [s(&missing), "/nonexistent-dir/x.mtx"] {
            let mut args = command.to_vec();
            args.push(target);
            let run = spmx(dir.path(), &args).failure();
            assert!(run.stderr.contains("x.mtx"), "{}", run.stderr);
        }
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), before);
    assert!(!Path::new("/nonexistent-dir").exists());
}

/// Ctrl-C (SIGINT) or SIGTERM while an output is being written: the
/// previous output stays as it was and no temporary file is left. spmx
/// starts with both signals at their default action, as from a terminal:
/// started from a script's `cmd &`, the tests would pass SIGINT on
/// ignored, and spmx rightly keeps it so.
#[cfg(unix)]
#[test]
fn an_interrupted_write_leaves_the_previous_output_and_no_temporary_file() {
    use std::os::unix::process::CommandExt;
    let dir = tempdir();
    let out = dir.path().join("out.mtx");
    let previous = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 7\n";
    for signal in ["INT", "TERM"] {
        std::fs::write(&out, previous).unwrap();
        // About 260 MB of text: long enough to catch it being written.
        let args = ["gen", "uniform", "--rows", "1000000", "--min-per-row", "8"];
        let mut spmx = Command::new(env!("CARGO_BIN_EXE_spmx"));
        spmx.args(args)
            .args(["--max-per-row", "8", "-o", s(&out)])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: between fork and exec, only `signal`, which is
        // async-signal-safe.
        unsafe {
            spmx.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = spmx.spawn().unwrap();
        let temporary = || {
            std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".tmp"))
                .collect::<Vec<_>>()
        };
        let start = std::time::Instant::now();
        while temporary().is_empty() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "spmx finished before its write could be interrupted"
            );
            assert!(
                start.elapsed().as_secs() < 120,
                "no temporary file appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "SIG{signal}: spmx must not report success"
        );
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            previous,
            "SIG{signal}: the previous output changed"
        );
        assert_eq!(
            temporary(),
            Vec::<String>::new(),
            "SIG{signal}: left behind"
        );
    }
}

// ---- issue 20: first contact ----

const REAL_GENERAL: &str = "%%MatrixMarket matrix coordinate real general\n";

/// Writes `REAL_GENERAL` + `body` to `dir/name`; the path.
fn write_text(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("{REAL_GENERAL}{body}")).unwrap();
    path
}

#[test]
fn course_file_minus_one_index_dropped() {
    let dir = tempdir();
    // The first lines of a course generator's file (which declares 784379).
    let course = write_text(
        dir.path(),
        "course.mtx",
        "8191 8191 4\n0 -1 1.0\n0 0 1.0\n1 -1 1.0\n1 0 1.0\n",
    );
    let out = dir.path().join("out.mtx");
    let args = ["convert", s(&course), s(&out), "--index-base", "0"];
    let run = spmx(dir.path(), &[&args[..], &["--drop-invalid"]].concat()).success();
    assert!(
        run.stderr.contains("dropped 2 out-of-range entries"),
        "{}",
        run.stderr
    );
    let got = read_csr(&out);
    assert_eq!((got.shape(), got.nnz()), ((8191, 8191), 2));
    assert_eq!((got.get(0, 0), got.get(1, 0)), (Some(1.0), Some(1.0)));
    let run = spmx(dir.path(), &args).failure();
    assert!(
        run.stderr
            .contains("course.mtx:3: column index -1 out of range: 0-based columns run 0..=8190"),
        "{}",
        run.stderr
    );
}

#[test]
fn nan_weight_is_named_not_called_a_negative_cycle() {
    let dir = tempdir();
    let g = write_text(dir.path(), "g.mtx", "3 3 2\n1 2 nan\n2 3 1\n");
    for engine in ["serial", "cpu"] {
        let run = spmx(dir.path(), &["apsp", s(&g), "--engine", engine]).failure();
        assert!(
            run.stderr.contains("g.mtx:3: the weight is NaN"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("cycle"), "{}", run.stderr);
    }
}

#[test]
fn nan_round_trips_through_convert_every_format() {
    let dir = tempdir();
    let a = write_text(
        dir.path(),
        "nan.mtx",
        "3 3 5\n1 1 nan\n1 3 -0\n2 2 inf\n3 1 -NaN\n3 3 2.5\n",
    );
    let want = read_csr(&a);
    let out = dir.path().join("out.mtx");
    for format in FORMATS {
        spmx(dir.path(), &["convert", s(&a), s(&out), "--format", format]).success();
        let got = read_csr(&out);
        // The writer has one NaN (`NaN`): compare NaN as NaN, the rest by bits.
        let nan_or_bits = |m: &Csr<f64>| {
            m.values()
                .iter()
                .map(|v| if v.is_nan() { None } else { Some(v.to_bits()) })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            (got.row_ptr(), got.col_idx(), nan_or_bits(&got)),
            (want.row_ptr(), want.col_idx(), nan_or_bits(&want)),
            "{format}"
        );
    }
}

#[test]
fn io_error_text_is_printed_once() {
    let dir = tempdir();
    let run = spmx(dir.path(), &["info", "."]).failure();
    assert_eq!(
        run.stderr.matches("Is a directory").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn gzip_with_trailing_bytes_is_read_with_a_warning() {
    use std::io::Write;
    let dir = tempdir();
    let path = dir.path().join("a.mtx.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(format!("{REAL_GENERAL}2 2 1\n1 2 3\n").as_bytes())
        .unwrap();
    let mut bytes = gz.finish().unwrap();
    bytes.extend_from_slice(&[0; 12]);
    std::fs::write(&path, bytes).unwrap();
    let run = spmx(dir.path(), &["info", s(&path)]).success();
    assert!(run.stdout.contains("2 × 2"), "{}", run.stdout);
    assert!(
        run.stderr.contains("warning: ")
            && run.stderr.contains("ignored 12 bytes after the gzip data"),
        "{}",
        run.stderr
    );
}

#[test]
fn gz_output_is_gzip() {
    let dir = tempdir();
    let (a, want) = small_matrix(dir.path());
    let square = dir.path().join("square.mtx");
    write_mtx(
        &square,
        &spmx::generate::uniform(30, 30, 1, 4, 9).unwrap(),
        Field::Real,
    )
    .unwrap();
    let out = |name: &str| dir.path().join(name);
    let commands: [(&str, Vec<&str>); 6] = [
        ("convert.mtx.gz", vec!["convert", s(&a)]),
        ("gen.mtx.gz", vec!["gen", "banded", "--n", "10", "-o"]),
        ("spgemm.mtx.gz", vec!["spgemm", s(&square), "-o"]),
        ("spmv.mtx.gz", vec!["spmv", s(&a), "-o"]),
        ("spmm.mtx.gz", vec!["spmm", s(&a), "--k", "2", "-o"]),
        ("apsp.mtx.gz", vec!["apsp", s(&square), "-o"]),
    ];
    for (name, mut args) in commands {
        let path = out(name);
        args.push(s(&path));
        spmx(dir.path(), &args).success();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes[..2], [0x1f, 0x8b], "{name} is not gzip");
        read_csr(&path);
    }
    assert_identical(&read_csr(&out("convert.mtx.gz")), &want);
}

#[test]
fn unwritable_output_names_the_true_reason() {
    let dir = tempdir();
    let (a, _) = small_matrix(dir.path());
    let run = spmx(dir.path(), &["convert", s(&a), "/proc/version"]).failure();
    // Not the temporary file's bare "No such file or directory": either the
    // target's refusal, or (as root, who may open it) that /proc makes no
    // files.
    assert!(
        run.stderr.contains("/proc/version: Permission denied")
            || run
                .stderr
                .contains("/proc/version: cannot create a temporary file in /proc:"),
        "{}",
        run.stderr
    );
}

/// `--threads` beyond what the system can start names `--threads`. Thread
/// stacks of 2⁴⁶ bytes (`RUST_MIN_STACK`) make every thread fail to start,
/// as 100000 threads do past the process limit.
#[test]
fn threads_that_cannot_start_name_threads() {
    let dir = tempdir();
    let (a, _) = small_matrix(dir.path());
    let mut command = Command::new(env!("CARGO_BIN_EXE_spmx"));
    command.env("RUST_MIN_STACK", (1u64 << 46).to_string());
    let args = ["spmv", s(&a), "--engine", "cpu", "--threads", "3"];
    let run = run(command, dir.path(), &args).failure();
    assert!(
        run.stderr.contains("--threads 3: cannot start 3 threads: "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

#[test]
fn overflowed_and_underflowed_values_warn_with_counts() {
    let dir = tempdir();
    let a = write_text(
        dir.path(),
        "big.mtx",
        "2 2 4\n1 1 1e400\n1 2 -1e400\n2 1 1e-400\n2 2 inf\n",
    );
    let run = spmx(dir.path(), &["info", s(&a)]).success();
    for warning in [
        "big.mtx: 2 values too large for f64 read as ±inf",
        "big.mtx: 1 nonzero value too small for f64 read as 0",
    ] {
        assert!(run.stderr.contains(warning), "{}", run.stderr);
    }
}

#[test]
fn summed_duplicates_warn_with_count() {
    let dir = tempdir();
    let a = write_text(
        dir.path(),
        "dup.mtx",
        "2 2 5\n1 1 1\n1 1 2\n2 2 1\n1 1 4\n2 2 1\n",
    );
    let out = dir.path().join("out.mtx");
    let warning = "dup.mtx: summed 3 duplicate entries";
    for args in [
        vec!["convert", s(&a), s(&out)],
        vec!["spgemm", s(&a)],
        vec!["spmv", s(&a)],
    ] {
        let run = spmx(dir.path(), &args).success();
        assert!(run.stderr.contains(warning), "{}: {}", run.args, run.stderr);
    }
    // APSP keeps the lightest of parallel edges instead, and says so.
    let run = spmx(dir.path(), &["apsp", s(&a), "--engine", "cpu"]).success();
    let warning =
        "dup.mtx: combined 3 parallel edges (the same source and target) into the lightest";
    assert!(run.stderr.contains(warning), "{}", run.stderr);
    assert_eq!(read_csr(&out).get(0, 0), Some(7.0));
    // info reports them in its output instead.
    let run = spmx(dir.path(), &["info", s(&a)]).success();
    assert!(
        run.stdout.contains("after summing 3 duplicates"),
        "{}",
        run.stdout
    );
    assert!(!run.stderr.contains("summed"), "{}", run.stderr);
}

#[test]
fn help_lists_only_the_options_that_apply() {
    let here = Path::new(".");
    for args in [
        &["gen", "--help"][..],
        &["gen", "uniform", "--help"],
        &["--help"],
    ] {
        let run = spmx(here, args).success();
        for option in ["--index-base", "--drop-invalid"] {
            assert!(
                !run.stdout.contains(option),
                "spmx {}:\n{}",
                run.args,
                run.stdout
            );
        }
    }
    for command in ["info", "convert", "spgemm", "spmv", "spmm", "apsp"] {
        let run = spmx(here, &[command, "--help"]).success();
        for option in ["--index-base", "--drop-invalid"] {
            assert!(
                run.stdout.contains(option),
                "spmx {command} --help lacks {option}"
            );
        }
    }
}
