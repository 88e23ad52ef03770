"""The cuda engine from Python, and CuPy operands: skipped without a GPU
(or without CuPy); run on a GPU machine. GPU SpGEMM gives the serial bits
for every semiring; GPU SpMV and SpMM stay within rounding for
plus-times and exact for the others. CuPy sparse matrices go to spmx and
back on the device: the results' CuPy arrays point at spmx's buffers,
and the input is read without CuPy's copies to the host."""

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
    ref.check_dense_products(A, x, X, y, Y, semiring)


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
    # cuda squares D, cpu runs Dijkstra: the same paths, their lengths
    # summed in another order (within rounding), the same pairs joined.
    on_cuda, on_cpu = spmx.apsp(G, engine="cuda").to_scipy(), spmx.apsp(G, engine="cpu").to_scipy()
    np.testing.assert_array_equal(on_cuda.indptr, on_cpu.indptr)
    np.testing.assert_array_equal(on_cuda.indices, on_cpu.indices)
    np.testing.assert_allclose(on_cuda.data, on_cpu.data, rtol=1e-14)


def _cupy():
    cp = pytest.importorskip("cupy")
    cusp = pytest.importorskip("cupyx.scipy.sparse")
    return cp, cusp


def _sparse_pointers(dC):
    return dC.indptr.data.ptr, dC.indices.data.ptr, dC.data.data.ptr


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(300, 300), (250, 120), (1, 1), (40, 0)])
def test_cupy_round_trip_equals_cupys_own_product(dtype, shape):
    cp, cusp = _cupy()
    rng = np.random.default_rng(sum(shape) + len(dtype))
    A = ref.random_csr(rng, shape, density=0.03, dtype=dtype, dense_row=shape[1] > 0)
    B = ref.random_csr(rng, (shape[1], 90), density=0.05, dtype=dtype)
    dA, dB = cusp.csr_matrix(A), cusp.csr_matrix(B)
    S, T = spmx.asarray(dA), spmx.asarray(dB)
    assert isinstance(S, spmx.DeviceSparseMatrix) and S.dtype == np.dtype(dtype)
    C = S @ T
    assert isinstance(C, spmx.DeviceSparseMatrix)
    dC = C.to_cupy()
    assert isinstance(dC, cusp.csr_matrix) and dC.shape == (shape[0], 90)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(dC.get().toarray(), (A @ B).toarray(), rtol=tol, atol=tol)
    np.testing.assert_allclose(C.to_scipy().toarray(), (A @ B).toarray(), rtol=tol, atol=tol)
    if min(shape) > 1:  # cuSPARSE's own product, where it takes the shapes
        np.testing.assert_allclose(dC.get().toarray(), (dA @ dB).get().toarray(), rtol=tol, atol=tol)


