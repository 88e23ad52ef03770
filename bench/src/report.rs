//! A bench run's results: per case (a matrix; for SpMM, a matrix and a
//! width `k` of B), one [`Outcome`] per implementation (ours and the
//! vendor's), with the derived figures — GB/s, fraction of the device's
//! copy bandwidth, GFLOP/s (SpMM), ratio to the fastest vendor algorithm,
//! and which one that was — a summary per implementation, the text table
//! `spmx bench` prints, and the JSON `--json` writes (the same data; the
//! SpMM fields are absent from an SpMV report).

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::measure::{RowSpread, Times, geomean, giga_per_s};
use spmx::error::{Error, Result};

/// Everything one `spmx bench` run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `spmv`, `spmm` or `spgemm`.
    pub operation: String,
    /// The command line.
    pub command: String,
    /// UTC, `2026-11-23 07:47 UTC`.
    pub date: String,
    pub device: Device,
    /// `f32` or `f64`.
    pub value_type: String,
    /// `plus-times`, ...
    pub semiring: String,
    pub reps: usize,
    pub warmup: usize,
    /// Seed of the random `x` (SpMV) or B (SpMM); SpGEMM has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// SpMM: how B and C are stored, `row-major` or `col-major`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// The cases: one per matrix (SpMV), per matrix and `k` (SpMM).
    pub matrices: Vec<MatrixResult>,
    pub summary: Vec<Summary>,
}

/// The device and what was measured of it at the start.
#[derive(Clone, Debug, Serialize)]
pub struct Device {
    pub name: String,
    /// CUDA driver API version, `13.0`.
    pub driver: String,
    /// `12.6.3`; `None` when cuSPARSE was not used.
    pub cusparse: Option<String>,
    /// Device-to-device copy, bytes read plus bytes written per second / 10⁹.
    pub copy_gb_per_s: f64,
    pub l2_bytes: usize,
    pub memory_bytes: usize,
}

/// What names a case and places it in a set, before it runs: its matrix's
/// name, where the matrix comes from, and the set (`tune`, `validate`,
/// `files`; see [`crate::suite::Input::set`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CaseId {
    pub name: String,
    pub source: String,
    pub set: String,
}

/// One case — a matrix; for SpMM, a matrix and `k` — and every
/// implementation's outcome on it.
#[derive(Clone, Debug, Serialize)]
pub struct MatrixResult {
    /// The matrix's name; for SpMM, with `k` (`rmat22 k=64`).
    pub name: String,
    /// Generator and parameters, or the file.
    pub source: String,
    /// Which set its ratios are summarized in: `tune` (the suites rules are
    /// set on), `validate` (where they are scored) or `files`.
    pub set: String,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    /// SpMM: the columns of B and C.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// Bytes the operation moves at least (`measure::spmv_bytes`,
    /// `measure::spmm_bytes`), for GB/s.
    pub bytes: u64,
    /// SpMM: its flops (`measure::spmm_flops`), for GFLOP/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flops: Option<u64>,
    pub row_lengths: RowSpread,
    pub results: Vec<Outcome>,
    /// The vendor algorithm that was fastest here (the ratios are to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fastest_vendor: Option<String>,
}

/// What happened to one implementation on one matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// `auto`, `csr-vector`, ..., or `cusparse-alg1`, ...
    pub implementation: String,
    /// What ran: `csr-vector(8 lanes)`, `cusparse-alg1+pre` (`+pre`:
    /// `cusparseSpMV_preprocess` or `cusparseSpMM_preprocess` ran first).
    pub label: String,
    /// cuSPARSE rather than ours.
    pub vendor: bool,
    pub status: Status,
    /// Why it was skipped or wrong; for `ok`, anything worth knowing.
    pub note: Option<String>,
    /// Median, least and greatest per-run time (ms), when `ok`: warm, every
    /// buffer from the memory pool that earlier runs filled.
    pub ms: Option<Times>,
    /// The cold call (ms): building it and its first run, from a memory
    /// pool handed back to the driver, as a fresh process makes it.
    pub cold_ms: Option<f64>,
    /// Copies of the inputs the runs rotated through.
    pub rotation_sets: usize,
    pub gb_per_s: Option<f64>,
    /// GB/s over the device's copy GB/s.
    pub copy_fraction: Option<f64>,
    /// SpMM: flops per second / 10⁹, when `ok`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gflop_per_s: Option<f64>,
    /// The fastest vendor algorithm's median over this one's: above 1, this
    /// one is faster.
    pub vs_cusparse: Option<f64>,
}

