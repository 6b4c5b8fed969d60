#ifndef BLOOMSIMD_XXH3_KEYS_AVX512_H
#define BLOOMSIMD_XXH3_KEYS_AVX512_H

/*
 * xxh3_keys_avx512.h — XXH3_64bits_withSeed over many byte keys at once,
 * 8 keys per zmm. Included only by kernels/avx512.c (compiled with the
 * AVX-512 flags); everything here is static.
 *
 * Keys are taken 8 at a time in order as (address, length) lanes; each
 * XXH3 length class present in the group (4..8, 9..16, 17..128, 129..240
 * bytes) is computed under its lane mask, each lane loading the key's words
 * at the key's own address (a masked-off lane reads none of the keys, and
 * every read lies inside its key, as in the scalar code), and the classes
 * are blended; 0..3 bytes (a few byte loads) and > 240 bytes (libxxhash,
 * SIMD within the key) go one at a time. A group of 8 adjacent keys of one
 * width 8, 16, 32 or 64 (fixed width, most Arrow arrays of ids, UUIDs and
 * digests) is read with plain 64-byte loads and a transpose instead.
 * Measured figures and what was rejected: docs/kernels/xxh3-byte-keys.md.
 *
 * 64x64 -> 128-bit products (XXH3's fold) have no AVX-512 instruction; they
 * are four vpmuludq partial products, ~12 instructions per 8 lanes.
 */
#include <immintrin.h>

#include "xxh3_bytes.h"

/* Length classes of XXH3's paths. */
enum { XXH3_CLASS_4TO8, XXH3_CLASS_9TO16, XXH3_CLASS_17TO128, XXH3_CLASS_129TO240 };

static inline __attribute__((always_inline)) __m512i xxh3_avx512_fold(__m512i a, __m512i b)
{
    const __m512i low32 = _mm512_set1_epi64(0xffffffff);
    __m512i a_hi = _mm512_srli_epi64(a, 32), b_hi = _mm512_srli_epi64(b, 32);
    __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, b_hi);
    __m512i hl = _mm512_mul_epu32(a_hi, b), hh = _mm512_mul_epu32(a_hi, b_hi);
    /* cross = ll.hi + lh.lo + hl < 2^64: no carry is lost */
    __m512i cross = _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(ll, 32), _mm512_and_si512(lh, low32)), hl);
    __m512i high = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)), _mm512_srli_epi64(cross, 32));
    __m512i low = _mm512_mullo_epi64(a, b);
    return _mm512_xor_si512(low, high);
}

static inline __attribute__((always_inline)) __m512i xxh3_avx512_avalanche(__m512i h)
{
    h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 37));
    h = _mm512_mullo_epi64(h, _mm512_set1_epi64((long long)BLOOMSIMD_XXH3_AVALANCHE));
    return _mm512_xor_si512(h, _mm512_srli_epi64(h, 32));
}

/*
 * Lane loads: lane j reads its word at its own address, a masked-off lane
 * reads zeros from a static buffer instead (so it reads nothing of the
 * keys'). Written as 8 scalar/128-bit loads and inserts, not vpgather:
 * gathers are microcoded on AMD Zen 4/5 (on this Zen 5, 8 qwords by
 * vpgatherqq took 4.2 ns against 1.3 ns as loads and inserts, in one
 * process), and on Intel they cost about as many load uops as the inserts
 * do. Addresses reach the integer registers through one store to the stack.
 */
static const uint64_t xxh3_avx512_zeros[2] __attribute__((aligned(16)));

static inline __attribute__((always_inline)) void xxh3_avx512_lane_addresses(__mmask8 m, __m512i addr,
                                                                            const uint8_t *out[8])
{
    __m512i safe = _mm512_set1_epi64((long long)(uintptr_t)xxh3_avx512_zeros);
    _mm512_storeu_si512((void *)out, _mm512_mask_blend_epi64(m, safe, addr));
}

static inline __attribute__((always_inline)) __m128i xxh3_avx512_pair64(const uint8_t *a, const uint8_t *b)
{
    return _mm_insert_epi64(_mm_loadl_epi64((const __m128i *)(const void *)a), (long long)bloomsimd_read64(b), 1);
}

