"""SIMD Bloom filters for Python, on libbloomsimd.

    import numpy as np, bloomsimd

    f = bloomsimd.Filter(10_000_000, fpr=0.01)
    f.add_many(np.arange(1_000_000, dtype=np.uint64))   # ~1 ns a key, GIL released
    f.contains_many(ids)                                # numpy bool array
    42 in f, "user-7" in f, b"\\x00\\x01" in f          # single keys: int, str, bytes-like
    f.save("seen.bsf")                                  # the library's portable format

help(bloomsimd.Filter) has the whole tour. Filters saved here load in C, Go, Java
and the `bloomsimd` command, and the other way round; the Redis module's
BFX.EXPORT key replies with a filter's bytes for Filter.from_bytes, and
BFX.IMPORT key f.to_bytes() serves one from Redis.
"""
from ._bloomsimd import (
    BloomsimdError,
    BusyError,
    CorruptError,
    Filter,
    IncompatibleError,
    Info,
    InvalidArgumentError,
    KernelUnavailableError,
    NoMemoryError,
    ReadOnlyError,
    Sizing,
    SystemCallError,
    TooLargeError,
    VersionError,
    default_kernel,
    kernel_supported,
    kernels,
    library_version,
)

__version__ = library_version

__all__ = [
    "Filter",
    "Info",
    "Sizing",
    "BloomsimdError",
    "InvalidArgumentError",
    "TooLargeError",
    "NoMemoryError",
    "KernelUnavailableError",
    "SystemCallError",
    "CorruptError",
    "VersionError",
    "IncompatibleError",
    "ReadOnlyError",
    "BusyError",
    "kernels",
    "kernel_supported",
    "default_kernel",
    "library_version",
]
