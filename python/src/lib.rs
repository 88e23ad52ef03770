//! `spmx._spmx`, the extension module under the Python package `spmx`
//! (python/spmx/): a CSR matrix of any value type ([`PyCsr`]), SpGEMM,
//! SpMV and SpMM over any semiring by name on any engine, SpGEMM plans
//! ([`plan::PyPlan`]), APSP and MatrixMarket I/O. The package wraps these
//! in the scipy-like API its docs describe; this module is its engine room.
//!
//! Every multiply runs with the GIL released (`Python::detach`); a large
//! SpGEMM on the CPU runs in row blocks with Ctrl-C checked between them
//! ([`interrupt`]). Results
//! own their arrays, and [`PyCsr::take_parts`] moves them into numpy
//! without a copy (values always; column indices where they fit `int32`,
//! as their `u32` bits; row pointers as `int64` where the indices are
//! `int64`, and narrowed to `int32` otherwise, so that scipy takes all
//! three as they are). Operands are read in place from scipy's arrays
//! where their dtypes allow, else copied, and checked once ([`lend`]). CuPy's sparse matrices stay on the GPU
//! instead ([`device`]): copied there, multiplied there, handed back by
//! device address.

mod device;
mod device_dense;
mod errors;
mod interrupt;
mod lend;
mod plan;
mod values;

use errors::{OutOfMemoryError, to_py};
use numpy::{
    IntoPyArray, PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmx::format::Dense;
use spmx::io::{Field, IndexBase, ReadOptions};
use spmx::{Csr, Engine, Scalar, Semiring, ops};
use values::{AnyCsr, SemiringOp, Value, with_dtype, with_semiring, with_value};

/// A CSR matrix of any of spmx's value types, owned by spmx.
#[pyclass(module = "spmx._spmx", name = "Csr")]
pub struct PyCsr {
    /// `None` once [`take_parts`](PyCsr::take_parts) moved the arrays out.
    inner: Option<AnyCsr>,
}

impl PyCsr {
    /// The matrix, or a `ValueError` once its arrays were moved out.
    fn get(&self) -> PyResult<&AnyCsr> {
        self.inner
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("this matrix's arrays were handed to numpy"))
    }
}

impl From<AnyCsr> for PyCsr {
    fn from(c: AnyCsr) -> Self {
        PyCsr { inner: Some(c) }
    }
}

#[pymethods]
impl PyCsr {
    /// A CSR matrix from scipy's three arrays, read in place where their
    /// dtypes allow or copied (all of them when `copy`), and checked:
    /// canonical rows — sorted, no duplicates — and indices in range; a
    /// broken one is a `ValueError` naming the row or entry ([`lend`]).
    #[staticmethod]
    #[pyo3(signature = (shape, indptr, indices, data, copy=false))]
    fn from_parts(
        py: Python<'_>,
        shape: (usize, usize),
        indptr: &Bound<'_, PyUntypedArray>,
        indices: &Bound<'_, PyUntypedArray>,
        data: &Bound<'_, PyUntypedArray>,
        copy: bool,
    ) -> PyResult<PyCsr> {
        let dtype: String = data.dtype().getattr("name")?.extract()?;
        with_dtype!(dtype.as_str(), T => {
            let c = lend::csr_from_parts::<T>(py, shape, indptr, indices, data, copy)?;
            Ok(PyCsr::from(T::wrap(c)))
        })
    }

