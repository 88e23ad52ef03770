//! Triangle counting by LAGraph's Sandia method: with L the strictly lower
//! triangle of the undirected graph, each triangle `{a, b, c}` (`a` before
//! `b` before `c`) is one path `c → b → a` of L closed by the edge `c → a`,
//! so the count is the sum of `C⟨L⟩ = L ⊕.⊗ L` over plus-pair — the
//! masked SpGEMM that forms only the entries L has.
//!
//! The graph is A's pattern made undirected: an edge wherever A stores
//! `(i, j)` or `(j, i)`, values ignored (explicit zeros are edges), self
//! loops and repeats dropped. "Before" is an order of the vertices: by
//! number ([`TriangleOrder::Natural`]), or by degree first
//! ([`TriangleOrder::Degree`], LAGraph's choice for skewed graphs), which
//! gives each vertex only its lower-degree neighbours in L and so bounds
//! the work of a hub by the degrees of its neighbours rather than its
//! own. Vertices keep their numbers: the order only says which end of an
//! edge holds it in L (row v of L: v's neighbours before v).
//!
//! The count is the masked product summed, without forming it: row v of
//! `C⟨L⟩` over plus-pair sums to `Σ_{w ∈ L(v)} |L(w) ∩ L(v)|`, so the
//! kernel marks L(v) in a bitmap (a bit a vertex, cleared after the row)
//! and counts the marks each L(w) hits — the marker-per-row inner loop of
//! the masked SpGEMM (`ops::spgemm_masked`, which
//! the tests check it against) with no values and no C. Where A's pattern
//! is symmetric (checked in one pass), L is each row of A filtered, in one
//! more pass; otherwise each row is merged with the same row of Aᵀ first.
//! On the cpu engine the rows of the count are split into chunks of about
//! equal entries of L, a bitmap a thread. On the cuda engine L is made on
//! the host and the count runs on the GPU in its dot form, `L·Lᵀ⟨L⟩`
//! summed (a thread an entry `(v, w)` of L counts `|L(v) ∩ L(w)|`: Lᵀ's
//! columns are L's rows, so nothing is transposed and nothing formed;
//! `engine::cuda::masked::count_triangles`). A matrix already in GPU
//! memory with a symmetric pattern has L made there too
//! ([`triangles_on_device`]).

use crate::engine::shared::partition::{balanced_row_chunks, for_each_chunk};
use crate::engine::{Engine, Op};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::ops::transpose;
use crate::scalar::Scalar;
use std::ops::Range;

/// How the vertices are ordered before L is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TriangleOrder {
    /// By number.
    Natural,
    /// By degree, lowest first (ties by number).
    #[default]
    Degree,
}

impl TriangleOrder {
    /// Every order, in the order the command line lists them.
    pub const ALL: [TriangleOrder; 2] = [TriangleOrder::Natural, TriangleOrder::Degree];

    /// The name the command line spells.
    pub fn name(self) -> &'static str {
        match self {
            TriangleOrder::Natural => "natural",
            TriangleOrder::Degree => "degree",
        }
    }
}

crate::engine::parse_by_name!(TriangleOrder, "order");

/// The triangles of A's undirected graph and the graph's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangles {
    /// Triangles: each set of three vertices joined pairwise, once.
    pub count: u64,
    /// Undirected edges between distinct vertices (the entries of L).
    pub edges: usize,
}

/// Entries of L under which the count runs on one thread even on the cpu
/// engine: below it, waking the pool's threads costs about what they save.
const PARALLEL_MIN_EDGES: usize = 1 << 14;

/// The triangles of the undirected graph of A's pattern (square), vertices
/// ordered by `order`, the count on `engine` (serial, cpu, or cuda: L made
/// on the host, `L·L⟨L⟩` on the GPU; auto: cpu). A non-square A is
/// [`Error::Mismatch`].
pub fn triangles<T: Scalar>(a: &Csr<T>, order: TriangleOrder, engine: Engine) -> Result<Triangles> {
    if a.nrows() != a.ncols() {
        return Err(Error::mismatch(
            "triangles",
            format!("the graph is {}×{}, not square", a.nrows(), a.ncols()),
        ));
    }
    let engine = engine.resolve(Op::MaskedSpgemm)?;
    let host = if engine == Engine::Cuda {
        Engine::Cpu
    } else {
        engine
    };
    let l = lower_triangle(a, order, host)?;
    #[cfg(feature = "gpu")]
    if engine == Engine::Cuda {
        let gpu = crate::engine::cuda::Gpu::get()?;
        return Ok(Triangles {
            count: crate::engine::cuda::masked::count_triangles(gpu, &l.row_ptr, &l.col_idx)?,
            edges: l.col_idx.len(),
        });
    }
    let threads = if engine == Engine::Cpu && l.col_idx.len() >= PARALLEL_MIN_EDGES {
        rayon::current_num_threads()
    } else {
        1
    };
    Ok(Triangles {
        count: l.count(threads),
        edges: l.col_idx.len(),
    })
}

