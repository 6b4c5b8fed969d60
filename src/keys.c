/*
 * keys.c — byte-key batches described by a bloomsimd_keys view (Arrow
 * offsets, fixed width, pointer arrays): validation, then chunks of keys
 * hashed by the kernel's multi-key XXH3 and handed to the hash-level calls
 * (bloomsimd_add_hashes, bloomsimd_contains_hashes), which pipeline the
 * probes.
 */
#include "../kernels/xxh3_bytes.h"
#include "internal.h"

/* Keys hashed per chunk: large enough for the kernel's hashing to fill its
 * lanes per length class and for the probe pipeline to run at speed, small
 * enough for the stack (8 KiB of hashes). */
#define KEY_CHUNK 1024u

/* Checks everything kernels rely on: every key lies inside readable memory
 * the caller described, sizes do not overflow. O(n) for offsets and
 * pointers (one pass), O(1) for fixed width. */
#define BAD_VIEW(...) bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "keys view: " __VA_ARGS__)

/* True if offsets[i] < offsets[i - 1] for some i in 1..n. No early exit, so
 * the compiler vectorises it: the check costs ~0.05 ns per key instead of a
 * compare and branch per key (it was ~0.4 ns/key of a 0.8 ns/key hash of
 * 8-byte keys). The failing index is found afterwards, only on failure. */
static bool offsets32_decrease(const uint32_t *offsets, size_t n)
{
    unsigned decrease = 0;
    for (size_t i = 1; i <= n; i++) decrease |= offsets[i] < offsets[i - 1];
    return decrease != 0;
}

static bool offsets64_decrease(const uint64_t *offsets, size_t n)
{
    unsigned decrease = 0;
    for (size_t i = 1; i <= n; i++) decrease |= offsets[i] < offsets[i - 1];
    return decrease != 0;
}

bloomsimd_status bloomsimd_keys_validate(const bloomsimd_keys *v)
{
    if (!v) return BAD_VIEW("NULL");
    if (v->n == 0) return BLOOMSIMD_OK;
    switch (v->layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: {
        if (!v->offsets32) return BAD_VIEW("offsets32 is NULL with %zu keys", v->n);
        if (offsets32_decrease(v->offsets32, v->n)) {
            size_t i = 1;
            while (v->offsets32[i] >= v->offsets32[i - 1]) i++;
            return BAD_VIEW("offsets32[%zu] = %u is below offsets32[%zu] = %u (offsets must not decrease)", i,
                            (unsigned)v->offsets32[i], i - 1, (unsigned)v->offsets32[i - 1]);
        }
        uint32_t previous = v->offsets32[v->n];
        if (previous > v->data_len)
            return BAD_VIEW("offsets32[%zu] = %u is past data_len %zu", v->n, (unsigned)previous, v->data_len);
        if (!v->data && previous != v->offsets32[0]) return BAD_VIEW("data is NULL but the keys are not all empty");
        return BLOOMSIMD_OK;
    }
    case BLOOMSIMD_KEYS_OFFSETS64: {
        if (!v->offsets64) return BAD_VIEW("offsets64 is NULL with %zu keys", v->n);
        if (offsets64_decrease(v->offsets64, v->n)) {
            size_t i = 1;
            while (v->offsets64[i] >= v->offsets64[i - 1]) i++;
            return BAD_VIEW("offsets64[%zu] = %llu is below offsets64[%zu] = %llu (offsets must not decrease)", i,
                            (unsigned long long)v->offsets64[i], i - 1, (unsigned long long)v->offsets64[i - 1]);
        }
        uint64_t previous = v->offsets64[v->n];
        if (previous > v->data_len)
            return BAD_VIEW("offsets64[%zu] = %llu is past data_len %zu", v->n, (unsigned long long)previous,
                            v->data_len);
        if (!v->data && previous != v->offsets64[0]) return BAD_VIEW("data is NULL but the keys are not all empty");
        return BLOOMSIMD_OK;
    }
    case BLOOMSIMD_KEYS_FIXED:
        if (v->width != 0 && v->n > v->data_len / v->width)
            return BAD_VIEW("%zu keys of width %zu do not fit in data_len %zu", v->n, v->width, v->data_len);
        if (v->width != 0 && !v->data) return BAD_VIEW("data is NULL with width %zu", v->width);
        return BLOOMSIMD_OK;
    case BLOOMSIMD_KEYS_POINTERS:
        if (!v->pointers || !v->lengths) return BAD_VIEW("%s is NULL with %zu keys", v->pointers ? "lengths" : "pointers", v->n);
        for (size_t i = 0; i < v->n; i++)
            if (!v->pointers[i] && v->lengths[i])
                return BAD_VIEW("key %zu is NULL with length %zu", i, v->lengths[i]);
        return BLOOMSIMD_OK;
    }
    return BAD_VIEW("unknown layout %d", (int)v->layout);
}

