/*
 * test_persist_split256.c — split256 filters (layout 3) in the file format:
 * the header records layout 3 with 32-byte blocks; every kind (plain,
 * scalable, window) round-trips through serialize, save/load, map (read-only
 * and writable) and the streams, on every kernel, answering as before; the
 * bytes of a small file are pinned (golden values) so a file written on any
 * CPU is checked against the same bytes; and layout 2 files keep loading as
 * layout 2 whatever the kernel's default.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "persist/format.h"
#include "support.h"

static char *temp_dir(void)
{
    char *dir = strdup("/tmp/bloomsimd-split256-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

static uint8_t *serialize_alloc(const bloomsimd_filter *f, size_t *len)
{
    *len = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(*len);
    cr_assert_eq(bloomsimd_serialize(f, buf, *len, NULL), BLOOMSIMD_OK);
    return buf;
}

static void assert_same_answers(const bloomsimd_filter *a, const bloomsimd_filter *b, const uint64_t *keys, size_t n,
                                const uint64_t *absent, size_t m)
{
    bloomsimd_info ia, ib;
    bloomsimd_get_info(a, &ia);
    bloomsimd_get_info(b, &ib);
    cr_assert_eq(ib.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(ia.blocks, ib.blocks);
    cr_assert_eq(ia.k, ib.k);
    cr_assert_eq(ia.layers, ib.layers);
    cr_assert_eq(ia.items, ib.items);
    cr_assert_eq(bloomsimd_contains_batch_u64(b, keys, n, NULL), n, "false negatives after the round trip");
    uint8_t *oa = malloc(m), *ob = malloc(m);
    cr_assert_eq(bloomsimd_contains_batch_u64(a, absent, m, oa), bloomsimd_contains_batch_u64(b, absent, m, ob));
    cr_assert(memcmp(oa, ob, m) == 0, "answers differ after the round trip");
    free(oa), free(ob);
}

static bloomsimd_filter *build(int kind, uint64_t *keys, size_t n)
{
    bloomsimd_options o = {.capacity = 3000, .fpr = 0.01, .seed = 77, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    if (kind == 1) o.growth = 2;
    if (kind == 2) o.generations = 3;
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, n, NULL, NULL), BLOOMSIMD_OK);
    if (kind == 2) cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    return f;
}

Test(persist_split256, every_kind_round_trips_through_every_path)
{
    const size_t n = 10000, m = 50000;
    uint64_t *keys = test_keys(n, 141), *absent = test_keys(m, 142);
    char *dir = temp_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/f.bsf", dir);
    for (int kind = 0; kind < 3; kind++) {
        size_t keys_in = kind == 2 ? 2500 : n;
        bloomsimd_filter *f = build(kind, keys, keys_in);
        size_t len;
        uint8_t *buf = serialize_alloc(f, &len);
        cr_assert_eq(bloomsimd_le32_get(buf + BLOOMSIMD_HDR_LAYOUT_ID), 3u, "kind %d", kind);
        cr_assert_eq(bloomsimd_le32_get(buf + BLOOMSIMD_HDR_HASH_ID), 1u);
        if (kind == 0) {
            bloomsimd_info info;
            bloomsimd_get_info(f, &info);
            cr_assert_eq(bloomsimd_le64_get(buf + BLOOMSIMD_HDR_PAYLOAD_BYTES), info.blocks * 32);
            cr_assert_eq(len, 4096 + info.blocks * 32);
            cr_assert_eq(bloomsimd_le32_get(buf + BLOOMSIMD_HDR_K), 8u);
        }
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        assert_same_answers(f, g, keys, keys_in, absent, m);
        bloomsimd_destroy(g);

        cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
        size_t flen;
        uint8_t *file = test_read_file(path, &flen);
        cr_assert(flen == len && memcmp(file, buf, len) == 0, "save and serialize write different bytes");
        free(file);
        cr_assert_eq(bloomsimd_load(&g, path), BLOOMSIMD_OK);
        assert_same_answers(f, g, keys, keys_in, absent, m);
        bloomsimd_destroy(g);
        cr_assert_eq(bloomsimd_map(&g, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
        assert_same_answers(f, g, keys, keys_in, absent, m);
        bloomsimd_destroy(g);

        /* a writable mapping takes inserts in place; after sync the file loads with them */
        cr_assert_eq(bloomsimd_map(&g, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(g, absent, 100), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_sync(g), BLOOMSIMD_OK);
        bloomsimd_destroy(g);
        cr_assert_eq(bloomsimd_load(&g, path), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_batch_u64(g, absent, 100, NULL), 100u);
        cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, keys_in, NULL), keys_in);
        bloomsimd_destroy(g);

        /* the stream over a pipe-like fd: a regular file here */
        FILE *fp = tmpfile();
        cr_assert_not_null(fp);
        cr_assert_eq(bloomsimd_serialize_fd(f, fileno(fp)), BLOOMSIMD_OK);
        cr_assert_eq(lseek(fileno(fp), 0, SEEK_SET), 0);
        cr_assert_eq(bloomsimd_deserialize_fd(&g, fileno(fp), NULL), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        fclose(fp);
        assert_same_answers(f, g, keys, keys_in, absent, m);
        bloomsimd_destroy(g);
        free(buf);
        bloomsimd_destroy(f);
    }
    test_remove_dir(dir);
    free(keys), free(absent);
}

