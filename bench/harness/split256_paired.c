/*
 * split256_paired.c — layout split256 against block512 on one kernel, paired.
 *
 * At each size n, two filters sized for n keys at 1% FPR (options.fpr 0.01,
 * options.layout 2 and 3), the same n keys inserted into both. Each round
 * times, on both filters in turn (the order alternates every round), the same
 * 2^20 keys through
 *   lookup   bloomsimd_contains_batch_u64, batches of 4096 absent keys (bytes out)
 *   insert   bloomsimd_add_batch_u64, batches of 4096 of the inserted keys in
 *            random order (re-inserted: the filter does not fill up)
 *   single   bloomsimd_contains_u64 in a loop over the absent keys
 * in thread CPU time (as the bench's default clock). It prints per layout the
 * median ns/key and, per round, the ratio block512 / split256 (above 1:
 * split256 faster): median [min..max] over the rounds, plus bits/key and the
 * lookups' measured FPR.
 *
 *   cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build-rel
 *   cc -O2 -Iinclude bench/harness/split256_paired.c build-rel/libbloomsimd.a -lxxhash -lm -lpthread \
 *      -o /tmp/s256
 *   /tmp/s256 KERNEL ROUNDS SIZES     (e.g. avx2 15 1e5,1e6,1e7)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bloomsimd.h>

#define QUERIES ((size_t)1 << 20)
#define BATCH ((size_t)4096)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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

static uint8_t out[BATCH];

static uint64_t op_lookup(bloomsimd_filter *f, const uint64_t *keys)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < QUERIES; i += BATCH) hits += bloomsimd_contains_batch_u64(f, keys + i, BATCH, out);
    return hits;
}

static uint64_t op_insert(bloomsimd_filter *f, const uint64_t *keys)
{
    for (size_t i = 0; i < QUERIES; i += BATCH)
        if (bloomsimd_add_batch_u64(f, keys + i, BATCH) != BLOOMSIMD_OK) return 1;
    return 0;
}

static uint64_t op_single(bloomsimd_filter *f, const uint64_t *keys)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < QUERIES; i++) hits += bloomsimd_contains_u64(f, keys[i]);
    return hits;
}

typedef uint64_t (*op_fn)(bloomsimd_filter *f, const uint64_t *keys);

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s KERNEL [ROUNDS [SIZES]]\n", argv[0]);
        return 2;
    }
    const char *kernel = argv[1];
    int rounds = argc > 2 ? atoi(argv[2]) : 15;
    char *sizes = strdup(argc > 3 ? argv[3] : "1e5,1e6,1e7");
    if (rounds < 1 || !sizes) return 2;
    uint64_t *absent = malloc(QUERIES * 8), *again = malloc(QUERIES * 8);
    double *t = malloc((size_t)rounds * 2 * sizeof *t), *ratio = malloc((size_t)rounds * sizeof *ratio);
    if (!absent || !again || !t || !ratio) return 1;
    uint64_t seed = 42;
    for (size_t i = 0; i < QUERIES; i++) absent[i] = splitmix(&seed) | 1u; /* odd: never inserted */
    const char *op_names[] = {"lookup", "insert", "single"};
    op_fn ops[] = {op_lookup, op_insert, op_single};
    const uint32_t layouts[2] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    printf("kernel %s, %d paired rounds of %zu keys, thread CPU time, ns/key: median; ratio block512/split256 "
           "median [min..max]\n",
           kernel, rounds, QUERIES);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        uint64_t n = (uint64_t)strtod(tok, NULL);
        uint64_t *keys = malloc(n * 8);
        if (!keys) return 1;
        uint64_t s2 = 7;
        for (uint64_t i = 0; i < n; i++) keys[i] = splitmix(&s2) & ~UINT64_C(1);
        for (size_t i = 0; i < QUERIES; i++) again[i] = keys[splitmix(&s2) % n];
        bloomsimd_filter *f[2];
        for (int l = 0; l < 2; l++) {
            bloomsimd_options o = {.capacity = n, .fpr = 0.01, .kernel = kernel, .layout = layouts[l]};
            if (bloomsimd_create_with(&f[l], &o) != BLOOMSIMD_OK) {
                fprintf(stderr, "create %s layout %u: %s\n", kernel, layouts[l], bloomsimd_last_error());
                return 1;
            }
            if (bloomsimd_add_batch_u64(f[l], keys, n) != BLOOMSIMD_OK) return 1;
        }
        printf("n=%-9llu", (unsigned long long)n);
        for (int l = 0; l < 2; l++) {
            bloomsimd_info info;
            bloomsimd_get_info(f[l], &info);
            printf("  %s %.2f bits/key (k %u, FPR %.3f%%)", l ? "split256" : "block512",
                   (double)info.memory_bytes * 8.0 / (double)n, info.k,
                   100.0 * (double)op_lookup(f[l], absent) / (double)QUERIES);
        }
        printf("\n");
        for (int o = 0; o < 3; o++) {
            uint64_t check[2] = {0, 0};
            for (int l = 0; l < 2; l++) ops[o](f[l], o == 1 ? again : absent); /* warm-up */
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < 2; i++) {
                    int l = (i + r) % 2;
                    uint64_t t0 = now_ns();
                    check[l] += ops[o](f[l], o == 1 ? again : absent);
                    t[l * rounds + r] = (double)(now_ns() - t0) / (double)QUERIES;
                }
                ratio[r] = t[r] / t[rounds + r];
            }
            qsort(t, (size_t)rounds, sizeof *t, cmp_double);
            qsort(t + rounds, (size_t)rounds, sizeof *t, cmp_double);
            qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_double);
            printf("  %-6s block512 %6.2f  split256 %6.2f  ratio %.2f [%.2f..%.2f]  (hits %llu / %llu)\n",
                   op_names[o], t[rounds / 2], t[rounds + rounds / 2], ratio[rounds / 2], ratio[0], ratio[rounds - 1],
                   (unsigned long long)check[0], (unsigned long long)check[1]);
        }
        fflush(stdout);
        bloomsimd_destroy(f[0]);
        bloomsimd_destroy(f[1]);
        free(keys);
    }
    free(sizes), free(absent), free(again), free(t), free(ratio);
    return 0;
}
