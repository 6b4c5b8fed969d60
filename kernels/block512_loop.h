#ifndef BLOOMSIMD_BLOCK512_LOOP_H
#define BLOOMSIMD_BLOCK512_LOOP_H

/*
 * block512_loop.h — the batch pipeline of the sse42 and neon kernels'
 * block512 entries (kernels/layout.h), in portable C. A key's mask and the
 * work on its block are the kernel's: before including this header, the
 * kernel file defines, with its own intrinsics (nothing here needs flags a
 * kernel lacks), always inlined except the table's build:
 *
 *   block512_simd_mask       one key's 16-word mask, in the kernel's registers;
 *   block512_simd_table      a batch's expansion of its k's 64 selection
 *                            masks (layout.h section 3) into what the mask
 *                            computation consumes per key;
 *   block512_simd_table_build(select, &t)
 *   block512_simd_mask_row(&t, hash)     a key's mask through the table;
 *   block512_simd_mask_of(select, hash)  the same from the 16-bit selection
 *                                        (small batches; single keys);
 *   block512_simd_test, _or, _or_report  lookup, insert and insert-and-
 *                            report-new of one key on its block, with the
 *                            bytes and answers of bloomsimd_block_test /
 *                            _or / _or_report (atomic when `concurrent`);
 *
 * and BLOCK512_LOOP_PREFIX, the prefix P of the entries this header defines:
 * P_add_hashes, P_add_u64, P_contains_hashes, P_contains_u64,
 * P_add_new_hashes and P_add_new_u64 (what BLOOMSIMD_BY_LAYOUT(P, S) routes
 * block512 filters to). It may set BLOCK512_LOOP_UNROLL 1 to unroll the
 * steady-state groups of 8.
 *
 * Pipeline: keys are hashed (in general registers: the probe keeps the
 * vector units busy, and neither SSE4.2 nor NEON has a 64-bit lane
 * multiply) and their blocks prefetched BLOCK512_LOOP_AHEAD keys before they
 * are probed, 8 keys per step, through a ring of hashes and block addresses.
 * Batches of fewer than BLOCK512_LOOP_SMALL keys skip the table and the
 * ring. Measurements: docs/kernels/sse42.md, docs/kernels/neon.md,
 * docs/kernels/pipeline.md.
 */
#include <stdint.h>
#include <string.h>

#include "layout.h"

/*
 * Keys probed per pipeline step (one bitmap byte), and how many keys ahead
 * a block is hashed and prefetched. Needed: DRAM latency / time per key
 * lines in flight, i.e. ~100 ns (assumed) / ~4.5 ns (ANCHORS.md ceiling)
 * ~ 22 on an idle Zen 5, plus one group of slack.
 * Measured on sse42 (10^8 keys, 125 MB filter, k=7, contains_u64 of 10^7
 * absent keys, ns/key, thread CPU time, median of 5/7/7 reps in three runs
 * on a 2-CPU VM at load 7-12, so the ceiling itself read 13-15 instead of ~5):
 *     AHEAD     8     16     32     48     64     96    128    256
 *     run 1  18.5   16.4   16.4   15.6   14.8   15.6   16.6   16.4
 *     run 2     -   15.7   16.6   16.2   16.8   16.4   16.4   17.0
 *     run 3     -   14.9   15.3   15.9   15.7   17.1   17.0   18.3
 * 8 is too short; 16..64 are equal within the noise and >= 96 tends to
 * lose (perhaps prefetched lines evicted before use; not verified). 64 is
 * chosen: the top of the flat range, so an idle machine (shorter per-key
 * time, more lines needed in flight) still has about 3x the 22 lines it
 * needs. Ring: 128 x 16 B = 2 KiB (L1).
 */
#define BLOCK512_LOOP_GROUP 8u
#define BLOCK512_LOOP_AHEAD 64u
#define BLOCK512_LOOP_RING 128u /* a power of two >= AHEAD + GROUP */
_Static_assert((BLOCK512_LOOP_RING & (BLOCK512_LOOP_RING - 1)) == 0 &&
                   BLOCK512_LOOP_RING >= BLOCK512_LOOP_AHEAD + BLOCK512_LOOP_GROUP,
               "the ring must hold the live window [base, base + AHEAD + GROUP)");

