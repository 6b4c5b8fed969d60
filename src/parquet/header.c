/*
 * header.c — Parquet's BloomFilterHeader, read and written.
 *
 *   struct BloomFilterHeader {
 *     1: required i32 numBytes;                        bitset bytes
 *     2: required BloomFilterAlgorithm algorithm;      union { 1: SplitBlockAlgorithm BLOCK }
 *     3: required BloomFilterHash hash;                union { 1: XxHash XXHASH }
 *     4: required BloomFilterCompression compression;  union { 1: Uncompressed UNCOMPRESSED }
 *   }
 * The members are empty structs. A union holds exactly one field; a member
 * other than 1 is a later algorithm, hash or compression, well formed but
 * not ours to read: BLOOMSIMD_ERR_VERSION. numBytes must be a positive
 * multiple of 32: the split-block filter has whole 256-bit blocks (z >= 1).
 *
 * Written as the common writers write it (field deltas, no ids), so our
 * header for a given size is byte-identical to theirs: 15 bytes plus the
 * numBytes varint (1..5 bytes), e.g. 16 bytes for 128..8191-byte bitsets.
 */
#include "parquet.h"

#include "../internal.h"

static bloomsimd_status parse_union(bloomsimd_thrift_reader *r, uint8_t type, const char *name,
                                    const char *member)
{
    bloomsimd_status st = bloomsimd_thrift_expect_struct(r, type, name);
    if (st != BLOOMSIMD_OK) return st;
    int16_t last = 0, id = 0;
    uint8_t t = 0;
    unsigned members = 0;
    for (;;) {
        size_t at = bloomsimd_thrift_offset(r);
        st = bloomsimd_thrift_field(r, &last, &id, &t);
        if (st != BLOOMSIMD_OK) return st;
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        if (++members > 1)
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "BloomFilterHeader byte %zu: union %s sets two members", at,
                                  name);
        if (id != 1)
            return bloomsimd_fail(BLOOMSIMD_ERR_VERSION,
                                  "BloomFilterHeader byte %zu: %s member %d is not %s (1): not supported", at, name,
                                  id, member);
        st = bloomsimd_thrift_expect_struct(r, t, member);
        if (st == BLOOMSIMD_OK) st = bloomsimd_thrift_skip(r, t);
        if (st != BLOOMSIMD_OK) return st;
    }
    if (!members)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "BloomFilterHeader byte %zu: union %s is empty",
                              bloomsimd_thrift_offset(r), name);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_parquet_header_parse(const void *buf, size_t len, bloomsimd_parquet_header *out)
{
    bloomsimd_error_clear();
    if (!buf || !out) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "NULL argument");
    static const char *const names[] = {NULL, "numBytes", "algorithm", "hash", "compression"};
    bloomsimd_thrift_reader r;
    bloomsimd_thrift_reader_init(&r, buf, len, "BloomFilterHeader");
    int16_t last = 0, id = 0;
    uint8_t t = 0;
    unsigned seen = 0;
    int32_t num_bytes = 0;
    bloomsimd_status st;
    for (;;) {
        st = bloomsimd_thrift_field(&r, &last, &id, &t);
        if (st != BLOOMSIMD_OK) return st;
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        if (id >= 1 && id <= 4) {
            if (seen & (1u << id)) return bloomsimd_thrift_duplicate(&r, id);
            seen |= 1u << id;
        }
        switch (id) {
        case 1: st = bloomsimd_thrift_i32(&r, t, "numBytes", &num_bytes); break;
        case 2: st = parse_union(&r, t, "algorithm", "BLOCK"); break;
        case 3: st = parse_union(&r, t, "hash", "XXHASH"); break;
        case 4: st = parse_union(&r, t, "compression", "UNCOMPRESSED"); break;
        default: st = bloomsimd_thrift_skip(&r, t); break;
        }
        if (st != BLOOMSIMD_OK) return st;
    }
    for (int16_t f = 1; f <= 4; f++)
        if (!(seen & (1u << f))) return bloomsimd_thrift_missing(&r, f, names[f]);
    if (num_bytes <= 0 || num_bytes % 32 != 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT,
                              "BloomFilterHeader: numBytes %ld is not a positive multiple of 32 (whole blocks)",
                              (long)num_bytes);
    out->header_bytes = (uint32_t)bloomsimd_thrift_offset(&r);
    out->bitset_bytes = (uint32_t)num_bytes;
    return BLOOMSIMD_OK;
}

/* field `id` of the header: a union whose member 1 is an empty struct */
static void put_union(bloomsimd_thrift_writer *w, int16_t *last, int16_t id)
{
    int16_t inner = 0;
    bloomsimd_thrift_put_field(w, last, id, BLOOMSIMD_THRIFT_STRUCT);
    bloomsimd_thrift_put_field(w, &inner, 1, BLOOMSIMD_THRIFT_STRUCT);
    bloomsimd_thrift_put_stop(w); /* the empty member struct */
    bloomsimd_thrift_put_stop(w); /* the union */
}

bloomsimd_status bloomsimd_parquet_header_write(uint32_t bitset_bytes, void *buf, size_t cap, size_t *written)
{
    bloomsimd_error_clear();
    if (written) *written = 0;
    if (!buf) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "NULL buffer");
    if (bitset_bytes == 0 || bitset_bytes % 32 != 0 || bitset_bytes > INT32_MAX)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "bitset of %u bytes: not a positive multiple of 32 up to INT32_MAX", bitset_bytes);
    bloomsimd_thrift_writer w;
    bloomsimd_thrift_writer_init(&w, buf, cap);
    int16_t last = 0;
    bloomsimd_thrift_put_field(&w, &last, 1, BLOOMSIMD_THRIFT_I32);
    bloomsimd_thrift_put_i32(&w, (int32_t)bitset_bytes);
    put_union(&w, &last, 2);
    put_union(&w, &last, 3);
    put_union(&w, &last, 4);
    bloomsimd_thrift_put_stop(&w);
    if (written) *written = w.len;
    if (!bloomsimd_thrift_writer_ok(&w))
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "header needs %zu bytes, buffer has %zu", w.len, cap);
    return BLOOMSIMD_OK;
}
