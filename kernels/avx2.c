/*
 * avx2.c — the AVX2 kernel (compiled with -mavx2 only: no BMI2, no FMA).
 *
 * Hashing runs 4 keys per ymm register (64-bit lanes). Probing runs one key
 * at a time with its block held in two ymm registers (words 0-7 and 8-15):
 * the 16-lane word mask of kernels/layout.h section 4 is built with two
 * 32-bit multiplies by the salts, and the whole probe is one 512-bit
 * AND-NOT / OR. The fused and hash-batch paths are pipelined: keys are
 * hashed AVX2_DISTANCE keys ahead of the probe and their blocks prefetched,
 * so that up to AVX2_DISTANCE cache misses are in flight at once.
 */
#include <immintrin.h>

#include "layout.h"

/*
 * Prefetch distance, in keys, and prefetch level. Little's law: keys in
 * flight = DRAM latency / time per key; at ~2.5 ns per probe and ~100 ns per
 * random DRAM read, ~40 keys must be in flight.
 *
 * Level: prefetcht1 (locality 2), not prefetcht0. On this Zen 5, a t0
 * prefetch that misses seems to hold one of the few L1 miss buffers until the
 * line arrives, which caps the lines in flight; t1 fills L2 (and the probe
 * then hits L2, a few ns), and lines in flight grow with the distance. Same
 * run, D = 64, 10^8 keys, 124 MB: lookup 14.7 -> 9.8 ns/key, insert 14.7 ->
 * 9.0 ns/key (t0 -> t1); t2 measured the same as t1, nta 1.8x slower than t1;
 * on a 122 KiB filter no difference (4.1 vs 3.9 ns/key).
 *
 * Distance, with t1, on a 10^8-key, 124 MB filter (10 bits/key, k=6, 10^7
 * negative lookups per rep, batches of 4096, median of 5, ns/key in thread
 * CPU time on 2 vCPUs shared by ~10 runnable jobs; every D in the same run;
 * the ceiling is the same pipeline reading one word per key):
 *     D          16     32     64    128    256
 *     lookup   11.3    8.1    7.1    7.3    7.6
 *     insert    9.6    7.1    8.1    7.7    8.7
 *     ceiling   7.4    5.6    5.0    4.6    5.1
 * (With t0, D = 16..256 were all within noise of each other, 11.6-16 ns/key:
 * the miss buffers, not the distance, were the limit.) 64 is the fastest
 * lookup and within noise for inserts; larger distances only grow the ring.
 */
#ifndef BLOOMSIMD_AVX2_DISTANCE
#define BLOOMSIMD_AVX2_DISTANCE 64u
#endif
#define AVX2_DISTANCE ((size_t)BLOOMSIMD_AVX2_DISTANCE)
/* __builtin_prefetch locality of the pipeline's prefetches: 2 = prefetcht1
 * (see above). Without -mprfchw a write prefetch is the same instruction. */
#ifndef BLOOMSIMD_AVX2_READ_LOCALITY
#define BLOOMSIMD_AVX2_READ_LOCALITY 2
#endif
#ifndef BLOOMSIMD_AVX2_WRITE_LOCALITY
#define BLOOMSIMD_AVX2_WRITE_LOCALITY 2
#endif
/* Keys hashed per pipeline step: two ymm of four 64-bit lanes. */
#define AVX2_GROUP ((size_t)8)
/* The ring of staged keys: a power of two holding DISTANCE + GROUP keys. */
#define AVX2_RING (2 * AVX2_DISTANCE)
#define AVX2_RING_MASK (AVX2_RING - 1)

_Static_assert(BLOOMSIMD_AVX2_DISTANCE >= 8 && (BLOOMSIMD_AVX2_DISTANCE & (BLOOMSIMD_AVX2_DISTANCE - 1)) == 0,
               "the prefetch distance must be a power of two >= the group size");

#define AVX2_INLINE static inline __attribute__((always_inline))

