/*
 * select.c — lookups in every hit form (bytes, bitmap, selection vector) for
 * every key type, and the public selection-vector and bitmap calls.
 *
 * The kernels write all three forms natively (kernels/kernel.h), so a
 * selection vector costs what the byte path costs: the public calls here
 * only check arguments. Byte keys are hashed in chunks of
 * BLOOMSIMD_BYTE_KEY_CHUNK; a chunk's bitmap starts on a byte boundary and a
 * chunk's indices are shifted by the chunk's first index.
 */
#include <string.h>
#include <xxhash.h>

#include "../kernels/layout.h"
#include "internal.h"
#include "layers/layers.h"

size_t bloomsimd_lookup_hashes(const bloomsimd_filter *f, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                               void *out)
{
    if (f->layers) return bloomsimd_layered_lookup(f, hashes, false, n, form, out);
    return f->kernel->contains_hashes(&f->geometry, hashes, n, form, out);
}

size_t bloomsimd_lookup_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                            void *out)
{
    if (f->layers) return bloomsimd_layered_lookup(f, keys, true, n, form, out);
    return bloomsimd_u64_lookup(f, keys, n, form, out);
}

/* One chunk's answers (in bytes) written in `form` at keys base.. of the whole batch. */
static size_t put_chunk(bloomsimd_hit_form form, void *out, size_t base, const uint8_t *hits, size_t count,
                        size_t total)
{
    if (form == BLOOMSIMD_HITS_BITMAP) memset((uint8_t *)out + base / 8, 0, (count + 7) / 8);
    for (size_t i = 0; i < count; i++) bloomsimd_hit_put(form, out, base + i, &total, hits[i]);
    return total;
}

size_t bloomsimd_lookup_bytes(const bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n,
                              bloomsimd_hit_form form, void *out)
{
    uint64_t hashes[BLOOMSIMD_BYTE_KEY_CHUNK];
    uint8_t hits[BLOOMSIMD_BYTE_KEY_CHUNK];
    size_t total = 0;
    for (size_t base = 0; base < n; base += BLOOMSIMD_BYTE_KEY_CHUNK) {
        size_t count = n - base < BLOOMSIMD_BYTE_KEY_CHUNK ? n - base : BLOOMSIMD_BYTE_KEY_CHUNK;
        bool any_bad = bloomsimd_any_bad_key(keys + base, lens + base, count);
        if (!any_bad) { /* the kernel's multi-key XXH3 (src/keys.c) */
            bloomsimd_keys view = bloomsimd_keys_pointers(keys + base, lens + base, count);
            bloomsimd_keys_hash_range(f, &view, 0, count, hashes);
        } else {
            for (size_t i = 0; i < count; i++) hashes[i] = bloomsimd_hash(f, keys[base + i], lens[base + i]);
        }
        if (any_bad) {
            /* the rare batch with a bad key: answers in bytes, bad keys cleared */
            bloomsimd_lookup_hashes(f, hashes, count, BLOOMSIMD_HITS_BYTES, hits);
            for (size_t i = 0; i < count; i++) hits[i] &= !(!keys[base + i] && lens[base + i]);
            if (form == BLOOMSIMD_HITS_BYTES && !out) {
                for (size_t i = 0; i < count; i++) total += hits[i];
                continue;
            }
            total = put_chunk(form, out, base, hits, count, total);
            continue;
        }
        switch (form) {
        case BLOOMSIMD_HITS_BYTES:
            total += bloomsimd_lookup_hashes(f, hashes, count, form, out ? (uint8_t *)out + base : NULL);
            break;
        case BLOOMSIMD_HITS_BITMAP:
            total += bloomsimd_lookup_hashes(f, hashes, count, form, (uint8_t *)out + base / 8);
            break;
        case BLOOMSIMD_HITS_INDICES: {
            uint32_t *indices = (uint32_t *)out + total;
            size_t hit_count = bloomsimd_lookup_hashes(f, hashes, count, form, indices);
            for (size_t i = 0; i < hit_count; i++) indices[i] += (uint32_t)base;
            total += hit_count;
            break;
        }
        }
    }
    return total;
}

/* ---- public calls ---- */

size_t bloomsimd_select_batch_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint32_t *indices)
{
    if (!f || !keys || !indices || n == 0 || n > UINT32_MAX) return 0;
    return bloomsimd_lookup_u64(f, keys, n, BLOOMSIMD_HITS_INDICES, indices);
}

size_t bloomsimd_select_hashes(const bloomsimd_filter *f, const uint64_t *hashes, size_t n, uint32_t *indices)
{
    if (!f || !hashes || !indices || n == 0 || n > UINT32_MAX) return 0;
    return bloomsimd_lookup_hashes(f, hashes, n, BLOOMSIMD_HITS_INDICES, indices);
}

size_t bloomsimd_select_batch(const bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n,
                              uint32_t *indices)
{
    if (!f || !keys || !lens || !indices || n == 0 || n > UINT32_MAX) return 0;
    return bloomsimd_lookup_bytes(f, keys, lens, n, BLOOMSIMD_HITS_INDICES, indices);
}

size_t bloomsimd_contains_bitmap_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint8_t *bitmap)
{
    if (!f || !keys || !bitmap || n == 0) return 0;
    return bloomsimd_lookup_u64(f, keys, n, BLOOMSIMD_HITS_BITMAP, bitmap);
}

size_t bloomsimd_contains_bitmap_hashes(const bloomsimd_filter *f, const uint64_t *hashes, size_t n, uint8_t *bitmap)
{
    if (!f || !hashes || !bitmap || n == 0) return 0;
    return bloomsimd_lookup_hashes(f, hashes, n, BLOOMSIMD_HITS_BITMAP, bitmap);
}

size_t bloomsimd_contains_bitmap(const bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n,
                                 uint8_t *bitmap)
{
    if (!f || !keys || !lens || !bitmap || n == 0) return 0;
    return bloomsimd_lookup_bytes(f, keys, lens, n, BLOOMSIMD_HITS_BITMAP, bitmap);
}
