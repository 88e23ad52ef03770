//! Breadth-first search from one vertex: each vertex's level (hops from the
//! source) and parent, direction-optimizing (Beamer's push/pull).
//!
//! A stored entry `(i, j)` of A is an edge `i → j`, whatever its value. A
//! step expands the frontier (the vertices of the last level) either by
//! *push* — walking the frontier's out-edges, for a small frontier — or by
//! *pull* — the masked SpMV `q⟨¬visited, replace⟩ = Aᵀ ∨.∧ f` over or-and,
//! where every unvisited vertex looks for an in-neighbour in the frontier,
//! for a frontier whose out-edges outnumber what is left to explore. A
//! vertex's parent is its lowest-numbered in-neighbour in the previous
//! level, whichever way it was reached, so levels and parents are the
//! same on every engine and thread count. The source is its own parent.
//!
//! The search keeps one word a vertex, its level and parent packed as
//! `!(level << 32 | parent)`, 0 while unreached, and two lists:
//! the frontier and the next level. Zero meaning "unreached" lets the
//! words come zeroed from the allocator, untouched: a search pays the
//! first touch of a page (about 2 µs in the VM where we measured, a cost
//! a fresh process pays and a warm one does not) only where it reaches,
//! and no pass over every vertex to start; the lists are as long as the
//! longest level. A push claims `v` for `u` by raising `v`'s word to
//! `pack(level, u)`: an unreached vertex (0) takes it and joins the next
//! level, one reached at an earlier level (a lower level packs higher)
//! keeps its word, and one claimed at this level by a higher-numbered
//! parent takes the lower one. So an edge costs one read of its head's
//! word and no branch on the data, claims commute, and the frontier's
//! order, or how its walk is split between threads (atomic `fetch_max`),
//! changes nothing. The rows of the frontier's vertices a few ahead are
//! prefetched: read in search order, they are at random in memory, and a
//! graph just read is not all in the cache.
//!
//! On the cuda engine (asked for by name) every level is a push on the
//! GPU, claims raising the same words by an atomic max
//! (`engine::cuda::bfs`): the same levels and parents.

use crate::engine::{Engine, Op};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::ops::{VectorMask, spmv_masked, transpose};
use crate::scalar::Scalar;
use gpu_kernels::OrAnd;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Push turns to pull once the frontier's out-edges pass the unexplored
/// edges over this (Beamer et al.'s α, tuned there on graphs like ours).
const PULL_ABOVE_EDGE_SHARE: usize = 14;
/// Pull turns back to push once the frontier holds fewer than the vertices
/// over this (Beamer's β).
const PUSH_BELOW_VERTEX_SHARE: usize = 24;
/// Graphs of fewer edges always push: a pull first transposes A, which
/// costs about what a whole search by pushing does on a graph this small
/// (measured on the real set's graphs of 10⁵ edges: 3–10× slower with
/// pulls).
const PULL_MIN_EDGES: usize = 1 << 20;
/// Out-edges of a frontier under which a push runs on one thread: below
/// it, splitting the frontier costs more than the threads save (measured
/// on 2 cores: astro-ph's frontier of some 10⁵ out-edges took 0.72 ms
/// split against 0.52 ms on one thread, in a fresh process).
const PARALLEL_PUSH_EDGES: usize = 1 << 20;

/// How each step expands the frontier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BfsDirection {
    /// Push or pull, by the frontier's size (see the module docs).
    #[default]
    Auto,
    /// Always push.
    Push,
    /// Always pull.
    Pull,
}

/// A search's result: each vertex's level (hops from the source) and
/// parent in the search tree (the source's is itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bfs {
    /// Each vertex's level and parent, packed by `pack`; 0: not reached.
    words: Vec<u64>,
    /// Vertices reached, the source included.
    reached: usize,
    /// The deepest level reached.
    depth: u32,
    /// Steps that pushed and steps that pulled.
    pub steps: (usize, usize),
}

impl Bfs {
    /// Vertices of the graph searched.
    pub fn vertices(&self) -> usize {
        self.words.len()
    }

    /// Vertex `v`'s level: hops from the source (`None`: not reached, or
    /// `v` is not a vertex).
    pub fn level(&self, v: usize) -> Option<u32> {
        self.words.get(v).and_then(|&w| unpack(w)).map(|(l, _)| l)
    }

