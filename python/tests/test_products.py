"""spmx's products from Python against scipy (plus-times, within rounding)
and against the numpy references of reference.py (every semiring and
dtype, exactly), on random inputs: empty rows, a dense row, rectangular
shapes, 0x0, int32 and int64 indices, non-canonical input."""

import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
import spmx

SHAPES = [((0, 0), (0, 0)), ((7, 5), (5, 9)), ((12, 12), (12, 12)), ((1, 6), (6, 1)), ((9, 0), (0, 4))]
ENGINES = ["serial", "cpu", "auto"]


def check_sparse(C, values, pattern, exact):
    assert isinstance(C, spmx.SparseMatrix)
    assert C.shape == pattern.shape
    S = C.to_scipy()
    assert S.has_canonical_format
    got, got_mask = ref.dense_parts(S)
    np.testing.assert_array_equal(got_mask, pattern)
    if exact:
        np.testing.assert_array_equal(got[pattern], values[pattern])
    else:
        np.testing.assert_allclose(got[pattern], values[pattern], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_spgemm_plus_times_matches_scipy(shapes, engine, index_dtype):
    rng = np.random.default_rng(hash((shapes, engine, index_dtype)) % 2**32)
    A = ref.random_csr(rng, shapes[0], index_dtype=index_dtype, dense_row=True)
    B = ref.random_csr(rng, shapes[1], index_dtype=index_dtype)
    C = spmx.matmul(spmx.asarray(A), spmx.asarray(B), engine=engine)
    expected = (A @ B).toarray()
    values, pattern = ref.spgemm(A, B, "plus_times")
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12)
    check_sparse(C, values, pattern, exact=False)


@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("engine", ["serial", "cpu"])
def test_spgemm_every_float_semiring(semiring, dtype, engine):
    rng = np.random.default_rng(abs(hash((semiring, dtype, engine))) % 2**32)
    for shapes in SHAPES:
        A = ref.random_csr(rng, shapes[0], dtype=dtype, semiring=semiring, dense_row=True)
        B = ref.random_csr(rng, shapes[1], dtype=dtype, semiring=semiring)
        C = spmx.matmul(A, B, semiring=semiring, engine=engine)
        assert C.dtype == np.dtype(dtype)
        values, pattern = ref.spgemm(A, B, semiring)
        check_sparse(C, values, pattern, exact=semiring != "plus_times")


@pytest.mark.parametrize("semiring", ref.INTEGER_SEMIRINGS)
@pytest.mark.parametrize("dtype", ref.INTEGER_DTYPES)
def test_spgemm_every_integer_semiring(semiring, dtype):
    rng = np.random.default_rng(abs(hash((semiring, dtype))) % 2**32)
    for shapes in SHAPES:
        A = ref.random_csr(rng, shapes[0], dtype=dtype, semiring=semiring, dense_row=True)
        B = ref.random_csr(rng, shapes[1], dtype=dtype, semiring=semiring)
        C = spmx.matmul(A, B, semiring=semiring, engine="cpu")
        values, pattern = ref.spgemm(A, B, semiring)
        check_sparse(C, values, pattern, exact=True)


def test_spgemm_or_and_on_bool():
    rng = np.random.default_rng(5)
    A = ref.random_csr(rng, (10, 8), dtype="bool", dense_row=True)
    B = ref.random_csr(rng, (8, 6), dtype="bool")
    C = spmx.asarray(A) @ spmx.asarray(B)  # bool's default semiring: or-and
    values, pattern = ref.spgemm(A, B, "or_and")
    check_sparse(C, values, pattern, exact=True)


@pytest.mark.parametrize("semiring", ref.FLOAT_SEMIRINGS)
@pytest.mark.parametrize("engine", ["serial", "cpu"])
def test_spmv_and_spmm_every_semiring(semiring, engine):
    rng = np.random.default_rng(abs(hash((semiring, engine))) % 2**32)
    for (m, n), _ in SHAPES:
        A = ref.random_csr(rng, (m, n), semiring=semiring, dense_row=m > 0)
        S = spmx.asarray(A)
        x = ref.random_values(rng, n, "float64", semiring)
        y = spmx.matmul(S, x, semiring=semiring, engine=engine)
        assert y.shape == (m,)
        X = ref.random_values(rng, n * 3, "float64", semiring).reshape(n, 3)
        Y = spmx.matmul(S, X, semiring=semiring, engine=engine)
        assert Y.shape == (m, 3)
        ref.check_dense_products(A, x, X, y, Y, semiring)


