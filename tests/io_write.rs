//! The MatrixMarket writer: exact write → read round trips, the atomic
//! replace and its edges (long names, kept permissions, symbolic links,
//! devices, standard output), [`check_output`] agreeing with the write,
//! the row-block writer and dense `array` output.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use spmx::io::{
    Field, MtxWriter, ReadOptions, check_output, read_mtx, read_mtx_from, write_dense_mtx,
    write_mtx, write_mtx_to,
};
use spmx::{Coo, Csr, Error};

fn strict() -> ReadOptions {
    ReadOptions::default()
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

// ---- writing whole matrices ----

/// A CSR from distinct coordinates.
fn csr_from<T: spmx::Scalar>(
    nrows: usize,
    ncols: usize,
    entries: &BTreeMap<(u32, u32), T>,
) -> Csr<T> {
    let mut coo = Coo::new(nrows, ncols).unwrap();
    for (&(i, j), &v) in entries {
        coo.push(i as usize, j as usize, v).unwrap();
    }
    coo.to_csr()
}

fn write_read<T: spmx::Scalar>(m: &Csr<T>, field: Field) -> (String, Csr<T>) {
    let mut text = Vec::new();
    write_mtx_to(&mut text, m, field).unwrap();
    let back = read_mtx_from::<T, _>(&text[..], "written", &strict()).unwrap();
    assert_eq!(back.header.field, field);
    (String::from_utf8(text).unwrap(), back.coo.to_csr())
}

/// Random CSR shapes (0×0 included) with values from `value`.
fn csr_strategy<T: spmx::Scalar>(
    value: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = Csr<T>> {
    (0usize..12, 0usize..12).prop_flat_map(move |(nrows, ncols)| {
        let coord = (0..nrows.max(1) as u32, 0..ncols.max(1) as u32);
        let n = if nrows * ncols == 0 { 0 } else { 40 };
        proptest::collection::btree_map(coord, value.clone(), 0..=n)
            .prop_map(move |entries| csr_from(nrows, ncols, &entries))
    })
}

fn f64_values() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        4 => any::<u64>().prop_map(f64::from_bits),
        1 => (0u64..1 << 52).prop_map(f64::from_bits),                     // subnormal
        1 => (0u64..1 << 52).prop_map(|m| f64::from_bits(m | 0x7FE0_0000_0000_0000)), // largest exponent
        1 => prop::sample::select(vec![0.0, -0.0, 1.0, -1.0, f64::MAX, f64::MIN_POSITIVE, 5e-324, f64::INFINITY, f64::NEG_INFINITY]),
    ]
}

fn f32_values() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        4 => any::<u32>().prop_map(f32::from_bits),
        1 => (0u32..1 << 23).prop_map(f32::from_bits),
        1 => (0u32..1 << 23).prop_map(|m| f32::from_bits(m | 0x7F00_0000)),
        1 => prop::sample::select(vec![0.0, -0.0, 1.0, f32::MAX, f32::MIN_POSITIVE, 1e-45, f32::INFINITY]),
    ]
}

