/*
 * avx2.c — the AVX2 kernel (compiled with -mavx2 only: no BMI2, no FMA).
 *
 * Hashing runs 4 keys per ymm register (64-bit lanes). A block is probed as
 * two ymm halves (words 0-7 and 8-15). For one key, with lo its low hash
 * word and c_w = (lo * SALT[w]) >> 27 the bit of word w (layout.h section 4):
 *
 *   lookup   t_w = block_w >> c_w                      (vpsrlvd: the probed bit to bit 0)
 *            missing_w = ~t_w & e_w                    (vpandn, e_w = 1 if w is selected)
 *            hit = no missing_w in either half         (vpor, vptest)
 *   insert   block_w |= e_w << c_w                     (vpsllvd: 0 for unselected words)
 *
 * e is the key's row of the EXPANDED selection table: the 64 entries of
 * SELECT_k (layout.h section 3) as 64 rows of 16 dwords, e_w = (select >> w)
 * & 1 (4 KiB per k). A row is two 32-byte memory operands, so choosing the
 * words costs the probe nothing beyond the two loads the AND-NOT folds in;
 * the 16-bit form would need a broadcast and two ANDs and two compares per
 * key. The rows are built once per process per k (avx2_select_rows) from
 * g->select. Rejected ways to select, with measurements:
 * docs/kernels/avx2.md.
 *
 * Pipeline: keys are hashed AVX2_DISTANCE keys ahead of the probe, in groups
 * of 8, and their blocks prefetched, so that up to AVX2_DISTANCE cache misses
 * are in flight at once. Each staged key leaves its hash, its block address
 * and its row address in a ring; the probe loop reads them 64 keys later.
 *
 * Concurrent filters (g->concurrent):
 *   - blocks are read with an inline-asm vmovdqa (avx2_load_racy): no C
 *     access, so no C data race; the hardware reads every byte atomically
 *     and bits only go 0 -> 1, so any mix of old and new bytes a racing read
 *     sees is a valid answer, as with the scalar kernel's relaxed loads
 *     (the avx512 kernel does the same). Lookups use it on every filter: it
 *     is the same instruction as a plain load.
 *   - inserts OR only the bits still missing, one relaxed `lock or` per
 *     64-bit word that has any (the filter bytes equal bloomsimd_block_or's);
 *   - insert-and-report-new sets each missing bit with a relaxed atomic
 *     fetch-OR of that bit (`lock bts`) and calls the key new if any returned
 *     the bit clear: of two threads racing on a new key, the first to set a
 *     bit that was missing sees it clear (bloomsimd_block_or_report's rule).
 */
#include <immintrin.h>

#include "layout.h"

/*
 * Prefetch distance, in keys, and prefetch level: prefetcht1 (locality 2),
 * 64 keys ahead. A t0 prefetch that misses holds one of the few L1 miss
 * buffers until the line arrives, which capped the lines in flight; t1 fills
 * L2, the probe then hits L2, and the lines in flight grow with the distance
 * (10^8 keys: lookups 14.7 -> 9.8 ns/key, t0 -> t1). The distance sweep is
 * in docs/kernels/avx2.md.
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
#ifndef AVX2_SHUF
#define AVX2_SHUF 1
#endif
/* The high half of each 64-bit lane moved to the low half, for vpmuludq
 * (which reads only the low half): vpshufd runs on the shuffle ports,
 * leaving the shift ports (which the hash and the probe crowd) alone. */
AVX2_INLINE __m256i avx2_high_halves(__m256i a)
{
    return AVX2_SHUF ? _mm256_shuffle_epi32(a, 0xf5) : _mm256_srli_epi64(a, 32);
}

AVX2_INLINE __m256i avx2_mul64(__m256i a, __m256i c_lo, __m256i c_hi)
{
    __m256i lolo = _mm256_mul_epu32(a, c_lo);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(avx2_high_halves(a), c_lo), _mm256_mul_epu32(a, c_hi));
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
 * Word selection: the expanded rows.
 * ------------------------------------------------------------------------ */

/* One row: e_w = (select >> w) & 1 for words 0-15, as two ymm. */
#define AVX2_ROW_WORDS 16u

