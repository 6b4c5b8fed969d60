#ifndef BLOOMSIMD_XXH64_U64_AVX2_H
#define BLOOMSIMD_XXH64_U64_AVX2_H

/*
 * xxh64_u64_avx2.h — XXH64, seed 0, of 8-byte keys and of fixed-width views
 * of 4, 8 or 16 bytes for BLOOMSIMD_PARQUET filters: 4 keys per ymm and 4
 * more in general registers in each step. Included only by kernels/avx2.c
 * (compiled with -mavx2 alone): static.
 *
 * AVX2 has no 64-bit low multiply: a lane's x * C (C a constant) is three
 * vpmuludq, lo(x) lo(C) + ((hi(x) lo(C) + lo(x) hi(C)) << 32), and XXH64 of
 * an 8-byte key takes four such products, so 4 keys per ymm alone run at
 * 0.87x the portable loop (one imul per product). The general registers
 * leave the vector ports idle, and the vector code the imul port: both at
 * once win. Keys per step, ymm + general registers, u64 keys, ns/key and
 * portable / variant per round (median [p10 p90]), 301 paired rounds of
 * 1024 keys, Intel Xeon family 6 model 167, 2026-12-06:
 *     portable 1.46; 4+0 1.69 (0.87x); 8+0 1.65 (0.89x); 4+2 1.38 (1.06x);
 *     4+4 1.28 (1.13x [1.09 1.18]); 4+8 1.35 (1.08x); 8+8 1.29 (1.13x)
 * 4+4 ships. Rejected: the cross products by one vpmulld of the swapped
 * halves (2 uops on this core): 1.95 ns/key, 0.75x. docs/PARQUET.md has the
 * fixed-width figures. The keys in general registers and the tail use the
 * portable formulas of xxh64_u64.h, so every key hashes as libxxhash does.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xxh64_u64.h"

/* x * c in each 64-bit lane, modulo 2^64. */
static inline __m256i avx2_xxh64_mul(__m256i x, uint64_t c)
{
    const __m256i lo_c = _mm256_set1_epi64x((long long)c), hi_c = _mm256_set1_epi64x((long long)(c >> 32));
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), lo_c), _mm256_mul_epu32(x, hi_c));
    return _mm256_add_epi64(_mm256_mul_epu32(x, lo_c), _mm256_slli_epi64(cross, 32));
}

/* x * c for lanes below 2^32: two vpmuludq. */
static inline __m256i avx2_xxh64_mul32(__m256i x, uint64_t c)
{
    const __m256i lo_c = _mm256_set1_epi64x((long long)c), hi_c = _mm256_set1_epi64x((long long)(c >> 32));
    return _mm256_add_epi64(_mm256_mul_epu32(x, lo_c), _mm256_slli_epi64(_mm256_mul_epu32(x, hi_c), 32));
}

#define AVX2_XXH64_ROTL(x, r) _mm256_or_si256(_mm256_slli_epi64((x), (r)), _mm256_srli_epi64((x), 64 - (r)))

static inline __m256i avx2_xxh64_avalanche(__m256i acc)
{
    acc = avx2_xxh64_mul(_mm256_xor_si256(acc, _mm256_srli_epi64(acc, 33)), BLOOMSIMD_XXH64_P2);
    acc = avx2_xxh64_mul(_mm256_xor_si256(acc, _mm256_srli_epi64(acc, 29)), BLOOMSIMD_XXH64_P3);
    return _mm256_xor_si256(acc, _mm256_srli_epi64(acc, 32));
}

/* bloomsimd_xxh64_lane8, lane by lane */
static inline __m256i avx2_xxh64_lane8(__m256i acc, __m256i lane)
{
    __m256i k = avx2_xxh64_mul(AVX2_XXH64_ROTL(avx2_xxh64_mul(lane, BLOOMSIMD_XXH64_P2), 31), BLOOMSIMD_XXH64_P1);
    acc = _mm256_xor_si256(acc, k);
    return _mm256_add_epi64(avx2_xxh64_mul(AVX2_XXH64_ROTL(acc, 27), BLOOMSIMD_XXH64_P1),
                            _mm256_set1_epi64x((long long)BLOOMSIMD_XXH64_P4));
}

