/* status.c — one string per bloomsimd_status. */
#include "internal.h"

const char *bloomsimd_status_string(bloomsimd_status status)
{
    switch (status) {
    case BLOOMSIMD_OK: return "ok";
    case BLOOMSIMD_ERR_INVALID_ARGUMENT: return "invalid argument";
    case BLOOMSIMD_ERR_TOO_LARGE: return "size too large for the layout or the address space";
    case BLOOMSIMD_ERR_NO_MEMORY: return "out of memory";
    case BLOOMSIMD_ERR_KERNEL_UNAVAILABLE: return "kernel unknown or not supported by this CPU";
    case BLOOMSIMD_ERR_IO: return "I/O error (see errno)";
    case BLOOMSIMD_ERR_CORRUPT: return "serialized filter is corrupt";
    case BLOOMSIMD_ERR_VERSION: return "unsupported serialized format version";
    case BLOOMSIMD_ERR_INCOMPATIBLE: return "filters differ in geometry, seed or hash";
    case BLOOMSIMD_ERR_READ_ONLY: return "filter is read-only";
    }
    return "unknown status";
}
