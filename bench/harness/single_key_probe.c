/*
 * single_key_probe.c — what one call per key costs, and why.
 *
 * Times loops of single-key calls over random keys, each variant in turn on
 * the same keys in every round (paired, in an order that rotates from round
 * to round), at several filter sizes:
 *   lib        bloomsimd_contains_u64(f, key), one per absent key: the header's
 *              inline probe (build with and without -mavx2 to see both)
 *   lib-call   (bloomsimd_contains_u64)(f, key): the exported function
 *   batch      bloomsimd_contains_batch_u64 on the same keys
 *   peer       the bench's split-block peer (bench/sbbf.h), sized for the same
 *              FPR, its probe inlined in a loop of single calls (AVX2)
 *   lib-add    bloomsimd_add_u64(f2, key), one call per key, into a copy
 *   peer-add   the peer's insert inlined in a loop of single calls, into a copy
 * Each round times a variant over all 2^20 keys in the calling thread's CPU
 * time (the shared machine's other processes are not charged to it). It
 * prints each variant's median ns/key with the 10th-90th percentile range,
 * and the median of the per-round ratios lib/peer and lib-add/peer-add (below
 * 1.00x the library is faster) with their range.
 * Build it (the peer needs AVX2 at run time):
 *   cc -O2 -mavx2 -mbmi2 -c bench/sbbf_avx2.c -o /tmp/sbbf_avx2.o
 *   cc -O2 -DBLOOMSIMD_BENCH_HAVE_SBBF_AVX2 -Iinclude -Ibench bench/harness/single_key_probe.c \
 *      bench/sbbf.c /tmp/sbbf_avx2.o build-rel/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/skp
 *   /tmp/skp ROUNDS SIZES   (e.g. 9 1e4,1e5,1e6,1e7; BLOOMSIMD_KERNEL picks
 *                            the kernel, BLOOMSIMD_LAYOUT_ARG=2 or 3 the layout,
 *                            BLOOMSIMD_MUM_ARG=1 the mum hash of 64-bit keys)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bloomsimd.h>

#include "sbbf.h"

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
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

/* The current size's filters: the library's for lookups and a copy for
 * inserts, the peer's likewise. */
static bloomsimd_filter *lib_f, *lib_add_f;
static bench_sbbf peer, peer_add;

typedef uint64_t (*variant_fn)(const uint64_t *keys, size_t n);

static uint64_t run_lib(const uint64_t *keys, size_t n)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) hits += bloomsimd_contains_u64(lib_f, keys[i]);
    return hits;
}

/* the exported function, as bindings and FFI call it (the name in parentheses
 * is never the header's inline macro) */
static uint64_t run_lib_call(const uint64_t *keys, size_t n)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) hits += (bloomsimd_contains_u64)(lib_f, keys[i]);
    return hits;
}

static uint64_t run_batch(const uint64_t *keys, size_t n)
{
    static uint8_t out[4096];
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i += 4096)
        hits += bloomsimd_contains_batch_u64(lib_f, keys + i, n - i < 4096 ? n - i : 4096, out);
    return hits;
}

static uint64_t run_peer(const uint64_t *keys, size_t n) { return bench_sbbf_contains_one_by_one(&peer, keys, n); }

static uint64_t run_lib_add(const uint64_t *keys, size_t n)
{
    uint64_t failed = 0;
    for (size_t i = 0; i < n; i++) failed += bloomsimd_add_u64(lib_add_f, keys[i]) != BLOOMSIMD_OK;
    return failed;
}

static uint64_t run_peer_add(const uint64_t *keys, size_t n)
{
    bench_sbbf_add_one_by_one(&peer_add, keys, n);
    return 0;
}