/*
 * Batches below BLOCK512_LOOP_SMALL keys hash and prefetch every key in one
 * pass and probe through block512_simd_mask_of in a second, without the
 * table. The table costs a fixed amount per batch (building 4 KiB, and the
 * out-of-line ramp and drain) and saves per key, so it pays from some batch
 * size on. Dynamic instructions per key of each path (sse42: x86,
 * callgrind; neon: AArch64 under qemu; lookups / inserts from u64 keys,
 * docs/kernels/pipeline.md):
 *     keys per batch          64     127     128     192     256
 *     sse42, no table      112/92  112/91
 *     sse42, table                         97/86   91/80   88/77
 *     neon,  no table       88/76   88/76
 *     neon,  table                         74/69   71/65   70/62
 * Fitting a / n + b to each, the counts cross at ~72 / ~93 keys on sse42
 * and ~45 / ~81 on neon. Time crosses later: sse42 on Intel (10^5 keys,
 * lookups, this path's time / the table's) 64 keys 0.87x, 128 keys 0.97x,
 * 256 keys 1.05x, 512 keys 1.08x, even at ~175, because the table's
 * savings are instructions on the saturated vector ports while most of
 * this path's extra ones are scalar and branch work beside them. 128 is at
 * above both kernels' count crossings and below sse42's timed one: a batch
 * of 128-191 keys on sse42 runs 6-16% fewer instructions than under its
 * former 192 and at worst ~3% more time (the 128-key measurement), and neon
 * keeps the 128 it had.
 */
#define BLOCK512_LOOP_SMALL 128u

#ifndef BLOCK512_LOOP_UNROLL
#define BLOCK512_LOOP_UNROLL 0
#endif

#define BLOCK512_INLINE static inline __attribute__((always_inline))

/* ---- hooks: defined by the including kernel file before the include ---- */
static void block512_simd_table_build(const uint16_t *select, block512_simd_table *t);
BLOCK512_INLINE block512_simd_mask block512_simd_mask_row(const block512_simd_table *t, uint64_t hash);
BLOCK512_INLINE block512_simd_mask block512_simd_mask_of(const uint16_t *select, uint64_t hash);
BLOCK512_INLINE uint8_t block512_simd_test(const uint32_t *block, const block512_simd_mask *m, bool concurrent);
BLOCK512_INLINE void block512_simd_or(uint32_t *block, const block512_simd_mask *m, bool concurrent);
BLOCK512_INLINE uint8_t block512_simd_or_report(uint32_t *block, const block512_simd_mask *m, bool concurrent);

/* ---- what a batch does per key, and where its answers go ---- */

typedef enum block512_op { BLOCK512_LOOKUP, BLOCK512_INSERT, BLOCK512_ADD_NEW } block512_op;

/* The hit forms of kernel.h, plus "count only" (out == NULL). */
enum {
    BLOCK512_TO_BYTES = BLOOMSIMD_HITS_BYTES,
    BLOCK512_TO_BITMAP = BLOOMSIMD_HITS_BITMAP,
    BLOCK512_TO_INDICES = BLOOMSIMD_HITS_INDICES,
    BLOCK512_TO_COUNT = 3
};

/* Probe one key: insert it, or look it up / insert it and report it new
 * (returns the answer; 0 for a plain insert). */
BLOCK512_INLINE uint8_t block512_loop_key(uint32_t *block, const block512_simd_mask *m, block512_op op,
                                          bool concurrent)
{
    if (op == BLOCK512_INSERT) {
        block512_simd_or(block, m, concurrent);
        return 0;
    }
    return op == BLOCK512_LOOKUP ? block512_simd_test(block, m, concurrent)
                                 : block512_simd_or_report(block, m, concurrent);
}

/* Records answer `hit` of key i in byte or index form (bitmaps are gathered
 * by the callers) and counts it. */
BLOCK512_INLINE void block512_loop_answer(int to, void *out, size_t i, uint8_t hit, size_t *hits)
{
    if (to == BLOCK512_TO_BYTES)
        ((uint8_t *)out)[i] = hit;
    else if (to == BLOCK512_TO_INDICES)
        ((uint32_t *)out)[*hits] = (uint32_t)i; /* overwritten by the next hit if this is a miss */
    *hits += hit;
}

/* ---- the pipeline ---- */

typedef struct block512_ring {
    uint64_t hash[BLOCK512_LOOP_RING];
    uint32_t *block[BLOCK512_LOOP_RING];
} block512_ring;

/* Into L1 (prefetcht0, PRFM PLDL1KEEP / PSTL1KEEP): every probe reads the
 * whole line within ~64 keys. */
BLOCK512_INLINE void block512_loop_prefetch(const uint32_t *block, bool for_write)
{
    if (for_write)
        __builtin_prefetch(block, 1, 3);
    else
        __builtin_prefetch(block, 0, 3);
}