/// [`triangles`] of a matrix kept in GPU memory (square, any value type).
/// Where its pattern is symmetric (an undirected graph stored both ways,
/// checked on the device), L is made and counted on the device and only
/// the counts come back; otherwise the matrix is downloaded and counted
/// as [`triangles`] counts it on cuda. The same count and edges either
/// way.
#[cfg(feature = "gpu")]
pub fn triangles_on_device<T: Scalar>(
    a: &crate::engine::cuda::matrix::DevCsr<T>,
    order: TriangleOrder,
) -> Result<Triangles> {
    if a.n_rows != a.n_cols {
        return Err(Error::mismatch(
            "triangles",
            format!("the graph is {}×{}, not square", a.n_rows, a.n_cols),
        ));
    }
    let gpu = crate::engine::cuda::Gpu::get()?;
    let by_degree = order == TriangleOrder::Degree;
    match crate::engine::cuda::masked::count_triangles_on_device(gpu, a, by_degree)? {
        Some((count, edges)) => Ok(Triangles { count, edges }),
        None => triangles(&a.download(gpu)?, order, Engine::Cuda),
    }
}

/// L's pattern: row v holds v's neighbours before v, increasing.
struct Lower {
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
}

/// L of A's undirected pattern under `order` (the transpose, where A is
/// not symmetric, on `engine`).
fn lower_triangle<T: Scalar>(a: &Csr<T>, order: TriangleOrder, engine: Engine) -> Result<Lower> {
    // The check's cursors live in what becomes L's row pointers, so that
    // it touches no memory of its own.
    let mut row_ptr = vec![0; a.nrows() + 1];
    if pattern_is_symmetric(a, &mut row_ptr) {
        // Each edge is stored both ways (a self loop once) and L keeps one.
        return Ok(Lower::keep_before(
            row_ptr,
            order,
            |v| a.row(v).0.iter().copied(),
            |v| a.row_len(v),
            a.nnz() / 2,
        ));
    }
    let a_t = transpose(a, engine)?;
    Ok(Lower::keep_before(
        row_ptr,
        order,
        |v| union(a.row(v).0, a_t.row(v).0),
        // An edge stored both ways counts twice: enough to order by.
        |v| a.row_len(v) + a_t.row_len(v),
        a.nnz(),
    ))
}

impl Lower {
    /// L of the undirected graph where vertex v has the neighbours
    /// `neighbours(v)` (increasing, v itself allowed) and the degree
    /// `degree(v)` (read only by [`TriangleOrder::Degree`]), into
    /// `row_ptr` (n + 1 long, any contents) and an array reserving
    /// `edges` (at least L's entries, else it grows).
    fn keep_before<I: Iterator<Item = u32>>(
        mut row_ptr: Vec<usize>,
        order: TriangleOrder,
        neighbours: impl Fn(usize) -> I,
        degree: impl Fn(usize) -> usize,
        edges: usize,
    ) -> Lower {
        let n = row_ptr.len() - 1;
        // Reserved, not written: pages past L's end are never touched.
        let mut col_idx = Vec::with_capacity(edges);
        let rank = |v: usize| match order {
            TriangleOrder::Natural => (0, v),
            TriangleOrder::Degree => (degree(v), v),
        };
        for (v, start) in row_ptr[..n].iter_mut().enumerate() {
            *start = col_idx.len();
            let here = rank(v);
            col_idx.extend(neighbours(v).filter(|&w| rank(w as usize) < here));
        }
        row_ptr[n] = col_idx.len();
        Lower { row_ptr, col_idx }
    }

