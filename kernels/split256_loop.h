#ifndef BLOOMSIMD_SPLIT256_LOOP_H
#define BLOOMSIMD_SPLIT256_LOOP_H

/*
 * split256_loop.h — the batch pipeline of a SIMD kernel's split256 entries
 * (kernels/layout_split256.h), in portable C. The probe of a block is the
 * kernel's: after including this header, the kernel file defines, with its
 * own intrinsics (nothing here needs flags a kernel lacks), the hooks
 * declared below:
 *
 *   split256_simd_stage8     8 keys (from_keys) or hashes at src (any
 *                            alignment) -> their hashes and block addresses
 *                            at hash[0..8), block[0..8) (64-byte aligned);
 *   split256_simd_test8      bit j set if staged key j may be present;
 *   split256_simd_test, _or, _or_report
 *                            one key's lookup, insert and insert-and-report-
 *                            new with layout_split256.h's rules
 *                            (bloomsimd_split256_test / _or / _or_report:
 *                            the same bytes and answers).
 *
 * Before the include it may set SPLIT256_LOOP_DISTANCE (keys staged ahead
 * of the probe, a power of two >= 16), SPLIT256_LOOP_READ_LOCALITY /
 * _WRITE_LOCALITY (prefetch levels), SPLIT256_LOOP_NEAR_READ_LOCALITY (the
 * lookups' level on filters of at most SPLIT256_LOOP_NEAR_MAX_BYTES) and
 * SPLIT256_LOOP_CONCURRENT_READS (1:
 * lookups on a concurrent filter pass concurrent = 1 to the test hooks). The header defines the batch entries
 * split256_simd_add_hashes, _add_u64, _contains_hashes, _contains_u64,
 * _add_new_hashes, _add_new_u64, _touch_u64 and _touch_hashes for
 * BLOOMSIMD_BY_LAYOUT(P, split256_simd), and the single-key insert-and-
 * report-new split256_simd_add_new_one; the single-key entries
 * split256_simd_add_one / _contains_one are the kernel's own.
 *
 * Pipeline (the block512 kernels' shape): keys are staged DISTANCE keys
 * ahead of the probe in groups of 8 (hashes and block addresses into a
 * ring), and each full group's blocks are prefetched one stage call after
 * it was staged, from the ring, so that the vector stores have completed;
 * so up to DISTANCE misses are in flight. A partial group (the first or
 * last keys of a batch) is staged one key at a time in C.
 */
#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "layout_split256.h"

#ifndef SPLIT256_LOOP_DISTANCE
#define SPLIT256_LOOP_DISTANCE 64u
#endif
#ifndef SPLIT256_LOOP_READ_LOCALITY
#define SPLIT256_LOOP_READ_LOCALITY 2
#endif
#ifndef SPLIT256_LOOP_WRITE_LOCALITY
#define SPLIT256_LOOP_WRITE_LOCALITY 2
#endif
/*
 * Lookups on a filter of at most NEAR_MAX_BYTES prefetch with prefetcht0
 * (into L1), larger ones with READ_LOCALITY (t1: L2 has more miss buffers
 * than L1, which caps the lines in flight once most probes miss L2). avx2,
 * Intel Xeon, split256 lookups: at 10^7 keys (13 MB) t0 6.4-6.8 ns/key
 * against t1 8.4-9.9, at 10^8 (132 MB) t0 11.7-11.8 against t1 10.1-10.4
 * (docs/kernels/split256.md). The 32 MiB between them is not measured.
 */
#ifndef SPLIT256_LOOP_NEAR_READ_LOCALITY
#define SPLIT256_LOOP_NEAR_READ_LOCALITY 3
#endif
#ifndef SPLIT256_LOOP_NEAR_MAX_BYTES
#define SPLIT256_LOOP_NEAR_MAX_BYTES (UINT64_C(32) << 20)
#endif
#ifndef SPLIT256_LOOP_CONCURRENT_READS
#define SPLIT256_LOOP_CONCURRENT_READS 0
#endif
#ifndef SPLIT256_LOOP_DIRECT_BYTES
#define SPLIT256_LOOP_DIRECT_BYTES ((uint64_t)256 << 10)
#endif
#define SPLIT256_LOOP_GROUP ((size_t)8)
#define SPLIT256_LOOP_RING (2 * (size_t)SPLIT256_LOOP_DISTANCE)
#define SPLIT256_LOOP_RING_MASK (SPLIT256_LOOP_RING - 1)

