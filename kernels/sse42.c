/*
 * sse42.c — the SSE4.2 kernel: kernels/layout.h with 128-bit vectors.
 *
 * A block is four xmm registers (4 x 4 words). Per key, the 16 bit positions
 * come from four pmulld of lo by the salts, the bit index b = x >> 27 is
 * turned into 1u << b without a variable shift (see sse42_pow2_masked), and
 * the k-of-16 word selection is folded into that conversion: a batch
 * expands its k's 64-entry selection table once into the conversion's
 * biases (4 KiB), so a key's selection costs four paddd memory operands.
 * Every lookup form (bytes, bitmap, indices, count), insert and
 * insert-and-report-new runs in the same pipeline; decisions and rejected
 * variants with their measurements: docs/kernels/sse42.md.
 *
 * Hashing runs in general registers (imul), beside the vector work of the
 * probe: SSE has no 64-bit lane multiply, and the probe already keeps the
 * vector units busy. Byte keys (hash_keys, kernels/xxh3_keys_sse42.h) are
 * hashed before any probe, so there the idle vector units take a share of
 * each group of keys beside the general registers.
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
#include "xxh3_keys_sse42.h"

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

/* ---- hashing ---------------------------------------------------------------- */

/* XXH3 of 8-byte keys in general registers (bloomsimd_xxh3_u64: two imul
 * per key). SSE4.2 has no 64-bit lane multiply; emulating it with three
 * pmuludq per multiply, two keys per register, took 1.38 ns/key against
 * 0.92 for this loop (10^5 keys, paired rounds; docs/kernels/sse42.md). */
static void sse42_hash_u64(uint64_t bitflip, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    for (size_t i = 0; i < n; i++) {
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

#define SSE42_INLINE static inline __attribute__((always_inline))

#define SSE42_ONE 0x3F800000u /* the bits of 1.0f */
#define SSE42_BIAS(q)                                                                                                  \
    {((q) & 1u) ? SSE42_ONE : 0u, ((q) & 2u) ? SSE42_ONE : 0u, ((q) & 4u) ? SSE42_ONE : 0u, ((q) & 8u) ? SSE42_ONE : 0u}

/* Row q: the bias of sse42_pow2_masked for words 4r..4r+3 when the nibble
 * (select >> 4r) & 15 is q. Single keys and small batches use it; larger
 * batches expand their k's whole selection table instead (below). */
static _Alignas(16) const uint32_t sse42_nibble_bias[16][4] = {
    SSE42_BIAS(0u),  SSE42_BIAS(1u),  SSE42_BIAS(2u),  SSE42_BIAS(3u),  SSE42_BIAS(4u),  SSE42_BIAS(5u),
    SSE42_BIAS(6u),  SSE42_BIAS(7u),  SSE42_BIAS(8u),  SSE42_BIAS(9u),  SSE42_BIAS(10u), SSE42_BIAS(11u),
    SSE42_BIAS(12u), SSE42_BIAS(13u), SSE42_BIAS(14u), SSE42_BIAS(15u),
};

static _Alignas(16) const uint32_t sse42_salts[16] = BLOOMSIMD_SALTS;

typedef struct sse42_mask {
    __m128i q[4]; /* words 4r..4r+3 */
} sse42_mask;

/* The mask of one key from the four biases of its selection entry. */
SSE42_INLINE sse42_mask sse42_mask_from(uint32_t lo, __m128i b0, __m128i b1, __m128i b2, __m128i b3)
{
    const __m128i *salt = (const __m128i *)(const void *)sse42_salts;
    __m128i vlo = _mm_set1_epi32((int)lo);
    sse42_mask m;
    m.q[0] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 0)), b0);
    m.q[1] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 1)), b1);
    m.q[2] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 2)), b2);
    m.q[3] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 3)), b3);
    return m;
}

/* The mask of one key through the 16-bit selection and the nibble table. */
SSE42_INLINE sse42_mask sse42_mask_of(const uint16_t *select, uint64_t hash)
{
    uint32_t lo = (uint32_t)hash;
    unsigned s = select[lo >> BLOOMSIMD_SELECT_SHIFT];
    const __m128i *nib = (const __m128i *)(const void *)sse42_nibble_bias;
    return sse42_mask_from(lo, _mm_load_si128(nib + (s & 15u)), _mm_load_si128(nib + ((s >> 4) & 15u)),
                           _mm_load_si128(nib + ((s >> 8) & 15u)), _mm_load_si128(nib + (s >> 12)));
}

