//! The MatrixMarket reader: every bad-input error (file, line and reason in
//! the message), the lenient options, each layout and symmetry, gzip. The
//! writer's tests are in `io_write.rs`, the reader's limits in
//! `io_read_limits.rs`.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

use spmx::io::{
    Field, IndexBase, Layout, MtxMatrix, ReadNotes, ReadOptions, Symmetry, read_mtx, read_mtx_from,
};
use spmx::{Coo, Error};

// ---- allocation tracking: the largest single allocation on this thread ----

struct TrackLargest;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
}

unsafe impl GlobalAlloc for TrackLargest {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: TrackLargest = TrackLargest;

/// The largest single allocation `f` makes on this thread.
fn largest_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LARGEST.with(|m| m.set(0));
    let r = f();
    (r, LARGEST.with(Cell::get))
}

// ---- helpers ----

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read(name: &str) -> MtxMatrix<f64> {
    read_mtx(data(name), &ReadOptions::default()).unwrap()
}

/// Triplets in COO order.
fn triplets<T: spmx::Scalar>(coo: &Coo<T>) -> Vec<(u32, u32, T)> {
    (0..coo.nnz())
        .map(|k| (coo.rows()[k], coo.cols()[k], coo.values()[k]))
        .collect()
}

/// Writes `text` to a file named `name` and reads it; the read must fail
/// with a parse error whose message names the file, `line` and `reason`.
fn assert_parse_error(name: &str, text: &str, opts: ReadOptions, line: u64, reason: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let err = read_mtx::<f64>(&path, &opts).unwrap_err();
    let msg = err.to_string();
    let Error::Parse { file, line: at, .. } = &err else {
        panic!("expected a parse error, got {err:?}");
    };
    assert_eq!(
        (file.as_str(), *at),
        (path.to_str().unwrap(), line),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{}:{line}: ", path.display())),
        "{msg}"
    );
    assert!(msg.contains(reason), "{msg:?} lacks {reason:?}");
}

fn strict() -> ReadOptions {
    ReadOptions::default()
}

const COORD_REAL: &str = "%%MatrixMarket matrix coordinate real general\n";

// ---- bad input: one test per error ----

#[test]
fn bad_banner() {
    assert_parse_error(
        "b.mtx",
        "%MatrixMarket matrix coordinate real general\n1 1 0\n",
        strict(),
        1,
        "bad banner",
    );
    assert_parse_error(
        "b.mtx",
        "1 1 1\n1 1 1\n",
        strict(),
        1,
        "bad banner: the file starts with `1 1 1`",
    );
    assert_parse_error(
        "b.mtx",
        "%%MatrixMarket matrix coordinate real\n",
        strict(),
        1,
        "symmetry word is missing",
    );
    assert_parse_error(
        "b.mtx",
        "%%MatrixMarket matrix sparse real general\n",
        strict(),
        1,
        "unknown format `sparse`",
    );
    assert_parse_error("b.mtx", "", strict(), 1, "empty file");
}

#[test]
fn unsupported_complex() {
    let text = "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n";
    assert_parse_error("c.mtx", text, strict(), 1, "unsupported field `complex`");
}

#[test]
fn unsupported_hermitian() {
    let text = "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n";
    assert_parse_error(
        "h.mtx",
        text,
        strict(),
        1,
        "unsupported symmetry `hermitian`",
    );
}

#[test]
fn unsupported_vector_object_and_pattern_array() {
    assert_parse_error(
        "v.mtx",
        "%%MatrixMarket vector coordinate real general\n",
        strict(),
        1,
        "unsupported object `vector`",
    );
    assert_parse_error(
        "p.mtx",
        "%%MatrixMarket matrix array pattern general\n",
        strict(),
        1,
        "pattern matrix cannot be stored as an array",
    );
}

