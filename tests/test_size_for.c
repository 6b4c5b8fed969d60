/*
 * test_size_for.c — bloomsimd_size_for predicts exactly what
 * bloomsimd_create_with builds (every get_info field it reports, the
 * predicted FPR at capacity, bits per key) for plain, scalable and window
 * options over a grid of capacities and FPRs, and fails with exactly
 * create_with's status for every invalid input, leaving *sizing zeroed.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static void expect_same_as_create(bloomsimd_options o, const char *what)
{
    o.kernel = test_kernel();
    bloomsimd_sizing s;
    bloomsimd_status st = bloomsimd_size_for(&o, &s);
    cr_assert_eq(st, BLOOMSIMD_OK, "%s: size_for: %s", what, bloomsimd_status_string(st));
    bloomsimd_filter *f = test_filter(&o);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(s.blocks, info.blocks, "%s: blocks %llu vs %llu", what, (unsigned long long)s.blocks,
                 (unsigned long long)info.blocks);
    cr_assert_eq(s.bits, info.bits, "%s", what);
    cr_assert_eq(s.k, info.k, "%s: k %u vs %u", what, s.k, info.k);
    cr_assert_eq(s.memory_bytes, info.memory_bytes, "%s", what);
    cr_assert_eq(s.layers, info.layers, "%s", what);
    cr_assert(s.fpr == info.fpr, "%s: fpr %.17g vs %.17g", what, s.fpr, info.fpr);
    cr_assert_str_eq(s.kernel, info.kernel, "%s", what);
    cr_assert_eq(s.layout, info.layout, "%s: layout %u vs %u", what, s.layout, info.layout);
    if (o.layout) cr_assert_eq(info.layout, o.layout, "%s", what);
    double predicted = bloomsimd_predicted_fpr(f, o.capacity);
    cr_assert(s.predicted_fpr == predicted || (isnan(s.predicted_fpr) && isnan(predicted)),
              "%s: predicted %.17g vs %.17g", what, s.predicted_fpr, predicted);
    double per_key = o.capacity ? (double)(info.bits / info.layers) / (double)o.capacity : 0.0;
    if (info.growth) per_key = o.capacity ? (double)info.bits / (double)o.capacity : 0.0; /* one layer yet */
    cr_assert(s.bits_per_key == per_key, "%s: bits/key %.17g vs %.17g", what, s.bits_per_key, per_key);
    bloomsimd_destroy(f);
}

/* Both layouts named, and the kernel's default (layout 0). */
Test(size_for, plain_filters_over_a_grid_of_capacities_and_fprs)
{
    const uint64_t capacities[] = {1, 2, 7, 100, 1000, 12345, 100000, 1000000, 20000000};
    const double fprs[] = {0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6, 1e-10};
    const uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    char what[96];
    size_t n = 0;
    for (size_t l = 0; l < 2; l++)
        for (size_t c = 0; c < sizeof capacities / sizeof *capacities; c++)
            for (size_t p = 0; p < sizeof fprs / sizeof *fprs; p++) {
                if (capacities[c] >= 1000000 && fprs[p] < 1e-4 && test_quick_mode()) continue;
                bloomsimd_options o = {.capacity = capacities[c], .fpr = fprs[p], .seed = c, .layout = layouts[l]};
                snprintf(what, sizeof what, "%s capacity %llu fpr %g", bloomsimd_layout_name(layouts[l]),
                         (unsigned long long)capacities[c], fprs[p]);
                expect_same_as_create(o, what);
                n++;
            }
    cr_assert_geq(n, 100);
    expect_same_as_create((bloomsimd_options){.capacity = 5000}, "fpr 0 (default)");
    expect_same_as_create((bloomsimd_options){.capacity = 100000, .fpr = 0.001}, "this kernel's default layout");
}

/* The fewest blocks: one block fewer, with the k sizing chose, misses the
 * target (the sizing's searches stop early at one block and at 1.01 x the
 * best k's count so far; this proves they stop where the full search would),
 * including layers of 1-7 keys at low FPRs, which need a single block. */
