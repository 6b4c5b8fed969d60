#ifndef BLOOMSIMD_XXH64_U64_H
#define BLOOMSIMD_XXH64_U64_H

/*
 * xxh64_u64.h — the scalar XXH64 of one 8-byte key (Parquet's hash of
 * INT64 / DOUBLE values), shared by the core and the kernels.
 */
#include <stdint.h>

#include "layout.h" /* bloomsimd_rotl64 */

/* XXH64, seed 0, of the 8 little-endian bytes of key: Parquet's hash of an
 * INT64 / DOUBLE value, inlined for the single-key calls. XXH64 of an 8-byte
 * input (xxHash's spec, "XXH64 algorithm", steps 1, 4 and 5):
 *     acc = seed + P5 + 8
 *     acc ^= rotl(key * P2, 31) * P1;   acc = rotl(acc, 27) * P1 + P4
 *     avalanche: acc ^= acc >> 33; acc *= P2; acc ^= acc >> 29; acc *= P3; acc ^= acc >> 32
 * tests/parquet/test_parquet_mode.c checks it against libxxhash's XXH64.
 * Portable C: the core inlines it in single-key calls, and vector kernels
 * (xxh64_u64_avx512.h) use it for the keys past their last full register. */
#define BLOOMSIMD_XXH64_P1 UINT64_C(0x9E3779B185EBCA87)
#define BLOOMSIMD_XXH64_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define BLOOMSIMD_XXH64_P3 UINT64_C(0x165667B19E3779F9)
#define BLOOMSIMD_XXH64_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define BLOOMSIMD_XXH64_P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t bloomsimd_xxh64_u64(uint64_t key)
{
    uint64_t acc = BLOOMSIMD_XXH64_P5 + 8;
    acc ^= bloomsimd_rotl64(key * BLOOMSIMD_XXH64_P2, 31) * BLOOMSIMD_XXH64_P1;
    acc = bloomsimd_rotl64(acc, 27) * BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P4;
    acc ^= acc >> 33;
    acc *= BLOOMSIMD_XXH64_P2;
    acc ^= acc >> 29;
    acc *= BLOOMSIMD_XXH64_P3;
    return acc ^ (acc >> 32);
}

#endif
