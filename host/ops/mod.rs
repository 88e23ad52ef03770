//! One entry point per operation, dispatching on the [`Engine`]: the public
//! surface, and the one place where an engine is resolved ([`Engine::Auto`]
//! to the fastest one here) and arguments are checked before an engine
//! runs. [`Resident`] keeps a matrix on its engine for chains of products,
//! and [`spgemm_blocks`] sizes a product before it is made; [`masked`] has
//! GraphBLAS's masked products.
//!
//! The simple surface is a method on the matrix: `a.spgemm(&b)` multiplies
//! in the value type's default semiring (plus-times for numbers, or-and for
//! `bool`) on the best engine here, and [`operators`] write the same as
//! `&a * &b`, `&a * &x` and `&a + &b`. The expert layer names both:
//! `a.spgemm_with::<MinPlus<f64>>(&b, Engine::Cpu)`.
//!
//! Which (operation, format, engine) pairs exist:
//!
//! | operation            | format                              | serial | cpu  | cuda |
//! |----------------------|-------------------------------------|--------|------|------|
//! | SpMV  `y = A ⊗ x`    | CSR, ELL, HYB, SELL/JDS, BSR, dense | ✓      | ✓ ¹  | ✓ ³  |
//! | SpMV  `y = A ⊗ x`    | COO, CSC                            | ✓      | ✓ ²  | ✓ ³  |
//! | SpMM  `C = A ⊗ B`    | CSR × dense → dense                 | ✓      | ✓ ¹  | ✓ ³  |
//! | SpGEMM `C = A ⊗ B`   | CSR                                 | ✓      | ✓ ¹  | ✓ ⁴  |
//! | element-wise `A ⊕ B` | CSR                                 | ✓      | ✓ ¹  |      |
//! | transpose            | CSR (→ CSR of Aᵀ, i.e. CSC)         | ✓      | ✓ ¹  |      |
//! | masked SpGEMM `C⟨M⟩ = A ⊗ B` | CSR, structural mask or its complement | ✓ | ✓ ¹ | ✓ ⁵ |
//! | masked SpMV `y⟨m⟩ = A ⊗ x`   | CSR, dense mask                     | ✓      | ✓ ¹  | ✓ ⁵  |
//!
//! ¹ Rows split by work; every row computed as the serial engine computes
//! it, so the same bits as serial. ² Entries cut into chunks of a fixed
//! length; the same bits for any thread count, and as serial for
//! order-independent semirings, but plus-times may round differently from
//! serial (see [`cpu::spmv`]). ³ Feature `gpu`: exact semirings give the
//! serial bits; plus-times may round differently (the kernels' sum orders
//! are in `gpu_kernels::spmv` and `gpu_kernels::spmm`). ⁴ Feature `gpu`:
//! every entry summed in the serial order, so the serial bits for every
//! semiring; a C larger than the device is computed in row blocks.
//! ⁵ Feature `gpu`, asked for by name (`auto` runs cpu): the serial
//! bits; SpGEMM with a structural mask only (see [`masked`]).
//!
//! A product whose patterns stay while values change (AMG setup, iterative
//! methods) is planned once and recomputed: [`SpgemmPlan`] on the cpu and
//! cuda engines, with the bits of a fresh [`spgemm`].
//!
//! SpMV runs on each format's own layout (no conversion to CSR): every
//! format has `a.spmv(&x)` and `a.spmv_with::<S>(&x, engine)`, and
//! [`spmv`] takes any [`SpmvFormat`]. SpMM multiplies CSR by a row-major
//! [`Dense`]: `a.spmm(&b)`, `a.spmm_with::<S>(&b, engine)`, [`spmm`].
//!
//! The mpi engine (feature `mpi`) multiplies matrices split across MPI
//! ranks, so it has its own entry points in `engine::mpi` (`DistCsr`,
//! `HaloCsr::spmv`, `HaloCsr::spmm`, `mpi::spgemm`); the functions here,
//! which take whole matrices, answer [`Engine::Mpi`] with an error saying so.
//!
//! Every function here checks its operands' shapes before anything else
//! and returns a mismatch as an [`Error::Mismatch`](crate::Error) naming
//! both shapes (the crate's [error policy](crate#errors)); the operators of
//! [`operators`] panic with the same text. An engine that cannot run here
//! is an [`Error::Unavailable`](crate::Error).
//! An input value outside the semiring's domain
//! ([`Semiring::DOMAIN`]: max-times is defined on values ≥ 0) is an
//! [`Error::Invalid`](crate::Error) naming the operand, its place and the
//! value, checked here before any engine runs (and by the mpi entry points,
//! which do not come through here).