/* e of one 16-bit select mask. Broadcast as 16-bit lanes, each dword holds
 * select twice; AND with 1 << w keeps bit w, and min(., 1) makes it 0 or 1. */
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
 * The selection rows of one k:
 *   expanded  row r = e of SELECT[r] (above): inserts, and lookups for k > 8;
 *   compact   k <= 8 only: row r lists the selected words, 8 lanes: the
 *             salt of the i-th selected word, and its word index with bit 31
 *             set if it lies in the upper half (vpermd reads bits 0-2,
 *             vblendvps bit 31); lanes past k repeat the first word, which
 *             tests it twice and changes no answer.
 */
typedef struct avx2_rows {
    _Alignas(64) uint32_t expanded[BLOOMSIMD_SELECT_ENTRIES][AVX2_ROW_WORDS];
    _Alignas(64) uint32_t compact[BLOOMSIMD_SELECT_ENTRIES][AVX2_ROW_WORDS];
} avx2_rows;

static void avx2_build_rows(const uint16_t *select, uint32_t k, avx2_rows *rows)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    for (unsigned r = 0; r < BLOOMSIMD_SELECT_ENTRIES; r++) {
        __m256i e0, e1;
        avx2_select_lanes(select[r], &e0, &e1);
        _mm256_store_si256((__m256i *)(void *)rows->expanded[r], e0);
        _mm256_store_si256((__m256i *)(void *)(rows->expanded[r] + 8), e1);
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
 * geometry could do that), builds into the caller's scratch (~100 ns), so
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
 * Per-call constants, block addresses, the probe of one key.
 * ------------------------------------------------------------------------ */

/* nblocks == 2^32 does not fit the 32-bit multiplier lane; then
 * ((h >> 32) * 2^32) >> 32 is just h >> 32 (`full`). */
typedef struct avx2_ctx {
    const char *base; /* g->words as bytes */
    const char *rows; /* the expanded rows as bytes */
    uint64_t nblocks;
    uint64_t bitflip;
    bool full;
} avx2_ctx;

AVX2_INLINE avx2_ctx avx2_make_ctx(const bloomsimd_geometry *g, const void *rows)
{
    avx2_ctx c = {(const char *)(const void *)g->words, (const char *)(const void *)rows, g->nblocks,
                  g->hash_bitflip, g->nblocks > UINT32_MAX};
    return c;
}

/* Block address of each hash: base + ((h >> 32) * nblocks >> 32) * 64. */
AVX2_INLINE __m256i avx2_block_addrs(const avx2_ctx *c, __m256i h)
{
    const __m256i nblocks = _mm256_set1_epi64x((long long)c->nblocks);
    const __m256i base = _mm256_set1_epi64x((long long)(uintptr_t)c->base);
    if (c->full) return _mm256_add_epi64(_mm256_slli_epi64(_mm256_srli_epi64(h, 32), 6), base);
    /* ((hi * nblocks) >> 32) << 6 = ((hi * nblocks) >> 26) with the low 6 bits cleared */
    __m256i scaled = _mm256_mul_epu32(avx2_high_halves(h), nblocks);
    return _mm256_add_epi64(_mm256_and_si256(_mm256_srli_epi64(scaled, 26), _mm256_set1_epi64x(~INT64_C(63))), base);
}

/* Row address of each hash: rows + (lo >> 26) * 64 = rows + ((h >> 20) & 0xfc0). */
AVX2_INLINE __m256i avx2_row_addrs(const avx2_ctx *c, __m256i h)
{
    const __m256i index = _mm256_and_si256(_mm256_srli_epi64(h, 20), _mm256_set1_epi64x(0xfc0));
    return _mm256_add_epi64(index, _mm256_set1_epi64x((long long)(uintptr_t)c->rows));
}

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

/* One key's probe inputs: its bit positions c and its selection row e. */
typedef struct avx2_key {
    __m256i c0, c1, e0, e1;
} avx2_key;

/* The key of a hash and its row (an expanded row in memory). */
AVX2_INLINE avx2_key avx2_key_of(uint64_t hash, const char *row)
{
    avx2_key key;
    avx2_bit_counts((uint32_t)hash, &key.c0, &key.c1);
    key.e0 = _mm256_load_si256((const __m256i *)(const void *)row);
    key.e1 = _mm256_load_si256((const __m256i *)(const void *)(row + 32));
    return key;
}

