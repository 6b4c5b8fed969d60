/*
 * test_add_new.c — insert-and-report-new through the public API, on this
 * run's kernel against the scalar kernel and against an oracle (contains,
 * then add, one key at a time):
 *
 *   - identical "new" flags, counts and filter bytes for every batch size
 *     around the vector widths and prefetch groups, k 1..16, 1 block (every
 *     key in one block) to many, plain and concurrent, u64 / hash / byte keys;
 *     the same for layout split256 (k 8);
 *   - the in-order rule: a key repeated in the batch is new only the first
 *     time; a key inserted before is not new;
 *   - single-key calls, the items counter, NULL out / new_count, and every
 *     error (nothing inserted by a batch with a bad byte key; read-only maps).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "support.h"

static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                               1000, 4099};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define MAX_N 4099u

static bloomsimd_filter *make(const bloomsimd_options *o, const char *kernel)
{
    bloomsimd_options copy = *o;
    copy.kernel = kernel;
    return test_filter(&copy);
}

static void assert_same_bytes(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    cr_assert_eq(a->geometry.nblocks, b->geometry.nblocks);
    cr_assert(memcmp(a->geometry.words, b->geometry.words, bloomsimd_filter_bytes(a)) == 0,
              "%s: filter bytes differ from scalar", what);
}

/* About a quarter of the keys repeat an earlier key of the same batch, and
 * some repeat keys of earlier batches (stream - 1). */
static void keys_with_repeats(uint64_t *keys, size_t n, uint64_t stream)
{
    uint64_t state = stream * 7919;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_splitmix64(&state);
        if (i > 0 && (r & 3) == 0)
            keys[i] = keys[r % i];
        else if ((r & 15) == 1 && stream > 0)
            keys[i] = test_key(stream - 1, r % 64);
        else
            keys[i] = test_key(stream, i);
    }
}

static void check_geometry(const bloomsimd_options *o)
{
    bloomsimd_filter *ref = make(o, "scalar"), *simd = make(o, test_kernel());
    uint64_t *keys = malloc(MAX_N * sizeof *keys), *hashes = malloc(MAX_N * sizeof *hashes);
    uint8_t *out_ref = malloc(MAX_N), *out_simd = malloc(MAX_N + 1);
    cr_assert(keys && hashes && out_ref && out_simd);
    char what[128];
    uint64_t stream = 1;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = sizes[s];
        for (int path = 0; path < 3; path++, stream++) {
            keys_with_repeats(keys, n, stream);
            size_t c_ref = 99, c_simd = 98;
            out_simd[n] = 0xAB;
            if (path == 0) {
                cr_assert_eq(bloomsimd_add_new_batch_u64(ref, keys, n, out_ref, &c_ref), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_new_batch_u64(simd, keys, n, out_simd, &c_simd), BLOOMSIMD_OK);
            } else if (path == 1) {
                bloomsimd_hash_batch_u64(ref, keys, n, hashes);
                cr_assert_eq(bloomsimd_add_new_hashes(ref, hashes, n, out_ref, &c_ref), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_new_hashes(simd, hashes, n, out_simd, &c_simd), BLOOMSIMD_OK);
            } else {
                const void **ptrs = malloc(n * sizeof *ptrs);
                size_t *lens = malloc(n * sizeof *lens);
                cr_assert(ptrs && lens);
                for (size_t i = 0; i < n; i++) ptrs[i] = &keys[i], lens[i] = (i % 5) + 4; /* 4..8 bytes */
                cr_assert_eq(bloomsimd_add_new_batch(ref, ptrs, lens, n, out_ref, &c_ref), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_new_batch(simd, ptrs, lens, n, out_simd, &c_simd), BLOOMSIMD_OK);
                free(ptrs);
                free(lens);
            }
            snprintf(what, sizeof what, "k=%u bits=%llu n=%zu path=%d concurrent=%d", o->k,
                     (unsigned long long)o->bits, n, path, (o->flags & BLOOMSIMD_CONCURRENT) != 0);
            cr_assert_eq(c_ref, c_simd, "%s: new count %zu vs scalar %zu", what, c_simd, c_ref);
            cr_assert(memcmp(out_ref, out_simd, n) == 0, "%s: new flags differ from scalar", what);
            cr_assert_eq(out_simd[n], 0xAB, "%s: wrote past out[n-1]", what);
            size_t sum = 0;
            for (size_t i = 0; i < n; i++) sum += out_simd[i];
            cr_assert_eq(sum, c_simd, "%s: count is not the number of flags", what);
            assert_same_bytes(ref, simd, what);
        }
    }
    bloomsimd_info a, b;
    bloomsimd_get_info(ref, &a);
    bloomsimd_get_info(simd, &b);
    cr_assert_eq(a.items, b.items);
    free(keys);
    free(hashes);
    free(out_ref);
    free(out_simd);
    bloomsimd_destroy(ref);
    bloomsimd_destroy(simd);
}

