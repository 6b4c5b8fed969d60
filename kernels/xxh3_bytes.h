#ifndef BLOOMSIMD_XXH3_BYTES_H
#define BLOOMSIMD_XXH3_BYTES_H

/*
 * xxh3_bytes.h — XXH3_64bits_withSeed for byte keys, in portable C: the
 * reference every kernel's multi-key hashing must match bit for bit (and the
 * tail code SIMD kernels share). Written from the XXH3 specification
 * (xxHash's doc/xxhash_spec.md), not from its source; tests/test_hash_bytes.c
 * compares it with libxxhash for every length 0..512, random lengths up to
 * 64 KiB, several seeds and every alignment.
 *
 * XXH3 reads a key in one of six ways, by length; every read stays inside
 * the key (the 4..8 and 9..16 paths read overlapping words at both ends
 * instead of reading past the end):
 *
 *   0        avalanche64(seed ^ S[56..63] ^ S[64..71])
 *   1..3     c = k[0]<<16 | k[len/2]<<24 | k[len-1] | len<<8;
 *            avalanche64(c ^ ((S32[0] ^ S32[4]) + seed))
 *   4..8     x = LE32(k) << 32 | LE32(k+len-4);
 *            rrmxmx(x ^ ((S[8] ^ S[16]) - (seed ^ bswap32(seed) << 32)), len)
 *   9..16    lo = LE64(k) ^ ((S[24] ^ S[32]) + seed); hi = LE64(k+len-8) ^ ((S[40] ^ S[48]) - seed);
 *            avalanche3(len + bswap64(lo) + hi + fold(lo * hi))
 *   17..128  acc = len * P1 + sum of mix16(k + o, S + 16 j) over the 16-byte chunks o that the
 *            length class reads from both ends (2, 4, 6 or 8 chunks); avalanche3(acc)
 *   129..240 acc = avalanche3(len * P1 + sum_{i<8} mix16(k + 16i, S + 16i));
 *            acc += sum_{8<=i<len/16} mix16(k + 16i, S + 16(i-8) + 3) + mix16(k + len - 16, S + 119);
 *            avalanche3(acc)
 *   > 240    the long-input loop: libxxhash itself (it is SIMD within one key).
 *
 * where S is the 192-byte default secret, mix16(p, s) = fold((LE64(p) ^
 * (LE64(s) + seed)) * (LE64(p+8) ^ (LE64(s+8) - seed))), fold(128-bit x) =
 * low64 ^ high64, avalanche3(h) = ((h ^ h>>37) * 0x165667919E3779F9) ^ >>32.
 *
 * Everything that depends only on the seed (the "keys" LE64(s) +/- seed of
 * every chunk, the bitflips) is computed once per batch into
 * bloomsimd_xxh3_params, so a key costs only its loads and mixes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "../include/bloomsimd.h"

#define BLOOMSIMD_XXH3_PRIME64_1 UINT64_C(0x9E3779B185EBCA87)
#define BLOOMSIMD_XXH3_PRIME64_2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define BLOOMSIMD_XXH3_PRIME64_3 UINT64_C(0x165667B19E3779F9)
#define BLOOMSIMD_XXH3_AVALANCHE UINT64_C(0x165667919E3779F9)
#define BLOOMSIMD_XXH3_RRMXMX UINT64_C(0x9FB21C651E98DF25)

/* Longest key the short and mid paths handle; longer keys go to libxxhash. */
#define BLOOMSIMD_XXH3_MID_MAX 240u

/* The XXH3 default secret as 24 little-endian 64-bit words (192 bytes). */
#define BLOOMSIMD_XXH3_SECRET_WORDS                                                                                  \
    {UINT64_C(0xbe4ba423396cfeb8), UINT64_C(0x1cad21f72c81017c), UINT64_C(0xdb979083e96dd4de),                       \
     UINT64_C(0x1f67b3b7a4a44072), UINT64_C(0x78e5c0cc4ee679cb), UINT64_C(0x2172ffcc7dd05a82),                       \
     UINT64_C(0x8e2443f7744608b8), UINT64_C(0x4c263a81e69035e0), UINT64_C(0xcb00c391bb52283c),                       \
     UINT64_C(0xa32e531b8b65d088), UINT64_C(0x4ef90da297486471), UINT64_C(0xd8acdea946ef1938),                       \
     UINT64_C(0x3f349ce33f76faa8), UINT64_C(0x1d4f0bc7c7bbdcf9), UINT64_C(0x3159b4cd4be0518a),                       \
     UINT64_C(0x647378d9c97e9fc8), UINT64_C(0xc3ebd33483acc5ea), UINT64_C(0xeb6313faffa081c5),                       \
     UINT64_C(0x49daf0b751dd0d17), UINT64_C(0x9e68d429265516d3), UINT64_C(0xfca1477d58be162b),                       \
     UINT64_C(0xce31d07ad1b8f88f), UINT64_C(0x280416958f3acb45), UINT64_C(0x7e404bbbcafbd7af)}

