"""spmx against the libraries it replaces: python-graphblas for every
semiring (skipped where it is not installed) and scipy on the real
matrices (from $SPMX_REAL_DATA, else ../shared/bench-data/real beside the
repository; skipped where absent)."""

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.io

import reference as ref
import spmx

REAL = Path(
    os.environ.get("SPMX_REAL_DATA")
    or Path(__file__).resolve().parents[2].parent / "shared" / "bench-data" / "real"
)
# Small and varied: a dense-ish FEM matrix, a pattern graph, a power-law
# graph with empty rows, explicit zeros, a rectangular integer matrix.
REAL_FILES = [
    "bcsstk13.mtx.gz",
    "4elt.mtx.gz",
    "wiki-Vote.mtx.gz",
    "bayer10.mtx.gz",
    "Groebner_id2003_aug.mtx.gz",
    "adder_dcop_05.mtx.gz",
]

GB_SEMIRINGS = {
    "plus_times": "plus_times",
    "min_plus": "min_plus",
    "max_plus": "max_plus",
    "max_times": "max_times",
    "min_max": "min_max",
    "max_min": "max_min",
    "plus_pair": "plus_pair",
}


def graphblas_product(A, B, semiring):
    gb = pytest.importorskip("graphblas")
    a, b = gb.io.from_scipy_sparse(A), gb.io.from_scipy_sparse(B)
    c = a.mxm(b, getattr(gb.semiring, GB_SEMIRINGS[semiring])).new()
    return gb.io.to_scipy_sparse(c, format="csr")


