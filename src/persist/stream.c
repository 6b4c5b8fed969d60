/*
 * stream.c — a filter to and from a byte stream through callbacks
 * (bloomsimd_serialize_stream, bloomsimd_deserialize_stream): the bytes of
 * bloomsimd_serialize, with no buffer of the filter's size in between.
 *
 * Writing: the header goes first and carries the payload checksums, so the
 * payload is read twice: one pass hashes each layer in place, the next hands
 * the layer's own memory to the callback in chunks (the words are the file's
 * bytes on the only byte order the build accepts). That is only sound if the
 * bits cannot change between the passes. A non-concurrent filter has one
 * writer, the caller, who is busy here; a layered filter is held still (its
 * grows and rotates wait). A CONCURRENT filter can gain bits at any time, so
 * it is cloned first and the clone is written: the one case with a full-size
 * temporary copy. Rejected: re-hashing the second pass and failing on a
 * mismatch, because the header would already be out and the reader would see
 * corruption where there was only a race.
 *
 * Reading: the header is read and fully validated (bloomsimd_header_decode,
 * the same steps as deserialize) before anything is allocated; then the
 * filter is built and each layer's payload is read straight into its bit
 * array, hashed as it arrives, and checked; padding between layers must be
 * zero. The reader asks for exactly the bytes the filter occupies, never more,
 * so whatever follows it in the stream is left there.
 *
 * Status equivalence with deserialize: when the stream ends inside the
 * header, the header is decoded as a buffer of that length, so every
 * truncated, flipped or forged header gets deserialize's status. A stream
 * cannot tell its length in advance, so a checksummed header claiming a
 * payload longer than the stream is trusted for the allocation: the result is
 * _CORRUPT when the payload ends early, or _NO_MEMORY if the claimed size
 * cannot be allocated at all. When the caller knows the length (a regular
 * file, bloomsimd_deserialize_fd) it is checked first, and the result is
 * _CORRUPT as with load.
 */
#include "stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

/* Bytes per callback call: large enough that per-call cost vanishes, small
 * enough that the payload being hashed is still in cache. */
#define STREAM_CHUNK_BYTES ((size_t)1 << 20)

static const uint8_t zero_page[BLOOMSIMD_FORMAT_ALIGN];

/* A callback's failure, passed up as it is; the detail names the callback
 * unless it (our fd callbacks) already said what went wrong. */
static bloomsimd_status callback_failed(bloomsimd_status st, const char *which)
{
    if (bloomsimd_last_error()[0]) return st;
    return bloomsimd_fail(st, "the %s callback failed: %s", which, bloomsimd_status_string(st));
}

/* Writes `len` zero bytes (padding; < 4096 at a time). */
static bloomsimd_status write_zeros(bloomsimd_write_fn write, void *ctx, uint64_t len)
{
    while (len > 0) {
        size_t n = len < sizeof zero_page ? (size_t)len : sizeof zero_page;
        bloomsimd_status st = write(ctx, zero_page, n);
        if (st != BLOOMSIMD_OK) return callback_failed(st, "write");
        len -= n;
    }
    return BLOOMSIMD_OK;
}

/* The write of a filter no other thread can change (held still by the caller). */
static bloomsimd_status write_still(const bloomsimd_filter *f, bloomsimd_write_fn write, void *ctx)
{
    bloomsimd_header h;
    bloomsimd_status st = bloomsimd_header_from_filter(f, 0, &h);
    if (st != BLOOMSIMD_OK) return st;
    for (uint32_t i = 0; i < h.layers; i++) {
        const bloomsimd_filter *layer = bloomsimd_payload_layer(f, i);
        bloomsimd_header_set_checksum(&h, i, bloomsimd_payload_checksum(layer->geometry.words, bloomsimd_filter_bytes(layer)));
    }
    uint8_t stack[BLOOMSIMD_FORMAT_HEADER_MAX];
    uint8_t *header = bloomsimd_header_buffer(&h, stack);
    if (!header) {
        bloomsimd_header_release(&h);
        return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the header failed");
    }
    bloomsimd_header_encode(&h, header);
    st = write(ctx, header, h.payload_offset);
    bloomsimd_header_buffer_free(header, stack);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_header_release(&h);
        return callback_failed(st, "write");
    }
    for (uint32_t i = 0; i < h.layers && st == BLOOMSIMD_OK; i++) {
        const bloomsimd_filter *layer = bloomsimd_payload_layer(f, i);
        const uint8_t *bits = (const uint8_t *)layer->geometry.words;
        size_t bytes = bloomsimd_filter_bytes(layer);
        for (size_t off = 0; off < bytes && st == BLOOMSIMD_OK; off += STREAM_CHUNK_BYTES)
            st = write(ctx, bits + off, bytes - off < STREAM_CHUNK_BYTES ? bytes - off : STREAM_CHUNK_BYTES);
        if (st != BLOOMSIMD_OK) {
            st = callback_failed(st, "write");
            break;
        }
        uint64_t end = i + 1 < h.layers ? h.layer[i + 1].offset : bloomsimd_header_file_bytes(&h);
        st = write_zeros(write, ctx, end - h.layer[i].offset - bytes);
    }
    bloomsimd_header_release(&h);
    return st;
}