Test(size_for, one_block_fewer_misses_the_target)
{
    const uint64_t capacities[] = {1, 2, 7, 100, 12345, 1000000};
    const double fprs[] = {0.1, 0.01, 1e-4, 1e-7, 1e-10};
    const uint32_t layouts[] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    size_t single_block = 0;
    for (size_t l = 0; l < 2; l++)
        for (size_t c = 0; c < sizeof capacities / sizeof *capacities; c++)
            for (size_t p = 0; p < sizeof fprs / sizeof *fprs; p++) {
                bloomsimd_options o = {.capacity = capacities[c], .fpr = fprs[p], .layout = layouts[l],
                                       .kernel = test_kernel()};
                bloomsimd_sizing s;
                cr_assert_eq(bloomsimd_size_for(&o, &s), BLOOMSIMD_OK);
                bloomsimd_filter *f = test_filter(&o);
                cr_assert(bloomsimd_predicted_fpr(f, o.capacity) <= o.fpr, "%s %llu keys at %g: %u blocks miss it",
                          bloomsimd_layout_name(layouts[l]), (unsigned long long)o.capacity, o.fpr, (unsigned)s.blocks);
                bloomsimd_destroy(f);
                if (s.blocks == 1) {
                    single_block++;
                    continue;
                }
                uint64_t block_bits = s.bits / s.blocks;
                bloomsimd_options fewer = {.capacity = o.capacity, .bits = (s.blocks - 1) * block_bits, .k = s.k,
                                           .layout = layouts[l], .kernel = test_kernel()};
                bloomsimd_filter *g = test_filter(&fewer);
                double fpr = bloomsimd_predicted_fpr(g, o.capacity);
                cr_assert(fpr > o.fpr, "%s %llu keys at %g: %llu blocks (k %u) give %.6g, yet sizing chose %llu",
                          bloomsimd_layout_name(layouts[l]), (unsigned long long)o.capacity, o.fpr,
                          (unsigned long long)(s.blocks - 1), s.k, fpr, (unsigned long long)s.blocks);
                bloomsimd_destroy(g);
            }
    cr_assert_geq(single_block, 2, "the grid has layers that fit one block");
}

Test(size_for, explicit_bits_and_k)
{
    expect_same_as_create((bloomsimd_options){.bits = 1}, "1 bit, no capacity");
    expect_same_as_create((bloomsimd_options){.bits = 100000}, "bits only: default k");
    expect_same_as_create((bloomsimd_options){.bits = 100000, .capacity = 9000}, "bits and capacity");
    expect_same_as_create((bloomsimd_options){.bits = 100000, .capacity = 9000, .k = 3}, "bits, capacity, k");
    for (uint32_t k = 1; k <= BLOOMSIMD_MAX_K; k++)
        expect_same_as_create((bloomsimd_options){.capacity = 50000, .fpr = 0.001, .k = k}, "explicit k");
    expect_same_as_create((bloomsimd_options){.capacity = 1000, .flags = BLOOMSIMD_CONCURRENT}, "concurrent");
}

Test(size_for, scalable_and_window_filters)
{
    expect_same_as_create((bloomsimd_options){.capacity = 1000, .fpr = 0.01, .growth = 2}, "scalable");
    expect_same_as_create((bloomsimd_options){.capacity = 1000, .fpr = 0.01, .growth = 1, .tightening = 0.9},
                          "scalable, growth 1, r 0.9");
    expect_same_as_create((bloomsimd_options){.capacity = 77777, .fpr = 1e-5, .growth = 4, .k = 5},
                          "scalable, k 5");
    expect_same_as_create((bloomsimd_options){.capacity = 300, .generations = 2}, "window of 2");
    expect_same_as_create((bloomsimd_options){.capacity = 30000, .fpr = 1e-4, .generations = 24}, "window of 24");
    expect_same_as_create((bloomsimd_options){.bits = 4096, .capacity = 100, .generations = 3}, "window, bits");
    expect_same_as_create((bloomsimd_options){.capacity = 100, .generations = 1}, "generations 1 is plain");
}

