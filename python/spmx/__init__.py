"""spmx: sparse-matrix multiplication over any semiring, from Python.

SpGEMM (sparse x sparse), SpMV (sparse x vector) and SpMM (sparse x
dense) over plus-times, min-plus, max-plus, or-and, max-times, min-max,
max-min and (integers) plus-pair, on the ``serial``, ``cpu`` (all cores)
and ``cuda`` engines, with scipy and numpy arrays in and out::

    import spmx
    S = spmx.asarray(A)                      # scipy csr/csc/coo: A's arrays, not copied
    C = S @ S                                # SpGEMM, plus-times, engine "auto"
    D = spmx.matmul(S, S, semiring="min_plus", engine="cpu")
    y = S @ x                                # SpMV (1-D numpy), S @ X: SpMM (2-D)
    C.to_scipy()                             # the result's arrays, not copied
    G = spmx.asarray(cupy_csr)               # CuPy in: copied on the GPU
    (G @ G).to_cupy()                        # SpGEMM on the GPU; CuPy out, no copy

Every multiply releases the GIL, so other Python threads run meanwhile.
A large SpGEMM (2**26 products or more) on the cpu or serial engine runs
in blocks of rows with Ctrl-C checked between them, so
``KeyboardInterrupt`` comes within a fraction of a second; other products
raise it when they return (spmx's engines cannot be stopped part-way).
Errors are Python exceptions carrying
spmx's message: ``ValueError`` for bad input (a file's line, shapes that do
not fit, a value outside a semiring's domain), :class:`OutOfMemoryError`
(a ``MemoryError``) with ``needed`` and ``available`` bytes,
``NotImplementedError`` for what an engine does not have or cannot run
here (``engine="cuda"`` without a GPU, an integer semiring on the GPU).
"""

from __future__ import annotations

import gzip
import os

import numpy as np
import scipy.sparse as _sp

from . import _spmx
from . import _device
from ._device import DeviceSparseMatrix, from_cupy
from ._matrix import _cast_dense, _Matrix
from ._spmx import DTYPES, SEMIRINGS, OutOfMemoryError

__all__ = [
    "SparseMatrix",
    "DeviceSparseMatrix",
    "Plan",
    "asarray",
    "matmul",
    "plan_matmul",
    "apsp",
    "bfs",
    "triangles",
    "mmread",
    "mmwrite",
    "OutOfMemoryError",
    "SEMIRINGS",
    "DTYPES",
]


def _dtype_name(dtype) -> str:
    name = np.dtype(dtype).name
    if name not in DTYPES:
        raise ValueError(f"spmx has no values of dtype {name}; it has {', '.join(DTYPES)}")
    return name


class SparseMatrix(_Matrix):
    """A CSR matrix held by spmx (made by :func:`asarray` or a product).

    ``S @ T`` multiplies two of them (SpGEMM), ``S @ x`` a 1-D numpy array
    (SpMV) and ``S @ X`` a 2-D one (SpMM), each in the dtype's default
    semiring (plus-times; or-and for bool) on engine ``"auto"``;
    :func:`matmul` names both. :meth:`to_scipy` hands the arrays to scipy
    without copying them; the matrix then reads its operands from those
    arrays (in place, checked at each use).
    """

    __slots__ = ("_parts",)

    def __init__(self, native: _spmx.Csr):
        super().__init__(native)
        self._parts = None

    def __repr__(self) -> str:
        return (
            f"<spmx.SparseMatrix {self._shape[0]}x{self._shape[1]}, "
            f"{self._nnz} stored entries of {self._dtype.name}>"
        )

    def _operand(self) -> _spmx.Csr:
        """The matrix as spmx's Csr: its own, or one made from the arrays
        handed to scipy (read in place, and checked)."""
        if self._native is not None:
            return self._native
        indptr, indices, data = self._parts
        return _spmx.Csr.from_parts(self._shape, indptr, indices, data)

    def _arrays(self):
        """``(indptr, indices, data)`` as numpy arrays: the first call moves
        spmx's arrays into numpy (no copy of the values or column indices)."""
        if self._parts is None:
            self._parts = self._native.take_parts()
            self._native = None
        return self._parts

    def to_scipy(self) -> _sp.csr_array:
        """The matrix as a ``scipy.sparse.csr_array`` over spmx's own buffers.

        The values and the column indices are handed over, not copied
        (where the column count and the entries fit ``int32``, else the
        column indices are widened to ``int64``); the row pointers are
        narrowed to the same index dtype. The scipy array and this matrix
        share the buffers from then on.
        """
        indptr, indices, data = self._arrays()
        return _sp.csr_array((data, indices, indptr), shape=self._shape, copy=False)

    def to_cupy(self):
        """The matrix as a ``cupyx.scipy.sparse.csr_matrix`` on the current
        GPU (copied from the host arrays of :meth:`to_scipy`; a product of
        CuPy operands is a :class:`DeviceSparseMatrix`, whose ``to_cupy``
        copies nothing)."""
        import cupyx.scipy.sparse as cusp

        return cusp.csr_matrix(self.to_scipy())

    def with_data(self, values) -> SparseMatrix:
        """A matrix with this pattern and ``values`` (one per stored entry,
        in CSR order, cast to this dtype): the operand of a :class:`Plan`."""
        values = np.ascontiguousarray(values, dtype=self._dtype)
        if values.ndim != 1:
            raise ValueError(f"with_data: values must be 1-D, not {values.ndim}-D")
        return SparseMatrix(self._operand().with_values(values))

    def astype(self, dtype) -> SparseMatrix:
        """This matrix with values of ``dtype`` (converted through float64)."""
        name = _dtype_name(dtype)
        if name == self._dtype.name:
            return self
        return SparseMatrix(self._operand().astype(name))


