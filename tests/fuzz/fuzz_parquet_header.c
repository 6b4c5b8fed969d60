/*
 * fuzz_parquet_header.c — libFuzzer target for the BloomFilterHeader parser.
 *
 * Invariant: for ANY byte string, bloomsimd_parquet_header_parse returns OK,
 * _CORRUPT or _VERSION, never reads outside the input and never crashes
 * (ASan/UBSan watch), with a non-empty bloomsimd_last_error() on failure.
 * When it returns OK: header_bytes <= the input's length, bitset_bytes is a
 * positive multiple of 32, the header alone (its first header_bytes bytes)
 * parses to the same answer (the parser reads nothing past the header), the
 * prefix one byte shorter fails, and the header bloomsimd_parquet_header_write makes
 * for that size parses back to it.
 *
 * The committed corpus is fed to the same entry point by replay.c in CTest.
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "fuzz_parquet_header: invariant failed: %s (line %d)\n", #cond, __LINE__);             \
            abort();                                                                                               \
        }                                                                                                          \
    } while (0)

bloomsimd_status fuzz_last_status;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bloomsimd_parquet_header h;
    bloomsimd_status st = bloomsimd_parquet_header_parse(data, size, &h);
    fuzz_last_status = st;
    CHECK(st == BLOOMSIMD_OK || st == BLOOMSIMD_ERR_CORRUPT || st == BLOOMSIMD_ERR_VERSION);
    if (st != BLOOMSIMD_OK) {
        CHECK(bloomsimd_last_error()[0] != '\0');
        return 0;
    }
    CHECK(h.header_bytes <= size && h.header_bytes >= 1);
    CHECK(h.bitset_bytes > 0 && h.bitset_bytes % 32 == 0);
    bloomsimd_parquet_header again;
    CHECK(bloomsimd_parquet_header_parse(data, h.header_bytes, &again) == BLOOMSIMD_OK);
    CHECK(again.header_bytes == h.header_bytes && again.bitset_bytes == h.bitset_bytes);
    /* a prefix cut before the final STOP cannot be a whole header */
    CHECK(bloomsimd_parquet_header_parse(data, h.header_bytes - 1, &again) != BLOOMSIMD_OK);
    uint8_t ours[BLOOMSIMD_PARQUET_HEADER_MAX_BYTES];
    size_t n;
    CHECK(bloomsimd_parquet_header_write(h.bitset_bytes, ours, sizeof ours, &n) == BLOOMSIMD_OK);
    CHECK(bloomsimd_parquet_header_parse(ours, n, &again) == BLOOMSIMD_OK && again.bitset_bytes == h.bitset_bytes &&
          again.header_bytes == n);
    return 0;
}