#[test]
fn missing_size_line() {
    let text = format!("{COORD_REAL}% only comments\n\n");
    assert_parse_error("m.mtx", &text, strict(), 4, "missing size line");
    let text = format!("{COORD_REAL}3 x 1\n");
    assert_parse_error(
        "m.mtx",
        &text,
        strict(),
        2,
        "size line: `x` is not a non-negative integer",
    );
    let text = format!("{COORD_REAL}3 3\n");
    assert_parse_error(
        "m.mtx",
        &text,
        strict(),
        2,
        "size line has 2 fields, expected 3",
    );
}

#[test]
fn dimensions_past_u32_are_too_large() {
    let text = format!("{COORD_REAL}4294967296 2 0\n");
    assert_parse_error(
        "d.mtx",
        &text,
        strict(),
        2,
        "matrix too large: 4294967296 × 2",
    );
}

#[test]
fn symmetric_must_be_square() {
    let text = "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n";
    assert_parse_error("s.mtx", text, strict(), 2, "must be square");
}

#[test]
fn non_number() {
    let text = format!("{COORD_REAL}2 2 2\n1 1 1.5\n2 2 1.5x\n");
    assert_parse_error(
        "n.mtx",
        &text,
        strict(),
        4,
        "value `1.5x` is not a real number",
    );
    let text = format!("{COORD_REAL}2 2 1\n1 one 1\n");
    assert_parse_error(
        "n.mtx",
        &text,
        strict(),
        3,
        "column index `one` is not an integer",
    );
    let text = format!("{COORD_REAL}2 2 1\n1 +1 1\n");
    assert_parse_error(
        "n.mtx",
        &text,
        strict(),
        3,
        "column index `+1` is not an integer",
    );
    let text = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n";
    assert_parse_error("n.mtx", text, strict(), 3, "value `2.5` is not an integer");
    let text = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 9007199254740993\n";
    assert_parse_error("n.mtx", text, strict(), 3, "f64 cannot hold exactly");
    let text = "%%MatrixMarket matrix array real general\n1 2\n1\nNaN?\n";
    assert_parse_error(
        "n.mtx",
        text,
        strict(),
        4,
        "value `NaN?` is not a real number",
    );
}

#[test]
fn wrong_field_count() {
    let text = format!("{COORD_REAL}2 2 2\n1 1 1\n1 2\n");
    assert_parse_error(
        "f.mtx",
        &text,
        strict(),
        4,
        "expected 3 fields (row column value) for a real matrix, found 2",
    );
    let text = format!("{COORD_REAL}2 2 1\n1 1 1 1\n");
    assert_parse_error("f.mtx", &text, strict(), 3, "found 4");
    let text = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n";
    assert_parse_error(
        "f.mtx",
        text,
        strict(),
        3,
        "expected 2 fields (row column) for a pattern matrix, found 3",
    );
    let text = "%%MatrixMarket matrix array real general\n1 1\n1 2\n";
    assert_parse_error(
        "f.mtx",
        text,
        strict(),
        3,
        "expected 1 field (value) in an array file, found 2",
    );
}

#[test]
fn row_index_out_of_range() {
    let text = format!("{COORD_REAL}3 4 2\n1 1 1\n4 1 1\n");
    assert_parse_error(
        "r.mtx",
        &text,
        strict(),
        4,
        "row index 4 out of range: 1-based rows run 1..=3",
    );
}

#[test]
fn column_index_out_of_range() {
    let text = format!("{COORD_REAL}3 4 1\n1 5 1\n");
    assert_parse_error(
        "c.mtx",
        &text,
        strict(),
        3,
        "column index 5 out of range: 1-based columns run 1..=4",
    );
    let text = format!("{COORD_REAL}3 4 1\n1 99999999999999999999999 1\n");
    assert_parse_error(
        "c.mtx",
        &text,
        strict(),
        3,
        "column index 99999999999999999999999 out of range",
    );
}

