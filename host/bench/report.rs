//! A bench run's results: per matrix, one [`Outcome`] per implementation
//! (ours and the vendor's), with the derived figures — GB/s, fraction of
//! the device's copy bandwidth, ratio to the fastest vendor algorithm — a
//! summary per implementation, the text table `spmx bench` prints, and
//! the JSON `--json` writes (the same data).

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::measure::{RowSpread, Times, gb_per_s, geomean};
use crate::error::{Error, Result};

/// Everything one `spmx bench` run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `spmv`.
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
    /// Seed of the random `x`.
    pub seed: u64,
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

/// One matrix and every implementation's outcome on it.
#[derive(Clone, Debug, Serialize)]
pub struct MatrixResult {
    pub name: String,
    /// Generator and parameters, or the file.
    pub source: String,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    /// Bytes an SpMV moves at least (`measure::spmv_bytes`), for GB/s.
    pub bytes: u64,
    pub row_lengths: RowSpread,
    pub results: Vec<Outcome>,
}

/// What happened to one implementation on one matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// `auto`, `csr-vector`, ..., or `cusparse-alg1`, ...
    pub implementation: String,
    /// What ran: `csr-vector(8 lanes)`, `cusparse-alg1+pre` (`+pre`:
    /// `cusparseSpMV_preprocess` ran first).
    pub label: String,
    /// cuSPARSE rather than ours.
    pub vendor: bool,
    pub status: Status,
    /// Why it was skipped or wrong; for `ok`, anything worth knowing.
    pub note: Option<String>,
    /// Median, least and greatest per-run time (ms), when `ok`.
    pub ms: Option<Times>,
    /// Copies of the inputs the runs rotated through.
    pub rotation_sets: usize,
    pub gb_per_s: Option<f64>,
    /// GB/s over the device's copy GB/s.
    pub copy_fraction: Option<f64>,
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

/// One of our implementations over the whole run: its ratio to cuSPARSE's
/// fastest, over the matrices where both were timed.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub implementation: String,
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
            rotation_sets: 0,
            gb_per_s: None,
            copy_fraction: None,
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
    /// Fills in every outcome's GB/s, fraction of `copy_gb_per_s` and
    /// ratio to the fastest vendor algorithm.
    pub fn derive(&mut self, copy_gb_per_s: f64) {
        let vendor_ms = self.fastest_vendor_ms();
        for o in &mut self.results {
            if let Some(t) = o.ms {
                let gbs = gb_per_s(self.bytes, t.median);
                o.gb_per_s = Some(gbs);
                o.copy_fraction = Some(gbs / copy_gb_per_s);
                o.vs_cusparse = vendor_ms.map(|v| v / t.median);
            }
        }
    }

    /// The median of the fastest vendor algorithm that was timed.
    pub fn fastest_vendor_ms(&self) -> Option<f64> {
        self.results
            .iter()
            .filter(|o| o.vendor)
            .filter_map(|o| o.ms.map(|t| t.median))
            .min_by(f64::total_cmp)
    }
}

impl Report {
    /// One summary per implementation of ours that has a ratio somewhere,
    /// in the order they first appear.
    pub fn summarize(&mut self) {
        let mut summary = Vec::new();
        for name in self.our_implementations() {
            let ratios: Vec<(f64, &str)> = self
                .outcomes_of(name)
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
                matrices: ratios.len(),
                geomean_vs_cusparse: geomean,
                min_vs_cusparse: min,
                min_matrix: min_matrix.to_string(),
            });
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
        let _ = writeln!(
            s,
            "run        {} {} {}, median of {} runs after {} warm-up, x random on (0, 1] seed {}",
            self.operation, self.value_type, self.semiring, self.reps, self.warmup, self.seed
        );
        s
    }

    /// The JSON of the whole report, written to a temporary file beside
    /// `path` and renamed over it.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a report serializes");
        write_atomically(path, text.as_bytes())
    }
}

/// The column titles of [`matrix_table`].
pub fn table_header() -> String {
    format!(
        "{:<18} {:>9} {:>10}  {:<28} {:>9} {:>8} {:>6} {:>8}\n",
        "matrix", "rows", "nnz", "implementation", "ms", "GB/s", "copy", "vs cuSP"
    )
}

/// One line per outcome of `m`.
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
                let _ = write!(
                    s,
                    "{:>9.4} {:>8.1} {:>5.1}% {:>8}",
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
/// mean and the least of its ratios to cuSPARSE.
pub fn summary_text(summary: &[Summary]) -> String {
    let mut s = String::new();
    for x in summary {
        let _ = writeln!(
            s,
            "{:<24} geomean {:.2}× cuSPARSE over {} matrices, min {:.2}× ({})",
            x.implementation, x.geomean_vs_cusparse, x.matrices, x.min_vs_cusparse, x.min_matrix
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
            rows: 1000,
            cols: 1000,
            nnz: 32_000,
            bytes: 2_000_000,
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
            seed: 1,
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
        assert!(table_header().starts_with("matrix"));
        let text = summary_text(&r.summary);
        assert!(text.starts_with("auto"), "{text}");
        assert!(text.contains("geomean 1.34× cuSPARSE over 2 matrices, min 0.90× (uniform)"));
        let header = r.header_text();
        assert!(header.contains("Made-up GPU") && header.contains("12.6.3"));
        assert!(header.contains("4.0 GB/s") && header.contains("1970-01-01 00:00 UTC"));
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
