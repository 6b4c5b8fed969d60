/*
 * test_keys_api.c — the bloomsimd_keys calls: bad views are refused with
 * BLOOMSIMD_ERR_INVALID_ARGUMENT before anything is inserted or written;
 * every layout inserts exactly what the pointer API inserts (same filter
 * bytes, on this run's kernel and on scalar); no false negatives.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "internal.h"
#include "support.h"

/* layout 0: this kernel's default (the scalar kernel's may differ, so a
 * comparison with scalar names the layout) */
static bloomsimd_filter *make_in(const char *kernel, uint32_t layout)
{
    bloomsimd_options o = {.capacity = 20000, .fpr = 0.01, .seed = 5, .kernel = kernel, .layout = layout};
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_OK);
    return f;
}

static bloomsimd_filter *make(const char *kernel) { return make_in(kernel, 0); }

static bool is_empty(const bloomsimd_filter *f)
{
    const uint8_t *b = (const uint8_t *)f->geometry.words;
    for (size_t i = 0; i < bloomsimd_filter_bytes(f); i++)
        if (b[i]) return false;
    return true;
}

Test(keys_api, bad_views_are_refused_and_change_nothing)
{
    bloomsimd_filter *f = make(NULL);
    const uint8_t data[64] = {1, 2, 3};
    uint32_t non_monotonic[4] = {0, 5, 3, 8};
    uint32_t beyond[4] = {0, 5, 10, 65};
    uint64_t beyond64[4] = {0, 5, 10, UINT64_C(1) << 40};
    uint8_t out[3] = {7, 7, 7};
    uint64_t hashes[3] = {9, 9, 9};
    bloomsimd_keys bad[] = {
        bloomsimd_keys_offsets32(data, sizeof data, non_monotonic, 3),
        bloomsimd_keys_offsets32(data, sizeof data, beyond, 3),
        bloomsimd_keys_offsets64(data, sizeof data, beyond64, 3),
        bloomsimd_keys_offsets32(data, sizeof data, NULL, 3),
        bloomsimd_keys_offsets32(NULL, 0, beyond, 1),          /* a 5-byte key with no data */
        bloomsimd_keys_fixed(data, sizeof data, 16, 5),          /* 80 bytes > 64 */
        bloomsimd_keys_fixed(data, sizeof data, SIZE_MAX / 2, 3), /* overflow */
        bloomsimd_keys_fixed(NULL, 0, 4, 1),
        bloomsimd_keys_pointers(NULL, NULL, 2),
    };
    const void *ptrs[2] = {data, NULL};
    size_t lens[2] = {3, 1}; /* a NULL key with a length */
    bloomsimd_keys null_key = bloomsimd_keys_pointers(ptrs, lens, 2);
    for (size_t i = 0; i <= sizeof bad / sizeof bad[0]; i++) {
        const bloomsimd_keys *v = i < sizeof bad / sizeof bad[0] ? &bad[i] : &null_key;
        cr_assert_eq(bloomsimd_add_keys(f, v), BLOOMSIMD_ERR_INVALID_ARGUMENT, "view %zu", i);
        size_t hits = 42;
        cr_assert_eq(bloomsimd_contains_keys(f, v, out, &hits), BLOOMSIMD_ERR_INVALID_ARGUMENT, "view %zu", i);
        cr_assert_eq(bloomsimd_hash_keys(f, v, hashes), BLOOMSIMD_ERR_INVALID_ARGUMENT, "view %zu", i);
        cr_assert(out[0] == 7 && out[1] == 7 && out[2] == 7 && hits == 42, "view %zu wrote output", i);
        cr_assert(hashes[0] == 9 && hashes[2] == 9, "view %zu wrote hashes", i);
        cr_assert(is_empty(f), "view %zu inserted something", i);
    }
    cr_assert_eq(bloomsimd_add_keys(f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_keys(NULL, &null_key), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_hash_keys(f, &bad[0], NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    /* valid edge cases: no keys; empty keys with no data; width 0 */
    uint32_t empty_offsets[3] = {0, 0, 0};
    bloomsimd_keys ok[] = {bloomsimd_keys_offsets32(NULL, 0, NULL, 0), bloomsimd_keys_offsets32(NULL, 0, empty_offsets, 2),
                           bloomsimd_keys_fixed(NULL, 0, 0, 3)};
    for (size_t i = 0; i < 3; i++) cr_assert_eq(bloomsimd_contains_keys(f, &ok[i], out, NULL), BLOOMSIMD_OK, "ok %zu", i);
    bloomsimd_destroy(f);
}

/* Views without data are valid when every key is empty (offsets all 0,
 * within data_len 0; width 0): each hash is XXH3 of the empty key, on this
 * run's kernel, and no kernel forms NULL + 0 (src/keys.c). */
Test(keys_api, views_without_data_hash_every_key_as_empty)
{
    bloomsimd_filter *f = make(NULL);
    enum { N = 37 };
    uint32_t off32[N + 1];
    uint64_t off64[N + 1];
    for (size_t i = 0; i <= N; i++) off32[i] = 0, off64[i] = 0;
    bloomsimd_keys views[] = {bloomsimd_keys_offsets32(NULL, 0, off32, N), bloomsimd_keys_offsets64(NULL, 0, off64, N),
                              bloomsimd_keys_fixed(NULL, 0, 0, N)};
    uint64_t empty = XXH3_64bits_withSeed("", 0, 5);
    for (size_t v = 0; v < 3; v++) {
        uint64_t hashes[N];
        memset(hashes, 0, sizeof hashes);
        cr_assert_eq(bloomsimd_hash_keys(f, &views[v], hashes), BLOOMSIMD_OK, "view %zu", v);
        for (size_t i = 0; i < N; i++) cr_assert_eq(hashes[i], empty, "view %zu key %zu", v, i);
        cr_assert_eq(bloomsimd_add_keys(f, &views[v]), BLOOMSIMD_OK);
        uint8_t out[N];
        size_t hits = 0;
        cr_assert_eq(bloomsimd_contains_keys(f, &views[v], out, &hits), BLOOMSIMD_OK);
        cr_assert_eq(hits, N, "view %zu", v);
    }
    bloomsimd_destroy(f);
}

Test(keys_api, read_only_filters_refuse_inserts)
{
    bloomsimd_filter *f = make(NULL);
    f->read_only = true;
    uint8_t data[8] = {0};
    bloomsimd_keys v = bloomsimd_keys_fixed(data, 8, 8, 1);
    cr_assert_eq(bloomsimd_add_keys(f, &v), BLOOMSIMD_ERR_READ_ONLY);
    f->read_only = false;
    bloomsimd_destroy(f);
}

static void every_view_inserts_what_the_pointer_api_inserts(uint32_t layout)
{
    enum { N = 20000 };
    uint8_t *data = malloc(N * 64);
    uint64_t state = 11;
    for (size_t i = 0; i < N * 64; i += 8) {
        uint64_t r = test_splitmix64(&state);
        memcpy(data + i, &r, 8);
    }
    uint32_t *off32 = malloc((N + 1) * 4);
    uint64_t *off64 = malloc((N + 1) * 8);
    const void **ptrs = malloc(N * sizeof *ptrs);
    size_t *lens = malloc(N * sizeof *lens);
    off32[0] = 0;
    for (size_t i = 0; i < N; i++) {
        size_t len = 1 + (size_t)(test_splitmix64(&state) % 63);
        off32[i + 1] = off32[i] + (uint32_t)len;
        off64[i + 1] = off32[i + 1];
        ptrs[i] = data + off32[i];
        lens[i] = len;
    }
    off64[0] = 0;
    bloomsimd_keys views[] = {bloomsimd_keys_offsets32(data, N * 64, off32, N),
                              bloomsimd_keys_offsets64(data, N * 64, off64, N),
                              bloomsimd_keys_pointers(ptrs, lens, N)};
    bloomsimd_filter *reference = make_in("scalar", layout);
    cr_assert_eq(bloomsimd_add_batch(reference, ptrs, lens, N), BLOOMSIMD_OK);
    for (size_t v = 0; v < 3; v++) {
        bloomsimd_filter *f = make_in(NULL, layout);
        cr_assert_eq(bloomsimd_filter_bytes(f), bloomsimd_filter_bytes(reference));
        cr_assert_eq(bloomsimd_add_keys(f, &views[v]), BLOOMSIMD_OK);
        cr_assert(memcmp(f->geometry.words, reference->geometry.words, bloomsimd_filter_bytes(f)) == 0,
                  "%s, key layout %zu: bytes differ from the scalar pointer-API filter", bloomsimd_layout_name(layout), v);
        uint8_t *out = malloc(N);
        size_t hits = 0;
        cr_assert_eq(bloomsimd_contains_keys(f, &views[v], out, &hits), BLOOMSIMD_OK);
        cr_assert_eq(hits, N, "false negatives in key layout %zu", v);
        for (size_t i = 0; i < N; i++) cr_assert_eq(out[i], 1);
        free(out);
        bloomsimd_destroy(f);
    }
    /* fixed width: every width 1..64, as the pointer form of the same keys */
    for (size_t width = 1; width <= 64; width += 7) {
        size_t n = N * 64 / width < N ? N * 64 / width : N;
        bloomsimd_filter *f = make_in(NULL, layout), *g = make_in("scalar", layout);
        bloomsimd_keys fv = bloomsimd_keys_fixed(data, N * 64, width, n);
        for (size_t i = 0; i < n; i++) ptrs[i] = data + i * width, lens[i] = width;
        cr_assert_eq(bloomsimd_add_keys(f, &fv), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch(g, ptrs, lens, n), BLOOMSIMD_OK);
        cr_assert(memcmp(f->geometry.words, g->geometry.words, bloomsimd_filter_bytes(f)) == 0, "%s, width %zu",
                  bloomsimd_layout_name(layout), width);
        size_t hits = 0;
        cr_assert_eq(bloomsimd_contains_keys(f, &fv, NULL, &hits), BLOOMSIMD_OK);
        cr_assert_eq(hits, n);
        bloomsimd_destroy(f);
        bloomsimd_destroy(g);
    }
    bloomsimd_destroy(reference);
    free(data), free(off32), free(off64), free(ptrs), free(lens);
}

/* Both block layouts, each against the scalar kernel in the same layout. */
Test(keys_api, every_layout_inserts_what_the_pointer_api_inserts_on_this_kernel_and_scalar)
{
    every_view_inserts_what_the_pointer_api_inserts(BLOOMSIMD_LAYOUT_BLOCK512);
    every_view_inserts_what_the_pointer_api_inserts(BLOOMSIMD_LAYOUT_SPLIT256);
}

static void add_new_and_select_match(uint32_t layout)
{
    enum { N = 5000 };
    uint8_t data[N * 16];
    uint64_t state = 21;
    for (size_t i = 0; i < sizeof data; i += 8) {
        uint64_t r = test_splitmix64(&state);
        memcpy(data + i, &r, 8);
    }
    /* 16-byte keys with repeats: every 4th key repeats an earlier one */
    for (size_t i = 4; i < N; i += 4) memcpy(data + 16 * i, data + 16 * (i / 3), 16);
    const void *ptrs[N];
    size_t lens[N];
    for (size_t i = 0; i < N; i++) ptrs[i] = data + 16 * i, lens[i] = 16;
    bloomsimd_keys fixed = bloomsimd_keys_fixed(data, sizeof data, 16, N);
    bloomsimd_filter *a = make_in(NULL, layout), *b = make_in("scalar", layout);
    static uint8_t out_a[N], out_b[N];
    size_t new_a = 0, new_b = 0;
    cr_assert_eq(bloomsimd_add_new_keys(a, &fixed, out_a, &new_a), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_batch(b, ptrs, lens, N, out_b, &new_b), BLOOMSIMD_OK);
    cr_assert_eq(new_a, new_b);
    cr_assert(memcmp(out_a, out_b, N) == 0, "new flags differ");
    cr_assert(new_a < N, "repeats must not be new");
    cr_assert(memcmp(a->geometry.words, b->geometry.words, bloomsimd_filter_bytes(a)) == 0);
    /* select: present keys of an interleaved batch */
    uint8_t probe[N * 16];
    for (size_t i = 0; i < N; i++) {
        if (i % 3 == 0) {
            memcpy(probe + 16 * i, data + 16 * i, 16);
        } else {
            uint64_t r[2] = {test_splitmix64(&state), test_splitmix64(&state)};
            memcpy(probe + 16 * i, r, 16);
        }
        ptrs[i] = probe + 16 * i;
    }
    bloomsimd_keys pv = bloomsimd_keys_fixed(probe, sizeof probe, 16, N);
    static uint32_t sel_a[N], sel_b[N];
    size_t count_a = 0;
    cr_assert_eq(bloomsimd_select_keys(a, &pv, sel_a, &count_a), BLOOMSIMD_OK);
    size_t count_b = bloomsimd_select_batch(b, ptrs, lens, N, sel_b);
    cr_assert_eq(count_a, count_b);
    cr_assert(memcmp(sel_a, sel_b, count_a * 4) == 0, "selection vectors differ");
    for (size_t i = 0, j = 0; i < N; i += 3) { /* every present key is selected */
        while (j < count_a && sel_a[j] < i) j++;
        cr_assert(j < count_a && sel_a[j] == i, "present key %zu not selected", i);
    }
    /* bad views write nothing */
    uint32_t bad_offsets[3] = {0, 9, 3};
    bloomsimd_keys bad = bloomsimd_keys_offsets32(data, sizeof data, bad_offsets, 2);
    size_t c = 77;
    cr_assert_eq(bloomsimd_select_keys(a, &bad, sel_a, &c), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(c, 77);
    cr_assert_eq(bloomsimd_add_new_keys(a, &bad, out_a, &c), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(c, 0);
    bloomsimd_destroy(a);
    bloomsimd_destroy(b);
}

Test(keys_api, add_new_and_select_match_the_pointer_forms)
{
    add_new_and_select_match(BLOOMSIMD_LAYOUT_BLOCK512);
    add_new_and_select_match(BLOOMSIMD_LAYOUT_SPLIT256);
}
