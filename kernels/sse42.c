/*
 * sse42.c — the SSE4.2 kernel: kernels/layout.h with 128-bit vectors.
 *
 * A block is four xmm registers (4 x 4 words). Per key, the 16 bit positions
 * come from four pmulld of lo by the salts, the bit index b = x >> 27 is
 * turned into 1u << b without a variable shift (see sse42_pow2_masked), and
 * the k-of-16 word selection is folded into that conversion.
 *
 * Hashing: XXH3's 64x64 multiplies are emulated with three pmuludq per
 * 64-bit lane (2 keys per register). It beats scalar, barely: hash_u64 of
 * 10^5 keys took 1.45 ns/key vs 1.85 for the inlined scalar formula
 * (bloomsimd_xxh3_u64, two imul) and 5.0 for a loop calling libxxhash's
 * XXH3_64bits_withSeed (median of 9, same run). The fused paths therefore
 * hash with SSE too: a variant hashing each pair with scalar imul measured
 * 9.1 vs 8.9 ns/key (10^5 keys) and 16.6-17.1 vs 14.8-16.8 (10^8 keys).
 *
 * Concurrent filters (g->concurrent): inserts use one relaxed lock-or per
 * non-zero 64-bit word, lookups read the block with relaxed 64-bit atomic
 * loads. Cost at 10^8 keys: insert 40.6 vs 17.3 ns/key (2.4x: each locked
 * op drains the store buffer, serialising the misses), lookup unchanged
 * (16.7 vs 15.4, noise).
 *
 * Batches are pipelined for memory-level parallelism: keys are hashed and
 * their blocks prefetched SSE42_AHEAD keys before they are probed.
 */
#include <nmmintrin.h> /* SSE4.2 and everything below it, nothing newer */

#include "layout.h"

/*
 * Keys probed per pipeline step, and how many keys ahead a block is hashed
 * and prefetched. Needed: DRAM latency / time per key lines in flight, i.e.
 * ~100 ns (assumed) / ~4.5 ns (ANCHORS.md ceiling) ~ 22 on an idle Zen 5,
 * plus one group of slack.
 * Measured (10^8 keys, 125 MB filter, k=7, contains_u64 of 10^7 absent keys,
 * ns/key, thread CPU time, median of 5/7/7 reps in three runs on a 2-CPU VM
 * at load 7-12, so the ceiling itself read 13-15 instead of ~5):
 *     AHEAD     8     16     32     48     64     96    128    256
 *     run 1  18.5   16.4   16.4   15.6   14.8   15.6   16.6   16.4
 *     run 2     -   15.7   16.6   16.2   16.8   16.4   16.4   17.0
 *     run 3     -   14.9   15.3   15.9   15.7   17.1   17.0   18.3
 * 8 is too short; 16..64 are equal within the noise and >= 96 tends to
 * lose (perhaps prefetched lines evicted before use; not verified). 64 is chosen: the top of the flat range,
 * so an idle machine (shorter per-key time, more lines needed in flight)
 * still has about 3x the 22 lines it needs. Ring: 128 x 16 B = 2 KiB (L1).
 */
#define SSE42_GROUP 8u
#define SSE42_AHEAD 64u
#define SSE42_RING 128u /* power of two >= SSE42_AHEAD + SSE42_GROUP */

/* ---- hashing: XXH3 of 8-byte keys, two per register ------------------------ */

/* a * b mod 2^64 per 64-bit lane: pmuludq only multiplies the low 32 bits,
 *   a*b = alo*blo + ((ahi*blo + alo*bhi) << 32)   (mod 2^64)
 * b_lo / b_hi hold b's low / high 32 bits in the low half of each lane. */
static inline __m128i sse42_mul64(__m128i a, __m128i b_lo, __m128i b_hi)
{
    __m128i lolo = _mm_mul_epu32(a, b_lo);
    __m128i hilo = _mm_mul_epu32(_mm_srli_epi64(a, 32), b_lo);
    __m128i lohi = _mm_mul_epu32(a, b_hi);
    return _mm_add_epi64(lolo, _mm_slli_epi64(_mm_add_epi64(hilo, lohi), 32));
}

static inline __m128i sse42_rotl64(__m128i x, int r)
{
    return _mm_or_si128(_mm_slli_epi64(x, r), _mm_srli_epi64(x, 64 - r));
}

