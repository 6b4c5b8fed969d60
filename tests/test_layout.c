/*
 * test_layout.c — keeps kernels/layout.h honest: its measured-vs-model table,
 * the word-subset tables, k against the target FPR, and huge pages.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layout.h"
#include "support.h"

/* Re-measure one row of BLOOMSIMD_FPR_TABLE: 1e6 keys in a filter of that
 * bits/key and k, >= 2000/fpr absent keys. */
static void check_row(double bits_per_key, uint32_t k, double model, double measured_in_table)
{
    if (test_quick_mode() && model < 5e-4) {
        printf("quick mode (BLOOMSIMD_TEST_QUICK): row %.2f bits/key k=%u left to the full run\n", bits_per_key, k);
        return;
    }
    const uint64_t n = 1000000;
    bloomsimd_options o = {
        .bits = (uint64_t)(bits_per_key * (double)n), .k = k, .capacity = n, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(n, 61);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
    double computed = bloomsimd_predicted_fpr(f, n);
    cr_expect_leq(fabs(computed / model - 1.0), 0.005, "table model %g, src/fpr_model.c says %g", model, computed);
    uint64_t queries = (uint64_t)(2000.0 / model), fp = 0;
    for (uint64_t done = 0; done < queries; done += n) {
        for (size_t i = 0; i < n; i++) keys[i] = test_key(777, done + i); /* absent: another stream */
        fp += bloomsimd_contains_batch_u64(f, keys, n, NULL);
    }
    double measured = (double)fp / (double)((queries + n - 1) / n * n);
    printf("%5.2f bits/key k=%-2u model %.6g (table %.6g) measured %.6g (table %.6g)\n", bits_per_key, k, computed,
           model, measured, measured_in_table);
    cr_expect_leq(fabs(measured / measured_in_table - 1.0), 0.10, "re-measured %g, table says %g", measured,
                  measured_in_table);
    free(keys);
    bloomsimd_destroy(f);
}

Test(layout, measured_vs_model_table_in_layout_h_holds)
{
#define ROW(bpk, k, model, measured) check_row(bpk, k, model, measured);
    BLOOMSIMD_FPR_TABLE(ROW)
#undef ROW
}

Test(layout, select_tables_are_balanced_k_subsets)
{
    for (uint32_t k = 1; k <= 16; k++) {
        const uint16_t *t = bloomsimd_select_tables[k - 1];
        unsigned word_uses[16] = {0}, pair_uses[16][16] = {{0}}, duplicates = 0;
        for (unsigned i = 0; i < BLOOMSIMD_SELECT_ENTRIES; i++) {
            cr_assert_eq((uint32_t)__builtin_popcount(t[i]), k, "k=%u entry %u", k, i);
            for (unsigned a = 0; a < 16; a++) {
                if (!(t[i] >> a & 1u)) continue;
                word_uses[a]++;
                for (unsigned b = a + 1; b < 16; b++) pair_uses[a][b] += t[i] >> b & 1u;
            }
            for (unsigned j = i + 1; j < BLOOMSIMD_SELECT_ENTRIES; j++) duplicates += t[i] == t[j];
        }
        for (unsigned a = 0; a < 16; a++) cr_assert_eq(word_uses[a], 4 * k, "k=%u: word %u used %u times", k, a, word_uses[a]);
        /* pair counts near the ideal 64 C(k,2) / C(16,2): each within 1.5,
         * squared deviations summing to at most 30 (the generator's cost;
         * integers alone force ~4 to ~30 depending on k) */
        double ideal = 64.0 * k * (k - 1) / 2.0 / 120.0, squares = 0.0;
        for (unsigned a = 0; a < 16; a++)
            for (unsigned b = a + 1; b < 16; b++) {
                double dev = pair_uses[a][b] - ideal;
                squares += dev * dev;
                cr_assert_lt(fabs(dev), 1.5, "k=%u pair %u,%u used %u times, ideal %.2f", k, a, b,
                             pair_uses[a][b], ideal);
            }
        cr_assert_leq(squares, 30.0, "k=%u: pair deviations %.2f", k, squares);
        /* no repeated mask where C(16,k) >= 64; otherwise every mask equally
         * often: 64 / 16 = 4 times for k = 1 and 15 (C(64,2)... pairs of
         * equal entries: 16 C(4,2) = 96), 64 times for k = 16 (C(64,2)). */
        unsigned expected_duplicates = (k == 1 || k == 15) ? 96u : (k == 16 ? 2016u : 0u);
        cr_assert_eq(duplicates, expected_duplicates, "k=%u", k);
    }
}

Test(layout, hypergeometric_formula_is_within_0_2_percent_of_the_exact_model_where_sizing_looks)
{
    /* kernels/layout.h section 5: the bound quoted there, at the k sizing
     * picks for 10% .. 1e-6 and the load it picks them for; at half and
     * twice that load the gap stays below 1%. */
    const uint32_t ks[] = {3, 6, 9, 12, 14, 16};
    const double bits_per_key[] = {4.83, 9.91, 15.55, 22.11, 29.86, 39.24};
    for (size_t i = 0; i < 6; i++) {
        for (double load = 0.5; load <= 2.0; load *= 2.0) {
            double blocks = 1e6 * bits_per_key[i] / 512.0 * load;
            double exact = bloomsimd_model_fpr(1e6, blocks, ks[i]);
            double approx = bloomsimd_model_fpr_hypergeometric(1e6, blocks, ks[i]);
            printf("k=%-2u %.2f bits/key: exact %.6g, hypergeometric %.6g (%+.3f%%), %u terms\n", ks[i],
                   bits_per_key[i] * load, exact, approx, 100.0 * (approx / exact - 1.0),
                   bloomsimd_model_term_count(ks[i]));
            cr_assert_lt(fabs(approx / exact - 1.0), load == 1.0 ? 0.002 : 0.01, "k=%u load %.1f", ks[i], load);
        }
    }
}

/* block512 only: split256 always has k 8 (test_layout_split256.c) */
Test(layout, k_follows_the_target_fpr)
{
    const double targets[] = {0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6};
    uint32_t previous = 0;
    for (size_t i = 0; i < 6; i++) {
        bloomsimd_options o = {.capacity = 1000000, .fpr = targets[i], .layout = BLOOMSIMD_LAYOUT_BLOCK512};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_BLOCK512);
        printf("target %-6g -> k=%-2u %.2f bits/key, model %.3g\n", targets[i], info.k, (double)info.bits / 1e6,
               bloomsimd_predicted_fpr(f, 1000000));
        cr_assert_geq(info.k, previous, "k must not fall as the target tightens");
        previous = info.k;
        if (i == 0) cr_assert(info.k >= 2 && info.k <= 4, "about 3 at 10%%, got %u", info.k);
        if (i == 5) cr_assert(info.k >= 14, "about 16 at 1e-6, got %u", info.k);
        bloomsimd_destroy(f);
    }
}

