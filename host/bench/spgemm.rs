//! The SpGEMM race on the GPU (feature `gpu`): per product C = A ⊗ B, our
//! SpGEMM ([`spgemm_device`]: A, B and C on the device) and cuSPARSE's
//! `cusparseSpGEMM` ([`CusparseSpgemm`]), in one process on one device and
//! stream, from the same device copies of A and B.
//!
//! A run is timed whole, as a user calls it: from A and B on the device to
//! C on the device, every phase, allocation and read-back of sizes
//! included (both libraries stop for sizes in the middle), by the host
//! clock with the stream drained before and after. The median of the
//! timed runs counts. Each result is checked against the cpu engine (the
//! serial engine's bits): ours must match bit for bit, cuSPARSE's pattern
//! exactly and its values within the rounding of another summation order — so an empty or truncated C
//! is reported as wrong, not timed. When our C does not fit the device,
//! the product runs in row blocks to the host ([`spgemm_with`]) and that
//! time is reported, marked.

use std::time::{Duration, Instant};

use super::check::BenchValue;
use crate::engine::cpu;
use crate::engine::cuda::Gpu;
use crate::engine::cuda::cusparse::{Cusparse, CusparseSpgemm, CusparseValue};
use crate::engine::cuda::matrix::{DevCsr, download_csr};
use crate::engine::cuda::spgemm::{SpgemmOptions, spgemm_blocks, spgemm_device, spgemm_with};
use crate::error::Result;
use crate::format::Csr;
use crate::{PlusTimes, Scalar, Semiring};

/// Products above which C is not held whole on the host: the product runs
/// in row blocks and is checked block by block (R-MAT 20 squared has about
/// 30 billion, and a C over 10 billion entries).
const WHOLE_CHECK_MAX: u64 = 5_000_000_000;

/// Device bytes of C's entries a row block of those products holds: the
/// host holds a block and the cpu engine's copy of it at once.
const BLOCK_BUDGET: usize = 4 << 30;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct SpgemmBenchOptions {
    /// Timed runs per implementation and case (at least 1).
    pub reps: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Race cuSPARSE too (plus-times only).
    pub cusparse: bool,
}

/// How one implementation did on one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Correct; the median time, and how it ran.
    Ran { time: Duration, how: String },
    /// It returned a C that is not the product.
    Wrong(String),
    /// It failed with an error.
    Failed(String),
}

impl Outcome {
    pub fn time(&self) -> Option<Duration> {
        match self {
            Outcome::Ran { time, .. } => Some(*time),
            _ => None,
        }
    }
}

/// One product's results.
#[derive(Clone, Debug)]
pub struct SpgemmCase {
    pub name: String,
    /// Products (multiply-add pairs): twice this is the flop count.
    pub products: u64,
    pub nnz: usize,
    pub ours: Outcome,
    pub cusparse: Option<Outcome>,
}

impl SpgemmCase {
    /// cuSPARSE's time over ours, where both ran.
    pub fn ratio(&self) -> Option<f64> {
        let ours = self.ours.time()?;
        let theirs = self.cusparse.as_ref()?.time()?;
        Some(theirs.as_secs_f64() / ours.as_secs_f64())
    }
}

/// A started SpGEMM bench.
pub struct SpgemmBench {
    gpu: &'static Gpu,
    cusparse: Option<Cusparse>,
    options: SpgemmBenchOptions,
}

impl SpgemmBench {
    /// Starts the GPU and, when asked for, cuSPARSE (an error without them).
    pub fn start(options: SpgemmBenchOptions) -> Result<SpgemmBench> {
        assert!(options.reps > 0, "a bench needs at least one timed run");
        let gpu = Gpu::get()?;
        let cusparse = options.cusparse.then(|| Cusparse::new(gpu)).transpose()?;
        Ok(SpgemmBench {
            gpu,
            cusparse,
            options,
        })
    }

