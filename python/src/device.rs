//! CSR matrices kept on the GPU for CuPy: [`PyDevCsr`] is made from CuPy's
//! device arrays by a copy on the device ([`DevCsr::from_foreign`]),
//! multiplies on the device ([`spgemm_device`], SpGEMM only), and hands
//! its arrays to CuPy as [`PyDeviceArray`]s, objects with a
//! `__cuda_array_interface__` over spmx's own buffers, each keeping the
//! matrix alive. Nothing of the values or column indices passes through
//! the host; the row offsets of an input come back once to be checked.
//!
//! SpMV and SpMM by CuPy's dense arrays live in `device_dense`.
//!
//! Stream ordering: spmx works on its own stream (the legacy default
//! stream of the device's primary context, which CuPy shares) and
//! synchronizes it before any of these functions returns, so CuPy may
//! read what they hand back at once. CuPy's own queued work on the input
//! arrays must be finished before the call (the Python layer synchronizes
//! CuPy's current stream first).

use std::any::Any;
use std::sync::{Arc, Mutex};

use numpy::IntoPyArray;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use spmx::Semiring;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::matrix::{DevCsr, ForeignCsr, ForeignIndex};
use spmx::ops::Resident;

use crate::PyCsr;
use crate::device_dense::{DenseOut, DensePlans};
use crate::errors::to_py;
use crate::values::{SemiringOp, Value, with_semiring};

/// A device CSR of a value type CuPy's sparse matrices have.
pub(crate) enum AnyDev {
    F32(Resident<f32>),
    F64(Resident<f64>),
}

impl AnyDev {
    /// `r` as the variant of its value type (only f32 and f64 are made).
    fn wrap<T: Value>(r: Resident<T>) -> PyResult<Self> {
        let r: Box<dyn Any> = Box::new(r);
        match r.downcast::<Resident<f32>>() {
            Ok(r) => Ok(AnyDev::F32(*r)),
            Err(r) => match r.downcast::<Resident<f64>>() {
                Ok(r) => Ok(AnyDev::F64(*r)),
                Err(_) => Err(PyNotImplementedError::new_err(format!(
                    "device matrices hold float32 or float64, not {}",
                    T::DTYPE
                ))),
            },
        }
    }

    /// The matrix, if its values are `T`.
    pub(crate) fn typed<T: Value>(&self) -> Option<&Resident<T>> {
        match self {
            AnyDev::F32(r) => (r as &dyn Any).downcast_ref(),
            AnyDev::F64(r) => (r as &dyn Any).downcast_ref(),
        }
    }

    pub(crate) fn dtype(&self) -> &'static str {
        match self {
            AnyDev::F32(_) => "float32",
            AnyDev::F64(_) => "float64",
        }
    }

    pub(crate) fn shape(&self) -> (usize, usize) {
        match self {
            AnyDev::F32(r) => r.shape(),
            AnyDev::F64(r) => r.shape(),
        }
    }

    /// `(nnz, [(address, elements) of indptr, indices, data])`.
    fn arrays(&self) -> (usize, [(u64, usize); 3]) {
        fn of<T>(gpu: &Gpu, r: &Resident<T>) -> (usize, [(u64, usize); 3])
        where
            T: spmx::Scalar,
        {
            let d = kept(r);
            let nnz = d.nnz as usize;
            (
                nnz,
                [
                    (gpu.ptr(&d.row_ptr).addr(), d.n_rows as usize + 1),
                    (gpu.ptr(&d.col_idx).addr(), nnz),
                    (gpu.ptr(&d.values).addr(), nnz),
                ],
            )
        }
        let gpu = Gpu::get().expect("a device matrix exists, so the GPU started");
        match self {
            AnyDev::F32(r) => of(gpu, r),
            AnyDev::F64(r) => of(gpu, r),
        }
    }
}

impl Drop for AnyDev {
    fn drop(&mut self) {
        bind_for_drop();
    }
}