    fn row(&self, v: usize) -> &[u32] {
        &self.col_idx[self.row_ptr[v]..self.row_ptr[v + 1]]
    }

    /// The triangles, on `threads` threads (one: on the calling thread).
    fn count(&self, threads: usize) -> u64 {
        let n = self.row_ptr.len() - 1;
        let words = n.div_ceil(64);
        if threads == 1 {
            return self.count_rows(0..n, &mut vec![0; words]);
        }
        let chunks = balanced_row_chunks(&self.row_ptr);
        let mut tasks: Vec<(Vec<u64>, u64)> = (0..threads.min(chunks.len()))
            .map(|_| (vec![0; words], 0))
            .collect();
        for_each_chunk(&mut tasks, chunks, |(marks, count), _, rows| {
            *count += self.count_rows(rows, marks);
        });
        tasks.iter().map(|(_, count)| count).sum()
    }

    /// The sum of rows `rows` of `L ⊕.⊗ L⟨L⟩` over plus-pair: for each v,
    /// L(v) marked in `marks` (a bit a vertex; all clear before and
    /// after), the marks that each L(w), w ∈ L(v), hits.
    fn count_rows(&self, rows: Range<usize>, marks: &mut [u64]) -> u64 {
        let mut count = 0;
        for v in rows {
            let row = self.row(v);
            // A triangle closes at v through two of its neighbours in L.
            if row.len() < 2 {
                continue;
            }
            for &w in row {
                marks[w as usize / 64] |= 1 << (w % 64);
            }
            for &w in row {
                for &x in self.row(w as usize) {
                    count += (marks[x as usize / 64] >> (x % 64)) & 1;
                }
            }
            for &w in row {
                marks[w as usize / 64] = 0;
            }
        }
        count
    }
}

/// Whether A's pattern (square) is symmetric, self loops aside, in one
/// pass over its rows in order: row i's entries (i, j) left of the
/// diagonal must each have been matched, in turn, by row j's entry
/// (j, i), and each of its entries right of it matches the next unmatched
/// entry of row j. `matched` (n long or more, zeros) counts the entries of
/// each row matched so far; it is left dirty.
fn pattern_is_symmetric<T: Scalar>(a: &Csr<T>, matched: &mut [usize]) -> bool {
    for i in 0..a.nrows() {
        let cols = a.row(i).0;
        let left = cols.partition_point(|&j| (j as usize) < i);
        if matched[i] != left {
            return false;
        }
        for &j in &cols[left..] {
            let j = j as usize;
            if j == i {
                continue;
            }
            if a.row(j).0.get(matched[j]) != Some(&(i as u32)) {
                return false;
            }
            matched[j] += 1;
        }
    }
    true
}

