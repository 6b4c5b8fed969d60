/*
 * test_serialize_range.c — bloomsimd_serialize_range gives exactly the bytes
 * of bloomsimd_serialize at every offset, on plain, scalable and window
 * filters, concurrent or not, on both layouts:
 *
 *   - every slice that starts or ends within 9 bytes of a boundary (the
 *     header's end, each layer's start, the end of its words, the end of the
 *     filter) and 200 random slices equal the same bytes of serialize, and
 *     pieces of a few sizes laid end to end add up to all of them;
 *   - the pieces of a filter that changes between two of them may not add
 *     up, and then deserialize refuses their sum (CORRUPT), never misreads it;
 *   - a range past the end, NULL arguments: INVALID_ARGUMENT with a detail,
 *     nothing written; len 0 at the end is fine.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_samples.h"

static uint32_t le32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4); /* the build accepts little-endian targets only */
    return v;
}

static uint64_t le64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The offsets where the serialized form changes meaning, read from its
 * header (src/persist/format.h): the header checksum and the end of the
 * fixed header, each directory entry, the payload's start, each layer's
 * start and the end of its words (where padding begins), the end. */
static size_t boundaries(const uint8_t *bytes, size_t len, uint64_t *at, size_t cap)
{
    uint32_t version = le32_at(bytes + 8), payload_offset = le32_at(bytes + 12), layers = le32_at(bytes + 96);
    uint64_t block_bytes = le32_at(bytes + 16) == BLOOMSIMD_LAYOUT_SPLIT256 ? 32 : 64;
    size_t n = 0;
    at[n++] = 0, at[n++] = 120, at[n++] = 128, at[n++] = payload_offset, at[n++] = len;
    uint64_t off = payload_offset, align = version >= 3 ? 64 : 4096;
    for (uint32_t i = 0; i < layers && n + 3 <= cap; i++) {
        at[n++] = 128 + 64 * (uint64_t)i;
        at[n++] = off;
        off += le64_at(bytes + 128 + 64 * (size_t)i) * block_bytes;
        at[n++] = off;
        off = (off + align - 1) / align * align;
    }
    cr_assert(layers == 0 || off == len, "the directory's layers end at %llu, the filter at %zu",
              (unsigned long long)off, len);
    return n;
}

static void check_slice(const bloomsimd_filter *f, const uint8_t *ref, size_t len, uint64_t offset, size_t n,
                        const char *what)
{
    uint8_t *buf = malloc(n + 16);
    memset(buf, 0xa5, n + 16);
    bloomsimd_status st = bloomsimd_serialize_range(f, offset, buf + 8, n);
    cr_assert_eq(st, BLOOMSIMD_OK, "%s: [%llu, +%zu) of %zu: %s", what, (unsigned long long)offset, n, len,
                 bloomsimd_last_error());
    cr_assert(memcmp(buf + 8, ref + offset, n) == 0, "%s: bytes [%llu, +%zu) differ from serialize's", what,
              (unsigned long long)offset, n);
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(buf[i], 0xa5, "%s: wrote before buf", what);
        cr_assert_eq(buf[8 + n + i], 0xa5, "%s: wrote past len", what);
    }
    free(buf);
}

static void check_filter(const bloomsimd_filter *f, const char *what)
{
    size_t len;
    uint8_t *ref = test_serialize(f, &len);
    cr_assert_eq(len, bloomsimd_serialized_size(f));
    uint64_t at[64];
    size_t nb = boundaries(ref, len, at, sizeof at / sizeof at[0]);
    for (size_t i = 0; i < nb; i++)
        for (int d0 = -9; d0 <= 9; d0++)
            for (int d1 = 0; d1 <= 9; d1++) {
                int64_t s = (int64_t)at[i] + d0;
                if (s < 0 || (uint64_t)s > len) continue;
                size_t n = (size_t)d1 * 7;
                if ((uint64_t)s + n > len) n = len - (size_t)s;
                check_slice(f, ref, len, (uint64_t)s, n, what);
            }
    uint64_t state = 77;
    for (int r = 0; r < 200; r++) {
        uint64_t s = test_splitmix64(&state) % (len + 1);
        size_t n = (size_t)(test_splitmix64(&state) % (len - s + 1));
        if (r % 2) n = n % 5000; /* short slices too, as a host's chunks mostly are */
        check_slice(f, ref, len, s, n, what);
    }
    /* pieces end to end, as BF.SCANDUMP hands them out */
    static const size_t pieces[] = {4096, 5000, 65536};
    uint8_t *sum = malloc(len);
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
        memset(sum, 0, len);
        for (size_t off = 0; off < len; off += pieces[p])
            cr_assert_eq(bloomsimd_serialize_range(f, off, sum + off, len - off < pieces[p] ? len - off : pieces[p]),
                         BLOOMSIMD_OK);
        cr_assert(memcmp(sum, ref, len) == 0, "%s: %zu-byte pieces do not add up", what, pieces[p]);
    }
    /* and one byte at a time over the header and the first and last words */
    size_t head = len < 12000 ? len : 12000;
    for (size_t off = 0; off < len; off = off + 1 == head && len - 3000 > off ? len - 3000 : off + 1) {
        uint8_t byte = (uint8_t)~ref[off];
        cr_assert_eq(bloomsimd_serialize_range(f, off, &byte, 1), BLOOMSIMD_OK);
        cr_assert_eq(byte, ref[off], "%s: byte %zu", what, off);
    }
    free(sum);
    free(ref);
}