/* The 8-byte word at each lane's address. */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_gather64(__mmask8 m, __m512i addr)
{
    const uint8_t *at[8];
    xxh3_avx512_lane_addresses(m, addr, at);
    __m512i x = _mm512_castsi128_si512(xxh3_avx512_pair64(at[0], at[1]));
    x = _mm512_inserti64x2(x, xxh3_avx512_pair64(at[2], at[3]), 1);
    x = _mm512_inserti64x2(x, xxh3_avx512_pair64(at[4], at[5]), 2);
    return _mm512_inserti64x2(x, xxh3_avx512_pair64(at[6], at[7]), 3);
}

/* The 4-byte word at each lane's address. */
static inline __attribute__((always_inline)) __m256i xxh3_avx512_gather32(__mmask8 m, __m512i addr)
{
    const uint8_t *at[8];
    xxh3_avx512_lane_addresses(m, addr, at);
    __m128i lo = _mm_cvtsi32_si128((int)bloomsimd_read32(at[0]));
    lo = _mm_insert_epi32(lo, (int)bloomsimd_read32(at[1]), 1);
    lo = _mm_insert_epi32(lo, (int)bloomsimd_read32(at[2]), 2);
    lo = _mm_insert_epi32(lo, (int)bloomsimd_read32(at[3]), 3);
    __m128i hi = _mm_cvtsi32_si128((int)bloomsimd_read32(at[4]));
    hi = _mm_insert_epi32(hi, (int)bloomsimd_read32(at[5]), 1);
    hi = _mm_insert_epi32(hi, (int)bloomsimd_read32(at[6]), 2);
    hi = _mm_insert_epi32(hi, (int)bloomsimd_read32(at[7]), 3);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* The 16 bytes at each lane's address, as its low and high qwords: one
 * 128-bit load per lane, 4 lanes per register, then split. */
static inline __attribute__((always_inline)) void xxh3_avx512_gather128(__mmask8 m, __m512i addr, __m512i *lo,
                                                                        __m512i *hi)
{
    const uint8_t *at[8];
    xxh3_avx512_lane_addresses(m, addr, at);
    __m512i a = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)at[0]));
    a = _mm512_inserti64x2(a, _mm_loadu_si128((const __m128i *)(const void *)at[1]), 1);
    a = _mm512_inserti64x2(a, _mm_loadu_si128((const __m128i *)(const void *)at[2]), 2);
    a = _mm512_inserti64x2(a, _mm_loadu_si128((const __m128i *)(const void *)at[3]), 3);
    __m512i b = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)at[4]));
    b = _mm512_inserti64x2(b, _mm_loadu_si128((const __m128i *)(const void *)at[5]), 1);
    b = _mm512_inserti64x2(b, _mm_loadu_si128((const __m128i *)(const void *)at[6]), 2);
    b = _mm512_inserti64x2(b, _mm_loadu_si128((const __m128i *)(const void *)at[7]), 3);
    *lo = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
    *hi = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
}

static inline __attribute__((always_inline)) __m512i xxh3_avx512_mix16(__mmask8 m, __m512i addr, uint64_t key_lo,
                                                                       uint64_t key_hi)
{
    __m512i lo, hi;
    xxh3_avx512_gather128(m, addr, &lo, &hi);
    lo = _mm512_xor_si512(lo, _mm512_set1_epi64((long long)key_lo));
    hi = _mm512_xor_si512(hi, _mm512_set1_epi64((long long)key_hi));
    return xxh3_avx512_fold(lo, hi);
}

