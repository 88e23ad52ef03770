#!/usr/bin/env python3
"""Graphs on the GPU: triangles against CuPy, breadth-first search and
all-pairs shortest paths against scipy, as their users run them, in one
process on the same graphs:

    pip install ./python    # on the GPU machine: cupy, scipy
    python3 scripts/gpu_graphs.py [--synthetic] [--no-triangles] [--apsp-max 6000] G.mtx[.gz] ...

Triangles (--no-triangles leaves them out): CuPy's
((L @ L).multiply(L)).sum() with L, the strict lower triangle of the
undirected pattern U, already on the device (warm pool), against
spmx.triangles(D) with D = U as a CuPy matrix (L made and counted on the
GPU); best of 5 calls, after one untimed; the counts must agree.

BFS: scipy's csgraph.breadth_first_order(S, 0, directed=True,
return_predecessors=True) on the file's pattern S (entry (i, j) an edge
i -> j), one CPU thread. spmx on the device: spmx.bfs(D, 0) with D the
pattern as a CuPy matrix (levels and parents back as NumPy arrays). spmx
from the host: spmx.bfs(S, 0, engine="cuda") (S uploaded each call) and
engine="cpu". --synthetic adds grids of 45 x 45 and 1000 x 1000 vertices
(road-like graphs, the larger two thousand levels deep; weights 1..10)
and a uniform random graph of 10^6 vertices and 16 edges each (six
levels). Best of 10 calls each, after one untimed; ms;
every spmx search must give the same levels, reaching what scipy reaches.

APSP, on graphs of at most --apsp-max vertices whose weights (the
file's values) are not negative: scipy's csgraph.shortest_path(A,
method="D") (Dijkstra from every vertex, one thread, a dense n x n array
back) against spmx.apsp(A, engine="cuda") (Bellman-Ford rounds of
min-plus SpMM for batches of sources on the GPU, the distances back as a
sparse matrix) and engine="cpu"; best of 3, after one untimed; the
distances must be scipy's within 1e-12 (the line says where bit for bit)."""

import sys
import time

import cupy as cp
import cupyx.scipy.sparse as cusp
import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse import csgraph
from scipy.sparse.csgraph import breadth_first_order

import spmx


def best_ms(f, reps=10):
    f()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        result = f()
        cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - t)
    return best * 1e3, result


def grid(side, rng):
    """A side x side grid, each vertex joined both ways to its right and
    lower neighbours, weights drawn from 1..10."""
    k = np.arange(side * side).reshape(side, side)
    pairs = [(k[:, :-1], k[:, 1:]), (k[:-1, :], k[1:, :])]
    rows = np.concatenate([a.ravel() for a, b in pairs] + [b.ravel() for a, b in pairs])
    cols = np.concatenate([b.ravel() for a, b in pairs] + [a.ravel() for a, b in pairs])
    weights = rng.integers(1, 11, rows.size).astype(np.float64)
    return sp.csr_matrix((weights, (rows, cols)), shape=(side * side,) * 2)


def synthetic():
    rng = np.random.default_rng(1)
    n, degree = 1_000_000, 16
    rows = np.repeat(np.arange(n), degree)
    uniform = sp.csr_matrix((np.ones(n * degree), (rows, rng.integers(0, n, n * degree))), shape=(n, n))
    return [("grid-45x45", grid(45, rng)), ("grid-1000x1000", grid(1000, rng)), ("uniform-1M-16", uniform)]


def graphs(args):
    for path in (a for a in args if a.endswith((".mtx", ".mtx.gz"))):
        A = sp.csr_matrix(scipy.io.mmread(path))
        if A.shape[0] == A.shape[1]:
            yield path.rsplit("/", 1)[-1].split(".")[0], A
    if "--synthetic" in args:
        yield from synthetic()