_Static_assert(SPLIT256_LOOP_DISTANCE >= 16 && (SPLIT256_LOOP_DISTANCE & (SPLIT256_LOOP_DISTANCE - 1)) == 0,
               "the distance must be a power of two of at least two groups");

#define SPLIT256_INLINE static inline __attribute__((always_inline))

/* Per-call constants. nblocks == 2^32 does not fit a 32-bit multiplier
 * lane; then ((h >> 32) * 2^32) >> 32 is h >> 32 (`full`). */
typedef struct split256_ctx {
    const char *base; /* g->words as bytes */
    uint64_t nblocks;
    uint64_t bitflip;
    bool full;
    bool near;   /* lookups prefetch at SPLIT256_LOOP_NEAR_READ_LOCALITY */
    bool direct; /* no prefetch at all: the filter fits SPLIT256_LOOP_DIRECT_BYTES */
} split256_ctx;

typedef struct split256_ring {
    _Alignas(64) uint64_t hash[SPLIT256_LOOP_RING];
    _Alignas(64) uint64_t block[SPLIT256_LOOP_RING];
} split256_ring;

enum { SPLIT256_LOOKUP, SPLIT256_INSERT, SPLIT256_INSERT_NEW, SPLIT256_TOUCH };

/* ---- concurrent inserts, for kernels that store a key's missing bits ---- */

/* OR missing[i] (the mask bits the block lacked in its 64-bit word i) into
 * the block, one relaxed `lock or` per word that lacks any: the bytes
 * bloomsimd_split256_or leaves. */
SPLIT256_INLINE void split256_loop_or_atomic(char *block, const uint64_t missing[4])
{
    uint64_t *q = (uint64_t *)(void *)block;
    for (unsigned i = 0; i < 4; i++)
        if (missing[i]) __atomic_fetch_or(q + i, missing[i], __ATOMIC_RELAXED);
}

/* As split256_loop_or_atomic, one bit at a time (`lock bts`; each 32-bit
 * word of missing has at most one bit), returning 1 if any bit was still
 * clear when this thread set it: of two threads racing on a new key, the
 * first to set a missing bit sees it clear, so at least one reports it new
 * (bloomsimd_split256_or_report's rule). */
SPLIT256_INLINE uint8_t split256_loop_or_report_atomic(char *block, const uint32_t missing[8])
{
    uint64_t *q = (uint64_t *)(void *)block;
    uint8_t fresh = 0;
    for (unsigned w = 0; w < 8; w++) {
        if (!missing[w]) continue;
        unsigned bit = ((unsigned)__builtin_ctz(missing[w]) + 32u * (w & 1u)) & 63u; /* the & lets gcc see bts */
        uint64_t one = UINT64_C(1) << bit;
        fresh |= (__atomic_fetch_or(q + w / 2, one, __ATOMIC_RELAXED) & one) == 0;
    }
    return fresh;
}

/* ---- hooks: defined by the including kernel file (always inlined) ---- */
SPLIT256_INLINE void split256_simd_stage8(const split256_ctx *c, const uint64_t *src, uint64_t *hash,
                                          uint64_t *block, const int from_keys);
SPLIT256_INLINE unsigned split256_simd_test8(const uint64_t *hash, const uint64_t *block, const int concurrent);
SPLIT256_INLINE uint8_t split256_simd_test(uint64_t hash, const char *block, const int concurrent);
SPLIT256_INLINE void split256_simd_or(char *block, uint64_t hash, const int concurrent);
SPLIT256_INLINE uint8_t split256_simd_or_report(char *block, uint64_t hash, const int concurrent);

