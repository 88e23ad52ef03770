//! Worker checks of MatrixMarket files read and written by every rank
//! (`spmx::engine::mpi::files`), and of the distributed partition and
//! repartition the parallel reader leads to: against the whole-file reader
//! and writer, bit for bit, on files of every style (comments and blank
//! lines among the entries, duplicates, CRLF, symmetric and pattern
//! storage, gzip), and on bad files, whose error must be the whole-file
//! reader's, naming the file and line.

use super::common::{arb_csr_shaped, assert_identical};
use super::{draw, partitions};
use proptest::test_runner::TestRunner;
use spmx::Csr;
use spmx::engine::mpi::{Ranks, RowPartition, files};
use spmx::io::{self, Field, ReadOptions};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Random files read in parts equal the whole-file reader's CSR; written
/// back in parts, the text equals `io::write_mtx`'s.
pub fn read_and_write_in_parts(ranks: &Ranks, runner: &mut TestRunner, cases: usize) {
    let (_held, dir) = shared_dir(ranks);
    for case in 0..cases {
        let (m, n) = draw(runner, (0..=12usize, 0..=12usize));
        let a = draw(runner, arb_csr_shaped::<f64>(m, n));
        let style = draw(runner, 0..STYLES);
        let gz = draw(runner, proptest::bool::weighted(0.15));
        let path = dir.join(format!("a{case}.mtx{}", if gz { ".gz" } else { "" }));
        if ranks.is_root() {
            write_styled(&path, &a, style);
        }
        ranks.barrier();
        let what = format!("case {case} ({m}×{n}, style {style}, gzip {gz})");
        let opts = ReadOptions::default();
        let whole = io::read_mtx::<f64>(&path, &opts).unwrap();
        let want = whole.coo.try_to_csr().unwrap();
        let (got, summary) = files::read_csr::<f64>(ranks, &path, &opts).unwrap();
        assert_eq!(summary.in_parts, !gz, "{what}: read in parts");
        assert_eq!(
            summary.summed,
            whole.coo.nnz() - want.nnz(),
            "{what}: summed"
        );
        if summary.summed == 0 {
            assert_eq!(
                got.rows(),
                &RowPartition::by_entries(&want, ranks.size()),
                "{what}: rows cut by entries"
            );
        }
        assert_identical(&got.all_gather(ranks).unwrap(), &want);
        for field in [Field::Real, Field::Pattern] {
            let ours = dir.join(format!("c{case}.mtx"));
            let theirs = dir.join(format!("w{case}-{}.mtx", ranks.rank()));
            assert!(
                files::write_mtx(ranks, &got, &ours, field).unwrap(),
                "{what}"
            );
            io::write_mtx(&theirs, &want, field).unwrap();
            let (ours_text, theirs_text) = (std::fs::read(&ours), std::fs::read(&theirs));
            assert_eq!(ours_text.unwrap(), theirs_text.unwrap(), "{what}: {field}");
            ranks.barrier();
        }
        let ours_gz = dir.join(format!("c{case}.mtx.gz"));
        assert!(!files::write_mtx(ranks, &got, &ours_gz, Field::Real).unwrap());
        let back = io::read_mtx::<f64>(&ours_gz, &opts).unwrap();
        assert_identical(&back.coo.try_to_csr().unwrap(), &want);
        ranks.barrier();
    }
    if ranks.is_root() {
        println!("  files read and written in parts: {cases} cases");
    }
    ranks.barrier();
}

