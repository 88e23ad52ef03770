//! Element types a stored matrix may hold: `f32`, `f64`, `bool`, and the
//! integers `i32`, `i64`, `u32`, `u64` (in [`integer`], which also gives
//! their [`DefaultSemiring`](crate::DefaultSemiring), plus-times).
//!
//! [`Scalar`] is what formats, conversions and MatrixMarket I/O need of a
//! value. Semiring arithmetic lives in `gpu_kernels::Semiring`; the only
//! arithmetic here is [`Scalar::sum_duplicates`], the rule COO → CSR uses for
//! repeated coordinates (numeric `+`, wrapping for the integers, logical
//! `or` for `bool`), and [`Scalar::negated`], skew-symmetric storage's.
//!
//! Text: [`Scalar::parse_real`], [`Scalar::parse_integer`],
//! [`Scalar::write_real`] and [`Scalar::write_integer`] are the MatrixMarket
//! reader's and writer's view of a value. A float parses with a single
//! rounding straight to itself (an `f32` never goes through `f64`, which
//! could round twice) and prints the shortest text that parses back to the
//! same bits (NaN prints as `NaN`, without sign or payload); an integer
//! written as text must be exact in `f64` to be read as a float. An integer
//! type reads and prints its values exactly, never through `f64`.

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
// The integer types' impls are in `integer`, with their `Scalar` impls.

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

pub mod integer;
pub use integer::IntegerTextError;

/// A value type stored in a sparse or dense matrix.
pub trait Scalar:
    DeviceCopy + MpiValue + Copy + PartialEq + Debug + Default + Send + Sync + 'static
{
    /// The numeric zero (`false` for `bool`): what an absent entry reads as
    /// when a sparse matrix is made dense.
    const ZERO: Self;
    /// True for the integer types: MatrixMarket values are read as exact
    /// integers, a `real` file only where its values are written as
    /// integers (see [`Scalar::parse_real`]).
    const INTEGER: bool = false;
    /// Converts from `f64`: rounding for `f32`; `!= 0` for `bool`; for
    /// the integers lossy, as Rust's `as` (toward zero, saturating at the
    /// type's range, NaN to 0).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64`: exactly for the floats and `bool` (0 or 1) and
    /// for integers of magnitude up to 2⁵³; beyond that `i64` and `u64`
    /// round to the nearest `f64`.
    fn to_f64(self) -> f64;
    /// The value's bits, widened to 64: equal exactly when the values are
    /// the same bits (`-0.0` differs from `0.0`, a NaN equals itself).
    fn to_bits(self) -> u64;
    /// Combines two entries with the same coordinates.
    fn sum_duplicates(a: Self, b: Self) -> Self;
    /// `-self`, the mirror of an entry in skew-symmetric storage; `None`
    /// where the type has no such value (a nonzero unsigned integer, a
    /// signed integer's `MIN`). `bool` is its own negation.
    fn negated(self) -> Option<Self>;

    /// Parses a decimal real (`1`, `-2.5e-3`, `.5`, `inf`, `nan`, …); the
    /// whole of `text` must be the number. `None` if it is not one. An
    /// integer type reads only integer text here, as
    /// [`Scalar::parse_integer`] does (`3`, not `3.0` or `3e0`).
    fn parse_real(text: &[u8]) -> Option<Self> {
        fast_float2::parse::<f64, _>(text).ok().map(Self::from_f64)
    }
    /// Appends the shortest decimal text that [`Scalar::parse_real`] reads
    /// back as exactly `self`.
    fn write_real(self, out: &mut Vec<u8>) {
        write_shortest(ryu::Buffer::new().format(self.to_f64()), out);
    }
    /// Parses a decimal integer (optional sign, digits; leading zeros
    /// allowed) to exactly the value it writes: never rounded, an error
    /// if the type cannot hold it (a float past 53 significant bits, an
    /// integer type out of its range; `f32` rounds once, from that exact
    /// `f64`).
    fn parse_integer(text: &[u8]) -> Result<Self, IntegerTextError> {
        integer::parse_exact_f64(text).map(Self::from_f64)
    }
    /// Appends `self` as a decimal integer; `false`, appending nothing,
    /// if it is not one (a fraction, ±∞, NaN).
    fn write_integer(self, out: &mut Vec<u8>) -> bool {
        integer::write_integral_f64(self.to_f64(), out)
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
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    fn sum_duplicates(a: Self, b: Self) -> Self {
        a + b
    }
    fn negated(self) -> Option<Self> {
        Some(-self)
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
    fn to_bits(self) -> u64 {
        u64::from(f32::to_bits(self))
    }
    fn sum_duplicates(a: Self, b: Self) -> Self {
        a + b
    }
    fn negated(self) -> Option<Self> {
        Some(-self)
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
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
    fn sum_duplicates(a: Self, b: Self) -> Self {
        a | b
    }
    fn negated(self) -> Option<Self> {
        Some(self)
    }
    fn write_real(self, out: &mut Vec<u8>) {
        out.push(if self { b'1' } else { b'0' });
    }
}
