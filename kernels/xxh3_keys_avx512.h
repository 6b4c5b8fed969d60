#ifndef BLOOMSIMD_XXH3_KEYS_AVX512_H
#define BLOOMSIMD_XXH3_KEYS_AVX512_H

/*
 * xxh3_keys_avx512.h — XXH3_64bits_withSeed over many byte keys at once,
 * 8 keys per zmm. Included only by kernels/avx512.c (compiled with the
 * AVX-512 flags); everything here is static.
 *
 * Keys are taken 8 at a time in order as (address, length) lanes; each
 * XXH3 length class present in the group (4..8, 9..16, 17..128, 129..240
 * bytes) is computed under its lane mask, reading the key's words with
 * masked gathers at the key's own addresses (a masked-off lane reads
 * nothing, and every read lies inside its key, as in the scalar code), and
 * the classes are blended; 0..3 bytes (a few byte loads) and > 240 bytes
 * (libxxhash, SIMD within the key) go one at a time.
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

/* Masked 64-bit loads at absolute addresses. */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_gather64(__mmask8 m, __m512i addr)
{
    return _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), m, addr, (const void *)0, 1);
}

static inline __attribute__((always_inline)) __m512i xxh3_avx512_mix16(__mmask8 m, __m512i addr, uint64_t key_lo,
                                                                       uint64_t key_hi)
{
    __m512i lo = xxh3_avx512_gather64(m, addr);
    __m512i hi = xxh3_avx512_gather64(m, _mm512_add_epi64(addr, _mm512_set1_epi64(8)));
    lo = _mm512_xor_si512(lo, _mm512_set1_epi64((long long)key_lo));
    hi = _mm512_xor_si512(hi, _mm512_set1_epi64((long long)key_hi));
    return xxh3_avx512_fold(lo, hi);
}

/* Hashes of 8 keys of one class (lanes outside m: garbage, never read). */
static inline __attribute__((always_inline)) __m512i xxh3_avx512_class(const bloomsimd_xxh3_params *p, int cls,
                                                                       __mmask8 m, __m512i addr, __m512i len)
{
    if (cls == XXH3_CLASS_4TO8) {
        __m256i first = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), m, addr, (const void *)0, 1);
        __m512i tail_addr = _mm512_sub_epi64(_mm512_add_epi64(addr, len), _mm512_set1_epi64(4));
        __m256i last = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), m, tail_addr, (const void *)0, 1);
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
        __m512i lo = xxh3_avx512_gather64(m, addr);
        __m512i hi = xxh3_avx512_gather64(m, _mm512_sub_epi64(_mm512_add_epi64(addr, len), _mm512_set1_epi64(8)));
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
