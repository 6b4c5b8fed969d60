/*
 * u64_hash_paired.c — the two hashes of 64-bit keys side by side: a filter
 * with BLOOMSIMD_U64_XXH3 (hash 1) and one with BLOOMSIMD_U64_MUM (hash 3),
 * same kernel, layout, size and keys, in paired alternating rounds; batched
 * lookups and inserts with the keys streamed from memory (flushed from the
 * caches before each side's turn), and one call per key (keys cached, as a
 * request handler's are). Thread CPU time; medians, and per-round ratios
 * mum / xxh3 as p10 / median / p90 (below 1: mum is faster).
 *
 *   cc -O2 -Iinclude bench/harness/u64_hash_paired.c build/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/hp
 *   BLOOMSIMD_KERNEL=avx2 /tmp/hp KEYS [ROUNDS [LAYOUT]]      (LAYOUT 2 or 3; default the kernel's)
 */
#include <bloomsimd.h>

#include "harness.h"

#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void evict(const void *p, size_t bytes)
{
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < (uintptr_t)p + bytes; a += 64) _mm_clflush((void *)a);
    _mm_mfence();
}

enum { LOOKUP, INSERT, SINGLE, SINGLE_ADD, OPS };
static const char *names[OPS] = {"lookup", "insert", "single contains_u64", "single add_u64"};
static volatile size_t sink;

/* ns per key of op on f over keys[0..count) */
static double run(bloomsimd_filter *f, int op, const uint64_t *keys, size_t count, uint8_t *out, bool cold)
{
    if (cold) evict(keys, count * 8);
    double t = harness_cpu_seconds();
    size_t s = 0;
    for (size_t i = 0; i < count; i += 4096) {
        size_t c = count - i < 4096 ? count - i : 4096;
        switch (op) {
        case LOOKUP: s += bloomsimd_contains_batch_u64(f, keys + i, c, out); break;
        case INSERT: bloomsimd_add_batch_u64(f, keys + i, c); break;
        case SINGLE:
            for (size_t j = 0; j < c; j++) s += bloomsimd_contains_u64(f, keys[i + j]);
            break;
        default:
            for (size_t j = 0; j < c; j++) bloomsimd_add_u64(f, keys[i + j]);
        }
    }
    sink += s;
    return (harness_cpu_seconds() - t) / (double)count * 1e9;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtod(argv[1], NULL) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 21;
    uint32_t layout = argc > 3 ? (uint32_t)atoi(argv[3]) : 0;
    if (rounds < 1 || rounds > 999 || n == 0) return 2;
    size_t round_keys = n > ((size_t)1 << 18) ? n : (size_t)1 << 18, stream = 16 * round_keys;
    uint64_t *keys = malloc(n * 8), *queries = malloc(stream * 8);
    uint8_t *out = malloc(4096);
    uint64_t s = 1;
    for (size_t i = 0; i < n; i++) keys[i] = harness_splitmix(&s);
    for (size_t i = 0; i < stream; i++) queries[i] = harness_splitmix(&s);
    bloomsimd_filter *f[2];
    const uint32_t flags[2] = {BLOOMSIMD_U64_XXH3, BLOOMSIMD_U64_MUM};
    for (int i = 0; i < 2; i++) {
        bloomsimd_options o = {.capacity = n, .fpr = 0.01, .layout = layout, .flags = flags[i]};
        if (bloomsimd_create_with(&f[i], &o) != BLOOMSIMD_OK) {
            fprintf(stderr, "create: %s\n", bloomsimd_last_error());
            return 1;
        }
        bloomsimd_add_batch_u64(f[i], keys, n);
    }
    bloomsimd_info info;
    bloomsimd_get_info(f[0], &info);
    printf("kernel %s, layout %s, %zu keys, %.1f MB, %d rounds\n", info.kernel, bloomsimd_layout_name(info.layout), n,
           (double)info.memory_bytes / 1e6, rounds);
    double *t[2], *ratio = malloc(sizeof(double) * (size_t)rounds);
    t[0] = malloc(sizeof(double) * (size_t)rounds), t[1] = malloc(sizeof(double) * (size_t)rounds);
    for (int op = 0; op < OPS; op++) {
        bool cold = op == LOOKUP || op == INSERT;
        /* single calls: a quarter of the keys a round (slower per key) */
        size_t count = cold ? round_keys : round_keys / 4;
        for (int r = -1; r < rounds; r++) {
            size_t at = ((size_t)(r + 1) % 16) * round_keys;
            const uint64_t *src = op == LOOKUP || op == SINGLE ? queries + at : keys;
            if (op == INSERT || op == SINGLE_ADD) count = n < count ? n : count;
            for (int k = 0; k < 2; k++) {
                int side = (r & 1) ? 1 - k : k;
                double ns = run(f[side], op, src, count, out, cold);
                if (r >= 0) t[side][r] = ns;
            }
            if (r >= 0) ratio[r] = t[1][r] / t[0][r];
        }
        double mx = harness_quantile(t[0], rounds, 0.5), mm = harness_quantile(t[1], rounds, 0.5);
        printf("%-20s ns/key xxh3 %6.2f  mum %6.2f   mum/xxh3 p10 %.3f median %.3f p90 %.3f\n", names[op], mx, mm,
               harness_quantile(ratio, rounds, 0.1), harness_quantile(ratio, rounds, 0.5), harness_quantile(ratio, rounds, 0.9));
    }
    bloomsimd_destroy(f[0]), bloomsimd_destroy(f[1]);
    return 0;
}
