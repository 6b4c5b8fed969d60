/*
 * test_hash.c — bloomsimd's hashes are libxxhash's XXH3_64bits_withSeed:
 * u64 keys as their 8 little-endian bytes, byte keys as they are, across seeds.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <xxhash.h>

#include "support.h"

static const uint64_t seeds[] = {0, 1, 2, 0xdeadbeef, UINT64_C(0xffffffff), UINT64_C(0x100000000),
                                 UINT64_C(0x9E3779B97F4A7C15), UINT64_MAX};

static bloomsimd_filter *filter_with_seed(uint64_t seed)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .seed = seed};
    return test_filter(&o);
}

Test(hash, u64_keys_hash_as_their_little_endian_bytes)
{
    uint64_t *keys = test_keys(100000, 21);
    uint64_t *hashes = malloc(100000 * sizeof *hashes);
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        bloomsimd_filter *f = filter_with_seed(seeds[s]);
        bloomsimd_hash_batch_u64(f, keys, 100000, hashes);
        for (size_t i = 0; i < 100000; i++) {
            unsigned char le[8];
            for (int b = 0; b < 8; b++) le[b] = (unsigned char)(keys[i] >> (8 * b));
            uint64_t want = XXH3_64bits_withSeed(le, 8, seeds[s]);
            cr_assert_eq(hashes[i], want, "seed %llx key %llx", (unsigned long long)seeds[s],
                         (unsigned long long)keys[i]);
            if (i < 1000) cr_assert_eq(bloomsimd_hash(f, le, 8), want);
        }
        bloomsimd_destroy(f);
    }
    free(keys), free(hashes);
}

Test(hash, byte_keys_of_every_length_0_to_300)
{
    unsigned char buf[301];
    uint64_t state = 5;
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        bloomsimd_filter *f = filter_with_seed(seeds[s]);
        for (size_t len = 0; len <= 300; len++) {
            for (size_t j = 0; j < len; j++) buf[j] = (unsigned char)test_splitmix64(&state);
            cr_assert_eq(bloomsimd_hash(f, buf, len), XXH3_64bits_withSeed(buf, len, seeds[s]), "len %zu", len);
        }
        cr_assert_eq(bloomsimd_hash(f, NULL, 0), XXH3_64bits_withSeed("", 0, seeds[s]));
        bloomsimd_destroy(f);
    }
}

Test(hash, the_seed_changes_the_hash)
{
    bloomsimd_filter *a = filter_with_seed(1), *b = filter_with_seed(2);
    cr_assert_neq(bloomsimd_hash(a, "key", 3), bloomsimd_hash(b, "key", 3));
    bloomsimd_destroy(a), bloomsimd_destroy(b);
}
