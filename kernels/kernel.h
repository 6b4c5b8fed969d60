/*
 * kernel.h — the contract between the filter core and one instruction-set kernel.
 *
 * A kernel is a table of function pointers. Each file in kernels/ defines
 * exactly one non-static symbol, `const bloomsimd_kernel bloomsimd_kernel_<name>`;
 * the build generates the priority-ordered table of them (see
 * cmake/BloomsimdKernels.cmake), so adding an instruction set is one file and
 * one line in CMakeLists.txt.
 *
 * Every kernel must produce exactly what kernels/scalar.c produces: the same
 * hashes, the same filter bytes after inserts, the same lookup answers, in
 * both block layouts (kernels/layout.h, kernels/layout_split256.h).
 */
#ifndef BLOOMSIMD_KERNEL_H
#define BLOOMSIMD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../include/bloomsimd.h"

struct bloomsimd_xxh3_params; /* kernels/xxh3_bytes.h */

/* Entries of a word-selection table: indexed by the top 6 bits of the low
 * hash word, (uint32_t)hash >> BLOOMSIMD_SELECT_SHIFT. */
#define BLOOMSIMD_SELECT_ENTRIES 64u
#define BLOOMSIMD_SELECT_SHIFT 26u

/* How a lookup batch reports its answers (every form returns the hit count):
 *   BYTES    out is uint8_t[n], out[i] = 1 if key i may be present, else 0;
 *            out may be NULL (count only).
 *   BITMAP   out is uint8_t[(n + 7) / 8], bit i % 8 of byte i / 8 (LSB
 *            first) is key i's answer; the bits past n in the last byte are 0.
 *   INDICES  out is uint32_t[n]; the indices (0-based, ascending) of the keys
 *            that may be present are written to out[0 .. hits). */
typedef enum bloomsimd_hit_form {
    BLOOMSIMD_HITS_BYTES = 0,
    BLOOMSIMD_HITS_BITMAP = 1,
    BLOOMSIMD_HITS_INDICES = 2
} bloomsimd_hit_form;

/* CPU features a kernel may require (bits of bloomsimd_cpu_features()). */
enum {
    BLOOMSIMD_CPU_SSE42 = 1u << 0,   /* SSE4.2 (implies SSSE3/SSE4.1) */
    BLOOMSIMD_CPU_AVX2 = 1u << 1,    /* AVX2, OS saves YMM state */
    BLOOMSIMD_CPU_AVX512 = 1u << 2,  /* AVX-512 F+BW+DQ+VL, OS saves ZMM state */
    BLOOMSIMD_CPU_NEON = 1u << 3,    /* AArch64 Advanced SIMD */
    BLOOMSIMD_CPU_BMI2 = 1u << 4
};

/* How keys become 64-bit hashes: the file format's hash_id (docs/FORMAT.md).
 * XXH3_64bits_withSeed, or for BLOOMSIMD_PARQUET filters XXH64; a filter's hash is a property
 * of its geometry (bloomsimd_geometry.hash_id) so that another hash can be
 * added as another id. */
#define BLOOMSIMD_HASH_XXH3 1u
/* Parquet's: XXH64 seed 0 of the PLAIN encoding (BLOOMSIMD_PARQUET filters, split256). */
#define BLOOMSIMD_HASH_PARQUET_XXH64 2u
/* BLOOMSIMD_U64_MUM: 64-bit keys by bloomsimd_mum_u64 (layout.h section 1)
 * with the geometry's mum_a / mum_b; byte keys XXH3, as hash 1. */
#define BLOOMSIMD_HASH_MUM 3u

/*
 * Everything a kernel needs to probe or set one filter. The core fills it at
 * create/load time; kernels only read it.
 */
typedef struct bloomsimd_geometry {
    uint32_t *words;           /* nblocks blocks of little-endian 32-bit words (16 per block in
                                  block512, 8 in split256), 64-byte aligned */
    uint64_t nblocks;          /* 1 .. 2^32 */
    const uint16_t *select;    /* block512: the 64 word-selection masks of this k (layout.h
                                  section 3); split256: NULL */
    uint32_t k;                /* block512: 1 .. 16; split256: 8 */
    uint64_t hash_bitflip;     /* seed-derived XXH3 constant, see bloomsimd_xxh3_u64 */
    uint64_t mum_a, mum_b;     /* hash 3: the seed-derived words of bloomsimd_mum_u64 */
    bool concurrent;           /* inserts must use atomic ORs (BLOOMSIMD_CONCURRENT) */
    uint32_t layout;           /* BLOOMSIMD_LAYOUT_BLOCK512 (layout.h) or _SPLIT256 (layout_split256.h) */
    uint32_t hash_id;          /* BLOOMSIMD_HASH_XXH3, _PARQUET_XXH64 or _MUM */
    uint64_t *items;           /* the filter's count of new keys (bloomsimd_info.items), which the
                                  single-key insert-and-report-new adds to (src/single_key.c points it) */
} bloomsimd_geometry;

