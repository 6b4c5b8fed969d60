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
bloomsimd_status bloomsimd_keys_validate(const bloomsimd_keys *v)
{
    if (!v) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (v->n == 0) return BLOOMSIMD_OK;
    switch (v->layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: {
        if (!v->offsets32) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        uint32_t previous = v->offsets32[0];
        for (size_t i = 1; i <= v->n; i++) {
            if (v->offsets32[i] < previous) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
            previous = v->offsets32[i];
        }
        if (previous > v->data_len) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        if (!v->data && previous != v->offsets32[0]) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        return BLOOMSIMD_OK;
    }
    case BLOOMSIMD_KEYS_OFFSETS64: {
        if (!v->offsets64) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        uint64_t previous = v->offsets64[0];
        for (size_t i = 1; i <= v->n; i++) {
            if (v->offsets64[i] < previous) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
            previous = v->offsets64[i];
        }
        if (previous > v->data_len) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        if (!v->data && previous != v->offsets64[0]) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        return BLOOMSIMD_OK;
    }
    case BLOOMSIMD_KEYS_FIXED:
        if (v->width != 0 && v->n > v->data_len / v->width) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        if (v->width != 0 && !v->data) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        return BLOOMSIMD_OK;
    case BLOOMSIMD_KEYS_POINTERS:
        if (!v->pointers || !v->lengths) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        for (size_t i = 0; i < v->n; i++)
            if (!v->pointers[i] && v->lengths[i]) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
        return BLOOMSIMD_OK;
    }
    return BLOOMSIMD_ERR_INVALID_ARGUMENT;
}

void bloomsimd_keys_hash_range(const bloomsimd_filter *f, const bloomsimd_keys *v, size_t first, size_t count,
                               uint64_t *hashes)
{
    if (f->kernel->hash_keys)
        f->kernel->hash_keys(&f->xxh3, v, first, count, hashes);
    else
        bloomsimd_hash_keys_reference(&f->xxh3, v, first, count, hashes);
}

bloomsimd_status bloomsimd_hash_keys(const bloomsimd_filter *f, const bloomsimd_keys *v, uint64_t *hashes)
{
    if (!f || !hashes) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    bloomsimd_status st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    if (v->n) bloomsimd_keys_hash_range(f, v, 0, v->n, hashes);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_add_keys(bloomsimd_filter *f, const bloomsimd_keys *v)
{
    if (!f) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (f->read_only) return BLOOMSIMD_ERR_READ_ONLY;
    bloomsimd_status st = bloomsimd_keys_validate(v);
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
    if (!f) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
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
    if (new_count) *new_count = 0;
    if (!f) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (f->read_only) return BLOOMSIMD_ERR_READ_ONLY;
    bloomsimd_status st = bloomsimd_keys_validate(v);
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
    if (!f || !indices || !count) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    bloomsimd_status st = bloomsimd_keys_validate(v);
    if (st != BLOOMSIMD_OK) return st;
    if (v->n > UINT32_MAX) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
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
