//! The timing machinery every GPU race shares (feature `gpu`): the started
//! GPU with cuSPARSE and what was measured of the device ([`Harness`]),
//! copies of an operation's input and output to rotate through
//! ([`Operands`]), and the [`Timer`], which builds, checks and times one
//! implementation at a time ([`Timer::time`]):
//!
//! 1. build it: A uploaded in its format. One that cannot be built here
//!    (a format too large, no kernel for the semiring, a cuSPARSE
//!    algorithm that does not take the layout) is skipped, saying why;
//! 2. poison the output with NaN, run once, copy the output back and check
//!    it: a wrong result gets no time. A first run that cannot even be
//!    queued (cuSPARSE refusing it, a launch the driver refuses) is
//!    skipped, saying why. Building and this first run are timed by the
//!    host clock from a memory pool handed back to the driver: the cold
//!    call of a fresh process (kernel modules already loaded), reported
//!    beside the warm median;
//! 3. `warmup` runs, then `reps` runs, each between two events recorded on
//!    the stream, queued behind a kernel that holds the stream until the
//!    host has queued them all (so they run back to back: no run waits on
//!    the host's queueing, for cuSPARSE as for ours), rotating
//!    among copies of A and of the input and output ([`rotation_sets`]) so
//!    that no run finds the previous one's data in L2. The median per-run
//!    time counts;
//! 4. the output the last run wrote is checked too: an implementation that
//!    is right once but not when repeated fails here.
//!
//! At the start, the device's copy bandwidth: the median of timed
//! device-to-device copies of 1 GiB, counting bytes read and written.
//!
//! Limits: where even all the rotation sets fit in three times L2, the
//! outcome's note says the runs read partly from the cache.

use std::time::Instant;

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUresult};
use cudarc::driver::{CudaEvent, CudaSlice, DriverError};

use super::check::{BenchValue, Mismatch};
use super::measure::{Times, giga_per_s, rotation_sets};
use super::report::{Device, Outcome, Status};
use crate::cusparse::Cusparse;
use spmx::engine::cuda::Gpu;
use spmx::error::{Error, Result};
use spmx::{PlusTimes, Semiring};

/// How long the stream is held while the timed runs are queued, at first
/// and at most (nanoseconds).
const HOLD_NS: u64 = 2_000_000;
const MAX_HOLD_NS: u64 = 200_000_000;

/// Bytes of the copy that measures bandwidth (less on a device with less
/// than four times this free), and how many copies are timed.
const COPY_BYTES: usize = 1 << 30;
const COPY_REPS: usize = 10;

/// A started bench: the GPU, cuSPARSE, what was measured of the device,
/// and the timer (fields, so that a race can borrow them apart).
pub struct Harness {
    pub gpu: &'static Gpu,
    pub cusparse: Option<Cusparse>,
    pub device: Device,
    pub timer: Timer,
}

impl Harness {
    /// Starts the GPU (an error without one) and, if `cusparse`, cuSPARSE
    /// (an error without the library), and measures the copy bandwidth,
    /// for a race of `reps` timed runs a case (at least one).
    pub fn start(cusparse: bool, reps: usize) -> Result<Harness> {
        assert!(reps > 0, "a bench needs at least one timed run");
        // The cuda engine's own hint is `--engine cpu`, an option bench
        // does not have: say what bench needs instead.
        let gpu = Gpu::get().map_err(|e| match e {
            Error::Unavailable { engine, reason } => Error::Unavailable {
                engine,
                reason: format!(
                    "{}; spmx bench races the GPU kernels against cuSPARSE and needs an \
                     NVIDIA GPU (on the CPU, `spmx spgemm --engine cpu --repeat N` times \
                     the cpu engine, and scripts/graphblas_spgemm.py races it against \
                     GraphBLAS)",
                    reason.trim_end_matches("; use --engine cpu")
                ),
            },
            e => e,
        })?;
        let cusparse = match cusparse {
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
        Ok(Harness {
            gpu,
            cusparse,
            device,
            timer,
        })
    }
}

/// Whether `S` is plus-times, the one semiring cuSPARSE computes in.
pub fn is_plus_times<S: Semiring>() -> bool {
    S::NAME == <PlusTimes<f32> as Semiring>::NAME
}

/// What every timing of one case shares.
pub struct Timing<'c, T> {
    /// Checks an output copied back against the reference.
    pub check: &'c dyn Fn(&[T]) -> std::result::Result<(), Mismatch>,
    pub reps: usize,
    pub warmup: usize,
    /// The input and output of one set, for sizing rotations.
    pub operand_bytes: usize,
}

/// Copies of an operation's input (all equal: `x`, B) and output (`y`,
/// C) to rotate through, and NaNs to poison an output with.
pub struct Operands<T> {
    inputs: Vec<CudaSlice<T>>,
    outputs: Vec<CudaSlice<T>>,
    nan: Vec<T>,
}

impl<T: BenchValue> Operands<T> {
    /// `sets` copies of `input` and of an output of `output_len` NaNs.
    pub fn new(gpu: &Gpu, input: &[T], output_len: usize, sets: usize) -> Result<Self> {
        let nan = vec![T::NAN; output_len];
        Ok(Operands {
            inputs: (0..sets)
                .map(|_| gpu.upload(input))
                .collect::<Result<_>>()?,
            outputs: (0..sets).map(|_| gpu.upload(&nan)).collect::<Result<_>>()?,
            nan,
        })
    }

