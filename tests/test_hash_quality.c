/*
 * test_hash_quality.c — the quality gate of the 64-bit-key hashes: on the
 * structured key sets users really insert, the measured FPR stays within
 * the model's noise and no block is overloaded, on both layouts, through the
 * batch calls of this run's kernel.
 *
 * For each hash (1, XXH3; 3, mum) and layout, and each family below: a filter
 * sized for n keys at 1% gets the family's first n members, then its next q
 * members (absent by construction: every family lists distinct keys) are
 * looked up.
 *   FPR: |measured / model - 1| <= max(10%, 4.5 / sqrt(model * q)), the
 *        tolerance of tests/test_layout.c widened to 4.5 Poisson sigmas for
 *        the families with few keys;
 *   blocks: Pearson's chi-square of the keys per block against a uniform
 *        spread, as a z-score (chi2 - (B - 1)) / sqrt(2 (B - 1)), must stay
 *        <= 5: more clumping than a uniform hash shows once in millions. Only
 *        excess is refused: a set spread more evenly than chance (negative z,
 *        as strides give) lowers the FPR.
 * The families (tests/hash_families.h): 0..n-1, strides 2^1..2^48, keys
 * differing only in their top 16 or 32 bits, Snowflake ids, IPv4 addresses
 * (both byte orders), two 32-bit fields, multiples of 1000, equal halves, ~i,
 * random keys.
 * BLOOMSIMD_TEST_QUICK (the sanitizer and emulator stages): 10^5 keys a family,
 * so the FPR tolerance is wider there (4.5 sigmas of 400 false positives).
 * Rejected hashes fail here: one multiply by a constant gives 5-12% FPR on
 * multiples of 2^16 (kernels/layout.h section 1 lists what was measured).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hash_families.h"
#include "support.h"

typedef struct gate {
    size_t n, q;        /* keys in, keys looked up */
    uint64_t *keys;     /* n + q */
    uint64_t *hashes;   /* n + q */
    uint8_t *out;
    unsigned failures;
    /* NULL: the filter's own hash through its batch calls; else this hash,
     * through the hashes calls (to show that the gate refuses a bad one) */
    uint64_t (*outside)(uint64_t key);
} gate;

static void check_one(gate *g, uint32_t hash_flag, uint32_t layout, int family, unsigned j)
{
    size_t n = g->n, q = g->q;
    hash_family_sizes(family, j, &n, &q);
    for (size_t i = 0; i < n + q; i++) g->keys[i] = hash_family_member(family, j, i);
    bloomsimd_options o = {.capacity = n, .fpr = 0.01, .layout = layout, .seed = 7, .flags = hash_flag};
    bloomsimd_filter *f = test_filter(&o);
    size_t fp;
    if (g->outside) {
        for (size_t i = 0; i < n + q; i++) g->hashes[i] = g->outside(g->keys[i]);
        cr_assert_eq(bloomsimd_add_hashes(f, g->hashes, n), BLOOMSIMD_OK);
        fp = bloomsimd_contains_hashes(f, g->hashes + n, q, g->out);
    } else {
        cr_assert_eq(bloomsimd_add_batch_u64(f, g->keys, n), BLOOMSIMD_OK);
        fp = bloomsimd_contains_batch_u64(f, g->keys + n, q, g->out);
        bloomsimd_hash_batch_u64(f, g->keys, n, g->hashes);
    }
    double model = bloomsimd_predicted_fpr(f, n), measured = (double)fp / (double)q;
    double tolerance = fmax(0.10, 4.5 / sqrt(model * (double)q));

    /* keys per block, from the hashes the filter used (layout.h section 2) */
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    uint64_t blocks = info.blocks;
    uint32_t *per_block = calloc(blocks, sizeof *per_block);
    cr_assert_not_null(per_block);
    for (size_t i = 0; i < n; i++) per_block[((g->hashes[i] >> 32) * blocks) >> 32]++;
    double mean = (double)n / (double)blocks, chi2 = 0;
    for (uint64_t b = 0; b < blocks; b++) chi2 += (per_block[b] - mean) * (per_block[b] - mean) / mean;
    double z = (chi2 - (double)(blocks - 1)) / sqrt(2.0 * (double)(blocks - 1));

    const char *hash = g->outside ? "outside" : hash_flag == BLOOMSIMD_U64_MUM ? "mum" : "xxh3";
    const char *lay = bloomsimd_layout_name(layout);
    if (fabs(measured / model - 1) > tolerance) {
        g->failures++;
        if (!g->outside)
            cr_log_error("%s, %s, %s (j %u): FPR %.4f%%, model %.4f%% (%+.1f%%, tolerance %.1f%%), n %zu q %zu", hash,
                     lay, hash_family_names[family], j, 100 * measured, 100 * model, 100 * (measured / model - 1),
                     100 * tolerance, n, q);
    }
    if (z > 5) {
        g->failures++;
        if (!g->outside)
            cr_log_error("%s, %s, %s (j %u): keys per block chi-square z %.1f > 5 (%llu blocks, %zu keys)", hash, lay,
                     hash_family_names[family], j, z, (unsigned long long)blocks, n);
    }
    free(per_block);
    bloomsimd_destroy(f);
}