@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS)
def test_cupy_operands_give_the_serial_bits_and_the_reference(semiring):
    cp, cusp = _cupy()
    rng = np.random.default_rng(abs(hash(semiring)) % 2**32)
    A = ref.random_csr(rng, (120, 80), density=0.05, semiring=semiring, dense_row=True)
    B = ref.random_csr(rng, (80, 60), density=0.05, semiring=semiring)
    C = spmx.matmul(cusp.csr_matrix(A), cusp.csr_matrix(B), semiring=semiring)
    assert isinstance(C, spmx.DeviceSparseMatrix)
    got = C.to_scipy()
    serial = spmx.matmul(A, B, semiring=semiring, engine="serial").to_scipy()
    for a, b in zip((got.indptr, got.indices, got.data), (serial.indptr, serial.indices, serial.data)):
        np.testing.assert_array_equal(a, b)
    values, pattern = ref.spgemm(A, B, semiring)
    dense, stored = ref.dense_parts(got)
    np.testing.assert_array_equal(stored, pattern)
    if semiring == "plus_times":
        np.testing.assert_allclose(dense[pattern], values[pattern], rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(dense[pattern], values[pattern])


def test_to_cupy_wraps_spmx_buffers_and_asarray_copies_on_the_device(monkeypatch):
    cp, cusp = _cupy()
    rng = np.random.default_rng(7)
    A = ref.random_csr(rng, (200, 200), density=0.04, dense_row=True)
    dA = cusp.csr_matrix(A)

    def no_host(*args, **kwargs):
        raise AssertionError("copied to the host")

    # The old path brought CuPy matrices to the host with .get().
    monkeypatch.setattr(type(dA), "get", no_host)
    monkeypatch.setattr(cp, "asnumpy", no_host)
    S = spmx.asarray(dA)
    C = spmx.matmul(S, S, semiring="min_plus", engine="cuda")
    monkeypatch.undo()
    dC = C.to_cupy()
    native = C._native.arrays()
    assert _sparse_pointers(dC) == tuple(a.ptr for a in native)
    assert dC.data.data.ptr == C.data_address
    # spmx copied the operand on the device: its own buffer, not CuPy's.
    assert S.data_address != dA.data.data.ptr
    assert S.device == dA.data.device.id
    values, pattern = ref.spgemm(A, A, "min_plus")
    dense, stored = ref.dense_parts(dC.get())
    np.testing.assert_array_equal(stored, pattern)
    np.testing.assert_array_equal(dense[pattern], values[pattern])
    # The CuPy arrays keep spmx's buffers alive after the matrix is gone.
    expected = dC.get().toarray()
    del C, native
    np.testing.assert_array_equal(dC.get().toarray(), expected)


def test_int64_device_indices_are_narrowed_on_the_device():
    cp, cusp = _cupy()
    rng = np.random.default_rng(8)
    A = ref.random_csr(rng, (60, 70), density=0.1, dense_row=True)
    arrays = [cp.asarray(A.indptr.astype(np.int64)), cp.asarray(A.indices.astype(np.int64)), cp.asarray(A.data)]
    cp.cuda.get_current_stream().synchronize()
    parts = [(a.data.ptr, a.__cuda_array_interface__["typestr"]) for a in arrays]
    native = spmx._spmx.DevCsr._from_cuda_unchecked(0, A.shape, *parts, A.nnz)
    got = spmx.DeviceSparseMatrix(native).to_scipy()
    np.testing.assert_array_equal(got.toarray(), A.toarray())


def test_bad_device_input_is_a_value_error():
    cp, cusp = _cupy()
    indptr = cp.asarray(np.array([0, 2, 1], dtype=np.int32))
    indices = cp.asarray(np.array([0, 1], dtype=np.int32))
    data = cp.asarray(np.array([1.0, 2.0]))
    cp.cuda.get_current_stream().synchronize()
    parts = [(a.data.ptr, a.__cuda_array_interface__["typestr"]) for a in (indptr, indices, data)]
    with pytest.raises(ValueError, match="decreases at row 1"):
        spmx._spmx.DevCsr._from_cuda_unchecked(0, (2, 3), *parts, 2)
    bad = cusp.csr_matrix(
        (data, cp.asarray(np.array([0, 5], dtype=np.int32)), cp.asarray(np.array([0, 1, 2], dtype=np.int32))),
        shape=(2, 3),
    )
    with pytest.raises(ValueError, match="column index 5"):
        spmx.asarray(bad)


def test_non_canonical_cupy_input_and_host_fallbacks():
    cp, cusp = _cupy()
    rng = np.random.default_rng(9)
    A = ref.random_csr(rng, (50, 50), density=0.1, canonical=False)
    dA = cusp.csr_matrix((cp.asarray(A.data), cp.asarray(A.indices), cp.asarray(A.indptr)), shape=A.shape)
    S = spmx.asarray(dA)
    Ac = A.copy()
    Ac.sum_duplicates()
    np.testing.assert_allclose(S.to_scipy().toarray(), Ac.toarray())
    x = rng.standard_normal(50)
    np.testing.assert_allclose(S @ x, Ac @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose((S @ Ac).to_scipy().toarray(), (Ac @ Ac).toarray(), rtol=1e-12)
    y = spmx.matmul(S, cp.asarray(x), engine="cpu")
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, Ac @ x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS)
def test_device_spmv_and_spmm_by_cupy_arrays_stay_on_the_device(semiring):
    cp, cusp = _cupy()
    rng = np.random.default_rng(abs(hash(("dense", semiring))) % 2**32)
    A = ref.random_csr(rng, (500, 400), density=0.02, semiring=semiring, dense_row=True)
    x = ref.random_values(rng, 400, "float64", semiring)
    X = ref.random_values(rng, 400 * 8, "float64", semiring).reshape(400, 8)
    S = spmx.asarray(cusp.csr_matrix(A))
    y = spmx.matmul(S, cp.asarray(x), semiring=semiring)
    Y = spmx.matmul(S, cp.asarray(X), semiring=semiring)
    assert isinstance(y, cp.ndarray) and isinstance(Y, cp.ndarray)
    assert y.shape == (500,) and Y.shape == (500, 8) and Y.flags.c_contiguous
    ref.check_dense_products(A, x, X, y.get(), Y.get(), semiring)
    # Fortran order in, Fortran order out; the plans are remade for it.
    F = spmx.matmul(S, cp.asfortranarray(cp.asarray(X)), semiring=semiring)
    assert F.flags.f_contiguous
    np.testing.assert_allclose(F.get(), Y.get(), rtol=1e-12, atol=1e-12)
    # Again, on the plans the first products left: the same values.
    np.testing.assert_array_equal(spmx.matmul(S, cp.asarray(x), semiring=semiring).get(), y.get())
    # A host matrix by a CuPy array: copied to the GPU for the product.
    np.testing.assert_array_equal(spmx.matmul(A, cp.asarray(x), semiring=semiring).get(), y.get())


@pytest.mark.parametrize("shape", [(1, 1), (300, 1), (7, 300), (64, 0), (0, 9)])
@pytest.mark.parametrize("k", [None, 1, 5, 64])
def test_device_dense_products_of_odd_shapes(shape, k):
    cp, cusp = _cupy()
    rng = np.random.default_rng(sum(shape) + (k or 0))
    A = ref.random_csr(rng, shape, density=0.3, dtype="float32", dense_row=min(shape) > 0)
    X = rng.standard_normal(shape[1] if k is None else (shape[1], k)).astype(np.float32)
    got = spmx.asarray(cusp.csr_matrix(A)) @ cp.asarray(X)
    assert got.shape == ((shape[0],) if k is None else (shape[0], k)) and got.dtype == np.float32
    np.testing.assert_allclose(got.get(), A @ X, rtol=1e-5, atol=1e-5)


def test_device_spmv_of_a_large_band_and_a_skewed_graph():
    """The plans' large-matrix kernels: ELL (rows of equal length) and the
    adaptive kernel (a hub row), from the row offsets alone."""
    cp, cusp = _cupy()
    n = 300_000
    band = sp.diags([np.ones(n - abs(d), dtype=np.float32) * (d + 4) for d in range(-3, 4)], range(-3, 4), format="csr")
    rng = np.random.default_rng(5)
    # 8 entries a row at random (sp.random draws from all n² positions in
    # some scipy versions: 700 GB here), and row 0 full.
    rows = np.concatenate([rng.integers(0, n, 8 * n), np.zeros(n, dtype=np.int64)])
    cols = np.concatenate([rng.integers(0, n, 8 * n), np.arange(n)])
    vals = rng.standard_normal(9 * n).astype(np.float32)
    hub = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    hub.sum_duplicates()
    for A in (band, hub):
        x = rng.standard_normal(n).astype(np.float32)
        y = spmx.asarray(cusp.csr_matrix(A)) @ cp.asarray(x)
        np.testing.assert_allclose(y.get(), A @ x, rtol=1e-4, atol=1e-3)


def test_bad_dense_device_operands_are_value_errors():
    cp, cusp = _cupy()
    S = spmx.asarray(cusp.csr_matrix(sp.eye(4, format="csr")))
    with pytest.raises(ValueError, match="needs 4 rows, not 3"):
        S @ cp.ones(3)
    with pytest.raises(ValueError, match="1 or 2 dimensions"):
        S @ cp.ones((4, 2, 2))
    with pytest.raises(ValueError, match="cannot multiply a float64 matrix by complex128"):
        S @ cp.ones(4, dtype=cp.complex128)


def test_triangles_of_a_device_matrix():
    """A CuPy matrix is counted on its GPU: L made there for a symmetric
    pattern, the matrix downloaded for another; the CPU's count."""
    cp, cusp = _cupy()
    rng = np.random.default_rng(11)
    A = sp.csr_matrix(ref.random_csr(rng, (300, 300), density=0.05, dense_row=True))
    U = ((A + A.T) != 0).astype(np.float64).tocsr()
    for M in (U, A, sp.csr_matrix((0, 0))):
        D = spmx.asarray(cusp.csr_matrix(M))
        assert isinstance(D, spmx.DeviceSparseMatrix)
        for order in ("degree", "natural"):
            assert spmx.triangles(D, order=order) == spmx.triangles(M, order=order, engine="cpu")


def test_bfs_of_a_device_matrix_and_by_name():
    """A CuPy matrix is searched on its GPU, a host one with engine="cuda":
    the CPU's levels and parents either way; a source out of range is a
    ValueError naming it."""
    cp, cusp = _cupy()
    rng = np.random.default_rng(12)
    A = sp.csr_matrix(ref.random_csr(rng, (400, 400), density=0.01, dense_row=True))
    U = ((A + A.T) != 0).astype(np.float64).tocsr()
    for M in (U, A):
        want = spmx.bfs(M, 3, engine="cpu")
        for got in (spmx.bfs(cusp.csr_matrix(M), 3), spmx.bfs(M, 3, engine="cuda")):
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
    with pytest.raises(ValueError, match="source below 400"):
        spmx.bfs(cusp.csr_matrix(U), 400)
