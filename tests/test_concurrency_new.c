/*
 * test_concurrency_new.c — add_new, growth and rotate under BLOOMSIMD_CONCURRENT, on
 * this run's kernel:
 *
 *   add_new   2 and 4 threads insert-and-report the SAME keys (each through a
 *             different path: fused batch, pre-hashed batch, single keys, in
 *             different batch sizes) into one filter. (1) Every key is
 *             reported new by at least one thread (on a filter large enough
 *             that no key is a false positive of the others); (2) no thread
 *             reports new a key it had itself already inserted; (3) the
 *             filter equals, byte for byte, the single-threaded build on
 *             the scalar kernel; a small filter (64 blocks) makes the
 *             threads collide on words. Both layouts.
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
 *   window    2 writers insert their own keys (batch, add_new, hashes, single
 *             keys) and add_new a shared key set, 2 readers look up published
 *             batches in every form, and a rotator thread rotates a 4-generation
 *             window all the while. A batch is published with the rotation
 *             count read before its insert (r0); its keys live in a
 *             generation >= r0, which no rotate drops before r0 + G - 1
 *             rotations have completed. (1) A reader that reads the rotation
 *             count after its lookup (behind an acquire fence: a reader that
 *             saw a zeroed word then sees the drain's phase) and finds it <=
 *             r0 + G - 2 must have found every key; (2) afterwards every batch
 *             whose generation is still live is found (no insert lost);
 *             (3) every shared key was reported new by at least one writer.
 *
 *   persist   a concurrent window and a concurrent scalable filter are
 *             serialized, cloned and streamed (bloomsimd_serialize_stream
 *             then _deserialize_stream) in turn, again and again, while
 *             writers insert and a rotator rotates (the window) or the filter
 *             grows (scalable): every image deserializes (it is a
 *             self-consistent snapshot) and holds every key whose insert
 *             finished before the snapshot began.
 *
 * scripts/tsan.sh builds this file without Criterion (tests/standalone.h) and
 * runs it under ThreadSanitizer for every kernel.
 */
