//! The SpGEMM race on the GPU (feature `gpu`): per product C = A ⊗ B, our
//! SpGEMM ([`spgemm_device`]: A, B and C on the device) and cuSPARSE's
//! `cusparseSpGEMM` ([`CusparseSpgemm`]), in one process on one device and
//! stream, from the same device copies of A and B, into the report every
//! race writes ([`MatrixResult`]: GFLOP/s, the fraction of copy bandwidth
//! for the bytes of A, B and C, the ratio to cuSPARSE).
//!
//! A run is timed whole, as a user calls it: from A and B on the device to
//! C on the device, every phase, allocation and read-back of sizes
//! included (both libraries stop for sizes in the middle), by the host
//! clock with the stream drained before and after. Every buffer of both
//! comes from the device's memory pool, which keeps what is freed (as
//! CuPy's and PyTorch's do): the warm median reuses what earlier runs
//! allocated. The first run of each starts from a pool handed back to the
//! driver, and is reported as the cold call. Each result is checked
//! against the cpu engine (the serial engine's bits): ours must match bit
//! for bit, cuSPARSE's pattern exactly and its values within the rounding
//! of another summation order — so an empty or truncated C is reported as
//! wrong, not timed. When our C does not fit the device, the product runs
//! in row blocks to the host ([`spgemm_with`]) and that time is reported,
//! marked.

use std::time::{Duration, Instant};

use super::check::BenchValue;
use super::measure::{RowSpread, Times};
use super::report::{CaseId, Device, MatrixResult, Outcome, Status};
use super::timer::{Harness, is_plus_times};
use crate::cusparse::{Cusparse, CusparseSpgemm, CusparseSpgemmReuse, CusparseValue};
use spmx::engine::cpu;
use spmx::engine::cuda::matrix::{DevCsr, download_csr};
use spmx::engine::cuda::spgemm::plan::{CudaSpgemmPlan, ReplayGrid};
use spmx::engine::cuda::spgemm::{SpgemmOptions, spgemm_blocks, spgemm_device, spgemm_with};
use spmx::error::Result;
use spmx::format::Csr;
use spmx::{PlusTimes, Scalar, Semiring};

/// Products above which C is not held whole on the host: the product runs
/// in row blocks and is checked block by block (R-MAT 20 squared has about
/// 30 billion, and a C over 10 billion entries).
const WHOLE_CHECK_MAX: u64 = 5_000_000_000;

/// Device bytes of C's entries a row block of those products holds: the
/// host holds a block and the cpu engine's copy of it at once.
const BLOCK_BUDGET: usize = 4 << 30;

/// Our implementation's name in the report.
pub const OURS: &str = "spgemm";
/// cuSPARSE's.
pub const VENDOR: &str = "cusparse-spgemm";
/// Ours and cuSPARSE's when only the numeric phase is timed.
pub const OURS_NUMERIC: &str = "spgemm-numeric";
pub const VENDOR_NUMERIC: &str = "cusparse-spgemm-reuse";

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct SpgemmBenchOptions {
    /// Timed runs per implementation and case (at least 1).
    pub reps: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Race cuSPARSE too (plus-times only).
    pub cusparse: bool,
    /// Time the numeric phase alone: a plan made once per product (ours
    /// [`CudaSpgemmPlan`], cuSPARSE's [`CusparseSpgemmReuse`]), then only its
    /// numeric phase, as a solver that multiplies the same patterns with
    /// new values calls it.
    pub numeric: bool,
}

/// A started SpGEMM bench.
pub struct SpgemmBench {
    harness: Harness,
    options: SpgemmBenchOptions,
}

impl SpgemmBench {
    /// Starts the GPU and, when asked for, cuSPARSE (an error without
    /// them), and measures the copy bandwidth.
    pub fn start(options: SpgemmBenchOptions) -> Result<SpgemmBench> {
        Ok(SpgemmBench {
            harness: Harness::start(options.cusparse, options.reps)?,
            options,
        })
    }

    /// The device and what was measured of it.
    pub fn device(&self) -> &Device {
        &self.harness.device
    }

