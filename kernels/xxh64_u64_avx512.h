#ifndef BLOOMSIMD_XXH64_U64_AVX512_H
#define BLOOMSIMD_XXH64_U64_AVX512_H

/*
 * xxh64_u64_avx512.h — XXH64, seed 0, of 8-byte keys, eight keys per zmm:
 * the hash of Parquet's INT64 / DOUBLE values (BLOOMSIMD_PARQUET filters).
 * Included only by kernels/avx512.c (compiled with AVX-512 F+DQ): static.
 *
 * XXH64 of an 8-byte input (xxHash's specification; the scalar reference is
 * bloomsimd_xxh64_u64 in src/internal.h, tested against libxxhash):
 *     acc = P5 + 8
 *     acc ^= rotl(key * P2, 31) * P1;   acc = rotl(acc, 27) * P1 + P4
 *     acc ^= acc >> 33; acc *= P2; acc ^= acc >> 29; acc *= P3; acc ^= acc >> 32
 * Four 64-bit multiplies: vpmullq (AVX-512 DQ) does them lane by lane, and
 * vprolq the rotations; the tail goes through the scalar formula.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t avx512_xxh64_one(uint64_t key)
{
    const uint64_t p1 = UINT64_C(0x9E3779B185EBCA87), p2 = UINT64_C(0xC2B2AE3D27D4EB4F),
                   p3 = UINT64_C(0x165667B19E3779F9), p4 = UINT64_C(0x85EBCA77C2B2AE63),
                   p5 = UINT64_C(0x27D4EB2F165667C5);
    uint64_t k = key * p2;
    k = ((k << 31) | (k >> 33)) * p1;
    uint64_t acc = (p5 + 8) ^ k;
    acc = ((acc << 27) | (acc >> 37)) * p1 + p4;
    acc ^= acc >> 33;
    acc *= p2;
    acc ^= acc >> 29;
    acc *= p3;
    return acc ^ (acc >> 32);
}

static void avx512_xxh64_u64(const uint64_t *keys, size_t n, uint64_t *hashes)
{
    const __m512i p1 = _mm512_set1_epi64((long long)UINT64_C(0x9E3779B185EBCA87));
    const __m512i p2 = _mm512_set1_epi64((long long)UINT64_C(0xC2B2AE3D27D4EB4F));
    const __m512i p3 = _mm512_set1_epi64((long long)UINT64_C(0x165667B19E3779F9));
    const __m512i p4 = _mm512_set1_epi64((long long)UINT64_C(0x85EBCA77C2B2AE63));
    const __m512i seed_acc = _mm512_set1_epi64((long long)(UINT64_C(0x27D4EB2F165667C5) + 8));
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
    for (; i < n; i++) hashes[i] = avx512_xxh64_one(keys[i]);
}

#endif
