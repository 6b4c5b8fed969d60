#ifndef BLOOMSIMD_XXH3_KEYS_SSE42_H
#define BLOOMSIMD_XXH3_KEYS_SSE42_H

/*
 * xxh3_keys_sse42.h — XXH3_64bits_withSeed over many byte keys for the
 * sse42 kernel (its hash_keys entry). Included only by kernels/sse42.c,
 * compiled with -msse4.2; everything here is static.
 *
 * Keys go in groups of 8, in order. A group whose 8 keys are stored back to
 * back with one width w in {8, 16, 32, 64} (every group of the fixed-width
 * layout; an offsets group whose 8 lengths are all w, checked length by
 * length) is a "uniform" group: key j is at base + j w, its words come from
 * plain loads of exactly the group's 8 w bytes (no gathers, nothing outside
 * the keys), and its length class is known, so no per-key dispatch:
 *
 *   w = 8    x = LE64(k) rotated by 32 (= LE32(k) << 32 | LE32(k + 4)); rrmxmx(x ^ flip4to8, 8)
 *   w = 16   lo = LE64(k) ^ flip9lo, hi = LE64(k + 8) ^ flip9hi; avalanche3(16 + bswap(lo) + hi + fold(lo, hi))
 *   w = 32   avalanche3(32 P1 + mix16(k, S0) + mix16(k + 16, S1))
 *   w = 64   avalanche3(64 P1 + mix16(k, S0) + mix16(k + 48, S1) + mix16(k + 16, S2) + mix16(k + 32, S3))
 *
 * (kernels/xxh3_bytes.h gives the paths; S_j the seeded secret chunk j.)
 * Every other group, the last count % 8 keys, and the pointer layout go
 * key by key through bloomsimd_xxh3_key, the reference's per-key hash.
 *
 * Who does the arithmetic. SSE4.2 has no 64-bit lane multiply: a 64-bit
 * product mod 2^64 is three pmuludq, XXH3's fold (the 128-bit product's
 * halves xored) four pmuludq and ~14 shifts and adds, per 2 lanes, where
 * general registers need one imul or one mul. Two keys per xmm alone lose
 * to the same groups hashed in general registers, at every width; but the
 * vector units are otherwise idle here, so a uniform group hashes
 * SSE42_XXH3_VECTOR_KEYS(w) of its 8 keys two per xmm and the others in
 * general registers, in one loop body, and the out-of-order core runs both
 * at once. Time per key relative to the reference (this header compiled
 * once per split, entries called directly; fixed width, 2^14 keys in
 * calls of 1024, 1001 rounds in rotating order, median per-round ratio;
 * AMD Zen 5, gcc 12 -O3; spreads and offsets in the doc below):
 *
 *   keys in xmm, of 8          8 B     16 B    32 B    64 B
 *   0 (general registers)      0.68    0.74    0.74    0.82
 *   2                          0.57    0.64    0.67    0.82
 *   4                          0.48    0.61    0.71    0.80
 *   6                          0.61    0.78    0.92    1.08
 *   8 (two per xmm only)       0.78    0.97    1.13    1.31
 *
 * Hence 4 of 8 at 8 bytes, 2 of 8 at 16 bytes (4 within 0.03 of it: a
 * tie) and 32 bytes, and none at 64: a tie there, so the form with the
 * fewest instructions. 64-byte groups are thus the scalar paths specialised
 * for the width, not SIMD. More in docs/kernels/xxh3-byte-keys.md.
 */
#include <nmmintrin.h>

#include "xxh3_bytes.h"

#define SSE42_XXH3_GROUP 8u
/* Keys of a uniform group hashed two per xmm (even, <= 8); the rest run in
 * general registers. */
#define SSE42_XXH3_VECTOR_KEYS(w) ((w) == 8 ? 4u : (w) == 64 ? 0u : 2u)

#define SSE42_XXH3_INLINE static inline __attribute__((always_inline))

/* ---- two keys per xmm -------------------------------------------------------- */

/* a * b mod 2^64 per lane, b_hi = b >> 32: lo(a) lo(b) + (hi(a) lo(b) + lo(a) hi(b)) << 32. */
SSE42_XXH3_INLINE __m128i sse42_xxh3_mul64(__m128i a, __m128i b, __m128i b_hi)
{
    __m128i cross = _mm_add_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), b), _mm_mul_epu32(a, b_hi));
    return _mm_add_epi64(_mm_mul_epu32(a, b), _mm_slli_epi64(cross, 32));
}

/* low64 ^ high64 of the 128-bit a * b, from four 32 x 32 -> 64 partial
 * products: with ll, lh, hl, hh (l = low half, h = high half),
 *   cross = (ll >> 32) + lo32(lh) + hl       < 2^64 (three terms < 2^32, 2^32, (2^32 - 1)^2)
 *   low   = lo32(ll) | cross << 32
 *   high  = hh + (lh >> 32) + (cross >> 32). */