/// Makes spmx's context current on the dropping thread (any Python
/// thread, perhaps one that never touched CUDA), so that the stream-ordered
/// frees of the device buffers being dropped find it.
pub(crate) fn bind_for_drop() {
    if let Ok(gpu) = Gpu::get() {
        // A failure here leaves the frees to report theirs to cudarc.
        let _ = gpu.context().bind_to_thread();
    }
}

/// The index type of a `__cuda_array_interface__` typestr.
fn index_type(typestr: &str, what: &str) -> PyResult<ForeignIndex> {
    match typestr {
        "<i4" => Ok(ForeignIndex::I32),
        "<i8" => Ok(ForeignIndex::I64),
        other => Err(PyValueError::new_err(format!(
            "{what} must be int32 or int64 on the device, not {other:?}"
        ))),
    }
}

/// A CSR matrix kept on the GPU by spmx (values float32 or float64).
#[pyclass(module = "spmx._spmx", name = "DevCsr", frozen)]
pub struct PyDevCsr {
    pub(crate) inner: Arc<AnyDev>,
    /// The CUDA device's ordinal (spmx runs on one).
    device: usize,
    /// Plans of SpMV and SpMM over this matrix, made by the first product.
    pub(crate) plans: Mutex<DensePlans>,
}

impl PyDevCsr {
    fn new(inner: AnyDev, device: usize) -> Self {
        PyDevCsr {
            inner: Arc::new(inner),
            device,
            plans: Mutex::default(),
        }
    }
}

#[pymethods]
impl PyDevCsr {
    /// Copies a CSR matrix from CuPy's device arrays, given by address and
    /// `__cuda_array_interface__` typestr, on the device: the row offsets
    /// come back to be checked, the rest is copied (int64 column indices
    /// narrowed) on the GPU.
    ///
    /// Unchecked, and so private to the package: the addresses are live
    /// device arrays of device `device`'s primary context of the lengths
    /// the shape and `nnz` give, CuPy's stream is synchronized, the column
    /// indices are in range and increase within each row (the package
    /// checks this with CuPy on the device first).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn _from_cuda_unchecked(
        py: Python<'_>,
        device: usize,
        shape: (usize, usize),
        indptr: (u64, String),
        indices: (u64, String),
        data: (u64, String),
        nnz: usize,
    ) -> PyResult<PyDevCsr> {
        let parts = ForeignCsr {
            shape,
            indptr: indptr.0,
            indptr_type: index_type(&indptr.1, "indptr")?,
            indices: indices.0,
            indices_type: index_type(&indices.1, "indices")?,
            data: data.0,
            nnz,
        };
        let made = py.detach(|| -> spmx::Result<AnyDev> {
            let gpu = Gpu::select(device)?;
            // SAFETY: the contract above, which the package's `asarray`
            // keeps: CuPy's arrays of `device`, in its primary context
            // (CuPy's and cudarc's `CudaContext::new` both retain it),
            // synchronized, indices in range and sorted.
            Ok(match data.1.as_str() {
                "<f4" => AnyDev::F32(Resident::from_device(unsafe {
                    DevCsr::from_foreign(gpu, parts)?
                })),
                "<f8" => AnyDev::F64(Resident::from_device(unsafe {
                    DevCsr::from_foreign(gpu, parts)?
                })),
                other => {
                    return Err(spmx::Error::invalid(
                        "CSR",
                        format!("device values must be float32 or float64, not {other:?}"),
                    ));
                }
            })
        });
        let inner = made.map_err(|e| to_py(py, e))?;
        Ok(PyDevCsr::new(inner, device))
    }

    /// `(nrows, ncols)`.
    #[getter]
    pub(crate) fn shape(&self) -> (usize, usize) {
        self.inner.shape()
    }

    /// Stored entries.
    #[getter]
    fn nnz(&self) -> usize {
        self.inner.arrays().0
    }

    /// The value type's numpy name.
    #[getter]
    pub(crate) fn dtype(&self) -> &'static str {
        self.inner.dtype()
    }

    /// The device's ordinal.
    #[getter]
    fn device(&self) -> usize {
        self.device
    }

    /// `(indptr, indices, data)` as objects exposing
    /// `__cuda_array_interface__` over spmx's own buffers (int32 indices,
    /// the `u32` bits spmx keeps), each keeping this matrix alive. A
    /// matrix whose columns or entries pass int32 is a `ValueError`
    /// (download it with `to_csr`).
    fn arrays(&self) -> PyResult<(PyDeviceArray, PyDeviceArray, PyDeviceArray)> {
        let (nnz, _) = self.inner.arrays();
        let (_, n_cols) = self.inner.shape();
        if nnz.max(n_cols) > i32::MAX as usize {
            return Err(PyValueError::new_err(format!(
                "a matrix of {n_cols} columns and {nnz} entries passes CuPy's int32 indices; \
                 use to_scipy()"
            )));
        }
        let part = |part| PyDeviceArray {
            held: Held::Matrix(Arc::clone(&self.inner), part),
        };
        Ok((part(0), part(1), part(2)))
    }

    /// The matrix copied to the host.
    fn to_csr(&self, py: Python<'_>) -> PyResult<PyCsr> {
        fn down<T: Value>(r: &Resident<T>) -> spmx::Result<spmx::Csr<T>> {
            kept(r).download(Gpu::get()?)
        }
        let c = py.detach(|| match &*self.inner {
            AnyDev::F32(r) => down(r).map(<f32 as Value>::wrap),
            AnyDev::F64(r) => down(r).map(<f64 as Value>::wrap),
        });
        c.map(PyCsr::from).map_err(|e| to_py(py, e))
    }
}

