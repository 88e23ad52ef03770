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

use crate::engine::{Engine, Op};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::ops::{VectorMask, spmv_masked, transpose};
use crate::scalar::Scalar;
use gpu_kernels::OrAnd;
use rayon::prelude::*;

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

/// A search's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bfs {
    /// Each vertex's level: hops from the source (`None`: not reached).
    pub level: Vec<Option<u32>>,
    /// Each reached vertex's parent in the search tree (the source's is
    /// itself).
    pub parent: Vec<Option<u32>>,
    /// Steps that pushed and steps that pulled.
    pub steps: (usize, usize),
}

/// [`bfs_with`] choosing the direction of each step.
pub fn bfs<T: Scalar>(a: &Csr<T>, source: usize, engine: Engine) -> Result<Bfs> {
    bfs_with(a, source, engine, BfsDirection::Auto)
}

/// Levels and parents of A's graph (square) from `source`, each step in
/// `direction`, on `engine` (serial or cpu, the same results; cuda has no
/// masked SpMV yet). A non-square A, or a source out of range, is
/// [`Error::Mismatch`].
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
    let engine = engine.resolve(Op::MaskedSpmv)?;
    let mut level = vec![None; n];
    let mut parent = vec![None; n];
    level[source] = Some(0);
    parent[source] = Some(source as u32);
    let mut visited = vec![false; n];
    visited[source] = true;
    let mut frontier = vec![source as u32];
    let mut claim = vec![u32::MAX; n];
    let mut unexplored = a.nnz() - a.row_len(source);
    // Aᵀ's pattern, made at the first pull.
    let mut a_t: Option<Csr<bool>> = None;
    let mut pulling = false;
    let mut last_frontier = 0;
    let mut steps = (0, 0);
    for depth in 1.. {
        if frontier.is_empty() {
            break;
        }
        let out_edges: usize = frontier.iter().map(|&u| a.row_len(u as usize)).sum();
        pulling = match direction {
            BfsDirection::Push => false,
            BfsDirection::Pull => true,
            BfsDirection::Auto if pulling => frontier.len() * PUSH_BELOW_VERTEX_SHARE >= n,
            // Beamer's rule: pull once a growing frontier's edges pass a
            // share of those left.
            BfsDirection::Auto => {
                a.nnz() >= PULL_MIN_EDGES
                    && frontier.len() > last_frontier
                    && out_edges * PULL_ABOVE_EDGE_SHARE > unexplored
            }
        };
        last_frontier = frontier.len();
        let reached = if pulling {
            steps.1 += 1;
            let a_t = match &mut a_t {
                Some(t) => t,
                slot => slot.insert(transpose(&a.map(|_| true), engine)?),
            };
            pull(a_t, &frontier, &visited, engine)?
        } else {
            steps.0 += 1;
            push(a, &frontier, &visited, &mut claim, out_edges, engine)
        };
        for &(v, p) in &reached {
            visited[v as usize] = true;
            level[v as usize] = Some(depth);
            parent[v as usize] = Some(p);
            unexplored -= a.row_len(v as usize);
        }
        frontier = reached.into_iter().map(|(v, _)| v).collect();
    }
    Ok(Bfs {
        level,
        parent,
        steps,
    })
}

/// Out-edges of a frontier under which a push runs on one thread: below
/// it, splitting the frontier costs more than the threads save.
const PARALLEL_PUSH_EDGES: usize = 1 << 16;

