//! The dense operands and results of `spmv` and `spmm`: x or B read from a
//! file or drawn from a seed, made dense in a semiring, and y or C written.
//!
//! Operands are read or drawn in the semiring's values ([`CliValue`]): a
//! random operand stores every element; a file stores what it lists, and
//! an absent element becomes the semiring's zero (+∞ for min-plus, `MAX`
//! on integers). Or-and takes a nonzero element as `true` and a 0 as
//! `false`.
//! Results are written as MatrixMarket `array` files (column-major, as the
//! format says), which any MatrixMarket reader reads as the same dense
//! matrix.

use super::files::{self, InputOpts};
use super::semiring_arg::{CliValue, Instance};
use anyhow::Context;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spmx::format::{Dense, try_with_capacity};
use spmx::{Csr, Scalar, Semiring};
use std::path::Path;

/// Seed of random operands when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 2026;

/// A dense operand as read or drawn, with a line saying where it came from.
pub struct Operand<T> {
    pub matrix: Csr<T>,
    pub source: String,
}

impl<T: CliValue> Operand<T> {
    /// Reads `path`: a MatrixMarket array, or coordinate with absent
    /// elements meaning the semiring's zero. It must have `nrows` rows, and
    /// `ncols` columns when given.
    pub fn read(
        path: &Path,
        input: &InputOpts,
        nrows: usize,
        ncols: Option<usize>,
        what: &str,
    ) -> anyhow::Result<Operand<T>> {
        let matrix = T::read_csr(path, input)?;
        let shape_ok = matrix.nrows() == nrows && ncols.is_none_or(|c| matrix.ncols() == c);
        anyhow::ensure!(
            shape_ok,
            "{what} in {} is {} × {}, but it must have {nrows} rows{}",
            files::display(path),
            matrix.nrows(),
            matrix.ncols(),
            ncols.map_or(String::new(), |c| format!(" and {c} column(s)")),
        );
        Ok(Operand {
            matrix,
            source: files::display(path),
        })
    }

    /// `nrows × ncols` drawn from `seed` (see [`draw`]), in `T`'s values
    /// ([`CliValue::from_drawn`]).
    pub fn random(nrows: usize, ncols: usize, seed: u64) -> anyhow::Result<Operand<T>> {
        Ok(Operand {
            matrix: T::from_drawn(draw(nrows, ncols, seed)?)?,
            source: format!("random on {}, seed {seed}", T::DRAWN),
        })
    }
}

/// `m` as a dense matrix, absent elements `S`'s zero.
pub fn dense<S: Semiring>(m: &Csr<S::Value>) -> spmx::Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    Dense::from_csr(m, S::zero())
}

/// `nrows × ncols` with every element stored, row-major from one ChaCha8
/// stream of `seed`: `k / 2²⁴` with `k` uniform on `1..=2²⁴`, so uniform on
/// (0, 1], never zero, exact in `f32` (as the matrix generators draw values).
fn draw(nrows: usize, ncols: usize, seed: u64) -> anyhow::Result<Csr<f64>> {
    const STEP: f64 = 1.0 / (1u64 << 24) as f64;
    let len = nrows
        .checked_mul(ncols)
        .with_context(|| format!("a random {nrows} × {ncols} operand is too large"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut values = try_with_capacity(&format!("{nrows} × {ncols} random values"), len)?;
    values.extend((0..len).map(|_| f64::from((rng.next_u32() >> 8) + 1) * STEP));
    full(nrows, ncols, values)
}

/// Writes a dense result (row-major `values`, `nrows × ncols`) as a
/// MatrixMarket `array` file: reals, or integers (0/1 for or-and).
pub fn write<T: Scalar>(
    path: &Path,
    (nrows, ncols): (usize, usize),
    values: &[T],
    instance: Instance,
) -> anyhow::Result<()> {
    let bar = super::progress::start(format!("writing {}", files::display(path)), None);
    let result = spmx::io::write_dense_mtx(path, nrows, ncols, values, instance.output_field());
    bar.finish_and_clear();
    Ok(result?)
}

/// An `nrows × ncols` CSR storing every element of row-major `values`.
fn full<T: Scalar>(nrows: usize, ncols: usize, values: Vec<T>) -> anyhow::Result<Csr<T>> {
    anyhow::ensure!(
        u32::try_from(ncols).is_ok(),
        "{ncols} columns do not fit u32 indices"
    );
    let mut col_idx = try_with_capacity("CSR column indices", values.len())?;
    col_idx.extend((0..nrows).flat_map(|_| 0..ncols as u32));
    let mut row_ptr = try_with_capacity("CSR row pointers", nrows + 1)?;
    row_ptr.extend((0..=nrows).map(|i| i * ncols));
    Ok(Csr::from_parts_unchecked(
        nrows, ncols, row_ptr, col_idx, values,
    ))
}
