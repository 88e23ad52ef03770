//! The SpMV race on the GPU (feature `gpu`): per matrix, each of our
//! kernels ([`SpmvPlan`]) and each of cuSPARSE's CSR algorithms
//! ([`CusparseSpmv`]), in one process on one device and stream.
//!
//! Per matrix, `x` is random on (0, 1] from the seed and the serial engine
//! computes the reference `y` ([`Reference`]). Per implementation:
//!
//! 1. build it: A uploaded in its format. One that cannot be built here
//!    (a format too large, no kernel for the semiring) is skipped, saying
//!    why;
//! 2. poison `y` with NaN, run once, copy `y` back and check it: a wrong
//!    result gets no time;
//! 3. `warmup` runs, then `reps` runs, each between two events recorded on
//!    the stream, queued behind a kernel that holds the stream until the
//!    host has queued them all (so they run back to back: no run waits on
//!    the host's queueing, for cuSPARSE as for ours), rotating
//!    among copies of A and of `x`, `y` ([`rotation_sets`]) so that no run
//!    finds the previous one's data in L2. The median per-run time counts;
//! 4. the `y` the last run wrote is checked too: a kernel that is right
//!    once but not when repeated fails here.
//!
//! At the start, the device's copy bandwidth: the median of timed
//! device-to-device copies of 1 GiB, counting bytes read and written.
//!
//! Limits: where even all the rotation sets fit in three times L2, the
//! outcome's note says the runs read partly from the cache.

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUresult};
use cudarc::driver::{CudaEvent, CudaSlice, DriverError};

use super::check::{BenchValue, Reference, random_x};
use super::measure::{RowSpread, Times, gb_per_s, rotation_sets, spmv_bytes};
use super::report::{Device, MatrixResult, Outcome, Status};
use crate::engine::cuda::cusparse::{Cusparse, CusparseSpmv, CusparseValue, SpmvAlg};
use crate::engine::cuda::matrix::DevCsr;
use crate::engine::cuda::{Gpu, SpmvKernel, SpmvPlan};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::{PlusTimes, Semiring};

/// How long the stream is held while the timed runs are queued, at first
/// and at most (nanoseconds).
const HOLD_NS: u64 = 2_000_000;
const MAX_HOLD_NS: u64 = 200_000_000;

/// Bytes of the copy that measures bandwidth (less on a device with less
/// than four times this free), and how many copies are timed.
const COPY_BYTES: usize = 1 << 30;
const COPY_REPS: usize = 10;

/// What to run.
#[derive(Clone, Debug)]
pub struct SpmvBenchOptions {
    /// Our kernels, in the order they run (`Auto` resolves per matrix).
    pub kernels: Vec<SpmvKernel>,
    /// Timed runs per implementation and matrix (at least 1).
    pub reps: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Seed of `x`.
    pub seed: u64,
    /// Race cuSPARSE too (plus-times only).
    pub cusparse: bool,
}

/// A started bench: the GPU, cuSPARSE, and what was measured of the device.
pub struct SpmvBench {
    gpu: &'static Gpu,
    cusparse: Option<Cusparse>,
    options: SpmvBenchOptions,
    device: Device,
    timer: Timer,
}

impl SpmvBench {
    /// Starts the GPU (an error without one) and cuSPARSE (an error
    /// without the library, when asked for), and measures the copy
    /// bandwidth.
    pub fn start(options: SpmvBenchOptions) -> Result<SpmvBench> {
        assert!(options.reps > 0, "a bench needs at least one timed run");
        let gpu = Gpu::get()?;
        let cusparse = match options.cusparse {
            true => Some(Cusparse::new(gpu)?),
            false => None,
        };
        let mut timer = Timer {
            gpu,
            events: Vec::new(),
            l2_bytes: gpu
                .context()
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
                .map_or(0, |b| b.max(0) as usize),
        };
        let copy_gb_per_s = timer.copy_bandwidth()?;
        let device = Device {
            name: gpu.name().to_string(),
            driver: driver_version(),
            cusparse: cusparse.as_ref().map(Cusparse::version),
            copy_gb_per_s,
            l2_bytes: timer.l2_bytes,
            memory_bytes: gpu.memory()?.1,
        };
        Ok(SpmvBench {
            gpu,
            cusparse,
            options,
            device,
            timer,
        })
    }

