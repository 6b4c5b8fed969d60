/*
 * avx2.c — the AVX2 kernel (compiled with -mavx2 only: no BMI2, no FMA).
 *
 * Hashing runs 4 keys per ymm register (64-bit lanes). A block is two ymm
 * halves (words 0-7 and 8-15). For one key, with lo its low hash word and
 * c_w = (lo * SALT[w]) >> 27 the bit of word w (layout.h section 4):
 *
 *   lookup   t_w = block_w >> c_w              (vpsrlvd: the probed bit to bit 0)
 *            missing_w = ~t_w & e_w            (vpandn; e_w = 1 if w is selected, else 0)
 *            hit = no missing_w in either half
 *   insert   block_w |= e_w << c_w             (vpsllvd: 0 for unselected words)
 *
 * e is the key's row of the EXPANDED selection table: SELECT_k's 64 entries
 * (layout.h section 3) as 64 rows of 16 dwords, built once per process per
 * k (avx2_select_rows). A row is two 32-byte memory operands that the
 * AND-NOT folds in, so choosing the words costs the probe nothing; deriving
 * e from the 16-bit entry costs a broadcast and four ALU operations per
 * key (the single-key calls do that, see avx2_contains_one).
 *
 * For k <= 8 a lookup gathers the k selected words into ONE ymm (COMPACT
 * rows: two vpermd and a vblendvps) and computes their bits with one
 * multiply instead of two: vpmulld is two uops on Intel cores, and the
 * shifts and multiplies share two ports, which is what limits this kernel.
 *
 * A group of 8 keys reports its 8 answers through two levels of saturating
 * packs and one movemask (avx2_zero_mask8), not a vptest and setcc per key.
 *
 * Pipeline: keys are hashed AVX2_DISTANCE keys ahead of the probe, in groups
 * of 8, and their blocks prefetched, so that up to AVX2_DISTANCE cache misses
 * are in flight at once. Each staged key leaves its hash, its block address
 * and its row address in a ring; the probe loop reads them 64 keys later.
 *
 * Byte keys (hash_keys): kernels/xxh3_keys_avx2.h hashes runs of keys stored
 * back to back with one width of 8 to 64 bytes (fixed width, Arrow offsets,
 * pointers into one buffer), 4 per ymm and 2 in general registers
 * per step; other keys go one at a time through the reference's code
 * (docs/kernels/avx2.md, "Byte keys").
 *
 * Measurements, rejected variants and the 256-bit-block study:
 * docs/kernels/avx2.md.
 *
 * Concurrent filters (g->concurrent):
 *   - blocks are read with inline-asm vmovdqa / vpermd (avx2_load_racy): no
 *     C access, so no C data race; the hardware reads every byte atomically
 *     and bits only go 0 -> 1, so any mix of old and new bytes a racing read
 *     sees is a valid answer, as with the scalar kernel's relaxed loads (the
 *     avx512 kernel does the same). Lookups read this way on every filter:
 *     it is the same instruction as a plain load.
 *   - inserts OR only the bits still missing, one relaxed `lock or` per
 *     64-bit word that has any (the filter bytes equal bloomsimd_block_or's);
 *   - insert-and-report-new sets each missing bit with a relaxed atomic
 *     fetch-OR of that one bit (`lock bts`) and calls the key new if any
 *     returned the bit clear: of two threads racing on a new key, the first
 *     to set a bit that was missing sees it clear (bloomsimd_block_or_report's
 *     rule).
 */
#include <immintrin.h>
#include <stddef.h>

#include "layout.h"

/*
 * Prefetch distance, in keys, and prefetch level: prefetcht1 (locality 2),
 * 64 keys ahead. A t0 prefetch that misses holds one of the few L1 miss
 * buffers until the line arrives, which capped the lines in flight; t1 fills
 * L2, the probe then hits L2, and the lines in flight grow with the distance
 * (10^8 keys: lookups 14.7 -> 9.8 ns/key, t0 -> t1; the sweep is in
 * docs/kernels/avx2.md).
 */
#ifndef BLOOMSIMD_AVX2_DISTANCE
#define BLOOMSIMD_AVX2_DISTANCE 64u
#endif
#define AVX2_DISTANCE ((size_t)BLOOMSIMD_AVX2_DISTANCE)
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

_Static_assert(BLOOMSIMD_AVX2_DISTANCE >= 16 && (BLOOMSIMD_AVX2_DISTANCE & (BLOOMSIMD_AVX2_DISTANCE - 1)) == 0,
               "the prefetch distance must be a power of two of at least two groups");

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

/* Byte keys (it uses avx2_xxh3 and avx2_mul64 above). */
#include "xxh3_keys_avx2.h"
/* Parquet's XXH64: u64 keys and fixed-width views of 4, 8, 16 bytes. */
#include "xxh64_u64_avx2.h"

/* ---------------------------------------------------------------------------
 * Word selection: the rows.
 * ------------------------------------------------------------------------ */

#define AVX2_ROW_WORDS 16u

/* e of one 16-bit select mask, as two ymm. Broadcast as 16-bit lanes, each
 * dword holds select twice; AND with 1 << w keeps bit w, min(., 1) makes it
 * 0 or 1. */
AVX2_INLINE void avx2_select_lanes(unsigned select, __m256i *e0, __m256i *e1)
{
    const __m256i bit0 = _mm256_setr_epi32(1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7);
    const __m256i bit1 = _mm256_setr_epi32(1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15);
    const __m256i one = _mm256_set1_epi32(1);
    __m256i s = _mm256_set1_epi16((short)select);
    *e0 = _mm256_min_epu32(_mm256_and_si256(s, bit0), one);
    *e1 = _mm256_min_epu32(_mm256_and_si256(s, bit1), one);
}

/*
 * The rows of one k: two tables of 64 rows of 64 bytes, a fixed distance
 * apart, so that one row address (the compact row's) serves both:
 *   compact   (k <= 8) the selected words as 8 lanes: the salt of the i-th
 *             selected word, and its word index with bit 31 set if it lies
 *             in the upper half (vpermd reads bits 0-2, vblendvps bit 31);
 *             lanes past k repeat the first selected word, which tests that
 *             word twice and changes no answer;
 *   expanded  e of the entry (avx2_select_lanes), every k.
 * 8 KiB per k in use.
 */
