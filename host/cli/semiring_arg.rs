//! `--semiring NAME`: maps the name to a semiring type and runs generic
//! code with it. Numeric semirings compute in `f64`; or-and computes on the
//! pattern (every stored entry is `true`) and writes a pattern matrix.

use clap::ValueEnum;
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

/// Runs `$body` with `$S` bound to the semiring type named by `$arg` and
/// `$conv` to the function that turns an `f64` input value into `$S::Value`.
macro_rules! with_semiring {
    ($arg:expr, |$S:ident, $conv:ident| $body:expr) => {{
        use spmx::{MaxPlus, MaxTimes, MinMax, MinPlus, OrAnd, PlusTimes};
        use $crate::cli::semiring_arg::SemiringArg as A;
        fn numeric(v: f64) -> f64 {
            v
        }
        fn pattern(_: f64) -> bool {
            true
        }
        match $arg {
            A::PlusTimes => {
                type $S = PlusTimes<f64>;
                let $conv = numeric;
                $body
            }
            A::MinPlus => {
                type $S = MinPlus<f64>;
                let $conv = numeric;
                $body
            }
            A::MaxPlus => {
                type $S = MaxPlus<f64>;
                let $conv = numeric;
                $body
            }
            A::OrAnd => {
                type $S = OrAnd;
                let $conv = pattern;
                $body
            }
            A::MaxTimes => {
                type $S = MaxTimes<f64>;
                let $conv = numeric;
                $body
            }
            A::MinMax => {
                type $S = MinMax<f64>;
                let $conv = numeric;
                $body
            }
        }
    }};
}
pub(crate) use with_semiring;