/*
 * A batch first expands the 64 selection masks of its k into their biases:
 * row e holds the four bias registers of SELECT_k[e] (4 KiB, on the stack,
 * built in ~1,100 instructions). A key's four biases are then four paddd
 * memory operands at row lo >> 26, instead of a load of the mask and four
 * nibble extractions (shift, and, scale) feeding loads of the nibble table.
 * See docs/kernels/sse42.md for the measurements.
 */
typedef struct sse42_bias_table {
    __m128i row[BLOOMSIMD_SELECT_ENTRIES][4];
} sse42_bias_table;

static void sse42_bias_table_build(const uint16_t *select, sse42_bias_table *t)
{
    const __m128i one = _mm_set1_epi32((int)SSE42_ONE);
    __m128i lane[4];
    for (unsigned r = 0; r < 4; r++)
        lane[r] = _mm_setr_epi32((int)(1u << 4 * r), (int)(2u << 4 * r), (int)(4u << 4 * r), (int)(8u << 4 * r));
    for (unsigned e = 0; e < BLOOMSIMD_SELECT_ENTRIES; e++) {
        __m128i s = _mm_set1_epi32((int)select[e]);
        for (unsigned r = 0; r < 4; r++)
            t->row[e][r] = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(s, lane[r]), lane[r]), one);
    }
}

SSE42_INLINE sse42_mask sse42_mask_row(const sse42_bias_table *t, uint64_t hash)
{
    uint32_t lo = (uint32_t)hash;
    const __m128i *row = t->row[lo >> BLOOMSIMD_SELECT_SHIFT];
    return sse42_mask_from(lo, row[0], row[1], row[2], row[3]);
}

/* ---- probe one block --------------------------------------------------------- */

/* A concurrent filter's block read as 64-bit relaxed atomic loads (bits only
 * go 0 -> 1, so any mix of old and new words is an allowed answer, exactly
 * as bloomsimd_block_test's per-word atomic loads). */
SSE42_INLINE __m128i sse42_load_relaxed(const uint32_t *words)
{
    const uint64_t *p = (const uint64_t *)(const void *)words;
    long long a = (long long)__atomic_load_n(p, __ATOMIC_RELAXED);
    long long b = (long long)__atomic_load_n(p + 1, __ATOMIC_RELAXED);
    return _mm_set_epi64x(b, a);
}

SSE42_INLINE __m128i sse42_load_words(const uint32_t *block, unsigned r, bool concurrent)
{
    return concurrent ? sse42_load_relaxed(block + 4 * r) : _mm_load_si128((const __m128i *)(const void *)(block + 4 * r));
}

/* The mask's bits that the block lacks, OR-ed over the four registers. */
SSE42_INLINE __m128i sse42_missing(const uint32_t *block, const sse42_mask *m, bool concurrent)
{
    __m128i missing = _mm_andnot_si128(sse42_load_words(block, 0, concurrent), m->q[0]);
    for (unsigned r = 1; r < 4; r++)
        missing = _mm_or_si128(missing, _mm_andnot_si128(sse42_load_words(block, r, concurrent), m->q[r]));
    return missing;
}

SSE42_INLINE uint8_t sse42_block_test(const uint32_t *block, const sse42_mask *m, bool concurrent)
{
    __m128i missing = sse42_missing(block, m, concurrent);
    return (uint8_t)_mm_testz_si128(missing, missing);
}

/* One relaxed lock-or per non-zero 64-bit half-register (k of 16 words ->
 * at most 8), the atomicity of bloomsimd_block_or. Rejected: skipping a
 * lock-or whose bits a relaxed load shows already set; at 10^8 keys it
 * measured 52 ns/key vs 40 without (the load waits behind the previous
 * locked op, so it only lengthens the serial chain). */
SSE42_INLINE void sse42_block_or_atomic(uint32_t *block, const sse42_mask *m)
{
    uint64_t *block64 = (uint64_t *)(void *)block;
    for (unsigned r = 0; r < 4; r++) {
        uint64_t m0 = (uint64_t)_mm_cvtsi128_si64(m->q[r]);
        uint64_t m1 = (uint64_t)_mm_extract_epi64(m->q[r], 1);
        if (m0) __atomic_fetch_or(&block64[2 * r], m0, __ATOMIC_RELAXED);
        if (m1) __atomic_fetch_or(&block64[2 * r + 1], m1, __ATOMIC_RELAXED);
    }
}

