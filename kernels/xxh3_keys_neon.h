#ifndef BLOOMSIMD_XXH3_KEYS_NEON_H
#define BLOOMSIMD_XXH3_KEYS_NEON_H

/*
 * xxh3_keys_neon.h — XXH3_64bits_withSeed over many byte keys for the neon
 * kernel (its hash_keys entry). Included only by kernels/neon.c, after its
 * hashing section: it uses neon_mul64 and neon_xxh3_x2 (hash_u64's two
 * 8-byte keys per register, which is exactly XXH3's 8-byte path) and the
 * NEON names neon.c sets up (native on AArch64, SIMDe on x86). Everything
 * here is static.
 *
 * The same structure as kernels/xxh3_keys_sse42.h, which gives the math:
 * keys in groups of 8; a group stored back to back with one width w in
 * {8, 16, 32, 64} (fixed-width layout, or an offsets group whose 8 lengths
 * are all w, checked length by length) is read with plain loads of exactly
 * its 8 w bytes and hashed without per-key dispatch; every other key goes
 * through bloomsimd_xxh3_key, the reference's per-key hash.
 *
 * Who does the arithmetic. NEON has no 64 x 64-bit lane multiply either:
 * a product mod 2^64 is neon_mul64 (three 32-bit multiplies), a fold (the
 * 128-bit product's halves xored) four UMULL and ~9 shifts and adds per 2
 * lanes, where a general register needs MUL, or MUL + UMULH. As in sse42,
 * NEON_XXH3_VECTOR_KEYS(w) keys of a uniform group run two per q-register
 * and the others in general registers, in one loop body, so that an
 * out-of-order core can run both at once; 64-byte groups run in general
 * registers only.
 *
 * That split is NOT measured on AArch64: no AArch64 machine is available
 * to this project, and SIMDe or qemu timings say nothing about a real core
 * (docs/kernels/neon.md). It is sse42's split, measured on x86, where the
 * same two-unit argument holds; it carries over only as far as a core has
 * vector multiply pipes that the integer code leaves idle. Dynamic AArch64
 * instructions per key (gcc 12 -O3; qemu-aarch64 -singlestep -d
 * exec,nochain, entries called directly; fixed width):
 *
 *                                 8 B     16 B    32 B    64 B
 *   reference                     40.0    40.0    53.0    74.0
 *   all in general registers      15.4    17.4    25.6    40.8
 *   shipped split                 17.0    19.9    28.0    40.6
 *   two per q-register only       17.8    23.8    33.9    61.9
 *
 * so the split costs 9-14% more instructions than general registers alone
 * at 8..32 bytes, and wins only if the vector pipes run them beside the
 * integer work. (2 of 8 in q-registers at 64 bytes: 53.0, a quarter more
 * than general registers alone; one reason 64 runs in general registers
 * here too.) Correctness is tested natively under qemu-aarch64 (the whole
 * suite: scripts/aarch64-check.sh) and through SIMDe on x86. Counts and
 * method: docs/kernels/xxh3-byte-keys.md.
 */
#include "xxh3_bytes.h"

#define NEON_XXH3_GROUP 8u
/* Keys of a uniform group hashed two per q-register (even, <= 8); the rest
 * run in general registers. */
#define NEON_XXH3_VECTOR_KEYS(w) ((w) == 8 ? 4u : (w) == 64 ? 0u : 2u)

/* ---- two keys per q-register ------------------------------------------------ */

/* low64 ^ high64 of the 128-bit a * b per lane, from four 32 x 32 -> 64
 * partial products (l = low half, h = high half):
 *   cross = hl + (ll >> 32) + lo32(lh)     < 2^64
 *   low   = lo32(ll) | cross << 32
 *   high  = hh + (lh >> 32) + (cross >> 32). */
NEON_INLINE uint64x2_t neon_xxh3_fold(uint64x2_t a, uint64x2_t b)
{
    uint32x2_t a_lo = vmovn_u64(a), a_hi = vshrn_n_u64(a, 32);
    uint32x2_t b_lo = vmovn_u64(b), b_hi = vshrn_n_u64(b, 32);
    uint64x2_t ll = vmull_u32(a_lo, b_lo), lh = vmull_u32(a_lo, b_hi);
    uint64x2_t hl = vmull_u32(a_hi, b_lo), hh = vmull_u32(a_hi, b_hi);
    uint64x2_t cross = vaddw_u32(vsraq_n_u64(hl, ll, 32), vmovn_u64(lh));
    uint64x2_t high = vsraq_n_u64(vsraq_n_u64(hh, lh, 32), cross, 32);
    uint64x2_t low = vorrq_u64(vshlq_n_u64(cross, 32), vandq_u64(ll, vdupq_n_u64(0xffffffffu)));
    return veorq_u64(low, high);
}