    /// Vertex `v`'s parent (`None`: not reached, or `v` is not a vertex).
    pub fn parent(&self, v: usize) -> Option<u32> {
        self.words.get(v).and_then(|&w| unpack(w)).map(|(_, p)| p)
    }

    /// Each vertex's level, in vertex order (`None`: not reached).
    pub fn levels(&self) -> impl Iterator<Item = Option<u32>> + '_ {
        self.words.iter().map(|&w| unpack(w).map(|(l, _)| l))
    }

    /// Each vertex's parent, in vertex order (`None`: not reached).
    pub fn parents(&self) -> impl Iterator<Item = Option<u32>> + '_ {
        self.words.iter().map(|&w| unpack(w).map(|(_, p)| p))
    }

    /// Vertices reached, the source included.
    pub fn reached(&self) -> usize {
        self.reached
    }

    /// The deepest level reached (0: the source alone).
    pub fn depth(&self) -> u32 {
        self.depth
    }
}

/// A reached vertex's word: its level and parent, complemented so that 0
/// is free to mean "unreached" (no level and parent pack to it: the
/// level of a vertex numbered `u32::MAX` is below `u32::MAX`) and a
/// lower level, then a lower parent, packs higher.
fn pack(level: u32, parent: u32) -> u64 {
    !((u64::from(level) << 32) | u64::from(parent))
}

/// The level and parent `word` packs (`None`: unreached).
fn unpack(word: u64) -> Option<(u32, u32)> {
    (word != 0).then_some(((!word >> 32) as u32, !word as u32))
}

/// [`bfs_with`] choosing the direction of each step.
pub fn bfs<T: Scalar>(a: &Csr<T>, source: usize, engine: Engine) -> Result<Bfs> {
    bfs_with(a, source, engine, BfsDirection::Auto)
}

/// Levels and parents of A's graph (square) from `source`, each step in
/// `direction`, on `engine` (serial, cpu or cuda, the same results; cuda
/// uploads A and pushes every step, whatever `direction`). A non-square
/// A, or a source out of range, is [`Error::Mismatch`].
pub fn bfs_with<T: Scalar>(
    a: &Csr<T>,
    source: usize,
    engine: Engine,
    direction: BfsDirection,
) -> Result<Bfs> {
    let n = a.nrows();
    if n != a.ncols() {
        return Err(Error::mismatch(
            "bfs",
            format!("the graph is {}×{}, not square", n, a.ncols()),
        ));
    }
    if source >= n {
        return Err(Error::mismatch(
            "bfs",
            format!(
                "the source is vertex {source} (counted from 0), and the graph has {n} vertices"
            ),
        ));
    }
    let engine = engine.resolve(Op::Bfs)?;
    #[cfg(feature = "gpu")]
    if engine == Engine::Cuda {
        let gpu = crate::engine::cuda::Gpu::get()?;
        return bfs_on_device(
            &crate::engine::cuda::matrix::DevCsr::upload(gpu, a)?,
            source,
        );
    }
    // Zeroed by the allocator, touched only where the search reaches.
    let mut words = vec![0u64; n];
    words[source] = pack(0, source as u32);
    // The frontier and the next level, each as long as its longest level
    // (or one row's out-edges past it: see `push`).
    let (mut frontier, mut found) = (vec![source as u32], 1);
    let mut next = Vec::new();
    let mut reached = 1;
    // A frontier may be split only in a graph of that many edges; smaller
    // ones never count their frontier's out-edges for it.
    let split =
        engine == Engine::Cpu && rayon::current_num_threads() > 1 && a.nnz() >= PARALLEL_PUSH_EDGES;
    // Beamer's rule weighs the frontier's out-edges against those left:
    // counted only where a step may pull by it.
    let beamer = direction == BfsDirection::Auto && a.nnz() >= PULL_MIN_EDGES;
    let mut unexplored = a.nnz() - a.row_len(source);
    let mut pull: Option<Pull> = None;
    let mut pulling = false;
    let (mut last_frontier, mut depth, mut steps) = (0, 0, (0, 0));
    while found > 0 {
        let here = &frontier[..found];
        let out_edges: usize = if beamer || split {
            here.iter().map(|&u| a.row_len(u as usize)).sum()
        } else {
            0
        };
        pulling = match direction {
            BfsDirection::Push => false,
            BfsDirection::Pull => true,
            BfsDirection::Auto if pulling => found * PUSH_BELOW_VERTEX_SHARE >= n,
            // Beamer's rule: pull once a growing frontier's edges pass a
            // share of those left.
            BfsDirection::Auto => {
                beamer && found > last_frontier && out_edges * PULL_ABOVE_EDGE_SHARE > unexplored
            }
        };
        last_frontier = found;
        depth += 1;
        let step = if pulling {
            steps.1 += 1;
            let pull = match &mut pull {
                Some(pull) => pull,
                slot => slot.insert(Pull::new(a, engine)?),
            };
            pull.step(&mut words, here, &mut next, depth, engine)?
        } else {
            steps.0 += 1;
            if split && out_edges >= PARALLEL_PUSH_EDGES {
                push_split(a, &mut words, here, &mut next, depth)
            } else {
                push(a, &mut words, here, &mut next, depth)
            }
        };
        if beamer {
            for &v in &next[..step] {
                unexplored -= a.row_len(v as usize);
            }
        }
        reached += step;
        found = step;
        std::mem::swap(&mut frontier, &mut next);
    }
    Ok(Bfs {
        words,
        reached,
        // The last step found no one.
        depth: depth - 1,
        steps,
    })
}

