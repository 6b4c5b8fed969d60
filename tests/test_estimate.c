/*
 * test_estimate.c — fill ratio and the key-count estimate (docs/ESTIMATES.md).
 *
 * Invariants: fill_ratio is the exact fraction of set bits; estimate_count
 * is 0 for an empty filter, the documented finite bound for a full one
 * (get_fill_info: saturated, FPR now 1), within ±5% of the true
 * count from 10^3 to 10^7 keys up to capacity in both layouts, and in
 * block512 within 5 standard deviations of the exact variance model below
 * (which a Monte Carlo test also checks) up to and beyond capacity. Keys are
 * deterministic and every kernel builds the same bytes, so these tests do
 * not flake: a failure means the estimator or the kernel is wrong.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* docs/ESTIMATES.md, "Variance": Var(X) for X set bits of B = 512 m after n
 * keys, exact for uniform hashes; then the delta method for n^. */
static double model_var_set_bits(double n, double bits, double k)
{
    double p = k / bits, clear = exp(n * log1p(-p));
    double both = k * (k - 1.0) / (480.0 * bits);
    double q = p / (1.0 - p);
    double cov_apart = clear * clear * expm1(n * log1p(-q * q));
    double cov_block = clear * clear * expm1(n * log1p((both - p * p) / ((1.0 - p) * (1.0 - p))));
    return bits * clear * (1.0 - clear) + bits * (bits - 481.0) * cov_apart + 480.0 * bits * cov_block;
}

static double model_sd_estimate(double n, double bits, double k)
{
    double p = k / bits, clear = exp(n * log1p(-p));
    return sqrt(model_var_set_bits(n, bits, k)) / (bits * clear * -log1p(-p));
}

static uint64_t direct_popcount(const bloomsimd_filter *f)
{
    const uint64_t *w = (const uint64_t *)(const void *)f->geometry.words;
    uint64_t total = 0;
    for (size_t i = 0; i < bloomsimd_filter_bytes(f) / 8; i++) total += (uint64_t)__builtin_popcountll(w[i]);
    return total;
}

/* Adds keys [from, to) of a splitmix64 stream, in chunks. */
static void add_stream(bloomsimd_filter *f, uint64_t *state, uint64_t from, uint64_t to)
{
    enum { CHUNK = 1 << 14 };
    static uint64_t buf[CHUNK];
    while (from < to) {
        size_t n = to - from < CHUNK ? (size_t)(to - from) : CHUNK;
        for (size_t i = 0; i < n; i++) buf[i] = test_splitmix64(state);
        cr_assert_eq(bloomsimd_add_batch_u64(f, buf, n), BLOOMSIMD_OK);
        from += n;
    }
}

Test(estimate, null_filter_gives_nan)
{
    cr_assert(isnan(bloomsimd_estimate_count(NULL)));
    cr_assert(isnan(bloomsimd_fill_ratio(NULL)));
}