/// One of a [`PyDevCsr`]'s arrays, or a product's dense result, for
/// CuPy: `__cuda_array_interface__` (version 3, no stream: spmx
/// synchronized its stream before handing it out) over spmx's buffer,
/// which lives as long as this object.
#[pyclass(module = "spmx._spmx", name = "DeviceArray", frozen)]
pub struct PyDeviceArray {
    pub(crate) held: Held,
}

/// What a [`PyDeviceArray`] shows.
pub(crate) enum Held {
    /// Array `.1` (0 indptr, 1 indices, 2 data) of a matrix.
    Matrix(Arc<AnyDev>, usize),
    /// A dense product.
    Dense(DenseOut),
}

#[pymethods]
impl PyDeviceArray {
    /// The array's device address.
    #[getter]
    fn ptr(&self) -> u64 {
        match &self.held {
            Held::Matrix(owner, part) => owner.arrays().1[*part].0,
            Held::Dense(out) => out.address(),
        }
    }

    /// The CUDA Array Interface (version 3) of the array.
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let (address, empty) = match &self.held {
            Held::Matrix(owner, part) => {
                let (address, len) = owner.arrays().1[*part];
                let typestr = match (part, owner.dtype()) {
                    (0 | 1, _) => "<i4",
                    (_, "float32") => "<f4",
                    _ => "<f8",
                };
                d.set_item("shape", (len,))?;
                d.set_item("typestr", typestr)?;
                d.set_item("strides", py.None())?;
                (address, len == 0)
            }
            Held::Dense(out) => {
                // A tuple: CuPy refuses a list here.
                d.set_item("shape", PyTuple::new(py, out.shape())?)?;
                d.set_item("typestr", out.typestr())?;
                match out.strides() {
                    Some(strides) => d.set_item("strides", strides)?,
                    None => d.set_item("strides", py.None())?,
                }
                (out.address(), out.is_empty())
            }
        };
        d.set_item("data", (if empty { 0 } else { address }, false))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

/// C = A ⊗ B on the device.
struct DeviceSpgemm<'a> {
    py: Python<'a>,
    /// The operands' device.
    device: usize,
    a: &'a AnyDev,
    b: &'a AnyDev,
}

