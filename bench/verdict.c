/*
 * verdict.c — the end of the full report: which kernel is fastest on this
 * machine, how far it is from the memory floor, how much faster it is than
 * the references (medians of this run). The one-screen summary is summary.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <bloomsimd.h>

#include "run.h"

const char *bench_fastest_kernel(const char *const *kernels, size_t nk, uint64_t n)
{
    const char *best = NULL;
    double ns = INFINITY;
    for (size_t i = 0; i < nk; i++) {
        if (bloomsimd_kernel_emulated(kernels[i])) continue;
        bench_result *r = bench_result_find("kernel", kernels[i], "lookup0", n, 1);
        if (r && r->ns.median < ns) ns = r->ns.median, best = kernels[i];
    }
    return best;
}

static bool ran(const char *const *kernels, size_t nk, const char *name)
{
    for (size_t i = 0; name && i < nk; i++)
        if (strcmp(kernels[i], name) == 0) return true;
    return false;
}

static bool all_native_kernels_ran(const char *const *kernels, size_t nk)
{
    for (size_t j = 0; bloomsimd_kernel_name(j); j++) {
        const char *name = bloomsimd_kernel_name(j);
        if (bloomsimd_kernel_supported(name) && !bloomsimd_kernel_emulated(name) && !ran(kernels, nk, name))
            return false;
    }
    return true;
}

/* one cell per size: "10^5 1.95x", or "10^5 -" */
static void size_cell(uint64_t n, double x)
{
    char keys[32];
    bench_format_keys(keys, sizeof keys, n);
    if (isfinite(x) && x > 0)
        printf("  %s %.2fx", keys, x);
    else
        printf("  %s -", keys);
}

static void headline(const bench_options *o, const char *const *kernels, size_t nk, const uint64_t *sizes,
                     size_t nsizes, const char *top, unsigned wins)
{
    const char *dk = bloomsimd_default_kernel();
    if (all_native_kernels_ran(kernels, nk))
        printf("fastest kernel on this CPU: %s (fastest batched negative lookup at %u of %zu sizes); "
               "the library picks %s by default\n",
               top, wins, nsizes, dk ? dk : "none");
    else
        printf("fastest of the kernels run (--kernels chose them): %s (at %u of %zu sizes); the library's default "
               "on this CPU is %s (run without --kernels to compare them all)\n",
               top, wins, nsizes, dk ? dk : "none");

    if (o->refs) {
        printf("the fastest kernel's time / the memory floor (ceiling: hash + block index + one read per key), "
               "medians:\n");
        static const char *const ops[2] = {"lookup0", "insert"};
        for (int op = 0; op < 2; op++) {
            printf("  %-7s", op ? "insert" : "look0%");
            for (size_t s = 0; s < nsizes; s++) {
                const char *b = bench_fastest_kernel(kernels, nk, sizes[s]);
                bench_result *r = b ? bench_result_find("kernel", b, ops[op], sizes[s], 1) : NULL;
                size_cell(sizes[s], r ? r->ratio : NAN);
            }
            printf("\n");
        }
        printf("speed-up of the fastest kernel over the references (their time / its time, medians of this run;\n"
               "below 1.00x the reference is faster):\n");
        static const struct {
            const char *impl, *op, *label;
        } refs[] = {
            {"sbbf", "lookup0", "look0%, split-block peer (AVX2, same FPR)"},
            {"sbbf", "insert", "insert, split-block peer"},
            {"classic", "lookup0", "look0%, classic Bloom filter"},
            {"libbloom", "lookup0", "look0%, libbloom"},
            {"libbloom", "insert", "insert, libbloom"},
        };
        for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
            bool any = false;
            for (size_t s = 0; s < nsizes && !any; s++)
                any = bench_result_find("reference", refs[i].impl, refs[i].op, sizes[s], 1) != NULL;
            if (!any) continue;
            printf("  %-42s", refs[i].label);
            for (size_t s = 0; s < nsizes; s++) {
                const char *b = bench_fastest_kernel(kernels, nk, sizes[s]);
                bench_result *us = b ? bench_result_find("kernel", b, refs[i].op, sizes[s], 1) : NULL;
                bench_result *them = bench_result_find("reference", refs[i].impl, refs[i].op, sizes[s], 1);
                size_cell(sizes[s], us && them ? them->ns.median / us->ns.median : NAN);
            }
            printf("\n");
        }
    }
}

void bench_print_summary(const bench_options *o, const char *const *kernels, size_t nk, const uint64_t *sizes,
                         size_t nsizes)
{
    unsigned wins[BENCH_MAX_KERNELS] = {0};
    for (size_t s = 0; s < nsizes; s++) {
        const char *b = bench_fastest_kernel(kernels, nk, sizes[s]);
        for (size_t i = 0; b && i < nk; i++) wins[i] += strcmp(b, kernels[i]) == 0;
    }
    size_t top = 0;
    for (size_t i = 1; i < nk; i++)
        if (wins[i] > wins[top]) top = i;
    printf("\n== verdict ==\n");
    if (!nk) return;
    headline(o, kernels, nk, sizes, nsizes, kernels[top], wins[top]);
}
