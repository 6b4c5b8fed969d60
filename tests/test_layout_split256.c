/*
 * test_layout_split256.c — keeps kernels/layout_split256.h honest: its
 * measured-vs-model table, the model itself (against an independent sum and
 * its special cases), sizing (fewest whole blocks, k = 8), measured FPR
 * against the target, and the option rules of the layout.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"
#include "layout_split256.h"
#include "support.h"

static bloomsimd_filter *split(uint64_t capacity, double fpr, uint64_t bits, uint64_t seed)
{
    bloomsimd_options o = {
        .capacity = capacity, .fpr = fpr, .bits = bits, .seed = seed, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    return test_filter(&o);
}

/* Absent keys looked up in batches of 2^20: the count of "maybe present". */
static uint64_t false_positives(const bloomsimd_filter *f, uint64_t stream, uint64_t queries)
{
    const size_t chunk = 1u << 20;
    uint64_t *keys = malloc(chunk * sizeof *keys), fp = 0;
    for (uint64_t done = 0; done < queries; done += chunk) {
        size_t n = queries - done < chunk ? (size_t)(queries - done) : chunk;
        for (size_t i = 0; i < n; i++) keys[i] = test_key(stream, done + i);
        fp += bloomsimd_contains_batch_u64(f, keys, n, NULL);
    }
    free(keys);
    return fp;
}

/* One row of BLOOMSIMD_SPLIT256_FPR_TABLE: 10^6 keys at that bits/key,
 * >= 2000/model absent keys. */
static void check_row(double bits_per_key, double model, double measured_in_table)
{
    if (test_quick_mode() && model < 5e-4) {
        printf("quick mode (BLOOMSIMD_TEST_QUICK): row %.2f bits/key left to the full run\n", bits_per_key);
        return;
    }
    const uint64_t n = 1000000;
    bloomsimd_filter *f = split(n, 0, (uint64_t)(bits_per_key * (double)n), 0);
    uint64_t *keys = test_keys(n, 61);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
    free(keys);
    double computed = bloomsimd_predicted_fpr(f, n);
    cr_expect_leq(fabs(computed / model - 1.0), 0.005, "table model %g, src/fpr_model.c says %g", model, computed);
    uint64_t queries = (uint64_t)(2000.0 / model);
    double measured = (double)false_positives(f, 777, queries) / (double)queries;
    printf("split256 %6.3f bits/key: model %.6g (table %.6g) measured %.6g (table %.6g)\n", bits_per_key, computed,
           model, measured, measured_in_table);
    cr_expect_leq(fabs(measured / measured_in_table - 1.0), 0.10, "re-measured %g, table says %g", measured,
                  measured_in_table);
    bloomsimd_destroy(f);
}

Test(layout_split256, measured_vs_model_table_in_layout_split256_h_holds)
{
#define ROW(bpk, model, measured) check_row(bpk, model, measured);
    BLOOMSIMD_SPLIT256_FPR_TABLE(ROW)
#undef ROW
}

/* The model written out once more, the way section 4 derives it: the
 * inclusion-exclusion over all 256 subsets S of the 8 words, in long double
 * (the power as expl(n log1pl(.)): powl loses ~1e-9 relative at n = 1e8). */
static long double subsets_model(double n, double m)
{
    long double sum = 0.0L;
    for (unsigned s = 0; s < 256; s++) {
        int size = __builtin_popcount(s);
        long double clear = powl(31.0L / 32.0L, size); /* one key in the block misses all of S */
        long double term = expl((long double)n * log1pl(-(1.0L - clear) / (long double)m));
        sum += (size & 1) ? -term : term;
    }
    return sum;
}