Test(estimate, empty_filter_counts_zero)
{
    bloomsimd_options o = {.capacity = 100000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq(bloomsimd_fill_ratio(f), 0.0);
    double e = bloomsimd_estimate_count(f);
    cr_assert(e == 0.0 && !signbit(e), "empty estimate %g", e);
    bloomsimd_destroy(f);
}

Test(estimate, one_key_sets_exactly_k_bits)
{
    for (uint32_t k = 1; k <= 16; k++) {
        bloomsimd_options o = {.bits = 512 * 10, .k = k};
        bloomsimd_filter *f = test_filter(&o);
        cr_assert_eq(bloomsimd_add_u64(f, 12345), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_fill_ratio(f), (double)k / (512.0 * 10), "k=%u", k);
        cr_assert_float_eq(bloomsimd_estimate_count(f), 1.0, 1e-9, "k=%u", k);
        bloomsimd_destroy(f);
    }
}

/* ln(1/B) / ln(1 - k/B): the estimate with one clear bit, which a full
 * filter of B bits reports (include/bloomsimd.h, docs/ESTIMATES.md). */
static double saturation_bound(double bits, double k) { return log(1.0 / bits) / log1p(-k / bits); }

Test(estimate, saturated_filter_gives_the_documented_bound)
{
    /* One block, k = 16: each key sets one bit in every word, so a bit stays
     * clear after n keys with probability (31/32)^n; 20000 keys fill it. */
    bloomsimd_options o = {.bits = 512, .k = 16};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t state = 1;
    add_stream(f, &state, 0, 90); /* 512 (31/32)^90 = 29 clear bits expected */
    bloomsimd_fill_info info;
    bloomsimd_get_fill_info(f, &info);
    double partial = bloomsimd_estimate_count(f);
    cr_assert(bloomsimd_fill_ratio(f) < 1.0 && info.saturated, "a few clear bits left: saturated already");
    cr_assert(partial < saturation_bound(512, 16), "%g", partial);
    add_stream(f, &state, 90, 20000);
    cr_assert_eq(bloomsimd_fill_ratio(f), 1.0);
    double e = bloomsimd_estimate_count(f);
    cr_assert(isfinite(e));
    cr_assert_float_eq(e, saturation_bound(512, 16), 1e-9 * e, "estimate %g", e);
    cr_assert(e > 120.0 && e < 200.0, "(B/k) ln B = 199.7 for B = 512, k = 16: %g", e);
    bloomsimd_get_fill_info(f, &info);
    cr_assert(info.saturated);
    cr_assert_eq(info.estimated_items, e);
    cr_assert_eq(info.fpr_now, 1.0);
    bloomsimd_destroy(f);
}

/* The dedup case: a filter fed 7x its capacity. It is not
 * saturated, its estimate is finite and close, and the FPR now it reports
 * is the FPR measured on absent keys. */
static void check_overfull(bloomsimd_filter *f, uint64_t inserted, double estimate_tolerance)
{
    bloomsimd_fill_info info;
    bloomsimd_get_fill_info(f, &info);
    cr_assert(isfinite(info.estimated_items));
    cr_assert_eq(info.estimated_items, bloomsimd_estimate_count(f));
    cr_assert(fabs(info.estimated_items / (double)inserted - 1.0) < estimate_tolerance, "estimate %.0f of %llu",
              info.estimated_items, (unsigned long long)inserted);
    enum { QUERIES = 1 << 19 };
    uint64_t *absent = test_keys(QUERIES, 7);
    size_t hits = bloomsimd_contains_batch_u64(f, absent, QUERIES, NULL);
    free(absent);
    double measured = (double)hits / QUERIES;
    /* binomial sd at FPR p over 2^19 queries, 6 sd, plus the 1% the model
     * and the estimate may be off by at this load */
    double sd = sqrt(measured * (1.0 - measured) / QUERIES);
    cr_assert(fabs(info.fpr_now - measured) < 6.0 * sd + 0.01 * measured, "FPR now %.5f, measured %.5f",
              info.fpr_now, measured);
    bloomsimd_info target;
    bloomsimd_get_info(f, &target);
    cr_assert(info.fpr_now > 10.0 * target.fpr, "FPR now %.4f against the target %.4f", info.fpr_now, target.fpr);
    cr_assert_eq(info.fill_ratio, bloomsimd_fill_ratio(f));
}

Test(estimate, seven_times_capacity_reports_fpr_now_and_stays_finite)
{
    bloomsimd_options o = {.capacity = 200000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(1400000, 3);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 1400000), BLOOMSIMD_OK);
    bloomsimd_fill_info info;
    bloomsimd_get_fill_info(f, &info);
    cr_assert(!info.saturated, "about 28000 of 1.98M bits are still clear");
    check_overfull(f, 1400000, 0.01);
    bloomsimd_destroy(f);

    /* a window: one generation 7x over, the others empty */
    o = (bloomsimd_options){.capacity = 20000, .fpr = 0.01, .generations = 3};
    f = test_filter(&o);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 140000), BLOOMSIMD_OK);
    check_overfull(f, 140000, 0.02);
    /* and a full one: saturated, the bound, FPR now 1 */
    cr_assert_eq(bloomsimd_rotate(f), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 1400000), BLOOMSIMD_OK);
    bloomsimd_get_fill_info(f, &info);
    cr_assert(info.saturated && isfinite(info.estimated_items));
    cr_assert_eq(info.fpr_now, 1.0);
    bloomsimd_destroy(f);
    free(keys);
}

