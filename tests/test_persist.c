/*
 * test_persist.c — round trips: serialize -> deserialize and save -> load ->
 * map give identical bytes and identical answers, for several geometries, on
 * this run's kernel; and the version-1 bytes are pinned by golden values so
 * a file written on any CPU is checked against the same bytes everywhere.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "persist/format.h"
#include "support.h"

typedef struct geometry_case {
    uint64_t blocks;
    uint32_t k;
    uint64_t seed;
    uint64_t capacity;
    uint32_t flags;
    size_t keys;
} geometry_case;

/* One block; tiny k; maximal k; a seed with both halves set; a concurrent
 * filter; and one >= 2 MiB so the bit array comes from the anonymous-map path. */
static const geometry_case cases[] = {
    {1, 1, 0, 0, 0, 5},
    {3, 7, 42, 100, 0, 100},
    {1000, 16, UINT64_C(0xdeadbeefcafef00d), 10000, 0, 8000},
    {777, 7, 7, 5000, BLOOMSIMD_CONCURRENT, 5000},
    {40000, 8, 99, 250000, BLOOMSIMD_NO_HUGEPAGES, 200000},
};
#define NCASES (sizeof cases / sizeof cases[0])

static bloomsimd_filter *build(const geometry_case *c, uint64_t **keys_out)
{
    /* block512 geometries (k 8 would otherwise take the kernel's default
     * layout); split256 files: test_persist_split256.c */
    bloomsimd_options o = {.bits = c->blocks * 512, .k = c->k, .seed = c->seed, .capacity = c->capacity,
                           .flags = c->flags, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(c->keys, 7);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, c->keys), BLOOMSIMD_OK);
    *keys_out = keys;
    return f;
}

static uint8_t *serialize_alloc(const bloomsimd_filter *f, size_t *len)
{
    size_t n = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(n);
    cr_assert_not_null(buf);
    size_t written = 0;
    cr_assert_eq(bloomsimd_serialize(f, buf, n, &written), BLOOMSIMD_OK);
    cr_assert_eq(written, n);
    *len = n;
    return buf;
}

/* Same geometry, same bit array bytes, same serialization, same answers for
 * present and absent keys, and the run's kernel. */
static void assert_same_filter(const bloomsimd_filter *a, const bloomsimd_filter *b, const uint64_t *keys, size_t n)
{
    bloomsimd_info ia, ib;
    bloomsimd_get_info(a, &ia);
    bloomsimd_get_info(b, &ib);
    cr_assert_eq(ia.layout, ib.layout);
    cr_assert_eq(ia.blocks, ib.blocks);
    cr_assert_eq(ia.k, ib.k);
    cr_assert_eq(ia.seed, ib.seed);
    cr_assert_eq(ia.capacity, ib.capacity);
    cr_assert(memcmp(&ia.fpr, &ib.fpr, sizeof ia.fpr) == 0, "fpr %g vs %g", ia.fpr, ib.fpr);
    cr_assert_eq(ia.flags, ib.flags);
    cr_assert_str_eq(ib.kernel, test_kernel());

    size_t la, lb;
    uint8_t *sa = serialize_alloc(a, &la), *sb = serialize_alloc(b, &lb);
    cr_assert_eq(la, lb);
    cr_assert(memcmp(sa, sb, la) == 0, "serializations differ");
    free(sa);
    free(sb);

    uint64_t *absent = test_keys(20000, 8);
    uint8_t *oa = malloc(20000), *ob = malloc(20000);
    cr_assert_eq(bloomsimd_contains_batch_u64(b, keys, n, NULL), n, "a key was lost");
    size_t ha = bloomsimd_contains_batch_u64(a, absent, 20000, oa);
    size_t hb = bloomsimd_contains_batch_u64(b, absent, 20000, ob);
    cr_assert_eq(ha, hb);
    cr_assert(memcmp(oa, ob, 20000) == 0, "answers for absent keys differ");
    for (size_t i = 0; i < 200; i++) cr_assert_eq(bloomsimd_contains_u64(b, absent[i]), oa[i] != 0);
    free(absent);
    free(oa);
    free(ob);
}

Test(persist, serialize_deserialize_round_trip_for_every_geometry)
{
    for (size_t i = 0; i < NCASES; i++) {
        uint64_t *keys;
        bloomsimd_filter *f = build(&cases[i], &keys);
        size_t len;
        uint8_t *buf = serialize_alloc(f, &len);
        cr_assert_eq(len, 4096 + cases[i].blocks * 64);
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_OK, "case %zu", i);
        cr_assert(memcmp(buf + 4096, g->geometry.words, len - 4096) == 0);
        assert_same_filter(f, g, keys, cases[i].keys);
        cr_assert_eq(g->geometry.concurrent, (cases[i].flags & BLOOMSIMD_CONCURRENT) != 0);
        bloomsimd_destroy(g);
        bloomsimd_destroy(f);
        free(buf);
        free(keys);
    }
}