/// A bad line, too many or too few entries: every rank fails with the
/// whole-file reader's error (its file and line), wherever the ranks'
/// parts fall.
pub fn bad_files_fail_as_read_whole(ranks: &Ranks, runner: &mut TestRunner, cases: usize) {
    let (_held, dir) = shared_dir(ranks);
    for case in 0..cases {
        let lines = draw(runner, 1..=30usize);
        let bad_at = draw(runner, 0..lines);
        let kind = draw(runner, 0..3usize);
        let mut entries = String::new();
        for k in 0..lines {
            if kind == 0 && k == bad_at {
                entries.push_str("3 x 1\n");
            } else {
                let _ = writeln!(entries, "{} {} {}.5", k % 5 + 1, k % 7 + 1, k);
            }
            if k % 4 == 1 {
                entries.push_str("% a comment\n\n");
            }
        }
        let declared = match kind {
            1 => bad_at,
            2 => lines + 1 + bad_at,
            _ => lines,
        };
        let text =
            format!("%%MatrixMarket matrix coordinate real general\n5 7 {declared}\n{entries}");
        let path = dir.join(format!("bad{case}.mtx"));
        if ranks.is_root() {
            std::fs::write(&path, &text).unwrap();
        }
        ranks.barrier();
        let want = io::read_mtx::<f64>(&path, &ReadOptions::default()).unwrap_err();
        let got = files::read_csr::<f64>(ranks, &path, &ReadOptions::default()).unwrap_err();
        assert!(
            got.to_string().contains(&want.to_string()),
            "case {case} (kind {kind}): got `{got}`, the whole-file reader says `{want}`"
        );
        ranks.barrier();
    }
    if ranks.is_root() {
        println!("  bad files fail as read whole: {cases} cases");
    }
    ranks.barrier();
}

/// Rows cut by products from the distributed matrices equal the cuts of
/// the whole ones; a repartitioned matrix is the same matrix.
pub fn partition_and_repartition(ranks: &Ranks, runner: &mut TestRunner, cases: usize) {
    let root = ranks.is_root();
    for case in 0..cases {
        let (m, k, n) = draw(runner, (0..=12usize, 0..=12usize, 0..=12usize));
        let a = draw(runner, arb_csr_shaped::<f64>(m, k));
        let b = draw(runner, arb_csr_shaped::<f64>(k, n));
        let (da, db) = super::scatter_pair(ranks, runner, &a, &b);
        let (rows, products) = RowPartition::by_products_of(ranks, &da, &db).unwrap();
        assert_eq!(
            rows,
            RowPartition::by_products(&a, &b, ranks.size()),
            "case {case}"
        );
        assert_eq!(products, spmx::ops::spgemm_products(&a, &b), "case {case}");
        for to in partitions(ranks, runner, &a) {
            let moved = da.repartition(ranks, to.clone()).unwrap();
            assert_eq!(moved.rows(), &to);
            assert_eq!(
                moved.local(),
                &a.rows(to.range(ranks.rank())),
                "case {case}"
            );
        }
    }
    if root {
        println!("  partition by products and repartition: {cases} cases");
    }
}

/// `spmx spmv`, `spmm` and `apsp` with `--engine mpi` on 4 ranks, every
/// rank reading its part of a plain file and (apsp) writing its rows,
/// write what the serial engine writes, byte for byte (but for
/// the comment line serial APSP writes).
pub fn cli_outputs_as_serial() {
    let spmx = Path::new(env!("CARGO_BIN_EXE_spmx"));
    let dir = tempfile::tempdir().unwrap();
    let real = super::common::real_data_dir();
    for (name, op, extra) in [
        ("bcsstk16.mtx.gz", "spmv", &[][..]),
        ("wiki-Vote.mtx.gz", "spmm", &["--k", "5"][..]),
        ("apsp_input.mtx.gz", "apsp", &[][..]),
    ] {
        let gz = real.join(name);
        if !gz.exists() {
            println!("  {name}: not here, skipped");
            continue;
        }
        let plain = dir.path().join("a.mtx");
        let a = io::read_mtx::<f64>(&gz, &ReadOptions::default()).unwrap();
        io::write_mtx(&plain, &a.coo.to_csr(), Field::Real).unwrap();
        let (ours, theirs) = (dir.path().join("ours.mtx"), dir.path().join("theirs.mtx"));
        let run = |engine: &str, out: &Path, ranks: Option<usize>| {
            let mut args = vec![op.to_string(), plain.display().to_string()];
            args.extend(extra.iter().map(|s| s.to_string()));
            args.extend(["-o", &out.display().to_string(), "--engine", engine].map(String::from));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            match ranks {
                Some(n) => {
                    let launch = super::mpirun(n, spmx, &args, None);
                    assert!(launch.ok, "{op} {name} on {n} ranks:\n{}", launch.text);
                }
                None => {
                    let status = std::process::Command::new(spmx)
                        .args(&args)
                        .output()
                        .unwrap();
                    assert!(status.status.success(), "{op} {name} serial");
                }
            }
        };
        run("serial", &theirs, None);
        run("mpi", &ours, Some(4));
        // Serial APSP writes its rows as it finds them, its size line
        // after a comment line of spaces (io::MtxWriter::create_uncounted).
        let text = |path: &Path| {
            let text = std::fs::read_to_string(path).unwrap();
            let lines = text.split_inclusive('\n');
            let kept = lines.filter(|l| l.starts_with("%%") || !l.starts_with('%'));
            kept.collect::<String>()
        };
        assert!(
            text(&ours) == text(&theirs),
            "{op} {name}: 4 ranks do not write the serial engine's file"
        );
        println!("  {op} {name} on 4 ranks writes the serial engine's file");
    }
}

