/*
 * support_samples.c — one sample filter of each kind with keys in it, and
 * the checks that two filters are the same filter, for the suites that
 * restore, copy or stream filters.
 */
#include "support_samples.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

const char *const test_kind_names[TEST_KINDS] = {"plain", "scalable", "window"};

bloomsimd_filter *test_sample(int kind, const char *kernel, uint32_t flags)
{
    bloomsimd_options o = {.seed = 1000 + (uint64_t)kind, .flags = flags, .kernel = kernel};
    uint64_t *keys = test_keys(TEST_SAMPLE_KEYS, TEST_SAMPLE_STREAM);
    bloomsimd_filter *f;
    if (kind == 0) {
        o.capacity = 3000, o.fpr = 0.01;
        f = test_filter(&o);
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, TEST_SAMPLE_KEYS, NULL, NULL), BLOOMSIMD_OK);
    } else if (kind == 1) {
        /* 2500 new keys into layers of 200, 400, 800, 1600: four layers */
        o.capacity = 200, o.fpr = 0.01, o.growth = 2, o.tightening = 0.7;
        f = test_filter(&o);
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, TEST_SAMPLE_KEYS, NULL, NULL), BLOOMSIMD_OK);
    } else {
        /* 3 generations of 300 keys, rotated 5 times: generations of different ages and counts */
        o.capacity = 300, o.fpr = 0.01, o.generations = 3;
        f = test_filter(&o);
        for (int r = 0; r < 6; r++) {
            cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys + 400 * r, 400, NULL, NULL), BLOOMSIMD_OK);
            if (r < 5) cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
        }
    }
    free(keys);
    return f;
}

uint8_t *test_serialize(const bloomsimd_filter *f, size_t *len)
{
    *len = bloomsimd_serialized_size(f);
    cr_assert_gt(*len, 0);
    uint8_t *buf = malloc(*len);
    cr_assert_not_null(buf);
    size_t written = 0;
    cr_assert_eq(bloomsimd_serialize(f, buf, *len, &written), BLOOMSIMD_OK);
    cr_assert_eq(written, *len);
    return buf;
}

void test_assert_same_answers(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    size_t n = TEST_SAMPLE_KEYS + 20000;
    uint64_t *keys = malloc(n * sizeof *keys);
    cr_assert_not_null(keys);
    for (size_t i = 0; i < TEST_SAMPLE_KEYS; i++) keys[i] = test_key(TEST_SAMPLE_STREAM, i);
    for (size_t i = TEST_SAMPLE_KEYS; i < n; i++) keys[i] = test_key(TEST_SAMPLE_STREAM + 1, i);
    uint8_t *ra = malloc(n), *rb = malloc(n);
    cr_assert(ra && rb);
    size_t ha = bloomsimd_contains_batch_u64(a, keys, n, ra), hb = bloomsimd_contains_batch_u64(b, keys, n, rb);
    cr_assert_eq(ha, hb, "%s: %zu vs %zu hits", what, ha, hb);
    cr_assert(memcmp(ra, rb, n) == 0, "%s: answers differ", what);
    cr_assert_gt(ha, 0, "%s: no key found at all", what);
    for (size_t i = 0; i < 50; i++) {
        cr_assert_eq(bloomsimd_contains_u64(a, keys[i * 401]), bloomsimd_contains_u64(b, keys[i * 401]), "%s", what);
        cr_assert_eq(bloomsimd_contains(a, &keys[i * 401], 8), bloomsimd_contains(b, &keys[i * 401], 8), "%s", what);
    }
    free(keys);
    free(ra);
    free(rb);
}

void test_assert_same_filter(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    test_assert_same_answers(a, b, what);
    bloomsimd_info x, y;
    bloomsimd_get_info(a, &x);
    bloomsimd_get_info(b, &y);
    cr_assert_eq(x.layout, y.layout, "%s", what);
    cr_assert_eq(x.layers, y.layers, "%s", what);
    cr_assert_eq(x.items, y.items, "%s", what);
    cr_assert_eq(x.blocks, y.blocks, "%s", what);
    cr_assert_eq(x.k, y.k, "%s", what);
    cr_assert_eq(x.seed, y.seed, "%s", what);
    cr_assert_eq(x.flags, y.flags, "%s", what);
    cr_assert_eq(x.rotations, y.rotations, "%s", what);
    /* the serialized bytes cover every layer's bits, counters and ages */
    size_t la, lb;
    uint8_t *sa = test_serialize(a, &la), *sb = test_serialize(b, &lb);
    cr_assert_eq(la, lb, "%s", what);
    cr_assert(memcmp(sa, sb, la) == 0, "%s: serialized bytes differ", what);
    free(sa);
    free(sb);
}
