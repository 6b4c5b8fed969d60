/*
 * fuzz_deserialize.c — libFuzzer target for bloomsimd_deserialize.
 *
 * Invariant: for ANY byte string, bloomsimd_deserialize returns OK, _CORRUPT,
 * _VERSION, _TOO_LARGE or _NO_MEMORY, never reads outside the input and
 * never crashes (ASan/UBSan watch), leaves *out NULL on failure, and when it
 * returns OK the filter describes exactly the input: same geometry, and
 * bloomsimd_serialize reproduces the input byte for byte except that the
 * DIRTY state bit is cleared (with the header checksum recomputed). Inserts
 * and lookups on an accepted filter stay in bounds and find what was added.
 *
 * Each input is tried twice: as given, and "sealed" (both checksums
 * recomputed where the input is long enough), so that mutations reach the
 * field checks behind the checksums instead of stopping at them.
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
    CHECK(info.blocks == bloomsimd_le64_get(data + BLOOMSIMD_HDR_BLOCKS));
    CHECK(info.k == bloomsimd_le32_get(data + BLOOMSIMD_HDR_K));
    CHECK(info.seed == bloomsimd_le64_get(data + BLOOMSIMD_HDR_SEED));
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
    CHECK(bloomsimd_add_batch_u64(f, keys, 8) == BLOOMSIMD_OK);
    CHECK(bloomsimd_contains_batch_u64(f, keys, 8, NULL) == 8);
    free(expected);
    free(again);
}

/* Status of the unsealed attempt on the last input (replay.c checks that
 * corpus files named valid_* are accepted and bad_* rejected). */
bloomsimd_status fuzz_last_status;

static bloomsimd_status run_one(const uint8_t *data, size_t size)
{
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_deserialize(&f, data, size);
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
        uint64_t payload_bytes = bloomsimd_le64_get(copy + BLOOMSIMD_HDR_PAYLOAD_BYTES);
        if (size >= BLOOMSIMD_FORMAT_PAYLOAD_OFFSET && payload_bytes <= size - BLOOMSIMD_FORMAT_PAYLOAD_OFFSET)
            bloomsimd_le64_put(copy + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM,
                               bloomsimd_payload_checksum(copy + BLOOMSIMD_FORMAT_PAYLOAD_OFFSET,
                                                          (size_t)payload_bytes));
        bloomsimd_header_reseal(copy);
        run_one(copy, size);
    }
    free(copy);
    return 0;
}
