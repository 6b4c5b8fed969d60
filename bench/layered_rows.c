/*
 * layered_rows.c — the layered filters (scalable, window) at the largest size n, with
 * the library's default kernel, at the run's target FPR (--fpr, else 1%):
 *   - a scalable filter (growth 2, the default budget schedule) that starts
 *     at capacity n/1000 (10^5 for 10^8 keys) and grows while all n keys
 *     are inserted, against a fixed filter sized for n in advance: bits/key
 *     and their ratio, measured FPR against the target, lookup ns/key and
 *     the ratios of absent and present lookups;
 *   - a window of 4 generations of n/4 keys each (3 rotations while the n
 *     keys go in), against one fixed filter of the same total bits holding
 *     the same n keys.
 * The four lookups (absent and present keys) are one interleaved group.
 * When this build cannot create layered filters the rows are skipped with
 * the library's status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "run.h"

#define WINDOW_GENERATIONS 4u

static struct {
    bool ran;
    const char *skipped;
    uint64_t n;
    double target;
} layered;

static bloomsimd_filter *make(const bloomsimd_options *opt, const char *what)
{
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, opt);
    if (st != BLOOMSIMD_OK) {
        static char why[160];
        snprintf(why, sizeof why, "%s: bloomsimd_create_with: %s", what, bloomsimd_status_string(st));
        layered.skipped = why;
        return NULL;
    }
    return f;
}

static bool fill(const bench_options *o, bloomsimd_filter *f, const uint64_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i += o->batch) {
        size_t c = n - i < o->batch ? n - i : o->batch;
        if (bloomsimd_add_batch_u64(f, keys + i, c) != BLOOMSIMD_OK) return false;
    }
    return true;
}

void bench_layered_rows(const bench_options *o, const bench_workload *w)
{
    const uint64_t n = w->n;
    const double target = o->fpr > 0 ? o->fpr : 0.01;
    layered.n = n, layered.target = target;
    if (n < 100000 || w->q < 1000) {
        layered.skipped = "needs at least 10^5 keys";
        return;
    }
    bench_progress(o, "%llu keys: layered filters (scalable, window)", (unsigned long long)n);
    enum { FIXED, SCALABLE, WINDOW, SAME_SIZE, NF };
    static const char *const names[NF] = {"fixed", "scalable", "window", "fixed-same-size"};
    bloomsimd_filter *f[NF] = {NULL};
    bloomsimd_options fixed = {.capacity = n, .fpr = target};
    bloomsimd_options scalable = {.capacity = n / 1000, .fpr = target, .growth = 2};
    bloomsimd_options window = {.capacity = n / WINDOW_GENERATIONS, .fpr = target, .generations = WINDOW_GENERATIONS};
    bool ok = (f[FIXED] = make(&fixed, "fixed")) && (f[SCALABLE] = make(&scalable, "scalable (growth 2)")) &&
              (f[WINDOW] = make(&window, "window (4 generations)"));
    if (ok) {
        bloomsimd_info wi;
        bloomsimd_get_info(f[WINDOW], &wi);
        bloomsimd_options same = {.capacity = n, .bits = wi.bits};
        ok = (f[SAME_SIZE] = make(&same, "fixed filter of the window's size")) != NULL;
    }
    ok = ok && fill(o, f[FIXED], w->inserted, (size_t)n) && fill(o, f[SCALABLE], w->inserted, (size_t)n) &&
         fill(o, f[SAME_SIZE], w->inserted, (size_t)n);
    const size_t per = (size_t)n / WINDOW_GENERATIONS;
    for (unsigned g = 0; ok && g < WINDOW_GENERATIONS; g++) {
        size_t from = g * per, count = g + 1 == WINDOW_GENERATIONS ? (size_t)n - from : per;
        ok = fill(o, f[WINDOW], w->inserted + from, count);
        if (ok && g + 1 < WINDOW_GENERATIONS && bloomsimd_rotate(f[WINDOW]) != BLOOMSIMD_OK) {
            layered.skipped = "bloomsimd_rotate failed";
            ok = false;
        }
    }
    if (ok) {
        uint8_t *out = malloc(2 * NF * o->batch);
        bench_op_ctx ctx[2 * NF];
        bench_job jobs[2 * NF];
        bench_measurement res[2 * NF];
        for (size_t j = 0; out && j < 2 * NF; j++) {
            bool present = j >= NF;
            ctx[j] = (bench_op_ctx){.filter = f[j % NF], .keys = present ? w->present : w->absent, .nkeys = w->q,
                                    .total = w->q, .batch = o->batch, .out = out + j * o->batch};
            jobs[j] = (bench_job){.fn = bench_op_lookup, .ctx = &ctx[j], .keys = (double)w->q, .wall_clock = false};
        }
        if (out) {
            bench_measure_interleaved(o, jobs, 2 * NF, res);
            for (size_t j = 0; j < 2 * NF; j++) {
                bench_result *r = bench_result_add("layered", names[j % NF], j < NF ? "lookup0" : "lookup100", n, 1,
                                                   res[j].ns);
                if (!r) continue;
                bloomsimd_info info;
                bloomsimd_get_info(f[j % NF], &info);
                r->x = (double)info.bits / (double)n;
                r->value = (double)res[j].count / (double)w->q; /* FPR for absent keys */
                snprintf(r->note, sizeof r->note, "layers=%u k=%u target=%g", info.layers ? info.layers : 1, info.k,
                         target);
                if (j >= NF && res[j].count != w->q)
                    bench_check_failed("layered %s at %llu keys: %llu of %zu present keys found", names[j % NF],
                                       (unsigned long long)n, (unsigned long long)res[j].count, w->q);
            }
            layered.ran = true;
        }
        free(out);
    } else if (!layered.skipped) {
        layered.skipped = "an insert failed";
    }
    for (int i = 0; i < NF; i++) bloomsimd_destroy(f[i]);
}

