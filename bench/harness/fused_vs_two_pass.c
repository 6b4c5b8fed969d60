/*
 * fused_vs_two_pass.c — the fused 64-bit-key batch calls against the same
 * work done in two passes (hash a chunk into a buffer, then probe or insert
 * the hashes), with the keys streamed from an array larger than the caches,
 * as a column scan feeds them. Public API only; paired alternating rounds in
 * one process, thread CPU time, medians and the per-round ratio.
 *
 *   cc -O2 -Iinclude bench/harness/fused_vs_two_pass.c build/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/fvt
 *   BLOOMSIMD_KERNEL=avx2 [FVT_LAYOUT=2|3] /tmp/fvt KEYS [STREAM_KEYS [CHUNK [ROUNDS [FPR]]]]
 *
 * KEYS go into a filter sized for them; lookups stream STREAM_KEYS absent
 * keys (default 2^23: 64 MiB) in chunks of CHUNK (default 4096); inserts
 * stream the KEYS keys themselves (KEYS * 8 bytes) into the filter, which is
 * cleared before each timed insert pass (the clear is not timed).
 */
#include <bloomsimd.h>

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, harness_compare);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t *keys, *stream, *hbuf;
static uint8_t *out;
static size_t nkeys, nstream, chunk;
static size_t sink;

static double lookup_fused(bloomsimd_filter *f)
{
    double t = harness_cpu_seconds();
    for (size_t i = 0; i < nstream; i += chunk) {
        size_t c = nstream - i < chunk ? nstream - i : chunk;
        sink += bloomsimd_contains_batch_u64(f, stream + i, c, out);
    }
    return harness_cpu_seconds() - t;
}

static double lookup_two_pass(bloomsimd_filter *f)
{
    double t = harness_cpu_seconds();
    for (size_t i = 0; i < nstream; i += chunk) {
        size_t c = nstream - i < chunk ? nstream - i : chunk;
        bloomsimd_hash_batch_u64(f, stream + i, c, hbuf);
        sink += bloomsimd_contains_hashes(f, hbuf, c, out);
    }
    return harness_cpu_seconds() - t;
}

static double insert_fused(bloomsimd_filter *f)
{
    bloomsimd_clear(f);
    double t = harness_cpu_seconds();
    for (size_t i = 0; i < nkeys; i += chunk) {
        size_t c = nkeys - i < chunk ? nkeys - i : chunk;
        bloomsimd_add_batch_u64(f, keys + i, c);
    }
    return harness_cpu_seconds() - t;
}

static double insert_two_pass(bloomsimd_filter *f)
{
    bloomsimd_clear(f);
    double t = harness_cpu_seconds();
    for (size_t i = 0; i < nkeys; i += chunk) {
        size_t c = nkeys - i < chunk ? nkeys - i : chunk;
        bloomsimd_hash_batch_u64(f, keys + i, c, hbuf);
        bloomsimd_add_hashes(f, hbuf, c);
    }
    return harness_cpu_seconds() - t;
}

int main(int argc, char **argv)
{
    nkeys = argc > 1 ? (size_t)strtod(argv[1], NULL) : 10000000;
    nstream = argc > 2 ? (size_t)strtod(argv[2], NULL) : (size_t)1 << 23;
    chunk = argc > 3 ? (size_t)strtod(argv[3], NULL) : 4096;
    int rounds = argc > 4 ? atoi(argv[4]) : 7;
    double fpr = argc > 5 ? strtod(argv[5], NULL) : 0.01;
    if (rounds < 1 || rounds > 99 || !chunk) return 2;
    bloomsimd_filter *f;
    bloomsimd_options o = {.capacity = nkeys, .fpr = fpr};
    const char *layout = getenv("FVT_LAYOUT"); /* 2 block512, 3 split256; unset: the kernel's default */
    if (layout) o.layout = (uint32_t)atoi(layout);
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) {
        fprintf(stderr, "create: %s\n", bloomsimd_last_error());
        return 1;
    }
    keys = malloc(nkeys * 8);
    stream = malloc(nstream * 8);
    hbuf = malloc(chunk * 8);
    out = malloc(chunk);
    uint64_t s = 42;
    for (size_t i = 0; i < nkeys; i++) keys[i] = harness_splitmix(&s);
    for (size_t i = 0; i < nstream; i++) stream[i] = harness_splitmix(&s);
    bloomsimd_add_batch_u64(f, keys, nkeys);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    printf("kernel %s, layout %s, %zu keys (%.1f MB filter), stream %zu keys (%.0f MB), chunk %zu\n", info.kernel, bloomsimd_layout_name(info.layout), nkeys,
           (double)info.bits / 8e6, nstream, nstream * 8 / 1e6, chunk);

    double lf[99], lt[99], lr[99], inf_[99], it[99], ir[99];
    lookup_fused(f), lookup_two_pass(f); /* warm */
    for (int r = 0; r < rounds; r++) {
        /* alternate which goes first */
        if (r & 1) {
            lt[r] = lookup_two_pass(f) / nstream * 1e9;
            lf[r] = lookup_fused(f) / nstream * 1e9;
            it[r] = insert_two_pass(f) / nkeys * 1e9;
            inf_[r] = insert_fused(f) / nkeys * 1e9;
        } else {
            lf[r] = lookup_fused(f) / nstream * 1e9;
            lt[r] = lookup_two_pass(f) / nstream * 1e9;
            inf_[r] = insert_fused(f) / nkeys * 1e9;
            it[r] = insert_two_pass(f) / nkeys * 1e9;
        }
        lr[r] = lt[r] / lf[r];
        ir[r] = it[r] / inf_[r];
    }
    double lr_min = 1e9, lr_max = 0, ir_min = 1e9, ir_max = 0;
    for (int r = 0; r < rounds; r++) {
        if (lr[r] < lr_min) lr_min = lr[r];
        if (lr[r] > lr_max) lr_max = lr[r];
        if (ir[r] < ir_min) ir_min = ir[r];
        if (ir[r] > ir_max) ir_max = ir[r];
    }
    printf("lookup ns/key: fused %.2f  two-pass %.2f  two-pass/fused %.2f (%.2f..%.2f)\n", median(lf, rounds),
           median(lt, rounds), median(lr, rounds), lr_min, lr_max);
    printf("insert ns/key: fused %.2f  two-pass %.2f  two-pass/fused %.2f (%.2f..%.2f)\n", median(inf_, rounds),
           median(it, rounds), median(ir, rounds), ir_min, ir_max);
    bloomsimd_destroy(f);
    return sink == 0xdeadbeef;
}
