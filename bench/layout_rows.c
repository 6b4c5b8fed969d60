/*
 * layout_rows.c — every kernel on both block layouts at one size.
 *
 * The main table measures each kernel on its own default layout (block512
 * on avx512 and scalar, split256 on sse42, avx2 and neon), which is what a
 * caller gets. These rows put the other layout next to it, for the batched
 * calls and the single-key calls, so that the choice of default can be
 * checked on any CPU: lookups of absent keys and inserts of present keys,
 * batched and one key per call (bloomsimd_contains_u64 / bloomsimd_add_u64).
 *
 * Both layouts are filled with the same keys at the same bits per key (or
 * sized for the same FPR with --fpr), and the 2 x kernels filters are one
 * interleaved group per operation, so every ratio compares jobs timed back
 * to back under the same machine state. Kernels of one layout must build the
 * same bytes and count the same hits; each layout must find every present key.
 * Emulated kernels are left out (their speed says nothing about a CPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "internal.h" /* the filter's words, to compare kernels' bytes */
#include "ops.h"
#include "run.h"

#define LAYOUT_KEYS (UINT64_C(1) << 18) /* keys per repetition and job */
#define LAYOUTS 2
#define MAX_ROWS (2 * BENCH_MAX_KERNELS)

static const uint32_t layouts[LAYOUTS] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};

static const struct {
    const char *op;
    bench_fn fn;
    bool present; /* keys: the inserted ones (re-inserted, or looked up present), else the absent queries */
} ops_def[] = {
    {"lookup0", bench_op_lookup, false},
    {"insert", bench_op_insert, true},
    {"single0", bench_op_single, false},
    {"single-add", bench_op_single_add, true},
};
#define NOPS (sizeof ops_def / sizeof ops_def[0])

typedef struct layout_row {
    char name[32]; /* "avx2/split256": the results' impl */
    uint32_t layout;
    bloomsimd_filter *filter;
    uint64_t checksum;
} layout_row;

static uint64_t words_checksum(const bloomsimd_filter *f)
{
    return XXH3_64bits(f->geometry.words, bloomsimd_filter_bytes(f));
}

void bench_layout_rows(const bench_options *o, const char *const *kernels, size_t nk, const bench_workload *w)
{
    if (o->layout != BLOOMSIMD_LAYOUT_DEFAULT || !o->layout_rows) return; /* --layout pins one */
    layout_row rows[MAX_ROWS];
    size_t nr = 0;
    uint8_t *out = malloc(o->batch);
    if (!out) return;
    bench_progress(o, "%llu keys: every kernel on both layouts: filling", (unsigned long long)w->n);
    for (size_t l = 0; l < LAYOUTS; l++)
        for (size_t i = 0; i < nk && nr < MAX_ROWS; i++) {
            if (bloomsimd_kernel_emulated(kernels[i])) continue;
            bloomsimd_options opt = bench_filter_options(o, w->n, kernels[i], 0);
            opt.layout = layouts[l];
            bloomsimd_filter *f = NULL;
            bloomsimd_status st = bloomsimd_create_with(&f, &opt);
            if (st != BLOOMSIMD_OK) {
                bench_check_failed("layouts: create %s filter in %s for %llu keys: %s", kernels[i],
                                   bloomsimd_layout_name(layouts[l]), (unsigned long long)w->n,
                                   bloomsimd_status_string(st));
                continue;
            }
            (void)bloomsimd_add_batch_u64(f, w->inserted, (size_t)w->n);
            layout_row *r = &rows[nr++];
            snprintf(r->name, sizeof r->name, "%s/%s", kernels[i], bloomsimd_layout_name(layouts[l]));
            r->layout = layouts[l];
            r->filter = f;
            r->checksum = words_checksum(f);
        }
    /* the first row of each layout is the reference for that layout */
    for (size_t j = 0; j < nr; j++)
        for (size_t i = 0; i < j; i++)
            if (rows[i].layout == rows[j].layout) {
                if (rows[i].checksum != rows[j].checksum)
                    bench_check_failed("layouts: %s filter bytes differ from %s's at %llu keys", rows[j].name,
                                       rows[i].name, (unsigned long long)w->n);
                break;
            }

    const size_t total = w->q < LAYOUT_KEYS ? w->q : (size_t)LAYOUT_KEYS;
    for (size_t op = 0; op < NOPS && nr > 0; op++) {
        bench_op_ctx ctx[MAX_ROWS];
        bench_job jobs[MAX_ROWS];
        bench_measurement res[MAX_ROWS];
        for (size_t j = 0; j < nr; j++) {
            ctx[j] = (bench_op_ctx){.filter = rows[j].filter,
                                    .keys = ops_def[op].present ? w->inserted : w->absent,
                                    .nkeys = ops_def[op].present ? (size_t)w->n : w->q,
                                    .total = total,
                                    .batch = o->batch,
                                    .out = out};
            jobs[j] = (bench_job){.fn = ops_def[op].fn, .ctx = &ctx[j], .keys = (double)total, .wall_clock = false};
        }
        bench_progress(o, "%llu keys: both layouts: %s (%zu filters)", (unsigned long long)w->n, ops_def[op].op, nr);
        bench_measure_interleaved(o, jobs, nr, res);
        for (size_t j = 0; j < nr; j++) {
            bench_result *r = bench_result_add("layouts", rows[j].name, ops_def[op].op, w->n, 1, res[j].ns);
            if (r) r->perf = res[j].perf, r->value = (double)res[j].count;
            if (strcmp(ops_def[op].op, "lookup0") == 0) {
                /* hits on absent keys over the keys looked up: the measured FPR */
                bench_stats none = {0, 0, 0, 0};
                bench_result *f = bench_result_add("layouts", rows[j].name, "fpr", w->n, 1, none);
                if (f) f->value = (double)res[j].count / (double)total;
            }
            if (!res[j].counts_agree)
                bench_check_failed("layouts: %s %s at %llu keys: repetitions returned different counts", rows[j].name,
                                   ops_def[op].op, (unsigned long long)w->n);
            /* inserts of present keys report no failure and change no bit */
            if (ops_def[op].present && res[j].count != 0)
                bench_check_failed("layouts: %s %s at %llu keys: %llu calls failed", rows[j].name, ops_def[op].op,
                                   (unsigned long long)w->n, (unsigned long long)res[j].count);
            for (size_t i = 0; i < j; i++)
                if (rows[i].layout == rows[j].layout) {
                    if (res[i].count != res[j].count)
                        bench_check_failed("layouts: %s %s at %llu keys: count %llu, %s gave %llu", rows[j].name,
                                           ops_def[op].op, (unsigned long long)w->n,
                                           (unsigned long long)res[j].count, rows[i].name,
                                           (unsigned long long)res[i].count);
                    break;
                }
        }
    }
    for (size_t j = 0; j < nr; j++) {
        if (words_checksum(rows[j].filter) != rows[j].checksum)
            bench_check_failed("layouts: %s: re-inserting present keys changed the filter at %llu keys", rows[j].name,
                               (unsigned long long)w->n);
        /* no false negatives, in either layout */
        bench_op_ctx c = {.filter = rows[j].filter, .keys = w->inserted, .nkeys = (size_t)w->n,
                          .total = total < (size_t)w->n ? total : (size_t)w->n, .batch = o->batch, .out = out};
        uint64_t found = bench_op_lookup(&c);
        if (found != c.total)
            bench_check_failed("layouts: %s at %llu keys: %llu of %zu present keys found", rows[j].name,
                               (unsigned long long)w->n, (unsigned long long)found, c.total);
        bloomsimd_info info;
        bloomsimd_get_info(rows[j].filter, &info);
        bench_stats none = {0, 0, 0, 0};
        bench_result *r = bench_result_add("layouts", rows[j].name, "bits-per-key", w->n, 1, none);
        if (r) r->value = (double)info.bits / (double)w->n;
        bloomsimd_destroy(rows[j].filter);
    }
    free(out);
}

