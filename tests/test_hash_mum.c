/*
 * test_hash_mum.c — hash 3 (BLOOMSIMD_U64_MUM): 64-bit keys by one
 * 64x64 -> 128-bit multiply (kernels/layout.h section 1).
 *
 *   - the library's hash equals tests/fixtures/hash_vectors.txt, computed by
 *     an independent implementation (gen_hash_vectors.py, Python integers);
 *   - every call shape agrees on every layout, plain and concurrent: the
 *     batch, single keys, hash-then-probe, insert-and-report-new, the three
 *     hit forms, and the scalar reference's bytes;
 *   - byte keys are XXH3 as on hash 1, and a 64-bit key is not its 8 bytes;
 *   - files record hash 3, load, map and answer the same; scalable filters
 *     and windows keep it in every layer; set operations refuse to mix it
 *     with hash 1.
 * The FPR on structured keys is tests/test_hash_quality.c's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "internal.h"
#include "layout.h"
#include "support.h"

static const uint32_t layouts[2] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};

static bloomsimd_filter *mum_filter(uint64_t capacity, uint32_t layout, uint32_t flags, uint64_t seed,
                                    const char *kernel)
{
    bloomsimd_options o = {.capacity = capacity, .fpr = 0.01, .layout = layout, .seed = seed,
                           .flags = BLOOMSIMD_U64_MUM | flags, .kernel = kernel};
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    return f;
}

Test(hash_mum, hashes_equal_the_independent_vectors)
{
    char *path = test_fixture_path("hash_vectors.txt");
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in, "%s", path);
    char line[256];
    unsigned rows = 0;
    while (fgets(line, sizeof line, in)) {
        unsigned id;
        unsigned long long seed, key, want;
        if (line[0] == '#' || strncmp(line, "probe ", 6) == 0) continue; /* probes: test_probe_constants.c */
        cr_assert_eq(sscanf(line, "hash %u %llx %llx %llx", &id, &seed, &key, &want), 4, "bad line: %s", line);
        if (id != BLOOMSIMD_HASH_MUM) continue;
        bloomsimd_filter *f = mum_filter(100, 0, 0, seed, test_kernel());
        uint64_t got;
        uint64_t k = key;
        bloomsimd_hash_batch_u64(f, &k, 1, &got);
        cr_assert_eq(got, want, "seed %llx key %llx: %llx, want %llx", seed, key, (unsigned long long)got, want);
        cr_assert_eq(bloomsimd_mum_u64(key, f->geometry.mum_a, f->geometry.mum_b), want);
        bloomsimd_destroy(f);
        rows++;
    }
    fclose(in);
    free(path);
    cr_assert_geq(rows, 60u, "only %u hash-3 vectors read", rows);
}

Test(hash_mum, portable_product_equals_the_int128_one)
{
    /* the schoolbook fallback of bloomsimd_mum_u64, written out: the same bits */
    uint64_t s = 7;
    for (int i = 0; i < 100000; i++) {
        uint64_t key = test_splitmix64(&s), a = test_splitmix64(&s), b = test_splitmix64(&s);
        uint64_t x = key ^ a, y = __builtin_bswap64(key) ^ b;
        uint64_t xl = (uint32_t)x, xh = x >> 32, yl = (uint32_t)y, yh = y >> 32;
        uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
        uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
        uint64_t lo = (mid << 32) | (uint32_t)ll, hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
        uint64_t h = (lo ^ hi) * UINT64_C(0x9E3779B97F4A7C15);
        cr_assert_eq(bloomsimd_mum_u64(key, a, b), h ^ (h >> 32), "key %llx", (unsigned long long)key);
    }
}