/// Equal bits, except that any NaN reads back as the writer's one `NaN`.
fn same_bits<T: spmx::Scalar>(a: &Csr<T>, b: &Csr<T>, bits: impl Fn(T) -> (u64, bool)) {
    assert_eq!(
        (a.shape(), a.row_ptr(), a.col_idx()),
        (b.shape(), b.row_ptr(), b.col_idx())
    );
    for (&x, &y) in a.values().iter().zip(b.values()) {
        let ((bx, nan_x), (by, nan_y)) = (bits(x), bits(y));
        assert!(bx == by || (nan_x && nan_y), "{x:?} read back as {y:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn f64_round_trip_is_bit_identical(m in csr_strategy(f64_values())) {
        let (_, back) = write_read(&m, Field::Real);
        same_bits(&m, &back, |v: f64| (v.to_bits(), v.is_nan()));
    }

    #[test]
    fn f32_round_trip_is_bit_identical(m in csr_strategy(f32_values())) {
        let (_, back) = write_read(&m, Field::Real);
        same_bits(&m, &back, |v: f32| (u64::from(v.to_bits()), v.is_nan()));
    }
}

#[test]
fn round_trip_keeps_explicit_zeros_and_empty_shapes() {
    let m = Csr::try_new(3, 2, vec![0, 2, 2, 3], vec![0, 1, 1], vec![0.0, -0.0, 2.5]).unwrap();
    let (text, back) = write_read(&m, Field::Real);
    assert_eq!(
        text,
        "%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 0\n1 2 -0\n3 2 2.5\n"
    );
    same_bits(&m, &back, |v: f64| (v.to_bits(), false));
    for (r, c) in [(0, 0), (0, 5), (5, 0)] {
        let (text, back) = write_read(&Csr::<f64>::empty(r, c), Field::Real);
        assert_eq!(back, Csr::empty(r, c), "{text}");
    }
}

#[test]
fn integer_and_pattern_writes() {
    let m = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![-3.0, 1e17, 0.0]).unwrap();
    let (text, back) = write_read(&m, Field::Integer);
    assert_eq!(
        text,
        "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 1 -3\n1 3 100000000000000000\n2 2 0\n"
    );
    assert_eq!(back, m);
    let (text, back) = write_read(&m, Field::Pattern);
    assert_eq!(
        text,
        "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n1 3\n2 2\n"
    );
    assert_eq!(back, m.map(|_| 1.0));
    let b = m.map(|v| v != 0.0);
    let (text, _) = write_read(&b, Field::Real);
    assert!(text.ends_with("1 1 1\n1 3 1\n2 2 0\n"), "{text}");
    let (text, _) = write_read(&b, Field::Integer);
    assert!(text.ends_with("1 1 1\n1 3 1\n2 2 0\n"), "{text}");
}

#[test]
fn integer_write_of_a_fraction_fails_and_leaves_nothing() {
    let m = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![1.0, 0.5]).unwrap();
    let err = write_mtx_to(Vec::new(), &m, Field::Integer).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(
        err.to_string()
            .contains("value 0.5 at row 1, column 2 is not an integer"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.mtx");
    std::fs::write(&path, "previous contents").unwrap();
    let err = write_mtx(&path, &m, Field::Integer).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path: p, .. } if p == &path),
        "{err:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous contents");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "a temporary file was left"
    );
}

#[test]
fn write_mtx_replaces_the_target_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.mtx");
    let m = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![0.1, 1e-310]).unwrap();
    write_mtx(&path, &m, Field::Real).unwrap();
    write_mtx(&path, &m, Field::Real).unwrap();
    let back = read_mtx::<f64>(&path, &strict()).unwrap().coo.to_csr();
    assert_eq!(back, m);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// Regression: writing to `/dev/null` once renamed a temporary file over the
/// device node, leaving a regular file there that broke every later program
/// on the machine. A FIFO stands in for the device: it must still be a FIFO
/// afterwards, and its reader must get the whole matrix.
#[cfg(unix)]
#[test]
fn write_mtx_writes_a_fifo_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        println!("skipping: mkfifo is not available");
        return;
    }
    let m = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.5, -2.0, 3.25]).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    write_mtx(&fifo, &m, Field::Real).unwrap();
    let text = reader.join().unwrap();
    let back = read_mtx_from::<f64, _>(&text[..], "pipe", &strict())
        .unwrap()
        .coo
        .to_csr();
    assert_eq!(back, m);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn write_mtx_through_a_symlink_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.mtx");
    let link = dir.path().join("link.mtx");
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let m = Csr::try_new(1, 1, vec![0, 1], vec![0], vec![7.0]).unwrap();
    write_mtx(&link, &m, Field::Real).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read_mtx::<f64>(&real, &strict()).unwrap().coo.to_csr(), m);
}

