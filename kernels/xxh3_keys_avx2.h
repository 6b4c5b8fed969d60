#ifndef BLOOMSIMD_XXH3_KEYS_AVX2_H
#define BLOOMSIMD_XXH3_KEYS_AVX2_H

/*
 * xxh3_keys_avx2.h — XXH3_64bits_withSeed over many byte keys at once.
 * Included only by kernels/avx2.c (compiled with -mavx2), after its u64
 * hashing section: it reuses avx2_xxh3 (XXH3 of 8 LE bytes) and avx2_mul64.
 * Everything here is static.
 *
 * One shape is vectorised: runs of keys stored back to back with one width
 * w of 8 to 64 bytes: the whole batch of a fixed-width view; in an offsets
 * view, a run starts at 8 keys whose lengths, read from the offsets, all
 * equal w, and goes on while they do; in a pointers view, the same with
 * pointers into one buffer (key j at pointers[s] + (j - s) w). Key j of a
 * run is at base + j w, and its words are read where XXH3 reads them, all
 * inside the key: no gathers, no read outside the keys. XXH3's paths for
 * those widths (kernels/xxh3_bytes.h):
 *
 *   w = 8       the 4..8 path with both 32-bit reads covering the key:
 *               x = LE64(k) rotated by 32, rrmxmx(x ^ flip4to8, 8), i.e.
 *               avx2_xxh3 with flip4to8 as its bitflip (the u64 keys' hash);
 *               one 32-byte load per 4 keys
 *   w = 9..16   lo = the first 8 bytes, hi = the last 8; at 16, in-lane
 *               unpacks of two 32-byte loads per 4 keys, else qword loads
 *   w = 17..32  17..128, one chunk pair: mix16(k) + mix16(k + w - 16); the
 *               two chunks of a key as one 32-byte value (one load at 32)
 *   w = 33..64  two pairs: mix16(k), mix16(k + w - 16), mix16(k + 16),
 *               mix16(k + w - 32): the first and the last 32 bytes
 *
 * A run goes 6 keys per step: 4 in a ymm, 2 in general registers. AVX2 has
 * no 64-bit multiply, so a fold costs ~17 vector operations per 4 keys and
 * the vector units are the limit; the scalar keys (one mul and one imul
 * each) run beside them on the integer units (xxh3_avx2_run). The ymm alone
 * takes 1.3-1.4x the time at every width.
 *
 * Everything else (widths 0..7 and over 64, mixed lengths, scattered
 * pointers, the keys around a run) goes one key at a time through
 * bloomsimd_xxh3_key, the reference's code: 4 lanes of emulated 64-bit
 * multiplies per length class, with masked gathers, ran at 0.5-0.8x the
 * scalar loop (an earlier session, docs/kernels/xxh3-byte-keys.md).
 *
 * Measured (AMD Zen 5, family 26 model 2, 2026-12-03; bloomsimd_hash_keys,
 * 4096 keys per call, 400 paired rounds in one process, medians; spreads,
 * streamed figures and commands in docs/kernels/avx2.md "Byte keys"):
 * libxxhash per key / this kernel = 4.3x (8 B), 2.8x (12 B), 3.2x (16 B),
 * 2.5x (24 B), 2.8x (32 B), 2.3x (36 B), 2.4x (64 B) in a fixed-width view;
 * 3.2x, 2.2x, 2.4x, 2.1x, 2.3x, 2.0x, 2.1x in an Arrow offsets view (2^17
 * keys streamed: within 0.1x of these); 1.8x for 16-byte keys through
 * pointers into one buffer (validating the pointers costs ~0.3 ns/key);
 * 1.0x for mixed 8..64-byte lengths (the reference's speed).
 */
#include <immintrin.h>

#include "xxh3_bytes.h"

/*
 * fold(a, b) = low64(a b) ^ high64(a b) per 64-bit lane. AVX2 multiplies only
 * 32 x 32 -> 64 (vpmuludq, the low dwords of each lane). With a = ah 2^32 +
 * al and b = bh 2^32 + bl:
 *
 *     a b = hh 2^64 + (lh + hl) 2^32 + ll,   ll = al bl, lh = al bh, hl = ah bl, hh = ah bh
 *
 * cross = (ll >> 32) + low32(lh) + hl <= 2 (2^32 - 1) + (2^32 - 1)^2 = 2^64 - 1,
 * so no carry is lost; then
 *
 *     low64  = low32(cross) 2^32 + low32(ll)
 *     high64 = hh + (lh >> 32) + (cross >> 32)
 *
 * Four vpmuludq, ~13 other operations per 4 lanes.
 */