bloomsimd_status bloomsimd_serialize_stream(const bloomsimd_filter *f, bloomsimd_write_fn write, void *ctx)
{
    bloomsimd_error_clear();
    if (!f || !write)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? "the write callback" : "filter");
    if (f->geometry.concurrent) {
        /* a private snapshot: nobody else can insert into it */
        bloomsimd_filter *snapshot;
        bloomsimd_status st = bloomsimd_clone(&snapshot, f);
        if (st != BLOOMSIMD_OK) return st;
        st = write_still(snapshot, write, ctx);
        int saved = errno;
        bloomsimd_destroy(snapshot);
        errno = saved;
        return st;
    }
    bloomsimd_layers_hold(f);
    bloomsimd_status st = write_still(f, write, ctx);
    bloomsimd_layers_release(f);
    return st;
}

/* Reads exactly len bytes unless the stream ends first; *got says how many
 * arrived. A callback's failure is returned as it is. */
static bloomsimd_status read_full(bloomsimd_read_fn read, void *ctx, void *buf, size_t len, size_t *got)
{
    uint8_t *p = buf;
    *got = 0;
    while (*got < len) {
        size_t n = 0;
        bloomsimd_status st = read(ctx, p + *got, len - *got, &n);
        if (st != BLOOMSIMD_OK) return callback_failed(st, "read");
        if (n > len - *got)
            return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "the read callback returned %zu bytes for %zu asked",
                                  n, len - *got);
        if (n == 0) break;                                         /* end of stream */
        *got += n;
    }
    return BLOOMSIMD_OK;
}

/* Reads the header (fixed part, then up to the payload offset it claims)
 * and decodes it with deserialize's rules; see the file comment for how a
 * stream that ends inside it is judged. */
/* A header longer than the stack's (a chain of more than 64 layers) is
 * read into a buffer that grows only as bytes arrive, so a header that
 * claims a long directory costs no more memory than the stream delivers. */
static bloomsimd_status read_long_header(bloomsimd_read_fn read, void *ctx, const uint8_t *fixed, uint32_t claimed,
                                         uint8_t **out, size_t *avail)
{
    size_t cap = 2 * BLOOMSIMD_FORMAT_HEADER_MAX;
    uint8_t *buf = malloc(cap);
    if (!buf) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a header buffer failed");
    memcpy(buf, fixed, BLOOMSIMD_FORMAT_FIXED_BYTES);
    *avail = BLOOMSIMD_FORMAT_FIXED_BYTES;
    while (*avail < claimed) {
        size_t want = claimed - *avail < STREAM_CHUNK_BYTES ? claimed - *avail : STREAM_CHUNK_BYTES, got;
        if (*avail + want > cap) {
            size_t grown = 2 * cap > *avail + want ? 2 * cap : *avail + want;
            if (grown > claimed) grown = claimed;
            uint8_t *more = realloc(buf, grown);
            if (!more) {
                free(buf);
                return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a header buffer failed");
            }
            buf = more, cap = grown;
        }
        bloomsimd_status st = read_full(read, ctx, buf + *avail, want, &got);
        if (st != BLOOMSIMD_OK) {
            free(buf);
            return st;
        }
        *avail += got;
        if (got < want) break; /* ended inside */
    }
    *out = buf;
    return BLOOMSIMD_OK;
}

