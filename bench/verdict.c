/*
 * verdict.c — the end of the report. First what a user asked: which kernel
 * is fastest on this machine, how far it is from the memory floor, how much
 * faster it is than the references. Then, set apart, this project's own
 * targets from its issues, each with its spread: paired rounds (quietest
 * tenth [p10 median p90]) where the bench has them, so that a figure whose
 * rounds straddle its target reads as that, not as "met" in one run and
 * "NOT MET" in the next.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <bloomsimd.h>

#include "run.h"

static const char *fastest_at(const char *const *kernels, size_t nk, uint64_t n)
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
                const char *b = fastest_at(kernels, nk, sizes[s]);
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
                const char *b = fastest_at(kernels, nk, sizes[s]);
                bench_result *us = b ? bench_result_find("kernel", b, refs[i].op, sizes[s], 1) : NULL;
                bench_result *them = bench_result_find("reference", refs[i].impl, refs[i].op, sizes[s], 1);
                size_cell(sizes[s], us && them ? them->ns.median / us->ns.median : NAN);
            }
            printf("\n");
        }
    }
}

/* "met" by the quietest tenth; says so when the median of all rounds disagrees */
static const char *judged(double quiet, double median, double limit, bool at_most)
{
    bool q = at_most ? quiet <= limit : quiet >= limit;
    bool m = at_most ? median <= limit : median >= limit;
    if (!isfinite(quiet)) return "not measured";
    return q ? (m ? "met" : "met in the quietest tenth only") : (m ? "not met in the quietest tenth (median met)"
                                                                    : "not met");
}

/* issue 9: the kernels against the split-block peer at each target FPR */
static void issue9_peer(const bench_options *o, const char *const *kernels, size_t nk, const uint64_t *sizes,
                        size_t nsizes)
{
    static const struct {
        const char *kernel, *op;
        double limit, limit_1e8; /* kernel time / peer time, at most; 0 = no target */
    } rows[] = {
        {"avx512", "lookup0", 1 / 1.15, 1 / 1.5}, /* >= 1.15x faster, >= 1.5x at 10^8 */
        {"avx512", "insert", 1 / 1.1, 1 / 1.1},   /* >= 1.1x faster at every size */
        {"avx2", "lookup0", 1.15, 1 / 1.3},       /* within 1.15x, >= 1.3x faster at 10^8 */
    };
    for (size_t t = 0; t < o->npeer_fprs; t++) {
        bool header = false;
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            if (!ran(kernels, nk, rows[i].kernel)) continue;
            for (size_t s = 0; s < nsizes; s++) {
                double quiet, p10, median, p90;
                if (!bench_peer_ratio("vs-peer", rows[i].kernel, rows[i].op, sizes[s], o->peer_fprs[t], &quiet, &p10,
                                      &median, &p90))
                    continue;
                if (!header) {
                    printf("  issue 9, batched, kernel time / split-block peer time at target FPR %g%% "
                           "(quietest tenth [p10 median p90]):\n",
                           100 * o->peer_fprs[t]);
                    header = true;
                }
                double limit = sizes[s] >= 100000000 ? rows[i].limit_1e8 : rows[i].limit;
                char keys[32];
                bench_format_keys(keys, sizeof keys, sizes[s]);
                printf("    %-6s %-7s %-5s %.2fx [%.2f %.2f %.2f]  target <= %.2fx  %s\n", rows[i].kernel,
                       strcmp(rows[i].op, "insert") ? "look0%" : "insert", keys, quiet, p10, median, p90, limit,
                       judged(quiet, median, limit, true));
            }
        }
    }
}

/* issue 9: single-key calls of the library's default kernel */
static void issue9_single(const char *kernel, const uint64_t *sizes, size_t nsizes)
{
    for (size_t s = 0; s < nsizes; s++) {
        if (sizes[s] < 10000 || sizes[s] > 1000000) continue;
        bench_result *r = bench_result_find("kernel", kernel, "single0", sizes[s], 1);
        if (!r) continue;
        char keys[32];
        bench_format_keys(keys, sizeof keys, sizes[s]);
        printf("  issue 9, %s keys: %s bloomsimd_contains_u64, one call per key: %.2f ns, %.2fx batched  "
               "target <= 2x%s  %s\n",
               keys, kernel, r->ns.median, r->value, sizes[s] <= 100000 ? " and <= 4 ns" : "",
               r->value <= 2 && (sizes[s] > 100000 || r->ns.median <= 4) ? "met" : "not met");
    }
}

