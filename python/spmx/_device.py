"""CSR matrices kept on the GPU, from and to CuPy without a host round trip.

:func:`from_cupy` reads a ``cupyx.scipy.sparse`` matrix's arrays through
``__cuda_array_interface__`` and spmx copies them on the device (only the
row pointer, ``nrows + 1`` integers, comes to the host to be checked);
:class:`DeviceSparseMatrix` multiplies with another one on the GPU
(SpGEMM) or with CuPy's dense arrays (SpMV, SpMM: the operand copied on
the device, the result handed to CuPy without a copy) and hands its
arrays to CuPy by address
(:meth:`DeviceSparseMatrix.to_cupy`: no copy).

Stream ordering: spmx works on its own stream (the legacy default stream
of the device's primary context, the context CuPy uses) and synchronizes
it before it hands anything back, so CuPy may use a result at once.
Before reading CuPy's arrays, :func:`from_cupy` synchronizes CuPy's
current stream, so that work CuPy queued on them has finished.
"""

from __future__ import annotations

import numpy as np

from . import _spmx
from ._matrix import _cast_dense, _Matrix

# The value types both CuPy's sparse matrices and spmx's GPU kernels have.
DEVICE_DTYPES = ("float32", "float64")


def _address(array, what: str) -> tuple[int, str]:
    """``(device address, typestr)`` of a C-contiguous 1-D CuPy array."""
    cai = array.__cuda_array_interface__
    if cai.get("strides") not in (None, (array.dtype.itemsize,)):
        raise ValueError(f"spmx.asarray: the CuPy matrix's {what} array is not contiguous")
    return cai["data"][0], cai["typestr"]


def from_cupy(A, dtype=None) -> DeviceSparseMatrix | None:
    """``A`` (a ``cupyx.scipy.sparse`` matrix) as a
    :class:`DeviceSparseMatrix` copied on its device, or ``None`` when its
    values (after ``dtype``) are not float32 or float64, which the GPU path
    does not have. Non-canonical input is canonicalised on the device into
    a copy (CuPy marks matrices made from arrays as not canonical, so
    those are copied on the device; :meth:`DeviceSparseMatrix.to_cupy`
    marks its results canonical); column indices out of range are a ``ValueError`` (checked on
    the device: two numbers come back)."""
    import cupy

    A = A.tocsr()
    if dtype is not None and np.dtype(dtype) != A.dtype:
        A = A.astype(np.dtype(dtype))
    if np.dtype(A.dtype).name not in DEVICE_DTYPES:
        return None
    with A.data.device:
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
        indptr = cupy.ascontiguousarray(A.indptr)
        indices = cupy.ascontiguousarray(A.indices)
        data = cupy.ascontiguousarray(A.data)
        nrows, ncols = A.shape
        if indices.size != data.size:
            raise ValueError(
                f"spmx.asarray: {indices.size} column indices but {data.size} values"
            )
        if indices.size:
            low, high = int(indices.min()), int(indices.max())
            if low < 0 or high >= ncols:
                bad = low if low < 0 else high
                raise ValueError(
                    f"spmx.asarray: column index {bad} outside the {ncols} columns"
                )
        cupy.cuda.get_current_stream().synchronize()
        native = _spmx.DevCsr._from_cuda_unchecked(
            A.data.device.id,
            (nrows, ncols),
            _address(indptr, "indptr"),
            _address(indices, "indices"),
            _address(data, "data"),
            int(data.size),
        )
    return DeviceSparseMatrix(native)


