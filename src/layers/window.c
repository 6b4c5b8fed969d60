/*
 * window.c — sliding-window filters (docs/WINDOWS.md). Windows are not
 * created yet (stage 3 of issue 10): every filter is "not a window".
 */
#include "../internal.h"

bloomsimd_status bloomsimd_rotate(bloomsimd_filter *f)
{
    (void)f;
    return BLOOMSIMD_ERR_INVALID_ARGUMENT;
}