Test(layout_split256, model_equals_the_inclusion_exclusion_over_every_subset)
{
    const double loads[][2] = {{1, 1}, {2, 1}, {10, 3}, {1000, 40}, {1e6, 41130}, {1e6, 65976}, {1e8, 4112924}};
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        double n = loads[i][0], m = loads[i][1];
        double got = bloomsimd_model_fpr_split256(n, m, 8);
        long double want = subsets_model(n, m);
        cr_assert_lt(fabsl((long double)got - want), 1e-13L + 1e-9L * want, "n %g m %g: %.12g vs %.12Lg", n, m, got,
                     want);
    }
    /* special cases: no keys, one key in one block (all 8 bits equal:
     * (1/32)^8), and the Poisson limit at 10 bits/key (Putze et al.: 1.26%) */
    cr_assert_eq(bloomsimd_model_fpr_split256(0, 1, 8), 0.0);
    cr_assert_float_eq(bloomsimd_model_fpr_split256(1, 1, 8), pow(1.0 / 32.0, 8), 1e-20);
    double poisson = bloomsimd_model_fpr_split256(1e9, 1e9 * 10.0 / 256.0, 8);
    cr_assert(poisson > 0.01262 && poisson < 0.01268, "10 bits/key: %g", poisson);
    cr_assert(isnan(bloomsimd_model_fpr_split256(10, 10, 7)), "k must be 8");
    cr_assert_eq(bloomsimd_layout_model_fpr(BLOOMSIMD_LAYOUT_SPLIT256, 1e5, 4113, 8),
                 bloomsimd_model_fpr_split256(1e5, 4113, 8));
}

Test(layout_split256, sizing_picks_the_fewest_whole_blocks_meeting_the_target)
{
    const double targets[] = {0.1, 0.01, 1e-3, 1e-4, 1e-6};
    const uint64_t capacities[] = {1, 1000, 1000000, 12345678};
    for (size_t t = 0; t < 5; t++)
        for (size_t c = 0; c < 4; c++) {
            bloomsimd_options o = {
                .capacity = capacities[c], .fpr = targets[t], .layout = BLOOMSIMD_LAYOUT_SPLIT256};
            bloomsimd_sizing s;
            cr_assert_eq(bloomsimd_size_for(&o, &s), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
            cr_assert_eq(s.layout, BLOOMSIMD_LAYOUT_SPLIT256);
            cr_assert_eq(s.k, 8u);
            cr_assert_eq(s.bits, s.blocks * 256u);
            cr_assert_eq(s.memory_bytes, s.blocks * 32u);
            double n = (double)capacities[c];
            cr_assert_leq(bloomsimd_model_fpr_split256(n, (double)s.blocks, 8), targets[t]);
            if (s.blocks > 1)
                cr_assert_gt(bloomsimd_model_fpr_split256(n, (double)(s.blocks - 1), 8), targets[t],
                             "one block fewer still meets %g at %g keys", targets[t], n);
        }
    /* the figures section 5 quotes, at 10^6 keys */
    bloomsimd_options one = {.capacity = 1000000, .fpr = 0.01, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_sizing s;
    cr_assert_eq(bloomsimd_size_for(&one, &s), BLOOMSIMD_OK);
    cr_assert_float_eq(s.bits_per_key, 10.529, 0.001);
    one.fpr = 0.001;
    cr_assert_eq(bloomsimd_size_for(&one, &s), BLOOMSIMD_OK);
    cr_assert_float_eq(s.bits_per_key, 16.890, 0.001);
}

/* Measured FPR at the target: 1% and 0.1% (and 10%), 10^5 and 10^6 keys,
 * >= 4000/p absent keys over several seeds. A filter sized for p has model
 * FPR <= p; the measurement may exceed p only by its noise, so the check is
 * measured <= p (1 + 4 sigma) with sigma = 1/sqrt(expected false
 * positives), and the figure is printed. */
Test(layout_split256, measured_fpr_is_at_most_the_target_at_1_and_0_1_percent)
{
    const double targets[] = {0.1, 0.01, 0.001};
    const uint64_t capacities[] = {100000, 1000000};
    for (size_t t = 0; t < 3; t++)
        for (size_t c = 0; c < 2; c++) {
            uint64_t n = capacities[c], queries = (uint64_t)(4000.0 / targets[t]), fp = 0;
            unsigned seeds = n < 1000000 ? 4 : 1;
            uint64_t *keys = test_keys(n, 62);
            double bits = 0;
            for (unsigned r = 0; r < seeds; r++) {
                bloomsimd_filter *f = split(n, targets[t], 0, r * 101 + 3);
                cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
                fp += false_positives(f, 800 + r, queries / seeds);
                bloomsimd_info info;
                bloomsimd_get_info(f, &info);
                bits = (double)info.bits / (double)n;
                bloomsimd_destroy(f);
            }
            free(keys);
            double measured = (double)fp / (double)(queries / seeds * seeds);
            double sigma = 1.0 / sqrt(targets[t] * (double)queries);
            printf("split256 target %g, %llu keys, %.3f bits/key: measured %.5g (%+.2f%%, sigma %.2f%%)\n",
                   targets[t], (unsigned long long)n, bits, measured, 100.0 * (measured / targets[t] - 1.0),
                   100.0 * sigma);
            cr_assert_leq(measured, targets[t] * (1.0 + 4.0 * sigma), "target %g at %llu keys: measured %g",
                          targets[t], (unsigned long long)n, measured);
            cr_assert_geq(measured, targets[t] * (1.0 - 8.0 * sigma), "far below the model: is it the model?");
        }
}

Test(layout_split256, options_rules_k_bits_and_the_default)
{
    bloomsimd_filter *f = NULL;
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .layout = BLOOMSIMD_LAYOUT_SPLIT256, .k = 7};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(f);
    cr_assert_str_eq(bloomsimd_last_error(), "k 7 with layout split256, which sets exactly 8 bits per key (k 0 or 8)");
    o.k = 8;
    f = test_filter(&o);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(info.k, 8u);
    cr_assert_eq(info.bits, info.blocks * 256);
    cr_assert_eq(info.memory_bytes, info.blocks * 32);
    cr_assert_str_eq(info.kernel, test_kernel());
    bloomsimd_destroy(f);

    o = (bloomsimd_options){.capacity = 10, .layout = 5};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(bloomsimd_last_error(), "layout 5 is unknown (0 the kernel's default, 2 block512, 3 split256)");
    o.layout = 1; /* retired: layout 1 was never a split256 */
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);

    /* explicit bits round up to whole 256-bit blocks */
    f = split(0, 0, 257, 0);
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.blocks, 2u);
    cr_assert_eq(info.bits, 512u);
    cr_assert_eq(info.k, 8u);
    bloomsimd_destroy(f);
    o = (bloomsimd_options){.bits = (UINT64_C(1) << 40) + 1, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_TOO_LARGE);

    /* layout 0: the kernel's default, except a k only block512 has */
    const bloomsimd_kernel *kernel = bloomsimd_kernel_lookup(test_kernel());
    cr_assert_not_null(kernel);
    o = (bloomsimd_options){.capacity = 1000, .fpr = 0.01, .kernel = test_kernel()};
    f = test_filter(&o);
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, kernel->default_layout, "kernel %s", test_kernel());
    bloomsimd_destroy(f);
    o.k = 5;
    f = test_filter(&o);
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_BLOCK512);
    cr_assert_eq(info.k, 5u);
    bloomsimd_destroy(f);
    o.k = 8;
    f = test_filter(&o);
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, kernel->default_layout);
    bloomsimd_destroy(f);
    o = (bloomsimd_options){.capacity = 1000, .fpr = 0.01, .kernel = test_kernel(), .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    f = test_filter(&o);
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_BLOCK512);
    bloomsimd_destroy(f);

    cr_assert_str_eq(bloomsimd_layout_name(BLOOMSIMD_LAYOUT_BLOCK512), "block512");
    cr_assert_str_eq(bloomsimd_layout_name(BLOOMSIMD_LAYOUT_SPLIT256), "split256");
    cr_assert_null(bloomsimd_layout_name(0));
    cr_assert_null(bloomsimd_layout_name(1));
    cr_assert_null(bloomsimd_layout_name(4));
}