/// [`bfs`] of a graph kept in GPU memory (square), on the GPU: every
/// step a push (`engine::cuda::bfs`), the same levels and parents as the
/// CPU's search. A non-square graph, or a source out of range, is
/// [`Error::Mismatch`].
#[cfg(feature = "gpu")]
pub fn bfs_on_device<T>(a: &crate::engine::cuda::matrix::DevCsr<T>, source: usize) -> Result<Bfs> {
    let n = a.n_rows as usize;
    if n != a.n_cols as usize || source >= n {
        return Err(Error::mismatch(
            "bfs",
            format!(
                "the graph is {}×{} and the source vertex {source} (counted from 0): \
                 a search needs a square graph and a source below {n}",
                a.n_rows, a.n_cols
            ),
        ));
    }
    let gpu = crate::engine::cuda::Gpu::get()?;
    let found = crate::engine::cuda::bfs::bfs_words(gpu, a, source as u32)?;
    Ok(Bfs {
        words: found.words,
        reached: found.reached,
        depth: found.depth,
        steps: (found.depth as usize + 1, 0),
    })
}

/// How many vertices of the frontier ahead of the one walked its row
/// pointers, then its out-edges, are fetched into the cache: a cold
/// search (a fresh process, the graph just read) otherwise waits on memory
/// twice a vertex, the rows being read in search order, at random.
const PREFETCH_AHEAD: (usize, usize) = (32, 16);

/// Expands `frontier` (level `depth - 1`) by walking its out-edges,
/// writing the vertices it reaches first to `next` (grown as needed);
/// returns how many. Without a branch on the data: each head's word is
/// raised and the head written past those found, kept (the count moved
/// on) only if it was unreached — a cold search mispredicts no branch of
/// its own per vertex found.
fn push<T: Scalar>(
    a: &Csr<T>,
    words: &mut [u64],
    frontier: &[u32],
    next: &mut Vec<u32>,
    depth: u32,
) -> usize {
    let (row_ptr, col_idx) = (a.row_ptr(), a.col_idx());
    let mut found = 0;
    for (i, &u) in frontier.iter().enumerate() {
        if let Some(&w) = frontier.get(i + PREFETCH_AHEAD.0) {
            prefetch(row_ptr, w as usize);
        }
        if let Some(&w) = frontier.get(i + PREFETCH_AHEAD.1) {
            prefetch(col_idx, row_ptr[w as usize]);
        }
        let (u, claim) = (u as usize, pack(depth, u));
        let heads = &col_idx[row_ptr[u]..row_ptr[u + 1]];
        // Room for every head written: amortised doubling.
        if next.len() < found + heads.len() {
            next.resize((found + heads.len()).max(2 * next.len()), 0);
        }
        for &v in heads {
            let word = &mut words[v as usize];
            let was = *word;
            *word = was.max(claim);
            next[found] = v;
            found += usize::from(was == 0);
        }
    }
    found
}

