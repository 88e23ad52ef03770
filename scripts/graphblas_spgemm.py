#!/usr/bin/env python3
"""C = A·A (plus-times, f64) timed in SuiteSparse:GraphBLAS and in spmx's
cpu and serial engines, on the same MatrixMarket files, best of N each.

The reference for issue 21's CPU target (cpu engine ≥ 1.3× GraphBLAS).

    pip install python-graphblas        # SuiteSparse:GraphBLAS 9.x wheels
    cargo build --release --no-default-features
    python3 scripts/graphblas_spgemm.py [--reps 3] [--threads 2] \
        [--spmx target/release/spmx] [--json out.json] A.mtx[.gz] ...

GraphBLAS: `A.mxm(A, plus_times).new()` on `--threads` threads, the matrix
read once by `graphblas.io.mmread` and converted to FP64 (pattern files
read as ones, as spmx reads them). Either side runs at least `--reps` times
and more (up to 200) until 0.3 s of runs have passed. spmx: `spmx spgemm A --engine E
--threads T --repeat N`, whose `multiply` line is its best run; reading the
file is not timed on either side. Both keep every structural entry
(explicit zeros included), so `nnz(C)` must agree; a mismatch stops the
script. Square matrices only, and at most `--max-products` products (5e8:
arrow squared would be a dense 46500² C); others are skipped, saying so.

Prints one row per matrix (times in ms, ratios > 1 mean spmx is faster) and
the geomean of cpu over GraphBLAS; `--json` writes the rows.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

# Fewer than `--reps` runs never; more, up to MAX_RUNS, until MIN_TIME (s)
# of runs have passed, so that sub-millisecond products get enough tries.
MIN_TIME = 0.3
MAX_RUNS = 200


def graphblas_ms(path, reps, threads, max_products):
    """(best ms of `reps` runs of A·A, nnz(C), n), or why it was skipped."""
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    a = gb.io.mmread(path)
    if a.nrows != a.ncols:
        return f"{a.nrows}×{a.ncols}, not square"
    # Products of A·A: Σ_k |A(:,k)|·|A(k,:)|.
    cols = a.reduce_columnwise(gb.agg.count).new()
    rows = a.reduce_rowwise(gb.agg.count).new()
    products = cols.ewise_mult(rows, gb.binary.times).reduce().value or 0
    if products > max_products:
        return f"{products} products (over --max-products {max_products:g})"
    if a.dtype != gb.dtypes.FP64:
        a = a.dup(dtype=gb.dtypes.FP64)
    best, c, runs, start = math.inf, None, 0, time.perf_counter()
    while runs < reps or (time.perf_counter() - start < MIN_TIME and runs < MAX_RUNS):
        c = None  # the previous C is freed outside the timed region
        t = time.perf_counter()
        c = a.mxm(a, gb.semiring.plus_times).new()
        best = min(best, time.perf_counter() - t)
        runs += 1
    return best * 1e3, c.nvals, a.nrows


def spmx_ms(spmx, path, engine, reps, threads):
    """(best ms, nnz(C), products) from `spmx spgemm`'s summary; runs
    again with more repeats when `reps` of them take under MIN_TIME."""
    best, nnz, products = spmx_once(spmx, path, engine, reps, threads)
    if best * reps < MIN_TIME * 1e3:
        more = min(MAX_RUNS, math.ceil(MIN_TIME * 1e3 / best))
        best = min(best, spmx_once(spmx, path, engine, more, threads)[0])
    return best, nnz, products


def spmx_once(spmx, path, engine, reps, threads):
    out = subprocess.run(
        [spmx, "spgemm", path, "--engine", engine, "--threads", str(threads),
         "--repeat", str(reps)],
        check=True, capture_output=True, text=True,
    ).stdout
    nnz = int(re.search(r"^\s+C\s+.*?, (\d+) entries", out, re.M).group(1))
    products = int(re.search(r"^\s+work\s+(\d+) products", out, re.M).group(1))
    runs = re.search(r"^\s+runs\s+([\d. ]+) ms", out, re.M)
    if runs:
        best = min(float(t) for t in runs.group(1).split())
    else:
        best = float(re.search(r"^\s+multiply\s+([\d.]+) s", out, re.M).group(1)) * 1e3
    return best, nnz, products


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--spmx", default="target/release/spmx")
    p.add_argument("--max-products", type=float, default=5e8,
                   help="skip larger products (arrow squared: a 26 GB C)")
    p.add_argument("--json")
    args = p.parse_args()

    rows = []
    print(f"A·A plus-times f64, best of ≥ {args.reps} (≥ {MIN_TIME} s), {args.threads} threads; ms")
    print(f"{'matrix':<24} {'products':>11} {'nnz(C)':>10} | {'serial':>9} {'cpu':>9} "
          f"{'GraphBLAS':>9} | {'cpu/GrB':>7} {'cpu/ser':>7}")
    for path in args.files:
        name = os.path.basename(path).removesuffix(".gz").removesuffix(".mtx")
        grb = graphblas_ms(path, args.reps, args.threads, args.max_products)
        if isinstance(grb, str):
            print(f"{name:<24} skipped: {grb}")
            continue
        grb_ms, grb_nnz, n = grb
        cpu_ms, nnz, products = spmx_ms(args.spmx, path, "cpu", args.reps, args.threads)
        ser_ms, _, _ = spmx_ms(args.spmx, path, "serial", args.reps, 1)
        if nnz != grb_nnz:
            sys.exit(f"{name}: nnz(C) {nnz} in spmx but {grb_nnz} in GraphBLAS")
        row = dict(matrix=name, path=path, n=n, products=products, nnz_c=nnz,
                   serial_ms=ser_ms, cpu_ms=cpu_ms, graphblas_ms=grb_ms,
                   cpu_over_graphblas=grb_ms / cpu_ms, cpu_over_serial=ser_ms / cpu_ms)
        rows.append(row)
        print(f"{name:<24} {products:>11} {nnz:>10} | {ser_ms:>9.3f} {cpu_ms:>9.3f} "
              f"{grb_ms:>9.3f} | {row['cpu_over_graphblas']:>6.2f}× {row['cpu_over_serial']:>6.2f}×",
              flush=True)
    ratios = [r["cpu_over_graphblas"] for r in rows]
    if ratios:
        print(f"geomean cpu/GraphBLAS {geomean(ratios):.2f}× (min {min(ratios):.2f}×, "
              f"{len(ratios)} matrices)")
    if args.json:
        import graphblas as gb

        with open(args.json, "w") as f:
            json.dump(dict(reps=args.reps, threads=args.threads,
                           graphblas=".".join(map(str, gb.ss.about["library_version"])),
                           rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