/* size_for must fail exactly as create_with does, and zero *sizing. */
static void expect_same_failure(bloomsimd_options o, bool own_kernel, const char *what)
{
    if (!own_kernel) o.kernel = test_kernel();
    bloomsimd_filter *f = NULL;
    bloomsimd_status want = bloomsimd_create_with(&f, &o);
    cr_assert_neq(want, BLOOMSIMD_OK, "%s: the create succeeded", what);
    bloomsimd_sizing s;
    memset(&s, 0xa5, sizeof s);
    bloomsimd_status st = bloomsimd_size_for(&o, &s);
    cr_assert_eq(st, want, "%s: size_for %s, create %s", what, bloomsimd_status_string(st),
                 bloomsimd_status_string(want));
    bloomsimd_sizing zero;
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(memcmp(&s, &zero, sizeof s), 0, "%s: sizing not zeroed", what);
}

Test(size_for, invalid_options_give_create_with_status)
{
    expect_same_failure((bloomsimd_options){.capacity = 0, .fpr = 0.01}, false, "capacity 0");
    expect_same_failure((bloomsimd_options){.capacity = 10, .fpr = 1.0}, false, "fpr 1");
    expect_same_failure((bloomsimd_options){.capacity = 10, .fpr = -0.1}, false, "fpr < 0");
    expect_same_failure((bloomsimd_options){.capacity = 10, .fpr = NAN}, false, "fpr NaN");
    expect_same_failure((bloomsimd_options){.capacity = 10, .fpr = 1e-11}, false, "fpr 1e-11");
    expect_same_failure((bloomsimd_options){.capacity = 10, .k = 17}, false, "k 17");
    expect_same_failure((bloomsimd_options){.capacity = 10, .flags = 0x80}, false, "unknown flag");
    expect_same_failure((bloomsimd_options){.bits = UINT64_MAX}, false, "2^64 bits");
    expect_same_failure((bloomsimd_options){.capacity = UINT64_MAX / 2, .fpr = 1e-10}, false, "2^63 keys");
    expect_same_failure((bloomsimd_options){.capacity = 10, .kernel = "no-such-kernel"}, true, "unknown kernel");
    expect_same_failure((bloomsimd_options){.capacity = 10, .growth = 2, .bits = 4096}, false, "growth with bits");
    expect_same_failure((bloomsimd_options){.growth = 2}, false, "growth without capacity");
    expect_same_failure((bloomsimd_options){.capacity = 10, .tightening = 0.5}, false, "tightening alone");
    expect_same_failure((bloomsimd_options){.capacity = 10, .growth = 2, .tightening = 1.0}, false, "r 1");
    expect_same_failure((bloomsimd_options){.capacity = 10, .growth = 2, .fpr = 1e-10}, false, "fpr(1-r) < min");
    expect_same_failure((bloomsimd_options){.capacity = 10, .generations = 65}, false, "65 generations");
    expect_same_failure((bloomsimd_options){.capacity = 10, .generations = 2, .growth = 2}, false, "window+growth");
    expect_same_failure((bloomsimd_options){.capacity = 10, .generations = 2, .fpr = 2}, false, "window fpr 2");
    expect_same_failure((bloomsimd_options){.capacity = 10, .generations = 2, .kernel = "nope"}, true,
                        "window, unknown kernel");
    expect_same_failure((bloomsimd_options){.capacity = 10, .growth = 2, .kernel = "nope"}, true,
                        "scalable, unknown kernel");

    bloomsimd_sizing s;
    cr_assert_eq(bloomsimd_size_for(NULL, &s), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options o = {.capacity = 10};
    cr_assert_eq(bloomsimd_size_for(&o, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(size_for, default_kernel_when_none_is_named)
{
    bloomsimd_options o = {.capacity = 1000};
    bloomsimd_sizing s;
    cr_assert_eq(bloomsimd_size_for(&o, &s), BLOOMSIMD_OK);
    cr_assert_str_eq(s.kernel, bloomsimd_default_kernel());
    cr_assert_eq(s.layout, test_default_layout());
    /* sanity of the numbers themselves, not only their agreement */
    cr_assert_eq(s.bits, s.blocks * test_block_bits(s.layout));
    cr_assert_eq(s.memory_bytes, s.blocks * test_block_bits(s.layout) / 8);
    cr_assert(s.predicted_fpr <= 0.01 && s.predicted_fpr > 0.001, "%g", s.predicted_fpr);
    cr_assert(s.bits_per_key > 8.0 && s.bits_per_key < 14.0, "%g", s.bits_per_key);
}