    /// The device's name and cuSPARSE's version.
    pub fn describe(&self) -> String {
        let lib = self.cusparse.as_ref().map_or("no cuSPARSE".into(), |l| {
            format!("cuSPARSE {}", l.version())
        });
        format!("{}, {lib}", self.gpu.name())
    }

    /// Races both on `C = A ⊗ B` (cuSPARSE only for plus-times). Device
    /// failures of an implementation are its outcome; errors here are the
    /// reference's.
    pub fn run<S>(&mut self, name: &str, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<SpgemmCase>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let gpu = self.gpu;
        let products = crate::ops::spgemm_products(a, b) as u64;
        if products > WHOLE_CHECK_MAX {
            return self.run_in_blocks::<S>(name, a, b, products);
        }
        let want = cpu::spgemm::<S>(a, b);
        let (da, db) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
        let ours = self.time(
            |keep| {
                gpu.sync()?;
                let t = Instant::now();
                let c = spgemm_device::<S>(gpu, &da, &db)?;
                gpu.sync()?;
                let elapsed = t.elapsed();
                Ok(match c {
                    Some(c) => {
                        let how = format!("classes {:?}", c.classes);
                        let c = keep.then(|| c.download(gpu)).transpose()?;
                        (elapsed, how, c)
                    }
                    None => {
                        // C does not fit: row blocks to the host, timed whole.
                        let t = Instant::now();
                        let run = spgemm_with::<S>(a, b, SpgemmOptions::default())?;
                        let how = format!("{} row blocks to the host", run.stats.row_blocks);
                        (t.elapsed(), how, Some(run.c))
                    }
                })
            },
            |c| (c == &want).then_some(()).ok_or_else(|| differs(c, &want)),
        );
        let is_plus_times = S::NAME == "plus-times";
        let shape = (a.nrows(), b.ncols());
        let cusparse = self.cusparse.as_ref().filter(|_| is_plus_times).map(|lib| {
            self.time(
                |keep| {
                    gpu.sync()?;
                    let t = Instant::now();
                    let c = CusparseSpgemm::multiply(lib, gpu, &da, &db)?;
                    gpu.sync()?;
                    let elapsed = t.elapsed();
                    let c = keep
                        .then(|| download_csr(gpu, shape, &c.row_ptr, &c.col_idx, &c.values, c.nnz))
                        .transpose()?;
                    Ok((elapsed, "CUSPARSE_SPGEMM_DEFAULT".into(), c))
                },
                |c| close(c, &want, a, b),
            )
        });
        Ok(SpgemmCase {
            name: name.to_string(),
            products,
            nnz: want.nnz(),
            ours,
            cusparse,
        })
    }

