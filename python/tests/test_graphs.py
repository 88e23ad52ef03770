"""spmx's graph algorithms from Python against scipy: BFS levels and
parents against unweighted shortest paths, triangle counts against
((L @ L) * L).sum(), on random graphs (empty rows, a dense row, 0x0, every
value type) and on bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import reference as ref
import spmx


def hops(G, source):
    """Unweighted distances from `source`, -1 where not reached."""
    pattern = sp.csr_array((np.ones(G.nnz), G.indices, G.indptr), G.shape)
    d = csgraph.shortest_path(pattern, unweighted=True, indices=source)
    return np.where(np.isfinite(d), d, -1).astype(np.int64)


@pytest.mark.parametrize("n", [1, 9, 40, 300])
@pytest.mark.parametrize("engine", ["serial", "cpu", "auto"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "bool", "int64", "uint32"])
def test_bfs_levels_and_parents(n, engine, dtype):
    rng = np.random.default_rng(n * 7 + len(engine) + len(dtype))
    G = ref.random_csr(rng, (n, n), density=min(1.0, 3 / n), dtype=dtype, dense_row=n > 1)
    source = n // 2
    levels, parents = spmx.bfs(G, source, engine=engine)
    assert levels.dtype == np.int64 and parents.dtype == np.int64
    np.testing.assert_array_equal(levels, hops(G, source))
    # Each parent is the lowest-numbered in-neighbour one level up.
    assert parents[source] == source
    incoming = sp.csr_array((np.ones(G.nnz), G.indices, G.indptr), G.shape).T.tocsr()
    for v in range(n):
        if v == source or levels[v] < 0:
            assert parents[v] == (source if v == source else -1)
            continue
        ins = incoming.indices[incoming.indptr[v] : incoming.indptr[v + 1]]
        up = sorted(u for u in ins if levels[u] == levels[v] - 1)
        assert parents[v] == up[0]


def test_bfs_of_an_empty_graph_and_bad_input():
    levels, parents = spmx.bfs(sp.csr_array((3, 3)), 1)
    np.testing.assert_array_equal(levels, [-1, 0, -1])
    np.testing.assert_array_equal(parents, [-1, 1, -1])
    with pytest.raises(ValueError, match="source"):
        spmx.bfs(sp.csr_array((3, 3)), 3)
    with pytest.raises(ValueError, match="square"):
        spmx.bfs(sp.csr_array((3, 4)), 0)


def scipy_triangles(G):
    """((L @ L) * L).sum() of the undirected pattern's lower triangle."""
    pattern = sp.csr_array((np.ones(G.nnz), G.indices, G.indptr), G.shape)
    undirected = ((pattern + pattern.T) != 0).astype(np.int64)
    L = sp.tril(undirected, -1, format="csr")
    return int((L @ L).multiply(L).sum())


@pytest.mark.parametrize("n", [0, 1, 12, 200])
@pytest.mark.parametrize("engine", ["serial", "cpu", "auto"])
@pytest.mark.parametrize("order", ["degree", "natural"])
def test_triangles_match_scipy(n, engine, order):
    rng = np.random.default_rng(n + len(engine) + len(order))
    G = ref.random_csr(rng, (n, n), density=min(1.0, 8 / max(n, 1)), dense_row=n > 1)
    assert spmx.triangles(G, order=order, engine=engine) == scipy_triangles(G)


def test_triangles_of_a_complete_graph_and_bad_input():
    K = sp.csr_array(np.ones((6, 6)))
    assert spmx.triangles(K) == 20
    with pytest.raises(ValueError, match="square"):
        spmx.triangles(sp.csr_array((3, 4)))
    with pytest.raises(ValueError, match="order"):
        spmx.triangles(K, order="random")