SPLIT256_INLINE size_t split256_loop_min(size_t a, size_t b) { return a < b ? a : b; }

/* (the locality argument must be a constant) */
SPLIT256_INLINE void split256_loop_prefetch(uint64_t block, const int for_write, const int near)
{
    if (for_write)
        __builtin_prefetch((const void *)(uintptr_t)block, 1, SPLIT256_LOOP_WRITE_LOCALITY);
    else if (near)
        __builtin_prefetch((const void *)(uintptr_t)block, 0, SPLIT256_LOOP_NEAR_READ_LOCALITY);
    else
        __builtin_prefetch((const void *)(uintptr_t)block, 0, SPLIT256_LOOP_READ_LOCALITY);
}

/* Stage keys [i, i + count) (i a multiple of 8, so the slots are contiguous).
 * A full group is prefetched by the next stage call, a partial one here. */
SPLIT256_INLINE void split256_loop_stage(const split256_ctx *c, const uint64_t *src, size_t i, size_t count,
                                         split256_ring *r, const int from_keys, const int for_write)
{
    size_t slot = i & SPLIT256_LOOP_RING_MASK;
    if (count == SPLIT256_LOOP_GROUP) {
        if (from_keys) bloomsimd_prefetch_keys_ahead(src + i);
        split256_simd_stage8(c, src + i, r->hash + slot, r->block + slot, from_keys);
        return;
    }
    for (size_t j = 0; j < count; j++) {
        uint64_t h;
        memcpy(&h, src + i + j, sizeof h); /* keys may be less than 8-byte aligned */
        if (from_keys) h = bloomsimd_xxh3_u64(h, c->bitflip);
        r->hash[slot + j] = h;
        r->block[slot + j] = (uint64_t)(uintptr_t)(c->base + bloomsimd_split256_block_index(h, c->nblocks) *
                                                                   BLOOMSIMD_SPLIT256_BLOCK_BYTES);
        if (!c->direct) split256_loop_prefetch(r->block[slot + j], for_write, c->near);
    }
}

SPLIT256_INLINE void split256_loop_prefetch_staged(const split256_ctx *c, const split256_ring *r, size_t i,
                                                  const int for_write)
{
    size_t slot = i & SPLIT256_LOOP_RING_MASK;
    if (c->direct) return;
    if (!for_write && c->near) {
        for (size_t j = 0; j < SPLIT256_LOOP_GROUP; j++) split256_loop_prefetch(r->block[slot + j], 0, 1);
        return;
    }
    for (size_t j = 0; j < SPLIT256_LOOP_GROUP; j++) split256_loop_prefetch(r->block[slot + j], for_write, 0);
}

/*
 * A group's answers in `form`; `hits` has bit j for key first + j, count is
 * 8 except in the last group, `total` is the count of earlier hits.
 *   BYTES: the multiply copies the mask into every byte, the AND keeps bit
 *   j in byte j, and adding 0x7f per byte carries a nonzero byte into its
 *   top bit (at most 0x80 + 0x7f: never past it).
 *   BITMAP: groups start at multiples of 8, so a full group is one byte.
 */
SPLIT256_INLINE size_t split256_loop_put_hits(bloomsimd_hit_form form, void *out, size_t first, size_t count,
                                              unsigned hits, size_t total)
{
    size_t found = (size_t)__builtin_popcount(hits);
    if (!out) return found;
    if (count < SPLIT256_LOOP_GROUP) {
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
        uint32_t *idx = (uint32_t *)out + total;
        for (; hits; hits &= hits - 1) *idx++ = (uint32_t)(first + (size_t)__builtin_ctz(hits));
    }
    return found;
}

