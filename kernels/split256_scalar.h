#ifndef BLOOMSIMD_SPLIT256_SCALAR_H
#define BLOOMSIMD_SPLIT256_SCALAR_H

/*
 * split256_scalar.h — the scalar kernel's split256 entries
 * (kernels/layout_split256.h, one key at a time in portable C), and the
 * layout routing every kernel file puts in its table (BLOOMSIMD_BY_LAYOUT).
 *
 * The batch loop is scalar.c's: keys hashed SPLIT256_SCALAR_AHEAD keys
 * ahead of the probe into a ring and their blocks prefetched, so that a
 * DRAM-resident filter keeps that many misses in flight. Included by each
 * kernel file (all static), so a SIMD kernel without split256 code of its
 * own for some entry falls back to these, compiled with its own flags.
 */
#include "layout.h"
#include "layout_split256.h"

#define SPLIT256_SCALAR_AHEAD 32u
#define SPLIT256_SCALAR_RING 64u /* a power of two > AHEAD */

enum { SPLIT256_SCALAR_LOOKUP, SPLIT256_SCALAR_INSERT, SPLIT256_SCALAR_INSERT_NEW, SPLIT256_SCALAR_TOUCH };

static inline __attribute__((always_inline)) uint64_t split256_scalar_stage(const bloomsimd_geometry *g,
                                                                             const uint64_t *src, size_t i,
                                                                             const int from_keys, const int write)
{
    uint64_t h;
    memcpy(&h, src + i, sizeof h); /* keys may be less than 8-byte aligned */
    if (from_keys) h = bloomsimd_xxh3_u64(h, g->hash_bitflip);
    const uint32_t *block = bloomsimd_split256_block_ptr(g, h);
    if (write)
        __builtin_prefetch(block, 1, 3);
    else
        __builtin_prefetch(block, 0, 3);
    return h;
}

/* One pass over n keys or hashes: lookups write `out` in `form` and return
 * the hits; inserts return 0; insert-new writes bytes and returns the new
 * keys; touch returns the sum of the first 64-bit word of every block. */
static inline __attribute__((always_inline)) size_t split256_scalar_run(const bloomsimd_geometry *g,
                                                                         const uint64_t *src, size_t n,
                                                                         const int from_keys, const int op,
                                                                         bloomsimd_hit_form form, void *out)
{
    const int write = op == SPLIT256_SCALAR_INSERT || op == SPLIT256_SCALAR_INSERT_NEW;
    uint64_t ring[SPLIT256_SCALAR_RING];
    size_t total = 0;
    if (op == SPLIT256_SCALAR_LOOKUP) bloomsimd_hits_begin(form, out, n);
    for (size_t i = 0; i < n && i < SPLIT256_SCALAR_AHEAD; i++)
        ring[i & (SPLIT256_SCALAR_RING - 1)] = split256_scalar_stage(g, src, i, from_keys, write);
    for (size_t i = 0; i < n; i++) {
        if (i + SPLIT256_SCALAR_AHEAD < n)
            ring[(i + SPLIT256_SCALAR_AHEAD) & (SPLIT256_SCALAR_RING - 1)] =
                split256_scalar_stage(g, src, i + SPLIT256_SCALAR_AHEAD, from_keys, write);
        uint64_t h = ring[i & (SPLIT256_SCALAR_RING - 1)];
        if (op == SPLIT256_SCALAR_LOOKUP) {
            uint8_t hit = bloomsimd_split256_contains_hash(g, h);
            if (out)
                bloomsimd_hit_put(form, out, i, &total, hit);
            else
                total += hit;
        } else if (op == SPLIT256_SCALAR_INSERT) {
            bloomsimd_split256_add_hash(g, h);
        } else if (op == SPLIT256_SCALAR_INSERT_NEW) {
            uint8_t is_new = bloomsimd_split256_add_new_hash(g, h);
            if (out) ((uint8_t *)out)[i] = is_new;
            total += is_new;
        } else {
            uint64_t word;
            memcpy(&word, bloomsimd_split256_block_ptr(g, h), sizeof word);
            total += (size_t)word;
        }
    }
    return total;
}

static inline void split256_scalar_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    split256_scalar_run(g, hashes, n, 0, SPLIT256_SCALAR_INSERT, BLOOMSIMD_HITS_BYTES, NULL);
}

static inline void split256_scalar_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    split256_scalar_run(g, keys, n, 1, SPLIT256_SCALAR_INSERT, BLOOMSIMD_HITS_BYTES, NULL);
}

