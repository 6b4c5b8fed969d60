/*
 * single_key_probe.c — what one call per key costs, and why.
 *
 * Times a loop of single-key lookups over random absent keys, each variant
 * in turn on the same keys in every round (paired), at several filter sizes:
 *   lib      bloomsimd_contains_u64(f, key), one call per key
 *   batch    bloomsimd_contains_batch_u64 on the same keys
 *   peer     the bench's split-block peer (bench/sbbf.h), sized for the same
 *            FPR, its probe inlined in a loop of single calls (AVX2)
 * Build it (the peer needs AVX2 at run time):
 *   cc -O2 -mavx2 -mbmi2 -c bench/sbbf_avx2.c -o /tmp/sbbf_avx2.o
 *   cc -O2 -DBLOOMSIMD_BENCH_HAVE_SBBF_AVX2 -Iinclude -Ibench bench/harness/single_key_probe.c \
 *      bench/sbbf.c /tmp/sbbf_avx2.o build-rel/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/skp
 *   /tmp/skp ROUNDS SIZES   (e.g. 9 1e4,1e5,1e6,1e7; BLOOMSIMD_KERNEL picks
 *                            the kernel, BLOOMSIMD_LAYOUT_ARG=3 split256)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bloomsimd.h>

#include "sbbf.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef uint64_t (*variant_fn)(const bloomsimd_filter *f, const uint64_t *keys, size_t n);

static bench_sbbf peer; /* the current size's peer filter */

static uint64_t run_peer(const bloomsimd_filter *f, const uint64_t *keys, size_t n)
{
    (void)f;
    return bench_sbbf_contains_one_by_one(&peer, keys, n);
}

static uint64_t run_lib(const bloomsimd_filter *f, const uint64_t *keys, size_t n)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) hits += bloomsimd_contains_u64(f, keys[i]);
    return hits;
}

static uint64_t run_batch(const bloomsimd_filter *f, const uint64_t *keys, size_t n)
{
    static uint8_t out[4096];
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i += 4096) hits += bloomsimd_contains_batch_u64(f, keys + i, n - i < 4096 ? n - i : 4096, out);
    return hits;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    const char *sizes_arg = argc > 2 ? argv[2] : "1e4,1e5,1e6,1e7";
    size_t q = (size_t)1 << 20;
    uint64_t *absent = malloc(q * 8);
    uint64_t seed = 42;
    for (size_t i = 0; i < q; i++) absent[i] = splitmix(&seed) | 1u; /* odd: absent */
    const char *why = NULL;
    if (!bench_sbbf_available(&why)) {
        fprintf(stderr, "the split-block peer cannot run here: %s\n", why);
        return 1;
    }
    const char *names[] = {"lib", "batch", "peer"};
    variant_fn fns[] = {run_lib, run_batch, run_peer};
    enum { NV = sizeof fns / sizeof fns[0] };
    char *sizes = strdup(sizes_arg);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        uint64_t n = (uint64_t)strtod(tok, NULL);
        bloomsimd_filter *f;
        bloomsimd_options o = {.capacity = n, .fpr = 0.01};
        const char *layout = getenv("BLOOMSIMD_LAYOUT_ARG");
        if (layout) o.layout = (uint32_t)atoi(layout);
        if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) return 1;
        uint64_t s2 = 7;
        if (!bench_sbbf_init(&peer, bench_sbbf_blocks_for(n, 0.01))) return 1;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t key = splitmix(&s2) & ~UINT64_C(1);
            bloomsimd_add_u64(f, key);
            bench_sbbf_add(&peer, &key, 1);
        }
        double *t[NV];
        uint64_t hits[NV];
        for (int v = 0; v < NV; v++) t[v] = calloc((size_t)rounds, sizeof(double));
        for (int r = 0; r < rounds; r++)
            for (int v0 = 0; v0 < NV; v0++) {
                int v = (v0 + r) % NV;
                uint64_t t0 = now_ns();
                hits[v] = fns[v](f, absent, q);
                t[v][r] = (double)(now_ns() - t0) / (double)q;
            }
        printf("n=%-10llu", (unsigned long long)n);
        for (int v = 0; v < NV; v++) {
            qsort(t[v], (size_t)rounds, sizeof(double), cmp_double);
            printf("  %s %.2f [%.2f..%.2f] (%llu)", names[v], t[v][rounds / 2], t[v][rounds / 10], t[v][rounds - 1 - rounds / 10],
                   (unsigned long long)hits[v]);
        }
        printf("\n");
        bloomsimd_destroy(f);
        bench_sbbf_free(&peer);
    }
    return 0;
}
