/*
 * test_split256_api.c — every library call on a split256 filter (layout 3):
 * the direct-access view, clone, union and intersect (and their refusal
 * across layouts), scalable filters and windows, insert-and-report-new,
 * selection vectors, estimates. The kernel's bytes are checked against
 * scalar in test_split256_differential.c; here the calls' contracts are.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layers/layers.h"
#include "support.h"

static bloomsimd_filter *split(const bloomsimd_options *base)
{
    bloomsimd_options o = *base;
    o.layout = BLOOMSIMD_LAYOUT_SPLIT256;
    bloomsimd_filter *f = test_filter(&o);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    return f;
}

Test(split256_api, view_describes_32_byte_blocks_with_no_selection_table)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .seed = 5};
    bloomsimd_filter *f = split(&o);
    bloomsimd_view v;
    cr_assert_eq(bloomsimd_get_view(f, &v), BLOOMSIMD_OK);
    cr_assert_eq(v.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(v.k, 8u);
    cr_assert_null(v.select);
    cr_assert_eq(v.seed, 5u);
    cr_assert_eq((uintptr_t)v.blocks % 64, 0);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(v.nblocks, info.blocks);
    /* a key sets one bit in each of the 8 words of one 32-byte block */
    cr_assert_eq(bloomsimd_add_u64(f, 42), BLOOMSIMD_OK);
    const uint32_t *w = v.blocks;
    unsigned blocks_touched = 0;
    for (uint64_t b = 0; b < v.nblocks; b++) {
        unsigned bits = 0;
        for (unsigned i = 0; i < 8; i++) {
            cr_assert_leq(__builtin_popcount(w[b * 8 + i]), 1);
            bits += (unsigned)__builtin_popcount(w[b * 8 + i]);
        }
        cr_assert(bits == 0 || bits == 8, "block %llu has %u bits", (unsigned long long)b, bits);
        blocks_touched += bits == 8;
    }
    cr_assert_eq(blocks_touched, 1u);
    bloomsimd_destroy(f);
}

Test(split256_api, clone_keeps_the_layout_and_answers)
{
    bloomsimd_options plain = {.capacity = 20000, .fpr = 0.01, .seed = 3};
    bloomsimd_options grown = {.capacity = 2000, .fpr = 0.01, .growth = 2};
    bloomsimd_options window = {.capacity = 2000, .fpr = 0.01, .generations = 3};
    const bloomsimd_options *cases[] = {&plain, &grown, &window};
    uint64_t *keys = test_keys(20000, 131), *absent = test_keys(20000, 132);
    for (int c = 0; c < 3; c++) {
        bloomsimd_filter *f = split(cases[c]);
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 10000, NULL, NULL), BLOOMSIMD_OK);
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_clone(&g, f), BLOOMSIMD_OK);
        bloomsimd_info a, b;
        bloomsimd_get_info(f, &a);
        bloomsimd_get_info(g, &b);
        cr_assert_eq(b.layout, BLOOMSIMD_LAYOUT_SPLIT256, "case %d", c);
        cr_assert_eq(a.blocks, b.blocks);
        cr_assert_eq(a.layers, b.layers);
        uint8_t *oa = malloc(20000), *ob = malloc(20000);
        cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, 10000, NULL), 10000u);
        cr_assert_eq(bloomsimd_contains_batch_u64(f, absent, 20000, oa), bloomsimd_contains_batch_u64(g, absent, 20000, ob));
        cr_assert(memcmp(oa, ob, 20000) == 0);
        free(oa), free(ob);
        bloomsimd_destroy(f);
        bloomsimd_destroy(g);
    }
    free(keys), free(absent);
}

