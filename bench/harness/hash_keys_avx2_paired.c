/* hash_keys_avx2_paired.c — paired, alternating rounds in one process, public API only:
 * libxxhash XXH3_64bits_withSeed per key vs bloomsimd_hash_keys on an avx2
 * filter (options.kernel = "avx2") vs the scalar kernel's (the reference
 * loop). Shapes: fixed width and offsets32 (Arrow) at 8/16/32/64 B, offsets
 * mixed 8..64, pointers 16 B. Two modes: "cached" = the same 4096 keys per
 * call each round; "stream" = 2^17 keys walked in 4096-key calls per round.
 * Each round times the three methods in rotating order. Prints ns/key
 * p10/median/p90 per method and p10/median/p90 of per-round ratios.
 * usage: hash_keys_avx2_paired [rounds_cached] [rounds_stream] [seed]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>
#include "bloomsimd.h"

#define NKEYS (1u << 17)
#define CALL 4096u

static uint64_t sm(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void q3(double *v, int n, double *p10, double *p50, double *p90)
{
    qsort(v, n, sizeof *v, cmpd);
    *p10 = v[n / 10], *p50 = v[n / 2], *p90 = v[(n * 9) / 10];
}

typedef struct shape {
    const char *name;
    int layout; /* 0 fixed, 1 offsets32, 2 pointers */
    unsigned w; /* 0 = mixed 8..64 */
} shape;

static uint8_t *data;
static uint32_t *off;
static const void **ptr;
static size_t *len;
static uint64_t seed;
static volatile uint64_t sink;

static void xxh_range(const shape *s, size_t first, size_t n, uint64_t *out)
{
    if (s->layout == 0)
        for (size_t i = 0; i < n; i++) out[i] = XXH3_64bits_withSeed(data + (first + i) * s->w, s->w, seed);
    else if (s->layout == 1)
        for (size_t i = 0; i < n; i++)
            out[i] = XXH3_64bits_withSeed(data + off[first + i], off[first + i + 1] - off[first + i], seed);
    else
        for (size_t i = 0; i < n; i++) out[i] = XXH3_64bits_withSeed(ptr[first + i], len[first + i], seed);
}
static bloomsimd_keys view(const shape *s, size_t first, size_t n)
{
    if (s->layout == 0) return bloomsimd_keys_fixed(data + first * s->w, n * s->w, s->w, n);
    if (s->layout == 1) return bloomsimd_keys_offsets32(data, off[NKEYS], off + first, n);
    return bloomsimd_keys_pointers(ptr + first, len + first, n);
}

static void setup(const shape *s)
{
    uint64_t st = 12345;
    size_t at = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        off[i] = (uint32_t)at;
        len[i] = s->w ? s->w : 8 + sm(&st) % 57;
        ptr[i] = data + at;
        at += len[i];
    }
    off[NKEYS] = (uint32_t)at;
    for (size_t i = 0; i < at; i += 8) {
        uint64_t r = sm(&st);
        memcpy(data + i, &r, 8);
    }
}

int main(int argc, char **argv)
{
    int rc = argc > 1 ? atoi(argv[1]) : 400, rs = argc > 2 ? atoi(argv[2]) : 40;
    seed = argc > 3 ? strtoull(argv[3], 0, 0) : 42;
    data = malloc(NKEYS * 64 + 64);
    off = malloc((NKEYS + 1) * 4);
    ptr = malloc(NKEYS * sizeof *ptr);
    len = malloc(NKEYS * sizeof *len);
    uint64_t *out = malloc(NKEYS * 8), *chk = malloc(NKEYS * 8);
    bloomsimd_filter *f[2];
    const char *kn[2] = {"avx2", "scalar"};
    for (int k = 0; k < 2; k++) {
        bloomsimd_options o = {.bits = 512, .k = 6, .seed = seed, .kernel = kn[k]};
        if (bloomsimd_create_with(&f[k], &o) != BLOOMSIMD_OK) return fprintf(stderr, "create %s\n", kn[k]), 1;
        bloomsimd_info inf;
        bloomsimd_get_info(f[k], &inf);
        if (strcmp(inf.kernel, kn[k])) return fprintf(stderr, "kernel %s != %s\n", inf.kernel, kn[k]), 1;
    }
    static const shape shapes[] = {
        {"fixed 8", 0, 8},   {"fixed 16", 0, 16},   {"fixed 32", 0, 32},   {"fixed 64", 0, 64},
        {"offs32 8", 1, 8},  {"offs32 16", 1, 16},  {"offs32 32", 1, 32},  {"offs32 64", 1, 64},
        {"offs32 mix", 1, 0}, {"ptr 16", 2, 16}, {"ptr mix", 2, 0},
        {"fixed 12", 0, 12}, {"fixed 24", 0, 24}, {"fixed 36", 0, 36}, {"offs32 12", 1, 12}, {"offs32 24", 1, 24}, {"offs32 36", 1, 36},
    };
    printf("ns/key p10/med/p90; ratio = libxxhash/avx2 per round (p10/med/p90); seed %llu\n",
           (unsigned long long)seed);
    for (int mode = 0; mode < 2; mode++) {
        int R = mode ? rs : rc;
        printf("== %s (%s)\n", mode ? "stream 2^17 keys in 4096-key calls" : "cached: 4096 keys per call",
               mode ? "rounds" : "rounds");
        printf("%-11s %-20s %-20s %-20s %s\n", "shape", "libxxhash", "avx2", "scalar ref", "xxh/avx2");
        double *t[3], *ratio = malloc(R * sizeof(double));
        for (int m = 0; m < 3; m++) t[m] = malloc(R * sizeof(double));
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            const shape *s = &shapes[si];
            setup(s);
            size_t total = mode ? NKEYS : CALL;
            /* check */
            xxh_range(s, 0, NKEYS, chk);
            for (int k = 0; k < 2; k++) {
                bloomsimd_keys v = view(s, 0, NKEYS);
                if (bloomsimd_hash_keys(f[k], &v, out) != BLOOMSIMD_OK || memcmp(out, chk, NKEYS * 8))
                    return fprintf(stderr, "%s %s mismatch\n", s->name, kn[k]), 1;
            }
            for (int r = -3; r < R; r++) {
                double tm[3];
                for (int j = 0; j < 3; j++) {
                    int m = (r + 30 + j) % 3;
                    double t0 = now();
                    for (size_t b = 0; b < total; b += CALL) {
                        if (m == 0)
                            xxh_range(s, b, CALL, out + b);
                        else {
                            bloomsimd_keys v = view(s, b, CALL);
                            bloomsimd_hash_keys(f[m - 1], &v, out + b);
                        }
                    }
                    tm[m] = (now() - t0) / total;
                    sink += out[total - 1];
                }
                if (r < 0) continue;
                for (int m = 0; m < 3; m++) t[m][r] = tm[m];
                ratio[r] = tm[0] / tm[1];
            }
            printf("%-11s", s->name);
            for (int m = 0; m < 3; m++) {
                double a, b, c;
                q3(t[m], R, &a, &b, &c);
                printf(" %5.2f/%5.2f/%5.2f   ", a, b, c);
            }
            double a, b, c;
            q3(ratio, R, &a, &b, &c);
            printf(" %4.2f/%4.2f/%4.2f\n", a, b, c);
            fflush(stdout);
        }
        for (int m = 0; m < 3; m++) free(t[m]);
        free(ratio);
    }
    return 0;
}