NEON_INLINE uint64x2_t neon_xxh3_avalanche(uint64x2_t h)
{
    const uint32x2_t m_lo = vdup_n_u32((uint32_t)BLOOMSIMD_XXH3_AVALANCHE);
    const uint32x2_t m_hi = vdup_n_u32((uint32_t)(BLOOMSIMD_XXH3_AVALANCHE >> 32));
    h = veorq_u64(h, vshrq_n_u64(h, 37));
    h = neon_mul64(h, m_lo, m_hi);
    return veorq_u64(h, vshrq_n_u64(h, 32));
}

NEON_INLINE uint64x2_t neon_xxh3_load(const uint8_t *k) { return vreinterpretq_u64_u8(vld1q_u8(k)); }

/* mix16 of 16-byte chunk `at` of the keys at k and k + w: lanes (key 0, key 1). */
NEON_INLINE uint64x2_t neon_xxh3_mix16_pair(const uint8_t *k, unsigned w, unsigned at, uint64_t key_lo,
                                            uint64_t key_hi)
{
    uint64x2_t a = neon_xxh3_load(k + at), b = neon_xxh3_load(k + w + at);
    uint64x2_t lo = veorq_u64(vzip1q_u64(a, b), vdupq_n_u64(key_lo));
    uint64x2_t hi = veorq_u64(vzip2q_u64(a, b), vdupq_n_u64(key_hi));
    return neon_xxh3_fold(lo, hi);
}

/* The hashes of the two w-byte keys (w = 8, 16 or 32) at k and k + w. */
NEON_INLINE uint64x2_t neon_xxh3_pair(const bloomsimd_xxh3_params *q, const neon_hash_consts *c8, const uint8_t *k,
                                      unsigned w)
{
    if (w == 8) return neon_xxh3_x2(neon_xxh3_load(k), c8);
    if (w == 16) {
        uint64x2_t a = neon_xxh3_load(k), b = neon_xxh3_load(k + 16);
        uint64x2_t lo = veorq_u64(vzip1q_u64(a, b), vdupq_n_u64(q->flip9lo));
        uint64x2_t hi = veorq_u64(vzip2q_u64(a, b), vdupq_n_u64(q->flip9hi));
        uint64x2_t swapped = vreinterpretq_u64_u8(vrev64q_u8(vreinterpretq_u8_u64(lo)));
        uint64x2_t acc = vaddq_u64(vaddq_u64(vdupq_n_u64(16), swapped), hi);
        return neon_xxh3_avalanche(vaddq_u64(acc, neon_xxh3_fold(lo, hi)));
    }
    /* 32 (64-byte keys run in general registers only: NEON_XXH3_VECTOR_KEYS) */
    uint64x2_t acc = vdupq_n_u64(32 * BLOOMSIMD_XXH3_PRIME64_1);
    acc = vaddq_u64(acc, neon_xxh3_mix16_pair(k, 32, 0, q->key_lo[0], q->key_hi[0]));
    acc = vaddq_u64(acc, neon_xxh3_mix16_pair(k, 32, 16, q->key_lo[1], q->key_hi[1]));
    return neon_xxh3_avalanche(acc);
}

/* ---- groups ---------------------------------------------------------------------- */

/* The 8 hashes of a uniform group of width w at base. */
NEON_INLINE void neon_xxh3_group(const bloomsimd_xxh3_params *q, const neon_hash_consts *c8, const uint8_t *base,
                                 unsigned w, uint64_t *out)
{
    enum { G = NEON_XXH3_GROUP };
    const unsigned nv = NEON_XXH3_VECTOR_KEYS(w);
    uint64x2_t vec[G / 2];
    uint64_t one[G];
    for (unsigned j = 0; j < nv; j += 2) vec[j / 2] = neon_xxh3_pair(q, c8, base + j * w, w);
    for (unsigned j = nv; j < G; j++) one[j] = bloomsimd_xxh3_of_width(q, base + j * w, w);
    for (unsigned j = 0; j < nv; j += 2) vst1q_u64(out + j, vec[j / 2]);
    for (unsigned j = nv; j < G; j++) out[j] = one[j];
}

