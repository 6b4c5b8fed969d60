/*
 * serialize.c — a filter to and from one contiguous buffer (docs/FORMAT.md).
 *
 * Each layer's payload is copied first and its checksum is taken over the
 * copy, so a CONCURRENT filter serialized while other threads insert still
 * yields a self-consistent buffer (a snapshot of some interleaving of those
 * inserts). A layered filter is held still meanwhile (its grows and rotates
 * wait), so the layer table cannot change under the copy.
 */
#include <string.h>

#include "format.h"

size_t bloomsimd_serialized_size(const bloomsimd_filter *f)
{
    if (!f) return 0;
    bloomsimd_header h;
    bloomsimd_layers_hold(f);
    bloomsimd_status st = bloomsimd_header_from_filter(f, 0, &h);
    bloomsimd_layers_release(f);
    uint64_t bytes = bloomsimd_header_file_bytes(&h);
    bloomsimd_header_release(&h);
    return st != BLOOMSIMD_OK || bytes > SIZE_MAX ? 0 : (size_t)bytes;
}

bloomsimd_status bloomsimd_serialize(const bloomsimd_filter *f, void *buf, size_t cap, size_t *written)
{
    bloomsimd_error_clear();
    if (written) *written = 0;
    if (!f || !buf) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? "buf" : "filter");
    bloomsimd_header h;
    bloomsimd_status st = bloomsimd_header_hold(f, &h);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t need = bloomsimd_header_file_bytes(&h);
    if (cap < need) {
        bloomsimd_layers_release(f);
        bloomsimd_header_release(&h);
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "buffer of %zu bytes, the filter needs %llu", cap,
                              (unsigned long long)need);
    }
    uint8_t *out = buf;
    for (uint32_t i = 0; i < h.layers; i++) {
        const bloomsimd_layer_entry *l = &h.layer[i];
        size_t bytes = bloomsimd_header_layer_bytes(&h, i);
        uint64_t end = i + 1 < h.layers ? h.layer[i + 1].offset : need;
        uint8_t *payload = out + l->offset;
        /* Bytes of the words in little-endian order: a plain copy on the only
         * byte order CMakeLists.txt accepts (big-endian targets are refused). */
        bloomsimd_payload_copy(bloomsimd_payload_layer(f, i), payload, 0, bytes);
        memset(payload + bytes, 0, (size_t)(end - l->offset - bytes));
        bloomsimd_header_set_checksum(&h, i, bloomsimd_payload_checksum(payload, bytes));
    }
    bloomsimd_layers_release(f);
    bloomsimd_header_encode(&h, out);
    bloomsimd_header_release(&h);
    if (written) *written = (size_t)need;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_deserialize_with(bloomsimd_filter **out, const void *buf, size_t len,
                                            const bloomsimd_load_options *options)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!buf && len) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "buf is NULL with len %zu", len);
    bloomsimd_load_choice choice;
    bloomsimd_status st = bloomsimd_load_options_check(options, false, &choice);
    if (st != BLOOMSIMD_OK) return st;
    if (!buf) return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "empty input (0 bytes): not a bloomsimd filter");

    const uint8_t *in = buf;
    bloomsimd_header h;
    st = bloomsimd_header_decode(in, len, len, &h);
    if (st != BLOOMSIMD_OK) return st;
    /* decode established len == payload_offset + payload_bytes */
    st = bloomsimd_image_verify(&h, in, false);
    bloomsimd_filter *f = NULL;
    if (st == BLOOMSIMD_OK) st = bloomsimd_filter_from_header(&h, NULL, &choice, &f);
    for (uint32_t i = 0; st == BLOOMSIMD_OK && i < h.layers; i++)
        memcpy(bloomsimd_payload_layer(f, i)->geometry.words, in + h.layer[i].offset,
               bloomsimd_header_layer_bytes(&h, i));
    bloomsimd_header_release(&h);
    if (st != BLOOMSIMD_OK) return st;
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_deserialize(bloomsimd_filter **out, const void *buf, size_t len)
{
    return bloomsimd_deserialize_with(out, buf, len, NULL);
}
