//! Shortest paths from a batch of sources on the GPU, for a graph without
//! negative weights: Bellman–Ford for every source of the batch at once,
//! as repeated min-plus SpMM. X holds a column a source (n × k, row-major:
//! `X[v][r]`, +∞ where no path is known yet, 0 at the source); a round is
//! `X ← (Aᵀ ⊕ I) ⊗ X` over min-plus, each vertex taking the least of its
//! distance (the diagonal of zeros) and `X[u][r] + w(u, v)` over its
//! in-edges, until a round changes nothing (compared on the device: one
//! word comes back a round). Rounds are the most edges on a shortest path,
//! plus one.
//!
//! Each distance is a sum along its path from the source, `d[u] + w`, and
//! the least of them (rounding is monotone, so the least sum of the
//! rounded prefixes is what Dijkstra's settled distances add up to): the
//! CPU's bits. Dijkstra does less work on a graph many edges deep (a road
//! network: a round a hop); the GPU's rounds win where shortest paths are
//! few edges long and sources many (`app::sssp` and `app::apsp` take it
//! by name, `--engine cuda`).

use super::Gpu;
use super::matrix::queue_words_differ;
use super::spmm::{DenseLayout, SpmmKernel, SpmmPlan};
use crate::error::{Error, Result};
use crate::format::Csr;
use gpu_kernels::MinPlus;

/// Aᵀ with a zero on the diagonal (the in-edges of each vertex, and the
/// vertex itself at no cost), weights of −0 read as 0: the matrix a round
/// multiplies X by. `g` is square, without NaN or negative weights.
pub fn rounds_matrix(g: &Csr<f64>) -> Csr<f64> {
    let t = g.transpose();
    let n = t.nrows();
    let mut row_ptr = Vec::with_capacity(n + 1);
    let (mut cols, mut vals) = (
        Vec::with_capacity(t.nnz() + n),
        Vec::with_capacity(t.nnz() + n),
    );
    row_ptr.push(0);
    for v in 0..n {
        let (c, w) = t.row(v);
        let at = c.partition_point(|&u| (u as usize) < v);
        let self_loop = c.get(at).is_some_and(|&u| u as usize == v);
        cols.extend_from_slice(&c[..at]);
        vals.extend(w[..at].iter().map(|&w| w + 0.0));
        cols.push(v as u32);
        vals.push(0.0);
        let after = at + usize::from(self_loop);
        cols.extend_from_slice(&c[after..]);
        vals.extend(w[after..].iter().map(|&w| w + 0.0));
        row_ptr.push(cols.len());
    }
    Csr::from_parts_unchecked(n, n, row_ptr, cols, vals)
}

/// The distances from each of `sources` (vertices of the graph whose
/// [`rounds_matrix`] is `m`): row r is `sources[r]`'s, an entry for each
/// vertex it reaches.
pub fn distances(gpu: &Gpu, m: &Csr<f64>, sources: &[usize]) -> Result<Csr<f64>> {
    let (n, k) = (m.nrows(), sources.len());
    if n == 0 || k == 0 {
        return Ok(Csr::empty(k, n));
    }
    let mut plan =
        SpmmPlan::new::<MinPlus<f64>>(gpu, m, k, DenseLayout::RowMajor, SpmmKernel::Auto)?;
    let mut start = vec![f64::INFINITY; n * k];
    for (r, &s) in sources.iter().enumerate() {
        start[s * k + r] = 0.0;
    }
    let mut x = gpu.upload(&start)?;
    let mut y = gpu.output::<f64>(n * k)?;
    let mut differ = gpu.zeros::<u32>(1)?;
    let words = 2 * (n * k) as u64;
    // Rounds: at most a path's edges (n − 1), one to see nothing change.
    for _ in 0..n {
        plan.run::<MinPlus<f64>>(gpu, &x, &mut y)?;
        gpu.copy_into(&[0], &mut differ)?;
        // SAFETY: `x` and `y` hold n·k f64 each, 2·n·k words.
        unsafe {
            queue_words_differ(
                gpu,
                gpu.ptr(&x).cast(),
                gpu.ptr(&y).cast(),
                words,
                &mut differ,
            )?
        };
        std::mem::swap(&mut x, &mut y);
        if gpu.download(&differ)?[0] == 0 {
            return Ok(rows(&gpu.download(&x)?, n, k));
        }
    }
    Err(Error::Unavailable {
        engine: "cuda",
        reason: format!(
            "shortest paths did not settle in {n} rounds on the GPU (a weight below zero?); \
             use --engine cpu"
        ),
    })
}

/// The rows of the distances in `x` (n × k, row-major: a column a
/// source), the unreached (+∞) left out.
fn rows(x: &[f64], n: usize, k: usize) -> Csr<f64> {
    let mut row_ptr = Vec::with_capacity(k + 1);
    let (mut cols, mut dists) = (Vec::new(), Vec::new());
    row_ptr.push(0);
    for r in 0..k {
        for v in 0..n {
            let d = x[v * k + r];
            if d < f64::INFINITY {
                cols.push(v as u32);
                dists.push(d);
            }
        }
        row_ptr.push(cols.len());
    }
    Csr::from_parts_unchecked(k, n, row_ptr, cols, dists)
}