/* Every call shape on one kernel and layout leaves the scalar reference's bytes and answers. */
static void shapes_agree(uint32_t layout, uint32_t flags)
{
    const size_t n = 20011, q = 30011;
    uint64_t *keys = test_keys(n, 301), *absent = test_keys(q, 302), *hashes = malloc(n * sizeof *hashes);
    bloomsimd_filter *batch = mum_filter(n, layout, flags, 99, test_kernel());
    bloomsimd_filter *single = mum_filter(n, layout, flags, 99, test_kernel());
    bloomsimd_filter *hashed = mum_filter(n, layout, flags, 99, test_kernel());
    bloomsimd_filter *fresh = mum_filter(n, layout, flags, 99, test_kernel());
    bloomsimd_filter *ref = mum_filter(n, layout, flags, 99, "scalar");
    cr_assert_eq(bloomsimd_add_batch_u64(batch, keys, n), BLOOMSIMD_OK);
    for (size_t i = 0; i < n; i++) cr_assert_eq(bloomsimd_add_u64(single, keys[i]), BLOOMSIMD_OK);
    bloomsimd_hash_batch_u64(hashed, keys, n, hashes);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(hashes[i], bloomsimd_mum_u64(keys[i], hashed->geometry.mum_a, hashed->geometry.mum_b));
    cr_assert_eq(bloomsimd_add_hashes(hashed, hashes, n), BLOOMSIMD_OK);
    uint8_t *is_new = malloc(n);
    size_t new_count = 0;
    cr_assert_eq(bloomsimd_add_new_batch_u64(fresh, keys, n, is_new, &new_count), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(ref, keys, n), BLOOMSIMD_OK);
    size_t bytes = bloomsimd_filter_bytes(ref);
    cr_assert(memcmp(batch->geometry.words, ref->geometry.words, bytes) == 0, "batch bytes differ from scalar");
    cr_assert(memcmp(single->geometry.words, ref->geometry.words, bytes) == 0, "single-key bytes differ");
    cr_assert(memcmp(hashed->geometry.words, ref->geometry.words, bytes) == 0, "hash-then-add bytes differ");
    cr_assert(memcmp(fresh->geometry.words, ref->geometry.words, bytes) == 0, "add_new bytes differ");
    cr_assert_gt(new_count, n - n / 50, "add_new called %zu of %zu distinct keys new", new_count, n);

    /* lookups: present keys all found; absent keys answer alike in every form */
    uint8_t *out = malloc(q), *want = malloc(q), *bitmap = calloc((q + 7) / 8, 1);
    uint32_t *indices = malloc(q * sizeof *indices);
    cr_assert_eq(bloomsimd_contains_batch_u64(batch, keys, n, NULL), n, "false negatives");
    size_t fp = bloomsimd_contains_batch_u64(ref, absent, q, want);
    cr_assert_eq(bloomsimd_contains_batch_u64(batch, absent, q, out), fp);
    cr_assert(memcmp(out, want, q) == 0);
    cr_assert_eq(bloomsimd_contains_bitmap_u64(batch, absent, q, bitmap), fp);
    cr_assert_eq(bloomsimd_select_batch_u64(batch, absent, q, indices), fp);
    size_t next = 0;
    for (size_t i = 0; i < q; i++) {
        cr_assert_eq((bitmap[i / 8] >> (i % 8)) & 1, want[i], "bitmap at %zu", i);
        cr_assert_eq(bloomsimd_contains_u64(batch, absent[i]), want[i] != 0, "single lookup at %zu", i);
        if (want[i]) cr_assert_eq(indices[next++], (uint32_t)i);
    }
    cr_assert_lt(fp, q / 25, "FPR %zu of %zu at a 1%% target", fp, q);
    free(keys), free(absent), free(hashes), free(is_new), free(out), free(want), free(bitmap), free(indices);
    bloomsimd_destroy(batch), bloomsimd_destroy(single), bloomsimd_destroy(hashed), bloomsimd_destroy(fresh);
    bloomsimd_destroy(ref);
}

Test(hash_mum, every_call_shape_sets_the_scalar_bytes)
{
    for (int l = 0; l < 2; l++) {
        shapes_agree(layouts[l], 0);
        shapes_agree(layouts[l], BLOOMSIMD_CONCURRENT);
    }
}

Test(hash_mum, byte_keys_stay_xxh3_and_a_u64_key_is_not_its_bytes)
{
    bloomsimd_filter *f = mum_filter(1000, 0, 0, 5, test_kernel());
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.flags, BLOOMSIMD_U64_MUM);
    const char *url = "https://example.com/";
    cr_assert_eq(bloomsimd_hash(f, url, strlen(url)), XXH3_64bits_withSeed(url, strlen(url), 5));
    uint64_t key = 42, h;
    bloomsimd_hash_batch_u64(f, &key, 1, &h);
    cr_assert_neq(h, XXH3_64bits_withSeed(&key, 8, 5), "mum must differ from the 8 bytes' XXH3");
    bloomsimd_destroy(f);
    /* and a default filter still hashes a 64-bit key as its 8 bytes */
    bloomsimd_options o = {.capacity = 1000, .seed = 5};
    bloomsimd_filter *d = test_filter(&o);
    bloomsimd_hash_batch_u64(d, &key, 1, &h);
    cr_assert_eq(h, XXH3_64bits_withSeed(&key, 8, 5));
    bloomsimd_get_info(d, &info);
    cr_assert_eq(info.flags, BLOOMSIMD_U64_XXH3);
    bloomsimd_destroy(d);
}

