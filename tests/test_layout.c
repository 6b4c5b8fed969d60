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
    bloomsimd_options o = {.bits = (uint64_t)(bits_per_key * (double)n), .k = k, .capacity = n};
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

Test(layout, subset_tables_list_every_k_subset_of_16_once_in_ascending_order)
{
    for (uint32_t k = 1; k <= 16; k++) {
        uint32_t count;
        const uint16_t *masks = bloomsimd_subsets(k, &count);
        uint64_t binom = 1;
        for (uint32_t i = 1; i <= k; i++) binom = binom * (16 - k + i) / i;
        cr_assert_eq(count, binom, "k=%u", k);
        for (uint32_t i = 0; i < count; i++) {
            cr_assert_eq((uint32_t)__builtin_popcount(masks[i]), k);
            if (i) cr_assert_gt(masks[i], masks[i - 1]);
        }
    }
}

Test(layout, k_follows_the_target_fpr)
{
    const double targets[] = {0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6};
    uint32_t previous = 0;
    for (size_t i = 0; i < 6; i++) {
        bloomsimd_options o = {.capacity = 1000000, .fpr = targets[i]};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
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
    /* k=2: same 2-subset (1/C(16,2)) and both bits (1/32^2) */
    cr_assert_float_eq(bloomsimd_model_fpr(1, 1, 2), 1.0 / 120.0 / 1024.0, 1e-12);
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
