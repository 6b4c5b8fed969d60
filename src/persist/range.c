/*
 * range.c — bytes [offset, offset + len) of what bloomsimd_serialize writes,
 * and nothing else (bloomsimd_serialize_range): for hosts that hand a large
 * filter out in pieces, such as the Redis module's BF.SCANDUMP, where
 * serializing the whole filter for every piece costs O(filter) a piece (a
 * 254 MB filter: 18 calls of ~0.25 s each, every one blocking the server).
 *
 * The serialized form (docs/FORMAT.md) is the header, bytes [0,
 * payload_offset), then each layer's words at layer[i].offset, zero padding
 * up to the next layer or the end. A slice of the payload is a copy of those
 * bytes: O(len). The header carries every layer's checksum, so a slice that
 * touches it also reads the whole filter once to take them (as
 * bloomsimd_serialize_stream's first pass does). A layered filter is held
 * still during the call. The slices of a filter that does not change
 * between the calls add up to bloomsimd_serialize's bytes; if it changes,
 * the header's checksums stop matching the later slices, and the reader
 * rejects the result as _CORRUPT, as it would any torn copy.
 */
#include <string.h>

#include "format.h"
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

/* Bytes per piece when a concurrent layer is hashed through a copy. */
#define RANGE_HASH_CHUNK ((size_t)16 << 10)

/* bytes [from, from + n) of a layer's words. A concurrent filter's words are
 * read with relaxed atomic loads (other threads may be setting bits), as
 * bloomsimd_payload_copy does; the slice may start and end inside a word. */
static void copy_bits(const bloomsimd_filter *layer, uint8_t *dst, uint64_t from, size_t n)
{
    const uint8_t *src = (const uint8_t *)layer->geometry.words;
    if (!layer->geometry.concurrent) {
        memcpy(dst, src + from, n);
        return;
    }
    const uint64_t *words = (const uint64_t *)(const void *)src;
    while (n > 0) {
        uint64_t w = __atomic_load_n(&words[from / 8], __ATOMIC_RELAXED);
        size_t at = (size_t)(from % 8), take = 8 - at < n ? 8 - at : n;
        memcpy(dst, (const uint8_t *)&w + at, take);
        dst += take, from += take, n -= take;
    }
}

/* The checksum the header records for a layer: XXH3 of its words, taken
 * through small copies on a concurrent filter (no plain read of memory that
 * other threads write). */
static uint64_t layer_checksum(const bloomsimd_filter *layer)
{
    size_t bytes = bloomsimd_filter_bytes(layer);
    if (!layer->geometry.concurrent) return bloomsimd_payload_checksum(layer->geometry.words, bytes);
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    uint8_t chunk[RANGE_HASH_CHUNK];
    for (size_t at = 0; at < bytes; at += RANGE_HASH_CHUNK) {
        size_t n = bytes - at < RANGE_HASH_CHUNK ? bytes - at : RANGE_HASH_CHUNK;
        copy_bits(layer, chunk, at, n);
        XXH3_64bits_update(&state, chunk, n);
    }
    return XXH3_64bits_digest(&state);
}

/* The part of [lo, hi) that overlaps [offset, end), as [*a, *b); false if none. */
static bool overlap(uint64_t lo, uint64_t hi, uint64_t offset, uint64_t end, uint64_t *a, uint64_t *b)
{
    *a = lo > offset ? lo : offset;
    *b = hi < end ? hi : end;
    return *a < *b;
}

/* With the filter held still and h describing it. */
static bloomsimd_status write_range(const bloomsimd_filter *f, bloomsimd_header *h, uint64_t offset, uint8_t *out,
                                    size_t len)
{
    uint64_t total = bloomsimd_header_file_bytes(h), end = offset + len, a, b;
    for (uint32_t i = 0; i < h->layers; i++) {
        const bloomsimd_filter *layer = bloomsimd_payload_layer(f, i);
        uint64_t start = h->layer[i].offset, bits_end = start + bloomsimd_header_layer_bytes(h, i);
        uint64_t next = i + 1 < h->layers ? h->layer[i + 1].offset : total;
        if (overlap(start, bits_end, offset, end, &a, &b)) copy_bits(layer, out + (a - offset), a - start, b - a);
        if (overlap(bits_end, next, offset, end, &a, &b)) memset(out + (a - offset), 0, (size_t)(b - a));
    }
    if (!overlap(0, h->payload_offset, offset, end, &a, &b)) return BLOOMSIMD_OK;
    for (uint32_t i = 0; i < h->layers; i++)
        bloomsimd_header_set_checksum(h, i, layer_checksum(bloomsimd_payload_layer(f, i)));
    uint8_t stack[BLOOMSIMD_FORMAT_HEADER_MAX];
    uint8_t *header = bloomsimd_header_buffer(h, stack);
    if (!header) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the header failed");
    bloomsimd_header_encode(h, header);
    memcpy(out + (a - offset), header + a, (size_t)(b - a));
    bloomsimd_header_buffer_free(header, stack);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_serialize_range(const bloomsimd_filter *f, uint64_t offset, void *buf, size_t len)
{
    bloomsimd_error_clear();
    if (!f || (!buf && len)) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? "buf" : "filter");
    bloomsimd_header h;
    bloomsimd_status st = bloomsimd_header_hold(f, &h);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t total = bloomsimd_header_file_bytes(&h);
    if (offset > total || len > total - offset)
        st = bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "bytes %llu..%llu are past the %llu bytes of the filter",
                            (unsigned long long)offset, (unsigned long long)offset + len, (unsigned long long)total);
    else if (len)
        st = write_range(f, &h, offset, buf, len);
    bloomsimd_layers_release(f);
    bloomsimd_header_release(&h);
    return st;
}
