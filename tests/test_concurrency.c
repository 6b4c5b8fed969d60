/*
 * test_concurrency.c — BLOOMSIMD_CONCURRENT on this run's kernel.
 *
 * Invariants: 2..8 threads insert disjoint key sets into one concurrent
 * filter (through every insert path: fused batch, pre-hashed batch, single
 * keys) while reader threads query it (batch, pre-hashed, single) and read
 * its occupancy. (1) A key is found by every reader that has synchronised
 * with the insert (acquire of the writer's published progress): a reader
 * never sees a published key missing. (2) Afterwards every key is found and
 * the filter equals, byte for byte, the filter one thread builds from the
 * same keys without the flag on the scalar kernel: no OR was lost. Both
 * layouts. A union into the filter
 * running at the same time loses nothing either.
 *
 * scripts/tsan.sh runs this suite under ThreadSanitizer for every kernel.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#ifndef BLOOMSIMD_TSAN_STANDALONE
#include <criterion/criterion.h>
#else
/* Criterion cannot start under ThreadSanitizer (its boxfort arena mapping
 * fails: Criterion issue #274), so scripts/tsan.sh builds this file as a
 * plain pthread program: the few Criterion macros used here become checks
 * that print and exit 1, Test() registers a function that main() runs, and
 * tests/support.c's test_filter is re-stated; the key helpers come from
 * tests/support_keys.c, shared with the Criterion build. */
#include <stdarg.h>
#include <stdio.h>

