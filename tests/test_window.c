/*
 * test_window.c — sliding-window filters through the public API, on this
 * run's kernel:
 *
 *   - expiry: a key stays found for G - 1 rotations after the generation it
 *     was inserted in, and is gone (up to the FPR) after G; no false
 *     negative for a live generation at any point;
 *   - insert-and-report-new: new = absent from every live generation; the
 *     key goes into the current generation either way (refresh), in order;
 *   - every call against the scalar kernel across rotations: identical new
 *     flags, counts, lookups in every form and slot bytes;
 *   - get_info (generations, rotations, current items, ages), predicted FPR,
 *     estimate, union matched by age, clear, rotate errors, option errors.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "layers/layers.h"
#include "support.h"

static bloomsimd_filter *make(const bloomsimd_options *o, const char *kernel)
{
    bloomsimd_options copy = *o;
    copy.kernel = kernel;
    return test_filter(&copy);
}

static bloomsimd_info info_of(const bloomsimd_filter *f)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    return info;
}

Test(window, keys_live_for_g_generations_then_expire)
{
    enum { G = 4, PER_GEN = 20000, ROUNDS = 12 };
    bloomsimd_options o = {.capacity = PER_GEN, .fpr = 0.001, .generations = G, .seed = 1};
    bloomsimd_filter *f = make(&o, test_kernel());
    uint64_t *keys[ROUNDS];
    double window_fpr = bloomsimd_predicted_fpr(f, PER_GEN);
    cr_assert(window_fpr < 1 - pow(1 - 0.001, G) + 1e-12 && window_fpr > 0.001, "window FPR %g", window_fpr);
    for (int r = 0; r < ROUNDS; r++) {
        keys[r] = test_keys(PER_GEN, 100 + (uint64_t)r);
        /* alternate the insert paths */
        if (r % 3 == 0)
            cr_assert_eq(bloomsimd_add_batch_u64(f, keys[r], PER_GEN), BLOOMSIMD_OK);
        else if (r % 3 == 1)
            cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys[r], PER_GEN, NULL, NULL), BLOOMSIMD_OK);
        else
            for (size_t i = 0; i < PER_GEN; i++) cr_assert_eq(bloomsimd_add_u64(f, keys[r][i]), BLOOMSIMD_OK);
        for (int g = 0; g <= r; g++) {
            size_t found = bloomsimd_contains_batch_u64(f, keys[g], PER_GEN, NULL);
            if (r - g < G)
                cr_assert_eq(found, PER_GEN, "round %d: generation %d (live) lost %zu keys", r, g, PER_GEN - found);
            else
                cr_assert(found < 2.0 * window_fpr * PER_GEN + 20, "round %d: generation %d (expired) still has %zu keys",
                          r, g, found);
        }
        bloomsimd_info info = info_of(f);
        cr_assert_eq(info.rotations, (uint64_t)r);
        cr_assert_eq(info.generations, G);
        cr_assert_eq(info.layers, G);
        cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    }
    for (int r = 0; r < ROUNDS; r++) free(keys[r]);
    bloomsimd_destroy(f);
}

Test(window, add_new_counts_the_window_and_refreshes)
{
    bloomsimd_options o = {.capacity = 10000, .fpr = 0.0001, .generations = 3, .seed = 2};
    bloomsimd_filter *f = make(&o, test_kernel());
    uint64_t keys[] = {1, 2, 3, 1, 4};
    uint8_t out[5];
    size_t fresh;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 5, out, &fresh), BLOOMSIMD_OK);
    uint8_t want1[] = {1, 1, 1, 0, 1};
    cr_assert(memcmp(out, want1, 5) == 0);
    cr_assert_eq(fresh, 4);
    cr_assert_eq(info_of(f).current_items, 4);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    /* in an older generation: not new, but refreshed into the current one */
    uint64_t again[] = {2, 5, 2};
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, again, 3, out, &fresh), BLOOMSIMD_OK);
    uint8_t want2[] = {0, 1, 0};
    cr_assert(memcmp(out, want2, 3) == 0);
    cr_assert_eq(fresh, 1);
    bloomsimd_info info = info_of(f);
    cr_assert_eq(info.current_items, 2, "key 2 (refreshed) and 5 are new to the current generation");
    cr_assert_eq(info.items, 6, "4 + 2: a refreshed key counts once per generation");
    /* two more rotations: 1, 3, 4 expire; 2 was refreshed, 5 is younger */
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert(bloomsimd_contains_u64(f, 2));
    cr_assert(bloomsimd_contains_u64(f, 5));
    cr_assert(!bloomsimd_contains_u64(f, 1));
    cr_assert(!bloomsimd_contains_u64(f, 3));
    cr_assert(!bloomsimd_contains_u64(f, 4));
    bool was_new = false;
    cr_assert_eq(bloomsimd_add_new_u64(f, 1, &was_new), BLOOMSIMD_OK);
    cr_assert(was_new, "an expired key is new again");
    cr_assert_eq(bloomsimd_add_new(f, "k", 1, &was_new), BLOOMSIMD_OK);
    cr_assert(was_new);
    cr_assert_eq(bloomsimd_add_new(f, "k", 1, &was_new), BLOOMSIMD_OK);
    cr_assert(!was_new);
    bloomsimd_destroy(f);
}