/* Hash (unless prehashed) keys [from, end), record hash and block in the
 * ring, prefetch the blocks. */
BLOCK512_INLINE void block512_loop_hash(const bloomsimd_geometry *g, const uint64_t *src, size_t from, size_t end,
                                        block512_ring *ring, bool prehashed, bool for_write)
{
    for (size_t i = from; i < end; i++) {
        uint64_t v;
        memcpy(&v, src + i, sizeof v); /* keys may be under-aligned */
        uint64_t h = prehashed ? v : bloomsimd_xxh3_u64(v, g->hash_bitflip);
        size_t slot = i & (BLOCK512_LOOP_RING - 1u);
        ring->hash[slot] = h;
        ring->block[slot] = bloomsimd_block_ptr(g, bloomsimd_block_index(h, g->nblocks));
        block512_loop_prefetch(ring->block[slot], for_write);
    }
}

/* Stage keys [from, end) (a group, or a batch's partial last one); a full
 * group of keys also prefetches the key line BLOOMSIMD_KEYS_AHEAD keys on
 * (kernel.h). */
BLOCK512_INLINE void block512_loop_stage(const bloomsimd_geometry *g, const uint64_t *src, size_t from, size_t end,
                                         block512_ring *ring, bool prehashed, bool for_write)
{
    if (!prehashed && end - from == BLOCK512_LOOP_GROUP) bloomsimd_prefetch_keys_ahead(src + from);
    block512_loop_hash(g, src, from, end, ring, prehashed, for_write);
}

/* Probe the `count` staged keys [base, base + count); base is a multiple of
 * BLOCK512_LOOP_GROUP = 8, so a group fills exactly one bitmap byte. A
 * bitmap lookup walks its group backwards, so that the byte builds up as
 * bits = 2 * bits + hit (one lea / one add with a shifted operand) instead
 * of a variable shift per key; lookups do not depend on their order,
 * inserts keep it. `full` (count == 8) is the steady state's constant-size
 * group, unrolled with BLOCK512_LOOP_UNROLL: sse42 saves 4 instructions per
 * key (no loop test or index arithmetic), while gcc 12 for AArch64 hoists
 * the 8 keys' loads and spills ~20 q-registers per group (neon.md). */
BLOCK512_INLINE size_t block512_loop_group(const block512_ring *ring, const block512_simd_table *t, size_t base,
                                           size_t count, bool full, block512_op op, int to, bool concurrent,
                                           void *out, size_t hits)
{
    size_t slot = base & (BLOCK512_LOOP_RING - 1u);
#define BLOCK512_PROBE(j)                                                                                              \
    block512_simd_mask m = block512_simd_mask_row(t, ring->hash[slot + (j)]);                                          \
    uint8_t hit = block512_loop_key(ring->block[slot + (j)], &m, op, concurrent)
    if (to == BLOCK512_TO_BITMAP) {
        unsigned bits = 0;
        if (full) {
#if BLOCK512_LOOP_UNROLL
#pragma GCC unroll 8
#endif
            for (size_t j = BLOCK512_LOOP_GROUP; j-- > 0;) {
                BLOCK512_PROBE(j);
                bits = 2 * bits + hit;
                hits += hit;
            }
        } else {
            for (size_t j = count; j-- > 0;) {
                BLOCK512_PROBE(j);
                bits = 2 * bits + hit;
                hits += hit;
            }
        }
        ((uint8_t *)out)[base / 8] = (uint8_t)bits;
        return hits;
    }
    if (full) {
#if BLOCK512_LOOP_UNROLL
#pragma GCC unroll 8
#endif
        for (size_t j = 0; j < BLOCK512_LOOP_GROUP; j++) {
            BLOCK512_PROBE(j);
            if (op != BLOCK512_INSERT) block512_loop_answer(to, out, base + j, hit, &hits);
        }
    } else {
        for (size_t j = 0; j < count; j++) {
            BLOCK512_PROBE(j);
            if (op != BLOCK512_INSERT) block512_loop_answer(to, out, base + j, hit, &hits);
        }
    }
#undef BLOCK512_PROBE
    return hits;
}

/*
 * Stages the first BLOCK512_LOOP_AHEAD keys of a batch (out of line: once
 * per call): the key-line prefetches of their 8 groups, then one loop over
 * the 64 keys. Rejected: one stage of 64 keys, which issues no key
 * prefetch, so the key lines of keys 256..319 would never be prefetched;
 * 8 stages of 8, which cost ~170 (sse42) and ~100 (neon) instructions per
 * batch more than this, against ~15 for the 8 prefetches
 * (docs/kernels/pipeline.md).
 */
