/*
 * format.c — encoding and validation of the version-1 header (docs/FORMAT.md).
 *
 * Validation trusts nothing: every length is compared with what the caller
 * actually holds before it is used, and the only arithmetic on untrusted
 * numbers (block_count * 64, payload_offset + payload_bytes) is done after
 * block_count <= 2^32 is established, so it stays below 2^39 and cannot wrap.
 */
#include "format.h"

#include <stdlib.h>
#include <string.h>
/* Compiled into this file rather than called in libxxhash.so, so that under
 * ASan the checksum's reads of untrusted buffers are checked too. */
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "../../dispatch/dispatch.h"

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u); /* IEEE-754 binary64 on every supported target */
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

void bloomsimd_header_from_filter(const bloomsimd_filter *f, uint64_t payload_checksum, uint32_t state_flags,
                                  bloomsimd_header *h)
{
    memset(h, 0, sizeof *h);
    h->version = BLOOMSIMD_FORMAT_VERSION;
    h->payload_offset = BLOOMSIMD_FORMAT_PAYLOAD_OFFSET;
    h->layout_id = BLOOMSIMD_FORMAT_LAYOUT_ID;
    h->hash_id = BLOOMSIMD_FORMAT_HASH_ID;
    h->seed = f->seed;
    h->blocks = f->geometry.nblocks;
    h->k = f->geometry.k;
    h->state_flags = state_flags;
    h->filter_flags = f->flags & BLOOMSIMD_KNOWN_FLAGS;
    h->capacity = f->capacity;
    h->fpr = f->fpr;
    h->payload_bytes = f->geometry.nblocks * BLOOMSIMD_BLOCK_BYTES;
    h->payload_checksum = payload_checksum;
}

uint64_t bloomsimd_header_checksum(const uint8_t *header)
{
    return XXH3_64bits(header, BLOOMSIMD_FORMAT_CHECKSUMMED_BYTES);
}

void bloomsimd_header_reseal(uint8_t *header)
{
    bloomsimd_le64_put(header + BLOOMSIMD_HDR_HEADER_CHECKSUM, bloomsimd_header_checksum(header));
}

void bloomsimd_header_encode(const bloomsimd_header *h, uint8_t *out)
{
    memset(out, 0, BLOOMSIMD_FORMAT_PAYLOAD_OFFSET);
    memcpy(out + BLOOMSIMD_HDR_MAGIC, BLOOMSIMD_FORMAT_MAGIC, BLOOMSIMD_FORMAT_MAGIC_BYTES);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_VERSION, h->version);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_PAYLOAD_OFFSET, h->payload_offset);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_LAYOUT_ID, h->layout_id);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_HASH_ID, h->hash_id);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_SEED, h->seed);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_BLOCKS, h->blocks);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_K, h->k);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_STATE_FLAGS, h->state_flags);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_FILTER_FLAGS, h->filter_flags);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_CAPACITY, h->capacity);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_FPR, double_bits(h->fpr));
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_PAYLOAD_BYTES, h->payload_bytes);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM, h->payload_checksum);
    bloomsimd_header_reseal(out);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= p[i];
    return acc == 0;
}

