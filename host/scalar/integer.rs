//! The integer value types `i32`, `i64`, `u32` and `u64`: their [`Scalar`],
//! [`DeviceCopy`], [`MpiValue`] and [`DefaultSemiring`] (plus-times) impls,
//! and MatrixMarket integer text, exact for every type: an integer type
//! reads and prints its own values without a trip through `f64` (which
//! holds integers exactly only up to 2⁵³), and a float reads an integer
//! only where `f64` holds it exactly.
//!
//! Their arithmetic wraps, as the integer semirings' does (see
//! `gpu_kernels::semiring`): duplicates sum with `wrapping_add`.

use super::{DeviceCopy, MpiValue, Scalar};
use crate::ops::DefaultSemiring;
use gpu_kernels::PlusTimes;

/// Why MatrixMarket integer text could not be read as a value type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerTextError {
    /// Not an optional sign followed by decimal digits.
    NotInteger,
    /// An integer a floating-point type cannot hold exactly (more than 53
    /// significant bits): refused rather than rounded.
    Inexact,
    /// An integer outside the integer type's range `min..=max`.
    OutOfRange {
        /// The type's smallest value.
        min: i128,
        /// The type's largest value.
        max: i128,
    },
}

/// The sign and the digits of integer text, leading zeros dropped; `None`
/// if `text` is not an optional `+` or `-` followed by decimal digits.
fn sign_and_digits(text: &[u8]) -> Option<(bool, &[u8])> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((
        negative,
        &digits[digits.iter().take_while(|&&d| d == b'0').count()..],
    ))
}

