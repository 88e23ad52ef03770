#!/usr/bin/env python3
"""spmx's graph algorithms against what users run today, on the same graphs:
triangle counting against SuiteSparse:GraphBLAS (python-graphblas, the
masked `L·L⟨L⟩` over plus-pair, as LAGraph writes it), BFS against scipy's
`breadth_first_order`, and all-pairs shortest paths against scipy's
`shortest_path(method="D")` (Dijkstra).

    pip install scipy python-graphblas
    SPMX_NO_GPU_KERNELS=1 cargo build --release -p spmx-cli
    python3 scripts/graph_race.py [--spmx target/release/spmx] [--threads 1,2] \\
        [--reps 3] [--apsp-max 6000] [--json out.json] G.mtx[.gz] ...

Each graph is its file's pattern (values ignored for triangles and BFS;
weights for APSP). spmx's cold time is the `time` line of its summary: the
algorithm alone, after the file is read, in a fresh process (what every
command-line run pays), the best of `--reps` processes. Where the spmx
Python package is installed, its warm time is the best of `--warm-reps`
calls of `spmx.triangles` / `spmx.bfs` in this process (engine serial for
one thread, cpu for more), the graph converted once beforehand as the
others' is. The others' times are of the same work after their read — for
GraphBLAS, the undirected pattern, its lower triangle and the masked
product; for scipy, the search or the distances — the best of
`--warm-reps` calls in one process (warm; APSP: one call). spmx runs with
each thread count of `--threads`; GraphBLAS with the same; scipy has one
thread. The answers must agree (triangle counts, vertices
reached, pairs joined); a mismatch stops the script. APSP runs only on
graphs of at most `--apsp-max` vertices (its output has n² entries)
without negative weights.

Prints one row per graph and algorithm, times in ms, and `x`: the other's
time over spmx's, cold and warm (> 1: spmx is faster); then the geomean of
each column.
"""

import argparse
import json
import math
import re
import subprocess
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse import csgraph


def spmx_time(binary, args, reps):
    """Best `time` of `reps` fresh runs of `spmx args`, in ms, and the
    summary of the last."""
    best, out = math.inf, ""
    for _ in range(reps):
        run = subprocess.run([binary, *args], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"spmx {' '.join(args)} failed:\n{run.stderr}")
        out = run.stderr
        seconds = float(re.search(r"^\s*time\s+([0-9.]+) s", out, re.M).group(1))
        best = min(best, seconds * 1e3)
    return best, out


def best_ms(f, reps):
    """Best of `reps` calls of `f`, in ms, and its last result."""
    best, result = math.inf, None
    for _ in range(reps):
        start = time.perf_counter()
        result = f()
        best = min(best, (time.perf_counter() - start) * 1e3)
    return best, result