static double median(const char *impl, const char *op, uint64_t n)
{
    bench_result *r = bench_result_find("layouts", impl, op, n, 1);
    return r ? r->ns.median : 0;
}

void bench_print_layouts(const bench_options *o, const char *const *kernels, size_t nk)
{
    bool any = false;
    for (size_t s = 0; s < o->nsizes && !any; s++)
        for (size_t i = 0; i < nk && !any; i++) {
            char name[32];
            snprintf(name, sizeof name, "%s/block512", kernels[i]);
            any = bench_result_find("layouts", name, "lookup0", o->sizes[s], 1) != NULL;
        }
    if (!any) return;
    printf("\n== both layouts, every kernel ==\n");
    printf("ns/key; absent keys looked up, present keys re-inserted; single = one bloomsimd_contains_u64 or\n"
           "bloomsimd_add_u64 call per key; x = block512's time / split256's (above 1.00x split256 is faster);\n"
           "each operation one interleaved group of every kernel and layout at that size\n");
    printf("%-6s %-8s %-9s %7s %7s %7s %7s %9s %8s  %7s %7s %7s %7s\n", "keys", "kernel", "layout", "lookup", "insert",
           "single", "s-add", "bits/key", "FPR", "x look", "x ins", "x sgl", "x sadd");
    for (size_t s = 0; s < o->nsizes; s++) {
        const uint64_t n = o->sizes[s];
        for (size_t i = 0; i < nk; i++)
            for (size_t l = 0; l < LAYOUTS; l++) {
                char name[32], other[32];
                snprintf(name, sizeof name, "%s/%s", kernels[i], bloomsimd_layout_name(layouts[l]));
                snprintf(other, sizeof other, "%s/%s", kernels[i], bloomsimd_layout_name(layouts[1]));
                if (!bench_result_find("layouts", name, "lookup0", n, 1)) continue;
                bench_result *bpk = bench_result_find("layouts", name, "bits-per-key", n, 1);
                bench_result *fpr = bench_result_find("layouts", name, "fpr", n, 1);
                char keys[16];
                bench_format_keys(keys, sizeof keys, n);
                printf("%-6s %-8s %-9s %7.2f %7.2f %7.2f %7.2f %9.2f %7.3f%%", keys, kernels[i],
                       bloomsimd_layout_name(layouts[l]), median(name, "lookup0", n), median(name, "insert", n),
                       median(name, "single0", n), median(name, "single-add", n), bpk ? bpk->value : 0.0,
                       fpr ? 100 * fpr->value : 0.0);
                if (l == 0) {
                    static const char *const ops[4] = {"lookup0", "insert", "single0", "single-add"};
                    printf(" ");
                    for (int k = 0; k < 4; k++) {
                        double a = median(name, ops[k], n), b = median(other, ops[k], n);
                        if (a > 0 && b > 0)
                            printf(" %6.2fx", a / b);
                        else
                            printf(" %7s", "-");
                    }
                }
                printf("\n");
            }
    }
}