/// Checked and timed, skipped (could not run here: a format too large, a
/// kernel missing), or wrong (its result failed the check; no time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Skipped,
    Wrong,
}

/// One of our implementations over one set of cases: its ratio to
/// cuSPARSE's fastest, over the cases where both were timed.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub implementation: String,
    /// `tune`, `validate`, `files`, or `all` (every case, where the run
    /// had more than one set).
    pub set: String,
    /// Cases with a ratio.
    pub matrices: usize,
    pub geomean_vs_cusparse: f64,
    pub min_vs_cusparse: f64,
    pub min_matrix: String,
}

impl Outcome {
    /// Timed and checked.
    pub fn timed(
        implementation: &str,
        label: String,
        vendor: bool,
        ms: Times,
        rotation_sets: usize,
    ) -> Outcome {
        Outcome {
            ms: Some(ms),
            rotation_sets,
            ..Outcome::untimed(implementation, label, vendor, Status::Ok, None)
        }
    }

    /// Skipped or wrong, saying why.
    pub fn failed(
        implementation: &str,
        label: String,
        vendor: bool,
        status: Status,
        why: String,
    ) -> Outcome {
        Outcome::untimed(implementation, label, vendor, status, Some(why))
    }

    fn untimed(
        implementation: &str,
        label: String,
        vendor: bool,
        status: Status,
        note: Option<String>,
    ) -> Outcome {
        Outcome {
            implementation: implementation.to_string(),
            label,
            vendor,
            status,
            note,
            ms: None,
            cold_ms: None,
            rotation_sets: 0,
            gb_per_s: None,
            copy_fraction: None,
            gflop_per_s: None,
            vs_cusparse: None,
        }
    }

    /// The name the table shows: the label where it names the
    /// implementation (`csr-vector(8 lanes)`, `cusparse-alg1+pre`), else
    /// both (`auto=csr-vector(8 lanes)`).
    pub fn display_name(&self) -> String {
        if self.label.starts_with(&self.implementation) {
            self.label.clone()
        } else {
            format!("{}={}", self.implementation, self.label)
        }
    }
}

impl MatrixResult {
    /// Fills in every outcome's GB/s, fraction of `copy_gb_per_s`,
    /// GFLOP/s (where the flops are known) and ratio to the fastest vendor
    /// algorithm, and names that algorithm.
    pub fn derive(&mut self, copy_gb_per_s: f64) {
        let (fastest, vendor_ms) = self
            .fastest_vendor_outcome()
            .map(|(o, ms)| (o.implementation.clone(), ms))
            .unzip();
        self.fastest_vendor = fastest;
        for o in &mut self.results {
            if let Some(t) = o.ms {
                let gbs = giga_per_s(self.bytes, t.median);
                o.gb_per_s = Some(gbs);
                o.copy_fraction = Some(gbs / copy_gb_per_s);
                o.gflop_per_s = self.flops.map(|f| giga_per_s(f, t.median));
                o.vs_cusparse = vendor_ms.map(|v| v / t.median);
            }
        }
    }