apsp_max = int(sys.argv[sys.argv.index("--apsp-max") + 1]) if "--apsp-max" in sys.argv else 6000
for name, A in graphs(sys.argv[1:]):
    S = sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    if "--no-triangles" not in sys.argv:
        U = ((S + S.T) > 0).astype(np.float64).tocsr()
        U.sort_indices()
        dL = cusp.csr_matrix(sp.tril(U, k=-1, format="csr"))
        cupy_ms, count = best_ms(lambda: int(((dL @ dL).multiply(dL)).sum()), 5)
        DU = spmx.asarray(cusp.csr_matrix(U))
        device_ms, on_device = best_ms(lambda: spmx.triangles(DU), 5)
        if count != on_device:
            sys.exit(f"{name}: CuPy counts {count} triangles, spmx {on_device}")
        print(
            f"{name:>16} {A.shape[0]:>8} vertices {A.nnz:>9} edges  triangles  CuPy {cupy_ms:8.3f} ms  "
            f"spmx device {device_ms:8.3f} ms ({cupy_ms / device_ms:6.2f}x)  {count} triangles",
            flush=True,
        )
    scipy_ms, (order, _) = best_ms(lambda: breadth_first_order(S, 0, directed=True, return_predecessors=True))
    D = spmx.asarray(cusp.csr_matrix(S))
    device_ms, on_device = best_ms(lambda: spmx.bfs(D, 0))
    H = spmx.asarray(S)
    cuda_ms, on_cuda = best_ms(lambda: spmx.bfs(H, 0, engine="cuda"))
    cpu_ms, on_cpu = best_ms(lambda: spmx.bfs(H, 0, engine="cpu"))
    levels = on_cpu[0]
    if not all(np.array_equal(levels, got[0]) and np.array_equal(on_cpu[1], got[1]) for got in (on_device, on_cuda)):
        sys.exit(f"{name}: the GPU's levels or parents differ from the CPU's")
    if set(order.tolist()) != set(np.flatnonzero(levels >= 0).tolist()):
        sys.exit(f"{name}: spmx reaches other vertices than scipy")
    print(
        f"{name:>16} {A.shape[0]:>8} vertices {A.nnz:>9} edges  BFS {int(levels.max()):>5} levels  "
        f"scipy {scipy_ms:8.3f} ms  spmx device {device_ms:8.3f} ms ({scipy_ms / device_ms:6.2f}x)  "
        f"host cuda {cuda_ms:8.3f} ms ({scipy_ms / cuda_ms:6.2f}x)  cpu {cpu_ms:8.3f} ms ({scipy_ms / cpu_ms:5.2f}x)",
        flush=True,
    )
    if A.shape[0] > apsp_max or (A.data < 0).any():
        continue
    scipy_ms, want = best_ms(lambda: csgraph.shortest_path(A, method="D"), 3)
    W = spmx.asarray(A)
    cuda_ms, on_cuda = best_ms(lambda: spmx.apsp(W, engine="cuda"), 3)
    cpu_ms, on_cpu = best_ms(lambda: spmx.apsp(W, engine="cpu"), 3)
    exact = True
    for got in (on_cuda, on_cpu):
        dense = np.full(A.shape, np.inf)
        d = got.to_scipy().tocoo()
        dense[d.row, d.col] = d.data
        if not np.allclose(dense, want, rtol=1e-12, atol=0):
            sys.exit(f"{name}: spmx's distances differ from scipy's")
        exact = exact and np.array_equal(dense, want)
    print(
        f"{name:>16} {A.shape[0]:>8} vertices {A.nnz:>9} edges  APSP  scipy {scipy_ms:9.1f} ms  "
        f"spmx cuda {cuda_ms:9.1f} ms ({scipy_ms / cuda_ms:6.2f}x)  cpu {cpu_ms:9.1f} ms ({scipy_ms / cpu_ms:5.2f}x)  "
        f"{'the same bits' if exact else 'within 1e-12'}",
        flush=True,
    )
