/*
 * test_select.c — selection vectors and bitmaps through the public API, on
 * this run's kernel against the scalar kernel and against the byte-per-key
 * answers of the same filter: for every batch size around the vector widths,
 * tails, 0% / 1% / 50% / 100% present, u64 / hash / byte keys, both layouts. The indices
 * are ascending and exactly the keys the byte path reports; bitmap padding
 * bits are zero; nothing is written past the output; NULL and oversized
 * arguments write nothing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                               511, 513, 1000, 4099};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define MAX_N 4099u
#define GUARD 8u

static bloomsimd_filter *make(const bloomsimd_options *o, const char *kernel)
{
    bloomsimd_options copy = *o;
    copy.kernel = kernel;
    return test_filter(&copy);
}

/* n queries of which about `percent` are among the first `inserted` keys of stream 1. */
static void queries(uint64_t *q, size_t n, unsigned percent, size_t inserted, uint64_t salt)
{
    uint64_t state = salt;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_splitmix64(&state);
        q[i] = (r % 100 < percent) ? test_key(1, r % inserted) : test_key(2, salt * 100000 + i);
    }
}

typedef enum key_kind { KEYS_U64, KEYS_HASHES, KEYS_BYTES } key_kind;

static size_t lookup(const bloomsimd_filter *f, key_kind kind, const uint64_t *q, size_t n, int form, void *out)
{
    uint64_t *hashes = malloc(n * sizeof *hashes);
    const void **ptrs = malloc(n * sizeof *ptrs);
    size_t *lens = malloc(n * sizeof *lens);
    cr_assert(hashes && ptrs && lens);
    bloomsimd_hash_batch_u64(f, q, n, hashes);
    for (size_t i = 0; i < n; i++) ptrs[i] = &q[i], lens[i] = 8;
    size_t r = 0;
    switch (kind * 3 + form) {
    case 0: r = bloomsimd_contains_batch_u64(f, q, n, out); break;
    case 1: r = bloomsimd_contains_bitmap_u64(f, q, n, out); break;
    case 2: r = bloomsimd_select_batch_u64(f, q, n, out); break;
    case 3: r = bloomsimd_contains_hashes(f, hashes, n, out); break;
    case 4: r = bloomsimd_contains_bitmap_hashes(f, hashes, n, out); break;
    case 5: r = bloomsimd_select_hashes(f, hashes, n, out); break;
    case 6: r = bloomsimd_contains_batch(f, ptrs, lens, n, out); break;
    case 7: r = bloomsimd_contains_bitmap(f, ptrs, lens, n, out); break;
    default: r = bloomsimd_select_batch(f, ptrs, lens, n, out); break;
    }
    free(hashes);
    free(ptrs);
    free(lens);
    return r;
}

/* Checks the bitmap and index forms of one filter against its byte form. */
static void check_forms(const bloomsimd_filter *f, const bloomsimd_filter *ref, key_kind kind, const uint64_t *q,
                        size_t n, const char *what)
{
    uint8_t *bytes = malloc(n), *ref_bytes = malloc(n);
    uint8_t *bitmap = malloc((n + 7) / 8 + GUARD), *ref_bitmap = malloc((n + 7) / 8 + GUARD);
    uint32_t *idx = malloc((n + GUARD) * sizeof *idx), *ref_idx = malloc((n + GUARD) * sizeof *ref_idx);
    cr_assert(bytes && ref_bytes && bitmap && ref_bitmap && idx && ref_idx);
    size_t hits = lookup(f, kind, q, n, 0, bytes);
    cr_assert_eq(lookup(ref, kind, q, n, 0, ref_bytes), hits, "%s: byte hits differ from scalar", what);
    cr_assert(memcmp(bytes, ref_bytes, n) == 0, "%s: bytes differ from scalar", what);

    memset(bitmap, 0xA5, (n + 7) / 8 + GUARD);
    cr_assert_eq(lookup(f, kind, q, n, 1, bitmap), hits, "%s: bitmap count", what);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq((bitmap[i / 8] >> (i % 8)) & 1, bytes[i], "%s: bitmap bit %zu", what, i);
    if (n % 8) cr_assert_eq(bitmap[n / 8] >> (n % 8), 0, "%s: bitmap padding bits not zero", what);
    for (size_t i = (n + 7) / 8; i < (n + 7) / 8 + GUARD; i++)
        cr_assert_eq(bitmap[i], 0xA5, "%s: wrote past the bitmap", what);
    cr_assert_eq(lookup(ref, kind, q, n, 1, ref_bitmap), hits);
    cr_assert(memcmp(bitmap, ref_bitmap, (n + 7) / 8) == 0, "%s: bitmap differs from scalar", what);

    for (size_t i = 0; i < n + GUARD; i++) idx[i] = 0xDEADBEEF;
    cr_assert_eq(lookup(f, kind, q, n, 2, idx), hits, "%s: index count", what);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (bytes[i]) cr_assert_eq(idx[j++], i, "%s: index %zu", what, j - 1);
    for (size_t i = n; i < n + GUARD; i++) cr_assert_eq(idx[i], 0xDEADBEEF, "%s: wrote past indices[n-1]", what);
    cr_assert_eq(lookup(ref, kind, q, n, 2, ref_idx), hits);
    cr_assert(memcmp(idx, ref_idx, hits * sizeof *idx) == 0, "%s: indices differ from scalar", what);
    free(bytes);
    free(ref_bytes);
    free(bitmap);
    free(ref_bitmap);
    free(idx);
    free(ref_idx);
}

