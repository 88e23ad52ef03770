//! All-pairs shortest paths by repeated min-plus squaring.
//!
//! D₀ = G with a zero diagonal (staying put costs nothing); Dₖ₊₁ = Dₖ ⊗ Dₖ
//! over min-plus. After k squarings Dₖ holds the shortest paths of at most
//! 2ᵏ edges, so the closure is reached after ⌈log₂(n − 1)⌉ squarings, and
//! the loop stops as soon as a squaring changes nothing (bit for bit, on
//! every engine).
//!
//! Stored entries of G are edges, explicit zeros included (weight 0). An
//! edge of weight +∞ is no edge (+∞ is min-plus's zero: no shortest path
//! uses one) and is left out, so it never meets a −∞ edge as ∞ − ∞. A NaN
//! weight is an error naming the edge.
//!
//! A negative cycle makes the distances from its vertices to themselves
//! fall below zero: whenever the last D has a negative diagonal entry
//! (−∞ included: a cycle through a −∞ edge converges to −∞ everywhere it
//! reaches, so only the diagonal tells), that is reported, naming a vertex
//! on it. Distances that still change after enough squarings to cover
//! every simple path, with no negative diagonal, are reported too (a cycle
//! whose weight rounds to about zero). Without a negative weight there is
//! no such cycle: a later squaring can only sum a path already found in
//! another order and round it lower, so there the squarings go on until
//! nothing changes (at most `ROUNDING_SQUARINGS` more). A NaN distance
//! (a path whose length overflowed to +∞ meeting a −∞ edge) is an error,
//! never a cycle.

#[cfg(feature = "mpi")]
use crate::engine::mpi::{self, DistCsr, Fetch, Ranks, RowPartition};
use crate::engine::{Engine, Resident};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::ops;
use gpu_kernels::MinPlus;
use std::borrow::Cow;

/// The closure and how many products it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Apsp {
    pub distances: Csr<f64>,
    pub squarings: usize,
}

/// All-pairs shortest-path distances of the weighted graph `g` (square).
pub fn apsp(g: &Csr<f64>, engine: Engine) -> Result<Apsp> {
    // The GPU has no element-wise add: the diagonal goes in on the cpu.
    let add_engine = if engine == Engine::Cuda {
        Engine::Cpu
    } else {
        engine
    };
    let limit = squarings_limit(g.nrows(), no_negative_weight(g));
    let mut d = Resident::new(first_distances(g, add_engine)?, engine)?;
    for squarings in 1..=limit {
        let next = d.spgemm::<MinPlus<f64>>(&d)?.ok_or_else(|| {
            Error::TooLarge(format!(
                "squaring {squarings} of the distance matrix does not fit in GPU memory \
                 beside it; use --engine cpu"
            ))
        })?;
        if next.same_bits(&d)? {
            let distances = d.into_csr()?;
            check_distances(&distances, 0)?;
            return Ok(Apsp {
                distances,
                squarings,
            });
        }
        d = next;
    }
    check_distances(&d.into_csr()?, 0)?;
    Err(still_falling())
}

/// D₀: `g` (square, no NaN weight) without its +∞ edges, with every
/// diagonal entry min-ed with 0.
fn first_distances(g: &Csr<f64>, engine: Engine) -> Result<Csr<f64>> {
    if g.nrows() != g.ncols() {
        return Err(Error::invalid(
            "APSP input",
            format!("the graph must be square, not {}×{}", g.nrows(), g.ncols()),
        ));
    }
    if let Some((i, j)) = entries(g, 0).find_map(|(i, j, w)| w.is_nan().then_some((i, j))) {
        return Err(Error::invalid(
            "APSP input",
            format!(
                "the edge from vertex {} to vertex {} has weight NaN",
                i + 1,
                j + 1
            ),
        ));
    }
    let n = g.nrows();
    let identity = Csr::from_parts_unchecked(
        n,
        n,
        (0..=n).collect(),
        (0..n as u32).collect(),
        vec![0.0; n],
    );
    ops::ewise_add::<MinPlus<f64>>(&finite_edges(g), &identity, engine)
}

/// `g` without its entries of weight +∞.
fn finite_edges(g: &Csr<f64>) -> Cow<'_, Csr<f64>> {
    if !g.values().contains(&f64::INFINITY) {
        return Cow::Borrowed(g);
    }
    let mut row_ptr = vec![0];
    let (mut cols, mut weights) = (Vec::new(), Vec::new());
    for i in 0..g.nrows() {
        let (c, w) = g.row(i);
        for (&j, &w) in c.iter().zip(w).filter(|&(_, &w)| w != f64::INFINITY) {
            cols.push(j);
            weights.push(w);
        }
        row_ptr.push(cols.len());
    }
    Cow::Owned(Csr::from_parts_unchecked(
        g.nrows(),
        g.ncols(),
        row_ptr,
        cols,
        weights,
    ))
}

