/*
 * test_determinism.c — the same seed and geometry give the same filter
 * bytes (whatever the kernel or insertion path); another seed gives other bytes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static bloomsimd_filter *filled(uint64_t seed, const uint64_t *keys, size_t n, int path)
{
    bloomsimd_options o = {.capacity = 50000, .fpr = 0.001, .seed = seed};
    bloomsimd_filter *f = test_filter(&o);
    if (path == 0) {
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
    } else {
        for (size_t i = n; i-- > 0;) cr_assert_eq(bloomsimd_add_u64(f, keys[i]), BLOOMSIMD_OK); /* reverse order */
    }
    return f;
}

Test(determinism, same_seed_same_bytes_across_paths_and_order)
{
    uint64_t *keys = test_keys(50000, 31);
    bloomsimd_filter *a = filled(7, keys, 50000, 0), *b = filled(7, keys, 50000, 1);
    cr_assert(memcmp(a->geometry.words, b->geometry.words, bloomsimd_filter_bytes(a)) == 0);
    bloomsimd_destroy(a), bloomsimd_destroy(b);
    free(keys);
}

Test(determinism, another_seed_gives_other_bytes)
{
    uint64_t *keys = test_keys(50000, 32);
    bloomsimd_filter *a = filled(7, keys, 50000, 0), *b = filled(8, keys, 50000, 0);
    size_t bytes = bloomsimd_filter_bytes(a);
    cr_assert(memcmp(a->geometry.words, b->geometry.words, bytes) != 0);
    /* not just "different": about half the set bits should move */
    size_t same_words = 0, words = bytes / 4;
    for (size_t i = 0; i < words; i++) same_words += a->geometry.words[i] == b->geometry.words[i];
    cr_assert_lt(same_words, words / 2, "%zu of %zu words unchanged by the seed", same_words, words);
    bloomsimd_destroy(a), bloomsimd_destroy(b);
    free(keys);
}

Test(determinism, clear_empties_the_filter)
{
    uint64_t *keys = test_keys(1000, 33);
    bloomsimd_filter *f = filled(1, keys, 1000, 0);
    bloomsimd_clear(f);
    for (size_t i = 0; i < bloomsimd_filter_bytes(f) / 4; i++) cr_assert_eq(f->geometry.words[i], 0);
    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 1000, NULL), 0);
    bloomsimd_destroy(f);
    free(keys);
}
