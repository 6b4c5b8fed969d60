/*
 * add_new.c — insert and report new: argument checks, then the kernel's
 * one-pass add_new entry (kernels/kernel.h: in key order, each key is tested
 * and then inserted, so a repeat inside the batch is new only the first
 * time). The count of new keys is added to the filter's items counter.
 * Layered filters go through layers/ (scalable.c, window.c), whose layers
 * keep their own counters.
 */
#include <string.h>
#include <xxhash.h>

#include "../kernels/layout.h"
#include "internal.h"
#include "layers/layers.h"

static bloomsimd_status finish(bloomsimd_filter *f, size_t fresh, size_t *new_count)
{
    if (fresh) bloomsimd_items_add(f, fresh);
    if (new_count) *new_count = fresh;
    return BLOOMSIMD_OK;
}

static bloomsimd_status layered(bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n, uint8_t *out,
                                size_t *new_count)
{
    size_t fresh = 0;
    bloomsimd_status st = bloomsimd_layered_insert(f, src, src_keys, n, out, &fresh, true);
    if (new_count) *new_count = fresh;
    return st;
}

bloomsimd_status bloomsimd_add_new_batch_u64(bloomsimd_filter *f, const uint64_t *keys, size_t n, uint8_t *out,
                                             size_t *new_count)
{
    bloomsimd_error_clear();
    if (new_count) *new_count = 0;
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    if (n == 0) return BLOOMSIMD_OK;
    if (!keys) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "keys is NULL with n %zu", n);
    if (f->layers) return layered(f, keys, true, n, out, new_count);
    return finish(f, bloomsimd_u64_add_new(f, keys, n, out), new_count);
}

bloomsimd_status bloomsimd_add_new_hashes(bloomsimd_filter *f, const uint64_t *hashes, size_t n, uint8_t *out,
                                          size_t *new_count)
{
    bloomsimd_error_clear();
    if (new_count) *new_count = 0;
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    if (n == 0) return BLOOMSIMD_OK;
    if (!hashes) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "hashes is NULL with n %zu", n);
    if (f->layers) return layered(f, hashes, false, n, out, new_count);
    return finish(f, f->kernel->add_new_hashes(&f->geometry, hashes, n, out), new_count);
}

bloomsimd_status bloomsimd_add_new_batch(bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n,
                                         uint8_t *out, size_t *new_count)
{
    bloomsimd_error_clear();
    if (new_count) *new_count = 0;
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    if (n == 0) return BLOOMSIMD_OK;
    if (!keys || !lens)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL with n %zu", keys ? "lens" : "keys", n);
    if (bloomsimd_any_bad_key(keys, lens, n)) return bloomsimd_fail_bad_key(keys, lens, n);
    uint64_t hashes[BLOOMSIMD_BYTE_KEY_CHUNK];
    size_t fresh = 0;
    for (size_t base = 0; base < n; base += BLOOMSIMD_BYTE_KEY_CHUNK) {
        size_t count = n - base < BLOOMSIMD_BYTE_KEY_CHUNK ? n - base : BLOOMSIMD_BYTE_KEY_CHUNK;
        bloomsimd_keys view = bloomsimd_keys_pointers(keys + base, lens + base, count);
        bloomsimd_keys_hash_range(f, &view, 0, count, hashes); /* the kernel's multi-key XXH3 (src/keys.c) */
        if (!f->layers) {
            fresh += f->kernel->add_new_hashes(&f->geometry, hashes, count, out ? out + base : NULL);
            continue;
        }
        size_t chunk_new = 0;
        st = bloomsimd_layered_insert(f, hashes, false, count, out ? out + base : NULL, &chunk_new, true);
        fresh += chunk_new;
        if (st != BLOOMSIMD_OK) {
            /* a failed grow: the rest of the batch is not inserted */
            if (out && base + count < n) memset(out + base + count, 0, n - base - count);
            if (new_count) *new_count = fresh;
            return st;
        }
    }
    if (f->layers) {
        if (new_count) *new_count = fresh;
        return BLOOMSIMD_OK;
    }
    return finish(f, fresh, new_count);
}

/* One key: a NULL check, then the function the filter bound for it
 * (src/single_key.c: its kernel and layout's insert-and-report-new, which
 * counts the key; the layers' path; or a refusal on a read-only filter).
 * Through the kernel's batch entry with n = 1 it took 3-4 times a plain
 * insert: this is the call a dedup loop makes for every key. */
bloomsimd_status bloomsimd_add_new_u64(bloomsimd_filter *f, uint64_t key, bool *was_new)
{
    if (!f) {
        if (was_new) *was_new = false;
        return bloomsimd_check_writable(f);
    }
    return f->single.add_new_u64(&f->geometry, key, was_new);
}

bloomsimd_status bloomsimd_add_new(bloomsimd_filter *f, const void *key, size_t len, bool *was_new)
{
    if (!f || (!key && len)) {
        if (was_new) *was_new = false;
        bloomsimd_status st = bloomsimd_check_writable(f); /* read-only is reported before a bad key */
        if (st != BLOOMSIMD_OK) return st;
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "key is NULL with length %zu", len);
    }
    return f->single.add_new_hash(&f->geometry, bloomsimd_hash(f, key, len), was_new);
}
