"""Plain numpy references for the tests: every semiring's product computed
densely from the operands' patterns (an entry of C wherever some A(i,k)
and B(k,j) are both stored, as spmx and GraphBLAS keep it), and random
scipy inputs of the shapes the tests need."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

FLOAT_SEMIRINGS = ["plus_times", "min_plus", "max_plus", "max_times", "min_max", "max_min"]
INTEGER_SEMIRINGS = FLOAT_SEMIRINGS + ["plus_pair"]
INTEGER_DTYPES = ["int32", "int64", "uint32", "uint64"]


def _extreme(dtype, high: bool):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.inf if high else -np.inf
    info = np.iinfo(dtype)
    return info.max if high else info.min


def _ops(semiring: str, dtype):
    """(add ufunc, mul function, add's identity) of a semiring over dtype."""
    if semiring == "or_and":
        return np.logical_or, np.logical_and, False
    add = {
        "plus_times": (np.add, 0),
        "plus_pair": (np.add, 0),
        "min_plus": (np.minimum, _extreme(dtype, True)),
        "max_plus": (np.maximum, _extreme(dtype, False)),
        "max_times": (np.maximum, 0),
        "min_max": (np.minimum, _extreme(dtype, True)),
        "max_min": (np.maximum, _extreme(dtype, False)),
    }[semiring]
    mul = {
        "plus_times": np.multiply,
        "plus_pair": lambda a, b: np.ones(np.broadcast(a, b).shape, dtype=dtype),
        "min_plus": np.add,
        "max_plus": np.add,
        "max_times": np.multiply,
        "min_max": np.maximum,
        "max_min": np.minimum,
    }[semiring]
    return add[0], mul, add[1]


def dense_parts(A):
    """(values, stored mask) of a scipy matrix, duplicates summed."""
    A = sp.csr_array(A, copy=True)
    A.sum_duplicates()
    mask = np.zeros(A.shape, dtype=bool)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    mask[rows, A.indices] = True
    return A.toarray(), mask


def spgemm(A, B, semiring: str):
    """C = A ⊗ B: (values, pattern) as dense arrays."""
    (a, am), (b, bm) = dense_parts(A), dense_parts(B)
    add, mul, zero = _ops(semiring, a.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        products = mul(a[:, :, None], b[None, :, :])
    valid = am[:, :, None] & bm[None, :, :]
    products = np.where(valid, products, np.array(zero).astype(a.dtype))
    values = add.reduce(products, axis=1) if a.shape[1] else np.full((a.shape[0], b.shape[1]), zero, dtype=a.dtype)
    return values.astype(a.dtype), valid.any(axis=1)


def spmv(A, x, semiring: str):
    """y = A ⊗ x (or C = A ⊗ X for 2-D x), dense: a row without products
    holds the semiring's zero."""
    a, am = dense_parts(A)
    add, mul, zero = _ops(semiring, a.dtype)
    x2 = x if x.ndim == 2 else x[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        products = mul(a[:, :, None], x2[None, :, :])
    products = np.where(am[:, :, None], products, np.array(zero).astype(a.dtype))
    y = add.reduce(products, axis=1) if a.shape[1] else np.full((a.shape[0], x2.shape[1]), zero)
    y = y.astype(a.dtype)
    return y if x.ndim == 2 else y[:, 0]


def random_values(rng, n: int, dtype, semiring: str | None = None):
    """n values of dtype that no semiring overflows on (≥ 0 for max-times)."""
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(n) < 0.7
    if dtype.kind == "f":
        v = rng.standard_normal(n)
        if semiring == "max_times":
            v = np.abs(v)
        return v.astype(dtype)
    low = 0 if dtype.kind == "u" or semiring == "max_times" else -9
    return rng.integers(low, 10, n).astype(dtype)


def random_csr(
    rng,
    shape,
    density=0.2,
    dtype="float64",
    semiring=None,
    index_dtype="int32",
    dense_row=False,
    empty_rows=True,
    canonical=True,
    matrix=False,
):
    """A random scipy CSR with the features asked: a dense row, empty rows,
    unsorted and duplicate columns (canonical=False), int64 indices."""
    m, n = shape
    rows, cols = [], []
    for i in range(m):
        if dense_row and i == m // 2:
            c = np.arange(n)
        elif empty_rows and i % 3 == 1:
            c = np.array([], dtype=int)
        else:
            c = np.flatnonzero(rng.random(n) < density)
        if not canonical and len(c):
            c = np.concatenate([c, c[:1]])  # a duplicate column
            rng.shuffle(c)
        rows.append(i)
        cols.append(c)
    indptr = np.concatenate([[0], np.cumsum([len(c) for c in cols])]).astype(index_dtype)
    indices = (np.concatenate(cols) if cols else np.array([], dtype=int)).astype(index_dtype)
    data = random_values(rng, len(indices), dtype, semiring)
    cls = sp.csr_matrix if matrix else sp.csr_array
    A = cls((data, indices, indptr), shape=shape)
    # scipy may narrow the index dtype; put back what was asked for.
    A.indices, A.indptr = indices, indptr
    return A


def check_dense_products(A, x, X, y, Y, semiring):
    """y = A ⊗ x and Y = A ⊗ X as spmx gave them, against scipy
    (plus-times, within rounding) or :func:`spmv` (the others, exactly)."""
    if semiring == "plus_times":
        np.testing.assert_allclose(y, A @ x, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(Y, A @ X, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(y, spmv(A, x, semiring))
        np.testing.assert_array_equal(Y, spmv(A, X, semiring))
