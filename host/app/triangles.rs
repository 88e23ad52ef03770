//! Triangle counting by LAGraph's Sandia method: with L the strictly lower
//! triangle of the undirected graph, each triangle `{a, b, c}` (`a < b <
//! c`) is one path `c → b → a` of L closed by the edge `c → a`, so the
//! count is the sum of `C⟨L⟩ = L ⊕.⊗ L` over plus-pair — a masked SpGEMM
//! that forms only the entries L has.
//!
//! The graph is A's pattern made undirected: an edge wherever A stores
//! `(i, j)` or `(j, i)`, values ignored (explicit zeros are edges), self
//! loops and repeats dropped. Ordering the vertices by degree first
//! ([`TriangleOrder::Degree`], LAGraph's choice for skewed graphs) makes
//! each row of L hold a vertex's lower-degree neighbours, which bounds the
//! work of a hub by the degrees of its neighbours rather than its own.

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::ops::{Mask, spgemm_masked};
use crate::scalar::Scalar;
use gpu_kernels::PlusPair;
use rayon::prelude::*;

/// How the vertices are numbered before L is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TriangleOrder {
    /// As they are.
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

/// The triangles of the undirected graph of A's pattern (square), vertices
/// numbered by `order`, the masked product on `engine`. A non-square A is
/// [`Error::Mismatch`].
pub fn triangles<T: Scalar>(a: &Csr<T>, order: TriangleOrder, engine: Engine) -> Result<Triangles> {
    if a.nrows() != a.ncols() {
        return Err(Error::mismatch(
            "triangles",
            format!("the graph is {}×{}, not square", a.nrows(), a.ncols()),
        ));
    }
    let l = lower_triangle(a, order);
    let c = spgemm_masked::<PlusPair<u64>, u64>(&l, &l, Mask::structural(&l), engine)?;
    Ok(Triangles {
        count: c.values().par_iter().sum(),
        edges: l.nnz(),
    })
}

/// L: the strictly lower triangle of A's undirected pattern, vertices
/// renumbered by `order`, one entry (of value 1) per edge.
fn lower_triangle<T: Scalar>(a: &Csr<T>, order: TriangleOrder) -> Csr<u64> {
    let n = a.nrows();
    let new_id = numbering(a, order);
    // Each entry (i, j), i ≠ j, is the edge (max, min) of the new numbers:
    // counted per row of L, placed, then each row sorted and deduplicated.
    let edge = |i: usize, j: u32| {
        let (p, q) = (new_id[i], new_id[j as usize]);
        (p.max(q), p.min(q))
    };
    let mut row_ptr = vec![0usize; n + 1];
    for i in 0..n {
        for &j in a.row(i).0 {
            if j as usize != i {
                row_ptr[edge(i, j).0 as usize + 1] += 1;
            }
        }
    }
    for r in 0..n {
        row_ptr[r + 1] += row_ptr[r];
    }
    let mut next = row_ptr.clone();
    let mut cols = vec![0u32; row_ptr[n]];
    for i in 0..n {
        for &j in a.row(i).0 {
            if j as usize != i {
                let (hi, lo) = edge(i, j);
                cols[next[hi as usize]] = lo;
                next[hi as usize] += 1;
            }
        }
    }
    let mut rows: Vec<&mut [u32]> = Vec::with_capacity(n);
    let mut rest = cols.as_mut_slice();
    for r in 0..n {
        let (row, tail) = rest.split_at_mut(row_ptr[r + 1] - row_ptr[r]);
        rows.push(row);
        rest = tail;
    }
    let lens: Vec<usize> = rows
        .into_par_iter()
        .map(|row| {
            row.sort_unstable();
            let mut kept = 0;
            for k in 0..row.len() {
                if k == 0 || row[k] != row[kept - 1] {
                    row[kept] = row[k];
                    kept += 1;
                }
            }
            kept
        })
        .collect();
    // Close the gaps the repeats left.
    let mut out = 0;
    let mut l_ptr = Vec::with_capacity(n + 1);
    l_ptr.push(0);
    for r in 0..n {
        cols.copy_within(row_ptr[r]..row_ptr[r] + lens[r], out);
        out += lens[r];
        l_ptr.push(out);
    }
    cols.truncate(out);
    let ones = vec![1u64; out];
    Csr::from_parts_unchecked(n, n, l_ptr, cols, ones)
}

/// The new number of each vertex under `order`.
fn numbering<T: Scalar>(a: &Csr<T>, order: TriangleOrder) -> Vec<u32> {
    let n = a.nrows();
    match order {
        TriangleOrder::Natural => (0..n as u32).collect(),
        TriangleOrder::Degree => {
            // Entries in the vertex's row and column: its degree in the
            // undirected graph, up to repeats and self loops, which is
            // enough to order by.
            let mut degree: Vec<usize> = (0..n).map(|i| a.row_len(i)).collect();
            for &j in a.col_idx() {
                degree[j as usize] += 1;
            }
            let mut by_degree: Vec<u32> = (0..n as u32).collect();
            by_degree.par_sort_unstable_by_key(|&v| (degree[v as usize], v));
            let mut new_id = vec![0u32; n];
            for (rank, &v) in by_degree.iter().enumerate() {
                new_id[v as usize] = rank as u32;
            }
            new_id
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn counts_match_every_triple_on_random_graphs() {
        for seed in 0..40u64 {
            let n = (seed % 13) as usize + 1;
            let per_row = ((seed % 5) as usize + 1).min(n);
            let a = crate::generate::uniform(n, n, 0, per_row, seed).unwrap();
            let want = by_triples(&a);
            for order in TriangleOrder::ALL {
                for engine in [Engine::Serial, Engine::Cpu] {
                    let got = triangles(&a, order, engine).unwrap();
                    assert_eq!(got.count, want, "seed {seed}, {order:?}, {engine:?}");
                }
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
