/*
 * single_key_rules.c — what a 256-bit block's hash and bit rule cost one key
 * at a time, with nothing else in the loop.
 *
 * No library code: each variant is an inlined AVX2 lookup of one key in a
 * loop over 2^20 random absent keys, over the same bit array, so the loops
 * differ only in the hash and in how the 8 bit positions are made:
 *   xxh3+salt      XXH3 of the 8-byte key (hash 1); block from the top 32
 *                  bits, bits = (lo32 * salt_w) >> 27 (split256's rule:
 *                  broadcast, vpmulld, vpsrld, vpsllvd)
 *   mum+salt       hash 3 (BLOOMSIMD_U64_MUM), the same rule
 *   crc+salt       a candidate, not a hash id: lo ^ hi of the 128-bit
 *                  product (key ^ a) * (crc32c(key) ^ b), crc32c the
 *                  SSE4.2 instruction on the 8 bytes (passes the quality
 *                  gate: docs/kernels/hash-u64.md); the same rule
 *   mum+mul+shift  hash 3, then the peer's rule: b = h * M2, eight 5-bit
 *                  fields of b by shifts (vpsllvq, vpsrld, vpsllvd)
 *   fold+shift     hash 3 without its last multiply (the product's two
 *                  halves xored), the peer's rule; the block index then
 *                  comes from the bare product, which fails the hash
 *                  quality gate (tests/test_hash_quality.c: strides 2^47
 *                  and 2^48 overload blocks): a bound, not a candidate
 *   peer           the bench's split-block peer (bench/sbbf_avx2.c): one
 *                  multiply as the hash, the shift rule
 * All read one bit array of 10 bits per key, filled by the first variant's
 * rule (so only its hits are a filter's answers; no loop branches on an
 * answer, so the time per key does not depend on them).
 * Rounds are paired: each round runs every variant in an order that rotates
 * from round to round; thread CPU time; median ns/key and the ratio to the
 * peer's median.
 *   cc -O2 -mavx2 -mbmi2 -Iinclude bench/harness/single_key_rules.c -o /tmp/skr
 *   /tmp/skr ROUNDS SIZES          (e.g. 11 1e4,1e5,1e6,1e7)
 */
#define _GNU_SOURCE
#include <bloomsimd.h> /* only its inline hashes (compiled with -mavx2): no library call is made */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

__extension__ typedef unsigned __int128 u128;

typedef struct rules_filter {
    uint64_t *words; /* nblocks * 4 64-bit words */
    uint64_t nblocks;
    uint64_t a, b; /* the hash's seed words */
} rules_filter;

static rules_filter filter;

static const uint32_t salts[8] __attribute__((aligned(32))) = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                                                0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};
#define M_FOLD UINT64_C(0x9E3779B97F4A7C15)
#define M_BITS UINT64_C(0xF1357AEA2E62A9C5)

/* The header's inline hashes: XXH3 of the 8-byte key (hash 1) and mum (hash 3). */
#define hash_xxh3 bloomsimd_inline_xxh3_
#define hash_mum bloomsimd_inline_mum_

/* mum without its last multiply: the 128-bit product's halves xored */

static inline uint64_t hash_fold(uint64_t key, uint64_t a, uint64_t b)
{
    u128 p = (u128)(key ^ a) * (__builtin_bswap64(key) ^ b);
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* the candidate: one 64 x 64 -> 128 multiply whose operands both depend on the key */
static inline uint64_t hash_crc(uint64_t key, uint64_t a, uint64_t b)
{
    u128 p = (u128)(key ^ a) * (_mm_crc32_u64(0, key) ^ b);
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline __m256i bits_salt(uint32_t lo)
{
    __m256i product = _mm256_mullo_epi32(_mm256_set1_epi32((int)lo), _mm256_load_si256((const __m256i *)salts));
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(product, 27));
}

/* the top 5 bits of each 32-bit lane after lane pair j is shifted left by 5j */
static inline __m256i bits_shift(uint64_t b)
{
    __m256i v = _mm256_sllv_epi64(_mm256_set1_epi64x((long long)b), _mm256_setr_epi64x(0, 5, 10, 15));
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(v, 27));
}

static inline __m256i *block_of(const rules_filter *f, uint64_t h)
{
    return (__m256i *)(void *)(f->words + (((h >> 32) * f->nblocks) >> 32) * 4);
}

static inline int has(const rules_filter *f, uint64_t h, __m256i bits)
{
    return _mm256_testc_si256(_mm256_load_si256(block_of(f, h)), bits);
}