/* Seed-dependent constants of every short and mid path (~300 bytes). */
typedef struct bloomsimd_xxh3_params {
    uint64_t seed;
    uint64_t flip0;    /* length 0 */
    uint64_t flip1to3; /* 1..3 */
    uint64_t flip4to8; /* 4..8 */
    uint64_t flip9lo, flip9hi; /* 9..16 */
    /* mix16 keys: key_lo[j] = LE64(S + 16j) + seed, key_hi[j] = LE64(S + 16j + 8) - seed,
     * j = 0..7 (17..240, first 8 chunks); mid_lo/mid_hi[j] at S + 16j + 3, j = 0..6
     * (129..240, chunks 8..14); last_lo/last_hi at S + 119 (129..240, the final chunk). */
    uint64_t key_lo[8], key_hi[8];
    uint64_t mid_lo[7], mid_hi[7];
    uint64_t last_lo, last_hi;
} bloomsimd_xxh3_params;

static inline uint64_t bloomsimd_read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v); /* little-endian hosts only (CMakeLists.txt refuses others) */
    return v;
}

static inline uint32_t bloomsimd_read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void bloomsimd_xxh3_params_init(bloomsimd_xxh3_params *p, uint64_t seed)
{
    static const uint64_t words[24] = BLOOMSIMD_XXH3_SECRET_WORDS;
    uint8_t secret[192];
    memcpy(secret, words, sizeof secret); /* LE host: the words are the bytes */
    p->seed = seed;
    p->flip0 = seed ^ (bloomsimd_read64(secret + 56) ^ bloomsimd_read64(secret + 64));
    p->flip1to3 = (uint64_t)(bloomsimd_read32(secret) ^ bloomsimd_read32(secret + 4)) + seed;
    uint32_t s32 = (uint32_t)seed;
    uint64_t swapped = (uint64_t)__builtin_bswap32(s32) << 32;
    p->flip4to8 = (bloomsimd_read64(secret + 8) ^ bloomsimd_read64(secret + 16)) - (seed ^ swapped);
    p->flip9lo = (bloomsimd_read64(secret + 24) ^ bloomsimd_read64(secret + 32)) + seed;
    p->flip9hi = (bloomsimd_read64(secret + 40) ^ bloomsimd_read64(secret + 48)) - seed;
    for (unsigned j = 0; j < 8; j++) {
        p->key_lo[j] = bloomsimd_read64(secret + 16 * j) + seed;
        p->key_hi[j] = bloomsimd_read64(secret + 16 * j + 8) - seed;
    }
    for (unsigned j = 0; j < 7; j++) {
        p->mid_lo[j] = bloomsimd_read64(secret + 16 * j + 3) + seed;
        p->mid_hi[j] = bloomsimd_read64(secret + 16 * j + 11) - seed;
    }
    p->last_lo = bloomsimd_read64(secret + 119) + seed;
    p->last_hi = bloomsimd_read64(secret + 127) - seed;
}

static inline uint64_t bloomsimd_xxh3_fold(uint64_t a, uint64_t b)
{
    unsigned __int128 product = (unsigned __int128)a * b;
    return (uint64_t)product ^ (uint64_t)(product >> 64);
}

static inline uint64_t bloomsimd_xxh64_avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= BLOOMSIMD_XXH3_PRIME64_2;
    h ^= h >> 29;
    h *= BLOOMSIMD_XXH3_PRIME64_3;
    return h ^ (h >> 32);
}

static inline uint64_t bloomsimd_xxh3_avalanche(uint64_t h)
{
    h ^= h >> 37;
    h *= BLOOMSIMD_XXH3_AVALANCHE;
    return h ^ (h >> 32);
}

static inline uint64_t bloomsimd_xxh3_rrmxmx(uint64_t h, uint64_t len)
{
    h ^= ((h << 49) | (h >> 15)) ^ ((h << 24) | (h >> 40));
    h *= BLOOMSIMD_XXH3_RRMXMX;
    h ^= (h >> 35) + len;
    h *= BLOOMSIMD_XXH3_RRMXMX;
    return h ^ (h >> 28);
}

