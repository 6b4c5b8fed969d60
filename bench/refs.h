/*
 * refs.h — the reference rows every kernel is compared with in the same run:
 * the memory ceiling, a classic k-probe Bloom filter, and Debian's libbloom.
 */
#ifndef BLOOMSIMD_BENCH_REFS_H
#define BLOOMSIMD_BENCH_REFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/* ---- ceiling (ceiling.c) ---- */
typedef void (*bench_hash_fn)(uint64_t hash_bitflip, const uint64_t *keys, size_t n, uint64_t *hashes);
typedef struct bench_ceiling {
    const uint64_t *words;  /* the filter's blocks (8 x 64-bit words each) */
    uint64_t nblocks;
    uint64_t hash_bitflip;
    unsigned ahead;         /* prefetch distance in keys: rounded up to groups of 8, <= 248 */
    unsigned to_l2;         /* 0: prefetch into L1 (prefetcht0); 1: into L2 (prefetcht1);
                             * 2: into L2, then into L1 one group before the read (the
                             * avx512 kernel's two-level schedule); 3: `touch` below;
                             * 4: two passes, `hash_u64` of the batch into `scratch`,
                             * then `touch_hashes` */
    bench_hash_fn hash_u64; /* the fastest native kernel's batch hash; NULL = portable */
    /* to_l2 == 3: the fastest kernel's own pipeline with the probe replaced by
     * a one-word read (bloomsimd_kernel.touch_u64), on this geometry */
    uint64_t (*touch)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n);
    /* to_l2 == 4: the same pipeline over hashes (bloomsimd_kernel.touch_hashes),
     * after hash_u64 of the batch into scratch (room for a whole batch) */
    uint64_t (*touch_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n);
    uint64_t *scratch;
    const bloomsimd_geometry *geometry;
} bench_ceiling;
/* The library's hash (bit-exact, vectorised by the best kernel) and block
 * index, then one 64-bit read of that block per key, prefetched `ahead` keys
 * earlier. Returns a sum of the words read. */
uint64_t bench_ceiling_run(const bench_ceiling *c, const uint64_t *keys, size_t n);

/* ---- classic Bloom filter (classic.c) ---- */
typedef struct bench_classic {
    uint64_t *bits;
    uint64_t nbits;
    unsigned k;
    uint64_t hash_bitflip;
    size_t bytes;
    bool mapped;
} bench_classic;
/* nbits = ceil(n * bits_per_key) rounded up to 512; k = round(bits_per_key * ln 2),
 * or `k` when non-zero. */
bool bench_classic_init(bench_classic *c, uint64_t n, double bits_per_key, unsigned k, uint64_t seed);
void bench_classic_free(bench_classic *c);
void bench_classic_add(const bench_classic *c, const uint64_t *keys, size_t n);
/* Number of keys that may be present. */
uint64_t bench_classic_contains(const bench_classic *c, const uint64_t *keys, size_t n);
/* The textbook FPR (1 - e^{-kn/m})^k. */
double bench_classic_formula(double bits_per_key, unsigned k);
unsigned bench_classic_best_k(double bits_per_key);

/* ---- libbloom (libbloom_ref.c) ---- */
/* NULL when libbloom was not found at configure time, or it refused the size. */
bool bench_libbloom_compiled(void);
void *bench_libbloom_create(uint64_t n, double bits_per_key);
void bench_libbloom_destroy(void *b);
void bench_libbloom_add(void *b, const uint64_t *keys, size_t n);
uint64_t bench_libbloom_contains(void *b, const uint64_t *keys, size_t n);
/* Its real geometry: hashes (k) and bits per key. */
unsigned bench_libbloom_k(void *b);
double bench_libbloom_bits_per_key(void *b, uint64_t n);

#endif
