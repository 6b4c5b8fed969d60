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