#define AVX2_EXPANDED_OFFSET (BLOOMSIMD_SELECT_ENTRIES * 64u)
typedef struct avx2_rows {
    _Alignas(64) uint32_t compact[BLOOMSIMD_SELECT_ENTRIES][AVX2_ROW_WORDS];
    uint32_t expanded[BLOOMSIMD_SELECT_ENTRIES][AVX2_ROW_WORDS];
} avx2_rows;
_Static_assert(offsetof(avx2_rows, expanded) == AVX2_EXPANDED_OFFSET, "the row tables lie a fixed distance apart");

static void avx2_build_rows(const uint16_t *select, uint32_t k, avx2_rows *rows)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    memset(rows->compact, 0, sizeof rows->compact);
    for (unsigned r = 0; r < BLOOMSIMD_SELECT_ENTRIES; r++) {
        __m256i e0, e1;
        avx2_select_lanes(select[r], &e0, &e1);
        _mm256_storeu_si256((__m256i *)(void *)rows->expanded[r], e0);
        _mm256_storeu_si256((__m256i *)(void *)(rows->expanded[r] + 8), e1);
        if (k > 8) continue;
        unsigned words[16], count = 0;
        for (unsigned w = 0; w < 16; w++)
            if (select[r] >> w & 1u) words[count++] = w;
        for (unsigned i = 0; i < 8; i++) {
            unsigned w = words[i < count ? i : 0];
            rows->compact[r][i] = salts[w];
            rows->compact[r][8 + i] = (w & 7u) | (w >= 8 ? UINT32_C(0x80000000) : 0u);
        }
    }
}

/*
 * The rows of g->select, built once per process per k: the first call for a
 * k claims the slot, builds it and publishes it with a release store of the
 * table it expanded; later calls (any thread) see that pointer with an
 * acquire load and use the rows. A call that finds the slot being built by
 * another thread, or built from another table (only a test's hand-made
 * geometry can do that), builds into the caller's scratch (~0.1 us), so
 * nothing ever waits and the rows always match g->select.
 */
typedef struct avx2_select_slot {
    avx2_rows rows;
    const uint16_t *source; /* atomic: the table the rows expand, set last */
    int claimed;            /* atomic: 1 once a thread builds this slot */
} avx2_select_slot;

static avx2_select_slot avx2_select_slots[16];

static const avx2_rows *avx2_select_rows(const bloomsimd_geometry *g, avx2_rows *scratch)
{
    avx2_select_slot *slot = &avx2_select_slots[(g->k - 1u) & 15u];
    if (__atomic_load_n(&slot->source, __ATOMIC_ACQUIRE) == g->select) return &slot->rows;
    int unclaimed = 0;
    if (__atomic_compare_exchange_n(&slot->claimed, &unclaimed, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        avx2_build_rows(g->select, g->k, &slot->rows);
        __atomic_store_n(&slot->source, g->select, __ATOMIC_RELEASE);
        return &slot->rows;
    }
    avx2_build_rows(g->select, g->k, scratch);
    return scratch;
}

/* ---------------------------------------------------------------------------
 * The probe of one key.
 * ------------------------------------------------------------------------ */

/* The 16 bit positions c_w = (lo * SALT[w]) >> 27, as two ymm. */
AVX2_INLINE void avx2_bit_counts(uint32_t lo, __m256i *c0, __m256i *c1)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    const __m256i salt0 = _mm256_loadu_si256((const __m256i *)(const void *)salts);
    const __m256i salt1 = _mm256_loadu_si256((const __m256i *)(const void *)(salts + 8));
    __m256i vlo = _mm256_set1_epi32((int)lo);
    *c0 = _mm256_srli_epi32(_mm256_mullo_epi32(vlo, salt0), 27);
    *c1 = _mm256_srli_epi32(_mm256_mullo_epi32(vlo, salt1), 27);
}

/* A block half read that is not a C access (see the file comment). */
AVX2_INLINE __m256i avx2_load_racy(const char *p)
{
    __m256i v;
    __asm__("vmovdqa %1, %0" : "=x"(v) : "m"(*(const __m256i *)(const void *)p));
    return v;
}

/* A block half permuted by vpermd, read as avx2_load_racy reads. */
AVX2_INLINE __m256i avx2_permute_racy(const char *p, __m256i index)
{
    __m256i v;
    __asm__("vpermd %2, %1, %0" : "=x"(v) : "x"(index), "m"(*(const __m256i *)(const void *)p));
    return v;
}

/* One key's probe inputs: its bit positions c and its selection e. */
typedef struct avx2_key {
    __m256i c0, c1, e0, e1;
} avx2_key;

/* The key of a hash, with e from its expanded row (`row` is its compact
 * row; the expanded row lies AVX2_EXPANDED_OFFSET further). */
AVX2_INLINE avx2_key avx2_key_of(uint64_t hash, const char *row)
{
    avx2_key key;
    avx2_bit_counts((uint32_t)hash, &key.c0, &key.c1);
    key.e0 = _mm256_load_si256((const __m256i *)(const void *)(row + AVX2_EXPANDED_OFFSET));
    key.e1 = _mm256_load_si256((const __m256i *)(const void *)(row + AVX2_EXPANDED_OFFSET + 32));
    return key;
}

/* Per lane, nonzero (1) where a selected word of the block lacks its bit. */
AVX2_INLINE __m256i avx2_missing_lanes(const char *block, avx2_key key)
{
    __m256i t0 = _mm256_srlv_epi32(avx2_load_racy(block), key.c0);
    __m256i t1 = _mm256_srlv_epi32(avx2_load_racy(block + 32), key.c1);
    return _mm256_or_si256(_mm256_andnot_si256(t0, key.e0), _mm256_andnot_si256(t1, key.e1));
}

/* As avx2_missing_lanes for k <= 8 through the compact row: the selected
 * words gathered into one ymm (vpermd from each half, vblendvps by bit 31
 * of the index), their bits from one multiply by the gathered salts. */
AVX2_INLINE __m256i avx2_missing_compact(const char *block, uint64_t hash, const char *row)
{
    const __m256i salt = _mm256_load_si256((const __m256i *)(const void *)row);
    const __m256i index = _mm256_load_si256((const __m256i *)(const void *)(row + 32));
    __m256i c = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((int)(uint32_t)hash), salt), 27);
    __m256i lo = avx2_permute_racy(block, index), hi = avx2_permute_racy(block + 32, index);
    __m256i words = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), _mm256_castsi256_ps(index)));
    return _mm256_andnot_si256(_mm256_srlv_epi32(words, c), _mm256_set1_epi32(1));
}