SSE42_INLINE void sse42_block_or(uint32_t *block, const sse42_mask *m, bool concurrent)
{
    if (concurrent) {
        sse42_block_or_atomic(block, m);
        return;
    }
    for (unsigned r = 0; r < 4; r++) {
        __m128i *p = (__m128i *)(void *)(block + 4 * r);
        _mm_store_si128(p, _mm_or_si128(_mm_load_si128(p), m->q[r]));
    }
}

/*
 * OR the mask in and report whether a bit was missing before
 * (bloomsimd_block_or_report). Plain filters: new = the OR over the block
 * of (w | m) ^ w, which costs one pxor and one por per register over an
 * insert. Concurrent filters: the block is read with relaxed loads; a key
 * whose bits are all there is old without a locked op (the common case for
 * dedup streams); otherwise each 64-bit word still lacking a bit gets a
 * lock-or, and the key is new if any of those found a bit missing in the
 * value it replaced, so of two threads racing on one new key at least one
 * reports it.
 */
SSE42_INLINE uint8_t sse42_block_or_report(uint32_t *block, const sse42_mask *m, bool concurrent)
{
    if (concurrent) {
        __m128i missing[4];
        __m128i any = _mm_setzero_si128();
        for (unsigned r = 0; r < 4; r++) {
            missing[r] = _mm_andnot_si128(sse42_load_relaxed(block + 4 * r), m->q[r]);
            any = _mm_or_si128(any, missing[r]);
        }
        if (_mm_testz_si128(any, any)) return 0;
        uint64_t *block64 = (uint64_t *)(void *)block;
        uint8_t fresh = 0;
        for (unsigned r = 0; r < 4; r++) {
            uint64_t lack[2] = {(uint64_t)_mm_cvtsi128_si64(missing[r]), (uint64_t)_mm_extract_epi64(missing[r], 1)};
            uint64_t bits[2] = {(uint64_t)_mm_cvtsi128_si64(m->q[r]), (uint64_t)_mm_extract_epi64(m->q[r], 1)};
            for (unsigned h = 0; h < 2; h++) {
                if (!lack[h]) continue;
                uint64_t old = __atomic_fetch_or(&block64[2 * r + h], bits[h], __ATOMIC_RELAXED);
                fresh |= (old & bits[h]) != bits[h];
            }
        }
        return fresh;
    }
    __m128i changed = _mm_setzero_si128();
    for (unsigned r = 0; r < 4; r++) {
        __m128i *p = (__m128i *)(void *)(block + 4 * r);
        __m128i w = _mm_load_si128(p);
        __m128i u = _mm_or_si128(w, m->q[r]);
        /* Opaque to the optimiser: otherwise gcc rewrites u ^ w as
         * m & ~w, which needs a register copy of w per word group
         * (20 instead of 16 instructions per key). */
        __asm__("" : "+x"(u));
        _mm_store_si128(p, u);
        changed = _mm_or_si128(changed, _mm_xor_si128(u, w));
    }
    return (uint8_t)!_mm_testz_si128(changed, changed);
}

/* ---- what a batch does per key, and where its answers go ----------------------- */

typedef enum sse42_op { SSE42_LOOKUP, SSE42_INSERT, SSE42_ADD_NEW } sse42_op;

/* The hit forms of kernel.h, plus "count only" (out == NULL). */
enum { SSE42_TO_BYTES = BLOOMSIMD_HITS_BYTES, SSE42_TO_BITMAP = BLOOMSIMD_HITS_BITMAP,
       SSE42_TO_INDICES = BLOOMSIMD_HITS_INDICES, SSE42_TO_COUNT = 3 };

/* Probe one key: insert it, or look it up / insert it and report it new
 * (returns the answer; 0 for a plain insert). */
SSE42_INLINE uint8_t sse42_key(uint32_t *block, const sse42_mask *m, sse42_op op, bool concurrent)
{
    if (op == SSE42_INSERT) {
        sse42_block_or(block, m, concurrent);
        return 0;
    }
    return op == SSE42_LOOKUP ? sse42_block_test(block, m, concurrent) : sse42_block_or_report(block, m, concurrent);
}

/* Records answer `hit` of key i in byte or index form (bitmaps are
 * gathered by the callers) and counts it. */