static __attribute__((noinline)) void block512_loop_fill(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                                         block512_ring *ring, bool prehashed, bool for_write)
{
    size_t end = n < BLOCK512_LOOP_AHEAD ? n : BLOCK512_LOOP_AHEAD;
    if (!prehashed)
        for (size_t s = 0; s + BLOCK512_LOOP_GROUP <= end; s += BLOCK512_LOOP_GROUP)
            bloomsimd_prefetch_keys_ahead(src + s);
    block512_loop_hash(g, src, 0, end, ring, prehashed, for_write);
}

/* The last groups of a batch (fewer than AHEAD + GROUP keys): one
 * out-of-line copy for every flavour, the flags tested per key. */
static __attribute__((noinline)) size_t block512_loop_drain(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                                            size_t base, block512_ring *ring,
                                                            const block512_simd_table *t, void *out, size_t hits,
                                                            bool prehashed, block512_op op, int to)
{
    for (; base < n; base += BLOCK512_LOOP_GROUP) {
        size_t next = base + BLOCK512_LOOP_AHEAD;
        if (next < n)
            block512_loop_stage(g, src, next, next + BLOCK512_LOOP_GROUP < n ? next + BLOCK512_LOOP_GROUP : n, ring,
                                prehashed, op != BLOCK512_LOOKUP);
        hits = block512_loop_group(ring, t, base, base + BLOCK512_LOOP_GROUP < n ? BLOCK512_LOOP_GROUP : n - base,
                                   false, op, to, g->concurrent, out, hits);
    }
    return hits;
}

/*
 * Every batch of >= BLOCK512_LOOP_SMALL keys: build the table, stage AHEAD
 * keys, then per group stage the group AHEAD keys ahead and probe the
 * current one. The ring holds the live window [base, base + AHEAD + GROUP)
 * <= RING entries. The steady state, where every group is full, is the
 * specialised loop; the drain is shared (block512_loop_drain).
 */
BLOCK512_INLINE size_t block512_loop_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, void *out,
                                         bool prehashed, block512_op op, int to, bool concurrent)
{
    block512_simd_table t;
    block512_ring ring;
    const bool for_write = op != BLOCK512_LOOKUP;
    size_t hits = 0, base = 0;
    block512_simd_table_build(g->select, &t);
    block512_loop_fill(g, src, n, &ring, prehashed, for_write);
    for (; base + BLOCK512_LOOP_AHEAD + BLOCK512_LOOP_GROUP <= n; base += BLOCK512_LOOP_GROUP) {
        block512_loop_stage(g, src, base + BLOCK512_LOOP_AHEAD, base + BLOCK512_LOOP_AHEAD + BLOCK512_LOOP_GROUP,
                            &ring, prehashed, for_write);
        hits = block512_loop_group(&ring, &t, base, BLOCK512_LOOP_GROUP, !concurrent, op, to, concurrent, out, hits);
    }
    return block512_loop_drain(g, src, n, base, &ring, &t, out, hits, prehashed, op, to);
}

/* Batches below BLOCK512_LOOP_SMALL keys (the threshold's reason above):
 * hash and prefetch all of them, then probe. */
static size_t block512_loop_small(const bloomsimd_geometry *g, const uint64_t *src, size_t n, void *out,
                                  bool prehashed, block512_op op, int to)
{
    uint64_t hash[BLOCK512_LOOP_SMALL];
    uint32_t *block[BLOCK512_LOOP_SMALL];
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, src + i, sizeof v);
        hash[i] = prehashed ? v : bloomsimd_xxh3_u64(v, g->hash_bitflip);
        block[i] = bloomsimd_block_ptr(g, bloomsimd_block_index(hash[i], g->nblocks));
        block512_loop_prefetch(block[i], op != BLOCK512_LOOKUP);
    }
    size_t hits = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        block512_simd_mask m = block512_simd_mask_of(g->select, hash[i]);
        uint8_t hit = block512_loop_key(block[i], &m, op, g->concurrent);
        if (op == BLOCK512_INSERT) continue;
        if (to == BLOCK512_TO_BITMAP) {
            bits |= (unsigned)hit << (i & 7u);
            hits += hit;
            if ((i & 7u) == 7u || i + 1 == n) {
                ((uint8_t *)out)[i / 8] = (uint8_t)bits;
                bits = 0;
            }
        } else {
            block512_loop_answer(to, out, i, hit, &hits);
        }
    }
    return hits;
}