/* The key's 16-word mask, e_w << c_w. */
AVX2_INLINE void avx2_masks(avx2_key key, __m256i *m0, __m256i *m1)
{
    *m0 = _mm256_sllv_epi32(key.e0, key.c0);
    *m1 = _mm256_sllv_epi32(key.e1, key.c1);
}

/* OR `missing` (the mask bits the block lacked) into the block, one relaxed
 * `lock or` per 64-bit word that has any. */
AVX2_INLINE void avx2_or_atomic(char *block, __m256i missing0, __m256i missing1)
{
    const __m256i zero = _mm256_setzero_si256();
    unsigned zero0 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(missing0, zero)));
    unsigned zero1 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(missing1, zero)));
    unsigned words = ~(zero0 | (zero1 << 4)) & 0xffu;
    if (!words) return;
    _Alignas(32) uint64_t m[8];
    _mm256_store_si256((__m256i *)(void *)m, missing0);
    _mm256_store_si256((__m256i *)(void *)(m + 4), missing1);
    uint64_t *q = (uint64_t *)(void *)block;
    for (; words; words &= words - 1) {
        unsigned i = (unsigned)__builtin_ctz(words);
        __atomic_fetch_or(q + i, m[i], __ATOMIC_RELAXED);
    }
}

/* As avx2_or_atomic, one bit at a time, returning 1 if any bit was still
 * clear when this thread set it. Each 32-bit word of `missing` has at most
 * one bit; the fetch-OR of a single constant-shaped bit whose result is
 * tested compiles to `lock bts`. */
AVX2_INLINE uint8_t avx2_or_report_atomic(char *block, __m256i missing0, __m256i missing1)
{
    const __m256i zero = _mm256_setzero_si256();
    unsigned zero0 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(missing0, zero)));
    unsigned zero1 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(missing1, zero)));
    unsigned words = ~(zero0 | (zero1 << 8)) & 0xffffu;
    if (!words) return 0;
    _Alignas(32) uint32_t m[16];
    _mm256_store_si256((__m256i *)(void *)m, missing0);
    _mm256_store_si256((__m256i *)(void *)(m + 8), missing1);
    uint64_t *q = (uint64_t *)(void *)block;
    uint8_t fresh = 0;
    for (; words; words &= words - 1) {
        unsigned w = (unsigned)__builtin_ctz(words); /* 32-bit word w is half w % 2 of 64-bit word w / 2 */
        unsigned bit = ((unsigned)__builtin_ctz(m[w]) + 32u * (w & 1u)) & 63u; /* the & lets gcc see `lock bts` */
        uint64_t one = UINT64_C(1) << bit;
        fresh |= (__atomic_fetch_or(q + w / 2, one, __ATOMIC_RELAXED) & one) == 0;
    }
    return fresh;
}

AVX2_INLINE void avx2_insert_key(char *block, avx2_key key, const int concurrent)
{
    __m256i m0, m1;
    avx2_masks(key, &m0, &m1);
    if (concurrent) {
        avx2_or_atomic(block, _mm256_andnot_si256(avx2_load_racy(block), m0),
                       _mm256_andnot_si256(avx2_load_racy(block + 32), m1));
        return;
    }
    __m256i *b = (__m256i *)(void *)block;
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), m0));
    _mm256_store_si256(b + 1, _mm256_or_si256(_mm256_load_si256(b + 1), m1));
}

/* Insert one key into a plain filter and return the bits of its mask that
 * the block lacked (nonzero: the key is new). Keys are inserted in order,
 * each with its own load and store, so a later key in the same block sees
 * the earlier key's bits: the in-order rule of kernel.h. */
AVX2_INLINE __m256i avx2_insert_new_lanes(char *block, avx2_key key)
{
    __m256i m0, m1;
    avx2_masks(key, &m0, &m1);
    __m256i *b = (__m256i *)(void *)block;
    __m256i b0 = _mm256_load_si256(b), b1 = _mm256_load_si256(b + 1);
    _mm256_store_si256(b, _mm256_or_si256(b0, m0));
    _mm256_store_si256(b + 1, _mm256_or_si256(b1, m1));
    return _mm256_or_si256(_mm256_andnot_si256(b0, m0), _mm256_andnot_si256(b1, m1));
}

/* Insert one key, return 1 if it was new. */
AVX2_INLINE uint8_t avx2_insert_new_key(char *block, avx2_key key, const int concurrent)
{
    if (concurrent) {
        __m256i m0, m1;
        avx2_masks(key, &m0, &m1);
        return avx2_or_report_atomic(block, _mm256_andnot_si256(avx2_load_racy(block), m0),
                                     _mm256_andnot_si256(avx2_load_racy(block + 32), m1));
    }
    __m256i missing = avx2_insert_new_lanes(block, key);
    return (uint8_t)!_mm256_testz_si256(missing, missing);
}

/*
 * Bit j set if all 8 lanes of x_j are zero. Signed-saturating packs keep a
 * lane nonzero iff it was: two levels take 4 vectors x 8 lanes to 4 x 8
 * bytes, split over the two 128-bit lanes; OR the halves, and one compare
 * and one movemask give the 8 answers: ~1.4 instructions per key instead of
 * a vptest, setcc, shift and OR each (lookups 30.5 -> 27.6 instructions per
 * key). avx2_zero_mask_packed is the last step, for callers that pack as
 * they go.
 */
AVX2_INLINE unsigned avx2_zero_mask_packed(__m256i q0, __m256i q1)
{
    __m256i any = _mm256_or_si256(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
    __m256i zero = _mm256_cmpeq_epi32(any, _mm256_setzero_si256());
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(zero));
}

AVX2_INLINE unsigned avx2_zero_mask8(__m256i x0, __m256i x1, __m256i x2, __m256i x3, __m256i x4, __m256i x5,
                                     __m256i x6, __m256i x7)
{
    __m256i q0 = _mm256_packs_epi16(_mm256_packs_epi32(x0, x1), _mm256_packs_epi32(x2, x3));
    return avx2_zero_mask_packed(q0, _mm256_packs_epi16(_mm256_packs_epi32(x4, x5), _mm256_packs_epi32(x6, x7)));
}

