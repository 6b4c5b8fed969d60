/*
 * test_view.c — bloomsimd_get_view describes the filter the kernels write:
 * a key added by this run's kernel has its layout bits set in view.blocks at
 * the block and words kernels/layout.h (block512) or
 * kernels/layout_split256.h derives from the view's own fields, bits written
 * through the view are found by the kernel, and the flags (concurrent,
 * read-only mapping) are reported as they are.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include <xxhash.h>

static const uint32_t salts[16] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u, 0x2df1424bu,
                                   0x9efc4947u, 0x5c6bfb31u, 0x3c6ef373u, 0x9e3779b9u, 0x2545f491u, 0x85ebca6bu,
                                   0xc2b2ae35u, 0x27d4eb2fu, 0x165667b1u, 0xd3a2646du};

/* Words per block: 16 in block512, 8 in split256. */
static unsigned view_words(const bloomsimd_view *v) { return v->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 8 : 16; }

/* The layout's word masks and block of hash h, from the view alone: block512
 * sets the k words its selection table names, split256 all 8 (the salts are
 * the first 8 of block512's). */
static uint32_t *view_probe(const bloomsimd_view *v, uint64_t h, uint32_t mask[16])
{
    uint32_t lo = (uint32_t)h;
    unsigned words = view_words(v);
    uint16_t select = v->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 0xFFu : v->select[lo >> 26];
    for (unsigned w = 0; w < words; w++) mask[w] = (select >> w & 1u) ? 1u << ((lo * salts[w]) >> 27) : 0;
    uint64_t block = ((h >> 32) * v->nblocks) >> 32;
    return (uint32_t *)v->blocks + block * words;
}

static uint64_t hash_u64(uint64_t key, uint64_t seed)
{
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (uint8_t)(key >> (8 * i));
    return XXH3_64bits_withSeed(bytes, 8, seed);
}

Test(view, fields_match_the_filter_and_the_select_masks_have_k_bits)
{
    for (uint32_t k = 1; k <= 16; k++) {
        bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .k = k, .seed = 77 + k, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_view v;
        bloomsimd_get_info(f, &info);
        cr_assert_eq(bloomsimd_get_view(f, &v), BLOOMSIMD_OK);
        cr_assert_eq(v.nblocks, info.blocks);
        cr_assert_eq(v.k, k);
        cr_assert_eq(v.seed, info.seed);
        cr_assert_eq(v.layout, BLOOMSIMD_LAYOUT_BLOCK512);
        cr_assert(!v.concurrent && !v.read_only);
        cr_assert_eq((uintptr_t)v.blocks % 64, 0);
        for (unsigned i = 0; i < 64; i++) cr_assert_eq(__builtin_popcount(v.select[i]), (int)k, "k=%u entry %u", k, i);
        bloomsimd_destroy(f);
    }
}

/* Both layouts, and layout 0 (this kernel's default, whichever it is). */
Test(view, kernel_inserts_land_where_the_layout_says_and_view_writes_are_found)
{
    const uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256, 0};
    for (size_t l = 0; l < 3; l++) {
        bloomsimd_options o = {.capacity = 20000, .fpr = 0.01, .seed = 12345, .layout = layouts[l]};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_view v;
        cr_assert_eq(bloomsimd_get_view(f, &v), BLOOMSIMD_OK);
        cr_assert_eq(v.layout, layouts[l] ? layouts[l] : test_default_layout());
        const unsigned words = view_words(&v);
        uint64_t *keys = test_keys(20000, 3);
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 10000), BLOOMSIMD_OK);
        for (size_t i = 0; i < 10000; i++) {
            uint32_t mask[16];
            uint32_t *block = view_probe(&v, hash_u64(keys[i], v.seed), mask);
            for (unsigned w = 0; w < words; w++)
                cr_assert_eq(block[w] & mask[w], mask[w], "layout %u key %zu word %u", v.layout, i, w);
        }
        /* The other half written through the view, as a binding would. */
        for (size_t i = 10000; i < 20000; i++) {
            uint32_t mask[16];
            uint32_t *block = view_probe(&v, hash_u64(keys[i], v.seed), mask);
            for (unsigned w = 0; w < words; w++) block[w] |= mask[w];
        }
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 20000, NULL), 20000);
        /* Same bytes as a filter built by the kernel alone. */
        bloomsimd_filter *g = test_filter(&o);
        cr_assert_eq(bloomsimd_add_batch_u64(g, keys, 20000), BLOOMSIMD_OK);
        bloomsimd_view w;
        cr_assert_eq(bloomsimd_get_view(g, &w), BLOOMSIMD_OK);
        cr_assert_eq(w.nblocks, v.nblocks);
        cr_assert_eq(memcmp(v.blocks, w.blocks, v.nblocks * words * 4), 0, "layout %u", v.layout);
        free(keys);
        bloomsimd_destroy(f);
        bloomsimd_destroy(g);
    }
}

Test(view, flags_and_null_arguments)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .flags = BLOOMSIMD_CONCURRENT};
    bloomsimd_filter *f = test_filter(&o);
    bloomsimd_view v;
    memset(&v, 0xa5, sizeof v);
    bloomsimd_view untouched = v;
    cr_assert_eq(bloomsimd_get_view(NULL, &v), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(memcmp(&v, &untouched, sizeof v), 0);
    cr_assert_eq(bloomsimd_get_view(f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_get_view(f, &v), BLOOMSIMD_OK);
    cr_assert(v.concurrent && !v.read_only);

    char path[] = "/tmp/bloomsimd-view-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(bloomsimd_add_u64(f, 42), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    bloomsimd_filter *m;
    cr_assert_eq(bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
    bloomsimd_view mv;
    cr_assert_eq(bloomsimd_get_view(m, &mv), BLOOMSIMD_OK);
    cr_assert(mv.read_only && mv.concurrent);
    cr_assert_eq(mv.nblocks, v.nblocks);
    cr_assert_eq(memcmp(mv.blocks, v.blocks, v.nblocks * view_words(&v) * 4), 0);
    bloomsimd_destroy(m);
    unlink(path);
    bloomsimd_destroy(f);
}
