/*
 * support.c — per-run kernel selection and key generation.
 *
 * A constructor runs before Criterion starts: if BLOOMSIMD_KERNEL names a
 * kernel this CPU cannot run, the whole suite is skipped with exit code 77
 * and a message naming the kernel (CTest shows "Skipped").
 */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void skip_unsupported_kernel(void)
{
    const char *k = getenv("BLOOMSIMD_KERNEL");
    if (k && *k && !bloomsimd_kernel_supported(k)) {
        bool known = false;
        for (size_t i = 0; bloomsimd_kernel_name(i); i++) known |= strcmp(bloomsimd_kernel_name(i), k) == 0;
        fprintf(stderr, "SKIP: kernel '%s' is %s; suite not run for it\n", k,
                known ? "not supported by this CPU" : "not compiled in");
        exit(77);
    }
}

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

uint64_t *test_keys(size_t n, uint64_t stream)
{
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    cr_assert_not_null(keys);
    for (size_t i = 0; i < n; i++) keys[i] = test_key(stream, i);
    return keys;
}

bloomsimd_filter *test_filter(const bloomsimd_options *o)
{
    bloomsimd_options copy = *o;
    if (!copy.kernel) copy.kernel = test_kernel();
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, &copy);
    cr_assert_eq(st, BLOOMSIMD_OK, "create_with: %s", bloomsimd_status_string(st));
    return f;
}