/* Hashes of 8 keys of one class (lanes outside m: garbage, never read). */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_class(const bloomsimd_xxh3_params *p, int cls,
                                                                       __mmask8 m, __m512i addr, __m512i len)
{
    if (cls == XXH3_CLASS_4TO8) {
        __m256i first = xxh3_avx512_gather32(m, addr);
        __m512i tail_addr = _mm512_sub_epi64(_mm512_add_epi64(addr, len), _mm512_set1_epi64(4));
        __m256i last = xxh3_avx512_gather32(m, tail_addr);
        __m512i x = _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(first), 32), _mm512_cvtepu32_epi64(last));
        __m512i h = _mm512_xor_si512(x, _mm512_set1_epi64((long long)p->flip4to8));
        h = _mm512_ternarylogic_epi64(h, _mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24), 0x96);
        const __m512i mx = _mm512_set1_epi64((long long)BLOOMSIMD_XXH3_RRMXMX);
        h = _mm512_mullo_epi64(h, mx);
        h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), len));
        h = _mm512_mullo_epi64(h, mx);
        return _mm512_xor_si512(h, _mm512_srli_epi64(h, 28));
    }
    if (cls == XXH3_CLASS_9TO16) {
        __m512i lo, hi;
        if (_mm512_mask_cmpneq_epu64_mask(m, len, _mm512_set1_epi64(16)) == 0) {
            /* all 16 bytes long (UUIDs, MD5s, 16-byte records): one 128-bit load per lane */
            xxh3_avx512_gather128(m, addr, &lo, &hi);
        } else {
            lo = xxh3_avx512_gather64(m, addr);
            hi = xxh3_avx512_gather64(m, _mm512_sub_epi64(_mm512_add_epi64(addr, len), _mm512_set1_epi64(8)));
        }
        lo = _mm512_xor_si512(lo, _mm512_set1_epi64((long long)p->flip9lo));
        hi = _mm512_xor_si512(hi, _mm512_set1_epi64((long long)p->flip9hi));
        const __m512i bswap = _mm512_set4_epi64(0x08090a0b0c0d0e0fLL, 0x0001020304050607LL, 0x08090a0b0c0d0e0fLL,
                                                0x0001020304050607LL);
        __m512i acc = _mm512_add_epi64(_mm512_add_epi64(len, _mm512_shuffle_epi8(lo, bswap)), hi);
        return xxh3_avx512_avalanche(_mm512_add_epi64(acc, xxh3_avx512_fold(lo, hi)));
    }
    __m512i acc = _mm512_mullo_epi64(len, _mm512_set1_epi64((long long)BLOOMSIMD_XXH3_PRIME64_1));
    __m512i end = _mm512_add_epi64(addr, len);
    if (cls == XXH3_CLASS_17TO128) {
        /* chunk pair r (r = 0..3) is read when len > 32 r: from the front at
         * 16 r and from the back at len - 16 (r + 1) */
        for (unsigned r = 0; r < 4; r++) {
            __mmask8 active = r == 0 ? m : (__mmask8)(m & _mm512_cmpgt_epu64_mask(len, _mm512_set1_epi64(32 * r)));
            if (!active) break;
            __m512i front = _mm512_add_epi64(addr, _mm512_set1_epi64(16 * r));
            __m512i back = _mm512_sub_epi64(end, _mm512_set1_epi64(16 * (r + 1)));
            __m512i sum = _mm512_add_epi64(xxh3_avx512_mix16(active, front, p->key_lo[2 * r], p->key_hi[2 * r]),
                                           xxh3_avx512_mix16(active, back, p->key_lo[2 * r + 1], p->key_hi[2 * r + 1]));
            acc = _mm512_mask_add_epi64(acc, active, acc, sum);
        }
        return xxh3_avx512_avalanche(acc);
    }
    /* 129..240 */
    for (unsigned i = 0; i < 8; i++)
        acc = _mm512_add_epi64(acc, xxh3_avx512_mix16(m, _mm512_add_epi64(addr, _mm512_set1_epi64(16 * i)),
                                                      p->key_lo[i], p->key_hi[i]));
    acc = xxh3_avx512_avalanche(acc);
    for (unsigned i = 8; i < 15; i++) { /* chunk i is read when len / 16 > i, i.e. len >= 16 (i + 1) */
        __mmask8 active = (__mmask8)(m & _mm512_cmpge_epu64_mask(len, _mm512_set1_epi64(16 * (i + 1))));
        if (!active) break;
        __m512i sum = xxh3_avx512_mix16(active, _mm512_add_epi64(addr, _mm512_set1_epi64(16 * i)), p->mid_lo[i - 8],
                                        p->mid_hi[i - 8]);
        acc = _mm512_mask_add_epi64(acc, active, acc, sum);
    }
    acc = _mm512_add_epi64(acc, xxh3_avx512_mix16(m, _mm512_sub_epi64(end, _mm512_set1_epi64(16)), p->last_lo,
                                                  p->last_hi));
    return xxh3_avx512_avalanche(acc);
}

