//! All-pairs shortest paths: from every vertex (many-source SSSP,
//! [`super::sssp()`]) on a graph without negative weights, else by
//! repeated min-plus squaring; [`Apsp::method`] says which.
//!
//! [`apsp`] takes Dijkstra wherever no weight is negative on the serial,
//! cpu and auto engines (auto runs on the cpu), and on cuda Bellman–Ford
//! for a batch of sources at once, rounds of min-plus SpMM (the same
//! bits); a graph with a negative weight is squared. Rule measured on the
//! cpu engine (2 cores): Dijkstra was faster at every density, so none sends a graph
//! without negative weights to the squarings (500 vertices at density
//! 0.01 / 0.2 / 1: 0.02 s / 0.04 / 0.14 against 1.1 s / 0.25 / 0.21;
//! complete, unit weights, 1,000 vertices, one squaring: 0.8 s against
//! 1.3; mbeacxc: 0.07 against 0.65; adder_dcop_05: 0.36 against 95).
//!
//! [`apsp_squaring`]: D₀ = G with a zero diagonal (staying put costs
//! nothing); Dₖ₊₁ = Dₖ ⊗ Dₖ over min-plus. After k squarings Dₖ holds the
//! shortest paths of at most 2ᵏ edges, so the closure is reached after ⌈log₂(n − 1)⌉ squarings, and
//! the loop stops as soon as a squaring changes nothing (bit for bit, on
//! every engine). It reports each squaring to its `progress`.
//!
//! Stored entries of G are edges, explicit zeros included (weight 0; a
//! weight of −0 is read as 0, so a cycle of zero weights written `-0` is
//! no negative cycle). An edge of weight +∞ is no edge (+∞ is min-plus's
//! zero: no shortest path uses one) and is left out, so it never meets a
//! −∞ edge as ∞ − ∞. A NaN weight is an error naming the edge. A CSR holds
//! one edge per (source, target): [`graph_from_coo`] builds it from
//! triplets that repeat one (parallel edges), keeping the lightest, where
//! `Coo::to_csr` would sum them.
//!
//! A negative cycle makes the distances from its vertices to themselves
//! fall below zero: whenever a D has a negative diagonal entry (−∞
//! included: a cycle through a −∞ edge converges to −∞ everywhere it
//! reaches, so only the diagonal tells), that is reported, naming a vertex
//! on it. A graph with a negative weight has D looked at after every
//! squaring, so a cycle is reported as soon as a squaring covers it, not
//! after the last one (the squarings of a graph with a negative cycle fill
//! D and grow slow). Distances that still change after enough squarings
//! to cover every simple path, with no negative diagonal, are reported too
//! (a cycle whose weight rounds to about zero). Without a negative weight
//! there is no such cycle: a later squaring can only sum a path already
//! found in another order and round it lower, so there the squarings go on
//! until nothing changes (at most `ROUNDING_SQUARINGS` more). A NaN
//! distance (a path whose length overflowed to +∞ meeting a −∞ edge) is an
//! error, never a cycle.
//!
//! Every array APSP allocates itself is allocated fallibly: a graph of many
//! vertices needs n + 1 row pointers and n diagonal entries however few its
//! edges, and one too large for memory is [`Error::TooLarge`] with the
//! bytes.

use super::sssp;
use crate::engine::Engine;
#[cfg(feature = "mpi")]
use crate::engine::mpi::{self, DistCsr, Fetch, Ranks, RowPartition};
use crate::error::{Error, Result};
use crate::format::{Coo, Csr, try_with_capacity};
use crate::ops::Resident;
use gpu_kernels::{MinPlus, Semiring};

/// The closure, how it was found and how many products it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Apsp {
    /// The shortest distance of every pair that is connected (absent: none).
    pub distances: Csr<f64>,
    /// How: by squarings or by Dijkstra from every vertex.
    pub method: ApspMethod,
    /// Min-plus squarings it took (0 by Dijkstra).
    pub squarings: usize,
}

/// How [`apsp`] finds the closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApspMethod {
    /// Repeated min-plus squaring of the distance matrix
    /// ([`apsp_squaring`]).
    Squaring,
    /// Dijkstra from every vertex ([`super::sssp()`]).
    Dijkstra,
    /// Bellman–Ford from every vertex, a batch of sources at once by
    /// rounds of min-plus SpMM on the GPU ([`super::sssp()`] on cuda).
    Rounds,
}

impl ApspMethod {
    /// The name a summary prints.
    pub fn name(self) -> &'static str {
        match self {
            ApspMethod::Squaring => "min-plus squaring",
            ApspMethod::Dijkstra => "Dijkstra from every vertex",
            ApspMethod::Rounds => "Bellman–Ford from every vertex, in batches on the GPU",
        }
    }
}

