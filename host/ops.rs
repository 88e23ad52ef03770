//! One entry point per operation, dispatching on the [`Engine`].
//!
//! The simple surface is a method on the matrix: `a.spgemm(&b)` multiplies
//! in the value type's default semiring (plus-times for numbers, or-and for
//! `bool`) on the best engine here. The expert layer names both:
//! `a.spgemm_with::<MinPlus<f64>>(&b, Engine::Cpu)`.
//!
//! Which (operation, format, engine) pairs exist:
//!
//! | operation            | format | serial | cpu |
//! |----------------------|--------|--------|-----|
//! | SpMV  `y = A ⊗ x`    | CSR    | ✓      | ✓   |
//! | SpGEMM `C = A ⊗ B`   | CSR    | ✓      | ✓   |
//! | element-wise `A ⊕ B` | CSR    | ✓      | —   |
//! | transpose            | CSR    | ✓      | —   |
//!
//! Shape mismatches are broken contracts and panic with the two shapes;
//! an engine that cannot run here is an [`Error::Unavailable`](crate::Error).

use crate::engine::{Engine, cpu, serial};
use crate::error::Result;
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::{OrAnd, PlusTimes, Semiring};

/// The semiring an element type multiplies in by default.
pub trait DefaultSemiring: Scalar {
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

/// C = A ⊗ B over `S` on `engine`.
#[track_caller]
pub fn spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, engine: Engine) -> Result<Csr<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine.resolve()? {
        Engine::Serial => serial::spgemm::<S>(a, b),
        _ => cpu::spgemm::<S>(a, b),
    })
}

/// Products (multiply-add pairs) that C = A·B computes: Σᵢ Σ_{k∈A(i,:)} |B(k,:)|.
/// Twice this is the usual flop count.
#[track_caller]
pub fn spgemm_products<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> usize {
    serial::spgemm::check_shapes(a, b);
    a.col_idx().iter().map(|&k| b.row_len(k as usize)).sum()
}

/// y = A ⊗ x over `S` on `engine`.
#[track_caller]
pub fn spmv<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value], engine: Engine) -> Result<Vec<S::Value>>
where
    S::Value: Scalar,
{
    Ok(match engine.resolve()? {
        Engine::Serial => serial::spmv::spmv_csr::<S>(a, x),
        _ => cpu::spmv::spmv_csr::<S>(a, x),
    })
}

impl<T: DefaultSemiring> Csr<T> {
    /// `self · b` in `T`'s default semiring on the best engine here.
    #[track_caller]
    pub fn spgemm(&self, b: &Csr<T>) -> Result<Csr<T>> {
        spgemm::<T::Semiring>(self, b, Engine::Auto)
    }
    /// `self · x` in `T`'s default semiring on the best engine here.
    #[track_caller]
    pub fn spmv(&self, x: &[T]) -> Result<Vec<T>> {
        spmv::<T::Semiring>(self, x, Engine::Auto)
    }
}

impl<T: Scalar> Csr<T> {
    /// `self ⊗ b` over semiring `S` on `engine`.
    #[track_caller]
    pub fn spgemm_with<S: Semiring<Value = T>>(&self, b: &Csr<T>, engine: Engine) -> Result<Csr<T>> {
        spgemm::<S>(self, b, engine)
    }
    /// `self ⊗ x` over semiring `S` on `engine`.
    #[track_caller]
    pub fn spmv_with<S: Semiring<Value = T>>(&self, x: &[T], engine: Engine) -> Result<Vec<T>> {
        spmv::<S>(self, x, engine)
    }
    /// `self ⊕ b` (pattern union, overlaps combined with `S::add`).
    #[track_caller]
    pub fn ewise_add<S: Semiring<Value = T>>(&self, b: &Csr<T>) -> Csr<T> {
        serial::ewise::ewise_add::<S>(self, b)
    }
}
