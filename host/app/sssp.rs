//! Shortest paths from chosen sources: [`sssp`] gives one row of distances
//! per source, by Dijkstra (a binary heap) where no edge weighs less than
//! zero, and by Bellman–Ford over a frontier where one does.
//!
//! The graph is read as [`apsp`](mod@super::apsp) reads it: stored entries are
//! edges, explicit zeros included; a weight of −0 is 0; an edge of +∞ is
//! no edge; a NaN weight is an error naming the edge. A path whose length
//! overflows to +∞ is no path. Vertices are counted from 0 here, as the
//! sources are given (the file's row k is vertex k − 1).
//!
//! Lengths are summed from the source along the path, `d[u] + w`, as
//! scipy's `shortest_path` sums them, so that where the shortest path is
//! unique the distances are scipy's bit for bit. Each source is computed
//! on one thread: the cpu engine (and auto) runs the sources in parallel,
//! serial one after another, to the same bits. Engine cuda (by name; auto
//! runs on the cpu) computes a batch of sources at once by Bellman–Ford
//! rounds of min-plus SpMM (`engine::cuda::sssp`), to the same bits, for
//! a graph without negative weights (one with them is
//! [`Error::Unavailable`] there); mpi, which takes matrices split across
//! ranks, is refused as for the other whole-matrix calls.
//!
//! Bellman–Ford relaxes, each round, the out-edges of only the vertices
//! whose distance fell in the round before (min-plus SpMV restricted to
//! that frontier). Every distance carries the number of edges on its path;
//! one reaching n is a walk that repeats a vertex and fell going round: a
//! negative cycle (one of weight zero whose sum rounds below zero counts),
//! reported then, not after n rounds, naming the vertex that n steps back
//! along the parents lands on (where they reach the source instead, the
//! rounds go on and look again n edges later). A cycle through a −∞ edge
//! does not fall (−∞ stays −∞), so it is looked for once the rounds end,
//! among the vertices at −∞.
//!
//! The result's arrays and each thread's n-long scratch are allocated
//! fallibly: too large for memory is [`Error::TooLarge`], never an abort.

use crate::engine::{Engine, Op};
use crate::error::{Error, Result};
use crate::format::{Csr, try_with_capacity};
use rayon::prelude::*;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The distances from each of `sources` in the weighted graph `g`
/// (square): row r holds an entry for every vertex reachable from
/// `sources[r]`, the source itself at 0. A source out of range is an
/// error naming it, and so is a negative cycle reachable from a source.
pub fn sssp(g: &Csr<f64>, sources: &[usize], engine: Engine) -> Result<Csr<f64>> {
    check_sources(g, sources)?;
    distances(g, sources.len(), |r| sources[r], engine)
}

/// Ok when `g` passes [`check_graph`] and every source is one of its
/// vertices; else the error naming the first that is not.
fn check_sources(g: &Csr<f64>, sources: &[usize]) -> Result<()> {
    check_graph(g)?;
    if let Some((r, &s)) = sources.iter().enumerate().find(|&(_, &s)| s >= g.nrows()) {
        return Err(Error::invalid(
            "SSSP input",
            format!(
                "source {s} (number {} of the sources) is out of range: the graph has {} \
                 vertices, counted from 0",
                r + 1,
                g.nrows()
            ),
        ));
    }
    Ok(())
}

/// The method [`sssp`] takes for `g` on `engine` (resolved), as a summary
/// names it: `Dijkstra` where no weight is negative, else `Bellman–Ford`;
/// on cuda, Bellman–Ford's rounds for the sources at once.
pub fn method_name(g: &Csr<f64>, engine: Engine) -> &'static str {
    if !super::apsp::no_negative_weight(g) {
        "Bellman–Ford"
    } else if engine == Engine::Cuda {
        "Bellman–Ford rounds on the GPU, the sources at once"
    } else {
        "Dijkstra"
    }
}

/// The distances from every vertex of `g` (checked by [`check_graph`]), by
/// [`sssp`]'s method: row i is vertex i's.
pub(crate) fn all_pairs(g: &Csr<f64>, engine: Engine) -> Result<Csr<f64>> {
    distances(g, g.nrows(), |r| r, engine)
}

