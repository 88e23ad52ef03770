#!/usr/bin/env python3
"""Checks the spmx binary against scipy on the real matrices.

    python3 scripts/scipy_check.py target/release/spmx [REAL_DATA_DIR]

1. `spmx convert X out.mtx --format F`, for every real matrix X and every
   format F: out.mtx holds exactly the entries scipy.io.mmread reads from X
   (symmetric storage expanded, duplicates summed, explicit zeros kept),
   compared as sorted (row, col, value) triples, values bit for bit.
2. `spmx spgemm A B -o C` (plus-times) against scipy's A @ B: A·A for every
   square real matrix and G·Gᵀ for the rectangular Groebner matrix. Every
   element of the difference must be within 1e-12 of Σₖ |A(i,k)|·|B(k,j)|,
   the scale of the sum that produced it, so that summation order cannot
   fail the check; entries that are zero on one side (cancellation) count as
   differences too. scipy drops numeric zeros, so both sides are compared
   after eliminating zeros.

Prints one line per check and exits non-zero on any mismatch. The data folder
defaults to $SPMX_REAL_DATA, then ../shared/bench-data/real beside the repo.
Padded formats are not built where they would exceed 1e8 slots (ELL of
`arrow` needs 26 GB), nor products of more than 2e8 multiply-adds (`arrow`
squared is 46500² dense); each skip is printed with its reason.
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

FORMATS = ["csr", "coo", "csc", "ell", "hyb", "sell", "bsr"]
MAX_PADDED_SLOTS = 100_000_000
MAX_PRODUCTS = 200_000_000
RTOL = 1e-12


def data_dir():
    if len(sys.argv) > 2:
        return Path(sys.argv[2])
    if os.environ.get("SPMX_REAL_DATA"):
        return Path(os.environ["SPMX_REAL_DATA"])
    return Path(__file__).resolve().parent.parent / ".." / "shared" / "bench-data" / "real"


def read(path):
    """A file as canonical COO: duplicates summed, explicit zeros kept,
    entries sorted by (row, col), values as float64."""
    m = sp.coo_array(scipy.io.mmread(str(path)))
    m.sum_duplicates()
    order = np.lexsort((m.col, m.row))
    return m.shape, m.row[order], m.col[order], m.data[order].astype(np.float64)


def same_triples(got, want):
    """None when equal, else a description of the first difference."""
    if got[0] != want[0]:
        return f"shape {got[0]} != {want[0]}"
    if len(got[1]) != len(want[1]):
        return f"{len(got[1])} entries != {len(want[1])}"
    for name, g, w in [("row", got[1], want[1]), ("col", got[2], want[2])]:
        bad = np.flatnonzero(g != w)
        if bad.size:
            k = bad[0]
            return f"entry {k}: {name} {g[k]} != {w[k]}"
    bad = np.flatnonzero(got[3].view(np.uint64) != want[3].view(np.uint64))
    if bad.size:
        k = bad[0]
        return (f"({want[1][k]}, {want[2][k]}): value {float(got[3][k])!r} != {float(want[3][k])!r} "
                f"({bad.size} values differ)")
    return None


def spmx(binary, *args):
    run = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"spmx {' '.join(map(str, args))}: {run.stderr.strip()}")
    return run.stdout


def products(a, b):
    """Multiply-adds of A·B: Σₖ nnz(A(:,k)) · nnz(B(k,:))."""
    cols = np.diff(sp.csc_array(a).indptr).astype(np.int64)
    rows = np.diff(sp.csr_array(b).indptr).astype(np.int64)
    return int((cols * rows).sum())


def check_spgemm(binary, tmp, a_path, b_path, a, b):
    """(True, summary) when spmx's A·B matches scipy's, else (False, why not)."""
    c_path = tmp / "c.mtx"
    spmx(binary, "spgemm", a_path, b_path, "-o", c_path, "--semiring", "plus-times")
    got = sp.csr_array(scipy.io.mmread(str(c_path)))
    c_path.unlink()
    want = sp.csr_array(a @ b)
    for m in (got, want):
        m.eliminate_zeros()
    if got.shape != want.shape:
        return False, f"shape {got.shape} != {want.shape}"
    scale = sp.csr_array(abs(a) @ abs(b))
    diff = sp.coo_array(got - want)
    diff.eliminate_zeros()
    if diff.nnz:
        bound = RTOL * np.asarray(scale[diff.row, diff.col]).ravel()
        over = np.flatnonzero(np.abs(diff.data) > bound)
        if over.size:
            k = over[0]
            i, j = diff.row[k], diff.col[k]
            return False, (f"({i}, {j}): spmx {float(got[i, j])!r}, scipy {float(want[i, j])!r} "
                           f"(scale {float(scale[i, j])!r}; {over.size} entries off)")
    note = "" if got.nnz == want.nnz else f" (nnz {got.nnz} vs {want.nnz}, within tolerance)"
    return True, f"{want.nnz} entries, {diff.nnz} differ by rounding{note}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = Path(sys.argv[1]).resolve()
    folder = data_dir()
    if not folder.is_dir():
        print(f"skipping: no real-matrix folder at {folder} (set SPMX_REAL_DATA)")
        return
    files = sorted(p for p in folder.iterdir() if p.name.endswith((".mtx", ".mtx.gz")))
    if not files:
        sys.exit(f"no matrices in {folder}")
    failures = checks = 0
    started = time.time()

    def report(ok, what, detail=""):
        nonlocal failures, checks
        checks += 1
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out = tmp / "out.mtx"
        for path in files:
            want = read(path)
            nrows = want[0][0]
            longest = np.bincount(want[1], minlength=nrows).max(initial=0)
            for fmt in FORMATS:
                what = f"convert {path.name} --format {fmt}"
                if fmt == "ell" and nrows * longest > MAX_PADDED_SLOTS:
                    print(f"skip {what}: {nrows * longest} padded slots", flush=True)
                    continue
                try:
                    spmx(binary, "convert", path, out, "--format", fmt)
                    problem = same_triples(read(out), want)
                except Exception as e:  # a failed run or an unreadable output
                    problem = f"{type(e).__name__}: {e}"
                report(problem is None, what, problem or f"{len(want[1])} entries equal")

        pairs = []
        for path in files:
            a = sp.csr_array(scipy.io.mmread(str(path))).astype(np.float64)
            if a.shape[0] == a.shape[1]:
                pairs.append((f"{path.name} squared", path, path, a, a))
            else:
                transposed = tmp / f"{path.name}.T.mtx"
                scipy.io.mmwrite(str(transposed), sp.coo_array(a.T))
                pairs.append((f"{path.name} times its transpose", path, transposed, a, a.T.tocsr()))
        for name, a_path, b_path, a, b in pairs:
            what = f"spgemm {name}"
            work = products(a, b)
            if work > MAX_PRODUCTS:
                print(f"skip {what}: {work} products", flush=True)
                continue
            try:
                ok, detail = check_spgemm(binary, tmp, a_path, b_path, a, b)
            except Exception as e:  # a failed run or an unreadable output
                ok, detail = False, f"{type(e).__name__}: {e}"
            report(ok, what, detail)

    print(f"{checks - failures} of {checks} checks passed, {failures} failed "
          f"({time.time() - started:.1f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
