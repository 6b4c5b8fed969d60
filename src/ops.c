/*
 * ops.c — inserts, lookups and hashing: argument checks, then the kernel.
 *
 * Byte keys are hashed with the kernel's multi-key XXH3 (src/keys.c), and the
 * chunk of hashes is handed to the kernel, which pipelines the probes.
 */
#include <xxhash.h>

#include "../kernels/layout.h"
#include "internal.h"
#include "layers/layers.h"

bloomsimd_status bloomsimd_check_writable(const bloomsimd_filter *f)
{
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "filter is NULL");
    if (f->read_only)
        return bloomsimd_fail(BLOOMSIMD_ERR_READ_ONLY, "the filter is a read-only mapping (map with BLOOMSIMD_MAP_WRITABLE to insert)");
    return BLOOMSIMD_OK;
}


bool bloomsimd_any_bad_key(const void *const *keys, const size_t *lens, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i]) return true;
    return false;
}

bloomsimd_status bloomsimd_fail_bad_key(const void *const *keys, const size_t *lens, size_t n)
{
    size_t i = 0;
    while (i + 1 < n && !(!keys[i] && lens[i])) i++;
    return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "key %zu is NULL with length %zu", i, lens[i]);
}

/* Plain inserts into a layered filter: every key counted (they cannot know
 * which keys are new). */
static bloomsimd_status insert_layered(bloomsimd_filter *f, const uint64_t *hashes, size_t n)
{
    size_t counted;
    return bloomsimd_layered_insert(f, hashes, false, n, NULL, &counted, false);
}

/* XXH3 of one byte key, inlined (kernels/xxh3_bytes.h) with the filter's
 * precomputed seed constants: no call into libxxhash for keys <= 240 bytes. */
uint64_t bloomsimd_hash(const bloomsimd_filter *f, const void *key, size_t len)
{
    if (!f || (!key && len)) return 0;
    if (bloomsimd_is_parquet(f)) return bloomsimd_parquet_hash_bytes(key, len);
    return bloomsimd_xxh3_key(&f->xxh3, (const uint8_t *)key, len);
}

void bloomsimd_hash_batch_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    if (!f || !keys || !hashes) return;
    bloomsimd_u64_hash(f, keys, n, hashes);
}

/* One key: a NULL check and a tail jump into the set bound to f
 * (single_key.c), which hashes and probes in one function. */
/* (the names in parentheses: never the header's inline macros, whatever the build defines) */
bloomsimd_status (bloomsimd_add_u64)(bloomsimd_filter *f, uint64_t key)
{
    if (!f) return bloomsimd_check_writable(f);
    return f->single.add_u64(&f->geometry, key);
}

bool (bloomsimd_contains_u64)(const bloomsimd_filter *f, uint64_t key)
{
    if (!f) return false;
    return f->single.contains_u64(&f->geometry, key);
}

bloomsimd_status bloomsimd_add(bloomsimd_filter *f, const void *key, size_t len)
{
    if (!f) return bloomsimd_check_writable(f);
    if (!key && len) {
        bloomsimd_status st = bloomsimd_check_writable(f);
        if (st != BLOOMSIMD_OK) return st;
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "key is NULL with length %zu", len);
    }
    return f->single.add_hash(&f->geometry, bloomsimd_hash(f, key, len));
}

bool bloomsimd_contains(const bloomsimd_filter *f, const void *key, size_t len)
{
    if (!f || (!key && len)) return false;
    return f->single.contains_hash(&f->geometry, bloomsimd_hash(f, key, len));
}

bloomsimd_status bloomsimd_add_batch_u64(bloomsimd_filter *f, const uint64_t *keys, size_t n)
{
    bloomsimd_error_clear();
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    if (n == 0) return BLOOMSIMD_OK;
    if (!keys) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "keys is NULL with n %zu", n);
    if (f->layers) {
        size_t counted;
        return bloomsimd_layered_insert(f, keys, true, n, NULL, &counted, false);
    }
    bloomsimd_u64_add(f, keys, n);
    return BLOOMSIMD_OK;
}

size_t bloomsimd_contains_batch_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    if (!f || !keys || n == 0) return 0;
    return bloomsimd_lookup_u64(f, keys, n, BLOOMSIMD_HITS_BYTES, out);
}

bloomsimd_status bloomsimd_add_hashes(bloomsimd_filter *f, const uint64_t *hashes, size_t n)
{
    bloomsimd_error_clear();
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    if (n == 0) return BLOOMSIMD_OK;
    if (!hashes) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "hashes is NULL with n %zu", n);
    if (f->layers) return insert_layered(f, hashes, n);
    f->kernel->add_hashes(&f->geometry, hashes, n);
    return BLOOMSIMD_OK;
}

size_t bloomsimd_contains_hashes(const bloomsimd_filter *f, const uint64_t *hashes, size_t n, uint8_t *out)
{
    if (!f || !hashes || n == 0) return 0;
    return bloomsimd_lookup_hashes(f, hashes, n, BLOOMSIMD_HITS_BYTES, out);
}

/* The pointer-array form is a bloomsimd_keys view (src/keys.c): the same
 * multi-key hashing as the Arrow layouts. */
bloomsimd_status bloomsimd_add_batch(bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n)
{
    bloomsimd_error_clear();
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    if (n == 0) return BLOOMSIMD_OK;
    if (!keys || !lens)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL with n %zu", keys ? "lens" : "keys", n);
    bloomsimd_keys view = bloomsimd_keys_pointers(keys, lens, n);
    return bloomsimd_add_keys(f, &view); /* validates every key before inserting any */
}

/* A NULL key with a length is reported absent rather than failing the
 * batch: such chunks are hashed key by key, skipping the bad ones. */
size_t bloomsimd_contains_batch(const bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n,
                                uint8_t *out)
{
    if (!f || !keys || !lens || n == 0) return 0;
    return bloomsimd_lookup_bytes(f, keys, lens, n, BLOOMSIMD_HITS_BYTES, out);
}
