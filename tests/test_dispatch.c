/*
 * test_dispatch.c — kernel listing, selection and overrides.
 *
 * The key check (simdjson's "checkimplementation"): when BLOOMSIMD_KERNEL
 * forces a kernel, the filters this process creates really run that
 * kernel's code — so a per-kernel test run can never silently exercise
 * another one.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch.h"
#include "internal.h"
#include "support.h"

Test(dispatch, forced_kernel_is_the_one_actually_running)
{
    const char *forced = getenv("BLOOMSIMD_KERNEL");
    if (!forced || !*forced) cr_skip_test("BLOOMSIMD_KERNEL not set: nothing forced in this run");
    cr_assert_str_eq(bloomsimd_default_kernel(), forced);
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create(&f, 1000, 0.01), BLOOMSIMD_OK); /* no explicit kernel: the override */
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_str_eq(info.kernel, forced);
    /* the function table in use is the forced kernel's own, not a copy or a fallback */
    const bloomsimd_kernel *expected = bloomsimd_kernel_by_name(forced);
    cr_assert_eq(f->kernel, expected);
    cr_assert_eq(f->kernel->contains_u64, expected->contains_u64);
    cr_assert_eq(f->kernel->add_u64, expected->add_u64);
    cr_assert_eq(f->kernel->hash_u64, expected->hash_u64);
    if (strcmp(forced, "scalar") != 0) {
        const bloomsimd_kernel *scalar = bloomsimd_kernel_by_name("scalar");
        cr_assert_neq(f->kernel->contains_u64, scalar->contains_u64, "forced %s but scalar code runs", forced);
        cr_assert_neq(f->kernel->add_u64, scalar->add_u64);
    }
    bloomsimd_destroy(f);
}

/* The same for a split256 filter: its calls go through the forced kernel's
 * table (which routes them to that kernel's split256 code). */
Test(dispatch, forced_kernel_runs_split256_filters_too)
{
    const char *forced = getenv("BLOOMSIMD_KERNEL");
    if (!forced || !*forced) cr_skip_test("BLOOMSIMD_KERNEL not set: nothing forced in this run");
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_OK);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_str_eq(info.kernel, forced);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(f->kernel, bloomsimd_kernel_by_name(forced));
    bloomsimd_destroy(f);
}

Test(dispatch, listing_has_scalar_last_and_no_duplicates)
{
    size_t n = bloomsimd_kernel_count();
    cr_assert_geq(n, 1);
    cr_assert_str_eq(bloomsimd_kernel_name(n - 1), "scalar", "scalar is the lowest priority");
    cr_assert_null(bloomsimd_kernel_name(n));
    cr_assert_null(bloomsimd_kernel_name((size_t)-1));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) cr_assert_str_neq(bloomsimd_kernel_name(i), bloomsimd_kernel_name(j));
    cr_assert(bloomsimd_kernel_supported("scalar"));
    cr_assert_not(bloomsimd_kernel_supported("nonexistent"));
    cr_assert_not(bloomsimd_kernel_supported(NULL));
    cr_assert_not(bloomsimd_kernel_emulated("scalar"));
}

Test(dispatch, listing_reports_what_this_cpu_runs)
{
    uint32_t features = bloomsimd_cpu_features();
    for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
        const char *name = bloomsimd_kernel_name(i);
        const bloomsimd_kernel *k = bloomsimd_kernel_by_name(name);
        bool runs = (k->required_features & ~features) == 0;
        cr_assert_eq(bloomsimd_kernel_supported(name), runs, "%s", name);
        printf("kernel %-7s %s%s\n", name, runs ? "supported" : "not supported by this CPU",
               k->emulated ? " (emulated)" : "");
    }
#if defined(__x86_64__)
    /* AVX-512 implies AVX2 implies SSE4.2 on every real CPU: detection must agree */
    if (features & BLOOMSIMD_CPU_AVX512) cr_assert(features & BLOOMSIMD_CPU_AVX2);
    if (features & BLOOMSIMD_CPU_AVX2) cr_assert(features & BLOOMSIMD_CPU_SSE42);
#endif
}

/* Runs `body` in a child process with a fresh environment value, so the
 * once-per-process default is decided under that value. */
static int in_child_with_env(const char *value, int (*body)(void))
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        if (value)
            setenv("BLOOMSIMD_KERNEL", value, 1);
        else
            unsetenv("BLOOMSIMD_KERNEL");
        _exit(body());
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "child crashed");
    return WEXITSTATUS(status);
}

static int create_status(void)
{
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create(&f, 100, 0.01);
    bloomsimd_destroy(f);
    return (int)st;
}

static int default_is_best_native(void)
{
    const char *d = bloomsimd_default_kernel();
    if (!d) return 1;
    for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
        const char *name = bloomsimd_kernel_name(i);
        if (bloomsimd_kernel_supported(name) && !bloomsimd_kernel_emulated(name)) return strcmp(name, d) != 0 ? 2 : 0;
    }
    return 3;
}

static int explicit_kernel_beats_env(void)
{
    bloomsimd_options o = {.capacity = 100, .fpr = 0.01, .kernel = "scalar"};
    bloomsimd_filter *f = NULL;
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) return 1;
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    int bad = strcmp(info.kernel, "scalar") != 0;
    bloomsimd_destroy(f);
    return bad;
}

Test(dispatch, unknown_env_kernel_fails_create_never_falls_back)
{
    cr_assert_eq(in_child_with_env("avx9000", create_status), BLOOMSIMD_ERR_KERNEL_UNAVAILABLE);
    cr_assert_eq(in_child_with_env("scalar", create_status), BLOOMSIMD_OK);
    /* options.kernel wins over the environment */
    cr_assert_eq(in_child_with_env("avx9000", explicit_kernel_beats_env), 0);
}

Test(dispatch, without_override_the_best_native_kernel_is_chosen)
{
    cr_assert_eq(in_child_with_env(NULL, default_is_best_native), 0);
}

Test(dispatch, kernels_the_cpu_lacks_are_refused_by_name)
{
    for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
        const char *name = bloomsimd_kernel_name(i);
        bloomsimd_options o = {.capacity = 100, .fpr = 0.01, .kernel = name};
        bloomsimd_filter *f = NULL;
        bloomsimd_status st = bloomsimd_create_with(&f, &o);
        cr_assert_eq(st, bloomsimd_kernel_supported(name) ? BLOOMSIMD_OK : BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "%s",
                     name);
        bloomsimd_destroy(f);
    }
}