AVX2_INLINE __m256i xxh3_avx2_fold(__m256i a, __m256i b)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i a_hi = _mm256_srli_epi64(a, 32), b_hi = _mm256_srli_epi64(b, 32);
    __m256i ll = _mm256_mul_epu32(a, b), lh = _mm256_mul_epu32(a, b_hi);
    __m256i hl = _mm256_mul_epu32(a_hi, b), hh = _mm256_mul_epu32(a_hi, b_hi);
    __m256i cross = _mm256_add_epi64(_mm256_add_epi64(_mm256_srli_epi64(ll, 32), _mm256_blend_epi32(lh, zero, 0xaa)),
                                     hl);
    __m256i high = _mm256_add_epi64(_mm256_add_epi64(hh, _mm256_srli_epi64(lh, 32)), _mm256_srli_epi64(cross, 32));
    __m256i low = _mm256_blend_epi32(ll, _mm256_slli_epi64(cross, 32), 0xaa);
    return _mm256_xor_si256(low, high);
}

/* The seed's constants, as vectors, for one call. The mix16 keys come in
 * pairs, one per 128-bit half (xxh3_avx2_mix_pair): chunk j's keys in the
 * low half, chunk k's in the high half. */
typedef struct xxh3_avx2_consts {
    __m256i flip4to8, flip9lo, flip9hi;
    __m256i lo01, hi01; /* chunks 0 | 1: 32-byte keys */
    __m256i lo02, hi02; /* chunks 0 | 2: the first 32 bytes of a 64-byte key */
    __m256i lo31, hi31; /* chunks 3 | 1: the last 32 bytes of a 64-byte key */
} xxh3_avx2_consts;

AVX2_INLINE __m256i xxh3_avx2_halves(uint64_t low, uint64_t high)
{
    return _mm256_setr_epi64x((long long)low, (long long)low, (long long)high, (long long)high);
}

AVX2_INLINE xxh3_avx2_consts xxh3_avx2_consts_of(const bloomsimd_xxh3_params *p)
{
    xxh3_avx2_consts c;
    c.flip4to8 = _mm256_set1_epi64x((long long)p->flip4to8);
    c.flip9lo = _mm256_set1_epi64x((long long)p->flip9lo);
    c.flip9hi = _mm256_set1_epi64x((long long)p->flip9hi);
    c.lo01 = xxh3_avx2_halves(p->key_lo[0], p->key_lo[1]), c.hi01 = xxh3_avx2_halves(p->key_hi[0], p->key_hi[1]);
    c.lo02 = xxh3_avx2_halves(p->key_lo[0], p->key_lo[2]), c.hi02 = xxh3_avx2_halves(p->key_hi[0], p->key_hi[2]);
    c.lo31 = xxh3_avx2_halves(p->key_lo[3], p->key_lo[1]), c.hi31 = xxh3_avx2_halves(p->key_hi[3], p->key_hi[1]);
    return c;
}

/* avalanche3(h) = (h ^ h >> 37) * 0x165667919E3779F9, ^ >> 32. */
AVX2_INLINE __m256i xxh3_avx2_avalanche(__m256i h)
{
    const __m256i m_lo = _mm256_set1_epi64x((long long)(BLOOMSIMD_XXH3_AVALANCHE & 0xffffffffu));
    const __m256i m_hi = _mm256_set1_epi64x((long long)(BLOOMSIMD_XXH3_AVALANCHE >> 32));
    h = avx2_mul64(_mm256_xor_si256(h, _mm256_srli_epi64(h, 37)), m_lo, m_hi);
    return _mm256_xor_si256(h, _mm256_srli_epi64(h, 32));
}

AVX2_INLINE __m256i xxh3_avx2_load(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }

/*
 * mix16 of the two 16-byte chunks of two keys' 32 bytes a and b, without a
 * transpose: the in-lane unpacks give [a0 b0 | a2 b2] and [a1 b1 | a3 b3]
 * (qwords), i.e. the low and high qwords of chunk 0 of both keys in the low
 * 128 bits and of chunk 1 in the high 128 bits, so one fold with the keys
 * in halves (xxh3_avx2_consts) returns [a's mix16 of chunk 0, b's | a's of
 * chunk 1, b's]. Two vperm2i128 per 4 keys then add the halves
 * (xxh3_avx2_sum_halves), where a full 4x4 qword transpose costs four per
 * 32 bytes (5% slower at w = 32, 9% at w = 64, vector lanes alone).
 */
AVX2_INLINE __m256i xxh3_avx2_mix_pair(__m256i a, __m256i b, __m256i key_lo, __m256i key_hi)
{
    return xxh3_avx2_fold(_mm256_xor_si256(_mm256_unpacklo_epi64(a, b), key_lo),
                          _mm256_xor_si256(_mm256_unpackhi_epi64(a, b), key_hi));
}

/* [k0 k1 | k0' k1'] and [k2 k3 | k2' k3'] -> [k0+k0' k1+k1' k2+k2' k3+k3'] */
AVX2_INLINE __m256i xxh3_avx2_sum_halves(__m256i p01, __m256i p23)
{
    return _mm256_add_epi64(_mm256_permute2x128_si256(p01, p23, 0x20), _mm256_permute2x128_si256(p01, p23, 0x31));
}

/* 32 bytes: the first and the last 16 bytes of a key of w = 17..32 bytes
 * (one load when w = 32). */
AVX2_INLINE __m256i xxh3_avx2_ends(const uint8_t *k, const size_t w)
{
    if (w == 32) return xxh3_avx2_load(k);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)k)),
                                   _mm_loadu_si128((const __m128i *)(const void *)(k + w - 16)), 1);
}

/*
 * Hashes of the 4 adjacent keys of width w at base, by XXH3's path `path`:
 * 8 (w = 8), 16 (w = 9..16), 32 (17..32) or 64 (33..64); reads exactly
 * base[0 .. 4 w). w is a constant in the instantiations for 8, 16, 32 and
 * 64, where whole 32-byte loads and unpacks give the words; other widths
 * load each key's words where the path reads them (lane loads, no gathers).
 */
AVX2_INLINE __m256i xxh3_avx2_uniform4(const xxh3_avx2_consts *c, const uint8_t *base, const size_t w,
                                       const unsigned path)
{
    if (path == 8) return avx2_xxh3(xxh3_avx2_load(base), c->flip4to8);
    if (path == 16) {
        /* lo = the first 8 bytes, hi = the last 8; for w = 16 the unpacks of
         * (k0 k1) and (k2 k3) give lanes in key order 0 2 1 3, and the lane
         * loads use the same order, so one vpermq puts the hashes back */
        __m256i lo, hi;
        if (w == 16) {
            __m256i a = xxh3_avx2_load(base), b = xxh3_avx2_load(base + 32);
            lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);
        } else {
            const uint8_t *k0 = base, *k1 = base + w, *k2 = base + 2 * w, *k3 = base + 3 * w;
            lo = _mm256_setr_epi64x((long long)bloomsimd_read64(k0), (long long)bloomsimd_read64(k2),
                                    (long long)bloomsimd_read64(k1), (long long)bloomsimd_read64(k3));
            hi = _mm256_setr_epi64x((long long)bloomsimd_read64(k0 + w - 8), (long long)bloomsimd_read64(k2 + w - 8),
                                    (long long)bloomsimd_read64(k1 + w - 8), (long long)bloomsimd_read64(k3 + w - 8));
        }
        lo = _mm256_xor_si256(lo, c->flip9lo), hi = _mm256_xor_si256(hi, c->flip9hi);
        const __m256i bswap = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, /* */
                                               7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
        __m256i acc = _mm256_add_epi64(_mm256_add_epi64(_mm256_set1_epi64x((long long)w), _mm256_shuffle_epi8(lo, bswap)),
                                       hi);
        __m256i h = xxh3_avx2_avalanche(_mm256_add_epi64(acc, xxh3_avx2_fold(lo, hi)));
        return _mm256_permute4x64_epi64(h, 0xd8);
    }
    const __m256i acc = _mm256_set1_epi64x((long long)(w * BLOOMSIMD_XXH3_PRIME64_1));
    if (path == 32) {
        /* 17..32: chunk 0 from the front (secret chunk 0), chunk 1 = the last
         * 16 bytes (secret chunk 1) */
        __m256i p01 = xxh3_avx2_mix_pair(xxh3_avx2_ends(base, w), xxh3_avx2_ends(base + w, w), c->lo01, c->hi01);
        __m256i p23 =
            xxh3_avx2_mix_pair(xxh3_avx2_ends(base + 2 * w, w), xxh3_avx2_ends(base + 3 * w, w), c->lo01, c->hi01);
        return xxh3_avx2_avalanche(_mm256_add_epi64(acc, xxh3_avx2_sum_halves(p01, p23)));
    }
    /* 33..64: the first 32 bytes are chunks at 0 and 16 (secret chunks 0, 2),
     * the last 32 bytes chunks at w - 32 and w - 16 (3, 1) */
    const uint8_t *k0 = base, *k1 = base + w, *k2 = base + 2 * w, *k3 = base + 3 * w;
    __m256i p01 = _mm256_add_epi64(
        xxh3_avx2_mix_pair(xxh3_avx2_load(k0), xxh3_avx2_load(k1), c->lo02, c->hi02),
        xxh3_avx2_mix_pair(xxh3_avx2_load(k0 + w - 32), xxh3_avx2_load(k1 + w - 32), c->lo31, c->hi31));
    __m256i p23 = _mm256_add_epi64(
        xxh3_avx2_mix_pair(xxh3_avx2_load(k2), xxh3_avx2_load(k3), c->lo02, c->hi02),
        xxh3_avx2_mix_pair(xxh3_avx2_load(k2 + w - 32), xxh3_avx2_load(k3 + w - 32), c->lo31, c->hi31));
    return xxh3_avx2_avalanche(_mm256_add_epi64(acc, xxh3_avx2_sum_halves(p01, p23)));
}

