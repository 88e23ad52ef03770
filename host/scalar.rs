//! Element types a stored matrix may hold: `f32`, `f64` and `bool`.
//!
//! [`Scalar`] is what formats, conversions and MatrixMarket I/O need of a
//! value. Semiring arithmetic lives in `gpu_kernels::Semiring`; the only
//! arithmetic here is [`Scalar::sum_duplicates`], the rule COO → CSR uses for
//! repeated coordinates (numeric `+`, logical `or` for `bool`).
//!
//! Text: [`Scalar::parse_real`] and [`Scalar::write_real`] are the
//! MatrixMarket reader's and writer's view of a real value. Each type parses
//! with a single rounding straight to itself (an `f32` never goes through
//! `f64`, which could round twice) and prints the shortest text that parses
//! back to the same bits (NaN prints as `NaN`, without sign or payload).

use std::fmt::Debug;

/// What the GPU engine needs of a value: it can be copied to the device as
/// it is, and all-zero bytes are a valid value. Nothing without feature `gpu`.
#[cfg(feature = "gpu")]
pub trait DeviceCopy: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {}
/// What the GPU engine needs of a value (nothing without feature `gpu`).
#[cfg(not(feature = "gpu"))]
pub trait DeviceCopy {}
impl DeviceCopy for f64 {}
impl DeviceCopy for f32 {}
impl DeviceCopy for bool {}

/// What the MPI engine needs of a value: an MPI datatype of the same bytes.
/// Nothing without feature `mpi`.
#[cfg(feature = "mpi")]
pub trait MpiValue: mpi::datatype::Equivalence {}
/// What the MPI engine needs of a value (nothing without feature `mpi`).
#[cfg(not(feature = "mpi"))]
pub trait MpiValue {}
impl MpiValue for f64 {}
impl MpiValue for f32 {}
impl MpiValue for bool {}

/// A value type stored in a sparse or dense matrix.
pub trait Scalar:
    DeviceCopy + MpiValue + Copy + PartialEq + Debug + Default + Send + Sync + 'static
{
    /// The numeric zero (`false` for `bool`): what an absent entry reads as
    /// when a sparse matrix is made dense.
    const ZERO: Self;
    /// Converts from `f64` (rounding for `f32`; `!= 0` for `bool`).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64` exactly (`bool` gives 0 or 1).
    fn to_f64(self) -> f64;
    /// Combines two entries with the same coordinates.
    fn sum_duplicates(a: Self, b: Self) -> Self;

    /// Parses a decimal real (`1`, `-2.5e-3`, `.5`, `inf`, `nan`, …); the
    /// whole of `text` must be the number. `None` if it is not one.
    fn parse_real(text: &[u8]) -> Option<Self> {
        fast_float2::parse::<f64, _>(text).ok().map(Self::from_f64)
    }
    /// Appends the shortest decimal text that [`Scalar::parse_real`] reads
    /// back as exactly `self`.
    fn write_real(self, out: &mut Vec<u8>) {
        write_shortest(ryu::Buffer::new().format(self.to_f64()), out);
    }
}

/// Appends ryu's shortest form, without the `.0` it gives integral values
/// (`3` rather than `3.0`: shorter, and what other MatrixMarket writers print).
fn write_shortest(text: &str, out: &mut Vec<u8>) {
    let text = text.strip_suffix(".0").unwrap_or(text);
    out.extend_from_slice(text.as_bytes());
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
    fn parse_real(text: &[u8]) -> Option<Self> {
        fast_float2::parse::<f32, _>(text).ok()
    }
    fn write_real(self, out: &mut Vec<u8>) {
        write_shortest(ryu::Buffer::new().format(self), out);
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
    fn write_real(self, out: &mut Vec<u8>) {
        out.push(if self { b'1' } else { b'0' });
    }
}
