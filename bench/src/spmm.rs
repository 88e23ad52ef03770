//! The SpMM race on the GPU (feature `gpu`): per matrix and width `k` of
//! B — a case, `{matrix} k={k}` — each of our kernels ([`SpmmPlan`]) and
//! each of cuSPARSE's CSR algorithms ([`CusparseSpmm`]), in one process on
//! one device and stream, with B and C in one layout ([`DenseLayout`]).
//!
//! Per case, B is `n × k` random on (0, 1] from the seed (the `n·k`
//! values of `random_x`, row-major, stored on the device in the layout)
//! and the serial engine computes the reference C ([`SpmmReference`]).
//! Each implementation is built, checked and timed by the shared timer
//! (`bench::timer`: C poisoned with NaN before the checked run, a wrong
//! result gets no time; repeats rotate among copies of A, B and C so that
//! none runs from L2; the median of event-timed runs counts). A cuSPARSE
//! algorithm that does not take the layout is skipped, saying so.
//!
//! A case whose B and C do not fit in the device's free memory beside A
//! is refused with [`Error::TooLarge`] before anything is allocated or
//! computed for it, so that the caller can skip it and go on.

use std::borrow::Cow;

use super::check::{BenchValue, SpmmReference, random_x};
use super::measure::{RowSpread, rotation_sets, spmm_bytes, spmm_flops};
use super::report::{CaseId, Device, MatrixResult, Outcome};
use super::timer::{Built, Harness, Operands, Timing, is_plus_times};
use crate::cusparse::{CusparseSpmm, CusparseValue, SpmmAlg};
use spmx::engine::cuda::matrix::DevCsr;
use spmx::engine::cuda::spmm::{DenseLayout, SpmmKernel, SpmmPlan};
use spmx::error::{Error, Result};
use spmx::format::{Csr, Dense};
use spmx::{Scalar, Semiring};

/// What to run.
#[derive(Clone, Debug)]
pub struct SpmmBenchOptions {
    /// Our kernels, in the order they run (`Auto` resolves per case).
    pub kernels: Vec<SpmmKernel>,
    /// How B and C are stored on the device.
    pub layout: DenseLayout,
    /// Timed runs per implementation and case (at least 1).
    pub reps: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Seed of B.
    pub seed: u64,
    /// Race cuSPARSE too (plus-times only).
    pub cusparse: bool,
}

/// A started SpMM bench: the GPU, cuSPARSE, and what was measured of the
/// device.
pub struct SpmmBench {
    harness: Harness,
    options: SpmmBenchOptions,
}

impl SpmmBench {
    /// Starts the GPU (an error without one) and cuSPARSE (an error
    /// without the library, when asked for), and measures the copy
    /// bandwidth.
    pub fn start(options: SpmmBenchOptions) -> Result<SpmmBench> {
        Ok(SpmmBench {
            harness: Harness::start(options.cusparse, options.reps)?,
            options,
        })
    }

    /// The device, its driver, cuSPARSE and the copy bandwidth.
    pub fn device(&self) -> &Device {
        &self.harness.device
    }