pub(crate) mod dispatch;
pub(crate) mod domain;
pub mod masked;
pub mod operators;
mod resident;
pub mod spgemm_blocks;
mod spmv_format;

pub use masked::{Mask, VectorMask, assign_masked, spgemm_masked, spmv_masked};
pub use resident::Resident;
pub use spmv_format::SpmvFormat;

use crate::engine::shared::spmm::shapes_agree as spmm_shapes_agree;
use crate::engine::shared::{ewise, spgemm::shapes_agree, spmv::x_len_agrees};
use crate::engine::{Engine, Op, cpu};
use crate::error::Result;
use crate::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use crate::scalar::Scalar;
use gpu_kernels::{OrAnd, PlusTimes, Semiring};

/// The semiring an element type multiplies in by default: what the
/// methods without a semiring (`a.spgemm(&b)`) and the
/// [`operators`] use.
pub trait DefaultSemiring: Scalar {
    /// Plus-times for numbers, or-and for `bool`.
    type Semiring: Semiring<Value = Self>;
}
impl DefaultSemiring for f64 {
    type Semiring = PlusTimes<f64>;
}
impl DefaultSemiring for f32 {
    type Semiring = PlusTimes<f32>;
}
impl DefaultSemiring for bool {
    type Semiring = OrAnd;
}

/// C = A ⊗ B over `S` on `engine`; A's columns other than B's rows are
/// [`Error::Mismatch`](crate::Error), a C larger than the memory available
/// is [`Error::TooLarge`](crate::Error) before any of it is made (see
/// [`spgemm_blocks`]).
///
/// ```
/// use spmx::{Csr, Engine, MinPlus, ops};
/// // Edge weights of a path 0 → 1 → 2: two hops cost 1 + 2.
/// let a = Csr::try_new(3, 3, vec![0, 1, 2, 2], vec![1, 2], vec![1.0, 2.0])?;
/// let c = ops::spgemm::<MinPlus<f64>>(&a, &a, Engine::Serial)?;
/// assert_eq!(c.get(0, 2), Some(3.0));
/// let e = ops::spgemm::<MinPlus<f64>>(&a, &Csr::empty(2, 3), Engine::Serial).unwrap_err();
/// assert_eq!(e.to_string(), "spgemm: A.ncols() != B.nrows() (3×3 times 2×3)");
/// # Ok::<(), spmx::Error>(())
/// ```
pub fn spgemm<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    shapes_agree(a, b)?;
    domain::check_operands::<S>(a, b)?;
    let engine = engine.resolve_for::<S>(Op::Spgemm)?;
    spgemm_blocks::check_c_fits(a, b)?;
    dispatch::spgemm::<S>(a, b, engine)
}

/// C = A ⊗ B over `S` planned once on an engine, then computed again as
/// often as A's and B's values change while their patterns stay (AMG
/// setup, iterative methods): [`new`](Self::new) runs the symbolic phase
/// and a first numeric phase, [`numeric`](Self::numeric) the numeric phase
/// alone. Every run gives the bits of a fresh [`spgemm`] of those values.
///
/// ```
/// use spmx::{Csr, Engine, PlusTimes, ops::SpgemmPlan};
/// // A = [[1, 2], [0, 3]]: A·A = [[1, 8], [0, 9]].
/// let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0])?;
/// let mut plan = SpgemmPlan::<PlusTimes<f64>>::new(&a, &a, Engine::Cpu)?;
/// assert_eq!(plan.product().values(), &[1.0, 8.0, 9.0]);
/// // New values, the same patterns: [[2, 0.5], [0, 1]] · [[1, 1], [0, 1]].
/// let c = plan.numeric(&[2.0, 0.5, 1.0], &[1.0, 1.0, 1.0])?;
/// assert_eq!(c.values(), &[2.0, 2.5, 1.0]);
/// # Ok::<(), spmx::Error>(())
/// ```
pub struct SpgemmPlan<S: Semiring>
where
    S::Value: Scalar,
{
    engine: PlanEngine<S>,
}