@pytest.mark.parametrize(
    "semiring, dtype",
    [(s, d) for s in ref.FLOAT_SEMIRINGS for d in ["float64", "float32"]]
    + [(s, d) for s in ref.INTEGER_SEMIRINGS for d in ["int64", "uint32"]],
)
def test_every_semiring_matches_python_graphblas(semiring, dtype):
    rng = np.random.default_rng(abs(hash((semiring, dtype))) % 2**32)
    A = ref.random_csr(rng, (40, 30), dtype=dtype, semiring=semiring, dense_row=True)
    B = ref.random_csr(rng, (30, 25), dtype=dtype, semiring=semiring)
    theirs = graphblas_product(A, B, semiring)
    ours = spmx.matmul(A, B, semiring=semiring, engine="cpu").to_scipy()
    theirs.sort_indices()
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    if semiring == "plus_times" and dtype.startswith("float"):
        np.testing.assert_allclose(ours.data, theirs.data, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(ours.data, theirs.data)


def _assert_same(ours, theirs, semiring, dtype):
    theirs.sort_indices()
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    if semiring == "plus_times" and np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(ours.data, theirs.data, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(ours.data, theirs.data)


def graphblas_masked(A, B, M, semiring, complement):
    """GraphBLAS's C⟨M⟩ = A ⊗ B (``~M.S`` for the complement)."""
    gb = pytest.importorskip("graphblas")
    a, b, m = (gb.io.from_scipy_sparse(X) for X in (A, B, M))
    mask = ~m.S if complement else m.S
    c = a.mxm(b, getattr(gb.semiring, GB_SEMIRINGS[semiring])).new(mask=mask)
    return gb.io.to_scipy_sparse(c, format="csr")


@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize(
    "semiring, dtype",
    [(s, d) for s in ref.FLOAT_SEMIRINGS for d in ["float64", "float32"]]
    + [(s, d) for s in ref.INTEGER_SEMIRINGS for d in ["int64", "uint32"]],
)
def test_masked_products_match_python_graphblas(semiring, dtype, complement):
    rng = np.random.default_rng(abs(hash((semiring, dtype, complement))) % 2**32)
    A = ref.random_csr(rng, (40, 30), dtype=dtype, semiring=semiring, dense_row=True)
    B = ref.random_csr(rng, (30, 25), dtype=dtype, semiring=semiring)
    M = ref.random_csr(rng, (40, 25), density=0.3, dense_row=True)  # values ignored
    theirs = graphblas_masked(A, B, M, semiring, complement)
    for engine in ["cpu", "serial"]:
        ours = spmx.matmul(A, B, semiring, engine, mask=M, complement=complement).to_scipy()
        _assert_same(ours, theirs, semiring, dtype)


@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS + ["or_and"])
def test_masked_spmv_matches_python_graphblas(semiring, complement):
    gb = pytest.importorskip("graphblas")
    dtype = "bool" if semiring == "or_and" else "float64"
    rng = np.random.default_rng(abs(hash((semiring, complement))) % 2**32)
    A = ref.random_csr(rng, (60, 45), dtype=dtype, semiring=semiring, dense_row=True)
    x = ref.random_values(rng, 45, dtype, semiring)
    allowed = rng.random(60) < 0.5
    m = gb.Vector.from_coo(np.flatnonzero(allowed), True, size=60)
    gb_semiring = getattr(gb.semiring, GB_SEMIRINGS.get(semiring, "lor_land"))
    y = gb.io.from_scipy_sparse(A).mxv(gb.Vector.from_dense(x), gb_semiring)
    idx, vals = y.new(mask=~m.S if complement else m.S).to_coo()
    # Rows GraphBLAS leaves without an entry hold the semiring's zero: the
    # product of an empty row.
    zero = spmx.matmul(ref.random_csr(rng, (1, 45), density=0.0, dtype=dtype), x, semiring)[0]
    for engine in ["cpu", "serial"]:
        ours = spmx.matmul(A, x, semiring, engine, mask=allowed, complement=complement)
        if semiring == "plus_times":
            np.testing.assert_allclose(ours[idx], vals, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(ours[idx], vals)
        rest = np.setdiff1d(np.arange(60), idx)
        np.testing.assert_array_equal(ours[rest], np.full(rest.size, zero))


def real(name):
    path = REAL / name
    if not path.exists():
        pytest.skip(f"{path} is absent (set SPMX_REAL_DATA)")
    return path


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_matrices_read_and_multiply_as_scipy_does(name):
    path = real(name)
    ours = spmx.mmread(path, dtype="float64")
    theirs = scipy.io.mmread(path).tocsr().astype(np.float64)
    theirs.sum_duplicates()
    ours_s = ours.to_scipy()
    np.testing.assert_array_equal(ours_s.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours_s.indices, theirs.indices)
    np.testing.assert_array_equal(ours_s.data, theirs.data)
    B = theirs if theirs.shape[0] == theirs.shape[1] else theirs.T.tocsr()
    C = spmx.matmul(ours, B, engine="cpu").to_scipy()
    expected = (theirs @ B).tocsr()
    expected.sort_indices()
    # scipy drops the entries whose products cancel; spmx keeps the
    # structural pattern. Compare values densely on scipy's entries and
    # check that spmx's extra entries are zero.
    diff = C - expected
    scale = max(1.0, abs(expected).max())
    assert abs(diff).max() <= 1e-9 * scale if diff.nnz else True
    x = np.linspace(-1, 1, ours.shape[1])
    np.testing.assert_allclose(ours @ x, theirs @ x, rtol=1e-9, atol=1e-9 * scale)


@pytest.mark.parametrize("name", REAL_FILES[:3])
def test_real_matrices_min_plus_matches_python_graphblas(name):
    A = scipy.io.mmread(real(name)).tocsr().astype(np.float64)
    A.data = np.abs(A.data)
    theirs = graphblas_product(A, A, "min_plus")
    theirs.sort_indices()
    ours = spmx.matmul(A, A, semiring="min_plus", engine="cpu").to_scipy()
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_array_equal(ours.data, theirs.data)


@pytest.mark.parametrize("semiring", ["plus_times", "min_plus"])
@pytest.mark.parametrize("name", REAL_FILES[:3])
def test_real_matrices_masked_by_their_pattern_match_python_graphblas(name, semiring):
    A = scipy.io.mmread(real(name)).tocsr().astype(np.float64)
    A.sum_duplicates()
    A.data = np.abs(A.data)
    for complement in [False, True]:
        theirs = graphblas_masked(A, A, A, semiring, complement)
        ours = spmx.matmul(A, A, semiring, "cpu", mask=A, complement=complement).to_scipy()
        _assert_same(ours, theirs, semiring, "float64")


def test_the_apsp_example_matches_its_closure():
    D = spmx.apsp(spmx.mmread(real("apsp_input.mtx.gz")))
    expected = spmx.mmread(real("apsp_output.mtx.gz"))
    np.testing.assert_array_equal(D.to_scipy().toarray(), expected.to_scipy().toarray())
