//! Finite-difference Laplacians on square and cubic grids: the 2D 5-point
//! and 3D 7-point Poisson matrices, with Dirichlet boundaries (a grid point
//! on the boundary simply has fewer neighbours).
//!
//! Grid point `(i, j)` of an `n × n` grid is row `i·n + j`; point `(i, j, k)`
//! of an `n × n × n` grid is row `(i·n + j)·n + k`.

use std::ops::Range;

use super::rows::{RowPattern, par_row_chunks, pattern_by_rows, rows_of};
use super::{check_dim, zeroed};
use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM};

/// The 2D Poisson matrix of an `n × n` grid: `n² × n²`, 4 on the diagonal,
/// −1 for each of the up to four grid neighbours; `5n² − 4n` entries.
/// Deterministic: there is no seed.
pub fn poisson2d(n: usize) -> Result<Csr<f64>> {
    laplacian("2D Poisson", n, 2)
}

/// The 3D Poisson matrix of an `n × n × n` grid: `n³ × n³`, 6 on the
/// diagonal, −1 for each of the up to six grid neighbours; `7n³ − 6n²`
/// entries. Deterministic: there is no seed.
pub fn poisson3d(n: usize) -> Result<Csr<f64>> {
    laplacian("3D Poisson", n, 3)
}

/// The Laplacian of a `dims`-dimensional grid with `n` points per side.
fn laplacian(kind: &'static str, n: usize, dims: u32) -> Result<Csr<f64>> {
    check_dim(kind, "n", n)?;
    let rows = n
        .checked_pow(dims)
        .filter(|&rows| rows <= MAX_DIM)
        .ok_or_else(|| {
            Error::TooLarge(format!(
                "{kind}: n = {n} gives n^{dims} rows, more than the largest dimension {MAX_DIM}"
            ))
        })?;
    let grid = Grid {
        n,
        strides: (0..dims).rev().map(|d| n.pow(d)).collect(),
    };
    let (row_ptr, col_idx) = pattern_by_rows(rows, &grid)?;
    let diagonal = f64::from(2 * dims);
    let mut values = zeroed::<f64>(col_idx.len(), "values")?;
    par_row_chunks(&row_ptr, &mut values, |_, rows, ptr, vals| {
        for (row, vals) in rows_of(rows, ptr, vals) {
            let cols = &col_idx[row_ptr[row]..row_ptr[row + 1]];
            for (v, &c) in vals.iter_mut().zip(cols) {
                *v = if c as usize == row { diagonal } else { -1.0 };
            }
        }
    });
    Ok(Csr::from_parts_unchecked(
        rows, rows, row_ptr, col_idx, values,
    ))
}

/// A grid with `n` points per side; `strides` are the row distances between
/// neighbours along each axis, largest first.
struct Grid {
    n: usize,
    strides: Vec<usize>,
}

impl Grid {
    /// Whether `row` has a neighbour below and above it along the axis of
    /// `stride`.
    fn has_neighbours(&self, row: usize, stride: usize) -> (bool, bool) {
        let coordinate = row / stride % self.n;
        (coordinate > 0, coordinate + 1 < self.n)
    }
}

impl RowPattern for Grid {
    fn row_lengths(&self, _chunk: usize, rows: Range<usize>, lens: &mut [usize]) {
        for (row, len) in rows.zip(lens) {
            *len = 1 + self
                .strides
                .iter()
                .map(|&s| {
                    let (below, above) = self.has_neighbours(row, s);
                    usize::from(below) + usize::from(above)
                })
                .sum::<usize>();
        }
    }

    fn row_columns(&self, _chunk: usize, rows: Range<usize>, ptr: &[usize], cols: &mut [u32]) {
        for (row, cols) in rows_of(rows, ptr, cols) {
            let mut filled = 0;
            let mut push = |c: usize| {
                cols[filled] = c as u32;
                filled += 1;
            };
            // Lower neighbours by decreasing distance, the point, then upper
            // neighbours by increasing distance: sorted columns.
            for &s in &self.strides {
                if self.has_neighbours(row, s).0 {
                    push(row - s);
                }
            }
            push(row);
            for &s in self.strides.iter().rev() {
                if self.has_neighbours(row, s).1 {
                    push(row + s);
                }
            }
        }
    }
}
