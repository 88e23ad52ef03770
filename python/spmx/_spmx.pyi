"""Type stubs of spmx._spmx, the extension module (python/src/lib.rs)."""

from typing import Optional

import numpy as np

SEMIRINGS: list[str]
DTYPES: list[str]

class OutOfMemoryError(MemoryError):
    needed: Optional[int]
    available: Optional[int]

class Csr:
    @staticmethod
    def from_parts(
        shape: tuple[int, int],
        indptr: np.ndarray,
        indices: np.ndarray,
        data: np.ndarray,
        copy: bool = False,
    ) -> Csr: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    def addresses(self) -> tuple[int, int, int]: ...
    def take_parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def with_values(self, data: np.ndarray) -> Csr: ...
    def astype(self, dtype: str) -> Csr: ...

class DeviceArray:
    @property
    def ptr(self) -> int: ...
    @property
    def __cuda_array_interface__(self) -> dict: ...

class DevCsr:
    @staticmethod
    def _from_cuda_unchecked(
        device: int,
        shape: tuple[int, int],
        indptr: tuple[int, str],
        indices: tuple[int, str],
        data: tuple[int, str],
        nnz: int,
    ) -> DevCsr: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> int: ...
    def arrays(self) -> tuple[DeviceArray, DeviceArray, DeviceArray]: ...
    def to_csr(self) -> Csr: ...

class Plan:
    def numeric(self, a: Csr, b: Csr) -> Csr: ...
    def product(self) -> Csr: ...

def spgemm(
    a: Csr,
    b: Csr,
    semiring: Optional[str] = None,
    engine: str = "auto",
    mask: Optional[Csr] = None,
    complement: bool = False,
) -> Csr: ...
def spgemm_device(a: DevCsr, b: DevCsr, semiring: Optional[str] = None) -> DevCsr: ...
def _spmv_spmm_device(
    a: DevCsr,
    address: int,
    typestr: str,
    shape: list[int],
    col_major: bool,
    semiring: Optional[str] = None,
) -> DeviceArray: ...
def spmv_spmm(
    a: Csr,
    x: np.ndarray,
    semiring: Optional[str] = None,
    engine: str = "auto",
    mask: Optional[np.ndarray] = None,
    complement: bool = False,
) -> np.ndarray: ...
def plan_spgemm(a: Csr, b: Csr, semiring: Optional[str] = None, engine: str = "auto") -> Plan: ...
def apsp(g: Csr, engine: str = "auto") -> tuple[Csr, int]: ...
def mmread(path: str, dtype: str, zero_based: bool = False, drop_invalid: bool = False) -> Csr: ...
def mmwrite(path: str, c: Csr) -> None: ...