enum PlanEngine<S: Semiring>
where
    S::Value: Scalar,
{
    Cpu(cpu::spgemm::CpuSpgemmPlan<S>),
    /// The plan on the device, and C on the host (values refreshed by each
    /// numeric phase).
    #[cfg(feature = "gpu")]
    Cuda(
        Box<crate::engine::cuda::spgemm::plan::CudaSpgemmPlan<'static, S>>,
        Csr<S::Value>,
    ),
}

impl<S: Semiring> SpgemmPlan<S>
where
    S::Value: Scalar,
{
    /// Plans C = A ⊗ B on `engine` and computes it once. The serial engine
    /// has no plan of its own: serial and cpu are the cpu engine's plan
    /// (whose bits are the serial engine's); cuda is
    /// [`engine::cuda::spgemm::plan`](crate::engine::cuda::spgemm::plan).
    /// Shapes that do not fit are [`Error::Mismatch`](crate::Error), as
    /// for [`spgemm`].
    pub fn new(a: &Csr<S::Value>, b: &Csr<S::Value>, engine: Engine) -> Result<Self> {
        shapes_agree(a, b)?;
        domain::check_operands::<S>(a, b)?;
        let engine = match engine.resolve_for::<S>(Op::Spgemm)? {
            #[cfg(feature = "gpu")]
            Engine::Cuda => {
                use crate::engine::cuda::{Gpu, spgemm::plan::CudaSpgemmPlan};
                let plan = CudaSpgemmPlan::new(Gpu::get()?, a, b)?;
                let c = plan.download()?;
                PlanEngine::Cuda(Box::new(plan), c)
            }
            _ => PlanEngine::Cpu(cpu::spgemm::CpuSpgemmPlan::new(a, b)),
        };
        Ok(SpgemmPlan { engine })
    }

    /// C for new values of A and B (each in its CSR order, the plan's
    /// pattern); a slice of another length than its operand's entries, or
    /// a value outside `S`'s domain, is an [`Error::Invalid`](crate::Error)
    /// naming it.
    pub fn numeric(
        &mut self,
        a_values: &[S::Value],
        b_values: &[S::Value],
    ) -> Result<&Csr<S::Value>> {
        domain::check_vector::<S>("A's new values", a_values, 0)?;
        domain::check_vector::<S>("B's new values", b_values, 0)?;
        match &mut self.engine {
            PlanEngine::Cpu(plan) => plan.numeric(a_values, b_values),
            #[cfg(feature = "gpu")]
            PlanEngine::Cuda(plan, c) => {
                plan.set_values(a_values, b_values)?;
                plan.numeric()?;
                plan.download_values(c.values_mut())?;
                Ok(c)
            }
        }
    }

    /// C as last computed.
    pub fn product(&self) -> &Csr<S::Value> {
        match &self.engine {
            PlanEngine::Cpu(plan) => plan.product(),
            #[cfg(feature = "gpu")]
            PlanEngine::Cuda(_, c) => c,
        }
    }
}

/// Products (multiply-add pairs) that C = A·B computes: Σᵢ Σ_{k∈A(i,:)} |B(k,:)|.
/// Twice this is the usual flop count.
///
/// # Panics
/// When `a.ncols() != b.nrows()`, with the message of the
/// [`Error::Mismatch`](crate::Error) that [`spgemm`] returns (a count is
/// not fallible; check with `spgemm` or the shapes first).
#[track_caller]
pub fn spgemm_products<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> usize {
    crate::engine::shared::spgemm::check_shapes(a, b);
    a.col_idx().iter().map(|&k| b.row_len(k as usize)).sum()
}

