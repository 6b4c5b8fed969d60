/*
 * test_allocator.c — bloomsimd_set_allocator: bit arrays of filters created,
 * loaded and deserialized come from the host allocator, 64-byte aligned and
 * zeroed, and go back to it with their size at destroy (even after the
 * allocator was changed); a failing allocator gives BLOOMSIMD_ERR_NO_MEMORY
 * and nothing leaks; NULL restores the default.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "support.h"

typedef struct ledger {
    size_t allocs, frees, live_bytes;
    bool fail;
} ledger;

static void *ledger_alloc(size_t bytes, void *user)
{
    ledger *l = user;
    if (l->fail) return NULL;
    void *p = calloc(1, bytes);
    if (p) l->allocs++, l->live_bytes += bytes;
    return p;
}

static void ledger_free(void *p, size_t bytes, void *user)
{
    ledger *l = user;
    l->frees++, l->live_bytes -= bytes;
    free(p);
}

Test(allocator, filters_take_their_bits_from_the_host_and_give_them_back)
{
    ledger l = {0};
    bloomsimd_allocator a = {ledger_alloc, ledger_free, &l};
    bloomsimd_set_allocator(&a);
    const uint64_t capacities[] = {100, 100000, 3000000}; /* the last is > 2 MiB */
    for (size_t c = 0; c < 3; c++) {
        bloomsimd_options o = {.capacity = capacities[c], .fpr = 0.01};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        cr_assert_eq(l.allocs, 1, "capacity %llu", (unsigned long long)capacities[c]);
        cr_assert_eq(l.live_bytes, info.memory_bytes + 63, "the array plus alignment slack");
        cr_assert_eq((uintptr_t)f->geometry.words % 64, 0);
        uint64_t *keys = test_keys(1000, 3);
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 1000), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 1000, NULL), 1000);
        /* a deserialized copy is allocated the same way */
        size_t len = bloomsimd_serialized_size(f);
        void *buf = malloc(len);
        cr_assert_eq(bloomsimd_serialize(f, buf, len, NULL), BLOOMSIMD_OK);
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize(&g, buf, len), BLOOMSIMD_OK);
        cr_assert_eq(l.allocs, 2);
        cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, 1000, NULL), 1000);
        bloomsimd_destroy(g);
        bloomsimd_destroy(f);
        cr_assert_eq(l.frees, 2);
        cr_assert_eq(l.live_bytes, 0);
        l.allocs = l.frees = 0;
        free(buf), free(keys);
    }
    bloomsimd_set_allocator(NULL);
}

Test(allocator, a_failing_host_allocator_is_no_memory_and_changing_it_later_is_safe)
{
    ledger l = {.fail = true};
    bloomsimd_allocator a = {ledger_alloc, ledger_free, &l};
    bloomsimd_set_allocator(&a);
    bloomsimd_filter *f = (bloomsimd_filter *)1;
    cr_assert_eq(bloomsimd_create(&f, 1000, 0.01), BLOOMSIMD_ERR_NO_MEMORY);
    cr_assert_null(f);
    l.fail = false;
    cr_assert_eq(bloomsimd_create(&f, 1000, 0.01), BLOOMSIMD_OK);
    /* switch back to the default while f lives: f is still freed by the ledger */
    bloomsimd_set_allocator(NULL);
    bloomsimd_filter *g = NULL;
    cr_assert_eq(bloomsimd_create(&g, 1000, 0.01), BLOOMSIMD_OK);
    cr_assert_eq(l.allocs, 1, "g must come from the default allocator");
    bloomsimd_destroy(f);
    cr_assert_eq(l.frees, 1);
    cr_assert_eq(l.live_bytes, 0);
    bloomsimd_destroy(g);
    /* a struct with a NULL function is the default too */
    bloomsimd_allocator half = {ledger_alloc, NULL, &l};
    bloomsimd_set_allocator(&half);
    cr_assert_eq(bloomsimd_create(&g, 1000, 0.01), BLOOMSIMD_OK);
    cr_assert_eq(l.allocs, 1);
    bloomsimd_destroy(g);
    bloomsimd_set_allocator(NULL);
}