/* bloomsimd_xxh3_u64 on both lanes. rotl64(x, 32) swaps the 32-bit halves. */
static inline __m128i sse42_xxh3(__m128i keys, __m128i bitflip)
{
    const __m128i mx_lo = _mm_set1_epi64x((long long)(BLOOMSIMD_XXH3_MX2 & 0xffffffffu));
    const __m128i mx_hi = _mm_set1_epi64x((long long)(BLOOMSIMD_XXH3_MX2 >> 32));
    __m128i h = _mm_xor_si128(_mm_shuffle_epi32(keys, _MM_SHUFFLE(2, 3, 0, 1)), bitflip);
    h = _mm_xor_si128(h, _mm_xor_si128(sse42_rotl64(h, 49), sse42_rotl64(h, 24)));
    h = sse42_mul64(h, mx_lo, mx_hi);
    h = _mm_xor_si128(h, _mm_add_epi64(_mm_srli_epi64(h, 35), _mm_set1_epi64x(8)));
    h = sse42_mul64(h, mx_lo, mx_hi);
    return _mm_xor_si128(h, _mm_srli_epi64(h, 28));
}

static void sse42_hash_u64(uint64_t bitflip, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    const __m128i flip = _mm_set1_epi64x((long long)bitflip);
    size_t i = 0;
    /* Two registers per iteration: the multiply chains are long, so two
     * independent ones keep the multiplier busy. */
    for (; i + 4 <= n; i += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(keys + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(keys + i + 2));
        _mm_storeu_si128((__m128i *)(void *)(hashes + i), sse42_xxh3(a, flip));
        _mm_storeu_si128((__m128i *)(void *)(hashes + i + 2), sse42_xxh3(b, flip));
    }
    for (; i < n; i++) {
        uint64_t key;
        memcpy(&key, keys + i, sizeof key); /* keys may be under-aligned */
        uint64_t h = bloomsimd_xxh3_u64(key, bitflip);
        memcpy(hashes + i, &h, sizeof h);
    }
}

/* ---- the in-block mask --------------------------------------------------- */

/*
 * 1u << (x >> 27) in each 32-bit lane whose bias is 0x3F800000, 0 in lanes
 * whose bias is 0. SSE has no per-lane variable shift; chosen: the
 * float-exponent trick. (x >> 27) << 23 == (x >> 4) & (31 << 23) places b in
 * the exponent field; adding the bits of 1.0f (0x3F800000, biased exponent
 * 127) gives the float 2^b exactly (exponent 127 + b <= 158, no carry into the
 * sign), and cvttps2dq converts it back. For b <= 30 that is 1 << b; 2^31 does
 * not fit an int32, so cvttps2dq returns its "integer indefinite" value
 * 0x80000000, which is exactly 1u << 31. With bias 0 the float is
 * 2^(b - 127) < 1 (+0.0 for b = 0), which truncates to 0: the k-of-16 word
 * selection rides in the bias for free. Both were checked for all 2^32
 * inputs x. 4 instructions: psrld, pand, paddd, cvttps2dq.
 *
 * Measured (contains_hashes on a 1-block, all-ones filter: compute only,
 * 10^5 hashes, thread CPU time, median of 21, three runs each), ns/key:
 *     float exponent, pand with a lane mask   4.32  4.30  6.86 | 5.52 4.25 4.52
 *     float exponent, selection in the bias   (chosen)         | 5.47 4.07 4.15
 *     pshufb byte table                       4.81  4.62  6.84 | 5.97 4.56 4.65
 *     pmulld (1 << (b & 15)) * (1 or 65536), both from pshufb tables
 *                                             7.21  7.18 10.07 | 9.08 6.98 7.02
 * Rejected: the pshufb table (broadcast b to the lane's 4 bytes, subtract
 * {0,8,16,24}, saturating-add 0x78 so that only the byte holding the bit
 * indexes table[8..15] = 1 << (b & 7), pshufb): 5 instructions, 2 shuffles,
 * plus a pand for the selection; 3-11% slower. The pmulld product: 11
 * instructions and a 3-cycle multiply, ~1.6x slower. A 256-row byte-indexed
 * bias table (fewer scalar shifts) measured the same as the nibble one and
 * is 8 KiB instead of 256 B.
 */
