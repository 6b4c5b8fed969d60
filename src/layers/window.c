/*
 * window.c — sliding-window filters (docs/WINDOWS.md). Windows are not
 * created yet (stage 3 of issue 10): every filter is "not a window".
 */
#include "layers.h"

bloomsimd_status bloomsimd_window_insert(bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                         uint8_t *out, size_t *fresh, bool report)
{
    (void)f, (void)src, (void)src_keys, (void)n, (void)out, (void)fresh, (void)report;
    return BLOOMSIMD_ERR_INVALID_ARGUMENT;
}

bloomsimd_status bloomsimd_rotate(bloomsimd_filter *f)
{
    (void)f;
    return BLOOMSIMD_ERR_INVALID_ARGUMENT;
}
