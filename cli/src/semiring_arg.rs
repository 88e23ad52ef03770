//! `--semiring NAME` and `--type TYPE`: map the names to a semiring type
//! (the semiring's `NAME`, instantiated on a value type) and run generic
//! code with it.
//!
//! The numeric semirings compute in `f64` unless `--type` names an integer
//! type: plus-times, min-plus, max-plus and plus-pair also compute in
//! `i32`, `i64`, `u32` or `u64`, whose `+` and `×` wrap (as GraphBLAS's
//! integer semirings do); plus-pair counts in integers only, `i64` unless
//! `--type` says otherwise. Or-and computes on `bool`, a stored value
//! being true when it is nonzero, and writes its result as 0/1 integers (a
//! false entry of an SpGEMM result is kept and written as 0, see
//! `spmx::OrAnd`). Integer results are written as MatrixMarket `integer`
//! files, and integer inputs read as integers (exactly, past 2⁵³ too).

use super::files::{self, InputOpts};
use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use spmx::io::Field;
use spmx::{Csr, Scalar};
use std::path::Path;

/// The semirings of [`spmx::for_each_semiring!`], one variant each, and
/// plus-pair (integers only).
macro_rules! semiring_arg {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum SemiringArg {
            $($name,)*
            PlusPair,
        }

        impl SemiringArg {
            const ALL: &[SemiringArg] = &[$(SemiringArg::$name,)* SemiringArg::PlusPair];
        }
    };
}
spmx::for_each_semiring!(semiring_arg! {});

/// `--type`: the values a numeric semiring computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ValueType {
    F64,
    I32,
    I64,
    U32,
    U64,
    /// Or-and's values (its default; no other semiring's).
    Bool,
}

impl ValueType {
    fn is_integer(self) -> bool {
        matches!(
            self,
            ValueType::I32 | ValueType::I64 | ValueType::U32 | ValueType::U64
        )
    }
}

/// The semirings the command line computes on integers: those the GPU
/// has kernels for (the library defines the others on integers too).
const ON_INTEGERS: &[SemiringArg] = &[
    SemiringArg::PlusTimes,
    SemiringArg::MinPlus,
    SemiringArg::MaxPlus,
    SemiringArg::PlusPair,
];

/// `--semiring` and `--type`, shared by every command that multiplies.
#[derive(Args, Debug)]
pub struct SemiringOpts {
    /// The semiring: what "add" and "multiply" mean.
    #[arg(long, value_enum, default_value = "plus-times")]
    pub semiring: SemiringArg,
    /// The values it computes in: f64 (the default), or i32, i64, u32,
    /// u64 (plus-times, min-plus, max-plus and plus-pair; `+` and `×`
    /// wrap on overflow; files are read as exact integers). Plus-pair
    /// counts in integers only (default i64); or-and computes on bool.
    #[arg(long = "type", value_enum)]
    pub value_type: Option<ValueType>,
}

impl SemiringOpts {
    /// The instance asked for, or an error saying which combinations
    /// there are.
    pub fn instance(&self) -> anyhow::Result<Instance> {
        Instance::new(self.semiring, self.value_type)
    }
}

/// A semiring and the value type it computes in: one of the instances
/// [`with_semiring!`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instance {
    semiring: SemiringArg,
    value: ValueType,
}

impl Instance {
    /// `semiring` on `value` (`None`: the semiring's default), if the
    /// command line has that instance.
    pub fn new(semiring: SemiringArg, value: Option<ValueType>) -> anyhow::Result<Instance> {
        let name = || semiring.name();
        let value = match (semiring, value) {
            (_, None) => return Ok(Instance::default_for(semiring)),
            (SemiringArg::OrAnd, Some(ValueType::Bool)) => ValueType::Bool,
            (SemiringArg::OrAnd, Some(v)) => anyhow::bail!(
                "--semiring or-and computes on bool, not {}: leave out --type",
                v.name()
            ),
            (_, Some(ValueType::Bool)) => anyhow::bail!(
                "--type bool is or-and's: give --semiring or-and, or a numeric type \
                 (f64, i32, i64, u32, u64) for {}",
                name()
            ),
            (SemiringArg::PlusPair, Some(ValueType::F64)) => anyhow::bail!(
                "--semiring plus-pair counts in integers: give --type i64 (its default), \
                 i32, u32 or u64, not f64"
            ),
            (s, Some(v)) if v.is_integer() && !ON_INTEGERS.contains(&s) => anyhow::bail!(
                "--semiring {} computes in f64 here: --type {} takes plus-times, \
                 min-plus, max-plus and plus-pair",
                name(),
                v.name()
            ),
            (_, Some(v)) => v,
        };
        Ok(Instance { semiring, value })
    }

