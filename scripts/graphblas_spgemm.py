#!/usr/bin/env python3
"""C = A·A (A·Aᵀ for a rectangular A; plus-times, f64) timed cold and warm
in SuiteSparse:GraphBLAS and in spmx's cpu engine, on the same MatrixMarket
files.

    pip install python-graphblas scipy   # SuiteSparse:GraphBLAS 9.x wheels
    SPMX_NO_GPU_KERNELS=1 cargo build --release -p spmx-cli
    python3 scripts/graphblas_spgemm.py [--reps 4] [--procs 3] [--threads 2] \\
        [--spmx target/release/spmx] [--serial] [--json out.json] A.mtx[.gz] ...

Cold is the first multiply of a fresh process, which is what every command
line run pays: for spmx, the first of the runs of a fresh `spmx spgemm A
--engine cpu --threads T --repeat N` (the `multiply` line of a `--repeat 1`
run, to the microsecond); for GraphBLAS, the first `A.mxm(A,
plus_times).new()` of a fresh Python process, after `import graphblas`
and the matrix read (`graphblas.io.mmread`, as FP64: pattern files read as
ones, as spmx reads them). Warm is the best of the runs after the first
in those processes: `--reps` runs each, and for either side more runs (up
to 200) until 0.3 s of them have passed, so that sub-millisecond products
get enough tries. Each side runs `--procs` fresh processes; a column is the
best of them (the machine is shared, so the best is the least disturbed).
Reading the file is not timed on either side. Both keep every structural
entry (explicit zeros included), so `nnz(C)` must agree; a mismatch stops
the script. Products over `--max-products` (5e8: arrow squared would be a
dense 46500² C) are skipped, saying so.

Prints one row per matrix, times in ms: cold/warm is a slowdown (time over
time), spmx/GrB a speedup (GraphBLAS's time over spmx's: > 1 means spmx is
faster); then the geomeans of those ratios and the machine's load average
before and after. `--json` writes the rows.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

# Warm runs: at least `--reps` − 1, more, up to MAX_RUNS, until MIN_TIME (s)
# of them have passed.
MIN_TIME = 0.3
MAX_RUNS = 200


def graphblas_child(path, reps, threads, transpose):
    """Runs in a fresh process: prints the cold and warm ms of A·A (A·Aᵀ)
    and nnz(C) as JSON. Nothing but the read runs before the first mxm."""
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    a = gb.io.mmread(path)
    if a.dtype != gb.dtypes.FP64:
        a = a.dup(dtype=gb.dtypes.FP64)
    b = a.T if transpose else a
    runs, c, start = [], None, None
    while len(runs) < reps or (time.perf_counter() - start < MIN_TIME and len(runs) < MAX_RUNS):
        c = None  # the previous C is freed outside the timed region
        t = time.perf_counter()
        c = a.mxm(b, gb.semiring.plus_times).new()
        runs.append(time.perf_counter() - t)
        if start is None:
            start = time.perf_counter()  # warm runs' time from here
    print(json.dumps(dict(cold_ms=runs[0] * 1e3, warm_ms=min(runs[1:]) * 1e3, nnz=c.nvals)))


def graphblas_products(path):
    """(products, rectangular) of A·A, or A·Aᵀ when A is rectangular."""
    import graphblas as gb

    a = gb.io.mmread(path)
    cols = a.reduce_columnwise(gb.agg.count).new()
    if a.nrows != a.ncols:
        # A·Aᵀ: Σ_k |A(:,k)|².
        return int(cols.ewise_mult(cols, gb.binary.times).reduce().value or 0), True
    rows = a.reduce_rowwise(gb.agg.count).new()
    # A·A: Σ_k |A(:,k)|·|A(k,:)|.
    return int(cols.ewise_mult(rows, gb.binary.times).reduce().value or 0), False


def graphblas_ms(path, reps, threads, transpose, procs):
    """(cold ms, warm ms, nnz(C)): each the best of `procs` fresh processes."""
    cmd = [sys.executable, os.path.abspath(__file__), "--graphblas-child", path,
           "--reps", str(reps), "--threads", str(threads)] + (["--transpose"] if transpose else [])
    got = [json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
           for _ in range(procs)]
    return min(g["cold_ms"] for g in got), min(g["warm_ms"] for g in got), got[0]["nnz"]


def spmx_once(spmx, path, engine, reps, threads, transpose):
    """(runs in ms, nnz(C)) of one fresh `spmx spgemm` process."""
    out = subprocess.run(
        [spmx, "spgemm", path, "--engine", engine, "--threads", str(threads),
         "--repeat", str(reps)] + (["--transpose-b"] if transpose else []),
        check=True, capture_output=True, text=True,
    )
    out = out.stdout + out.stderr  # the summary may go to either
    nnz = int(re.search(r"^\s+C\s+.*?, (\d+) entries", out, re.M).group(1))
    runs = re.search(r"^\s+runs\s+([\d. ]+) ms", out, re.M)
    return [float(t) for t in runs.group(1).split()], nnz


def spmx_ms(spmx, path, engine, reps, threads, transpose, procs):
    """(cold ms, warm ms, nnz(C)), each the best of `procs` fresh processes
    (and one more with more runs where `reps` of them take under MIN_TIME)."""
    got = [spmx_once(spmx, path, engine, reps, threads, transpose) for _ in range(procs)]
    warm = min(min(runs[1:]) for runs, _ in got)
    if warm * (reps - 1) < MIN_TIME * 1e3:
        more = min(MAX_RUNS, math.ceil(MIN_TIME * 1e3 / max(warm, 1e-3)) + 1)
        got.append(spmx_once(spmx, path, engine, more, threads, transpose))
    cold = min(runs[0] for runs, _ in got)
    warm = min(min(runs[1:]) for runs, _ in got)
    return cold, warm, got[0][1]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--reps", type=int, default=4, help="runs a process makes, the cold one included")
    p.add_argument("--procs", type=int, default=3, help="fresh processes per side and matrix")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--spmx", default="target/release/spmx")
    p.add_argument("--serial", action="store_true", help="also time spmx's serial engine (warm)")
    p.add_argument("--max-products", type=float, default=5e8,
                   help="skip larger products (arrow squared: a 26 GB C)")
    p.add_argument("--json")
    p.add_argument("--graphblas-child", help=argparse.SUPPRESS)
    p.add_argument("--transpose", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.reps = max(args.reps, 2)  # a cold run and at least one warm one
    if args.graphblas_child:
        return graphblas_child(args.graphblas_child, args.reps, args.threads, args.transpose)
    if not args.files:
        p.error("no matrices given")

    rows = []
    print(f"C = A·A (A·Aᵀ if rectangular), plus-times f64, {args.threads} threads, ms; "
          f"best of {args.procs} fresh processes of ≥ {args.reps} runs; load {load()}")
    print(f"{'matrix':<22} {'products':>10} {'nnz(C)':>9} | {'spmx cold':>9} {'warm':>8} "
          f"{'GrB cold':>9} {'warm':>8} | {'cold/warm':>9} {'GrB c/w':>7} | "
          f"{'spmx/GrB cold':>13} {'warm':>5}" + (f" | {'serial':>8} {'cpu/ser':>7}" if args.serial else ""), flush=True)
    for path in args.files:
        name = os.path.basename(path).removesuffix(".gz").removesuffix(".mtx")
        products, transpose = graphblas_products(path)
        if products > args.max_products:
            print(f"{name:<22} skipped: {products} products (over --max-products {args.max_products:g})")
            continue
        grb_cold, grb_warm, grb_nnz = graphblas_ms(path, args.reps, args.threads, transpose, args.procs)
        cold, warm, nnz = spmx_ms(args.spmx, path, "cpu", args.reps, args.threads, transpose, args.procs)
        if nnz != grb_nnz:
            sys.exit(f"{name}: nnz(C) {nnz} in spmx but {grb_nnz} in GraphBLAS")
        row = dict(matrix=name, path=path, transposed=transpose, products=products, nnz_c=nnz,
                   cold_ms=cold, warm_ms=warm, graphblas_cold_ms=grb_cold, graphblas_warm_ms=grb_warm,
                   cold_over_warm=cold / warm, graphblas_cold_over_warm=grb_cold / grb_warm,
                   speedup_cold=grb_cold / cold, speedup_warm=grb_warm / warm)
        line = (f"{name + ('ᵀ' if transpose else ''):<22} {products:>10} {nnz:>9} | {cold:>9.3f} {warm:>8.3f} "
                f"{grb_cold:>9.3f} {grb_warm:>8.3f} | {row['cold_over_warm']:>8.2f}× "
                f"{row['graphblas_cold_over_warm']:>6.2f}× | {row['speedup_cold']:>12.2f}× "
                f"{row['speedup_warm']:>4.2f}×")
        if args.serial:
            _, ser, _ = spmx_ms(args.spmx, path, "serial", args.reps, 1, transpose, 1)
            row.update(serial_warm_ms=ser, cpu_over_serial=ser / warm)
            line += f" | {ser:>8.3f} {ser / warm:>6.2f}×"
        rows.append(row)
        print(line, flush=True)
    if rows:
        g = {k: geomean([r[k] for r in rows]) for k in
             ("cold_over_warm", "graphblas_cold_over_warm", "speedup_cold", "speedup_warm")}
        print(f"geomean ({len(rows)} matrices): spmx cold/warm {g['cold_over_warm']:.2f}×, "
              f"GraphBLAS cold/warm {g['graphblas_cold_over_warm']:.2f}×, spmx/GraphBLAS "
              f"cold {g['speedup_cold']:.2f}×, warm {g['speedup_warm']:.2f}×; load {load()}")
    if args.json:
        import graphblas as gb

        with open(args.json, "w") as f:
            json.dump(dict(reps=args.reps, procs=args.procs, threads=args.threads,
                           graphblas=".".join(map(str, gb.ss.about["library_version"])),
                           rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