#[test]
fn write_into_missing_or_read_only_directory_fails_and_leaves_nothing() {
    let m = Csr::<f64>::empty(1, 1);
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/m.mtx");
    let err = write_mtx(&missing, &m, Field::Real).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path, .. } if path == &missing),
        "{err:?}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = dir.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(ro.join("probe"), "").is_ok() {
            println!("skipping the read-only directory case: this user (root?) can write there");
            std::fs::remove_file(ro.join("probe")).unwrap();
        } else {
            let target = ro.join("m.mtx");
            let err = write_mtx(&target, &m, Field::Real).unwrap_err();
            assert!(
                matches!(&err, Error::Io { path, .. } if path == &target),
                "{err:?}"
            );
            assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0);
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn gz_output_is_gzip() {
    let dir = tempfile::tempdir().unwrap();
    let general = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/general_real.mtx");
    let m = read_mtx::<f64>(&general, &strict()).unwrap().coo.to_csr();
    for name in ["m.mtx.gz", "m.MTX.GZ"] {
        let path = dir.path().join(name);
        write_mtx(&path, &m, Field::Real).unwrap();
        assert_eq!(std::fs::read(&path).unwrap()[..2], [0x1f, 0x8b]);
        let back = read_mtx::<f64>(&path, &strict()).unwrap();
        assert!(back.coo.to_csr().identical(&m));
    }
    let path = dir.path().join("m.mtx");
    write_mtx(&path, &m, Field::Real).unwrap();
    assert!(std::fs::read(&path).unwrap().starts_with(b"%%MatrixMarket"));
}

#[test]
fn an_unwritable_target_gives_the_true_reason() {
    let m = Csr::<f64>::empty(1, 1);
    // procfs makes no new files: the temporary file cannot be, and the
    // message says that (as root) or that the target refuses writing.
    let err = write_mtx(Path::new("/proc/version"), &m, Field::Real).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("/proc/version: "), "{msg}");
    assert!(
        msg.contains("Permission denied")
            || msg.contains("cannot create a temporary file in /proc"),
        "{msg}"
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/m.mtx");
    let msg = write_mtx(&missing, &m, Field::Real)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains(&format!(
            "cannot create a temporary file in {}",
            dir.path().join("no").display()
        )),
        "{msg}"
    );
}

// ---- the replace's edges ----

/// A 3 × 4 matrix with a row of two entries, an empty row and a row of one.
fn small() -> Csr<f64> {
    Csr::try_new(3, 4, vec![0, 2, 2, 3], vec![0, 3, 1], vec![1.5, -2.0, 0.25]).unwrap()
}

#[test]
fn a_251_character_output_name_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a".repeat(247) + ".mtx", "b".repeat(244) + ".mtx.gz"] {
        assert_eq!(name.len(), 251);
        let path = dir.path().join(&name);
        write_mtx(&path, &small(), Field::Real).unwrap();
        // And again, replacing it.
        write_mtx(&path, &small(), Field::Real).unwrap();
        let back = read_mtx::<f64>(&path, &strict()).unwrap().coo.to_csr();
        assert!(back.identical(&small()));
    }
    assert_eq!(names_in(dir.path()).len(), 2);
}