Test(hash_mum, files_record_hash_three_and_answer_the_same)
{
    const size_t n = 5000;
    uint64_t *keys = test_keys(n, 311), *absent = test_keys(n, 312);
    for (int l = 0; l < 2; l++) {
        bloomsimd_filter *f = mum_filter(n, layouts[l], 0, 1234, test_kernel());
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
        size_t len = bloomsimd_serialized_size(f), written;
        uint8_t *buf = malloc(len);
        cr_assert_eq(bloomsimd_serialize(f, buf, len, &written), BLOOMSIMD_OK);
        cr_assert_eq(buf[20], BLOOMSIMD_HASH_MUM, "the header's hash_id");
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        bloomsimd_info info;
        bloomsimd_get_info(g, &info);
        cr_assert_eq(info.flags & BLOOMSIMD_U64_MUM, BLOOMSIMD_U64_MUM);
        cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, n, NULL), n);
        uint8_t *a = malloc(n), *b = malloc(n);
        cr_assert_eq(bloomsimd_contains_batch_u64(g, absent, n, a), bloomsimd_contains_batch_u64(f, absent, n, b));
        cr_assert(memcmp(a, b, n) == 0);
        /* the view promises XXH3: a mum filter has none, bindings take the C calls */
        bloomsimd_view v;
        cr_assert_eq(bloomsimd_get_view(g, &v), BLOOMSIMD_ERR_INVALID_ARGUMENT);
        /* unions keep one hash */
        bloomsimd_options o = {.capacity = n, .layout = layouts[l], .seed = 1234};
        bloomsimd_filter *x = test_filter(&o);
        cr_assert_eq(bloomsimd_union(x, g), BLOOMSIMD_ERR_INCOMPATIBLE);
        bloomsimd_filter *y = mum_filter(n, layouts[l], 0, 1234, test_kernel());
        cr_assert_eq(bloomsimd_union(y, g), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        cr_assert_eq(bloomsimd_contains_batch_u64(y, keys, n, NULL), n);
        free(buf), free(a), free(b);
        bloomsimd_destroy(f), bloomsimd_destroy(g), bloomsimd_destroy(x), bloomsimd_destroy(y);
    }
    free(keys), free(absent);
}

Test(hash_mum, layered_filters_keep_it_in_every_layer)
{
    const size_t n = 40000;
    uint64_t *keys = test_keys(n, 321);
    bloomsimd_options grow = {.capacity = 1000, .fpr = 0.01, .growth = 2, .flags = BLOOMSIMD_U64_MUM};
    bloomsimd_options win = {.capacity = n, .fpr = 0.01, .generations = 3, .flags = BLOOMSIMD_U64_MUM};
    bloomsimd_options *opts[2] = {&grow, &win};
    for (int i = 0; i < 2; i++) {
        bloomsimd_filter *f = test_filter(opts[i]);
        size_t fresh = 0;
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, n / 2, NULL, &fresh), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys + n / 2, n / 2), BLOOMSIMD_OK);
        for (size_t j = 0; j < 100; j++) cr_assert(bloomsimd_contains_u64(f, keys[j * (n / 100)]));
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, n, NULL), n, "false negatives, %s", i ? "window" : "scalable");
        /* the hashes path finds them too: the layers hash with mum */
        uint64_t h[64];
        bloomsimd_hash_batch_u64(f, keys, 64, h);
        cr_assert_eq(bloomsimd_contains_hashes(f, h, 64, NULL), 64u);
        size_t len = bloomsimd_serialized_size(f), written;
        uint8_t *buf = malloc(len);
        cr_assert_eq(bloomsimd_serialize(f, buf, len, &written), BLOOMSIMD_OK);
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, n, NULL), n);
        free(buf);
        bloomsimd_destroy(f), bloomsimd_destroy(g);
    }
    free(keys);
}