#[test]
fn zero_index_in_one_based_file() {
    let text = format!("{COORD_REAL}3 4 1\n0 1 1\n");
    assert_parse_error(
        "z.mtx",
        &text,
        strict(),
        3,
        "row index 0 out of range: 1-based rows run 1..=3",
    );
    let text = format!("{COORD_REAL}3 4 1\n1 0 1\n");
    assert_parse_error("z.mtx", &text, strict(), 3, "column index 0 out of range");
}

#[test]
fn too_few_entries() {
    let text = format!("{COORD_REAL}3 3 3\n1 1 1\n% a comment\n2 2 2\n");
    assert_parse_error(
        "few.mtx",
        &text,
        strict(),
        6,
        "too few entries: the file ends after 2 of the 3",
    );
    let text = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3";
    assert_parse_error("few.mtx", text, strict(), 6, "after 3 of the 4");
}

#[test]
fn too_many_entries() {
    let text = format!("{COORD_REAL}3 3 1\n1 1 1\n\n2 2 2\n");
    assert_parse_error(
        "many.mtx",
        &text,
        strict(),
        5,
        "too many entries: the size line declares 1",
    );
    let text = "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n";
    assert_parse_error("many.mtx", text, strict(), 6, "declares 3");
}

#[test]
fn skew_symmetric_diagonal_entry() {
    let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n3 3 1\n";
    assert_parse_error(
        "skew.mtx",
        text,
        strict(),
        4,
        "diagonal entry (3, 3) in a skew-symmetric matrix",
    );
}

