/*
 * standalone.h — lets a concurrency suite run without Criterion, so that
 * scripts/tsan.sh can build it under ThreadSanitizer (Criterion cannot start
 * under TSan: its boxfort arena mapping fails, Criterion issue #274).
 *
 * With BLOOMSIMD_TSAN_STANDALONE defined, the few Criterion macros these
 * suites use become checks that print and exit 1, Test() registers a
 * function that main() runs, and test_filter is re-stated; otherwise this
 * header is just <criterion/criterion.h>. The key helpers come from
 * tests/support_keys.c in both builds. (tests/test_concurrency.c carries its
 * own copy of the same harness.)
 */
#ifndef BLOOMSIMD_TEST_STANDALONE_H
#define BLOOMSIMD_TEST_STANDALONE_H

#include "support.h"

#ifndef BLOOMSIMD_TSAN_STANDALONE
#include <criterion/criterion.h>
#else
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* fmt is "" when the assertion has no message (so no format attribute). */
static void standalone_check(bool ok, int line, const char *expr, const char *fmt, ...)
{
    if (ok) return;
    fprintf(stderr, "%s:%d: assertion failed: %s\n  ", __FILE__, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}
#define cr_assert(cond, ...) standalone_check((cond), __LINE__, #cond, "" __VA_ARGS__)
#define cr_assert_eq(a, b, ...) standalone_check((a) == (b), __LINE__, #a " == " #b, "" __VA_ARGS__)
#define cr_assert_neq(a, b, ...) standalone_check((a) != (b), __LINE__, #a " != " #b, "" __VA_ARGS__)
#define cr_assert_not_null(p, ...) standalone_check((p) != NULL, __LINE__, #p " != NULL", "" __VA_ARGS__)

typedef struct standalone_test {
    void (*fn)(void);
    const char *name;
} standalone_test;
static standalone_test standalone_tests[32];
static size_t standalone_count;

static void standalone_register(void (*fn)(void), const char *name)
{
    if (standalone_count < sizeof standalone_tests / sizeof standalone_tests[0])
        standalone_tests[standalone_count++] = (standalone_test){fn, name};
}

#define Test(suite, name)                                                                                          \
    static void suite##_##name(void);                                                                              \
    __attribute__((constructor)) static void register_##suite##_##name(void)                                       \
    {                                                                                                              \
        standalone_register(suite##_##name, #suite "::" #name);                                                    \
    }                                                                                                              \
    static void suite##_##name(void)

bloomsimd_filter *test_filter(const bloomsimd_options *o)
{
    bloomsimd_options copy = *o;
    if (!copy.kernel) copy.kernel = test_kernel();
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create_with(&f, &copy), BLOOMSIMD_OK);
    return f;
}

int main(void)
{
    const char *k = getenv("BLOOMSIMD_KERNEL");
    if (k && *k && !bloomsimd_kernel_supported(k)) {
        fprintf(stderr, "SKIP: kernel '%s' cannot run here\n", k);
        return 77;
    }
    for (size_t i = 0; i < standalone_count; i++) {
        standalone_tests[i].fn();
        printf("[PASS] %s (kernel %s)\n", standalone_tests[i].name, test_kernel());
    }
    return 0;
}
#endif

#endif
