/*
 * test_concurrency_new.c — issue 10's calls under BLOOMSIMD_CONCURRENT, on
 * this run's kernel:
 *
 *   add_new   2 and 4 threads insert-and-report the SAME keys (each through a
 *             different path: fused batch, pre-hashed batch, single keys, in
 *             different batch sizes) into one filter. (1) Every key is
 *             reported new by at least one thread (on a filter large enough
 *             that no key is a false positive of the others); (2) no thread
 *             reports new a key it had itself already inserted; (3) the
 *             filter equals, byte for byte, the single-threaded build; a
 *             small filter (64 blocks) makes the threads collide on words.
 *
 * scripts/tsan.sh builds this file without Criterion (tests/standalone.h) and
 * runs it under ThreadSanitizer for every kernel.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "standalone.h"

#define MAX_THREADS 4
#define KEYS 30000

typedef struct new_run {
    bloomsimd_filter *filter;
    const uint64_t *keys;
    uint64_t *hashes;
    uint8_t *flags[MAX_THREADS];
    int bad_status; /* atomic */
} new_run;

typedef struct new_worker {
    new_run *run;
    size_t id;
} new_worker;

static void *add_new_main(void *arg)
{
    new_worker *w = arg;
    new_run *r = w->run;
    uint8_t *flags = r->flags[w->id];
    size_t step = 97 + 211 * w->id; /* batch sizes differ between threads */
    for (size_t base = 0; base < KEYS; base += step) {
        size_t n = KEYS - base < step ? KEYS - base : step;
        bloomsimd_status st = BLOOMSIMD_OK;
        size_t fresh = 0, sum = 0;
        switch ((w->id + base / step) % 3) {
        case 0: st = bloomsimd_add_new_batch_u64(r->filter, r->keys + base, n, flags + base, &fresh); break;
        case 1: st = bloomsimd_add_new_hashes(r->filter, r->hashes + base, n, flags + base, &fresh); break;
        default:
            for (size_t i = base; i < base + n && st == BLOOMSIMD_OK; i++) {
                bool was_new = false;
                st = bloomsimd_add_new_u64(r->filter, r->keys[i], &was_new);
                flags[i] = was_new;
                fresh += was_new;
            }
        }
        for (size_t i = base; i < base + n; i++) sum += flags[i];
        if (st != BLOOMSIMD_OK || sum != fresh) __atomic_store_n(&r->bad_status, 1, __ATOMIC_RELAXED);
        /* (2): the thread's own earlier keys are never new again */
        if (base >= step && bloomsimd_contains_batch_u64(r->filter, r->keys, base, NULL) != base)
            __atomic_store_n(&r->bad_status, 2, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void run_add_new(size_t threads, const bloomsimd_options *geometry, bool expect_all_new)
{
    new_run r;
    memset(&r, 0, sizeof r);
    bloomsimd_options co = *geometry, po = *geometry;
    co.flags |= BLOOMSIMD_CONCURRENT;
    r.filter = test_filter(&co);
    bloomsimd_filter *reference = test_filter(&po);
    uint64_t *keys = test_keys(KEYS, 500);
    r.keys = keys;
    r.hashes = malloc(KEYS * sizeof(uint64_t));
    cr_assert_not_null(r.hashes);
    bloomsimd_hash_batch_u64(r.filter, keys, KEYS, r.hashes);
    cr_assert_eq(bloomsimd_add_batch_u64(reference, keys, KEYS), BLOOMSIMD_OK);
    pthread_t tid[MAX_THREADS];
    new_worker workers[MAX_THREADS];
    for (size_t t = 0; t < threads; t++) {
        r.flags[t] = calloc(KEYS, 1);
        cr_assert_not_null(r.flags[t]);
        workers[t] = (new_worker){&r, t};
        cr_assert_eq(pthread_create(&tid[t], NULL, add_new_main, &workers[t]), 0);
    }
    for (size_t t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    cr_assert_eq(r.bad_status, 0, "a call failed, miscounted, or a thread lost its own keys");
    size_t none = 0;
    for (size_t i = 0; i < KEYS; i++) {
        int any = 0;
        for (size_t t = 0; t < threads; t++) any |= r.flags[t][i];
        none += !any;
    }
    if (expect_all_new) cr_assert_eq(none, 0, "%zu keys were reported new by no thread", none);
    cr_assert(memcmp(r.filter->geometry.words, reference->geometry.words, bloomsimd_filter_bytes(reference)) == 0,
              "%zu threads: filter differs from the single-threaded build", threads);
    for (size_t t = 0; t < threads; t++) free(r.flags[t]);
    free(r.hashes);
    free(keys);
    bloomsimd_destroy(reference);
    bloomsimd_destroy(r.filter);
}

/* large: 30000 keys in a filter for 10^6 at 1e-4, so a false positive among
 * them has probability ~1e-9 and "reported new by nobody" means a lost race. */
static const bloomsimd_options new_large = {.capacity = 1000000, .fpr = 1e-4, .seed = 21};
static const bloomsimd_options new_small = {.bits = 512 * 64, .k = 8, .seed = 22};

Test(concurrency_new, add_new_same_keys_two_threads)
{
    run_add_new(2, &new_large, true);
    run_add_new(2, &new_small, false);
}

Test(concurrency_new, add_new_same_keys_four_threads)
{
    run_add_new(4, &new_large, true);
    run_add_new(4, &new_small, false);
}