/// The union of two increasing sequences, increasing.
fn union<'s>(x: &'s [u32], y: &'s [u32]) -> impl Iterator<Item = u32> + 's {
    let (mut p, mut q) = (0, 0);
    std::iter::from_fn(move || {
        let next = match (x.get(p), y.get(q)) {
            (Some(&i), Some(&j)) => i.min(j),
            (Some(&i), None) => i,
            (None, Some(&j)) => j,
            (None, None) => return None,
        };
        p += usize::from(x.get(p) == Some(&next));
        q += usize::from(y.get(q) == Some(&next));
        Some(next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Mask, spgemm_masked};
    use gpu_kernels::PlusPair;
    use std::collections::BTreeSet;

    /// Triangles by looking at every triple: the plain meaning.
    fn by_triples(a: &Csr<f64>) -> u64 {
        let n = a.nrows();
        let edge = |i: usize, j: usize| a.get(i, j).is_some() || a.get(j, i).is_some();
        let mut count = 0;
        for x in 0..n {
            for y in x + 1..n {
                for z in y + 1..n {
                    count += u64::from(edge(x, y) && edge(y, z) && edge(x, z));
                }
            }
        }
        count
    }

    /// A's pattern made undirected (self loops kept), or its strictly lower
    /// triangle (`lower`), by sets: the plain meaning.
    fn undirected(a: &Csr<f64>, lower: bool) -> Csr<f64> {
        let n = a.nrows();
        let mut rows = vec![BTreeSet::new(); n];
        for i in 0..n {
            for &j in a.row(i).0 {
                rows[i].insert(j);
                rows[j as usize].insert(i as u32);
            }
        }
        let (mut row_ptr, mut cols) = (vec![0], vec![]);
        for (i, row) in rows.iter().enumerate() {
            cols.extend(row.iter().filter(|&&j| !lower || (j as usize) < i));
            row_ptr.push(cols.len());
        }
        let ones = vec![1.0; cols.len()];
        Csr::try_new(n, n, row_ptr, cols, ones).unwrap()
    }

    #[test]
    fn counts_match_every_triple_on_random_graphs() {
        for seed in 0..40u64 {
            let n = (seed % 13) as usize + 1;
            let per_row = ((seed % 5) as usize + 1).min(n);
            let directed = crate::generate::uniform(n, n, 0, per_row, seed).unwrap();
            let want = by_triples(&directed);
            // Stored one way and both ways: the merge and the filter.
            for a in [undirected(&directed, false), directed] {
                for order in TriangleOrder::ALL {
                    for engine in [Engine::Serial, Engine::Cpu] {
                        let got = triangles(&a, order, engine).unwrap();
                        assert_eq!(got.count, want, "seed {seed}, {order:?}, {engine:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_count_is_the_masked_product_summed_on_large_graphs() {
        for seed in 0..3 {
            let directed = crate::generate::power_law(4000, 4000, 9.0, 2.1, seed).unwrap();
            let plain_lower = undirected(&directed, true);
            let mut counts = vec![];
            for a in [undirected(&directed, false), directed] {
                for order in TriangleOrder::ALL {
                    let l = lower_triangle(&a, order, Engine::Cpu).unwrap();
                    if order == TriangleOrder::Natural {
                        assert_eq!(
                            (&l.row_ptr[..], &l.col_idx[..]),
                            (plain_lower.row_ptr(), plain_lower.col_idx())
                        );
                    }
                    let n = a.nrows();
                    let ones = vec![1u64; l.col_idx.len()];
                    let l = Csr::try_new(n, n, l.row_ptr, l.col_idx, ones).unwrap();
                    let c = spgemm_masked::<PlusPair<u64>, u64>(
                        &l,
                        &l,
                        Mask::structural(&l),
                        Engine::Serial,
                    )
                    .unwrap();
                    let want: u64 = c.values().iter().sum();
                    assert!(l.nnz() >= PARALLEL_MIN_EDGES, "the cpu engine splits");
                    for engine in [Engine::Serial, Engine::Cpu] {
                        let got = triangles(&a, order, engine).unwrap();
                        assert_eq!((got.count, got.edges), (want, l.nnz()), "{order:?}");
                    }
                    counts.push(want);
                }
            }
            assert!(counts[0] > 0 && counts.iter().all(|&c| c == counts[0]));
        }
    }

    #[test]
    fn symmetry_is_seen_exactly() {
        for seed in 0..60u64 {
            let n = (seed % 9) as usize + 1;
            let a = crate::generate::uniform(n, n, 0, (seed as usize % 4).min(n), seed).unwrap();
            for a in [undirected(&a, false), a] {
                let t = a.transpose();
                let want = (a.row_ptr(), a.col_idx()) == (t.row_ptr(), t.col_idx());
                let got = pattern_is_symmetric(&a, &mut vec![0; n + 1]);
                assert_eq!(got, want, "seed {seed}");
            }
        }
    }

    #[test]
    fn a_clique_with_self_loops_and_both_directions() {
        // K4 stored both ways with self loops: 4 triangles, 6 edges.
        let n = 4;
        let mut rows = vec![0];
        let mut cols = vec![];
        for _ in 0..n {
            cols.extend(0..n as u32);
            rows.push(cols.len());
        }
        let a = Csr::try_new(n, n, rows, cols.clone(), vec![0.0; cols.len()]).unwrap();
        let t = triangles(&a, TriangleOrder::Degree, Engine::Cpu).unwrap();
        assert_eq!((t.count, t.edges), (4, 6));
        let e = triangles(
            &Csr::<f64>::empty(2, 3),
            TriangleOrder::Natural,
            Engine::Cpu,
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "triangles: the graph is 2×3, not square"
        );
        let none = triangles(
            &Csr::<f64>::empty(0, 0),
            TriangleOrder::Degree,
            Engine::Serial,
        );
        assert_eq!(none.unwrap(), Triangles { count: 0, edges: 0 });
    }
}