def graphblas_triangles(structure, threads, reps):
    """GraphBLAS from the graph as read, as spmx starts: the undirected
    pattern (A ∨ Aᵀ), its strictly lower triangle, the masked product."""
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    a = gb.io.from_scipy_sparse(structure.astype(np.int64))

    def count():
        undirected = a.ewise_add(a.T, gb.binary.any).new()
        lower = gb.select.tril(undirected, -1).new()
        return int(lower.mxm(lower, gb.semiring.plus_pair).new(mask=lower.S).reduce_scalar().new())

    return best_ms(count, reps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--spmx", default="target/release/spmx")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warm-reps", type=int, default=20)
    ap.add_argument("--apsp-max", type=int, default=6000)
    ap.add_argument("--json")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    try:
        import spmx
    except ImportError:
        spmx = None
    rows = []
    for path in args.graphs:
        name = path.split("/")[-1].split(".")[0]
        a = sp.csr_matrix(scipy.io.mmread(path))
        if a.shape[0] != a.shape[1]:
            continue
        first = len(rows)
        # Stored entries are edges, explicit zeros included.
        structure = sp.csr_matrix((np.ones(a.nnz), a.indices, a.indptr), a.shape)
        ours = spmx.asarray(structure) if spmx else None

        def warm(f, t):
            """spmx's best in this process, one thread on serial."""
            if spmx is None:
                return math.nan, None
            return best_ms(lambda: f("serial" if t == 1 else "cpu"), args.warm_reps)

        for t in threads:
            ms, out = spmx_time(args.spmx, ["triangles", path, "--engine", "cpu", "--threads", str(t)], args.reps)
            count = int(re.search(r"triangles\s+(\d+)", out).group(1))
            try:
                other, want = graphblas_triangles(structure, t, args.warm_reps)
            except ImportError:
                other, want = math.nan, count
            warm_ms, warm_count = warm(lambda e: spmx.triangles(ours, engine=e), t)
            if want != count or warm_count not in (None, count):
                sys.exit(f"{name}: spmx counts {count} ({warm_count}) triangles, GraphBLAS {want}")
            rows.append(
                dict(graph=name, algorithm="triangles", threads=t, spmx_ms=ms, spmx_warm_ms=warm_ms, other="GraphBLAS", other_ms=other)
            )
        scipy_bfs, (order, _) = best_ms(
            lambda: csgraph.breadth_first_order(structure, 0, directed=True, return_predecessors=True), args.warm_reps
        )
        for t in threads:
            ms, out = spmx_time(args.spmx, ["bfs", path, "--source", "0", "--engine", "cpu", "--threads", str(t)], args.reps)
            reached = int(re.search(r"reached\s+(\d+) vertices", out).group(1))
            warm_ms, found = warm(lambda e: spmx.bfs(ours, 0, engine=e), t)
            if reached != len(order) or (found is not None and (found[0] >= 0).sum() != reached):
                sys.exit(f"{name}: spmx reaches {reached} vertices, scipy {len(order)}")
            rows.append(dict(graph=name, algorithm="bfs", threads=t, spmx_ms=ms, spmx_warm_ms=warm_ms, other="scipy", other_ms=scipy_bfs))
        # scipy's Dijkstra takes non-negative weights only.
        if a.shape[0] <= args.apsp_max and not (a.data < 0).any():
            scipy_apsp, dist = best_ms(lambda: csgraph.shortest_path(a, method="D"), 1)
            joined = int(np.isfinite(dist).sum())
            for t in threads:
                ms, out = spmx_time(args.spmx, ["apsp", path, "--engine", "cpu", "--threads", str(t)], 1)
                pairs = int(re.search(r"reachable\s+(\d+)", out).group(1))
                if pairs != joined:
                    print(f"{name}: spmx joins {pairs} pairs, scipy {joined}", file=sys.stderr)
                rows.append(
                    dict(graph=name, algorithm="apsp", threads=t, spmx_ms=ms, spmx_warm_ms=math.nan, other="scipy", other_ms=scipy_apsp)
                )
        for r in rows[first:]:
            print(
                f"{r['graph']:>22} {r['algorithm']:>9} t={r['threads']}  spmx cold {r['spmx_ms']:9.3f} ms  "
                f"warm {r['spmx_warm_ms']:9.3f} ms  {r['other']:>9} {r['other_ms']:9.3f} ms  "
                f"x cold {r['other_ms'] / r['spmx_ms']:6.2f}  warm {r['other_ms'] / r['spmx_warm_ms']:6.2f}",
                flush=True,
            )
    print()
    for algorithm in ("triangles", "bfs", "apsp"):
        for t in threads:
            mine = [r for r in rows if r["algorithm"] == algorithm and r["threads"] == t]
            for which in ("spmx_ms", "spmx_warm_ms"):
                ratios = [r["other_ms"] / r[which] for r in mine]
                ratios = [x for x in ratios if math.isfinite(x) and x > 0]
                if ratios:
                    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
                    lo, hi = min(ratios), max(ratios)
                    how = "cold" if which == "spmx_ms" else "warm"
                    print(
                        f"{algorithm:>9} t={t} {how}: geomean other/spmx {geo:.2f} ({lo:.2f}-{hi:.2f}) over {len(ratios)} graphs"
                    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