/* a kernel / ceiling figure, both ways the bench measures it: in the paired
 * rounds at the first --peer-fpr (each round's keys read into cache first, so
 * the ceiling there is close to pure probe-free work), and from the table's
 * medians (2^20 keys streamed from memory per repetition, as most callers
 * feed a batch); judged on the paired figure when there is one */
static void ceiling_figure(const bench_options *o, const char *issue, const char *kernel, const char *op, uint64_t n,
                           double limit)
{
    char keys[32], table[64] = "";
    bench_format_keys(keys, sizeof keys, n);
    bench_result *r = bench_result_find("kernel", kernel, op, n, 1);
    if (r && r->ratio > 0) snprintf(table, sizeof table, "; table medians, keys streamed: %.2fx", r->ratio);
    double quiet, p10, median, p90;
    if (o->npeer_fprs &&
        bench_peer_ratio("vs-ceiling", kernel, op, n, o->peer_fprs[0], &quiet, &p10, &median, &p90)) {
        printf("  %s, %s keys: %s %s / ceiling, paired at FPR %g%%, keys in cache: %.2fx [%.2f %.2f %.2f]%s  "
               "target <= %.2fx  %s\n",
               issue, keys, kernel, strcmp(op, "insert") ? "look0%" : "insert", 100 * o->peer_fprs[0], quiet, p10,
               median, p90, table, limit, judged(quiet, median, limit, true));
        return;
    }
    if (!r || r->ratio <= 0) return;
    printf("  %s, %s keys: %s %s / ceiling %.2fx (table medians, keys streamed)  target <= %.2fx  %s\n", issue, keys,
           kernel, strcmp(op, "insert") ? "look0%" : "insert", r->ratio, limit, r->ratio <= limit ? "met" : "not met");
}

/* issue 10: insert-and-report-new and selection vectors, same interleaved group */
static void issue10(const char *kernel, const uint64_t *sizes, size_t nsizes)
{
    for (size_t s = 0; s < nsizes; s++) {
        if (sizes[s] != 100000 && sizes[s] != 100000000) continue;
        char keys[32];
        bench_format_keys(keys, sizeof keys, sizes[s]);
        static const struct {
            const char *a, *b, *what;
            double limit;
        } rows[] = {
            {"add-new", "dd-insert", "add_new / batched insert", 1.1},
            {"add-new", "look+add", "add_new / (lookup, then insert)", 0.6},
            {"select1", "bytes1", "select_batch_u64 / bytes, 1% present", 1.0},
            {"select50", "bytes50", "select_batch_u64 / bytes, 50% present", 1.0},
            {"select100", "bytes100", "select_batch_u64 / bytes, 100% present", 1.0},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            bench_result *a = bench_result_find("forms", kernel, rows[i].a, sizes[s], 1);
            if (!a) continue;
            bench_result *b = bench_result_find("forms", kernel, rows[i].b, sizes[s], 1);
            if (!a || !b) continue;
            double x = a->ns.median / b->ns.median;
            printf("  issue 10, %s keys: %s %s: %.2fx (medians; reps %.2f-%.2f vs %.2f-%.2f ns)  target <= %.1fx  %s\n",
                   keys, kernel, rows[i].what, x, a->ns.min, a->ns.max, b->ns.min, b->ns.max, rows[i].limit,
                   x <= rows[i].limit ? "met" : "not met");
        }
    }
}

