/*
 * test_fpr.c — measured false-positive rate against the target and the model.
 *
 * For each layout (block512, split256), n in {1e3, 1e5, 1e6} and p in
 * {0.1, 0.01, 1e-3, 1e-4}:
 *   - measured FPR <= 1.10 p                 (we never give users more than they asked for)
 *   - |measured / bloomsimd_predicted_fpr - 1| <= 15%   (the model is the layout's)
 *   - bits/key <= 1.05 x the layout model's minimum (one whole block of
 *     rounding allowed where 5% of the filter is less than one block: n=1e3)
 *
 * Statistical power: 2000/p absent keys per case, i.e. ~2000 expected false
 * positives, so the Poisson noise is ~2.2% (the 15% bound is ~7 sigma). The
 * model is an expectation over random key sets; one small filter (n = 1e3,
 * a dozen blocks) deviates from it by tens of percent, so small n averages
 * over many independently seeded filters (R * n >= 3e5 keys inserted).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "support.h"

/* The layout model's minimum bits/key for target p: the Poisson limit (n ->
 * inf at a fixed load), best k (split256: k is 8), found by bisection on the
 * load n/m. */
static double model_min_bits_per_key(uint32_t layout, double p)
{
    double best = INFINITY;
    const double n = 1e12, block = (double)test_block_bits(layout);
    const uint32_t k_lo = layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 8 : 1, k_hi = layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 8 : 16;
    for (uint32_t k = k_lo; k <= k_hi; k++) {
        double lo = 0.01, hi = 10000.0; /* bits per key */
        if (bloomsimd_layout_model_fpr(layout, n, n * hi / block, k) > p) continue;
        for (int it = 0; it < 100; it++) {
            double mid = 0.5 * (lo + hi);
            if (bloomsimd_layout_model_fpr(layout, n, n * mid / block, k) <= p)
                hi = mid;
            else
                lo = mid;
        }
        if (hi < best) best = hi;
    }
    return best;
}

static void check_fpr(uint32_t layout, uint64_t n, double p)
{
    const uint64_t queries = (uint64_t)(2000.0 / p);
    const unsigned instances = n >= 1000000 ? 1 : (unsigned)(300000 / n);
    const uint64_t per_instance = queries / instances + 1;
    uint64_t *keys = test_keys(n, 51);
    const size_t chunk = 1u << 20;
    uint64_t *absent = malloc(chunk * sizeof *absent);
    uint64_t false_pos = 0, asked = 0;
    double predicted = 0, bits_per_key = 0;
    uint32_t k = 0;
    for (unsigned r = 0; r < instances; r++) {
        bloomsimd_options o = {.capacity = n, .fpr = p, .seed = r * 7919u + 1, .layout = layout};
        bloomsimd_filter *f = test_filter(&o);
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        predicted = bloomsimd_predicted_fpr(f, n);
        bits_per_key = (double)info.bits / (double)n;
        k = info.k;
        cr_assert_eq(info.layout, layout);
        /* absent keys: a different stream per instance, disjoint from `keys` */
        for (uint64_t done = 0; done < per_instance; done += chunk) {
            size_t take = per_instance - done < chunk ? (size_t)(per_instance - done) : chunk;
            for (size_t i = 0; i < take; i++) absent[i] = test_key(1000 + r, done + i);
            false_pos += bloomsimd_contains_batch_u64(f, absent, take, NULL);
            asked += take;
        }
        bloomsimd_destroy(f);
    }
    double measured = (double)false_pos / (double)asked;
    double min_bits = model_min_bits_per_key(layout, p);
    double allowed_bits = fmax(1.05 * min_bits, min_bits + (double)test_block_bits(layout) / (double)n);
    printf("%s n=%-8llu p=%-7g k=%-2u bits/key=%6.3f (model min %6.3f) predicted=%.6f measured=%.6f (%llu FP / "
           "%llu, %u filters)\n",
           bloomsimd_layout_name(layout), (unsigned long long)n, p, k, bits_per_key, min_bits, predicted, measured, (unsigned long long)false_pos,
           (unsigned long long)asked, instances);
    const char *name = bloomsimd_layout_name(layout);
    cr_expect_leq(measured, 1.10 * p, "%s n=%llu p=%g: measured %g exceeds 1.10 p", name, (unsigned long long)n, p,
                  measured);
    cr_expect_leq(fabs(measured / predicted - 1.0), 0.15, "%s n=%llu p=%g: measured %g vs model %g", name,
                  (unsigned long long)n, p, measured, predicted);
    cr_expect_leq(predicted, p, "%s: sizing must meet the target in the model", name);
    cr_expect_leq(bits_per_key, allowed_bits, "%s n=%llu p=%g: %g bits/key, model minimum %g", name,
                  (unsigned long long)n, p, bits_per_key, min_bits);
    free(keys), free(absent);
}

static void check_targets(uint64_t n)
{
    const double smallest = test_quick_mode() ? 5e-4 : 5e-5;
    for (double p = 0.1; p > smallest; p /= 10) {
        check_fpr(BLOOMSIMD_LAYOUT_BLOCK512, n, p);
        check_fpr(BLOOMSIMD_LAYOUT_SPLIT256, n, p);
    }
    if (test_quick_mode()) printf("quick mode (BLOOMSIMD_TEST_QUICK): p=1e-4 for n=%llu left to the full run\n",
                                  (unsigned long long)n);
}

Test(fpr, n_1e3) { check_targets(1000); }
Test(fpr, n_1e5) { check_targets(100000); }
Test(fpr, n_1e6) { check_targets(1000000); }