    /// The device, its driver, cuSPARSE and the copy bandwidth.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Races every implementation on `a`, calling `progress` after each.
    /// cuSPARSE runs only for plus-times. Errors are device failures that
    /// leave nothing more to measure; an implementation that cannot run or
    /// is wrong is an [`Outcome`] saying so.
    pub fn run<S>(
        &mut self,
        name: &str,
        source: String,
        a: &Csr<S::Value>,
        progress: &mut dyn FnMut(&Outcome),
    ) -> Result<MatrixResult>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let gpu = self.gpu;
        let x = random_x::<S::Value>(a.ncols(), self.options.seed);
        let reference = Reference::new::<S>(a, &x)?;
        let csr_bytes = spmv_bytes(a.nrows(), a.ncols(), a.nnz(), size_of::<S::Value>());
        let vector_bytes = (a.nrows() + a.ncols()) * size_of::<S::Value>();
        let sets = rotation_sets(csr_bytes as usize, self.timer.l2_bytes).max(2);
        let mut vectors = Vectors::new(gpu, &x, a.nrows(), sets)?;
        let timing = Timing {
            reference: &reference,
            reps: self.options.reps,
            warmup: self.options.warmup,
            vector_bytes,
        };
        let mut results = Vec::new();
        for &kernel in &self.options.kernels {
            let o = self.timer.ours::<S>(a, kernel, &mut vectors, &timing)?;
            progress(&o);
            results.push(o);
        }
        if let Some(lib) = &self.cusparse
            && S::NAME == <PlusTimes<f32> as Semiring>::NAME
        {
            for alg in SpmvAlg::ALL {
                let o = self.timer.vendor(lib, a, alg, &mut vectors, &timing)?;
                progress(&o);
                results.push(o);
            }
        }
        let mut m = MatrixResult {
            name: name.to_string(),
            source,
            rows: a.nrows(),
            cols: a.ncols(),
            nnz: a.nnz(),
            bytes: csr_bytes,
            row_lengths: RowSpread::of(a),
            results,
        };
        m.derive(self.device.copy_gb_per_s);
        Ok(m)
    }
}

/// What every timing of one matrix shares.
struct Timing<'r, T> {
    reference: &'r Reference<T>,
    reps: usize,
    warmup: usize,
    /// `x` and `y` of one set, for sizing rotations.
    vector_bytes: usize,
}

/// Copies of `x` (all equal) and `y` to rotate through, and NaNs to poison
/// a `y` with.
struct Vectors<T> {
    x: Vec<CudaSlice<T>>,
    y: Vec<CudaSlice<T>>,
    nan: Vec<T>,
}

impl<T: BenchValue> Vectors<T> {
    fn new(gpu: &Gpu, x: &[T], rows: usize, sets: usize) -> Result<Self> {
        let nan = vec![T::NAN; rows];
        Ok(Vectors {
            x: (0..sets).map(|_| gpu.upload(x)).collect::<Result<_>>()?,
            y: (0..sets).map(|_| gpu.upload(&nan)).collect::<Result<_>>()?,
            nan,
        })
    }

    /// `x` and `y` of run `i`.
    fn pair(&mut self, i: usize) -> (&CudaSlice<T>, &mut CudaSlice<T>) {
        let k = i % self.x.len();
        (&self.x[k], &mut self.y[k])
    }

    /// Fills the `y` of run `i` with NaN.
    fn poison(&mut self, gpu: &Gpu, i: usize) -> Result<()> {
        let k = i % self.y.len();
        gpu.copy_into(&self.nan, &mut self.y[k])
    }
}

/// Times implementations on the GPU with a pool of events.
struct Timer {
    gpu: &'static Gpu,
    /// Start and end event of each timed run.
    events: Vec<(CudaEvent, CudaEvent)>,
    l2_bytes: usize,
}

/// The result of checking and timing one implementation.
enum Measured {
    Timed(Times),
    Wrong(String),
}