static inline uint64_t bloomsimd_xxh3_mix16(const uint8_t *p, uint64_t key_lo, uint64_t key_hi)
{
    return bloomsimd_xxh3_fold(bloomsimd_read64(p) ^ key_lo, bloomsimd_read64(p + 8) ^ key_hi);
}

static inline uint64_t bloomsimd_xxh3_0to16(const bloomsimd_xxh3_params *p, const uint8_t *k, size_t len)
{
    if (len > 8) {
        uint64_t lo = bloomsimd_read64(k) ^ p->flip9lo;
        uint64_t hi = bloomsimd_read64(k + len - 8) ^ p->flip9hi;
        return bloomsimd_xxh3_avalanche(len + __builtin_bswap64(lo) + hi + bloomsimd_xxh3_fold(lo, hi));
    }
    if (len >= 4) {
        uint64_t x = ((uint64_t)bloomsimd_read32(k) << 32) + bloomsimd_read32(k + len - 4);
        return bloomsimd_xxh3_rrmxmx(x ^ p->flip4to8, len);
    }
    if (len > 0) {
        uint32_t c = ((uint32_t)k[0] << 16) | ((uint32_t)k[len >> 1] << 24) | k[len - 1] | ((uint32_t)len << 8);
        return bloomsimd_xxh64_avalanche((uint64_t)c ^ p->flip1to3);
    }
    return bloomsimd_xxh64_avalanche(p->flip0);
}

/* 17..128 bytes: chunk pairs from both ends, the outer pair always. */
static inline uint64_t bloomsimd_xxh3_17to128(const bloomsimd_xxh3_params *p, const uint8_t *k, size_t len)
{
    uint64_t acc = len * BLOOMSIMD_XXH3_PRIME64_1;
    if (len > 32) {
        if (len > 64) {
            if (len > 96) {
                acc += bloomsimd_xxh3_mix16(k + 48, p->key_lo[6], p->key_hi[6]);
                acc += bloomsimd_xxh3_mix16(k + len - 64, p->key_lo[7], p->key_hi[7]);
            }
            acc += bloomsimd_xxh3_mix16(k + 32, p->key_lo[4], p->key_hi[4]);
            acc += bloomsimd_xxh3_mix16(k + len - 48, p->key_lo[5], p->key_hi[5]);
        }
        acc += bloomsimd_xxh3_mix16(k + 16, p->key_lo[2], p->key_hi[2]);
        acc += bloomsimd_xxh3_mix16(k + len - 32, p->key_lo[3], p->key_hi[3]);
    }
    acc += bloomsimd_xxh3_mix16(k, p->key_lo[0], p->key_hi[0]);
    acc += bloomsimd_xxh3_mix16(k + len - 16, p->key_lo[1], p->key_hi[1]);
    return bloomsimd_xxh3_avalanche(acc);
}

static inline uint64_t bloomsimd_xxh3_129to240(const bloomsimd_xxh3_params *p, const uint8_t *k, size_t len)
{
    uint64_t acc = len * BLOOMSIMD_XXH3_PRIME64_1;
    for (unsigned i = 0; i < 8; i++) acc += bloomsimd_xxh3_mix16(k + 16 * i, p->key_lo[i], p->key_hi[i]);
    acc = bloomsimd_xxh3_avalanche(acc);
    unsigned rounds = (unsigned)(len / 16);
    for (unsigned i = 8; i < rounds; i++) acc += bloomsimd_xxh3_mix16(k + 16 * i, p->mid_lo[i - 8], p->mid_hi[i - 8]);
    acc += bloomsimd_xxh3_mix16(k + len - 16, p->last_lo, p->last_hi);
    return bloomsimd_xxh3_avalanche(acc);
}

/* XXH3_64bits_withSeed(k, len, p->seed) for any length. */
static inline uint64_t bloomsimd_xxh3_bytes(const bloomsimd_xxh3_params *p, const uint8_t *k, size_t len)
{
    if (len <= 16) return bloomsimd_xxh3_0to16(p, k, len);
    if (len <= 128) return bloomsimd_xxh3_17to128(p, k, len);
    if (len <= BLOOMSIMD_XXH3_MID_MAX) return bloomsimd_xxh3_129to240(p, k, len);
    return XXH3_64bits_withSeed(k, len, p->seed);
}