/// Ok when `g` is square without a NaN weight; else the error naming the
/// shapes or the edge.
pub(crate) fn check_graph(g: &Csr<f64>) -> Result<()> {
    if g.nrows() != g.ncols() {
        return Err(Error::mismatch(
            "sssp",
            format!("the graph must be square, not {}×{}", g.nrows(), g.ncols()),
        ));
    }
    for i in 0..g.nrows() {
        let (cols, weights) = g.row(i);
        if let Some(k) = weights.iter().position(|w| w.is_nan()) {
            return Err(Error::invalid(
                "SSSP input",
                format!(
                    "the edge from vertex {i} to vertex {} (counted from 0) has weight NaN",
                    cols[k]
                ),
            ));
        }
    }
    Ok(())
}

/// Sources whose rows are computed together, as one block: enough for
/// every thread, and few enough that their rows (at most n entries each)
/// stay within about `BLOCK_ENTRIES` entries (200 MB).
const BLOCK_ENTRIES: usize = 1 << 24;

/// [`sssp`] a block of rows at a time: `each` gets the rows of the next
/// sources as soon as they are computed, in order (row i of the first
/// block is `sources[0]`'s), so that the distances need never be held
/// whole: a block holds about 2²⁴ entries at most, or a row per thread. An
/// error `each` returns stops the work and is returned.
pub fn sssp_in_blocks(
    g: &Csr<f64>,
    sources: &[usize],
    engine: Engine,
    each: &mut dyn FnMut(Csr<f64>) -> Result<()>,
) -> Result<()> {
    check_sources(g, sources)?;
    in_blocks(
        g,
        sources.len(),
        |r| sources[r],
        engine,
        BLOCK_ENTRIES,
        each,
    )
}

/// The distances from every vertex of `g` (checked by [`check_graph`]), by
/// [`sssp`]'s method, a block of rows at a time as [`sssp_in_blocks`]
/// hands them: row i is vertex i's.
pub(crate) fn all_pairs_in_blocks(
    g: &Csr<f64>,
    engine: Engine,
    each: &mut dyn FnMut(Csr<f64>) -> Result<()>,
) -> Result<()> {
    in_blocks(g, g.nrows(), |r| r, engine, BLOCK_ENTRIES, each)
}

/// The rows of `count` sources, row r from `source(r)` (in range), whole.
fn distances(
    g: &Csr<f64>,
    count: usize,
    source: impl Fn(usize) -> usize + Sync,
    engine: Engine,
) -> Result<Csr<f64>> {
    let mut row_ptr = try_with_capacity("SSSP distance row pointers", count + 1)?;
    let (mut cols, mut dists) = (Vec::new(), Vec::new());
    row_ptr.push(0);
    in_blocks(g, count, source, engine, BLOCK_ENTRIES, &mut |block| {
        let start = cols.len();
        append(&mut cols, block.col_idx(), "SSSP distance columns")?;
        append(&mut dists, block.values(), "SSSP distances")?;
        row_ptr.extend(block.row_ptr()[1..].iter().map(|&p| start + p));
        Ok(())
    })?;
    Ok(Csr::from_parts_unchecked(
        count,
        g.nrows(),
        row_ptr,
        cols,
        dists,
    ))
}

/// The rows of `count` sources, row r from `source(r)` (in range), handed
/// to `each` in blocks of about `block_entries` entries at most (at least
/// a row per thread).
fn in_blocks(
    g: &Csr<f64>,
    count: usize,
    source: impl Fn(usize) -> usize + Sync,
    engine: Engine,
    block_entries: usize,
    each: &mut dyn FnMut(Csr<f64>) -> Result<()>,
) -> Result<()> {
    let n = g.nrows();
    let engine = engine.resolve(Op::Sssp)?;
    let parallel = engine != Engine::Serial;
    let negative = !super::apsp::no_negative_weight(g);
    #[cfg(feature = "gpu")]
    if engine == Engine::Cuda {
        return on_gpu(g, count, &source, negative, block_entries, each);
    }
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    let at_once = (block_entries / n.max(1)).max(threads);
    // A thread's scratch that could not be allocated is kept as the
    // message of its `Error::TooLarge`, for each of its sources to return.
    let new_scratch = || {
        Scratch::new(n, negative).map_err(|e| match e {
            Error::TooLarge(m) => m,
            e => e.to_string(),
        })
    };
    let row = |scratch: &mut std::result::Result<Scratch, String>, r: usize| match scratch {
        Ok(scratch) => scratch.row(g, source(r), negative),
        Err(m) => Err(Error::TooLarge(m.clone())),
    };
    let mut first = 0;
    while first < count {
        let rs = first..count.min(first + at_once);
        let rows: Vec<Result<Row>> = if parallel {
            rs.clone()
                .into_par_iter()
                .map_init(new_scratch, row)
                .collect()
        } else {
            let mut scratch = new_scratch();
            rs.clone().map(|r| row(&mut scratch, r)).collect()
        };
        let mut row_ptr = try_with_capacity("SSSP distance row pointers", rs.len() + 1)?;
        let (mut cols, mut dists) = (Vec::new(), Vec::new());
        row_ptr.push(0);
        for row in rows {
            let row = row?;
            append(&mut cols, &row.cols, "SSSP distance columns")?;
            append(&mut dists, &row.dists, "SSSP distances")?;
            row_ptr.push(cols.len());
        }
        each(Csr::from_parts_unchecked(rs.len(), n, row_ptr, cols, dists))?;
        first = rs.end;
    }
    Ok(())
}

