/*
 * phase.c — --phase: one phase, nothing else, for bench/cachegrind.sh.
 *
 * Builds a filter of --keys keys (library kernel or "classic"), generates
 * --queries queries (--present percent of them inserted keys), then runs the
 * phase --reps times and prints one line. Running it once with --reps 1 and
 * once with --reps 0 (same keys, same allocations) and subtracting the two
 * cache-miss totals isolates the phase: misses per key = difference / queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "run.h"

int bench_run_phase(const bench_options *o)
{
    const char *impl = o->nkernels ? o->kernels[0] : bloomsimd_default_kernel();
    if (!impl) {
        fprintf(stderr, "bloomsimd-bench: no kernel available\n");
        return 1;
    }
    bool classic = strcmp(impl, "classic") == 0;
    uint64_t n = o->nsizes ? o->sizes[0] : UINT64_C(1) << 21;
    size_t q = (size_t)o->queries;
    uint64_t *keys = bench_keys((size_t)n, o->seed, 1);
    uint64_t *absent = bench_keys(q, o->seed, 2);
    uint64_t *queries = keys && absent ? bench_mixed_queries(keys, (size_t)n, absent, q, o->present_pct, o->seed) : NULL;
    uint8_t *out = malloc(o->batch);
    if (!queries || !out) {
        fprintf(stderr, "bloomsimd-bench: out of memory\n");
        return 1;
    }
    bench_op_ctx c = {.batch = o->batch, .out = out};
    bench_classic cl;
    bloomsimd_filter *f = NULL;
    unsigned k;
    double bpk;
    if (classic) {
        if (!bench_classic_init(&cl, n, o->bits_per_key, o->k, 0)) return 1;
        c.classic = &cl;
        k = cl.k;
        bpk = (double)cl.nbits / (double)n;
    } else {
        bloomsimd_options opt = bench_filter_options(o, n, impl, 0);
        bloomsimd_status st = bloomsimd_create_with(&f, &opt);
        if (st != BLOOMSIMD_OK) {
            fprintf(stderr, "bloomsimd-bench: kernel %s: %s\n", impl, bloomsimd_status_string(st));
            return 1;
        }
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        k = info.k;
        bpk = (double)info.bits / (double)n;
        c.filter = f;
    }
    c.keys = keys, c.nkeys = (size_t)n, c.total = (size_t)n;
    classic ? bench_op_classic_insert(&c) : bench_op_insert(&c);

    bool lookup = strcmp(o->phase, "lookup") == 0;
    /* lookups probe the mixed queries; inserts add the absent keys */
    c.keys = lookup ? queries : absent, c.nkeys = q, c.total = q;
    uint64_t count = 0;
    for (unsigned r = 0; r < o->reps; r++) {
        if (lookup)
            count += classic ? bench_op_classic_lookup(&c) : bench_op_lookup(&c);
        else
            count += classic ? bench_op_classic_insert(&c) : bench_op_insert(&c);
    }
    printf("phase=%s impl=%s keys=%llu k=%u bits_per_key=%.2f queries=%zu present=%u%% reps=%u count=%llu\n",
           o->phase, impl, (unsigned long long)n, k, bpk, q, o->present_pct, o->reps, (unsigned long long)count);
    if (lookup && o->present_pct == 100 && count != (uint64_t)q * o->reps) {
        fprintf(stderr, "CHECK FAILED: false negatives\n");
        return 2;
    }
    if (classic)
        bench_classic_free(&cl);
    else
        bloomsimd_destroy(f);
    free(keys);
    free(absent);
    free(queries);
    free(out);
    return 0;
}