static unsigned run_gate(uint32_t hash_flag, uint64_t (*outside)(uint64_t))
{
    gate g = {.n = test_quick_mode() ? 100000 : 1000000, .outside = outside};
    g.q = g.n * 2 / 5;
    g.keys = malloc((g.n + g.q) * sizeof *g.keys);
    g.hashes = malloc((g.n + g.q) * sizeof *g.hashes);
    g.out = malloc(g.n + g.q);
    cr_assert(g.keys && g.hashes && g.out);
    static const uint32_t layouts[2] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
    for (int l = 0; l < 2; l++)
        for (int family = 0; family < FAM_COUNT; family++) {
            if (family == FAM_STRIDE) {
                for (unsigned j = 1; j <= HASH_FAMILY_MAX_STRIDE; j++) check_one(&g, hash_flag, layouts[l], family, j);
            } else {
                check_one(&g, hash_flag, layouts[l], family, 0);
            }
        }
    free(g.keys), free(g.hashes), free(g.out);
    return g.failures;
}

#define GATE_CHECKS (2 * 2 * (FAM_COUNT + HASH_FAMILY_MAX_STRIDE - 1))

Test(hash_quality, mum_keeps_the_model_on_structured_keys, .timeout = 600)
{
    unsigned failures = run_gate(BLOOMSIMD_U64_MUM, NULL);
    cr_assert_eq(failures, 0u, "%u of %d checks failed (above)", failures, GATE_CHECKS);
}

Test(hash_quality, xxh3_keeps_the_model_on_structured_keys, .timeout = 600)
{
    unsigned failures = run_gate(BLOOMSIMD_U64_XXH3, NULL);
    cr_assert_eq(failures, 0u, "%u of %d checks failed (above)", failures, GATE_CHECKS);
}

/* hi ^ lo of (key ^ c) * 0x9E3779B97F4A7C15: one multiply by a constant, what a
 * popular C++ filter applies to integer keys */
static uint64_t one_constant_multiply(uint64_t key)
{
    __extension__ unsigned __int128 p = (unsigned __int128)(key ^ UINT64_C(0x243F6A8885A308D3)) *
                                        UINT64_C(0x9E3779B97F4A7C15);
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

Test(hash_quality, the_gate_refuses_one_multiply_by_a_constant, .timeout = 600)
{
    unsigned failures = run_gate(0, one_constant_multiply);
    cr_assert_geq(failures, 8u, "a hash known to fail (5-12%% FPR on multiples of 2^16) failed only %u checks",
                  failures);
}
