/*
 * window_layout_floor.c — would interleaving a window's generations make its
 * lookups cheap enough? The floor of three memory layouts, paired.
 *
 * A window of G generations of equal size answers an absent key only after
 * reading one block in every generation. All generations have the same
 * number of blocks and the same hash, so the key's block index b is the same
 * in each. Today each generation is its own array, so the G blocks are G
 * random cache lines. Interleaved (block b of generation g at line b * G + g
 * of one array) they would be G adjacent lines: one DRAM row, one TLB entry,
 * and for an adjacent-line prefetcher half the demand misses. This program
 * measures the floor of each layout, no Bloom filter logic: per key one
 * 64-bit word read from each of its lines, with every line prefetched DIST
 * keys ahead (as the kernels' pipelines do), on
 *   fixed        one array of NB blocks (the filter of the window's total size)
 *   separate     G arrays of NB / G blocks (today's window)
 *   interleaved  one array of NB / G groups of G adjacent blocks
 * 2 MiB-aligned arrays on transparent huge pages, like the library's. Each
 * round times all three on the same keys, in an order that alternates; the
 * ratios to `fixed` are per round, median [min..max]. Thread CPU time.
 *
 *   cc -O2 bench/harness/window_layout_floor.c -o /tmp/wfloor
 *   /tmp/wfloor NB G ROUNDS PREFETCH      (e.g. 1940000 4 7 1: 124 MB, the
 *                                          bench's 10^8-key window; PREFETCH
 *                                          0 = none, 1 = every line,
 *                                          2 = every other line)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define KEYS ((size_t)1 << 21)
#define DIST 32u /* keys between a line's prefetch and its read */
#define MAX_G 64
#define HUGE ((size_t)2 << 20)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A 64-bit finalizer (MurmurHash3's): uniform block indices from a counter. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

/* A 2 MiB-aligned, touched array on huge pages where the kernel grants them. */
static char *huge_array(size_t bytes)
{
    bytes = (bytes + HUGE - 1) & ~(HUGE - 1);
    char *p = mmap(NULL, bytes + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    p = (char *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 1, bytes);
    return p;
}

/* One pass: key i reads a word of line base[g] + index * stride for each of
 * the g < lines bases; index = ((h >> 32) * blocks) >> 32, the library's
 * block rule. prefetch: 0 none, 1 every line, 2 every other line. */
static uint64_t pass(char *const *base, int lines, uint64_t blocks, size_t stride, int prefetch, uint64_t salt)
{
    uint64_t sum = 0;
    int step = prefetch == 2 ? 2 : 1;
    for (size_t i = 0; i < KEYS; i++) {
        if (prefetch) {
            uint64_t ahead = mix(i + DIST + salt);
            uint64_t index = ((ahead >> 32) * blocks) >> 32;
            for (int g = 0; g < lines; g += step) __builtin_prefetch(base[g] + index * stride, 0, 2);
        }
        uint64_t h = mix(i + salt);
        uint64_t index = ((h >> 32) * blocks) >> 32;
        for (int g = 0; g < lines; g++) sum += *(const uint64_t *)(base[g] + index * stride + 8 * (h & 7));
    }
    return sum;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s NB G ROUNDS PREFETCH   (e.g. 1940000 4 7 1)\n", argv[0]);
        return 2;
    }
    uint64_t nb = strtoull(argv[1], NULL, 10);
    int g_count = atoi(argv[2]), rounds = atoi(argv[3]), prefetch = atoi(argv[4]);
    if (g_count < 2 || g_count > MAX_G || rounds < 1 || rounds > 99 || nb < (uint64_t)g_count || prefetch < 0 ||
        prefetch > 2) {
        fprintf(stderr, "%s: NB >= G, 2 <= G <= %d, 1 <= ROUNDS <= 99, PREFETCH 0..2\n", argv[0], MAX_G);
        return 2;
    }
    uint64_t per = nb / (uint64_t)g_count;
    char *fixed[1] = {huge_array(nb * 64)};
    char *separate[MAX_G], *interleaved[MAX_G];
    char *one = huge_array(per * 64 * (uint64_t)g_count);
    for (int g = 0; g < g_count; g++) {
        separate[g] = huge_array(per * 64);
        interleaved[g] = one + 64 * g;
    }

    enum { FIXED, SEPARATE, INTERLEAVED, LAYOUTS };
    static const char *name[LAYOUTS] = {"fixed", "separate", "interleaved"};
    double ns[LAYOUTS][99], ratio[LAYOUTS][99];
    uint64_t sink = 0;
    for (int r = 0; r < rounds; r++) {
        uint64_t salt = (uint64_t)r << 40; /* new keys every round */
        for (int k = 0; k < LAYOUTS; k++) {
            int layout = r & 1 ? LAYOUTS - 1 - k : k;
            double t0 = now_ns();
            if (layout == FIXED)
                sink += pass(fixed, 1, nb, 64, prefetch, salt);
            else if (layout == SEPARATE)
                sink += pass(separate, g_count, per, 64, prefetch, salt);
            else
                sink += pass(interleaved, g_count, per, 64 * (size_t)g_count, prefetch, salt);
            ns[layout][r] = (now_ns() - t0) / (double)KEYS;
        }
        for (int k = 0; k < LAYOUTS; k++) ratio[k][r] = ns[k][r] / ns[FIXED][r];
    }
    printf("%llu blocks (%.0f MB), G = %d, prefetch %d, %d rounds of %zu keys (checksum %llu)\n",
           (unsigned long long)nb, (double)nb * 64 / 1e6, g_count, prefetch, rounds, KEYS,
           (unsigned long long)(sink & 0xff));
    for (int k = 0; k < LAYOUTS; k++) {
        qsort(ns[k], (size_t)rounds, sizeof(double), by_value);
        qsort(ratio[k], (size_t)rounds, sizeof(double), by_value);
        printf("  %-12s %6.2f ns/key   x fixed %.2f [%.2f..%.2f]\n", name[k], ns[k][rounds / 2], ratio[k][rounds / 2],
               ratio[k][0], ratio[k][rounds - 1]);
    }
    return 0;
}
