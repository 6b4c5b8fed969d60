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
 * Batches run kernels/block512_loop.h's pipeline (shared with neon.c):
 * keys are hashed and their blocks prefetched 64 keys before they are
 * probed, for memory-level parallelism.
 */
#include <nmmintrin.h> /* SSE4.2 and everything below it, nothing newer */

#include "layout.h"
#include "xxh3_keys_sse42.h"

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

/* One key's mask (block512_loop.h's block512_simd_mask). */
typedef struct block512_simd_mask {
    __m128i q[4]; /* words 4r..4r+3 */
} block512_simd_mask;

/* The mask of one key from the four biases of its selection entry. */
SSE42_INLINE block512_simd_mask sse42_mask_from(uint32_t lo, __m128i b0, __m128i b1, __m128i b2, __m128i b3)
{
    const __m128i *salt = (const __m128i *)(const void *)sse42_salts;
    __m128i vlo = _mm_set1_epi32((int)lo);
    block512_simd_mask m;
    m.q[0] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 0)), b0);
    m.q[1] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 1)), b1);
    m.q[2] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 2)), b2);
    m.q[3] = sse42_pow2_masked(_mm_mullo_epi32(vlo, _mm_load_si128(salt + 3)), b3);
    return m;
}

/* The mask of one key through the 16-bit selection and the nibble table. */
SSE42_INLINE block512_simd_mask block512_simd_mask_of(const uint16_t *select, uint64_t hash)
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
typedef struct block512_simd_table {
    __m128i row[BLOOMSIMD_SELECT_ENTRIES][4];
} block512_simd_table;

static void block512_simd_table_build(const uint16_t *select, block512_simd_table *t)
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

SSE42_INLINE block512_simd_mask block512_simd_mask_row(const block512_simd_table *t, uint64_t hash)
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
SSE42_INLINE __m128i sse42_missing(const uint32_t *block, const block512_simd_mask *m, bool concurrent)
{
    __m128i missing = _mm_andnot_si128(sse42_load_words(block, 0, concurrent), m->q[0]);
    for (unsigned r = 1; r < 4; r++)
        missing = _mm_or_si128(missing, _mm_andnot_si128(sse42_load_words(block, r, concurrent), m->q[r]));
    return missing;
}

SSE42_INLINE uint8_t block512_simd_test(const uint32_t *block, const block512_simd_mask *m, bool concurrent)
{
    __m128i missing = sse42_missing(block, m, concurrent);
    return (uint8_t)_mm_testz_si128(missing, missing);
}

/* One relaxed lock-or per non-zero 64-bit half-register (k of 16 words ->
 * at most 8), the atomicity of bloomsimd_block_or. Rejected: skipping a
 * lock-or whose bits a relaxed load shows already set; at 10^8 keys it
 * measured 52 ns/key vs 40 without (the load waits behind the previous
 * locked op, so it only lengthens the serial chain). */
SSE42_INLINE void sse42_block_or_atomic(uint32_t *block, const block512_simd_mask *m)
{
    uint64_t *block64 = (uint64_t *)(void *)block;
    for (unsigned r = 0; r < 4; r++) {
        uint64_t m0 = (uint64_t)_mm_cvtsi128_si64(m->q[r]);
        uint64_t m1 = (uint64_t)_mm_extract_epi64(m->q[r], 1);
        if (m0) __atomic_fetch_or(&block64[2 * r], m0, __ATOMIC_RELAXED);
        if (m1) __atomic_fetch_or(&block64[2 * r + 1], m1, __ATOMIC_RELAXED);
    }
}

SSE42_INLINE void block512_simd_or(uint32_t *block, const block512_simd_mask *m, bool concurrent)
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
SSE42_INLINE uint8_t block512_simd_or_report(uint32_t *block, const block512_simd_mask *m, bool concurrent)
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

/* ---- batches ------------------------------------------------------------------- */

/* kernels/block512_loop.h's pipeline over the primitives above: the bias
 * table from batches of BLOCK512_LOOP_SMALL keys on, the nibble table
 * below; steady-state groups of 8 unrolled (docs/kernels/sse42.md: 86.4 ->
 * 81.0 instructions per lookup, 0.98-0.99x the time). */
#define BLOCK512_LOOP_PREFIX sse42
#define BLOCK512_LOOP_UNROLL 1
#include "block512_loop.h"

/* Single keys: the four-register probe with the nibble table, nothing else.
 * Concurrent filters go out of line, so that the plain probe keeps its mask
 * in registers (the atomic loop would otherwise spill it). */
static __attribute__((noinline)) void sse42_add_one_atomic(const bloomsimd_geometry *g, uint64_t hash)
{
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    sse42_block_or_atomic(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m);
}

static __attribute__((noinline)) bool sse42_contains_one_atomic(const bloomsimd_geometry *g, uint64_t hash)
{
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    return block512_simd_test(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, true);
}

static void sse42_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) {
        sse42_add_one_atomic(g, hash);
        return;
    }
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    block512_simd_or(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, false);
}

static bool sse42_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) return sse42_contains_one_atomic(g, hash);
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    return block512_simd_test(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, false);
}

SSE42_INLINE bool sse42_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    uint32_t *block = bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks));
    if (g->concurrent) return block512_simd_or_report(block, &m, true);
    return block512_simd_or_report(block, &m, false);
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
#define SPLIT256_LOOP_DISTANCE BLOCK512_LOOP_AHEAD
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