def test_operators_are_the_default_semiring():
    rng = np.random.default_rng(2)
    A = ref.random_csr(rng, (20, 15), dense_row=True)
    B = ref.random_csr(rng, (15, 10))
    S, T = spmx.asarray(A), spmx.asarray(B)
    np.testing.assert_allclose((S @ T).to_scipy().toarray(), (A @ B).toarray(), atol=1e-12)
    x = rng.standard_normal(15)
    np.testing.assert_allclose(S @ x, A @ x, atol=1e-12)
    X = rng.standard_normal((15, 4))
    np.testing.assert_allclose(S @ X, A @ X, atol=1e-12)
    # A scipy operand on either side is taken as it is.
    np.testing.assert_allclose((S @ B).to_scipy().toarray(), (A @ B).toarray(), atol=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("matrix", [False, True])
def test_asarray_takes_every_scipy_format(fmt, matrix):
    rng = np.random.default_rng(3)
    A = ref.random_csr(rng, (11, 7), matrix=matrix).asformat(fmt)
    S = spmx.asarray(A)
    assert S.shape == A.shape and S.dtype == A.dtype
    np.testing.assert_array_equal(S.to_scipy().toarray(), A.toarray())


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_non_canonical_input_is_canonicalised_into_a_copy(index_dtype):
    rng = np.random.default_rng(4)
    A = ref.random_csr(rng, (9, 8), canonical=False, index_dtype=index_dtype, matrix=True)
    before = (A.indptr.copy(), A.indices.copy(), A.data.copy())
    assert not A.has_canonical_format
    S = spmx.asarray(A)
    for a, b in zip(before, (A.indptr, A.indices, A.data)):
        np.testing.assert_array_equal(a, b)  # A is left as it was
    np.testing.assert_allclose(S.to_scipy().toarray(), A.toarray())
    B = ref.random_csr(rng, (8, 5), canonical=False, index_dtype=index_dtype)
    values, pattern = ref.spgemm(A, B, "min_plus")
    check_sparse(spmx.matmul(A, B, semiring="min_plus"), values, pattern, exact=True)


def test_a_csr_matrix_with_int64_indices_is_taken():
    A = sp.csr_matrix(np.eye(4))
    A.indices = A.indices.astype(np.int64)
    A.indptr = A.indptr.astype(np.int64)
    np.testing.assert_array_equal((spmx.asarray(A) @ np.ones(4)), np.ones(4))


def test_a_canonical_csr_is_read_in_place():
    rng = np.random.default_rng(11)
    A = ref.random_csr(rng, (40, 30), density=0.2)  # float64 values, int32 indices
    indptr, indices, data = spmx.asarray(A)._native.addresses()
    assert (indices, data) == (A.indices.ctypes.data, A.data.ctypes.data)
    assert indptr != A.indptr.ctypes.data  # int32 row pointers are widened into a copy
    W = ref.random_csr(rng, (40, 30), density=0.2, index_dtype="int64")
    indptr, indices, data = spmx.asarray(W)._native.addresses()
    assert (indptr, data) == (W.indptr.ctypes.data, W.data.ctypes.data)
    assert indices != W.indices.ctypes.data  # int64 columns are narrowed into a copy
    copied = set(spmx.asarray(A, copy=True)._native.addresses())
    assert not copied & {A.indptr.ctypes.data, A.indices.ctypes.data, A.data.ctypes.data}
    # The matrix keeps the arrays it reads alive.
    expected = (A @ A.T).toarray()
    S, T = spmx.asarray(A), spmx.asarray(A.T.tocsr())
    del A
    np.testing.assert_allclose((S @ T).to_scipy().toarray(), expected, rtol=1e-12)


def test_result_buffers_are_handed_to_scipy_without_a_copy():
    rng = np.random.default_rng(6)
    A = ref.random_csr(rng, (30, 30), density=0.3)
    C = spmx.asarray(A) @ spmx.asarray(A)
    address = C._native.addresses()[2]
    S = C.to_scipy()
    assert S.data.ctypes.data == address
    again = C.to_scipy()  # the same buffers, shared
    assert np.shares_memory(S.data, again.data) and np.shares_memory(S.indices, again.indices)
    # The matrix stays usable: its operands now come from those arrays.
    np.testing.assert_allclose((C @ C).to_scipy().toarray(), (S @ S).toarray(), rtol=1e-10)


def test_plan_recomputes_for_new_values():
    rng = np.random.default_rng(7)
    A = ref.random_csr(rng, (25, 20), dense_row=True)
    B = ref.random_csr(rng, (20, 15))
    S, T = spmx.asarray(A), spmx.asarray(B)
    for semiring, engine in [(None, "cpu"), ("min_plus", "serial"), ("max_min", "auto")]:
        plan = spmx.plan_matmul(S, T, semiring=semiring, engine=engine)
        first = plan.product.to_scipy().toarray()
        np.testing.assert_allclose(first, spmx.matmul(S, T, semiring=semiring, engine="serial").to_scipy().toarray())
        new_a = rng.standard_normal(A.nnz)
        new_b = rng.standard_normal(B.nnz)
        A2, B2 = A.copy(), B.copy()
        A2.data, B2.data = new_a, new_b
        C2 = plan(S.with_data(new_a), T.with_data(new_b))
        fresh = spmx.matmul(A2, B2, semiring=semiring, engine="serial")
        np.testing.assert_array_equal(C2.to_scipy().toarray(), fresh.to_scipy().toarray())
    square = A[:20]  # 20x20: a plan of A·A takes one operand
    plan = spmx.plan_matmul(square)
    C = plan(spmx.asarray(square).with_data(np.ones(square.nnz)))
    ones = square.copy()
    ones.data[:] = 1
    np.testing.assert_allclose(C.to_scipy().toarray(), (ones @ ones).toarray())


def test_plan_refuses_another_pattern():
    rng = np.random.default_rng(8)
    A = ref.random_csr(rng, (10, 10), density=0.3)
    plan = spmx.plan_matmul(A)
    other = ref.random_csr(rng, (10, 10), density=0.3)
    other.data[:] = 1
    with pytest.raises(ValueError, match="another pattern"):
        plan(other)


def test_columns_past_int32_come_back_as_int64_indices():
    n = 2**31 + 5
    A = sp.csr_array((np.array([2.0]), np.array([0]), np.array([0, 1])), shape=(1, 1))
    B = sp.csr_array(
        (np.array([3.0]), np.array([n - 2], dtype=np.int64), np.array([0, 1], dtype=np.int64)),
        shape=(1, n),
    )
    C = spmx.matmul(A, B, engine="cpu").to_scipy()
    assert C.shape == (1, n) and C.indices.dtype == np.int64 and C.indptr.dtype == np.int64
    np.testing.assert_array_equal(C.indices, [n - 2])
    np.testing.assert_array_equal(C.data, [6.0])
