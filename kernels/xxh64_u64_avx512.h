#ifndef BLOOMSIMD_XXH64_U64_AVX512_H
#define BLOOMSIMD_XXH64_U64_AVX512_H

/*
 * xxh64_u64_avx512.h — XXH64, seed 0, of 8-byte keys, eight keys per zmm:
 * the hash of Parquet's INT64 / DOUBLE values (BLOOMSIMD_PARQUET filters).
 * Included only by kernels/avx512.c (compiled with AVX-512 F+DQ): static.
 *
 * XXH64 of an 8-byte input (xxHash's specification; the scalar reference is
 * bloomsimd_xxh64_u64 in xxh64_u64.h, tested against libxxhash):
 *     acc = P5 + 8
 *     acc ^= rotl(key * P2, 31) * P1;   acc = rotl(acc, 27) * P1 + P4
 *     acc ^= acc >> 33; acc *= P2; acc ^= acc >> 29; acc *= P3; acc ^= acc >> 32
 * Four 64-bit multiplies: vpmullq (AVX-512 DQ) does them lane by lane, and
 * vprolq the rotations; the tail goes through the scalar formula.
 *
 * Rejected: byte keys of varying lengths (BYTE_ARRAY values through offsets
 * or pointers views) a key per lane, every step of a key under 32 bytes done
 * under a length mask (19 vpmullq per 8 keys, where a key in general
 * registers does only the steps its length needs): 0.2-0.6x the portable
 * loop, 0.6-0.9x even with the loads left out (docs/PARQUET.md). Those keys
 * go through the core's portable loop.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xxh64_u64.h"

static void avx512_xxh64_u64(const uint64_t *keys, size_t n, uint64_t *hashes)
{
    const __m512i p1 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P1);
    const __m512i p2 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P2);
    const __m512i p3 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P3);
    const __m512i p4 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P4);
    const __m512i seed_acc = _mm512_set1_epi64((long long)(BLOOMSIMD_XXH64_P5 + 8));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i k = _mm512_loadu_si512((const void *)(keys + i));
        k = _mm512_mullo_epi64(_mm512_rol_epi64(_mm512_mullo_epi64(k, p2), 31), p1);
        __m512i acc = _mm512_xor_si512(seed_acc, k);
        acc = _mm512_add_epi64(_mm512_mullo_epi64(_mm512_rol_epi64(acc, 27), p1), p4);
        acc = _mm512_mullo_epi64(_mm512_xor_si512(acc, _mm512_srli_epi64(acc, 33)), p2);
        acc = _mm512_mullo_epi64(_mm512_xor_si512(acc, _mm512_srli_epi64(acc, 29)), p3);
        acc = _mm512_xor_si512(acc, _mm512_srli_epi64(acc, 32));
        _mm512_storeu_si512((void *)(hashes + i), acc);
    }
    for (; i < n; i++) hashes[i] = bloomsimd_xxh64_u64(keys[i]);
}

/* The XXH64 avalanche, lane by lane. */
static inline __m512i avx512_xxh64_avalanche(__m512i acc)
{
    const __m512i p2 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P2);
    const __m512i p3 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P3);
    acc = _mm512_mullo_epi64(_mm512_xor_si512(acc, _mm512_srli_epi64(acc, 33)), p2);
    acc = _mm512_mullo_epi64(_mm512_xor_si512(acc, _mm512_srli_epi64(acc, 29)), p3);
    return _mm512_xor_si512(acc, _mm512_srli_epi64(acc, 32));
}

/* acc ^= round(0, lane); acc = rotl(acc, 27) * P1 + P4: one 8-byte stripe of the tail */
static inline __m512i avx512_xxh64_stripe8(__m512i acc, __m512i lane)
{
    const __m512i p1 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P1);
    const __m512i p2 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P2);
    const __m512i p4 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P4);
    __m512i k = _mm512_mullo_epi64(_mm512_rol_epi64(_mm512_mullo_epi64(lane, p2), 31), p1);
    acc = _mm512_xor_si512(acc, k);
    return _mm512_add_epi64(_mm512_mullo_epi64(_mm512_rol_epi64(acc, 27), p1), p4);
}

/* XXH64, seed 0, of n keys of `width` bytes stored back to back from data
 * (a fixed-width key view: Parquet's INT32 / FLOAT values at width 4, and
 * FIXED_LEN_BYTE_ARRAY(16) values such as UUIDs at 16), eight keys per
 * zmm: width 4 = one 4-byte step (acc ^= x * P1; rotl 23, * P2 + P3),
 * width 8 = one stripe, width 16 = two stripes (the lanes of two zmm loads
 * dealt into low and high halves by vpermt2q). False for any other width:
 * the caller hashes those keys one at a time. */
static bool avx512_xxh64_fixed(const uint8_t *data, size_t width, size_t n, uint64_t *hashes)
{
    if (width != 4 && width != 8 && width != 16) return false;
    const __m512i p1 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P1);
    const __m512i p2 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P2);
    const __m512i p3 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH64_P3);
    const __m512i start = _mm512_set1_epi64((long long)(BLOOMSIMD_XXH64_P5 + width));
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *at = data + i * width;
        __m512i acc;
        if (width == 4) {
            __m512i x = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)at));
            acc = _mm512_xor_si512(start, _mm512_mullo_epi64(x, p1));
            acc = _mm512_add_epi64(_mm512_mullo_epi64(_mm512_rol_epi64(acc, 23), p2), p3);
        } else if (width == 8) {
            acc = avx512_xxh64_stripe8(start, _mm512_loadu_si512((const void *)at));
        } else {
            __m512i a = _mm512_loadu_si512((const void *)at), b = _mm512_loadu_si512((const void *)(at + 64));
            acc = avx512_xxh64_stripe8(start, _mm512_permutex2var_epi64(a, even, b));
            acc = avx512_xxh64_stripe8(acc, _mm512_permutex2var_epi64(a, odd, b));
        }
        _mm512_storeu_si512((void *)(hashes + i), avx512_xxh64_avalanche(acc));
    }
    /* the tail: the same steps on one key, in a zmm lane */
    for (; i < n; i++) {
        const uint8_t *at = data + i * width;
        uint64_t lo = 0, hi = 0;
        memcpy(&lo, at, width < 8 ? width : 8);
        if (width == 16) memcpy(&hi, at + 8, 8);
        __m512i acc;
        if (width == 4) {
            acc = _mm512_xor_si512(start, _mm512_mullo_epi64(_mm512_set1_epi64((long long)lo), p1));
            acc = _mm512_add_epi64(_mm512_mullo_epi64(_mm512_rol_epi64(acc, 23), p2), p3);
        } else {
            acc = avx512_xxh64_stripe8(start, _mm512_set1_epi64((long long)lo));
            if (width == 16) acc = avx512_xxh64_stripe8(acc, _mm512_set1_epi64((long long)hi));
        }
        hashes[i] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(avx512_xxh64_avalanche(acc)));
    }
    return true;
}

#endif