/// A size line claiming more than any machine's memory (10¹⁵ entries, or
/// an array of 1.6·10¹⁹) is refused at the size line, with the numbers,
/// before anything large is allocated: from a file, a stream or gzip.
#[test]
fn a_size_line_larger_than_memory_is_refused_before_allocating() {
    let texts = [
        "%%MatrixMarket matrix coordinate real general\n4000000000 4000000000 1000000000000000\n1 1 1\n",
        "%%MatrixMarket matrix coordinate real symmetric\n4000000000 4000000000 1000000000000000\n1 1 1\n",
        "%%MatrixMarket matrix array real general\n4000000000 4000000000\n1\n",
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absurd.mtx");
    for text in texts {
        std::fs::write(&path, text).unwrap();
        let gz = gzip(text.as_bytes());
        let file = largest_allocation(|| read_mtx::<f64>(&path, &strict()).unwrap_err());
        let stream = largest_allocation(|| {
            read_mtx_from::<f64, _>(text.as_bytes(), "stream", &strict()).unwrap_err()
        });
        let gz =
            largest_allocation(|| read_mtx_from::<f64, _>(&gz[..], "gz", &strict()).unwrap_err());
        for (name, (err, largest)) in [
            (path.to_str().unwrap(), file),
            ("stream", stream),
            ("gz", gz),
        ] {
            assert!(matches!(err, Error::TooLarge(_)), "{err:?}");
            let msg = err.to_string();
            assert!(
                msg.contains(&format!("{name}:2: the size line declares ")),
                "{msg}"
            );
            assert!(msg.contains("bytes") && msg.contains("of memory"), "{msg}");
            assert!(largest < 1 << 20, "allocated {largest} bytes at once");
        }
    }
}

/// A size line within memory that the body does not fill ends with the
/// count it found. 2³³ entries (137 GB as f64) is refused as above on a
/// machine with less memory, read to the end on one with more.
#[test]
fn a_size_line_that_lies_ends_with_too_few_entries() {
    for (declared, symmetry) in [
        ("1000", "general"),
        ("1000", "symmetric"),
        ("8589934592", "general"),
    ] {
        let text = format!(
            "%%MatrixMarket matrix coordinate real {symmetry}\n4000000000 4000000000 {declared}\n1 1 1\n"
        );
        let (err, largest) = largest_allocation(|| {
            read_mtx_from::<f64, _>(text.as_bytes(), "lie", &strict()).unwrap_err()
        });
        let msg = err.to_string();
        let too_few = format!("lie:4: too few entries: the file ends after 1 of the {declared}");
        let too_large = format!("lie:2: the size line declares {declared} entries");
        assert!(msg.contains(&too_few) || msg.contains(&too_large), "{msg}");
        assert!(largest < 1 << 20, "allocated {largest} bytes at once");
    }
}

// ---- lenient options ----

#[test]
fn drop_invalid_skips_out_of_range_entries_and_counts_them() {
    let opts = ReadOptions {
        drop_invalid: true,
        ..Default::default()
    };
    // Symmetric: (4, 1) and (2, 0) are dropped, each counted once.
    let m = read_mtx::<f64>(&data("out_of_range.mtx"), &opts).unwrap();
    assert_eq!(m.dropped, 2);
    assert_eq!(triplets(&m.coo), [(0, 0, 1.0), (2, 1, 4.0), (1, 2, 4.0)]);
    // Without the option the first bad entry is an error.
    let err = read_mtx::<f64>(&data("out_of_range.mtx"), &strict()).unwrap_err();
    assert!(
        err.to_string()
            .contains("out_of_range.mtx:4: row index 4 out of range"),
        "{err}"
    );
    // Malformed lines are still errors.
    let text = format!("{COORD_REAL}2 2 1\n9 x 1\n");
    assert_parse_error("bad.mtx", &text, opts, 3, "column index `x`");
}

#[test]
fn index_base_zero() {
    let opts = ReadOptions {
        index_base: IndexBase::Zero,
        ..Default::default()
    };
    let m = read_mtx::<f64>(&data("zero_based.mtx"), &opts).unwrap();
    assert_eq!(triplets(&m.coo), [(0, 0, 1.0), (1, 0, 2.0)]);
    let err = read_mtx::<f64>(&data("zero_based.mtx"), &strict()).unwrap_err();
    assert!(
        err.to_string()
            .contains("zero_based.mtx:4: row index 0 out of range"),
        "{err}"
    );
    let text = format!("{COORD_REAL}2 2 1\n0 2 1\n");
    assert_parse_error(
        "z.mtx",
        &text,
        opts,
        3,
        "column index 2 out of range: 0-based columns run 0..=1",
    );
}

// ---- layouts, symmetries, formatting ----

#[test]
fn general_real_keeps_file_order_duplicates_and_zeros() {
    let m = read("general_real.mtx");
    assert_eq!(
        m.header,
        spmx::io::Header {
            layout: Layout::Coordinate,
            field: Field::Real,
            symmetry: Symmetry::General,
            nrows: 3,
            ncols: 4,
            declared_entries: 6,
        }
    );
    assert_eq!(
        triplets(&m.coo),
        [
            (0, 0, 1.5),
            (2, 3, -2.25e-3),
            (1, 1, 0.0),
            (0, 0, 0.5),
            (2, 0, 1e300),
            (1, 3, -7.0)
        ]
    );
    assert_eq!(m.coo.to_csr().get(0, 0), Some(2.0));
}

#[test]
fn crlf_comments_blank_lines_and_whitespace() {
    let m = read("crlf_comments.mtx");
    assert_eq!(m.header.field, Field::Integer);
    assert_eq!(
        triplets(&m.coo),
        [(0, 2, -4.0), (1, 0, 9007199254740992.0), (1, 1, 0.0)]
    );
}

#[test]
fn symmetric_pattern_mirrors_off_diagonal_entries() {
    let m = read("symmetric_pattern.mtx");
    assert_eq!(m.header.declared_entries, 4);
    assert_eq!(
        triplets(&m.coo),
        [
            (0, 0, 1.0),
            (1, 0, 1.0),
            (0, 1, 1.0),
            (3, 1, 1.0),
            (1, 3, 1.0),
            (3, 2, 1.0),
            (2, 3, 1.0)
        ]
    );
    let b = read_mtx::<bool>(&data("symmetric_pattern.mtx"), &strict()).unwrap();
    assert!(b.coo.values().iter().all(|&v| v));
}

#[test]
fn skew_symmetric_mirrors_negated() {
    let m = read("skew_symmetric.mtx");
    assert_eq!(m.header.symmetry, Symmetry::SkewSymmetric);
    assert_eq!(
        triplets(&m.coo),
        [(1, 0, 2.5), (0, 1, -2.5), (2, 1, -1.0), (1, 2, 1.0)]
    );
}

#[test]
fn array_real_is_column_major_with_zeros_kept() {
    let m = read("array_real.mtx");
    assert_eq!(m.header.layout, Layout::Array);
    assert_eq!(m.header.declared_entries, 6);
    let csr = m.coo.to_csr();
    assert_eq!(csr.nnz(), 6);
    let dense: Vec<Vec<f64>> = (0..2)
        .map(|i| (0..3).map(|j| csr.get(i, j).unwrap()).collect())
        .collect();
    assert_eq!(dense, [[1.0, 3.0, 5.0], [2.0, 0.0, 6.0]]);
}

#[test]
fn array_symmetric_is_the_lower_triangle_by_columns() {
    let m = read("array_symmetric.mtx");
    assert_eq!(m.header.declared_entries, 6);
    let csr = m.coo.to_csr();
    let dense: Vec<Vec<f64>> = (0..3)
        .map(|i| (0..3).map(|j| csr.get(i, j).unwrap()).collect())
        .collect();
    assert_eq!(dense, [[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]]);
    let skew = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n";
    let csr = read_mtx_from::<f64, _>(skew.as_bytes(), "s", &strict())
        .unwrap()
        .coo
        .to_csr();
    assert_eq!(csr.row(0), (&[1, 2][..], &[-1.0, -2.0][..]));
    assert_eq!(csr.row(2), (&[0, 1][..], &[2.0, 3.0][..]));
}

#[test]
fn display_uses_matrix_market_words() {
    assert_eq!(Layout::Coordinate.to_string(), "coordinate");
    assert_eq!(Layout::Array.to_string(), "array");
    assert_eq!(Field::Pattern.to_string(), "pattern");
    assert_eq!(Symmetry::SkewSymmetric.to_string(), "skew-symmetric");
}

#[test]
fn f32_values_round_once() {
    // Just above the midpoint between 1 and the next f32: through f64 it
    // would land on the midpoint and round (to even) down to 1.
    let text = format!("{COORD_REAL}1 1 1\n1 1 1.000000059604644775390625001\n");
    let m = read_mtx_from::<f32, _>(text.as_bytes(), "f32", &strict()).unwrap();
    assert_eq!(m.coo.values(), [1.0 + f32::EPSILON]);
}

// ---- gzip ----

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

#[test]
fn gzip_is_read_transparently() {
    let plain = read("general_real.mtx");
    assert_eq!(read("general_real.mtx.gz"), plain);
    let bytes = std::fs::read(data("general_real.mtx.gz")).unwrap();
    let from = read_mtx_from::<f64, _>(&bytes[..], "stdin", &strict()).unwrap();
    assert_eq!(from, plain);
    // Errors inside a compressed file name the right line.
    let gz = gzip(format!("{COORD_REAL}% c\n2 2 1\n1 3 1\n").as_bytes());
    let err = read_mtx_from::<f64, _>(&gz[..], "x.mtx.gz", &strict()).unwrap_err();
    assert!(
        err.to_string().starts_with("x.mtx.gz:4: column index 3"),
        "{err}"
    );
    // A corrupt stream is an I/O error, not a panic.
    let err = read_mtx_from::<f64, _>(&gz[..gz.len() / 2], "cut.gz", &strict()).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
}

#[test]
fn odd_inputs_give_errors_not_panics() {
    let cases: &[(&[u8], &str)] = &[
        (b"\n", "x:1: bad banner: the first line is empty"),
        (b"\x1f\x8b", "x: "),
        (b"\x1f\x8b\x08\x00garbage", "x: "),
        (
            b"%%MatrixMarket\0matrix coordinate real general\n",
            "x:1: bad banner",
        ),
        (
            b"%%MatrixMarket matrix coordinate real general\n1 1 99999999999999999999999999\n",
            "too large: x:2: the size line declares 18446744073709551615 entries",
        ),
    ];
    for (input, expected) in cases {
        let err = read_mtx_from::<f64, _>(*input, "x", &strict()).unwrap_err();
        assert!(err.to_string().starts_with(expected), "{err} for {input:?}");
    }
    // A real too large for f64 reads as infinity, as strtod gives.
    let text = format!("{COORD_REAL}1 1 1\n1 1 1e99999\n");
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "x", &strict()).unwrap();
    assert_eq!(m.coo.values(), [f64::INFINITY]);
    // A UTF-8 byte-order mark before the banner and tabs between words are fine.
    let text = "\u{feff}%%MatrixMarket\tmatrix\tcoordinate\treal\tgeneral\n1\t1\t1\n1\t1\t-0\n";
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "bom", &strict()).unwrap();
    assert_eq!(m.coo.values()[0].to_bits(), (-0.0f64).to_bits());
}