SSE42_INLINE void sse42_answer(int to, void *out, size_t i, uint8_t hit, size_t *hits)
{
    if (to == SSE42_TO_BYTES)
        ((uint8_t *)out)[i] = hit;
    else if (to == SSE42_TO_INDICES)
        ((uint32_t *)out)[*hits] = (uint32_t)i; /* overwritten by the next hit if this is a miss */
    *hits += hit;
}

/* ---- the pipeline -------------------------------------------------------------- */

typedef struct sse42_ring {
    uint64_t hash[SSE42_RING];
    const uint32_t *block[SSE42_RING];
} sse42_ring;

SSE42_INLINE void sse42_prefetch(const uint32_t *block, bool for_write)
{
    if (for_write)
        __builtin_prefetch(block, 1, 3);
    else
        __builtin_prefetch(block, 0, 3);
}

/*
 * Hash (unless prehashed) keys [from, end), record hash and block in the
 * ring, prefetch the blocks. In general registers: the probe keeps the
 * vector units busy (pmulld, shifts, cvttps2dq, logic: ~25-33 vector
 * operations per key), so hashing with imul beside it beats hashing two
 * keys per xmm with pmuludq (10^5 keys: lookups 0.86x, inserts 0.83x the
 * time, same instruction count; docs/kernels/sse42.md).
 */
SSE42_INLINE void sse42_stage(const bloomsimd_geometry *g, const uint64_t *src, size_t from, size_t end,
                              sse42_ring *ring, bool prehashed, bool for_write)
{
    if (!prehashed && end - from == SSE42_GROUP) bloomsimd_prefetch_keys_ahead(src + from);
    for (size_t i = from; i < end; i++) {
        uint64_t v;
        memcpy(&v, src + i, sizeof v); /* keys may be under-aligned */
        uint64_t h = prehashed ? v : bloomsimd_xxh3_u64(v, g->hash_bitflip);
        size_t slot = i & (SSE42_RING - 1u);
        ring->hash[slot] = h;
        ring->block[slot] = bloomsimd_block_ptr(g, bloomsimd_block_index(h, g->nblocks));
        sse42_prefetch(ring->block[slot], for_write);
    }
}

/* Probe the `count` staged keys [base, base + count); base is a multiple of
 * SSE42_GROUP = 8, so a group fills exactly one bitmap byte. A bitmap
 * lookup walks its group backwards, so that the byte builds up as
 * bits = 2 * bits + hit (one lea) instead of a variable shift per key;
 * lookups do not depend on their order, inserts keep it. With `full`
 * (count == SSE42_GROUP) the loop is unrolled: no per-key loop test or
 * index arithmetic (-4 instructions per key). */
SSE42_INLINE size_t sse42_group(const sse42_ring *ring, const sse42_bias_table *t, size_t base, size_t count,
                                bool full, sse42_op op, int to, bool concurrent, void *out, size_t hits)
{
    size_t slot = base & (SSE42_RING - 1u);
#define SSE42_PROBE(j)                                                                                                     sse42_mask m = sse42_mask_row(t, ring->hash[slot + (j)]);                                                              uint8_t hit = sse42_key((uint32_t *)(uintptr_t)ring->block[slot + (j)], &m, op, concurrent)
    if (to == SSE42_TO_BITMAP) {
        unsigned bits = 0;
        if (full) {
#pragma GCC unroll 8
            for (size_t j = SSE42_GROUP; j-- > 0;) {
                SSE42_PROBE(j);
                bits = 2 * bits + hit;
                hits += hit;
            }
        } else {
            for (size_t j = count; j-- > 0;) {
                SSE42_PROBE(j);
                bits = 2 * bits + hit;
                hits += hit;
            }
        }
        ((uint8_t *)out)[base / 8] = (uint8_t)bits;
        return hits;
    }
    if (full) {
#pragma GCC unroll 8
        for (size_t j = 0; j < SSE42_GROUP; j++) {
            SSE42_PROBE(j);
            if (op != SSE42_INSERT) sse42_answer(to, out, base + j, hit, &hits);
        }
    } else {
        for (size_t j = 0; j < count; j++) {
            SSE42_PROBE(j);
            if (op != SSE42_INSERT) sse42_answer(to, out, base + j, hit, &hits);
        }
    }
#undef SSE42_PROBE
    return hits;
}