/*
 * Groups of one width stored back to back (every group of the fixed-width
 * layout; an offsets group whose 8 lengths are equal, since offsets keys are
 * adjacent; pointers into one buffer): key j is at base + j w, so its words
 * come from plain 64-byte loads and a qword transpose instead of gathers.
 * Widths 8, 16, 32 and 64 (ids, UUIDs and 128-bit digests, 256-bit digests,
 * 64-byte records); the loads cover exactly the 8 w bytes of the group.
 * Measured here (Zen 5, 2^17 keys, one process): 8 B 0.29 ns/key against
 * 1.1 on the gather path, 16 B 0.50 vs 1.5, 32 B 1.0 vs 2.6, 64 B 1.4 vs 3.3
 * (an early version that kept the transpose in arrays spilled to the stack
 * and took 3.0 ns at 64 B).
 */

/* Qword q (0 = lo, 1 = hi) of 8 keys of 16 bytes, 4 keys per load a, b. */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_lane_words_w16(__m512i a, __m512i b, unsigned q)
{
    const __m512i idx = _mm512_add_epi64(_mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), _mm512_set1_epi64(q));
    return _mm512_permutex2var_epi64(a, idx, b);
}

#define XXH3_AVX512_LOAD64(j) _mm512_loadu_si512(base + 64 * (j))

/* 8 keys of 32 bytes (2 per 64-byte load): q[c] = qword c of keys 0..7.
 * One permute of two loads puts column c of 4 keys in the low half and
 * column c + 1 in the high half; a 256-bit lane shuffle joins keys 0..3 and 4..7. */
static inline __attribute__((always_inline)) void xxh3_avx512_transpose_w32(const uint8_t *base, __m512i q[4])
{
    const __m512i cols01 = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
    const __m512i cols23 = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
    __m512i r0 = XXH3_AVX512_LOAD64(0), r1 = XXH3_AVX512_LOAD64(1);
    __m512i r2 = XXH3_AVX512_LOAD64(2), r3 = XXH3_AVX512_LOAD64(3);
    __m512i a01 = _mm512_permutex2var_epi64(r0, cols01, r1), a23 = _mm512_permutex2var_epi64(r2, cols01, r3);
    __m512i b01 = _mm512_permutex2var_epi64(r0, cols23, r1), b23 = _mm512_permutex2var_epi64(r2, cols23, r3);
    q[0] = _mm512_shuffle_i64x2(a01, a23, 0x44); /* (a01.L0, a01.L1, a23.L0, a23.L1) */
    q[1] = _mm512_shuffle_i64x2(a01, a23, 0xee); /* (a01.L2, a01.L3, a23.L2, a23.L3) */
    q[2] = _mm512_shuffle_i64x2(b01, b23, 0x44);
    q[3] = _mm512_shuffle_i64x2(b01, b23, 0xee);
}

/*
 * 8 keys of 64 bytes, key j = 8 qwords loaded at base + 64 j: an 8x8 qword
 * transpose so that column c holds qword c of every key. Three stages of 8
 * shuffles: qword pairs (unpack), then 128-bit lanes twice (vshufi64x2).
 * Written out (no arrays) so that everything stays in registers.
 */