Test(split256_api, union_and_intersect_need_the_same_layout)
{
    uint64_t *keys = test_keys(4000, 133);
    /* equal byte sizes: 200 split256 blocks = 100 block512 blocks = 6400 bytes */
    bloomsimd_options s = {.bits = 200 * 256, .seed = 1, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_options b = {.bits = 100 * 512, .seed = 1, .k = 8, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *s1 = test_filter(&s), *s2 = test_filter(&s), *blk = test_filter(&b);
    cr_assert_eq(bloomsimd_add_batch_u64(s1, keys, 2000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(s2, keys + 2000, 2000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(blk, keys, 2000), BLOOMSIMD_OK);
    uint8_t before[6400];
    memcpy(before, s1->geometry.words, sizeof before);
    cr_assert_eq(bloomsimd_union(s1, blk), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_str_eq(bloomsimd_last_error(), "dst has layout split256, hash 1; src has layout block512, hash 1");
    cr_assert_eq(bloomsimd_intersect(blk, s1), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert(memcmp(before, s1->geometry.words, sizeof before) == 0, "dst changed by a refused union");
    cr_assert_eq(bloomsimd_union(s1, s2), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(s1, keys, 4000, NULL), 4000u);
    cr_assert_eq(bloomsimd_intersect(s1, s2), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(s1, keys + 2000, 2000, NULL), 2000u);
    bloomsimd_destroy(s1), bloomsimd_destroy(s2), bloomsimd_destroy(blk);

    /* layered: two scalable filters that grew alike, and one of the other layout */
    bloomsimd_options g = {.capacity = 500, .fpr = 0.01, .growth = 2, .seed = 4, .k = 8};
    bloomsimd_filter *a = split(&g), *c = split(&g);
    g.layout = BLOOMSIMD_LAYOUT_BLOCK512;
    bloomsimd_filter *other = test_filter(&g);
    cr_assert_eq(bloomsimd_add_new_batch_u64(a, keys, 1200, NULL, NULL), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_batch_u64(c, keys + 1200, 1200, NULL, NULL), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_batch_u64(other, keys, 1200, NULL, NULL), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_union(a, other), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_union(a, c), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(a, keys, 2400, NULL), 2400u);
    bloomsimd_destroy(a), bloomsimd_destroy(c), bloomsimd_destroy(other);
    free(keys);
}

Test(split256_api, scalable_filter_grows_in_split256_layers)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .growth = 2, .seed = 9};
    bloomsimd_filter *f = split(&o);
    const size_t n = 20000;
    uint64_t *keys = test_keys(n, 134), *absent = test_keys(200000, 135);
    uint8_t *fresh = malloc(n);
    size_t count = 0;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, n, fresh, &count), BLOOMSIMD_OK);
    cr_assert_geq(count, n - n / 50, "most distinct keys are new (%zu of %zu)", count, n);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_geq(info.layers, 4u);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(info.bits, info.blocks * 256);
    for (uint32_t i = 0; i < info.layers; i++) {
        const bloomsimd_filter *layer = f->layers->layer[i];
        cr_assert_eq(layer->geometry.layout, BLOOMSIMD_LAYOUT_SPLIT256, "layer %u", i);
        cr_assert_eq(layer->geometry.k, 8u, "layer %u", i);
        cr_assert_null(layer->geometry.select);
    }
    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, n, NULL), n);
    for (size_t i = 0; i < n; i += 97) cr_assert(bloomsimd_contains_u64(f, keys[i]));
    /* the chain's FPR stays at its target (union bound; the model predicts it) */
    double measured = (double)bloomsimd_contains_batch_u64(f, absent, 200000, NULL) / 200000.0;
    double predicted = bloomsimd_predicted_fpr(f, count);
    cr_assert_leq(measured, 0.0115, "measured %g", measured);
    cr_assert_lt(measured / predicted, 1.25, "measured %g predicted %g", measured, predicted);
    cr_assert_gt(measured / predicted, 0.75, "measured %g predicted %g", measured, predicted);
    double est = bloomsimd_estimate_count(f);
    cr_assert_lt(est / (double)count, 1.03, "estimate %g of %zu", est, count);
    cr_assert_gt(est / (double)count, 0.97, "estimate %g of %zu", est, count);
    uint32_t idx[64];
    cr_assert_eq(bloomsimd_select_batch_u64(f, keys + 100, 64, idx), 64u);
    for (uint32_t i = 0; i < 64; i++) cr_assert_eq(idx[i], i);
    free(keys), free(absent), free(fresh);
    bloomsimd_destroy(f);
}

Test(split256_api, window_rotates_split256_generations)
{
    bloomsimd_options o = {.capacity = 3000, .fpr = 0.01, .generations = 3, .seed = 2};
    bloomsimd_filter *f = split(&o);
    uint64_t *keys = test_keys(12000, 136);
    for (int g = 0; g < 4; g++) {
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys + 3000 * g, 3000, NULL, NULL), BLOOMSIMD_OK);
        if (g < 3) cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    }
    /* generations 1..3 are live; generation 0 rotated out */
    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys + 3000, 9000, NULL), 9000u);
    size_t old = bloomsimd_contains_batch_u64(f, keys, 3000, NULL);
    cr_assert_lt(old, 150u, "the dropped generation still answers %zu of 3000", old);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(info.generations, 3u);
    cr_assert_eq(info.k, 8u);
    free(keys);
    bloomsimd_destroy(f);
}
