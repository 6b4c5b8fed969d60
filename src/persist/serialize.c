/*
 * serialize.c — a filter to and from one contiguous buffer (docs/FORMAT.md).
 *
 * The payload is copied first and its checksum is taken over the copy, so a
 * CONCURRENT filter serialized while other threads insert still yields a
 * self-consistent buffer (a snapshot of some interleaving of those inserts).
 */
#include <string.h>

#include "format.h"

size_t bloomsimd_serialized_size(const bloomsimd_filter *f)
{
    if (!f || f->layers) return 0; /* layered files: stage 4 of issue 10 */
    return BLOOMSIMD_FORMAT_PAYLOAD_OFFSET + bloomsimd_filter_bytes(f);
}

bloomsimd_status bloomsimd_serialize(const bloomsimd_filter *f, void *buf, size_t cap, size_t *written)
{
    if (written) *written = 0;
    if (!f || !buf || f->layers) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    size_t need = bloomsimd_serialized_size(f);
    if (cap < need) return BLOOMSIMD_ERR_TOO_LARGE;

    uint8_t *out = buf;
    size_t payload_bytes = bloomsimd_filter_bytes(f);
    uint8_t *payload = out + BLOOMSIMD_FORMAT_PAYLOAD_OFFSET;
    /* Bytes of the words in little-endian order: a plain copy on the only
     * byte order CMakeLists.txt accepts (big-endian targets are refused). */
    bloomsimd_payload_copy(f, payload, 0, payload_bytes);

    bloomsimd_header h;
    bloomsimd_header_from_filter(f, bloomsimd_payload_checksum(payload, payload_bytes), 0, &h);
    bloomsimd_header_encode(&h, out);
    if (written) *written = need;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_deserialize(bloomsimd_filter **out, const void *buf, size_t len)
{
    if (out) *out = NULL;
    if (!out || (!buf && len)) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (!buf) return BLOOMSIMD_ERR_CORRUPT; /* empty input */

    const uint8_t *in = buf;
    bloomsimd_header h;
    bloomsimd_status st = bloomsimd_header_decode(in, len, len, &h);
    if (st != BLOOMSIMD_OK) return st;
    /* decode established len == offset + payload_bytes */
    const uint8_t *payload = in + BLOOMSIMD_FORMAT_PAYLOAD_OFFSET;
    st = bloomsimd_payload_verdict(&h, bloomsimd_payload_checksum(payload, (size_t)h.payload_bytes), false);
    if (st != BLOOMSIMD_OK) return st;

    bloomsimd_filter *f;
    st = bloomsimd_filter_from_header(&h, &f);
    if (st != BLOOMSIMD_OK) return st;
    st = bloomsimd_alloc_bits(f, h.blocks, h.filter_flags);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        return st;
    }
    memcpy(f->geometry.words, payload, (size_t)h.payload_bytes);
    *out = f;
    return BLOOMSIMD_OK;
}