#define XXH3_AVX512_LANES_EVEN 0x88 /* (a.L0, a.L2, b.L0, b.L2) */
#define XXH3_AVX512_LANES_ODD 0xdd  /* (a.L1, a.L3, b.L1, b.L3) */
static inline __attribute__((always_inline)) void xxh3_avx512_transpose_w64(const uint8_t *base, __m512i q[8])
{
    /* t01 = r0[0] r1[0] | r0[2] r1[2] | ... ; t01h = the odd columns */
    __m512i r0 = XXH3_AVX512_LOAD64(0), r1 = XXH3_AVX512_LOAD64(1), r2 = XXH3_AVX512_LOAD64(2);
    __m512i r3 = XXH3_AVX512_LOAD64(3), r4 = XXH3_AVX512_LOAD64(4), r5 = XXH3_AVX512_LOAD64(5);
    __m512i r6 = XXH3_AVX512_LOAD64(6), r7 = XXH3_AVX512_LOAD64(7);
    __m512i t01 = _mm512_unpacklo_epi64(r0, r1), t01h = _mm512_unpackhi_epi64(r0, r1);
    __m512i t23 = _mm512_unpacklo_epi64(r2, r3), t23h = _mm512_unpackhi_epi64(r2, r3);
    __m512i t45 = _mm512_unpacklo_epi64(r4, r5), t45h = _mm512_unpackhi_epi64(r4, r5);
    __m512i t67 = _mm512_unpacklo_epi64(r6, r7), t67h = _mm512_unpackhi_epi64(r6, r7);
    /* u04 = (c0:keys 0,1 | c4:0,1 | c0:2,3 | c4:2,3), u26 = columns 2 and 6, u15, u37: odd */
    __m512i u04 = _mm512_shuffle_i64x2(t01, t23, XXH3_AVX512_LANES_EVEN);
    __m512i u26 = _mm512_shuffle_i64x2(t01, t23, XXH3_AVX512_LANES_ODD);
    __m512i u15 = _mm512_shuffle_i64x2(t01h, t23h, XXH3_AVX512_LANES_EVEN);
    __m512i u37 = _mm512_shuffle_i64x2(t01h, t23h, XXH3_AVX512_LANES_ODD);
    __m512i v04 = _mm512_shuffle_i64x2(t45, t67, XXH3_AVX512_LANES_EVEN); /* keys 4..7 */
    __m512i v26 = _mm512_shuffle_i64x2(t45, t67, XXH3_AVX512_LANES_ODD);
    __m512i v15 = _mm512_shuffle_i64x2(t45h, t67h, XXH3_AVX512_LANES_EVEN);
    __m512i v37 = _mm512_shuffle_i64x2(t45h, t67h, XXH3_AVX512_LANES_ODD);
    q[0] = _mm512_shuffle_i64x2(u04, v04, XXH3_AVX512_LANES_EVEN);
    q[4] = _mm512_shuffle_i64x2(u04, v04, XXH3_AVX512_LANES_ODD);
    q[2] = _mm512_shuffle_i64x2(u26, v26, XXH3_AVX512_LANES_EVEN);
    q[6] = _mm512_shuffle_i64x2(u26, v26, XXH3_AVX512_LANES_ODD);
    q[1] = _mm512_shuffle_i64x2(u15, v15, XXH3_AVX512_LANES_EVEN);
    q[5] = _mm512_shuffle_i64x2(u15, v15, XXH3_AVX512_LANES_ODD);
    q[3] = _mm512_shuffle_i64x2(u37, v37, XXH3_AVX512_LANES_EVEN);
    q[7] = _mm512_shuffle_i64x2(u37, v37, XXH3_AVX512_LANES_ODD);
}

static inline __attribute__((always_inline)) __m512i xxh3_avx512_mix16_words(__m512i lo, __m512i hi, uint64_t key_lo,
                                                                             uint64_t key_hi)
{
    return xxh3_avx512_fold(_mm512_xor_si512(lo, _mm512_set1_epi64((long long)key_lo)),
                            _mm512_xor_si512(hi, _mm512_set1_epi64((long long)key_hi)));
}

