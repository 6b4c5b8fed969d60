/*
 * format.h — the on-disk header of a saved filter (docs/FORMAT.md, version 2).
 *
 * Every multi-byte field is little-endian and is encoded and decoded byte by
 * byte (bloomsimd_le*), so the file is identical on every CPU and never
 * depends on struct padding or host byte order.
 *
 *   offset size  field
 *        0    8  magic "\x89BSIMD\r\n"
 *        8    4  format_version (2; version 1 files, layout 1, fail with BLOOMSIMD_ERR_VERSION)
 *       12    4  payload_offset (4096)
 *       16    4  layout_id (2 = kernels/layout.h, layout 2)
 *       20    4  hash_id (1 = XXH3_64bits_withSeed)
 *       24    8  seed
 *       32    8  block_count (1 .. 2^32)
 *       40    4  k (1 .. 16)
 *       44    4  state_flags (bit 0: DIRTY)
 *       48    4  filter_flags (BLOOMSIMD_CONCURRENT | BLOOMSIMD_NO_HUGEPAGES)
 *       52    4  reserved, 0
 *       56    8  capacity
 *       64    8  target_fpr (IEEE-754 binary64 bits)
 *       72    8  payload_bytes (= block_count * 64)
 *       80    8  payload_checksum (XXH3_64bits of the payload, seed 0)
 *       88   32  reserved, 0
 *      120    8  header_checksum (XXH3_64bits of bytes 0..119, seed 0)
 *      128 3968  zero padding up to payload_offset
 *     4096    *  payload: block_count blocks of 16 LE 32-bit words
 */
#ifndef BLOOMSIMD_PERSIST_FORMAT_H
#define BLOOMSIMD_PERSIST_FORMAT_H

#include "../baseline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../internal.h"

#define BLOOMSIMD_FORMAT_MAGIC "\x89" "BSIMD\r\n"
#define BLOOMSIMD_FORMAT_MAGIC_BYTES 8u
#define BLOOMSIMD_FORMAT_VERSION 2u
#define BLOOMSIMD_FORMAT_PAYLOAD_OFFSET 4096u
#define BLOOMSIMD_FORMAT_LAYOUT_ID 2u
#define BLOOMSIMD_FORMAT_HASH_ID 1u
/* Bytes 0..119 are checksummed; the checksum itself sits at 120. */
#define BLOOMSIMD_FORMAT_FIXED_BYTES 128u
#define BLOOMSIMD_FORMAT_CHECKSUMMED_BYTES 120u

#define BLOOMSIMD_FORMAT_STATE_DIRTY 0x1u
#define BLOOMSIMD_FORMAT_KNOWN_STATE_FLAGS BLOOMSIMD_FORMAT_STATE_DIRTY

/* Field offsets (see the table above). */
enum {
    BLOOMSIMD_HDR_MAGIC = 0,
    BLOOMSIMD_HDR_VERSION = 8,
    BLOOMSIMD_HDR_PAYLOAD_OFFSET = 12,
    BLOOMSIMD_HDR_LAYOUT_ID = 16,
    BLOOMSIMD_HDR_HASH_ID = 20,
    BLOOMSIMD_HDR_SEED = 24,
    BLOOMSIMD_HDR_BLOCKS = 32,
    BLOOMSIMD_HDR_K = 40,
    BLOOMSIMD_HDR_STATE_FLAGS = 44,
    BLOOMSIMD_HDR_FILTER_FLAGS = 48,
    BLOOMSIMD_HDR_RESERVED_A = 52,
    BLOOMSIMD_HDR_CAPACITY = 56,
    BLOOMSIMD_HDR_FPR = 64,
    BLOOMSIMD_HDR_PAYLOAD_BYTES = 72,
    BLOOMSIMD_HDR_PAYLOAD_CHECKSUM = 80,
    BLOOMSIMD_HDR_RESERVED_B = 88,
    BLOOMSIMD_HDR_HEADER_CHECKSUM = 120
};

/* The decoded header. */
typedef struct bloomsimd_header {
    uint32_t version;
    uint32_t payload_offset;
    uint32_t layout_id;
    uint32_t hash_id;
    uint64_t seed;
    uint64_t blocks;
    uint32_t k;
    uint32_t state_flags;
    uint32_t filter_flags;
    uint64_t capacity;
    double fpr;
    uint64_t payload_bytes;
    uint64_t payload_checksum;
} bloomsimd_header;

static inline void bloomsimd_le32_put(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void bloomsimd_le64_put(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t bloomsimd_le32_get(const uint8_t *p)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static inline uint64_t bloomsimd_le64_get(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The header describing filter f with the given payload checksum and state
 * flags (payload checksum and DIRTY are the only fields that change over a
 * file's life). */
void bloomsimd_header_from_filter(const bloomsimd_filter *f, uint64_t payload_checksum, uint32_t state_flags,
                                  bloomsimd_header *h);

/* Encodes h into out[0..BLOOMSIMD_FORMAT_PAYLOAD_OFFSET): fixed fields, header
 * checksum, zero padding. */
void bloomsimd_header_encode(const bloomsimd_header *h, uint8_t *out);

/* Recomputes the header checksum of an encoded header in place (after a field
 * of a mapped header changed). */
void bloomsimd_header_reseal(uint8_t *header);

/* XXH3_64bits(header[0..120)). */
uint64_t bloomsimd_header_checksum(const uint8_t *header);

/*
 * Validates an encoded header against the total length of the file or buffer
 * it came from, in the order of docs/FORMAT.md "Validation", and decodes it.
 * `avail` is how many header bytes the caller could read (the header is
 * never read beyond min(avail, BLOOMSIMD_FORMAT_PAYLOAD_OFFSET)).
 * Returns BLOOMSIMD_OK, BLOOMSIMD_ERR_CORRUPT, BLOOMSIMD_ERR_VERSION, or
 * BLOOMSIMD_ERR_TOO_LARGE (a valid file that does not fit this address space).
 * The payload checksum is NOT checked here.
 */
bloomsimd_status bloomsimd_header_decode(const uint8_t *header, size_t avail, uint64_t total_len,
                                         bloomsimd_header *h);

/* Payload checksum verdict: OK when it matches; when it does not, OK only
 * for a DIRTY header and accept_unsynced, else BLOOMSIMD_ERR_CORRUPT. */
bloomsimd_status bloomsimd_payload_verdict(const bloomsimd_header *h, uint64_t actual_checksum,
                                           bool accept_unsynced);

/* Copies bytes [offset, offset+bytes) of f's bit array (offset and bytes
 * multiples of 8) to dst, which need not be aligned. A CONCURRENT filter is
 * read with relaxed atomic loads, so copying while other threads insert is
 * defined behaviour and yields some interleaving of their inserts. */
void bloomsimd_payload_copy(const bloomsimd_filter *f, void *dst, size_t offset, size_t bytes);

/* XXH3_64bits of a payload. */
uint64_t bloomsimd_payload_checksum(const void *payload, size_t bytes);

/* Allocates a filter object (no bit array) for a validated header, on the
 * default kernel. BLOOMSIMD_ERR_NO_MEMORY / _KERNEL_UNAVAILABLE. */
bloomsimd_status bloomsimd_filter_from_header(const bloomsimd_header *h, bloomsimd_filter **out);

#endif