#[cfg(unix)]
#[test]
fn replacing_an_output_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    for (name, kept) in [
        ("private.mtx", 0o600),
        ("shared.mtx.gz", 0o664),
        ("ro.mtx", 0o444),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(kept)).unwrap();
        write_mtx(&path, &small(), Field::Real).unwrap();
        assert_eq!(mode(&path), kept, "{name}");
        let back = read_mtx::<f64>(&path, &strict()).unwrap().coo.to_csr();
        assert!(back.identical(&small()));
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_output_is_written_through_to_its_target_dangling_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let is_link = |p: &Path| std::fs::symlink_metadata(p).unwrap().is_symlink();
    // Dangling, relative, through a second link: the final target is made.
    std::os::unix::fs::symlink("sub/mid.mtx", dir.path().join("out.mtx")).unwrap();
    std::os::unix::fs::symlink("real.mtx", sub.join("mid.mtx")).unwrap();
    let link = dir.path().join("out.mtx");
    write_mtx(&link, &small(), Field::Real).unwrap();
    assert!(is_link(&link) && is_link(&sub.join("mid.mtx")));
    let real = sub.join("real.mtx");
    let back = read_mtx::<f64>(&real, &strict()).unwrap().coo.to_csr();
    assert!(back.identical(&small()));
    // Now that it exists, it is replaced, and the links stay.
    let other = Csr::try_new(1, 1, vec![0, 1], vec![0], vec![7.0]).unwrap();
    write_mtx(&link, &other, Field::Real).unwrap();
    assert!(is_link(&link));
    assert_eq!(
        read_mtx::<f64>(&real, &strict()).unwrap().coo.to_csr(),
        other
    );
    assert_eq!(names_in(&sub), ["mid.mtx", "real.mtx"]);
    // A loop is an error, not a hang.
    std::os::unix::fs::symlink("loop.mtx", dir.path().join("loop.mtx")).unwrap();
    let err = write_mtx(dir.path().join("loop.mtx"), &other, Field::Real).unwrap_err();
    assert!(err.to_string().contains("symbolic links"), "{err}");
}

/// Set in the copy of this test binary that [`dash_is_standard_output`]
/// runs to write to its standard output.
const DASH_CHILD: &str = "SPMX_IO_WRITE_DASH_CHILD";

/// What the child writes to `-`: a coordinate file whole and by row
/// blocks, and a dense one.
fn write_everything_to_dash() {
    let dash = Path::new("-");
    write_mtx(dash, &small(), Field::Real).unwrap();
    let mut writer = MtxWriter::create(dash, 3, 4, 3, Field::Integer).unwrap();
    writer
        .write_rows(&small().map(|v| v.round()).rows(0..2))
        .unwrap();
    writer
        .write_rows(&small().map(|v| v.round()).rows(2..3))
        .unwrap();
    writer.finish().unwrap();
    let mut writer = MtxWriter::create_uncounted(dash, 3, 4, Field::Real).unwrap();
    writer.write_rows(&small().rows(0..1)).unwrap();
    writer.write_rows(&small().rows(1..3)).unwrap();
    writer.finish().unwrap();
    write_dense_mtx(dash, 1, 2, &[0.5, -1.0], Field::Real).unwrap();
}