/* Hashes of 8 adjacent keys of width w (8, 16, 32 or 64) at base. */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_uniform(const bloomsimd_xxh3_params *p,
                                                                         const uint8_t *base, unsigned w)
{
    const __m512i len = _mm512_set1_epi64(w);
    if (w == 8) {
        /* x = LE32(k) << 32 | LE32(k + 4) is the key's LE64 rotated by 32 */
        __m512i h = _mm512_xor_si512(_mm512_rol_epi64(_mm512_loadu_si512(base), 32),
                                     _mm512_set1_epi64((long long)p->flip4to8));
        h = _mm512_ternarylogic_epi64(h, _mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24), 0x96);
        const __m512i mx = _mm512_set1_epi64((long long)BLOOMSIMD_XXH3_RRMXMX);
        h = _mm512_mullo_epi64(h, mx);
        h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), len));
        h = _mm512_mullo_epi64(h, mx);
        return _mm512_xor_si512(h, _mm512_srli_epi64(h, 28));
    }
    if (w == 16) {
        __m512i a = _mm512_loadu_si512(base), b = _mm512_loadu_si512(base + 64);
        __m512i lo = _mm512_xor_si512(xxh3_avx512_lane_words_w16(a, b, 0), _mm512_set1_epi64((long long)p->flip9lo));
        __m512i hi = _mm512_xor_si512(xxh3_avx512_lane_words_w16(a, b, 1), _mm512_set1_epi64((long long)p->flip9hi));
        const __m512i bswap = _mm512_set4_epi64(0x08090a0b0c0d0e0fLL, 0x0001020304050607LL, 0x08090a0b0c0d0e0fLL,
                                                0x0001020304050607LL);
        __m512i acc = _mm512_add_epi64(_mm512_add_epi64(len, _mm512_shuffle_epi8(lo, bswap)), hi);
        return xxh3_avx512_avalanche(_mm512_add_epi64(acc, xxh3_avx512_fold(lo, hi)));
    }
    __m512i acc = _mm512_set1_epi64((long long)(w * BLOOMSIMD_XXH3_PRIME64_1));
    if (w == 32) {
        __m512i q[4];
        xxh3_avx512_transpose_w32(base, q);
        /* 17..32: chunk 0 from the front, chunk 1 = the last 16 bytes */
        acc = _mm512_add_epi64(acc, xxh3_avx512_mix16_words(q[0], q[1], p->key_lo[0], p->key_hi[0]));
        acc = _mm512_add_epi64(acc, xxh3_avx512_mix16_words(q[2], q[3], p->key_lo[1], p->key_hi[1]));
        return xxh3_avx512_avalanche(acc);
    }
    /* 64: front chunks at 0 and 16 (secret chunks 0, 2), back chunks at 48 and 32 (1, 3) */
    __m512i q[8];
    xxh3_avx512_transpose_w64(base, q);
    acc = _mm512_add_epi64(acc, xxh3_avx512_mix16_words(q[0], q[1], p->key_lo[0], p->key_hi[0]));
    acc = _mm512_add_epi64(acc, xxh3_avx512_mix16_words(q[6], q[7], p->key_lo[1], p->key_hi[1]));
    acc = _mm512_add_epi64(acc, xxh3_avx512_mix16_words(q[2], q[3], p->key_lo[2], p->key_hi[2]));
    acc = _mm512_add_epi64(acc, xxh3_avx512_mix16_words(q[4], q[5], p->key_lo[3], p->key_hi[3]));
    return xxh3_avx512_avalanche(acc);
}

/* The group's first key if its 8 keys all have one width w in {8, 16, 32, 64}
 * and lie back to back (key j at key 0 + j w: always so in the offsets
 * layouts and the fixed layout, and for pointers into one buffer); else NULL. */
static inline __attribute__((always_inline)) const uint8_t *xxh3_avx512_adjacent(__m512i addr, __m512i len)
{
    const uint64_t w = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(len));
    if (w != 8 && w != 16 && w != 32 && w != 64) return NULL;
    const __m512i w_all = _mm512_set1_epi64((long long)w);
    const __m512i first = _mm512_permutexvar_epi64(_mm512_setzero_si512(), addr);
    const __m512i want = _mm512_add_epi64(first, _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), w_all));
    if ((_mm512_cmpeq_epi64_mask(len, w_all) & _mm512_cmpeq_epi64_mask(addr, want)) != 0xff) return NULL;
    return (const uint8_t *)(uintptr_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(addr));
}