/* issue 13: byte keys through views, same interleaved group */
static void issue13(const char *const *kernels, size_t nk, const uint64_t *sizes, size_t nsizes)
{
    static const struct {
        const char *kernel;
        unsigned width;
        const char *a, *b, *what;
        double limit;
        bool at_most;
    } rows[] = {
        {"avx512", 16, "offsets", "u64", "16-byte keys (offsets view) / u64 lookup", 1.5, true},
        {"avx512", 32, "offsets", "u64", "32-byte keys (offsets view) / u64 lookup", 2.0, true},
        {"avx512", 0, "offsets", "u64", "8-64-byte keys (offsets view) / u64 lookup", 2.5, true},
        {"avx512", 8, "xxh", "hash", "libxxhash per key / hash_keys, 8 B", 3.0, false},
        {"avx512", 16, "xxh", "hash", "libxxhash per key / hash_keys, 16 B", 3.0, false},
        {"avx512", 32, "xxh", "hash", "libxxhash per key / hash_keys, 32 B", 3.0, false},
        {"avx512", 64, "xxh", "hash", "libxxhash per key / hash_keys, 64 B", 3.0, false},
        {"avx2", 8, "xxh", "hash", "libxxhash per key / hash_keys, 8 B", 2.0, false},
        {"avx2", 16, "xxh", "hash", "libxxhash per key / hash_keys, 16 B", 2.0, false},
        {"avx2", 32, "xxh", "hash", "libxxhash per key / hash_keys, 32 B", 2.0, false},
    };
    for (size_t s = 0; s < nsizes; s++)
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            if (!ran(kernels, nk, rows[i].kernel)) continue;
            double x = bench_string_ratio(rows[i].kernel, rows[i].width, rows[i].a, rows[i].b, sizes[s]);
            if (x <= 0) continue;
            char keys[32];
            bench_format_keys(keys, sizeof keys, sizes[s]);
            bool ok = rows[i].at_most ? x <= rows[i].limit : x >= rows[i].limit;
            printf("  issue 13, %s keys: %s %s: %.2fx (medians)  target %s %.1fx  %s\n", keys, rows[i].kernel,
                   rows[i].what, x, rows[i].at_most ? "<=" : ">=", rows[i].limit, ok ? "met" : "not met");
        }
}

/* issue 10: a scalable filter grown from n/1000 against one sized for n */
static void issue10_layered(void)
{
    uint64_t n;
    double target, lookup, bits, fpr;
    if (!bench_layered_figures(&n, &target, &lookup, &bits, &fpr)) return;
    char keys[32];
    bench_format_keys(keys, sizeof keys, n);
    printf("  issue 10, %s keys: scalable (growth 2, from n/1000) / pre-sized: look0%% %.2fx, bits/key %.2fx, "
           "FPR %.4f%% (target %g%%)  targets <= 1.6x, <= 1.3x, FPR <= target  %s\n",
           keys, lookup, bits, 100 * fpr, 100 * target,
           lookup <= 1.6 && bits <= 1.3 && fpr <= target ? "met" : "not met");
}

