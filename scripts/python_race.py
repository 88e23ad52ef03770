#!/usr/bin/env python3
"""spmx from Python against scipy, python-graphblas (CPU) and CuPy (GPU) on
the same matrices, end to end: C = A·A from a scipy CSR to a scipy CSR
(spmx: asarray, the product, to_scipy). Also the per-call overhead of the
Python layer: the whole call of a product too small to cost anything
(1×1, and 8×8 with 3 entries a row), against the extension's own call.
On a GPU, also SpMV by a CuPy vector, spmx against CuPy (cuSPARSE).

    pip install ./python python-graphblas    # cupy too, on a GPU machine
    python3 scripts/python_race.py                        # 1M × 1M, 5 a row
    python3 scripts/python_race.py --n 200000 --per-row 8 --real ../shared/bench-data/real/wing.mtx.gz

Prints one line per (matrix, library) with the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import spmx


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def uniform(n, per_row, seed=2026):
    """n × n, `per_row` uniformly random columns a row (duplicates summed)."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, n, n * per_row, dtype=np.int32)
    indptr = np.arange(0, n * per_row + 1, per_row, dtype=np.int32)
    A = sp.csr_array((rng.random(n * per_row), cols, indptr), shape=(n, n))
    A.sum_duplicates()
    return A


def overhead(repeat):
    """µs a call: the whole Python call, and the extension's call alone."""
    rows = []
    for name, A in [
        ("1x1", sp.csr_array(np.ones((1, 1)))),
        ("8x8, 3 a row", uniform(8, 3)),
    ]:
        S = spmx.asarray(A)
        native = S._operand()
        for engine in ["serial", "cpu", "auto"]:
            calls = 2000
            full = best(lambda: [spmx.matmul(S, S, engine=engine) for _ in range(calls)], repeat)
            ext = best(lambda: [spmx._spmx.spgemm(native, native, None, engine) for _ in range(calls)], repeat)
            scipy_t = best(lambda: [A @ A for _ in range(calls)], repeat)
            rows.append((name, engine, full / calls * 1e6, ext / calls * 1e6, scipy_t / calls * 1e6))
    print("per call (µs)     engine  spmx.matmul  _spmx.spgemm  scipy A@A")
    for name, engine, full, ext, scipy_t in rows:
        print(f"{name:16}  {engine:6}  {full:11.1f}  {ext:12.1f}  {scipy_t:9.1f}")


def race(label, A, repeat, engines):
    """C = A·A by each library, scipy in and scipy out."""
    print(f"\n{label}: {A.shape[0]}×{A.shape[1]}, {A.nnz} entries")
    t_scipy = best(lambda: A @ A, repeat)
    print(f"  scipy A @ A                          {t_scipy:8.3f} s")
    for engine in engines:
        def run():
            return spmx.matmul(spmx.asarray(A), spmx.asarray(A), engine=engine).to_scipy()

        t = best(run, repeat)
        S = spmx.asarray(A)
        t_mult = best(lambda: spmx.matmul(S, S, engine=engine), repeat)
        print(
            f"  spmx {engine:6} end to end             {t:8.3f} s  ({t_scipy / t:.2f}x scipy; "
            f"the product alone {t_mult:.3f} s)"
        )
    try:
        import graphblas as gb

        def gb_run():
            a = gb.io.from_scipy_sparse(A)
            return gb.io.to_scipy_sparse(a.mxm(a, gb.semiring.plus_times).new(), format="csr")

        t = best(gb_run, repeat)
        print(f"  python-graphblas end to end          {t:8.3f} s  ({t_scipy / t:.2f}x scipy)")
    except ImportError:
        print("  python-graphblas: not installed")
    try:
        import cupy as cp
        import cupyx.scipy.sparse as cusp

        dA = cusp.csr_matrix(A)
        dA @ dA  # warms the memory pool and cuSPARSE
        cp.cuda.Device().synchronize()

        def cupy_run():
            dC = dA @ dA
            cp.cuda.Device().synchronize()
            return dC

        print(f"  cupy A @ A (device, warm pool)       {best(cupy_run, repeat):8.3f} s")

        S = spmx.asarray(dA)
        S @ S  # warms spmx's pool and loads its kernels

        def spmx_device_run():
            D = spmx.asarray(dA)  # copied on the device
            return (D @ D).to_cupy()  # SpGEMM on the GPU, handed back without a copy

        print(f"  spmx CuPy in, S @ S, to_cupy (device) {best(spmx_device_run, repeat):8.3f} s")
        print(f"  spmx S @ S alone (device)            {best(lambda: S @ S, repeat):8.3f} s")

        # SpMV by a CuPy vector on the device: spmx's plan is made by the
        # first product and kept; cuSPARSE's by CuPy at each call.
        dx = cp.asarray(np.random.default_rng(1).random(A.shape[1]))
        S @ dx
        dA @ dx

        def timed(f):
            def run():
                f()
                cp.cuda.Device().synchronize()

            return best(lambda: [run() for _ in range(20)], repeat) / 20

        print(f"  cupy A @ x (device SpMV)             {timed(lambda: dA @ dx) * 1e3:8.3f} ms")
        print(f"  spmx S @ x (device SpMV)             {timed(lambda: S @ dx) * 1e3:8.3f} ms")
    except ImportError:
        print("  cupy: not installed")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--per-row", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--engines", default="cpu,auto")
    p.add_argument("--real", nargs="*", default=[], help="MatrixMarket files to race too")
    p.add_argument("--no-overhead", action="store_true")
    args = p.parse_args()
    if not args.no_overhead:
        overhead(args.repeat)
    engines = args.engines.split(",")
    race(f"uniform {args.per_row} a row", uniform(args.n, args.per_row), args.repeat, engines)
    for path in args.real:
        A = scipy.io.mmread(path).tocsr().astype(np.float64)
        if A.shape[0] != A.shape[1]:
            continue
        race(path.rsplit("/", 1)[-1], A, args.repeat, engines)


if __name__ == "__main__":
    main()
