/*
 * classic.c — a classic (non-blocked) Bloom filter at the same bits/key, to
 * show what blocking buys: k probes anywhere in m bits, so up to k cache
 * misses per key instead of one.
 *
 * Positions by double hashing from the same 64-bit XXH3 hash the library
 * uses (Kirsch & Mitzenmacher 2006): g_i = h + i * h2, h2 = rotl(h, 32) | 1,
 * position_i = (g_i * m) >> 64. It is given the same advantages as the
 * kernels: batched, with all k lines of a key prefetched (into L2)
 * CLASSIC_AHEAD keys early, and huge pages for large arrays. Lookups stop at the first clear bit,
 * as classic filters do, so absent keys cost ~1-2 probes and present ones k.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "layout.h"
#include "refs.h"

#define CLASSIC_AHEAD 8u
/* Prefetch into L2 (prefetcht1): L2 has more miss buffers than L1, and with
 * k lines per key this measured ~2x faster at 10^8 keys than prefetcht0
 * (e.g. 33.8 vs 61.9 ns per negative lookup, same run). */
#ifndef CLASSIC_LOCALITY
#define CLASSIC_LOCALITY 2
#endif
#define CLASSIC_RING 16u /* > CLASSIC_AHEAD, power of two */
#define HUGE_PAGE ((size_t)2 << 20)

__extension__ typedef unsigned __int128 u128;

static inline uint64_t position(uint64_t g, uint64_t nbits) { return (uint64_t)(((u128)g * nbits) >> 64); }
static inline uint64_t step_of(uint64_t h) { return bloomsimd_rotl64(h, 32) | 1u; }

unsigned bench_classic_best_k(double bits_per_key)
{
    long k = lround(bits_per_key * 0.6931471805599453);
    return k < 1 ? 1u : (unsigned)k;
}

double bench_classic_formula(double bits_per_key, unsigned k)
{
    return pow(1.0 - exp(-(double)k / bits_per_key), (double)k);
}

bool bench_classic_init(bench_classic *c, uint64_t n, double bits_per_key, unsigned k, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    double bits = ceil((double)n * bits_per_key);
    if (bits < 512) bits = 512;
    c->nbits = ((uint64_t)bits + 511u) & ~(uint64_t)511u;
    c->k = k ? k : bench_classic_best_k(bits_per_key);
    c->hash_bitflip = bloomsimd_xxh3_bitflip(seed);
    c->bytes = (size_t)(c->nbits / 8u);
    if (c->bytes >= HUGE_PAGE) {
        c->bytes = (c->bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return false;
#ifdef MADV_HUGEPAGE
        (void)madvise(p, c->bytes, MADV_HUGEPAGE);
#endif
        c->bits = p;
        c->mapped = true;
    } else {
        c->bits = aligned_alloc(64, c->bytes);
        if (!c->bits) return false;
        memset(c->bits, 0, c->bytes);
    }
    return true;
}

void bench_classic_free(bench_classic *c)
{
    if (c->mapped)
        munmap(c->bits, c->bytes);
    else
        free(c->bits);
    memset(c, 0, sizeof *c);
}

static void prefetch_key(const bench_classic *c, uint64_t h, int for_write)
{
    uint64_t g = h, step = step_of(h);
    for (unsigned i = 0; i < c->k; i++, g += step) {
        const uint64_t *w = &c->bits[position(g, c->nbits) >> 6];
        if (for_write)
            __builtin_prefetch(w, 1, CLASSIC_LOCALITY);
        else
            __builtin_prefetch(w, 0, CLASSIC_LOCALITY);
    }
}

void bench_classic_add(const bench_classic *c, const uint64_t *keys, size_t n)
{
    uint64_t ring[CLASSIC_RING];
    for (size_t i = 0; i < n && i < CLASSIC_AHEAD; i++) {
        ring[i % CLASSIC_RING] = bloomsimd_xxh3_u64(keys[i], c->hash_bitflip);
        prefetch_key(c, ring[i % CLASSIC_RING], 1);
    }
    for (size_t i = 0; i < n; i++) {
        if (i + CLASSIC_AHEAD < n) {
            uint64_t ha = bloomsimd_xxh3_u64(keys[i + CLASSIC_AHEAD], c->hash_bitflip);
            ring[(i + CLASSIC_AHEAD) % CLASSIC_RING] = ha;
            prefetch_key(c, ha, 1);
        }
        uint64_t h = ring[i % CLASSIC_RING], g = h, step = step_of(h);
        for (unsigned j = 0; j < c->k; j++, g += step) {
            uint64_t p = position(g, c->nbits);
            c->bits[p >> 6] |= UINT64_C(1) << (p & 63u);
        }
    }
}

uint64_t bench_classic_contains(const bench_classic *c, const uint64_t *keys, size_t n)
{
    uint64_t ring[CLASSIC_RING], hits = 0;
    for (size_t i = 0; i < n && i < CLASSIC_AHEAD; i++) {
        ring[i % CLASSIC_RING] = bloomsimd_xxh3_u64(keys[i], c->hash_bitflip);
        prefetch_key(c, ring[i % CLASSIC_RING], 0);
    }
    for (size_t i = 0; i < n; i++) {
        if (i + CLASSIC_AHEAD < n) {
            uint64_t ha = bloomsimd_xxh3_u64(keys[i + CLASSIC_AHEAD], c->hash_bitflip);
            ring[(i + CLASSIC_AHEAD) % CLASSIC_RING] = ha;
            prefetch_key(c, ha, 0);
        }
        uint64_t h = ring[i % CLASSIC_RING], g = h, step = step_of(h);
        unsigned j = 0;
        for (; j < c->k; j++, g += step) {
            uint64_t p = position(g, c->nbits);
            if (!((c->bits[p >> 6] >> (p & 63u)) & 1u)) break;
        }
        hits += j == c->k;
    }
    return hits;
}