/* 4 keys of `width` (4, 8, 16) bytes stored back to back at p, hashed. */
static inline __m256i avx2_xxh64_four(const uint8_t *p, size_t width)
{
    __m256i acc = _mm256_set1_epi64x((long long)(BLOOMSIMD_XXH64_P5 + width));
    if (width == 4) {
        __m256i x = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)p));
        acc = _mm256_xor_si256(acc, avx2_xxh64_mul32(x, BLOOMSIMD_XXH64_P1));
        acc = _mm256_add_epi64(avx2_xxh64_mul(AVX2_XXH64_ROTL(acc, 23), BLOOMSIMD_XXH64_P2),
                               _mm256_set1_epi64x((long long)BLOOMSIMD_XXH64_P3));
        return avx2_xxh64_avalanche(acc);
    }
    if (width == 8) return avx2_xxh64_avalanche(avx2_xxh64_lane8(acc, _mm256_loadu_si256((const __m256i *)(const void *)p)));
    /* a = k0.lo k0.hi k1.lo k1.hi, b = k2.lo k2.hi k3.lo k3.hi: the unpacks give
     * the keys in the order k0 k2 k1 k3, which one permute puts back */
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    acc = avx2_xxh64_lane8(acc, _mm256_unpacklo_epi64(a, b));
    acc = avx2_xxh64_lane8(acc, _mm256_unpackhi_epi64(a, b));
    return _mm256_permute4x64_epi64(avx2_xxh64_avalanche(acc), 0xD8);
}

/* hashes[i] = XXH64 of keys[i]'s 8 little-endian bytes (the kernel's hash_u64_parquet). */
static void avx2_xxh64_u64(const uint64_t *keys, size_t n, uint64_t *hashes)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = avx2_xxh64_four((const uint8_t *)(keys + i), 8);
        for (size_t j = 4; j < 8; j++) hashes[i + j] = bloomsimd_xxh64_u64(keys[i + j]);
        _mm256_storeu_si256((__m256i *)(void *)(hashes + i), v);
    }
    for (; i < n; i++) hashes[i] = bloomsimd_xxh64_u64(keys[i]);
}

/* One width per loop, so each compiles to its straight-line path. */
#define AVX2_XXH64_FIXED(WIDTH)                                                                                    \
    static void avx2_xxh64_fixed##WIDTH(const uint8_t *data, size_t n, uint64_t *hashes)                           \
    {                                                                                                              \
        size_t i = 0;                                                                                              \
        for (; i + 8 <= n; i += 8) {                                                                               \
            __m256i v = avx2_xxh64_four(data + i * WIDTH, WIDTH);                                                  \
            for (size_t j = 4; j < 8; j++) hashes[i + j] = bloomsimd_xxh64_fixed(data + (i + j) * WIDTH, WIDTH);   \
            _mm256_storeu_si256((__m256i *)(void *)(hashes + i), v);                                               \
        }                                                                                                          \
        for (; i < n; i++) hashes[i] = bloomsimd_xxh64_fixed(data + i * WIDTH, WIDTH);                             \
    }
AVX2_XXH64_FIXED(4)
AVX2_XXH64_FIXED(8)
AVX2_XXH64_FIXED(16)

/* The kernel's hash_keys_parquet: fixed-width views of 4, 8 or 16 bytes;
 * false for any other view (the core's portable loop hashes those). */
static bool avx2_xxh64_keys(const bloomsimd_keys *v, size_t first, size_t count, uint64_t *hashes)
{
    if (v->layout != BLOOMSIMD_KEYS_FIXED || !v->data) return false;
    const uint8_t *at = (const uint8_t *)v->data + first * v->width;
    switch (v->width) {
    case 4: avx2_xxh64_fixed4(at, count, hashes); return true;
    case 8: avx2_xxh64_fixed8(at, count, hashes); return true;
    case 16: avx2_xxh64_fixed16(at, count, hashes); return true;
    default: return false;
    }
}

#endif