impl SemiringOp for DeviceSpgemm<'_> {
    type Output = PyDevCsr;
    fn run<S: Semiring>(self) -> PyResult<PyDevCsr>
    where
        S::Value: Value,
    {
        let (Some(a), Some(b)) = (self.a.typed::<S::Value>(), self.b.typed::<S::Value>()) else {
            return Err(PyValueError::new_err(format!(
                "device matrices of {} and {} values: convert one of them",
                self.a.dtype(),
                self.b.dtype()
            )));
        };
        let py = self.py;
        let c = py
            .detach(|| -> spmx::Result<_> {
                let c = a.spgemm::<S>(b)?;
                Gpu::get()?.sync()?;
                Ok(c)
            })
            .map_err(|e| to_py(py, e))?;
        let c = c.ok_or_else(|| {
            let why = "the product does not fit in GPU memory beside its operands";
            to_py(py, spmx::Error::TooLarge(why.into()))
        })?;
        Ok(PyDevCsr::new(AnyDev::wrap(c)?, self.device))
    }
}

/// C = A ⊗ B (SpGEMM) of two device matrices over `semiring` (None: the
/// dtype's default) on the GPU; the product stays on the device.
#[pyfunction]
#[pyo3(signature = (a, b, semiring=None))]
pub fn spgemm_device(
    py: Python<'_>,
    a: &PyDevCsr,
    b: &PyDevCsr,
    semiring: Option<&str>,
) -> PyResult<PyDevCsr> {
    let op = DeviceSpgemm {
        py,
        device: a.device,
        a: &a.inner,
        b: &b.inner,
    };
    with_semiring(semiring, a.inner.dtype(), op)
}

/// Triangles of a device matrix's undirected graph
/// (`spmx::app::triangles::triangles_on_device`): counted on its GPU, L
/// made there where the pattern is symmetric.
#[pyfunction]
#[pyo3(signature = (a, order="degree"))]
pub fn triangles_device(py: Python<'_>, a: &PyDevCsr, order: &str) -> PyResult<u64> {
    let order: spmx::app::triangles::TriangleOrder =
        order.parse().map_err(PyValueError::new_err)?;
    let found = py.detach(|| match a.inner.as_ref() {
        AnyDev::F32(r) => count_on(r, order),
        AnyDev::F64(r) => count_on(r, order),
    });
    Ok(found.map_err(|e| to_py(py, e))?.count)
}

/// The triangles of `r`, kept on the device.
fn count_on<T: Value>(
    r: &Resident<T>,
    order: spmx::app::triangles::TriangleOrder,
) -> spmx::Result<spmx::app::triangles::Triangles> {
    spmx::app::triangles::triangles_on_device(kept(r), order)
}

/// The device copy of a device matrix (which keeps one).
fn kept<T: spmx::Scalar>(r: &Resident<T>) -> &DevCsr<T> {
    r.device().expect("device matrices are kept on the device")
}

/// Breadth-first search of a graph kept on the device, on its GPU
/// (`spmx::app::bfs::bfs_on_device`): levels and parents as `bfs` gives
/// them, the same as the CPU's.
#[pyfunction]
pub fn bfs_device<'py>(
    py: Python<'py>,
    a: &PyDevCsr,
    source: usize,
) -> PyResult<crate::Int64Pair<'py>> {
    let arrays = py.detach(|| {
        let found = match a.inner.as_ref() {
            AnyDev::F32(r) => search_on(r, source),
            AnyDev::F64(r) => search_on(r, source),
        }?;
        spmx::Result::Ok(crate::levels_and_parents(&found))
    });
    let (levels, parents) = arrays.map_err(|e| to_py(py, e))?;
    Ok((levels.into_pyarray(py), parents.into_pyarray(py)))
}

/// A search of `r`'s graph from `source`, kept on the device.
fn search_on<T: Value>(r: &Resident<T>, source: usize) -> spmx::Result<spmx::app::bfs::Bfs> {
    spmx::app::bfs::bfs_on_device(kept(r), source)
}