/* Which layout options.layout = 0 gives, per kernel: the measured choice of
 * docs/kernels/default-layout.md (split256 on every SIMD kernel, where one
 * 256-bit or two 128-bit registers per probe made it 1.2-1.9x faster than
 * block512 in batches; block512 on the scalar reference). A kernel not named
 * here is not checked. Every compiled kernel's table entry is checked, and every
 * kernel this CPU runs makes a filter of that layout (create_with, and
 * bloomsimd_create under BLOOMSIMD_KERNEL for this run's kernel). */
Test(layout_split256, each_kernel_defaults_to_its_measured_layout)
{
    static const struct {
        const char *kernel;
        uint32_t layout;
    } decided[] = {
        {"scalar", BLOOMSIMD_LAYOUT_BLOCK512}, {"sse42", BLOOMSIMD_LAYOUT_SPLIT256},
        {"avx2", BLOOMSIMD_LAYOUT_SPLIT256},   {"avx512", BLOOMSIMD_LAYOUT_SPLIT256},
        {"neon", BLOOMSIMD_LAYOUT_SPLIT256},
    };
    unsigned checked = 0;
    for (size_t d = 0; d < sizeof decided / sizeof decided[0]; d++) {
        const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(decided[d].kernel);
        if (!kernel) continue; /* not compiled for this architecture */
        cr_assert_eq(kernel->default_layout, decided[d].layout, "kernel %s: default_layout %u, want %u",
                     decided[d].kernel, kernel->default_layout, decided[d].layout);
        checked++;
        if (!bloomsimd_kernel_supported(decided[d].kernel)) continue;
        bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .kernel = decided[d].kernel};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        cr_assert_eq(info.layout, decided[d].layout, "kernel %s", decided[d].kernel);
        bloomsimd_destroy(f);
        bloomsimd_sizing sz;
        cr_assert_eq(bloomsimd_size_for(&o, &sz), BLOOMSIMD_OK);
        cr_assert_eq(sz.layout, decided[d].layout, "size_for, kernel %s", decided[d].kernel);
        if (strcmp(decided[d].kernel, test_kernel()) == 0) {
            cr_assert_eq(test_default_layout(), decided[d].layout);
            cr_assert_eq(bloomsimd_create(&f, 1000, 0.01), BLOOMSIMD_OK);
            bloomsimd_get_info(f, &info);
            cr_assert_str_eq(info.kernel, test_kernel());
            cr_assert_eq(info.layout, decided[d].layout, "bloomsimd_create on kernel %s", test_kernel());
            bloomsimd_destroy(f);
        }
    }
    cr_assert_geq(checked, 2u, "scalar and at least one SIMD kernel are compiled on every architecture");
}