/// Asks the cache for `slice[at]` (nothing where `at` is past the end, or
/// off x86_64).
#[inline(always)]
fn prefetch<T>(slice: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of x86_64, and a prefetch reads nothing (an
        // address past the end is not dereferenced).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(slice.as_ptr().wrapping_add(at).cast()) }
    }
}

/// [`push`] with the frontier split between the threads, each raising
/// words by an atomic `fetch_max` and keeping the vertices it found
/// unreached; their lists join `next` in the frontier's order.
fn push_split<T: Scalar>(
    a: &Csr<T>,
    words: &mut [u64],
    frontier: &[u32],
    next: &mut Vec<u32>,
    depth: u32,
) -> usize {
    let words = as_atomic(words);
    let per_chunk = frontier.len().div_ceil(4 * rayon::current_num_threads());
    let lists: Vec<Vec<u32>> = frontier
        .par_chunks(per_chunk.max(1))
        .map(|chunk| {
            let mut found = Vec::new();
            for &u in chunk {
                let claim = pack(depth, u);
                for &v in a.row(u as usize).0 {
                    let word = &words[v as usize];
                    if claim > word.load(Ordering::Relaxed)
                        && word.fetch_max(claim, Ordering::Relaxed) == 0
                    {
                        found.push(v);
                    }
                }
            }
            found
        })
        .collect();
    next.clear();
    for list in lists {
        next.extend(list);
    }
    next.len()
}

/// `words` as atomics, for threads to raise at once.
fn as_atomic(words: &mut [u64]) -> &[AtomicU64] {
    const { assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>()) };
    // SAFETY: AtomicU64 has u64's size (documented) and alignment (asserted
    // above), and the exclusive borrow of `words` leaves the atomics the
    // only access to them while they live.
    unsafe { &*(words as *mut [u64] as *const [AtomicU64]) }
}

/// What pull steps keep between them: Aᵀ's pattern (each vertex's
/// in-neighbours) and n-long masks of the frontier, of the vertices
/// visited, and of those the step reaches.
struct Pull {
    a_t: Csr<bool>,
    frontier: Vec<bool>,
    visited: Vec<bool>,
    reached: Vec<bool>,
}

impl Pull {
    fn new<T: Scalar>(a: &Csr<T>, engine: Engine) -> Result<Pull> {
        let n = a.nrows();
        Ok(Pull {
            a_t: transpose(&a.map(|_| true), engine)?,
            frontier: vec![false; n],
            visited: vec![false; n],
            reached: vec![false; n],
        })
    }