SSE42_XXH3_INLINE __m128i sse42_xxh3_fold(__m128i a, __m128i b)
{
    const __m128i low32 = _mm_set1_epi64x(0xffffffff);
    __m128i a_hi = _mm_srli_epi64(a, 32), b_hi = _mm_srli_epi64(b, 32);
    __m128i ll = _mm_mul_epu32(a, b), lh = _mm_mul_epu32(a, b_hi);
    __m128i hl = _mm_mul_epu32(a_hi, b), hh = _mm_mul_epu32(a_hi, b_hi);
    __m128i cross = _mm_add_epi64(_mm_add_epi64(_mm_srli_epi64(ll, 32), _mm_and_si128(lh, low32)), hl);
    __m128i high = _mm_add_epi64(_mm_add_epi64(hh, _mm_srli_epi64(lh, 32)), _mm_srli_epi64(cross, 32));
    __m128i low = _mm_or_si128(_mm_and_si128(ll, low32), _mm_slli_epi64(cross, 32));
    return _mm_xor_si128(low, high);
}

SSE42_XXH3_INLINE __m128i sse42_xxh3_avalanche(__m128i h)
{
    const __m128i m = _mm_set1_epi64x((long long)BLOOMSIMD_XXH3_AVALANCHE);
    const __m128i m_hi = _mm_set1_epi64x((long long)(BLOOMSIMD_XXH3_AVALANCHE >> 32));
    h = _mm_xor_si128(h, _mm_srli_epi64(h, 37));
    h = sse42_xxh3_mul64(h, m, m_hi);
    return _mm_xor_si128(h, _mm_srli_epi64(h, 32));
}

SSE42_XXH3_INLINE __m128i sse42_xxh3_rotl(__m128i h, int r)
{
    return _mm_or_si128(_mm_slli_epi64(h, r), _mm_srli_epi64(h, 64 - r));
}

/* mix16 of 16-byte chunk `at` of the keys at k and k + w: lanes (key 0, key 1). */
SSE42_XXH3_INLINE __m128i sse42_xxh3_mix16_pair(const uint8_t *k, unsigned w, unsigned at, uint64_t key_lo,
                                               uint64_t key_hi)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(k + at));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(k + w + at));
    __m128i lo = _mm_xor_si128(_mm_unpacklo_epi64(a, b), _mm_set1_epi64x((long long)key_lo));
    __m128i hi = _mm_xor_si128(_mm_unpackhi_epi64(a, b), _mm_set1_epi64x((long long)key_hi));
    return sse42_xxh3_fold(lo, hi);
}

/* The hashes of the two w-byte keys (w = 8, 16 or 32) at k and k + w. */
SSE42_XXH3_INLINE __m128i sse42_xxh3_pair(const bloomsimd_xxh3_params *q, const uint8_t *k, unsigned w)
{
    const __m128i len = _mm_set1_epi64x(w);
    if (w == 8) {
        /* pshufd 0xb1 swaps the dwords of each qword: the rotation by 32 */
        __m128i h = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)k), 0xb1);
        h = _mm_xor_si128(h, _mm_set1_epi64x((long long)q->flip4to8));
        h = _mm_xor_si128(h, _mm_xor_si128(sse42_xxh3_rotl(h, 49), sse42_xxh3_rotl(h, 24)));
        const __m128i m = _mm_set1_epi64x((long long)BLOOMSIMD_XXH3_RRMXMX);
        const __m128i m_hi = _mm_set1_epi64x((long long)(BLOOMSIMD_XXH3_RRMXMX >> 32));
        h = sse42_xxh3_mul64(h, m, m_hi);
        h = _mm_xor_si128(h, _mm_add_epi64(_mm_srli_epi64(h, 35), len));
        h = sse42_xxh3_mul64(h, m, m_hi);
        return _mm_xor_si128(h, _mm_srli_epi64(h, 28));
    }
    if (w == 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)k);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(k + 16));
        __m128i lo = _mm_xor_si128(_mm_unpacklo_epi64(a, b), _mm_set1_epi64x((long long)q->flip9lo));
        __m128i hi = _mm_xor_si128(_mm_unpackhi_epi64(a, b), _mm_set1_epi64x((long long)q->flip9hi));
        const __m128i bswap = _mm_set_epi64x(0x08090a0b0c0d0e0fLL, 0x0001020304050607LL);
        __m128i acc = _mm_add_epi64(_mm_add_epi64(len, _mm_shuffle_epi8(lo, bswap)), hi);
        return sse42_xxh3_avalanche(_mm_add_epi64(acc, sse42_xxh3_fold(lo, hi)));
    }
    /* 32 (64-byte keys run in general registers only: SSE42_XXH3_VECTOR_KEYS) */
    __m128i acc = _mm_set1_epi64x((long long)(32 * BLOOMSIMD_XXH3_PRIME64_1));
    acc = _mm_add_epi64(acc, sse42_xxh3_mix16_pair(k, 32, 0, q->key_lo[0], q->key_hi[0]));
    acc = _mm_add_epi64(acc, sse42_xxh3_mix16_pair(k, 32, 16, q->key_lo[1], q->key_hi[1]));
    return sse42_xxh3_avalanche(acc);
}

/* ---- groups ---------------------------------------------------------------------- */