// ---- issue 20: the course's files, values the reader changes, gzip ----

/// The first lines of a course generator's 8191² file (it declares 784379
/// entries; the size line here counts the four kept): 0-based, with `-1`
/// columns.
const COURSE_EXCERPT: &str = "%%MatrixMarket matrix coordinate real general
8191 8191 4
0 -1 1.0
0 0 1.0
1 -1 1.0
1 0 1.0
";

#[test]
fn course_file_minus_one_index_dropped() {
    let zero_based = ReadOptions {
        index_base: IndexBase::Zero,
        ..Default::default()
    };
    let opts = dropping(zero_based);
    let m = read_mtx_from::<f64, _>(COURSE_EXCERPT.as_bytes(), "course.mtx", &opts).unwrap();
    assert_eq!(m.dropped, 2);
    assert_eq!(triplets(&m.coo), [(0, 0, 1.0), (1, 0, 1.0)]);
    assert_eq!(m.coo.shape(), (8191, 8191));
    // Without --drop-invalid: the usual out-of-range error, file and line.
    assert_parse_error(
        "course.mtx",
        COURSE_EXCERPT,
        zero_based,
        3,
        "column index -1 out of range: 0-based columns run 0..=8190 (--drop-invalid skips",
    );
    // 1-based, a negative row is out of range too; `-0` is 0.
    let text = format!("{COORD_REAL}2 2 2\n-7 1 1\n-0 1 1\n");
    assert_parse_error(
        "neg.mtx",
        &text,
        strict(),
        3,
        "row index -7 out of range: 1-based rows run 1..=2",
    );
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "neg.mtx", &dropping(zero_based)).unwrap();
    assert_eq!((m.dropped, triplets(&m.coo)), (1, vec![(0, 1, 1.0)]));
}

