/*
 * test_load.c — bloomsimd_info.load and bloomsimd_fill_info.load, the share
 * of its capacity a filter has taken (the number operators alarm on).
 *
 * Invariants: a plain filter's load is exactly items / capacity from its
 * counter (79% and 81% read as such, never rounded across 80%); a plain
 * filter filled by the uncounted add* calls reads 0 from its counter and its
 * estimated share from its bits; a scalable filter's load is over its first
 * layer's capacity (past 1 once it grew); a window's is its fullest live
 * generation's, and falls when that generation rotates out; a filter sized
 * by bits reads 0; reading the load writes nothing (a NULL is a no-op). Keys
 * are deterministic and every kernel builds the same bytes, so these tests
 * do not flake.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static bloomsimd_info info_of(const bloomsimd_filter *f)
{
    bloomsimd_info i;
    bloomsimd_get_info(f, &i);
    return i;
}

static bloomsimd_fill_info fill_of(const bloomsimd_filter *f)
{
    bloomsimd_fill_info i;
    bloomsimd_get_fill_info(f, &i);
    return i;
}

/* Inserts-and-reports-new keys[*next ..] until the counter reads `target`:
 * a distinct key can be a false positive, which the counter does not count,
 * so the count of keys handed in is not the count the filter holds. The
 * counter is the current generation's for a window, the whole filter's
 * otherwise. */
static void fill_to(bloomsimd_filter *f, const uint64_t *keys, size_t *next, uint64_t target)
{
    for (;;) {
        bloomsimd_info i = info_of(f);
        uint64_t have = i.generations ? i.current_items : i.items;
        cr_assert(have <= target, "counted %llu, past %llu", (unsigned long long)have, (unsigned long long)target);
        if (have == target) return;
        size_t n = (size_t)(target - have);
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys + *next, n, NULL, NULL), BLOOMSIMD_OK);
        *next += n;
    }
}

Test(load, plain_counted_items_over_capacity)
{
    bloomsimd_options o = {.capacity = 10000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(20000, 1);
    size_t next = 0;
    cr_assert_eq(info_of(f).load, 0.0);
    cr_assert_eq(fill_of(f).load, 0.0);
    fill_to(f, keys, &next, 7900);
    cr_assert_eq(info_of(f).load, 0.79);
    cr_assert(info_of(f).load < 0.8);
    cr_assert_eq(fill_of(f).load, 0.79, "counted items decide the fill's load too");
    fill_to(f, keys, &next, 8100);
    cr_assert_eq(info_of(f).load, 0.81);
    cr_assert(info_of(f).load >= 0.8);
    fill_to(f, keys, &next, 12000);
    cr_assert_eq(info_of(f).load, 1.2, "past capacity: above 1");
    free(keys);
    bloomsimd_destroy(f);
}

Test(load, plain_uncounted_inserts_read_from_the_bits)
{
    bloomsimd_options o = {.capacity = 100000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(81000, 2);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 81000), BLOOMSIMD_OK);
    bloomsimd_info i = info_of(f);
    cr_assert_eq(i.items, 0);
    cr_assert_eq(i.load, 0.0, "the counter saw nothing");
    bloomsimd_fill_info fill = fill_of(f);
    cr_assert_eq(fill.load, fill.estimated_items / 100000.0, "the estimate over the capacity");
    /* the estimate's error at this load is well under 1% (docs/ESTIMATES.md) */
    cr_assert(fabs(fill.load - 0.81) < 0.01, "load %.4f for 81%%", fill.load);
    free(keys);
    bloomsimd_destroy(f);
}

Test(load, sized_by_bits_reads_zero)
{
    bloomsimd_options o = {.bits = 512 * 100, .k = 7};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(2000, 3);
    size_t next = 0;
    fill_to(f, keys, &next, 1000);
    cr_assert_eq(info_of(f).load, 0.0, "no capacity to be a share of");
    cr_assert_eq(fill_of(f).load, 0.0);
    free(keys);
    bloomsimd_destroy(f);
}

Test(load, scalable_over_the_first_layer)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .growth = 2};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(8000, 4);
    size_t next = 0;
    fill_to(f, keys, &next, 800);
    bloomsimd_info i = info_of(f);
    cr_assert_eq(i.layers, 1);
    cr_assert_eq(i.load, 0.8);
    fill_to(f, keys, &next, 3000);
    i = info_of(f);
    cr_assert(i.layers >= 2, "1000 + 2000 keys fill at least two layers: %u", i.layers);
    cr_assert_eq(i.load, 3.0, "items over the first layer's capacity");
    cr_assert_eq(fill_of(f).load, 3.0);
    /* plain adds count on a scalable filter (every key) */
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys + next, 500), BLOOMSIMD_OK);
    cr_assert_eq(info_of(f).load, 3.5);
    free(keys);
    bloomsimd_destroy(f);
}

Test(load, window_fullest_generation)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .generations = 3};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(3000, 5);
    size_t next = 0;
    fill_to(f, keys, &next, 900); /* generation A: 90% */
    cr_assert_eq(info_of(f).load, 0.9);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    fill_to(f, keys, &next, 300); /* generation B: 30%, A still live */
    bloomsimd_info i = info_of(f);
    cr_assert_eq(i.items, 1200);
    cr_assert_eq(i.load, 0.9, "the fullest live generation, not the current one nor the sum");
    cr_assert_eq(fill_of(f).load, 0.9);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert_eq(info_of(f).load, 0.9, "A lives for three generations");
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert_eq(info_of(f).load, 0.3, "A rotated out: B is the fullest");
    free(keys);
    bloomsimd_destroy(f);
}

Test(load, reading_writes_nothing)
{
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(1000, 6);
    size_t next = 0;
    fill_to(f, keys, &next, 500);
    size_t len = bloomsimd_serialized_size(f);
    uint8_t *a = malloc(len), *b = malloc(len);
    cr_assert_eq(bloomsimd_serialize(f, a, len, NULL), BLOOMSIMD_OK);
    for (int i = 0; i < 3; i++) {
        (void)info_of(f);
        (void)fill_of(f);
    }
    cr_assert_eq(bloomsimd_serialize(f, b, len, NULL), BLOOMSIMD_OK);
    cr_assert(memcmp(a, b, len) == 0, "get_info and get_fill_info leave the filter as it was");
    bloomsimd_get_info(f, NULL);
    bloomsimd_get_fill_info(f, NULL);
    bloomsimd_fill_info untouched = {.load = -1.0};
    bloomsimd_get_fill_info(NULL, &untouched);
    cr_assert_eq(untouched.load, -1.0, "a NULL filter leaves *fill alone");
    free(a);
    free(b);
    free(keys);
    bloomsimd_destroy(f);
}