/// The method [`apsp`] takes for `g` on `engine`: for a graph without
/// negative weights, Dijkstra on the serial, cpu and auto engines and
/// Bellman–Ford rounds on cuda; else squaring.
pub fn method_for(g: &Csr<f64>, engine: Engine) -> ApspMethod {
    match engine {
        _ if !no_negative_weight(g) => ApspMethod::Squaring,
        Engine::Auto | Engine::Serial | Engine::Cpu => ApspMethod::Dijkstra,
        Engine::Cuda => ApspMethod::Rounds,
        Engine::Mpi => ApspMethod::Squaring,
    }
}

/// Where [`apsp_with_progress`] is, reported after each squaring that
/// changed D (so not after the last, which confirms the closure), before
/// D is looked at for a negative cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApspProgress {
    /// Squarings done, from 1.
    pub squaring: usize,
    /// Squarings expected: ⌈log₂(n − 1)⌉ cover every simple path, and one
    /// more confirms that nothing changes. A graph whose distances still
    /// round lower past them takes a few more.
    pub expected: usize,
    /// Entries of D now: the (source, target) pairs joined by a path found
    /// so far. `None` where D stays in GPU memory between squarings (the
    /// cuda engine, for a graph without negative weights), whose size is
    /// not read back.
    pub entries: Option<usize>,
}

/// All-pairs shortest-path distances of the weighted graph `g` (square).
pub fn apsp(g: &Csr<f64>, engine: Engine) -> Result<Apsp> {
    apsp_with_progress(g, engine, &mut |_| {})
}

/// [`apsp`], calling `progress` after each squaring that changed D (for a
/// display; see [`ApspProgress`]; Dijkstra reports none).
pub fn apsp_with_progress(
    g: &Csr<f64>,
    engine: Engine,
    progress: &mut dyn FnMut(ApspProgress),
) -> Result<Apsp> {
    match method_for(g, engine) {
        method @ (ApspMethod::Dijkstra | ApspMethod::Rounds) => Ok(Apsp {
            distances: check_graph(g).and_then(|()| sssp::all_pairs(g, engine))?,
            method,
            squarings: 0,
        }),
        ApspMethod::Squaring => apsp_squaring(g, engine, progress),
    }
}

/// How [`apsp_in_blocks`] found the closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApspHow {
    /// By squarings or by Dijkstra from every vertex.
    pub method: ApspMethod,
    /// Min-plus squarings it took (0 by Dijkstra).
    pub squarings: usize,
}

/// [`apsp_with_progress`] handing the distances to `each` a block of rows
/// at a time, in order (row i of the first block is vertex i's). By
/// Dijkstra, each block as soon as its sources are done (about 2²⁴
/// entries a block: see [`sssp::sssp_in_blocks`]), so that the n²
/// distances need never fit in memory; by squaring, which holds D whole by
/// nature, one block once closed. An error `each` returns stops the work
/// and is returned.
pub fn apsp_in_blocks(
    g: &Csr<f64>,
    engine: Engine,
    progress: &mut dyn FnMut(ApspProgress),
    each: &mut dyn FnMut(Csr<f64>) -> Result<()>,
) -> Result<ApspHow> {
    match method_for(g, engine) {
        method @ (ApspMethod::Dijkstra | ApspMethod::Rounds) => {
            check_graph(g)?;
            sssp::all_pairs_in_blocks(g, engine, each)?;
            Ok(ApspHow {
                method,
                squarings: 0,
            })
        }
        ApspMethod::Squaring => {
            let closed = apsp_squaring(g, engine, progress)?;
            each(closed.distances)?;
            Ok(ApspHow {
                method: ApspMethod::Squaring,
                squarings: closed.squarings,
            })
        }
    }
}

/// APSP by min-plus squaring whatever the graph, calling `progress` after
/// each squaring that changed D.
pub fn apsp_squaring(
    g: &Csr<f64>,
    engine: Engine,
    progress: &mut dyn FnMut(ApspProgress),
) -> Result<Apsp> {
    let nonnegative = no_negative_weight(g);
    let expected = squarings_limit(g.nrows(), false);
    let mut d = Resident::new(first_distances(g)?, engine)?;
    let engine = d.engine();
    for squaring in 1..=squarings_limit(g.nrows(), nonnegative) {
        let next = d.spgemm::<MinPlus<f64>>(&d)?.ok_or_else(|| {
            Error::TooLarge(format!(
                "squaring {squaring} of the distance matrix does not fit in GPU memory \
                 beside it; use --engine cpu"
            ))
        })?;
        if next.same_bits(&d)? {
            let distances = d.into_csr()?;
            check_distances(&distances, 0)?;
            return Ok(Apsp {
                distances,
                method: ApspMethod::Squaring,
                squarings: squaring,
            });
        }
        let at = |entries| ApspProgress {
            squaring,
            expected,
            entries,
        };
        // D comes back from its engine (on the host a move, no copy) to be
        // counted and, where the graph has a negative weight, looked at;
        // from the GPU only for that.
        d = if engine != Engine::Cuda || !nonnegative {
            let next = next.into_csr()?;
            progress(at(Some(next.nnz())));
            if !nonnegative {
                check_distances(&next, 0)?;
            }
            Resident::new(next, engine)?
        } else {
            progress(at(None));
            next
        };
    }
    check_distances(&d.into_csr()?, 0)?;
    Err(still_falling())
}