void bench_print_layered(const bench_options *o)
{
    (void)o;
    if (!layered.ran && !layered.skipped) return;
    char keys[32];
    bench_format_keys(keys, sizeof keys, layered.n);
    printf("\n== layered filters, %s keys, target FPR %g%%, the library's default kernel ==\n", keys,
           100 * layered.target);
    if (!layered.ran) {
        printf("skipped: %s\n", layered.skipped);
        return;
    }
    static const char *const names[4] = {"fixed", "scalable", "window", "fixed-same-size"};
    static const char *const labels[4] = {"fixed, sized for all keys", "scalable from n/1000, growth 2",
                                          "window, 4 generations of n/4", "fixed, the window's total bits"};
    printf("%-32s %8s %7s %6s %12s %10s %10s %9s %9s\n", "filter", "bits/key", "x bits", "layers", "FPR measured",
           "look0% ns", "look100 ns", "x fixed", "x (100%)");
    bench_result *base[2] = {bench_result_find("layered", "fixed", "lookup0", layered.n, 1),
                             bench_result_find("layered", "fixed-same-size", "lookup0", layered.n, 1)};
    for (int i = 0; i < 4; i++) {
        bench_result *l0 = bench_result_find("layered", names[i], "lookup0", layered.n, 1);
        bench_result *l1 = bench_result_find("layered", names[i], "lookup100", layered.n, 1);
        if (!l0 || !l1) continue;
        unsigned layers = 1;
        sscanf(l0->note, "layers=%u", &layers);
        const bench_result *b = i == 2 ? base[1] : base[0]; /* the window against its same-size filter */
        const bench_result *b1 = b ? bench_result_find("layered", i == 2 ? "fixed-same-size" : "fixed", "lookup100",
                                                       layered.n, 1)
                                   : NULL;
        printf("%-32s %8.2f %6.2fx %6u %11.4f%% %10.2f %10.2f %8.2fx %8.2fx\n", labels[i], l0->x,
               b ? l0->x / b->x : 0, layers, 100 * l0->value, l0->ns.median, l1->ns.median,
               b ? l0->ns.median / b->ns.median : 0, b1 ? l1->ns.median / b1->ns.median : 0);
    }
    printf("(x bits, x fixed, x (100%%): bits/key, absent and present lookup time over the fixed filter's; the "
           "window's against the fixed filter of its size)\n");
}

bool bench_layered_figures(uint64_t *n, double *target, double *lookup_ratio, double *bits_ratio, double *fpr)
{
    if (!layered.ran) return false;
    bench_result *s = bench_result_find("layered", "scalable", "lookup0", layered.n, 1);
    bench_result *f = bench_result_find("layered", "fixed", "lookup0", layered.n, 1);
    if (!s || !f) return false;
    *n = layered.n, *target = layered.target;
    *lookup_ratio = s->ns.median / f->ns.median;
    *bits_ratio = s->x / f->x;
    *fpr = s->value;
    return true;
}
