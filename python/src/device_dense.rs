//! SpMV and SpMM of a [`PyDevCsr`] by CuPy's dense arrays, on the GPU:
//! `x` (or `X`) is copied on the device into spmx's buffer, the product
//! runs there, and the result is handed to CuPy as a [`PyDeviceArray`]
//! over spmx's own buffer. Nothing passes through the host but the
//! matrix's row offsets, read once by the first product to make its plan
//! (kernel choice, work cut), which the matrix keeps for the products
//! after it.
//!
//! `X` C-contiguous is read row-major and gives a row-major result;
//! Fortran-contiguous, column-major and a column-major result (CuPy's own
//! layouts, read in place by the kernels of each).

use std::any::Any;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmx::Semiring;
use spmx::engine::cuda::{CudaSlice, DenseLayout, Gpu, SpmmKernel, SpmmPlan, SpmvKernel, SpmvPlan};

use crate::device::{Held, PyDevCsr, PyDeviceArray, bind_for_drop};
use crate::errors::to_py;
use crate::values::{SemiringOp, Value, with_semiring};

/// The plans of a device matrix's dense products, made by the first of
/// each (SpMM's again when `k` or the layout changes). Plans do not
/// depend on the semiring: each run names its own.
#[derive(Default)]
pub struct DensePlans {
    /// An `SpmvPlan` of the matrix's value type.
    spmv: Option<Box<dyn Any + Send>>,
    /// `k`, the layout, and an `SpmmPlan` of the matrix's value type.
    spmm: Option<(usize, DenseLayout, Box<dyn Any + Send>)>,
}

/// A dense product's values on the device, with its shape and layout.
pub struct DenseOut {
    values: DenseValues,
    /// `(m,)` for SpMV, `(m, k)` for SpMM.
    shape: Vec<usize>,
    /// Column-major (Fortran order): strides to give.
    col_major: bool,
}

enum DenseValues {
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
}

impl Drop for DenseValues {
    fn drop(&mut self) {
        bind_for_drop();
    }
}

impl DenseOut {
    /// `values` as the variant of their type (only f32 and f64 are made:
    /// device matrices hold nothing else).
    fn new<T: Value>(values: CudaSlice<T>, shape: Vec<usize>, col_major: bool) -> Self {
        let values: Box<dyn Any> = Box::new(values);
        let values = match values.downcast::<CudaSlice<f32>>() {
            Ok(v) => DenseValues::F32(*v),
            Err(v) => DenseValues::F64(
                *v.downcast::<CudaSlice<f64>>()
                    .expect("device matrices hold float32 or float64"),
            ),
        };
        DenseOut {
            values,
            shape,
            col_major,
        }
    }

    pub fn address(&self) -> u64 {
        let gpu = Gpu::get().expect("a device product exists, so the GPU started");
        match &self.values {
            DenseValues::F32(v) => gpu.ptr(v).addr(),
            DenseValues::F64(v) => gpu.ptr(v).addr(),
        }
    }

    pub fn shape(&self) -> Vec<usize> {
        self.shape.clone()
    }

    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    fn item_bytes(&self) -> usize {
        match self.values {
            DenseValues::F32(_) => 4,
            DenseValues::F64(_) => 8,
        }
    }

    pub fn typestr(&self) -> &'static str {
        match self.values {
            DenseValues::F32(_) => "<f4",
            DenseValues::F64(_) => "<f8",
        }
    }

    /// Byte strides for a column-major matrix (`None`: C order).
    pub fn strides(&self) -> Option<(usize, usize)> {
        let bytes = self.item_bytes();
        match self.shape[..] {
            [m, _] if self.col_major => Some((bytes, bytes * m)),
            _ => None,
        }
    }
}

/// `A ⊗ x` or `A ⊗ X` on the device.
struct DeviceDense<'a> {
    py: Python<'a>,
    a: &'a PyDevCsr,
    /// The operand's device address and `__cuda_array_interface__`
    /// typestr.
    x: (u64, &'a str),
    /// `(n,)` or `(n, k)`.
    shape: &'a [usize],
    col_major: bool,
}