static bloomsimd_status read_header(bloomsimd_read_fn read, void *ctx, uint64_t limit, bloomsimd_header *h)
{
    uint8_t stack[BLOOMSIMD_FORMAT_HEADER_MAX], *header = stack;
    size_t got;
    bloomsimd_status st = read_full(read, ctx, header, BLOOMSIMD_FORMAT_FIXED_BYTES, &got);
    if (st != BLOOMSIMD_OK) return st;
    if (got < BLOOMSIMD_FORMAT_FIXED_BYTES) return bloomsimd_header_decode(header, got, got, h);
    uint32_t claimed_offset = bloomsimd_le32_get(header + BLOOMSIMD_HDR_PAYLOAD_OFFSET);
    size_t avail = BLOOMSIMD_FORMAT_FIXED_BYTES;
    if (claimed_offset > BLOOMSIMD_FORMAT_FIXED_BYTES && claimed_offset <= BLOOMSIMD_FORMAT_HEADER_MAX) {
        st = read_full(read, ctx, header + avail, claimed_offset - avail, &got);
        if (st != BLOOMSIMD_OK) return st;
        avail += got;
        if (avail < claimed_offset) return bloomsimd_header_decode(header, avail, avail, h); /* ended inside */
    } else if (claimed_offset > BLOOMSIMD_FORMAT_HEADER_MAX && claimed_offset <= limit) {
        st = read_long_header(read, ctx, stack, claimed_offset, &header, &avail);
        if (st != BLOOMSIMD_OK) return st;
        if (avail < claimed_offset) {
            st = bloomsimd_header_decode(header, avail, avail, h); /* ended inside */
            free(header);
            return st;
        }
    }
    /* The stream holds at least `avail` bytes and may go on: judge its
     * length as the header claims it (saturated), but never below what has
     * arrived, so that decode's length checks agree with deserialize's on
     * the whole input (the payload read then finds a shorter stream). */
    uint64_t payload_bytes = bloomsimd_le64_get(header + BLOOMSIMD_HDR_PAYLOAD_BYTES);
    uint64_t total = payload_bytes > UINT64_MAX - claimed_offset ? UINT64_MAX : claimed_offset + payload_bytes;
    if (total < avail) total = avail;
    st = bloomsimd_header_decode(header, avail, total, h);
    if (header != stack) free(header);
    if (st == BLOOMSIMD_OK && bloomsimd_header_file_bytes(h) > limit) {
        bloomsimd_header_release(h);
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "the header claims %llu bytes, the file has %llu left",
                              (unsigned long long)bloomsimd_header_file_bytes(h), (unsigned long long)limit);
    }
    return st;
}

/* Reads layer i's blocks into its bit array, hashing them as they arrive,
 * checks them, then reads and checks the zero padding after them. */
static bloomsimd_status read_layer(bloomsimd_read_fn read, void *ctx, const bloomsimd_header *h, uint32_t i,
                                   bloomsimd_filter *layer, XXH3_state_t *state)
{
    const bloomsimd_layer_entry *l = &h->layer[i];
    uint8_t *bits = (uint8_t *)layer->geometry.words;
    size_t bytes = bloomsimd_header_layer_bytes(h, i), got;
    if (XXH3_64bits_reset(state) != XXH_OK) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "XXH3 state reset failed");
    for (size_t off = 0; off < bytes; off += STREAM_CHUNK_BYTES) {
        size_t n = bytes - off < STREAM_CHUNK_BYTES ? bytes - off : STREAM_CHUNK_BYTES;
        bloomsimd_status st = read_full(read, ctx, bits + off, n, &got);
        if (st != BLOOMSIMD_OK) return st;
        if (got != n)
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "the stream ended inside layer %u (%zu of %zu bytes)",
                                  (unsigned)i, off + got, bytes);
        (void)XXH3_64bits_update(state, bits + off, n);
    }
    bloomsimd_status st = bloomsimd_payload_verdict(h, i, XXH3_64bits_digest(state), false);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t end = i + 1 < h->layers ? h->layer[i + 1].offset : bloomsimd_header_file_bytes(h);
    size_t gap = (size_t)(end - l->offset - bytes); /* < 4096 */
    uint8_t pad[BLOOMSIMD_FORMAT_ALIGN];
    st = read_full(read, ctx, pad, gap, &got);
    if (st != BLOOMSIMD_OK) return st;
    if (got != gap)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "the stream ended in the padding after layer %u", (unsigned)i);
    for (size_t j = 0; j < gap; j++)
        if (pad[j]) return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "nonzero padding after layer %u", (unsigned)i);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_stream_read(bloomsimd_filter **out, bloomsimd_read_fn read, void *ctx,
                                       const bloomsimd_load_options *options, uint64_t limit)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out || !read)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", out ? "the read callback" : "out");
    bloomsimd_load_choice choice;
    bloomsimd_status st = bloomsimd_load_options_check(options, false, &choice);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_header h;
    st = read_header(read, ctx, limit, &h);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_filter *f;
    st = bloomsimd_filter_from_header(&h, NULL, &choice, &f);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_header_release(&h);
        return st;
    }
    XXH3_state_t *state = XXH3_createState();
    if (!state) st = bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating an XXH3 state failed");
    for (uint32_t i = 0; i < h.layers && st == BLOOMSIMD_OK; i++)
        st = read_layer(read, ctx, &h, i, bloomsimd_payload_layer(f, i), state);
    int saved = errno;
    XXH3_freeState(state);
    bloomsimd_header_release(&h);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        errno = saved;
        return st;
    }
    errno = saved;
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_deserialize_stream(bloomsimd_filter **out, bloomsimd_read_fn read, void *ctx,
                                              const bloomsimd_load_options *options)
{
    return bloomsimd_stream_read(out, read, ctx, options, UINT64_MAX);
}