/* Stages the first SSE42_AHEAD keys of a batch (out of line: once per call). */
static __attribute__((noinline)) void sse42_fill(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                                 sse42_ring *ring, bool prehashed, bool for_write)
{
    for (size_t s = 0; s < n && s < SSE42_AHEAD; s += SSE42_GROUP)
        sse42_stage(g, src, s, s + SSE42_GROUP < n ? s + SSE42_GROUP : n, ring, prehashed, for_write);
}

/* The last groups of a batch (fewer than SSE42_AHEAD + SSE42_GROUP keys):
 * one out-of-line copy for every flavour, the flags tested per key. */
static __attribute__((noinline)) size_t sse42_drain(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                                    size_t base, sse42_ring *ring, const sse42_bias_table *t,
                                                    void *out, size_t hits, bool prehashed, sse42_op op, int to)
{
    for (; base < n; base += SSE42_GROUP) {
        size_t next = base + SSE42_AHEAD;
        if (next < n)
            sse42_stage(g, src, next, next + SSE42_GROUP < n ? next + SSE42_GROUP : n, ring, prehashed,
                        op != SSE42_LOOKUP);
        hits = sse42_group(ring, t, base, base + SSE42_GROUP < n ? SSE42_GROUP : n - base, false, op, to,
                           g->concurrent, out, hits);
    }
    return hits;
}

/*
 * Every batch of >= SSE42_SMALL keys: stage SSE42_AHEAD keys, then per group
 * stage the group SSE42_AHEAD keys ahead and probe the current one. The ring
 * holds the live window [base, base + AHEAD + GROUP) <= SSE42_RING entries.
 * The steady state, where every group is full, is the specialised loop;
 * the drain is shared (sse42_drain).
 */
SSE42_INLINE size_t sse42_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, void *out, bool prehashed,
                              sse42_op op, int to, bool concurrent)
{
    sse42_bias_table t;
    sse42_ring ring;
    const bool for_write = op != SSE42_LOOKUP;
    size_t hits = 0, base = 0;
    sse42_bias_table_build(g->select, &t);
    sse42_fill(g, src, n, &ring, prehashed, for_write);
    for (; base + SSE42_AHEAD + SSE42_GROUP <= n; base += SSE42_GROUP) {
        sse42_stage(g, src, base + SSE42_AHEAD, base + SSE42_AHEAD + SSE42_GROUP, &ring, prehashed, for_write);
        hits = sse42_group(&ring, &t, base, SSE42_GROUP, !concurrent, op, to, concurrent, out, hits);
    }
    return sse42_drain(g, src, n, base, &ring, &t, out, hits, prehashed, op, to);
}

/*
 * Batches below SSE42_SMALL keys: building the bias table (~1,100
 * instructions) costs about what it saves in 150-200 keys, so keys are
 * hashed and prefetched in one pass and probed through the nibble table in
 * a second. Measured (10^5 keys, ns/key, this path / the table path): 64
 * keys 0.87x, 128 keys 0.97x, 256 keys 1.05x, 512 keys 1.08x.
 */
#define SSE42_SMALL 192u

static size_t sse42_small(const bloomsimd_geometry *g, const uint64_t *src, size_t n, void *out, bool prehashed,
                          sse42_op op, int to)
{
    uint64_t hash[SSE42_SMALL];
    uint32_t *block[SSE42_SMALL];
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, src + i, sizeof v);
        hash[i] = prehashed ? v : bloomsimd_xxh3_u64(v, g->hash_bitflip);
        block[i] = bloomsimd_block_ptr(g, bloomsimd_block_index(hash[i], g->nblocks));
        sse42_prefetch(block[i], op != SSE42_LOOKUP);
    }
    size_t hits = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        sse42_mask m = sse42_mask_of(g->select, hash[i]);
        uint8_t hit = sse42_key(block[i], &m, op, g->concurrent);
        if (op == SSE42_INSERT) continue;
        if (to == SSE42_TO_BITMAP) {
            bits |= (unsigned)hit << (i & 7u);
            hits += hit;
            if ((i & 7u) == 7u || i + 1 == n) {
                ((uint8_t *)out)[i / 8] = (uint8_t)bits;
                bits = 0;
            }
        } else {
            sse42_answer(to, out, i, hit, &hits);
        }
    }
    return hits;
}

/* ---- entry points ---------------------------------------------------------------- */

/* Plain filters get one loop per (input, operation, answer form), with no
 * per-key branch; concurrent filters one per (input, operation), choosing
 * the form per key (a predictable branch next to the atomic accesses). */