Test(add_new, matches_scalar_flags_counts_and_bytes_every_size_and_k)
{
    for (uint32_t k = 1; k <= 16; k++) {
        bloomsimd_options one_block = {.bits = 512, .k = k, .seed = k, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
        bloomsimd_options many = {.bits = 512 * 3001, .k = k, .seed = 100 + k, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
        check_geometry(&one_block);
        check_geometry(&many);
        if (k % 5 == 1) {
            one_block.flags = many.flags = BLOOMSIMD_CONCURRENT;
            check_geometry(&one_block);
            check_geometry(&many);
        }
    }
}

Test(add_new, split256_matches_scalar_flags_counts_and_bytes_every_size)
{
    bloomsimd_options one_block = {.bits = 256, .seed = 31, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_options many = {.bits = 256 * 3001, .seed = 32, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_options large = {.capacity = 4000000, .fpr = 0.01, .seed = 33, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    check_geometry(&one_block);
    check_geometry(&many);
    check_geometry(&large);
    one_block.flags = many.flags = BLOOMSIMD_CONCURRENT;
    check_geometry(&one_block);
    check_geometry(&many);
}

Test(add_new, large_filter_matches_scalar)
{
    bloomsimd_options o = {.capacity = 4000000, .fpr = 0.01, .seed = 5, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    check_geometry(&o);
}

/* The oracle: one key at a time, contains then add. */
Test(add_new, equals_contains_then_add_one_key_at_a_time)
{
    bloomsimd_options o = {.bits = 512 * 8, .k = 6, .seed = 9}; /* small: many collisions and false positives */
    bloomsimd_filter *oracle = make(&o, "scalar"), *f = make(&o, test_kernel());
    enum { N = 5000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    uint8_t *out = malloc(N);
    keys_with_repeats(keys, N, 3);
    size_t expected = 0;
    uint8_t *want = malloc(N);
    for (size_t i = 0; i < N; i++) {
        want[i] = !bloomsimd_contains_u64(oracle, keys[i]);
        expected += want[i];
        cr_assert_eq(bloomsimd_add_u64(oracle, keys[i]), BLOOMSIMD_OK);
    }
    size_t fresh = 0;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, N, out, &fresh), BLOOMSIMD_OK);
    cr_assert_eq(fresh, expected);
    cr_assert(memcmp(out, want, N) == 0);
    assert_same_bytes(oracle, f, "oracle");
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.items, expected, "items counts the new keys");
    free(keys);
    free(out);
    free(want);
    bloomsimd_destroy(oracle);
    bloomsimd_destroy(f);
}

Test(add_new, a_repeat_in_the_batch_is_new_only_the_first_time)
{
    bloomsimd_options o = {.capacity = 100000, .fpr = 0.001, .seed = 1};
    bloomsimd_filter *f = make(&o, test_kernel());
    uint64_t keys[] = {10, 11, 10, 12, 11, 10, 13, 13};
    uint8_t out[8];
    size_t fresh;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 8, out, &fresh), BLOOMSIMD_OK);
    uint8_t want[] = {1, 1, 0, 1, 0, 0, 1, 0};
    cr_assert(memcmp(out, want, 8) == 0);
    cr_assert_eq(fresh, 4);
    /* again: nothing is new */
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 8, NULL, &fresh), BLOOMSIMD_OK);
    cr_assert_eq(fresh, 0);
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 8, out, NULL), BLOOMSIMD_OK);
    for (int i = 0; i < 8; i++) cr_assert_eq(out[i], 0);
    bool was_new = true;
    cr_assert_eq(bloomsimd_add_new_u64(f, 12, &was_new), BLOOMSIMD_OK);
    cr_assert(!was_new);
    cr_assert_eq(bloomsimd_add_new_u64(f, 14, &was_new), BLOOMSIMD_OK);
    cr_assert(was_new);
    cr_assert_eq(bloomsimd_add_new_u64(f, 14, NULL), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new(f, "abc", 3, &was_new), BLOOMSIMD_OK);
    cr_assert(was_new);
    cr_assert_eq(bloomsimd_add_new(f, "abc", 3, &was_new), BLOOMSIMD_OK);
    cr_assert(!was_new);
    cr_assert(bloomsimd_contains(f, "abc", 3));
    cr_assert_eq(bloomsimd_add_new(f, NULL, 0, &was_new), BLOOMSIMD_OK); /* the empty key */
    cr_assert(was_new);
    cr_assert(bloomsimd_contains(f, "", 0));
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.items, 4 + 1 + 1 + 1);
    bloomsimd_destroy(f);
}