static inline __m128i sse42_pow2_masked(__m128i x, __m128i bias)
{
    __m128i exponent = _mm_and_si128(_mm_srli_epi32(x, 4), _mm_set1_epi32(0x0F800000));
    return _mm_cvttps_epi32(_mm_castsi128_ps(_mm_add_epi32(exponent, bias)));
}

#define SSE42_ONE 0x3F800000u /* the bits of 1.0f */
#define SSE42_BIAS(q)                                                                                                  \
    {((q) & 1u) ? SSE42_ONE : 0u, ((q) & 2u) ? SSE42_ONE : 0u, ((q) & 4u) ? SSE42_ONE : 0u, ((q) & 8u) ? SSE42_ONE : 0u}

/* Row q: the bias of sse42_pow2_masked for words 4r..4r+3 when the nibble
 * (select >> 4r) & 15 is q. */
static _Alignas(16) const uint32_t sse42_nibble_bias[16][4] = {
    SSE42_BIAS(0u),  SSE42_BIAS(1u),  SSE42_BIAS(2u),  SSE42_BIAS(3u),  SSE42_BIAS(4u),  SSE42_BIAS(5u),
    SSE42_BIAS(6u),  SSE42_BIAS(7u),  SSE42_BIAS(8u),  SSE42_BIAS(9u),  SSE42_BIAS(10u), SSE42_BIAS(11u),
    SSE42_BIAS(12u), SSE42_BIAS(13u), SSE42_BIAS(14u), SSE42_BIAS(15u),
};

static _Alignas(16) const uint32_t sse42_salts[16] = BLOOMSIMD_SALTS;

typedef struct sse42_mask {
    __m128i q[4]; /* words 4r..4r+3 */
} sse42_mask;

/* subsets/nsubsets come from the caller's locals: read through g, they would
 * be reloaded per key (the out[] byte stores may alias *g). */
static inline sse42_mask sse42_block_mask(const uint16_t *subsets, uint32_t nsubsets, uint64_t hash)
{
    uint32_t lo = (uint32_t)hash;
    unsigned select = subsets[((uint64_t)lo * nsubsets) >> 32];
    __m128i vlo = _mm_set1_epi32((int)lo);
    sse42_mask m;
    for (unsigned r = 0; r < 4; r++) {
        __m128i salt = _mm_load_si128((const __m128i *)(const void *)(sse42_salts + 4 * r));
        __m128i bias = _mm_load_si128((const __m128i *)(const void *)sse42_nibble_bias[(select >> (4 * r)) & 15u]);
        m.q[r] = sse42_pow2_masked(_mm_mullo_epi32(vlo, salt), bias);
    }
    return m;
}

/* ---- probe one block --------------------------------------------------------- */

/* A concurrent filter's block read as 64-bit relaxed atomic loads (bits only
 * go 0 -> 1, so any mix of old and new words is an allowed answer, exactly
 * as bloomsimd_block_test's per-word atomic loads). */
static inline __m128i sse42_load_relaxed(const uint32_t *words)
{
    const uint64_t *p = (const uint64_t *)(const void *)words;
    long long a = (long long)__atomic_load_n(p, __ATOMIC_RELAXED);
    long long b = (long long)__atomic_load_n(p + 1, __ATOMIC_RELAXED);
    return _mm_set_epi64x(b, a);
}

static inline int sse42_block_test(const uint32_t *block, sse42_mask m, bool concurrent)
{
    __m128i missing = _mm_setzero_si128();
    for (unsigned r = 0; r < 4; r++) {
        __m128i w = concurrent ? sse42_load_relaxed(block + 4 * r)
                               : _mm_load_si128((const __m128i *)(const void *)(block + 4 * r));
        missing = _mm_or_si128(missing, _mm_andnot_si128(w, m.q[r]));
    }
    return _mm_testz_si128(missing, missing);
}