/* The same operations and rotations on the scalar kernel and on this run's
 * kernel: identical flags, counts, lookups and slot bytes. */
/* Both layouts, each against the scalar kernel in the same layout. */
Test(window, every_call_matches_the_scalar_kernel)
{
    for (int run = 0; run < 4; run++) {
        const int concurrent = run & 1;
        const uint32_t layout = run < 2 ? BLOOMSIMD_LAYOUT_BLOCK512 : BLOOMSIMD_LAYOUT_SPLIT256;
        bloomsimd_options o = {.capacity = 3000, .fpr = 0.01, .generations = 5, .seed = 3,
                               .flags = concurrent ? BLOOMSIMD_CONCURRENT : 0, .layout = layout};
        bloomsimd_filter *ref = make(&o, "scalar"), *f = make(&o, test_kernel());
        cr_assert_eq(info_of(f).layout, layout);
        enum { N = 30000 };
        uint64_t *keys = malloc(N * sizeof *keys), *hashes = malloc(N * sizeof *hashes);
        uint8_t *a = malloc(2 * N), *b = malloc(2 * N);
        uint32_t *ia = malloc(2 * N * sizeof *ia), *ib = malloc(2 * N * sizeof *ib);
        uint64_t state = 5;
        for (size_t i = 0; i < N; i++) {
            uint64_t r = test_splitmix64(&state);
            keys[i] = (i > 0 && r % 3 == 0) ? keys[r % i] : test_key(3, i); /* a third are repeats */
        }
        bloomsimd_hash_batch_u64(f, keys, N, hashes);
        size_t sizes[] = {1, 9, 64, 100, 1000, 1025, 2500};
        size_t at = 0, step = 0;
        char what[96];
        while (at < N) {
            size_t n = sizes[step % 7];
            if (n > N - at) n = N - at;
            size_t ca = 0, cb = 1;
            snprintf(what, sizeof what, "%s concurrent=%d step %zu n %zu", bloomsimd_layout_name(layout), concurrent,
                     step, n);
            switch (step % 4) {
            case 0:
                cr_assert_eq(bloomsimd_add_new_batch_u64(ref, keys + at, n, a, &ca), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys + at, n, b, &cb), BLOOMSIMD_OK);
                break;
            case 1:
                cr_assert_eq(bloomsimd_add_new_hashes(ref, hashes + at, n, a, &ca), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_new_hashes(f, hashes + at, n, b, &cb), BLOOMSIMD_OK);
                break;
            case 2:
                cr_assert_eq(bloomsimd_add_hashes(ref, hashes + at, n), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_hashes(f, hashes + at, n), BLOOMSIMD_OK);
                ca = cb = 0, memset(a, 0, n), memset(b, 0, n);
                break;
            default:
                cr_assert_eq(bloomsimd_add_batch_u64(ref, keys + at, n), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_add_batch_u64(f, keys + at, n), BLOOMSIMD_OK);
                ca = cb = 0, memset(a, 0, n), memset(b, 0, n);
            }
            cr_assert_eq(ca, cb, "%s: new counts", what);
            cr_assert(memcmp(a, b, n) == 0, "%s: new flags", what);
            at += n, step++;
            if (step % 5 == 0) {
                cr_assert_eq(bloomsimd_rotate(ref), BLOOMSIMD_OK);
                cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
            }
            /* the last keys (some live, some expired) and as many absent ones, in every form */
            size_t q = at < 4000 ? at : 4000;
            uint64_t *probe = malloc(2 * q * sizeof *probe);
            for (size_t i = 0; i < q; i++) probe[2 * i] = keys[at - 1 - i], probe[2 * i + 1] = test_key(4, step * 9000 + i);
            size_t hr = bloomsimd_contains_batch_u64(ref, probe, 2 * q, a);
            size_t hf = bloomsimd_contains_batch_u64(f, probe, 2 * q, b);
            cr_assert_eq(hr, hf, "%s: lookup counts", what);
            cr_assert(memcmp(a, b, 2 * q) == 0, "%s: lookups", what);
            cr_assert_eq(bloomsimd_select_batch_u64(f, probe, 2 * q, ib), hf);
            cr_assert_eq(bloomsimd_select_batch_u64(ref, probe, 2 * q, ia), hr);
            cr_assert(memcmp(ia, ib, hf * sizeof *ia) == 0);
            for (size_t i = 0, j = 0; i < 2 * q; i++)
                if (b[i]) cr_assert_eq(ib[j++], i);
            cr_assert_eq(bloomsimd_contains_bitmap_u64(f, probe, 2 * q, a), hf);
            for (size_t i = 0; i < 2 * q; i++) cr_assert_eq((a[i / 8] >> (i % 8)) & 1, b[i]);
            for (size_t i = 0; i < 2 * q; i += 53) cr_assert_eq(bloomsimd_contains_u64(f, probe[i]), b[i] != 0);
            free(probe);
        }
        for (uint32_t i = 0; i < 5; i++) {
            const bloomsimd_filter *x = ref->layers->layer[i], *y = f->layers->layer[i];
            cr_assert_eq(x->items, y->items);
            cr_assert(memcmp(x->geometry.words, y->geometry.words, bloomsimd_filter_bytes(x)) == 0,
                      "%s: slot %u bytes differ from scalar", bloomsimd_layout_name(layout), i);
        }
        cr_assert_eq(info_of(ref).items, info_of(f).items);
        cr_assert_eq(info_of(f).rotations, step / 5);
        free(keys);
        free(hashes);
        free(a);
        free(b);
        free(ia);
        free(ib);
        bloomsimd_destroy(ref);
        bloomsimd_destroy(f);
    }
}