/* xxh3_avx512_uniform with w a compile-time constant in each branch. */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_uniform_any(const bloomsimd_xxh3_params *p,
                                                                             const uint8_t *base, unsigned w)
{
    switch (w) {
    case 8: return xxh3_avx512_uniform(p, base, 8);
    case 16: return xxh3_avx512_uniform(p, base, 16);
    case 32: return xxh3_avx512_uniform(p, base, 32);
    default: return xxh3_avx512_uniform(p, base, 64);
    }
}

/* Addresses and lengths of keys i .. i+7 (lanes past `count` are zero-length
 * keys at address 0, which no class reads). */
static inline __attribute__((always_inline)) void xxh3_avx512_group(const bloomsimd_keys *v, size_t i, __mmask8 m,
                                                                    __m512i *addr, __m512i *len)
{
    switch (v->layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: {
        __m512i start = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, v->offsets32 + i));
        __m512i stop = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, v->offsets32 + i + 1));
        *len = _mm512_sub_epi64(stop, start);
        *addr = _mm512_maskz_add_epi64(m, _mm512_set1_epi64((long long)(uintptr_t)v->data), start);
        return;
    }
    case BLOOMSIMD_KEYS_OFFSETS64: {
        __m512i start = _mm512_maskz_loadu_epi64(m, v->offsets64 + i);
        __m512i stop = _mm512_maskz_loadu_epi64(m, v->offsets64 + i + 1);
        *len = _mm512_sub_epi64(stop, start);
        *addr = _mm512_maskz_add_epi64(m, _mm512_set1_epi64((long long)(uintptr_t)v->data), start);
        return;
    }
    case BLOOMSIMD_KEYS_FIXED: {
        __m512i width = _mm512_set1_epi64((long long)v->width);
        __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
        __m512i first = _mm512_set1_epi64((long long)((uintptr_t)v->data + i * v->width));
        *len = _mm512_maskz_mov_epi64(m, width);
        *addr = _mm512_maskz_add_epi64(m, first, _mm512_mullo_epi64(lane, width));
        return;
    }
    case BLOOMSIMD_KEYS_POINTERS:
    default:
        *addr = _mm512_maskz_loadu_epi64(m, (const void *)(v->pointers + i));
        *len = _mm512_maskz_loadu_epi64(m, v->lengths + i);
        return;
    }
}

/*
 * Loads scattered over 8 keys (vpgather, or the lane loads above) do not
 * train the hardware prefetchers the way a sequential stream does: on 2^17
 * keys of 200 bytes (26 MB, past the L3) the gather path took 78 ns/key here
 * against 12 for libxxhash one key at a time, and the lane loads 15. So the
 * bytes of the group XXH3_PREFETCH_GROUPS ahead are prefetched, every cache
 * line of each key: 9.6 ns/key (100-byte keys 6.8 -> 6.3, mixed 8..64 no
 * change).
 */
#define XXH3_PREFETCH_GROUPS 4

static inline __attribute__((always_inline)) void xxh3_avx512_prefetch_group(const bloomsimd_keys *v, size_t i)
{
    if (v->layout == BLOOMSIMD_KEYS_OFFSETS32 || v->layout == BLOOMSIMD_KEYS_OFFSETS64 ||
        v->layout == BLOOMSIMD_KEYS_FIXED) {
        /* the 8 keys are one span of the data */
        size_t len, last_len;
        const uint8_t *from = bloomsimd_keys_at(v, i, &len), *last = bloomsimd_keys_at(v, i + 7, &last_len);
        const uint8_t *to = last + last_len;
        for (const uint8_t *line = from; line < to; line += 64) _mm_prefetch((const char *)line, _MM_HINT_T0);
        if (to > from) _mm_prefetch((const char *)(to - 1), _MM_HINT_T0);
        return;
    }
    for (size_t j = i; j < i + 8; j++) {
        size_t len;
        const uint8_t *k = bloomsimd_keys_at(v, j, &len);
        for (size_t at = 0; at < len; at += 64) _mm_prefetch((const char *)(k + at), _MM_HINT_T0);
        if (len) _mm_prefetch((const char *)(k + len - 1), _MM_HINT_T0);
    }
}