def _is_sparse(x) -> bool:
    if isinstance(x, (SparseMatrix, DeviceSparseMatrix)) or _sp.issparse(x):
        return True
    return type(x).__module__.startswith("cupyx.scipy.sparse")


def asarray(A, dtype=None, copy: bool = False) -> SparseMatrix:
    """``A`` as an spmx matrix.

    ``A``: a scipy sparse array or matrix (csr, csc, coo, or any format
    scipy converts to csr), with int32 or int64 indices; a 2-D numpy array
    (its nonzeros); or an :class:`SparseMatrix` (returned as it is, or
    converted to ``dtype``). ``dtype``: float32, float64, bool, int32,
    int64, uint32 or uint64 (default: A's).

    A ``cupyx.scipy.sparse`` matrix of float32 or float64 values becomes a
    :class:`DeviceSparseMatrix` on its GPU, copied there by spmx with no
    host round trip (see ``spmx._device`` for the stream ordering); of
    other values, or a dense CuPy array, it is brought to the host.

    A canonical CSR's arrays are read in place, not copied: its values
    (of the dtype asked), its ``int32`` column indices and its ``int64``
    row pointers (``int64`` column indices are narrowed into a copy, and
    ``int32`` row pointers widened). They are checked once, here (indices
    in range). Like a scipy array made with ``copy=False``, the result
    shares those arrays with ``A``: do not write to ``A.data``,
    ``A.indices`` or ``A.indptr`` while it lives — or pass ``copy=True``,
    which copies them into spmx's own. Non-canonical input — columns
    unsorted within a row, or repeated — is canonicalised into a copy
    first (duplicates summed, as scipy's ``sum_duplicates`` does); ``A``
    itself is left as it is.
    """
    if isinstance(A, SparseMatrix):
        return A if dtype is None else A.astype(dtype)
    if isinstance(A, DeviceSparseMatrix):
        return A if dtype is None else A.astype(dtype)
    if type(A).__module__.startswith("cupyx.scipy.sparse"):
        on_device = from_cupy(A, dtype)
        if on_device is not None:
            return on_device
        A = A.get()
    elif type(A).__module__.startswith("cupy"):
        A = A.get()
    if not _sp.issparse(A):
        A = np.asarray(A)
        if A.ndim != 2:
            raise ValueError(f"spmx.asarray: a {A.ndim}-D array is not a matrix")
        A = _sp.csr_array(A)
    A = A.tocsr()
    if dtype is not None:
        A = A.astype(_dtype_name(dtype), copy=False)
    _dtype_name(A.dtype)
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    indptr = np.ascontiguousarray(A.indptr)
    indices = np.ascontiguousarray(A.indices)
    data = np.ascontiguousarray(A.data)
    return SparseMatrix(_spmx.Csr.from_parts(A.shape, indptr, indices, data, copy))


def _common(A: SparseMatrix, B: SparseMatrix):
    if A.dtype == B.dtype:
        return A, B
    dtype = np.result_type(A.dtype, B.dtype)
    return A.astype(dtype), B.astype(dtype)