static inline size_t split256_scalar_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                                     bloomsimd_hit_form form, void *out)
{
    return split256_scalar_run(g, hashes, n, 0, SPLIT256_SCALAR_LOOKUP, form, out);
}

static inline size_t split256_scalar_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                                  bloomsimd_hit_form form, void *out)
{
    return split256_scalar_run(g, keys, n, 1, SPLIT256_SCALAR_LOOKUP, form, out);
}

static inline size_t split256_scalar_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                                    uint8_t *out)
{
    return split256_scalar_run(g, hashes, n, 0, SPLIT256_SCALAR_INSERT_NEW, BLOOMSIMD_HITS_BYTES, out);
}

static inline size_t split256_scalar_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                                 uint8_t *out)
{
    return split256_scalar_run(g, keys, n, 1, SPLIT256_SCALAR_INSERT_NEW, BLOOMSIMD_HITS_BYTES, out);
}

static inline void split256_scalar_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    bloomsimd_split256_add_hash(g, hash);
}

static inline bool split256_scalar_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return bloomsimd_split256_contains_hash(g, hash);
}

static inline bool split256_scalar_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return bloomsimd_split256_add_new_hash(g, hash);
}

static inline uint64_t split256_scalar_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    return split256_scalar_run(g, keys, n, 1, SPLIT256_SCALAR_TOUCH, BLOOMSIMD_HITS_BYTES, NULL);
}

/*
 * The table entries of a kernel whose block512 entries are P_add_hashes,
 * P_contains_hashes, ... and split256 entries S_add_hashes, ...: each
 * P_by_layout_* routes on g->layout (one predictable branch per call; the
 * single-key entries inline both probes). TOUCH(x) is x for a kernel with
 * touch_u64 entries, empty otherwise.
 *
 * A batch of fewer than BLOOMSIMD_FEW_KEYS keys (a Redis BF.ADD or BF.EXISTS
 * of one item, a layered lookup's last few candidates) skips the pipeline:
 * its set-up (the ring, the partial groups, the hit forms) cost 13-20 ns a
 * call on Zen 3, where one key's probe costs about 4, so a one-key batch took
 * 4-5 times a single-key call. Those keys go through the layout's one-key
 * probes (P_add_one, P_contains_one, P_add_new_one and the S_ ones), in key
 * order: the same bits, answers and reports as the pipeline.
 */
#define BLOOMSIMD_FEW_KEYS 8u

/* The i-th of keys or hashes, which may be under-aligned. */
static inline uint64_t bloomsimd_few_load(const uint64_t *src, size_t i)
{
    uint64_t v;
    memcpy(&v, src + i, sizeof v);
    return v;
}

/* The XXH3 hash of the i-th of keys. */
static inline uint64_t bloomsimd_few_key_hash(const bloomsimd_geometry *g, const uint64_t *keys, size_t i)
{
    return bloomsimd_xxh3_u64(bloomsimd_few_load(keys, i), g->hash_bitflip);
}

/* The few-key loops: HASH_I is the i-th key's hash; each key takes P_by_layout_*_one. */
#define BLOOMSIMD_FEW_ADD(P, g, n, HASH_I)                                                                          \
    do {                                                                                                            \
        for (size_t i = 0; i < (n); i++) P##_by_layout_add_one((g), (HASH_I));                                      \
    } while (0)

#define BLOOMSIMD_FEW_CONTAINS(P, g, n, HASH_I, form, out)                                                          \
    do {                                                                                                            \
        bloomsimd_hit_form few_form = (out) ? (form) : BLOOMSIMD_HITS_BYTES;                                        \
        size_t few_hits = 0;                                                                                        \
        if (out) bloomsimd_hits_begin(few_form, (out), (n));                                                        \
        for (size_t i = 0; i < (n); i++) {                                                                          \
            uint8_t hit = P##_by_layout_contains_one((g), (HASH_I));                                                \
            bloomsimd_hit_put(few_form, (out), i, &few_hits, hit);                                                  \
        }                                                                                                           \
        return few_hits;                                                                                            \
    } while (0)

#define BLOOMSIMD_FEW_ADD_NEW(P, g, n, HASH_I, out)                                                                 \
    do {                                                                                                            \
        size_t few_fresh = 0;                                                                                       \
        for (size_t i = 0; i < (n); i++) {                                                                          \
            uint8_t is_new = P##_by_layout_add_new_one((g), (HASH_I));                                              \
            if (out) (out)[i] = is_new;                                                                             \
            few_fresh += is_new;                                                                                    \
        }                                                                                                           \
        return few_fresh;                                                                                           \
    } while (0)

