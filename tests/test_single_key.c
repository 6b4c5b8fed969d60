/*
 * test_single_key.c — the single-key calls (bloomsimd_add_u64, _contains_u64,
 * _add, _contains, _add_new_u64, _add_new) against the batched calls of the
 * scalar reference, on this
 * run's kernel, for every layout, every k of block512, plain and concurrent
 * filters, Parquet filters, scalable filters and windows, read-only mappings
 * and Parquet views. A filter binds its single-key functions when it is made
 * (src/single_key.c); a binding to the wrong layout, hash, kind or access
 * changes the bits or the answers, or lets a write through, and fails here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define KEYS 3000u
#define PROBES 20000u

/* The filter's bit array: the serialized payload after the 4096-byte header
 * (docs/FORMAT.md), which also holds counters that batches keep and single
 * calls do not. Caller frees *bits. */
static size_t filter_bits(const bloomsimd_filter *f, uint8_t **bits)
{
    size_t len = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(len);
    size_t written;
    cr_assert_eq(bloomsimd_serialize(f, buf, len, &written), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    cr_assert_gt(written, 4096u);
    *bits = buf;
    return written;
}

static void assert_same_bits(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    uint8_t *x, *y;
    size_t nx = filter_bits(a, &x), ny = filter_bits(b, &y);
    cr_assert_eq(nx, ny, "%s: sizes %zu and %zu", what, nx, ny);
    cr_assert(memcmp(x + 4096, y + 4096, nx - 4096) == 0,
              "%s: the single-key inserts set other bits than the reference's batch (kernel %s)", what, test_kernel());
    free(x);
    free(y);
}

/* Each key of `keys` (and PROBES absent ones) answers the same one at a time
 * on f as in one batch on the reference; returns the hits among the absent. */
static size_t assert_same_answers_u64(const bloomsimd_filter *f, const bloomsimd_filter *ref, const uint64_t *keys,
                                      size_t n, const char *what)
{
    uint64_t *absent = test_keys(PROBES, 77);
    uint8_t *want = malloc(PROBES);
    bloomsimd_contains_batch_u64(ref, absent, PROBES, want);
    size_t false_hits = 0;
    for (size_t i = 0; i < PROBES; i++) {
        bool got = bloomsimd_contains_u64(f, absent[i]);
        cr_assert_eq(got, want[i] != 0, "%s: absent key %zu answers %d one at a time, %d in a batch", what, i, got,
                     want[i]);
        false_hits += got;
    }
    for (size_t i = 0; i < n; i++) cr_assert(bloomsimd_contains_u64(f, keys[i]), "%s: key %zu missed", what, i);
    free(absent);
    free(want);
    return false_hits;
}

static bloomsimd_filter *made(bloomsimd_options o, const char *kernel)
{
    o.kernel = kernel;
    return test_filter(&o);
}

/* Single u64 inserts on this kernel == a batch on scalar, and the lookups agree. */
static void check_u64(bloomsimd_options o, const char *what)
{
    bloomsimd_filter *f = made(o, test_kernel()), *ref = made(o, "scalar");
    uint64_t *keys = test_keys(KEYS, 3);
    for (size_t i = 0; i < KEYS; i++) cr_assert_eq(bloomsimd_add_u64(f, keys[i]), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(ref, keys, KEYS), BLOOMSIMD_OK);
    assert_same_bits(f, ref, what);
    size_t false_hits = assert_same_answers_u64(f, ref, keys, KEYS, what);
    /* a filter this full answers some absent keys yes: both sides of a
     * comparison of answers must have had something to disagree on */
    cr_assert_gt(false_hits, 0u, "%s: no false positive among %u absent keys", what, PROBES);
    free(keys);
    bloomsimd_destroy(f);
    bloomsimd_destroy(ref);
}

/* The same for byte keys of 0..40 bytes. */
static void check_bytes(bloomsimd_options o, const char *what)
{
    bloomsimd_filter *f = made(o, test_kernel()), *ref = made(o, "scalar");
    enum { N = 2000 };
    static uint8_t data[N][40];
    static const void *ptrs[N];
    static size_t lens[N];
    uint64_t s = 9;
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < 40; j++) data[i][j] = (uint8_t)test_splitmix64(&s);
        ptrs[i] = data[i];
        lens[i] = i % 41;
    }
    for (size_t i = 0; i < N / 2; i++) cr_assert_eq(bloomsimd_add(f, ptrs[i], lens[i]), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch(ref, ptrs, lens, N / 2), BLOOMSIMD_OK);
    assert_same_bits(f, ref, what);
    uint8_t want[N];
    bloomsimd_contains_batch(ref, ptrs, lens, N, want);
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(bloomsimd_contains(f, ptrs[i], lens[i]), want[i] != 0, "%s: byte key %zu", what, i);
    bloomsimd_destroy(f);
    bloomsimd_destroy(ref);
}