    /// `(nrows, ncols)`.
    #[getter]
    fn shape(&self) -> PyResult<(usize, usize)> {
        Ok(self.get()?.shape())
    }
    /// Stored entries.
    #[getter]
    fn nnz(&self) -> PyResult<usize> {
        Ok(self.get()?.nnz())
    }
    /// The numpy name of the value type.
    #[getter]
    fn dtype(&self) -> PyResult<&'static str> {
        Ok(self.get()?.dtype())
    }
    /// The addresses of the first bytes of `(indptr, indices, data)`: to
    /// check which arrays spmx reads in place, and that numpy got these
    /// very buffers.
    fn addresses(&self) -> PyResult<(usize, usize, usize)> {
        Ok(with_value!(self.get()?, c: _T => (
            c.row_ptr().as_ptr() as usize,
            c.col_idx().as_ptr() as usize,
            c.values().as_ptr() as usize,
        )))
    }

    /// Moves the arrays into numpy: `(indptr, indices, data)`, without
    /// copying the values (see the module docs for the indices); the
    /// matrix is empty afterwards.
    fn take_parts<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let inner = self
            .inner
            .take()
            .ok_or_else(|| PyValueError::new_err("this matrix's arrays were handed to numpy"))?;
        with_value!(inner, c: _T => {
            let (_, ncols, row_ptr, col_idx, values) = c.into_parts();
            let (indptr, indices) = index_arrays(py, ncols, row_ptr, col_idx);
            Ok((indptr, indices, values.into_pyarray(py).into_any()))
        })
    }

    /// A copy with the same pattern and new values (`data`, one per entry,
    /// of the same dtype).
    fn with_values(&self, py: Python<'_>, data: &Bound<'_, PyUntypedArray>) -> PyResult<PyCsr> {
        with_value!(self.get()?, c: T => {
            let values = data.cast::<PyArray1<T>>()?.readonly().as_slice()?.to_vec();
            if values.len() != c.nnz() {
                return Err(PyValueError::new_err(format!(
                    "with_data: {} values for a matrix of {} entries",
                    values.len(),
                    c.nnz()
                )));
            }
            let (nrows, ncols) = c.shape();
            Csr::try_new(nrows, ncols, c.row_ptr().to_vec(), c.col_idx().to_vec(), values)
                .map(|c| PyCsr::from(T::wrap(c)))
                .map_err(|e| to_py(py, e))
        })
    }

    /// The same matrix with values of `dtype`, each converted through
    /// `f64` (exact for floats, bool and integers up to 2⁵³; `!= 0` to
    /// bool; toward zero and saturating to an integer type).
    fn astype(&self, dtype: &str) -> PyResult<PyCsr> {
        with_value!(self.get()?, c: _T => with_dtype!(dtype, U => {
            Ok(PyCsr::from(U::wrap(c.map(|v| U::from_f64(v.to_f64())))))
        }))
    }
}

/// Row pointers and column indices as numpy arrays of one index dtype:
/// `int32` where every column and the entry count fit it (the column
/// indices moved as they are, the row pointers narrowed), else `int64`
/// (the row pointers moved, the column indices widened).
fn index_arrays(
    py: Python<'_>,
    ncols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
) -> (Bound<'_, PyAny>, Bound<'_, PyAny>) {
    let nnz = col_idx.len();
    if ncols <= i32::MAX as usize && nnz <= i32::MAX as usize {
        let indptr: Vec<i32> = row_ptr.iter().map(|&p| p as i32).collect();
        let mut col_idx = std::mem::ManuallyDrop::new(col_idx);
        // SAFETY: u32 and i32 have one size and alignment, and every column
        // is below ncols ≤ i32::MAX, so each value reads the same as i32;
        // the Vec's allocation is handed over whole (pointer, length,
        // capacity) and the original is never dropped.
        let indices = unsafe {
            Vec::from_raw_parts(
                col_idx.as_mut_ptr().cast::<i32>(),
                col_idx.len(),
                col_idx.capacity(),
            )
        };
        (
            indptr.into_pyarray(py).into_any(),
            indices.into_pyarray(py).into_any(),
        )
    } else {
        let mut row_ptr = std::mem::ManuallyDrop::new(row_ptr);
        // SAFETY: usize is 64 bits on the platforms spmx builds for (the
        // assertion below), the size and alignment of i64, and every row
        // pointer is at most nnz ≤ isize::MAX (a Vec's length), so it reads
        // the same as i64; the allocation is handed over whole.
        const _: () = assert!(size_of::<usize>() == size_of::<i64>());
        let indptr = unsafe {
            Vec::from_raw_parts(
                row_ptr.as_mut_ptr().cast::<i64>(),
                row_ptr.len(),
                row_ptr.capacity(),
            )
        };
        let indices: Vec<i64> = col_idx.iter().map(|&j| j as i64).collect();
        (
            indptr.into_pyarray(py).into_any(),
            indices.into_pyarray(py).into_any(),
        )
    }
}