    /// `semiring` on its default value type: bool for or-and, i64 for
    /// plus-pair, f64 for the others.
    pub fn default_for(semiring: SemiringArg) -> Instance {
        let value = match semiring {
            SemiringArg::OrAnd => ValueType::Bool,
            SemiringArg::PlusPair => ValueType::I64,
            _ => ValueType::F64,
        };
        Instance { semiring, value }
    }

    /// The semiring.
    pub fn semiring(self) -> SemiringArg {
        self.semiring
    }

    /// The MatrixMarket field a result is written with: `real` for `f64`,
    /// else `integer` (or-and's 0/1, so that a false entry stays false).
    pub fn output_field(self) -> Field {
        match self.value {
            ValueType::F64 => Field::Real,
            _ => Field::Integer,
        }
    }

    /// The semiring's name, with its value type where that is not the
    /// semiring's own (`plus-times`, `plus-times on i64`, `plus-pair on
    /// i64`), as the summary prints it.
    pub fn describe(self) -> String {
        match self.value {
            ValueType::F64 | ValueType::Bool => self.semiring.name(),
            v => format!("{} on {}", self.semiring.name(), v.name()),
        }
    }
}

impl SemiringArg {
    /// Whether the semiring computes on floating-point values by default
    /// (every one but or-and and plus-pair): those `spmx bench` races.
    pub fn on_floats(self) -> bool {
        Instance::default_for(self).value == ValueType::F64
    }

    /// The name `--semiring` takes (the semiring's `NAME`).
    pub fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_string())
    }
}

impl ValueType {
    fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_string())
    }
}

/// How the CLI's matrices become a semiring's values: files read in them
/// (`f64` and the integers exactly as written; or-and takes a nonzero
/// value as true and zero as false), and generated or drawn values (on
/// (0, 1]) converted to them.
pub trait CliValue: Scalar {
    /// The values a file is read as: these, or `f64` for `bool` (a
    /// stored value is true where it is not 0).
    type Read: Scalar;
    /// Values as read made these values.
    fn from_read(m: Csr<Self::Read>) -> spmx::Result<Csr<Self>>;
    /// Reads a MatrixMarket file as CSR of these values (see
    /// [`files::read_csr`]).
    fn read_csr(path: &Path, opts: &InputOpts) -> anyhow::Result<Csr<Self>> {
        Ok(Self::from_read(files::read_csr::<Self::Read>(path, opts)?)?)
    }
    /// What drawn values become, for the summary (`(0, 1]`).
    const DRAWN: &str;
    /// Drawn or generated values as these values: `f64` as they are,
    /// `bool` true (they are never 0), an integer `⌈100 v⌉`, from 1 to 100.
    fn from_drawn(m: Csr<f64>) -> spmx::Result<Csr<Self>>;
}

impl CliValue for f64 {
    const DRAWN: &str = "(0, 1]";
    type Read = f64;
    fn from_read(m: Csr<f64>) -> spmx::Result<Csr<f64>> {
        Ok(m)
    }
    fn from_drawn(m: Csr<f64>) -> spmx::Result<Csr<f64>> {
        Ok(m)
    }
}

impl CliValue for bool {
    const DRAWN: &str = "true";
    type Read = f64;
    fn from_read(m: Csr<f64>) -> spmx::Result<Csr<bool>> {
        m.try_map_values(bool::from_f64)
    }
    fn from_drawn(m: Csr<f64>) -> spmx::Result<Csr<bool>> {
        m.try_map_values(bool::from_f64)
    }
}

macro_rules! cli_integer {
    ($($t:ident),*) => {$(
        impl CliValue for $t {
            const DRAWN: &str = "1..=100";
            type Read = $t;
            fn from_read(m: Csr<$t>) -> spmx::Result<Csr<$t>> {
                Ok(m)
            }
            fn from_drawn(m: Csr<f64>) -> spmx::Result<Csr<$t>> {
                m.try_map_values(|v| (v * 100.0).ceil() as $t)
            }
        }
    )*};
}
cli_integer!(i32, i64, u32, u64);