/* Key i of a validated view. */
static inline const uint8_t *bloomsimd_keys_at(const bloomsimd_keys *v, size_t i, size_t *len)
{
    const uint8_t *data = (const uint8_t *)v->data;
    switch (v->layout) {
    case BLOOMSIMD_KEYS_OFFSETS32:
        *len = v->offsets32[i + 1] - v->offsets32[i];
        return data + v->offsets32[i];
    case BLOOMSIMD_KEYS_OFFSETS64:
        *len = (size_t)(v->offsets64[i + 1] - v->offsets64[i]);
        return data + v->offsets64[i];
    case BLOOMSIMD_KEYS_FIXED:
        *len = v->width;
        return data + i * v->width;
    case BLOOMSIMD_KEYS_POINTERS:
    default:
        *len = v->lengths[i];
        return (const uint8_t *)v->pointers[i];
    }
}

/* XXH3 of one key of width w = 8, 16, 32 or 64, known where it is inlined
 * (the sse42 and neon kernels' general-register lanes of a uniform group):
 * the paths above without the length dispatch. At 8 bytes one 64-bit load
 * rotated by 32 is the 4..8 path's two 32-bit loads. */
static inline __attribute__((always_inline)) uint64_t bloomsimd_xxh3_of_width(const bloomsimd_xxh3_params *p,
                                                                               const uint8_t *k, unsigned w)
{
    if (w == 8) {
        uint64_t x = bloomsimd_read64(k);
        return bloomsimd_xxh3_rrmxmx(((x << 32) | (x >> 32)) ^ p->flip4to8, 8);
    }
    if (w == 16) return bloomsimd_xxh3_0to16(p, k, 16);
    return bloomsimd_xxh3_17to128(p, k, w);
}

/* XXH3 of one key, where an empty key may have a NULL pointer. */
static inline uint64_t bloomsimd_xxh3_key(const bloomsimd_xxh3_params *p, const uint8_t *k, size_t len)
{
    return len ? bloomsimd_xxh3_bytes(p, k, len) : bloomsimd_xxh64_avalanche(p->flip0);
}

/* The reference multi-key loop: one key at a time. */
static inline void bloomsimd_hash_keys_reference(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v,
                                                 size_t first, size_t count, uint64_t *hashes)
{
    for (size_t i = 0; i < count; i++) {
        size_t len;
        const uint8_t *k = bloomsimd_keys_at(v, first + i, &len);
        hashes[i] = bloomsimd_xxh3_key(p, k, len);
    }
}

/*
 * The same, with one loop per layout: the SIMD kernels hand it the keys their
 * vector paths do not take. The reference switches on the layout per key,
 * which measured 5-15% slower on avx2 (uniform 12..40-byte keys, mixed
 * 8..64-byte keys). flatten: with four loops gcc stopped inlining
 * bloomsimd_xxh3_key into three of them (a call per key, 5-10% slower).
 * noinline: the kernels' group loops stay small. Each kernel's file includes
 * this header, so each gets a copy compiled with its own target flags.
 */
__attribute__((flatten, noinline, unused)) static void
bloomsimd_hash_keys_by_layout(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                              uint64_t *hashes)
{
    const uint8_t *data = (const uint8_t *)v->data;
    switch (v->layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: {
        const uint32_t *off = v->offsets32 + first;
        for (size_t i = 0; i < count; i++) hashes[i] = bloomsimd_xxh3_key(p, data + off[i], off[i + 1] - off[i]);
        return;
    }
    case BLOOMSIMD_KEYS_OFFSETS64: {
        const uint64_t *off = v->offsets64 + first;
        for (size_t i = 0; i < count; i++)
            hashes[i] = bloomsimd_xxh3_key(p, data + off[i], (size_t)(off[i + 1] - off[i]));
        return;
    }
    case BLOOMSIMD_KEYS_FIXED: {
        const size_t w = v->width;
        for (size_t i = 0; i < count; i++) hashes[i] = bloomsimd_xxh3_key(p, data + (first + i) * w, w);
        return;
    }
    case BLOOMSIMD_KEYS_POINTERS:
    default: {
        const void *const *key = v->pointers + first;
        const size_t *len = v->lengths + first;
        for (size_t i = 0; i < count; i++) hashes[i] = bloomsimd_xxh3_key(p, (const uint8_t *)key[i], len[i]);
        return;
    }
    }
}

#endif /* BLOOMSIMD_XXH3_BYTES_H */