#[test]
fn dash_is_standard_output() {
    if std::env::var_os(DASH_CHILD).is_some() {
        write_everything_to_dash();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["dash_is_standard_output", "--exact", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(DASH_CHILD, "1")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = "%%MatrixMarket matrix coordinate real general\n3 4 3\n1 1 1.5\n1 4 -2\n3 2 0.25\n\
                    %%MatrixMarket matrix coordinate integer general\n3 4 3\n1 1 2\n1 4 -2\n3 2 0\n\
                    %%MatrixMarket matrix coordinate real general\n3 4 3\n1 1 1.5\n1 4 -2\n3 2 0.25\n\
                    %%MatrixMarket matrix array real general\n1 2\n0.5\n-1\n";
    assert!(stdout.contains(expected), "{stdout}");
    // No file named `-`, no temporary file.
    assert!(
        names_in(dir.path()).is_empty(),
        "{:?}",
        names_in(dir.path())
    );
}

// ---- check_output: what the write would say, said first ----

/// `check_output(path)` and `write_mtx(path)` fail with the same message,
/// which contains `reason`, and leave nothing behind in `dir`.
fn check_and_write_agree(dir: &Path, path: &Path, reason: &str) {
    let before = names_in(dir);
    let checked = check_output(path).unwrap_err().to_string();
    let written = write_mtx(path, &small(), Field::Real)
        .unwrap_err()
        .to_string();
    assert_eq!(checked, written);
    assert!(
        checked.starts_with(&format!("{}: ", path.display())),
        "{checked}"
    );
    assert!(checked.contains(reason), "{checked:?} lacks {reason:?}");
    assert_eq!(names_in(dir), before);
}

#[test]
fn check_output_says_what_the_write_would() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    check_and_write_agree(d, &d.join("no/such/m.mtx"), "the directory does not exist");
    std::fs::write(d.join("file"), "").unwrap();
    check_and_write_agree(d, &d.join("file/m.mtx"), "it is not a directory");
    std::fs::create_dir(d.join("out.mtx")).unwrap();
    check_and_write_agree(d, &d.join("out.mtx"), "is a directory");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = d.join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(ro.join("probe"), "").is_ok() {
            println!("skipping the read-only directory case: this user (root?) can write there");
            std::fs::remove_file(ro.join("probe")).unwrap();
        } else {
            check_and_write_agree(&ro, &ro.join("m.mtx"), "the directory is not writable");
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // What can be written passes, and the probe leaves nothing.
    let before = names_in(d);
    check_output(Path::new("-")).unwrap();
    check_output(d.join("new.mtx")).unwrap();
    check_output(d.join("file")).unwrap();
    check_output(Path::new("/dev/null")).unwrap();
    assert_eq!(names_in(d), before);
}

// ---- row blocks ----

/// `m`'s rows in blocks of `rows` (the last one shorter).
fn blocks(m: &Csr<f64>, rows: usize) -> Vec<Csr<f64>> {
    (0..m.nrows())
        .step_by(rows)
        .map(|start| m.rows(start..(start + rows).min(m.nrows())))
        .collect()
}

#[test]
fn a_matrix_written_in_row_blocks_is_the_file_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let m = spmx::generate::uniform(50, 30, 0, 4, 7).unwrap();
    for name in ["m.mtx", "m.mtx.gz"] {
        let whole = dir.path().join(format!("whole-{name}"));
        write_mtx(&whole, &m, Field::Real).unwrap();
        for rows in [1, 7, 50] {
            let path = dir.path().join(name);
            let mut w = MtxWriter::create(&path, 50, 30, m.nnz(), Field::Real).unwrap();
            w.write_rows(&Csr::<f64>::empty(0, 30)).unwrap();
            for block in blocks(&m, rows) {
                w.write_rows(&block).unwrap();
            }
            w.finish().unwrap();
            assert_eq!(
                std::fs::read(&path).unwrap(),
                std::fs::read(&whole).unwrap(),
                "{name} in blocks of {rows}"
            );
        }
    }
    assert_eq!(names_in(dir.path()).len(), 4);
}

#[test]
fn an_incomplete_row_block_writer_leaves_the_target_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.mtx");
    std::fs::write(&path, "previous contents").unwrap();
    let m = small();
    // Too few rows and entries: finish names both counts.
    let mut w = MtxWriter::create(&path, 3, 4, 3, Field::Real).unwrap();
    w.write_rows(&m.rows(0..1)).unwrap();
    let err = w.finish().unwrap_err().to_string();
    assert!(
        err.contains("1 of the 3 rows and 2 of the 3 entries declared were written"),
        "{err}"
    );
    // A block of the wrong width, or past the declared rows: refused.
    let mut w = MtxWriter::create(&path, 3, 4, 3, Field::Real).unwrap();
    let err = w.write_rows(&Csr::<f64>::empty(1, 5)).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path: p, .. } if p == &path)
            && err.to_string().contains("5 columns, the matrix 4"),
        "{err}"
    );
    // The writer is then spent: further writes and finish are refused.
    let err = w.write_rows(&m).unwrap_err().to_string();
    assert!(err.contains("an earlier write"), "{err}");
    assert!(w.finish().is_err());
    let mut w = MtxWriter::create(&path, 2, 4, 3, Field::Real).unwrap();
    let err = w.write_rows(&m).unwrap_err().to_string();
    assert!(err.contains("past the 2 rows declared"), "{err}");
    drop(w);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous contents");
    assert_eq!(names_in(dir.path()), ["out.mtx"]);
}