    /// A product too large to check whole on the host: ours in row blocks
    /// of [`BLOCK_BUDGET`] bytes, timed once with the blocks dropped as they
    /// arrive, then run again with each block checked against the cpu
    /// engine's product of those rows of A; cuSPARSE's C (if any) by its
    /// size against ours.
    fn run_in_blocks<S>(
        &mut self,
        name: &str,
        a: &Csr<S::Value>,
        b: &Csr<S::Value>,
        products: u64,
    ) -> Result<SpgemmCase>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let gpu = self.gpu;
        let options = SpgemmOptions {
            memory_budget: Some(BLOCK_BUDGET),
        };
        let t = Instant::now();
        let timed = spgemm_blocks::<S>(a, b, options, &mut |rows, block| {
            eprintln!(
                "  rows {rows:?}: {} entries ({:.1} s)",
                block.nnz(),
                t.elapsed().as_secs_f64()
            );
            Ok(())
        });
        let time = t.elapsed();
        let mut mismatch = None;
        let checked = timed.and_then(|stats| {
            spgemm_blocks::<S>(a, b, options, &mut |rows, block| {
                let want = cpu::spgemm::<S>(&a.rows(rows.clone()), b);
                if block != want && mismatch.is_none() {
                    mismatch = Some(format!("rows {rows:?}: {}", differs(&block, &want)));
                }
                eprintln!(
                    "  rows {rows:?} checked ({:.1} s)",
                    t.elapsed().as_secs_f64()
                );
                Ok(())
            })
            .map(|_| stats)
        });
        let (ours, nnz) = match checked {
            Err(e) => (Outcome::Failed(e.to_string()), 0),
            Ok(stats) => match mismatch {
                Some(m) => (Outcome::Wrong(m), stats.nnz as usize),
                None => (
                    Outcome::Ran {
                        time,
                        how: format!(
                            "{} row blocks to the host, one run, checked block by block; classes {:?}",
                            stats.row_blocks, stats.classes
                        ),
                    },
                    stats.nnz as usize,
                ),
            },
        };
        let is_plus_times = S::NAME == "plus-times";
        let cusparse = self.cusparse.as_ref().filter(|_| is_plus_times).map(|lib| {
            let run = || -> Result<(Duration, usize)> {
                let (da, db) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
                gpu.sync()?;
                let t = Instant::now();
                let c = CusparseSpgemm::multiply(lib, gpu, &da, &db)?;
                gpu.sync()?;
                Ok((t.elapsed(), c.nnz))
            };
            match run() {
                Err(e) => Outcome::Failed(e.to_string()),
                Ok((_, got)) if got != nnz => {
                    Outcome::Wrong(format!("C has {got} entries, the product has {nnz}"))
                }
                Ok((time, _)) => Outcome::Ran {
                    time,
                    how: "one run, only C's size checked".into(),
                },
            }
        });
        Ok(SpgemmCase {
            name: name.to_string(),
            products,
            nnz,
            ours,
            cusparse,
        })
    }

    /// Warm-up and timed runs of `run`, the first result checked (`run`
    /// brings C back to the host when told to keep it).
    fn time<T>(
        &self,
        mut run: impl FnMut(bool) -> Result<(Duration, String, Option<Csr<T>>)>,
        check: impl Fn(&Csr<T>) -> std::result::Result<(), String>,
    ) -> Outcome {
        let mut times = Vec::new();
        let mut how = String::new();
        for i in 0..self.options.warmup + self.options.reps {
            match run(i == 0) {
                Err(e) => return Outcome::Failed(e.to_string()),
                Ok((t, h, c)) => {
                    if let Some(Err(e)) = c.as_ref().map(&check) {
                        return Outcome::Wrong(e);
                    }
                    if i >= self.options.warmup {
                        times.push(t.as_secs_f64());
                    }
                    how = h;
                }
            }
        }
        Outcome::Ran {
            time: Duration::from_secs_f64(median(&mut times)),
            how,
        }
    }
}

/// The median of `times` (not empty).
fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Where `got` first differs from `want`.
fn differs<T: Scalar>(got: &Csr<T>, want: &Csr<T>) -> String {
    if got.nnz() != want.nnz() {
        return format!(
            "C has {} entries, the product has {}",
            got.nnz(),
            want.nnz()
        );
    }
    if got.row_ptr() != want.row_ptr() || got.col_idx() != want.col_idx() {
        return "C's pattern differs from the product's".into();
    }
    "C's values differ from the cpu engine's bits".into()
}

/// `got` (of `a ⊗ b`) has `want`'s pattern and each value within the
/// rounding of another summation order: `2 (t + 2) u Σ|products|` for an
/// entry of `t` products.
fn close<T: BenchValue>(
    got: &Csr<T>,
    want: &Csr<T>,
    a: &Csr<T>,
    b: &Csr<T>,
) -> std::result::Result<(), String> {
    if got.nnz() != want.nnz() || got.row_ptr() != want.row_ptr() || got.col_idx() != want.col_idx()
    {
        return Err(differs(got, want));
    }
    let bound = Bound::new(a, b);
    let entries = got.values().iter().zip(want.values());
    let bounds = bound.magnitude.values().iter().zip(bound.terms.values());
    for (k, ((g, w), (m, t))) in entries.zip(bounds).enumerate() {
        let (g, w) = (g.to_f64(), w.to_f64());
        let tol = 2.0 * (t + 2.0) * (T::UNIT_ROUNDOFF * m + T::TINY);
        if (g - w).abs() > tol && !(g.is_nan() && w.is_nan()) {
            return Err(format!(
                "entry {k}: {g} where the cpu engine has {w} (± {tol:.3e})"
            ));
        }
    }
    Ok(())
}