Test(layout, model_is_the_blocked_one_not_the_classic_formula)
{
    /* At 10 bits/key the classic formula says 0.819% (k=7); a 512-bit
     * blocked layout is ~0.96% (Putze et al.). Our model must be the latter. */
    double m = bloomsimd_model_fpr(1e6, 1e6 * 10.0 / 512.0, 7);
    cr_assert(m > 0.0094 && m < 0.0100, "model %g at 10 bits/key, k=7", m);
    /* an empty filter has no false positives */
    cr_assert_eq(bloomsimd_model_fpr(0, 1, 7), 0.0);
    /* one key in one block, k=1: same word (1/16) and same bit (1/32) */
    cr_assert_float_eq(bloomsimd_model_fpr(1, 1, 1), 1.0 / 512.0, 1e-12);
    /* k=2: the same table entry (1/64: no entry repeats) and both bits (1/32^2) */
    cr_assert_float_eq(bloomsimd_model_fpr(1, 1, 2), 1.0 / 64.0 / 1024.0, 1e-12);
    /* k=3 (no entry repeats): the same entry and all three bits */
    cr_assert_float_eq(bloomsimd_model_fpr(1, 1, 3), 1.0 / 64.0 / 32768.0, 1e-13);
}

Test(layout, filters_of_2_MiB_or_more_ask_for_huge_pages)
{
    /* qemu-user (the aarch64 CI run) reports success for madvise without
     * passing it to the host kernel, so the flag cannot appear there. */
    if (getenv("BLOOMSIMD_QEMU_USER")) cr_skip_test("qemu-user does not forward madvise; checked on native runs");
    bloomsimd_options o = {.bits = (UINT64_C(4) << 20) * 8}; /* 4 MiB */
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq((uintptr_t)f->geometry.words % 64, 0);
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (!smaps) cr_skip_test("no /proc/self/smaps");
    char line[512];
    unsigned long start = 0, end = 0;
    bool in_filter = false, hugepage_advised = false;
    uintptr_t addr = (uintptr_t)f->geometry.words;
    while (fgets(line, sizeof line, smaps)) {
        if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' '))
            in_filter = addr >= start && addr < end;
        if (in_filter && strncmp(line, "VmFlags:", 8) == 0) hugepage_advised = strstr(line, " hg") != NULL;
    }
    fclose(smaps);
    cr_assert(hugepage_advised, "the filter's mapping lacks MADV_HUGEPAGE (VmFlags hg)");
    bloomsimd_destroy(f);

    bloomsimd_options small = {.bits = 1u << 20}; /* 128 KiB: plain heap, 64-byte aligned */
    f = test_filter(&small);
    cr_assert_eq((uintptr_t)f->geometry.words % 64, 0);
    bloomsimd_destroy(f);
}