Test(estimate, layered_filters_sum_their_layers)
{
    /* a scalable filter grown by 7x its first capacity: keys counted by
     * add_new, so every layer is filled to its own capacity */
    bloomsimd_options o = {.capacity = 20000, .fpr = 0.01, .growth = 2};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(140000, 4);
    size_t fresh = 0;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, keys, 140000, NULL, &fresh), BLOOMSIMD_OK);
    bloomsimd_fill_info info;
    bloomsimd_get_fill_info(f, &info);
    bloomsimd_info shape;
    bloomsimd_get_info(f, &shape);
    cr_assert(shape.layers >= 3, "%u layers", shape.layers);
    cr_assert(!info.saturated);
    cr_assert(fabs(info.estimated_items / (double)fresh - 1.0) < 0.02, "estimate %.0f of %zu new keys",
              info.estimated_items, fresh);
    /* the chain keeps its target: FPR now at most fpr, and the model agrees
     * with the layers' predicted FPR at the keys they hold */
    cr_assert(info.fpr_now <= shape.fpr * 1.05, "FPR now %g, target %g", info.fpr_now, shape.fpr);
    cr_assert_eq(info.fill_ratio, bloomsimd_fill_ratio(f));
    cr_assert(fabs(info.fpr_now - bloomsimd_predicted_fpr(f, fresh)) < 0.1 * info.fpr_now, "%g vs %g",
              info.fpr_now, bloomsimd_predicted_fpr(f, fresh));
    bloomsimd_destroy(f);
    free(keys);
}

Test(estimate, fill_ratio_is_the_exact_fraction_of_set_bits)
{
    const uint32_t flags[] = {0, BLOOMSIMD_CONCURRENT};
    for (size_t i = 0; i < 2; i++) {
        bloomsimd_options o = {.bits = 512 * 777, .k = 7, .flags = flags[i]};
        bloomsimd_filter *f = test_filter(&o);
        uint64_t state = 99;
        add_stream(f, &state, 0, 30000);
        uint64_t set = direct_popcount(f);
        cr_assert(set > 0);
        cr_assert_eq(bloomsimd_fill_ratio(f), (double)set / (512.0 * 777));
        bloomsimd_destroy(f);
    }
}

/* n^ against n at each checkpoint; `tolerance` is relative, `sigmas` scales
 * the model's standard deviation (0 to skip that check; the variance model
 * above is block512's: its 480 = 512 - 32 counts the other bits of a block). */
static void check_estimates_in(uint32_t layout, uint64_t capacity, double fpr, const double *multiples, size_t count,
                               double tolerance, double sigmas)
{
    bloomsimd_options o = {.capacity = capacity, .fpr = fpr, .seed = capacity ^ (uint64_t)(1 / fpr), .layout = layout};
    bloomsimd_filter *f = test_filter(&o);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(info.layout, layout);
    cr_assert(sigmas == 0 || layout == BLOOMSIMD_LAYOUT_BLOCK512, "the variance model is block512's");
    uint64_t state = capacity * 31 + (uint64_t)(1 / fpr), done = 0;
    for (size_t c = 0; c < count; c++) {
        uint64_t n = (uint64_t)(multiples[c] * (double)capacity);
        add_stream(f, &state, done, n);
        done = n;
        double est = bloomsimd_estimate_count(f);
        double err = (est - (double)n) / (double)n;
        cr_assert(fabs(err) <= tolerance, "%s capacity %llu fpr %g k %u: %llu keys estimated %.1f (%+.3f%%)",
                  bloomsimd_layout_name(layout), (unsigned long long)capacity, fpr, info.k, (unsigned long long)n, est, 100 * err);
        if (sigmas > 0) {
            double sd = model_sd_estimate((double)n, (double)info.bits, info.k);
            cr_assert(fabs(est - (double)n) <= sigmas * sd,
                      "capacity %llu fpr %g: %llu keys estimated %.1f, %.1f model sd away",
                      (unsigned long long)capacity, fpr, (unsigned long long)n, est, (est - (double)n) / sd);
        }
    }
    bloomsimd_destroy(f);
}

static void check_estimates(uint64_t capacity, double fpr, const double *multiples, size_t count, double tolerance,
                            double sigmas)
{
    check_estimates_in(BLOOMSIMD_LAYOUT_BLOCK512, capacity, fpr, multiples, count, tolerance, sigmas);
}

