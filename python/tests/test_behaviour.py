"""spmx behaves as a Python library: errors are Python exceptions with
spmx's message, the GIL is released during a multiply, MatrixMarket files
and APSP round-trip against scipy."""

import gzip
import threading

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import reference as ref
import spmx


def test_shape_mismatch_is_a_value_error_naming_both_shapes():
    A = spmx.asarray(sp.random(2, 3, density=0.5, format="csr", random_state=0))
    with pytest.raises(ValueError, match=r"spgemm: A.ncols\(\) != B.nrows\(\) \(2×3 times 2×3\)"):
        A @ A
    with pytest.raises(ValueError, match="spmv"):
        A @ np.ones(2)
    with pytest.raises(ValueError, match="spmm"):
        A @ np.ones((2, 2))


def test_bad_names_and_dtypes_are_value_errors():
    A = spmx.asarray(sp.eye(3, format="csr"))
    with pytest.raises(ValueError, match="unknown semiring"):
        spmx.matmul(A, A, semiring="plus_minus")
    with pytest.raises(ValueError, match="no instance over float64"):
        spmx.matmul(A, A, semiring="plus_pair")
    with pytest.raises(ValueError, match="unknown engine"):
        spmx.matmul(A, A, engine="gpu")
    with pytest.raises(ValueError, match="complex128"):
        spmx.asarray(sp.eye(3, dtype=complex, format="csr"))


def test_a_value_outside_the_domain_is_a_value_error():
    A = sp.csr_array(np.array([[1.0, -2.0], [0.0, 3.0]]))
    with pytest.raises(ValueError, match="max-times"):
        spmx.matmul(A, A, semiring="max_times")


def test_an_index_out_of_range_is_a_value_error():
    indptr = np.array([0, 1], dtype=np.int32)
    with pytest.raises(ValueError):
        spmx._spmx.Csr.from_parts((1, 2), indptr, np.array([5], dtype=np.int32), np.ones(1))
    with pytest.raises(ValueError, match="indices"):
        spmx._spmx.Csr.from_parts((1, 2), indptr, np.array([-1], dtype=np.int32), np.ones(1))


def test_integer_semirings_without_gpu_kernels_are_not_implemented_on_cuda():
    # The GPU has integer plus-times, min-plus, max-plus and plus-pair, not
    # max-times (without a GPU, engine="cuda" is not implemented either).
    A = spmx.asarray(sp.eye(3, format="csr", dtype=np.int64))
    with pytest.raises(NotImplementedError):
        spmx.matmul(A, A, semiring="max_times", engine="cuda")


def test_a_product_larger_than_memory_is_an_out_of_memory_error_with_bytes():
    n = 100_000  # a column times a row: C is n × n dense, 10¹⁰ entries
    col = sp.csr_array((np.ones(n), np.zeros(n, np.int32), np.arange(n + 1, dtype=np.int32)), shape=(n, 1))
    row = sp.csr_array((np.ones(n), np.arange(n, dtype=np.int32), np.array([0, n], np.int32)), shape=(1, n))
    with pytest.raises(spmx.OutOfMemoryError) as info:
        spmx.matmul(col, row, engine="cpu")
    assert isinstance(info.value, MemoryError)
    assert info.value.needed >= n * n * 12
    assert info.value.available is not None and info.value.available < info.value.needed
    assert "too large" in str(info.value)


def test_mmread_errors_name_the_file_and_line(tmp_path):
    path = tmp_path / "bad.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n")
    with pytest.raises(ValueError, match=r"bad.mtx:4"):
        spmx.mmread(path)
    with pytest.raises(FileNotFoundError, match="missing.mtx"):
        spmx.mmread(tmp_path / "missing.mtx", dtype="float64")


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "bool"])
def test_mmwrite_and_mmread_round_trip_against_scipy(tmp_path, dtype):
    rng = np.random.default_rng(1)
    A = ref.random_csr(rng, (13, 9), dtype=dtype, dense_row=True)
    for name in ["a.mtx", "a.mtx.gz"]:
        path = tmp_path / name
        spmx.mmwrite(path, A)
        back = spmx.mmread(path, dtype=dtype)
        assert back.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(back.to_scipy().toarray(), A.toarray())
        theirs = scipy.io.mmread(gzip.open(path) if name.endswith(".gz") else path)
        np.testing.assert_array_equal(theirs.toarray().astype(dtype), A.toarray())