/* 8 lanes, each 1 where a selected word of the block lacks its bit. */
AVX2_INLINE __m256i avx2_missing_lanes(const char *block, avx2_key key)
{
    __m256i t0 = _mm256_srlv_epi32(avx2_load_racy(block), key.c0);
    __m256i t1 = _mm256_srlv_epi32(avx2_load_racy(block + 32), key.c1);
    return _mm256_or_si256(_mm256_andnot_si256(t0, key.e0), _mm256_andnot_si256(t1, key.e1));
}

/* A block half through vpermd, read as avx2_load_racy reads it. */
AVX2_INLINE __m256i avx2_permute_racy(const char *p, __m256i index)
{
    __m256i v;
    __asm__("vpermd %2, %1, %0" : "=x"(v) : "x"(index), "m"(*(const __m256i *)(const void *)p));
    return v;
}

/* k <= 8, one compact row: the k selected words gathered into one ymm
 * (vpermd from each half, vblendvps by bit 31 of the index), their bits
 * from one multiply; 8 lanes, 1 where the word lacks its bit. */
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

/* Nonzero if a selected word of the block lacks its bit. */
AVX2_INLINE int avx2_missing(const char *block, avx2_key key)
{
    __m256i missing = avx2_missing_lanes(block, key);
    return !_mm256_testz_si256(missing, missing);
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
 * clear when this thread set it (a relaxed fetch-OR of one bit: `lock bts`). */
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
        unsigned w = (unsigned)__builtin_ctz(words); /* 32-bit word w: one bit, in 64-bit word w / 2 */
        uint64_t bit = (uint64_t)m[w] << (32u * (w & 1u));
        fresh |= (__atomic_fetch_or(q + w / 2, bit, __ATOMIC_RELAXED) & bit) == 0;
    }
    return fresh;
}

AVX2_INLINE void avx2_insert_key(char *block, avx2_key key, const int concurrent)
{
    __m256i m0, m1;
    avx2_masks(key, &m0, &m1);
    __m256i *b = (__m256i *)(void *)block;
    if (concurrent) {
        avx2_or_atomic(block, _mm256_andnot_si256(avx2_load_racy(block), m0),
                       _mm256_andnot_si256(avx2_load_racy(block + 32), m1));
        return;
    }
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), m0));
    _mm256_store_si256(b + 1, _mm256_or_si256(_mm256_load_si256(b + 1), m1));
}

/* Insert one key and return 1 if any of its bits was missing before. Keys
 * are inserted in order, each with its own load and store, so a later key
 * in the same block sees the earlier key's bits (store-to-load forwarding):
 * the in-order rule of kernel.h. */
AVX2_INLINE uint8_t avx2_insert_new_key(char *block, avx2_key key, const int concurrent)
{
    __m256i m0, m1;
    avx2_masks(key, &m0, &m1);
    if (concurrent)
        return avx2_or_report_atomic(block, _mm256_andnot_si256(avx2_load_racy(block), m0),
                                     _mm256_andnot_si256(avx2_load_racy(block + 32), m1));
    __m256i *b = (__m256i *)(void *)block;
    __m256i b0 = _mm256_load_si256(b), b1 = _mm256_load_si256(b + 1);
    __m256i missing = _mm256_or_si256(_mm256_andnot_si256(b0, m0), _mm256_andnot_si256(b1, m1));
    _mm256_store_si256(b, _mm256_or_si256(b0, m0));
    _mm256_store_si256(b + 1, _mm256_or_si256(b1, m1));
    return (uint8_t)!_mm256_testz_si256(missing, missing);
}

/* ---------------------------------------------------------------------------
 * The pipeline: stage keys [i, i + count) (hash them if `from_keys`, compute
 * block and row addresses, prefetch), then probe keys staged AVX2_DISTANCE
 * earlier.
 * ------------------------------------------------------------------------ */

typedef struct avx2_ring {
    _Alignas(32) uint64_t hash[AVX2_RING];
    _Alignas(32) uint64_t block[AVX2_RING]; /* address of the key's block */
    _Alignas(32) uint64_t row[AVX2_RING];   /* address of the key's expanded selection row */
} avx2_ring;