/* The scalar constants of one call (a local copy: the hash stores could
 * alias the params, which would force a reload after each store). */
typedef struct xxh3_avx2_scalar {
    uint64_t flip4to8, flip9lo, flip9hi, key_lo[4], key_hi[4];
} xxh3_avx2_scalar;

AVX2_INLINE xxh3_avx2_scalar xxh3_avx2_scalar_of(const bloomsimd_xxh3_params *p)
{
    xxh3_avx2_scalar s = {p->flip4to8, p->flip9lo, p->flip9hi, {0}, {0}};
    for (unsigned j = 0; j < 4; j++) s.key_lo[j] = p->key_lo[j], s.key_hi[j] = p->key_hi[j];
    return s;
}

/* XXH3 of one key of width w in general registers, by the path `path` as
 * in xxh3_avx2_uniform4: the paths of xxh3_bytes.h with the length's class
 * a constant, so no branches. */
AVX2_INLINE uint64_t xxh3_avx2_scalar1(const xxh3_avx2_scalar *s, const uint8_t *k, const size_t w, const unsigned path)
{
    if (path == 8) return bloomsimd_xxh3_rrmxmx(bloomsimd_rotl64(bloomsimd_read64(k), 32) ^ s->flip4to8, 8);
    if (path == 16) {
        uint64_t lo = bloomsimd_read64(k) ^ s->flip9lo, hi = bloomsimd_read64(k + w - 8) ^ s->flip9hi;
        return bloomsimd_xxh3_avalanche(w + __builtin_bswap64(lo) + hi + bloomsimd_xxh3_fold(lo, hi));
    }
    uint64_t acc = w * BLOOMSIMD_XXH3_PRIME64_1;
    acc += bloomsimd_xxh3_mix16(k, s->key_lo[0], s->key_hi[0]);
    acc += bloomsimd_xxh3_mix16(k + w - 16, s->key_lo[1], s->key_hi[1]);
    if (path == 64) {
        acc += bloomsimd_xxh3_mix16(k + 16, s->key_lo[2], s->key_hi[2]);
        acc += bloomsimd_xxh3_mix16(k + w - 32, s->key_lo[3], s->key_hi[3]);
    }
    return bloomsimd_xxh3_avalanche(acc);
}

/* Keys per run step hashed in general registers beside the 4 in a ymm: 0-4
 * measured, 2 best or equal best at every width (0: 1.3-1.4x the time; 1, 3
 * and 4: up to 1.15x; docs/kernels/avx2.md). */
