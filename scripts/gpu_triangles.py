#!/usr/bin/env python3
"""Triangle counts on the GPU, spmx against CuPy as its users count them,
in one process on the same graphs:

    pip install ./python    # on the GPU machine: cupy, scipy
    python3 scripts/gpu_triangles.py G.mtx[.gz] ...

CuPy: ((L @ L).multiply(L)).sum() with L, the strict lower triangle of
the undirected pattern U, already on the device (warm pool). spmx on the
device: spmx.triangles(D) with D = spmx.asarray(U as a CuPy matrix),
L made and counted on the GPU. spmx from the host: spmx.triangles(S,
engine="cuda") and engine="cpu" from the file's pattern S (L made on the
host; on cuda the count runs on the device). Best of 5 calls each, after
one untimed; ms; the counts must agree."""

import sys
import time

import cupy as cp
import cupyx.scipy.sparse as cusp
import numpy as np
import scipy.io
import scipy.sparse as sp

import spmx


def best_ms(f, reps=5):
    f()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        result = f()
        cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - t)
    return best * 1e3, result


for path in sys.argv[1:]:
    A = sp.csr_matrix(scipy.io.mmread(path))
    P = sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    U = ((P + P.T) > 0).astype(np.float64).tocsr()
    U.sort_indices()
    L = sp.tril(U, k=-1, format="csr")
    L.sort_indices()
    dL = cusp.csr_matrix(L)
    cupy_ms, count = best_ms(lambda: int(((dL @ dL).multiply(dL)).sum()))
    D = spmx.asarray(cusp.csr_matrix(U))
    device_ms, on_device = best_ms(lambda: spmx.triangles(D))
    S = spmx.asarray(P)
    cuda_ms, on_cuda = best_ms(lambda: spmx.triangles(S, engine="cuda"))
    cpu_ms, on_cpu = best_ms(lambda: spmx.triangles(S, engine="cpu"))
    if not count == on_device == on_cuda == on_cpu:
        sys.exit(f"{path}: CuPy counts {count}, spmx {on_device} (device), {on_cuda} (cuda), {on_cpu} (cpu)")
    name = path.rsplit("/", 1)[-1].split(".")[0]
    print(
        f"{name:>16} CuPy {cupy_ms:7.3f} ms  spmx device {device_ms:7.3f} ms ({cupy_ms / device_ms:5.2f}x)  "
        f"from host: cuda {cuda_ms:7.3f} ms  cpu {cpu_ms:7.3f} ms  {count} triangles",
        flush=True,
    )