Test(persist_split256, every_kernel_reads_the_file_and_answers_the_same)
{
    const size_t n = 5000, m = 30000;
    uint64_t *keys = test_keys(n, 143), *absent = test_keys(m, 144);
    bloomsimd_filter *f = build(0, keys, n);
    size_t len;
    uint8_t *buf = serialize_alloc(f, &len);
    for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
        const char *name = bloomsimd_kernel_name(i);
        if (!bloomsimd_kernel_supported(name)) continue;
        bloomsimd_load_options lo = {.kernel = name};
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize_with(&g, buf, len, &lo), BLOOMSIMD_OK);
        bloomsimd_info info;
        bloomsimd_get_info(g, &info);
        cr_assert_str_eq(info.kernel, name);
        assert_same_answers(f, g, keys, n, absent, m);
        size_t len2;
        uint8_t *again = serialize_alloc(g, &len2);
        cr_assert(len2 == len && memcmp(again, buf, len) == 0, "kernel %s writes other bytes", name);
        free(again);
        bloomsimd_destroy(g);
    }
    free(buf), free(keys), free(absent);
    bloomsimd_destroy(f);
}

/* The 3-block split256 filter, seed 42, holding the keys 0, 3, ..., 297
 * (docs/FORMAT.md "Example"), as every kernel must write it. */
#define GOLDEN_SPLIT256_PAYLOAD_XXH3 UINT64_C(0x41fabba0124694cd)
#define GOLDEN_SPLIT256_FILE_XXH3 UINT64_C(0x1e9ec82105769c55)

Test(persist_split256, golden_bytes_are_identical_on_every_kernel_and_cpu)
{
    bloomsimd_options o = {.bits = 3 * 256, .seed = 42, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_filter *f = test_filter(&o);
    for (uint64_t key = 0; key < 100; key++) cr_assert_eq(bloomsimd_add_u64(f, key * 3), BLOOMSIMD_OK);
    size_t len;
    uint8_t *buf = serialize_alloc(f, &len);
    cr_assert_eq(len, 4096 + 3 * 32);
    static const uint8_t start[44] = {
        0x89, 'B', 'S', 'I', 'M', 'D', '\r', '\n', 2, 0, 0, 0, 0x00, 0x10, 0, 0, /* magic, version, offset */
        3, 0, 0, 0, 1, 0, 0, 0,                                                   /* layout 3, hash 1 */
        42, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,                          /* seed, block count */
        8, 0, 0, 0,                                                               /* k */
    };
    cr_assert(memcmp(buf, start, sizeof start) == 0, "header fields differ");
    cr_assert_eq(bloomsimd_le64_get(buf + BLOOMSIMD_HDR_PAYLOAD_BYTES), 96u);
    cr_assert_eq(XXH3_64bits(buf + 4096, 96), GOLDEN_SPLIT256_PAYLOAD_XXH3, "payload %#llx",
                 (unsigned long long)XXH3_64bits(buf + 4096, 96));
    cr_assert_eq(XXH3_64bits(buf, len), GOLDEN_SPLIT256_FILE_XXH3, "file %#llx",
                 (unsigned long long)XXH3_64bits(buf, len));
    free(buf);
    bloomsimd_destroy(f);
}

Test(persist_split256, layout_2_files_still_load_as_layout_2)
{
    bloomsimd_options o = {.bits = 40 * 512, .k = 6, .seed = 1, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(1000, 145);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 1000), BLOOMSIMD_OK);
    size_t len;
    uint8_t *buf = serialize_alloc(f, &len);
    cr_assert_eq(bloomsimd_le32_get(buf + BLOOMSIMD_HDR_LAYOUT_ID), 2u);
    bloomsimd_filter *g = NULL;
    cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_OK);
    bloomsimd_info info;
    bloomsimd_get_info(g, &info);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_BLOCK512);
    cr_assert_eq(info.k, 6u);
    cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, 1000, NULL), 1000u);
    bloomsimd_destroy(g);
    free(buf), free(keys);
    bloomsimd_destroy(f);
}

Test(persist_split256, a_split256_header_with_another_k_or_an_unknown_layout_is_refused)
{
    bloomsimd_filter *f = build(0, NULL, 0);
    size_t len;
    uint8_t *buf = serialize_alloc(f, &len);
    bloomsimd_filter *g = NULL;
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_K, 7);
    bloomsimd_header_reseal(buf);
    cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_str_eq(bloomsimd_last_error(), "the filter: k 7 in layout 3 (split256), which sets exactly 8 bits per key");
    cr_assert_null(g);
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_K, 8);
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_LAYOUT_ID, 0);
    bloomsimd_header_reseal(buf);
    cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_ERR_VERSION);
    cr_assert_str_eq(bloomsimd_last_error(), "layout 0 is unknown to this library (it reads layout 2, block512, and 3, split256)");
    /* a split256 file read as block512 would need twice the bytes: the length check says so */
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_LAYOUT_ID, 2);
    bloomsimd_header_reseal(buf);
    cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_null(g);
    free(buf);
    bloomsimd_destroy(f);

    /* a window's k, a scalable filter's k option */
    uint64_t key = 1;
    bloomsimd_filter *w = build(2, &key, 1);
    buf = serialize_alloc(w, &len);
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_K, 6);
    bloomsimd_le64_put(buf + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM,
                       XXH3_64bits(buf + BLOOMSIMD_HDR_DIRECTORY, 3 * BLOOMSIMD_FORMAT_ENTRY_BYTES));
    bloomsimd_header_reseal(buf);
    cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_str_eq(bloomsimd_last_error(), "a window with k 6 (needs 8 in layout 3, split256)");
    free(buf);
    bloomsimd_destroy(w);
    bloomsimd_filter *s = build(1, &key, 1);
    buf = serialize_alloc(s, &len);
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_K, 3);
    bloomsimd_header_reseal(buf);
    cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_str_eq(bloomsimd_last_error(), "scalable filter with k 3 in layout 3 (split256): k is 0 or 8");
    free(buf);
    bloomsimd_destroy(s);
}