impl SemiringOp for DeviceDense<'_> {
    type Output = PyDeviceArray;
    fn run<S: Semiring>(self) -> PyResult<PyDeviceArray>
    where
        S::Value: Value,
    {
        let dtype = self.a.inner.dtype();
        let Some(a) = self.a.inner.typed::<S::Value>() else {
            return Err(PyValueError::new_err(format!(
                "a device matrix of {dtype} has no semiring over {}",
                S::Value::DTYPE
            )));
        };
        let want = if dtype == "float32" { "<f4" } else { "<f8" };
        if self.x.1 != want {
            return Err(PyValueError::new_err(format!(
                "a {dtype} device matrix multiplies {dtype} arrays, not {:?}",
                self.x.1
            )));
        }
        let (m, n) = a.shape();
        let (rows, k) = match *self.shape {
            [rows] => (rows, None),
            [rows, k] => (rows, Some(k)),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "a dense operand has 1 or 2 dimensions, not {}",
                    self.shape.len()
                )));
            }
        };
        if rows != n {
            return Err(PyValueError::new_err(format!(
                "A is {m}×{n}: the operand needs {n} rows, not {rows}"
            )));
        }
        let shared = a
            .device_shared()
            .expect("device matrices are kept on the device");
        let (address, col_major) = (self.x.0, self.col_major);
        let py = self.py;
        let out = py.detach(|| -> spmx::Result<DenseOut> {
            let gpu = Gpu::get()?;
            let mut plans = self.a.plans.lock().unwrap_or_else(|e| e.into_inner());
            let len = n * k.unwrap_or(1);
            // SAFETY: the package passes a live CuPy array of this device
            // of `len` values of A's type (checked above), its stream
            // synchronized; spmx's stream is synchronized below before
            // the call returns.
            let x = unsafe { gpu.copy_foreign::<S::Value>(address, len)? };
            match k {
                None => {
                    if plans.spmv.is_none() {
                        let plan = SpmvPlan::on_device(gpu, shared, SpmvKernel::Auto)?;
                        plans.spmv = Some(Box::new(plan));
                    }
                    let plan = plans.spmv.as_mut().and_then(|p| p.downcast_mut());
                    let plan: &mut SpmvPlan<S::Value> = plan.expect("the matrix's type");
                    let mut y = gpu.zeros::<S::Value>(m)?;
                    plan.run::<S>(gpu, &x, &mut y)?;
                    gpu.sync()?;
                    Ok(DenseOut::new(y, vec![m], false))
                }
                Some(k) => {
                    let layout = if col_major {
                        DenseLayout::ColMajor
                    } else {
                        DenseLayout::RowMajor
                    };
                    if !matches!(&plans.spmm, Some((pk, pl, _)) if (*pk, *pl) == (k, layout)) {
                        let plan = SpmmPlan::on_device(gpu, shared, k, layout, SpmmKernel::Auto)?;
                        plans.spmm = Some((k, layout, Box::new(plan)));
                    }
                    let plan = plans.spmm.as_mut().and_then(|(_, _, p)| p.downcast_mut());
                    let plan: &mut SpmmPlan<S::Value> = plan.expect("the matrix's type");
                    let mut c = gpu.zeros::<S::Value>(m * k)?;
                    plan.run::<S>(gpu, &x, &mut c)?;
                    gpu.sync()?;
                    Ok(DenseOut::new(c, vec![m, k], col_major))
                }
            }
        });
        let out = out.map_err(|e| to_py(py, e))?;
        Ok(PyDeviceArray {
            held: Held::Dense(out),
        })
    }
}

/// `A ⊗ x` (SpMV, `shape` `(n,)`) or `A ⊗ X` (SpMM, `(n, k)`, row-major,
/// or column-major when `col_major`) over `semiring` (None: the dtype's
/// default) on the GPU; the result stays on the device.
///
/// Unchecked, and so private to the package: `address` is a live CuPy
/// array of A's device, contiguous in the layout given, of `shape`, its
/// stream synchronized (the package's `matmul` sees to it).
#[pyfunction]
#[pyo3(name = "_spmv_spmm_device", signature = (a, address, typestr, shape, col_major, semiring=None))]
pub fn spmv_spmm_device(
    py: Python<'_>,
    a: &PyDevCsr,
    address: u64,
    typestr: &str,
    shape: Vec<usize>,
    col_major: bool,
    semiring: Option<&str>,
) -> PyResult<PyDeviceArray> {
    let op = DeviceDense {
        py,
        a,
        x: (address, typestr),
        shape: &shape,
        col_major,
    };
    with_semiring(semiring, a.inner.dtype(), op)
}