def matmul_dense(A, B, semiring):
    """``A ⊗ B`` on ``B``'s GPU for a dense CuPy ``B`` (1-D: SpMV, 2-D:
    SpMM), a CuPy array over spmx's result (no copy). ``B`` is cast to
    A's dtype (``same_kind``) and made contiguous where it is not; a host
    ``A`` is copied to the GPU first."""
    import cupy
    import cupyx.scipy.sparse as cusp

    with B.device:
        if not isinstance(A, DeviceSparseMatrix):
            dtype = A.dtype if A.dtype.name in DEVICE_DTYPES else np.result_type(A.dtype, B.dtype)
            on_device = from_cupy(cusp.csr_matrix(A.to_scipy()), dtype)
            if on_device is None:
                raise NotImplementedError(
                    f"the GPU multiplies float32 or float64 values, not {A.dtype.name}: "
                    f"use engine='cpu'"
                )
            A = on_device
        if B.device.id != A.device:
            raise ValueError(f"the matrix is on GPU {A.device}, the array on GPU {B.device.id}")
        if B.ndim not in (1, 2):
            raise ValueError(f"a dense operand has 1 or 2 dimensions, not {B.ndim}")
        B = _cast_dense(B, A.dtype)
        col_major = B.ndim == 2 and not B.flags.c_contiguous and B.flags.f_contiguous
        if not (B.flags.c_contiguous or col_major):
            B = cupy.ascontiguousarray(B)
        shape = (A.shape[0],) + tuple(B.shape[1:])
        if B.shape[0] != A.shape[1]:
            raise ValueError(
                f"A is {A.shape[0]}×{A.shape[1]}: the operand needs {A.shape[1]} rows, "
                f"not {B.shape[0]}"
            )
        if 0 in shape:
            return cupy.empty(shape, dtype=A.dtype, order="F" if col_major else "C")
        cupy.cuda.get_current_stream().synchronize()
        out = _spmx._spmv_spmm_device(
            A._native, B.data.ptr, B.dtype.str, list(B.shape), col_major, semiring
        )
        return cupy.asarray(out)


def _to_cupy_array(cupy, array):
    """A CuPy array over one of spmx's device buffers (no copy); an empty
    one (no buffer to point at) is a fresh empty array."""
    cai = array.__cuda_array_interface__
    if cai["shape"][0] == 0:
        return cupy.empty(0, dtype=cai["typestr"])
    return cupy.asarray(array)


class DeviceSparseMatrix(_Matrix):
    """A CSR matrix kept on the GPU by spmx (float32 or float64 values),
    made by :func:`spmx.asarray` from a ``cupyx.scipy.sparse`` matrix or
    by a product of two of them.

    ``S @ T`` of two device matrices is SpGEMM on the GPU (engine
    ``"cuda"``), the product kept there; ``S @ x`` and ``S @ X`` of CuPy
    dense arrays are SpMV and SpMM there, a CuPy array out (the plan made
    by the first kept for the next). Anything else — a host operand,
    ``engine="cpu"``, numpy operands, plans, :func:`spmx.apsp` — downloads
    the matrix and runs on the host (:meth:`to_host`). :meth:`to_cupy` hands the arrays to CuPy
    without copying them; :meth:`to_scipy` downloads.
    """

    __slots__ = ()

    @property
    def device(self) -> int:
        """The CUDA device the matrix lives on."""
        return self._native.device

    @property
    def data_address(self) -> int:
        """The device address of spmx's values buffer (what
        :meth:`to_cupy`'s ``data`` points at)."""
        return self._native.arrays()[2].ptr

    def __repr__(self) -> str:
        return (
            f"<spmx.DeviceSparseMatrix {self._shape[0]}x{self._shape[1]} on GPU "
            f"{self.device}, {self._nnz} stored entries of {self._dtype.name}>"
        )

    def to_cupy(self):
        """The matrix as a ``cupyx.scipy.sparse.csr_matrix`` over spmx's own
        device buffers (int32 indices; no copy, no host trip): the CuPy
        arrays keep this matrix's buffers alive, and writing them changes
        this matrix too. More columns or entries than int32 holds is a
        ``ValueError``: use :meth:`to_scipy`."""
        import cupy
        import cupyx.scipy.sparse as cusp

        with cupy.cuda.Device(self.device):
            indptr, indices, data = (_to_cupy_array(cupy, a) for a in self._native.arrays())
            C = cusp.csr_matrix((data, indices, indptr), shape=self._shape, copy=False)
        # spmx's matrices are canonical; CuPy assumes arrays it is given are
        # not, and would canonicalise a copy when they come back to spmx.
        C._has_canonical_format = True
        return C

    def to_host(self):
        """The matrix copied to the host, as a :class:`spmx.SparseMatrix`."""
        from . import SparseMatrix

        return SparseMatrix(self._native.to_csr())

    def to_scipy(self):
        """The matrix copied to the host, as a ``scipy.sparse.csr_array``."""
        return self.to_host().to_scipy()

    def _operand(self) -> _spmx.Csr:
        """The matrix on the host, for the host engines."""
        return self._native.to_csr()

    def with_data(self, values):
        """As :meth:`spmx.SparseMatrix.with_data`, on the host."""
        return self.to_host().with_data(values)

    def astype(self, dtype):
        """This matrix, or (another dtype) a host copy converted."""
        if np.dtype(dtype) == self._dtype:
            return self
        return self.to_host().astype(dtype)