#ifndef BLOOMSIMD_AVX2_SCALAR_KEYS
#define BLOOMSIMD_AVX2_SCALAR_KEYS 2
#endif

/* n keys of width w stored back to back from base, by XXH3's path `path`. */
AVX2_INLINE void xxh3_avx2_run(const xxh3_avx2_consts *c, const xxh3_avx2_scalar *s, const uint8_t *base, size_t n,
                               const size_t w, const unsigned path, uint64_t *out)
{
    const size_t step = 4 + BLOOMSIMD_AVX2_SCALAR_KEYS;
    size_t i = 0;
    for (; i + step <= n; i += step) {
        _mm256_storeu_si256((__m256i *)(void *)(out + i), xxh3_avx2_uniform4(c, base + i * w, w, path));
        for (size_t j = 4; j < step; j++) out[i + j] = xxh3_avx2_scalar1(s, base + (i + j) * w, w, path);
    }
    for (; i < n; i++) out[i] = xxh3_avx2_scalar1(s, base + i * w, w, path);
}

/* One instantiation of the run per path, with the width a constant for 8,
 * 16, 32 and 64. */
static void xxh3_avx2_run_any(const bloomsimd_xxh3_params *p, const uint8_t *base, size_t n, size_t w, uint64_t *out)
{
    const xxh3_avx2_consts c = xxh3_avx2_consts_of(p);
    const xxh3_avx2_scalar s = xxh3_avx2_scalar_of(p);
    switch (w) {
    case 8: xxh3_avx2_run(&c, &s, base, n, 8, 8, out); return;
    case 16: xxh3_avx2_run(&c, &s, base, n, 16, 16, out); return;
    case 32: xxh3_avx2_run(&c, &s, base, n, 32, 32, out); return;
    case 64: xxh3_avx2_run(&c, &s, base, n, 64, 64, out); return;
    default:
        if (w <= 16) xxh3_avx2_run(&c, &s, base, n, w, 16, out);
        else if (w <= 32) xxh3_avx2_run(&c, &s, base, n, w, 32, out);
        else xxh3_avx2_run(&c, &s, base, n, w, 64, out);
        return;
    }
}

/* Widths hashed in runs: 8 and 9..64 (the 4..8 path below 8 bytes takes
 * two 32-bit reads, which xxh3_avx2_uniform4 does not do). */
static inline bool xxh3_avx2_vector_width(size_t w) { return w >= 8 && w <= 64; }

static inline size_t xxh3_avx2_offset(const bloomsimd_keys *v, size_t i)
{
    return v->layout == BLOOMSIMD_KEYS_OFFSETS32 ? (size_t)v->offsets32[i] : (size_t)v->offsets64[i];
}

/* The first byte of key i of an offsets or pointers view. */
static inline const uint8_t *xxh3_avx2_key_at(const bloomsimd_keys *v, size_t i)
{
    if (v->layout == BLOOMSIMD_KEYS_POINTERS) return (const uint8_t *)v->pointers[i];
    return (const uint8_t *)v->data + xxh3_avx2_offset(v, i);
}

/* Lanes of 4 pointers (as integers) equal to base + (0, 1, 2, 3) w. */
AVX2_INLINE __m256i xxh3_avx2_pointers_at(__m256i base, size_t w)
{
    return _mm256_add_epi64(base, _mm256_setr_epi64x(0, (long long)w, 2 * (long long)w, 3 * (long long)w));
}

/*
 * The width of keys i .. i+7 of an offsets or pointers view if they all have
 * one length w of 8..64 bytes and are back to back (key j at key i's
 * address + (j - i) w), else 0. In an offsets view equal lengths are back to
 * back; each length is checked, not only the span: 8 keys spanning 8 w bytes
 * can have other lengths. In a pointers view (pointers into one buffer) both
 * the lengths and the addresses are checked. This only says where a run is
 * worth starting: the run's end is found by checking every key after the
 * first again (xxh3_avx2_run_end), so the first key's length is all the
 * correctness rests on here.
 */