/* block512 within 5% and 5 model sd; split256 within 5%. */
Test(estimate, within_5_percent_from_1e3_to_1e7_keys_up_to_capacity, .timeout = 300)
{
    const double fprs[] = {0.1, 0.01, 0.001};
    const double upto[] = {0.1, 0.25, 0.5, 0.75, 1.0};
    for (uint64_t capacity = 1000; capacity <= 1000000; capacity *= 10)
        for (size_t i = 0; i < 3; i++) {
            check_estimates(capacity, fprs[i], upto, 5, 0.05, 5);
            check_estimates_in(BLOOMSIMD_LAYOUT_SPLIT256, capacity, fprs[i], upto, 5, 0.05, 0);
        }
    /* 10^7 keys: two targets, at 1e6 .. 1e7 keys. Not in the sanitizer and
     * emulator stages (test_quick_mode): the model is the same at 10^6, and
     * those stages check memory and instructions, which 10^6 keys exercise. */
    if (test_quick_mode()) return;
    check_estimates(10000000, 0.01, upto, 5, 0.05, 5);
    check_estimates(10000000, 0.001, upto, 5, 0.05, 5);
    check_estimates_in(BLOOMSIMD_LAYOUT_SPLIT256, 10000000, 0.01, upto, 5, 0.05, 0);
}

/* The document's error beyond capacity: relative sd about
 * sqrt((e^L - 1 - L) / B) / L at load L = n k / B (table in ESTIMATES.md),
 * checked here against the exact model at 5 sd. */
Test(estimate, beyond_capacity_within_the_documented_error, .timeout = 300)
{
    const double fprs[] = {0.1, 0.01, 0.001};
    const double beyond[] = {2.0, 4.0, 8.0};
    /* to 10^5 in the sanitizer and emulator stages (test_quick_mode) */
    const uint64_t largest = test_quick_mode() ? 100000 : 1000000;
    for (uint64_t capacity = 1000; capacity <= largest; capacity *= 10)
        for (size_t i = 0; i < 3; i++) check_estimates(capacity, fprs[i], beyond, 3, 1.0, 5);
}

Test(estimate, union_counts_the_union)
{
    bloomsimd_options o = {.capacity = 200000, .fpr = 0.01};
    bloomsimd_filter *a = test_filter(&o), *b = test_filter(&o);
    uint64_t sa = 5, sb = 5; /* b repeats the first 50000 keys of a, then 100000 of its own */
    add_stream(a, &sa, 0, 100000);
    add_stream(b, &sb, 0, 50000);
    uint64_t other = UINT64_C(1) << 50;
    add_stream(b, &other, 0, 100000);
    cr_assert_eq(bloomsimd_union(a, b), BLOOMSIMD_OK);
    double est = bloomsimd_estimate_count(a);
    cr_assert(fabs(est - 200000) <= 0.05 * 200000, "union of 200000 distinct keys estimated %.0f", est);
    bloomsimd_destroy(a);
    bloomsimd_destroy(b);
}

/* The variance model itself: many small filters (4 blocks, B = 2048) at
 * loads 0.5 .. 4, 1000 each; the sample sd of n^ must match the model
 * within 15% (the sample sd of 1000 draws has a relative sd of ~2.2%). */
Test(estimate, sample_variance_matches_the_documented_model)
{
    const uint32_t ks[] = {2, 7, 16};
    const double loads[] = {0.5, 1.0, 2.0, 4.0};
    enum { TRIALS = 1000 };
    uint64_t state = 2024;
    for (size_t ki = 0; ki < 3; ki++) {
        for (size_t li = 0; li < 4; li++) {
            uint32_t k = ks[ki];
            double bits = 2048;
            uint64_t n = (uint64_t)(loads[li] * bits / k + 0.5);
            double sum = 0, sum2 = 0;
            for (int t = 0; t < TRIALS; t++) {
                bloomsimd_options o = {.bits = 2048, .k = k, .seed = (uint64_t)t};
                bloomsimd_filter *f = test_filter(&o);
                add_stream(f, &state, 0, n);
                double e = bloomsimd_estimate_count(f);
                sum += e;
                sum2 += e * e;
                bloomsimd_destroy(f);
            }
            double mean = sum / TRIALS, sd = sqrt(sum2 / TRIALS - mean * mean);
            double model = model_sd_estimate((double)n, bits, k);
            cr_assert(fabs(sd / model - 1) < 0.15, "k %u load %g: sample sd %.3f, model %.3f", k, loads[li], sd, model);
            cr_assert(fabs(mean - (double)n) < 5 * model / sqrt(TRIALS) + 0.01 * n, "k %u load %g: mean %.2f vs %llu",
                      k, loads[li], mean, (unsigned long long)n);
        }
    }
}