/// How many ways [`write_styled`] writes a matrix.
const STYLES: usize = 4;

/// Writes `a` as a MatrixMarket file in one of [`STYLES`]: as
/// `io::write_mtx` writes it; entries reversed with comments, blank lines,
/// CRLF endings and every other entry split into two duplicates; `a + aᵀ`'s
/// lower triangle as `symmetric` (square `a`; else the first style); its
/// pattern.
fn write_styled(path: &Path, a: &Csr<f64>, style: usize) {
    let entries: Vec<(usize, u32, f64)> = (0..a.nrows())
        .flat_map(|i| {
            let (cols, vals) = a.row(i);
            cols.iter().zip(vals).map(move |(&c, &v)| (i, c, v))
        })
        .collect();
    let (m, n) = a.shape();
    let mut text = String::new();
    match style {
        1 => {
            let _ = write!(
                text,
                "%%MatrixMarket matrix coordinate real general\r\n% made\r\n{m} {n} {}\r\n",
                entries.len() + entries.len() / 2
            );
            for (k, &(i, c, v)) in entries.iter().rev().enumerate() {
                if k % 2 == 1 {
                    let _ = write!(text, "{} {} {:e}\r\n\r\n%\r\n", i + 1, c + 1, v / 4.0);
                    let _ = write!(text, "{} {} {:e}\r\n", i + 1, c + 1, v - v / 4.0);
                } else {
                    let _ = write!(text, "  {} {}   {:e}  \r\n", i + 1, c + 1, v);
                }
            }
        }
        2 if m == n => {
            let lower: Vec<_> = entries.iter().filter(|e| e.1 as usize <= e.0).collect();
            let _ = writeln!(
                text,
                "%%MatrixMarket matrix coordinate real symmetric\n{m} {n} {}",
                lower.len()
            );
            for &&(i, c, v) in &lower {
                let _ = writeln!(text, "{} {} {v:e}", i + 1, c + 1);
            }
        }
        3 => {
            let _ = writeln!(
                text,
                "%%MatrixMarket matrix coordinate pattern general\n{m} {n} {}",
                entries.len()
            );
            for &(i, c, _) in &entries {
                let _ = writeln!(text, "{} {}", i + 1, c + 1);
            }
        }
        _ => {
            io::write_mtx(path, a, Field::Real).unwrap();
            return;
        }
    }
    if path.extension().is_some_and(|e| e == "gz") {
        let plain = path.with_extension("");
        std::fs::write(&plain, &text).unwrap();
        let m = io::read_mtx::<f64>(&plain, &ReadOptions::default()).unwrap();
        // Gzip through the writer: the text differs, the matrix is the same.
        io::write_mtx(path, &m.coo.to_csr(), Field::Real).unwrap();
    } else {
        std::fs::write(path, text).unwrap();
    }
}

/// A directory every rank sees (the ranks of a test share a machine):
/// made by rank 0, which holds it (removed when dropped), and its path.
fn shared_dir(ranks: &Ranks) -> (Option<tempfile::TempDir>, PathBuf) {
    let dir = ranks.is_root().then(|| tempfile::tempdir().unwrap());
    let path = dir.as_ref().map_or_else(Vec::new, |d| {
        d.path().as_os_str().as_encoded_bytes().to_vec()
    });
    let path = ranks.broadcast_from(0, path);
    let path = PathBuf::from(String::from_utf8(path).expect("a UTF-8 temporary path"));
    (dir, path)
}
