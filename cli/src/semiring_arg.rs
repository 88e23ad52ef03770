//! `--semiring NAME`: maps the name (the semiring's `NAME`) to a semiring
//! type and runs generic code with it. Numeric semirings compute in `f64`;
//! or-and computes on `bool`, a stored value being true when it is nonzero,
//! and writes its result as 0/1 integers (a false entry of an SpGEMM
//! result is kept and written as 0, see `spmx::OrAnd`).

use clap::ValueEnum;
use clap::builder::PossibleValue;
use spmx::io::Field;
use spmx::{Csr, Scalar};

/// The semirings of [`spmx::for_each_semiring!`], one variant each.
macro_rules! semiring_arg {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum SemiringArg {
            $($name),*
        }

        impl SemiringArg {
            const ALL: &[SemiringArg] = &[$(SemiringArg::$name),*];
        }
    };
}
spmx::for_each_semiring!(semiring_arg! {});

impl SemiringArg {
    /// Whether the semiring computes on floating-point values (the CLI's
    /// `f64`), as every one but or-and does.
    pub fn on_floats(self) -> bool {
        with_semiring!(self, |S| {
            std::any::TypeId::of::<<S as spmx::Semiring>::Value>() == std::any::TypeId::of::<f64>()
        })
    }

    /// The MatrixMarket field a result in this semiring is written with:
    /// or-and as 0/1 integers, so that a false entry stays false.
    pub fn output_field(self) -> Field {
        match self {
            SemiringArg::OrAnd => Field::Integer,
            _ => Field::Real,
        }
    }
}

/// How the CLI's `f64` matrices become a semiring's values: numeric
/// semirings use them as they are (no copy); or-and takes a nonzero value
/// as true and zero as false, keeping the pattern's arrays (only the
/// values are made anew, and a matrix whose new values do not fit is an
/// error). Results are written in the semiring's own values (or-and's as
/// 0/1 integers).
pub trait CliValue: spmx::Scalar {
    fn from_input(m: Csr<f64>) -> spmx::Result<Csr<Self>>;
}

impl CliValue for f64 {
    fn from_input(m: Csr<f64>) -> spmx::Result<Csr<f64>> {
        Ok(m)
    }
}

impl CliValue for bool {
    fn from_input(m: Csr<f64>) -> spmx::Result<Csr<bool>> {
        m.try_map_values(bool::from_f64)
    }
}

/// Runs `$body` with `$S` bound to the semiring type named by `$arg`: its
/// `f64` instance, or its only one (or-and's `bool`).
macro_rules! with_semiring {
    ($arg:expr, |$S:ident| $body:expr) => {
        spmx::for_each_semiring!(with_semiring! { @rows $arg, $S, $body; })
    };
    (@rows $arg:expr, $S:ident, $body:expr;
     $($name:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {{
        use $crate::semiring_arg::SemiringArg as A;
        match $arg {
            $(A::$name => {
                type $S = $crate::semiring_arg::cli_instance!($($t => $T),+);
                $body
            })*
        }
    }};
}
pub(crate) use with_semiring;

/// The instance the command line computes in: `f64`, else the only one.
macro_rules! cli_instance {
    (f64 => $T:ty $(, $($rest:tt)*)?) => { $T };
    ($t:ident => $T:ty) => { $T };
    ($t:ident => $T:ty, $($rest:tt)*) => { $crate::semiring_arg::cli_instance!($($rest)*) };
}
pub(crate) use cli_instance;

/// The names on the command line are the semirings' own `NAME`s.
impl ValueEnum for SemiringArg {
    fn value_variants<'a>() -> &'a [Self] {
        SemiringArg::ALL
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        use spmx::Semiring;
        Some(PossibleValue::new(with_semiring!(*self, |S| S::NAME)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_and_max_min_is_there() {
        for &arg in SemiringArg::value_variants() {
            let name = arg.to_possible_value().unwrap().get_name().to_string();
            assert_eq!(SemiringArg::from_str(&name, false), Ok(arg), "{name}");
        }
        assert_eq!(
            SemiringArg::from_str("max-min", false),
            Ok(SemiringArg::MaxMin)
        );
    }

    #[test]
    fn or_and_takes_stored_zero_as_false() {
        let m = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 1], vec![0.0, 2.5]).unwrap();
        let b = bool::from_input(m).unwrap();
        assert_eq!(b.values(), &[false, true]);
    }
}