AVX2_INLINE unsigned xxh3_avx2_group_width(const bloomsimd_keys *v, size_t i)
{
    /* the first key's length first: one scalar test rejects every group
     * that starts with a length outside 8..64 */
    if (v->layout == BLOOMSIMD_KEYS_POINTERS) {
        const size_t w = v->lengths[i];
        if (!xxh3_avx2_vector_width(w)) return 0;
        const __m256i want = _mm256_set1_epi64x((long long)w);
        const __m256i at = xxh3_avx2_pointers_at(_mm256_set1_epi64x((long long)(uintptr_t)v->pointers[i]), w);
        __m256i same = _mm256_and_si256(_mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(v->lengths + i)), want),
                                        _mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(v->lengths + i + 4)), want));
        same = _mm256_and_si256(same, _mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(v->pointers + i)), at));
        same = _mm256_and_si256(same, _mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(v->pointers + i + 4)),
                                                         _mm256_add_epi64(at, _mm256_set1_epi64x(4 * (long long)w))));
        return _mm256_movemask_epi8(same) == -1 ? (unsigned)w : 0;
    }
    size_t w = xxh3_avx2_offset(v, i + 1) - xxh3_avx2_offset(v, i);
    if (!xxh3_avx2_vector_width(w)) return 0;
    if (v->layout == BLOOMSIMD_KEYS_OFFSETS32) {
        __m256i len = _mm256_sub_epi32(xxh3_avx2_load((const uint8_t *)(v->offsets32 + i + 1)),
                                       xxh3_avx2_load((const uint8_t *)(v->offsets32 + i)));
        __m256i same = _mm256_cmpeq_epi32(len, _mm256_set1_epi32((int)w));
        return _mm256_movemask_epi8(same) == -1 ? (unsigned)w : 0;
    }
    __m256i len_lo = _mm256_sub_epi64(xxh3_avx2_load((const uint8_t *)(v->offsets64 + i + 1)),
                                      xxh3_avx2_load((const uint8_t *)(v->offsets64 + i)));
    __m256i len_hi = _mm256_sub_epi64(xxh3_avx2_load((const uint8_t *)(v->offsets64 + i + 5)),
                                      xxh3_avx2_load((const uint8_t *)(v->offsets64 + i + 4)));
    __m256i want = _mm256_set1_epi64x((long long)w);
    __m256i same = _mm256_and_si256(_mm256_cmpeq_epi64(len_lo, want), _mm256_cmpeq_epi64(len_hi, want));
    return _mm256_movemask_epi8(same) == -1 ? (unsigned)w : 0;
}

/*
 * The same for a pointers view: keys s .. e-1 form a run iff each has length
 * w and lies at pointers[s] + (j - s) w; one compare of 4 lengths and one of
 * 4 addresses per 4 keys. (The addresses are compared as integers: equal
 * integers are the same bytes, so the run reads only the keys' own bytes.)
 */
AVX2_INLINE size_t xxh3_avx2_pointers_run_end(const bloomsimd_keys *v, size_t s, size_t stop, unsigned w)
{
    const uintptr_t base = (uintptr_t)v->pointers[s];
    const __m256i want = _mm256_set1_epi64x((long long)w), step = _mm256_set1_epi64x(4 * (long long)w);
    size_t j = s + 1;
    __m256i at = xxh3_avx2_pointers_at(_mm256_set1_epi64x((long long)(base + w)), w); /* keys s+1 .. s+4 */
    for (; j + 4 <= stop; j += 4, at = _mm256_add_epi64(at, step)) {
        __m256i same = _mm256_and_si256(_mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(v->lengths + j)), want),
                                        _mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(v->pointers + j)), at));
        unsigned ok = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(same));
        if (ok != 0xfu) return j + (size_t)__builtin_ctz(~ok);
    }
    for (; j < stop; j++)
        if (v->lengths[j] != w || (uintptr_t)v->pointers[j] != base + (j - s) * w) return j;
    return stop;
}

/*
 * The end (exclusive) of the run of keys of length w that starts at key s
 * (whose length is w), no further than key `stop`. Keys s .. e-1 all have
 * length w iff offsets[j] = offsets[s] + (j - s) w for j = s .. e: one
 * load and one compare per 8 keys (4 for offsets64), against an expected
 * vector that grows by 8 w. The 32-bit sums may wrap, but a wrapped value
 * lies below the previous offset, which a valid (non-decreasing) offsets
 * array never does, so the first mismatch is the first key of another length.
 */
