"""What spmx's two matrix classes share: the shape, entry count and dtype
read once from the native matrix, and ``@`` (see :func:`spmx.matmul`)."""

from __future__ import annotations

import numpy as np


def _cast_dense(values, dtype):
    """A dense operand (numpy or CuPy) cast to a matrix's ``dtype``
    (``same_kind``); another kind is a ``ValueError`` naming both."""
    if values.dtype == dtype:
        return values
    if not np.can_cast(values.dtype, dtype, casting="same_kind"):
        raise ValueError(
            f"cannot multiply a {np.dtype(dtype).name} matrix by {values.dtype.name} values: "
            f"convert one of them"
        )
    return values.astype(dtype)


class _Matrix:
    """A matrix spmx holds: ``_native`` is the extension's object."""

    __slots__ = ("_native", "_shape", "_dtype", "_nnz", "__weakref__")
    __array_priority__ = 1000.0  # numpy defers x @ S to S.__rmatmul__

    def __init__(self, native):
        self._native = native
        self._shape = native.shape
        self._dtype = np.dtype(native.dtype)
        self._nnz = native.nnz

    @property
    def shape(self) -> tuple[int, int]:
        """``(nrows, ncols)``."""
        return self._shape

    @property
    def ndim(self) -> int:
        """2."""
        return 2

    @property
    def nnz(self) -> int:
        """Stored entries (explicit zeros included)."""
        return self._nnz

    @property
    def dtype(self) -> np.dtype:
        """The value type."""
        return self._dtype

    def __matmul__(self, other):
        from . import matmul

        return matmul(self, other)

    def __rmatmul__(self, other):
        from . import _is_sparse, matmul

        if _is_sparse(other):
            return matmul(other, self)
        return NotImplemented
