/*
 * test_setops.c — union and intersection on this run's kernel.
 *
 * Invariants: filters of one geometry and seed set the same bits for the
 * same key, so union(A, B) must equal, byte for byte, the filter built from
 * A ∪ B (on the plain kernel path and on the atomic path of concurrent
 * filters), and intersect(A, B) must keep every key that is in both.
 * Mismatched geometry or seed, NULL and read-only destinations are refused
 * without touching dst.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static const void *bits_of(const bloomsimd_filter *f) { return f->geometry.words; }

static void assert_same_bits(const bloomsimd_filter *a, const bloomsimd_filter *b)
{
    cr_assert_eq(bloomsimd_filter_bytes(a), bloomsimd_filter_bytes(b));
    cr_assert(memcmp(bits_of(a), bits_of(b), bloomsimd_filter_bytes(a)) == 0, "filters differ");
}

static bloomsimd_filter *filled(const bloomsimd_options *o, const uint64_t *keys, size_t n)
{
    bloomsimd_filter *f = test_filter(o);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
    return f;
}

/* Several geometries: tiny (one block), odd block counts, k from 1 to 16, seeds. */
static const bloomsimd_options geometries[] = {
    {.bits = 512, .k = 1, .seed = 0},
    {.capacity = 1000, .fpr = 0.01, .seed = 1},
    {.capacity = 20000, .fpr = 0.1, .seed = 42},
    {.capacity = 50000, .fpr = 0.001, .seed = UINT64_C(0xdeadbeefcafe)},
    {.bits = 512 * 333, .k = 16, .seed = 7},
};
#define NGEOMETRIES (sizeof geometries / sizeof geometries[0])

static void check_union_equals_built_union(uint32_t extra_flags)
{
    for (size_t g = 0; g < NGEOMETRIES; g++) {
        bloomsimd_options o = geometries[g];
        o.flags |= extra_flags;
        size_t na = 3000 + 1000 * g, nb = 5000;
        uint64_t *a = test_keys(na, 10 + g);
        uint64_t *b = test_keys(nb, 20 + g);
        bloomsimd_filter *fa = filled(&o, a, na);
        bloomsimd_filter *fb = filled(&o, b, nb);
        bloomsimd_filter *fab = filled(&o, a, na);
        cr_assert_eq(bloomsimd_add_batch_u64(fab, b, nb), BLOOMSIMD_OK);

        cr_assert_eq(bloomsimd_union(fa, fb), BLOOMSIMD_OK);
        assert_same_bits(fa, fab);
        cr_assert_eq(bloomsimd_contains_batch_u64(fa, a, na, NULL), na, "geometry %zu: key of A lost", g);
        cr_assert_eq(bloomsimd_contains_batch_u64(fa, b, nb, NULL), nb, "geometry %zu: key of B lost", g);

        bloomsimd_destroy(fa);
        bloomsimd_destroy(fb);
        bloomsimd_destroy(fab);
        free(a);
        free(b);
    }
}

Test(setops, union_equals_the_filter_built_from_the_union)
{
    check_union_equals_built_union(0);
}

Test(setops, union_of_concurrent_filters_equals_the_filter_built_from_the_union)
{
    check_union_equals_built_union(BLOOMSIMD_CONCURRENT);
}

Test(setops, union_with_a_concurrent_source_equals_the_built_union)
{
    bloomsimd_options plain = {.capacity = 10000, .fpr = 0.01, .seed = 3};
    bloomsimd_options conc = plain;
    conc.flags = BLOOMSIMD_CONCURRENT;
    uint64_t *a = test_keys(6000, 31), *b = test_keys(6000, 32);
    bloomsimd_filter *fa = filled(&plain, a, 6000), *fb = filled(&conc, b, 6000);
    bloomsimd_filter *fab = filled(&plain, a, 6000);
    bloomsimd_add_batch_u64(fab, b, 6000);
    cr_assert_eq(bloomsimd_union(fa, fb), BLOOMSIMD_OK);
    assert_same_bits(fa, fab);
    bloomsimd_destroy(fa);
    bloomsimd_destroy(fb);
    bloomsimd_destroy(fab);
    free(a);
    free(b);
}

static void check_intersect(uint32_t extra_flags)
{
    for (size_t g = 0; g < NGEOMETRIES; g++) {
        bloomsimd_options o = geometries[g];
        o.flags |= extra_flags;
        size_t nc = 2000, na = 3000, nb = 4000;
        uint64_t *common = test_keys(nc, 40 + g), *a = test_keys(na, 50 + g), *b = test_keys(nb, 60 + g);
        bloomsimd_filter *fa = filled(&o, common, nc), *fb = filled(&o, common, nc);
        bloomsimd_filter *fc = filled(&o, common, nc);
        bloomsimd_add_batch_u64(fa, a, na);
        bloomsimd_add_batch_u64(fb, b, nb);
        size_t bytes = bloomsimd_filter_bytes(fa);
        uint8_t *before = malloc(bytes);
        cr_assert_not_null(before);
        memcpy(before, bits_of(fa), bytes);

        cr_assert_eq(bloomsimd_intersect(fa, fb), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_batch_u64(fa, common, nc, NULL), nc, "geometry %zu: false negative", g);
        /* Bit by bit: result = A & B exactly, and it covers the filter of the common keys. */
        const uint8_t *r = bits_of(fa), *pb = bits_of(fb), *pc = bits_of(fc);
        for (size_t i = 0; i < bytes; i++) {
            cr_assert_eq(r[i], (uint8_t)(before[i] & pb[i]), "geometry %zu byte %zu", g, i);
            cr_assert_eq(r[i] & pc[i], pc[i], "geometry %zu byte %zu lost a common bit", g, i);
        }
        free(before);
        bloomsimd_destroy(fa);
        bloomsimd_destroy(fb);
        bloomsimd_destroy(fc);
        free(common);
        free(a);
        free(b);
    }
}

