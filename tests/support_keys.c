/*
 * support_keys.c — the test helpers that need no Criterion: the run's kernel,
 * quick mode, its default layout and key streams. Shared by the Criterion suites and by the
 * plain pthread build of test_concurrency.c that scripts/tsan.sh makes
 * (Criterion cannot start under TSan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

bool test_quick_mode(void)
{
    const char *q = getenv("BLOOMSIMD_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

const char *test_kernel(void)
{
    const char *k = getenv("BLOOMSIMD_KERNEL");
    return (k && *k) ? k : bloomsimd_default_kernel();
}

uint32_t test_default_layout(void)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .kernel = test_kernel()};
    bloomsimd_sizing s;
    if (bloomsimd_size_for(&o, &s) != BLOOMSIMD_OK ||
        (s.layout != BLOOMSIMD_LAYOUT_BLOCK512 && s.layout != BLOOMSIMD_LAYOUT_SPLIT256)) {
        fprintf(stderr, "test_default_layout: size_for on kernel %s: %s\n", test_kernel(), bloomsimd_last_error());
        abort();
    }
    return s.layout;
}

uint64_t *test_keys(size_t n, uint64_t stream)
{
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) {
        fprintf(stderr, "test_keys: out of memory for %zu keys\n", n);
        abort();
    }
    for (size_t i = 0; i < n; i++) keys[i] = test_key(stream, i);
    return keys;
}

void test_each_geometry(uint64_t capacity, double fpr, uint64_t seed, uint32_t k_step,
                        void (*check)(bloomsimd_options o, const char *what))
{
    const uint32_t hashes[] = {BLOOMSIMD_U64_XXH3, BLOOMSIMD_U64_MUM};
    for (int concurrent = 0; concurrent < 2; concurrent++)
        for (size_t h = 0; h < 2; h++)
            for (uint32_t k = 0; k <= 16; k += k_step) { /* 0: split256 (k = 8); the rest block512 */
                bloomsimd_options o = {.capacity = capacity, .fpr = fpr, .k = k, .seed = seed + k,
                                       .layout = k ? BLOOMSIMD_LAYOUT_BLOCK512 : BLOOMSIMD_LAYOUT_SPLIT256,
                                       .flags = hashes[h] | (concurrent ? BLOOMSIMD_CONCURRENT : 0)};
                char what[80];
                snprintf(what, sizeof what, "%s k=%u%s%s", k ? "block512" : "split256", k ? k : 8,
                         h ? " mum" : "", concurrent ? " concurrent" : "");
                check(o, what);
            }
}