/* ---- the entries ---- */

/* Plain filters get one loop per (input, operation, answer form), with no
 * per-key branch; concurrent filters one per (input, operation), choosing
 * the form per key (a predictable branch next to the atomic accesses). */
static size_t block512_loop_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n, int to, void *out,
                                   bool prehashed)
{
    if (n < BLOCK512_LOOP_SMALL) return block512_loop_small(g, src, n, out, prehashed, BLOCK512_LOOKUP, to);
    if (g->concurrent) return block512_loop_run(g, src, n, out, prehashed, BLOCK512_LOOKUP, to, true);
    switch (to) {
    case BLOCK512_TO_BYTES:
        return block512_loop_run(g, src, n, out, prehashed, BLOCK512_LOOKUP, BLOCK512_TO_BYTES, false);
    case BLOCK512_TO_BITMAP:
        return block512_loop_run(g, src, n, out, prehashed, BLOCK512_LOOKUP, BLOCK512_TO_BITMAP, false);
    case BLOCK512_TO_INDICES:
        return block512_loop_run(g, src, n, out, prehashed, BLOCK512_LOOKUP, BLOCK512_TO_INDICES, false);
    default: return block512_loop_run(g, src, n, out, prehashed, BLOCK512_LOOKUP, BLOCK512_TO_COUNT, false);
    }
}

static void block512_loop_insert(const bloomsimd_geometry *g, const uint64_t *src, size_t n, bool prehashed)
{
    if (n < BLOCK512_LOOP_SMALL)
        block512_loop_small(g, src, n, NULL, prehashed, BLOCK512_INSERT, BLOCK512_TO_COUNT);
    else if (g->concurrent)
        block512_loop_run(g, src, n, NULL, prehashed, BLOCK512_INSERT, BLOCK512_TO_COUNT, true);
    else
        block512_loop_run(g, src, n, NULL, prehashed, BLOCK512_INSERT, BLOCK512_TO_COUNT, false);
}

/* Insert-and-report-new runs in the insert pipeline: keys are probed in
 * order and each one's OR is stored before the next key's block is read
 * (store-to-load forwarding when they share it), which is the in-order rule. */
static size_t block512_loop_add_new(const bloomsimd_geometry *g, const uint64_t *src, size_t n, uint8_t *out,
                                    bool prehashed)
{
    int to = out ? BLOCK512_TO_BYTES : BLOCK512_TO_COUNT;
    if (n < BLOCK512_LOOP_SMALL) return block512_loop_small(g, src, n, out, prehashed, BLOCK512_ADD_NEW, to);
    if (g->concurrent) return block512_loop_run(g, src, n, out, prehashed, BLOCK512_ADD_NEW, to, true);
    return out ? block512_loop_run(g, src, n, out, prehashed, BLOCK512_ADD_NEW, BLOCK512_TO_BYTES, false)
               : block512_loop_run(g, src, n, NULL, prehashed, BLOCK512_ADD_NEW, BLOCK512_TO_COUNT, false);
}

#define BLOCK512_LOOP_CAT_(p, name) p##_##name
#define BLOCK512_LOOP_CAT(p, name) BLOCK512_LOOP_CAT_(p, name)
#define BLOCK512_LOOP_ENTRY(name) BLOCK512_LOOP_CAT(BLOCK512_LOOP_PREFIX, name)

static size_t BLOCK512_LOOP_ENTRY(contains_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                                   bloomsimd_hit_form form, void *out)
{
    return block512_loop_lookup(g, hashes, n, out ? (int)form : BLOCK512_TO_COUNT, out, true);
}

static size_t BLOCK512_LOOP_ENTRY(contains_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                                bloomsimd_hit_form form, void *out)
{
    return block512_loop_lookup(g, keys, n, out ? (int)form : BLOCK512_TO_COUNT, out, false);
}

static void BLOCK512_LOOP_ENTRY(add_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    block512_loop_insert(g, hashes, n, true);
}

static void BLOCK512_LOOP_ENTRY(add_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    block512_loop_insert(g, keys, n, false);
}

static size_t BLOCK512_LOOP_ENTRY(add_new_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                                  uint8_t *out)
{
    return block512_loop_add_new(g, hashes, n, out, true);
}

static size_t BLOCK512_LOOP_ENTRY(add_new_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                               uint8_t *out)
{
    return block512_loop_add_new(g, keys, n, out, false);
}

#endif /* BLOOMSIMD_BLOCK512_LOOP_H */
