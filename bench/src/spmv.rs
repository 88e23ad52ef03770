//! The SpMV race on the GPU (feature `gpu`): per matrix, each of our
//! kernels ([`SpmvPlan`]) and each of cuSPARSE's CSR algorithms
//! ([`CusparseSpmv`]), in one process on one device and stream.
//!
//! Per matrix, `x` is random on (0, 1] from the seed and the serial engine
//! computes the reference `y` ([`Reference`]). Each implementation is
//! built, checked and timed by the shared timer (`bench::timer`: a wrong
//! result gets no time; repeats rotate among copies of A, `x` and `y` so
//! that none runs from L2; the median of event-timed runs counts), on at
//! least two sets of `x` and `y`.

use super::check::{BenchValue, Reference, random_x};
use super::measure::{RowSpread, rotation_sets, spmv_bytes};
use super::report::{CaseId, Device, MatrixResult, Outcome};
use super::timer::{Built, Harness, Operands, Timing, is_plus_times};
use crate::cusparse::{CusparseSpmv, CusparseValue, SpmvAlg};
use spmx::engine::cuda::matrix::DevCsr;
use spmx::engine::cuda::{SpmvKernel, SpmvPlan};
use spmx::error::Result;
use spmx::format::Csr;
use spmx::{Scalar, Semiring};

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

/// A started SpMV bench: the GPU, cuSPARSE, and what was measured of the
/// device.
pub struct SpmvBench {
    harness: Harness,
    options: SpmvBenchOptions,
}

impl SpmvBench {
    /// Starts the GPU (an error without one) and cuSPARSE (an error
    /// without the library, when asked for), and measures the copy
    /// bandwidth.
    pub fn start(options: SpmvBenchOptions) -> Result<SpmvBench> {
        Ok(SpmvBench {
            harness: Harness::start(options.cusparse, options.reps)?,
            options,
        })
    }

    /// The device, its driver, cuSPARSE and the copy bandwidth.
    pub fn device(&self) -> &Device {
        &self.harness.device
    }

    /// Races every implementation on `a`, calling `progress` after each.
    /// cuSPARSE runs only for plus-times. Errors are device failures that
    /// leave nothing more to measure; an implementation that cannot run or
    /// is wrong is an [`Outcome`] saying so.
    pub fn run<S>(
        &mut self,
        case: &CaseId,
        a: &Csr<S::Value>,
        progress: &mut dyn FnMut(&Outcome),
    ) -> Result<MatrixResult>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let Harness {
            gpu,
            cusparse,
            device,
            timer,
        } = &mut self.harness;
        let gpu = *gpu;
        let x = random_x::<S::Value>(a.ncols(), self.options.seed);
        let reference = Reference::new::<S>(a, &x)?;
        let csr_bytes = spmv_bytes(a.nrows(), a.ncols(), a.nnz(), size_of::<S::Value>());
        let sets = rotation_sets(csr_bytes as usize, timer.l2_bytes()).max(2);
        let mut vectors = Operands::new(gpu, &x, a.nrows(), sets)?;
        let check = |y: &[S::Value]| reference.check(y);
        let timing = Timing {
            check: &check,
            reps: self.options.reps,
            warmup: self.options.warmup,
            operand_bytes: (a.nrows() + a.ncols()) * size_of::<S::Value>(),
        };
        let mut results = Vec::new();
        for &kernel in &self.options.kernels {
            let o = timer.time(
                kernel.name(),
                false,
                &mut vectors,
                &timing,
                |_| SpmvPlan::new::<S>(gpu, a, kernel),
                |plan, x, y| plan.run::<S>(gpu, x, y),
            )?;
            progress(&o);
            results.push(o);
        }
        if let Some(lib) = cusparse.as_ref().filter(|_| is_plus_times::<S>()) {
            for alg in SpmvAlg::ALL {
                let o = timer.time(
                    alg.name(),
                    true,
                    &mut vectors,
                    &timing,
                    |vectors| {
                        let (x, y) = vectors.pair(0);
                        CusparseSpmv::new(lib, gpu, DevCsr::upload(gpu, a)?, alg, x, y)
                    },
                    |spmv, x, y| spmv.run(lib, gpu, x, y),
                )?;
                progress(&o);
                results.push(o);
            }
        }
        let mut m = MatrixResult {
            name: case.name.clone(),
            source: case.source.clone(),
            set: case.set.clone(),
            rows: a.nrows(),
            cols: a.ncols(),
            nnz: a.nnz(),
            k: None,
            bytes: csr_bytes,
            flops: None,
            row_lengths: RowSpread::of(a),
            results,
            fastest_vendor: None,
        };
        m.derive(device.copy_gb_per_s);
        Ok(m)
    }
}

impl<T: Scalar> Built for SpmvPlan<T> {
    fn label(&self) -> String {
        SpmvPlan::label(self)
    }
    fn device_bytes(&self) -> usize {
        self.matrix_bytes()
    }
}

impl<T: CusparseValue> Built for CusparseSpmv<T> {
    fn label(&self) -> String {
        CusparseSpmv::label(self)
    }
    fn device_bytes(&self) -> usize {
        CusparseSpmv::device_bytes(self)
    }
}