/* Insert-and-report-new one key at a time on this kernel == one batch of
 * the same keys on scalar: each key's report, the bits and the count of new
 * keys. A quarter of the keys come again (the first time is new, the repeat
 * is not), so a report that is always yes or always no fails here. */
static void check_add_new_u64(bloomsimd_options o, const char *what)
{
    bloomsimd_filter *f = made(o, test_kernel()), *ref = made(o, "scalar");
    enum { N = KEYS + KEYS / 4 };
    uint64_t *fresh = test_keys(KEYS, 21), seq[N];
    for (size_t i = 0; i < N; i++) seq[i] = i < KEYS ? fresh[i] : fresh[(i * 7) % KEYS];
    uint8_t want[N];
    size_t want_new;
    cr_assert_eq(bloomsimd_add_new_batch_u64(ref, seq, N, want, &want_new), BLOOMSIMD_OK);
    size_t got_new = 0;
    for (size_t i = 0; i < N; i++) {
        bool was_new = !want[i]; /* the opposite of the answer: the call must write it */
        cr_assert_eq(bloomsimd_add_new_u64(f, seq[i], &was_new), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        cr_assert_eq(was_new, want[i] != 0, "%s: key %zu reported %s one at a time, %s in a batch", what, i,
                     was_new ? "new" : "seen", want[i] ? "new" : "seen");
        got_new += was_new;
    }
    cr_assert_gt(want_new, KEYS / 2, "%s: the keys were new", what);
    cr_assert_lt(want_new, N, "%s: the repeats were seen", what);
    cr_assert_eq(bloomsimd_add_new_u64(f, seq[0], NULL), BLOOMSIMD_OK, "%s: no report wanted", what);
    assert_same_bits(f, ref, what);
    bloomsimd_info a, b;
    bloomsimd_get_info(f, &a);
    bloomsimd_get_info(ref, &b);
    cr_assert_eq(got_new, want_new, "%s", what);
    cr_assert_eq(a.items, b.items, "%s: %llu keys counted new one at a time, %llu in a batch", what,
                 (unsigned long long)a.items, (unsigned long long)b.items);
    free(fresh);
    bloomsimd_destroy(f);
    bloomsimd_destroy(ref);
}

/* The same for byte keys (bloomsimd_add_new against bloomsimd_add_new_batch). */
static void check_add_new_bytes(bloomsimd_options o, const char *what)
{
    bloomsimd_filter *f = made(o, test_kernel()), *ref = made(o, "scalar");
    enum { N = 1500 };
    static uint8_t data[N][24];
    static const void *ptrs[N];
    static size_t lens[N];
    uint64_t s = 13;
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < 24; j++) data[i][j] = (uint8_t)test_splitmix64(&s);
        ptrs[i] = i < 1200 ? data[i] : data[i % 300]; /* the last 300 repeat keys */
        lens[i] = i < 1200 ? i % 25 : (i % 300) % 25;
    }
    uint8_t want[N];
    size_t want_new;
    cr_assert_eq(bloomsimd_add_new_batch(ref, ptrs, lens, N, want, &want_new), BLOOMSIMD_OK);
    for (size_t i = 0; i < N; i++) {
        bool was_new = !want[i];
        cr_assert_eq(bloomsimd_add_new(f, ptrs[i], lens[i], &was_new), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        cr_assert_eq(was_new, want[i] != 0, "%s: byte key %zu", what, i);
    }
    cr_assert(want_new > 0 && want_new < N, "%s: %zu of %d new", what, want_new, N);
    assert_same_bits(f, ref, what);
    bloomsimd_info a, b;
    bloomsimd_get_info(f, &a);
    bloomsimd_get_info(ref, &b);
    cr_assert_eq(a.items, b.items, "%s: items", what);
    bloomsimd_destroy(f);
    bloomsimd_destroy(ref);
}

/* 64-bit keys on every geometry; byte keys on split256 and block512 k = 6 with XXH3 (their hash
 * is XXH3 of the bytes whatever the 64-bit one is). */