/// Runs `$body` with `$S` bound to the semiring type of `$instance` (an
/// [`Instance`]): the `f64` instance of a semiring of
/// [`spmx::for_each_semiring!`] (or or-and's `bool` one), or an integer
/// instance of one of [`ON_INTEGERS`].
macro_rules! with_semiring {
    ($instance:expr, |$S:ident| $body:expr) => {
        spmx::for_each_semiring!($crate::semiring_arg::with_semiring! {
            @rows $instance, $S, $body; [PlusTimes MinPlus MaxPlus PlusPair];
        })
    };
    (@rows $instance:expr, $S:ident, $body:expr; [$($I:ident)*];
     $($name:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {{
        use $crate::semiring_arg::{SemiringArg as A, ValueType as V};
        let instance: $crate::semiring_arg::Instance = $instance;
        match (instance.semiring(), instance.value()) {
            $((A::$name, V::F64 | V::Bool) => {
                type $S = $crate::semiring_arg::cli_instance!($($t => $T),+);
                $body
            })*
            $(
                (A::$I, V::I32) => { type $S = spmx::$I<i32>; $body }
                (A::$I, V::I64) => { type $S = spmx::$I<i64>; $body }
                (A::$I, V::U32) => { type $S = spmx::$I<u32>; $body }
                (A::$I, V::U64) => { type $S = spmx::$I<u64>; $body }
            )*
            (s, v) => unreachable!("Instance::new refuses {s:?} on {v:?}"),
        }
    }};
}
pub(crate) use with_semiring;

impl Instance {
    /// The value type (for [`with_semiring!`]).
    pub fn value(self) -> ValueType {
        self.value
    }
}

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
        Some(PossibleValue::new(with_semiring!(
            Instance::default_for(*self),
            |S| S::NAME
        )))
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
        assert_eq!(
            SemiringArg::from_str("plus-pair", false),
            Ok(SemiringArg::PlusPair)
        );
    }

    /// Every instance [`Instance::new`] accepts runs in [`with_semiring!`]
    /// (its fallback arm is never reached) on the semiring named and the
    /// value type asked for; the others are refused, naming the fix.
    #[test]
    fn instances_accepted_are_the_ones_that_run() {
        use spmx::Semiring;
        let mut accepted = 0;
        for &s in SemiringArg::value_variants() {
            for v in [None]
                .into_iter()
                .chain(ValueType::value_variants().iter().map(Some))
            {
                let Ok(instance) = Instance::new(s, v.copied()) else {
                    continue;
                };
                accepted += 1;
                let (name, value) = with_semiring!(instance, |S| (
                    S::NAME,
                    std::any::type_name::<<S as Semiring>::Value>()
                ));
                assert_eq!(name, s.name());
                assert_eq!(value, instance.value().name());
            }
        }
        // The semirings of for_each_semiring! on their default type, left
        // out and named; those of ON_INTEGERS on four integer types;
        // plus-pair's default.
        let float_semirings = SemiringArg::ALL.len() - 1;
        assert_eq!(accepted, 2 * float_semirings + 4 * ON_INTEGERS.len() + 1);
        let refused = |s, v| Instance::new(s, Some(v)).unwrap_err().to_string();
        assert!(refused(SemiringArg::PlusPair, ValueType::F64).contains("--type i64"));
        assert!(refused(SemiringArg::OrAnd, ValueType::I64).contains("bool"));
        assert!(refused(SemiringArg::MaxTimes, ValueType::U32).contains("plus-pair"));
        assert!(refused(SemiringArg::PlusTimes, ValueType::Bool).contains("or-and"));
    }

    #[test]
    fn or_and_takes_stored_zero_as_false() {
        let m = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 1], vec![0.0, 2.5]).unwrap();
        let b = bool::from_drawn(m).unwrap();
        assert_eq!(b.values(), &[false, true]);
    }

    #[test]
    fn drawn_values_become_integers_from_1_to_100() {
        let m = Csr::try_new(1, 3, vec![0, 3], vec![0, 1, 2], vec![1e-7, 0.5, 1.0]).unwrap();
        assert_eq!(u32::from_drawn(m).unwrap().values(), &[1, 50, 100]);
    }
}