/* ---------------------------------------------------------------------------
 * The pipeline: stage keys [i, i + count) (hash them if `from_keys`, compute
 * block and row addresses, prefetch), then probe keys staged AVX2_DISTANCE
 * earlier.
 * ------------------------------------------------------------------------ */

/* Per-call constants. nblocks == 2^32 does not fit the 32-bit multiplier
 * lane; then ((h >> 32) * 2^32) >> 32 is just h >> 32 (`full`). */
typedef struct avx2_ctx {
    const char *base; /* g->words as bytes */
    const char *rows; /* the compact rows of g->select as bytes */
    uint64_t nblocks;
    uint64_t bitflip;
    bool full;
} avx2_ctx;

/* Per staged key: its hash, and the addresses of its block and its row. */
typedef struct avx2_ring {
    _Alignas(32) uint64_t hash[AVX2_RING];
    _Alignas(32) uint64_t block[AVX2_RING];
    _Alignas(32) uint64_t row[AVX2_RING];
} avx2_ring;

/* Block address of each hash: base + ((h >> 32) * nblocks >> 32) * 64. */
AVX2_INLINE __m256i avx2_block_addrs(const avx2_ctx *c, __m256i h)
{
    const __m256i nblocks = _mm256_set1_epi64x((long long)c->nblocks);
    __m256i hi = _mm256_srli_epi64(h, 32);
    __m256i block = c->full ? hi : _mm256_srli_epi64(_mm256_mul_epu32(hi, nblocks), 32);
    return _mm256_add_epi64(_mm256_slli_epi64(block, 6), _mm256_set1_epi64x((long long)(uintptr_t)c->base));
}

/* Row address of each hash: rows + (lo >> 26) * 64 = rows + ((h >> 20) & 0xfc0). */
AVX2_INLINE __m256i avx2_row_addrs(const avx2_ctx *c, __m256i h)
{
    const __m256i index = _mm256_and_si256(_mm256_srli_epi64(h, 20), _mm256_set1_epi64x(0xfc0));
    return _mm256_add_epi64(index, _mm256_set1_epi64x((long long)(uintptr_t)c->rows));
}

AVX2_INLINE void avx2_prefetch(uint64_t block, const int for_write)
{
    /* the locality argument must be a constant */
    if (for_write)
        __builtin_prefetch((const void *)(uintptr_t)block, 1, BLOOMSIMD_AVX2_WRITE_LOCALITY);
    else
        __builtin_prefetch((const void *)(uintptr_t)block, 0, BLOOMSIMD_AVX2_READ_LOCALITY);
}

AVX2_INLINE uint64_t avx2_load_u64(const uint64_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Stage one group (i is a multiple of AVX2_GROUP, so its slots are
 * contiguous). A full group is not prefetched here but by the next stage
 * call (avx2_prefetch_staged), which reads the addresses back from the ring
 * once the stores have long completed: taking them out of the vector
 * registers costs 7 shuffle-port uops per 4 keys (vmovq, vpextrq,
 * vextracti128), and reloading a fresh 256-bit store stalls. */
AVX2_INLINE void avx2_stage(const avx2_ctx *c, const uint64_t *src, size_t i, size_t count, avx2_ring *r,
                            const int from_keys, const int for_write)
{
    size_t slot = i & AVX2_RING_MASK;
    if (count == AVX2_GROUP) {
        if (from_keys) bloomsimd_prefetch_keys_ahead(src + i);
        for (size_t half = 0; half < AVX2_GROUP; half += 4) {
            __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + half));
            if (from_keys) h = avx2_xxh3(h, _mm256_set1_epi64x((long long)c->bitflip));
            _mm256_store_si256((__m256i *)(void *)(r->hash + slot + half), h);
            _mm256_store_si256((__m256i *)(void *)(r->block + slot + half), avx2_block_addrs(c, h));
            _mm256_store_si256((__m256i *)(void *)(r->row + slot + half), avx2_row_addrs(c, h));
        }
        return;
    }
    for (size_t j = 0; j < count; j++) {
        uint64_t h = avx2_load_u64(src + i + j);
        if (from_keys) h = bloomsimd_xxh3_u64(h, c->bitflip);
        r->hash[slot + j] = h;
        r->block[slot + j] = (uint64_t)(uintptr_t)(c->base + bloomsimd_block_index(h, c->nblocks) * 64u);
        r->row[slot + j] = (uint64_t)(uintptr_t)(c->rows + ((uint32_t)h >> BLOOMSIMD_SELECT_SHIFT) * 64u);
        avx2_prefetch(r->block[slot + j], for_write);
    }
}

/* Prefetch a full group staged earlier, from its ring slots. */
AVX2_INLINE void avx2_prefetch_staged(const avx2_ring *r, size_t i, const int for_write)
{
    size_t slot = i & AVX2_RING_MASK;
    for (size_t j = 0; j < AVX2_GROUP; j++) avx2_prefetch(r->block[slot + j], for_write);
}

static inline size_t avx2_min(size_t a, size_t b) { return a < b ? a : b; }

/* What a pipeline run does with each staged key. */
enum { AVX2_LOOKUP, AVX2_INSERT, AVX2_INSERT_NEW, AVX2_TOUCH };

/* Staged key `slot` as missing lanes (nonzero: a selected word lacks its bit). */
AVX2_INLINE __m256i avx2_staged_missing(const avx2_ring *r, size_t slot, const int compact)
{
    const char *block = (const char *)(uintptr_t)r->block[slot], *row = (const char *)(uintptr_t)r->row[slot];
    if (compact) return avx2_missing_compact(block, r->hash[slot], row);
    return avx2_missing_lanes(block, avx2_key_of(r->hash[slot], row));
}

/* The hit mask (bit j: key base + j may be present) of `count` staged keys. */
AVX2_INLINE unsigned avx2_lookup_group(const avx2_ring *r, size_t base, size_t count, const int compact)
{
    size_t s = base & AVX2_RING_MASK;
    if (count == AVX2_GROUP)
        return avx2_zero_mask8(avx2_staged_missing(r, s + 0, compact), avx2_staged_missing(r, s + 1, compact),
                               avx2_staged_missing(r, s + 2, compact), avx2_staged_missing(r, s + 3, compact),
                               avx2_staged_missing(r, s + 4, compact), avx2_staged_missing(r, s + 5, compact),
                               avx2_staged_missing(r, s + 6, compact), avx2_staged_missing(r, s + 7, compact));
    unsigned hits = 0;
    for (size_t j = 0; j < count; j++) {
        __m256i missing = avx2_staged_missing(r, s + j, compact);
        hits |= (unsigned)_mm256_testz_si256(missing, missing) << j;
    }
    return hits;
}