/// `opts` with `drop_invalid`.
fn dropping(opts: ReadOptions) -> ReadOptions {
    ReadOptions {
        drop_invalid: true,
        ..opts
    }
}

#[test]
fn overflowed_and_underflowed_values_are_counted() {
    let text = format!(
        "{COORD_REAL}3 3 7\n1 1 1e400\n1 2 -1e400\n1 3 1e-400\n2 1 -2.5e-999\n2 2 inf\n2 3 0.0e-999\n3 3 1e-310\n"
    );
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "x", &strict()).unwrap();
    let values = m.coo.values();
    assert_eq!(values[..2], [f64::INFINITY, f64::NEG_INFINITY]);
    assert_eq!(values[2].to_bits(), 0.0f64.to_bits());
    assert_eq!(values[3].to_bits(), (-0.0f64).to_bits());
    // `inf` names infinity, `0.0e-999` is zero and a subnormal is kept.
    assert_eq!(
        m.notes,
        ReadNotes {
            overflowed: 2,
            underflowed: 2,
            ..Default::default()
        }
    );
    // f32 overflows and underflows sooner, also from integer files.
    let text = "%%MatrixMarket matrix array real general\n2 1\n1e39\n1e-50\n";
    let m = read_mtx_from::<f32, _>(text.as_bytes(), "x", &strict()).unwrap();
    assert_eq!((m.notes.overflowed, m.notes.underflowed), (1, 1));
    // 2¹²⁸: exact in f64, past f32's largest.
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n\
                2 1 340282366920938463463374607431768211456\n";
    let m = read_mtx_from::<f32, _>(text.as_bytes(), "x", &strict()).unwrap();
    // A symmetric entry counts once, though it is stored twice.
    assert_eq!(m.coo.values(), [f32::INFINITY; 2]);
    assert_eq!(m.notes.overflowed, 1);
}