/* ---------------------------------------------------------------------------
 * Hashing: XXH3_64bits_withSeed of 8 LE bytes (bloomsimd_xxh3_u64), 4 lanes.
 * ------------------------------------------------------------------------ */

/*
 * a * c mod 2^64 in each 64-bit lane. AVX2 only multiplies 32 x 32 -> 64
 * (vpmuludq, the low halves of each lane). Writing a = ah*2^32 + al and
 * c = ch*2^32 + cl:
 *     a*c = al*cl + ((ah*cl + al*ch) << 32) + ah*ch*2^64
 * and the last term vanishes mod 2^64, as do the high halves of the two cross
 * products once shifted left by 32. So three vpmuludq, one shift right, one
 * shift left and two adds. c_lo / c_hi hold cl / ch in the low half of each lane.
 */
AVX2_INLINE __m256i avx2_mul64(__m256i a, __m256i c_lo, __m256i c_hi)
{
    __m256i lolo = _mm256_mul_epu32(a, c_lo);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), c_lo), _mm256_mul_epu32(a, c_hi));
    return _mm256_add_epi64(lolo, _mm256_slli_epi64(cross, 32));
}

AVX2_INLINE __m256i avx2_xxh3(__m256i key, __m256i bitflip)
{
    const __m256i mx2_lo = _mm256_set1_epi64x((long long)(BLOOMSIMD_XXH3_MX2 & 0xffffffffu));
    const __m256i mx2_hi = _mm256_set1_epi64x((long long)(BLOOMSIMD_XXH3_MX2 >> 32));
    /* rotl64(x, 24) is a rotation by 3 bytes: out byte j = in byte (j - 3) mod 8. */
    const __m256i rotl24 = _mm256_setr_epi8(5, 6, 7, 0, 1, 2, 3, 4, 13, 14, 15, 8, 9, 10, 11, 12, /* */
                                            5, 6, 7, 0, 1, 2, 3, 4, 13, 14, 15, 8, 9, 10, 11, 12);
    /* rotl64(x, 32) swaps the 32-bit halves of each lane. */
    __m256i h = _mm256_xor_si256(_mm256_shuffle_epi32(key, 0xb1), bitflip);
    __m256i r49 = _mm256_or_si256(_mm256_slli_epi64(h, 49), _mm256_srli_epi64(h, 15));
    h = _mm256_xor_si256(h, _mm256_xor_si256(r49, _mm256_shuffle_epi8(h, rotl24)));
    h = avx2_mul64(h, mx2_lo, mx2_hi);
    h = _mm256_xor_si256(h, _mm256_add_epi64(_mm256_srli_epi64(h, 35), _mm256_set1_epi64x(8)));
    h = avx2_mul64(h, mx2_lo, mx2_hi);
    return _mm256_xor_si256(h, _mm256_srli_epi64(h, 28));
}

static void avx2_hash_u64(uint64_t hash_bitflip, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    const __m256i bitflip = _mm256_set1_epi64x((long long)hash_bitflip);
    size_t i = 0;
    /* Two independent registers per step hide the multiply latency. */
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i + 4));
        _mm256_storeu_si256((__m256i *)(void *)(hashes + i), avx2_xxh3(a, bitflip));
        _mm256_storeu_si256((__m256i *)(void *)(hashes + i + 4), avx2_xxh3(b, bitflip));
    }
    if (i + 4 <= n) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
        _mm256_storeu_si256((__m256i *)(void *)(hashes + i), avx2_xxh3(a, bitflip));
        i += 4;
    }
    for (; i < n; i++) {
        uint64_t key;
        memcpy(&key, keys + i, sizeof key); /* keys may be less than 8-byte aligned */
        uint64_t h = bloomsimd_xxh3_u64(key, hash_bitflip);
        memcpy(hashes + i, &h, sizeof h);
    }
}

/* ---------------------------------------------------------------------------
 * Block index and in-block mask.
 * ------------------------------------------------------------------------ */