def matmul(
    A,
    B,
    semiring: str | None = None,
    engine: str = "auto",
    *,
    mask=None,
    complement: bool = False,
):
    """``A ⊗ B`` over ``semiring`` on ``engine``.

    ``B`` sparse (anything :func:`asarray` takes): SpGEMM, a
    :class:`SparseMatrix`. ``B`` a 1-D numpy array: SpMV, a 1-D array; 2-D:
    SpMM, a 2-D array (row-major; B is copied into spmx's layout). Dense
    operands are cast to A's dtype (``same_kind``); sparse ones of two
    dtypes are both converted to numpy's common type. ``B`` a CuPy array
    (engine ``"auto"`` or ``"cuda"``): SpMV or SpMM on its GPU, a CuPy
    array out (C-contiguous B gives a C-contiguous result, Fortran order
    a Fortran-order one); a host A is copied to the GPU first (keep it
    there with ``spmx.asarray(cupyx.scipy.sparse.csr_matrix(...))`` to
    multiply it again), a device A stays and keeps the plan of its first
    product for the next. Other engines download B and return numpy.

    ``semiring``: a name of :data:`SEMIRINGS` (``"min_plus"``, or
    ``"min-plus"``); default plus-times, or-and for bool. ``engine``:
    ``"auto"`` (the GPU where there is one and it has the semiring, else
    ``"cpu"``), ``"cpu"``, ``"serial"``, ``"cuda"``. Two
    :class:`DeviceSparseMatrix` operands (CuPy sparse matrices) multiply on
    their GPU and the product stays there (engine ``"auto"`` or
    ``"cuda"``); any other engine, or a host operand beside one, downloads
    it. SpGEMM keeps the
    structural pattern (an entry wherever a product exists, even if it
    sums to zero), as GraphBLAS does; scipy drops numeric zeros.

    ``mask``: GraphBLAS's structural mask, ``C⟨M⟩ = A ⊗ B``. For SpGEMM a
    sparse matrix of C's shape (anything :func:`asarray` takes, values
    ignored): C has only the entries M stores, or (``complement``) only
    those it does not; for SpMV a bool array a row of A: the rows it rules
    out are not computed and hold the semiring's zero (``inf`` for
    min-plus), as a dense vector's "no entry". Masked products run on the
    CPU engines (``"auto"`` picks ``"cpu"``; ``"cuda"`` is
    ``NotImplementedError``); the masked-out entries are never computed.
    """
    A = asarray(A)
    masked = mask is not None
    if _is_sparse(B):
        B = asarray(B)
        both_on_device = isinstance(A, DeviceSparseMatrix) and isinstance(B, DeviceSparseMatrix)
        if both_on_device and engine in ("auto", "cuda") and not masked:
            return DeviceSparseMatrix(_spmx.spgemm_device(A._native, B._native, semiring))
        A, B = _common(A, B)
        M = asarray(mask)._operand() if masked else None
        return SparseMatrix(
            _spmx.spgemm(A._operand(), B._operand(), semiring, engine, M, complement)
        )
    if type(B).__module__.startswith("cupy"):
        if engine in ("auto", "cuda") and not masked:
            return _device.matmul_dense(A, B, semiring)
        B = B.get()
    x = np.ascontiguousarray(_cast_dense(np.asarray(B), A.dtype))
    if masked:
        mask = np.ascontiguousarray(mask.get() if hasattr(mask, "get") else mask)
        if mask.dtype != np.bool_ or mask.shape != (A.shape[0],):
            raise ValueError(
                f"an SpMV mask is a bool array of A's {A.shape[0]} rows, not "
                f"{mask.dtype.name} of shape {mask.shape}"
            )
    return _spmx.spmv_spmm(A._operand(), x, semiring, engine, mask, complement)


class Plan:
    """A product ``C = A ⊗ B`` planned once (:func:`plan_matmul`) and
    computed again for new values of A and B with the same patterns: call
    it with the new operands (``plan(A.with_data(v))``; B defaults to A's
    new values when the plan was made for ``A ⊗ A``). Operands of another
    pattern are a ``ValueError``. :attr:`product` is C as first computed.
    """

    __slots__ = ("_plan", "_square", "_dtype", "product")

    def __init__(self, plan: _spmx.Plan, square: bool, dtype: np.dtype):
        self._plan = plan
        self._square = square
        self._dtype = dtype
        self.product = SparseMatrix(plan.product())

    def __call__(self, A, B=None) -> SparseMatrix:
        if B is None:
            if not self._square:
                raise ValueError("this plan is of A ⊗ B: give B too")
            B = A
        A, B = asarray(A, self._dtype), asarray(B, self._dtype)
        return SparseMatrix(self._plan.numeric(A._operand(), B._operand()))