    /// The input and output of run `i`.
    pub fn pair(&mut self, i: usize) -> (&CudaSlice<T>, &mut CudaSlice<T>) {
        let k = i % self.inputs.len();
        (&self.inputs[k], &mut self.outputs[k])
    }

    /// Fills the output of run `i` with NaN.
    fn poison(&mut self, gpu: &Gpu, i: usize) -> Result<()> {
        let k = i % self.outputs.len();
        gpu.copy_into(&self.nan, &mut self.outputs[k])
    }
}

/// One built copy of an implementation: A on the device, ready to run.
pub trait Built {
    /// What runs: `csr-vector(8 lanes)`, `cusparse-alg1+pre`.
    fn label(&self) -> String;
    /// Bytes it holds on the device: A, scratch, workspace.
    fn device_bytes(&self) -> usize;
}

/// Times implementations on the GPU with a pool of events.
pub struct Timer {
    gpu: &'static Gpu,
    /// Start and end event of each timed run.
    events: Vec<(CudaEvent, CudaEvent)>,
    l2_bytes: usize,
}

/// The result of checking and timing one implementation.
enum Measured {
    Timed(Times),
    Wrong(String),
    /// The first run could not be queued.
    Refused(Error),
}

impl Timer {
    /// The device's L2 cache, in bytes.
    pub fn l2_bytes(&self) -> usize {
        self.l2_bytes
    }

    /// Builds copies of the implementation `name` (`vendor`: cuSPARSE's) —
    /// as many as rotation wants and device memory allows — with `build`,
    /// which may use the operands (cuSPARSE sizes its work on them), then
    /// checks, warms up and times `run(copy, input, output)` (see the
    /// module docs). Errors are device failures that leave nothing more to
    /// measure; an implementation that cannot run or is wrong is an
    /// [`Outcome`] saying so.
    pub fn time<T: BenchValue, B: Built>(
        &mut self,
        name: &str,
        vendor: bool,
        operands: &mut Operands<T>,
        timing: &Timing<T>,
        mut build: impl FnMut(&mut Operands<T>) -> Result<B>,
        mut run: impl FnMut(&mut B, &CudaSlice<T>, &mut CudaSlice<T>) -> Result<()>,
    ) -> Result<Outcome> {
        // The cold call: build and first run from a pool handed back to the
        // driver, as in a fresh process.
        self.gpu.trim_pool()?;
        let cold = Instant::now();
        let mut first = match build(operands) {
            Ok(built) => built,
            Err(e) => return Ok(skipped(name, vendor, e)),
        };
        let label = first.label();
        let set_bytes = first.device_bytes() + timing.operand_bytes;
        let checked = self.first_run(operands, timing, |input, output| {
            run(&mut first, input, output)
        })?;
        let cold_ms = cold.elapsed().as_secs_f64() * 1e3;
        if let Some(failed) = checked {
            return Ok(self.outcome(name, label, vendor, failed, 1, set_bytes));
        }
        let copies = rotation_sets(set_bytes, self.l2_bytes);
        let mut built = vec![first];
        // Fewer copies than wanted (memory) still time correctly.
        while built.len() < copies
            && let Ok(b) = build(operands)
        {
            built.push(b);
        }
        let copies = built.len();
        let measured = self.timed_runs(operands, timing, |i, input, output| {
            run(&mut built[i % copies], input, output)
        })?;
        let mut outcome = self.outcome(name, label, vendor, measured, copies, set_bytes);
        outcome.cold_ms = Some(cold_ms);
        Ok(outcome)
    }

    /// Poisons the output of run 0, runs `run(input, output)` once and
    /// checks what it wrote: `None` if right, else why not.
    fn first_run<T: BenchValue>(
        &mut self,
        operands: &mut Operands<T>,
        timing: &Timing<T>,
        mut run: impl FnMut(&CudaSlice<T>, &mut CudaSlice<T>) -> Result<()>,
    ) -> Result<Option<Measured>> {
        let gpu = self.gpu;
        operands.poison(gpu, 0)?;
        let (input, output) = operands.pair(0);
        if let Err(e) = run(input, output) {
            return Ok(Some(Measured::Refused(e)));
        }
        gpu.sync()?;
        if let Err(m) = (timing.check)(&gpu.download(output)?) {
            return Ok(Some(Measured::Wrong(m.to_string())));
        }
        Ok(None)
    }

    /// Warms up and times `run(i, input, output)`, which queues run `i`
    /// (on copy `i mod copies`, the caller's choice), then checks the last
    /// run's output.
    fn timed_runs<T: BenchValue>(
        &mut self,
        operands: &mut Operands<T>,
        timing: &Timing<T>,
        mut run: impl FnMut(usize, &CudaSlice<T>, &mut CudaSlice<T>) -> Result<()>,
    ) -> Result<Measured> {
        let gpu = self.gpu;
        for i in 1..=timing.warmup {
            let (input, output) = operands.pair(i);
            run(i, input, output)?;
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
                let (input, output) = operands.pair(first + r);
                record(&self.events[r].0, gpu)?;
                run(first + r, input, output)?;
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
        let (_, last) = operands.pair(first + timing.reps - 1);
        if let Err(m) = (timing.check)(&gpu.download(last)?) {
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
        Ok(giga_per_s(2 * (words * size_of::<u32>()) as u64, ms))
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
            Measured::Refused(e) => {
                Outcome::failed(name, label, vendor, Status::Skipped, e.to_string())
            }
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
