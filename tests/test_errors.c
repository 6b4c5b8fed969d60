/*
 * test_errors.c — every bad parameter gets its specific status, *out is
 * NULL afterwards, and nothing is allocated (LeakSanitizer checks that in
 * the sanitizer build).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static bloomsimd_filter *const SENTINEL = (bloomsimd_filter *)(uintptr_t)0x1;

static void expect_create(uint64_t capacity, double fpr, bloomsimd_status want)
{
    bloomsimd_filter *f = SENTINEL;
    cr_assert_eq(bloomsimd_create(&f, capacity, fpr), want, "capacity %llu fpr %g", (unsigned long long)capacity, fpr);
    cr_assert_null(f, "*out must be NULL after a failure");
    cr_assert_neq(bloomsimd_last_error()[0], '\0', "no detail for capacity %llu fpr %g", (unsigned long long)capacity,
                  fpr);
}

static void expect_options(const bloomsimd_options *o, bloomsimd_status want)
{
    bloomsimd_filter *f = SENTINEL;
    bloomsimd_status st = bloomsimd_create_with(&f, o);
    cr_assert_eq(st, want, "got %s, want %s", bloomsimd_status_string(st), bloomsimd_status_string(want));
    cr_assert_null(f);
    cr_assert_eq(bloomsimd_last_error()[0] != '\0', want != BLOOMSIMD_OK, "detail \"%s\"", bloomsimd_last_error());
}

Test(errors, null_out_pointer)
{
    cr_assert_eq(bloomsimd_create(NULL, 1000, 0.01), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01};
    cr_assert_eq(bloomsimd_create_with(NULL, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_options(NULL, BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(errors, fpr_out_of_range)
{
    expect_create(1000, NAN, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_create(1000, 0.0, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_create(1000, -0.01, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_create(1000, 1.0, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_create(1000, 1.5, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_create(1000, INFINITY, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_create(1000, 1e-11, BLOOMSIMD_ERR_INVALID_ARGUMENT); /* below BLOOMSIMD_MIN_FPR */
    bloomsimd_options o = {.capacity = 1000, .fpr = -1.0};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    o.fpr = NAN;
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(errors, capacity_zero_without_bits)
{
    expect_create(0, 0.01, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options o = {.fpr = 0.01};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(errors, k_above_layout_maximum)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .k = BLOOMSIMD_MAX_K + 1};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    o.k = UINT32_MAX;
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(errors, unknown_flags)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .flags = 0x80000000u};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    o.flags = (BLOOMSIMD_KNOWN_FLAGS | BLOOMSIMD_PARQUET | BLOOMSIMD_U64_XXH3 | BLOOMSIMD_U64_MUM) + 1u; /* the lowest bit no flag uses */
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    /* one hash a filter */
    o.flags = BLOOMSIMD_U64_XXH3 | BLOOMSIMD_U64_MUM;
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
    o.flags = BLOOMSIMD_PARQUET | BLOOMSIMD_U64_XXH3;
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(errors, unknown_kernel_name)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .kernel = "avx1024"};
    expect_options(&o, BLOOMSIMD_ERR_KERNEL_UNAVAILABLE);
    o.kernel = "";
    expect_options(&o, BLOOMSIMD_ERR_KERNEL_UNAVAILABLE);
}

Test(errors, sizes_beyond_the_layout_are_too_large_never_wrapped)
{
    expect_create(UINT64_C(1) << 62, 1e-9, BLOOMSIMD_ERR_TOO_LARGE);
    expect_create(UINT64_MAX, 0.5, BLOOMSIMD_ERR_TOO_LARGE);
    bloomsimd_options o = {.bits = UINT64_MAX};
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE);
    o.bits = (BLOOMSIMD_MAX_BLOCKS + 1) * BLOOMSIMD_BLOCK_BITS;
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE);
    o = (bloomsimd_options){.capacity = UINT64_C(1) << 40, .fpr = 1e-6, .k = 1};
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE);
}

/* Whole blocks of the filter's layout: 512 bits in block512 (k from bits
 * alone: BLOOMSIMD_DEFAULT_K), 256 in split256 (k 8), and layout 0 gets this
 * kernel's default. */