def test_mmread_reads_an_integer_file_as_int64(tmp_path):
    path = tmp_path / "i.mtx"
    scipy.io.mmwrite(path, sp.coo_array(np.array([[2**40, 0], [0, -3]], dtype=np.int64)))
    m = spmx.mmread(path)
    assert m.dtype == np.int64
    np.testing.assert_array_equal(m.to_scipy().toarray(), [[2**40, 0], [0, -3]])


def floyd_warshall(w):
    n = w.shape[0]
    d = np.full((n, n), np.inf)
    rows = np.repeat(np.arange(n), np.diff(w.indptr))
    d[rows, w.indices] = np.minimum(d[rows, w.indices], w.data)
    np.fill_diagonal(d, np.minimum(np.diag(d), 0))
    for k in range(n):
        d = np.minimum(d, d[:, k : k + 1] + d[k : k + 1, :])
    return d


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_apsp_matches_floyd_warshall(dtype):
    rng = np.random.default_rng(9)
    G = ref.random_csr(rng, (30, 30), density=0.08)
    G.data = np.abs(G.data)
    D = spmx.apsp(G, dtype=dtype)
    assert D.dtype == np.dtype(dtype)
    got = np.full((30, 30), np.inf)
    S = D.to_scipy()
    rows = np.repeat(np.arange(30), np.diff(S.indptr))
    got[rows, S.indices] = S.data
    np.testing.assert_allclose(got, floyd_warshall(G).astype(dtype), rtol=1e-6)


def test_apsp_reports_a_negative_cycle():
    G = sp.csr_array(np.array([[0, 1.0, 0], [0, 0, -3.0], [1.0, 0, 0]]))
    with pytest.raises(ValueError, match="negative cycle"):
        spmx.apsp(G)


def test_the_gil_is_released_during_a_multiply():
    n = 60_000
    rng = np.random.default_rng(10)
    A = spmx.asarray(sp.random(n, n, density=12 / n, format="csr", random_state=rng))
    state = {"in_call": False, "seen": 0}

    def work():
        state["in_call"] = True
        spmx.matmul(A, A, engine="serial")
        state["in_call"] = False

    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        if state["in_call"]:
            state["seen"] += 1
    t.join()
    # With the GIL held through the multiply, this thread would run only
    # in the few switch intervals around it.
    assert state["seen"] > 10_000


def test_products_from_two_threads_at_once_are_right():
    rng = np.random.default_rng(11)
    A = ref.random_csr(rng, (300, 300), density=0.05)
    S = spmx.asarray(A)
    expected = (A @ A).toarray()
    results = [None] * 4

    def work(i):
        results[i] = (S @ S).to_scipy().toarray()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_allclose(r, expected, rtol=1e-12, atol=1e-12)


def many_products(k, width):
    """10⁵ rows of k entries among the first `width` columns, times a dense
    width × width: 10⁵·k·width products (more than 2**26, so cut into
    blocks), and a C of only 10⁵·width entries."""
    rng = np.random.default_rng(12)
    n = 100_000
    cols = np.sort(rng.permuted(np.tile(np.arange(width), (n, 1)), axis=1)[:, :k], axis=1)
    A = sp.csr_array((rng.random(n * k), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, width))
    return A, sp.csr_array(rng.random((width, width)))


def test_a_product_computed_in_row_blocks_is_the_whole_product():
    A, B = many_products(16, 64)
    for semiring in ["plus_times", "max_min"]:
        C = spmx.matmul(A, B, semiring=semiring, engine="cpu").to_scipy()
        # The plan computes the product whole, with the serial engine's bits.
        whole = spmx.plan_matmul(A, B, semiring=semiring, engine="serial").product
        if semiring == "plus_times":
            np.testing.assert_allclose(C.toarray(), (A @ B).toarray(), rtol=1e-12)
        np.testing.assert_array_equal(C.data, whole.to_scipy().data)


def test_ctrl_c_stops_a_large_product_and_spmx_stays_usable():
    import os
    import signal

    A, B = many_products(32, 128)  # about a second on one core
    S, T = spmx.asarray(A), spmx.asarray(B)
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            spmx.matmul(S, T, engine="serial")
    finally:
        timer.cancel()
    small = spmx.asarray(sp.eye(3, format="csr"))
    np.testing.assert_array_equal((small @ small).to_scipy().toarray(), np.eye(3))