#include <pthread.h>
#include <sched.h>
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
    po.kernel = "scalar"; /* the reference: one thread, the scalar kernel */
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
    size_t none = 0, told = 0;
    for (size_t i = 0; i < KEYS; i++) {
        int any = 0;
        for (size_t t = 0; t < threads; t++) any |= r.flags[t][i], told += r.flags[t][i];
        none += !any;
    }
    /* every call counts exactly the keys it reports new, under the race too */
    bloomsimd_info info;
    bloomsimd_get_info(r.filter, &info);
    cr_assert_eq(info.items, told, "%zu threads: the filter counts %llu new keys, the writers were told %zu",
                 threads, (unsigned long long)info.items, told);
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
static const bloomsimd_options new_large = {
    .capacity = 1000000, .fpr = 1e-4, .seed = 21, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
static const bloomsimd_options new_small = {.bits = 512 * 64, .k = 8, .seed = 22, .layout = BLOOMSIMD_LAYOUT_BLOCK512};

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

/* The same in layout split256 (kernels/layout_split256.h). */
static const bloomsimd_options new_large256 = {
    .capacity = 1000000, .fpr = 1e-4, .seed = 23, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
static const bloomsimd_options new_small256 = {.bits = 256 * 64, .seed = 24, .layout = BLOOMSIMD_LAYOUT_SPLIT256};

Test(concurrency_new, split256_add_new_same_keys_two_and_four_threads)
{
    run_add_new(2, &new_large256, true);
    run_add_new(2, &new_small256, false);
    run_add_new(4, &new_large256, true);
    run_add_new(4, &new_small256, false);
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

/* unreported: shared keys a false positive may hide from every writer
 * (0 at a chain FPR of 1e-8; the growth-1 chain's is near 1e-6). */
static void run_scalable_race(const bloomsimd_options *o, uint32_t min_layers, size_t unreported)
{
    sc_run r;
    memset(&r, 0, sizeof r);
    r.filter = test_filter(o);
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
    cr_assert(none <= unreported, "%zu shared keys were reported new by no writer", none);
    cr_assert_eq(bloomsimd_contains_batch_u64(r.filter, r.shared, SC_SHARED, NULL), SC_SHARED);
    for (size_t t = 0; t < SC_WRITERS; t++)
        cr_assert_eq(bloomsimd_contains_batch_u64(r.filter, r.own[t], SC_OWN, NULL), SC_OWN);
    bloomsimd_info info;
    bloomsimd_get_info(r.filter, &info);
    cr_assert(info.layers >= min_layers, "only %u layers", info.layers);
    size_t told = r.fresh[0] + r.fresh[1] + r.fresh[2];
    cr_assert_eq(info.items, told, "layers count %llu keys, writers were told %zu new",
                 (unsigned long long)info.items, told);
    for (uint32_t i = 0; i < info.layers; i++) {
        const bloomsimd_filter *layer = bloomsimd_layer_get(r.filter->layers, i);
        cr_assert(layer->items <= layer->capacity);
    }
    free(r.shared);
    for (size_t t = 0; t < SC_WRITERS; t++) {
        free(r.own[t]);
        free(r.shared_flags[t]);
    }
    bloomsimd_destroy(r.filter);
}

Test(concurrency_new, scalable_grows_while_writers_race)
{
    bloomsimd_options o = {.capacity = 2000, .fpr = 1e-8, .growth = 2, .tightening = 0.9, .seed = 23,
                           .flags = BLOOMSIMD_CONCURRENT};
    run_scalable_race(&o, 4, 0);
}

/* Growth 1 from 100 keys: hundreds of layers, so the layer table grows past
 * its 64 inline slots into segments (64, 128, 256 slots) while readers probe
 * it without a lock. */
Test(concurrency_new, scalable_table_grows_past_64_layers_while_readers_run)
{
    bloomsimd_options o = {.capacity = 100, .fpr = 1e-6, .growth = 1, .seed = 25, .flags = BLOOMSIMD_CONCURRENT};
    run_scalable_race(&o, 257, 2);
}

/* ---- window: rotate while writers and readers run ---- */

#define WN_G 4
#define WN_WRITERS 2
#define WN_READERS 2
#define WN_STEP 256
#define WN_BATCHES 120
/* The rotator stops after this many rotations: the writers' pacing needs
 * (WN_BATCHES - 1) / 8, and one more keeps the last batches' generations
 * live at the end (r0 >= cap - 1, so rotations + 2 <= r0 + WN_G for
 * WN_G >= 3), so the final no-insert-lost check always has batches to check
 * however fast the rotator runs. */
#define WN_ROTATION_CAP ((WN_BATCHES - 1) / 8 + 1)

typedef struct wn_run {
    bloomsimd_filter *filter;
    uint64_t *own[WN_WRITERS];
    uint64_t *own_hashes[WN_WRITERS];
    uint64_t *shared;
    uint8_t *shared_flags[WN_WRITERS];
    uint64_t r0[WN_WRITERS][WN_BATCHES]; /* rotation count before batch b's insert */
    size_t progress[WN_WRITERS];         /* batches published (release/acquire) */
    int writers_done;                    /* atomic */
    size_t missed, checked;              /* atomic */
    int bad_status;                      /* atomic */
} wn_run;

typedef struct wn_worker {
    wn_run *run;
    size_t id;
} wn_worker;

static uint64_t wn_rotations(const bloomsimd_filter *f)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    return info.rotations;
}

static void *wn_writer(void *arg)
{
    wn_worker *w = arg;
    wn_run *r = w->run;
    for (size_t b = 0; b < WN_BATCHES; b++) {
        const uint64_t *keys = r->own[w->id] + b * WN_STEP;
        /* pace: about one rotation per 8 batches, so inserts and rotates interleave */
        while (wn_rotations(r->filter) < b / 8) sched_yield();
        uint64_t r0 = wn_rotations(r->filter);
        bloomsimd_status st = BLOOMSIMD_OK;
        switch ((b + w->id) % 4) {
        case 0: st = bloomsimd_add_batch_u64(r->filter, keys, WN_STEP); break;
        case 1: st = bloomsimd_add_new_batch_u64(r->filter, keys, WN_STEP, NULL, NULL); break;
        case 2: st = bloomsimd_add_new_hashes(r->filter, r->own_hashes[w->id] + b * WN_STEP, WN_STEP, NULL, NULL); break;
        default:
            for (size_t i = 0; i < WN_STEP && st == BLOOMSIMD_OK; i++) st = bloomsimd_add_u64(r->filter, keys[i]);
        }
        size_t fresh = 0, sum = 0;
        uint8_t *flags = r->shared_flags[w->id] + b * WN_STEP;
        if (st == BLOOMSIMD_OK)
            st = bloomsimd_add_new_batch_u64(r->filter, r->shared + b * WN_STEP, WN_STEP, flags, &fresh);
        for (size_t i = 0; i < WN_STEP; i++) sum += flags[i];
        if (st != BLOOMSIMD_OK || sum != fresh) __atomic_store_n(&r->bad_status, 1, __ATOMIC_RELAXED);
        r->r0[w->id][b] = r0;
        __atomic_store_n(&r->progress[w->id], b + 1, __ATOMIC_RELEASE);
    }
    __atomic_fetch_add(&r->writers_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *wn_reader(void *arg)
{
    wn_worker *w = arg;
    wn_run *r = w->run;
    uint64_t rng = 77 + w->id;
    uint8_t out[WN_STEP], bitmap[WN_STEP / 8];
    uint32_t idx[WN_STEP];
    size_t round = 0;
    while (__atomic_load_n(&r->writers_done, __ATOMIC_ACQUIRE) < WN_WRITERS) {
        size_t v = test_splitmix64(&rng) % WN_WRITERS;
        size_t ready = __atomic_load_n(&r->progress[v], __ATOMIC_ACQUIRE);
        if (ready == 0) continue;
        size_t b = ready - 1 - (size_t)(test_splitmix64(&rng) % (ready < 3 ? ready : 3)); /* recent batches */
        const uint64_t *keys = r->own[v] + b * WN_STEP;
        size_t found = 0;
        switch (round++ % 4) {
        case 0: found = bloomsimd_contains_batch_u64(r->filter, keys, WN_STEP, out); break;
        case 1: found = bloomsimd_select_batch_u64(r->filter, keys, WN_STEP, idx); break;
        case 2: found = bloomsimd_contains_bitmap_u64(r->filter, keys, WN_STEP, bitmap); break;
        default:
            for (size_t i = 0; i < WN_STEP; i++) found += bloomsimd_contains_u64(r->filter, keys[i]);
        }
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan" /* TSan does not model fences; the accesses it checks are all atomic */
#endif
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
        if (wn_rotations(r->filter) + 2 <= r->r0[v][b] + WN_G) {
            __atomic_fetch_add(&r->missed, WN_STEP - found, __ATOMIC_RELAXED);
            __atomic_fetch_add(&r->checked, WN_STEP, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

static void *wn_rotator(void *arg)
{
    wn_run *r = arg;
    while (__atomic_load_n(&r->writers_done, __ATOMIC_ACQUIRE) < WN_WRITERS &&
           wn_rotations(r->filter) < WN_ROTATION_CAP) {
        if (bloomsimd_rotate(r->filter) != BLOOMSIMD_OK) __atomic_store_n(&r->bad_status, 2, __ATOMIC_RELAXED);
        for (int i = 0; i < 50; i++) sched_yield();
    }
    return NULL;
}

Test(concurrency_new, window_rotates_while_writers_and_readers_run)
{
    wn_run r;
    memset(&r, 0, sizeof r);
    bloomsimd_options o = {.capacity = 100000, .fpr = 1e-6, .generations = WN_G, .seed = 24,
                           .flags = BLOOMSIMD_CONCURRENT};
    r.filter = test_filter(&o);
    r.shared = test_keys(WN_BATCHES * WN_STEP, 700);
    for (size_t t = 0; t < WN_WRITERS; t++) {
        r.own[t] = test_keys(WN_BATCHES * WN_STEP, 701 + t);
        r.own_hashes[t] = malloc(WN_BATCHES * WN_STEP * sizeof(uint64_t));
        r.shared_flags[t] = calloc(WN_BATCHES * WN_STEP, 1);
        cr_assert(r.own_hashes[t] && r.shared_flags[t]);
        bloomsimd_hash_batch_u64(r.filter, r.own[t], WN_BATCHES * WN_STEP, r.own_hashes[t]);
    }
    pthread_t tid[WN_WRITERS + WN_READERS + 1];
    wn_worker workers[WN_WRITERS + WN_READERS];
    for (size_t t = 0; t < WN_WRITERS + WN_READERS; t++) {
        workers[t] = (wn_worker){&r, t < WN_WRITERS ? t : t - WN_WRITERS};
        cr_assert_eq(pthread_create(&tid[t], NULL, t < WN_WRITERS ? wn_writer : wn_reader, &workers[t]), 0);
    }
    cr_assert_eq(pthread_create(&tid[WN_WRITERS + WN_READERS], NULL, wn_rotator, &r), 0);
    for (size_t t = 0; t < WN_WRITERS + WN_READERS + 1; t++) pthread_join(tid[t], NULL);
    cr_assert_eq(r.bad_status, 0, "an insert or rotate failed, or a count did not match its flags");
    cr_assert_eq(r.missed, 0, "readers missed %zu of %zu keys of live generations", r.missed, r.checked);
    uint64_t rotations = wn_rotations(r.filter);
    cr_assert(rotations >= (WN_BATCHES - 1) / 8, "only %llu rotations ran", (unsigned long long)rotations);
    size_t live = 0;
    for (size_t t = 0; t < WN_WRITERS; t++)
        for (size_t b = 0; b < WN_BATCHES; b++)
            if (rotations + 2 <= r.r0[t][b] + WN_G) {
                live++;
                cr_assert_eq(bloomsimd_contains_batch_u64(r.filter, r.own[t] + b * WN_STEP, WN_STEP, NULL), WN_STEP,
                             "writer %zu batch %zu (r0 %llu, now %llu): insert lost", t, b,
                             (unsigned long long)r.r0[t][b], (unsigned long long)rotations);
            }
    cr_assert(live > 0);
    size_t none = 0;
    for (size_t i = 0; i < WN_BATCHES * WN_STEP; i++) none += !(r.shared_flags[0][i] | r.shared_flags[1][i]);
    cr_assert_eq(none, 0, "%zu shared keys were reported new by no writer", none);
    free(r.shared);
    for (size_t t = 0; t < WN_WRITERS; t++) {
        free(r.own[t]);
        free(r.own_hashes[t]);
        free(r.shared_flags[t]);
    }
    bloomsimd_destroy(r.filter);
}

/* ---- persistence while others insert, grow and rotate ---- */

#define PS_KEYS 60000
#define PS_STEP 300

typedef struct ps_run {
    bloomsimd_filter *filter;
    uint64_t *keys;
    uint64_t r0[PS_KEYS / PS_STEP]; /* window: rotation count before batch b's insert */
    size_t progress; /* keys inserted (release/acquire) */
    int done;        /* atomic */
    int bad;         /* atomic */
} ps_run;

static void *ps_writer(void *arg)
{
    ps_run *r = arg;
    for (size_t base = 0; base < PS_KEYS; base += PS_STEP) {
        bloomsimd_info info;
        bloomsimd_get_info(r->filter, &info);
        r->r0[base / PS_STEP] = info.rotations;
        if (bloomsimd_add_new_batch_u64(r->filter, r->keys + base, PS_STEP, NULL, NULL) != BLOOMSIMD_OK)
            __atomic_store_n(&r->bad, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&r->progress, base + PS_STEP, __ATOMIC_RELEASE);
        if (r->filter->layers->kind == BLOOMSIMD_KIND_WINDOW && base % (20 * PS_STEP) == 0 &&
            bloomsimd_rotate(r->filter) != BLOOMSIMD_OK)
            __atomic_store_n(&r->bad, 2, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A growing heap buffer for bloomsimd_serialize_stream. */
typedef struct ps_sink {
    uint8_t *buf;
    size_t len, cap, pos; /* pos: where ps_read is */
} ps_sink;

static bloomsimd_status ps_write(void *ctx, const void *buf, size_t len)
{
    ps_sink *s = ctx;
    if (s->len + len > s->cap) {
        size_t cap = 2 * (s->len + len);
        uint8_t *grown = realloc(s->buf, cap);
        if (!grown) return BLOOMSIMD_ERR_NO_MEMORY;
        s->buf = grown, s->cap = cap;
    }
    memcpy(s->buf + s->len, buf, len);
    s->len += len;
    return BLOOMSIMD_OK;
}

static bloomsimd_status ps_read(void *ctx, void *buf, size_t len, size_t *got)
{
    ps_sink *s = ctx;
    size_t n = s->len - s->pos < len ? s->len - s->pos : len;
    if (n) memcpy(buf, s->buf + s->pos, n);
    s->pos += n;
    *got = n;
    return BLOOMSIMD_OK;
}

/* A snapshot of the filter by image kind: 0 serialize + deserialize, 1
 * bloomsimd_clone, 2 serialize_stream + deserialize_stream. */
static bloomsimd_filter *snapshot(bloomsimd_filter *f, size_t kind)
{
    bloomsimd_filter *copy = NULL;
    bloomsimd_status st;
    if (kind == 1) {
        st = bloomsimd_clone(&copy, f);
        cr_assert_eq(st, BLOOMSIMD_OK, "clone: %s", bloomsimd_status_string(st));
        return copy;
    }
    if (kind == 2) {
        ps_sink s = {0};
        st = bloomsimd_serialize_stream(f, ps_write, &s);
        cr_assert_eq(st, BLOOMSIMD_OK, "serialize_stream: %s", bloomsimd_status_string(st));
        st = bloomsimd_deserialize_stream(&copy, ps_read, &s, NULL);
        cr_assert_eq(st, BLOOMSIMD_OK, "streamed image does not load: %s", bloomsimd_status_string(st));
        free(s.buf);
        return copy;
    }
    size_t len = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(len + (1 << 20)); /* room for a grow in between */
    cr_assert_not_null(buf);
    size_t written = 0;
    st = bloomsimd_serialize(f, buf, len + (1 << 20), &written);
    cr_assert_eq(st, BLOOMSIMD_OK, "serialize: %s", bloomsimd_status_string(st));
    st = bloomsimd_deserialize(&copy, buf, written);
    cr_assert_eq(st, BLOOMSIMD_OK, "image does not load: %s", bloomsimd_status_string(st));
    free(buf);
    return copy;
}

static void serialize_while_writing(const bloomsimd_options *o)
{
    ps_run r = {0};
    r.filter = test_filter(o);
    r.keys = test_keys(PS_KEYS, 800);
    pthread_t writer;
    cr_assert_eq(pthread_create(&writer, NULL, ps_writer, &r), 0);
    size_t images = 0;
    while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) || images < 6) {
        size_t before = __atomic_load_n(&r.progress, __ATOMIC_ACQUIRE);
        bloomsimd_filter *copy = snapshot(r.filter, images % 3);
        /* keys inserted before the serialize began, and whose generation is
         * live in the image (rotations in the image <= r0 + G - 2) */
        bloomsimd_info image;
        bloomsimd_get_info(copy, &image);
        for (size_t b = 0; b < before / PS_STEP; b++)
            if (!o->generations || image.rotations + 2 <= r.r0[b] + o->generations)
                cr_assert_eq(bloomsimd_contains_batch_u64(copy, r.keys + b * PS_STEP, PS_STEP, NULL), PS_STEP,
                             "image %zu misses batch %zu, inserted before it", images, b);
        bloomsimd_destroy(copy);
        images++;
    }
    pthread_join(writer, NULL);
    cr_assert_eq(r.bad, 0);
    free(r.keys);
    bloomsimd_destroy(r.filter);
}

Test(concurrency_new, serialize_while_inserting_growing_and_rotating)
{
    bloomsimd_options window = {.capacity = 20000, .fpr = 0.001, .generations = 4, .seed = 25,
                                .flags = BLOOMSIMD_CONCURRENT};
    serialize_while_writing(&window);
    bloomsimd_options grow = {.capacity = 1000, .fpr = 0.001, .growth = 2, .seed = 26, .flags = BLOOMSIMD_CONCURRENT};
    serialize_while_writing(&grow);
}