/// `"auto"`, `"serial"`, `"cpu"`, `"cuda"` as an [`Engine`]; `"mpi"` and
/// other names are a `ValueError`.
fn engine(name: &str) -> PyResult<Engine> {
    match name.parse::<Engine>() {
        Ok(Engine::Mpi) => Err(PyValueError::new_err(
            "the mpi engine multiplies matrices split across MPI ranks; from Python use \
             engine=\"auto\", \"cpu\", \"serial\" or \"cuda\"",
        )),
        Ok(e) => Ok(e),
        Err(why) => Err(PyValueError::new_err(why)),
    }
}

/// C = A ⊗ B over one semiring.
struct Spgemm<'a, 'py> {
    py: Python<'py>,
    a: &'a AnyCsr,
    b: &'a AnyCsr,
    engine: Engine,
    /// A structural mask (values ignored) and whether it is complemented.
    mask: Option<(&'a AnyCsr, bool)>,
}

impl SemiringOp for Spgemm<'_, '_> {
    type Output = PyCsr;
    fn run<S: Semiring>(self) -> PyResult<PyCsr>
    where
        S::Value: Value,
    {
        let (a, b) = (
            self.a.typed::<S::Value>("A")?,
            self.b.typed::<S::Value>("B")?,
        );
        let (py, engine) = (self.py, self.engine);
        let c = match self.mask {
            None => interrupt::spgemm::<S>(py, a, b, engine)?,
            Some((mask, complement)) => with_value!(mask, pattern: _M => {
                let mask = ops::Mask { pattern, complement };
                py.detach(|| ops::spgemm_masked::<S, _M>(a, b, mask, engine))
            })
            .map_err(|e| to_py(py, e))?,
        };
        Ok(PyCsr::from(S::Value::wrap(c)))
    }
}

/// C = A ⊗ B (SpGEMM) over `semiring` (None: the dtype's default) on
/// `engine`; with `mask`, C⟨M⟩ = A ⊗ B (M's stored entries, or every other
/// one when `complement`), the masked-out entries never computed.
#[pyfunction]
#[pyo3(signature = (a, b, semiring=None, engine="auto", mask=None, complement=false))]
fn spgemm(
    py: Python<'_>,
    a: &PyCsr,
    b: &PyCsr,
    semiring: Option<&str>,
    engine: &str,
    mask: Option<&PyCsr>,
    complement: bool,
) -> PyResult<PyCsr> {
    let (a, b) = (a.get()?, b.get()?);
    let op = Spgemm {
        py,
        a,
        b,
        engine: self::engine(engine)?,
        mask: match mask {
            Some(m) => Some((m.get()?, complement)),
            None => None,
        },
    };
    with_semiring(semiring, a.dtype(), op)
}

/// y = A ⊗ x, or C = A ⊗ X with X dense (row-major).
struct DenseProduct<'a, 'py> {
    py: Python<'py>,
    a: &'a AnyCsr,
    x: &'a Bound<'py, PyUntypedArray>,
    engine: Engine,
    /// SpMV's mask over y's positions and whether it is complemented.
    mask: Option<(&'a [bool], bool)>,
}

impl<'py> SemiringOp for DenseProduct<'_, 'py> {
    type Output = Bound<'py, PyAny>;
    fn run<S: Semiring>(self) -> PyResult<Bound<'py, PyAny>>
    where
        S::Value: Value,
    {
        let (py, engine) = (self.py, self.engine);
        let a = self.a.typed::<S::Value>("A")?;
        let x = self.x.cast::<PyArrayDyn<S::Value>>().map_err(|_| {
            PyValueError::new_err(format!(
                "x has dtype {}, A {}",
                self.x.dtype(),
                <S::Value as Value>::DTYPE
            ))
        })?;
        if x.ndim() == 1 {
            let x: PyReadonlyArray1<S::Value> = x.cast::<PyArray1<S::Value>>()?.readonly();
            let x = x.as_slice()?;
            let y = py.detach(|| match self.mask {
                None => ops::spmv::<S>(a, x, engine),
                Some((allowed, complement)) => {
                    // Positions the mask rules out keep the zero: no entry.
                    let mut y = vec![S::zero(); a.nrows()];
                    let mask = ops::VectorMask {
                        allowed,
                        complement,
                    };
                    ops::spmv_masked::<S>(a, x, &mut y, mask, true, engine).map(|()| y)
                }
            });
            Ok(y.map_err(|e| to_py(py, e))?.into_pyarray(py).into_any())
        } else {
            let x: PyReadonlyArray2<S::Value> = x.cast::<numpy::PyArray2<S::Value>>()?.readonly();
            let (rows, cols) = (x.shape()[0], x.shape()[1]);
            let b = Dense::try_new(rows, cols, x.as_slice()?.to_vec()).map_err(|e| to_py(py, e))?;
            let c = py.detach(|| ops::spmm::<S>(a, &b, engine));
            let c = c.map_err(|e| to_py(py, e))?;
            let (rows, cols) = c.shape();
            Ok(c.into_vec()
                .into_pyarray(py)
                .reshape([rows, cols])?
                .into_any())
        }
    }
}

/// y = A ⊗ x (x 1-D: SpMV) or C = A ⊗ X (X 2-D, C-contiguous: SpMM), x of
/// A's dtype; with `mask` (SpMV only, a bool per row of A), y⟨m⟩ = A ⊗ x:
/// the rows the mask rules out (or, `complement`, allows) are not
/// computed and hold the semiring's zero.
#[pyfunction]
#[pyo3(signature = (a, x, semiring=None, engine="auto", mask=None, complement=false))]
#[allow(clippy::too_many_arguments)]
fn spmv_spmm<'py>(
    py: Python<'py>,
    a: &PyCsr,
    x: &Bound<'py, PyUntypedArray>,
    semiring: Option<&str>,
    engine: &str,
    mask: Option<PyReadonlyArray1<'py, bool>>,
    complement: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let a = a.get()?;
    if !matches!(x.ndim(), 1 | 2) {
        return Err(PyValueError::new_err(format!(
            "x has {} dimensions; spmx multiplies by a vector (1) or a dense matrix (2)",
            x.ndim()
        )));
    }
    if mask.is_some() && x.ndim() != 1 {
        return Err(PyValueError::new_err(
            "a vector mask is for SpMV (x 1-D); mask a sparse product with a sparse matrix",
        ));
    }
    let mask = match &mask {
        Some(m) => Some((m.as_slice()?, complement)),
        None => None,
    };
    let op = DenseProduct {
        py,
        a,
        x,
        engine: self::engine(engine)?,
        mask,
    };
    with_semiring(semiring, a.dtype(), op)
}

