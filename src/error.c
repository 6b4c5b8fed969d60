/*
 * error.c — the per-thread detail of the last failure (bloomsimd_last_error).
 *
 * Status codes say what kind of failure it was; the detail says which value
 * or which check: "fpr 1e-11 is below the minimum 1e-10", "payload checksum
 * mismatch". It lives in a fixed thread-local buffer, so a failure never
 * allocates (a failure may be "out of memory") and threads never see each
 * other's details. The text is formatted with vsnprintf into that buffer:
 * the formats used (%s, integers, %g) need no heap in glibc.
 *
 * Clearing: the calls that take a whole request (create, persistence, key
 * views, batches, set operations, rotate) clear it on entry, so after they
 * succeed it is "". The single-key inserts do not: a thread-local access
 * in a shared library is a call to __tls_get_addr, a measurable share of a
 * ~5 ns insert; they set it only when they fail (README, header).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static _Thread_local char detail[BLOOMSIMD_ERROR_DETAIL_BYTES];

const char *bloomsimd_last_error(void) { return detail; }

void bloomsimd_error_clear(void)
{
    if (detail[0]) detail[0] = '\0';
}

bloomsimd_status bloomsimd_fail(bloomsimd_status status, const char *format, ...)
{
    int saved = errno; /* BLOOMSIMD_ERR_IO promises errno is kept */
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(detail, sizeof detail, format, ap);
    va_end(ap);
    if (n < 0) detail[0] = '\0';
    errno = saved;
    return status;
}

bloomsimd_status bloomsimd_fail_errno(bloomsimd_status status, const char *format, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(detail, sizeof detail, format, ap);
    va_end(ap);
    if (n < 0) n = 0, detail[0] = '\0';
    size_t used = (size_t)n < sizeof detail ? (size_t)n : sizeof detail - 1;
    char reason[128];
    /* the GNU strerror_r (_GNU_SOURCE): thread-safe, returns the text */
    snprintf(detail + used, sizeof detail - used, ": %s", strerror_r(saved, reason, sizeof reason));
    errno = saved;
    return status;
}

bloomsimd_status bloomsimd_fail_default(bloomsimd_status status)
{
    if (status != BLOOMSIMD_OK && !detail[0]) {
        int saved = errno;
        snprintf(detail, sizeof detail, "%s", bloomsimd_status_string(status));
        errno = saved;
    }
    return status;
}