Test(persist, serialize_reports_small_buffers_and_null_arguments)
{
    uint64_t *keys;
    bloomsimd_filter *f = build(&cases[1], &keys);
    size_t n = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(n);
    size_t written = 123;
    cr_assert_eq(bloomsimd_serialize(f, buf, n - 1, &written), BLOOMSIMD_ERR_TOO_LARGE);
    cr_assert_eq(written, 0);
    cr_assert_eq(bloomsimd_serialize(NULL, buf, n, &written), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize(f, NULL, n, &written), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize(f, buf, n, NULL), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_serialized_size(NULL), 0);
    free(buf);
    free(keys);
    bloomsimd_destroy(f);
}

static char *make_dir(void)
{
    char tmpl[] = "/tmp/bloomsimd-persist-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}


Test(persist, save_load_map_round_trip_for_every_geometry)
{
    char *dir = make_dir();
    char path[4200];
    for (size_t i = 0; i < NCASES; i++) {
        uint64_t *keys;
        bloomsimd_filter *f = build(&cases[i], &keys);
        snprintf(path, sizeof path, "%s/f%zu.bsf", dir, i);
        cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);

        /* The file is exactly the serialization. */
        size_t len, flen;
        uint8_t *buf = serialize_alloc(f, &len);
        uint8_t *file = test_read_file(path, &flen);
        cr_assert_eq(flen, len);
        cr_assert(memcmp(buf, file, len) == 0, "file bytes differ from serialize, case %zu", i);

        bloomsimd_filter *loaded = NULL, *mapped = NULL;
        cr_assert_eq(bloomsimd_load(&loaded, path), BLOOMSIMD_OK);
        assert_same_filter(f, loaded, keys, cases[i].keys);
        cr_assert_eq(bloomsimd_map(&mapped, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
        /* Zero-copy: the kernel probes the file's pages, 64-byte aligned. */
        cr_assert_eq((uintptr_t)mapped->geometry.words % 64, 0);
        cr_assert_eq((uint8_t *)mapped->geometry.words, (uint8_t *)mapped->mapping + 4096);
        assert_same_filter(f, mapped, keys, cases[i].keys);

        bloomsimd_destroy(loaded);
        bloomsimd_destroy(mapped);
        bloomsimd_destroy(f);
        free(buf);
        free(file);
        free(keys);
    }
    test_remove_dir(dir);
}

/* The version-1 bytes of one fixed filter. Every kernel and CPU must produce
 * them: the suite runs per kernel here and under qemu on aarch64. Capacity 0
 * keeps the target FPR at exactly 0.0, so no libm result enters the bytes. */
#define GOLDEN_PAYLOAD_XXH3 UINT64_C(0xc518b92ad3895aaa)
#define GOLDEN_FILE_XXH3 UINT64_C(0xc272c527dd963a73)
static bloomsimd_filter *golden_filter(void)
{
    bloomsimd_options o = {.bits = 3 * 512, .k = 7, .seed = 42, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *f = test_filter(&o);
    for (uint64_t key = 0; key < 100; key++) cr_assert_eq(bloomsimd_add_u64(f, key * 3), BLOOMSIMD_OK);
    return f;
}

/* Header fields of the golden filter, written out by hand from docs/FORMAT.md. */
static const uint8_t golden_header_start[56] = {
    0x89, 'B', 'S', 'I', 'M', 'D', '\r', '\n', /* magic */
    2, 0, 0, 0,                                 /* format version */
    0x00, 0x10, 0, 0,                           /* payload offset 4096 */
    2, 0, 0, 0,                                 /* layout id */
    1, 0, 0, 0,                                 /* hash id */
    42, 0, 0, 0, 0, 0, 0, 0,                    /* seed */
    3, 0, 0, 0, 0, 0, 0, 0,                     /* block count */
    7, 0, 0, 0,                                 /* k */
    0, 0, 0, 0,                                 /* state flags */
    0, 0, 0, 0,                                 /* filter flags */
    0, 0, 0, 0,                                 /* reserved */
};

Test(persist, golden_bytes_are_identical_on_every_kernel_and_cpu)
{
    bloomsimd_filter *f = golden_filter();
    size_t len;
    uint8_t *buf = serialize_alloc(f, &len);
    cr_assert_eq(len, 4096 + 3 * 64);
    cr_assert(memcmp(buf, golden_header_start, sizeof golden_header_start) == 0, "header fields differ");
    cr_assert_eq(bloomsimd_le64_get(buf + 56), 0);                                 /* capacity */
    cr_assert_eq(bloomsimd_le64_get(buf + 64), 0);                                 /* fpr 0.0 */
    cr_assert_eq(bloomsimd_le64_get(buf + 72), 192);                               /* payload bytes */
    cr_assert_eq(bloomsimd_le64_get(buf + 80), XXH3_64bits(buf + 4096, 192));      /* payload checksum */
    cr_assert_eq(bloomsimd_le64_get(buf + 120), XXH3_64bits(buf, 120));            /* header checksum */
    cr_assert_eq(XXH3_64bits(buf + 4096, 192), GOLDEN_PAYLOAD_XXH3, "payload %#llx",
                 (unsigned long long)XXH3_64bits(buf + 4096, 192));
    cr_assert_eq(XXH3_64bits(buf, len), GOLDEN_FILE_XXH3, "file %#llx", (unsigned long long)XXH3_64bits(buf, len));
    free(buf);
    bloomsimd_destroy(f);
}

/* The golden file's payload as written on x86-64 by the scalar kernel. */
static const uint8_t golden_payload[192] = {
    0x37, 0xc5, 0x20, 0x32, 0x94, 0x30, 0x42, 0xd4, 0x5a, 0x03, 0xe2, 0x2f, 0x8b, 0x4a, 0x82, 0x10,
    0x10, 0x00, 0x48, 0xac, 0xa8, 0x41, 0x53, 0x58, 0xb0, 0x0c, 0x82, 0x03, 0x82, 0x04, 0xcb, 0x35,
    0x70, 0x8c, 0x2b, 0xcc, 0x02, 0x10, 0x62, 0x62, 0x30, 0xaa, 0xa0, 0x37, 0x1f, 0x2d, 0x87, 0x48,
    0x43, 0x10, 0x01, 0x0d, 0x06, 0x51, 0x40, 0x30, 0x1c, 0x3a, 0xf2, 0x88, 0xc4, 0x06, 0x5c, 0xba,
    0x76, 0xac, 0xc2, 0x16, 0x48, 0x04, 0x83, 0x73, 0x88, 0x4e, 0x09, 0xf4, 0xc9, 0x20, 0x0b, 0x1a,
    0x33, 0x6d, 0x54, 0x4b, 0x58, 0xad, 0x4a, 0xc1, 0x11, 0x48, 0x07, 0xd2, 0x20, 0x55, 0x89, 0x99,
    0x8c, 0xc4, 0x86, 0xfc, 0x20, 0xcb, 0xbc, 0xeb, 0x94, 0x9f, 0xf2, 0x09, 0x8e, 0x33, 0xe1, 0x02,
    0x68, 0xe6, 0x02, 0x10, 0x5a, 0x05, 0x94, 0xa9, 0x1e, 0xbf, 0x46, 0x19, 0x25, 0x00, 0x26, 0x8a,
    0x9b, 0x88, 0xd1, 0x09, 0x98, 0x83, 0x25, 0xc6, 0x15, 0x20, 0xe9, 0x09, 0x99, 0x40, 0x42, 0xd0,
    0xe9, 0x89, 0x30, 0x00, 0xae, 0x01, 0x91, 0x01, 0x40, 0x83, 0x51, 0x06, 0xc3, 0x04, 0x91, 0x53,
    0x82, 0x0d, 0x20, 0x78, 0x02, 0x12, 0x10, 0x03, 0xa0, 0x44, 0x61, 0xa0, 0x20, 0xc8, 0x30, 0xb6,
    0x0e, 0xf8, 0x04, 0xc7, 0xba, 0xc8, 0x27, 0x14, 0x6d, 0x1a, 0x4a, 0xa2, 0x25, 0xb0, 0x85, 0x0d,
};

/* Builds the golden file from the literal bytes above (not from the encoder),
 * so this test proves that bytes written elsewhere load here. */
Test(persist, a_file_written_on_another_cpu_loads_and_answers_identically)
{
    uint8_t *file = calloc(1, 4096 + 192);
    cr_assert_not_null(file);
    memcpy(file, golden_header_start, sizeof golden_header_start);
    static const uint8_t tail[] = {
        0, 0, 0, 0, 0, 0, 0, 0,                         /* capacity 0 */
        0, 0, 0, 0, 0, 0, 0, 0,                         /* fpr +0.0 */
        192, 0, 0, 0, 0, 0, 0, 0,                       /* payload bytes */
        0xaa, 0x5a, 0x89, 0xd3, 0x2a, 0xb9, 0x18, 0xc5, /* payload checksum */
    };
    memcpy(file + 56, tail, sizeof tail);
    static const uint8_t header_checksum[8] = {0xfd, 0x97, 0x3f, 0x87, 0x0e, 0x74, 0x78, 0xbf};
    memcpy(file + 120, header_checksum, 8);
    memcpy(file + 4096, golden_payload, 192);

    bloomsimd_filter *g = NULL;
    cr_assert_eq(bloomsimd_deserialize(&g, file, 4096 + 192), BLOOMSIMD_OK);
    for (uint64_t key = 0; key < 100; key++) cr_assert(bloomsimd_contains_u64(g, key * 3), "key %llu", (unsigned long long)(key * 3));
    bloomsimd_filter *f = golden_filter();
    uint64_t probe[300];
    for (uint64_t i = 0; i < 300; i++) probe[i] = i;
    uint8_t a[300], b[300];
    cr_assert_eq(bloomsimd_contains_batch_u64(f, probe, 300, a), bloomsimd_contains_batch_u64(g, probe, 300, b));
    cr_assert(memcmp(a, b, 300) == 0);
    size_t len;
    uint8_t *again = serialize_alloc(g, &len);
    cr_assert(memcmp(again, file, len) == 0, "re-serialization differs from the golden file");
    free(again);
    free(file);
    bloomsimd_destroy(f);
    bloomsimd_destroy(g);
}
