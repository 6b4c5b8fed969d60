/*
 * u64_keys.c — batches of 64-bit keys under each hash of kernels/kernel.h.
 *
 * Hash 1 (XXH3) is fused into every kernel's pipeline: key, hash, block and
 * probe in one pass (kernel.h: add_u64, contains_u64, add_new_u64). The
 * other hashes, Parquet's XXH64 (hash 2) and mum (hash 3), hash a chunk of
 * keys here and hand the hashes to the kernel's pre-hashed entries, which
 * have the same probe, prefetching and hit forms. So a hash is one function
 * in the core, not a copy of every kernel's pipeline. What that costs mum
 * (two multiplies a key in general registers, not overlapped with the
 * probes) is measured in docs/kernels/hash-u64.md: avx2 batches 8-44% slower
 * than its fused vector XXH3; sse42 and scalar, whose XXH3 is scalar too,
 * 4-16% faster.
 */
#include "../kernels/layout.h"
#include "internal.h"

/* Keys hashed per chunk: a multiple of 8 (bitmaps stay byte-aligned), on the
 * stack, in L1 beside the kernel's ring. */
#define U64_CHUNK 1024u

void bloomsimd_u64_hash(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    switch (f->geometry.hash_id) {
    case BLOOMSIMD_HASH_PARQUET_XXH64: bloomsimd_parquet_hash_u64(f, keys, n, hashes); return;
    case BLOOMSIMD_HASH_MUM: {
        const uint64_t a = f->geometry.mum_a, b = f->geometry.mum_b;
        for (size_t i = 0; i < n; i++) hashes[i] = bloomsimd_mum_u64(keys[i], a, b);
        return;
    }
    default: f->kernel->hash_u64(f->geometry.hash_bitflip, keys, n, hashes); return;
    }
}

void bloomsimd_u64_add(const bloomsimd_filter *f, const uint64_t *keys, size_t n)
{
    if (bloomsimd_u64_fused(f)) {
        f->kernel->add_u64(&f->geometry, keys, n);
        return;
    }
    uint64_t h[U64_CHUNK];
    for (size_t i = 0; i < n; i += U64_CHUNK) {
        size_t m = n - i < U64_CHUNK ? n - i : U64_CHUNK;
        bloomsimd_u64_hash(f, keys + i, m, h);
        f->kernel->add_hashes(&f->geometry, h, m);
    }
}

size_t bloomsimd_u64_lookup(const bloomsimd_filter *f, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                            void *out)
{
    if (bloomsimd_u64_fused(f)) return f->kernel->contains_u64(&f->geometry, keys, n, form, out);
    uint64_t h[U64_CHUNK];
    size_t hits = 0;
    for (size_t i = 0; i < n; i += U64_CHUNK) {
        size_t m = n - i < U64_CHUNK ? n - i : U64_CHUNK;
        bloomsimd_u64_hash(f, keys + i, m, h);
        void *dst = NULL;
        if (out) {
            switch (form) {
            case BLOOMSIMD_HITS_BYTES: dst = (uint8_t *)out + i; break;
            case BLOOMSIMD_HITS_BITMAP: dst = (uint8_t *)out + i / 8; break;
            case BLOOMSIMD_HITS_INDICES: dst = (uint32_t *)out + hits; break;
            }
        }
        size_t got = f->kernel->contains_hashes(&f->geometry, h, m, form, dst);
        /* a chunk's indices are relative to it */
        if (out && form == BLOOMSIMD_HITS_INDICES)
            for (size_t j = 0; j < got; j++) ((uint32_t *)dst)[j] += (uint32_t)i;
        hits += got;
    }
    return hits;
}

size_t bloomsimd_u64_add_new(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    if (bloomsimd_u64_fused(f)) return f->kernel->add_new_u64(&f->geometry, keys, n, out);
    uint64_t h[U64_CHUNK];
    size_t fresh = 0;
    for (size_t i = 0; i < n; i += U64_CHUNK) {
        size_t m = n - i < U64_CHUNK ? n - i : U64_CHUNK;
        bloomsimd_u64_hash(f, keys + i, m, h);
        fresh += f->kernel->add_new_hashes(&f->geometry, h, m, out ? out + i : NULL);
    }
    return fresh;
}