/*
 * The fused batches (key -> hash -> probe) read their keys in order while
 * tens of random block misses are in flight. Left to the hardware, a key
 * line that misses the caches is a demand load queued behind those misses,
 * and the group's hash, block address and prefetch wait for it: the probe
 * pipeline stalls once the keys stream from memory (a column scan, a NumPy
 * array), as the caller's own two-pass path (hash a chunk, then probe the
 * hashes) does not. So each full group of keys staged also prefetches the
 * key line BLOOMSIMD_KEYS_AHEAD keys (2 KiB) further on into L1: one
 * prefetch per 8 keys. docs/kernels/pipeline.md has the measurements.
 */
#define BLOOMSIMD_KEYS_AHEAD 256u

/* Prefetch the key line BLOOMSIMD_KEYS_AHEAD keys past `keys`. The address
 * may be past the end of the array: a prefetch never faults, and it is
 * computed on integers so that no out-of-bounds pointer is formed. */
static inline void bloomsimd_prefetch_keys_ahead(const uint64_t *keys)
{
    __builtin_prefetch((const void *)((uintptr_t)keys + 8u * BLOOMSIMD_KEYS_AHEAD), 0, 3);
}

/* Bytes of one block of `layout` (64 for block512, 32 for split256). */
static inline uint32_t bloomsimd_layout_block_bytes(uint32_t layout)
{
    return layout == BLOOMSIMD_LAYOUT_SPLIT256 ? BLOOMSIMD_SPLIT256_BLOCK_BYTES : BLOOMSIMD_BLOCK_BYTES;
}

/*
 * One key per call, on one layout. A filter binds one set of these when it is
 * made (src/single_key.c, from its kernel, layout, hash, kind and access), so
 * bloomsimd_contains_u64 and friends are a NULL check and one tail jump: no
 * routing on layout, no layered or read-only test, no second call for the
 * hash. The hash and the probe are one function, so the loop a service runs
 * (one call per request) keeps more calls, and so more cache misses, in
 * flight at once (docs/kernels/single-key.md).
 */
typedef struct bloomsimd_single_key {
    /* key -> XXH3 (bloomsimd_xxh3_u64 with g->hash_bitflip) -> probe; add returns BLOOMSIMD_OK */
    bloomsimd_status (*add_u64)(const bloomsimd_geometry *g, uint64_t key);
    bool (*contains_u64)(const bloomsimd_geometry *g, uint64_t key);
    /* key -> bloomsimd_mum_u64 (hash 3) -> probe */
    bloomsimd_status (*add_u64_mum)(const bloomsimd_geometry *g, uint64_t key);
    bool (*contains_u64_mum)(const bloomsimd_geometry *g, uint64_t key);
    /* an already-hashed key (byte keys; Parquet's XXH64) */
    bloomsimd_status (*add_hash)(const bloomsimd_geometry *g, uint64_t hash);
    bool (*contains_hash)(const bloomsimd_geometry *g, uint64_t hash);
    /* insert and report new, by the same three hashes: *was_new (if not
     * NULL) is whether a bit of the key was missing (the layout's or_report
     * rule), and a new key is counted in *g->items */
    bloomsimd_status (*add_new_u64)(const bloomsimd_geometry *g, uint64_t key, bool *was_new);
    bloomsimd_status (*add_new_u64_mum)(const bloomsimd_geometry *g, uint64_t key, bool *was_new);
    bloomsimd_status (*add_new_hash)(const bloomsimd_geometry *g, uint64_t hash, bool *was_new);
} bloomsimd_single_key;

/* The end of a single-key insert-and-report-new: count the key if it was new
 * and report it. No branch on `fresh` for a plain filter: once the filter is
 * out of the caches, whether a key is new is known only when its block
 * arrives, and a mispredicted branch there discards the calls the core had
 * started meanwhile (their cache misses no longer overlap). */
static inline bloomsimd_status bloomsimd_single_key_new(const bloomsimd_geometry *g, bool fresh, bool *was_new)
{
    if (g->concurrent) {
        if (fresh) __atomic_fetch_add(g->items, 1, __ATOMIC_RELAXED);
    } else {
        uint64_t one_if_new = fresh;
        __asm__("" : "+r"(one_if_new)); /* else gcc turns the add back into a branch */
        *g->items += one_if_new;
    }
    if (was_new) *was_new = fresh;
    return BLOOMSIMD_OK;
}

/* The slot of `layout` in a kernel's single[] (0 block512, 1 split256). */
#define BLOOMSIMD_LAYOUT_SLOTS 2u
static inline unsigned bloomsimd_layout_slot(uint32_t layout) { return layout == BLOOMSIMD_LAYOUT_SPLIT256; }