/// All-pairs shortest paths of the weighted graph `g` (float64, square)
/// from every vertex (Dijkstra; on cuda Bellman–Ford rounds), or by
/// min-plus squaring where a weight is negative: the distances as
/// float64, and the squarings it took (0 from every vertex).
#[pyfunction]
#[pyo3(signature = (g, engine="auto"))]
fn apsp(py: Python<'_>, g: &PyCsr, engine: &str) -> PyResult<(PyCsr, usize)> {
    let g = g.get()?.typed::<f64>("G")?;
    let engine = self::engine(engine)?;
    let result = py.detach(|| spmx::app::apsp::apsp(g, engine));
    let result = result.map_err(|e| to_py(py, e))?;
    Ok((PyCsr::from(AnyCsr::F64(result.distances)), result.squarings))
}

/// Two int64 arrays handed to numpy.
pub(crate) type Int64Pair<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// Levels and parents of a breadth-first search of G's graph (stored
/// entries are edges) from `source` (`spmx::app::bfs`): two int64 arrays
/// of n, -1 where not reached; the source is its own parent.
#[pyfunction]
#[pyo3(signature = (g, source, engine="auto"))]
fn bfs<'py>(py: Python<'py>, g: &PyCsr, source: usize, engine: &str) -> PyResult<Int64Pair<'py>> {
    let engine = self::engine(engine)?;
    let g = g.get()?;
    let arrays = py.detach(|| {
        let found = with_value!(g, g: T => spmx::app::bfs::bfs::<T>(g, source, engine))?;
        spmx::Result::Ok(levels_and_parents(&found))
    });
    let (levels, parents) = arrays.map_err(|e| to_py(py, e))?;
    Ok((levels.into_pyarray(py), parents.into_pyarray(py)))
}