/// y = A ⊗ x over `S` on `engine`, for any format; an `x` of another
/// length than A's columns is [`Error::Mismatch`](crate::Error).
///
/// ```
/// use spmx::{Csr, Engine, PlusTimes, format::Ell, ops};
/// let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0])?;
/// let ell = Ell::from_csr(&a)?;
/// assert_eq!(ops::spmv::<PlusTimes<f64>>(&ell, &[1.0, 1.0], Engine::Cpu)?, vec![3.0, 3.0]);
/// let e = ops::spmv::<PlusTimes<f64>>(&ell, &[1.0], Engine::Cpu).unwrap_err();
/// assert_eq!(e.to_string(), "spmv: A.ncols() != x.len() (2×2 times a vector of 1)");
/// # Ok::<(), spmx::Error>(())
/// ```
pub fn spmv<S: Semiring>(
    a: &impl SpmvFormat<S::Value>,
    x: &[S::Value],
    engine: Engine,
) -> Result<Vec<S::Value>>
where
    S::Value: Scalar,
{
    x_len_agrees(a.shape(), x.len())?;
    domain::check_vector::<S>("x", x, 0)?;
    domain::check_spmv_operand::<S>(a, x.len())?;
    dispatch::spmv::<S>(a, x, engine.resolve_for::<S>(Op::Spmv)?)
}

/// The cuda engine's kernels, to choose one by name (the command line's
/// `--kernel`); `Auto` is the engine's own choice, what [`spmv`] and
/// [`spmm`] run.
#[cfg(feature = "gpu")]
pub use crate::engine::cuda::{SpmmKernel, SpmvKernel};

/// A product on the cuda engine with a kernel chosen: the result, the
/// kernel that ran (with its shape), the time to plan it (A uploaded, and
/// converted to the kernel's format) and to multiply (operands uploaded,
/// the kernel, the result downloaded).
#[cfg(feature = "gpu")]
pub struct KernelRun<R> {
    /// The product.
    pub result: R,
    /// The kernel that ran, with its shape.
    pub kernel: String,
    /// A uploaded and converted to the kernel's format.
    pub plan: std::time::Duration,
    /// Operands uploaded, the kernel, the result downloaded.
    pub multiply: std::time::Duration,
}

/// Plans with `plan`, then runs with `run`, timing each: a [`KernelRun`].
#[cfg(feature = "gpu")]
fn kernel_run<P, R>(
    plan: impl FnOnce() -> Result<P>,
    run: impl FnOnce(&mut P) -> Result<R>,
    label: impl FnOnce(&P) -> String,
) -> Result<KernelRun<R>> {
    let t = std::time::Instant::now();
    let mut p = plan()?;
    let planned = t.elapsed();
    let t = std::time::Instant::now();
    let result = run(&mut p)?;
    Ok(KernelRun {
        result,
        kernel: label(&p),
        plan: planned,
        multiply: t.elapsed(),
    })
}

/// y = A ⊗ x over `S` on the cuda engine with `kernel`; shapes checked
/// as [`spmv`] does.
#[cfg(feature = "gpu")]
pub fn spmv_kernel<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    kernel: SpmvKernel,
) -> Result<KernelRun<Vec<S::Value>>>
where
    S::Value: Scalar,
{
    use crate::engine::cuda::{Gpu, SpmvPlan, spmv};
    x_len_agrees(a.shape(), x.len())?;
    domain::check_csr::<S>("A", a)?;
    domain::check_vector::<S>("x", x, 0)?;
    kernel_run(
        || SpmvPlan::new::<S>(Gpu::get()?, a, kernel),
        |plan| spmv::run_once::<S>(plan, x),
        |plan| plan.label(),
    )
}

/// C = A ⊗ B over `S` on the cuda engine with `kernel`: B and C
/// row-major; shapes checked as [`spmm`] does.
#[cfg(feature = "gpu")]
pub fn spmm_kernel<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    kernel: SpmmKernel,
) -> Result<KernelRun<Dense<S::Value>>>
where
    S::Value: Scalar,
{
    use crate::engine::cuda::{DenseLayout, Gpu, SpmmPlan, spmm};
    spmm_shapes_agree(a, b)?;
    domain::check_spmm_operands::<S>(a, b)?;
    kernel_run(
        || SpmmPlan::new::<S>(Gpu::get()?, a, b.ncols(), DenseLayout::RowMajor, kernel),
        |plan| spmm::run_once::<S>(plan, b),
        |plan| plan.label(),
    )
}