typedef struct bloomsimd_kernel {
    const char *name;
    uint32_t required_features;  /* all of these BLOOMSIMD_CPU_* bits must be present */
    bool emulated;               /* runs through SIMDe here: listed, never auto-selected */
    /* The layout new filters on this kernel get when options.layout is 0
     * (BLOOMSIMD_LAYOUT_BLOCK512 or _SPLIT256), chosen by measurement
     * (docs/kernels/default-layout.md). Every entry below serves both
     * layouts, routing on g->layout. */
    uint32_t default_layout;

    /* hashes[i] = XXH3_64bits_withSeed(&keys[i], 8, seed) (keys as LE bytes). */
    void (*hash_u64)(uint64_t hash_bitflip, const uint64_t *keys, size_t n, uint64_t *hashes);
    /* The fused key entries below (add_u64, contains_u64, add_new_u64,
     * touch_u64) hash with XXH3 (hash 1) only; filters of another hash
     * (Parquet's, mum) hash a chunk in the core and call the *_hashes
     * entries (src/u64_keys.c), so a hash is not a kernel's worth of code. */
    /* Insert / look up pre-computed hashes. Lookups write `out` in `form`
     * (above) and return the count of hits. */
    void (*add_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n);
    size_t (*contains_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                              void *out);
    /* Fused key -> hash -> probe paths, as above. */
    void (*add_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n);
    size_t (*contains_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                           void *out);
    /* Insert and report new: in key order, key i is tested and then inserted,
     * so a key repeated within the batch is new only the first time.
     * out[i] = 1 if key i was not (probably) present before it was inserted;
     * out may be NULL. Returns the count of new keys. On a concurrent filter
     * the inserts are atomic ORs and "new" means some word still lacked a bit
     * when this thread ORed it, so of two threads inserting the same new key,
     * at least one reports it new. */
    size_t (*add_new_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out);
    size_t (*add_new_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out);
    /* One key, already hashed, on either layout (routed on g->layout): the
     * layers of a scalable filter or a window probe through these. */
    void (*add_one)(const bloomsimd_geometry *g, uint64_t hash);
    bool (*contains_one)(const bloomsimd_geometry *g, uint64_t hash);
    /* The same per layout, the hash fused in: [bloomsimd_layout_slot(layout)]
     * (kernels/single_key.h writes them from add_one/contains_one). */
    bloomsimd_single_key single[BLOOMSIMD_LAYOUT_SLOTS];
    /* XXH3_64bits_withSeed of keys first .. first+count-1 of a validated key
     * view (include/bloomsimd.h, bloomsimd_keys) into hashes[0 .. count),
     * bit-exact with libxxhash; p holds the seed's constants
     * (kernels/xxh3_bytes.h). Never reads outside a key. */
    void (*hash_keys)(const struct bloomsimd_xxh3_params *p, const bloomsimd_keys *keys, size_t first, size_t count,
                      uint64_t *hashes);
    /* Optional (NULL: the portable loop of src/parquet/mode.c): hashes[i] =
     * XXH64, seed 0, of keys[i]'s 8 little-endian bytes, the hash of
     * BLOOMSIMD_PARQUET filters, bit-exact with libxxhash. */
    void (*hash_u64_parquet)(const uint64_t *keys, size_t n, uint64_t *hashes);
    /* Optional: XXH64, seed 0, of keys first .. first+count-1 of a validated
     * key view into hashes[0 .. count), for the views this kernel vectorises;
     * false (nothing written) for the others, which the core hashes one key
     * at a time. */
    bool (*hash_keys_parquet)(const bloomsimd_keys *keys, size_t first, size_t count, uint64_t *hashes);
    /* Set operations over whole bit arrays (nwords 64-bit words, 64-byte aligned):
     * dst[i] |= src[i] and dst[i] &= src[i]. */
    void (*union_words)(uint64_t *dst, const uint64_t *src, size_t nwords);
    void (*intersect_words)(uint64_t *dst, const uint64_t *src, size_t nwords);
    /* Optional (may be NULL): the memory floor for the bench's "ceiling" row.
     * The same hash, block index and pipeline as contains_u64, but instead of
     * probing it reads ONE 64-bit word (the first) of each key's block.
     * Returns the sum of the words read, so the reads cannot be dropped. */
    uint64_t (*touch_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n);
    /* Optional, with touch_u64: the same over hashes (hash_u64's output), so
     * the bench's floor can also be the two-pass form (hash a batch, then
     * touch), whichever is faster on the CPU at hand. */
    uint64_t (*touch_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n);
} bloomsimd_kernel;

#endif /* BLOOMSIMD_KERNEL_H */