def plan_matmul(A, B=None, semiring: str | None = None, engine: str = "auto") -> Plan:
    """Plans ``C = A ⊗ B`` (``B`` default: A) over ``semiring`` on
    ``engine`` (``"cpu"``, ``"serial"``: the cpu plan; ``"cuda"``; ``"auto"``):
    the symbolic phase and a first product, kept for :class:`Plan` to
    compute C again for new values."""
    A = asarray(A)
    square = B is None or B is A
    B = A if B is None else asarray(B)
    A, B = _common(A, B)
    plan = _spmx.plan_spgemm(A._operand(), B._operand(), semiring, engine)
    return Plan(plan, square, A.dtype)


def apsp(G, dtype="float64", engine: str = "auto") -> SparseMatrix:
    """All-pairs shortest-path distances of the weighted graph ``G``
    (square; stored entries are edges, explicit zeros included), as spmx's
    ``apsp``: where no weight is negative, by Dijkstra from every vertex
    (on ``engine="cuda"``, Bellman-Ford rounds for batches of sources on
    the GPU, the same bits), else by min-plus squaring; computed in
    float64, returned in
    ``dtype`` (float64 or float32). An entry of the result is a pair
    joined by a path (absent: none). A negative cycle or a NaN weight is a
    ``ValueError`` naming a vertex or the edge; a distance matrix too large
    for memory is :class:`OutOfMemoryError`."""
    name = _dtype_name(dtype)
    if name not in ("float64", "float32"):
        raise ValueError(f"apsp: distances are float64 or float32, not {name}")
    G = asarray(G, "float64")
    D, _squarings = _spmx.apsp(G._operand(), engine)
    D = SparseMatrix(D)
    return D if name == "float64" else D.astype(name)


def bfs(G, source: int, engine: str = "auto"):
    """Breadth-first search of ``G``'s graph (square; stored entries are
    edges ``i -> j``, whatever their value) from vertex ``source``, as
    spmx's ``bfs``: ``(levels, parents)``, two int64 arrays of n: each
    vertex's hops from the source and its parent in the search tree (its
    lowest-numbered in-neighbour one level up; the source is its own), -1
    where not reached. scipy's ``breadth_first_order`` gives the reached
    vertices and predecessors of a search in another order. A
    :class:`DeviceSparseMatrix` (from CuPy) is searched on its GPU
    whatever ``engine`` says."""
    G = asarray(G)
    if isinstance(G, DeviceSparseMatrix):
        return _spmx.bfs_device(G._native, int(source))
    return _spmx.bfs(G._operand(), int(source), engine)


def triangles(G, order: str = "degree", engine: str = "auto") -> int:
    """Triangles of the undirected graph of ``G``'s pattern (square; the
    diagonal ignored), each set of three vertices joined pairwise counted
    once: the masked product ``L·L⟨L⟩`` over plus-pair of the lower
    triangle ``L``, vertices ordered by ``order`` ("degree", lowest first,
    or "natural"). A :class:`DeviceSparseMatrix` (from CuPy) is counted on
    its GPU whatever ``engine`` says; where its pattern is symmetric, L is
    made there too and only the count comes back."""
    G = asarray(G)
    if isinstance(G, DeviceSparseMatrix):
        return _spmx.triangles_device(G._native, order)
    return _spmx.triangles(G._operand(), order, engine)


def _field(path) -> str:
    """The field (real, integer, pattern) of a MatrixMarket file's banner."""
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        banner = f.readline(1024).decode("ascii", "replace").lower().split()
    return banner[3] if len(banner) > 3 else "real"


def mmread(path, dtype=None, *, zero_based: bool = False, drop_invalid: bool = False):
    """Reads a MatrixMarket coordinate file (``.gz`` too) as a
    :class:`SparseMatrix`, duplicates summed. ``dtype``: default float64
    for real and pattern files, int64 for integer ones (as scipy's
    ``mmread``). A malformed line is a ``ValueError`` naming the file and
    the line; ``zero_based`` reads 0-based indices, ``drop_invalid`` skips
    out-of-range entries."""
    path = os.fspath(path)
    if dtype is None:
        dtype = "int64" if _field(path) == "integer" else "float64"
    native = _spmx.mmread(path, _dtype_name(dtype), zero_based, drop_invalid)
    return SparseMatrix(native)


def mmwrite(path, A) -> None:
    """Writes ``A`` (anything :func:`asarray` takes) as a MatrixMarket
    coordinate file: ``real`` for floats, ``integer`` for integers and bool
    (0/1); a name ending in ``.gz`` is written compressed. The file appears
    whole or not at all."""
    _spmx.mmwrite(os.fspath(path), asarray(A)._operand())