#[test]
fn nan_is_noted_with_its_first_line() {
    let text = format!("{COORD_REAL}3 3 3\n1 1 1\n1 2 nan\n2 3 -NaN\n");
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "x", &strict()).unwrap();
    assert_eq!(m.notes.first_nan, Some(4));
    assert!(m.coo.values()[1].is_nan() && m.coo.values()[2].is_nan());
    // A dropped line's NaN is not the matrix's.
    let text = format!("{COORD_REAL}2 2 2\n3 1 nan\n1 1 1\n");
    let m = read_mtx_from::<f64, _>(text.as_bytes(), "x", &dropping(strict())).unwrap();
    assert_eq!(m.notes.first_nan, None);
}

#[test]
fn gzip_with_trailing_bytes_is_read_and_the_bytes_counted() {
    let text = format!("{COORD_REAL}2 2 1\n% c\n2 1 3.5\n");
    let plain = read_mtx_from::<f64, _>(text.as_bytes(), "x", &strict()).unwrap();
    let mut gz = gzip(text.as_bytes());
    gz.extend_from_slice(b"trailing garbage\n");
    let m = read_mtx_from::<f64, _>(&gz[..], "x.gz", &strict()).unwrap();
    assert_eq!(m.coo, plain.coo);
    assert_eq!(m.notes.ignored_trailing_bytes, 17);
    // One stray byte (the buffer cannot look two ahead without reading).
    let mut gz = gzip(text.as_bytes());
    gz.push(0x1f);
    let m = read_mtx_from::<f64, _>(&gz[..], "x.gz", &strict()).unwrap();
    assert_eq!(m.notes.ignored_trailing_bytes, 1);
    // Several members are one text, nothing ignored.
    let (head, tail) = text.split_at(20);
    let mut gz = gzip(head.as_bytes());
    gz.extend(gzip(tail.as_bytes()));
    let m = read_mtx_from::<f64, _>(&gz[..], "x.gz", &strict()).unwrap();
    assert_eq!((m.coo.clone(), m.notes), (plain.coo, ReadNotes::default()));
    // A second member that is damaged is an error, not trailing bytes.
    let mut gz = gzip(text.as_bytes());
    gz.extend_from_slice(b"\x1f\x8b\x08\x00garbage");
    let err = read_mtx_from::<f64, _>(&gz[..], "x.gz", &strict()).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
}

#[test]
fn io_error_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_mtx::<f64>(dir.path(), &strict()).unwrap_err();
    let msg = err.to_string();
    assert_eq!(msg.matches("Is a directory").count(), 1, "{msg}");
    // The reason is in the message, so it is not also the source.
    assert!(std::error::Error::source(&err).is_none());
}
