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
 *   scalable  3 writers insert-and-report a shared key set (in different
 *             orders and batch sizes) plus keys of their own into one
 *             scalable filter that starts at 2000 keys, so it grows through
 *             several layers while they race, and 2 readers look up keys the
 *             writers have published. (1) Readers never miss a published
 *             key; (2) every key is found afterwards and each shared key was
 *             reported new by at least one writer (chain FPR 1e-8); (3) the
 *             layers' items add up exactly to the new keys the writers were
 *             told about, and no layer holds more than its capacity.
 *
 * scripts/tsan.sh builds this file without Criterion (tests/standalone.h) and
 * runs it under ThreadSanitizer for every kernel.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layers/layers.h"
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

/* ---- scalable: concurrent growth ---- */

#define SC_WRITERS 3
#define SC_READERS 2
#define SC_SHARED 20000
#define SC_OWN 8000
#define SC_STEP 250

typedef struct sc_run {
    bloomsimd_filter *filter;
    uint64_t *shared;
    uint64_t *own[SC_WRITERS];
    uint8_t *shared_flags[SC_WRITERS];
    size_t progress[SC_WRITERS]; /* own keys published as inserted (release/acquire) */
    size_t fresh[SC_WRITERS];
    int writers_done;            /* atomic */
    size_t missed;               /* atomic */
    int bad_status;              /* atomic */
} sc_run;

typedef struct sc_worker {
    sc_run *run;
    size_t id;
} sc_worker;

static void *sc_writer(void *arg)
{
    sc_worker *w = arg;
    sc_run *r = w->run;
    size_t fresh = 0;
    /* interleave own keys with the shared ones; writer 1 walks the shared keys backwards */
    for (size_t step = 0; step * SC_STEP < SC_SHARED; step++) {
        size_t base = w->id == 1 ? SC_SHARED - (step + 1) * SC_STEP : step * SC_STEP;
        size_t got = 0;
        bloomsimd_status st = w->id == 2 ? BLOOMSIMD_OK
                                         : bloomsimd_add_new_batch_u64(r->filter, r->shared + base, SC_STEP,
                                                                       r->shared_flags[w->id] + base, &got);
        if (w->id == 2)
            for (size_t i = base; i < base + SC_STEP && st == BLOOMSIMD_OK; i++) {
                bool was_new;
                st = bloomsimd_add_new_u64(r->filter, r->shared[i], &was_new);
                r->shared_flags[w->id][i] = was_new;
                got += was_new;
            }
        fresh += got;
        size_t own_base = step * SC_STEP * SC_OWN / SC_SHARED, own_end = (step + 1) * SC_STEP * SC_OWN / SC_SHARED;
        if (st == BLOOMSIMD_OK) {
            st = bloomsimd_add_new_batch_u64(r->filter, r->own[w->id] + own_base, own_end - own_base, NULL, &got);
            fresh += got;
        }
        if (st != BLOOMSIMD_OK) __atomic_store_n(&r->bad_status, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&r->progress[w->id], own_end, __ATOMIC_RELEASE);
    }
    r->fresh[w->id] = fresh;
    __atomic_fetch_add(&r->writers_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *sc_reader(void *arg)
{
    sc_worker *w = arg;
    sc_run *r = w->run;
    uint64_t rng = 31 + w->id;
    uint8_t out[SC_STEP];
    uint32_t idx[SC_STEP];
    size_t round = 0;
    while (__atomic_load_n(&r->writers_done, __ATOMIC_ACQUIRE) < SC_WRITERS) {
        size_t v = test_splitmix64(&rng) % SC_WRITERS;
        size_t ready = __atomic_load_n(&r->progress[v], __ATOMIC_ACQUIRE);
        if (ready == 0) continue;
        size_t from = (size_t)(test_splitmix64(&rng) % ready);
        size_t n = ready - from < SC_STEP ? ready - from : SC_STEP;
        size_t found;
        switch (round++ % 3) {
        case 0: found = bloomsimd_contains_batch_u64(r->filter, r->own[v] + from, n, out); break;
        case 1: found = bloomsimd_select_batch_u64(r->filter, r->own[v] + from, n, idx); break;
        default:
            found = 0;
            for (size_t i = 0; i < n; i++) found += bloomsimd_contains_u64(r->filter, r->own[v][from + i]);
        }
        __atomic_fetch_add(&r->missed, n - found, __ATOMIC_RELAXED);
    }
    return NULL;
}

Test(concurrency_new, scalable_grows_while_writers_race)
{
    sc_run r;
    memset(&r, 0, sizeof r);
    bloomsimd_options o = {.capacity = 2000, .fpr = 1e-8, .growth = 2, .tightening = 0.9, .seed = 23,
                           .flags = BLOOMSIMD_CONCURRENT};
    r.filter = test_filter(&o);
    r.shared = test_keys(SC_SHARED, 600);
    for (size_t t = 0; t < SC_WRITERS; t++) {
        r.own[t] = test_keys(SC_OWN, 601 + t);
        r.shared_flags[t] = calloc(SC_SHARED, 1);
        cr_assert_not_null(r.shared_flags[t]);
    }
    pthread_t tid[SC_WRITERS + SC_READERS];
    sc_worker workers[SC_WRITERS + SC_READERS];
    for (size_t t = 0; t < SC_WRITERS + SC_READERS; t++) {
        workers[t] = (sc_worker){&r, t < SC_WRITERS ? t : t - SC_WRITERS};
        cr_assert_eq(pthread_create(&tid[t], NULL, t < SC_WRITERS ? sc_writer : sc_reader, &workers[t]), 0);
    }
    for (size_t t = 0; t < SC_WRITERS + SC_READERS; t++) pthread_join(tid[t], NULL);
    cr_assert_eq(r.bad_status, 0, "an insert failed");
    cr_assert_eq(r.missed, 0, "readers missed %zu published keys", r.missed);
    size_t none = 0;
    for (size_t i = 0; i < SC_SHARED; i++) {
        int any = 0;
        for (size_t t = 0; t < SC_WRITERS; t++) any |= r.shared_flags[t][i];
        none += !any;
    }
    cr_assert_eq(none, 0, "%zu shared keys were reported new by no writer", none);
    cr_assert_eq(bloomsimd_contains_batch_u64(r.filter, r.shared, SC_SHARED, NULL), SC_SHARED);
    for (size_t t = 0; t < SC_WRITERS; t++)
        cr_assert_eq(bloomsimd_contains_batch_u64(r.filter, r.own[t], SC_OWN, NULL), SC_OWN);
    bloomsimd_info info;
    bloomsimd_get_info(r.filter, &info);
    cr_assert(info.layers >= 4, "only %u layers", info.layers);
    size_t told = r.fresh[0] + r.fresh[1] + r.fresh[2];
    cr_assert_eq(info.items, told, "layers count %llu keys, writers were told %zu new",
                 (unsigned long long)info.items, told);
    for (uint32_t i = 0; i < info.layers; i++)
        cr_assert(r.filter->layers->layer[i]->items <= r.filter->layers->layer[i]->capacity);
    free(r.shared);
    for (size_t t = 0; t < SC_WRITERS; t++) {
        free(r.own[t]);
        free(r.shared_flags[t]);
    }
    bloomsimd_destroy(r.filter);
}