static void quantiles(double *v, int n, double *p10, double *med, double *p90)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *p10 = v[n / 10];
    *med = v[n / 2];
    *p90 = v[n - 1 - n / 10];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    const char *sizes_arg = argc > 2 ? argv[2] : "1e4,1e5,1e6,1e7";
    if (rounds < 1) return 2;
    size_t q = (size_t)1 << 20;
    uint64_t *absent = malloc(q * 8);
    uint64_t seed = 42;
    for (size_t i = 0; i < q; i++) absent[i] = splitmix(&seed) | 1u; /* odd: absent */
    const char *why = NULL;
    if (!bench_sbbf_available(&why)) {
        fprintf(stderr, "the split-block peer cannot run here: %s\n", why);
        return 1;
    }
    const char *names[] = {"lib", "batch", "peer", "lib-add", "peer-add", "lib-call"};
    variant_fn fns[] = {run_lib, run_batch, run_peer, run_lib_add, run_peer_add, run_lib_call};
    enum { NV = sizeof fns / sizeof fns[0] };
    printf("kernel %s; ns/key of thread CPU time, median [p10 p90] of %d paired rounds of 2^20 keys\n",
           getenv("BLOOMSIMD_KERNEL") ? getenv("BLOOMSIMD_KERNEL") : bloomsimd_default_kernel(), rounds);
    char *sizes = strdup(sizes_arg);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        uint64_t n = (uint64_t)strtod(tok, NULL);
        bloomsimd_options o = {.capacity = n, .fpr = 0.01};
        const char *layout = getenv("BLOOMSIMD_LAYOUT_ARG");
        if (getenv("BLOOMSIMD_MUM_ARG")) o.flags |= BLOOMSIMD_U64_MUM; /* hash 3 for 64-bit keys */
        if (layout) o.layout = (uint32_t)atoi(layout);
        if (bloomsimd_create_with(&lib_f, &o) != BLOOMSIMD_OK) return 1;
        uint64_t blocks = bench_sbbf_blocks_for(n, 0.01);
        if (!bench_sbbf_init(&peer, blocks) || !bench_sbbf_init(&peer_add, blocks)) return 1;
        uint64_t s2 = 7;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t key = splitmix(&s2) & ~UINT64_C(1);
            bloomsimd_add_u64(lib_f, key);
            bench_sbbf_add(&peer, &key, 1);
            bench_sbbf_add(&peer_add, &key, 1);
        }
        if (bloomsimd_clone(&lib_add_f, lib_f) != BLOOMSIMD_OK) return 1;
        bloomsimd_info info;
        bloomsimd_get_info(lib_f, &info);
        double *t[NV], ratio[2][rounds];
        for (int v = 0; v < NV; v++) t[v] = calloc((size_t)rounds, sizeof(double));
        for (int r = 0; r < rounds; r++) {
            for (int v0 = 0; v0 < NV; v0++) {
                int v = (v0 + r) % NV;
                double t0 = cpu_ns();
                (void)fns[v](absent, q);
                t[v][r] = (cpu_ns() - t0) / (double)q;
            }
            ratio[0][r] = t[0][r] / t[2][r];
            ratio[1][r] = t[3][r] / t[4][r];
        }
        printf("n=%-9llu %s:", (unsigned long long)n, bloomsimd_layout_name(info.layout));
        for (int v = 0; v < NV; v++) {
            double lo, med, hi;
            quantiles(t[v], rounds, &lo, &med, &hi);
            printf("  %s %.2f [%.2f %.2f]", names[v], med, lo, hi);
            free(t[v]);
        }
        double lo, med, hi;
        quantiles(ratio[0], rounds, &lo, &med, &hi);
        printf("\n            lib/peer %.2fx [%.2f %.2f]", med, lo, hi);
        quantiles(ratio[1], rounds, &lo, &med, &hi);
        printf("  lib-add/peer-add %.2fx [%.2f %.2f]\n", med, lo, hi);
        fflush(stdout);
        bloomsimd_destroy(lib_f);
        bloomsimd_destroy(lib_add_f);
        bench_sbbf_free(&peer);
        bench_sbbf_free(&peer_add);
    }
    free(sizes);
    free(absent);
    return 0;
}