/// C = A ⊗ B over `S` on `engine`: A sparse (CSR), B and C dense. A's
/// columns other than B's rows are [`Error::Mismatch`](crate::Error); a C
/// too large to allocate is [`Error::TooLarge`](crate::Error).
pub fn spmm<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    engine: Engine,
) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    spmm_shapes_agree(a, b)?;
    domain::check_spmm_operands::<S>(a, b)?;
    dispatch::spmm::<S>(a, b, engine.resolve_for::<S>(Op::Spmm)?)
}

/// The `spmv` and `spmv_with` methods of each format.
macro_rules! spmv_methods {
    ($($format:ident)*) => {$(
        impl<T: DefaultSemiring> $format<T> {
            /// `self · x` in `T`'s default semiring on the best engine here
            /// ([`spmv`]).
            pub fn spmv(&self, x: &[T]) -> Result<Vec<T>> {
                spmv::<T::Semiring>(self, x, Engine::Auto)
            }
        }

        impl<T: Scalar> $format<T> {
            /// `self ⊗ x` over semiring `S` on `engine` ([`spmv`]).
            pub fn spmv_with<S: Semiring<Value = T>>(&self, x: &[T], engine: Engine) -> Result<Vec<T>> {
                spmv::<S>(self, x, engine)
            }
        }
    )*};
}

spmv_methods!(Coo Csr Csc Ell Hyb Sell Bsr Dense);

/// C = A ⊕ B over `S` on `engine`: the union of the patterns, entries in
/// both combined with `S::add`. Shapes that differ are
/// [`Error::Mismatch`](crate::Error).
pub fn ewise_add<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    ewise::same_shape(a, b)?;
    domain::check_operands::<S>(a, b)?;
    Ok(dispatch::ewise_add::<S>(
        a,
        b,
        engine.resolve_for::<S>(Op::EwiseAdd)?,
    ))
}

/// Aᵀ on `engine`.
pub fn transpose<T: Scalar>(a: &Csr<T>, engine: Engine) -> Result<Csr<T>> {
    dispatch::transpose(a, engine.resolve(Op::Transpose)?)
}

impl<T: DefaultSemiring> Csr<T> {
    /// `self · b` in `T`'s default semiring on the best engine here
    /// ([`spgemm`]; the operator `&a * &b` panics instead of an error).
    pub fn spgemm(&self, b: &Csr<T>) -> Result<Csr<T>> {
        spgemm::<T::Semiring>(self, b, Engine::Auto)
    }
    /// `self · b` (B dense) in `T`'s default semiring on the best engine
    /// here ([`spmm`]; the operator `&a * &b` panics instead of an error).
    pub fn spmm(&self, b: &Dense<T>) -> Result<Dense<T>> {
        spmm::<T::Semiring>(self, b, Engine::Auto)
    }
}

impl<T: Scalar> Csr<T> {
    /// `self ⊗ b` over semiring `S` on `engine` ([`spgemm`]).
    pub fn spgemm_with<S: Semiring<Value = T>>(
        &self,
        b: &Csr<T>,
        engine: Engine,
    ) -> Result<Csr<T>> {
        spgemm::<S>(self, b, engine)
    }
    /// `self ⊗ b` (B dense) over semiring `S` on `engine` ([`spmm`]).
    pub fn spmm_with<S: Semiring<Value = T>>(
        &self,
        b: &Dense<T>,
        engine: Engine,
    ) -> Result<Dense<T>> {
        spmm::<S>(self, b, engine)
    }
    /// `self ⊕ b` (pattern union, overlaps combined with `S::add`) over
    /// semiring `S` on `engine` ([`ewise_add`]).
    pub fn ewise_add_with<S: Semiring<Value = T>>(
        &self,
        b: &Csr<T>,
        engine: Engine,
    ) -> Result<Csr<T>> {
        ewise_add::<S>(self, b, engine)
    }
}
