/*
 * sbbf_avx2.c — the split-block peer's AVX2 code (compiled with -mavx2
 * -mbmi2; called only after bench_sbbf_available() in sbbf.c).
 *
 * Per key:
 *   h     = lo ^ hi of the 128-bit product key * M1          (one mulx; the
 *           mix Boost.Bloom applies to a non-avalanching hash such as the
 *           identity hash of an integer)
 *   block = (h * nblocks) >> 64                              (Lemire)
 *   b     = h * M2                                           (decorrelates the
 *           bits from the block index, which used h's top bits)
 *   mask  = for each of the 8 words, 1 << (a 5-bit field of b): b broadcast
 *           to 4 lanes, lane j shifted left by 5j, then each 32-bit lane's
 *           top 5 bits — fields at bits 12..31 and 44..63 of b, all
 *           distinct. This is the shift trick of Boost's fast_multiblock32
 *           (one vpsllvq, one vpsrld, one vpsllvd; cheaper than Parquet's
 *           8 salts and a 32-bit vector multiply, vpmulld being 2 uops and
 *           10 cycles on Intel cores).
 *   insert: block |= mask (one 256-bit load, or, store)
 *   lookup: vptest: every mask bit set in the block (carry flag)
 *
 * Every loop also prefetches the key stream SB_KEYS_AHEAD keys ahead.
 * Batches of filters larger than L2 run through a ring: key i + AHEAD is
 * hashed, its block address computed and prefetched while key i is probed,
 * so ~AHEAD misses are in flight; nothing is called per key. The schedule
 * is chosen by filter size, from a sweep on the project's VM (2^20 absent
 * keys, 1% FPR, medians of 7, wall ns/key at a load average of 4; distance
 * in keys, T0 = into L1, T1 = into L2):
 *     filter          none   8 T0   32 T0   128 T0   32 T1   128 T1
 *     129 KiB (1e5)   1.66   1.91   1.87    1.93     1.87    1.86
 *     1.3 MiB (1e6)   2.39   2.44   1.92    1.97     2.00    2.00
 *     126 MiB (1e8)    -    10.8    7.93    7.57     8.36    7.02
 * (re-measured by CPU time at a load average of 17, with the key stream
 * prefetched: the ring and the direct loop within 5-10% of each other at
 * 10^4-10^5 keys)
 * so: no ring at all up to 256 KiB (the ring's stores and reloads cost more
 * than the L2 hits they would hide), 32 keys into L1 up to 4 MiB, 128 keys
 * into L2 beyond, where L2's larger number of miss buffers keeps more lines
 * in flight (the library's AVX-512 kernel found the same). Inserts follow
 * the same rule (1.09-1.34 ns/key direct vs 1.23-1.50 with the ring in L2).
 */
#include <immintrin.h>

#include "sbbf.h"

__extension__ typedef unsigned __int128 sb_u128;

#define SB_M1 UINT64_C(0x9E3779B97F4A7C15)
#define SB_M2 UINT64_C(0xF1357AEA2E62A9C5)
#define SB_RING 256u /* slots, a power of two > the largest distance */
#define SB_DIRECT_BYTES ((size_t)256 << 10)
/* The key stream is prefetched this many keys beyond the keys being hashed
 * (one line of 8 keys per prefetch): without it, on the shared host under a
 * load average of 17, the direct loop at 10^4 keys waited on the query array
 * (4.26-4.63 ns/key vs 2.46-2.54 with it, 2^20 keys streamed; the ring
 * variants 3.3-3.7 vs 2.5-2.7). Prefetching past the array's end is harmless. */
#define SB_KEYS_AHEAD 64u
#define SB_NEAR_BYTES ((size_t)4 << 20)

typedef struct sb_slot {
    const __m256i *block;
    uint64_t bits;
} sb_slot;

static inline uint64_t sb_hash(uint64_t key)
{
    sb_u128 p = (sb_u128)key * SB_M1;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline sb_slot sb_locate(const bench_sbbf *f, uint64_t key)
{
    uint64_t h = sb_hash(key);
    uint64_t block = (uint64_t)(((sb_u128)h * f->nblocks) >> 64);
    return (sb_slot){(const __m256i *)(const void *)(f->words + block * 8u), h * SB_M2};
}

static inline __m256i sb_mask(uint64_t bits)
{
    __m256i v = _mm256_set1_epi64x((long long)bits);
    v = _mm256_sllv_epi64(v, _mm256_setr_epi64x(0, 5, 10, 15));
    v = _mm256_srli_epi32(v, 27);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), v);
}

