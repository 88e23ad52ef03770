//! Element types a stored matrix may hold: `f32`, `f64` and `bool`.
//!
//! [`Scalar`] is what formats, conversions and MatrixMarket I/O need of a
//! value. Semiring arithmetic lives in `gpu_kernels::Semiring`; the only
//! arithmetic here is [`Scalar::sum_duplicates`], the rule COO → CSR uses for
//! repeated coordinates (numeric `+`, logical `or` for `bool`).

use std::fmt::Debug;

/// A value type stored in a sparse or dense matrix.
pub trait Scalar: Copy + PartialEq + Debug + Default + Send + Sync + 'static {
    /// The numeric zero (`false` for `bool`): what an absent entry reads as
    /// when a sparse matrix is made dense.
    const ZERO: Self;
    /// Converts from `f64` (rounding for `f32`; `!= 0` for `bool`).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64` exactly (`bool` gives 0 or 1).
    fn to_f64(self) -> f64;
    /// Combines two entries with the same coordinates.
    fn sum_duplicates(a: Self, b: Self) -> Self;
}

impl Scalar for f64 {
    const ZERO: Self = 0.0;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn sum_duplicates(a: Self, b: Self) -> Self {
        a + b
    }
}

impl Scalar for f32 {
    const ZERO: Self = 0.0;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn sum_duplicates(a: Self, b: Self) -> Self {
        a + b
    }
}

impl Scalar for bool {
    const ZERO: Self = false;
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn to_f64(self) -> f64 {
        if self { 1.0 } else { 0.0 }
    }
    fn sum_duplicates(a: Self, b: Self) -> Self {
        a | b
    }
}