Test(window, info_ages_and_model)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t before = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .generations = 24, .seed = 4};
    bloomsimd_filter *f = make(&o, test_kernel());
    bloomsimd_info info = info_of(f);
    cr_assert_eq(info.generations, 24);
    cr_assert_eq(info.layers, 24);
    cr_assert_eq(info.rotations, 0);
    cr_assert_eq(info.growth, 0);
    cr_assert_eq(info.tightening, 0.0);
    cr_assert_eq(info.capacity, 1000);
    cr_assert_eq(info.fpr, 0.01);
    cr_assert_eq(info.blocks, 24 * f->layers->layer[0]->geometry.nblocks);
    cr_assert_eq(info.layout, test_default_layout()); /* a default window: this kernel's layout */
    cr_assert(info.current_started_ns >= before && info.oldest_started_ns == info.current_started_ns);
    int64_t created = info.current_started_ns;
    uint64_t *keys = test_keys(500, 5);
    bloomsimd_add_batch_u64(f, keys, 500);
    cr_assert_eq(info_of(f).current_items, 500);
    cr_assert_eq(info_of(f).items, 500);
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    info = info_of(f);
    cr_assert_eq(info.rotations, 1);
    cr_assert_eq(info.current_items, 0);
    cr_assert_eq(info.items, 500);
    cr_assert(info.current_started_ns >= created + 2000000, "the new generation started later");
    cr_assert_eq(info.oldest_started_ns, created);
    /* after 23 more rotations the creation-time generations are all gone */
    for (int i = 0; i < 23; i++) cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    info = info_of(f);
    cr_assert(info.oldest_started_ns > created);
    cr_assert_eq(info.items, 0);
    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 500, NULL), 0);
    /* model: every generation at `items` keys, in the window's layout */
    double one = bloomsimd_layout_model_fpr(info.layout, 1000, (double)f->layers->layer[0]->geometry.nblocks, info.k);
    cr_assert(fabs(bloomsimd_predicted_fpr(f, 1000) - (1 - pow(1 - one, 24))) < 1e-12);
    free(keys);
    bloomsimd_destroy(f);
}