/*
 * Keys stay in order, 8 per group; a group computes each length class
 * present in it under that class's lane mask (masked gathers read nothing
 * for other lanes) and blends the results. One class per group is the usual
 * case (fixed width, or lengths of one kind); a mixed 8..64-byte batch runs
 * 2-3 classes per group. Sorting keys into per-class lists first and
 * scattering the hashes back (a scalar pass) was measured at ~3 ns/key for
 * 8- and 16-byte keys against ~1.0-1.5 ns/key for this loop.
 */
static void avx512_hash_keys(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                             uint64_t *hashes)
{
    bloomsimd_keys view = *v;
    /* rebase the view so that key `first` is key 0 */
    switch (view.layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: view.offsets32 += first; break;
    case BLOOMSIMD_KEYS_OFFSETS64: view.offsets64 += first; break;
    case BLOOMSIMD_KEYS_FIXED: view.data = (const uint8_t *)view.data + first * view.width; break;
    case BLOOMSIMD_KEYS_POINTERS: view.pointers += first, view.lengths += first; break;
    }
    const __m512i four = _mm512_set1_epi64(4), nine = _mm512_set1_epi64(9), seventeen = _mm512_set1_epi64(17);
    const __m512i mid_min = _mm512_set1_epi64(129), mid_max = _mm512_set1_epi64(BLOOMSIMD_XXH3_MID_MAX);
    for (size_t i = 0; i < count; i += 8) {
        __mmask8 m = count - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (count - i)) - 1u);
        __m512i addr, len;
        xxh3_avx512_group(&view, i, m, &addr, &len);
        const uint8_t *base = m == 0xff ? xxh3_avx512_adjacent(addr, len) : NULL;
        if (base) { /* plain loads: the hardware prefetchers follow them */
            unsigned width = (unsigned)_mm_cvtsi128_si64(_mm512_castsi512_si128(len));
            _mm512_storeu_si512(hashes + i, xxh3_avx512_uniform_any(p, base, width));
            continue;
        }
        if (i + 8 * XXH3_PREFETCH_GROUPS + 8 <= count) xxh3_avx512_prefetch_group(&view, i + 8 * XXH3_PREFETCH_GROUPS);
        __mmask8 ge4 = _mm512_mask_cmpge_epu64_mask(m, len, four);
        __mmask8 ge9 = _mm512_mask_cmpge_epu64_mask(m, len, nine);
        __mmask8 ge17 = _mm512_mask_cmpge_epu64_mask(m, len, seventeen);
        __mmask8 ge129 = _mm512_mask_cmpge_epu64_mask(m, len, mid_min);
        __mmask8 le240 = _mm512_mask_cmple_epu64_mask(m, len, mid_max);
        __mmask8 c48 = ge4 & (__mmask8)~ge9, c916 = ge9 & (__mmask8)~ge17;
        __mmask8 c17 = ge17 & (__mmask8)~ge129, c129 = ge129 & le240;
        __m512i h = _mm512_setzero_si512();
        if (c916) h = _mm512_mask_mov_epi64(h, c916, xxh3_avx512_class(p, XXH3_CLASS_9TO16, c916, addr, len));
        if (c17) h = _mm512_mask_mov_epi64(h, c17, xxh3_avx512_class(p, XXH3_CLASS_17TO128, c17, addr, len));
        if (c48) h = _mm512_mask_mov_epi64(h, c48, xxh3_avx512_class(p, XXH3_CLASS_4TO8, c48, addr, len));
        if (c129) h = _mm512_mask_mov_epi64(h, c129, xxh3_avx512_class(p, XXH3_CLASS_129TO240, c129, addr, len));
        _mm512_mask_storeu_epi64(hashes + i, m, h);
        /* 0..3 and > 240 bytes: one at a time */
        for (unsigned rest = m & (unsigned)~(c48 | c916 | c17 | c129); rest; rest &= rest - 1) {
            size_t j = i + (size_t)__builtin_ctz(rest), key_len;
            const uint8_t *k = bloomsimd_keys_at(&view, j, &key_len);
            hashes[j] = bloomsimd_xxh3_key(p, k, key_len);
        }
    }
}

#endif /* BLOOMSIMD_XXH3_KEYS_AVX512_H */