/// The unvisited out-neighbours of the frontier, each with its lowest
/// frontier in-neighbour, kept in `claim` (`u32::MAX`: none yet; a vertex
/// claimed is visited right after, so it is never asked again). A claim
/// only ever lowers, so the parents do not depend on the frontier's order
/// or on how the walk is split, and the frontier need not be sorted.
fn push<T: Scalar>(
    a: &Csr<T>,
    frontier: &[u32],
    visited: &[bool],
    claim: &mut [u32],
    out_edges: usize,
    engine: Engine,
) -> Vec<(u32, u32)> {
    let mut reached = Vec::new();
    let mut take = |v: u32, u: u32| {
        let claimed = &mut claim[v as usize];
        if *claimed == u32::MAX {
            reached.push(v);
        }
        *claimed = (*claimed).min(u);
    };
    if engine == Engine::Serial || out_edges < PARALLEL_PUSH_EDGES {
        for &u in frontier {
            for &v in a.row(u as usize).0 {
                if !visited[v as usize] {
                    take(v, u);
                }
            }
        }
    } else {
        // Candidates gathered in parallel, chunk by chunk, then claimed.
        let per_chunk = frontier.len().div_ceil(4 * rayon::current_num_threads());
        let found: Vec<Vec<(u32, u32)>> = frontier
            .par_chunks(per_chunk.max(1))
            .map(|chunk| {
                let mut found = Vec::new();
                for &u in chunk {
                    let unvisited = a
                        .row(u as usize)
                        .0
                        .iter()
                        .filter(|&&v| !visited[v as usize]);
                    found.extend(unvisited.map(|&v| (v, u)));
                }
                found
            })
            .collect();
        for (v, u) in found.into_iter().flatten() {
            take(v, u);
        }
    }
    reached
        .into_iter()
        .map(|v| (v, claim[v as usize]))
        .collect()
}

/// `q⟨¬visited, replace⟩ = Aᵀ ∨.∧ f`, each vertex of q with its lowest
/// in-neighbour in the frontier f.
fn pull(
    a_t: &Csr<bool>,
    frontier: &[u32],
    visited: &[bool],
    engine: Engine,
) -> Result<Vec<(u32, u32)>> {
    let n = a_t.nrows();
    let mut f = vec![false; n];
    for &u in frontier {
        f[u as usize] = true;
    }
    let mut q = vec![false; n];
    let unvisited = VectorMask {
        allowed: visited,
        complement: true,
    };
    spmv_masked::<OrAnd>(a_t, &f, &mut q, unvisited, true, engine)?;
    let parent_of = |v: usize| {
        let (cols, _) = a_t.row(v);
        (
            v as u32,
            *cols
                .iter()
                .find(|&&u| f[u as usize])
                .expect("q[v] says one is there"),
        )
    };
    Ok(if engine == Engine::Serial {
        (0..n).filter(|&v| q[v]).map(parent_of).collect()
    } else {
        (0..n)
            .into_par_iter()
            .filter(|&v| q[v])
            .map(parent_of)
            .collect()
    })
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
                            got.level, level,
                            "seed {seed} source {source} {direction:?}"
                        );
                        assert_eq!(
                            got.parent, parent,
                            "seed {seed} source {source} {direction:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_large_graph_gives_the_same_search_every_way() {
        let a = crate::generate::power_law(20_000, 20_000, 8.0, 2.1, 3).unwrap();
        let push = bfs_with(&a, 0, Engine::Serial, BfsDirection::Push).unwrap();
        for engine in [Engine::Serial, Engine::Cpu] {
            for direction in [BfsDirection::Auto, BfsDirection::Pull] {
                let got = bfs_with(&a, 0, engine, direction).unwrap();
                assert_eq!((&got.level, &got.parent), (&push.level, &push.parent));
            }
        }
    }

    #[test]
    fn bad_graphs_and_sources_are_errors() {
        let e = bfs(&Csr::<f64>::empty(2, 3), 0, Engine::Cpu).unwrap_err();
        assert_eq!(e.to_string(), "bfs: the graph is 2×3, not square");
        let e = bfs(&Csr::<f64>::empty(2, 2), 2, Engine::Cpu).unwrap_err();
        assert!(e.to_string().contains("the source is vertex 2"), "{e}");
        assert!(matches!(
            bfs(&Csr::<f64>::empty(2, 2), 0, Engine::Cuda),
            Err(Error::Unavailable { .. })
        ));
    }
}