static size_t sse42_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n, int to, void *out, bool prehashed)
{
    if (n < SSE42_SMALL) return sse42_small(g, src, n, out, prehashed, SSE42_LOOKUP, to);
    if (g->concurrent) return sse42_run(g, src, n, out, prehashed, SSE42_LOOKUP, to, true);
    switch (to) {
    case SSE42_TO_BYTES: return sse42_run(g, src, n, out, prehashed, SSE42_LOOKUP, SSE42_TO_BYTES, false);
    case SSE42_TO_BITMAP: return sse42_run(g, src, n, out, prehashed, SSE42_LOOKUP, SSE42_TO_BITMAP, false);
    case SSE42_TO_INDICES: return sse42_run(g, src, n, out, prehashed, SSE42_LOOKUP, SSE42_TO_INDICES, false);
    default: return sse42_run(g, src, n, out, prehashed, SSE42_LOOKUP, SSE42_TO_COUNT, false);
    }
}

static size_t sse42_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                    bloomsimd_hit_form form, void *out)
{
    return sse42_lookup(g, hashes, n, out ? (int)form : SSE42_TO_COUNT, out, true);
}

static size_t sse42_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                                 void *out)
{
    return sse42_lookup(g, keys, n, out ? (int)form : SSE42_TO_COUNT, out, false);
}

static void sse42_insert(const bloomsimd_geometry *g, const uint64_t *src, size_t n, bool prehashed)
{
    if (n < SSE42_SMALL)
        sse42_small(g, src, n, NULL, prehashed, SSE42_INSERT, SSE42_TO_COUNT);
    else if (g->concurrent)
        sse42_run(g, src, n, NULL, prehashed, SSE42_INSERT, SSE42_TO_COUNT, true);
    else
        sse42_run(g, src, n, NULL, prehashed, SSE42_INSERT, SSE42_TO_COUNT, false);
}

static void sse42_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    sse42_insert(g, hashes, n, true);
}

static void sse42_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n) { sse42_insert(g, keys, n, false); }

/* Insert-and-report-new runs in the insert pipeline: keys are probed in
 * order and each one's OR is stored before the next key's block is read
 * (store-to-load forwarding when they share it), which is the in-order rule. */
static size_t sse42_add_new(const bloomsimd_geometry *g, const uint64_t *src, size_t n, uint8_t *out, bool prehashed)
{
    int to = out ? SSE42_TO_BYTES : SSE42_TO_COUNT;
    if (n < SSE42_SMALL) return sse42_small(g, src, n, out, prehashed, SSE42_ADD_NEW, to);
    if (g->concurrent) return sse42_run(g, src, n, out, prehashed, SSE42_ADD_NEW, to, true);
    return out ? sse42_run(g, src, n, out, prehashed, SSE42_ADD_NEW, SSE42_TO_BYTES, false)
               : sse42_run(g, src, n, NULL, prehashed, SSE42_ADD_NEW, SSE42_TO_COUNT, false);
}

static size_t sse42_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return sse42_add_new(g, hashes, n, out, true);
}

static size_t sse42_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return sse42_add_new(g, keys, n, out, false);
}

/* Single keys: the four-register probe with the nibble table, nothing else.
 * Concurrent filters go out of line, so that the plain probe keeps its mask
 * in registers (the atomic loop would otherwise spill it). */
static __attribute__((noinline)) void sse42_add_one_atomic(const bloomsimd_geometry *g, uint64_t hash)
{
    sse42_mask m = sse42_mask_of(g->select, hash);
    sse42_block_or_atomic(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m);
}

static __attribute__((noinline)) bool sse42_contains_one_atomic(const bloomsimd_geometry *g, uint64_t hash)
{
    sse42_mask m = sse42_mask_of(g->select, hash);
    return sse42_block_test(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, true);
}

static void sse42_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) {
        sse42_add_one_atomic(g, hash);
        return;
    }
    sse42_mask m = sse42_mask_of(g->select, hash);
    sse42_block_or(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, false);
}

static bool sse42_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) return sse42_contains_one_atomic(g, hash);
    sse42_mask m = sse42_mask_of(g->select, hash);
    return sse42_block_test(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, false);
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

