/*
 * fuzz_deserialize.c — libFuzzer target for bloomsimd_deserialize.
 *
 * Invariant: for ANY byte string, bloomsimd_deserialize returns OK, _CORRUPT,
 * _VERSION, _TOO_LARGE or _NO_MEMORY, never reads outside the input and
 * never crashes (ASan/UBSan watch), leaves *out NULL on failure, and when it
 * returns OK the filter describes exactly the input: same kind, geometry and
 * layers, and bloomsimd_serialize reproduces the input byte for byte except
 * that the DIRTY state bit is cleared (with the header checksum recomputed).
 * Inserts and lookups on an accepted filter (plain, scalable or window) stay
 * in bounds and find what was added; an insert into a full scalable filter
 * may report its failed grow (_NO_MEMORY, _TOO_LARGE) and then finds the
 * keys it did insert.
 *
 * bloomsimd_deserialize_stream, fed the same bytes in pieces of varying
 * size, agrees: the same status and filter, except that it may accept a
 * valid filter followed by more bytes (it reads the filter and stops; the
 * prefix it read must then deserialize), and may give _NO_MEMORY instead of
 * _CORRUPT for an intact header claiming more bytes than the input holds.
 *
 * Each input is tried twice: as given, and "sealed" (every checksum the
 * input is long enough to hold recomputed: each layer's payload checksum,
 * a layered file's directory checksum, the header checksum), so that
 * mutations reach the field checks behind the checksums instead of stopping
 * at them.
 *
 * The same entry point is fed the committed corpus by replay.c in CTest,
 * without libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/format.h"

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "fuzz_deserialize: invariant failed: %s (line %d)\n", #cond, __LINE__);                \
            abort();                                                                                               \
        }                                                                                                          \
    } while (0)

static void check_accepted(bloomsimd_filter *f, const uint8_t *data, size_t size)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    uint32_t kind = bloomsimd_le32_get(data + BLOOMSIMD_HDR_KIND);
    CHECK(info.blocks == bloomsimd_le64_get(data + BLOOMSIMD_HDR_BLOCKS));
    CHECK(info.layout == bloomsimd_le32_get(data + BLOOMSIMD_HDR_LAYOUT_ID));
    CHECK(info.seed == bloomsimd_le64_get(data + BLOOMSIMD_HDR_SEED));
    if (kind == 0) {
        CHECK(info.k == bloomsimd_le32_get(data + BLOOMSIMD_HDR_K));
        CHECK(info.layers == 1 && info.items == bloomsimd_le64_get(data + BLOOMSIMD_HDR_ITEMS));
    } else {
        CHECK(info.layers == bloomsimd_le32_get(data + BLOOMSIMD_HDR_LAYER_COUNT));
        CHECK(info.k == bloomsimd_le32_get(data + BLOOMSIMD_HDR_DIRECTORY + BLOOMSIMD_ENT_K));
        CHECK(kind == 1 ? info.growth == bloomsimd_le32_get(data + BLOOMSIMD_HDR_GROWTH)
                        : info.rotations == bloomsimd_le64_get(data + BLOOMSIMD_HDR_ROTATIONS));
    }
    CHECK(bloomsimd_serialized_size(f) == size);

    uint8_t *expected = malloc(size);
    uint8_t *again = malloc(size);
    CHECK(expected && again);
    memcpy(expected, data, size);
    uint32_t state = bloomsimd_le32_get(expected + BLOOMSIMD_HDR_STATE_FLAGS);
    bloomsimd_le32_put(expected + BLOOMSIMD_HDR_STATE_FLAGS, state & ~BLOOMSIMD_FORMAT_STATE_DIRTY);
    bloomsimd_header_reseal(expected);
    size_t written = 0;
    CHECK(bloomsimd_serialize(f, again, size, &written) == BLOOMSIMD_OK);
    CHECK(written == size);
    CHECK(memcmp(expected, again, size) == 0);

    /* Probe with keys taken from the input, then insert them. */
    uint64_t keys[8];
    for (size_t i = 0; i < 8; i++) keys[i] = bloomsimd_le64_get(data + 8 * i) ^ i;
    (void)bloomsimd_contains_batch_u64(f, keys, 8, NULL);
    uint8_t fresh[8];
    size_t inserted = 0;
    bloomsimd_status st = bloomsimd_add_new_batch_u64(f, keys, 8, fresh, &inserted);
    CHECK(st == BLOOMSIMD_OK || (kind == 1 && (st == BLOOMSIMD_ERR_NO_MEMORY || st == BLOOMSIMD_ERR_TOO_LARGE)));
    if (st == BLOOMSIMD_OK) CHECK(bloomsimd_contains_batch_u64(f, keys, 8, NULL) == 8);
    for (size_t i = 0; i < 8; i++) CHECK(!fresh[i] || bloomsimd_contains_u64(f, keys[i]));
    if (kind == 2) {
        CHECK(bloomsimd_rotate(f) == BLOOMSIMD_OK);
        CHECK(bloomsimd_add_batch_u64(f, keys, 8) == BLOOMSIMD_OK);
        CHECK(bloomsimd_contains_batch_u64(f, keys, 8, NULL) == 8);
    }
    free(expected);
    free(again);
}

/* Recomputes every checksum that lies within the input, reading only what
 * is there: a plain payload's, or each layer's (at the offsets the directory
 * implies) and the directory's, then the header's. */