/* The new-key mask of a full group of staged keys, inserted in key order
 * (each key's load follows the previous key's store). Packed as they come
 * (avx2_zero_mask8's steps), so that at most three partial results stay in
 * registers instead of eight vectors spilling. */
AVX2_INLINE unsigned avx2_insert_new_group(const avx2_ring *r, size_t base)
{
    size_t s = base & AVX2_RING_MASK;
#define AVX2_NEW(j)                                                                                                   \
    avx2_insert_new_lanes((char *)(uintptr_t)r->block[s + (j)],                                                     \
                          avx2_key_of(r->hash[s + (j)], (const char *)(uintptr_t)r->row[s + (j)]))
    __m256i p01 = AVX2_NEW(0);
    p01 = _mm256_packs_epi32(p01, AVX2_NEW(1));
    __m256i p23 = AVX2_NEW(2);
    p23 = _mm256_packs_epi32(p23, AVX2_NEW(3));
    __m256i q0 = _mm256_packs_epi16(p01, p23);
    __m256i p45 = AVX2_NEW(4);
    p45 = _mm256_packs_epi32(p45, AVX2_NEW(5));
    __m256i p67 = AVX2_NEW(6);
    p67 = _mm256_packs_epi32(p67, AVX2_NEW(7));
#undef AVX2_NEW
    return ~avx2_zero_mask_packed(q0, _mm256_packs_epi16(p45, p67)) & 0xffu;
}

/*
 * Positions of the set bits of every byte value, packed one per byte (byte
 * i of avx2_index_lut[m] = the i-th set bit of m): the INDICES form turns a
 * group's hit mask into its hit indices with one load, one widening and one
 * 32-byte store.
 */
#define AVX2_POP8(m)                                                                                                  \
    (((m) & 1) + ((m) >> 1 & 1) + ((m) >> 2 & 1) + ((m) >> 3 & 1) + ((m) >> 4 & 1) + ((m) >> 5 & 1) +                 \
     ((m) >> 6 & 1) + ((m) >> 7 & 1))
#define AVX2_LUT_BIT(m, j) (((m) >> (j) & 1) ? (uint64_t)(j) << (8 * AVX2_POP8((m) & ((1 << (j)) - 1))) : 0)
#define AVX2_LUT_ENTRY(m)                                                                                             \
    (AVX2_LUT_BIT(m, 0) | AVX2_LUT_BIT(m, 1) | AVX2_LUT_BIT(m, 2) | AVX2_LUT_BIT(m, 3) | AVX2_LUT_BIT(m, 4) |      \
     AVX2_LUT_BIT(m, 5) | AVX2_LUT_BIT(m, 6) | AVX2_LUT_BIT(m, 7))
#define AVX2_LUT4(m) AVX2_LUT_ENTRY(m), AVX2_LUT_ENTRY((m) + 1), AVX2_LUT_ENTRY((m) + 2), AVX2_LUT_ENTRY((m) + 3)
#define AVX2_LUT16(m) AVX2_LUT4(m), AVX2_LUT4((m) + 4), AVX2_LUT4((m) + 8), AVX2_LUT4((m) + 12)
#define AVX2_LUT64(m) AVX2_LUT16(m), AVX2_LUT16((m) + 16), AVX2_LUT16((m) + 32), AVX2_LUT16((m) + 48)
static const uint64_t avx2_index_lut[256] = {AVX2_LUT64(0), AVX2_LUT64(64), AVX2_LUT64(128), AVX2_LUT64(192)};

/*
 * Writes a group's answers in `form` and returns how many are set. `hits`
 * has bit j for key first + j; count is 8 except in the last group; `total`
 * is the count of earlier hits (where INDICES continue).
 *   BYTES: bit j -> byte j: the multiply copies the mask into every byte,
 *   the AND keeps bit j in byte j, and adding 0x7f per byte carries a
 *   nonzero byte into its top bit (at most 0x80 + 0x7f: never past it).
 *   INDICES: a full group stores 8 indices at out + total; those past its
 *   own hits are overwritten later or lie below n (total + 8 <= first + 8
 *   <= n), inside the caller's uint32_t[n].
 */
AVX2_INLINE size_t avx2_put_hits(bloomsimd_hit_form form, void *out, size_t first, size_t count, unsigned hits,
                                 size_t total)
{
    size_t found = (size_t)__builtin_popcount(hits);
    if (!out) return found;
    if (count < AVX2_GROUP) {
        for (size_t j = 0; j < count; j++) bloomsimd_hit_put(form, out, first + j, &total, (uint8_t)(hits >> j & 1));
        return found;
    }
    if (form == BLOOMSIMD_HITS_BYTES) {
        uint64_t spread = ((uint64_t)hits * UINT64_C(0x0101010101010101)) & UINT64_C(0x8040201008040201);
        uint64_t bytes = ((spread + UINT64_C(0x7f7f7f7f7f7f7f7f)) >> 7) & UINT64_C(0x0101010101010101);
        memcpy((uint8_t *)out + first, &bytes, sizeof bytes);
    } else if (form == BLOOMSIMD_HITS_BITMAP) {
        ((uint8_t *)out)[first / 8] = (uint8_t)hits;
    } else {
        __m256i index = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)avx2_index_lut[hits]));
        index = _mm256_add_epi32(index, _mm256_set1_epi32((int)(uint32_t)first));
        _mm256_storeu_si256((__m256i *)(void *)((uint32_t *)out + total), index);
    }
    return found;
}

/*
 * Probe the `count` keys staged at [base, base + count): look up (answers
 * in `form`), insert, insert and report new (bytes), or read the first word
 * of each block (touch, summed into *touched). Returns the hits or new keys.
 */