static inline void sse42_block_or(uint32_t *block, sse42_mask m, bool concurrent)
{
    if (concurrent) {
        /* Same atomicity as bloomsimd_block_or: one relaxed lock-or per
         * non-zero 64-bit half-register (k of 16 words -> at most 8).
         * Rejected: first checking with a relaxed load whether the bits are
         * already set and skipping that lock-or; at 10^8 keys it measured
         * 52 ns/key vs 40 without (the load waits behind the previous
         * locked op, so it only lengthens the serial chain). */
        uint64_t *block64 = (uint64_t *)(void *)block;
        for (unsigned r = 0; r < 4; r++) {
            uint64_t m0 = (uint64_t)_mm_cvtsi128_si64(m.q[r]);
            uint64_t m1 = (uint64_t)_mm_extract_epi64(m.q[r], 1);
            if (m0) __atomic_fetch_or(&block64[2 * r], m0, __ATOMIC_RELAXED);
            if (m1) __atomic_fetch_or(&block64[2 * r + 1], m1, __ATOMIC_RELAXED);
        }
        return;
    }
    for (unsigned r = 0; r < 4; r++) {
        __m128i *p = (__m128i *)(void *)(block + 4 * r);
        _mm_store_si128(p, _mm_or_si128(_mm_load_si128(p), m.q[r]));
    }
}

/* ---- the pipeline -------------------------------------------------------------- */

typedef struct sse42_ring {
    uint64_t hash[SSE42_RING];
    const uint32_t *block[SSE42_RING];
} sse42_ring;

/* Block indices of both lanes: ((h >> 32) * nblocks) >> 32 with one pmuludq.
 * nblocks = 2^32 does not fit the 32-bit operand; then the index is h >> 32. */
static inline __m128i sse42_block_index(__m128i h, __m128i nblocks, bool full_range)
{
    __m128i hi = _mm_srli_epi64(h, 32);
    return full_range ? hi : _mm_srli_epi64(_mm_mul_epu32(hi, nblocks), 32);
}

static inline void sse42_prefetch(const uint32_t *block, bool insert)
{
    if (insert)
        __builtin_prefetch(block, 1, 3);
    else
        __builtin_prefetch(block, 0, 3);
}

/* Hash (unless prehashed) keys [from, end), record hash and block in the
 * ring, prefetch the blocks. from is even (a multiple of SSE42_GROUP). */
static inline void sse42_stage(const bloomsimd_geometry *g, const uint64_t *src, size_t from, size_t end,
                               sse42_ring *ring, bool prehashed, bool insert)
{
    const __m128i flip = _mm_set1_epi64x((long long)g->hash_bitflip);
    const __m128i nblocks = _mm_set1_epi64x((long long)(g->nblocks & 0xffffffffu));
    const bool full_range = g->nblocks > UINT32_MAX;
    size_t i = from;
    for (; i + 2 <= end; i += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        __m128i h = prehashed ? v : sse42_xxh3(v, flip);
        __m128i blk = sse42_block_index(h, nblocks, full_range);
        size_t slot = i & (SSE42_RING - 1u);
        _mm_storeu_si128((__m128i *)(void *)(ring->hash + slot), h);
        const uint32_t *b0 = bloomsimd_block_ptr(g, (uint64_t)_mm_cvtsi128_si64(blk));
        const uint32_t *b1 = bloomsimd_block_ptr(g, (uint64_t)_mm_extract_epi64(blk, 1));
        ring->block[slot] = b0;
        ring->block[slot + 1] = b1;
        sse42_prefetch(b0, insert);
        sse42_prefetch(b1, insert);
    }
    if (i < end) {
        uint64_t v;
        memcpy(&v, src + i, sizeof v);
        uint64_t h = prehashed ? v : bloomsimd_xxh3_u64(v, g->hash_bitflip);
        size_t slot = i & (SSE42_RING - 1u);
        ring->hash[slot] = h;
        ring->block[slot] = bloomsimd_block_ptr(g, bloomsimd_block_index(h, g->nblocks));
        sse42_prefetch(ring->block[slot], insert);
    }
}

/* Every batch entry point: stage SSE42_AHEAD keys, then per group stage the
 * group SSE42_AHEAD keys ahead and probe the current one. The ring holds the
 * live window [base, base + AHEAD + GROUP) <= SSE42_RING entries. */
