/*
 * libbloom_ref.c — Debian's libbloom (libbloom-dev), what many C programs use
 * today: a classic Bloom filter, one key per call, MurmurHash2 per probe.
 * Compiled against it only when CMake found bloom.h and -lbloom
 * (BLOOMSIMD_BENCH_HAVE_LIBBLOOM); otherwise every call reports "absent".
 *
 * libbloom sizes itself from (entries, error): bits/key = -ln(error)/ln(2)^2,
 * hashes = ceil(bits/key * ln 2). We invert that for the requested bits/key:
 * error = exp(-bits_per_key * ln(2)^2), e.g. 10 bits/key -> 0.82%, k = 7.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "refs.h"

#ifdef BLOOMSIMD_BENCH_HAVE_LIBBLOOM
#include <bloom.h>

bool bench_libbloom_compiled(void) { return true; }

void *bench_libbloom_create(uint64_t n, double bits_per_key)
{
    /* entries and bits are ints in libbloom; it wants >= 1000 entries */
    if (n < 1000 || (double)n * bits_per_key >= (double)INT_MAX) return NULL;
    struct bloom *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    double ln2 = 0.6931471805599453;
    if (bloom_init(b, (int)n, exp(-bits_per_key * ln2 * ln2)) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

void bench_libbloom_destroy(void *b)
{
    if (!b) return;
    bloom_free(b);
    free(b);
}

void bench_libbloom_add(void *b, const uint64_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) bloom_add(b, &keys[i], (int)sizeof keys[i]);
}

uint64_t bench_libbloom_contains(void *b, const uint64_t *keys, size_t n)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) hits += bloom_check(b, &keys[i], (int)sizeof keys[i]) == 1;
    return hits;
}

unsigned bench_libbloom_k(void *b) { return b ? (unsigned)((struct bloom *)b)->hashes : 0; }

double bench_libbloom_bits_per_key(void *b, uint64_t n)
{
    return b && n ? (double)((struct bloom *)b)->bits / (double)n : 0;
}

#else

bool bench_libbloom_compiled(void) { return false; }
void *bench_libbloom_create(uint64_t n, double bits_per_key)
{
    (void)n;
    (void)bits_per_key;
    return NULL;
}
void bench_libbloom_destroy(void *b) { (void)b; }
void bench_libbloom_add(void *b, const uint64_t *keys, size_t n)
{
    (void)b;
    (void)keys;
    (void)n;
}
uint64_t bench_libbloom_contains(void *b, const uint64_t *keys, size_t n)
{
    (void)b;
    (void)keys;
    (void)n;
    return 0;
}
unsigned bench_libbloom_k(void *b)
{
    (void)b;
    return 0;
}
double bench_libbloom_bits_per_key(void *b, uint64_t n)
{
    (void)b;
    (void)n;
    return 0;
}

#endif
