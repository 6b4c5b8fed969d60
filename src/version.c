/* version.c — the version of the library actually loaded. */
#include "internal.h"

#define BLOOMSIMD_STR2(x) #x
#define BLOOMSIMD_STR(x) BLOOMSIMD_STR2(x)

unsigned bloomsimd_version_number(void) { return BLOOMSIMD_VERSION_NUMBER; }

const char *bloomsimd_version_string(void)
{
    return BLOOMSIMD_STR(BLOOMSIMD_VERSION_MAJOR) "." BLOOMSIMD_STR(BLOOMSIMD_VERSION_MINOR) "." BLOOMSIMD_STR(
        BLOOMSIMD_VERSION_PATCH);
}