static inline size_t sse42_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, uint8_t *out,
                               bool prehashed, bool insert, bool concurrent)
{
    sse42_ring ring;
    const uint16_t *subsets = g->select;
    const uint32_t nsubsets = BLOOMSIMD_SELECT_ENTRIES;
    size_t hits = 0;
    for (size_t s = 0; s < n && s < SSE42_AHEAD; s += SSE42_GROUP)
        sse42_stage(g, src, s, s + SSE42_GROUP < n ? s + SSE42_GROUP : n, &ring, prehashed, insert);
    for (size_t base = 0; base < n; base += SSE42_GROUP) {
        size_t next = base + SSE42_AHEAD;
        if (next < n) sse42_stage(g, src, next, next + SSE42_GROUP < n ? next + SSE42_GROUP : n, &ring, prehashed, insert);
        size_t end = base + SSE42_GROUP < n ? base + SSE42_GROUP : n;
        for (size_t i = base; i < end; i++) {
            size_t slot = i & (SSE42_RING - 1u);
            sse42_mask m = sse42_block_mask(subsets, nsubsets, ring.hash[slot]);
            if (insert) {
                sse42_block_or((uint32_t *)(uintptr_t)ring.block[slot], m, concurrent);
            } else {
                int hit = sse42_block_test(ring.block[slot], m, concurrent);
                if (out) out[i] = (uint8_t)hit;
                hits += (size_t)hit;
            }
        }
    }
    return hits;
}

/* Each entry point expands sse42_run with constant flags, so the concurrent
 * check and the hash/no-hash choice are resolved at compile time per loop. */
static void sse42_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    if (g->concurrent)
        sse42_run(g, hashes, n, NULL, true, true, true);
    else
        sse42_run(g, hashes, n, NULL, true, true, false);
}

static size_t sse42_contains_hashes_bytes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return g->concurrent ? sse42_run(g, hashes, n, out, true, false, true)
                         : sse42_run(g, hashes, n, out, true, false, false);
}

static void sse42_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    if (g->concurrent)
        sse42_run(g, keys, n, NULL, false, true, true);
    else
        sse42_run(g, keys, n, NULL, false, true, false);
}

static size_t sse42_contains_u64_bytes(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return g->concurrent ? sse42_run(g, keys, n, out, false, false, true)
                         : sse42_run(g, keys, n, out, false, false, false);
}

/* ---- set operations ------------------------------------------------------------ */

static void sse42_union_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    size_t i = 0;
    for (; i + 2 <= nwords; i += 2) {
        __m128i *d = (__m128i *)(void *)(dst + i);
        _mm_storeu_si128(d, _mm_or_si128(_mm_loadu_si128(d), _mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    }
    for (; i < nwords; i++) dst[i] |= src[i];
}

static void sse42_intersect_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    size_t i = 0;
    for (; i + 2 <= nwords; i += 2) {
        __m128i *d = (__m128i *)(void *)(dst + i);
        _mm_storeu_si128(d, _mm_and_si128(_mm_loadu_si128(d), _mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    }
    for (; i < nwords; i++) dst[i] &= src[i];
}

static size_t sse42_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                                   void *out)
{
    return bloomsimd_hits_via_bytes(sse42_contains_hashes_bytes, g, hashes, n, form, out);
}

static size_t sse42_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                                void *out)
{
    return bloomsimd_hits_via_bytes(sse42_contains_u64_bytes, g, keys, n, form, out);
}

/* Insert-and-report-new and single keys: the layout's reference code for
 * now (correct on every filter, not yet vectorised). */
static size_t sse42_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, hashes[i]);
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static size_t sse42_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, bloomsimd_xxh3_u64(keys[i], g->hash_bitflip));
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static void sse42_add_one(const bloomsimd_geometry *g, uint64_t hash) { bloomsimd_scalar_add_hash(g, hash); }

static int sse42_contains_one(const bloomsimd_geometry *g, uint64_t hash) { return bloomsimd_scalar_contains_hash(g, hash); }

const bloomsimd_kernel bloomsimd_kernel_sse42 = {
    .name = "sse42",
    .required_features = BLOOMSIMD_CPU_SSE42,
    .emulated = false,
    .hash_u64 = sse42_hash_u64,
    .add_hashes = sse42_add_hashes,
    .contains_hashes = sse42_contains_hashes,
    .add_u64 = sse42_add_u64,
    .contains_u64 = sse42_contains_u64,
    .add_new_hashes = sse42_add_new_hashes,
    .add_new_u64 = sse42_add_new_u64,
    .add_one = sse42_add_one,
    .contains_one = sse42_contains_one,
    .union_words = sse42_union_words,
    .intersect_words = sse42_intersect_words,
};