/* Width of the 8 keys of an offsets view from o if they all have the first
 * one's length, else 0 (a group of equal lengths is back to back). */
NEON_INLINE size_t neon_xxh3_offsets32_width(const uint32_t *o)
{
    uint32_t w = o[1] - o[0];
    uint32x4_t want = vdupq_n_u32(w);
    uint32x4_t a = vld1q_u32(o), b = vld1q_u32(o + 4), a1 = vld1q_u32(o + 1), b1 = vld1q_u32(o + 5);
    uint32x4_t eq = vandq_u32(vceqq_u32(vsubq_u32(a1, a), want), vceqq_u32(vsubq_u32(b1, b), want));
    return vminvq_u32(eq) == UINT32_MAX ? w : 0;
}

NEON_INLINE size_t neon_xxh3_offsets64_width(const uint64_t *o)
{
    uint64_t w = o[1] - o[0];
    uint64x2_t want = vdupq_n_u64(w), eq = vdupq_n_u64(UINT64_MAX);
    for (unsigned j = 0; j < NEON_XXH3_GROUP; j += 2)
        eq = vandq_u64(eq, vceqq_u64(vsubq_u64(vld1q_u64(o + j + 1), vld1q_u64(o + j)), want));
    return vminvq_u32(vreinterpretq_u32_u64(eq)) == UINT32_MAX ? (size_t)w : 0;
}

/* The 8 hashes of a group of width w at k if w is 8, 16, 32 or 64; false
 * (nothing written) for any other width. */
NEON_INLINE bool neon_xxh3_uniform(const bloomsimd_xxh3_params *q, const neon_hash_consts *c8, const uint8_t *k,
                                   size_t w, uint64_t *out)
{
    switch (w) {
    case 8: neon_xxh3_group(q, c8, k, 8, out); return true;
    case 16: neon_xxh3_group(q, c8, k, 16, out); return true;
    case 32: neon_xxh3_group(q, c8, k, 32, out); return true;
    case 64: neon_xxh3_group(q, c8, k, 64, out); return true;
    default: return false;
    }
}

/* As sse42_hash_keys: runs of groups that are not uniform go to
 * bloomsimd_hash_keys_by_layout in one call each. */
static void neon_hash_keys(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                           uint64_t *hashes)
{
    /* a local copy: stores to hashes cannot alias it, so its constants stay in registers */
    const bloomsimd_xxh3_params q = *p;
    const neon_hash_consts c8 = neon_hash_setup(q.flip4to8); /* flip4to8 is hash_u64's bitflip */
    const uint8_t *data = (const uint8_t *)v->data; /* not NULL if a key is not empty (a validated view) */
    size_t rest = 0;                                /* keys rest .. i-1 are still to be hashed */
    for (size_t i = 0; i + NEON_XXH3_GROUP <= count; i += NEON_XXH3_GROUP) {
        size_t at = 0, w = 0;
        switch (v->layout) {
        case BLOOMSIMD_KEYS_FIXED: w = v->width, at = (first + i) * w; break;
        case BLOOMSIMD_KEYS_OFFSETS32: {
            const uint32_t *o = v->offsets32 + first + i; /* o[0 .. 8]: inside the view's n + 1 offsets */
            w = neon_xxh3_offsets32_width(o), at = o[0];
            break;
        }
        case BLOOMSIMD_KEYS_OFFSETS64: {
            const uint64_t *o = v->offsets64 + first + i;
            w = neon_xxh3_offsets64_width(o), at = (size_t)o[0];
            break;
        }
        case BLOOMSIMD_KEYS_POINTERS:
        default: break; /* keys anywhere: all one by one */
        }
        if (w == 0 || !neon_xxh3_uniform(&q, &c8, data + at, w, hashes + i)) continue;
        if (rest < i) bloomsimd_hash_keys_by_layout(&q, v, first + rest, i - rest, hashes + rest);
        rest = i + NEON_XXH3_GROUP;
    }
    if (rest < count) bloomsimd_hash_keys_by_layout(&q, v, first + rest, count - rest, hashes + rest);
}

#endif /* BLOOMSIMD_XXH3_KEYS_NEON_H */