/* Per-call constants. nblocks == 2^32 does not fit the 32-bit multiplier
 * lane; then ((h >> 32) * 2^32) >> 32 is just h >> 32 (`full`). */
typedef struct avx2_ctx {
    const char *base; /* g->words as bytes: blocks are addressed by byte offset */
    const uint16_t *subsets;
    uint64_t nsubsets;
    uint64_t nblocks;
    uint64_t bitflip;
    bool full;
} avx2_ctx;

static inline avx2_ctx avx2_make_ctx(const bloomsimd_geometry *g)
{
    avx2_ctx c = {(const char *)(const void *)g->words, g->select, BLOOMSIMD_SELECT_ENTRIES, g->nblocks, g->hash_bitflip,
                  g->nblocks > UINT32_MAX};
    return c;
}

/* Byte offset of the block of each hash: ((h >> 32) * nblocks >> 32) * 64. */
AVX2_INLINE __m256i avx2_block_offsets(__m256i h, __m256i nblocks, bool full)
{
    __m256i hi = _mm256_srli_epi64(h, 32);
    __m256i block = full ? hi : _mm256_srli_epi64(_mm256_mul_epu32(hi, nblocks), 32);
    return _mm256_slli_epi64(block, 6);
}

static inline uint64_t avx2_block_offset_scalar(const avx2_ctx *c, uint64_t h)
{
    return bloomsimd_block_index(h, c->nblocks) * 64u; /* bytes per block */
}

/*
 * The 16-word mask of one hash as two ymm (words 0-7, 8-15):
 *     mask_w = ((select >> w) & 1) << ((lo * SALT[w]) >> 27)
 * The enable bit is shifted straight into place, so an unselected word gets
 * 0 << bit = 0 without a compare: srlv, and, mullo, srli, sllv per half.
 * select is broadcast as 16-bit lanes (one vpbroadcastw from the table); each
 * 32-bit lane then holds select twice, and only its bit w survives the AND.
 */
AVX2_INLINE void avx2_block_mask(uint64_t h, unsigned select, __m256i *m0, __m256i *m1)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    const __m256i salt0 = _mm256_loadu_si256((const __m256i *)(const void *)salts);
    const __m256i salt1 = _mm256_loadu_si256((const __m256i *)(const void *)(salts + 8));
    const __m256i lane0 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i lane1 = _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i one = _mm256_set1_epi32(1);
    uint32_t lo = (uint32_t)h;
    __m256i vlo = _mm256_set1_epi32((int)lo);
    __m256i vsel = _mm256_set1_epi16((short)select);
    __m256i bit0 = _mm256_srli_epi32(_mm256_mullo_epi32(vlo, salt0), 27);
    __m256i bit1 = _mm256_srli_epi32(_mm256_mullo_epi32(vlo, salt1), 27);
    __m256i en0 = _mm256_and_si256(_mm256_srlv_epi32(vsel, lane0), one);
    __m256i en1 = _mm256_and_si256(_mm256_srlv_epi32(vsel, lane1), one);
    *m0 = _mm256_sllv_epi32(en0, bit0);
    *m1 = _mm256_sllv_epi32(en1, bit1);
}

/* ---------------------------------------------------------------------------
 * Probe and set one block.
 * ------------------------------------------------------------------------ */

/*
 * Concurrent lookups read the block with relaxed 64-bit atomic loads (the
 * granularity of the atomic ORs below), so racing with inserts is defined
 * behaviour. A plain vector load would be a data race in C11 terms even
 * though TSan would not report it (clang's TSan does not instrument 32-byte
 * accesses: checked by swapping in plain loads, which ran report-free).
 * Cost: eight scalar loads and inserts to rebuild two ymm instead of two
 * vmovdqa; measured (two runs) x1.5-1.6 on a cache-resident filter
 * (2.7 -> 4.4, 4.4 -> 6.8) and x0.94-1.4 on a 12 MB one.
 */