/// [`in_blocks`] on the GPU: a batch of sources a block, each by
/// `engine::cuda::sssp` (Bellman–Ford rounds of min-plus SpMM), for a
/// graph without negative weights.
#[cfg(feature = "gpu")]
fn on_gpu(
    g: &Csr<f64>,
    count: usize,
    source: &(impl Fn(usize) -> usize + Sync),
    negative: bool,
    block_entries: usize,
    each: &mut dyn FnMut(Csr<f64>) -> Result<()>,
) -> Result<()> {
    if negative {
        return Err(Error::Unavailable {
            engine: "cuda",
            reason: "the GPU's shortest paths take graphs without negative weights; \
                     use --engine cpu (Bellman–Ford there)"
                .into(),
        });
    }
    let gpu = crate::engine::cuda::Gpu::get()?;
    let m = crate::engine::cuda::sssp::rounds_matrix(g);
    let at_once = (block_entries / g.nrows().max(1)).max(1);
    let mut first = 0;
    while first < count {
        let batch: Vec<usize> = (first..count.min(first + at_once)).map(source).collect();
        each(crate::engine::cuda::sssp::distances(gpu, &m, &batch)?)?;
        first += batch.len();
    }
    Ok(())
}

/// `more` appended to `v`, or [`Error::TooLarge`] naming `what`.
fn append<T: Copy>(v: &mut Vec<T>, more: &[T], what: &str) -> Result<()> {
    v.try_reserve(more.len()).map_err(|_| {
        crate::format::too_large(
            what,
            v.len() + more.len(),
            size_of::<T>(),
            "which cannot be allocated",
        )
    })?;
    v.extend_from_slice(more);
    Ok(())
}

/// One source's distances, by vertex.
struct Row {
    cols: Vec<u32>,
    dists: Vec<f64>,
}

/// A distance in the heap: ordered by `f64::total_cmp` (no NaN reaches
/// it: weights are checked, and no +∞ is ever pushed).
#[derive(Clone, Copy, PartialEq)]
struct Dist(f64);

impl Eq for Dist {}

impl PartialOrd for Dist {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dist {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// No parent: the source, or a vertex not reached.
const NO_PARENT: u32 = u32::MAX;

/// One thread's arrays over the vertices, kept between its sources: only
/// the entries a source touched are put back after it.
struct Scratch {
    /// +∞ where not reached.
    dist: Vec<f64>,
    /// The vertices reached, in the order first reached.
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<(Dist, u32)>>,
    /// Bellman–Ford's, where a weight is negative.
    frontier: Option<Frontier>,
}

/// Bellman–Ford's arrays.
struct Frontier {
    /// The vertex each distance came through.
    parent: Vec<u32>,
    /// Edges on the path of each distance.
    edges: Vec<usize>,
    /// Whether the vertex is in `next` already.
    queued: Vec<bool>,
    next: Vec<u32>,
}

/// `len` copies of `value`, or [`Error::TooLarge`] naming `what`.
fn filled<E: Clone>(what: &str, len: usize, value: E) -> Result<Vec<E>> {
    let mut v = try_with_capacity(what, len)?;
    v.resize(len, value);
    Ok(v)
}

impl Scratch {
    fn new(n: usize, negative: bool) -> Result<Scratch> {
        let frontier = if negative {
            Some(Frontier {
                parent: filled("SSSP parents", n, NO_PARENT)?,
                edges: filled("SSSP path edge counts", n, 0)?,
                queued: filled("SSSP frontier marks", n, false)?,
                next: Vec::new(),
            })
        } else {
            None
        };
        Ok(Scratch {
            dist: filled("SSSP distances of one source", n, f64::INFINITY)?,
            touched: Vec::new(),
            heap: BinaryHeap::new(),
            frontier,
        })
    }

