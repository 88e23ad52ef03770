//! `--semiring NAME`: maps the name to a semiring type and runs generic
//! code with it. Numeric semirings compute in `f64`; or-and computes on the
//! pattern (every stored entry is `true`) and writes a pattern matrix.

use clap::ValueEnum;
use spmx::Csr;
use spmx::io::Field;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SemiringArg {
    PlusTimes,
    MinPlus,
    MaxPlus,
    OrAnd,
    MaxTimes,
    MinMax,
}

impl SemiringArg {
    /// The MatrixMarket field a result in this semiring is written with.
    pub fn output_field(self) -> Field {
        match self {
            SemiringArg::OrAnd => Field::Pattern,
            _ => Field::Real,
        }
    }
}

/// How the CLI's `f64` matrices become a semiring's values and back:
/// numeric semirings use them as they are (no copy); or-and takes the
/// pattern (every stored entry is `true`) and gives 1.0 for each entry.
pub trait CliValue: spmx::Scalar {
    fn from_input(m: Csr<f64>) -> Csr<Self>;
    fn into_output(m: Csr<Self>) -> Csr<f64>;
}

impl CliValue for f64 {
    fn from_input(m: Csr<f64>) -> Csr<f64> {
        m
    }
    fn into_output(m: Csr<f64>) -> Csr<f64> {
        m
    }
}

impl CliValue for bool {
    fn from_input(m: Csr<f64>) -> Csr<bool> {
        m.map(|_| true)
    }
    fn into_output(m: Csr<bool>) -> Csr<f64> {
        m.map(|v| if v { 1.0 } else { 0.0 })
    }
}

/// Runs `$body` with `$S` bound to the semiring type named by `$arg`.
macro_rules! with_semiring {
    ($arg:expr, |$S:ident| $body:expr) => {{
        use spmx::{MaxPlus, MaxTimes, MinMax, MinPlus, OrAnd, PlusTimes};
        use $crate::cli::semiring_arg::SemiringArg as A;
        match $arg {
            A::PlusTimes => {
                type $S = PlusTimes<f64>;
                $body
            }
            A::MinPlus => {
                type $S = MinPlus<f64>;
                $body
            }
            A::MaxPlus => {
                type $S = MaxPlus<f64>;
                $body
            }
            A::OrAnd => {
                type $S = OrAnd;
                $body
            }
            A::MaxTimes => {
                type $S = MaxTimes<f64>;
                $body
            }
            A::MinMax => {
                type $S = MinMax<f64>;
                $body
            }
        }
    }};
}
pub(crate) use with_semiring;