void bloomsimd_keys_hash_range(const bloomsimd_filter *f, const bloomsimd_keys *v, size_t first, size_t count,
                               uint64_t *hashes)
{
    if (bloomsimd_is_parquet(f)) {
        if (!v->data && v->layout != BLOOMSIMD_KEYS_POINTERS) { /* every key empty (see below) */
            for (size_t i = 0; i < count; i++) hashes[i] = bloomsimd_parquet_hash_bytes(NULL, 0);
            return;
        }
        if (!f->kernel->hash_keys_parquet || !f->kernel->hash_keys_parquet(v, first, count, hashes))
            bloomsimd_parquet_hash_keys(v, first, count, hashes);
        return;
    }
    if (!v->data && v->layout != BLOOMSIMD_KEYS_POINTERS) {
        /* A view without data passed validation only if every key is empty.
         * They all hash alike; no kernel gets to form data + offset, which is
         * undefined for NULL even when nothing is read (clang's UBSan says so). */
        static const uint8_t no_bytes[1];
        uint64_t empty = bloomsimd_xxh3_key(&f->xxh3, no_bytes, 0);
        for (size_t i = 0; i < count; i++) hashes[i] = empty;
        return;
    }
    if (f->kernel->hash_keys)
        f->kernel->hash_keys(&f->xxh3, v, first, count, hashes);
    else
        bloomsimd_hash_keys_reference(&f->xxh3, v, first, count, hashes);
}

bloomsimd_status bloomsimd_hash_keys(const bloomsimd_filter *f, const bloomsimd_keys *v, uint64_t *hashes)
{
    bloomsimd_error_clear();
    if (!f || !hashes) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? "hashes" : "filter");
    bloomsimd_status st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    if (v->n) bloomsimd_keys_hash_range(f, v, 0, v->n, hashes);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_add_keys(bloomsimd_filter *f, const bloomsimd_keys *v)
{
    bloomsimd_error_clear();
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t hashes[KEY_CHUNK];
    for (size_t base = 0; base < v->n; base += KEY_CHUNK) {
        size_t count = v->n - base < KEY_CHUNK ? v->n - base : KEY_CHUNK;
        bloomsimd_keys_hash_range(f, v, base, count, hashes);
        st = bloomsimd_add_hashes(f, hashes, count);
        if (st != BLOOMSIMD_OK) return st;
    }
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_contains_keys(const bloomsimd_filter *f, const bloomsimd_keys *v, uint8_t *out,
                                         size_t *hits)
{
    bloomsimd_error_clear();
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "filter is NULL");
    bloomsimd_status st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t hashes[KEY_CHUNK];
    size_t total = 0;
    for (size_t base = 0; base < v->n; base += KEY_CHUNK) {
        size_t count = v->n - base < KEY_CHUNK ? v->n - base : KEY_CHUNK;
        bloomsimd_keys_hash_range(f, v, base, count, hashes);
        total += bloomsimd_contains_hashes(f, hashes, count, out ? out + base : NULL);
    }
    if (hits) *hits = total;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_add_new_keys(bloomsimd_filter *f, const bloomsimd_keys *v, uint8_t *out, size_t *new_count)
{
    bloomsimd_error_clear();
    if (new_count) *new_count = 0;
    bloomsimd_status st = bloomsimd_check_writable(f);
    if (st != BLOOMSIMD_OK) return st;
    st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t hashes[KEY_CHUNK];
    size_t total = 0;
    for (size_t base = 0; base < v->n; base += KEY_CHUNK) {
        size_t count = v->n - base < KEY_CHUNK ? v->n - base : KEY_CHUNK, fresh = 0;
        bloomsimd_keys_hash_range(f, v, base, count, hashes);
        st = bloomsimd_add_new_hashes(f, hashes, count, out ? out + base : NULL, &fresh);
        total += fresh;
        if (st != BLOOMSIMD_OK) break; /* a failed grow: what went in is reported */
    }
    if (new_count) *new_count = total;
    return st;
}

bloomsimd_status bloomsimd_select_keys(const bloomsimd_filter *f, const bloomsimd_keys *v, uint32_t *indices,
                                       size_t *count)
{
    bloomsimd_error_clear();
    if (!f || !indices || !count)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", !f ? "filter" : !indices ? "indices" : "count");
    bloomsimd_status st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    if (v->n > UINT32_MAX)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%zu keys: a selection vector holds at most 2^32 - 1",
                              v->n);
    uint64_t hashes[KEY_CHUNK];
    size_t total = 0;
    for (size_t base = 0; base < v->n; base += KEY_CHUNK) {
        size_t chunk = v->n - base < KEY_CHUNK ? v->n - base : KEY_CHUNK;
        bloomsimd_keys_hash_range(f, v, base, chunk, hashes);
        uint32_t *at = indices + total;
        size_t hits = bloomsimd_select_hashes(f, hashes, chunk, at);
        for (size_t i = 0; i < hits; i++) at[i] += (uint32_t)base;
        total += hits;
    }
    *count = total;
    return BLOOMSIMD_OK;
}