Test(errors, explicit_bits_round_up_to_whole_blocks)
{
    const uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256, 0};
    for (size_t l = 0; l < 3; l++) {
        uint32_t layout = layouts[l] ? layouts[l] : test_default_layout();
        uint64_t block = test_block_bits(layout);
        bloomsimd_options o = {.bits = 1, .layout = layouts[l]};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        cr_assert_eq(info.layout, layout, "layout %u", layouts[l]);
        cr_assert_eq(info.blocks, 1);
        cr_assert_eq(info.bits, block);
        cr_assert_eq(info.k, layout == BLOOMSIMD_LAYOUT_SPLIT256 ? BLOOMSIMD_SPLIT256_K : BLOOMSIMD_DEFAULT_K);
        bloomsimd_destroy(f);
        o.bits = block + 1;
        f = test_filter(&o);
        bloomsimd_get_info(f, &info);
        cr_assert_eq(info.blocks, 2, "layout %u", layouts[l]);
        cr_assert_eq(info.bits, 2 * block);
        bloomsimd_destroy(f);
    }
}

Test(errors, null_filter_and_null_keys_are_reported_not_crashed)
{
    uint64_t key = 1;
    uint8_t out[1];
    cr_assert_eq(bloomsimd_add_u64(NULL, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add(NULL, "x", 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_batch_u64(NULL, &key, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_hashes(NULL, &key, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_not(bloomsimd_contains_u64(NULL, 1));
    cr_assert_not(bloomsimd_contains(NULL, "x", 1));
    cr_assert_eq(bloomsimd_contains_batch_u64(NULL, &key, 1, out), 0);
    cr_assert_eq(bloomsimd_contains_hashes(NULL, &key, 1, out), 0);
    cr_assert_eq(bloomsimd_hash(NULL, "x", 1), 0);
    cr_assert(isnan(bloomsimd_predicted_fpr(NULL, 10)));
    bloomsimd_destroy(NULL);
    bloomsimd_clear(NULL);
    bloomsimd_get_info(NULL, NULL);

    bloomsimd_options o = {.capacity = 100, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq(bloomsimd_add(f, NULL, 3), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add(f, NULL, 0), BLOOMSIMD_OK); /* the empty key */
    cr_assert_eq(bloomsimd_add_batch_u64(f, NULL, 5), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add_batch_u64(f, NULL, 0), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_hashes(f, NULL, 2), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_not(bloomsimd_contains(f, NULL, 3));
    cr_assert_eq(bloomsimd_contains_batch_u64(f, NULL, 4, out), 0);

    /* a byte batch with one bad key inserts nothing */
    const void *keys[3] = {"a", NULL, "c"};
    size_t lens[3] = {1, 5, 1};
    cr_assert_eq(bloomsimd_add_batch(f, keys, lens, 3), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_not(bloomsimd_contains(f, "a", 1), "a failed batch must not insert anything");
    cr_assert_eq(bloomsimd_add_batch(f, NULL, lens, 3), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    /* ...and a lookup batch reports the bad key absent, the others normally */
    cr_assert_eq(bloomsimd_add(f, "c", 1), BLOOMSIMD_OK);
    uint8_t hits[3] = {9, 9, 9};
    cr_assert_eq(bloomsimd_contains_batch(f, keys, lens, 3, hits), 1);
    cr_assert_eq(hits[1], 0);
    cr_assert_eq(hits[2], 1);
    bloomsimd_destroy(f);
}

Test(errors, every_status_has_its_own_string)
{
    const char *seen[16] = {0};
    for (int s = BLOOMSIMD_OK; s <= BLOOMSIMD_ERR_READ_ONLY; s++) {
        seen[s] = bloomsimd_status_string((bloomsimd_status)s);
        cr_assert_not_null(seen[s]);
        cr_assert_str_neq(seen[s], "unknown status");
        for (int t = 0; t < s; t++) cr_assert_str_neq(seen[s], seen[t]);
    }
    cr_assert_str_eq(bloomsimd_status_string((bloomsimd_status)999), "unknown status");
}

Test(errors, version_macros_match_the_runtime)
{
    cr_assert_eq(bloomsimd_version_number(), BLOOMSIMD_VERSION_NUMBER);
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", BLOOMSIMD_VERSION_MAJOR, BLOOMSIMD_VERSION_MINOR,
             BLOOMSIMD_VERSION_PATCH);
    cr_assert_str_eq(bloomsimd_version_string(), expect);
}
