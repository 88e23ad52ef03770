//! `std::ops` for the common case: the value type's default semiring
//! ([`DefaultSemiring`]: plus-times for numbers, or-and for `bool`) on the
//! best engine here ([`Engine::Auto`]).
//!
//! | expression          | operands                        | result    | same as                          |
//! |---------------------|---------------------------------|-----------|----------------------------------|
//! | `&a * &b`           | [`Csr<T>`] × [`Csr<T>`]         | `Csr<T>`  | [`spgemm`](super::spgemm), [`Csr::spgemm`] |
//! | `&a * &x`, `&a * x` | [`Csr<T>`] × `&Vec<T>`, `&[T]`  | `Vec<T>`  | [`spmv`](super::spmv), [`Csr::spmv`]       |
//! | `&a * &b`           | [`Csr<T>`] × [`Dense<T>`]       | `Dense<T>`| [`spmm`](super::spmm), [`Csr::spmm`]       |
//! | `&a + &b`           | [`Csr<T>`] + [`Csr<T>`]         | `Csr<T>`  | [`ewise_add`](super::ewise_add)            |
//!
//! Each gives the bits of the function it stands for. An operator cannot
//! return a `Result`, so where that function returns an error (shapes
//! that do not fit, a product larger than memory, an engine that fails)
//! the operator panics with the error's text, at the caller's line: a 2×3
//! times a 4×2 panics with `spgemm: A.ncols() != B.nrows() (2×3 times
//! 4×2)`, the very message of the [`Error::Mismatch`](crate::Error) that
//! [`spgemm`](super::spgemm) returns. Where the shapes come from input,
//! call the function and handle the error ([error policy](crate#errors)).
//!
//! ```
//! use spmx::{Csr, format::Dense};
//! // A = [[1, 2], [0, 3]].
//! let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0])?;
//! assert_eq!((&a * &a).values(), &[1.0, 8.0, 9.0]); // A·A = [[1, 8], [0, 9]]
//! assert_eq!(&a * &vec![1.0, 1.0], vec![3.0, 3.0]);
//! let b = Dense::try_new(2, 1, vec![1.0, 1.0])?;
//! assert_eq!((&a * &b).as_slice(), &[3.0, 3.0]);
//! assert_eq!((&a + &a).values(), &[2.0, 4.0, 6.0]);
//! # Ok::<(), spmx::Error>(())
//! ```

use super::DefaultSemiring;
use crate::engine::Engine;
use crate::error::Result;
use crate::format::{Csr, Dense};
use std::ops::{Add, Mul};

/// The value of `result`, or a panic at the caller's line with the error's
/// text.
#[track_caller]
fn or_panic<R>(result: Result<R>) -> R {
    match result {
        Ok(value) => value,
        Err(e) => panic!("{e}"),
    }
}

/// `&a * &b`: C = A·B ([`spgemm`](super::spgemm) in `T`'s default
/// semiring on the best engine here).
///
/// # Panics
/// Where `spgemm` returns an error, with its text: `a.ncols() !=
/// b.nrows()` (`spgemm: A.ncols() != B.nrows() (2×3 times 4×2)`), a C
/// larger than memory, an engine that fails.
impl<T: DefaultSemiring> Mul<&Csr<T>> for &Csr<T> {
    type Output = Csr<T>;
    #[track_caller]
    fn mul(self, b: &Csr<T>) -> Csr<T> {
        or_panic(super::spgemm::<T::Semiring>(self, b, Engine::Auto))
    }
}

/// `&a * x`: y = A·x ([`spmv`](super::spmv) in `T`'s default semiring on
/// the best engine here).
///
/// # Panics
/// Where `spmv` returns an error, with its text: `x.len() != a.ncols()`
/// (`spmv: A.ncols() != x.len() (2×3 times a vector of 4)`), an engine
/// that fails.
impl<T: DefaultSemiring> Mul<&[T]> for &Csr<T> {
    type Output = Vec<T>;
    #[track_caller]
    fn mul(self, x: &[T]) -> Vec<T> {
        or_panic(super::spmv::<T::Semiring>(self, x, Engine::Auto))
    }
}

/// `&a * &x`: y = A·x, as for `&[T]` (a `&Vec<T>` does not become a slice
/// by itself in an operator).
///
/// # Panics
/// As `&a * x` for a slice.
impl<T: DefaultSemiring> Mul<&Vec<T>> for &Csr<T> {
    type Output = Vec<T>;
    #[track_caller]
    fn mul(self, x: &Vec<T>) -> Vec<T> {
        self * x.as_slice()
    }
}

/// `&a * &b`: C = A·B with B and C dense ([`spmm`](super::spmm) in `T`'s
/// default semiring on the best engine here).
///
/// # Panics
/// Where `spmm` returns an error, with its text: `a.ncols() != b.nrows()`
/// (`spmm: A.ncols() != B.nrows() (2×3 times 4×5)`), a C too large to
/// allocate, an engine that fails.
impl<T: DefaultSemiring> Mul<&Dense<T>> for &Csr<T> {
    type Output = Dense<T>;
    #[track_caller]
    fn mul(self, b: &Dense<T>) -> Dense<T> {
        or_panic(super::spmm::<T::Semiring>(self, b, Engine::Auto))
    }
}

/// `&a + &b`: A ⊕ B, the union of the patterns ([`ewise_add`](super::ewise_add)
/// in `T`'s default semiring on the best engine here).
///
/// # Panics
/// Where `ewise_add` returns an error, with its text: shapes that differ
/// (`ewise_add: A.shape() != B.shape() (2×3 and 3×2)`).
impl<T: DefaultSemiring> Add<&Csr<T>> for &Csr<T> {
    type Output = Csr<T>;
    #[track_caller]
    fn add(self, b: &Csr<T>) -> Csr<T> {
        or_panic(super::ewise_add::<T::Semiring>(self, b, Engine::Auto))
    }
}