/* Probe the `count` keys staged at [base, base + count). */
SPLIT256_INLINE size_t split256_loop_probe(const split256_ring *r, size_t base, size_t count, const int op,
                                           const int concurrent, bloomsimd_hit_form form, void *out, size_t total,
                                           uint64_t *touched)
{
    size_t slot = base & SPLIT256_LOOP_RING_MASK;
    if (op == SPLIT256_LOOKUP) {
        unsigned hits = 0;
        if (count == SPLIT256_LOOP_GROUP) {
            hits = split256_simd_test8(r->hash + slot, r->block + slot, concurrent);
        } else {
            for (size_t j = 0; j < count; j++)
                hits |= (unsigned)split256_simd_test(r->hash[slot + j], (const char *)(uintptr_t)r->block[slot + j],
                                                     concurrent)
                        << j;
        }
        return split256_loop_put_hits(form, out, base, count, hits, total);
    }
    size_t fresh = 0;
    for (size_t j = 0; j < count; j++) {
        char *block = (char *)(uintptr_t)r->block[slot + j];
        if (op == SPLIT256_TOUCH) {
            uint64_t word;
            memcpy(&word, block, sizeof word);
            *touched += word;
        } else if (op == SPLIT256_INSERT) {
            split256_simd_or(block, r->hash[slot + j], concurrent);
        } else {
            uint8_t is_new = split256_simd_or_report(block, r->hash[slot + j], concurrent);
            if (out) ((uint8_t *)out)[base + j] = is_new;
            fresh += is_new;
        }
    }
    return fresh;
}

/* One pass over n keys or hashes: lookups write `out` in `form` and return
 * the hits, inserts return 0, insert-new writes bytes and returns the new
 * keys, touch returns the sum of the first 64-bit word of every block. The
 * steady-state loop, where every group is full, is separate from the ramp-up
 * and the drain so that it runs with constant group sizes. */
SPLIT256_INLINE size_t split256_loop_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                         const int from_keys, const int op, const int concurrent,
                                         bloomsimd_hit_form form, void *out)
{
    const size_t distance = SPLIT256_LOOP_DISTANCE, group = SPLIT256_LOOP_GROUP;
    const split256_ctx c = {(const char *)(const void *)g->words, g->nblocks, g->hash_bitflip,
                            g->nblocks > UINT32_MAX,
                            g->nblocks * BLOOMSIMD_SPLIT256_BLOCK_BYTES <= SPLIT256_LOOP_NEAR_MAX_BYTES,
                            g->nblocks * BLOOMSIMD_SPLIT256_BLOCK_BYTES <= SPLIT256_LOOP_DIRECT_BYTES};
    const int for_write = op == SPLIT256_INSERT || op == SPLIT256_INSERT_NEW;
    split256_ring r;
    size_t total = 0, base = 0, pending = SIZE_MAX;
    uint64_t touched = 0;
    if (op == SPLIT256_LOOKUP && out) bloomsimd_hits_begin(form, out, n);
    for (size_t i = 0; i < n && i < distance; i += group) {
        size_t count = split256_loop_min(group, n - i);
        split256_loop_stage(&c, src, i, count, &r, from_keys, for_write);
        if (pending != SIZE_MAX) split256_loop_prefetch_staged(&c, &r, pending, for_write);
        pending = count == group ? i : SIZE_MAX;
    }
    for (; base + distance + group <= n; base += group) {
        split256_loop_stage(&c, src, base + distance, group, &r, from_keys, for_write);
        split256_loop_prefetch_staged(&c, &r, base + distance - group, for_write);
        pending = base + distance;
        total += split256_loop_probe(&r, base, group, op, concurrent, form, out, total, &touched);
    }
    for (; base < n; base += group) {
        size_t next = base + distance;
        if (next < n) {
            size_t count = split256_loop_min(group, n - next);
            split256_loop_stage(&c, src, next, count, &r, from_keys, for_write);
            if (pending != SIZE_MAX) split256_loop_prefetch_staged(&c, &r, pending, for_write);
            pending = count == group ? next : SIZE_MAX;
        } else if (pending != SIZE_MAX) {
            split256_loop_prefetch_staged(&c, &r, pending, for_write);
            pending = SIZE_MAX;
        }
        total += split256_loop_probe(&r, base, split256_loop_min(group, n - base), op, concurrent, form, out, total,
                                     &touched);
    }
    return op == SPLIT256_TOUCH ? (size_t)touched : total;
}

