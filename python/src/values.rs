//! Value types and semirings chosen at run time: [`AnyCsr`] holds a CSR of
//! any value type spmx has (f32, f64, bool, i32, i64, u32, u64), and
//! [`with_semiring`] turns a semiring's name and a value type into the
//! semiring type a generic [`SemiringOp`] runs over, from the crate's one
//! list of semirings (`for_each_semiring!`, `for_each_integer_semiring!`).

use numpy::Element;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmx::{Csr, Scalar, Semiring};

/// A value type of spmx that numpy also has.
pub trait Value: Scalar + Element {
    /// The numpy dtype's name (`float64`, `bool`, ...).
    const DTYPE: &'static str;
    /// `c` as an [`AnyCsr`].
    fn wrap(c: Csr<Self>) -> AnyCsr;
    /// The CSR of `any` when it holds this value type.
    fn unwrap(any: &AnyCsr) -> Option<&Csr<Self>>;
}

/// Declares [`AnyCsr`] over the value types, `Value` for each, and
/// [`DTYPES`]. `with_value!` and `with_dtype!` below list the same types.
macro_rules! value_types {
    ($($variant:ident $t:ident $dtype:literal),*) => {
        /// A CSR matrix of any value type spmx has.
        pub enum AnyCsr {
            $(
                #[doc = concat!("Values of `", stringify!($t), "`.")]
                $variant(Csr<$t>),
            )*
        }

        $(impl Value for $t {
            const DTYPE: &'static str = $dtype;
            fn wrap(c: Csr<Self>) -> AnyCsr {
                AnyCsr::$variant(c)
            }
            fn unwrap(any: &AnyCsr) -> Option<&Csr<Self>> {
                match any {
                    AnyCsr::$variant(c) => Some(c),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        })*

        /// The numpy dtype names of the value types, in the order above.
        pub const DTYPES: &[&str] = &[$($dtype),*];
    };
}

value_types!(F32 f32 "float32", F64 f64 "float64", Bool bool "bool", I32 i32 "int32",
    I64 i64 "int64", U32 u32 "uint32", U64 u64 "uint64");

/// Runs `$body` with `$c` bound to the typed CSR of `$any` and `$T` to its
/// value type (the arms list the types of `value_types!` above).
macro_rules! with_value {
    ($any:expr, $c:ident: $T:ident => $body:expr) => {
        match $any {
            crate::values::AnyCsr::F32($c) => {
                type $T = f32;
                $body
            }
            crate::values::AnyCsr::F64($c) => {
                type $T = f64;
                $body
            }
            crate::values::AnyCsr::Bool($c) => {
                type $T = bool;
                $body
            }
            crate::values::AnyCsr::I32($c) => {
                type $T = i32;
                $body
            }
            crate::values::AnyCsr::I64($c) => {
                type $T = i64;
                $body
            }
            crate::values::AnyCsr::U32($c) => {
                type $T = u32;
                $body
            }
            crate::values::AnyCsr::U64($c) => {
                type $T = u64;
                $body
            }
        }
    };
}
pub(crate) use with_value;

/// Runs `$body` with `$T` bound to the value type named by the numpy dtype
/// name `$name`; another name is a `ValueError` listing them.
macro_rules! with_dtype {
    ($name:expr, $T:ident => $body:expr) => {
        match $name {
            "float32" => {
                type $T = f32;
                $body
            }
            "float64" => {
                type $T = f64;
                $body
            }
            "bool" => {
                type $T = bool;
                $body
            }
            "int32" => {
                type $T = i32;
                $body
            }
            "int64" => {
                type $T = i64;
                $body
            }
            "uint32" => {
                type $T = u32;
                $body
            }
            "uint64" => {
                type $T = u64;
                $body
            }
            other => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "spmx has no values of dtype {other}; it has {}",
                crate::values::DTYPES.join(", ")
            ))),
        }
    };
}
pub(crate) use with_dtype;