/// A graph built from triplets that may repeat a (source, target) pair,
/// for [`apsp`]: see [`graph_from_coo`].
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// One edge per (source, target): the lightest of its parallel edges.
    pub edges: Csr<f64>,
    /// Parallel edges combined away (triplets less edges), for the caller
    /// to report.
    pub combined: usize,
}

/// The graph of `g`'s triplets (a file as read) with each set of parallel
/// edges combined into the lightest, as min-plus adds them: a shortest
/// path takes the shortest of them (`Coo::to_csr` would sum them). A NaN
/// weight stays NaN, for [`apsp`] to refuse; arrays too large for memory
/// are [`Error::TooLarge`].
pub fn graph_from_coo(g: &Coo<f64>) -> Result<Graph> {
    // The summed CSR has the pattern; its values are then made anew.
    let summed = g.try_to_csr()?;
    let combined = g.nnz() - summed.nnz();
    if combined == 0 {
        return Ok(Graph {
            edges: summed,
            combined,
        });
    }
    let (n, m, row_ptr, cols, mut weights) = summed.into_parts();
    weights.fill(MinPlus::<f64>::zero());
    for ((&i, &j), &w) in g.rows().iter().zip(g.cols()).zip(g.values()) {
        let row = row_ptr[i as usize]..row_ptr[i as usize + 1];
        let at = cols[row.clone()]
            .binary_search(&j)
            .expect("the summed CSR holds every triplet's place");
        let k = row.start + at;
        weights[k] = MinPlus::<f64>::add(weights[k], w);
    }
    Ok(Graph {
        edges: Csr::from_parts_unchecked(n, m, row_ptr, cols, weights),
        combined,
    })
}

/// Ok when `g` is square without a NaN weight; else the error naming the
/// shapes or the edge (its vertices counted from 1, as in the file).
fn check_graph(g: &Csr<f64>) -> Result<()> {
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
    Ok(())
}

/// D₀: `g` (square, no NaN weight) without its +∞ edges, −0 read as 0, and
/// every diagonal entry min-ed with 0.
fn first_distances(g: &Csr<f64>) -> Result<Csr<f64>> {
    check_graph(g)?;
    let n = g.nrows();
    let edge = |&(i, j, w): &(usize, usize, f64)| i != j && w != f64::INFINITY;
    let nnz = entries(g, 0).filter(edge).count() + n;
    let mut row_ptr = try_with_capacity("APSP distance row pointers", n + 1)?;
    let mut cols = try_with_capacity("APSP distance columns", nnz)?;
    let mut distances = try_with_capacity("APSP distances", nnz)?;
    row_ptr.push(0);
    for i in 0..n {
        let (c, w) = g.row(i);
        let diagonal = c.partition_point(|&j| (j as usize) < i);
        let stay = match c.get(diagonal) {
            Some(&j) if j as usize == i => w[diagonal].min(0.0),
            _ => 0.0,
        };
        let edges =
            |r: std::ops::Range<usize>| c[r.clone()].iter().copied().zip(w[r].iter().copied());
        let from_i = edges(0..diagonal)
            .chain([(i as u32, stay)])
            .chain(edges(diagonal..c.len()).filter(|&(j, _)| j as usize != i));
        // `+ 0.0` turns −0 into +0 and leaves every other weight as it is.
        for (j, w) in from_i.filter(|&(_, w)| w != f64::INFINITY) {
            cols.push(j);
            distances.push(w + 0.0);
        }
        row_ptr.push(cols.len());
    }
    Ok(Csr::from_parts_unchecked(n, n, row_ptr, cols, distances))
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
    /// This rank's rows of the closure's distances.
    pub distances: DistCsr<f64>,
    /// Min-plus squarings it took.
    pub squarings: usize,
}

/// APSP on the mpi engine: rank 0 passes the graph (the others `None`),
/// which is split by the products of its first squaring; D stays split
/// by those rows from the first squaring to the last, and is looked at
/// after every squaring where the graph has a negative weight, as in
/// [`apsp`]. Collective.
#[cfg(feature = "mpi")]
pub fn apsp_mpi(ranks: &Ranks, g: Option<&Csr<f64>>) -> Result<DistApsp> {
    let root = g.map(|g| {
        let d = first_distances(g)?;
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
        if !nonnegative {
            checked(&next)?;
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
pub(crate) fn no_negative_weight(g: &Csr<f64>) -> bool {
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
