//! Matrix generators for tests and benchmarks: random matrices named by a
//! few parameters and a seed, and the standard Poisson matrices. Every
//! generator returns a canonical [`Csr<f64>`] (use [`Csr::to_coo`] or
//! [`Csr::map`] for another format or value type); [`GenSpec`] names a
//! generated matrix by data, for `spmx gen` and the benchmark suites.
//!
//! | generator | shape | rows |
//! |-----------|-------|------|
//! | [`uniform()`] | `nrows × ncols` | length uniform on `min..=max`, random distinct columns |
//! | [`power_law()`] | `nrows × ncols` | Pareto lengths of a given mean and exponent, random distinct columns |
//! | [`rmat()`] | `2^scale` square | R-MAT edges, duplicates stored once |
//! | [`banded()`] | `n × n` | every column within the band |
//! | [`poisson2d()`], [`poisson3d()`] | `n²`, `n³` square | 5- and 7-point Laplacian |
//!
//! **Values.** The random generators store `k / 2²⁴` with `k` uniform on
//! `1..=2²⁴`: uniform on (0, 1], never zero (so every entry survives a
//! conversion to `bool`), non-negative (min-plus closures have no negative
//! cycles), at most 1 (max-times products stay bounded) and exact in `f32`
//! (`map(|v| v as f32)` loses nothing). They are drawn after the pattern, one
//! per stored entry in CSR order, so they depend on the seed and the pattern
//! alone. The Poisson matrices hold 4 (2D) or 6 (3D) on the diagonal and −1
//! elsewhere.
//!
//! **Reproducibility.** The same parameters and seed give the same matrix,
//! bit for bit, on every machine and with any number of rayon threads: the
//! work is cut into chunks of fixed size, each chunk draws from its own
//! ChaCha8 stream derived from (seed, purpose, chunk index), draws become
//! numbers through integer arithmetic, exact casts and the pure-Rust `libm`,
//! and the only merge across chunks is a sort.
//!
//! **Errors.** Bad parameters (a zero dimension, impossible lengths,
//! probabilities that do not add up) are [`Error::Invalid`] naming the
//! generator; dimensions beyond `u32` indices, or sizes that cannot be
//! allocated, are [`Error::TooLarge`].

mod banded;
mod grid;
mod power_law;
mod random_rows;
mod rmat;
mod rows;
mod stream;

pub use banded::banded;
pub use grid::{poisson2d, poisson3d};
pub use power_law::power_law;
pub use random_rows::uniform;
pub use rmat::{RmatParams, rmat};

use rayon::iter::ParallelExtend;

use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM};

/// A generated matrix described by data: the generator and its parameters.
/// With a seed, it is all that is needed to make the matrix again.
#[derive(Clone, Debug, PartialEq)]
pub enum GenSpec {
    /// See [`uniform()`].
    Uniform {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
        /// Fewest entries a row.
        min_per_row: usize,
        /// Most entries a row.
        max_per_row: usize,
    },
    /// See [`rmat()`].
    Rmat(RmatParams),
    /// See [`poisson2d()`]; ignores the seed.
    Poisson2d {
        /// Grid points along each side.
        n: usize,
    },
    /// See [`poisson3d()`]; ignores the seed.
    Poisson3d {
        /// Grid points along each side.
        n: usize,
    },
    /// See [`banded()`].
    Banded {
        /// Rows and columns.
        n: usize,
        /// Diagonals below the main one.
        lower: usize,
        /// Diagonals above the main one.
        upper: usize,
    },
    /// See [`power_law()`].
    PowerLaw {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
        /// Entries a row, on average.
        mean_row_len: f64,
        /// The power law's exponent of row lengths.
        exponent: f64,
    },
}

impl GenSpec {
    /// Makes the matrix from `seed`.
    pub fn generate(&self, seed: u64) -> Result<Csr<f64>> {
        match *self {
            GenSpec::Uniform {
                nrows,
                ncols,
                min_per_row,
                max_per_row,
            } => uniform(nrows, ncols, min_per_row, max_per_row, seed),
            GenSpec::Rmat(params) => rmat(params, seed),
            GenSpec::Poisson2d { n } => poisson2d(n),
            GenSpec::Poisson3d { n } => poisson3d(n),
            GenSpec::Banded { n, lower, upper } => banded(n, lower, upper, seed),
            GenSpec::PowerLaw {
                nrows,
                ncols,
                mean_row_len,
                exponent,
            } => power_law(nrows, ncols, mean_row_len, exponent, seed),
        }
    }

    /// One line naming the matrix and every parameter, e.g.
    /// `R-MAT scale 22, edge factor 16, a=0.57 b=0.19 c=0.19`.
    pub fn describe(&self) -> String {
        match self {
            GenSpec::Uniform {
                nrows,
                ncols,
                min_per_row,
                max_per_row,
            } => format!(
                "uniform random {nrows}×{ncols}, {min_per_row}–{max_per_row} entries per row"
            ),
            GenSpec::Rmat(RmatParams {
                scale,
                edge_factor,
                a,
                b,
                c,
            }) => format!("R-MAT scale {scale}, edge factor {edge_factor}, a={a} b={b} c={c}"),
            GenSpec::Poisson2d { n } => {
                let rows = (*n as u128).pow(2);
                format!("2D Poisson {n}² ({rows}×{rows}, 5-point)")
            }
            GenSpec::Poisson3d { n } => {
                let rows = (*n as u128).pow(3);
                format!("3D Poisson {n}³ ({rows}×{rows}, 7-point)")
            }
            GenSpec::Banded { n, lower, upper } => {
                format!("banded {n}×{n}, {lower} below and {upper} above the diagonal")
            }
            GenSpec::PowerLaw {
                nrows,
                ncols,
                mean_row_len,
                exponent,
            } => format!(
                "power-law rows {nrows}×{ncols}, mean {mean_row_len} entries per row, exponent {exponent}"
            ),
        }
    }
}

/// Checks that the dimension `what` of a `kind` matrix is positive and fits
/// `u32` indices.
fn check_dim(kind: &'static str, what: &str, value: usize) -> Result<()> {
    if value == 0 {
        return Err(Error::invalid(kind, format!("{what} must be at least 1")));
    }
    if value > MAX_DIM {
        return Err(Error::TooLarge(format!(
            "{kind}: {what} = {value} exceeds the largest dimension {MAX_DIM}"
        )));
    }
    Ok(())
}

/// `len` zeros, or [`Error::TooLarge`] when they cannot be allocated: the
/// sizes come from user parameters, so a failed allocation must not abort.
/// Written in parallel, so that the threads share the page faults.
fn zeroed<T: Copy + Default + Send>(len: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::TooLarge(format!(
            "cannot allocate {len} {what} ({} bytes)",
            len.saturating_mul(size_of::<T>())
        ))
    })?;
    v.par_extend(rayon::iter::repeat_n(T::default(), len));
    Ok(v)
}