AVX2_INLINE uint8_t avx2_test_block(const avx2_ctx *c, uint64_t offset, __m256i m0, __m256i m1, bool concurrent)
{
    const char *block = c->base + offset;
    __m256i b0, b1;
    if (concurrent) {
        const uint64_t *q = (const uint64_t *)(const void *)block;
        b0 = _mm256_setr_epi64x((long long)__atomic_load_n(q + 0, __ATOMIC_RELAXED),
                                (long long)__atomic_load_n(q + 1, __ATOMIC_RELAXED),
                                (long long)__atomic_load_n(q + 2, __ATOMIC_RELAXED),
                                (long long)__atomic_load_n(q + 3, __ATOMIC_RELAXED));
        b1 = _mm256_setr_epi64x((long long)__atomic_load_n(q + 4, __ATOMIC_RELAXED),
                                (long long)__atomic_load_n(q + 5, __ATOMIC_RELAXED),
                                (long long)__atomic_load_n(q + 6, __ATOMIC_RELAXED),
                                (long long)__atomic_load_n(q + 7, __ATOMIC_RELAXED));
    } else {
        b0 = _mm256_load_si256((const __m256i *)(const void *)block);
        b1 = _mm256_load_si256((const __m256i *)(const void *)(block + 32));
    }
    /* A bit of the mask that is clear in the block survives the AND-NOT. */
    __m256i missing = _mm256_or_si256(_mm256_andnot_si256(b0, m0), _mm256_andnot_si256(b1, m1));
    return (uint8_t)_mm256_testz_si256(missing, missing);
}

/*
 * Concurrent inserts OR each nonzero 64-bit word with a lock-free relaxed
 * atomic (as bloomsimd_block_or does): up to k lock-prefixed ORs per key
 * (at k = 6, 8 * (1 - C(14,6)/C(16,6)) = 5.0 of the 8 words on average),
 * each a full barrier on x86. Measured cost (two runs): x5.0-5.4
 * cache-resident (2.4 -> 13.0, 4.0 -> 19.8 ns/key) and x2.5-3.7 on a 12 MB
 * filter (5.9 -> 15.0, 5.5 -> 20.4 ns/key). Not tried: a 128-bit CAS per
 * half block (cmpxchg16b needs -mcx16, beyond the AVX2 check, and a retry
 * loop under contention).
 */
AVX2_INLINE void avx2_set_block(const avx2_ctx *c, uint64_t offset, __m256i m0, __m256i m1, bool concurrent)
{
    char *block = (char *)(uintptr_t)(c->base + offset);
    if (concurrent) {
        uint64_t *q = (uint64_t *)(void *)block;
        _Alignas(32) uint64_t m[8];
        _mm256_store_si256((__m256i *)(void *)m, m0);
        _mm256_store_si256((__m256i *)(void *)(m + 4), m1);
        const __m256i zero = _mm256_setzero_si256();
        unsigned zero0 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(m0, zero)));
        unsigned zero1 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(m1, zero)));
        unsigned nonzero = ~(zero0 | (zero1 << 4)) & 0xffu;
        while (nonzero) {
            unsigned i = (unsigned)__builtin_ctz(nonzero);
            __atomic_fetch_or(q + i, m[i], __ATOMIC_RELAXED);
            nonzero &= nonzero - 1;
        }
    } else {
        __m256i *v = (__m256i *)(void *)block;
        _mm256_store_si256(v, _mm256_or_si256(_mm256_load_si256(v), m0));
        _mm256_store_si256(v + 1, _mm256_or_si256(_mm256_load_si256(v + 1), m1));
    }
}

/* ---------------------------------------------------------------------------
 * The pipeline: stage keys [i, i + count) (hash them if `from_keys`, compute
 * block offsets, prefetch), then probe keys staged AVX2_DISTANCE earlier.
 * ------------------------------------------------------------------------ */

/* Per staged key: its hash, its block's byte offset, and the rank of its
 * word subset ((lo * C(16,k)) >> 32, computed 4 at a time with vpmuludq). */