/// Every stored `(row, column, value)` of `d`, rows numbered from `first_row`.
fn entries(d: &Csr<f64>, first_row: usize) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
    (0..d.nrows()).flat_map(move |i| {
        let (cols, vals) = d.row(i);
        cols.iter()
            .zip(vals)
            .map(move |(&j, &w)| (first_row + i, j as usize, w))
    })
}

/// What the last D (its rows numbered from `first_row`) says of the graph:
/// a NaN distance is an error, and so is a vertex whose distance to itself
/// is negative (it lies on a negative cycle).
fn check_distances(d: &Csr<f64>, first_row: usize) -> Result<()> {
    for (i, j, w) in entries(d, first_row) {
        if w.is_nan() {
            return Err(Error::invalid(
                "APSP input",
                format!(
                    "the distance from vertex {} to vertex {} is undefined (NaN): a path \
                     length that overflowed to +inf met a -inf one",
                    i + 1,
                    j + 1
                ),
            ));
        }
        if i == j && w < 0.0 {
            return Err(Error::invalid(
                "APSP input",
                format!(
                    "the graph has a negative cycle: the distance from vertex {} to itself is {w}",
                    i + 1
                ),
            ));
        }
    }
    Ok(())
}

/// The closure split by rows across MPI ranks, and how many products it took.
#[cfg(feature = "mpi")]
#[derive(Debug, Clone, PartialEq)]
pub struct DistApsp {
    pub distances: DistCsr<f64>,
    pub squarings: usize,
}

/// APSP on the mpi engine: rank 0 passes the graph (the others `None`),
/// which is split by the products of its first squaring; D stays split
/// by those rows from the first squaring to the last. Collective.
#[cfg(feature = "mpi")]
pub fn apsp_mpi(ranks: &Ranks, g: Option<&Csr<f64>>) -> Result<DistApsp> {
    let root = g.map(|g| {
        let d = first_distances(g, Engine::Cpu)?;
        let rows = RowPartition::by_products(&d, &d, ranks.size());
        Ok::<_, Error>((d, rows))
    });
    let root = ranks.agree(root.transpose())?;
    let mut d = DistCsr::scatter(ranks, root.as_ref().map(|(d, rows)| (d, rows)))?;
    drop(root);
    let checked = |d: &DistCsr<f64>| {
        let first_row = d.rows().range(ranks.rank()).start;
        ranks.agree(check_distances(d.local(), first_row))
    };
    let nonnegative = ranks.all(g.is_none_or(no_negative_weight));
    for squarings in 1..=squarings_limit(d.nrows(), nonnegative) {
        let next = mpi::spgemm::<MinPlus<f64>>(ranks, &d, &d, Fetch::Auto)?;
        if ranks.all(next.local().same_bits(d.local())) {
            checked(&d)?;
            return Ok(DistApsp {
                distances: d,
                squarings,
            });
        }
        d = next;
    }
    checked(&d)?;
    Err(still_falling())
}

/// Squarings past those that cover every simple path that a graph without
/// negative weights may take to stop rounding its distances lower (each
/// one sums paths already found in other orders).
const ROUNDING_SQUARINGS: usize = 64;

/// Squarings that can still shorten a path among `n` vertices, plus one
/// that confirms; with no negative weight, [`ROUNDING_SQUARINGS`] more.
fn squarings_limit(n: usize, nonnegative: bool) -> usize {
    let cover = (usize::BITS - n.max(2).saturating_sub(1).leading_zeros() + 1) as usize;
    cover + if nonnegative { ROUNDING_SQUARINGS } else { 0 }
}

/// Whether no edge of `g` weighs less than zero (NaN is refused apart).
fn no_negative_weight(g: &Csr<f64>) -> bool {
    !g.values().iter().any(|&w| w < 0.0)
}

fn still_falling() -> Error {
    Error::invalid(
        "APSP input",
        "distances still fall after enough squarings to cover every simple path, though no \
         vertex's distance to itself is negative: some cycle's weight is zero or negative only \
         up to rounding",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NaN distance is named as such, never taken for a cycle.
    #[test]
    fn a_nan_distance_is_named_not_a_cycle() {
        let d = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![0.0, f64::NAN, 0.0]).unwrap();
        let err = check_distances(&d, 0).unwrap_err().to_string();
        assert!(
            err.contains("from vertex 1 to vertex 2 is undefined (NaN)") && !err.contains("cycle"),
            "{err}"
        );
    }

    /// Rows numbered from `first_row` (an MPI rank's block): its diagonal
    /// is found there.
    #[test]
    fn a_blocks_negative_diagonal_names_its_vertex() {
        let block = Csr::try_new(1, 3, vec![0, 2], vec![0, 1], vec![5.0, -2.0]).unwrap();
        let err = check_distances(&block, 1).unwrap_err().to_string();
        assert!(
            err.contains("negative cycle: the distance from vertex 2 to itself is -2"),
            "{err}"
        );
        assert!(check_distances(&block, 0).is_ok());
    }
}