impl AnyCsr {
    /// The numpy dtype name of the values.
    pub fn dtype(&self) -> &'static str {
        with_value!(self, _c: T => T::DTYPE)
    }
    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        with_value!(self, c: _T => c.shape())
    }
    /// Stored entries.
    pub fn nnz(&self) -> usize {
        with_value!(self, c: _T => c.nnz())
    }
    /// The CSR of value type `T`, or a `ValueError` naming both dtypes
    /// (`what` names the operand).
    pub fn typed<T: Value>(&self, what: &str) -> PyResult<&Csr<T>> {
        T::unwrap(self).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what} has dtype {}, not {}: convert it first (spmx.asarray(A, dtype=...))",
                self.dtype(),
                T::DTYPE
            ))
        })
    }
}

/// An operation generic over a semiring, run by [`with_semiring`].
pub trait SemiringOp {
    /// What it returns.
    type Output;
    /// Runs over semiring `S`.
    fn run<S: Semiring>(self) -> PyResult<Self::Output>
    where
        S::Value: Value;
}

/// Declares `semiring_names`, the names in a list macro of the crate, and
/// `run_in`, a `match` of (name, value type) to the semiring type.
macro_rules! semiring_table {
    ($fn:ident $names:ident; $($S:ident $sr:ident $($atomic:ident)? [$($t:ident => $T:ty as $test:ident),+];)*) => {
        /// The semirings of this list, by name (`plus_times`, ...).
        const $names: &[&str] = &[$(stringify!($sr)),*];

        /// Runs `op` over the semiring `name` on `dtype`'s values, or `None`
        /// when this list has no such pair.
        fn $fn<O: SemiringOp>(name: &str, dtype: &str, op: O) -> Option<PyResult<O::Output>> {
            match (name, dtype) {
                $($((stringify!($sr), <$t as Value>::DTYPE) => Some(op.run::<$T>()),)+)*
                _ => None,
            }
        }
    };
}
spmx::for_each_semiring!(semiring_table! { run_float_semiring FLOAT_SEMIRINGS; });
spmx::for_each_integer_semiring!(semiring_table! { run_integer_semiring INTEGER_SEMIRINGS; });

/// Runs `op` over the semiring called `name` (`min_plus`, or `min-plus` as
/// the command line spells it) on values of dtype `dtype`. `None` is the
/// dtype's default semiring (plus-times for numbers, or-and for `bool`).
/// A name spmx does not have, or not on that value type, is a `ValueError`
/// listing what it has.
pub fn with_semiring<O: SemiringOp>(name: Option<&str>, dtype: &str, op: O) -> PyResult<O::Output> {
    let name = match name {
        Some(name) => name.replace('-', "_"),
        None if dtype == "bool" => "or_and".to_owned(),
        None => "plus_times".to_owned(),
    };
    let integer = !matches!(dtype, "float32" | "float64" | "bool");
    let run = if integer {
        run_integer_semiring(&name, dtype, op)
    } else {
        run_float_semiring(&name, dtype, op)
    };
    run.unwrap_or_else(|| {
        let known = FLOAT_SEMIRINGS
            .iter()
            .chain(INTEGER_SEMIRINGS)
            .any(|n| *n == name);
        let have: Vec<&str> = match (integer, dtype) {
            (true, _) => INTEGER_SEMIRINGS.to_vec(),
            (false, "bool") => vec!["or_and"],
            (false, _) => FLOAT_SEMIRINGS
                .iter()
                .copied()
                .filter(|n| *n != "or_and")
                .collect(),
        };
        Err(PyValueError::new_err(if known {
            format!(
                "semiring {name} has no instance over {dtype}; over {dtype} spmx has {}",
                have.join(", ")
            )
        } else {
            format!(
                "unknown semiring {name:?}: over {dtype} spmx has {}",
                have.join(", ")
            )
        }))
    })
}

/// Every semiring name, for the Python package's `SEMIRINGS`.
pub fn semiring_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = FLOAT_SEMIRINGS.to_vec();
    names.extend(
        INTEGER_SEMIRINGS
            .iter()
            .filter(|n| !FLOAT_SEMIRINGS.contains(n)),
    );
    names
}