    /// Expands `frontier` by `q⟨¬visited, replace⟩ = Aᵀ ∨.∧ f`, each
    /// vertex of q with its lowest in-neighbour in f, written to `next`;
    /// returns how many.
    fn step(
        &mut self,
        words: &mut [u64],
        frontier: &[u32],
        next: &mut Vec<u32>,
        depth: u32,
        engine: Engine,
    ) -> Result<usize> {
        for (seen, &word) in self.visited.iter_mut().zip(words.iter()) {
            *seen = word != 0;
        }
        self.frontier.fill(false);
        for &u in frontier {
            self.frontier[u as usize] = true;
        }
        let unvisited = VectorMask {
            allowed: &self.visited,
            complement: true,
        };
        spmv_masked::<OrAnd>(
            &self.a_t,
            &self.frontier,
            &mut self.reached,
            unvisited,
            true,
            engine,
        )?;
        let (a_t, frontier, reached) = (&self.a_t, &self.frontier, &self.reached);
        let parent_of = |v: usize| {
            let (cols, _) = a_t.row(v);
            let lowest = cols.iter().find(|&&u| frontier[u as usize]);
            (v as u32, *lowest.expect("q[v] says one is there"))
        };
        let found: Vec<(u32, u32)> = if engine == Engine::Serial {
            (0..words.len())
                .filter(|&v| reached[v])
                .map(parent_of)
                .collect()
        } else {
            (0..words.len())
                .into_par_iter()
                .filter(|&v| reached[v])
                .map(parent_of)
                .collect()
        };
        next.clear();
        for &(v, u) in &found {
            words[v as usize] = pack(depth, u);
            next.push(v);
        }
        Ok(found.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Levels by a queue, parents as the lowest in-neighbour one level up:
    /// the plain meaning.
    fn by_queue(a: &Csr<f64>, source: usize) -> (Vec<Option<u32>>, Vec<Option<u32>>) {
        let n = a.nrows();
        let mut level = vec![None; n];
        level[source] = Some(0u32);
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            for &v in a.row(u).0 {
                if level[v as usize].is_none() {
                    level[v as usize] = Some(level[u].unwrap() + 1);
                    queue.push_back(v as usize);
                }
            }
        }
        let parent = (0..n)
            .map(|v| match level[v] {
                Some(0) => Some(v as u32),
                Some(l) => (0..n)
                    .find(|&u| level[u] == Some(l - 1) && a.get(u, v).is_some())
                    .map(|u| u as u32),
                None => None,
            })
            .collect();
        (level, parent)
    }

    #[test]
    fn levels_and_parents_match_a_queue_every_way() {
        for seed in 0..40u64 {
            let n = (seed % 17) as usize + 1;
            let per_row = ((seed % 4) as usize + 1).min(n);
            let a = crate::generate::uniform(n, n, 0, per_row, seed).unwrap();
            for source in [0, n / 2, n - 1] {
                let (level, parent) = by_queue(&a, source);
                for direction in [BfsDirection::Auto, BfsDirection::Push, BfsDirection::Pull] {
                    for engine in [Engine::Serial, Engine::Cpu] {
                        let got = bfs_with(&a, source, engine, direction).unwrap();
                        assert_eq!(
                            got.levels().collect::<Vec<_>>(),
                            level,
                            "seed {seed} source {source} {direction:?}"
                        );
                        assert_eq!(
                            got.parents().collect::<Vec<_>>(),
                            parent,
                            "seed {seed} source {source} {direction:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_split_push_claims_what_one_thread_does() {
        // Every level of a search, pushed on one thread and split on three
        // (whatever the pool here), from the same words.
        let a = crate::generate::power_law(5_000, 5_000, 12.0, 2.1, 7).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut words = vec![0u64; a.nrows()];
        words[0] = pack(0, 0);
        let mut frontier = vec![0u32];
        let mut depth = 0;
        while !frontier.is_empty() {
            depth += 1;
            let (mut one, mut split) = (words.clone(), words.clone());
            let (mut next_one, mut next_split) = (vec![], vec![]);
            let found = push(&a, &mut one, &frontier, &mut next_one, depth);
            let found_split =
                pool.install(|| push_split(&a, &mut split, &frontier, &mut next_split, depth));
            assert_eq!(one, split, "level {depth}");
            next_one.truncate(found);
            next_split.truncate(found_split);
            next_split.sort_unstable();
            let mut sorted = next_one.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, next_split, "level {depth}");
            (words, frontier) = (one, next_one);
        }
        assert!(depth > 3);
    }

    #[test]
    fn a_large_graph_gives_the_same_search_every_way() {
        let a = crate::generate::power_law(20_000, 20_000, 8.0, 2.1, 3).unwrap();
        let push = bfs_with(&a, 0, Engine::Serial, BfsDirection::Push).unwrap();
        for engine in [Engine::Serial, Engine::Cpu] {
            for direction in [BfsDirection::Auto, BfsDirection::Pull] {
                let got = bfs_with(&a, 0, engine, direction).unwrap();
                assert_eq!(
                    got,
                    Bfs {
                        steps: got.steps,
                        ..push.clone()
                    }
                );
            }
        }
    }

    #[test]
    fn bad_graphs_and_sources_are_errors() {
        let e = bfs(&Csr::<f64>::empty(2, 3), 0, Engine::Cpu).unwrap_err();
        assert_eq!(e.to_string(), "bfs: the graph is 2×3, not square");
        let e = bfs(&Csr::<f64>::empty(2, 2), 2, Engine::Cpu).unwrap_err();
        assert!(e.to_string().contains("the source is vertex 2"), "{e}");
        // On cuda: the CPU's levels and parents where a GPU is, else the
        // engine's absence.
        let cpu = bfs(&Csr::<f64>::empty(2, 2), 0, Engine::Cpu).unwrap();
        match bfs(&Csr::<f64>::empty(2, 2), 0, Engine::Cuda) {
            Ok(got) => assert_eq!(
                got,
                Bfs {
                    steps: got.steps,
                    ..cpu
                }
            ),
            Err(e) => assert!(matches!(e, Error::Unavailable { .. }), "{e}"),
        }
    }
}