    /// Races both on `C = A ⊗ B` (cuSPARSE only for plus-times), the case
    /// named and placed in a set as `case` says. Device failures of an
    /// implementation are its outcome; errors here are the reference's.
    pub fn run<S>(
        &mut self,
        case: &CaseId,
        a: &Csr<S::Value>,
        b: &Csr<S::Value>,
    ) -> Result<MatrixResult>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let products = spmx::ops::spgemm_products(a, b) as u64;
        let (results, nnz) = if self.options.numeric {
            self.run_numeric::<S>(a, b)?
        } else if products > WHOLE_CHECK_MAX {
            self.run_in_blocks::<S>(a, b)?
        } else {
            self.run_whole::<S>(a, b)?
        };
        let value = size_of::<S::Value>() as u64;
        let csr_bytes = |rows: usize, nnz: usize| (value + 4) * nnz as u64 + 4 * (rows as u64 + 1);
        let product = if std::ptr::eq(a, b) { "A·A" } else { "A·B" };
        let mut case = MatrixResult {
            name: case.name.clone(),
            source: format!("{product}: {}", case.source),
            set: case.set.clone(),
            rows: a.nrows(),
            cols: b.ncols(),
            nnz,
            k: None,
            bytes: csr_bytes(a.nrows(), a.nnz())
                + csr_bytes(b.nrows(), b.nnz())
                + csr_bytes(a.nrows(), nnz),
            flops: Some(2 * products),
            row_lengths: RowSpread::of(a),
            results,
            fastest_vendor: None,
        };
        case.derive(self.harness.device.copy_gb_per_s);
        Ok(case)
    }

    /// A product checked whole: both timed, `warmup` + `reps` runs each
    /// after the cold one. Returns the outcomes and C's entries.
    fn run_whole<S>(&self, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<(Vec<Outcome>, usize)>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let gpu = self.harness.gpu;
        let want = cpu::spgemm::<S>(a, b);
        let (da, db) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
        let ours = self.time(
            OURS,
            false,
            |keep| {
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
        let mut results = vec![ours];
        let shape = (a.nrows(), b.ncols());
        if let Some(lib) = self.cusparse::<S>() {
            results.push(self.time(
                VENDOR,
                true,
                |keep| {
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
            ));
        }
        Ok((results, want.nnz()))
    }

    /// The numeric phase alone, both plans made first (untimed; how long
    /// each took is in its note); each run recomputes C's values in place,
    /// the first checked as [`Self::run_whole`] checks. A C that a plan
    /// cannot hold on the device is that side's skipped outcome.
    fn run_numeric<S>(&self, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<(Vec<Outcome>, usize)>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let gpu = self.harness.gpu;
        let want = cpu::spgemm::<S>(a, b);
        let (da, db) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
        let skipped = |name: &str, vendor, e: spmx::Error| {
            Outcome::failed(name, name.into(), vendor, Status::Skipped, e.to_string())
        };
        let planned = Instant::now();
        let ours = match CudaSpgemmPlan::<S>::new(gpu, a, b) {
            Err(e) => skipped(OURS_NUMERIC, false, e),
            Ok(mut plan) => {
                let grid = match plan.replay_grid() {
                    None => None,
                    Some(ReplayGrid::Resident) => Some("the resident grid".to_string()),
                    Some(ReplayGrid::TilesAWarp(1)) => Some("a warp a tile".to_string()),
                    Some(ReplayGrid::TilesAWarp(n)) => Some(format!("a warp {n} tiles")),
                };
                let stores = match plan.replay_stages() {
                    Some(true) => "entries staged",
                    _ => "entries by lane",
                };
                let stores = match plan.replay_long_beside() {
                    Some(true) => format!("{stores}, long lists beside"),
                    _ => stores.to_string(),
                };
                let mode = grid.map_or("recomputing rows".to_string(), |grid| {
                    format!("replaying product lists, {grid}, {stores}")
                });
                let how = format!("{mode}; planned in {:.0} ms", ms(planned.elapsed()));
                let run = |keep: bool| {
                    let t = Instant::now();
                    plan.numeric()?;
                    gpu.sync()?;
                    let elapsed = t.elapsed();
                    let c = keep.then(|| plan.download()).transpose()?;
                    Ok((elapsed, how.clone(), c))
                };
                let check =
                    |c: &Csr<S::Value>| (c == &want).then_some(()).ok_or_else(|| differs(c, &want));
                self.time(OURS_NUMERIC, false, run, check)
            }
        };
        let mut results = vec![ours];
        let shape = (a.nrows(), b.ncols());
        if let Some(lib) = self.cusparse::<S>() {
            let planned = Instant::now();
            results.push(match CusparseSpgemmReuse::new(lib, gpu, &da, &db) {
                Err(e) => skipped(VENDOR_NUMERIC, true, e),
                Ok(mut reuse) => {
                    let how = format!("planned in {:.0} ms", ms(planned.elapsed()));
                    let run = |keep: bool| {
                        let t = Instant::now();
                        reuse.compute()?;
                        gpu.sync()?;
                        let elapsed = t.elapsed();
                        let c = keep
                            .then(|| {
                                let (p, c, v) = (&reuse.row_ptr, &reuse.col_idx, &reuse.values);
                                download_csr(gpu, shape, p, c, v, reuse.nnz)
                            })
                            .transpose()?;
                        Ok((elapsed, how.clone(), c))
                    };
                    self.time(VENDOR_NUMERIC, true, run, |c| close(c, &want, a, b))
                }
            });
        }
        Ok((results, want.nnz()))
    }

    /// cuSPARSE, where it races: asked for, and the semiring plus-times.
    fn cusparse<S: Semiring>(&self) -> Option<&Cusparse> {
        self.harness
            .cusparse
            .as_ref()
            .filter(|_| is_plus_times::<S>())
    }

    /// A product too large to check whole on the host: ours in row blocks
    /// of [`BLOCK_BUDGET`] bytes, timed once with the blocks dropped as they
    /// arrive, then run again with each block checked against the cpu
    /// engine's product of those rows of A; cuSPARSE's C (if any) by its
    /// size against ours. Returns the outcomes and C's entries.
    fn run_in_blocks<S>(
        &self,
        a: &Csr<S::Value>,
        b: &Csr<S::Value>,
    ) -> Result<(Vec<Outcome>, usize)>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let gpu = self.harness.gpu;
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
        let once = |name: &str, vendor: bool, time: Duration, how: String| {
            let ms = time.as_secs_f64() * 1e3;
            let mut o = Outcome::timed(name, name.into(), vendor, Times::of(&[ms]), 1);
            o.note = Some(how);
            o
        };
        let failed = |name: &str, vendor: bool, status, why: String| {
            Outcome::failed(name, name.into(), vendor, status, why)
        };
        let (ours, nnz) = match checked {
            Err(e) => (failed(OURS, false, Status::Skipped, e.to_string()), 0),
            Ok(stats) => match mismatch {
                Some(m) => (failed(OURS, false, Status::Wrong, m), stats.nnz as usize),
                None => (
                    once(
                        OURS,
                        false,
                        time,
                        format!(
                            "{} row blocks to the host, one run, checked block by block; classes {:?}",
                            stats.row_blocks, stats.classes
                        ),
                    ),
                    stats.nnz as usize,
                ),
            },
        };
        let mut results = vec![ours];
        if let Some(lib) = self.cusparse::<S>() {
            let run = || -> Result<(Duration, usize)> {
                let (da, db) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
                gpu.sync()?;
                let t = Instant::now();
                let c = CusparseSpgemm::multiply(lib, gpu, &da, &db)?;
                gpu.sync()?;
                Ok((t.elapsed(), c.nnz))
            };
            results.push(match run() {
                Err(e) => failed(VENDOR, true, Status::Skipped, e.to_string()),
                Ok((_, got)) if got != nnz => failed(
                    VENDOR,
                    true,
                    Status::Wrong,
                    format!("C has {got} entries, the product has {nnz}"),
                ),
                Ok((time, _)) => once(VENDOR, true, time, "one run, only C's size checked".into()),
            });
        }
        Ok((results, nnz))
    }

    /// The cold run (from a trimmed pool), then `warmup` untimed and at
    /// least `reps` timed runs of `run` (more for short products: see
    /// [`more_runs`]), the first result checked (`run` brings C back to the
    /// host when told to keep it). The median of the timed runs counts.
    fn time<T>(
        &self,
        name: &str,
        vendor: bool,
        mut run: impl FnMut(bool) -> Result<(Duration, String, Option<Csr<T>>)>,
        check: impl Fn(&Csr<T>) -> std::result::Result<(), String>,
    ) -> Outcome {
        let gpu = self.harness.gpu;
        let fail = |status, why: String| Outcome::failed(name, name.into(), vendor, status, why);
        let (mut times, mut cold_ms, mut ran) = (Vec::new(), 0.0, String::new());
        let warm = 1 + self.options.warmup;
        let mut i = 0;
        while i < warm + self.options.reps || more_runs(&times, self.options.reps) {
            let drained = match i {
                0 => gpu.trim_pool(),
                _ => gpu.sync(),
            };
            if let Err(e) = drained {
                return fail(Status::Skipped, e.to_string());
            }
            match run(i == 0) {
                Err(e) => return fail(Status::Skipped, e.to_string()),
                Ok((t, how, c)) => {
                    if let Some(Err(e)) = c.as_ref().map(&check) {
                        return fail(Status::Wrong, e);
                    }
                    let ms = t.as_secs_f64() * 1e3;
                    match i {
                        0 => cold_ms = ms,
                        i if i >= warm => times.push(ms),
                        _ => {}
                    }
                    ran = how;
                }
            }
            i += 1;
        }
        let mut o = Outcome::timed(name, name.into(), vendor, Times::of(&times), 1);
        o.cold_ms = Some(cold_ms);
        o.note = Some(ran);
        o
    }
}

/// Timed runs of a product add up to at least this (ms), up to
/// [`MAX_REPS_FACTOR`] times `--reps` runs: a host-timed run of under a
/// millisecond varies by a few tens of percent (launches, synchronizations),
/// and a median of 5 such runs misplaces a case by as much.
const MIN_TIMED_MS: f64 = 100.0;
const MAX_REPS_FACTOR: usize = 20;

/// Whether to time another run after `times` (ms), for `reps` asked.
fn more_runs(times: &[f64], reps: usize) -> bool {
    times.len() < reps * MAX_REPS_FACTOR && times.iter().sum::<f64>() < MIN_TIMED_MS
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_products_get_more_runs_up_to_a_limit() {
        // Long runs: --reps is enough.
        assert!(!more_runs(&[60.0; 5], 5));
        // Sub-millisecond runs: more, until 100 ms ...
        assert!(more_runs(&[0.3; 5], 5));
        assert!(!more_runs(&[0.5; 200], 500));
        // ... or 20 times --reps.
        assert!(!more_runs(&[0.01; 100], 5));
    }
}