typedef struct avx2_ring {
    _Alignas(32) uint64_t hash[AVX2_RING];
    _Alignas(32) uint64_t offset[AVX2_RING];
    _Alignas(32) uint64_t rank[AVX2_RING];
} avx2_ring;

static inline uint64_t avx2_load_u64(const uint64_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The 4 64-bit lanes of v as scalars (vmovq/vpextrq). */
AVX2_INLINE void avx2_lanes(__m256i v, uint64_t lane[4])
{
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    lane[0] = (uint64_t)_mm_cvtsi128_si64(lo), lane[1] = (uint64_t)_mm_extract_epi64(lo, 1);
    lane[2] = (uint64_t)_mm_cvtsi128_si64(hi), lane[3] = (uint64_t)_mm_extract_epi64(hi, 1);
}

AVX2_INLINE void avx2_prefetch(const char *block, bool for_write)
{
    /* the locality argument must be a constant */
    if (for_write)
        __builtin_prefetch(block, 1, BLOOMSIMD_AVX2_WRITE_LOCALITY);
    else
        __builtin_prefetch(block, 0, BLOOMSIMD_AVX2_READ_LOCALITY);
}

AVX2_INLINE void avx2_stage(const avx2_ctx *c, const uint64_t *src, size_t i, size_t count, avx2_ring *r,
                            bool from_keys, bool for_write)
{
    size_t slot = i & AVX2_RING_MASK; /* i is a multiple of AVX2_GROUP, so the group is contiguous */
    if (count == AVX2_GROUP) {
        const __m256i nblocks = _mm256_set1_epi64x((long long)c->nblocks);
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 4));
        if (from_keys) {
            const __m256i bitflip = _mm256_set1_epi64x((long long)c->bitflip);
            a = avx2_xxh3(a, bitflip);
            b = avx2_xxh3(b, bitflip);
        }
        const __m256i oa = avx2_block_offsets(a, nblocks, c->full), ob = avx2_block_offsets(b, nblocks, c->full);
        _mm256_store_si256((__m256i *)(void *)(r->hash + slot), a);
        _mm256_store_si256((__m256i *)(void *)(r->hash + slot + 4), b);
        _mm256_store_si256((__m256i *)(void *)(r->offset + slot), oa);
        _mm256_store_si256((__m256i *)(void *)(r->offset + slot + 4), ob);
        const __m256i nsub = _mm256_set1_epi64x((long long)c->nsubsets);
        _mm256_store_si256((__m256i *)(void *)(r->rank + slot), _mm256_srli_epi64(_mm256_mul_epu32(a, nsub), 32));
        _mm256_store_si256((__m256i *)(void *)(r->rank + slot + 4), _mm256_srli_epi64(_mm256_mul_epu32(b, nsub), 32));
        /* Prefetch from the registers, not by reloading the offsets just
         * stored: a 64-bit load of part of a fresh 256-bit store waits for
         * it. Same process, old -> new, ns/key: 10^5 keys, lookups 3.82 ->
         * 3.62 and inserts ~7% faster; 10^8 keys, lookups 8.72 -> 8.58,
         * inserts 8.69 -> 8.46. */
        uint64_t off[AVX2_GROUP];
        avx2_lanes(oa, off);
        avx2_lanes(ob, off + 4);
        for (size_t j = 0; j < AVX2_GROUP; j++) avx2_prefetch(c->base + off[j], for_write);
        return;
    } else {
        for (size_t j = 0; j < count; j++) {
            uint64_t h = avx2_load_u64(src + i + j);
            if (from_keys) h = bloomsimd_xxh3_u64(h, c->bitflip);
            r->hash[slot + j] = h;
            r->offset[slot + j] = avx2_block_offset_scalar(c, h);
            r->rank[slot + j] = ((uint64_t)(uint32_t)h * c->nsubsets) >> 32;
        }
    }
    for (size_t j = 0; j < count; j++) avx2_prefetch(c->base + r->offset[slot + j], for_write);
}

static inline size_t avx2_min(size_t a, size_t b) { return a < b ? a : b; }

