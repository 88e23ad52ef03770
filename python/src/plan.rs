//! SpGEMM plans from Python: [`PyPlan`] wraps the crate's
//! [`SpgemmPlan`] of any semiring and value type (chosen at run time), and
//! checks that the operands of each later product have the patterns it
//! was planned for — the crate's plan takes values alone, so another
//! pattern with as many entries would otherwise give a wrong C silently.

use crate::PyCsr;
use crate::errors::to_py;
use crate::values::{AnyCsr, SemiringOp, Value};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmx::ops::SpgemmPlan;
use spmx::{Csr, Engine, Semiring};

/// A CSR's pattern: shape, row pointers and column indices.
struct Pattern {
    shape: (usize, usize),
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
}

impl Pattern {
    fn of<T: Value>(c: &Csr<T>) -> Self {
        Pattern {
            shape: c.shape(),
            row_ptr: c.row_ptr().to_vec(),
            col_idx: c.col_idx().to_vec(),
        }
    }

    /// Ok when `c` has this pattern, else a `ValueError` naming `what`.
    fn check<T: Value>(&self, c: &Csr<T>, what: &str) -> PyResult<()> {
        if c.shape() == self.shape && c.row_ptr() == self.row_ptr && c.col_idx() == self.col_idx {
            return Ok(());
        }
        Err(PyValueError::new_err(format!(
            "{what} has another pattern than the plan's ({}×{} with {} entries planned, {}×{} \
             with {} given): plan this product anew (spmx.plan_matmul)",
            self.shape.0,
            self.shape.1,
            self.col_idx.len(),
            c.nrows(),
            c.ncols(),
            c.nnz()
        )))
    }
}

/// A plan of one semiring: the crate's plan and the operands' patterns.
struct TypedPlan<S: Semiring>
where
    S::Value: Value,
{
    plan: SpgemmPlan<S>,
    a: Pattern,
    b: Pattern,
}

/// A [`TypedPlan`] of any semiring.
trait AnyPlan: Send + Sync {
    /// C for the values of `a` and `b`, which must have the plan's patterns.
    fn numeric(&mut self, py: Python<'_>, a: &AnyCsr, b: &AnyCsr) -> PyResult<AnyCsr>;
    /// C as first computed.
    fn product(&self) -> AnyCsr;
}

impl<S: Semiring> AnyPlan for TypedPlan<S>
where
    S::Value: Value,
    SpgemmPlan<S>: Send + Sync,
{
    fn numeric(&mut self, py: Python<'_>, a: &AnyCsr, b: &AnyCsr) -> PyResult<AnyCsr> {
        let (a, b) = (a.typed::<S::Value>("A")?, b.typed::<S::Value>("B")?);
        self.a.check(a, "A")?;
        self.b.check(b, "B")?;
        let plan = &mut self.plan;
        let c = py.detach(|| plan.numeric(a.values(), b.values()).cloned());
        c.map(S::Value::wrap).map_err(|e| to_py(py, e))
    }

    fn product(&self) -> AnyCsr {
        S::Value::wrap(self.plan.product().clone())
    }
}

/// Plans C = A ⊗ B over one semiring.
struct Planner<'a, 'py> {
    py: Python<'py>,
    a: &'a AnyCsr,
    b: &'a AnyCsr,
    engine: Engine,
}

impl SemiringOp for Planner<'_, '_> {
    type Output = Box<dyn AnyPlan>;
    fn run<S: Semiring>(self) -> PyResult<Box<dyn AnyPlan>>
    where
        S::Value: Value,
    {
        let (a, b) = (
            self.a.typed::<S::Value>("A")?,
            self.b.typed::<S::Value>("B")?,
        );
        let engine = self.engine;
        let plan = self.py.detach(|| SpgemmPlan::<S>::new(a, b, engine));
        let plan = plan.map_err(|e| to_py(self.py, e))?;
        Ok(Box::new(TypedPlan {
            plan,
            a: Pattern::of(a),
            b: Pattern::of(b),
        }))
    }
}

/// C = A ⊗ B planned once (symbolic phase and a first product), computed
/// again for new values of A and B with the same patterns.
#[pyclass(module = "spmx._spmx", name = "Plan")]
pub struct PyPlan {
    plan: Box<dyn AnyPlan>,
}

#[pymethods]
impl PyPlan {
    /// C for the values of `a` and `b` (the patterns planned for).
    fn numeric(&mut self, py: Python<'_>, a: &PyCsr, b: &PyCsr) -> PyResult<PyCsr> {
        let (a, b) = (a.get()?, b.get()?);
        self.plan.numeric(py, a, b).map(PyCsr::from)
    }

    /// C as first computed (a copy).
    fn product(&self) -> PyCsr {
        PyCsr::from(self.plan.product())
    }
}

/// Plans C = A ⊗ B over `semiring` (None: the dtype's default) on `engine`.
#[pyfunction]
#[pyo3(signature = (a, b, semiring=None, engine="auto"))]
pub fn plan_spgemm(
    py: Python<'_>,
    a: &PyCsr,
    b: &PyCsr,
    semiring: Option<&str>,
    engine: &str,
) -> PyResult<PyPlan> {
    let (a, b) = (a.get()?, b.get()?);
    let planner = Planner {
        py,
        a,
        b,
        engine: crate::engine(engine)?,
    };
    let plan = crate::values::with_semiring(semiring, a.dtype(), planner)?;
    Ok(PyPlan { plan })
}