AVX2_INLINE size_t avx2_probe_group(const avx2_ring *r, size_t base, size_t count, const int op, const int concurrent,
                                    const int compact, bloomsimd_hit_form form, void *out, size_t total,
                                    uint64_t *touched)
{
    size_t slot = base & AVX2_RING_MASK;
    if (op == AVX2_LOOKUP)
        return avx2_put_hits(form, out, base, count, avx2_lookup_group(r, base, count, compact), total);
    if (op == AVX2_INSERT_NEW && !concurrent && count == AVX2_GROUP)
        return avx2_put_hits(BLOOMSIMD_HITS_BYTES, out, base, count, avx2_insert_new_group(r, base), 0);
    size_t fresh = 0;
    for (size_t j = 0; j < count; j++) {
        char *block = (char *)(uintptr_t)r->block[slot + j];
        if (op == AVX2_TOUCH) {
            *touched += avx2_load_u64((const uint64_t *)(const void *)block);
            continue;
        }
        avx2_key key = avx2_key_of(r->hash[slot + j], (const char *)(uintptr_t)r->row[slot + j]);
        if (op == AVX2_INSERT) {
            avx2_insert_key(block, key, concurrent);
        } else {
            uint8_t is_new = avx2_insert_new_key(block, key, concurrent);
            if (out) ((uint8_t *)out)[base + j] = is_new;
            fresh += is_new;
        }
    }
    return fresh;
}

/*
 * Group g is staged AVX2_DISTANCE keys before it is probed, and prefetched
 * one stage call after it was staged (`pending`: a full group staged but
 * not yet prefetched). The steady-state loop, where every group is full, is
 * separate from the ramp-up and drain so that it runs with constant group
 * sizes. Returns hits (lookups), new keys (insert-new) or the sum of the
 * words read (touch).
 */
AVX2_INLINE size_t avx2_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                            const int op, const int concurrent, const int compact, bloomsimd_hit_form form, void *out)
{
    avx2_rows scratch; /* used only when the process-wide rows are not ready (avx2_select_rows) */
    const avx2_rows *rows = op == AVX2_TOUCH ? &scratch : avx2_select_rows(g, &scratch);
    const avx2_ctx c = {(const char *)(const void *)g->words, (const char *)(const void *)rows->compact, g->nblocks,
                        g->hash_bitflip, g->nblocks > UINT32_MAX};
    const int for_write = op == AVX2_INSERT || op == AVX2_INSERT_NEW;
    avx2_ring r;
    size_t total = 0, base = 0, pending = SIZE_MAX;
    uint64_t touched = 0;
    if (op == AVX2_LOOKUP && out) bloomsimd_hits_begin(form, out, n);
    for (size_t i = 0; i < n && i < AVX2_DISTANCE; i += AVX2_GROUP) {
        size_t count = avx2_min(AVX2_GROUP, n - i);
        avx2_stage(&c, src, i, count, &r, from_keys, for_write);
        if (pending != SIZE_MAX) avx2_prefetch_staged(&r, pending, for_write);
        pending = count == AVX2_GROUP ? i : SIZE_MAX;
    }
    for (; base + AVX2_DISTANCE + AVX2_GROUP <= n; base += AVX2_GROUP) {
        /* here every group, and the one staged before it, is full */
        avx2_stage(&c, src, base + AVX2_DISTANCE, AVX2_GROUP, &r, from_keys, for_write);
        avx2_prefetch_staged(&r, base + AVX2_DISTANCE - AVX2_GROUP, for_write);
        pending = base + AVX2_DISTANCE;
        total += avx2_probe_group(&r, base, AVX2_GROUP, op, concurrent, compact, form, out, total, &touched);
    }
    for (; base < n; base += AVX2_GROUP) {
        size_t next = base + AVX2_DISTANCE;
        if (next < n) {
            size_t count = avx2_min(AVX2_GROUP, n - next);
            avx2_stage(&c, src, next, count, &r, from_keys, for_write);
            if (pending != SIZE_MAX) avx2_prefetch_staged(&r, pending, for_write);
            pending = count == AVX2_GROUP ? next : SIZE_MAX;
        } else if (pending != SIZE_MAX) {
            avx2_prefetch_staged(&r, pending, for_write);
            pending = SIZE_MAX;
        }
        total += avx2_probe_group(&r, base, avx2_min(AVX2_GROUP, n - base), op, concurrent, compact, form, out, total,
                                  &touched);
    }
    return op == AVX2_TOUCH ? (size_t)touched : total;
}

/* ---------------------------------------------------------------------------
 * Batch entries: one instantiation per (input, operation, form, selection
 * shape, concurrency) keeps those branches out of the hot loops.
 * ------------------------------------------------------------------------ */

/* Lookups read blocks with avx2_load_racy on every filter: no concurrent
 * instantiation. k <= 8 takes the compact probe. */
AVX2_INLINE size_t avx2_lookup_in(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                                  bloomsimd_hit_form form, void *out)
{
    if (g->k <= 8) return avx2_run(g, src, n, from_keys, AVX2_LOOKUP, 0, 1, form, out);
    return avx2_run(g, src, n, from_keys, AVX2_LOOKUP, 0, 0, form, out);
}

AVX2_INLINE size_t avx2_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                               bloomsimd_hit_form form, void *out)
{
    if (!out) return avx2_lookup_in(g, src, n, from_keys, BLOOMSIMD_HITS_BYTES, NULL);
    switch (form) {
    case BLOOMSIMD_HITS_BITMAP: return avx2_lookup_in(g, src, n, from_keys, BLOOMSIMD_HITS_BITMAP, out);
    case BLOOMSIMD_HITS_INDICES: return avx2_lookup_in(g, src, n, from_keys, BLOOMSIMD_HITS_INDICES, out);
    default: return avx2_lookup_in(g, src, n, from_keys, BLOOMSIMD_HITS_BYTES, out);
    }
}

static size_t avx2_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                   bloomsimd_hit_form form, void *out)
{
    return avx2_lookup(g, hashes, n, 0, form, out);
}

static size_t avx2_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                                void *out)
{
    return avx2_lookup(g, keys, n, 1, form, out);
}

/* Inserts (AVX2_INSERT or AVX2_INSERT_NEW), one instantiation per concurrency. */
AVX2_INLINE size_t avx2_insert(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                               const int op, uint8_t *out)
{
    if (g->concurrent) return avx2_run(g, src, n, from_keys, op, 1, 0, BLOOMSIMD_HITS_BYTES, out);
    return avx2_run(g, src, n, from_keys, op, 0, 0, BLOOMSIMD_HITS_BYTES, out);
}

