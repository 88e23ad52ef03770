"""The cuda engine from Python, and CuPy operands: skipped without a GPU
(or without CuPy); run on a GPU machine. GPU SpGEMM gives the serial bits
for every semiring; GPU SpMV and SpMM stay within rounding for
plus-times and exact for the others."""

import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
import spmx


def _gpu():
    try:
        eye = spmx.asarray(sp.eye(2, format="csr"))
        spmx.matmul(eye, eye, engine="cuda")
        return True
    except NotImplementedError:
        return False


pytestmark = pytest.mark.skipif(not _gpu(), reason="no GPU here (engine='cuda' unavailable)")


@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_spgemm_gives_the_serial_bits(semiring, dtype):
    rng = np.random.default_rng(abs(hash((semiring, dtype))) % 2**32)
    A = ref.random_csr(rng, (300, 200), density=0.05, dtype=dtype, semiring=semiring, dense_row=True)
    B = ref.random_csr(rng, (200, 150), density=0.05, dtype=dtype, semiring=semiring)
    gpu = spmx.matmul(A, B, semiring=semiring, engine="cuda").to_scipy()
    serial = spmx.matmul(A, B, semiring=semiring, engine="serial").to_scipy()
    for a, b in zip((gpu.indptr, gpu.indices, gpu.data), (serial.indptr, serial.indices, serial.data)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS)
def test_cuda_spmv_and_spmm(semiring):
    rng = np.random.default_rng(abs(hash(semiring)) % 2**32)
    A = ref.random_csr(rng, (500, 400), density=0.02, semiring=semiring, dense_row=True)
    x = ref.random_values(rng, 400, "float64", semiring)
    X = ref.random_values(rng, 400 * 8, "float64", semiring).reshape(400, 8)
    y = spmx.matmul(A, x, semiring=semiring, engine="cuda")
    Y = spmx.matmul(A, X, semiring=semiring, engine="cuda")
    if semiring == "plus_times":
        np.testing.assert_allclose(y, A @ x, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(Y, A @ X, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(y, ref.spmv(A, x, semiring))
        np.testing.assert_array_equal(Y, ref.spmv(A, X, semiring))


def test_cuda_plan_and_apsp():
    rng = np.random.default_rng(3)
    A = ref.random_csr(rng, (200, 200), density=0.03, dense_row=True)
    plan = spmx.plan_matmul(A, semiring="min_plus", engine="cuda")
    new = np.abs(rng.standard_normal(A.nnz))
    C = plan(spmx.asarray(A).with_data(new))
    A2 = A.copy()
    A2.data = new
    serial = spmx.matmul(A2, A2, semiring="min_plus", engine="serial").to_scipy()
    np.testing.assert_array_equal(C.to_scipy().data, serial.data)
    G = A.copy()
    G.data = np.abs(G.data)
    np.testing.assert_array_equal(
        spmx.apsp(G, engine="cuda").to_scipy().toarray(), spmx.apsp(G, engine="cpu").to_scipy().toarray()
    )


def test_cupy_operands_and_results():
    cp = pytest.importorskip("cupy")
    cusp = pytest.importorskip("cupyx.scipy.sparse")
    rng = np.random.default_rng(4)
    A = ref.random_csr(rng, (300, 300), density=0.03)
    dA = cusp.csr_matrix(A)
    C = spmx.matmul(dA, dA, engine="cuda")
    dC = C.to_cupy()
    expected = (dA @ dA).get().toarray()
    np.testing.assert_allclose(dC.get().toarray(), expected, rtol=1e-12, atol=1e-12)