/* Probe the `count` keys staged at [base, base + count). With count ==
 * AVX2_GROUP (every group but the last) the loop has a constant trip count
 * and unrolls: no per-key slot masking or loop test (lookups 8-10% faster).
 * Rejected: building the masks in the stage and keeping them in the ring
 * (64 B per key): 1.19x slower cache-resident, 1.09x at 10^8 keys. Rejected:
 * a second prefetcht0 one group ahead (L2 -> L1): 0.98x at 10^8 keys
 * (noise), 1.07x slower cache-resident. */
AVX2_INLINE size_t avx2_lookup_group(const avx2_ctx *c, const avx2_ring *r, size_t base, size_t count,
                                     uint8_t *out, bool concurrent)
{
    size_t slot = base & AVX2_RING_MASK, hits = 0;
    for (size_t j = 0; j < count; j++) {
        __m256i m0, m1;
        avx2_block_mask(r->hash[slot + j], c->subsets[r->rank[slot + j]], &m0, &m1);
        uint8_t hit = avx2_test_block(c, r->offset[slot + j], m0, m1, concurrent);
        if (out) out[base + j] = hit;
        hits += hit;
    }
    return hits;
}

AVX2_INLINE void avx2_insert_group(const avx2_ctx *c, const avx2_ring *r, size_t base, size_t count,
                                   bool concurrent)
{
    size_t slot = base & AVX2_RING_MASK;
    for (size_t j = 0; j < count; j++) {
        __m256i m0, m1;
        avx2_block_mask(r->hash[slot + j], c->subsets[r->rank[slot + j]], &m0, &m1);
        avx2_set_block(c, r->offset[slot + j], m0, m1, concurrent);
    }
}

/*
 * Group g is staged (hashed, prefetched) AVX2_DISTANCE keys before it is
 * probed. The steady-state loop, where every group is full, is separate
 * from the ramp-up and drain so that it runs with constant group sizes.
 */
AVX2_INLINE size_t avx2_lookup_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, uint8_t *out,
                                   bool from_keys, bool concurrent)
{
    const avx2_ctx c = avx2_make_ctx(g);
    avx2_ring r;
    size_t hits = 0, base = 0;
    for (size_t i = 0; i < n && i < AVX2_DISTANCE; i += AVX2_GROUP)
        avx2_stage(&c, src, i, avx2_min(AVX2_GROUP, n - i), &r, from_keys, false);
    for (; base + AVX2_DISTANCE + AVX2_GROUP <= n; base += AVX2_GROUP) {
        avx2_stage(&c, src, base + AVX2_DISTANCE, AVX2_GROUP, &r, from_keys, false);
        hits += avx2_lookup_group(&c, &r, base, AVX2_GROUP, out, concurrent);
    }
    for (; base < n; base += AVX2_GROUP) {
        size_t next = base + AVX2_DISTANCE;
        if (next < n) avx2_stage(&c, src, next, avx2_min(AVX2_GROUP, n - next), &r, from_keys, false);
        hits += avx2_lookup_group(&c, &r, base, avx2_min(AVX2_GROUP, n - base), out, concurrent);
    }
    return hits;
}

AVX2_INLINE void avx2_insert_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, bool from_keys,
                                 bool concurrent)
{
    const avx2_ctx c = avx2_make_ctx(g);
    avx2_ring r;
    size_t base = 0;
    for (size_t i = 0; i < n && i < AVX2_DISTANCE; i += AVX2_GROUP)
        avx2_stage(&c, src, i, avx2_min(AVX2_GROUP, n - i), &r, from_keys, true);
    for (; base + AVX2_DISTANCE + AVX2_GROUP <= n; base += AVX2_GROUP) {
        avx2_stage(&c, src, base + AVX2_DISTANCE, AVX2_GROUP, &r, from_keys, true);
        avx2_insert_group(&c, &r, base, AVX2_GROUP, concurrent);
    }
    for (; base < n; base += AVX2_GROUP) {
        size_t next = base + AVX2_DISTANCE;
        if (next < n) avx2_stage(&c, src, next, avx2_min(AVX2_GROUP, n - next), &r, from_keys, true);
        avx2_insert_group(&c, &r, base, avx2_min(AVX2_GROUP, n - base), concurrent);
    }
}