Test(layout_split256, size_for_matches_create_for_every_kind)
{
    const bloomsimd_options cases[] = {
        {.capacity = 50000, .fpr = 0.01, .layout = BLOOMSIMD_LAYOUT_SPLIT256},
        {.bits = 100000, .layout = BLOOMSIMD_LAYOUT_SPLIT256},
        {.capacity = 5000, .fpr = 0.001, .growth = 2, .layout = BLOOMSIMD_LAYOUT_SPLIT256},
        {.capacity = 5000, .fpr = 0.02, .generations = 3, .layout = BLOOMSIMD_LAYOUT_SPLIT256},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bloomsimd_options o = cases[i];
        o.kernel = test_kernel();
        bloomsimd_sizing s;
        cr_assert_eq(bloomsimd_size_for(&o, &s), BLOOMSIMD_OK, "case %zu: %s", i, bloomsimd_last_error());
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        cr_assert_eq(s.layout, BLOOMSIMD_LAYOUT_SPLIT256, "case %zu", i);
        cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256, "case %zu", i);
        cr_assert_eq(s.blocks, info.blocks, "case %zu", i);
        cr_assert_eq(s.bits, info.bits, "case %zu", i);
        cr_assert_eq(s.k, info.k, "case %zu", i);
        cr_assert_eq(s.memory_bytes, info.memory_bytes, "case %zu", i);
        cr_assert_eq(s.layers, info.layers, "case %zu", i);
        if (o.capacity) cr_assert_float_eq(s.predicted_fpr, bloomsimd_predicted_fpr(f, o.capacity), 1e-15);
        bloomsimd_destroy(f);
    }
}

Test(layout_split256, estimates_use_the_layouts_bits_and_model)
{
    const uint64_t n = 200000;
    bloomsimd_filter *f = split(n, 0.01, 0, 9);
    uint64_t *keys = test_keys(n, 63);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
    free(keys);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    /* fill: one bit per word per key; E[set] = B (1 - (1 - 8/B)^n) */
    double b = (double)info.bits;
    double expected_fill = 1.0 - pow(1.0 - 8.0 / b, (double)n);
    cr_assert_float_eq(bloomsimd_fill_ratio(f), expected_fill, 0.002);
    double est = bloomsimd_estimate_count(f);
    cr_assert_lt(fabs(est / (double)n - 1.0), 0.01, "estimate %g for %llu keys", est, (unsigned long long)n);
    bloomsimd_fill_info fill;
    bloomsimd_get_fill_info(f, &fill);
    cr_assert_float_eq(fill.fpr_now, bloomsimd_model_fpr_split256(est, (double)info.blocks, 8), 1e-15);
    cr_assert_lt(fabs(fill.fpr_now / 0.01 - 1.0), 0.05, "fpr_now %g at capacity", fill.fpr_now);
    bloomsimd_destroy(f);
}