static void avx2_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    avx2_insert(g, hashes, n, 0, AVX2_INSERT, NULL);
}

static void avx2_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    avx2_insert(g, keys, n, 1, AVX2_INSERT, NULL);
}

static size_t avx2_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return avx2_insert(g, hashes, n, 0, AVX2_INSERT_NEW, out);
}

static size_t avx2_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return avx2_insert(g, keys, n, 1, AVX2_INSERT_NEW, out);
}

static uint64_t avx2_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    return avx2_run(g, keys, n, 1, AVX2_TOUCH, 0, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

static uint64_t avx2_touch_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    return avx2_run(g, hashes, n, 0, AVX2_TOUCH, 0, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

/* ---------------------------------------------------------------------------
 * Single keys: no pipeline and no rows (finding the process-wide rows
 * would cost an atomic load and a compare per call).
 * ------------------------------------------------------------------------ */

AVX2_INLINE const char *avx2_block_of(const bloomsimd_geometry *g, uint64_t hash)
{
    return (const char *)(const void *)g->words + bloomsimd_block_index(hash, g->nblocks) * 64u;
}

/*
 * With the 16-bit select broadcast to every lane, select >> w (vpsrlvd by
 * the lane's word index) has bit 0 = "word w is selected", so
 *     missing_w = ~(block_w >> c_w) & (select >> w)
 * judged on bit 0 only, by one vptest against 1 in every lane. Rejected:
 * the probed bits shifted to the sign, two vmovmskps and a scalar test
 * against select (fewer instructions, 4% slower: docs/kernels/avx2.md).
 */
static bool avx2_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    static const uint32_t consts[24] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, /* word indices */
                                        1, 1, 1, 1, 1, 1, 1, 1};
    const uint32_t *k = consts;
    __asm__("" : "+r"(k)); /* else gcc rebuilds these constants in registers, 3 instructions each */
    const __m256i *cv = (const __m256i *)(const void *)k;
    const char *block = avx2_block_of(g, hash);
    __m256i c0, c1;
    avx2_bit_counts((uint32_t)hash, &c0, &c1);
    __m256i select = _mm256_set1_epi16((short)bloomsimd_word_select(g, hash));
    __m256i t0 = _mm256_srlv_epi32(avx2_load_racy(block), c0);
    __m256i t1 = _mm256_srlv_epi32(avx2_load_racy(block + 32), c1);
    __m256i missing = _mm256_or_si256(_mm256_andnot_si256(t0, _mm256_srlv_epi32(select, _mm256_loadu_si256(cv))),
                                      _mm256_andnot_si256(t1, _mm256_srlv_epi32(select, _mm256_loadu_si256(cv + 1))));
    return _mm256_testz_si256(missing, _mm256_loadu_si256(cv + 2));
}

static void avx2_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    char *block = (char *)(uintptr_t)avx2_block_of(g, hash);
    avx2_key key;
    avx2_bit_counts((uint32_t)hash, &key.c0, &key.c1);
    avx2_select_lanes(bloomsimd_word_select(g, hash), &key.e0, &key.e1);
    if (g->concurrent)
        avx2_insert_key(block, key, 1);
    else
        avx2_insert_key(block, key, 0);
}

AVX2_INLINE bool avx2_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    char *block = (char *)(uintptr_t)avx2_block_of(g, hash);
    avx2_key key;
    avx2_bit_counts((uint32_t)hash, &key.c0, &key.c1);
    avx2_select_lanes(bloomsimd_word_select(g, hash), &key.e0, &key.e1);
    if (g->concurrent) return avx2_insert_new_key(block, key, 1);
    return avx2_insert_new_key(block, key, 0);
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

/* ---------------------------------------------------------------------------
 * split256 (kernels/layout_split256.h): a block is exactly one ymm, with one
 * bit in each of its 8 words, so a key's mask needs no selection:
 *   mask     = 1 << ((lo * SALT) >> 27)      vpmulld, vpsrld, vpsllvd
 *   lookup   hit = (mask & ~block) == 0      vptest (CF), or for a group of 8
 *                                            vpandn and avx2_zero_mask8
 *   insert   block |= mask                   (concurrent: `lock or` per
 *                                            64-bit word that lacks bits)
 * Batches run kernels/split256_loop.h's pipeline with avx2_xxh3 for the
 * hashes; measurements in docs/kernels/split256.md.
 * ------------------------------------------------------------------------ */

#include "split256_scalar.h" /* BLOOMSIMD_BY_LAYOUT */
#define SPLIT256_LOOP_DISTANCE BLOOMSIMD_AVX2_DISTANCE
#define SPLIT256_LOOP_READ_LOCALITY BLOOMSIMD_AVX2_READ_LOCALITY
#define SPLIT256_LOOP_WRITE_LOCALITY BLOOMSIMD_AVX2_WRITE_LOCALITY
#include "split256_loop.h"

AVX2_INLINE __m256i avx2_split256_mask(uint32_t lo)
{
    static const uint32_t salts[8] = BLOOMSIMD_SPLIT256_SALTS;
    const __m256i salt = _mm256_loadu_si256((const __m256i *)(const void *)salts);
    __m256i c = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((int)lo), salt), 27);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), c);
}

AVX2_INLINE char *avx2_split256_block(const bloomsimd_geometry *g, uint64_t hash)
{
    return (char *)(void *)g->words + bloomsimd_split256_block_index(hash, g->nblocks) * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
}

/* OR the mask bits the block lacked, one relaxed `lock or` per 64-bit word
 * that has any (the bytes bloomsimd_split256_or leaves). */
AVX2_INLINE void avx2_split256_or_atomic(char *block, __m256i missing)
{
    __m256i zero = _mm256_cmpeq_epi64(missing, _mm256_setzero_si256());
    unsigned words = ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(zero)) & 0xfu;
    if (!words) return;
    _Alignas(32) uint64_t m[4];
    _mm256_store_si256((__m256i *)(void *)m, missing);
    uint64_t *q = (uint64_t *)(void *)block;
    for (; words; words &= words - 1) {
        unsigned i = (unsigned)__builtin_ctz(words);
        __atomic_fetch_or(q + i, m[i], __ATOMIC_RELAXED);
    }
}

