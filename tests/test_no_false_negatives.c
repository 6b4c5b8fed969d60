/*
 * test_no_false_negatives.c — every inserted key is found, over several
 * geometries of both layouts, through every insert and lookup path and
 * batch size.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const size_t batch_sizes[] = {0, 1, 7, 8, 9, 63, 64, 65, 100003};

#define B512 BLOOMSIMD_LAYOUT_BLOCK512
#define S256 BLOOMSIMD_LAYOUT_SPLIT256
static const bloomsimd_options geometries[] = {
    {.capacity = 1000000, .fpr = 0.01, .layout = B512},
    {.capacity = 100000, .fpr = 0.1, .layout = B512},   /* overfilled 10x below: heavy load */
    {.capacity = 1000000, .fpr = 1e-6, .layout = B512}, /* large k */
    {.capacity = 1000000, .fpr = 0.01, .layout = S256},
    {.capacity = 100000, .fpr = 0.1, .layout = S256},   /* overfilled 10x below */
    {.bits = 512, .k = 16},                             /* a single block */
    {.bits = 256, .layout = S256},                      /* a single split256 block */
    {.capacity = 2000000, .fpr = 0.001, .k = 1},
};
#undef B512
#undef S256
/* geometries[0 .. BYTE_GEOMETRIES - 1] also take the byte keys */
#define BYTE_GEOMETRIES 5

Test(no_false_negatives, a_million_u64_keys_batch_and_single_paths)
{
    const size_t n = 1000000;
    uint64_t *keys = test_keys(n, 41);
    uint8_t *out = malloc(n);
    for (size_t g = 0; g < sizeof geometries / sizeof geometries[0]; g++) {
        bloomsimd_filter *f = test_filter(&geometries[g]);
        /* insert in chunks of every batch size in turn */
        size_t done = 0;
        for (size_t b = 0; done < n; b = (b + 1) % 9) {
            size_t take = batch_sizes[b] < n - done ? batch_sizes[b] : n - done;
            cr_assert_eq(bloomsimd_add_batch_u64(f, keys + done, take), BLOOMSIMD_OK);
            done += take;
        }
        memset(out, 0, n);
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, n, out), n, "geometry %zu", g);
        for (size_t i = 0; i < n; i++) cr_assert_eq(out[i], 1, "geometry %zu key %zu", g, i);
        for (size_t i = 0; i < n; i += 97) cr_assert(bloomsimd_contains_u64(f, keys[i]));
        /* and lookups in every batch size */
        for (size_t b = 0; b < 9; b++)
            cr_assert_eq(bloomsimd_contains_batch_u64(f, keys + 5, batch_sizes[b], NULL), batch_sizes[b]);
        bloomsimd_destroy(f);
    }
    /* single-key inserts, batch lookups, in both layouts */
    for (size_t g = 0; g < 4; g += 3) {
        bloomsimd_filter *f = test_filter(&geometries[g]);
        for (size_t i = 0; i < 100000; i++) cr_assert_eq(bloomsimd_add_u64(f, keys[i]), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 100000, NULL), 100000, "geometry %zu", g);
        bloomsimd_destroy(f);
    }
    free(keys), free(out);
}

Test(no_false_negatives, byte_keys_of_lengths_0_to_300_and_one_of_1_MiB)
{
    const size_t n = 100000;
    unsigned char *arena = malloc(n * 301);
    const void **keys = malloc((n + 1) * sizeof *keys);
    size_t *lens = malloc((n + 1) * sizeof *lens);
    uint64_t state = 42;
    for (size_t i = 0; i < n; i++) {
        lens[i] = i % 301;
        unsigned char *p = arena + i * 301;
        for (size_t j = 0; j < lens[i]; j++) p[j] = (unsigned char)test_splitmix64(&state);
        /* make keys distinct even when short: a prefix of the index */
        if (lens[i] >= 4) memcpy(p, &i, 4);
        keys[i] = p;
    }
    unsigned char *big = malloc(1u << 20);
    for (size_t j = 0; j < (1u << 20); j++) big[j] = (unsigned char)(j * 131u);
    keys[n] = big, lens[n] = 1u << 20;

    for (size_t g = 0; g < BYTE_GEOMETRIES; g++) {
        bloomsimd_filter *f = test_filter(&geometries[g]);
        size_t done = 0;
        for (size_t b = 0; done < n + 1; b = (b + 1) % 9) {
            size_t take = batch_sizes[b] < n + 1 - done ? batch_sizes[b] : n + 1 - done;
            cr_assert_eq(bloomsimd_add_batch(f, keys + done, lens + done, take), BLOOMSIMD_OK);
            done += take;
        }
        uint8_t *out = malloc(n + 1);
        cr_assert_eq(bloomsimd_contains_batch(f, keys, lens, n + 1, out), n + 1);
        for (size_t i = 0; i <= n; i += 13) cr_assert(bloomsimd_contains(f, keys[i], lens[i]), "key %zu", i);
        cr_assert(bloomsimd_contains(f, big, 1u << 20));
        free(out);
        bloomsimd_destroy(f);
    }
    /* single-key inserts of the same keys, in both layouts */
    for (size_t g = 0; g < 4; g += 3) {
        bloomsimd_filter *f = test_filter(&geometries[g]);
        for (size_t i = 0; i <= n; i++) cr_assert_eq(bloomsimd_add(f, keys[i], lens[i]), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_batch(f, keys, lens, n + 1, NULL), n + 1, "geometry %zu", g);
        bloomsimd_destroy(f);
    }
    free(arena), free(keys), free(lens), free(big);
}

Test(no_false_negatives, precomputed_hash_paths)
{
    const size_t n = 200000;
    uint64_t *keys = test_keys(n, 43), *hashes = malloc(n * sizeof *hashes);
    const uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    for (size_t l = 0; l < 2; l++) {
        bloomsimd_options o = {.capacity = n, .fpr = 0.02, .layout = layouts[l]};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_hash_batch_u64(f, keys, n, hashes);
        cr_assert_eq(bloomsimd_add_hashes(f, hashes, n), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_hashes(f, hashes, n, NULL), n);
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, n, NULL), n, "%s: hash path and key path disagree",
                     bloomsimd_layout_name(layouts[l]));
        bloomsimd_destroy(f);
    }
    free(keys), free(hashes);
}
