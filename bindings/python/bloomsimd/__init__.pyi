# Type stubs of the bloomsimd package (the C extension bloomsimd._bloomsimd).
from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, Literal, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
library_version: str

Key = Union[int, bytes, bytearray, memoryview, str]
Keys = Union[
    npt.NDArray[Any],          # u64/i64 zero-copy; other int dtypes widened; 'S<n>' or 2-D uint8 rows
    Iterable[Key],             # ints, or bytes/str/bytes-like keys
    Tuple[Any, Any],           # Arrow binary layout: (data, offsets), any buffers
    Any,                       # objects with __arrow_c_array__ / __arrow_c_stream__, buffers with width=
]
PathLike = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
LayoutName = Literal["block512", "split256"]
KernelName = Literal["scalar", "sse42", "avx2", "avx512", "neon"]
U64HashName = Literal["xxh3", "mum"]


class Info(NamedTuple):
    capacity: int
    fpr: float
    bits: int
    blocks: int
    k: int
    bits_per_key: float
    seed: int
    memory_bytes: int
    kernel: str
    layout: str
    concurrent: bool
    growth: int
    layers: int
    items: int
    generations: int
    rotations: int
    fill: float
    estimated_keys: float
    fpr_now: float
    saturated: bool
    load: float
    u64_hash: Optional[U64HashName]


class Sizing(NamedTuple):
    blocks: int
    bits: int
    k: int
    memory_bytes: int
    bits_per_key: float
    fpr: float
    predicted_fpr: float
    layers: int
    kernel: str
    layout: str


class Filter:
    info: Info
    closed: bool

    def __init__(
        self,
        capacity: Optional[int] = None,
        fpr: float = 0.01,
        *,
        bits: Optional[int] = None,
        k: Optional[int] = None,
        growth: Optional[int] = None,
        tightening: Optional[float] = None,
        generations: Optional[int] = None,
        layout: Optional[Union[LayoutName, int]] = None,
        kernel: Optional[Union[KernelName, str]] = None,
        seed: int = 0,
        concurrent: bool = False,
        hugepages: bool = True,
        u64_hash: Optional[U64HashName] = None,
    ) -> None: ...
    @classmethod
    def size_for(
        cls,
        capacity: Optional[int] = None,
        fpr: float = 0.01,
        *,
        bits: Optional[int] = None,
        k: Optional[int] = None,
        growth: Optional[int] = None,
        tightening: Optional[float] = None,
        generations: Optional[int] = None,
        layout: Optional[Union[LayoutName, int]] = None,
        kernel: Optional[Union[KernelName, str]] = None,
        seed: int = 0,
        concurrent: bool = False,
        hugepages: bool = True,
        u64_hash: Optional[U64HashName] = None,
    ) -> Sizing: ...

    # one key
    def add(self, key: Key) -> None: ...
    def add_new(self, key: Key) -> bool: ...
    def __contains__(self, key: object) -> bool: ...

    # batches (without the GIL)
    def add_many(self, keys: Keys, *, width: Optional[int] = None) -> None: ...
    def contains_many(self, keys: Keys, *, width: Optional[int] = None) -> npt.NDArray[np.bool_]: ...
    def add_new_many(self, keys: Keys, *, width: Optional[int] = None) -> npt.NDArray[np.bool_]: ...
    def select(self, keys: Keys, *, width: Optional[int] = None) -> npt.NDArray[np.uint32]: ...

    # counting, windows, life
    def estimate_count(self) -> float: ...
    def rotate(self) -> None: ...
    def clear(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Filter: ...
    def __exit__(self, *exc: object) -> None: ...

    # files and bytes
    def save(self, path: PathLike) -> None: ...
    @classmethod
    def load(cls, path: PathLike, *, kernel: Optional[str] = None, concurrent: bool = False) -> Filter: ...
    @classmethod
    def map(
        cls,
        path: PathLike,
        *,
        writable: bool = False,
        accept_unsynced: bool = False,
        kernel: Optional[str] = None,
        concurrent: bool = False,
    ) -> Filter: ...
    def sync(self) -> None: ...
    def to_bytes(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, data: Any, *, kernel: Optional[str] = None, concurrent: bool = False) -> Filter: ...
    def copy(self) -> Filter: ...
    def __copy__(self) -> Filter: ...
    def __deepcopy__(self, memo: Any) -> Filter: ...

    # set operations
    def union(self, *others: Filter) -> Filter: ...
    def intersection(self, *others: Filter) -> Filter: ...
    def update(self, *others: Filter) -> None: ...
    def intersection_update(self, *others: Filter) -> None: ...
    def __or__(self, other: Filter) -> Filter: ...
    def __and__(self, other: Filter) -> Filter: ...
    def __ior__(self, other: Filter) -> Filter: ...
    def __iand__(self, other: Filter) -> Filter: ...


class BloomsimdError(Exception):
    status: int
    detail: str

class InvalidArgumentError(BloomsimdError, ValueError): ...
class TooLargeError(BloomsimdError, ValueError): ...
class NoMemoryError(BloomsimdError, MemoryError): ...
class KernelUnavailableError(BloomsimdError): ...
class SystemCallError(BloomsimdError, OSError): ...
class CorruptError(BloomsimdError, ValueError): ...
class VersionError(BloomsimdError, ValueError): ...
class IncompatibleError(BloomsimdError, ValueError): ...
class ReadOnlyError(BloomsimdError): ...
class BusyError(BloomsimdError, RuntimeError): ...


def kernels() -> list[str]: ...
def kernel_supported(name: str) -> bool: ...
def default_kernel() -> str: ...