/* ---- the entries: one instantiation per (input, operation, form, concurrency) ---- */

SPLIT256_INLINE size_t split256_loop_lookup_in(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                               const int from_keys, const int concurrent, bloomsimd_hit_form form,
                                               void *out)
{
    if (!out) return split256_loop_run(g, src, n, from_keys, SPLIT256_LOOKUP, concurrent, BLOOMSIMD_HITS_BYTES, NULL);
    switch (form) {
    case BLOOMSIMD_HITS_BITMAP:
        return split256_loop_run(g, src, n, from_keys, SPLIT256_LOOKUP, concurrent, BLOOMSIMD_HITS_BITMAP, out);
    case BLOOMSIMD_HITS_INDICES:
        return split256_loop_run(g, src, n, from_keys, SPLIT256_LOOKUP, concurrent, BLOOMSIMD_HITS_INDICES, out);
    default: return split256_loop_run(g, src, n, from_keys, SPLIT256_LOOKUP, concurrent, BLOOMSIMD_HITS_BYTES, out);
    }
}

/* Lookups get a concurrent instantiation only in kernels that read a
 * concurrent filter's blocks differently (SPLIT256_LOOP_CONCURRENT_READS 1);
 * the x86 kernels read blocks by inline asm on every filter. */
SPLIT256_INLINE size_t split256_loop_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                            const int from_keys, bloomsimd_hit_form form, void *out)
{
    if (SPLIT256_LOOP_CONCURRENT_READS && g->concurrent)
        return split256_loop_lookup_in(g, src, n, from_keys, 1, form, out);
    return split256_loop_lookup_in(g, src, n, from_keys, 0, form, out);
}

SPLIT256_INLINE size_t split256_loop_insert(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                            const int from_keys, const int op, uint8_t *out)
{
    if (g->concurrent) return split256_loop_run(g, src, n, from_keys, op, 1, BLOOMSIMD_HITS_BYTES, out);
    return split256_loop_run(g, src, n, from_keys, op, 0, BLOOMSIMD_HITS_BYTES, out);
}

static void split256_simd_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    split256_loop_insert(g, hashes, n, 0, SPLIT256_INSERT, NULL);
}

static void split256_simd_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    split256_loop_insert(g, keys, n, 1, SPLIT256_INSERT, NULL);
}

static size_t split256_simd_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                            bloomsimd_hit_form form, void *out)
{
    return split256_loop_lookup(g, hashes, n, 0, form, out);
}

static size_t split256_simd_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                         bloomsimd_hit_form form, void *out)
{
    return split256_loop_lookup(g, keys, n, 1, form, out);
}

static size_t split256_simd_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                           uint8_t *out)
{
    return split256_loop_insert(g, hashes, n, 0, SPLIT256_INSERT_NEW, out);
}

static size_t split256_simd_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return split256_loop_insert(g, keys, n, 1, SPLIT256_INSERT_NEW, out);
}

/* One key, inserted and reported new (kernels/single_key.h): the kernel's
 * or_report hook on its block, with no pipeline around it. */
SPLIT256_INLINE bool split256_simd_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    char *block = (char *)(void *)g->words +
                  bloomsimd_split256_block_index(hash, g->nblocks) * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
    if (g->concurrent) return split256_simd_or_report(block, hash, 1);
    return split256_simd_or_report(block, hash, 0);
}

static inline uint64_t split256_simd_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    return split256_loop_run(g, keys, n, 1, SPLIT256_TOUCH, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

static inline uint64_t split256_simd_touch_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    return split256_loop_run(g, hashes, n, 0, SPLIT256_TOUCH, 0, BLOOMSIMD_HITS_BYTES, NULL);
}

#endif /* BLOOMSIMD_SPLIT256_LOOP_H */