Test(serialize_range, every_slice_is_serialize_bytes)
{
    for (int kind = 0; kind < TEST_KINDS; kind++)
        for (int concurrent = 0; concurrent < 2; concurrent++) {
            bloomsimd_filter *f = test_sample(kind, NULL, concurrent ? BLOOMSIMD_CONCURRENT : 0);
            char what[64];
            snprintf(what, sizeof what, "%s%s", test_kind_names[kind], concurrent ? ", concurrent" : "");
            check_filter(f, what);
            bloomsimd_destroy(f);
        }
}

Test(serialize_range, both_layouts)
{
    for (uint32_t layout = BLOOMSIMD_LAYOUT_BLOCK512; layout <= BLOOMSIMD_LAYOUT_SPLIT256; layout++)
        for (uint32_t growth = 0; growth <= 2; growth += 2) {
            bloomsimd_options o = {.capacity = 3000, .fpr = 0.001, .layout = layout, .growth = growth};
            bloomsimd_filter *f = test_filter(&o);
            uint64_t *keys = test_keys(20000, 5);
            cr_assert_eq(bloomsimd_add_batch_u64(f, keys, growth ? 20000 : 3000), BLOOMSIMD_OK);
            free(keys);
            check_filter(f, growth ? "grown" : "plain");
            bloomsimd_destroy(f);
        }
}

Test(serialize_range, a_filter_changed_between_pieces_is_refused_not_misread)
{
    bloomsimd_options o = {.capacity = 100000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(50000, 9);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 25000), BLOOMSIMD_OK);
    size_t len = bloomsimd_serialized_size(f), half = len / 2;
    uint8_t *sum = malloc(len);
    cr_assert_eq(bloomsimd_serialize_range(f, 0, sum, half), BLOOMSIMD_OK); /* the header and checksums */
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys + 25000, 25000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_serialize_range(f, half, sum + half, len - half), BLOOMSIMD_OK);
    bloomsimd_filter *g = NULL;
    cr_assert_eq(bloomsimd_deserialize(&g, sum, len), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_null(g);
    cr_assert(strstr(bloomsimd_last_error(), "checksum"), "%s", bloomsimd_last_error());
    free(sum);
    free(keys);
    bloomsimd_destroy(f);
}

Test(serialize_range, bad_arguments)
{
    bloomsimd_filter *f = test_sample(0, NULL, 0);
    size_t len = bloomsimd_serialized_size(f);
    uint8_t buf[16];
    memset(buf, 0xa5, sizeof buf);
    cr_assert_eq(bloomsimd_serialize_range(f, len - 8, buf, 9), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(bloomsimd_last_error(), "past the"), "%s", bloomsimd_last_error());
    cr_assert_eq(bloomsimd_serialize_range(f, len + 1, buf, 0), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize_range(f, UINT64_MAX, buf, 2), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize_range(f, 0, NULL, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize_range(NULL, 0, buf, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof buf; i++) cr_assert_eq(buf[i], 0xa5, "a refused call wrote");
    cr_assert_eq(bloomsimd_serialize_range(f, len, NULL, 0), BLOOMSIMD_OK);
    cr_assert_str_eq(bloomsimd_last_error(), "");
    bloomsimd_destroy(f);
}
