//! MatrixMarket read and write throughput on one core: writes a random
//! coordinate real file of about 170 MB (5M entries, full-precision values)
//! to a temporary folder, then times `write_mtx`, `read_mtx`,
//! `read_mtx_from` (a stream of unknown size, as the CLI reads through its
//! progress bar) and `read_mtx` of the gzipped file, best of 3 each.
//!
//! `cargo bench --bench mtx_read`

use std::path::Path;
use std::time::{Duration, Instant};

use spmx::Csr;
use spmx::io::{Field, ReadOptions, read_mtx, read_mtx_from, write_mtx};

const NROWS: usize = 1_000_000;
const NCOLS: usize = 1_000_000;
const PER_ROW: usize = 5;
const RUNS: usize = 3;

/// splitmix64: enough randomness for a benchmark input, reproducibly.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `PER_ROW` entries a row, one in each equal slice of the columns (so
/// sorted and distinct), with values uniform in (-1, 1) at full precision.
fn random_csr() -> Csr<f64> {
    let mut rng = SplitMix(42);
    let slice = NCOLS / PER_ROW;
    let mut col_idx = Vec::with_capacity(NROWS * PER_ROW);
    let mut values = Vec::with_capacity(NROWS * PER_ROW);
    for _ in 0..NROWS {
        for k in 0..PER_ROW {
            col_idx.push((k * slice) as u32 + (rng.next() % slice as u64) as u32);
            values.push((rng.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0);
        }
    }
    let row_ptr = (0..=NROWS).map(|i| i * PER_ROW).collect();
    Csr::try_new(NROWS, NCOLS, row_ptr, col_idx, values).unwrap()
}

/// The fastest of `RUNS` runs of `f`.
fn best_of(mut f: impl FnMut()) -> Duration {
    (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn report(what: &str, bytes: u64, entries: usize, t: Duration) {
    let s = t.as_secs_f64();
    println!(
        "{what:<16} {:>7.1} MB in {s:.3} s: {:>6.1} MB/s, {:>5.2} M entries/s (best of {RUNS})",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / s,
        entries as f64 / 1e6 / s
    );
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.mtx");
    let m = random_csr();
    let nnz = m.nnz();

    let t = best_of(|| write_mtx(&path, &m, Field::Real).unwrap());
    report("write_mtx", file_len(&path), nnz, t);

    let opts = ReadOptions::default();
    let t = best_of(|| {
        let read = read_mtx::<f64>(&path, &opts).unwrap();
        assert_eq!(read.coo.nnz(), nnz);
    });
    report("read_mtx", file_len(&path), nnz, t);

    let t = best_of(|| {
        let file = std::fs::File::open(&path).unwrap();
        let read = read_mtx_from::<f64, _>(file, "stream", &opts).unwrap();
        assert_eq!(read.coo.nnz(), nnz);
    });
    report("read_mtx_from", file_len(&path), nnz, t);

    let gz_path = dir.path().join("bench.mtx.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz_path).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::copy(&mut std::fs::File::open(&path).unwrap(), &mut gz).unwrap();
    gz.finish().unwrap();
    let t = best_of(|| {
        let read = read_mtx::<f64>(&gz_path, &opts).unwrap();
        assert_eq!(read.coo.nnz(), nnz);
    });
    report("read_mtx (gzip)", file_len(&path), nnz, t);
    println!(
        "(gzip: MB/s of decompressed text; the .gz file is {:.1} MB)",
        file_len(&gz_path) as f64 / 1e6
    );
}