    /// Races every implementation on `C = A ⊗ B` for a B of `k` columns
    /// (the case `{name} k={k}`), calling `progress` after each. cuSPARSE
    /// runs only for plus-times. [`Error::TooLarge`] when B and C do not
    /// fit on the device beside A (nothing is allocated then); other
    /// errors are device failures that leave nothing more to measure. An
    /// implementation that cannot run or is wrong is an [`Outcome`] saying
    /// so.
    pub fn run<S>(
        &mut self,
        case: &CaseId,
        a: &Csr<S::Value>,
        k: usize,
        progress: &mut dyn FnMut(&Outcome),
    ) -> Result<MatrixResult>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        assert!(k > 0, "an SpMM bench needs at least one column of B");
        let Harness {
            gpu,
            cusparse,
            device,
            timer,
        } = &mut self.harness;
        let gpu = *gpu;
        let (m, n, value_bytes) = (a.nrows(), a.ncols(), size_of::<S::Value>());
        let bytes = spmm_bytes(m, n, a.nnz(), k, value_bytes);
        let wanted = rotation_sets(bytes as usize, timer.l2_bytes()).max(2);
        let set_bytes = (m + n) * k * value_bytes;
        // A's CSR: what the case moves, less B and C.
        let a_bytes = bytes as usize - set_bytes;
        let free = gpu.memory()?.0;
        let sets = operand_sets(free, set_bytes, a_bytes, wanted).ok_or_else(|| {
            Error::TooLarge(format!(
                "B and C of {k} columns take {set_bytes} bytes on the device, and {free} are \
                 free, of which A needs room for {}",
                2 * a_bytes
            ))
        })?;
        let layout = self.options.layout;
        let b = Dense::try_new(n, k, random_x::<S::Value>(n * k, self.options.seed))?;
        let reference = SpmmReference::new::<S>(a, &b)?;
        let mut operands = Operands::new(gpu, &in_layout(&b, layout), m * k, sets)?;
        // B lives on in its device copies; the host's (n·k values) can go.
        drop(b);
        let column_major = layout == DenseLayout::ColMajor;
        let check = |c: &[S::Value]| reference.check(c, column_major);
        let timing = Timing {
            check: &check,
            reps: self.options.reps,
            warmup: self.options.warmup,
            operand_bytes: set_bytes,
        };
        let mut results = Vec::new();
        for &kernel in &self.options.kernels {
            let o = timer.time(
                kernel.name(),
                false,
                &mut operands,
                &timing,
                |_| SpmmPlan::new::<S>(gpu, a, k, layout, kernel),
                |plan, b, c| plan.run::<S>(gpu, b, c),
            )?;
            progress(&o);
            results.push(o);
        }
        if let Some(lib) = cusparse.as_ref().filter(|_| is_plus_times::<S>()) {
            for alg in SpmmAlg::ALL {
                let o = timer.time(
                    alg.name(),
                    true,
                    &mut operands,
                    &timing,
                    |operands| {
                        let (b, c) = operands.pair(0);
                        let matrix = DevCsr::upload(gpu, a)?;
                        CusparseSpmm::new(lib, gpu, matrix, alg, k, layout, b, c)
                    },
                    |spmm, b, c| spmm.run(lib, gpu, b, c),
                )?;
                progress(&o);
                results.push(o);
            }
        }
        let mut case = MatrixResult {
            name: format!("{} k={k}", case.name),
            source: case.source.clone(),
            set: case.set.clone(),
            rows: m,
            cols: n,
            nnz: a.nnz(),
            k: Some(k),
            bytes,
            flops: Some(spmm_flops(a.nnz(), k)),
            row_lengths: RowSpread::of(a),
            results,
            fastest_vendor: None,
        };
        case.derive(device.copy_gb_per_s);
        Ok(case)
    }
}

impl<T: Scalar> Built for SpmmPlan<T> {
    fn label(&self) -> String {
        SpmmPlan::label(self)
    }
    fn device_bytes(&self) -> usize {
        self.matrix_bytes()
    }
}

impl<T: CusparseValue> Built for CusparseSpmm<T> {
    fn label(&self) -> String {
        CusparseSpmm::label(self)
    }
    fn device_bytes(&self) -> usize {
        CusparseSpmm::device_bytes(self)
    }
}

/// How many sets of B and C, `set_bytes` each, to allocate of the `wanted`:
/// as many as fit in `free` bytes of device memory less twice A's
/// `a_bytes` (room for one copy of A in its format and its scratch or
/// workspace); `None` if not even one does.
fn operand_sets(free: usize, set_bytes: usize, a_bytes: usize, wanted: usize) -> Option<usize> {
    let fit = free.saturating_sub(2 * a_bytes) / set_bytes.max(1);
    (fit > 0).then(|| wanted.min(fit))
}

/// B's values as the device holds them in `layout`: row-major as they
/// are, column-major with element `(l, j)` at `j·n + l`.
fn in_layout<T: Scalar>(b: &Dense<T>, layout: DenseLayout) -> Cow<'_, [T]> {
    match layout {
        DenseLayout::RowMajor => Cow::Borrowed(b.as_slice()),
        DenseLayout::ColMajor => {
            let (n, k) = b.shape();
            Cow::Owned((0..n * k).map(|e| b.get(e % n, e / n)).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_sets_fit_beside_a_or_refuse() {
        let gib = 1usize << 30;
        // Plenty of room: what rotation wants.
        assert_eq!(operand_sets(80 * gib, gib, gib, 2), Some(2));
        // Room for 3 sets of 20 GiB beside twice 5 GiB of A.
        assert_eq!(operand_sets(70 * gib, 20 * gib, 5 * gib, 64), Some(3));
        // One set fits, just.
        assert_eq!(operand_sets(30 * gib, 20 * gib, 5 * gib, 2), Some(1));
        // Not one.
        assert_eq!(operand_sets(29 * gib, 20 * gib, 5 * gib, 2), None);
        assert_eq!(operand_sets(gib, 0, 2 * gib, 2), None);
    }

    #[test]
    fn b_is_laid_out_row_or_column_major() {
        // 3 × 2: rows (1, 2), (3, 4), (5, 6).
        let b = Dense::try_new(3, 2, vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(&*in_layout(&b, DenseLayout::RowMajor), b.as_slice());
        assert_eq!(
            &*in_layout(&b, DenseLayout::ColMajor),
            [1.0, 3.0, 5.0, 2.0, 4.0, 6.0]
        );
    }
}