#define BLOOMSIMD_BY_LAYOUT(P, S)                                                                                   \
    static void P##_by_layout_add_one(const bloomsimd_geometry *g, uint64_t hash)                                   \
    {                                                                                                               \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256)                                                                 \
            S##_add_one(g, hash);                                                                                   \
        else                                                                                                        \
            P##_add_one(g, hash);                                                                                   \
    }                                                                                                               \
    static bool P##_by_layout_contains_one(const bloomsimd_geometry *g, uint64_t hash)                              \
    {                                                                                                               \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_contains_one(g, hash);                               \
        return P##_contains_one(g, hash);                                                                           \
    }                                                                                                               \
    static bool P##_by_layout_add_new_one(const bloomsimd_geometry *g, uint64_t hash)                               \
    {                                                                                                               \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_add_new_one(g, hash);                                \
        return P##_add_new_one(g, hash);                                                                            \
    }                                                                                                               \
    static void P##_by_layout_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)             \
    {                                                                                                               \
        if (n < BLOOMSIMD_FEW_KEYS) {                                                                               \
            BLOOMSIMD_FEW_ADD(P, g, n, bloomsimd_few_load(hashes, i));                                              \
            return;                                                                                                 \
        }                                                                                                           \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256)                                                                 \
            S##_add_hashes(g, hashes, n);                                                                           \
        else                                                                                                        \
            P##_add_hashes(g, hashes, n);                                                                           \
    }                                                                                                               \
    static void P##_by_layout_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)                  \
    {                                                                                                               \
        if (n < BLOOMSIMD_FEW_KEYS) {                                                                               \
            BLOOMSIMD_FEW_ADD(P, g, n, bloomsimd_few_key_hash(g, keys, i));                                         \
            return;                                                                                                 \
        }                                                                                                           \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256)                                                                 \
            S##_add_u64(g, keys, n);                                                                                \
        else                                                                                                        \
            P##_add_u64(g, keys, n);                                                                                \
    }                                                                                                               \
    static size_t P##_by_layout_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,      \
                                                bloomsimd_hit_form form, void *out)                                 \
    {                                                                                                               \
        if (n < BLOOMSIMD_FEW_KEYS) BLOOMSIMD_FEW_CONTAINS(P, g, n, bloomsimd_few_load(hashes, i), form, out);      \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_contains_hashes(g, hashes, n, form, out);            \
        return P##_contains_hashes(g, hashes, n, form, out);                                                        \
    }                                                                                                               \
    static size_t P##_by_layout_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,           \
                                             bloomsimd_hit_form form, void *out)                                    \
    {                                                                                                               \
        if (n < BLOOMSIMD_FEW_KEYS) BLOOMSIMD_FEW_CONTAINS(P, g, n, bloomsimd_few_key_hash(g, keys, i), form, out); \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_contains_u64(g, keys, n, form, out);                 \
        return P##_contains_u64(g, keys, n, form, out);                                                             \
    }                                                                                                               \
    static size_t P##_by_layout_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,       \
                                               uint8_t *out)                                                        \
    {                                                                                                               \
        if (n < BLOOMSIMD_FEW_KEYS) BLOOMSIMD_FEW_ADD_NEW(P, g, n, bloomsimd_few_load(hashes, i), out);             \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_add_new_hashes(g, hashes, n, out);                   \
        return P##_add_new_hashes(g, hashes, n, out);                                                               \
    }                                                                                                               \
    static size_t P##_by_layout_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,            \
                                            uint8_t *out)                                                           \
    {                                                                                                               \
        if (n < BLOOMSIMD_FEW_KEYS) BLOOMSIMD_FEW_ADD_NEW(P, g, n, bloomsimd_few_key_hash(g, keys, i), out);        \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_add_new_u64(g, keys, n, out);                        \
        return P##_add_new_u64(g, keys, n, out);                                                                    \
    }

/* The touch_u64 entry of a kernel that has one (the bench's memory floor). */
#define BLOOMSIMD_BY_LAYOUT_TOUCH(P, S)                                                                             \
    static uint64_t P##_by_layout_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)            \
    {                                                                                                               \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_touch_u64(g, keys, n);                               \
        return P##_touch_u64(g, keys, n);                                                                           \
    }                                                                                                               \
    static uint64_t P##_by_layout_touch_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)       \
    {                                                                                                               \
        if (g->layout == BLOOMSIMD_LAYOUT_SPLIT256) return S##_touch_hashes(g, hashes, n);                          \
        return P##_touch_hashes(g, hashes, n);                                                                      \
    }

#endif /* BLOOMSIMD_SPLIT256_SCALAR_H */