Test(setops, intersect_has_no_false_negative_for_keys_in_both)
{
    check_intersect(0);
}

Test(setops, intersect_of_concurrent_filters_has_no_false_negative)
{
    check_intersect(BLOOMSIMD_CONCURRENT);
}

Test(setops, intersect_with_an_empty_filter_gives_an_empty_filter)
{
    bloomsimd_options o = {.capacity = 5000, .fpr = 0.01};
    uint64_t *a = test_keys(5000, 70);
    bloomsimd_filter *fa = filled(&o, a, 5000), *empty = test_filter(&o);
    cr_assert_eq(bloomsimd_intersect(fa, empty), BLOOMSIMD_OK);
    assert_same_bits(fa, empty);
    cr_assert_eq(bloomsimd_fill_ratio(fa), 0.0);
    bloomsimd_destroy(fa);
    bloomsimd_destroy(empty);
    free(a);
}

Test(setops, combining_a_filter_with_itself_changes_nothing)
{
    bloomsimd_options o = {.capacity = 5000, .fpr = 0.01};
    uint64_t *a = test_keys(5000, 71);
    bloomsimd_filter *fa = filled(&o, a, 5000), *ref = filled(&o, a, 5000);
    cr_assert_eq(bloomsimd_union(fa, fa), BLOOMSIMD_OK);
    assert_same_bits(fa, ref);
    cr_assert_eq(bloomsimd_intersect(fa, fa), BLOOMSIMD_OK);
    assert_same_bits(fa, ref);
    bloomsimd_destroy(fa);
    bloomsimd_destroy(ref);
    free(a);
}

/* dst must come back untouched from every refused call. */
static void expect_refused(bloomsimd_filter *dst, const bloomsimd_filter *src, bloomsimd_status want)
{
    size_t bytes = bloomsimd_filter_bytes(dst);
    uint8_t *before = malloc(bytes);
    cr_assert_not_null(before);
    memcpy(before, bits_of(dst), bytes);
    cr_assert_eq(bloomsimd_union(dst, src), want, "union: %s", bloomsimd_status_string(bloomsimd_union(dst, src)));
    cr_assert_eq(bloomsimd_intersect(dst, src), want, "intersect: %s",
                 bloomsimd_status_string(bloomsimd_intersect(dst, src)));
    cr_assert(memcmp(before, bits_of(dst), bytes) == 0, "refused call changed dst");
    free(before);
}

Test(setops, different_geometry_or_seed_is_incompatible)
{
    bloomsimd_options base = {.bits = 512 * 100, .k = 6, .seed = 5};
    bloomsimd_options more_blocks = base, other_k = base, other_seed = base, concurrent = base;
    more_blocks.bits = 512 * 101;
    other_k.k = 7;
    other_seed.seed = 6;
    concurrent.flags = BLOOMSIMD_CONCURRENT;
    uint64_t *a = test_keys(1000, 80);
    bloomsimd_filter *dst = filled(&base, a, 1000);
    bloomsimd_filter *f_blocks = filled(&more_blocks, a, 1000), *f_k = filled(&other_k, a, 1000);
    bloomsimd_filter *f_seed = filled(&other_seed, a, 1000), *f_conc = filled(&concurrent, a, 1000);

    expect_refused(dst, f_blocks, BLOOMSIMD_ERR_INCOMPATIBLE);
    expect_refused(f_blocks, dst, BLOOMSIMD_ERR_INCOMPATIBLE);
    expect_refused(dst, f_k, BLOOMSIMD_ERR_INCOMPATIBLE);
    expect_refused(dst, f_seed, BLOOMSIMD_ERR_INCOMPATIBLE);
    /* The concurrency flag is not part of the geometry. */
    cr_assert_eq(bloomsimd_union(dst, f_conc), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_intersect(f_conc, dst), BLOOMSIMD_OK);

    bloomsimd_destroy(dst);
    bloomsimd_destroy(f_blocks);
    bloomsimd_destroy(f_k);
    bloomsimd_destroy(f_seed);
    bloomsimd_destroy(f_conc);
    free(a);
}

Test(setops, null_arguments_are_invalid)
{
    bloomsimd_options o = {.capacity = 100, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq(bloomsimd_union(NULL, f), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_union(f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_union(NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_intersect(NULL, f), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_intersect(f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_destroy(f);
}

/* A read-only destination (what a BLOOMSIMD_MAP_READ_ONLY mapping is) is
 * refused before anything else; a read-only source is fine. The flag is set
 * directly so this test does not depend on the file format. */
Test(setops, read_only_destination_is_refused)
{
    bloomsimd_options o = {.capacity = 2000, .fpr = 0.01};
    uint64_t *a = test_keys(2000, 90), *b = test_keys(2000, 91);
    bloomsimd_filter *ro = filled(&o, a, 2000), *rw = filled(&o, b, 2000);
    ro->read_only = true;
    expect_refused(ro, rw, BLOOMSIMD_ERR_READ_ONLY);
    expect_refused(ro, ro, BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_union(rw, ro), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(rw, a, 2000, NULL), 2000);
    bloomsimd_destroy(ro);
    bloomsimd_destroy(rw);
    free(a);
    free(b);
}
