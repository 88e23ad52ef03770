//! PLACEHOLDER: replaced by the real SpMM plan when merged
//!
//! The public surface of the SpMM plan that `spmx bench spmm` is written
//! against; the plan's methods are `todo!()`.

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;

use super::Gpu;
use crate::Scalar;
use crate::error::Result;
use crate::format::Csr;

/// How a dense operand is stored on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenseLayout {
    RowMajor,
    ColMajor,
}

impl DenseLayout {
    pub const ALL: [DenseLayout; 2] = [DenseLayout::RowMajor, DenseLayout::ColMajor];

    pub fn name(self) -> &'static str {
        match self {
            DenseLayout::RowMajor => "row-major",
            DenseLayout::ColMajor => "col-major",
        }
    }
}

impl std::str::FromStr for DenseLayout {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        DenseLayout::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown layout {s:?}: expected row-major or col-major"))
    }
}

impl std::fmt::Display for DenseLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A GPU SpMM kernel, named as on the command line (`--kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmmKernel {
    Auto,
}

impl SpmmKernel {
    pub const ALL: [SpmmKernel; 1] = [SpmmKernel::Auto];

    pub fn name(self) -> &'static str {
        match self {
            SpmmKernel::Auto => "auto",
        }
    }
}

impl std::str::FromStr for SpmmKernel {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        SpmmKernel::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = SpmmKernel::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown SpMM kernel {s:?}: expected one of {}",
                    names.join(", ")
                )
            })
    }
}

impl std::fmt::Display for SpmmKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An SpMM ready to run: A on the device for `k` right-hand columns.
pub struct SpmmPlan<T> {
    _values: std::marker::PhantomData<T>,
}

impl<T: Scalar> SpmmPlan<T> {
    /// Uploads A for `k` right-hand columns in `layout`; Auto is resolved.
    pub fn new<S: Semiring<Value = T>>(
        _gpu: &Gpu,
        _a: &Csr<T>,
        _k: usize,
        _layout: DenseLayout,
        _kernel: SpmmKernel,
    ) -> Result<Self> {
        todo!()
    }

    /// Queues C = A ⊗ B; b holds n·k values, c m·k, both in the plan's
    /// layout; every entry of C is written.
    pub fn run<S: Semiring<Value = T>>(
        &mut self,
        _gpu: &Gpu,
        _b: &CudaSlice<T>,
        _c: &mut CudaSlice<T>,
    ) -> Result<()> {
        todo!()
    }

    /// The kernel and its shape, e.g. `row-vec4(8 lanes)`.
    pub fn label(&self) -> String {
        todo!()
    }

    /// The kernel this plan runs (never `Auto`).
    pub fn kernel(&self) -> SpmmKernel {
        todo!()
    }

    /// Bytes A and any scratch occupy on the device.
    pub fn matrix_bytes(&self) -> usize {
        todo!()
    }
}