static void check_geometry(const bloomsimd_options *o, size_t inserted)
{
    bloomsimd_filter *f = make(o, test_kernel()), *ref = make(o, "scalar");
    uint64_t *keys = test_keys(inserted, 1);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, inserted), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(ref, keys, inserted), BLOOMSIMD_OK);
    uint64_t *q = malloc(MAX_N * sizeof *q);
    static const unsigned percents[] = {0, 1, 50, 100};
    char what[160];
    for (size_t s = 0; s < N_SIZES; s++)
        for (size_t p = 0; p < 4; p++)
            for (key_kind kind = KEYS_U64; kind <= KEYS_BYTES; kind++) {
                queries(q, sizes[s], percents[p], inserted, s * 16 + p + 1);
                snprintf(what, sizeof what, "k=%u blocks=%llu n=%zu present=%u%% keys=%d", f->geometry.k,
                         (unsigned long long)f->geometry.nblocks, sizes[s], percents[p], kind);
                check_forms(f, ref, kind, q, sizes[s], what);
            }
    free(q);
    free(keys);
    bloomsimd_destroy(f);
    bloomsimd_destroy(ref);
}

Test(select, forms_match_bytes_and_scalar_every_size_and_presence)
{
    bloomsimd_options small = {.bits = 512 * 3, .k = 7, .seed = 3};
    check_geometry(&small, 40);
    bloomsimd_options mid = {.capacity = 20000, .fpr = 0.01, .seed = 4, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    check_geometry(&mid, 20000);
    bloomsimd_options conc = {
        .capacity = 20000, .fpr = 0.001, .seed = 5, .flags = BLOOMSIMD_CONCURRENT, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    check_geometry(&conc, 20000);
}

Test(select, split256_forms_match_bytes_and_scalar_every_size_and_presence)
{
    bloomsimd_options small = {.bits = 256 * 3, .seed = 6, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    check_geometry(&small, 40);
    bloomsimd_options mid = {.capacity = 20000, .fpr = 0.01, .seed = 7, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    check_geometry(&mid, 20000);
    bloomsimd_options conc = {
        .capacity = 20000, .fpr = 0.001, .seed = 8, .flags = BLOOMSIMD_CONCURRENT, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    check_geometry(&conc, 20000);
}

/* block512's every k (split256's only k, 8, is the test above) */
Test(select, every_k)
{
    for (uint32_t k = 1; k <= 16; k++) {
        bloomsimd_options o = {.capacity = 3000, .k = k, .fpr = 0.01, .seed = k, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
        bloomsimd_filter *f = make(&o, test_kernel()), *ref = make(&o, "scalar");
        uint64_t *keys = test_keys(3000, 1);
        bloomsimd_add_batch_u64(f, keys, 3000);
        bloomsimd_add_batch_u64(ref, keys, 3000);
        uint64_t q[1000];
        queries(q, 1000, 50, 3000, k);
        char what[32];
        snprintf(what, sizeof what, "k=%u", k);
        for (key_kind kind = KEYS_U64; kind <= KEYS_BYTES; kind++) check_forms(f, ref, kind, q, 1000, what);
        free(keys);
        bloomsimd_destroy(f);
        bloomsimd_destroy(ref);
    }
}

Test(select, bad_byte_keys_are_absent_in_every_form)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01};
    bloomsimd_filter *f = make(&o, test_kernel());
    enum { N = 600 };
    const void *keys[N];
    size_t lens[N];
    for (size_t i = 0; i < N; i++) keys[i] = "x", lens[i] = 1;
    cr_assert_eq(bloomsimd_add(f, "x", 1), BLOOMSIMD_OK);
    keys[3] = NULL, keys[300] = NULL, keys[599] = NULL; /* NULL with len 1: bad, absent */
    keys[10] = NULL, lens[10] = 0;                        /* the empty key: valid, absent */
    uint8_t bytes[N], bitmap[(N + 7) / 8];
    uint32_t idx[N];
    cr_assert_eq(bloomsimd_contains_batch(f, keys, lens, N, bytes), N - 4);
    cr_assert_eq(bloomsimd_contains_bitmap(f, keys, lens, N, bitmap), N - 4);
    cr_assert_eq(bloomsimd_select_batch(f, keys, lens, N, idx), N - 4);
    for (size_t i = 0, j = 0; i < N; i++) {
        bool want = i != 3 && i != 300 && i != 599 && i != 10;
        cr_assert_eq(bytes[i], want);
        cr_assert_eq((bitmap[i / 8] >> (i % 8)) & 1, want);
        if (want) cr_assert_eq(idx[j++], i);
    }
    bloomsimd_destroy(f);
}

Test(select, null_and_oversized_arguments_write_nothing)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01};
    bloomsimd_filter *f = make(&o, test_kernel());
    uint64_t key = 1;
    bloomsimd_add_u64(f, key);
    uint32_t idx[2] = {7, 7};
    uint8_t bitmap[2] = {0xFF, 0xFF};
    const void *ptrs[1] = {&key};
    size_t lens[1] = {8};
    cr_assert_eq(bloomsimd_select_batch_u64(NULL, &key, 1, idx), 0);
    cr_assert_eq(bloomsimd_select_batch_u64(f, NULL, 1, idx), 0);
    cr_assert_eq(bloomsimd_select_batch_u64(f, &key, 1, NULL), 0);
    cr_assert_eq(bloomsimd_select_batch_u64(f, &key, 0, idx), 0);
    cr_assert_eq(bloomsimd_select_hashes(NULL, &key, 1, idx), 0);
    cr_assert_eq(bloomsimd_select_batch(f, NULL, lens, 1, idx), 0);
    cr_assert_eq(bloomsimd_select_batch(f, ptrs, NULL, 1, idx), 0);
    cr_assert_eq(bloomsimd_contains_bitmap_u64(f, &key, 1, NULL), 0);
    cr_assert_eq(bloomsimd_contains_bitmap_u64(NULL, &key, 1, bitmap), 0);
    cr_assert_eq(bloomsimd_contains_bitmap_hashes(f, NULL, 1, bitmap), 0);
    cr_assert_eq(bloomsimd_contains_bitmap(f, ptrs, lens, 0, bitmap), 0);
    cr_assert_eq(idx[0], 7);
    cr_assert_eq(bitmap[0], 0xFF);
#if SIZE_MAX > UINT32_MAX
    /* more keys than a uint32_t index can name: refused before anything is read */
    size_t too_many = (size_t)UINT32_MAX + 1;
    cr_assert_eq(bloomsimd_select_batch_u64(f, &key, too_many, idx), 0);
    cr_assert_eq(bloomsimd_select_hashes(f, &key, too_many, idx), 0);
    cr_assert_eq(bloomsimd_select_batch(f, ptrs, lens, too_many, idx), 0);
    cr_assert_eq(idx[0], 7);
#endif
    cr_assert_eq(bloomsimd_select_batch_u64(f, &key, 1, idx), 1);
    cr_assert_eq(idx[0], 0);
    bloomsimd_destroy(f);
}
