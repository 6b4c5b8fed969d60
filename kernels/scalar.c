/*
 * scalar.c — the reference kernel: the specification in kernels/layout.h,
 * one key at a time, in portable C. Every other kernel is tested against it.
 *
 * It pipelines a batch (hash a group of keys, prefetch their blocks, probe
 * them SCALAR_PREFETCH_GROUPS groups later) so that it is not latency-bound
 * on large filters; its schedule is simpler than the SIMD kernels' (one
 * prefetcht0 level, fixed distance), which does not matter here: at ~25-35
 * ns/key of computation it is compute-bound even on a DRAM-resident filter.
 */
#include "layout.h"
#include "split256_scalar.h"
#include "xxh3_bytes.h"

/* Keys hashed and prefetched ahead of the probe: enough lines in flight to
 * cover DRAM latency (~100 ns at ~5 ns/key), small enough to stay in L1. */
#define SCALAR_GROUP 16u
#define SCALAR_PREFETCH_GROUPS 2u

static void scalar_hash_u64(uint64_t bitflip, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    for (size_t i = 0; i < n; i++) hashes[i] = bloomsimd_xxh3_u64(keys[i], bitflip);
}

static void scalar_prefetch(const bloomsimd_geometry *g, uint64_t hash, int for_write)
{
    const uint32_t *block = bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks));
    if (for_write)
        __builtin_prefetch(block, 1, 3);
    else
        __builtin_prefetch(block, 0, 3);
}

static void scalar_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    const size_t ahead = SCALAR_GROUP * SCALAR_PREFETCH_GROUPS;
    for (size_t i = 0; i < n && i < ahead; i++) scalar_prefetch(g, hashes[i], 1);
    for (size_t i = 0; i < n; i++) {
        if (i + ahead < n) scalar_prefetch(g, hashes[i + ahead], 1);
        bloomsimd_scalar_add_hash(g, hashes[i]);
    }
}

static size_t scalar_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                     bloomsimd_hit_form form, void *out)
{
    const size_t ahead = SCALAR_GROUP * SCALAR_PREFETCH_GROUPS;
    size_t hits = 0;
    bloomsimd_hits_begin(form, out, n);
    for (size_t i = 0; i < n && i < ahead; i++) scalar_prefetch(g, hashes[i], 0);
    for (size_t i = 0; i < n; i++) {
        if (i + ahead < n) scalar_prefetch(g, hashes[i + ahead], 0);
        bloomsimd_hit_put(form, out, i, &hits, bloomsimd_scalar_contains_hash(g, hashes[i]));
    }
    return hits;
}

static size_t scalar_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    const size_t ahead = SCALAR_GROUP * SCALAR_PREFETCH_GROUPS;
    size_t fresh = 0;
    for (size_t i = 0; i < n && i < ahead; i++) scalar_prefetch(g, hashes[i], 1);
    for (size_t i = 0; i < n; i++) {
        if (i + ahead < n) scalar_prefetch(g, hashes[i + ahead], 1);
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, hashes[i]);
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

/* Fused paths: hash a ring of groups ahead so each block is prefetched
 * SCALAR_PREFETCH_GROUPS groups before it is probed. */
#define SCALAR_RING (SCALAR_GROUP * (SCALAR_PREFETCH_GROUPS + 1u))

static void scalar_fill_ring(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, size_t from,
                             uint64_t ring[SCALAR_RING], int for_write)
{
    size_t end = from + SCALAR_GROUP < n ? from + SCALAR_GROUP : n;
    for (size_t i = from; i < end; i++) {
        uint64_t h = bloomsimd_xxh3_u64(keys[i], g->hash_bitflip);
        ring[i % SCALAR_RING] = h;
        scalar_prefetch(g, h, for_write);
    }
}

static void scalar_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    uint64_t ring[SCALAR_RING];
    for (size_t i = 0; i < SCALAR_PREFETCH_GROUPS * SCALAR_GROUP && i < n; i += SCALAR_GROUP)
        scalar_fill_ring(g, keys, n, i, ring, 1);
    for (size_t base = 0; base < n; base += SCALAR_GROUP) {
        size_t next = base + SCALAR_PREFETCH_GROUPS * SCALAR_GROUP;
        if (next < n) scalar_fill_ring(g, keys, n, next, ring, 1);
        size_t end = base + SCALAR_GROUP < n ? base + SCALAR_GROUP : n;
        for (size_t i = base; i < end; i++) bloomsimd_scalar_add_hash(g, ring[i % SCALAR_RING]);
    }
}

