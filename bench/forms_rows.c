/*
 * forms_rows.c — insert-and-report-new and hit-form rows for one kernel at one size:
 *   - insert-and-report-new (bloomsimd_add_new_batch_u64) against a batched
 *     insert and against what a caller does without it, a batched lookup
 *     then a batched insert of the same batch (two passes over the blocks);
 *   - the selection-vector and bitmap lookups against the byte-per-key
 *     lookup, with 1%, 50% and 100% of the keys present.
 * All twelve are one interleaved group (bench_measure_interleaved), so each
 * ratio compares jobs timed back to back under the same machine state.
 *
 * The inserts re-insert the size's inserted keys, so every key is already
 * present: add_new reports none as new, which is what the count check
 * below demands (a stream of repeats; the probe and the write are the same
 * work for new and old keys).
 */
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "run.h"

#define FORMS_KEYS (UINT64_C(1) << 18) /* keys per repetition and job */

static const struct {
    const char *op;
    bench_fn fn;
    int stream; /* 0: inserted keys, 1/50/100: queries with that share present */
} jobs_def[] = {
    {"dd-insert", bench_op_insert, 0},      {"add-new", bench_op_add_new, 0},   {"look+add", bench_op_lookup_then_add, 0},
    {"bytes1", bench_op_lookup, 1},         {"select1", bench_op_select, 1},    {"bitmap1", bench_op_bitmap, 1},
    {"bytes50", bench_op_lookup, 50},       {"select50", bench_op_select, 50},  {"bitmap50", bench_op_bitmap, 50},
    {"bytes100", bench_op_lookup, 100},     {"select100", bench_op_select, 100}, {"bitmap100", bench_op_bitmap, 100},
};
#define NJOBS (sizeof jobs_def / sizeof jobs_def[0])

void bench_forms_rows(const bench_options *o, const char *kernel, bloomsimd_filter *f, const bench_workload *w,
                      uint8_t *out, uint32_t *indices)
{
    const size_t total = w->q < FORMS_KEYS ? w->q : (size_t)FORMS_KEYS;
    bench_op_ctx ctx[NJOBS];
    bench_job jobs[NJOBS];
    bench_measurement res[NJOBS];
    for (size_t j = 0; j < NJOBS; j++) {
        const uint64_t *keys = jobs_def[j].stream == 0     ? w->inserted
                               : jobs_def[j].stream == 1   ? w->one
                               : jobs_def[j].stream == 50  ? w->half
                                                           : w->present;
        size_t nkeys = jobs_def[j].stream == 0 ? (size_t)w->n : w->q;
        ctx[j] = (bench_op_ctx){.filter = f, .keys = keys, .nkeys = nkeys, .total = total, .batch = o->batch,
                                .out = out, .indices = indices};
        jobs[j] = (bench_job){.fn = jobs_def[j].fn, .ctx = &ctx[j], .keys = (double)total, .wall_clock = false};
    }
    bench_progress(o, "%llu keys: %s insert-and-report-new and hit forms (%zu jobs)", (unsigned long long)w->n, kernel,
                   NJOBS);
    bench_measure_interleaved(o, jobs, NJOBS, res);
    for (size_t j = 0; j < NJOBS; j++) {
        bench_result *r = bench_result_add("forms", kernel, jobs_def[j].op, w->n, 1, res[j].ns);
        if (r) r->perf = res[j].perf;
        if (!res[j].counts_agree)
            bench_check_failed("%s %s at %llu keys: repetitions returned different counts", kernel, jobs_def[j].op,
                               (unsigned long long)w->n);
    }
    /* the forms give the same hits as the bytes; no key present was missed or called new */
    for (size_t j = 3; j < NJOBS; j += 3)
        if (res[j + 1].count != res[j].count || res[j + 2].count != res[j].count)
            bench_check_failed("%s at %llu keys: %s %llu hits, %s %llu, %s %llu", kernel, (unsigned long long)w->n,
                               jobs_def[j].op, (unsigned long long)res[j].count, jobs_def[j + 1].op,
                               (unsigned long long)res[j + 1].count, jobs_def[j + 2].op,
                               (unsigned long long)res[j + 2].count);
    if (res[0].count != 0 || res[1].count != 0 || res[2].count != total || res[9].count != total)
        bench_check_failed("%s at %llu keys: present keys: insert failures %llu, add_new called %llu new, "
                           "lookup-then-insert found %llu and the 100%% lookup %llu of %zu",
                           kernel, (unsigned long long)w->n, (unsigned long long)res[0].count,
                           (unsigned long long)res[1].count, (unsigned long long)res[2].count,
                           (unsigned long long)res[9].count, total);
}

static void cell(const char *kernel, const char *op, uint64_t n, char *buf, size_t cap)
{
    bench_result *r = bench_result_find("forms", kernel, op, n, 1);
    if (!r)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, r->ns.median < 10 ? "%.2f" : "%.1f", r->ns.median);
}

static double ratio(const char *kernel, const char *a, const char *b, uint64_t n)
{
    bench_result *x = bench_result_find("forms", kernel, a, n, 1), *y = bench_result_find("forms", kernel, b, n, 1);
    return x && y && y->ns.median > 0 ? x->ns.median / y->ns.median : 0;
}

void bench_print_forms(uint64_t n, const char *const *kernels, size_t nk)
{
    bool any = false;
    for (size_t i = 0; i < nk && !any; i++) any = bench_result_find("forms", kernels[i], "add-new", n, 1) != NULL;
    if (!any) return;
    printf("insert-and-report-new, keys already present (ns/key; one interleaved group per kernel):\n");
    printf("  %-14s %8s %8s %12s %10s %14s\n", "", "insert", "add_new", "lookup+insert", "x insert", "x lookup+insert");
    for (size_t i = 0; i < nk; i++) {
        char a[16], b[16], c[16];
        cell(kernels[i], "dd-insert", n, a, sizeof a);
        cell(kernels[i], "add-new", n, b, sizeof b);
        cell(kernels[i], "look+add", n, c, sizeof c);
        printf("  %-14s %8s %8s %12s %9.2fx %13.2fx\n", kernels[i], a, b, c, ratio(kernels[i], "add-new", "dd-insert", n),
               ratio(kernels[i], "add-new", "look+add", n));
    }
    printf("hit forms (ns/key; bytes = contains_batch_u64, select = select_batch_u64, bitmap = contains_bitmap_u64):\n");
    printf("  %-14s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "present:", "1%", "", "", "50%", "", "", "100%", "", "");
    printf("  %-14s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "", "bytes", "select", "bitmap", "bytes", "select", "bitmap",
           "bytes", "select", "bitmap");
    static const char *const ops[9] = {"bytes1",  "select1",  "bitmap1",   "bytes50", "select50",
                                       "bitmap50", "bytes100", "select100", "bitmap100"};
    for (size_t i = 0; i < nk; i++) {
        printf("  %-14s", kernels[i]);
        for (int j = 0; j < 9; j++) {
            char c[16];
            cell(kernels[i], ops[j], n, c, sizeof c);
            printf(" %8s", c);
        }
        printf("\n");
    }
}