/* ---- split256 -----------------------------------------------------------------
 *
 * kernels/layout_split256.h: a block is two xmm (words 0-3, 4-7) with one
 * bit in every word, so a key's mask is two pmulld by the salts and two
 * sse42_pow2_masked with the bias of 1.0f in every lane (no selection):
 *   lookup   hit = no (mask & ~block) bit in either half     (ptest)
 *   insert   block |= mask
 * Blocks are read with an inline-asm movdqa on every filter (as the avx2
 * kernel does): not a C access, so no C data race on a concurrent filter,
 * and bits only go 0 -> 1, so any mix of old and new bytes a racing read
 * sees is an allowed answer. Concurrent inserts: split256_loop.h's lock-or
 * per 64-bit word lacking bits, lock bts per bit for insert-new. Batches
 * run kernels/split256_loop.h's pipeline with the hashes in general
 * registers (sse42_hash_u64's reason); measurements:
 * docs/kernels/split256.md.
 */

#include "split256_scalar.h" /* BLOOMSIMD_BY_LAYOUT */
#define SPLIT256_LOOP_DISTANCE SSE42_AHEAD
#include "split256_loop.h"

static _Alignas(16) const uint32_t sse42_split256_salts[8] = BLOOMSIMD_SPLIT256_SALTS;

typedef struct sse42_split256_pair {
    __m128i lo, hi; /* words 0-3, 4-7 */
} sse42_split256_pair;

SSE42_INLINE sse42_split256_pair sse42_split256_mask(uint32_t lo)
{
    const __m128i *salt = (const __m128i *)(const void *)sse42_split256_salts;
    const __m128i one = _mm_set1_epi32((int)SSE42_ONE);
    __m128i vlo = _mm_set1_epi32((int)lo);
    sse42_split256_pair m = {sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt)), one),
                             sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 1)), one)};
    return m;
}

/* 16 bytes of a block read as described above. */
SSE42_INLINE __m128i sse42_load_racy(const char *p)
{
    __m128i v;
    __asm__("movdqa %1, %0" : "=x"(v) : "m"(*(const __m128i *)(const void *)p));
    return v;
}

/* The mask bits the block lacks, per word (nonzero lanes: missing). */
SSE42_INLINE sse42_split256_pair sse42_split256_missing(const char *block, sse42_split256_pair m)
{
    sse42_split256_pair x = {_mm_andnot_si128(sse42_load_racy(block), m.lo),
                             _mm_andnot_si128(sse42_load_racy(block + 16), m.hi)};
    return x;
}

SSE42_INLINE __m128i sse42_split256_missing_any(const char *block, uint64_t hash)
{
    sse42_split256_pair x = sse42_split256_missing(block, sse42_split256_mask((uint32_t)hash));
    return _mm_or_si128(x.lo, x.hi);
}

SSE42_INLINE uint8_t split256_simd_test(uint64_t hash, const char *block, const int concurrent)
{
    (void)concurrent; /* blocks are read by inline asm on every filter */
    __m128i missing = sse42_split256_missing_any(block, hash);
    return (uint8_t)_mm_testz_si128(missing, missing);
}

/* Staged key j's missing lanes. */
#define SSE42_SPLIT256_MISSING(j) sse42_split256_missing_any((const char *)(uintptr_t)block[j], hash[j])

/* 8 keys' answers: signed-saturating packs keep a lane nonzero iff it was,
 * so two levels leave one dword per key, zero iff the key is present; a
 * compare and two movmskps give the 8 bits. */
SSE42_INLINE unsigned split256_simd_test8(const uint64_t *hash, const uint64_t *block, const int concurrent)
{
    (void)concurrent; /* blocks are read by inline asm on every filter */
    __m128i q0 = _mm_packs_epi16(_mm_packs_epi32(SSE42_SPLIT256_MISSING(0), SSE42_SPLIT256_MISSING(1)),
                                 _mm_packs_epi32(SSE42_SPLIT256_MISSING(2), SSE42_SPLIT256_MISSING(3)));
    __m128i q1 = _mm_packs_epi16(_mm_packs_epi32(SSE42_SPLIT256_MISSING(4), SSE42_SPLIT256_MISSING(5)),
                                 _mm_packs_epi32(SSE42_SPLIT256_MISSING(6), SSE42_SPLIT256_MISSING(7)));
    const __m128i zero = _mm_setzero_si128();
    unsigned h0 = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(q0, zero)));
    unsigned h1 = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(q1, zero)));
    return h0 | h1 << 4;
}
#undef SSE42_SPLIT256_MISSING