/* Both layouts at k 8 (block512 picks 8 of its 16 words; split256 uses all 8). */
Test(add_new, single_key_calls_match_the_batch)
{
    static const uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    for (size_t l = 0; l < 2; l++) {
        bloomsimd_options o = {.bits = 512 * 5, .k = 8, .seed = 4, .layout = layouts[l]};
        bloomsimd_filter *a = make(&o, test_kernel()), *b = make(&o, "scalar");
        enum { N = 3000 };
        uint64_t keys[N];
        uint8_t out[N];
        keys_with_repeats(keys, N, 8);
        cr_assert_eq(bloomsimd_add_new_batch_u64(b, keys, N, out, NULL), BLOOMSIMD_OK);
        for (size_t i = 0; i < N; i++) {
            bool was_new;
            cr_assert_eq(bloomsimd_add_new_u64(a, keys[i], &was_new), BLOOMSIMD_OK);
            cr_assert_eq(was_new, out[i] != 0, "layout %u key %zu", layouts[l], i);
        }
        assert_same_bytes(b, a, bloomsimd_layout_name(layouts[l]));
        /* byte keys: the hash of the 8 LE bytes is the u64 key's hash */
        bloomsimd_filter *c = make(&o, test_kernel());
        for (size_t i = 0; i < N; i++) {
            bool was_new;
            cr_assert_eq(bloomsimd_add_new(c, &keys[i], 8, &was_new), BLOOMSIMD_OK);
            cr_assert_eq(was_new, out[i] != 0, "layout %u byte key %zu", layouts[l], i);
        }
        assert_same_bytes(b, c, bloomsimd_layout_name(layouts[l]));
        bloomsimd_destroy(a);
        bloomsimd_destroy(b);
        bloomsimd_destroy(c);
    }
}

Test(add_new, errors_and_null_outputs)
{
    uint64_t key = 1;
    size_t fresh = 77;
    bool was_new = true;
    uint8_t out[2];
    cr_assert_eq(bloomsimd_add_new_batch_u64(NULL, &key, 1, out, &fresh), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(fresh, 0);
    cr_assert_eq(bloomsimd_add_new_hashes(NULL, &key, 1, out, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_new_u64(NULL, 1, &was_new), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert(!was_new);
    cr_assert_eq(bloomsimd_add_new(NULL, "a", 1, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);

    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01};
    bloomsimd_filter *f = make(&o, test_kernel());
    fresh = 5;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, NULL, 0, NULL, &fresh), BLOOMSIMD_OK);
    cr_assert_eq(fresh, 0);
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, NULL, 3, NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_new_hashes(f, NULL, 3, NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_new_batch(f, NULL, NULL, 3, NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_new(f, NULL, 4, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);

    /* a bad byte key anywhere: INVALID_ARGUMENT and nothing inserted */
    const void *keys[300];
    size_t lens[300];
    for (size_t i = 0; i < 300; i++) keys[i] = "key", lens[i] = 3;
    keys[299] = NULL;
    cr_assert_eq(bloomsimd_add_new_batch(f, keys, lens, 300, NULL, &fresh), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(fresh, 0);
    cr_assert_eq(bloomsimd_fill_ratio(f), 0.0);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.items, 0);

    /* read-only mapping */
    char dir[] = "/tmp/bloomsimd-addnew-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/f.bsf", dir);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    bloomsimd_filter *ro = NULL;
    cr_assert_eq(bloomsimd_map(&ro, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_batch_u64(ro, &key, 1, out, &fresh), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_new_hashes(ro, &key, 1, out, &fresh), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_new_batch(ro, keys, lens, 1, out, &fresh), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_new_u64(ro, 1, &was_new), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_new(ro, "a", 1, &was_new), BLOOMSIMD_ERR_READ_ONLY);
    bloomsimd_destroy(ro);
    unlink(path);
    rmdir(dir);
    bloomsimd_destroy(f);
}

/* The view's items pointer is the counter add_new* and get_info use (for
 * bindings that insert-and-report-new through the view). */
Test(add_new, view_items_is_the_add_new_counter)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01};
    bloomsimd_filter *f = make(&o, test_kernel());
    bloomsimd_view v;
    cr_assert_eq(bloomsimd_get_view(f, &v), BLOOMSIMD_OK);
    cr_assert_not_null(v.items);
    cr_assert_eq(*v.items, 0);
    cr_assert_eq(bloomsimd_add_new_u64(f, 5, NULL), BLOOMSIMD_OK);
    cr_assert_eq(*v.items, 1);
    *v.items += 3;
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.items, 4);
    bloomsimd_destroy(f);
}