AVX2_INLINE size_t xxh3_avx2_run_end(const bloomsimd_keys *v, size_t s, size_t stop, unsigned w)
{
    if (v->layout == BLOOMSIMD_KEYS_POINTERS) return xxh3_avx2_pointers_run_end(v, s, stop, w);
    size_t j = s + 1;
    if (v->layout == BLOOMSIMD_KEYS_OFFSETS32) {
        const uint32_t *off = v->offsets32;
        const __m256i lane = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8);
        __m256i want = _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)w)); /* offsets s+1 .. s+8 */
        want = _mm256_add_epi32(want, _mm256_set1_epi32((int)off[s]));
        const __m256i step = _mm256_set1_epi32((int)(8 * w));
        for (; j + 8 <= stop + 1; j += 8, want = _mm256_add_epi32(want, step)) {
            __m256i same = _mm256_cmpeq_epi32(xxh3_avx2_load((const uint8_t *)(off + j)), want);
            unsigned ok = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(same));
            if (ok != 0xffu) return j + (size_t)__builtin_ctz(~ok) - 1;
        }
        for (; j <= stop; j++)
            if (off[j] - off[j - 1] != w) return j - 1;
        return stop;
    }
    const uint64_t *off = v->offsets64;
    __m256i want = _mm256_add_epi64(_mm256_set1_epi64x((long long)off[s]),
                                    _mm256_setr_epi64x(w, 2 * (long long)w, 3 * (long long)w, 4 * (long long)w));
    const __m256i step = _mm256_set1_epi64x(4 * (long long)w);
    for (; j + 4 <= stop + 1; j += 4, want = _mm256_add_epi64(want, step)) {
        __m256i same = _mm256_cmpeq_epi64(xxh3_avx2_load((const uint8_t *)(off + j)), want);
        unsigned ok = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(same));
        if (ok != 0xfu) return j + (size_t)__builtin_ctz(~ok) - 1;
    }
    for (; j <= stop; j++)
        if (off[j] - off[j - 1] != w) return j - 1;
    return stop;
}

/*
 * An offsets or pointers view: look for 8 back-to-back keys of one width in
 * 8..64, extend them into a run (key by key: it may end anywhere), hash the
 * run, and the keys before it one at a time. Mixed lengths cost one group
 * check per 8 keys more than the per-key loop alone (1.02-1.03x the time on
 * mixed 8..64-byte keys), whose length branches are then not interleaved
 * with anything else (deciding group by group, a vector group or 8 keys one
 * at a time, measured 10-20% slower on mixed 8..64-byte keys). A uniform
 * batch costs one group check, then one load and compare per 8 keys
 * (checking each group as a group instead: up to 0.2 ns/key more).
 */
static void xxh3_avx2_runs(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                           uint64_t *hashes)
{
    const size_t stop = first + count;
    size_t i = first;
    while (i < stop) {
        size_t start = i;
        unsigned w = 0;
        while (start + 8 <= stop && !(w = xxh3_avx2_group_width(v, start))) start += 8;
        if (!w) start = stop;
        if (start > i) bloomsimd_hash_keys_by_layout(p, v, i, start - i, hashes + (i - first));
        if (!w) return;
        size_t end = xxh3_avx2_run_end(v, start, stop, w);
        xxh3_avx2_run_any(p, xxh3_avx2_key_at(v, start), end - start, w, hashes + (start - first));
        i = end;
    }
}

static void avx2_hash_keys(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                           uint64_t *hashes)
{
    switch (v->layout) {
    case BLOOMSIMD_KEYS_FIXED:
        if (xxh3_avx2_vector_width(v->width)) {
            xxh3_avx2_run_any(p, (const uint8_t *)v->data + first * v->width, count, (unsigned)v->width, hashes);
            return;
        }
        break;
    case BLOOMSIMD_KEYS_OFFSETS32:
    case BLOOMSIMD_KEYS_OFFSETS64:
    case BLOOMSIMD_KEYS_POINTERS: xxh3_avx2_runs(p, v, first, count, hashes); return;
    default: break;
    }
    bloomsimd_hash_keys_by_layout(p, v, first, count, hashes);
}

#endif /* BLOOMSIMD_XXH3_KEYS_AVX2_H */
