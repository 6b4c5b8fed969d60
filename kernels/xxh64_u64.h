#ifndef BLOOMSIMD_XXH64_U64_H
#define BLOOMSIMD_XXH64_U64_H

/*
 * xxh64_u64.h — the portable XXH64 (seed 0) of Parquet's split-block
 * filters, shared by the core and the kernels: one 8-byte key (INT64 /
 * DOUBLE values), fixed widths of 4, 8 and 16 bytes (INT32 / FLOAT values,
 * FIXED_LEN_BYTE_ARRAY(16) such as UUIDs) and byte strings of any length
 * (BYTE_ARRAY values), written from xxHash's specification ("XXH64
 * algorithm"); tests/parquet/test_parquet_mode.c checks every one against
 * libxxhash's XXH64 (lengths 0..512, long random ones, every alignment).
 * Portable C: the core inlines it in single-key calls and in the portable
 * loops, and the vector kernels (xxh64_u64_avx2.h, xxh64_u64_avx512.h) use
 * it for the keys past their last full register and for the keys they hand
 * to general registers.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "layout.h" /* bloomsimd_rotl64 */

#define BLOOMSIMD_XXH64_P1 UINT64_C(0x9E3779B185EBCA87)
#define BLOOMSIMD_XXH64_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define BLOOMSIMD_XXH64_P3 UINT64_C(0x165667B19E3779F9)
#define BLOOMSIMD_XXH64_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define BLOOMSIMD_XXH64_P5 UINT64_C(0x27D4EB2F165667C5)

/* XXH64's round: one 8-byte lane into an accumulator. */
static inline uint64_t bloomsimd_xxh64_round(uint64_t acc, uint64_t lane)
{
    return bloomsimd_rotl64(acc + lane * BLOOMSIMD_XXH64_P2, 31) * BLOOMSIMD_XXH64_P1;
}

/* One 8-byte lane of the tail (fewer than 32 bytes left). */
static inline uint64_t bloomsimd_xxh64_lane8(uint64_t acc, uint64_t lane)
{
    acc ^= bloomsimd_xxh64_round(0, lane);
    return bloomsimd_rotl64(acc, 27) * BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P4;
}

/* A 4-byte lane of the tail. */
static inline uint64_t bloomsimd_xxh64_lane4(uint64_t acc, uint32_t lane)
{
    acc ^= (uint64_t)lane * BLOOMSIMD_XXH64_P1;
    return bloomsimd_rotl64(acc, 23) * BLOOMSIMD_XXH64_P2 + BLOOMSIMD_XXH64_P3;
}

/* The avalanche (xxh3_bytes.h has the same steps as bloomsimd_xxh64_avalanche). */
static inline uint64_t bloomsimd_xxh64_finish(uint64_t acc)
{
    acc ^= acc >> 33;
    acc *= BLOOMSIMD_XXH64_P2;
    acc ^= acc >> 29;
    acc *= BLOOMSIMD_XXH64_P3;
    return acc ^ (acc >> 32);
}

/* XXH64, seed 0, of the 8 little-endian bytes of key: Parquet's hash of an
 * INT64 / DOUBLE value, inlined for the single-key calls. XXH64 of an 8-byte
 * input (steps 1, 4 and 5 of the specification):
 *     acc = seed + P5 + 8
 *     acc ^= rotl(key * P2, 31) * P1;   acc = rotl(acc, 27) * P1 + P4
 *     avalanche: acc ^= acc >> 33; acc *= P2; acc ^= acc >> 29; acc *= P3; acc ^= acc >> 32 */
static inline uint64_t bloomsimd_xxh64_u64(uint64_t key)
{
    return bloomsimd_xxh64_finish(bloomsimd_xxh64_lane8(BLOOMSIMD_XXH64_P5 + 8, key));
}

/* Little-endian loads, whatever the host. */
static inline uint64_t bloomsimd_xxh64_read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t bloomsimd_xxh64_read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* XXH64, seed 0, of a key of width 4, 8 or 16 (a constant where it is
 * inlined, so each width compiles to its straight-line path). */
static inline uint64_t bloomsimd_xxh64_fixed(const uint8_t *p, size_t width)
{
    uint64_t acc = BLOOMSIMD_XXH64_P5 + width;
    if (width == 4) return bloomsimd_xxh64_finish(bloomsimd_xxh64_lane4(acc, bloomsimd_xxh64_read32(p)));
    acc = bloomsimd_xxh64_lane8(acc, bloomsimd_xxh64_read64(p));
    if (width == 16) acc = bloomsimd_xxh64_lane8(acc, bloomsimd_xxh64_read64(p + 8));
    return bloomsimd_xxh64_finish(acc);
}

/* XXH64, seed 0, of len bytes at p (p may be NULL when len is 0):
 *     len >= 32: four accumulators P1 + P2, P2, 0, -P1 take 32-byte stripes
 *                (one round per 8-byte lane), then merge:
 *                acc = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
 *                acc = (acc ^ round(0, v_i)) * P1 + P4 for each v_i
 *     else       acc = P5
 *     acc += len; the rest as 8-byte lanes, one 4-byte lane, single bytes
 *     (acc ^= byte * P5; acc = rotl(acc, 11) * P1); the avalanche. */
static inline uint64_t bloomsimd_xxh64_bytes(const void *key, size_t len)
{
    const uint8_t *p = key;
    uint64_t acc;
    if (len >= 32) {
        uint64_t v1 = BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P2, v2 = BLOOMSIMD_XXH64_P2, v3 = 0,
                 v4 = 0 - BLOOMSIMD_XXH64_P1;
        const uint8_t *limit = p + len - 32;
        do {
            v1 = bloomsimd_xxh64_round(v1, bloomsimd_xxh64_read64(p));
            v2 = bloomsimd_xxh64_round(v2, bloomsimd_xxh64_read64(p + 8));
            v3 = bloomsimd_xxh64_round(v3, bloomsimd_xxh64_read64(p + 16));
            v4 = bloomsimd_xxh64_round(v4, bloomsimd_xxh64_read64(p + 24));
            p += 32;
        } while (p <= limit);
        acc = bloomsimd_rotl64(v1, 1) + bloomsimd_rotl64(v2, 7) + bloomsimd_rotl64(v3, 12) + bloomsimd_rotl64(v4, 18);
        acc = (acc ^ bloomsimd_xxh64_round(0, v1)) * BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P4;
        acc = (acc ^ bloomsimd_xxh64_round(0, v2)) * BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P4;
        acc = (acc ^ bloomsimd_xxh64_round(0, v3)) * BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P4;
        acc = (acc ^ bloomsimd_xxh64_round(0, v4)) * BLOOMSIMD_XXH64_P1 + BLOOMSIMD_XXH64_P4;
    } else {
        acc = BLOOMSIMD_XXH64_P5;
    }
    acc += (uint64_t)len;
    len &= 31;
    for (; len >= 8; len -= 8, p += 8) acc = bloomsimd_xxh64_lane8(acc, bloomsimd_xxh64_read64(p));
    if (len >= 4) {
        acc = bloomsimd_xxh64_lane4(acc, bloomsimd_xxh64_read32(p));
        p += 4, len -= 4;
    }
    for (; len > 0; len--, p++) {
        acc ^= (uint64_t)*p * BLOOMSIMD_XXH64_P5;
        acc = bloomsimd_rotl64(acc, 11) * BLOOMSIMD_XXH64_P1;
    }
    return bloomsimd_xxh64_finish(acc);
}

#endif