SSE42_INLINE void split256_simd_or(char *block, uint64_t hash, const int concurrent)
{
    sse42_split256_pair m = sse42_split256_mask((uint32_t)hash);
    if (concurrent) {
        sse42_split256_pair x = sse42_split256_missing(block, m);
        _Alignas(16) uint64_t missing[4];
        _mm_store_si128((__m128i *)(void *)missing, x.lo);
        _mm_store_si128((__m128i *)(void *)(missing + 2), x.hi);
        split256_loop_or_atomic(block, missing);
        return;
    }
    __m128i *b = (__m128i *)(void *)block;
    _mm_store_si128(b, _mm_or_si128(_mm_load_si128(b), m.lo));
    _mm_store_si128(b + 1, _mm_or_si128(_mm_load_si128(b + 1), m.hi));
}

SSE42_INLINE uint8_t split256_simd_or_report(char *block, uint64_t hash, const int concurrent)
{
    sse42_split256_pair m = sse42_split256_mask((uint32_t)hash);
    if (concurrent) {
        sse42_split256_pair x = sse42_split256_missing(block, m);
        _Alignas(16) uint32_t missing[8];
        _mm_store_si128((__m128i *)(void *)missing, x.lo);
        _mm_store_si128((__m128i *)(void *)(missing + 4), x.hi);
        return split256_loop_or_report_atomic(block, missing);
    }
    __m128i *b = (__m128i *)(void *)block;
    __m128i b0 = _mm_load_si128(b), b1 = _mm_load_si128(b + 1);
    _mm_store_si128(b, _mm_or_si128(b0, m.lo));
    _mm_store_si128(b + 1, _mm_or_si128(b1, m.hi));
    __m128i missing = _mm_or_si128(_mm_andnot_si128(b0, m.lo), _mm_andnot_si128(b1, m.hi));
    return (uint8_t)!_mm_testz_si128(missing, missing);
}

/* Hashes in general registers (two imul each), block addresses
 * base + ((h >> 32) * nblocks >> 32) * 32. */
SSE42_INLINE void split256_simd_stage8(const split256_ctx *c, const uint64_t *src, uint64_t *hash, uint64_t *block,
                                       const int from_keys)
{
    for (size_t j = 0; j < 8; j++) {
        uint64_t h;
        memcpy(&h, src + j, sizeof h); /* keys may be under-aligned */
        if (from_keys) h = bloomsimd_xxh3_u64(h, c->bitflip);
        hash[j] = h;
        uint64_t index = bloomsimd_split256_block_index(h, c->nblocks);
        block[j] = (uint64_t)(uintptr_t)(c->base + index * BLOOMSIMD_SPLIT256_BLOCK_BYTES);
    }
}

SSE42_INLINE char *sse42_split256_block(const bloomsimd_geometry *g, uint64_t hash)
{
    return (char *)(void *)g->words + bloomsimd_split256_block_index(hash, g->nblocks) * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
}

static bool split256_simd_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return split256_simd_test(hash, sse42_split256_block(g, hash), 0);
}

static void split256_simd_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent)
        split256_simd_or(sse42_split256_block(g, hash), hash, 1);
    else
        split256_simd_or(sse42_split256_block(g, hash), hash, 0);
}

BLOOMSIMD_BY_LAYOUT(sse42, split256_simd)
#include "single_key.h"
BLOOMSIMD_SINGLE_KEY(sse42, split256_simd)

const bloomsimd_kernel bloomsimd_kernel_sse42 = {
    .name = "sse42",
    .required_features = BLOOMSIMD_CPU_SSE42,
    .emulated = false,
    .default_layout = BLOOMSIMD_LAYOUT_SPLIT256,
    .hash_u64 = sse42_hash_u64,
    .add_hashes = sse42_by_layout_add_hashes,
    .contains_hashes = sse42_by_layout_contains_hashes,
    .add_u64 = sse42_by_layout_add_u64,
    .contains_u64 = sse42_by_layout_contains_u64,
    .add_new_hashes = sse42_by_layout_add_new_hashes,
    .add_new_u64 = sse42_by_layout_add_new_u64,
    .add_one = sse42_by_layout_add_one,
    .contains_one = sse42_by_layout_contains_one,
    .single = BLOOMSIMD_SINGLE_KEY_ENTRIES(sse42),
    .hash_keys = sse42_hash_keys,
    .union_words = sse42_union_words,
    .intersect_words = sse42_intersect_words,
};