static size_t scalar_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                  bloomsimd_hit_form form, void *out)
{
    uint64_t ring[SCALAR_RING];
    size_t hits = 0;
    bloomsimd_hits_begin(form, out, n);
    for (size_t i = 0; i < SCALAR_PREFETCH_GROUPS * SCALAR_GROUP && i < n; i += SCALAR_GROUP)
        scalar_fill_ring(g, keys, n, i, ring, 0);
    for (size_t base = 0; base < n; base += SCALAR_GROUP) {
        size_t next = base + SCALAR_PREFETCH_GROUPS * SCALAR_GROUP;
        if (next < n) scalar_fill_ring(g, keys, n, next, ring, 0);
        size_t end = base + SCALAR_GROUP < n ? base + SCALAR_GROUP : n;
        for (size_t i = base; i < end; i++)
            bloomsimd_hit_put(form, out, i, &hits, bloomsimd_scalar_contains_hash(g, ring[i % SCALAR_RING]));
    }
    return hits;
}

static size_t scalar_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    uint64_t ring[SCALAR_RING];
    size_t fresh = 0;
    for (size_t i = 0; i < SCALAR_PREFETCH_GROUPS * SCALAR_GROUP && i < n; i += SCALAR_GROUP)
        scalar_fill_ring(g, keys, n, i, ring, 1);
    for (size_t base = 0; base < n; base += SCALAR_GROUP) {
        size_t next = base + SCALAR_PREFETCH_GROUPS * SCALAR_GROUP;
        if (next < n) scalar_fill_ring(g, keys, n, next, ring, 1);
        size_t end = base + SCALAR_GROUP < n ? base + SCALAR_GROUP : n;
        for (size_t i = base; i < end; i++) {
            uint8_t is_new = bloomsimd_scalar_add_new_hash(g, ring[i % SCALAR_RING]);
            if (out) out[i] = is_new;
            fresh += is_new;
        }
    }
    return fresh;
}

static void scalar_add_one(const bloomsimd_geometry *g, uint64_t hash) { bloomsimd_scalar_add_hash(g, hash); }

static bool scalar_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return bloomsimd_scalar_contains_hash(g, hash);
}

static bool scalar_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return bloomsimd_scalar_add_new_hash(g, hash);
}

static void scalar_hash_keys(const bloomsimd_xxh3_params *p, const bloomsimd_keys *keys, size_t first, size_t count,
                             uint64_t *hashes)
{
    bloomsimd_hash_keys_reference(p, keys, first, count, hashes);
}

static void scalar_union_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++) dst[i] |= src[i];
}

static void scalar_intersect_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++) dst[i] &= src[i];
}

/* split256 (kernels/layout_split256.h): split256_scalar.h's entries. */
BLOOMSIMD_BY_LAYOUT(scalar, split256_scalar)
#include "single_key.h"
BLOOMSIMD_SINGLE_KEY(scalar, split256_scalar)

const bloomsimd_kernel bloomsimd_kernel_scalar = {
    .name = "scalar",
    .required_features = 0,
    .emulated = false,
    .default_layout = BLOOMSIMD_LAYOUT_BLOCK512,
    .hash_u64 = scalar_hash_u64,
    .add_hashes = scalar_by_layout_add_hashes,
    .contains_hashes = scalar_by_layout_contains_hashes,
    .add_u64 = scalar_by_layout_add_u64,
    .contains_u64 = scalar_by_layout_contains_u64,
    .add_new_hashes = scalar_by_layout_add_new_hashes,
    .add_new_u64 = scalar_by_layout_add_new_u64,
    .add_one = scalar_by_layout_add_one,
    .contains_one = scalar_by_layout_contains_one,
    .single = BLOOMSIMD_SINGLE_KEY_ENTRIES(scalar),
    .hash_keys = scalar_hash_keys,
    .union_words = scalar_union_words,
    .intersect_words = scalar_intersect_words,
};