/// A search's levels and parents as `bfs` returns them: -1 where not
/// reached.
pub(crate) fn levels_and_parents(found: &spmx::app::bfs::Bfs) -> (Vec<i64>, Vec<i64>) {
    let index = |v: Option<u32>| v.map_or(-1, i64::from);
    (
        found.levels().map(index).collect(),
        found.parents().map(index).collect(),
    )
}

/// Triangles of the undirected graph of G's pattern (`spmx::app::triangles`),
/// vertices ordered by `order` ("degree" or "natural").
#[pyfunction]
#[pyo3(signature = (g, order="degree", engine="auto"))]
fn triangles(py: Python<'_>, g: &PyCsr, order: &str, engine: &str) -> PyResult<u64> {
    let engine = self::engine(engine)?;
    let order: spmx::app::triangles::TriangleOrder =
        order.parse().map_err(PyValueError::new_err)?;
    let g = g.get()?;
    let found = py
        .detach(|| with_value!(g, g: T => spmx::app::triangles::triangles::<T>(g, order, engine)));
    Ok(found.map_err(|e| to_py(py, e))?.count)
}

/// Reads a MatrixMarket file (`.gz` too) into a CSR of `dtype` (duplicates
/// summed); a bad line is a `ValueError` naming the file and the line.
#[pyfunction]
#[pyo3(signature = (path, dtype, zero_based=false, drop_invalid=false))]
fn mmread(
    py: Python<'_>,
    path: std::path::PathBuf,
    dtype: &str,
    zero_based: bool,
    drop_invalid: bool,
) -> PyResult<PyCsr> {
    let opts = ReadOptions {
        index_base: if zero_based {
            IndexBase::Zero
        } else {
            IndexBase::One
        },
        drop_invalid,
    };
    with_dtype!(dtype, T => {
        let read = py.detach(|| {
            spmx::io::read_mtx::<T>(&path, &opts).and_then(|m| m.coo.try_to_csr())
        });
        read.map(|c| PyCsr::from(T::wrap(c))).map_err(|e| to_py(py, e))
    })
}

/// Writes `c` as a MatrixMarket coordinate file (`.gz`: compressed):
/// `real` for floats, `integer` for integers and bool (0/1).
#[pyfunction]
fn mmwrite(py: Python<'_>, path: std::path::PathBuf, c: &PyCsr) -> PyResult<()> {
    with_value!(c.get()?, c: T => {
        let field = if T::DTYPE.starts_with("float") { Field::Real } else { Field::Integer };
        py.detach(|| spmx::io::write_mtx(&path, c, field)).map_err(|e| to_py(py, e))
    })
}

/// The Python module `spmx._spmx`.
#[pymodule]
fn _spmx(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCsr>()?;
    m.add_class::<plan::PyPlan>()?;
    m.add_class::<device::PyDevCsr>()?;
    m.add_class::<device::PyDeviceArray>()?;
    m.add_function(wrap_pyfunction!(device::spgemm_device, m)?)?;
    m.add_function(wrap_pyfunction!(device::triangles_device, m)?)?;
    m.add_function(wrap_pyfunction!(device::bfs_device, m)?)?;
    m.add_function(wrap_pyfunction!(device_dense::spmv_spmm_device, m)?)?;
    m.add_function(wrap_pyfunction!(spgemm, m)?)?;
    m.add_function(wrap_pyfunction!(spmv_spmm, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan_spgemm, m)?)?;
    m.add_function(wrap_pyfunction!(apsp, m)?)?;
    m.add_function(wrap_pyfunction!(bfs, m)?)?;
    m.add_function(wrap_pyfunction!(triangles, m)?)?;
    m.add_function(wrap_pyfunction!(mmread, m)?)?;
    m.add_function(wrap_pyfunction!(mmwrite, m)?)?;
    m.add("OutOfMemoryError", m.py().get_type::<OutOfMemoryError>())?;
    m.add("SEMIRINGS", values::semiring_names())?;
    m.add("DTYPES", values::DTYPES.to_vec())?;
    Ok(())
}