#[test]
fn dropping_an_unfinished_writer_removes_its_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.mtx.gz");
    let w = {
        let mut w = MtxWriter::create(&path, 3, 4, 3, Field::Real).unwrap();
        w.write_rows(&small().rows(0..2)).unwrap();
        w
    };
    let names = names_in(dir.path());
    assert!(
        names.len() == 1 && names[0].starts_with(".spmx-") && names[0].ends_with(".tmp"),
        "{names:?}"
    );
    drop(w);
    assert!(names_in(dir.path()).is_empty());
}

/// The text of a MatrixMarket file, gzip or not.
fn text_of(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
            .unwrap();
        text
    } else {
        String::from_utf8(bytes).unwrap()
    }
}

#[test]
fn an_uncounted_writer_puts_the_count_it_found_before_the_entries() {
    let dir = tempfile::tempdir().unwrap();
    let m = spmx::generate::uniform(50, 30, 0, 4, 7).unwrap();
    let whole = dir.path().join("whole.mtx");
    write_mtx(&whole, &m, Field::Real).unwrap();
    let whole = std::fs::read_to_string(&whole).unwrap();
    for name in ["m.mtx", "m.mtx.gz"] {
        for rows in [1, 7, 50] {
            let path = dir.path().join(name);
            let mut w = MtxWriter::create_uncounted(&path, 50, 30, Field::Real).unwrap();
            for block in blocks(&m, rows) {
                w.write_rows(&block).unwrap();
            }
            assert_eq!(w.entries(), m.nnz());
            w.finish().unwrap();
            // A plain file gets its size line where room was left, behind
            // a comment of spaces; a gzip file the whole file's text.
            let text = text_of(&path);
            let (banner, rest) = whole.split_once('\n').unwrap();
            let comment = text[banner.len() + 1..].split_once('\n').unwrap().0;
            let expected = match name {
                "m.mtx" => {
                    assert!(comment.starts_with('%') && comment[1..].trim().is_empty());
                    format!("{banner}\n{comment}\n{rest}")
                }
                _ => whole.clone(),
            };
            assert_eq!(text, expected, "{name} in blocks of {rows}");
            assert_eq!(read_mtx::<f64>(&path, &strict()).unwrap().coo.to_csr(), m);
        }
    }
    // An empty matrix, and a 0 × 0 one.
    for (nrows, ncols) in [(4, 6), (0, 0)] {
        let path = dir.path().join("empty.mtx");
        let mut w = MtxWriter::create_uncounted(&path, nrows, ncols, Field::Real).unwrap();
        w.write_rows(&Csr::<f64>::empty(nrows, ncols)).unwrap();
        w.finish().unwrap();
        let read = read_mtx::<f64>(&path, &strict()).unwrap().coo;
        assert_eq!((read.shape(), read.nnz()), ((nrows, ncols), 0));
    }
    assert_eq!(
        names_in(dir.path()),
        ["empty.mtx", "m.mtx", "m.mtx.gz", "whole.mtx"]
    );
}

#[test]
fn an_unfinished_uncounted_writer_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["out.mtx", "out.mtx.gz"] {
        let path = dir.path().join(name);
        std::fs::write(&path, "previous contents").unwrap();
        // Too few rows: finish names the count.
        let mut w = MtxWriter::create_uncounted(&path, 3, 4, Field::Real).unwrap();
        w.write_rows(&small().rows(0..1)).unwrap();
        let err = w.finish().unwrap_err().to_string();
        assert!(
            err.contains("1 of the 3 rows declared were written"),
            "{err}"
        );
        // Dropped half-way: the temporary file (and a gzip file's held
        // back entries) removed.
        let mut w = MtxWriter::create_uncounted(&path, 3, 4, Field::Real).unwrap();
        w.write_rows(&small().rows(0..2)).unwrap();
        let expected_temporary = if name == "out.mtx" { 1 } else { 2 };
        let names = names_in(dir.path());
        assert_eq!(names.len(), expected_temporary + 1, "{names:?}");
        drop(w);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous contents");
        assert_eq!(names_in(dir.path()), [name]);
        std::fs::remove_file(&path).unwrap();
    }
}