bloomsimd_status bloomsimd_header_decode(const uint8_t *hdr, size_t avail, uint64_t total_len, bloomsimd_header *h)
{
    /* 1. Enough bytes for the fixed header, and the magic. */
    if (avail < BLOOMSIMD_FORMAT_FIXED_BYTES || total_len < BLOOMSIMD_FORMAT_FIXED_BYTES)
        return BLOOMSIMD_ERR_CORRUPT;
    if (memcmp(hdr + BLOOMSIMD_HDR_MAGIC, BLOOMSIMD_FORMAT_MAGIC, BLOOMSIMD_FORMAT_MAGIC_BYTES) != 0)
        return BLOOMSIMD_ERR_CORRUPT;
    /* 2. The version, before the checksum: a later version may checksum differently. */
    h->version = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_VERSION);
    if (h->version != BLOOMSIMD_FORMAT_VERSION) return BLOOMSIMD_ERR_VERSION;
    /* 3. The header checksum: from here on, the fields were written on purpose. */
    if (bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_HEADER_CHECKSUM) != bloomsimd_header_checksum(hdr))
        return BLOOMSIMD_ERR_CORRUPT;

    h->payload_offset = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_PAYLOAD_OFFSET);
    h->layout_id = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_LAYOUT_ID);
    h->hash_id = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_HASH_ID);
    h->seed = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_SEED);
    h->blocks = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_BLOCKS);
    h->k = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_K);
    h->state_flags = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_STATE_FLAGS);
    h->filter_flags = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_FILTER_FLAGS);
    h->capacity = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_CAPACITY);
    h->fpr = bits_double(bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_FPR));
    h->payload_bytes = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_PAYLOAD_BYTES);
    h->payload_checksum = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM);

    /* 4. Structure: payload offset, reserved bytes and padding. */
    if (h->payload_offset != BLOOMSIMD_FORMAT_PAYLOAD_OFFSET) return BLOOMSIMD_ERR_CORRUPT;
    if (avail < BLOOMSIMD_FORMAT_PAYLOAD_OFFSET || total_len < BLOOMSIMD_FORMAT_PAYLOAD_OFFSET)
        return BLOOMSIMD_ERR_CORRUPT;
    if (!all_zero(hdr + BLOOMSIMD_HDR_RESERVED_A, 4) ||
        !all_zero(hdr + BLOOMSIMD_HDR_RESERVED_B, BLOOMSIMD_HDR_HEADER_CHECKSUM - BLOOMSIMD_HDR_RESERVED_B) ||
        !all_zero(hdr + BLOOMSIMD_FORMAT_FIXED_BYTES,
                  BLOOMSIMD_FORMAT_PAYLOAD_OFFSET - BLOOMSIMD_FORMAT_FIXED_BYTES))
        return BLOOMSIMD_ERR_CORRUPT;

    /* 5. Intact but unknown to this reader: a newer layout, hash or flag. */
    if (h->layout_id != BLOOMSIMD_FORMAT_LAYOUT_ID || h->hash_id != BLOOMSIMD_FORMAT_HASH_ID)
        return BLOOMSIMD_ERR_VERSION;
    if ((h->state_flags & ~BLOOMSIMD_FORMAT_KNOWN_STATE_FLAGS) || (h->filter_flags & ~BLOOMSIMD_KNOWN_FLAGS))
        return BLOOMSIMD_ERR_VERSION;

    /* 6. Geometry limits of kernels/layout.h section 7. */
    if (h->k < 1 || h->k > BLOOMSIMD_MAX_K) return BLOOMSIMD_ERR_CORRUPT;
    if (h->blocks < 1 || h->blocks > BLOOMSIMD_MAX_BLOCKS) return BLOOMSIMD_ERR_CORRUPT;
    if (h->payload_bytes != h->blocks * BLOOMSIMD_BLOCK_BYTES) return BLOOMSIMD_ERR_CORRUPT;
    if (!(h->fpr >= 0.0 && h->fpr < 1.0)) return BLOOMSIMD_ERR_CORRUPT; /* also rejects NaN */

    /* 7. The length: exactly header + payload, nothing missing, nothing after. */
    if (total_len != BLOOMSIMD_FORMAT_PAYLOAD_OFFSET + h->payload_bytes) return BLOOMSIMD_ERR_CORRUPT;
    if (h->payload_bytes > SIZE_MAX - BLOOMSIMD_FORMAT_PAYLOAD_OFFSET) return BLOOMSIMD_ERR_TOO_LARGE;
    return BLOOMSIMD_OK;
}

void bloomsimd_payload_copy(const bloomsimd_filter *f, void *dst, size_t offset, size_t bytes)
{
    const uint8_t *src = (const uint8_t *)f->geometry.words + offset;
    if (!f->geometry.concurrent) {
        memcpy(dst, src, bytes);
        return;
    }
    const uint64_t *words = (const uint64_t *)(const void *)src;
    uint8_t *d = dst;
    for (size_t i = 0; i < bytes / 8; i++) {
        uint64_t w = __atomic_load_n(&words[i], __ATOMIC_RELAXED);
        memcpy(d + 8 * i, &w, 8);
    }
}

uint64_t bloomsimd_payload_checksum(const void *payload, size_t bytes) { return XXH3_64bits(payload, bytes); }

bloomsimd_status bloomsimd_payload_verdict(const bloomsimd_header *h, uint64_t actual_checksum, bool accept_unsynced)
{
    if (actual_checksum == h->payload_checksum) return BLOOMSIMD_OK;
    if ((h->state_flags & BLOOMSIMD_FORMAT_STATE_DIRTY) && accept_unsynced) return BLOOMSIMD_OK;
    return BLOOMSIMD_ERR_CORRUPT;
}

bloomsimd_status bloomsimd_filter_from_header(const bloomsimd_header *h, bloomsimd_filter **out)
{
    const bloomsimd_kernel *kernel;
    bloomsimd_status st = bloomsimd_select_kernel(NULL, &kernel);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_filter *f = malloc(sizeof *f);
    if (!f) return BLOOMSIMD_ERR_NO_MEMORY;
    bloomsimd_filter_init(f, h->blocks, h->k, h->seed, h->filter_flags, kernel);
    f->capacity = h->capacity;
    f->fpr = h->fpr;
    *out = f;
    return BLOOMSIMD_OK;
}