static inline int peer_has(const rules_filter *f, uint64_t key)
{
    u128 p = (u128)key * M_FOLD;
    uint64_t h = (uint64_t)p ^ (uint64_t)(p >> 64);
    const __m256i *block = (const __m256i *)(void *)(f->words + (uint64_t)(((u128)h * f->nblocks) >> 64) * 4);
    return _mm256_testc_si256(_mm256_load_si256(block), bits_shift(h * M_BITS));
}

#define VARIANT(name, EXPR)                                                                                           \
    static uint64_t name(const uint64_t *keys, size_t n)                                                            \
    {                                                                                                               \
        const rules_filter *f = &filter;                                                                            \
        uint64_t hits = 0;                                                                                          \
        for (size_t i = 0; i < n; i++) {                                                                            \
            const uint64_t key = keys[i];                                                                           \
            hits += (uint64_t)(EXPR);                                                                               \
        }                                                                                                           \
        return hits;                                                                                                \
    }

VARIANT(xxh3_salt, has(f, hash_xxh3(key, f->a), bits_salt((uint32_t)hash_xxh3(key, f->a))))
VARIANT(mum_salt, has(f, hash_mum(key, f->a, f->b), bits_salt((uint32_t)hash_mum(key, f->a, f->b))))
VARIANT(crc_salt, has(f, hash_crc(key, f->a, f->b), bits_salt((uint32_t)hash_crc(key, f->a, f->b))))
VARIANT(mum_mul_shift, has(f, hash_mum(key, f->a, f->b), bits_shift(hash_mum(key, f->a, f->b) * M_BITS)))
VARIANT(fold_shift, has(f, hash_fold(key, f->a, f->b), bits_shift(hash_fold(key, f->a, f->b) * M_BITS)))
VARIANT(peer, peer_has(f, key))

/* A filter of the library's default shape (split256, XXH3): the others read
 * the same bits through their own rule. */
static void insert(rules_filter *f, uint64_t key)
{
    const uint64_t h = hash_xxh3(key, f->a);
    __m256i *b = block_of(f, h);
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), bits_salt((uint32_t)h)));
}

enum { VARIANTS = 6, MAX_ROUNDS = 64 };

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 9;
    const char *sizes = argc > 2 ? argv[2] : "1e4,1e5,1e6,1e7";
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: %s [ROUNDS 1..%d] [SIZES]\n", argv[0], MAX_ROUNDS);
        return 2;
    }
    static const char *names[VARIANTS] = {"xxh3+salt", "mum+salt", "crc+salt", "mum+mul+shift", "fold+shift", "peer"};
    uint64_t (*const run[VARIANTS])(const uint64_t *, size_t) = {xxh3_salt,     mum_salt,   crc_salt,
                                                                 mum_mul_shift, fold_shift, peer};
    const size_t queries = (size_t)1 << 20;
    uint64_t *keys = malloc(queries * sizeof *keys), seed = 99;
    if (!keys) return 1;
    for (size_t i = 0; i < queries; i++) keys[i] = harness_splitmix(&seed);
    char list[256];
    snprintf(list, sizeof list, "%s", sizes);
    printf("ns/key of thread CPU time, median of %d paired rounds of 2^20 absent keys\n", rounds);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        const uint64_t n = (uint64_t)atof(tok);
        filter.nblocks = n * 10 / 256 + 1; /* 10 bits per key */
        filter.words = aligned_alloc(64, (size_t)filter.nblocks * 32 + 64);
        if (!filter.words) return 1;
        memset(filter.words, 0, (size_t)filter.nblocks * 32);
        filter.a = UINT64_C(0x1234567887654321), filter.b = UINT64_C(0x0fedcba987654321);
        uint64_t s = 7;
        for (uint64_t i = 0; i < n; i++) insert(&filter, harness_splitmix(&s));
        double t[VARIANTS][MAX_ROUNDS], median[VARIANTS];
        uint64_t hits[VARIANTS];
        for (int r = 0; r < rounds; r++)
            for (int j = 0; j < VARIANTS; j++) {
                const int v = (j + r) % VARIANTS;
                const double t0 = harness_cpu_seconds();
                hits[v] = run[v](keys, queries);
                t[v][r] = (harness_cpu_seconds() - t0) * 1e9 / (double)queries;
            }
        printf("n=%g (%llu blocks of 32 bytes)\n", (double)n, (unsigned long long)filter.nblocks);
        for (int v = 0; v < VARIANTS; v++) median[v] = harness_quantile(t[v], rounds, 0.5);
        for (int v = 0; v < VARIANTS; v++)
            printf("  %-14s %6.2f ns  %.2fx the peer  (hits %llu)\n", names[v], median[v], median[v] / median[VARIANTS - 1],
                   (unsigned long long)hits[v]);
        free(filter.words);
    }
    free(keys);
    return 0;
}