/* The 8 hashes of a uniform group of width w at base. */
SSE42_XXH3_INLINE void sse42_xxh3_group(const bloomsimd_xxh3_params *q, const uint8_t *base, unsigned w,
                                        uint64_t *out)
{
    enum { G = SSE42_XXH3_GROUP };
    const unsigned nv = SSE42_XXH3_VECTOR_KEYS(w);
    __m128i vec[G / 2];
    uint64_t one[G];
    for (unsigned j = 0; j < nv; j += 2) vec[j / 2] = sse42_xxh3_pair(q, base + j * w, w);
    for (unsigned j = nv; j < G; j++) one[j] = bloomsimd_xxh3_of_width(q, base + j * w, w);
    for (unsigned j = 0; j < nv; j += 2) _mm_storeu_si128((__m128i *)(void *)(out + j), vec[j / 2]);
    for (unsigned j = nv; j < G; j++) out[j] = one[j];
}

/* Width of the 8 keys j .. j+7 of an offsets view if they all have the
 * first one's length, else 0 (a group of equal lengths is back to back). */
SSE42_XXH3_INLINE size_t sse42_xxh3_offsets32_width(const uint32_t *o)
{
    uint32_t w = o[1] - o[0];
    __m128i want = _mm_set1_epi32((int)w);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)o);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(o + 4));
    __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(o + 1));
    __m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(o + 5));
    __m128i eq = _mm_and_si128(_mm_cmpeq_epi32(_mm_sub_epi32(a1, a), want), _mm_cmpeq_epi32(_mm_sub_epi32(b1, b), want));
    return _mm_movemask_epi8(eq) == 0xffff ? w : 0;
}

SSE42_XXH3_INLINE size_t sse42_xxh3_offsets64_width(const uint64_t *o)
{
    uint64_t w = o[1] - o[0];
    __m128i want = _mm_set1_epi64x((long long)w), eq = _mm_set1_epi64x(-1);
    for (unsigned j = 0; j < SSE42_XXH3_GROUP; j += 2) {
        __m128i start = _mm_loadu_si128((const __m128i *)(const void *)(o + j));
        __m128i stop = _mm_loadu_si128((const __m128i *)(const void *)(o + j + 1));
        eq = _mm_and_si128(eq, _mm_cmpeq_epi64(_mm_sub_epi64(stop, start), want));
    }
    return _mm_movemask_epi8(eq) == 0xffff ? (size_t)w : 0;
}

/* The 8 hashes of a group of width w at k if w is 8, 16, 32 or 64; false
 * (nothing written) for any other width. */
SSE42_XXH3_INLINE bool sse42_xxh3_uniform(const bloomsimd_xxh3_params *q, const uint8_t *k, size_t w, uint64_t *out)
{
    switch (w) {
    case 8: sse42_xxh3_group(q, k, 8, out); return true;
    case 16: sse42_xxh3_group(q, k, 16, out); return true;
    case 32: sse42_xxh3_group(q, k, 32, out); return true;
    case 64: sse42_xxh3_group(q, k, 64, out); return true;
    default: return false;
    }
}

/*
 * Groups that are not uniform are left for bloomsimd_hash_keys_by_layout, which
 * hashes each run of them in one call (keys rest .. i-1) when the next
 * uniform group or the end is reached: on mixed lengths the loop is then the
 * reference's plus one length check per 8 keys.
 */
static void sse42_hash_keys(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                            uint64_t *hashes)
{
    /* a local copy: stores to hashes cannot alias it, so its constants stay in registers */
    const bloomsimd_xxh3_params q = *p;
    const uint8_t *data = (const uint8_t *)v->data; /* not NULL if a key is not empty (a validated view) */
    size_t rest = 0; /* keys rest .. i-1 are still to be hashed */
    for (size_t i = 0; i + SSE42_XXH3_GROUP <= count; i += SSE42_XXH3_GROUP) {
        size_t at = 0, w = 0;
        switch (v->layout) {
        case BLOOMSIMD_KEYS_FIXED: w = v->width, at = (first + i) * w; break;
        case BLOOMSIMD_KEYS_OFFSETS32: {
            const uint32_t *o = v->offsets32 + first + i; /* o[0 .. 8]: inside the view's n + 1 offsets */
            w = sse42_xxh3_offsets32_width(o), at = o[0];
            break;
        }
        case BLOOMSIMD_KEYS_OFFSETS64: {
            const uint64_t *o = v->offsets64 + first + i;
            w = sse42_xxh3_offsets64_width(o), at = (size_t)o[0];
            break;
        }
        case BLOOMSIMD_KEYS_POINTERS:
        default: break; /* keys anywhere: all through the reference */
        }
        if (w == 0 || !sse42_xxh3_uniform(&q, data + at, w, hashes + i)) continue;
        if (rest < i) bloomsimd_hash_keys_by_layout(&q, v, first + rest, i - rest, hashes + rest);
        rest = i + SSE42_XXH3_GROUP;
    }
    if (rest < count) bloomsimd_hash_keys_by_layout(&q, v, first + rest, count - rest, hashes + rest);
}

#endif /* BLOOMSIMD_XXH3_KEYS_SSE42_H */
