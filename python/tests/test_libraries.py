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


def test_the_apsp_example_matches_its_closure():
    D = spmx.apsp(spmx.mmread(real("apsp_input.mtx.gz")))
    expected = spmx.mmread(real("apsp_output.mtx.gz"))
    np.testing.assert_array_equal(D.to_scipy().toarray(), expected.to_scipy().toarray())
