//! MatrixMarket reader and writer: every bad-input error (file, line and
//! reason in the message), the lenient options, each layout and symmetry,
//! gzip, exact write → read round trips, and the atomic write.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use spmx::io::{
    Field, IndexBase, Layout, MtxMatrix, ReadNotes, ReadOptions, Symmetry, read_mtx, read_mtx_from,
    write_mtx, write_mtx_to,
};
use spmx::{Coo, Csr, Error};

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
    read_mtx(&data(name), &ReadOptions::default()).unwrap()
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

// ---- writing ----

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
fn gz_output_is_gzip() {
    let dir = tempfile::tempdir().unwrap();
    let m = read("general_real.mtx").coo.to_csr();
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

#[test]
fn io_error_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_mtx::<f64>(dir.path(), &strict()).unwrap_err();
    let msg = err.to_string();
    assert_eq!(msg.matches("Is a directory").count(), 1, "{msg}");
    // The reason is in the message, so it is not also the source.
    assert!(std::error::Error::source(&err).is_none());
}