    /// The fastest vendor algorithm that was timed (the first of equals),
    /// and its median.
    pub fn fastest_vendor_outcome(&self) -> Option<(&Outcome, f64)> {
        self.results
            .iter()
            .filter(|o| o.vendor)
            .filter_map(|o| o.ms.map(|t| (o, t.median)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The median of the fastest vendor algorithm that was timed.
    pub fn fastest_vendor_ms(&self) -> Option<f64> {
        self.fastest_vendor_outcome().map(|(_, ms)| ms)
    }
}

impl Report {
    /// Per implementation of ours that has a ratio somewhere, in the order
    /// they first appear, one summary per set of cases (tune, validate,
    /// files) and, where there are several, one over all.
    pub fn summarize(&mut self) {
        let mut sets: Vec<&str> = Vec::new();
        for m in &self.matrices {
            if !sets.contains(&m.set.as_str()) {
                sets.push(&m.set);
            }
        }
        sets.sort_by_key(|s| ["tune", "validate", "files"].iter().position(|x| x == s));
        if sets.len() > 1 {
            sets.push("all");
        }
        let mut summary = Vec::new();
        for name in self.our_implementations() {
            for &set in &sets {
                let ratios: Vec<(f64, &str)> = self
                    .outcomes_of(name)
                    .filter(|(m, _)| set == "all" || m.set == set)
                    .filter_map(|(m, o)| o.vs_cusparse.map(|r| (r, m.name.as_str())))
                    .collect();
                let values: Vec<f64> = ratios.iter().map(|r| r.0).collect();
                let Some(geomean) = geomean(&values) else {
                    continue;
                };
                let (min, min_matrix) = ratios
                    .iter()
                    .copied()
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .expect("ratios is not empty");
                summary.push(Summary {
                    implementation: name.to_string(),
                    set: set.to_string(),
                    matrices: ratios.len(),
                    geomean_vs_cusparse: geomean,
                    min_vs_cusparse: min,
                    min_matrix: min_matrix.to_string(),
                });
            }
        }
        self.summary = summary;
    }

    /// Our implementations (not the vendor's), in the order they first
    /// appear.
    pub fn our_implementations(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for o in self.matrices.iter().flat_map(|m| &m.results) {
            if !o.vendor && !names.contains(&o.implementation.as_str()) {
                names.push(&o.implementation);
            }
        }
        names
    }

    /// Every matrix's outcome for our implementation `name`.
    pub fn outcomes_of<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = (&'a MatrixResult, &'a Outcome)> + 'a {
        self.matrices.iter().flat_map(move |m| {
            m.results
                .iter()
                .filter(move |o| !o.vendor && o.implementation == name)
                .map(move |o| (m, o))
        })
    }

    /// Whether any implementation gave a wrong result.
    pub fn any_wrong(&self) -> bool {
        self.matrices
            .iter()
            .flat_map(|m| &m.results)
            .any(|o| o.status == Status::Wrong)
    }

    /// The lines above the table: device, driver, cuSPARSE, copy
    /// bandwidth, date, and what was run.
    pub fn header_text(&self) -> String {
        let d = &self.device;
        let mut s = String::new();
        let _ = writeln!(s, "device     {}", d.name);
        let _ = writeln!(s, "driver     CUDA {}", d.driver);
        let vendor = d.cusparse.as_deref().unwrap_or("not used");
        let _ = writeln!(s, "cuSPARSE   {vendor}");
        let _ = writeln!(
            s,
            "copy       {:.1} GB/s (device-to-device, bytes read + written)",
            d.copy_gb_per_s
        );
        let _ = writeln!(s, "date       {}", self.date);
        let operand = match (&self.layout, self.seed) {
            (_, None) => "C = A·A (A·Aᵀ for a rectangular A), timed whole".to_string(),
            (None, Some(seed)) => format!("x random on (0, 1] seed {seed}"),
            (Some(layout), Some(seed)) => format!("B ({layout}) random on (0, 1] seed {seed}"),
        };
        let _ = writeln!(
            s,
            "run        {} {} {}, median of {} warm runs after {} warm-up, {operand}",
            self.operation, self.value_type, self.semiring, self.reps, self.warmup
        );
        let _ = writeln!(
            s,
            "memory     every buffer from the device's pool, kept warm; cold ms: the first \
             call, from a pool handed back to the driver"
        );
        s
    }

    /// Per vendor algorithm that was the fastest somewhere, the cases where
    /// it was (the ratios to cuSPARSE are to it there); empty without
    /// vendor timings.
    pub fn fastest_vendor_text(&self) -> String {
        let mut algorithms: Vec<(&str, Vec<&str>)> = Vec::new();
        for m in &self.matrices {
            let Some(alg) = m.fastest_vendor.as_deref() else {
                continue;
            };
            match algorithms.iter_mut().find(|(a, _)| *a == alg) {
                Some((_, cases)) => cases.push(&m.name),
                None => algorithms.push((alg, vec![&m.name])),
            }
        }
        let mut s = String::new();
        if !algorithms.is_empty() {
            let _ = writeln!(
                s,
                "fastest cuSPARSE algorithm per case (the ratios are to it):"
            );
        }
        for (alg, cases) in algorithms {
            let _ = writeln!(s, "  {alg:<22} {:>3} × {}", cases.len(), cases.join(", "));
        }
        s
    }

    /// The JSON of the whole report, written to a temporary file beside
    /// `path` and renamed over it.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a report serializes");
        write_atomically(path, text.as_bytes())
    }
}

/// The column titles of [`matrix_table`], with a GFLOP/s column for cases
/// that count flops (SpMM).
pub fn table_header(gflops: bool) -> String {
    let rate = if gflops {
        format!(" {:>8}", "GFLOP/s")
    } else {
        String::new()
    };
    format!(
        "{:<18} {:>9} {:>10}  {:<28} {:>9} {:>8} {:>6}{rate} {:>8} {:>9}\n",
        "matrix", "rows", "nnz", "implementation", "ms", "GB/s", "copy", "vs cuSP", "cold ms"
    )
}

/// One line per outcome of `m` (with GFLOP/s where `m` counts flops).
pub fn matrix_table(m: &MatrixResult) -> String {
    let mut s = String::new();
    for o in &m.results {
        let _ = write!(
            s,
            "{:<18} {:>9} {:>10}  {:<28} ",
            m.name,
            m.rows,
            m.nnz,
            o.display_name()
        );
        match (o.status, o.ms) {
            (Status::Ok, Some(t)) => {
                let ratio = o.vs_cusparse.map_or(String::new(), |r| format!("{r:.2}×"));
                let rate = o
                    .gflop_per_s
                    .map_or(String::new(), |g| format!(" {g:>8.1}"));
                let cold = o.cold_ms.map_or(String::new(), |c| format!(" {c:>9.3}"));
                let _ = write!(
                    s,
                    "{:>9.4} {:>8.1} {:>5.1}%{rate} {:>8}{cold}",
                    t.median,
                    o.gb_per_s.unwrap_or(0.0),
                    100.0 * o.copy_fraction.unwrap_or(0.0),
                    ratio
                );
                if let Some(note) = &o.note {
                    let _ = write!(s, "  ({note})");
                }
            }
            (status, _) => {
                let word = if status == Status::Wrong {
                    "WRONG"
                } else {
                    "skipped"
                };
                let _ = write!(s, "{word}: {}", o.note.as_deref().unwrap_or(""));
            }
        }
        s.push('\n');
    }
    s
}

/// The lines under the table: per implementation of ours, the geometric
/// mean and the least of its ratios to cuSPARSE over the `cases`
/// (`matrices`, or for SpMM `cases`: a matrix and a `k`).
pub fn summary_text(summary: &[Summary], cases: &str) -> String {
    let mut s = String::new();
    for x in summary {
        let _ = writeln!(
            s,
            "{:<16} {:<9} geomean {:.2}× cuSPARSE over {} {cases}, min {:.2}× ({})",
            x.implementation,
            x.set,
            x.geomean_vs_cusparse,
            x.matrices,
            x.min_vs_cusparse,
            x.min_matrix
        );
    }
    s
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path`: a failure leaves no truncated file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(io_err)
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_text(secs)
}

/// `secs` after the Unix epoch as `YYYY-MM-DD HH:MM UTC` (the proleptic
/// Gregorian calendar, by Howard Hinnant's `civil_from_days`).
fn utc_text(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A made-up report: two matrices, auto and csr-scalar against two
    /// vendor algorithms, one skipped kernel and one wrong one.
    pub(crate) fn sample() -> Report {
        let t = |ms: f64| Times {
            median: ms,
            min: ms * 0.95,
            max: ms * 1.1,
        };
        let spread = |max: usize, mean: f64, cv: f64| RowSpread {
            min: 1,
            max,
            mean,
            cv,
        };
        let matrix = |name: &str, ms: [f64; 4], max: usize, cv: f64| MatrixResult {
            name: name.into(),
            source: format!("{name} source"),
            set: "tune".into(),
            rows: 1000,
            cols: 1000,
            nnz: 32_000,
            k: None,
            bytes: 2_000_000,
            flops: None,
            row_lengths: spread(max, 32.0, cv),
            results: vec![
                Outcome::timed("auto", "csr-vector(16 lanes)".into(), false, t(ms[0]), 4),
                Outcome::timed("csr-scalar", "csr-scalar".into(), false, t(ms[1]), 4),
                Outcome::failed(
                    "ell",
                    "ell".into(),
                    false,
                    Status::Skipped,
                    "too large: 80 GB".into(),
                ),
                Outcome::timed("cusparse-alg1", "cusparse-alg1".into(), true, t(ms[2]), 4),
                Outcome::timed("cusparse-alg2", "cusparse-alg2".into(), true, t(ms[3]), 4),
            ],
            fastest_vendor: None,
        };
        let mut report = Report {
            operation: "spmv".into(),
            command: "spmx bench spmv --suite gpu-default".into(),
            date: utc_text(0),
            device: Device {
                name: "Made-up GPU".into(),
                driver: "13.0".into(),
                cusparse: Some("12.6.3".into()),
                copy_gb_per_s: 4.0,
                l2_bytes: 50 << 20,
                memory_bytes: 80 << 30,
            },
            value_type: "f32".into(),
            semiring: "plus-times".into(),
            reps: 50,
            warmup: 10,
            seed: Some(1),
            layout: None,
            matrices: vec![
                matrix("uniform", [1.0, 2.0, 1.0, 0.9], 56, 0.4),
                matrix("rmat", [0.5, 4.0, 2.0, 1.0], 9000, 12.0),
            ],
            summary: Vec::new(),
        };
        report.matrices[1].results.push(Outcome::failed(
            "coo",
            "coo".into(),
            false,
            Status::Wrong,
            "1 of 1000 entries of y wrong".into(),
        ));
        for m in &mut report.matrices {
            m.derive(report.device.copy_gb_per_s);
        }
        report.summarize();
        report
    }

    #[test]
    fn summaries_per_set_and_over_all() {
        let mut r = sample();
        r.matrices[1].set = "validate".into();
        r.summarize();
        let auto: Vec<(&str, usize)> = r
            .summary
            .iter()
            .filter(|s| s.implementation == "auto")
            .map(|s| (s.set.as_str(), s.matrices))
            .collect();
        assert_eq!(auto, [("tune", 1), ("validate", 1), ("all", 2)]);
        let text = summary_text(&r.summary, "matrices");
        assert!(text.contains("validate  geomean 2.00×"), "{text}");
    }

    #[test]
    fn derived_figures_and_summary() {
        let r = sample();
        let uniform = &r.matrices[0];
        assert_eq!(uniform.fastest_vendor_ms(), Some(0.9));
        let auto = &uniform.results[0];
        assert_eq!(auto.gb_per_s, Some(2.0));
        assert_eq!(auto.copy_fraction, Some(0.5));
        assert!((auto.vs_cusparse.unwrap() - 0.9).abs() < 1e-12);
        assert_eq!(uniform.results[2].gb_per_s, None);
        // auto: 0.9 on uniform, 2.0 on rmat; csr-scalar: 0.45 and 0.25.
        let s = &r.summary;
        assert_eq!(s.len(), 2, "ell and coo have no ratios");
        assert_eq!(s[0].implementation, "auto");
        assert!((s[0].geomean_vs_cusparse - (0.9f64 * 2.0).sqrt()).abs() < 1e-12);
        assert_eq!((s[0].min_matrix.as_str(), s[0].matrices), ("uniform", 2));
        assert!((s[1].min_vs_cusparse - 0.25).abs() < 1e-12);
        assert!(r.any_wrong());
    }

    #[test]
    fn table_and_summary_text() {
        let r = sample();
        let table = matrix_table(&r.matrices[1]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 6);
        assert!(lines[0].starts_with("rmat"));
        assert!(lines[0].contains("auto=csr-vector(16 lanes)"));
        assert!(lines[0].contains("2.00×"), "{}", lines[0]);
        assert!(lines[0].contains(" 4.0 ") && lines[0].contains("100.0%"));
        assert!(lines[2].contains("skipped: too large: 80 GB"));
        assert!(lines[5].contains("WRONG: 1 of 1000"));
        assert!(table_header(false).starts_with("matrix"));
        assert!(!table_header(false).contains("GFLOP/s"));
        let text = summary_text(&r.summary, "matrices");
        assert!(text.starts_with("auto"), "{text}");
        assert!(
            text.contains("tune      geomean 1.34× cuSPARSE over 2 matrices, min 0.90× (uniform)")
        );
        let header = r.header_text();
        assert!(header.contains("Made-up GPU") && header.contains("12.6.3"));
        assert!(header.contains("4.0 GB/s") && header.contains("1970-01-01 00:00 UTC"));
    }

    /// [`sample`] as an SpMM report: the same times, for k = 128.
    pub(crate) fn spmm_sample() -> Report {
        let mut report = sample();
        report.operation = "spmm".into();
        report.layout = Some("row-major".into());
        for m in &mut report.matrices {
            m.name = format!("{} k=128", m.name);
            m.k = Some(128);
            m.flops = Some(crate::measure::spmm_flops(m.nnz, 128));
            m.derive(report.device.copy_gb_per_s);
        }
        report.summarize();
        report
    }

    #[test]
    fn spmm_cases_have_gflops_and_name_the_fastest_vendor_algorithm() {
        let r = spmm_sample();
        let rmat = &r.matrices[1];
        assert_eq!(rmat.fastest_vendor.as_deref(), Some("cusparse-alg2"));
        // 2 · 32000 · 128 flops in 0.5 ms.
        assert!((rmat.results[0].gflop_per_s.unwrap() - 16.384).abs() < 1e-9);
        assert_eq!(rmat.results[2].gflop_per_s, None, "skipped");
        assert!(table_header(true).contains("GFLOP/s"));
        let table = matrix_table(rmat);
        let first = table.lines().next().unwrap();
        assert!(
            first.starts_with("rmat k=128") && first.contains(" 16.4 "),
            "{first}"
        );
        assert!(first.ends_with("2.00×"), "{first}");
        let text = summary_text(&r.summary, "cases");
        assert!(
            text.contains("over 2 cases, min 0.90× (uniform k=128)"),
            "{text}"
        );
        let fastest = r.fastest_vendor_text();
        assert!(fastest.starts_with("fastest cuSPARSE algorithm per case"));
        assert!(
            fastest.contains("cusparse-alg2            2 × uniform k=128, rmat k=128"),
            "{fastest}"
        );
        assert!(r.header_text().contains("B (row-major) random on (0, 1]"));
        assert!(sample().header_text().contains("x random on (0, 1]"));
    }

    #[test]
    fn spmm_fields_are_in_spmm_json_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let read = |r: &Report| {
            r.write_json(&path).unwrap();
            serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&path).unwrap())
                .unwrap()
        };
        let spmv = read(&sample());
        let spmm = read(&spmm_sample());
        assert_eq!(spmv.get("layout"), None);
        assert_eq!(spmm["layout"], "row-major");
        let (v, m) = (&spmv["matrices"][0], &spmm["matrices"][0]);
        for key in ["k", "flops"] {
            assert_eq!(v.get(key), None, "{key} in SpMV JSON");
        }
        assert_eq!(v["results"][0].get("gflop_per_s"), None);
        assert_eq!(
            (m["k"].as_u64(), m["flops"].as_u64()),
            (Some(128), Some(8_192_000))
        );
        assert!(m["results"][0]["gflop_per_s"].as_f64().is_some());
        assert_eq!(v["fastest_vendor"], "cusparse-alg2");
        assert_eq!(m["fastest_vendor"], "cusparse-alg2");
    }

    #[test]
    fn json_has_the_same_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let r = sample();
        r.write_json(&path).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["device"]["name"], "Made-up GPU");
        assert_eq!(v["device"]["cusparse"], "12.6.3");
        let m = &v["matrices"][1];
        assert_eq!(m["name"], "rmat");
        assert_eq!(m["row_lengths"]["max"], 9000);
        assert_eq!(m["results"][0]["implementation"], "auto");
        assert_eq!(m["results"][0]["ms"]["median"], 0.5);
        assert_eq!(m["results"][0]["vs_cusparse"], 2.0);
        assert_eq!(m["results"][2]["status"], "skipped");
        assert_eq!(m["results"][2]["ms"], serde_json::Value::Null);
        assert_eq!(m["results"][5]["status"], "wrong");
        assert_eq!(v["summary"][0]["min_matrix"], "uniform");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn dates_are_utc_civil_dates() {
        assert_eq!(utc_text(0), "1970-01-01 00:00 UTC");
        // 2000-02-29 12:34 (a leap day in a century leap year).
        assert_eq!(utc_text(951_827_640), "2000-02-29 12:34 UTC");
        assert_eq!(utc_text(1_795_392_000), "2026-11-23 00:00 UTC");
    }
}