/// Decimal digits as a number, `None` past `u64`.
fn magnitude(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |v, &d| {
        v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// Integer text as the `f64` it equals, or [`IntegerTextError::Inexact`]
/// when no `f64` does.
pub(super) fn parse_exact_f64(text: &[u8]) -> Result<f64, IntegerTextError> {
    let (negative, significant) = sign_and_digits(text).ok_or(IntegerTextError::NotInteger)?;
    let magnitude = if significant.len() <= 19 {
        // Below 10¹⁹ < 2⁶⁴, so the round trip through u64 cannot saturate;
        // past 2⁵³ only some values are exact.
        let v = magnitude(significant).unwrap_or(0);
        let f = v as f64;
        (f as u64 == v).then_some(f)
    } else {
        // Longer than any u64 below 10¹⁹: exact only if the nearest f64
        // prints back as the same digits.
        fast_float2::parse::<f64, _>(significant)
            .ok()
            .filter(|f| f.is_finite() && format!("{f:.0}").as_bytes() == significant)
    };
    match magnitude {
        Some(m) if negative => Ok(-m),
        Some(m) => Ok(m),
        None => Err(IntegerTextError::Inexact),
    }
}

/// Appends `v` as a decimal integer; `false`, appending nothing, if it is
/// not one.
pub(super) fn write_integral_f64(v: f64, out: &mut Vec<u8>) -> bool {
    if !v.is_finite() || v.trunc() != v {
        return false;
    }
    if v.abs() < 9.2e18 {
        out.extend_from_slice(itoa::Buffer::new().format(v as i64).as_bytes());
    } else {
        // Exact: every f64 this large is an integer and prints in full.
        out.extend_from_slice(format!("{v:.0}").as_bytes());
    }
    true
}

/// Integer text as an `i128` (which holds every `i64` and `u64`), for a
/// type of range `min..=max`.
fn parse_exact_in(text: &[u8], min: i128, max: i128) -> Result<i128, IntegerTextError> {
    let (negative, digits) = sign_and_digits(text).ok_or(IntegerTextError::NotInteger)?;
    let out_of_range = IntegerTextError::OutOfRange { min, max };
    let m = i128::from(magnitude(digits).ok_or(out_of_range)?);
    let v = if negative { -m } else { m };
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(out_of_range)
    }
}

macro_rules! integer_scalar {
    ($($t:ident),*) => {$(
        impl DeviceCopy for $t {}
        impl MpiValue for $t {}

        impl Scalar for $t {
            const ZERO: Self = 0;
            const INTEGER: bool = true;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn to_bits(self) -> u64 {
                self as u64
            }
            fn sum_duplicates(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn negated(self) -> Option<Self> {
                self.checked_neg()
            }
            fn parse_real(text: &[u8]) -> Option<Self> {
                Self::parse_integer(text).ok()
            }
            fn write_real(self, out: &mut Vec<u8>) {
                out.extend_from_slice(itoa::Buffer::new().format(self).as_bytes());
            }
            fn parse_integer(text: &[u8]) -> Result<Self, IntegerTextError> {
                // In range, so the cast is exact.
                parse_exact_in(text, i128::from($t::MIN), i128::from($t::MAX)).map(|v| v as $t)
            }
            fn write_integer(self, out: &mut Vec<u8>) -> bool {
                self.write_real(out);
                true
            }
        }

        impl DefaultSemiring for $t {
            type Semiring = PlusTimes<$t>;
        }
    )*};
}
integer_scalar!(i32, i64, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_integers_exactly_or_refuse() {
        assert_eq!(parse_exact_f64(b"-17"), Ok(-17.0));
        assert_eq!(
            parse_exact_f64(b"+0009007199254740992"),
            Ok(9007199254740992.0)
        );
        assert_eq!(
            parse_exact_f64(b"9007199254740993"),
            Err(IntegerTextError::Inexact)
        );
        assert_eq!(parse_exact_f64(b"1152921504606846976"), Ok(2f64.powi(60)));
        assert_eq!(parse_exact_f64(b"18446744073709551616"), Ok(2f64.powi(64)));
        assert!(parse_exact_f64(b"18446744073709551617").is_err());
        assert_eq!(parse_exact_f64(b"1.0"), Err(IntegerTextError::NotInteger));
        assert_eq!(parse_exact_f64(b"-"), Err(IntegerTextError::NotInteger));
    }

    #[test]
    fn floats_print_integers_in_full_or_refuse() {
        let text = |v: f64| {
            let mut out = Vec::new();
            write_integral_f64(v, &mut out).then(|| String::from_utf8(out).unwrap())
        };
        assert_eq!(text(-42.0).as_deref(), Some("-42"));
        assert_eq!(text(-0.0).as_deref(), Some("0"));
        assert_eq!(text(1e20).as_deref(), Some("100000000000000000000"));
        assert_eq!(text(2.5), None);
        assert_eq!(text(f64::INFINITY), None);
    }

    #[test]
    fn integers_read_exactly_within_their_range() {
        assert_eq!(
            i64::parse_integer(b"9007199254740993"),
            Ok(9007199254740993)
        );
        assert_eq!(i64::parse_integer(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(u64::parse_integer(b"+018446744073709551615"), Ok(u64::MAX));
        assert_eq!(u32::parse_integer(b"-0"), Ok(0));
        let range = |min: i128, max: i128| IntegerTextError::OutOfRange { min, max };
        let (i32_range, u32_range) = (range(-(1 << 31), (1 << 31) - 1), range(0, u32::MAX.into()));
        assert_eq!(i32::parse_integer(b"2147483648"), Err(i32_range));
        assert_eq!(u32::parse_integer(b"-1"), Err(u32_range));
        let long = u64::parse_integer(b"99999999999999999999999");
        assert_eq!(long, Err(range(0, u64::MAX.into())));
        assert_eq!(
            i64::parse_integer(b"2.0"),
            Err(IntegerTextError::NotInteger)
        );
        assert_eq!(u64::parse_real(b"1e3"), None);
        assert_eq!(i32::parse_real(b"-12"), Some(-12));
    }

    #[test]
    fn integers_print_exactly_and_negate_where_they_can() {
        let mut out = Vec::new();
        assert!(i64::MIN.write_integer(&mut out));
        out.push(b' ');
        u64::MAX.write_real(&mut out);
        assert_eq!(out, b"-9223372036854775808 18446744073709551615");
        assert_eq!((7i32.negated(), i32::MIN.negated()), (Some(-7), None));
        assert_eq!((0u64.negated(), 3u32.negated()), (Some(0), None));
        assert_eq!(u64::sum_duplicates(u64::MAX, 2), 1);
        assert_ne!((1i64 << 53).to_bits(), ((1i64 << 53) + 1).to_bits());
    }
}