/* As avx2_split256_or_atomic, one bit at a time (`lock bts`), returning 1 if
 * any bit was still clear when this thread set it: avx2_or_report_atomic's
 * rule, so of two threads racing on a new key at least one reports it new. */
AVX2_INLINE uint8_t avx2_split256_or_report_atomic(char *block, __m256i missing)
{
    __m256i zero = _mm256_cmpeq_epi32(missing, _mm256_setzero_si256());
    unsigned words = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(zero)) & 0xffu;
    if (!words) return 0;
    _Alignas(32) uint32_t m[8];
    _mm256_store_si256((__m256i *)(void *)m, missing);
    uint64_t *q = (uint64_t *)(void *)block;
    uint8_t fresh = 0;
    for (; words; words &= words - 1) {
        unsigned w = (unsigned)__builtin_ctz(words);
        unsigned bit = ((unsigned)__builtin_ctz(m[w]) + 32u * (w & 1u)) & 63u;
        uint64_t one = UINT64_C(1) << bit;
        fresh |= (__atomic_fetch_or(q + w / 2, one, __ATOMIC_RELAXED) & one) == 0;
    }
    return fresh;
}

AVX2_INLINE uint8_t split256_simd_test(uint64_t hash, const char *block, const int concurrent)
{
    (void)concurrent; /* blocks are read by inline asm on every filter */
    return (uint8_t)_mm256_testc_si256(avx2_load_racy(block), avx2_split256_mask((uint32_t)hash));
}

AVX2_INLINE void split256_simd_or(char *block, uint64_t hash, const int concurrent)
{
    __m256i mask = avx2_split256_mask((uint32_t)hash);
    if (concurrent) {
        avx2_split256_or_atomic(block, _mm256_andnot_si256(avx2_load_racy(block), mask));
        return;
    }
    __m256i *b = (__m256i *)(void *)block;
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), mask));
}

AVX2_INLINE uint8_t split256_simd_or_report(char *block, uint64_t hash, const int concurrent)
{
    __m256i mask = avx2_split256_mask((uint32_t)hash);
    if (concurrent) return avx2_split256_or_report_atomic(block, _mm256_andnot_si256(avx2_load_racy(block), mask));
    __m256i *b = (__m256i *)(void *)block;
    __m256i old = _mm256_load_si256(b);
    _mm256_store_si256(b, _mm256_or_si256(old, mask));
    return (uint8_t)!_mm256_testc_si256(old, mask);
}

/* Missing bits of staged key j: nonzero lanes where the block lacks its bit. */
AVX2_INLINE __m256i avx2_split256_missing(const uint64_t *hash, const uint64_t *block, size_t j)
{
    return _mm256_andnot_si256(avx2_load_racy((const char *)(uintptr_t)block[j]),
                               avx2_split256_mask((uint32_t)hash[j]));
}

AVX2_INLINE unsigned split256_simd_test8(const uint64_t *hash, const uint64_t *block, const int concurrent)
{
    (void)concurrent; /* blocks are read by inline asm on every filter */
    return avx2_zero_mask8(avx2_split256_missing(hash, block, 0), avx2_split256_missing(hash, block, 1),
                           avx2_split256_missing(hash, block, 2), avx2_split256_missing(hash, block, 3),
                           avx2_split256_missing(hash, block, 4), avx2_split256_missing(hash, block, 5),
                           avx2_split256_missing(hash, block, 6), avx2_split256_missing(hash, block, 7));
}

/* Hashes and block addresses base + ((h >> 32) * nblocks >> 32) * 32 of 8 keys. */
AVX2_INLINE void split256_simd_stage8(const split256_ctx *c, const uint64_t *src, uint64_t *hash, uint64_t *block,
                                      const int from_keys)
{
    const __m256i nblocks = _mm256_set1_epi64x((long long)c->nblocks);
    const __m256i base = _mm256_set1_epi64x((long long)(uintptr_t)c->base);
    for (size_t half = 0; half < 8; half += 4) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(src + half));
        if (from_keys) h = avx2_xxh3(h, _mm256_set1_epi64x((long long)c->bitflip));
        __m256i hi = _mm256_srli_epi64(h, 32);
        __m256i index = c->full ? hi : _mm256_srli_epi64(_mm256_mul_epu32(hi, nblocks), 32);
        _mm256_store_si256((__m256i *)(void *)(hash + half), h);
        _mm256_store_si256((__m256i *)(void *)(block + half), _mm256_add_epi64(_mm256_slli_epi64(index, 5), base));
    }
}

static bool split256_simd_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return _mm256_testc_si256(avx2_load_racy(avx2_split256_block(g, hash)), avx2_split256_mask((uint32_t)hash));
}

static void split256_simd_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent)
        split256_simd_or(avx2_split256_block(g, hash), hash, 1);
    else
        split256_simd_or(avx2_split256_block(g, hash), hash, 0);
}

BLOOMSIMD_BY_LAYOUT(avx2, split256_simd)
#include "single_key.h"
BLOOMSIMD_SINGLE_KEY(avx2, split256_simd)
BLOOMSIMD_BY_LAYOUT_TOUCH(avx2, split256_simd)

const bloomsimd_kernel bloomsimd_kernel_avx2 = {
    .name = "avx2",
    .required_features = BLOOMSIMD_CPU_AVX2,
    .emulated = false,
    .default_layout = BLOOMSIMD_LAYOUT_SPLIT256,
    .hash_u64 = avx2_hash_u64,
    .add_hashes = avx2_by_layout_add_hashes,
    .contains_hashes = avx2_by_layout_contains_hashes,
    .add_u64 = avx2_by_layout_add_u64,
    .contains_u64 = avx2_by_layout_contains_u64,
    .add_new_hashes = avx2_by_layout_add_new_hashes,
    .add_new_u64 = avx2_by_layout_add_new_u64,
    .add_one = avx2_by_layout_add_one,
    .contains_one = avx2_by_layout_contains_one,
    .single = BLOOMSIMD_SINGLE_KEY_ENTRIES(avx2),
    .hash_keys = avx2_hash_keys,
    .hash_u64_parquet = avx2_xxh64_u64,
    .hash_keys_parquet = avx2_xxh64_keys,
    .union_words = avx2_union_words,
    .intersect_words = avx2_intersect_words,
    .touch_u64 = avx2_by_layout_touch_u64,
    .touch_hashes = avx2_by_layout_touch_hashes,
};