static void check_add_new(bloomsimd_options o, const char *what)
{
    check_add_new_u64(o, what);
    if (!(o.flags & BLOOMSIMD_U64_MUM) && (o.k == 0 || o.k == 6)) check_add_new_bytes(o, what);
}

Test(single_key, add_new_every_layout_hash_and_concurrency)
{
    test_each_geometry(KEYS, 0.01, 31, 1, check_add_new);
    bloomsimd_options pq = {.capacity = KEYS, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    check_add_new_u64(pq, "add_new parquet");
    check_add_new_bytes(pq, "add_new parquet");
}

Test(single_key, u64_block512_every_k_plain_and_concurrent)
{
    for (uint32_t k = 1; k <= 16; k++)
        for (int concurrent = 0; concurrent < 2; concurrent++) {
            bloomsimd_options o = {.capacity = KEYS, .fpr = 0.01, .k = k, .seed = 11 + k,
                                   .layout = BLOOMSIMD_LAYOUT_BLOCK512,
                                   .flags = concurrent ? BLOOMSIMD_CONCURRENT : 0};
            char what[64];
            snprintf(what, sizeof what, "block512 k=%u%s", k, concurrent ? " concurrent" : "");
            check_u64(o, what);
        }
}

Test(single_key, u64_split256_plain_and_concurrent)
{
    for (int concurrent = 0; concurrent < 2; concurrent++) {
        bloomsimd_options o = {.capacity = KEYS, .fpr = 0.01, .seed = 5, .layout = BLOOMSIMD_LAYOUT_SPLIT256,
                               .flags = concurrent ? BLOOMSIMD_CONCURRENT : 0};
        check_u64(o, concurrent ? "split256 concurrent" : "split256");
    }
}

Test(single_key, u64_parquet)
{
    bloomsimd_options o = {.capacity = KEYS, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    check_u64(o, "parquet");
}

Test(single_key, byte_keys_every_layout_and_parquet)
{
    bloomsimd_options b512 = {.capacity = 1000, .fpr = 0.01, .seed = 4, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_options s256 = {.capacity = 1000, .fpr = 0.01, .seed = 4, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_options pq = {.capacity = 1000, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    check_bytes(b512, "bytes block512");
    check_bytes(s256, "bytes split256");
    b512.flags = s256.flags = BLOOMSIMD_CONCURRENT;
    check_bytes(b512, "bytes block512 concurrent");
    check_bytes(s256, "bytes split256 concurrent");
    check_bytes(pq, "bytes parquet");
}

/* Scalable filters and windows: one call per key == one batch, and the
 * layers grow the same way (a wrong binding would probe the handle's empty
 * geometry and crash or miss). */
Test(single_key, layered_filters_take_the_layers_paths)
{
    bloomsimd_options opts[] = {
        {.capacity = 500, .fpr = 0.01, .growth = 2, .layout = BLOOMSIMD_LAYOUT_BLOCK512},
        {.capacity = 500, .fpr = 0.01, .growth = 2, .layout = BLOOMSIMD_LAYOUT_SPLIT256},
        {.capacity = 4000, .fpr = 0.01, .generations = 3, .layout = BLOOMSIMD_LAYOUT_BLOCK512},
        {.capacity = 4000, .fpr = 0.01, .generations = 3, .layout = BLOOMSIMD_LAYOUT_SPLIT256},
    };
    uint64_t *keys = test_keys(KEYS, 8);
    for (size_t c = 0; c < sizeof opts / sizeof opts[0]; c++) {
        bloomsimd_filter *f = made(opts[c], test_kernel()), *ref = made(opts[c], "scalar");
        for (size_t i = 0; i < KEYS; i++) cr_assert_eq(bloomsimd_add_u64(f, keys[i]), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add(f, "word", 4), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(ref, keys, KEYS), BLOOMSIMD_OK);
        bloomsimd_info a, b;
        bloomsimd_get_info(f, &a);
        bloomsimd_get_info(ref, &b);
        cr_assert_eq(a.layers, b.layers, "case %zu: %u layers one at a time, %u in a batch", c, a.layers, b.layers);
        cr_assert_gt(a.layers, 1u, "case %zu: never grew", c);
        for (size_t i = 0; i < KEYS; i++) cr_assert(bloomsimd_contains_u64(f, keys[i]), "case %zu key %zu", c, i);
        cr_assert(bloomsimd_contains(f, "word", 4));
        uint64_t *absent = test_keys(PROBES, 78);
        uint8_t *want = malloc(PROBES);
        bloomsimd_contains_batch_u64(ref, absent, PROBES, want);
        size_t agree = 0;
        for (size_t i = 0; i < PROBES; i++) agree += bloomsimd_contains_u64(f, absent[i]) == (want[i] != 0);
        /* the layers hold the same keys but "word" too: at most its few bits differ */
        cr_assert_geq(agree, PROBES - PROBES / 100, "case %zu: %zu of %u answers agree", c, agree, PROBES);
        free(absent);
        free(want);
        bloomsimd_destroy(f);
        bloomsimd_destroy(ref);
    }
    free(keys);
}

/* A read-only mapping refuses single-key writes (and leaves the bits) but
 * answers; a writable mapping takes them. */
Test(single_key, read_only_mappings_refuse_writes_and_answer)
{
    char dir[] = "/tmp/bloomsimd-single-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/f.bsf", dir);
    uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    uint64_t *keys = test_keys(KEYS, 12);
    for (size_t l = 0; l < 2; l++) {
        bloomsimd_options o = {.capacity = KEYS, .fpr = 0.01, .layout = layouts[l]};
        bloomsimd_filter *f = made(o, test_kernel());
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, KEYS / 2), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        bloomsimd_filter *ro, *rw;
        cr_assert_eq(bloomsimd_map(&ro, path, 0), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        cr_assert_eq(bloomsimd_add_u64(ro, keys[KEYS - 1]), BLOOMSIMD_ERR_READ_ONLY);
        cr_assert_eq(bloomsimd_add(ro, "x", 1), BLOOMSIMD_ERR_READ_ONLY);
        cr_assert_eq(bloomsimd_add(ro, NULL, 3), BLOOMSIMD_ERR_READ_ONLY, "read-only is checked before the key");
        assert_same_answers_u64(ro, f, keys, KEYS / 2, "read-only mapping");
        cr_assert_not(bloomsimd_contains_u64(ro, keys[KEYS - 1]) && !bloomsimd_contains_u64(f, keys[KEYS - 1]),
                      "a refused write set bits");
        bloomsimd_destroy(ro);
        cr_assert_eq(bloomsimd_map(&rw, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        for (size_t i = KEYS / 2; i < KEYS; i++) cr_assert_eq(bloomsimd_add_u64(rw, keys[i]), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys + KEYS / 2, KEYS - KEYS / 2), BLOOMSIMD_OK);
        assert_same_bits(rw, f, "writable mapping");
        bloomsimd_destroy(rw);
        bloomsimd_destroy(f);
    }
    free(keys);
    unlink(path);
    rmdir(dir);
}

Test(single_key, parquet_views_refuse_writes_and_answer)
{
    bloomsimd_options o = {.capacity = KEYS, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    bloomsimd_filter *f = made(o, test_kernel());
    uint64_t *keys = test_keys(KEYS, 13);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, KEYS), BLOOMSIMD_OK);
    size_t cap = 64 + bloomsimd_serialized_size(f);
    uint8_t *raw = aligned_alloc(64, (cap + 63) / 64 * 64);
    size_t written;
    cr_assert_eq(bloomsimd_parquet_write(f, raw, cap, &written), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    /* the view needs the bitset 64-byte aligned: shift the header so it is */
    bloomsimd_parquet_header h;
    cr_assert_eq(bloomsimd_parquet_header_parse(raw, written, &h), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    uint8_t *buf = aligned_alloc(64, (written + 128 + 63) / 64 * 64);
    size_t at = 64 - h.header_bytes % 64;
    memcpy(buf + at, raw, written);
    bloomsimd_filter *view;
    cr_assert_eq(bloomsimd_parquet_view(&view, buf + at, written, NULL), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    cr_assert_eq(bloomsimd_add_u64(view, 1), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add(view, "v", 1), BLOOMSIMD_ERR_READ_ONLY);
    assert_same_answers_u64(view, f, keys, KEYS, "parquet view");
    bloomsimd_destroy(view);
    free(buf);
    free(raw);
    free(keys);
    bloomsimd_destroy(f);
}

Test(single_key, null_filter)
{
    cr_assert_eq(bloomsimd_add_u64(NULL, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_add(NULL, "a", 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_not(bloomsimd_contains_u64(NULL, 1));
    cr_assert_not(bloomsimd_contains(NULL, "a", 1));
}