Test(window, estimate_fill_union_and_clear)
{
    bloomsimd_options o = {.capacity = 20000, .fpr = 0.01, .generations = 3, .seed = 6};
    bloomsimd_filter *a = make(&o, test_kernel()), *b = make(&o, test_kernel());
    uint64_t *k0 = test_keys(10000, 60), *k1 = test_keys(10000, 61), *k2 = test_keys(10000, 62);
    bloomsimd_add_batch_u64(a, k0, 10000);
    bloomsimd_rotate(a);
    bloomsimd_add_batch_u64(a, k1, 10000);
    double est = bloomsimd_estimate_count(a);
    cr_assert(fabs(est - 20000) < 1000, "estimate %.0f", est);
    cr_assert(bloomsimd_fill_ratio(a) > 0.0 && bloomsimd_fill_ratio(a) < 0.5);
    /* b is at a different rotation count: union matches generations by age */
    bloomsimd_rotate(b), bloomsimd_rotate(b), bloomsimd_rotate(b), bloomsimd_rotate(b);
    bloomsimd_add_batch_u64(b, k2, 10000);
    cr_assert_eq(bloomsimd_union(a, b), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(a, k2, 10000, NULL), 10000);
    cr_assert_eq(info_of(a).current_items, 20000, "k1 and k2 share the current generation");
    /* one rotation later k0 expires, k1 and k2 (current at the union) survive two more */
    bloomsimd_rotate(a);
    bloomsimd_rotate(a);
    cr_assert(bloomsimd_contains_batch_u64(a, k0, 10000, NULL) < 500);
    cr_assert_eq(bloomsimd_contains_batch_u64(a, k1, 10000, NULL), 10000);
    cr_assert_eq(bloomsimd_contains_batch_u64(a, k2, 10000, NULL), 10000);
    bloomsimd_rotate(a);
    cr_assert(bloomsimd_contains_batch_u64(a, k2, 10000, NULL) < 500);
    /* incompatible: other generations, other geometry, scalable, plain */
    bloomsimd_options other = o;
    other.generations = 4;
    bloomsimd_filter *c = make(&other, test_kernel());
    other.generations = 3, other.capacity = 40000;
    bloomsimd_filter *d = make(&other, test_kernel());
    bloomsimd_options grow = {.capacity = 20000, .fpr = 0.01, .growth = 2, .seed = 6};
    bloomsimd_filter *s = make(&grow, test_kernel());
    bloomsimd_options plain = {.capacity = 20000, .fpr = 0.01, .seed = 6};
    bloomsimd_filter *p = make(&plain, test_kernel());
    cr_assert_eq(bloomsimd_union(a, c), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_union(a, d), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_union(a, s), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_union(s, a), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_union(a, p), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_intersect(a, b), BLOOMSIMD_ERR_INCOMPATIBLE);
    /* clear empties every generation and keeps the rotation count */
    bloomsimd_add_batch_u64(a, k0, 10000);
    uint64_t rotations = info_of(a).rotations;
    bloomsimd_clear(a);
    cr_assert_eq(bloomsimd_contains_batch_u64(a, k0, 10000, NULL), 0);
    cr_assert_eq(info_of(a).items, 0);
    cr_assert_eq(info_of(a).rotations, rotations);
    cr_assert_eq(bloomsimd_fill_ratio(a), 0.0);
    free(k0);
    free(k1);
    free(k2);
    bloomsimd_destroy(a);
    bloomsimd_destroy(b);
    bloomsimd_destroy(c);
    bloomsimd_destroy(d);
    bloomsimd_destroy(s);
    bloomsimd_destroy(p);
}

