/*
 * layout_tables.c — the word-selection tables of kernels/layout.h section 3.
 *
 * All 2^16 masks sorted by (popcount, value): the masks with popcount k are
 * then one contiguous run of C(16,k) entries, in ascending order. 128 KiB,
 * built once per process; each filter points at its k's run (<= 25 KiB).
 */
#include <pthread.h>

#include "internal.h"

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static uint16_t masks_by_popcount[1u << 16];
static uint32_t run_start[18];

static void build_tables(void)
{
    uint32_t count[17] = {0};
    for (uint32_t m = 0; m < (1u << 16); m++) count[__builtin_popcount(m)]++;
    run_start[0] = 0;
    for (uint32_t k = 0; k <= 16; k++) run_start[k + 1] = run_start[k] + count[k];
    uint32_t next[17];
    for (uint32_t k = 0; k <= 16; k++) next[k] = run_start[k];
    for (uint32_t m = 0; m < (1u << 16); m++) masks_by_popcount[next[__builtin_popcount(m)]++] = (uint16_t)m;
}

const uint16_t *bloomsimd_subsets(uint32_t k, uint32_t *count)
{
    pthread_once(&tables_once, build_tables);
    *count = run_start[k + 1] - run_start[k];
    return &masks_by_popcount[run_start[k]];
}
