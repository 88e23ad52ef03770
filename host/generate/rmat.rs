//! R-MAT graphs (Chakrabarti, Zhan and Faloutsos, 2004): each edge picks one
//! quadrant of the adjacency matrix with probabilities a, b, c, d (top left,
//! top right, bottom left, bottom right) and recurses into it, one level per
//! bit of the row and column.
//!
//! Kept classic: unlike Graph500's generator, no noise on the probabilities
//! and no vertex permutation, so the heavy rows and columns sit at low
//! indices (with a + b > c + d, row 0 is the heaviest).
//! That is the hard case for splitting rows into contiguous blocks, which is
//! what load-balancing kernels must survive; a caller who wants the heavy
//! rows spread out can permute the result.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::rows::random_values;
use super::stream::{Purpose, chunk_rng};
use super::zeroed;
use crate::error::{Error, Result};
use crate::format::{Csr, MAX_DIM};

const KIND: &str = "R-MAT";

/// Edges per chunk: the unit of parallel work and of random streams.
const EDGE_CHUNK: usize = 1 << 16;

/// The parameters of an R-MAT graph: `2^scale` vertices,
/// `edge_factor · 2^scale` edges drawn, and the probabilities of the top-left
/// (`a`), top-right (`b`) and bottom-left (`c`) quadrants; the bottom-right
/// one gets `d = 1 − a − b − c`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmatParams {
    /// `2^scale` vertices.
    pub scale: u32,
    /// Edges drawn per vertex.
    pub edge_factor: usize,
    /// Probability of the top-left quadrant.
    pub a: f64,
    /// Probability of the top-right quadrant.
    pub b: f64,
    /// Probability of the bottom-left quadrant.
    pub c: f64,
}

impl RmatParams {
    /// Graph500's choice: a = 0.57, b = c = 0.19 (d = 0.05), edge factor 16.
    pub fn graph500(scale: u32) -> Self {
        RmatParams {
            scale,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
        }
    }

    /// Checks the parameters and returns the quadrant thresholds.
    fn quadrants(&self) -> Result<Quadrants> {
        if self.scale >= 32 {
            return Err(Error::TooLarge(format!(
                "{KIND}: scale {} gives 2^{} vertices, more than the largest dimension {MAX_DIM}",
                self.scale, self.scale
            )));
        }
        if self.edge_factor == 0 {
            return Err(Error::invalid(KIND, "edge_factor must be at least 1"));
        }
        for (name, p) in [("a", self.a), ("b", self.b), ("c", self.c)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::invalid(
                    KIND,
                    format!("probability {name} = {p} is not in [0, 1]"),
                ));
            }
        }
        let (ab, abc) = (self.a + self.b, self.a + self.b + self.c);
        // Decimal input such as 0.33 + 0.56 + 0.11 may sum to a hair above 1.
        if abc > 1.0 + 1e-12 {
            return Err(Error::invalid(
                KIND,
                format!("a + b + c = {abc} exceeds 1, leaving d = 1 − a − b − c negative"),
            ));
        }
        let scaled = |p: f64| ((p * TWO_32).round() as u64).min(1 << 32);
        Ok(Quadrants([scaled(self.a), scaled(ab), scaled(abc)]))
    }
}

const TWO_32: f64 = (1u64 << 32) as f64;

/// The cumulative probabilities a, a + b, a + b + c in units of 2⁻³², so
/// that a 32-bit draw picks a quadrant by integer comparisons alone.
struct Quadrants([u64; 3]);

impl Quadrants {
    /// One edge, as `row << 32 | column`: most significant bits first.
    #[inline]
    fn edge(&self, rng: &mut ChaCha8Rng, scale: u32) -> u64 {
        let (mut row, mut col) = (0u64, 0u64);
        for _ in 0..scale {
            let draw = u64::from(rng.next_u32());
            // 0: top left, 1: top right, 2: bottom left, 3: bottom right.
            let quadrant = self.0.iter().map(|&t| u64::from(draw >= t)).sum::<u64>();
            row = (row << 1) | (quadrant >> 1);
            col = (col << 1) | (quadrant & 1);
        }
        (row << 32) | col
    }
}

/// The R-MAT graph of `params` as a `2^scale × 2^scale` adjacency matrix.
///
/// `edge_factor · 2^scale` edges are drawn; an edge drawn more than once is
/// stored once (so `nnz` is at most that count), and self-loops are kept.
/// Values are uniform on (0, 1] (see the [module docs](super)), drawn after
/// duplicates are merged, so they do not depend on how often an edge was hit.
///
/// Errors: `scale ≥ 32`, `edge_factor = 0`, a probability outside [0, 1], or
/// `a + b + c > 1`.
pub fn rmat(params: RmatParams, seed: u64) -> Result<Csr<f64>> {
    let quadrants = params.quadrants()?;
    let n = 1usize << params.scale;
    let edges = params.edge_factor.checked_mul(n).ok_or_else(|| {
        Error::TooLarge(format!(
            "{KIND}: edge factor {} × 2^{} edges overflow usize",
            params.edge_factor, params.scale
        ))
    })?;
    let mut keys = zeroed::<u64>(edges, "R-MAT edges")?;
    keys.par_chunks_mut(EDGE_CHUNK)
        .enumerate()
        .for_each(|(chunk, keys)| {
            let mut rng = chunk_rng(seed, Purpose::Edges, chunk);
            for key in keys {
                *key = quadrants.edge(&mut rng, params.scale);
            }
        });
    // Sorting makes the order, and so the output, independent of threads.
    keys.par_sort_unstable();
    keys.dedup();

    let mut row_ptr = zeroed::<usize>(n + 1, "row pointers")?;
    for &key in &keys {
        row_ptr[(key >> 32) as usize + 1] += 1;
    }
    for i in 0..n {
        row_ptr[i + 1] += row_ptr[i];
    }
    let col_idx: Vec<u32> = keys.par_iter().map(|&key| key as u32).collect();
    drop(keys);
    let values = random_values(seed, &row_ptr)?;
    Ok(Csr::from_parts_unchecked(n, n, row_ptr, col_idx, values))
}