impl Timer {
    /// One of our kernels on `a`.
    fn ours<S>(
        &mut self,
        a: &Csr<S::Value>,
        kernel: SpmvKernel,
        vectors: &mut Vectors<S::Value>,
        timing: &Timing<S::Value>,
    ) -> Result<Outcome>
    where
        S: Semiring,
        S::Value: BenchValue,
    {
        let (gpu, name) = (self.gpu, kernel.name());
        let build = || SpmvPlan::new::<S>(gpu, a, kernel);
        let first = match build() {
            Ok(plan) => plan,
            Err(e) => return Ok(skipped(name, false, e)),
        };
        let label = first.label();
        let set_bytes = first.matrix_bytes() + timing.vector_bytes;
        let copies = rotation_sets(set_bytes, self.l2_bytes);
        let mut plans = vec![first];
        // Fewer copies than wanted (memory) still time correctly.
        while plans.len() < copies
            && let Ok(plan) = build()
        {
            plans.push(plan);
        }
        let copies = plans.len();
        let measured = self.measure(vectors, timing, |i, x, y| {
            plans[i % copies].run::<S>(gpu, x, y)
        })?;
        Ok(self.outcome(name, label, false, measured, copies, set_bytes))
    }

    /// One cuSPARSE algorithm on `a`.
    fn vendor<T: BenchValue + CusparseValue>(
        &mut self,
        lib: &Cusparse,
        a: &Csr<T>,
        alg: SpmvAlg,
        vectors: &mut Vectors<T>,
        timing: &Timing<T>,
    ) -> Result<Outcome> {
        let gpu = self.gpu;
        let mut build = || {
            let (x, y) = vectors.pair(0);
            CusparseSpmv::new(lib, gpu, DevCsr::upload(gpu, a)?, alg, x, y)
        };
        let first = match build() {
            Ok(spmv) => spmv,
            Err(e) => return Ok(skipped(alg.name(), true, e)),
        };
        let label = first.label();
        let set_bytes = first.device_bytes() + timing.vector_bytes;
        let copies = rotation_sets(set_bytes, self.l2_bytes);
        let mut spmvs = vec![first];
        while spmvs.len() < copies
            && let Ok(spmv) = build()
        {
            spmvs.push(spmv);
        }
        let copies = spmvs.len();
        let measured = self.measure(vectors, timing, |i, x, y| {
            spmvs[i % copies].run(lib, gpu, x, y)
        })?;
        Ok(self.outcome(alg.name(), label, true, measured, copies, set_bytes))
    }

    /// Checks, warms up and times `run(i, x, y)`, which queues run `i`
    /// (on matrix copy `i mod copies`, the caller's choice).
    fn measure<T: BenchValue>(
        &mut self,
        vectors: &mut Vectors<T>,
        timing: &Timing<T>,
        mut run: impl FnMut(usize, &CudaSlice<T>, &mut CudaSlice<T>) -> Result<()>,
    ) -> Result<Measured> {
        let gpu = self.gpu;
        vectors.poison(gpu, 0)?;
        let (x, y) = vectors.pair(0);
        run(0, x, y)?;
        if let Err(m) = timing.reference.check(&gpu.download(y)?) {
            return Ok(Measured::Wrong(m.to_string()));
        }
        for i in 1..=timing.warmup {
            let (x, y) = vectors.pair(i);
            run(i, x, y)?;
        }
        self.ensure_events(timing.reps)?;
        let first = timing.warmup + 1;
        // The runs are queued behind a kernel that holds the stream, so that
        // the GPU runs them back to back rather than each as soon as the
        // host has queued it (for a tiny matrix the host is the slower).
        // If the first run started before the host had queued the last,
        // the hold was too short: again, four times longer.
        let mut hold_ns = HOLD_NS;
        loop {
            gpu.spin(hold_ns)?;
            for r in 0..timing.reps {
                let (x, y) = vectors.pair(first + r);
                record(&self.events[r].0, gpu)?;
                run(first + r, x, y)?;
                record(&self.events[r].1, gpu)?;
            }
            let started_early = self.events[0].0.is_complete();
            gpu.sync()?;
            if !started_early || hold_ns >= MAX_HOLD_NS {
                break;
            }
            hold_ns *= 4;
        }
        let times = self.elapsed(timing.reps)?;
        let (_, last) = vectors.pair(first + timing.reps - 1);
        if let Err(m) = timing.reference.check(&gpu.download(last)?) {
            return Ok(Measured::Wrong(format!(
                "right once, then wrong after repeated runs: {m}"
            )));
        }
        Ok(Measured::Timed(Times::of(&times)))
    }