/* One schedule: AHEAD keys ahead, prefetch locality HINT (_MM_HINT_T0/T1). */
#define SB_DEFINE(suffix, AHEAD, HINT)                                                                              \
    static size_t sb_contains_##suffix(const bench_sbbf *f, const uint64_t *keys, size_t n, uint8_t *out)          \
    {                                                                                                               \
        sb_slot ring[SB_RING];                                                                                      \
        size_t hits = 0, i = 0, head = n < (AHEAD) ? n : (AHEAD);                                                   \
        for (size_t j = 0; j < head; j++) {                                                                         \
            ring[j] = sb_locate(f, keys[j]);                                                                        \
            _mm_prefetch((const char *)ring[j].block, HINT);                                                        \
        }                                                                                                           \
        for (; i + (AHEAD) < n; i++) {                                                                              \
            if ((i & 7u) == 0) _mm_prefetch((const char *)(keys + i + (AHEAD) + SB_KEYS_AHEAD), _MM_HINT_T0);       \
            sb_slot *next = &ring[(i + (AHEAD)) & (SB_RING - 1)];                                                   \
            *next = sb_locate(f, keys[i + (AHEAD)]);                                                                \
            _mm_prefetch((const char *)next->block, HINT);                                                          \
            const sb_slot *s = &ring[i & (SB_RING - 1)];                                                            \
            unsigned r = (unsigned)_mm256_testc_si256(_mm256_load_si256(s->block), sb_mask(s->bits));              \
            out[i] = (uint8_t)r;                                                                                    \
            hits += r;                                                                                              \
        }                                                                                                           \
        for (; i < n; i++) {                                                                                        \
            const sb_slot *s = &ring[i & (SB_RING - 1)];                                                            \
            unsigned r = (unsigned)_mm256_testc_si256(_mm256_load_si256(s->block), sb_mask(s->bits));              \
            out[i] = (uint8_t)r;                                                                                    \
            hits += r;                                                                                              \
        }                                                                                                           \
        return hits;                                                                                                \
    }                                                                                                               \
    static void sb_add_##suffix(const bench_sbbf *f, const uint64_t *keys, size_t n)                                \
    {                                                                                                               \
        sb_slot ring[SB_RING];                                                                                      \
        size_t i = 0, head = n < (AHEAD) ? n : (AHEAD);                                                             \
        for (size_t j = 0; j < head; j++) {                                                                         \
            ring[j] = sb_locate(f, keys[j]);                                                                        \
            _mm_prefetch((const char *)ring[j].block, HINT);                                                        \
        }                                                                                                           \
        for (; i < n; i++) {                                                                                        \
            if ((i & 7u) == 0) _mm_prefetch((const char *)(keys + i + (AHEAD) + SB_KEYS_AHEAD), _MM_HINT_T0);       \
            if (i + (AHEAD) < n) {                                                                                  \
                sb_slot *next = &ring[(i + (AHEAD)) & (SB_RING - 1)];                                               \
                *next = sb_locate(f, keys[i + (AHEAD)]);                                                            \
                _mm_prefetch((const char *)next->block, HINT);                                                      \
            }                                                                                                       \
            const sb_slot *s = &ring[i & (SB_RING - 1)];                                                            \
            __m256i *b = (__m256i *)(uintptr_t)s->block;                                                            \
            _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), sb_mask(s->bits)));                         \
        }                                                                                                           \
    }

SB_DEFINE(near, 32, _MM_HINT_T0)
SB_DEFINE(far, 128, _MM_HINT_T1)

static inline unsigned sb_test(sb_slot s) { return (unsigned)_mm256_testc_si256(_mm256_load_si256(s.block), sb_mask(s.bits)); }

static inline void sb_set(sb_slot s)
{
    __m256i *b = (__m256i *)(uintptr_t)s.block;
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), sb_mask(s.bits)));
}

static size_t sb_bytes(const bench_sbbf *f) { return (size_t)f->nblocks * BENCH_SBBF_BLOCK_BYTES; }

size_t bench_sbbf_contains_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    size_t bytes = sb_bytes(f);
    if (bytes > SB_NEAR_BYTES) return sb_contains_far(f, keys, n, out);
    if (bytes > SB_DIRECT_BYTES) return sb_contains_near(f, keys, n, out);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if ((i & 7u) == 0) _mm_prefetch((const char *)(keys + i + SB_KEYS_AHEAD), _MM_HINT_T0);
        unsigned r = sb_test(sb_locate(f, keys[i]));
        out[i] = (uint8_t)r;
        hits += r;
    }
    return hits;
}

void bench_sbbf_add_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    size_t bytes = sb_bytes(f);
    if (bytes > SB_NEAR_BYTES)
        sb_add_far(f, keys, n);
    else if (bytes > SB_DIRECT_BYTES)
        sb_add_near(f, keys, n);
    else
        for (size_t i = 0; i < n; i++) {
            if ((i & 7u) == 0) _mm_prefetch((const char *)(keys + i + SB_KEYS_AHEAD), _MM_HINT_T0);
            sb_set(sb_locate(f, keys[i]));
        }
}

/* A user's loop over single calls: the probe inlined, nothing prefetched. */
static inline unsigned sb_contains_one(const bench_sbbf *f, uint64_t key) { return sb_test(sb_locate(f, key)); }

size_t bench_sbbf_contains_one_by_one_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) hits += (size_t)sb_contains_one(f, keys[i]);
    return hits;
}

/* A user's loop over single inserts: the insert inlined, nothing prefetched. */
void bench_sbbf_add_one_by_one_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) sb_set(sb_locate(f, keys[i]));
}