static void seal(uint8_t *data, size_t size)
{
    uint32_t kind = bloomsimd_le32_get(data + BLOOMSIMD_HDR_KIND);
    uint32_t layers = bloomsimd_le32_get(data + BLOOMSIMD_HDR_LAYER_COUNT);
    /* a layout this library does not know fails before any checksum matters */
    uint64_t block_bytes = bloomsimd_layout_block_bytes(bloomsimd_le32_get(data + BLOOMSIMD_HDR_LAYOUT_ID));
    if (kind == 0) {
        uint64_t payload_bytes = bloomsimd_le64_get(data + BLOOMSIMD_HDR_PAYLOAD_BYTES);
        if (size >= BLOOMSIMD_FORMAT_PAYLOAD_OFFSET && payload_bytes <= size - BLOOMSIMD_FORMAT_PAYLOAD_OFFSET)
            bloomsimd_le64_put(data + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM,
                               bloomsimd_payload_checksum(data + BLOOMSIMD_FORMAT_PAYLOAD_OFFSET, (size_t)payload_bytes));
    } else if (layers >= 1 && layers <= BLOOMSIMD_FORMAT_MAX_LAYERS) {
        size_t dir_end = BLOOMSIMD_HDR_DIRECTORY + (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * layers;
        uint64_t at = (dir_end + BLOOMSIMD_FORMAT_ALIGN - 1) / BLOOMSIMD_FORMAT_ALIGN * BLOOMSIMD_FORMAT_ALIGN;
        if (dir_end <= size) {
            for (uint32_t i = 0; i < layers; i++) {
                uint8_t *e = data + BLOOMSIMD_HDR_DIRECTORY + (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * i;
                uint64_t blocks = bloomsimd_le64_get(e + BLOOMSIMD_ENT_BLOCKS), bytes = blocks * block_bytes;
                if (blocks > BLOOMSIMD_MAX_BLOCKS || at > size || bytes > size - at) break;
                bloomsimd_le64_put(e + BLOOMSIMD_ENT_CHECKSUM, bloomsimd_payload_checksum(data + at, (size_t)bytes));
                at += (bytes + BLOOMSIMD_FORMAT_ALIGN - 1) / BLOOMSIMD_FORMAT_ALIGN * BLOOMSIMD_FORMAT_ALIGN;
            }
            bloomsimd_le64_put(data + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM,
                               bloomsimd_payload_checksum(data + BLOOMSIMD_HDR_DIRECTORY, dir_end - BLOOMSIMD_HDR_DIRECTORY));
        }
    }
    bloomsimd_header_reseal(data);
}

/* The input as a stream, in pieces of 1 .. 1 + size % 97 bytes. */
typedef struct {
    const uint8_t *data;
    size_t size, pos;
} piece_reader;

static bloomsimd_status read_piece(void *ctx, void *buf, size_t len, size_t *got)
{
    piece_reader *r = ctx;
    size_t n = r->size - r->pos;
    size_t piece = 1 + (r->pos * 31 + r->size) % (1 + r->size % 97);
    if (n > len) n = len;
    if (n > piece) n = piece;
    memcpy(buf, r->data + r->pos, n);
    r->pos += n;
    *got = n;
    return BLOOMSIMD_OK;
}

static uint64_t claimed_bytes(const uint8_t *data, size_t size)
{
    if (size < BLOOMSIMD_FORMAT_FIXED_BYTES) return 0;
    uint64_t offset = bloomsimd_le32_get(data + BLOOMSIMD_HDR_PAYLOAD_OFFSET);
    uint64_t payload = bloomsimd_le64_get(data + BLOOMSIMD_HDR_PAYLOAD_BYTES);
    return payload > UINT64_MAX - offset ? UINT64_MAX : offset + payload;
}

static void check_stream(const uint8_t *data, size_t size, bloomsimd_status want)
{
    piece_reader r = {data, size, 0};
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_deserialize_stream(&f, read_piece, &r, NULL);
    CHECK(r.pos <= size);
    if (st != BLOOMSIMD_OK) {
        CHECK(f == NULL);
        CHECK(st == want || (want == BLOOMSIMD_ERR_CORRUPT && st == BLOOMSIMD_ERR_NO_MEMORY &&
                             claimed_bytes(data, size) > size));
        return;
    }
    CHECK(f != NULL);
    if (want == BLOOMSIMD_OK) {
        CHECK(r.pos == size);
        check_accepted(f, data, size);
    } else { /* trailing bytes: what was read is a filter on its own */
        CHECK(want == BLOOMSIMD_ERR_CORRUPT && r.pos < size);
        bloomsimd_filter *g = NULL;
        CHECK(bloomsimd_deserialize(&g, data, r.pos) == BLOOMSIMD_OK);
        bloomsimd_destroy(g);
    }
    bloomsimd_destroy(f);
}

/* Status of the unsealed attempt on the last input (replay.c checks that
 * corpus files named valid_* are accepted and bad_* rejected). */
bloomsimd_status fuzz_last_status;

static bloomsimd_status run_one(const uint8_t *data, size_t size)
{
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_deserialize(&f, data, size);
    if (data) check_stream(data, size, st);
    if (st != BLOOMSIMD_OK) {
        CHECK(f == NULL);
        CHECK(st == BLOOMSIMD_ERR_CORRUPT || st == BLOOMSIMD_ERR_VERSION || st == BLOOMSIMD_ERR_TOO_LARGE ||
              st == BLOOMSIMD_ERR_NO_MEMORY || st == BLOOMSIMD_ERR_INVALID_ARGUMENT);
        CHECK(st != BLOOMSIMD_ERR_INVALID_ARGUMENT || (data == NULL && size > 0));
        return st;
    }
    CHECK(f != NULL);
    check_accepted(f, data, size);
    bloomsimd_destroy(f);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy: the input buffer libFuzzer passes may be larger. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    fuzz_last_status = run_one(size ? copy : NULL, size);

    if (size >= BLOOMSIMD_FORMAT_FIXED_BYTES) {
        seal(copy, size);
        run_one(copy, size);
    }
    free(copy);
    return 0;
}