Test(window, byte_keys_and_explicit_bits)
{
    bloomsimd_options o = {.bits = 512 * 100, .k = 6, .capacity = 1000, .generations = 2, .seed = 7};
    bloomsimd_filter *f = make(&o, test_kernel());
    cr_assert_eq(f->layers->layer[0]->geometry.nblocks, 100);
    cr_assert_eq(f->layers->layer[1]->geometry.k, 6);
    const void *keys[3] = {"alpha", "beta", NULL};
    size_t lens[3] = {5, 4, 0};
    uint8_t out[3];
    size_t fresh;
    cr_assert_eq(bloomsimd_add_new_batch(f, keys, lens, 3, out, &fresh), BLOOMSIMD_OK);
    cr_assert_eq(fresh, 3);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch(f, keys, lens, 1), BLOOMSIMD_OK); /* refresh alpha */
    cr_assert_eq(bloomsimd_contains_batch(f, keys, lens, 3, out), 3);
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert(bloomsimd_contains(f, "alpha", 5));
    cr_assert(!bloomsimd_contains(f, "beta", 4));
    bloomsimd_view view;
    cr_assert_eq(bloomsimd_get_view(f, &view), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_destroy(f);
}

Test(window, rotate_and_option_errors)
{
    cr_assert_eq(bloomsimd_rotate(NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options plain = {.capacity = 100};
    bloomsimd_filter *p = make(&plain, test_kernel());
    cr_assert_eq(bloomsimd_rotate(p), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options grow = {.capacity = 100, .growth = 2};
    bloomsimd_filter *s = make(&grow, test_kernel());
    cr_assert_eq(bloomsimd_rotate(s), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options one = {.capacity = 100, .generations = 1}; /* 1: not a window */
    bloomsimd_filter *q = make(&one, test_kernel());
    cr_assert_eq(bloomsimd_rotate(q), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(info_of(q).generations, 0);
    cr_assert_eq(info_of(q).layers, 1);
    bloomsimd_destroy(p);
    bloomsimd_destroy(s);
    bloomsimd_destroy(q);
    bloomsimd_options bad[] = {
        {.capacity = 100, .generations = BLOOMSIMD_MAX_GENERATIONS + 1},
        {.capacity = 100, .generations = 4, .tightening = 0.5},
        {.capacity = 100, .generations = 4, .growth = 2},
        {.generations = 4},
        {.capacity = 100, .generations = 4, .fpr = 2.0},
        {.capacity = 100, .generations = 4, .k = 17},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
        cr_assert_eq(bloomsimd_create_with(&f, &bad[i]), BLOOMSIMD_ERR_INVALID_ARGUMENT, "case %zu", i);
        cr_assert_null(f);
    }
    bloomsimd_options most = {.capacity = 10, .generations = BLOOMSIMD_MAX_GENERATIONS};
    bloomsimd_filter *m = make(&most, test_kernel());
    cr_assert_eq(info_of(m).generations, 64);
    cr_assert_eq(bloomsimd_rotate(m), BLOOMSIMD_OK);
    bloomsimd_destroy(m);
}

/* A key in the oldest live generation is still in the window: not new. */
Test(window, a_key_of_the_oldest_live_generation_is_not_new)
{
    for (uint32_t g = 2; g <= 6; g++) {
        bloomsimd_options o = {.capacity = 1000, .fpr = 0.0001, .generations = g, .seed = 8};
        bloomsimd_filter *f = make(&o, test_kernel());
        uint64_t *keys = test_keys(200, 80 + g);
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 200), BLOOMSIMD_OK);
        for (uint32_t r = 0; r + 1 < g; r++) cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
        /* the keys' generation is now the oldest live one */
        size_t fresh = 1;
        uint8_t out[200];
        cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 100, out, &fresh), BLOOMSIMD_OK);
        cr_assert_eq(fresh, 0, "G=%u: %zu keys of the oldest generation reported new", g, fresh);
        bool was_new = true;
        cr_assert_eq(bloomsimd_add_new_u64(f, keys[150], &was_new), BLOOMSIMD_OK);
        cr_assert(!was_new);
        /* one more rotation: the refreshed keys stay, the others go */
        cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 100, NULL), 100);
        cr_assert(bloomsimd_contains_u64(f, keys[150]));
        cr_assert(bloomsimd_contains_batch_u64(f, keys + 100, 50, NULL) < 3);
        free(keys);
        bloomsimd_destroy(f);
    }
}