    /// Bytes read plus written per second (GB/s) of a device-to-device
    /// copy: the median of `COPY_REPS` timed copies after one untimed.
    fn copy_bandwidth(&mut self) -> Result<f64> {
        let gpu = self.gpu;
        let (free, _) = gpu.memory()?;
        let words = COPY_BYTES.min(free / 4) / size_of::<u32>();
        let src = gpu.zeros::<u32>(words)?;
        let mut dst = gpu.zeros::<u32>(words)?;
        gpu.copy_device(&src, &mut dst)?;
        self.ensure_events(COPY_REPS)?;
        for (start, end) in &self.events[..COPY_REPS] {
            record(start, gpu)?;
            gpu.copy_device(&src, &mut dst)?;
            record(end, gpu)?;
        }
        gpu.sync()?;
        let ms = Times::of(&self.elapsed(COPY_REPS)?).median;
        Ok(gb_per_s(2 * (words * size_of::<u32>()) as u64, ms))
    }

    /// The outcome of `measured` over `copies` sets of `set_bytes`, noting
    /// when even all of them fit in three times L2 (then the runs read
    /// partly from the cache, and GB/s can exceed memory bandwidth).
    fn outcome(
        &self,
        name: &str,
        label: String,
        vendor: bool,
        measured: Measured,
        copies: usize,
        set_bytes: usize,
    ) -> Outcome {
        match measured {
            Measured::Timed(t) => {
                let mut o = Outcome::timed(name, label, vendor, t, copies);
                let working_set = copies * set_bytes;
                if working_set < 3 * self.l2_bytes {
                    o.note = Some(format!(
                        "{copies} sets, {:.1} MB: partly in L2",
                        working_set as f64 / 1e6
                    ));
                }
                o
            }
            Measured::Wrong(why) => Outcome::failed(name, label, vendor, Status::Wrong, why),
        }
    }

    /// At least `n` event pairs in the pool.
    fn ensure_events(&mut self, n: usize) -> Result<()> {
        while self.events.len() < n {
            let ctx = self.gpu.context();
            let event = || {
                ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(|e| driver("creating a CUDA event", e))
            };
            self.events.push((event()?, event()?));
        }
        Ok(())
    }

    /// Milliseconds between the events of the first `n` pairs (all
    /// recorded and reached).
    fn elapsed(&self, n: usize) -> Result<Vec<f64>> {
        self.events[..n]
            .iter()
            .map(|(start, end)| {
                start
                    .elapsed_ms(end)
                    .map(f64::from)
                    .map_err(|e| driver("reading a CUDA event's time", e))
            })
            .collect()
    }
}

fn record(event: &CudaEvent, gpu: &Gpu) -> Result<()> {
    event
        .record(gpu.stream())
        .map_err(|e| driver("recording a CUDA event", e))
}

fn skipped(name: &str, vendor: bool, e: Error) -> Outcome {
    Outcome::failed(
        name,
        name.to_string(),
        vendor,
        Status::Skipped,
        e.to_string(),
    )
}

fn driver(what: &str, e: DriverError) -> Error {
    Error::Unavailable {
        engine: "cuda",
        reason: format!("{what} failed: {e:?}"),
    }
}

/// The CUDA driver API version, `13.0`.
fn driver_version() -> String {
    let mut v = 0;
    // SAFETY: writes one int.
    let status = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) };
    if status == CUresult::CUDA_SUCCESS {
        format!("{}.{}", v / 1000, v % 1000 / 10)
    } else {
        "unknown".into()
    }
}