static void targets(const bench_options *o, const char *const *kernels, size_t nk, const uint64_t *sizes,
                    size_t nsizes, const char *kernel)
{
    printf("\nthis project's own targets (from its issues; they are what the project set itself, not what a user\n"
           "needs). Ratios from paired rounds where the bench has them: quietest tenth [p10 median p90 of all\n"
           "rounds], judged on the quietest tenth; otherwise ratios of this run's medians:\n");
    issue9_peer(o, kernels, nk, sizes, nsizes);
    issue9_single(kernel, sizes, nsizes);
    issue10(kernel, sizes, nsizes);
    issue10_layered();
    issue13(kernels, nk, sizes, nsizes);
    for (size_t s = 0; s < nsizes; s++) {
        if (sizes[s] == 100000) ceiling_figure(o, "issue 9", kernel, "lookup0", sizes[s], 1.5);
        if (sizes[s] == 100000000) {
            ceiling_figure(o, "issue 3", kernel, "lookup0", sizes[s], 1.15);
            ceiling_figure(o, "issue 3", kernel, "insert", sizes[s], 1.5);
        }
    }
    uint64_t pn;
    double quiet, p10, median, p90;
    if (bench_paired_figures(&pn, &quiet, &p10, &median, &p90) && pn == 100000000) {
        char keys[32];
        bench_format_keys(keys, sizeof keys, pn);
        printf("  issue 3, %s keys: --paired rounds at this run's sizing, look0%% / ceiling %.2fx [%.2f %.2f %.2f]  "
               "target <= 1.15x  %s\n",
               keys, quiet, p10, median, p90, judged(quiet, median, 1.15, true));
    }
    bench_result *sc = bench_result_find("kernel", "scalar", "lookup0", 100000, 1);
    bench_result *us = bench_result_find("kernel", kernel, "lookup0", 100000, 1);
    if (sc && us && strcmp(kernel, "scalar"))
        printf("  issue 3, 10^5 keys: scalar / %s, batched look0%%: %.1fx (medians)  target >= 4x  %s\n", kernel,
               sc->ns.median / us->ns.median, sc->ns.median / us->ns.median >= 4 ? "met" : "not met");
    static const char *const hash_refs[2][2] = {{"kernel", "scalar"}, {"reference", "libxxhash"}};
    for (int i = 0; i < 2; i++) {
        bench_result *h = bench_result_find(hash_refs[i][0], hash_refs[i][1], "hash", 100000, 1);
        bench_result *uh = bench_result_find("kernel", kernel, "hash", 100000, 1);
        if (h && uh && strcmp(kernel, hash_refs[i][1]))
            printf("  issue 3, 10^5 keys: %s / %s, u64 hashing: %.1fx (medians)  target >= 3x  %s\n", hash_refs[i][1],
                   kernel, h->ns.median / uh->ns.median, h->ns.median / uh->ns.median >= 3 ? "met" : "not met");
    }
    static const char *const lb_ops[2] = {"lookup0", "insert"};
    for (int i = 0; i < 2; i++) {
        bench_result *lb = bench_result_find("reference", "libbloom", lb_ops[i], 10000000, 1);
        bench_result *uk = bench_result_find("kernel", kernel, lb_ops[i], 10000000, 1);
        if (lb && uk)
            printf("  issue 3, 10^7 keys: libbloom / %s, %s: %.1fx (medians)  target >= 20x  %s\n", kernel,
                   i ? "insert" : "look0%", lb->ns.median / uk->ns.median,
                   lb->ns.median / uk->ns.median >= 20 ? "met" : "not met");
    }
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "threads") || strcmp(r->op, "insert-concurrent") || r->threads != 2) continue;
        bench_result *one = bench_result_find("threads", r->impl, "insert-concurrent", r->keys, 1);
        char keys[32];
        bench_format_keys(keys, sizeof keys, r->keys);
        printf("  issue 5, %s keys: CONCURRENT insert, 2 threads / 1: %.2fx by wall time (%.2fx by CPU time)  "
               "target >= 1.6x%s  %s\n",
               keys, r->value, one && r->x > 0 ? one->x / r->x : NAN, r->keys == 100000000 ? "" : " at 10^8",
               r->keys != 100000000 ? "(other size)" : r->value >= 1.6 ? "met" : "not met");
    }
}

void bench_print_summary(const bench_options *o, const char *const *kernels, size_t nk, const uint64_t *sizes,
                         size_t nsizes)
{
    unsigned wins[BENCH_MAX_KERNELS] = {0};
    for (size_t s = 0; s < nsizes; s++) {
        const char *b = fastest_at(kernels, nk, sizes[s]);
        for (size_t i = 0; b && i < nk; i++) wins[i] += strcmp(b, kernels[i]) == 0;
    }
    size_t top = 0;
    for (size_t i = 1; i < nk; i++)
        if (wins[i] > wins[top]) top = i;
    printf("\n== verdict ==\n");
    if (!nk) return;
    headline(o, kernels, nk, sizes, nsizes, kernels[top], wins[top]);
    /* the targets are about the kernel users get: the library's default, when it ran */
    const char *dk = bloomsimd_default_kernel();
    targets(o, kernels, nk, sizes, nsizes, ran(kernels, nk, dk) ? dk : kernels[top]);
}