// ---- dense output ----

#[test]
fn a_2x3_dense_matrix_is_written_column_major() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.mtx");
    // [[1, 2, 3], [4, 5, 6]], row-major, as scipy.io.mmwrite writes it.
    write_dense_mtx(&path, 2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], Field::Real).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "%%MatrixMarket matrix array real general\n2 3\n1\n4\n2\n5\n3\n6\n"
    );
}

/// The dense row-major values of an array file read back.
fn read_dense<T: spmx::Scalar>(path: &Path) -> (usize, usize, Vec<T>) {
    let coo: Coo<T> = read_mtx::<T>(path, &strict()).unwrap().coo;
    let (nrows, ncols) = coo.shape();
    assert_eq!(coo.nnz(), nrows * ncols, "an array file stores every value");
    let mut dense = vec![T::ZERO; nrows * ncols];
    for k in 0..coo.nnz() {
        dense[coo.rows()[k] as usize * ncols + coo.cols()[k] as usize] = coo.values()[k];
    }
    (nrows, ncols, dense)
}

#[test]
fn a_dense_matrix_reads_back_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let values = [
        0.1,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        f64::MAX,
        -1.0 / 3.0,
        0.0,
        1e300,
        -7.0,
        2.5,
    ];
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (name, nrows, ncols) in [("d.mtx", 3, 4), ("d.mtx.gz", 4, 3), ("row.mtx", 1, 12)] {
        let path = dir.path().join(name);
        write_dense_mtx(&path, nrows, ncols, &values, Field::Real).unwrap();
        let (r, c, back) = read_dense::<f64>(&path);
        assert_eq!((r, c), (nrows, ncols));
        // NaN reads back as the writer's one NaN, here the same bits.
        assert_eq!(bits(&back), bits(&values), "{name}");
    }
    let values32: Vec<f32> = values.iter().map(|&v| v as f32).collect();
    let path = dir.path().join("d32.mtx");
    write_dense_mtx(&path, 3, 4, &values32, Field::Real).unwrap();
    let back = read_dense::<f32>(&path).2;
    let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits32(&back), bits32(&values32));
    // Empty shapes.
    for (nrows, ncols) in [(0, 0), (0, 3), (2, 0)] {
        write_dense_mtx::<f64>(&path, nrows, ncols, &[], Field::Real).unwrap();
        assert_eq!(read_dense::<f64>(&path), (nrows, ncols, vec![]));
    }
}

#[test]
fn dense_integer_output_and_its_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("or_and.mtx");
    // An or-and result: 0/1 as an integer field.
    write_dense_mtx(&path, 2, 2, &[true, false, true, true], Field::Integer).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "%%MatrixMarket matrix array integer general\n2 2\n1\n1\n0\n1\n"
    );
    assert_eq!(read_dense::<bool>(&path).2, [true, false, true, true]);
    // Refused, leaving the previous file and nothing else.
    let refusals: [(&[f64], Field, &str); 3] = [
        (
            &[1.0, 2.5, 0.0, 1.0],
            Field::Integer,
            "value 2.5 at row 1, column 2",
        ),
        (&[1.0; 4], Field::Pattern, "cannot be stored as an array"),
        (
            &[1.0; 3],
            Field::Real,
            "3 values given for a 2 × 2 dense matrix",
        ),
    ];
    for (values, field, reason) in refusals {
        let err = write_dense_mtx(&path, 2, 2, values, field).unwrap_err();
        assert!(
            matches!(&err, Error::Io { path: p, .. } if p == &path)
                && err.to_string().contains(reason),
            "{err}"
        );
        assert_eq!(read_dense::<bool>(&path).2, [true, false, true, true]);
        assert_eq!(names_in(dir.path()), ["or_and.mtx"]);
    }
}