    /// The distances from `s`, and the scratch put back.
    fn row(&mut self, g: &Csr<f64>, s: usize, negative: bool) -> Result<Row> {
        self.dist[s] = 0.0;
        self.touched.push(s as u32);
        let found = if negative {
            self.bellman_ford(g, s)
        } else {
            self.dijkstra(g);
            Ok(())
        };
        self.touched.sort_unstable();
        let row = found.map(|()| Row {
            cols: self.touched.clone(),
            dists: self
                .touched
                .iter()
                .map(|&v| self.dist[v as usize])
                .collect(),
        });
        for &v in &self.touched {
            self.dist[v as usize] = f64::INFINITY;
            if let Some(f) = &mut self.frontier {
                f.parent[v as usize] = NO_PARENT;
                f.edges[v as usize] = 0;
                f.queued[v as usize] = false;
            }
        }
        self.touched.clear();
        self.heap.clear();
        if let Some(f) = &mut self.frontier {
            f.next.clear();
        }
        row
    }

    /// Dijkstra from the one vertex touched, at 0 (no weight negative).
    fn dijkstra(&mut self, g: &Csr<f64>) {
        let dist = &mut self.dist;
        self.heap.push(Reverse((Dist(0.0), self.touched[0])));
        while let Some(Reverse((Dist(du), u))) = self.heap.pop() {
            if du > dist[u as usize] {
                continue; // Superseded by a shorter path, already settled.
            }
            let (cols, weights) = g.row(u as usize);
            for (&v, &w) in cols.iter().zip(weights) {
                // +∞ (an edge of +∞, or an overflow) is never below +∞.
                let via = du + w;
                let dv = &mut dist[v as usize];
                if via < *dv {
                    if *dv == f64::INFINITY {
                        self.touched.push(v);
                    }
                    *dv = via;
                    self.heap.push(Reverse((Dist(via), v)));
                }
            }
        }
    }