/* fmt is "" when the assertion has no message (so no format attribute). */
static void standalone_check(bool ok, int line, const char *expr, const char *fmt, ...)
{
    if (ok) return;
    fprintf(stderr, "%s:%d: assertion failed: %s\n  ", __FILE__, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}
#define cr_assert(cond, ...) standalone_check((cond), __LINE__, #cond, "" __VA_ARGS__)
#define cr_assert_eq(a, b, ...) standalone_check((a) == (b), __LINE__, #a " == " #b, "" __VA_ARGS__)
#define cr_assert_not_null(p, ...) standalone_check((p) != NULL, __LINE__, #p " != NULL", "" __VA_ARGS__)

typedef struct standalone_test {
    void (*fn)(void);
    const char *name;
} standalone_test;
static standalone_test standalone_tests[16];
static size_t standalone_count;

static void standalone_register(void (*fn)(void), const char *name)
{
    if (standalone_count < sizeof standalone_tests / sizeof standalone_tests[0])
        standalone_tests[standalone_count++] = (standalone_test){fn, name};
}

#define Test(suite, name)                                                                                          \
    static void suite##_##name(void);                                                                              \
    __attribute__((constructor)) static void register_##suite##_##name(void)                                       \
    {                                                                                                              \
        standalone_register(suite##_##name, #suite "::" #name);                                                    \
    }                                                                                                              \
    static void suite##_##name(void)

bloomsimd_filter *test_filter(const bloomsimd_options *o)
{
    bloomsimd_options copy = *o;
    if (!copy.kernel) copy.kernel = test_kernel();
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create_with(&f, &copy), BLOOMSIMD_OK);
    return f;
}

int main(void)
{
    const char *k = getenv("BLOOMSIMD_KERNEL");
    if (k && *k && !bloomsimd_kernel_supported(k)) {
        fprintf(stderr, "SKIP: kernel '%s' cannot run here\n", k);
        return 77;
    }
    for (size_t i = 0; i < standalone_count; i++) {
        standalone_tests[i].fn();
        printf("[PASS] %s (kernel %s)\n", standalone_tests[i].name, test_kernel());
    }
    return 0;
}
#endif

#define MAX_WRITERS 8
#define READERS 2
#define KEYS_PER_WRITER 40000
#define STEP 500 /* keys per insert call, and the granularity of published progress */

typedef struct shared {
    bloomsimd_filter *filter;
    const bloomsimd_filter *merge_src; /* union-ed in by a writer mid-run, or NULL */
    uint64_t *keys[MAX_WRITERS];
    uint64_t *hashes[MAX_WRITERS];
    size_t progress[MAX_WRITERS]; /* keys of writer w published as inserted (release/acquire) */
    size_t writers;
    int writers_done;   /* atomic */
    size_t missed;      /* atomic: published keys a reader did not find */
    size_t reads;       /* atomic: keys checked by readers */
    int bad_status;     /* atomic: an insert or union returned an error */
} shared;

typedef struct worker {
    shared *s;
    size_t id;
} worker;

static void *writer_main(void *arg)
{
    worker *w = arg;
    shared *s = w->s;
    const uint64_t *keys = s->keys[w->id];
    const uint64_t *hashes = s->hashes[w->id];
    for (size_t base = 0; base < KEYS_PER_WRITER; base += STEP) {
        bloomsimd_status st = BLOOMSIMD_OK;
        switch ((base / STEP + w->id) % 3) {
        case 0: st = bloomsimd_add_batch_u64(s->filter, keys + base, STEP); break;
        case 1: st = bloomsimd_add_hashes(s->filter, hashes + base, STEP); break;
        default:
            for (size_t i = base; i < base + STEP && st == BLOOMSIMD_OK; i++) st = bloomsimd_add_u64(s->filter, keys[i]);
        }
        if (st != BLOOMSIMD_OK) __atomic_store_n(&s->bad_status, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&s->progress[w->id], base + STEP, __ATOMIC_RELEASE);
        if (w->id == 0 && base == KEYS_PER_WRITER / 2 && s->merge_src &&
            bloomsimd_union(s->filter, s->merge_src) != BLOOMSIMD_OK)
            __atomic_store_n(&s->bad_status, 1, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&s->writers_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *reader_main(void *arg)
{
    worker *w = arg;
    shared *s = w->s;
    uint8_t out[STEP];
    uint64_t rng = 777 + w->id;
    size_t round = 0;
    while (__atomic_load_n(&s->writers_done, __ATOMIC_ACQUIRE) < (int)s->writers) {
        size_t v = test_splitmix64(&rng) % s->writers;
        size_t ready = __atomic_load_n(&s->progress[v], __ATOMIC_ACQUIRE);
        if (ready == 0) continue;
        size_t from = (size_t)(test_splitmix64(&rng) % ready);
        size_t n = ready - from < STEP ? ready - from : STEP;
        size_t found = 0;
        switch (round++ % 4) {
        case 0: found = bloomsimd_contains_batch_u64(s->filter, s->keys[v] + from, n, out); break;
        case 1: found = bloomsimd_contains_hashes(s->filter, s->hashes[v] + from, n, out); break;
        case 2:
            for (size_t i = 0; i < n; i++) found += bloomsimd_contains_u64(s->filter, s->keys[v][from + i]);
            break;
        default:
            /* Occupancy reads race with inserts too; the value only has to be sane. */
            if (!(bloomsimd_fill_ratio(s->filter) > 0.0) || !(bloomsimd_estimate_count(s->filter) > 0.0))
                __atomic_store_n(&s->bad_status, 1, __ATOMIC_RELAXED);
            found = bloomsimd_contains_batch_u64(s->filter, s->keys[v] + from, n, NULL);
        }
        __atomic_fetch_add(&s->missed, n - found, __ATOMIC_RELAXED);
        __atomic_fetch_add(&s->reads, n, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void run(size_t writers, const bloomsimd_options *geometry, bool with_union)
{
    shared s;
    memset(&s, 0, sizeof s);
    s.writers = writers;
    bloomsimd_options co = *geometry, po = *geometry;
    co.flags |= BLOOMSIMD_CONCURRENT;
    po.kernel = "scalar"; /* the reference: one thread, the scalar kernel */
    s.filter = test_filter(&co);
    bloomsimd_filter *reference = test_filter(&po);
    bloomsimd_filter *merge = NULL;
    uint64_t *merge_keys = NULL;
    if (with_union) {
        merge_keys = test_keys(KEYS_PER_WRITER, 99);
        merge = test_filter(&po);
        cr_assert_eq(bloomsimd_add_batch_u64(merge, merge_keys, KEYS_PER_WRITER), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(reference, merge_keys, KEYS_PER_WRITER), BLOOMSIMD_OK);
        s.merge_src = merge;
    }
    for (size_t w = 0; w < writers; w++) {
        s.keys[w] = test_keys(KEYS_PER_WRITER, 100 + w);
        s.hashes[w] = malloc(KEYS_PER_WRITER * sizeof(uint64_t));
        cr_assert_not_null(s.hashes[w]);
        bloomsimd_hash_batch_u64(s.filter, s.keys[w], KEYS_PER_WRITER, s.hashes[w]);
        cr_assert_eq(bloomsimd_add_batch_u64(reference, s.keys[w], KEYS_PER_WRITER), BLOOMSIMD_OK);
    }

    pthread_t threads[MAX_WRITERS + READERS];
    worker workers[MAX_WRITERS + READERS];
    for (size_t t = 0; t < writers + READERS; t++) {
        workers[t] = (worker){.s = &s, .id = t < writers ? t : t - writers};
        int rc = pthread_create(&threads[t], NULL, t < writers ? writer_main : reader_main, &workers[t]);
        cr_assert_eq(rc, 0, "pthread_create");
    }
    for (size_t t = 0; t < writers + READERS; t++) pthread_join(threads[t], NULL);

    cr_assert_eq(s.bad_status, 0, "an insert, union or occupancy read failed during the run");
    cr_assert_eq(s.missed, 0, "%zu writers: readers missed %zu of %zu published keys", writers, s.missed, s.reads);
    for (size_t w = 0; w < writers; w++)
        cr_assert_eq(bloomsimd_contains_batch_u64(s.filter, s.keys[w], KEYS_PER_WRITER, NULL), KEYS_PER_WRITER,
                     "writer %zu: keys lost", w);
    if (merge_keys)
        cr_assert_eq(bloomsimd_contains_batch_u64(s.filter, merge_keys, KEYS_PER_WRITER, NULL), KEYS_PER_WRITER);
    cr_assert_eq(bloomsimd_filter_bytes(s.filter), bloomsimd_filter_bytes(reference));
    cr_assert(memcmp(s.filter->geometry.words, reference->geometry.words, bloomsimd_filter_bytes(reference)) == 0,
              "%zu writers: concurrent filter differs from the single-threaded one", writers);

    for (size_t w = 0; w < writers; w++) {
        free(s.keys[w]);
        free(s.hashes[w]);
    }
    free(merge_keys);
    bloomsimd_destroy(merge);
    bloomsimd_destroy(reference);
    bloomsimd_destroy(s.filter);
}

/* small: 64 blocks, so threads keep hitting the same block and word
 * (contended ORs on shared lines). large: ~6 MiB, beyond one core's 2 MiB
 * L2, so inserts miss and stay in flight while other threads write. */
static const bloomsimd_options small = {.bits = 512 * 64, .k = 8, .seed = 11, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
static const bloomsimd_options large = {
    .capacity = 8 * KEYS_PER_WRITER * 16, .fpr = 0.01, .seed = 12, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
/* The same two sizes in layout split256 (kernels/layout_split256.h). */
static const bloomsimd_options small256 = {.bits = 256 * 64, .seed = 13, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
static const bloomsimd_options large256 = {
    .capacity = 8 * KEYS_PER_WRITER * 16, .fpr = 0.01, .seed = 14, .layout = BLOOMSIMD_LAYOUT_SPLIT256};

Test(concurrency, two_writers_two_readers_lose_nothing)
{
    run(2, &small, false);
    run(2, &large, false);
}

Test(concurrency, four_writers_two_readers_lose_nothing)
{
    run(4, &small, false);
    run(4, &large, false);
}

Test(concurrency, eight_writers_two_readers_lose_nothing)
{
    run(8, &small, false);
    run(8, &large, false);
}

Test(concurrency, union_during_concurrent_inserts_loses_nothing)
{
    run(3, &small, true);
    run(3, &large, true);
}

Test(concurrency, split256_writers_readers_and_a_union_lose_nothing)
{
    run(2, &small256, false);
    run(4, &large256, false);
    run(8, &small256, false);
    run(3, &small256, true);
    run(3, &large256, true);
}