/* Lookups with out == NULL get their own copy without the stores. */
AVX2_INLINE size_t avx2_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n, uint8_t *out,
                               bool from_keys, bool concurrent)
{
    return out ? avx2_lookup_run(g, src, n, out, from_keys, concurrent)
               : avx2_lookup_run(g, src, n, NULL, from_keys, concurrent);
}

/* One instantiation per (input, concurrency) pair keeps the hot loops free
 * of those branches. */
static size_t avx2_contains_hashes_bytes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return g->concurrent ? avx2_lookup(g, hashes, n, out, false, true) : avx2_lookup(g, hashes, n, out, false, false);
}

static size_t avx2_contains_u64_bytes(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return g->concurrent ? avx2_lookup(g, keys, n, out, true, true) : avx2_lookup(g, keys, n, out, true, false);
}

static void avx2_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    if (g->concurrent)
        avx2_insert_run(g, hashes, n, false, true);
    else
        avx2_insert_run(g, hashes, n, false, false);
}

static void avx2_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    if (g->concurrent)
        avx2_insert_run(g, keys, n, true, true);
    else
        avx2_insert_run(g, keys, n, true, false);
}

/* ---------------------------------------------------------------------------
 * Set operations: whole bit arrays, 32 bytes at a time.
 * ------------------------------------------------------------------------ */

static void avx2_union_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    size_t i = 0;
    for (; i + 4 <= nwords; i += 4) {
        __m256i *d = (__m256i *)(void *)(dst + i);
        __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        _mm256_storeu_si256(d, _mm256_or_si256(_mm256_loadu_si256(d), s));
    }
    for (; i < nwords; i++) dst[i] |= src[i];
}

static void avx2_intersect_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    size_t i = 0;
    for (; i + 4 <= nwords; i += 4) {
        __m256i *d = (__m256i *)(void *)(dst + i);
        __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        _mm256_storeu_si256(d, _mm256_and_si256(_mm256_loadu_si256(d), s));
    }
    for (; i < nwords; i++) dst[i] &= src[i];
}

static size_t avx2_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                                  void *out)
{
    return bloomsimd_hits_via_bytes(avx2_contains_hashes_bytes, g, hashes, n, form, out);
}

static size_t avx2_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                               void *out)
{
    return bloomsimd_hits_via_bytes(avx2_contains_u64_bytes, g, keys, n, form, out);
}

/* Insert-and-report-new and single keys: the layout's reference code for
 * now (correct on every filter, not yet vectorised). */
static size_t avx2_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, hashes[i]);
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static size_t avx2_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, bloomsimd_xxh3_u64(keys[i], g->hash_bitflip));
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static void avx2_add_one(const bloomsimd_geometry *g, uint64_t hash) { bloomsimd_scalar_add_hash(g, hash); }

static int avx2_contains_one(const bloomsimd_geometry *g, uint64_t hash) { return bloomsimd_scalar_contains_hash(g, hash); }

const bloomsimd_kernel bloomsimd_kernel_avx2 = {
    .name = "avx2",
    .required_features = BLOOMSIMD_CPU_AVX2,
    .emulated = false,
    .hash_u64 = avx2_hash_u64,
    .add_hashes = avx2_add_hashes,
    .contains_hashes = avx2_contains_hashes,
    .add_u64 = avx2_add_u64,
    .contains_u64 = avx2_contains_u64,
    .add_new_hashes = avx2_add_new_hashes,
    .add_new_u64 = avx2_add_new_u64,
    .add_one = avx2_add_one,
    .contains_one = avx2_contains_one,
    .union_words = avx2_union_words,
    .intersect_words = avx2_intersect_words,
};