    /// Bellman–Ford from `s` over a frontier; a negative cycle reachable
    /// from `s` is an error naming a vertex on it.
    fn bellman_ford(&mut self, g: &Csr<f64>, s: usize) -> Result<()> {
        let n = g.nrows();
        let f = self
            .frontier
            .as_mut()
            .expect("a graph with a negative weight");
        let dist = &mut self.dist;
        let mut frontier = vec![s as u32];
        // The path edge count at which the parents are next followed to a
        // cycle: n, then every n more while they end at `s` instead.
        let mut check_at = n;
        while !frontier.is_empty() {
            for &u in &frontier {
                f.queued[u as usize] = false;
            }
            for &u in &frontier {
                let (du, eu) = (dist[u as usize], f.edges[u as usize]);
                let (cols, weights) = g.row(u as usize);
                for (&v, &w) in cols.iter().zip(weights) {
                    // An edge of +∞ is no edge (−∞ + +∞ would be NaN).
                    if w == f64::INFINITY {
                        continue;
                    }
                    let via = du + w;
                    let v = v as usize;
                    if via < dist[v] {
                        if dist[v] == f64::INFINITY {
                            self.touched.push(v as u32);
                        }
                        (dist[v], f.parent[v], f.edges[v]) = (via, u, eu + 1);
                        if f.edges[v] >= check_at {
                            if let Some(on) = on_parent_cycle(&f.parent, v) {
                                return Err(negative_cycle(on, s, ""));
                            }
                            check_at += n;
                        }
                        if !f.queued[v] {
                            f.queued[v] = true;
                            f.next.push(v as u32);
                        }
                    }
                }
            }
            frontier.clear();
            std::mem::swap(&mut frontier, &mut f.next);
        }
        match cycle_through_neg_inf(g, dist, &self.touched)? {
            Some(on) => Err(negative_cycle(on, s, " through an edge of weight -inf")),
            None => Ok(()),
        }
    }
}

/// The vertex `n` parents back from `v` (n vertices), on the cycle the
/// parents then go round; `None` where they reach the source first.
fn on_parent_cycle(parent: &[u32], v: usize) -> Option<usize> {
    let mut at = v;
    for _ in 0..parent.len() {
        match parent[at] {
            NO_PARENT => return None,
            p => at = p as usize,
        }
    }
    Some(at)
}

fn negative_cycle(on: usize, s: usize, how: &str) -> Error {
    Error::invalid(
        "SSSP input",
        format!(
            "the graph has a negative cycle{how}, through vertex {on} (counted from 0), \
             reachable from source {s}"
        ),
    )
}

/// A vertex on a cycle through an edge of −∞ among the vertices `reached`
/// (at distance `dist`), if there is one: such an edge (u, v) at −∞ lies
/// on a cycle when u and v are in one strongly connected component of the
/// vertices at −∞ (Tarjan's, without recursion), which every vertex an
/// edge leaves from there belongs to.
fn cycle_through_neg_inf(g: &Csr<f64>, dist: &[f64], reached: &[u32]) -> Result<Option<usize>> {
    let at_neg_inf = |v: usize| dist[v] == f64::NEG_INFINITY;
    let has_neg_inf_edge = reached
        .iter()
        .any(|&u| at_neg_inf(u as usize) && g.row(u as usize).1.contains(&f64::NEG_INFINITY));
    if !has_neg_inf_edge {
        return Ok(None);
    }
    const UNSEEN: u32 = u32::MAX;
    let n = g.nrows();
    // Each vertex's visit number, its lowest reachable on the stack, and,
    // once its component is complete, that component's root.
    let mut index = filled("SSSP component numbers", n, UNSEEN)?;
    let mut low = filled("SSSP component links", n, UNSEEN)?;
    let mut component = filled("SSSP components", n, UNSEEN)?;
    // The vertices visited whose component is not complete, and the depth
    // first search's path: each vertex with its next edge to follow.
    let (mut stack, mut path) = (Vec::new(), Vec::<(usize, usize)>::new());
    let mut visits = 0;
    for &root in reached {
        let root = root as usize;
        if !at_neg_inf(root) || index[root] != UNSEEN {
            continue;
        }
        let mut next = Some(root);
        loop {
            if let Some(v) = next.take() {
                (index[v], low[v]) = (visits, visits);
                visits += 1;
                stack.push(v);
                path.push((v, 0));
            }
            let Some(&mut (v, ref mut edge)) = path.last_mut() else {
                break;
            };
            let (cols, weights) = g.row(v);
            if let Some((&w, &weight)) = cols.get(*edge).zip(weights.get(*edge)) {
                *edge += 1;
                let w = w as usize;
                if weight == f64::INFINITY {
                    continue;
                }
                if index[w] == UNSEEN {
                    next = Some(w);
                } else if component[w] == UNSEEN {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(x) = stack.pop() {
                    component[x] = v as u32;
                    if x == v {
                        break;
                    }
                }
            }
        }
    }
    Ok(reached.iter().map(|&u| u as usize).find(|&u| {
        let (cols, weights) = g.row(u);
        at_neg_inf(u)
            && cols
                .iter()
                .zip(weights)
                .any(|(&v, &w)| w == f64::NEG_INFINITY && component[v as usize] == component[u])
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_in_blocks_join_to_the_whole() {
        // Weights from 0.5 to 4.5, and a mixed-sign graph (Bellman–Ford).
        let g = crate::generate::uniform(300, 300, 1, 6, 11)
            .unwrap()
            .map(|w| 0.5 + 4.0 * w);
        let mixed = g.map(|w| if w > 4.0 { -0.25 } else { w });
        for g in [&g, &mixed] {
            let sources: Vec<usize> = (0..300).rev().step_by(7).collect();
            for engine in [Engine::Serial, Engine::Cpu] {
                let whole = distances(g, sources.len(), |r| sources[r], engine).unwrap();
                let mut joined = Vec::new();
                in_blocks(g, sources.len(), |r| sources[r], engine, 1000, &mut |b| {
                    joined.push(b);
                    Ok(())
                })
                .unwrap();
                assert!(joined.len() > 1, "{} blocks", joined.len());
                // 1000 entries a block: 3 rows, or a row per thread.
                let at_once = 3.max(rayon::current_num_threads());
                assert!(joined.iter().all(|b| b.nrows() <= at_once));
                let rows: Vec<(Vec<u32>, Vec<f64>)> = (joined.iter())
                    .flat_map(|b| {
                        (0..b.nrows()).map(|i| (b.row(i).0.to_vec(), b.row(i).1.to_vec()))
                    })
                    .collect();
                let want: Vec<(Vec<u32>, Vec<f64>)> = (0..whole.nrows())
                    .map(|i| (whole.row(i).0.to_vec(), whole.row(i).1.to_vec()))
                    .collect();
                assert!(rows == want, "{engine:?}");
            }
        }
    }
}