/// Per entry of C: `Σ |a_ik b_kj|` and the number of products, in `f64`
/// (by the cpu engine on |A| and |B|, and on their patterns).
struct Bound {
    magnitude: Csr<f64>,
    terms: Csr<f64>,
}

impl Bound {
    fn new<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> Bound {
        let abs = |m: &Csr<T>| m.map(|v| v.to_f64().abs());
        let ones = |m: &Csr<T>| m.map(|_| 1.0);
        Bound {
            magnitude: cpu::spgemm::<PlusTimes<f64>>(&abs(a), &abs(b)),
            terms: cpu::spgemm::<PlusTimes<f64>>(&ones(a), &ones(b)),
        }
    }
}

/// A line of the table for `case`: sizes, each time and rate, the ratio.
pub fn case_line(case: &SpgemmCase) -> String {
    let cell = |o: &Outcome| match o {
        Outcome::Ran { time, .. } => format!(
            "{:>10.3} {:>8.1}",
            time.as_secs_f64() * 1e3,
            2.0 * case.products as f64 / time.as_secs_f64() / 1e9
        ),
        Outcome::Wrong(_) => format!("{:>19}", "WRONG"),
        Outcome::Failed(_) => format!("{:>19}", "FAILED"),
    };
    let theirs = case.cusparse.as_ref().map_or(format!("{:>19}", "-"), cell);
    let ratio = case.ratio().map_or("-".into(), |r| format!("{r:.2}×"));
    let mut line = format!(
        "{:<28} {:>13} {:>12} {} {} {:>7}",
        case.name,
        case.products,
        case.nnz,
        cell(&case.ours),
        theirs,
        ratio
    );
    for (who, o) in [
        ("spmx", Some(&case.ours)),
        ("cuSPARSE", case.cusparse.as_ref()),
    ] {
        match o {
            Some(Outcome::Wrong(e)) | Some(Outcome::Failed(e)) => {
                line += &format!("\n    {who}: {e}")
            }
            Some(Outcome::Ran { how, .. }) if who == "spmx" => line += &format!("  ({how})"),
            _ => {}
        }
    }
    line
}

/// The table's header.
pub fn table_header() -> String {
    format!(
        "{:<28} {:>13} {:>12} {:>10} {:>8} {:>10} {:>8} {:>7}\n",
        "product", "products", "C entries", "spmx ms", "GFLOP/s", "cuSP ms", "GFLOP/s", "ratio"
    )
}

/// Geometric mean, least and greatest of the ratios to cuSPARSE, over the
/// cases where both ran.
pub fn summary(cases: &[SpgemmCase]) -> String {
    let ratios: Vec<f64> = cases.iter().filter_map(SpgemmCase::ratio).collect();
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| matches!(c.cusparse, Some(Outcome::Wrong(_) | Outcome::Failed(_))))
        .map(|c| c.name.as_str())
        .collect();
    let mut s = String::new();
    if !ratios.is_empty() {
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let max = ratios.iter().copied().fold(0.0, f64::max);
        s += &format!(
            "speedup over cuSPARSE, {} products both completed: geomean {geo:.2}×, min {min:.2}×, max {max:.2}×\n",
            ratios.len()
        );
    }
    if !failed.is_empty() {
        s += &format!("cuSPARSE did not complete: {}\n", failed.join(", "));
    }
    s
}