/* The 4 64-bit lanes of v as scalars (vmovq/vpextrq). */
AVX2_INLINE void avx2_lanes(__m256i v, uint64_t lane[4])
{
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    lane[0] = (uint64_t)_mm_cvtsi128_si64(lo), lane[1] = (uint64_t)_mm_extract_epi64(lo, 1);
    lane[2] = (uint64_t)_mm_cvtsi128_si64(hi), lane[3] = (uint64_t)_mm_extract_epi64(hi, 1);
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

#ifndef AVX2_PREFETCH_LAG
#define AVX2_PREFETCH_LAG 1
#endif

/* i is a multiple of AVX2_GROUP, so the group's slots are contiguous. */
AVX2_INLINE void avx2_stage(const avx2_ctx *c, const uint64_t *src, size_t i, size_t count, avx2_ring *r,
                            const int from_keys, const int for_write)
{
    size_t slot = i & AVX2_RING_MASK;
    if (count == AVX2_GROUP) {
        for (size_t half = 0; half < AVX2_GROUP; half += 4) {
            __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + half));
            if (from_keys) h = avx2_xxh3(h, _mm256_set1_epi64x((long long)c->bitflip));
            const __m256i block = avx2_block_addrs(c, h);
            _mm256_store_si256((__m256i *)(void *)(r->hash + slot + half), h);
            _mm256_store_si256((__m256i *)(void *)(r->block + slot + half), block);
            _mm256_store_si256((__m256i *)(void *)(r->row + slot + half), avx2_row_addrs(c, h));
            if (!AVX2_PREFETCH_LAG) {
                uint64_t lane[4];
                avx2_lanes(block, lane);
                for (size_t j = 0; j < 4; j++) avx2_prefetch(lane[j], for_write);
            }
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

/* The 8-bit hit mask (bit j: key base + j may be present) of `count` keys. */
#ifndef AVX2_PACK
#define AVX2_PACK 1
#endif

/* Key `slot` as 0/1 missing lanes. */
AVX2_INLINE __m256i avx2_group_missing(const avx2_ring *r, size_t slot, const int compact)
{
    const char *block = (const char *)(uintptr_t)r->block[slot], *row = (const char *)(uintptr_t)r->row[slot];
    if (compact) return avx2_missing_compact(block, r->hash[slot], row);
    return avx2_missing_lanes(block, avx2_key_of(r->hash[slot], row));
}

AVX2_INLINE unsigned avx2_lookup_group(const avx2_ring *r, size_t base, size_t count, const int compact)
{
    size_t slot = base & AVX2_RING_MASK;
    unsigned hits = 0;
    if (AVX2_PACK && count == AVX2_GROUP) {
        /* Signed-saturating packs keep a lane nonzero iff it was: two levels
         * take 4 keys x 8 lanes to 4 keys x 8 bytes, split over the two
         * 128-bit lanes; OR the halves, and one compare and movemask give
         * 8 answers. */
        __m256i p01 = _mm256_packs_epi32(avx2_group_missing(r, slot + 0, compact), avx2_group_missing(r, slot + 1, compact));
        __m256i p23 = _mm256_packs_epi32(avx2_group_missing(r, slot + 2, compact), avx2_group_missing(r, slot + 3, compact));
        __m256i p45 = _mm256_packs_epi32(avx2_group_missing(r, slot + 4, compact), avx2_group_missing(r, slot + 5, compact));
        __m256i p67 = _mm256_packs_epi32(avx2_group_missing(r, slot + 6, compact), avx2_group_missing(r, slot + 7, compact));
        __m256i q0 = _mm256_packs_epi16(p01, p23), q1 = _mm256_packs_epi16(p45, p67);
        __m256i any = _mm256_or_si256(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
        __m256i hit = _mm256_cmpeq_epi32(any, _mm256_setzero_si256());
        return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(hit));
    }
    for (size_t j = 0; j < count; j++) {
        __m256i missing = avx2_group_missing(r, slot + j, compact);
        hits |= (unsigned)_mm256_testz_si256(missing, missing) << j;
    }
    return hits;
}

/*
 * Positions of the set bits of every byte value, packed one per byte
 * (AVX2_INDEX_LUT[m] byte i = the i-th set bit of m): the INDICES form turns
 * a group's 8-bit hit mask into its hit indices with one load, one widening
 * and one 32-byte store.
 */
#define AVX2_POP8(m) (((m) & 1) + ((m) >> 1 & 1) + ((m) >> 2 & 1) + ((m) >> 3 & 1) + ((m) >> 4 & 1) + ((m) >> 5 & 1) + \
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
 * Writes a group's hits in `form` and returns how many there were. `hits`
 * has bit j for key first + j; count is 8 except in the last group.
 *   BYTES: bit j -> byte j: multiply spreads the mask to every byte, the
 *   AND keeps bit j in byte j, and adding 0x7f per byte carries any nonzero
 *   byte into its top bit (at most 0x80 + 0x7f: never past the byte).
 *   INDICES: a full group stores 8 indices at out + hits-so-far; those past
 *   its own hits are overwritten later or lie below n (first + 8 <= n).
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
 * Probe the `count` keys staged at [base, base + count). With count ==
 * AVX2_GROUP (every group but the last) the loop has a constant trip count
 * and unrolls.
 */
AVX2_INLINE size_t avx2_probe_group(const avx2_ring *r, size_t base, size_t count, const int op, const int concurrent,
                                    const int compact, bloomsimd_hit_form form, void *out, size_t total,
                                    uint64_t *touched)
{
    size_t slot = base & AVX2_RING_MASK;
    if (op == AVX2_LOOKUP)
        return avx2_put_hits(form, out, base, count, avx2_lookup_group(r, base, count, compact), total);
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
 * Group g is staged (hashed, prefetched) AVX2_DISTANCE keys before it is
 * probed. The steady-state loop, where every group is full, is separate
 * from the ramp-up and drain so that it runs with constant group sizes.
 * Returns hits (lookups), new keys (insert-new) or the sum of the words
 * read (touch).
 */
AVX2_INLINE size_t avx2_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                            const int op, const int concurrent, const int compact, bloomsimd_hit_form form, void *out)
{
    avx2_rows scratch;
    const avx2_rows *rows = op == AVX2_TOUCH ? &scratch : avx2_select_rows(g, &scratch);
    const avx2_ctx c = avx2_make_ctx(g, compact ? (const void *)rows->compact : (const void *)rows->expanded);
    const int for_write = op == AVX2_INSERT || op == AVX2_INSERT_NEW;
    avx2_ring r;
    size_t total = 0, base = 0;
    uint64_t touched = 0;
    if (op == AVX2_LOOKUP && out) bloomsimd_hits_begin(form, out, n);
    /* With AVX2_PREFETCH_LAG, a full group is prefetched from the ring by
     * the next stage call (`pending`), so its addresses need not leave the
     * vector registers; a partial group prefetches itself. */
    size_t pending = SIZE_MAX;
    for (size_t i = 0; i < n && i < AVX2_DISTANCE; i += AVX2_GROUP) {
        size_t count = avx2_min(AVX2_GROUP, n - i);
        avx2_stage(&c, src, i, count, &r, from_keys, for_write);
        if (AVX2_PREFETCH_LAG && pending != SIZE_MAX) avx2_prefetch_staged(&r, pending, for_write);
        pending = count == AVX2_GROUP ? i : SIZE_MAX;
    }
    for (; base + AVX2_DISTANCE + AVX2_GROUP <= n; base += AVX2_GROUP) {
        /* every group here and the one staged before it are full */
        avx2_stage(&c, src, base + AVX2_DISTANCE, AVX2_GROUP, &r, from_keys, for_write);
        if (AVX2_PREFETCH_LAG) avx2_prefetch_staged(&r, base + AVX2_DISTANCE - AVX2_GROUP, for_write);
        pending = base + AVX2_DISTANCE;
        total += avx2_probe_group(&r, base, AVX2_GROUP, op, concurrent, compact, form, out, total, &touched);
    }
    for (; base < n; base += AVX2_GROUP) {
        size_t next = base + AVX2_DISTANCE;
        if (next < n) {
            size_t count = avx2_min(AVX2_GROUP, n - next);
            avx2_stage(&c, src, next, count, &r, from_keys, for_write);
            if (AVX2_PREFETCH_LAG && pending != SIZE_MAX) avx2_prefetch_staged(&r, pending, for_write);
            pending = count == AVX2_GROUP ? next : SIZE_MAX;
        } else if (AVX2_PREFETCH_LAG && pending != SIZE_MAX) {
            avx2_prefetch_staged(&r, pending, for_write);
            pending = SIZE_MAX;
        }
        total += avx2_probe_group(&r, base, avx2_min(AVX2_GROUP, n - base), op, concurrent, compact, form, out, total,
                                  &touched);
    }
    return op == AVX2_TOUCH ? (size_t)touched : total;
}

/* ---------------------------------------------------------------------------
 * Kernel entries: one instantiation per (input, operation, form,
 * concurrency) keeps those branches out of the hot loops.
 * ------------------------------------------------------------------------ */

#ifndef AVX2_COMPACT
#define AVX2_COMPACT 1
#endif

AVX2_INLINE size_t avx2_lookup_form(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                                    bloomsimd_hit_form form, void *out)
{
    /* Lookups read blocks with avx2_load_racy on every filter: no
     * concurrent instantiation needed. */
    if (AVX2_COMPACT && g->k <= 8) return avx2_run(g, src, n, from_keys, AVX2_LOOKUP, 0, 1, form, out);
    return avx2_run(g, src, n, from_keys, AVX2_LOOKUP, 0, 0, form, out);
}

AVX2_INLINE size_t avx2_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n, const int from_keys,
                               bloomsimd_hit_form form, void *out)
{
    if (!out) return avx2_lookup_form(g, src, n, from_keys, BLOOMSIMD_HITS_BYTES, NULL);
    switch (form) {
    case BLOOMSIMD_HITS_BITMAP: return avx2_lookup_form(g, src, n, from_keys, BLOOMSIMD_HITS_BITMAP, out);
    case BLOOMSIMD_HITS_INDICES: return avx2_lookup_form(g, src, n, from_keys, BLOOMSIMD_HITS_INDICES, out);
    default: return avx2_lookup_form(g, src, n, from_keys, BLOOMSIMD_HITS_BYTES, out);
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

static void avx2_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    if (g->concurrent)
        avx2_run(g, hashes, n, 0, AVX2_INSERT, 1, 0, BLOOMSIMD_HITS_BYTES, NULL);
    else
        avx2_run(g, hashes, n, 0, AVX2_INSERT, 0, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

static void avx2_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    if (g->concurrent)
        avx2_run(g, keys, n, 1, AVX2_INSERT, 1, 0, BLOOMSIMD_HITS_BYTES, NULL);
    else
        avx2_run(g, keys, n, 1, AVX2_INSERT, 0, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

static size_t avx2_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    if (g->concurrent) return avx2_run(g, hashes, n, 0, AVX2_INSERT_NEW, 1, 0, BLOOMSIMD_HITS_BYTES, out);
    return avx2_run(g, hashes, n, 0, AVX2_INSERT_NEW, 0, 0, BLOOMSIMD_HITS_BYTES, out);
}

static size_t avx2_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    if (g->concurrent) return avx2_run(g, keys, n, 1, AVX2_INSERT_NEW, 1, 0, BLOOMSIMD_HITS_BYTES, out);
    return avx2_run(g, keys, n, 1, AVX2_INSERT_NEW, 0, 0, BLOOMSIMD_HITS_BYTES, out);
}

static uint64_t avx2_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    return avx2_run(g, keys, n, 1, AVX2_TOUCH, 0, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

/*
 * Single keys: the same probe, with the row built in registers from the
 * 16-bit select (avx2_select_lanes: one broadcast, two ANDs, two mins)
 * instead of read from the expanded rows, which would cost an atomic load
 * and a compare per call to find.
 */
AVX2_INLINE const char *avx2_block_of(const bloomsimd_geometry *g, uint64_t hash)
{
    return (const char *)(const void *)g->words + bloomsimd_block_index(hash, g->nblocks) * 64u;
}

/* The key of a hash with its row built in registers. */
AVX2_INLINE avx2_key avx2_key_in_registers(const bloomsimd_geometry *g, uint64_t hash)
{
    avx2_key key;
    avx2_bit_counts((uint32_t)hash, &key.c0, &key.c1);
    avx2_select_lanes(bloomsimd_word_select(g, hash), &key.e0, &key.e1);
    return key;
}

static int avx2_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return !avx2_missing(avx2_block_of(g, hash), avx2_key_in_registers(g, hash));
}

static void avx2_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    char *block = (char *)(uintptr_t)avx2_block_of(g, hash);
    if (g->concurrent)
        avx2_insert_key(block, avx2_key_in_registers(g, hash), 1);
    else
        avx2_insert_key(block, avx2_key_in_registers(g, hash), 0);
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
    .touch_u64 = avx2_touch_u64,
};
